//! Any box shape: a candidate mask per cell, naked and hidden singles to a fixpoint, and
//! branching on the cell with the fewest candidates.

use super::StopReason;
use super::control::{Control, SearchResult};
use crate::grid::{Grid, Shape};

/// Which cells see which, computed once per solve.
struct Layout {
    side: usize,
    /// `peer_count` peers per cell, cell after cell.
    peers: Vec<u16>,
    peer_count: usize,
    /// `side` cells per house: rows, then columns, then boxes.
    houses: Vec<u16>,
}

impl Layout {
    fn new(shape: Shape) -> Layout {
        let side = shape.side();
        let mut houses = Vec::with_capacity(3 * side * side);
        houses.extend((0..side * side).map(|i| i as u16));
        houses.extend((0..side).flat_map(|c| (0..side).map(move |r| (r * side + c) as u16)));
        for b in 0..side {
            let (top, left) = (
                b / (side / shape.box_cols()) * shape.box_rows(),
                b % (side / shape.box_cols()) * shape.box_cols(),
            );
            for r in top..top + shape.box_rows() {
                houses.extend((left..left + shape.box_cols()).map(|c| (r * side + c) as u16));
            }
        }
        let peer_count = 3 * (side - 1) - (shape.box_rows() - 1) - (shape.box_cols() - 1);
        let mut peers = Vec::with_capacity(side * side * peer_count);
        let mut seen = vec![usize::MAX; side * side];
        for cell in 0..side * side {
            let (r, c) = (cell / side, cell % side);
            let mine = [r, side + c, 2 * side + shape.box_of(r, c)];
            for h in mine {
                for &p in &houses[h * side..(h + 1) * side] {
                    if p as usize != cell && seen[p as usize] != cell {
                        seen[p as usize] = cell;
                        peers.push(p);
                    }
                }
            }
        }
        debug_assert_eq!(peers.len(), side * side * peer_count);
        Layout {
            side,
            peers,
            peer_count,
            houses,
        }
    }

    fn peers(&self, cell: usize) -> &[u16] {
        &self.peers[cell * self.peer_count..(cell + 1) * self.peer_count]
    }

    fn house(&self, h: usize) -> &[u16] {
        &self.houses[h * self.side..(h + 1) * self.side]
    }
}

#[derive(Clone)]
struct State {
    /// Candidate digits per cell, bit d for digit d + 1.
    cand: Vec<u64>,
    /// Placed value per cell, 0 while open.
    value: Vec<u8>,
    open: usize,
}

impl State {
    /// Places `digit` (0-based) and removes it from the peers; false on contradiction.
    fn assign(&mut self, layout: &Layout, cell: usize, digit: u32, queue: &mut Vec<u16>) -> bool {
        let bit = 1u64 << digit;
        if self.cand[cell] & bit == 0 {
            return false;
        }
        self.cand[cell] = bit;
        self.value[cell] = digit as u8 + 1;
        self.open -= 1;
        for &p in layout.peers(cell) {
            let p = p as usize;
            let m = self.cand[p];
            if m & bit != 0 {
                let rest = m & !bit;
                if rest == 0 {
                    return false;
                }
                self.cand[p] = rest;
                if rest & (rest - 1) == 0 {
                    queue.push(p as u16);
                }
            }
        }
        true
    }

    /// Naked and hidden singles to a fixpoint; false on contradiction.
    fn propagate(&mut self, layout: &Layout, queue: &mut Vec<u16>) -> bool {
        let full = if layout.side == 64 {
            u64::MAX
        } else {
            (1u64 << layout.side) - 1
        };
        loop {
            while let Some(cell) = queue.pop() {
                let cell = cell as usize;
                if self.value[cell] == 0
                    && !self.assign(layout, cell, self.cand[cell].trailing_zeros(), queue)
                {
                    return false;
                }
            }
            if self.open == 0 {
                return true;
            }
            let mut progress = false;
            for h in 0..3 * layout.side {
                let (mut ones, mut twos, mut placed) = (0u64, 0u64, 0u64);
                for &c in layout.house(h) {
                    let m = self.cand[c as usize];
                    twos |= ones & m;
                    ones |= m;
                    if self.value[c as usize] != 0 {
                        placed |= m;
                    }
                }
                if ones != full {
                    return false;
                }
                let mut once = ones & !twos & !placed;
                while once != 0 {
                    let digit = once.trailing_zeros();
                    once &= once - 1;
                    let bit = 1u64 << digit;
                    let Some(&cell) = layout
                        .house(h)
                        .iter()
                        .find(|&&c| self.cand[c as usize] & bit != 0)
                    else {
                        return false;
                    };
                    if self.value[cell as usize] == 0 {
                        if !self.assign(layout, cell as usize, digit, queue) {
                            return false;
                        }
                        progress = true;
                    }
                }
            }
            if !progress && queue.is_empty() {
                return true;
            }
        }
    }

    /// The open cell with the fewest candidates.
    fn pick(&self) -> usize {
        let mut best = (u32::MAX, 0);
        for (cell, (&m, &v)) in self.cand.iter().zip(&self.value).enumerate() {
            if v == 0 {
                let n = m.count_ones();
                if n < best.0 {
                    best = (n, cell);
                    if n <= 2 {
                        break;
                    }
                }
            }
        }
        best.1
    }
}

/// Searches a grid of any shape, reporting solutions to `control`.
pub(crate) fn search(grid: &Grid, control: &mut Control) -> SearchResult {
    let layout = Layout::new(grid.shape());
    let side = grid.side();
    let all = (1u64 << side) - 1;
    let mut state = State {
        cand: vec![all; side * side],
        value: vec![0; side * side],
        open: side * side,
    };
    let mut queue = Vec::with_capacity(side * side);
    for (cell, &v) in grid.cells().iter().enumerate() {
        if v != 0 && !state.assign(&layout, cell, u32::from(v - 1), &mut queue) {
            return Ok(());
        }
    }
    recurse(&layout, &mut state, &mut queue, control).map(|_| ())
}

/// `Ok(true)` once the solution limit is reached.
fn recurse(
    layout: &Layout,
    state: &mut State,
    queue: &mut Vec<u16>,
    control: &mut Control,
) -> Result<bool, StopReason> {
    if !state.propagate(layout, queue) {
        queue.clear();
        return Ok(false);
    }
    if state.open == 0 {
        return Ok(control.solution(&state.value));
    }
    let cell = state.pick();
    let mut digits = state.cand[cell];
    while digits != 0 {
        let digit = digits.trailing_zeros();
        digits &= digits - 1;
        control.guess()?;
        if digits == 0 {
            if !state.assign(layout, cell, digit, queue) {
                queue.clear();
                return Ok(false);
            }
            return recurse(layout, state, queue, control);
        }
        let mut child = state.clone();
        if child.assign(layout, cell, digit, queue) {
            if recurse(layout, &mut child, queue, control)? {
                return Ok(true);
            }
        } else {
            queue.clear();
        }
    }
    Ok(false)
}
