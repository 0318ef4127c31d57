//! Turning requests into solver jobs and solutions into responses.

use std::time::Instant;

use solver_core::{Grid, Options, Outcome, Solution, StopReason};
use sudoku_proto::{grid_from_pb, grid_to_pb, pb};

use crate::status::RequestError;

/// Server-side limits applied to every puzzle.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Largest grid side accepted.
    pub max_grid_side: usize,
    /// Cap on guesses per puzzle.
    pub max_guesses: u64,
    /// Cap on solve time per puzzle.
    pub max_solve_time: std::time::Duration,
}

/// A checked request, ready for a solver thread.
pub struct Job {
    /// The puzzle.
    pub grid: Grid,
    /// Solver options with the server's caps applied.
    pub options: Options,
}

impl AsRef<Job> for Job {
    fn as_ref(&self) -> &Job {
        self
    }
}

/// Checks a request and applies the server's caps and the caller's deadline; `now` starts the
/// solve-time cap (one clock read serves a whole group of batch requests).
pub fn prepare(
    request: &pb::SolveRequest,
    limits: &Limits,
    deadline: Option<Instant>,
    now: Instant,
) -> Result<Job, RequestError> {
    let puzzle = request.puzzle.as_ref().ok_or(RequestError::MissingPuzzle)?;
    let side = (puzzle.box_rows as usize).saturating_mul(puzzle.box_cols as usize);
    if side > limits.max_grid_side {
        return Err(RequestError::TooLarge {
            side,
            max: limits.max_grid_side,
        });
    }
    let grid = grid_from_pb(puzzle)?;
    let opts = request.options.unwrap_or_default();
    let cap = now + limits.max_solve_time;
    let options = Options {
        max_solutions: match opts.max_solutions {
            0 => 2,
            n => n as usize,
        },
        algorithm: opts.algorithm().into(),
        budget: Some(match opts.max_guesses {
            0 => limits.max_guesses,
            n => n.min(limits.max_guesses),
        }),
        deadline: Some(deadline.map_or(cap, |d| d.min(cap))),
        cancel: None,
    };
    Ok(Job { grid, options })
}

/// The wire outcome of a solver outcome.
pub fn wire_outcome(outcome: &Outcome) -> pb::Outcome {
    match outcome {
        Outcome::Unique(_) => pb::Outcome::Unique,
        Outcome::Solved(_) => pb::Outcome::Solved,
        Outcome::Multiple { .. } => pb::Outcome::Multiple,
        Outcome::NoSolution => pb::Outcome::NoSolution,
        Outcome::Stopped {
            reason: StopReason::Budget,
            ..
        } => pb::Outcome::BudgetExhausted,
        // A cancelled solve's caller is gone; the label only matters to metrics.
        Outcome::Stopped {
            reason: StopReason::Deadline | StopReason::Cancelled,
            ..
        } => pb::Outcome::DeadlineExceeded,
    }
}

/// The response for a finished solve.
pub fn response(id: String, index: u64, solution: &Solution) -> pb::SolveResponse {
    pb::SolveResponse {
        id,
        index,
        outcome: wire_outcome(&solution.outcome).into(),
        solution: solution.outcome.solution().map(grid_to_pb),
        solutions_found: solution.outcome.found() as u64,
        stats: Some(pb::SolveStats {
            guesses: solution.stats.guesses,
            solve_micros: solution
                .stats
                .elapsed
                .as_micros()
                .try_into()
                .unwrap_or(u64::MAX),
            algorithm: pb::Algorithm::from(solution.stats.algorithm).into(),
        }),
        error: None,
    }
}

/// The INVALID item a batch sends for a bad request.
pub fn invalid(id: String, index: u64, err: &RequestError) -> pb::SolveResponse {
    pb::SolveResponse {
        id,
        index,
        outcome: pb::Outcome::Invalid.into(),
        error: Some(err.to_pb()),
        ..pb::SolveResponse::default()
    }
}
