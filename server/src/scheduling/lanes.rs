//! The solver threads: a short lane that serves connections in turn, a time slice at a time,
//! and a long lane for what outlasts its slice, served least used first since its tasks run to
//! their end (docs/design/server.md, invariant 3).

use std::collections::{HashMap, VecDeque};
use std::hash::{Hash, Hasher};
use std::net::SocketAddr;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant};

/// Whose work a task is: one per client connection, so each connection gets its turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tenant(u64);

impl Tenant {
    /// The tenant of a call from `remote`; a call with no known peer is a tenant of its own.
    pub fn of(remote: Option<SocketAddr>) -> Tenant {
        static UNKNOWN: AtomicU64 = AtomicU64::new(0);
        match remote {
            Some(addr) => {
                let mut hasher = std::collections::hash_map::DefaultHasher::new();
                addr.hash(&mut hasher);
                Tenant(hasher.finish() | 1)
            }
            // Even numbers never collide with the odd hashes above.
            None => Tenant(UNKNOWN.fetch_add(1, Ordering::Relaxed) << 1),
        }
    }
}

/// A unit of work on a solver thread.
pub type Task = Box<dyn FnOnce() + Send>;

/// Tasks by tenant, served round-robin, or least used first where `by_use`.
#[derive(Default)]
struct Queue {
    state: Mutex<State>,
    ready: Condvar,
    by_use: bool,
}

/// What a tenant has of a queue served by use: tasks running, and time its tasks ran.
#[derive(Debug, Default, Clone, Copy)]
struct Usage {
    running: usize,
    used: Duration,
}

#[derive(Default)]
struct State {
    /// Tenants with work, in serving order.
    turns: VecDeque<Tenant>,
    tasks: HashMap<Tenant, VecDeque<Task>>,
    /// By use: each tenant's, while it has tasks queued or running.
    usage: HashMap<Tenant, Usage>,
    /// By use: the most time used by a tenant when its task was taken or when it was
    /// forgotten (having nothing queued or running). A tenant comes back, or comes new, as
    /// having used this much: leaving and coming back gains it nothing, and one that has
    /// used much waits only until the others have caught up with it.
    floor: Duration,
    /// Threads waiting for a task. A push wakes one only when some wait: std's `notify_one`
    /// makes a system call even when no thread waits, and at full load none does.
    waiting: usize,
    closed: bool,
}

impl Queue {
    /// A queue served least used first.
    fn by_use() -> Queue {
        Queue {
            by_use: true,
            ..Queue::default()
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Tasks run outside the lock, so a poisoned lock holds consistent state.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn push(&self, tenant: Tenant, task: Task) {
        let mut state = self.lock();
        let tasks = state.tasks.entry(tenant).or_default();
        tasks.push_back(task);
        if tasks.len() == 1 {
            state.turns.push_back(tenant);
            if self.by_use {
                let floor = state.floor;
                let usage = state.usage.entry(tenant).or_default();
                usage.used = usage.used.max(floor);
            }
        }
        let wake = state.waiting > 0;
        drop(state);
        if wake {
            self.ready.notify_one();
        }
    }

    /// The next tenant's next task, with the tenant; `None` once closed.
    fn pop(&self) -> Option<(Tenant, Task)> {
        let mut state = self.lock();
        loop {
            let next = if self.by_use {
                state.least_used()
            } else {
                state.turns.pop_front()
            };
            if let Some(tenant) = next {
                let tasks = state.tasks.get_mut(&tenant)?;
                let task = tasks.pop_front()?;
                if tasks.is_empty() {
                    state.tasks.remove(&tenant);
                } else {
                    state.turns.push_back(tenant);
                }
                if self.by_use {
                    let usage = state.usage.entry(tenant).or_default();
                    usage.running += 1;
                    let used = usage.used;
                    state.floor = state.floor.max(used);
                }
                return Some((tenant, task));
            }
            if state.closed {
                return None;
            }
            state.waiting += 1;
            state = self
                .ready
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
            state.waiting -= 1;
        }
    }

    /// Counts a task of `tenant`'s, taken by [`Queue::pop`], as done after running `ran`.
    fn done(&self, tenant: Tenant, ran: Duration) {
        if !self.by_use {
            return;
        }
        let mut state = self.lock();
        let queued = state.tasks.contains_key(&tenant);
        if let Some(usage) = state.usage.get_mut(&tenant) {
            usage.running = usage.running.saturating_sub(1);
            usage.used += ran;
            let used = usage.used;
            if usage.running == 0 && !queued {
                state.usage.remove(&tenant);
                state.floor = state.floor.max(used);
            }
        }
    }

    fn close(&self) {
        self.lock().closed = true;
        self.ready.notify_all();
    }
}

impl State {
    /// Takes out of the turns the tenant with the fewest tasks running and the least time
    /// used, in whole seconds; among equals, the one with the fewest tasks queued, then the
    /// earliest in turn. Counted finer, a client whose few quick puzzles ran long under CPU
    /// load would lose its turn to connections whose long solves had not started yet.
    fn least_used(&mut self) -> Option<Tenant> {
        let key = |tenant: &Tenant| {
            let usage = self.usage.get(tenant).copied().unwrap_or_default();
            let queued = self.tasks.get(tenant).map_or(0, VecDeque::len);
            (usage.running, usage.used.as_secs(), queued)
        };
        let (at, _) = self
            .turns
            .iter()
            .enumerate()
            .min_by_key(|(_, tenant)| key(tenant))?;
        self.turns.remove(at)
    }
}

/// The two lanes and their threads; the threads end when this is dropped.
pub struct Lanes {
    short: Arc<Queue>,
    long: Arc<Queue>,
    /// Threads per lane.
    pub(crate) workers: usize,
    /// Whether the long lane has threads. They start with its first task: most runs of the
    /// CLI never need them, and starting them costs a one-puzzle run a noticeable share.
    long_threads: OnceLock<bool>,
    /// Whether the threads yield their cores between tasks (see [`Turns`]).
    yields: bool,
}

impl Lanes {
    /// `workers` threads for each lane, yielding their cores between tasks when `yields`.
    pub fn new(workers: usize, yields: bool) -> std::io::Result<Lanes> {
        let lanes = Lanes {
            short: Arc::default(),
            long: Arc::new(Queue::by_use()),
            workers,
            long_threads: OnceLock::new(),
            yields,
        };
        for i in 0..workers {
            spawn(format!("sudoku-solver-{i}"), lanes.short.clone(), yields)?;
        }
        Ok(lanes)
    }

    /// Queues work that runs at most a time slice before yielding.
    pub fn short(&self, tenant: Tenant, task: Task) {
        self.short.push(tenant, task);
    }

    /// Queues work that may run long; the long lane's threads start with its first task.
    pub fn long(&self, tenant: Tenant, task: Task) {
        let started = *self.long_threads.get_or_init(|| {
            let started = (0..self.workers)
                .filter(|i| {
                    spawn(format!("sudoku-long-{i}"), self.long.clone(), self.yields).is_ok()
                })
                .count();
            if started < self.workers {
                tracing::error!(
                    started,
                    wanted = self.workers,
                    "could not start every long-lane solver thread"
                );
            }
            started > 0
        });
        // Without a long lane, long work runs to its end on the short lane's threads: quick
        // puzzles wait behind it, but it gets done.
        let lane = if started { &self.long } else { &self.short };
        lane.push(tenant, task);
    }
}

impl Drop for Lanes {
    fn drop(&mut self) {
        self.short.close();
        self.long.close();
    }
}

fn spawn(name: String, queue: Arc<Queue>, yields: bool) -> std::io::Result<()> {
    std::thread::Builder::new().name(name).spawn(move || {
        let mut turns = yields.then(|| Turns::new(Instant::now()));
        while let Some((tenant, task)) = queue.pop() {
            let start = queue.by_use.then(Instant::now);
            // Solves catch their own panics; this keeps the thread alive for anything else.
            if catch_unwind(AssertUnwindSafe(task)).is_err() {
                tracing::error!("a task on a solver thread panicked");
            }
            if let Some(start) = start {
                queue.done(tenant, start.elapsed());
            }
            if turns.as_mut().is_some_and(|t| t.due(Instant::now())) {
                std::thread::yield_now();
            }
        }
    })?;
    Ok(())
}

/// Solver threads that share their cores with their client's threads give up their core
/// between tasks, at most once per [`YIELD_EVERY`]: the client's and the server's async
/// threads that carry puzzles in and answers out, woken while every core solves, would
/// otherwise wait for the scheduler to preempt a solver (a whole tick), while the solvers
/// run dry.
const YIELD_EVERY: Duration = Duration::from_millis(1);

/// When a solver thread last yielded its core.
struct Turns {
    last: Instant,
}

impl Turns {
    fn new(now: Instant) -> Turns {
        Turns { last: now }
    }

    /// Whether to yield now, a task having just ended at `now`.
    fn due(&mut self, now: Instant) -> bool {
        let due = now.duration_since(self.last) >= YIELD_EVERY;
        if due {
            self.last = now;
        }
        due
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tenants_take_turns() {
        let queue = Queue::default();
        let log = Arc::new(Mutex::new(Vec::new()));
        let (a, b) = (Tenant(1), Tenant(3));
        for (tenant, name) in [(a, "a1"), (a, "a2"), (a, "a3"), (b, "b1"), (b, "b2")] {
            let log = log.clone();
            queue.push(tenant, Box::new(move || log.lock().unwrap().push(name)));
        }
        queue.close();
        while let Some((_, task)) = queue.pop() {
            task();
        }
        assert_eq!(*log.lock().unwrap(), ["a1", "b1", "a2", "b2", "a3"]);
    }

    /// The tenants of the tasks `queue` gives, each done after `ran` seconds, until `count`.
    fn served(queue: &Queue, count: usize, ran: impl Fn(Tenant) -> u64) -> Vec<Tenant> {
        (0..count)
            .map(|_| {
                let (tenant, _) = queue.pop().expect("a task");
                queue.done(tenant, Duration::from_secs(ran(tenant)));
                tenant
            })
            .collect()
    }

    #[test]
    fn the_long_lane_serves_the_least_used_tenant_first() {
        let queue = Queue::by_use();
        let (slow, honest, late) = (Tenant(1), Tenant(3), Tenant(5));
        for _ in 0..4 {
            queue.push(slow, Box::new(|| ()));
        }
        queue.push(honest, Box::new(|| ()));
        queue.push(honest, Box::new(|| ()));
        // The slow tenant's tasks run 10 s, the honest one's none: the honest one goes first
        // (the shorter queue), and then the slow one has used more.
        let ran = |tenant| if tenant == slow { 10 } else { 0 };
        assert_eq!(served(&queue, 3, ran), [honest, honest, slow]);
        // A tenant arriving late counts as having used what the most used one served or gone
        // had: it goes before the slow tenant, who has used more.
        queue.push(late, Box::new(|| ()));
        assert_eq!(served(&queue, 2, ran), [late, slow]);
        assert_eq!(queue.lock().usage.len(), 1, "only the slow tenant is known");
        // A tenant that leaves having used much comes back as having used as much: the slow
        // tenant, who has used less, goes first.
        let (heavy, light) = (Tenant(7), Tenant(9));
        queue.push(heavy, Box::new(|| ()));
        assert_eq!(queue.pop().map(|(tenant, _)| tenant), Some(heavy));
        queue.done(heavy, Duration::from_secs(100));
        queue.push(heavy, Box::new(|| ()));
        queue.push(light, Box::new(|| ()));
        assert_eq!(served(&queue, 4, |_| 1), [slow, slow, heavy, light]);
    }

    #[test]
    fn among_tenants_that_have_used_the_same_the_one_with_less_queued_goes_first() {
        let queue = Queue::by_use();
        let (backlog, other, honest) = (Tenant(1), Tenant(3), Tenant(5));
        for tenant in [backlog, backlog, backlog, other, other, honest] {
            queue.push(tenant, Box::new(|| ()));
        }
        let first: Vec<Tenant> = (0..2).map(|_| queue.pop().expect("a task").0).collect();
        assert_eq!(
            first,
            [honest, other],
            "none has run: the shortest queues first"
        );
        // Under a second used counts as none: the honest client's next puzzle goes before
        // the backlog, which has used nothing yet either.
        queue.done(honest, Duration::from_millis(200));
        queue.push(honest, Box::new(|| ()));
        assert_eq!(queue.pop().map(|(tenant, _)| tenant), Some(honest));
    }

    #[test]
    fn the_long_lane_gives_a_tenant_running_a_task_the_next_turn_last() {
        let queue = Queue::by_use();
        let (a, b) = (Tenant(1), Tenant(3));
        for tenant in [a, a, b, b] {
            queue.push(tenant, Box::new(|| ()));
        }
        let first: Vec<Tenant> = (0..2).map(|_| queue.pop().expect("a task").0).collect();
        assert_eq!(first, [a, b], "a's task still runs: b's goes next");
        // a's is done, b's still runs: a goes next, though it has used more.
        queue.done(a, Duration::from_secs(1));
        assert_eq!(queue.pop().map(|(tenant, _)| tenant), Some(a));
    }

    #[test]
    fn a_thread_waiting_for_work_wakes_for_each_push() {
        let queue = Arc::new(Queue::default());
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        let worker = {
            let queue = queue.clone();
            std::thread::spawn(move || {
                while let Some((_, task)) = queue.pop() {
                    task();
                }
            })
        };
        for round in 0..50 {
            // Wait until the worker sleeps, so each push must wake it rather than find it busy.
            let asleep_by = std::time::Instant::now() + std::time::Duration::from_secs(5);
            while queue.lock().waiting == 0 {
                assert!(
                    std::time::Instant::now() < asleep_by,
                    "the worker never waited"
                );
                std::thread::yield_now();
            }
            let done = done_tx.clone();
            queue.push(Tenant(1), Box::new(move || done.send(round).unwrap()));
            let ran = done_rx.recv_timeout(std::time::Duration::from_secs(5));
            assert_eq!(ran, Ok(round), "the sleeping worker ran round {round}");
        }
        queue.close();
        worker.join().unwrap();
    }

    #[test]
    fn a_solver_thread_yields_between_tasks_at_most_once_a_period() {
        let start = Instant::now();
        let mut turns = Turns::new(start);
        let at = |us: u64| start + Duration::from_micros(us);
        let period = YIELD_EVERY.as_micros() as u64;
        assert!(!turns.due(at(10)), "a task just after the start");
        assert!(!turns.due(at(period - 1)));
        assert!(turns.due(at(period)), "a period after the start");
        assert!(!turns.due(at(period + 1)), "just after a yield");
        assert!(!turns.due(at(2 * period - 1)));
        assert!(
            turns.due(at(2 * period + 500)),
            "a period after the last yield"
        );
        assert!(turns.due(at(10 * period)), "long tasks yield after each");
    }

    #[test]
    fn peers_are_tenants_and_unknown_peers_are_each_their_own() {
        let addr: SocketAddr = "127.0.0.1:4000".parse().unwrap();
        assert_eq!(Tenant::of(Some(addr)), Tenant::of(Some(addr)));
        assert_ne!(Tenant::of(None), Tenant::of(None));
        assert_ne!(
            Tenant::of(Some(addr)),
            Tenant::of(Some("127.0.0.1:4001".parse().unwrap()))
        );
    }

    #[test]
    fn the_long_lane_starts_its_threads_with_its_first_task() {
        let lanes = Lanes::new(2, false).expect("threads start");
        assert!(
            lanes.long_threads.get().is_none(),
            "no long-lane threads yet"
        );
        let (tx, rx) = std::sync::mpsc::channel();
        for i in 0..4 {
            let tx = tx.clone();
            let name = move || std::thread::current().name().map(str::to_owned);
            lanes.long(Tenant(1), Box::new(move || tx.send((i, name())).unwrap()));
        }
        let mut ran: Vec<(i32, Option<String>)> = (0..4)
            .map(|_| rx.recv_timeout(std::time::Duration::from_secs(5)).unwrap())
            .collect();
        ran.sort();
        assert_eq!(
            ran.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
            [0, 1, 2, 3]
        );
        assert!(
            ran.iter().all(|(_, name)| name
                .as_deref()
                .is_some_and(|n| n.starts_with("sudoku-long-"))),
            "{ran:?}"
        );
        assert_eq!(lanes.long_threads.get(), Some(&true));
    }

    #[test]
    fn a_panicking_task_does_not_end_its_thread() {
        let lanes = Lanes::new(1, true).expect("threads start");
        let (tx, rx) = std::sync::mpsc::channel();
        lanes.short(Tenant(1), Box::new(|| panic!("boom")));
        lanes.short(Tenant(1), Box::new(move || tx.send(7).unwrap()));
        assert_eq!(rx.recv_timeout(std::time::Duration::from_secs(5)), Ok(7));
    }
}
