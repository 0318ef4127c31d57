//! The solver threads: puzzles are solved here, never on the async executor.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use solver_core::{Grid, Options, Solution, SolveError};
use tokio::sync::oneshot;

use crate::metrics::Metrics;

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

    /// Solves `grid` on a solver thread; `options.cancel` skips or stops it.
    pub async fn solve(&self, grid: Grid, options: Options) -> Result<Solution, PoolError> {
        let (tx, rx) = oneshot::channel();
        self.submit(vec![(grid, options)], move |mut results| {
            let _ = tx.send(results.pop().unwrap_or(Err(PoolError::Abandoned)));
        });
        rx.await.unwrap_or(Err(PoolError::Abandoned))
    }

    /// Solves `jobs` one after another on one solver thread, then calls `done` with their
    /// results in order. Grouping small puzzles saves a thread wake-up per puzzle.
    pub fn submit(
        &self,
        jobs: Vec<(Grid, Options)>,
        done: impl FnOnce(Vec<Result<Solution, PoolError>>) + Send + 'static,
    ) {
        let metrics = self.metrics.clone();
        metrics.in_flight().inc_by(jobs.len() as i64);
        self.threads.spawn(move || {
            let results = jobs
                .into_iter()
                .map(|(grid, options)| {
                    let result = run(&grid, &options, &metrics);
                    metrics.in_flight().dec();
                    result
                })
                .collect();
            done(results);
        });
    }
}

fn run(grid: &Grid, options: &Options, metrics: &Metrics) -> Result<Solution, PoolError> {
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
    let start = Instant::now();
    let solution = solver_core::solve(grid, options).map_err(PoolError::Solve)?;
    if cancelled() {
        metrics.abandoned().inc();
    }
    metrics.solved(
        crate::respond::outcome_name(&solution.outcome),
        start.elapsed().as_secs_f64(),
    );
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
