//! The solver threads: puzzles are solved here, never on the async executor.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use solver_core::{Grid, Options, Outcome, Solution, SolveError, StopReason};
use tokio::sync::oneshot;

use crate::metrics::Metrics;
use crate::respond::Job;

/// The largest grid side tried on the calling task before going to a solver thread.
const INLINE_MAX_SIDE: usize = 9;
/// Guesses allowed on the calling task: a few microseconds of work on a 9×9 grid.
const INLINE_GUESSES: u64 = 32;

/// A fixed set of solver threads shared by every call.
pub struct Pool {
    threads: rayon::ThreadPool,
    metrics: Arc<Metrics>,
}

/// Why a pooled solve gave no solution.
#[derive(Debug)]
pub enum PoolError {
    /// The solver refused the request (e.g. the fast algorithm on a 16×16 grid).
    Solve(SolveError),
    /// The caller left before the puzzle started, so it was skipped.
    Abandoned,
}

impl Pool {
    /// Starts `workers` solver threads.
    pub fn new(workers: usize, metrics: Arc<Metrics>) -> anyhow::Result<Pool> {
        let threads = rayon::ThreadPoolBuilder::new()
            .num_threads(workers)
            .thread_name(|i| format!("sudoku-solver-{i}"))
            .build()?;
        Ok(Pool { threads, metrics })
    }

    /// Solver threads.
    pub fn workers(&self) -> usize {
        self.threads.current_num_threads()
    }

    /// Solves `grid`, on a solver thread unless it is small and settles within a few
    /// guesses; `options.cancel` skips or stops it.
    pub async fn solve(&self, grid: Grid, options: Options) -> Result<Solution, PoolError> {
        if let Some(solution) = self.try_inline(&grid, &options) {
            return solution;
        }
        let (tx, rx) = oneshot::channel();
        let mut tx = Some(tx);
        self.submit(vec![Job { grid, options }], move |_, result| {
            if let Some(tx) = tx.take() {
                let _ = tx.send(result);
            }
        });
        rx.await.unwrap_or(Err(PoolError::Abandoned))
    }

    /// Most 9×9 puzzles need only a few guesses; solving those on the calling task saves two
    /// thread wake-ups, which cost more than the solve. The guess cap bounds the time taken
    /// off the executor to about 10 µs, inside tokio's guidance of 10–100 µs between awaits;
    /// a puzzle that needs more starts afresh on a solver thread. `None` means "use the pool".
    fn try_inline(&self, grid: &Grid, options: &Options) -> Option<Result<Solution, PoolError>> {
        if grid.shape().side() > INLINE_MAX_SIDE {
            return None;
        }
        let budget = options.budget.unwrap_or(u64::MAX);
        let capped = Options {
            budget: Some(budget.min(INLINE_GUESSES)),
            ..options.clone()
        };
        let solution = match solver_core::solve(grid, &capped) {
            Ok(solution) => solution,
            Err(err) => return Some(Err(PoolError::Solve(err))),
        };
        let hit_our_cap = matches!(
            solution.outcome,
            Outcome::Stopped {
                reason: StopReason::Budget,
                ..
            }
        ) && budget > INLINE_GUESSES;
        if hit_our_cap {
            return None;
        }
        self.metrics.solved(&solution);
        Some(Ok(solution))
    }

    /// Solves `jobs` one after another on one solver thread, calling `each` with every
    /// result as it comes, in order. Grouping small puzzles saves a thread wake-up per puzzle.
    pub fn submit<J>(
        &self,
        jobs: Vec<J>,
        mut each: impl FnMut(J, Result<Solution, PoolError>) + Send + 'static,
    ) where
        J: AsRef<Job> + Send + 'static,
    {
        let metrics = self.metrics.clone();
        metrics.in_flight().inc_by(jobs.len() as i64);
        self.threads.spawn(move || {
            for job in jobs {
                let result = run(job.as_ref(), &metrics);
                metrics.in_flight().dec();
                each(job, result);
            }
        });
    }
}

fn run(job: &Job, metrics: &Metrics) -> Result<Solution, PoolError> {
    let (grid, options) = (&job.grid, &job.options);
    let cancelled = || {
        options
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
    };
    if cancelled() {
        metrics.abandoned().inc();
        return Err(PoolError::Abandoned);
    }
    let solution = solver_core::solve(grid, options).map_err(PoolError::Solve)?;
    if cancelled() {
        metrics.abandoned().inc();
    }
    metrics.solved(&solution);
    Ok(solution)
}

/// Raises a cancel flag when dropped: a dropped RPC future stops its solve.
pub struct CancelOnDrop(pub Arc<AtomicBool>);

impl CancelOnDrop {
    /// A fresh, lowered flag.
    pub fn new() -> CancelOnDrop {
        CancelOnDrop(Arc::new(AtomicBool::new(false)))
    }
}

impl Default for CancelOnDrop {
    fn default() -> Self {
        CancelOnDrop::new()
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Solved by singles alone: no guess.
    const EASY: &str =
        "3.65.84..52........87....31..3.1..8.9..863..5.5..9.6..13....25........74..52.63..";

    fn pool() -> Pool {
        Pool::new(1, Arc::new(Metrics::new())).expect("a pool")
    }

    fn grid(text: &str) -> Grid {
        text.parse().expect("a valid puzzle")
    }

    #[test]
    fn easy_puzzles_are_answered_inline() {
        let puzzle = grid(EASY);
        let solution = pool()
            .try_inline(&puzzle, &Options::default())
            .expect("answered inline")
            .expect("solved");
        let Outcome::Unique(solved) = solution.outcome else {
            panic!("expected a unique solution, got {:?}", solution.outcome)
        };
        assert!(solved.is_solution_of(&puzzle));
    }

    #[test]
    fn puzzles_needing_more_guesses_go_to_the_pool() {
        // The empty grid has many solutions; backtracking needs far more than the cap to
        // prove that, so it must leave the executor.
        let empty = grid(&".".repeat(81));
        let options = Options {
            algorithm: solver_core::Algorithm::Backtracking,
            ..Options::default()
        };
        assert!(pool().try_inline(&empty, &options).is_none());
        // Larger grids never run inline.
        let big = Grid::empty(solver_core::Shape::new(4, 4).expect("4x4 boxes"));
        assert!(pool().try_inline(&big, &Options::default()).is_none());
    }

    #[test]
    fn a_callers_small_budget_is_final_inline() {
        let empty = grid(&".".repeat(81));
        let options = Options {
            algorithm: solver_core::Algorithm::Backtracking,
            budget: Some(5),
            ..Options::default()
        };
        let solution = pool()
            .try_inline(&empty, &options)
            .expect("answered inline")
            .expect("ran");
        assert!(matches!(
            solution.outcome,
            Outcome::Stopped {
                reason: StopReason::Budget,
                ..
            }
        ));
        assert_eq!(
            solution.stats.guesses, 6,
            "stopped on the guess past the budget"
        );
    }

    #[tokio::test]
    async fn pooled_solves_answer_too() {
        let empty = grid(&".".repeat(81));
        let solution = pool()
            .solve(
                empty.clone(),
                Options {
                    algorithm: solver_core::Algorithm::Backtracking,
                    ..Options::default()
                },
            )
            .await
            .expect("solved");
        let Outcome::Multiple { first, found } = solution.outcome else {
            panic!("expected several solutions, got {:?}", solution.outcome)
        };
        assert_eq!(found, 2);
        assert!(first.is_solution_of(&empty));
    }
}
