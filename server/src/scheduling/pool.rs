//! The solver threads: puzzles are solved here, never on the async executor.

use std::cell::Cell;
use std::collections::VecDeque;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use solver_core::{Grid, Options, Report, SolveError, StopReason};
use tokio::sync::oneshot;

use crate::metrics::Metrics;
use crate::metrics::solves::SolveTally;
use crate::scheduling::lanes::{Lanes, Tenant};
use crate::solving::{Job, stopped_for};

/// The largest grid side tried on the calling task before going to a solver thread.
const INLINE_MAX_SIDE: usize = 9;
/// Guesses allowed on the calling task: a few microseconds of work on a 9×9 grid. A puzzle
/// that needs more is solved again from the start on a solver thread, so the attempt is
/// wasted; a small cap keeps that waste small on hard puzzles while nearly all 17-clue
/// puzzles still settle inline.
const INLINE_GUESSES: u64 = 8;
/// Inline tries in a row that needed more guesses, after which calls stop trying: a client
/// sending hard puzzles (about 200 guesses each) would pay every one's wasted try, an eighth
/// of a unary call's cost beyond its solve on two cores.
const INLINE_MISSES: u32 = 8;
/// While calls stop trying, one in this many on each async thread still does, so a return to
/// easy puzzles is seen within this many calls per thread.
const INLINE_PROBE_EVERY: u32 = 16;
/// How long a short-lane task runs before other clients get their turn; a puzzle still
/// unsolved after this long starts again in the long lane. Hard 9×9 puzzles take well under
/// a millisecond, so only the truly slow move, and the work thrown away is at most this.
const SLICE: Duration = Duration::from_millis(5);
/// Refused or abandoned puzzles a solver thread gets through between clock readings: each
/// costs a microsecond or less.
const UNSOLVED_PER_CLOCK: u32 = 64;

/// A puzzle as the solver threads take it: a [`Job`], or what becomes one there.
pub trait Work: Send + 'static {
    /// The job to solve, made ready on the solver thread the first time it is asked for (so
    /// building and checking the grid is not the async thread's work); `None` when there is
    /// nothing to solve, which goes to [`Deliver::refused`].
    fn job(&mut self) -> Option<&mut Job>;
    /// Whether its caller has left, so that it is dropped without being built: by default
    /// never (a [`Job`] is built already, and its solve checks the cancel flag itself).
    fn abandoned(&self) -> bool {
        false
    }
}

impl Work for Job {
    fn job(&mut self) -> Option<&mut Job> {
        Some(self)
    }
}

/// Where a pool's results go: each as it comes, then a flush whenever a solver thread stops
/// working for the caller for a while (end of a slice, a long solve done).
pub trait Deliver<J>: Send + 'static {
    /// Takes one result.
    fn deliver(&mut self, job: J, result: Result<Report, PoolError>);
    /// Takes work whose [`Work::job`] found nothing to solve; it holds its own answer.
    fn refused(&mut self, _work: J) {}
    /// A solver thread starts (or resumes) working for the caller; [`Deliver::flush`] comes
    /// when it stops.
    fn started(&mut self) {}
    /// Sends on whatever was held back to go out together.
    fn flush(&mut self) {}
    /// A puzzle (`job`) outlasted its slice and is going to the long lane: its answer may
    /// come long after the rest, so nothing should wait for it.
    fn went_long(&mut self, _job: &mut J) {}
}

impl<J, F> Deliver<J> for F
where
    F: FnMut(J, Result<Report, PoolError>) + Send + 'static,
{
    fn deliver(&mut self, job: J, result: Result<Report, PoolError>) {
        self(job, result);
    }
}

/// The solver threads shared by every call.
pub struct Pool {
    /// The solver threads' lanes, which logic work goes to as well.
    pub(crate) lanes: Arc<Lanes>,
    pub(crate) metrics: Arc<Metrics>,
    inline: InlineOdds,
}

/// Why a pooled solve gave no solution.
#[derive(Debug)]
pub enum PoolError {
    /// The solver refused the request (e.g. the fast algorithm on a 16×16 grid).
    Solve(SolveError),
    /// The caller left before the puzzle started, so it was skipped.
    Abandoned,
    /// The solver panicked on this puzzle (a bug); the message says where.
    Panicked(String),
}

impl Pool {
    /// Starts `workers` solver threads per lane, which yield their cores between tasks when
    /// `solvers_yield` (see [`crate::Config::solvers_yield`]).
    pub fn new(workers: usize, solvers_yield: bool, metrics: Arc<Metrics>) -> anyhow::Result<Pool> {
        Ok(Pool {
            lanes: Arc::new(Lanes::new(workers, solvers_yield)?),
            metrics,
            inline: InlineOdds::default(),
        })
    }

    /// Solves `job` for `tenant`, on a solver thread unless it is small and settles within
    /// a few guesses; `options.limits.cancel` skips or stops it.
    pub async fn solve(&self, tenant: Tenant, job: Job) -> Result<Report, PoolError> {
        if !job.fault_panic()
            && let Some(solution) = self.try_inline(&job.grid, &job.options)
        {
            return solution;
        }
        let (tx, rx) = oneshot::channel();
        let mut tx = Some(tx);
        self.submit(tenant, vec![job], move |_, result| {
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
    fn try_inline(&self, grid: &Grid, options: &Options) -> Option<Result<Report, PoolError>> {
        let budget = options.max_guesses.unwrap_or(u64::MAX);
        // A caller's budget within the cap makes the inline answer final: always worth it,
        // and no sign of what other calls need.
        let own_budget = budget <= INLINE_GUESSES;
        if grid.shape().side() > INLINE_MAX_SIDE || !(own_budget || self.inline.worth_trying()) {
            return None;
        }
        let capped = Options {
            max_guesses: Some(budget.min(INLINE_GUESSES)),
            ..options.clone()
        };
        let solved = guarded(&self.metrics, || solver_core::solve(grid, &capped));
        let solution = match solved.and_then(|solved| solved.map_err(PoolError::Solve)) {
            Ok(solution) => solution,
            Err(err) => return Some(Err(err)),
        };
        let hit_our_cap = stopped_for(&solution.outcome, StopReason::Budget) && !own_budget;
        if !own_budget {
            self.inline.record(!hit_our_cap);
        }
        if hit_our_cap {
            return None;
        }
        self.metrics.solved(&solution);
        Some(Ok(solution))
    }

    /// Solves `jobs` for `tenant`, calling `each` with every result as it comes. They run
    /// one after another on a short-lane thread, which hands the rest back to the queue after
    /// each time slice; a puzzle that outlasts a slice starts again in the long lane, so its
    /// result may come after later ones. Grouping small puzzles saves a thread wake-up each.
    pub fn submit<J>(&self, tenant: Tenant, jobs: Vec<J>, each: impl Deliver<J>)
    where
        J: Work,
    {
        self.metrics.in_flight().inc_by(jobs.len() as i64);
        let chunk = Chunk {
            jobs: jobs.into(),
            each: Arc::new(Mutex::new(each)),
            tenant,
            lanes: self.lanes.clone(),
            metrics: self.metrics.clone(),
        };
        self.lanes.short(tenant, Box::new(move || chunk.run()));
    }
}

/// Whether inline tries have been paying off lately, for every call of the server.
#[derive(Default)]
struct InlineOdds {
    /// Inline tries in a row that hit the guess cap, up to [`INLINE_MISSES`]. Written only
    /// when it changes, so calls that keep settling inline share the line read-only.
    misses: AtomicU32,
}

impl InlineOdds {
    /// Whether this call should try inline: yes unless the last tries all missed, and then
    /// still one call in [`INLINE_PROBE_EVERY`] on this thread.
    fn worth_trying(&self) -> bool {
        thread_local! {
            static CALLS: Cell<u32> = const { Cell::new(0) };
        }
        if self.misses.load(Ordering::Relaxed) < INLINE_MISSES {
            return true;
        }
        CALLS.with(|calls| {
            let n = calls.get().wrapping_add(1);
            calls.set(n);
            n % INLINE_PROBE_EVERY == 0
        })
    }

    /// Records how an inline try went.
    fn record(&self, settled: bool) {
        let misses = self.misses.load(Ordering::Relaxed);
        if settled && misses != 0 {
            self.misses.store(0, Ordering::Relaxed);
        } else if !settled && misses < INLINE_MISSES {
            self.misses.store(misses + 1, Ordering::Relaxed);
        }
    }
}

/// Puzzles of one call waiting for, or running on, a short-lane thread.
struct Chunk<J, F> {
    jobs: VecDeque<J>,
    each: Arc<Mutex<F>>,
    tenant: Tenant,
    lanes: Arc<Lanes>,
    metrics: Arc<Metrics>,
}

impl<J, F> Chunk<J, F>
where
    J: Work,
    F: Deliver<J>,
{
    /// Solves puzzles for one time slice, then queues the rest behind other tenants' work.
    fn run(mut self) {
        self.lock().started();
        let start = Instant::now();
        // The end of one solve is the start of the next: each solve is timed from the end of
        // the last (so its time takes in building its grid and handing on the last answer),
        // and the clock is read once a puzzle, at the end of its solve.
        let mut now = start;
        // Answered since the last flush, taken off the in-flight gauge together: a shared
        // counter written per puzzle bounces between the solver threads' caches.
        let mut answered = 0;
        // Solves counted here and added to the metrics at each flush, for the same reason.
        let mut tally = SolveTally::default();
        // Work that is not solved takes no solve time to add up: the clock is read every
        // so many of those instead, so a task of nothing but bad puzzles (a 4 MB message of
        // 2x2 grids is half a million) still ends with its slice.
        let mut unsolved = 0u32;
        while let Some(mut work) = self.jobs.pop_front() {
            let abandoned = work.abandoned();
            if !abandoned && let Some(job) = work.job() {
                // Each puzzle gets a whole slice: one started late in the task is not cut short.
                let spent = match run(job, &self.metrics, &mut tally, now, Some(now + SLICE)) {
                    Ran::Done(result) => {
                        answered += 1;
                        let spent = result.as_ref().ok().map(|report| report.stats.elapsed);
                        self.lock().deliver(work, result);
                        spent
                    }
                    Ran::Overran => {
                        self.to_long_lane(work);
                        None
                    }
                };
                now = spent
                    .and_then(|spent| now.checked_add(spent))
                    .unwrap_or_else(Instant::now);
            } else {
                answered += 1;
                if abandoned {
                    self.metrics.abandoned().inc();
                    self.lock().deliver(work, Err(PoolError::Abandoned));
                } else {
                    self.lock().refused(work);
                }
                unsolved += 1;
                if unsolved.is_multiple_of(UNSOLVED_PER_CLOCK) {
                    now = Instant::now();
                }
            }
            if now - start >= SLICE && !self.jobs.is_empty() {
                self.flush(answered, &mut tally);
                let lanes = self.lanes.clone();
                lanes.short(self.tenant, Box::new(move || self.run()));
                return;
            }
        }
        self.flush(answered, &mut tally);
    }

    fn flush(&self, answered: i64, tally: &mut SolveTally) {
        self.metrics.add_solves(tally);
        self.metrics.in_flight().dec_by(answered);
        self.lock().flush();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, F> {
        self.each.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn to_long_lane(&self, mut job: J) {
        self.lock().went_long(&mut job);
        let (each, metrics) = (self.each.clone(), self.metrics.clone());
        self.lanes.long(
            self.tenant,
            Box::new(move || {
                let mut job = job;
                // Made ready in the short lane, so always there.
                let result = job.job().map(|job| run_to_end(job, &metrics));
                metrics.in_flight().dec();
                let mut each = each.lock().unwrap_or_else(PoisonError::into_inner);
                match result {
                    Some(result) => each.deliver(job, result),
                    None => each.refused(job),
                }
                each.flush();
            }),
        );
    }
}

/// Solves with no time slice, to the puzzle's own deadline or budget.
fn run_to_end(job: &Job, metrics: &Metrics) -> Result<Report, PoolError> {
    let mut tally = SolveTally::default();
    let ran = run(job, metrics, &mut tally, Instant::now(), None);
    metrics.add_solves(&mut tally);
    match ran {
        Ran::Done(result) => result,
        // `run` reports an overrun only for a sliced solve.
        Ran::Overran => Err(PoolError::Abandoned),
    }
}

/// How a solve on a solver thread went.
enum Ran {
    /// Finished, failed, or was skipped: the answer.
    Done(Result<Report, PoolError>),
    /// Stopped at the end of its time slice, before its own deadline: it needs the long lane.
    Overran,
}

/// Solves `job`, starting `now`, until the earliest of the caller's deadline, the solve-time
/// cap and the time slice, counting the solve in `tally`. The last two go beside the job's options, not into a copy of
/// them: a copy would touch the shared cancel flag's reference count twice per puzzle, a
/// cache line every solver thread of the stream writes and every guess reads.
fn run(
    job: &Job,
    metrics: &Metrics,
    tally: &mut SolveTally,
    now: Instant,
    slice_end: Option<Instant>,
) -> Ran {
    // The solve-time cap starts now, not when the request arrived.
    let capped = match (job.options.limits.deadline, now.checked_add(job.cap)) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    // The slice applies only when it ends before the puzzle's own deadline; stopping there is
    // an overrun, not an answer.
    let sliced = slice_end.filter(|&end| capped.is_none_or(|d| end < d));
    let deadline = sliced.or(capped);
    let options = &job.options;
    let flag = options.limits.cancel.as_deref();
    let cancelled = || flag.is_some_and(|c| c.load(Ordering::Relaxed));
    if cancelled() {
        metrics.abandoned().inc();
        return Ran::Done(Err(PoolError::Abandoned));
    }
    let solution = guarded(metrics, || {
        #[cfg(feature = "fault-injection")]
        if job.fault_panic() {
            panic!("fault injected by a test");
        }
        solver_core::solve::solve_until(&job.grid, options, now, deadline)
    });
    let solution = match solution.and_then(|solved| solved.map_err(PoolError::Solve)) {
        Ok(solution) => solution,
        Err(err) => return Ran::Done(Err(err)),
    };
    let overran = sliced.is_some() && stopped_for(&solution.outcome, StopReason::Deadline);
    if overran && !cancelled() {
        return Ran::Overran;
    }
    if cancelled() {
        metrics.abandoned().inc();
    }
    tally.add(&solution);
    Ran::Done(Ok(solution))
}

/// Runs solver or logic work, a panic becoming [`PoolError::Panicked`] for this piece alone:
/// logged, counted, and the thread goes on with the next.
pub(crate) fn guarded<T>(metrics: &Metrics, work: impl FnOnce() -> T) -> Result<T, PoolError> {
    catch_unwind(AssertUnwindSafe(work)).map_err(|payload| {
        let message = (payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic with no message".to_owned());
        metrics.panics().inc();
        tracing::error!(panic = %message, "solver work panicked; answering INTERNAL");
        PoolError::Panicked(message)
    })
}

/// Raises a cancel flag (lowered at first) when dropped: a dropped RPC future stops its solve.
#[derive(Default)]
pub struct CancelOnDrop(pub Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use solver_core::Outcome;

    /// Solved by singles alone: no guess.
    const EASY: &str =
        "3.65.84..52........87....31..3.1..8.9..863..5.5..9.6..13....25........74..52.63..";

    fn pool() -> Pool {
        Pool::new(1, false, Arc::new(Metrics::new())).expect("a pool")
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
            algorithm: solver_core::solve::Algorithm::Backtracking,
            ..Options::default()
        };
        assert!(pool().try_inline(&empty, &options).is_none());
        // Larger grids never run inline.
        let big = Grid::empty(solver_core::Shape::new(4, 4).expect("4x4 boxes"));
        assert!(pool().try_inline(&big, &Options::default()).is_none());
    }

    #[test]
    fn calls_stop_trying_inline_after_a_run_of_misses_and_probe_until_one_settles() {
        let odds = InlineOdds::default();
        let tries = |odds: &InlineOdds| {
            (0..INLINE_PROBE_EVERY * 4)
                .filter(|_| odds.worth_trying())
                .count()
        };
        assert_eq!(tries(&odds), 64, "a fresh server tries every call inline");
        for _ in 0..INLINE_MISSES - 1 {
            odds.record(false);
        }
        assert_eq!(
            tries(&odds),
            64,
            "one miss short of the run, it still tries"
        );
        odds.record(false);
        assert_eq!(tries(&odds), 4, "after the run, only the probes try");
        odds.record(true);
        assert_eq!(tries(&odds), 64, "a probe that settles brings tries back");
    }

    #[test]
    fn a_pool_fed_hard_puzzles_sends_the_next_ones_straight_to_its_threads() {
        let pool = pool();
        let hard = grid(&".".repeat(81));
        let options = Options {
            algorithm: solver_core::solve::Algorithm::Backtracking,
            ..Options::default()
        };
        for _ in 0..INLINE_MISSES {
            assert!(pool.try_inline(&hard, &options).is_none());
        }
        // A caller's own small budget still runs inline, and tells nothing of the others.
        let small = Options {
            max_guesses: Some(INLINE_GUESSES),
            ..options.clone()
        };
        for _ in 0..INLINE_PROBE_EVERY {
            assert!(pool.try_inline(&hard, &small).is_some(), "final inline");
        }
        // Not tried at all now: an easy puzzle, which settles whenever tried, goes to the
        // pool until the probe comes round (on a fresh thread, its last call of the period).
        let easy = grid(EASY);
        let settled: Vec<bool> = std::thread::scope(|s| {
            s.spawn(|| {
                (0..INLINE_PROBE_EVERY)
                    .map(|_| pool.try_inline(&easy, &Options::default()).is_some())
                    .collect()
            })
            .join()
            .expect("the calls ran")
        });
        let last = settled.len() - 1;
        assert_eq!(settled.iter().position(|&s| s), Some(last), "{settled:?}");
        assert!(
            (0..INLINE_PROBE_EVERY).all(|_| pool.try_inline(&easy, &Options::default()).is_some()),
            "the probe settled, so every call tries inline again"
        );
    }

    #[test]
    fn a_callers_small_budget_is_final_inline() {
        let empty = grid(&".".repeat(81));
        let options = Options {
            algorithm: solver_core::solve::Algorithm::Backtracking,
            max_guesses: Some(5),
            ..Options::default()
        };
        let solution = pool()
            .try_inline(&empty, &options)
            .expect("answered inline")
            .expect("ran");
        assert!(stopped_for(&solution.outcome, StopReason::Budget));
        assert_eq!(
            solution.stats.guesses, 6,
            "stopped on the guess past the budget"
        );
    }

    #[test]
    fn a_panicking_solve_is_an_error_for_that_puzzle_only() {
        let metrics = Metrics::new();
        let err = guarded(&metrics, || -> u8 { panic!("boom at row 3") }).unwrap_err();
        assert!(
            matches!(&err, PoolError::Panicked(m) if m == "boom at row 3"),
            "{err:?}"
        );
        assert_eq!(metrics.panics().get(), 1);
        let puzzle = grid(EASY);
        let solved = guarded(&metrics, || {
            solver_core::solve(&puzzle, &Options::default())
        })
        .expect("the next solve runs")
        .expect("solved");
        assert!(
            solved
                .outcome
                .grid()
                .is_some_and(|s| s.is_solution_of(&puzzle))
        );
    }

    /// Work that takes `cost` to find it has nothing to solve, as a bad puzzle does.
    struct Refused {
        cost: Duration,
        abandoned: Arc<AtomicBool>,
    }

    impl Work for Refused {
        fn job(&mut self) -> Option<&mut Job> {
            std::thread::sleep(self.cost);
            None
        }

        fn abandoned(&self) -> bool {
            self.abandoned.load(Ordering::Relaxed)
        }
    }

    /// Counts what one caller's work came to: refused, and given back abandoned.
    #[derive(Clone, Default)]
    struct Counts(
        Arc<(
            std::sync::atomic::AtomicUsize,
            std::sync::atomic::AtomicUsize,
        )>,
    );

    impl Deliver<Refused> for Counts {
        fn deliver(&mut self, _: Refused, result: Result<Report, PoolError>) {
            assert!(matches!(result, Err(PoolError::Abandoned)), "{result:?}");
            self.0.1.fetch_add(1, Ordering::Relaxed);
        }

        fn refused(&mut self, _: Refused) {
            self.0.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    #[tokio::test]
    async fn a_task_of_refused_puzzles_still_ends_with_its_slice() {
        let pool = pool();
        let counts = Counts::default();
        let stays = Arc::new(AtomicBool::new(false));
        // 200 bad puzzles of 200 µs each: 40 ms of work on the one thread, eight slices.
        let bad = (0..200)
            .map(|_| Refused {
                cost: Duration::from_micros(200),
                abandoned: stays.clone(),
            })
            .collect();
        pool.submit(Tenant::of(None), bad, counts.clone());
        let refused = |counts: &Counts| counts.0.0.load(Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        let mut tx = Some(tx);
        let seen = counts.clone();
        let job = Job::new(grid(EASY), Options::default(), Duration::from_secs(10));
        pool.submit(
            Tenant::of(None),
            vec![job],
            move |_: Job, result: Result<Report, PoolError>| {
                if let Some(tx) = tx.take() {
                    let _ = tx.send((refused(&seen), result.is_ok()));
                }
            },
        );
        let (before, solved) = rx.await.expect("the other caller is answered");
        assert!(solved);
        assert!(
            before < 200,
            "answered between the slices, not after all 200"
        );
    }

    #[tokio::test]
    async fn the_puzzles_of_a_caller_that_left_are_given_back_unbuilt() {
        let pool = pool();
        let counts = Counts::default();
        let left = Arc::new(AtomicBool::new(true));
        let work = (0..100)
            .map(|_| Refused {
                cost: Duration::from_secs(1),
                abandoned: left.clone(),
            })
            .collect();
        pool.submit(Tenant::of(None), work, counts.clone());
        let deadline = Instant::now() + Duration::from_secs(10);
        while counts.0.1.load(Ordering::Relaxed) < 100 {
            assert!(Instant::now() < deadline, "every puzzle given back");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(counts.0.0.load(Ordering::Relaxed), 0, "none built");
    }

    #[tokio::test]
    async fn pooled_solves_answer_too() {
        let empty = grid(&".".repeat(81));
        let solution = pool()
            .solve(
                Tenant::of(None),
                Job::new(
                    empty.clone(),
                    Options {
                        algorithm: solver_core::solve::Algorithm::Backtracking,
                        ..Options::default()
                    },
                    Duration::from_secs(10),
                ),
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
