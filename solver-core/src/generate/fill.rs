//! Random complete grids: depth-first search on the cell with fewest candidates, digits in
//! random order, restarted when it wanders into a long dead end.

use super::rng::Random;
use crate::grid::{Grid, Shape};
use crate::solve::{Options, Outcome, Report, solve};

/// Dead ends allowed per cell before a fill starts over: large grids occasionally paint
/// themselves into a corner that takes far longer to back out of than a fresh start.
const DEAD_ENDS_PER_CELL: usize = 4;

/// Candidate bookkeeping for one fill.
struct Fill<'a> {
    shape: Shape,
    side: usize,
    /// Digits used per row, column and box (bit d for digit d + 1).
    rows: Vec<u64>,
    cols: Vec<u64>,
    boxes: Vec<u64>,
    box_of: Vec<usize>,
    values: Vec<u8>,
    /// Cells in a random order, so ties between equally constrained cells break at random.
    order: Vec<usize>,
    dead_ends: usize,
    rng: &'a mut Random,
}

impl Fill<'_> {
    fn candidates(&self, cell: usize) -> u64 {
        let full = (1u64 << self.side) - 1;
        let (r, c) = (cell / self.side, cell % self.side);
        full & !(self.rows[r] | self.cols[c] | self.boxes[self.box_of[cell]])
    }

    fn set(&mut self, cell: usize, digit: u32, on: bool) {
        let bit = 1u64 << digit;
        let (r, c, b) = (cell / self.side, cell % self.side, self.box_of[cell]);
        if on {
            self.rows[r] |= bit;
            self.cols[c] |= bit;
            self.boxes[b] |= bit;
            self.values[cell] = digit as u8 + 1;
        } else {
            self.rows[r] &= !bit;
            self.cols[c] &= !bit;
            self.boxes[b] &= !bit;
            self.values[cell] = 0;
        }
    }

    /// The open cell with fewest candidates and its candidates; `None` when all are filled.
    fn pick(&self) -> Option<(usize, u64)> {
        let mut best: Option<(usize, u64)> = None;
        for &cell in &self.order {
            if self.values[cell] != 0 {
                continue;
            }
            let cand = self.candidates(cell);
            if best.is_none_or(|(_, b)| cand.count_ones() < b.count_ones()) {
                best = Some((cell, cand));
                if cand.count_ones() <= 1 {
                    break;
                }
            }
        }
        best
    }

    /// `Some(true)` once complete, `Some(false)` on a dead end, `None` when out of dead ends.
    fn search(&mut self) -> Option<bool> {
        let Some((cell, mut cand)) = self.pick() else {
            return Some(true);
        };
        while cand != 0 {
            let digit = self.rng.pick_bit(cand);
            cand &= !(1u64 << digit);
            self.set(cell, digit, true);
            if self.search()? {
                return Some(true);
            }
            self.set(cell, digit, false);
        }
        self.dead_ends += 1;
        (self.dead_ends <= DEAD_ENDS_PER_CELL * self.side * self.side).then_some(false)
    }
}

/// Guesses allowed when the fast solver completes random diagonal boxes; completing takes a
/// handful, and a rare stubborn case falls back to the general fill.
const COMPLETION_GUESSES: u64 = 1000;

/// A random complete grid of the shape.
pub(crate) fn random_solution(shape: Shape, rng: &mut Random) -> Grid {
    if shape == Shape::CLASSIC
        && let Some(grid) = classic_solution(rng)
    {
        return grid;
    }
    dfs_solution(shape, rng)
}

/// A random 9×9 grid, ten times faster than the general fill: random digits in the three
/// diagonal boxes (which share no row, column or box, so any filling is consistent), the fast
/// solver completes them, and a random relabelling, band, stack, row and column shuffle and
/// transposition spread the completion over the solver's deterministic choices.
fn classic_solution(rng: &mut Random) -> Option<Grid> {
    let mut cells = [0u32; 81];
    for b in 0..3 {
        let mut digits: [u32; 9] = std::array::from_fn(|d| d as u32 + 1);
        rng.shuffle(&mut digits);
        for (k, &d) in digits.iter().enumerate() {
            cells[(3 * b + k / 3) * 9 + 3 * b + k % 3] = d;
        }
    }
    let seeded = Grid::new(Shape::CLASSIC, &cells).ok()?;
    let options = Options {
        max_solutions: 1,
        max_guesses: Some(COMPLETION_GUESSES),
        ..Options::default()
    };
    let Ok(Report {
        outcome: Outcome::Solved(done),
        ..
    }) = solve(&seeded, &options)
    else {
        return None;
    };
    let lines = |rng: &mut Random| {
        let mut bands = [0usize, 1, 2];
        rng.shuffle(&mut bands);
        let mut order = [0usize; 9];
        for (i, &band) in bands.iter().enumerate() {
            let mut rows = [0usize, 1, 2];
            rng.shuffle(&mut rows);
            for (j, &r) in rows.iter().enumerate() {
                order[3 * i + j] = 3 * band + r;
            }
        }
        order
    };
    let (rows, cols) = (lines(rng), lines(rng));
    let mut relabel: [u8; 10] = std::array::from_fn(|d| d as u8);
    rng.shuffle(&mut relabel[1..]);
    let transpose = rng.below(2) == 1;
    let mut out = vec![0u8; 81];
    for (i, v) in out.iter_mut().enumerate() {
        let (r, c) = if transpose {
            (i % 9, i / 9)
        } else {
            (i / 9, i % 9)
        };
        *v = relabel[usize::from(done.get(rows[r], cols[c]))];
    }
    Some(Grid::solved(Shape::CLASSIC, out.into()))
}

/// A random complete grid of any shape by randomized depth-first search.
fn dfs_solution(shape: Shape, rng: &mut Random) -> Grid {
    let side = shape.side();
    let box_of = (0..side * side)
        .map(|i| shape.box_of(i / side, i % side))
        .collect::<Vec<_>>();
    loop {
        let mut order: Vec<usize> = (0..side * side).collect();
        rng.shuffle(&mut order);
        let mut fill = Fill {
            shape,
            side,
            rows: vec![0; side],
            cols: vec![0; side],
            boxes: vec![0; side],
            box_of: box_of.clone(),
            values: vec![0; side * side],
            order,
            dead_ends: 0,
            rng,
        };
        if fill.search() == Some(true) {
            return Grid::solved(fill.shape, fill.values.into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_every_shape_validly_and_by_seed() {
        for (r, c) in [(2, 2), (2, 3), (2, 4), (3, 3), (3, 4), (4, 4), (5, 5)] {
            let shape = Shape::new(r, c).expect("valid shape");
            let a = random_solution(shape, &mut Random::new(5));
            assert!(a.is_complete());
            assert!(a.is_solution_of(&Grid::empty(shape)), "{a:?}");
            assert_eq!(a, random_solution(shape, &mut Random::new(5)));
            assert_ne!(a, random_solution(shape, &mut Random::new(6)));
            let b = dfs_solution(shape, &mut Random::new(5));
            assert!(b.is_solution_of(&Grid::empty(shape)), "{b:?}");
        }
    }
}
