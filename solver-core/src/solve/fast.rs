//! The 9×9 solver: bit-parallel candidates per digit and band, no heap allocation.
//!
//! For each digit `d` and band `b` (three rows) a 27-bit mask `cand[3 * d + b]` holds the
//! cells where `d` may still go:
//!
//! ```text
//!            box 0   box 1   box 2
//!   row 0:   0 1 2 | 3 4 5 | 6 7 8      bit = 9 * (row in band) + column
//!   row 1:   9 ...               17
//!   row 2:  18 ...               26
//! ```
//!
//! In a band a digit takes one triad (row ∩ box) per row and per box, a 3×3 permutation.
//! One table lookup (`PERM`) keeps only triads that fit some permutation: box/line claims and
//! pointing pairs inside the band at once. A row left with one cell places the digit there;
//! naked singles and hidden singles in columns feed the same loop. Search branches on a
//! cell with two candidates when there is one.

use super::StopReason;
use super::control::{Control, SearchResult};
use crate::grid::Grid;

const BAND: u32 = 0x7FF_FFFF;
const ROW: [u32; 3] = [0x1FF, 0x1FF << 9, 0x1FF << 18];
/// Column 0 in each of a band's rows; multiply by a 9-bit column set to spread it.
const COLS: u32 = 0x40201;

/// For a row's 9 bits, which of its three triads are non-empty (bit k = box k).
static TRIADS: [u8; 512] = triads();
/// For the 9-bit triad occupancy of a band (bit 3·row + box), the cells of every triad that
/// lies on a permutation of occupied triads; 0 when none fits.
static PERM: [u32; 512] = perms();

const fn triads() -> [u8; 512] {
    let mut table = [0u8; 512];
    let mut x = 0;
    while x < 512 {
        let mut k = 0;
        while k < 3 {
            if (x >> (3 * k)) & 7 != 0 {
                table[x] |= 1 << k;
            }
            k += 1;
        }
        x += 1;
    }
    table
}

const fn perms() -> [u32; 512] {
    const ORDERS: [[usize; 3]; 6] = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    let mut table = [0u32; 512];
    let mut occupied = 0;
    while occupied < 512 {
        let mut allowed = 0;
        let mut p = 0;
        while p < 6 {
            let mut triads = 0;
            let mut r = 0;
            while r < 3 {
                triads |= 1 << (3 * r + ORDERS[p][r]);
                r += 1;
            }
            if occupied & triads == triads {
                allowed |= triads;
            }
            p += 1;
        }
        let mut cells = 0u32;
        let mut t = 0;
        while t < 9 {
            if (allowed >> t) & 1 != 0 {
                cells |= 7 << (9 * (t / 3) + 3 * (t % 3));
            }
            t += 1;
        }
        table[occupied] = cells;
        occupied += 1;
    }
    table
}

#[derive(Clone, Copy)]
struct State {
    /// Candidate cells per digit and band.
    cand: [u32; 27],
    /// `cand` as last propagated; a difference marks work to do.
    seen: [u32; 27],
    /// Cells not yet placed, per band.
    unsolved: [u32; 3],
}

impl State {
    fn new(grid: &Grid) -> State {
        let mut state = State {
            cand: [BAND; 27],
            seen: [0; 27],
            unsolved: [BAND; 3],
        };
        for (i, &v) in grid.cells().iter().enumerate() {
            if v != 0 {
                state.place(usize::from(v - 1), i / 27, 1 << (i % 27));
            }
        }
        state
    }

    /// Makes `cell` the only place for `digit` in its row; propagation does the rest.
    #[inline]
    fn place(&mut self, digit: usize, band: usize, cell: u32) {
        let row = ROW[(cell.trailing_zeros() / 9) as usize];
        self.cand[3 * digit + band] &= !row | cell;
    }

    /// Applies the band rule to one digit-band and places its row singles; false on contradiction.
    #[inline]
    fn update_band(&mut self, idx: usize) -> bool {
        let mut m = self.cand[idx];
        let occupied = usize::from(TRIADS[(m & 0x1FF) as usize])
            | usize::from(TRIADS[((m >> 9) & 0x1FF) as usize]) << 3
            | usize::from(TRIADS[(m >> 18) as usize]) << 6;
        m &= PERM[occupied];
        if m == 0 {
            return false;
        }
        self.cand[idx] = m;
        self.seen[idx] = m;
        let mut singles = 0;
        for row in ROW {
            let x = m & row;
            if x & x.wrapping_sub(1) == 0 {
                singles |= x;
            }
        }
        let band = idx % 3;
        let new = singles & self.unsolved[band];
        if new != 0 {
            self.unsolved[band] &= !new;
            for d in 0..9 {
                self.cand[3 * d + band] &= !new;
            }
            self.cand[idx] |= new;
            let cols = !(((new | new >> 9 | new >> 18) & 0x1FF) * COLS);
            let base = idx - band;
            self.cand[base + (band + 1) % 3] &= cols;
            self.cand[base + (band + 2) % 3] &= cols;
        }
        true
    }

    /// Runs every rule to a fixpoint; false on contradiction.
    fn propagate(&mut self) -> bool {
        loop {
            loop {
                let mut changed = false;
                for idx in 0..27 {
                    if self.cand[idx] != self.seen[idx] {
                        changed = true;
                        if !self.update_band(idx) {
                            return false;
                        }
                    }
                }
                if !changed {
                    break;
                }
            }
            if self.is_solved() {
                return true;
            }
            match self.naked_singles() {
                None => return false,
                Some(true) => continue,
                Some(false) => {}
            }
            match self.hidden_column_singles() {
                None => return false,
                Some(true) => continue,
                Some(false) => return true,
            }
        }
    }

    /// Places cells with one candidate left; `None` on a cell with none.
    fn naked_singles(&mut self) -> Option<bool> {
        let mut progress = false;
        for band in 0..3 {
            let (mut ones, mut twos) = (0, 0);
            for d in 0..9 {
                let m = self.cand[3 * d + band];
                twos |= ones & m;
                ones |= m;
            }
            let unsolved = self.unsolved[band];
            if unsolved & !ones != 0 {
                return None;
            }
            let singles = unsolved & !twos;
            if singles == 0 {
                continue;
            }
            for d in 0..9 {
                let hits = singles & self.cand[3 * d + band];
                if hits != 0 && !self.restrict_rows(3 * d + band, hits) {
                    return None;
                }
            }
            progress = true;
        }
        Some(progress)
    }

    /// Places digits that have one cell left in a column; `None` on a column with none.
    fn hidden_column_singles(&mut self) -> Option<bool> {
        let mut progress = false;
        for d in 0..9 {
            let (mut ones, mut twos) = (0, 0);
            for band in 0..3 {
                let m = self.cand[3 * d + band];
                for shift in [0, 9, 18] {
                    let x = (m >> shift) & 0x1FF;
                    twos |= ones & x;
                    ones |= x;
                }
            }
            if ones != 0x1FF {
                return None;
            }
            let once = (ones & !twos) * COLS;
            for band in 0..3 {
                let hits = self.cand[3 * d + band] & once & self.unsolved[band];
                if hits != 0 {
                    if !self.restrict_rows(3 * d + band, hits) {
                        return None;
                    }
                    progress = true;
                }
            }
        }
        Some(progress)
    }

    /// Makes each of `cells` the only candidate in its row; false if two share a row.
    #[inline]
    fn restrict_rows(&mut self, idx: usize, cells: u32) -> bool {
        for row in ROW {
            let x = cells & row;
            if x != 0 {
                if x & (x - 1) != 0 {
                    return false;
                }
                self.cand[idx] &= !row | x;
            }
        }
        true
    }

    fn is_solved(&self) -> bool {
        self.unsolved == [0; 3]
    }

    /// The cell to branch on: the first with two candidates, else the first unsolved.
    fn pick(&self) -> (usize, u32) {
        let mut fallback = None;
        for band in 0..3 {
            let (mut ones, mut twos, mut threes) = (0, 0, 0);
            for d in 0..9 {
                let m = self.cand[3 * d + band];
                threes |= twos & m;
                twos |= ones & m;
                ones |= m;
            }
            let unsolved = self.unsolved[band];
            let pairs = twos & !threes & unsolved;
            if pairs != 0 {
                return (band, pairs & pairs.wrapping_neg());
            }
            if fallback.is_none() && unsolved != 0 {
                fallback = Some((band, unsolved & unsolved.wrapping_neg()));
            }
        }
        // Only called on unsolved states, so some band has an unsolved cell.
        fallback.unwrap_or((0, 1))
    }

    fn cells(&self) -> [u8; 81] {
        let mut out = [0u8; 81];
        for (idx, &mask) in self.cand.iter().enumerate() {
            let (digit, band) = (idx / 3, idx % 3);
            let mut m = mask;
            while m != 0 {
                out[band * 27 + m.trailing_zeros() as usize] = digit as u8 + 1;
                m &= m - 1;
            }
        }
        out
    }
}

/// Searches a 9×9 grid, reporting solutions to `control`.
pub(crate) fn search(grid: &Grid, control: &mut Control) -> SearchResult {
    let mut state = State::new(grid);
    recurse(&mut state, control).map(|_| ())
}

/// `Ok(true)` once the solution limit is reached.
fn recurse(state: &mut State, control: &mut Control) -> Result<bool, StopReason> {
    if !state.propagate() {
        return Ok(false);
    }
    if state.is_solved() {
        return Ok(control.solution(&state.cells()));
    }
    let (band, cell) = state.pick();
    let mut digits: u32 = (0..9)
        .filter(|d| state.cand[3 * d + band] & cell != 0)
        .fold(0, |acc, d| acc | 1 << d);
    while digits != 0 {
        let d = digits.trailing_zeros() as usize;
        digits &= digits - 1;
        control.guess()?;
        if digits == 0 {
            state.place(d, band, cell);
            return recurse(state, control);
        }
        let mut child = *state;
        child.place(d, band, cell);
        if recurse(&mut child, control)? {
            return Ok(true);
        }
    }
    Ok(false)
}
