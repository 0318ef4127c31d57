//! The 9×9 carving state: the puzzle's cells kept in step as the fast solver's givens, as
//! digits per house and as a cell mask, so that a removal is tested without a pass over the
//! grid, and most without a search.

use super::carve::Uniqueness;
use super::unavoidable::{Cells, Unavoidable};
use crate::limits::StopReason;
use crate::solve::{Givens, Options, count_classic};

/// A puzzle being carved out of a 9×9 solution.
pub(super) struct Classic {
    solution: [u8; 81],
    cells: [u8; 81],
    givens: Givens,
    /// Digits (bit d for digit d) among the givens of each row, column and box.
    houses: [[u16; 9]; 3],
    /// The cells holding givens.
    filled: Cells,
    bank: Unavoidable,
}

/// The row, column and box of a cell.
fn houses_of(cell: usize) -> [usize; 3] {
    [cell / 9, cell % 9, cell / 27 * 3 + cell % 9 / 3]
}

impl Classic {
    /// The full solution as a puzzle.
    pub(super) fn new(solution: &[u8; 81]) -> Classic {
        let mut houses = [[0u16; 9]; 3];
        for (i, &v) in solution.iter().enumerate() {
            for (kind, h) in houses_of(i).into_iter().enumerate() {
                houses[kind][h] |= 1 << v;
            }
        }
        Classic {
            solution: *solution,
            cells: *solution,
            givens: Givens::new(solution),
            houses,
            filled: (1 << 81) - 1,
            bank: Unavoidable::new(solution),
        }
    }

    /// Removes the given at `cell`.
    pub(super) fn clear(&mut self, cell: usize) {
        let v = self.solution[cell];
        self.cells[cell] = 0;
        self.givens.clear(cell, v);
        for (kind, h) in houses_of(cell).into_iter().enumerate() {
            self.houses[kind][h] &= !(1 << v);
        }
        self.filled &= !(1 << cell);
    }

    /// Puts the solution's digit back at `cell`.
    pub(super) fn restore(&mut self, cell: usize) {
        let v = self.solution[cell];
        self.cells[cell] = v;
        self.givens.set(cell, v);
        for (kind, h) in houses_of(cell).into_iter().enumerate() {
            self.houses[kind][h] |= 1 << v;
        }
        self.filled |= 1 << cell;
    }

    /// Whether the puzzle is still unique now that `cleared` (one or more orbits) are empty.
    /// One orbit: each of its cells is tested for another digit; several: a count to two.
    pub(super) fn uniqueness(&self, cleared: &[Vec<usize>], options: &Options) -> Uniqueness {
        if self.bank.missed_by(self.filled) {
            return Uniqueness::NotUnique;
        }
        let [orbit] = cleared else {
            let count = Options {
                max_solutions: 2,
                ..options.clone()
            };
            return match count_classic(&self.givens, None, &count) {
                Ok((1, _)) => Uniqueness::Unique,
                Ok(_) => Uniqueness::NotUnique,
                Err(reason) => Uniqueness::Stopped(reason),
            };
        };
        self.uniqueness_without(orbit, options)
    }

    /// Whether no single given can go, each tested as [`Classic::uniqueness`] tests one cell; `Err`
    /// when a search stopped.
    pub(super) fn is_minimal(&mut self, options: &Options) -> Result<bool, StopReason> {
        for cell in 0..81 {
            if self.cells[cell] == 0 {
                continue;
            }
            self.clear(cell);
            let found = if self.bank.missed_by(self.filled) {
                Uniqueness::NotUnique
            } else {
                self.uniqueness_without(&[cell], options)
            };
            self.restore(cell);
            match found {
                Uniqueness::Unique => return Ok(false),
                Uniqueness::Stopped(reason) => return Err(reason),
                Uniqueness::NotUnique => {}
            }
        }
        Ok(true)
    }

    /// Whether no solution puts another digit in any of the cleared `cells`: each is settled by
    /// a single, or searched for one solution with its digit ruled out.
    fn uniqueness_without(&self, cells: &[usize], options: &Options) -> Uniqueness {
        let first = Options {
            max_solutions: 1,
            ..options.clone()
        };
        for &c in cells {
            if self.forced(c) {
                continue;
            }
            match count_classic(&self.givens, Some((c, self.solution[c])), &first) {
                Ok((0, _)) => {}
                Ok(_) => return Uniqueness::NotUnique,
                Err(reason) => return Uniqueness::Stopped(reason),
            }
        }
        Uniqueness::Unique
    }

    /// Whether the givens force the solution's digit into the empty `cell` by a single: every
    /// other digit among its peers, or no other open cell for it in one of its houses.
    fn forced(&self, cell: usize) -> bool {
        let [row, col, bx] = houses_of(cell);
        let bit = 1u16 << self.solution[cell];
        let seen = self.houses[0][row] | self.houses[1][col] | self.houses[2][bx];
        // Bit 0 is no digit; the cell's own digit is missing from its peers.
        if seen | bit | 1 == 0x3FF {
            return true;
        }
        let open = |i: usize| {
            let [r, c, b] = houses_of(i);
            i != cell
                && self.cells[i] == 0
                && (self.houses[0][r] | self.houses[1][c] | self.houses[2][b]) & bit == 0
        };
        let (top, left) = (row / 3 * 3, col / 3 * 3);
        !(0..9).any(|k| open((top + k / 3) * 9 + left + k % 3))
            || !(0..9).any(|k| open(row * 9 + k))
            || !(0..9).any(|k| open(k * 9 + col))
    }
}

#[cfg(test)]
mod tests {
    use super::super::carve::{is_minimal, uniqueness};
    use super::super::fill::random_solution;
    use super::super::rng::Random;
    use super::*;
    use crate::generate::Symmetry;
    use crate::grid::Shape;

    /// Every shortcut (unavoidable sets, singles, the one-digit-out search) agrees with a
    /// count to two, on removals that keep and that lose uniqueness, with and without symmetry,
    /// and so does the minimality test.
    #[test]
    fn checks_agree_with_counting_to_two() {
        let options = Options::default();
        for seed in 0..6 {
            let mut rng = Random::new(seed);
            let solution = random_solution(Shape::CLASSIC, &mut rng);
            let cells: &[u8; 81] = solution.cells().try_into().expect("9x9");
            let symmetry = [Symmetry::None, Symmetry::Rotate180][seed as usize % 2];
            let mut orbits = symmetry.orbits(9);
            rng.shuffle(&mut orbits);
            let mut classic = Classic::new(cells);
            let mut verdicts = [0; 2];
            for orbit in &orbits {
                orbit.iter().for_each(|&c| classic.clear(c));
                let found = classic.uniqueness(std::slice::from_ref(orbit), &options);
                assert_eq!(found, uniqueness(Shape::CLASSIC, &classic.cells, &options));
                verdicts[usize::from(found == Uniqueness::Unique)] += 1;
                if found != Uniqueness::Unique {
                    orbit.iter().for_each(|&c| classic.restore(c));
                }
            }
            assert!(verdicts[0] > 5 && verdicts[1] > 5, "{verdicts:?}");
            let cells = classic.cells;
            assert_eq!(
                classic.is_minimal(&options),
                is_minimal(Shape::CLASSIC, &cells, &options)
            );
        }
    }
}
