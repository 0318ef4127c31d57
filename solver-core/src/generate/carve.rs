//! Carving a puzzle out of a complete grid: remove orbits of givens in random order, keeping
//! each removal only when the solver proves the solution still unique.
//!
//! Removals are tried in runs: a run of orbits is cleared at once and kept if the puzzle stays
//! unique, which proves every prefix of the run unique too (fewer givens never means fewer
//! solutions). A failed run is halved and retried. The result is exactly what one-at-a-time
//! removal in the same order gives, with far fewer solves while the grid is still dense.
//!
//! On 9×9 a removal that leaves one of the solution's unavoidable sets without a given is
//! refused with no search at all, one whose digit the other givens force by a single is
//! accepted with none, and any other single removal is one search of the fast solver for a
//! solution with another digit in the cleared cell, which stops at the first such solution
//! where counting to two would find the known one too.

use super::classic::Classic;
use crate::grid::{Grid, Shape};
use crate::limits::StopReason;
use crate::solve::{Givens, Options, Outcome, count_classic, solve};

/// What a uniqueness check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Uniqueness {
    /// Exactly one solution.
    Unique,
    /// Two solutions, or none (impossible here: every candidate is a subset of a solution).
    NotUnique,
    /// The check stopped before it was complete.
    Stopped(StopReason),
}

/// Solves `cells` counting to two.
pub(crate) fn uniqueness(shape: Shape, cells: &[u8], options: &Options) -> Uniqueness {
    uniqueness_counting(shape, cells, options).0
}

/// [`uniqueness`], and the guesses the search made: a measure of how hard the puzzle is.
pub(crate) fn uniqueness_counting(
    shape: Shape,
    cells: &[u8],
    options: &Options,
) -> (Uniqueness, u64) {
    if let Ok(classic) = <&[u8; 81]>::try_from(cells)
        && shape == Shape::CLASSIC
    {
        return match count_classic(&Givens::new(classic), None, options) {
            Ok((1, guesses)) => (Uniqueness::Unique, guesses),
            Ok((_, guesses)) => (Uniqueness::NotUnique, guesses),
            Err(reason) => (Uniqueness::Stopped(reason), 0),
        };
    }
    // Every carved grid keeps a subset of a valid solution's cells, so it has no repeats.
    let Ok(grid) = Grid::from_values(shape, cells.into()) else {
        return (Uniqueness::NotUnique, 0);
    };
    // `Auto` supports every shape, so `solve` cannot refuse.
    match solve(&grid, options) {
        Ok(report) => match report.outcome {
            Outcome::Unique(_) => (Uniqueness::Unique, report.stats.guesses),
            Outcome::Stopped { reason, .. } => (Uniqueness::Stopped(reason), 0),
            _ => (Uniqueness::NotUnique, report.stats.guesses),
        },
        Err(_) => (Uniqueness::NotUnique, 0),
    }
}

/// Whether a unique puzzle stays unique without the (already cleared) cells of `orbit`: any
/// other solution puts another digit in one of them, so each such digit is tried in turn and
/// solved for one solution. A wrong digit usually fails after little search, which makes this
/// far cheaper than counting solutions of the whole puzzle; a digit no peer rules out is the
/// only kind tried, so a cell its peers force costs nothing.
pub(crate) fn uniqueness_without(
    solution: &Grid,
    cells: &[u8],
    orbit: &[usize],
    options: &Options,
) -> Uniqueness {
    let shape = solution.shape();
    let side = shape.side();
    let first = Options {
        max_solutions: 1,
        ..options.clone()
    };
    let mut trial = cells.to_vec();
    for &c in orbit {
        let (row, col) = (c / side, c % side);
        let (top, left) = (
            row / shape.box_rows() * shape.box_rows(),
            col / shape.box_cols() * shape.box_cols(),
        );
        let mut used = 1u64 << solution.cells()[c];
        for k in 0..side {
            used |= 1u64 << cells[row * side + k];
            used |= 1u64 << cells[k * side + col];
            let (r, cc) = (top + k / shape.box_cols(), left + k % shape.box_cols());
            used |= 1u64 << cells[r * side + cc];
        }
        for w in 1..=side as u8 {
            if used & (1u64 << w) != 0 {
                continue;
            }
            trial[c] = w;
            let Ok(grid) = Grid::from_values(shape, trial.as_slice().into()) else {
                continue;
            };
            match solve(&grid, &first).map(|s| s.outcome) {
                Ok(Outcome::NoSolution) => {}
                Ok(Outcome::Stopped { reason, .. }) => return Uniqueness::Stopped(reason),
                _ => return Uniqueness::NotUnique,
            }
        }
        trial[c] = 0;
    }
    Uniqueness::Unique
}

/// A carved puzzle.
pub(crate) struct Carved {
    pub(crate) cells: Vec<u8>,
    /// Whether every kept orbit was shown necessary: false when a check ran out of budget or the
    /// floor of givens stopped a removal.
    pub(crate) orbit_minimal: bool,
    /// The 9×9 carving state, in step with `cells`.
    pub(crate) classic: Option<Classic>,
}

/// Removes orbits (in the given order) from `solution` while the puzzle stays unique and at
/// least `floor` givens remain. `Err` when the deadline passed or the work was cancelled.
pub(crate) fn carve(
    solution: &Grid,
    orbits: &[Vec<usize>],
    floor: usize,
    options: &Options,
) -> Result<Carved, StopReason> {
    let shape = solution.shape();
    let mut cells = solution.cells().to_vec();
    let mut givens = cells.len();
    let mut orbit_minimal = true;
    let mut run = (orbits.len() / 2).max(1);
    let mut failed = false;
    let mut classic = <&[u8; 81]>::try_from(solution.cells())
        .ok()
        .filter(|_| shape == Shape::CLASSIC)
        .map(Classic::new);
    let mut i = 0;
    while i < orbits.len() {
        let (take, removed) = next_run(&orbits[i..], run, givens, floor);
        if take == 0 {
            // This orbit would take the puzzle under the floor: it stays, unproven.
            orbit_minimal = false;
            i += 1;
            continue;
        }
        let batch = &orbits[i..i + take];
        for &c in batch.iter().flatten() {
            cells[c] = 0;
            if let Some(classic) = &mut classic {
                classic.clear(c);
            }
        }
        let found = if let Some(classic) = &classic {
            classic.uniqueness(batch, options)
        } else if take == 1 {
            uniqueness_without(solution, &cells, &batch[0], options)
        } else {
            uniqueness(shape, &cells, options)
        };
        if found == Uniqueness::Unique {
            givens -= removed;
            i += take;
            if !failed {
                run = take * 2;
            }
            continue;
        }
        for &c in batch.iter().flatten() {
            cells[c] = solution.cells()[c];
            if let Some(classic) = &mut classic {
                classic.restore(c);
            }
        }
        match found {
            Uniqueness::Stopped(StopReason::Budget) if take == 1 => orbit_minimal = false,
            Uniqueness::Stopped(StopReason::Budget) => {}
            Uniqueness::Stopped(reason) => return Err(reason),
            _ => {}
        }
        if take == 1 {
            i += 1;
        }
        // Once a run fails the puzzle is near its limit: most givens left are needed, and
        // growing runs again would mostly waste full counting solves.
        failed = true;
        run = (take / 2).max(1);
    }
    Ok(Carved {
        cells,
        orbit_minimal,
        classic,
    })
}

/// How many of `orbits` (at most `run`) the next run clears, and the givens they hold, keeping
/// at least `floor` of `givens`.
fn next_run(orbits: &[Vec<usize>], run: usize, givens: usize, floor: usize) -> (usize, usize) {
    let mut take = 0;
    let mut removed = 0;
    for orbit in orbits.iter().take(run) {
        if givens - removed < floor + orbit.len() {
            break;
        }
        removed += orbit.len();
        take += 1;
    }
    (take, removed)
}

/// Whether no single given of a unique puzzle can be removed keeping it unique; `Err` when a
/// check stopped (on budget too: minimality is then unproven).
pub(crate) fn is_minimal(
    shape: Shape,
    cells: &[u8],
    options: &Options,
) -> Result<bool, StopReason> {
    let mut trial = cells.to_vec();
    for (i, &v) in cells.iter().enumerate() {
        if v == 0 {
            continue;
        }
        trial[i] = 0;
        match uniqueness(shape, &trial, options) {
            Uniqueness::Unique => return Ok(false),
            Uniqueness::Stopped(reason) => return Err(reason),
            Uniqueness::NotUnique => {}
        }
        trial[i] = v;
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::super::fill::random_solution;
    use super::super::rng::Random;
    use super::*;
    use crate::generate::Symmetry;

    #[test]
    fn runs_give_the_same_puzzle_as_single_removals() {
        let mut rng = Random::new(11);
        let solution = random_solution(Shape::CLASSIC, &mut rng);
        let mut orbits = Symmetry::None.orbits(9);
        rng.shuffle(&mut orbits);
        let options = Options::default();
        let carved = carve(&solution, &orbits, 0, &options).expect("no limits");
        let mut single = solution.cells().to_vec();
        for orbit in &orbits {
            let c = orbit[0];
            single[c] = 0;
            if uniqueness(Shape::CLASSIC, &single, &options) != Uniqueness::Unique {
                single[c] = solution.cells()[c];
            }
        }
        assert_eq!(carved.cells, single);
        assert!(carved.orbit_minimal);
        assert_eq!(
            is_minimal(Shape::CLASSIC, &carved.cells, &options),
            Ok(true)
        );
    }

    #[test]
    fn floor_keeps_givens_and_marks_the_puzzle_unproven() {
        let mut rng = Random::new(12);
        let solution = random_solution(Shape::CLASSIC, &mut rng);
        let orbits = Symmetry::None.orbits(9);
        let carved = carve(&solution, &orbits, 40, &Options::default()).expect("no limits");
        assert_eq!(carved.cells.iter().filter(|&&v| v != 0).count(), 40);
        assert!(!carved.orbit_minimal);
    }
}
