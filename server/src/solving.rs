//! Turning requests into solver jobs and solutions into responses.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use solver_core::{Grid, Options, Outcome, Report, StopReason};
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

/// Longest request `id`, in bytes.
const MAX_ID_BYTES: usize = 256;

impl From<&crate::Config> for Limits {
    fn from(config: &crate::Config) -> Self {
        Limits {
            max_grid_side: config.max_grid_side,
            max_guesses: config.max_guesses,
            max_solve_time: Duration::from_millis(config.max_solve_ms),
        }
    }
}

impl Limits {
    /// Refuses a grid side larger than this server accepts.
    pub fn check_side(&self, side: usize) -> Result<(), RequestError> {
        let max = self.max_grid_side;
        if side > max {
            return Err(RequestError::TooLarge { side, max });
        }
        Ok(())
    }

    /// Refuses a wire grid larger than this server accepts, before anything is allocated.
    pub fn check_wire_side(&self, grid: &pb::Grid) -> Result<(), RequestError> {
        self.check_side((grid.box_rows as usize).saturating_mul(grid.box_cols as usize))
    }

    /// The solver options a request asks for, with the server's guess cap and the caller's
    /// deadline applied (the solve-time cap is the job's, from when a solver starts it).
    pub fn options(
        &self,
        wire: Option<pb::SolveOptions>,
        deadline: Option<Instant>,
    ) -> Result<Options, RequestError> {
        let wire = wire.unwrap_or_default();
        // prost reads an unknown enum number as the default; refuse it instead of guessing.
        let algorithm = pb::Algorithm::try_from(wire.algorithm)
            .map_err(|_| RequestError::UnknownAlgorithm(wire.algorithm))?;
        Ok(Options {
            max_solutions: match wire.max_solutions {
                0 => 2,
                n => n as usize,
            },
            algorithm: algorithm.into(),
            max_guesses: Some(match wire.max_guesses {
                0 => self.max_guesses,
                n => n.min(self.max_guesses),
            }),
            limits: solver_core::Limits {
                deadline,
                cancel: None,
            },
        })
    }

    /// The grid of a request, refused if larger than this server accepts.
    pub fn grid(&self, wire: &pb::Grid) -> Result<Grid, RequestError> {
        self.check_wire_side(wire)?;
        Ok(grid_from_pb(wire)?)
    }

    /// Refuses an `id` longer than this server accepts.
    pub fn check_id(&self, id: &str) -> Result<(), RequestError> {
        if id.len() > MAX_ID_BYTES {
            return Err(RequestError::IdTooLong {
                len: id.len(),
                max: MAX_ID_BYTES,
            });
        }
        Ok(())
    }

    /// Options that prove uniqueness within the server's guess cap and the caller's deadline.
    pub fn uniqueness(&self, deadline: Option<Instant>) -> Options {
        Options {
            max_solutions: 2,
            max_guesses: Some(self.max_guesses),
            limits: solver_core::Limits {
                deadline,
                ..solver_core::Limits::default()
            },
            ..Options::default()
        }
    }
}

#[cfg(feature = "fault-injection")]
/// A request `id` that makes the solve panic, in builds with the `fault-injection` feature
/// (the tests' only); other builds treat it as any other id.
pub const FAULT_PANIC_ID: &str = "fault-injection: panic";

/// A checked request, ready for a solver thread.
pub struct Job {
    pub grid: Grid,
    /// Solver options with the server's guess cap and the caller's deadline applied; shared
    /// by the puzzles of a packed message's part, whose solver thread alone counts its
    /// references (each solve's own time limit is passed beside it).
    pub options: Arc<Options>,
    /// The most time one solve may take, counted from when a solver thread starts it, so a
    /// puzzle queued behind others in a big batch still gets its full time.
    pub cap: Duration,
    /// Panic instead of solving (tests only).
    #[cfg(feature = "fault-injection")]
    pub panic: bool,
}

impl Job {
    /// A job solving `grid` with `options`, each solve stopped after `cap`.
    pub fn new(grid: Grid, options: Options, cap: Duration) -> Job {
        Job::shared(grid, Arc::new(options), cap)
    }

    /// A job solving `grid` with options shared with other jobs.
    pub fn shared(grid: Grid, options: Arc<Options>, cap: Duration) -> Job {
        Job {
            grid,
            options,
            cap,
            #[cfg(feature = "fault-injection")]
            panic: false,
        }
    }

    /// Stops the solve when `flag` is raised.
    pub fn cancel_with(&mut self, flag: Arc<AtomicBool>) {
        // The options are this job's alone until it is queued, so this does not copy them.
        Arc::make_mut(&mut self.options).limits.cancel = Some(flag);
    }

    /// Whether a test asked this job to panic.
    pub fn fault_panic(&self) -> bool {
        #[cfg(feature = "fault-injection")]
        return self.panic;
        #[cfg(not(feature = "fault-injection"))]
        false
    }
}

/// Checks a request and applies the server's caps and the caller's deadline.
pub fn prepare(
    request: &pb::SolveRequest,
    limits: &Limits,
    deadline: Option<Instant>,
) -> Result<Job, RequestError> {
    limits.check_id(&request.id)?;
    let puzzle = request.puzzle.as_ref().ok_or(RequestError::MissingPuzzle)?;
    let grid = limits.grid(puzzle)?;
    let options = limits.options(request.options, deadline)?;
    #[cfg_attr(not(feature = "fault-injection"), allow(unused_mut))]
    let mut job = Job::new(grid, options, limits.max_solve_time);
    #[cfg(feature = "fault-injection")]
    {
        job.panic = request.id == FAULT_PANIC_ID;
    }
    Ok(job)
}

/// Whether a solve stopped for `reason`.
pub fn stopped_for(outcome: &Outcome, reason: StopReason) -> bool {
    matches!(outcome, Outcome::Stopped { reason: why, .. } if *why == reason)
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
        // A deadline; a cancelled solve, whose caller is gone (the label only matters to
        // metrics); or a stop added later.
        _ => pb::Outcome::DeadlineExceeded,
    }
}

/// The response for a finished solve.
pub fn response(id: String, index: u64, solution: &Report) -> pb::SolveResponse {
    pb::SolveResponse {
        id,
        index,
        outcome: wire_outcome(&solution.outcome).into(),
        solution: solution.outcome.grid().map(grid_to_pb),
        solutions_found: solution.outcome.found() as u64,
        stats: Some(pb::SolveStats {
            guesses: solution.stats.guesses,
            solve_micros: u64::try_from(solution.stats.elapsed.as_micros()).unwrap_or(u64::MAX),
            algorithm: pb::Algorithm::from(solution.stats.algorithm).into(),
        }),
        error: None,
    }
}

/// The INVALID item a batch sends for a bad request.
pub fn invalid(id: String, index: u64, err: &RequestError) -> pb::SolveResponse {
    pb::SolveResponse {
        id: echoed(id, err),
        index,
        outcome: pb::Outcome::Invalid.into(),
        error: Some(err.to_pb()),
        ..pb::SolveResponse::default()
    }
}
/// The id an INVALID item echoes: none for an over-long one, so a client cannot make the
/// server hold it in answers.
pub fn echoed(id: String, err: &RequestError) -> String {
    match err {
        RequestError::IdTooLong { .. } => String::new(),
        _ => id,
    }
}
