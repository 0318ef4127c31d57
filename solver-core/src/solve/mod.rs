//! Solving: one entry point, three algorithms with the same outcomes, limits and statistics.

mod backtrack;
mod control;
mod error;
mod fast;
mod general;
mod options;

use std::time::{Duration, Instant};

pub use error::SolveError;
pub(crate) use fast::Givens;
pub use options::{Algorithm, Options};

use crate::grid::{Grid, Shape};
use crate::limits::StopReason;
use control::Control;

/// What a search found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// Exactly one solution exists (the search was complete).
    Unique(Grid),
    /// A solution; uniqueness was not checked because only one was asked for.
    Solved(Grid),
    /// At least two solutions: the first found, and how many were found. The count is exact
    /// when below `max_solutions`, a lower bound when equal to it.
    Multiple {
        /// The first solution found.
        first: Grid,
        /// Solutions found.
        found: usize,
    },
    /// No solution exists.
    NoSolution,
    /// The search stopped early; what it had found by then.
    Stopped {
        /// Why it stopped.
        reason: StopReason,
        /// The first solution found, if any.
        first: Option<Grid>,
        /// Solutions found before stopping.
        found: usize,
    },
}

impl Outcome {
    /// The (first) solution grid found, if any.
    pub fn grid(&self) -> Option<&Grid> {
        match self {
            Outcome::Unique(g) | Outcome::Solved(g) | Outcome::Multiple { first: g, .. } => Some(g),
            Outcome::Stopped { first, .. } => first.as_ref(),
            Outcome::NoSolution => None,
        }
    }

    /// Solutions found.
    pub fn found(&self) -> usize {
        match self {
            Outcome::Unique(_) | Outcome::Solved(_) => 1,
            Outcome::Multiple { found, .. } | Outcome::Stopped { found, .. } => *found,
            Outcome::NoSolution => 0,
        }
    }
}

/// Counters from one solve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    /// Branching decisions: each value tried in a cell that logic could not settle.
    pub guesses: u64,
    /// Wall time spent in the solver.
    pub elapsed: Duration,
    /// The algorithm that ran (never `Auto`).
    pub algorithm: Algorithm,
}

/// What a solve reports: the outcome and the statistics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// What was found.
    pub outcome: Outcome,
    /// How much work it took.
    pub stats: Stats,
}

/// Searches `grid` for up to `options.max_solutions` solutions with the chosen algorithm.
pub fn solve(grid: &Grid, options: &Options) -> Result<Report, SolveError> {
    solve_until(grid, options, Instant::now(), None)
}

/// As [`solve`], timed from `start` and stopping at `deadline` too when it comes before
/// `options.limits.deadline`. One `Options` can then be shared by many solves (and threads), each
/// with its own time limit, without a copy that would touch the cancel flag's reference
/// count; and a caller solving one puzzle after another passes the end of the last solve as
/// the start of the next, so the clock is read once a solve, not twice.
pub fn solve_until(
    grid: &Grid,
    options: &Options,
    start: Instant,
    deadline: Option<Instant>,
) -> Result<Report, SolveError> {
    let algorithm = match options.algorithm {
        Algorithm::Auto if grid.shape() == Shape::CLASSIC => Algorithm::Fast,
        Algorithm::Auto => Algorithm::General,
        Algorithm::Fast if grid.shape() != Shape::CLASSIC => {
            return Err(SolveError::Unsupported {
                algorithm: Algorithm::Fast,
                shape: grid.shape(),
            });
        }
        other => other,
    };
    let mut control = Control::new(options, deadline);
    let stopped = match algorithm {
        Algorithm::Fast => fast::search(grid, &mut control),
        Algorithm::Backtracking => backtrack::search(grid, &mut control),
        Algorithm::General | Algorithm::Auto => general::search(grid, &mut control),
    }
    .err();
    let limit = control.limit();
    let (found, guesses, first) = control.finish();
    let first = first.map(|cells| Grid::solved(grid.shape(), cells));
    let outcome = match (stopped, first) {
        (Some(reason), first) if found < limit => Outcome::Stopped {
            reason,
            first,
            found,
        },
        (_, None) => Outcome::NoSolution,
        (_, Some(first)) if found >= 2 => Outcome::Multiple { first, found },
        (_, Some(first)) if limit == 1 => Outcome::Solved(first),
        (_, Some(first)) => Outcome::Unique(first),
    };
    Ok(Report {
        outcome,
        stats: Stats {
            guesses,
            elapsed: start.elapsed(),
            algorithm,
        },
    })
}

/// Solutions (up to `options.max_solutions`) of 9×9 `givens` that hold no repeats, with
/// `exclude`'s digit ruled out at its empty cell, and the guesses made; `Err` when the search
/// stopped short of the limit. The generator's uniqueness tests, without a grid, report or
/// clock read per test.
pub(crate) fn count_classic(
    givens: &Givens,
    exclude: Option<(usize, u8)>,
    options: &Options,
) -> Result<(usize, u64), StopReason> {
    let mut control = Control::new(options, None);
    let stopped = fast::search_givens(givens, exclude, &mut control).err();
    let limit = control.limit();
    let (found, guesses, _) = control.finish();
    match stopped {
        Some(reason) if found < limit => Err(reason),
        _ => Ok((found, guesses)),
    }
}

#[cfg(test)]
mod tests;
