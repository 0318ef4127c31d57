//! Every open batch stream as the byte budgets see it, and room made in a budget by closing
//! streams that hold some of it without using it.
//!
//! A stream may be closed for another's room only while it waits for its client (for its
//! next message, or to take answers), with no puzzle of its being solved and no message
//! arriving that would need half what its buffers keep; and then, by budget:
//! - what its buffers keep (`--max-kept-bytes`, see [`super::kept`]): it has read no
//!   message needing half of it, and left no answer untaken, for a while (a second by
//!   default);
//! - what its puzzles and answers hold, and its messages waiting for room
//!   (`--max-buffered-bytes`): its client has left an answer untaken for that while.
//!
//! Those holding the most go first, until what is free meets what the waiting streams want.
//! The age of the oldest untaken answer is what tells a client that cannot keep up from one
//! that merely reads slowly: clients that took an answer every half second, just often
//! enough for a rule on the time since the last one taken, held every byte budget for as
//! long as they liked (64 streams holding 1 MiB each, all of `--max-buffered-bytes`).

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};

use crate::calls::LargestMessage;

/// How often streams waiting for room look for streams to close, all of them together: one
/// that has just sent its client's last answer may still count a puzzle on the solver
/// threads for a moment, and a look reads every stream (a thousand streams each looking
/// every 20 ms took half a core).
const LOOK_AGAIN: Duration = Duration::from_millis(20);

/// A byte budget streams may be closed to make room in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Budget {
    /// What message buffers keep (`--max-kept-bytes`).
    Kept = 0,
    /// What puzzles read and answers unsent hold (`--max-buffered-bytes`).
    Buffered = 1,
    /// Messages read and waiting for room (`--max-buffered-bytes` again).
    Waiting = 2,
}

const BUDGETS: usize = 3;

/// When a budget's streams were last looked at, before the first look.
const NEVER: u64 = u64::MAX;

/// Every open stream, and what the streams waiting for room want of each budget.
pub(crate) struct Holders {
    holders: Mutex<Vec<Weak<Holder>>>,
    /// What times are counted from, in ms.
    epoch: Instant,
    /// How long a stream must not have used what it holds before it may be closed.
    unused_before_closed: Duration,
    /// Bytes the streams waiting for room want, together, by budget.
    wanted: [AtomicUsize; BUDGETS],
    /// When streams were last looked at for each budget, in ms since the epoch.
    looked_at: [AtomicU64; BUDGETS],
}

/// One stream as the budgets see it, shared by its reading and answering sides.
pub(crate) struct Holder {
    /// Bytes its buffers keep.
    kept: AtomicUsize,
    /// Their share of the kept budget.
    permit: Mutex<Option<OwnedSemaphorePermit>>,
    /// Bytes it holds among the messages waiting for room.
    in_waiting_room: Arc<AtomicUsize>,
    /// When it last read a message needing half what it keeps, in ms since the epoch.
    used_at: AtomicU64,
    /// Whether it waits for its client: for its next message, or to take answers.
    waiting: AtomicBool,
    /// The budget it was closed for, as a [`Budget`].
    closed_for: AtomicU8,
    /// What it is doing.
    work: Work,
    epoch: Instant,
    /// Raised to close it.
    close: Notify,
}

/// What shows whether a stream is working for its client.
pub(crate) struct Work {
    /// Its tasks on the solver threads.
    pub(crate) in_pool: Arc<AtomicUsize>,
    /// Its byte budget: what it holds of it, it holds of the server's (`--max-buffered-bytes`).
    pub(crate) stream_bytes: Arc<Semaphore>,
    pub(crate) stream_budget: usize,
    /// Its largest message, and the one arriving.
    pub(crate) largest: LargestMessage,
    /// What it keeps once a request of so many bytes has gone through (`Batched::kept_bytes`).
    pub(crate) kept_for: fn(usize) -> usize,
    /// Its answers not yet taken by its client.
    pub(crate) backlog: Weak<dyn Backlog>,
}

/// Answers made and not yet taken by the client.
pub(crate) trait Backlog: Send + Sync {
    /// When the oldest of them was made; `None` when there are none.
    fn oldest(&self) -> Option<Instant>;
}

impl Holders {
    /// No streams yet; streams that have not used what they hold for `unused_before_closed`
    /// may be closed.
    pub(crate) fn new(unused_before_closed: Duration) -> Holders {
        Holders {
            holders: Mutex::new(Vec::new()),
            epoch: Instant::now(),
            unused_before_closed,
            wanted: Default::default(),
            looked_at: [const { AtomicU64::new(NEVER) }; BUDGETS],
        }
    }

    /// How long a stream must not have used what it holds before it may be closed.
    pub(crate) fn unused_before_closed(&self) -> Duration {
        self.unused_before_closed
    }

    /// A new stream's place among the holders.
    pub(crate) fn holder(&self, work: Work) -> Arc<Holder> {
        let holder = Arc::new(Holder {
            kept: AtomicUsize::new(0),
            permit: Mutex::new(None),
            in_waiting_room: Arc::default(),
            used_at: AtomicU64::new(millis(self.epoch.elapsed())),
            waiting: AtomicBool::new(false),
            closed_for: AtomicU8::new(Budget::Kept as u8),
            work,
            epoch: self.epoch,
            close: Notify::new(),
        });
        if let Ok(mut holders) = self.holders.lock() {
            holders.retain(|h| h.strong_count() > 0);
            holders.push(Arc::downgrade(&holder));
        }
        holder
    }

    /// `bytes` of `room` (a `budget`) for `asking`, closing streams that hold some without
    /// using it while it waits; `None` if none is granted `within` that long.
    pub(crate) async fn take(
        &self,
        budget: Budget,
        room: &Arc<Semaphore>,
        bytes: usize,
        asking: &Holder,
        within: Option<Duration>,
    ) -> Option<OwnedSemaphorePermit> {
        let deadline = within.map(|within| tokio::time::Instant::now() + within);
        let wanted = &self.wanted[budget as usize];
        wanted.fetch_add(bytes, Ordering::Relaxed);
        let _wanted = Wanted(wanted, bytes);
        // One place in the queue throughout: a new one each look went to its back.
        let permit = room.clone().acquire_many_owned(permits(bytes));
        tokio::pin!(permit);
        loop {
            let free = room.available_permits();
            self.look(budget, free, wanted.load(Ordering::Relaxed), asking);
            let mut until = tokio::time::Instant::now() + LOOK_AGAIN;
            if let Some(deadline) = deadline {
                until = until.min(deadline);
            }
            match tokio::time::timeout_at(until, &mut permit).await {
                Ok(granted) => return granted.ok(),
                Err(_) if deadline.is_some_and(|d| tokio::time::Instant::now() >= d) => {
                    return None;
                }
                Err(_) => {}
            }
        }
    }

    /// Closes the streams that may be closed for `budget` and hold the most of it, until
    /// `free` and what they hold meet `wanted`; at most once per [`LOOK_AGAIN`] a budget,
    /// whoever asks.
    pub(crate) fn look(&self, budget: Budget, free: usize, wanted: usize, asking: &Holder) {
        if free >= wanted || !self.may_look(budget) {
            return;
        }
        let Ok(holders) = self.holders.lock() else {
            return;
        };
        let mut closable: Vec<(usize, Arc<Holder>)> = holders
            .iter()
            .filter_map(Weak::upgrade)
            .filter(|h| !std::ptr::eq(h.as_ref(), asking))
            .map(|h| (h.holds(budget), h))
            // Closing one that holds nothing frees nothing.
            .filter(|(held, h)| *held > 0 && h.closable_for(budget))
            .collect();
        drop(holders);
        // The cheap tests first: this one locks each stream's answers.
        closable.retain(|(_, h)| h.unused_for(budget, self.unused_before_closed));
        closable.sort_by_key(|(held, _)| std::cmp::Reverse(*held));
        let mut freed = free;
        for (held, holder) in closable {
            if freed >= wanted {
                break;
            }
            freed += held;
            holder.close_for(budget);
        }
    }

    /// Whether this caller is the one to look for `budget` now.
    fn may_look(&self, budget: Budget) -> bool {
        let now = millis(self.epoch.elapsed());
        let looked_at = &self.looked_at[budget as usize];
        let last = looked_at.load(Ordering::Relaxed);
        (last == NEVER || now >= last.saturating_add(millis(LOOK_AGAIN)))
            && looked_at
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
    }
}

/// Takes back what a stream waiting for room wanted when it stops waiting.
struct Wanted<'a>(&'a AtomicUsize, usize);

impl Drop for Wanted<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(self.1, Ordering::Relaxed);
    }
}

impl Holder {
    /// Records that the stream has just read a message needing half what it keeps.
    pub(crate) fn used(&self) {
        self.used_at
            .store(millis(self.epoch.elapsed()), Ordering::Relaxed);
    }

    /// Marks the stream as waiting for its client, or not.
    pub(crate) fn waiting(&self, waiting: bool) {
        self.waiting.store(waiting, Ordering::Relaxed);
    }

    /// Adds `permit` to what its buffers keep, having just read a message that needs it all.
    pub(crate) fn keeps(&self, permit: OwnedSemaphorePermit) {
        if let Ok(mut held) = self.permit.lock() {
            match &mut *held {
                Some(held) => held.merge(permit),
                none => *none = Some(permit),
            }
            let bytes = held.as_ref().map_or(0, OwnedSemaphorePermit::num_permits);
            self.kept.store(bytes, Ordering::Relaxed);
        }
        self.used();
    }

    /// Gives back what its buffers keep, as its reader ends. (An answer tonic has taken but
    /// the client not yet read stays in tonic's and HTTP/2's buffers until the client reads
    /// it or the connection closes: a piece at most, 1 MiB.)
    pub(crate) fn release(&self) {
        if let Ok(mut held) = self.permit.lock() {
            *held = None;
        }
        self.kept.store(0, Ordering::Relaxed);
    }

    /// Bytes its buffers keep.
    pub(crate) fn kept(&self) -> usize {
        self.kept.load(Ordering::Relaxed)
    }

    /// Room among the messages waiting for room, counted as this stream's while held.
    pub(crate) fn waiting_room(&self, permit: OwnedSemaphorePermit) -> WaitingRoom {
        WaitingRoom::new(permit, self.in_waiting_room.clone())
    }

    /// Bytes it holds of `budget`.
    fn holds(&self, budget: Budget) -> usize {
        match budget {
            Budget::Kept => self.kept(),
            Budget::Buffered => {
                let free = self.work.stream_bytes.available_permits();
                self.work.stream_budget.saturating_sub(free)
            }
            Budget::Waiting => self.in_waiting_room.load(Ordering::Relaxed),
        }
    }

    /// Whether it has not used what it holds of `budget` for `idle` (see the module's
    /// comment); [`Holder::closable`] says whether its state allows closing at all.
    fn unused_for(&self, budget: Budget, idle: Duration) -> bool {
        let oldest = self.work.backlog.upgrade().and_then(|b| b.oldest());
        let slow = oldest.map(|made| made.elapsed() >= idle);
        match budget {
            Budget::Kept => {
                let used = millis(self.epoch.elapsed())
                    .saturating_sub(self.used_at.load(Ordering::Relaxed));
                used >= millis(idle) && slow.unwrap_or(true)
            }
            Budget::Buffered | Budget::Waiting => slow.unwrap_or(false),
        }
    }

    /// Whether it may still be closed for the budget it was asked to close for.
    pub(crate) fn closable(&self) -> bool {
        self.closable_for(self.closed_for())
    }

    /// Whether it may be closed for `budget` now, as far as its own state goes: waiting for
    /// its client, with nothing being solved; and for what its buffers keep, no message
    /// arriving that uses it (tiny ones, each frame holding the next one's start, would keep
    /// it open for a few bytes a second). A message arriving does not take answers.
    fn closable_for(&self, budget: Budget) -> bool {
        let waiting =
            self.waiting.load(Ordering::Relaxed) && self.work.in_pool.load(Ordering::Acquire) == 0;
        if budget != Budget::Kept {
            return waiting;
        }
        let arriving = self.work.largest.arriving_now();
        let using = arriving > 0 && (self.work.kept_for)(arriving).saturating_mul(2) >= self.kept();
        waiting && !using
    }

    /// Asks its reader to close it for room in `budget`.
    fn close_for(&self, budget: Budget) {
        self.closed_for.store(budget as u8, Ordering::Relaxed);
        self.close.notify_waiters();
    }

    /// The budget it was last asked to close for.
    pub(crate) fn closed_for(&self) -> Budget {
        match self.closed_for.load(Ordering::Relaxed) {
            0 => Budget::Kept,
            1 => Budget::Buffered,
            _ => Budget::Waiting,
        }
    }

    /// Resolves when a budget closes the stream.
    pub(crate) fn closed(&self) -> tokio::sync::futures::Notified<'_> {
        self.close.notified()
    }
}

/// A permit among the messages waiting for room, counted in its stream's share until dropped.
pub(crate) struct WaitingRoom {
    permit: OwnedSemaphorePermit,
    count: Arc<AtomicUsize>,
}

impl WaitingRoom {
    /// `permit`, counted in `count` while held.
    pub(crate) fn new(permit: OwnedSemaphorePermit, count: Arc<AtomicUsize>) -> WaitingRoom {
        count.fetch_add(permit.num_permits(), Ordering::Relaxed);
        WaitingRoom { permit, count }
    }

    /// Bytes it holds.
    pub(crate) fn bytes(&self) -> usize {
        self.permit.num_permits()
    }

    /// Gives back all but `bytes` of it.
    pub(crate) fn keep(&mut self, bytes: usize) {
        let back = self.bytes().saturating_sub(bytes);
        if let Some(back) = self.permit.split(back) {
            self.count.fetch_sub(back.num_permits(), Ordering::Relaxed);
        }
    }
}

impl Drop for WaitingRoom {
    fn drop(&mut self) {
        self.count
            .fetch_sub(self.permit.num_permits(), Ordering::Relaxed);
    }
}

/// `duration` in whole milliseconds.
fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// Semaphore permits for `bytes`.
fn permits(bytes: usize) -> u32 {
    u32::try_from(bytes).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers waiting since a time the test sets; none while `None`.
    struct Since(Mutex<Option<Instant>>);

    impl Backlog for Since {
        fn oldest(&self) -> Option<Instant> {
            *self.0.lock().expect("unpoisoned")
        }
    }

    /// A stream waiting for its client, holding `held` of its 1,000-byte budget, with answers
    /// untaken since `since`.
    struct Stream {
        holder: Arc<Holder>,
        backlog: Arc<Since>,
        _held: OwnedSemaphorePermit,
    }

    fn stream(holders: &Holders, held: u32, since: Option<Instant>) -> Stream {
        let backlog = Arc::new(Since(Mutex::new(since)));
        let stream_bytes = Arc::new(Semaphore::new(1000));
        let weak: Weak<dyn Backlog> = Arc::downgrade(&backlog) as _;
        let holder = holders.holder(Work {
            in_pool: Arc::default(),
            stream_bytes: stream_bytes.clone(),
            stream_budget: 1000,
            largest: LargestMessage::default(),
            kept_for: |request| request,
            backlog: weak,
        });
        holder.waiting(true);
        let held = stream_bytes.try_acquire_many_owned(held).expect("room");
        Stream {
            holder,
            backlog,
            _held: held,
        }
    }

    const IDLE: Duration = Duration::from_millis(200);

    fn ago(ms: u64) -> Option<Instant> {
        Instant::now().checked_sub(Duration::from_millis(ms))
    }

    #[test]
    fn a_client_is_slow_by_its_oldest_untaken_answer_not_its_last_taken_one() {
        let holders = Holders::new(IDLE);
        let s = stream(&holders, 500, ago(1000));
        // Untaken for a second: however recently the client took the one before it.
        assert!(s.holder.unused_for(Budget::Buffered, IDLE));
        *s.backlog.0.lock().expect("unpoisoned") = ago(50);
        assert!(!s.holder.unused_for(Budget::Buffered, IDLE));
        // Nothing untaken: nothing held for a client that cannot keep up.
        *s.backlog.0.lock().expect("unpoisoned") = None;
        assert!(!s.holder.unused_for(Budget::Buffered, IDLE));
        assert!(!s.holder.unused_for(Budget::Waiting, IDLE));
    }

    #[test]
    fn kept_buffers_are_unused_with_no_large_message_read_and_no_answer_long_untaken() {
        let holders = Holders::new(IDLE);
        let s = stream(&holders, 0, None);
        // Just opened counts as just used.
        assert!(!s.holder.unused_for(Budget::Kept, IDLE));
        s.holder.used_at.store(0, Ordering::Relaxed);
        std::thread::sleep(IDLE);
        assert!(s.holder.unused_for(Budget::Kept, IDLE), "idle");
        *s.backlog.0.lock().expect("unpoisoned") = ago(50);
        assert!(
            !s.holder.unused_for(Budget::Kept, IDLE),
            "answers just made"
        );
        *s.backlog.0.lock().expect("unpoisoned") = ago(1000);
        assert!(
            s.holder.unused_for(Budget::Kept, IDLE),
            "answers long untaken"
        );
        s.holder.used();
        assert!(
            !s.holder.unused_for(Budget::Kept, IDLE),
            "a large message read"
        );
    }

    #[test]
    fn the_slow_streams_holding_most_are_closed_until_the_want_is_met() {
        let holders = Holders::new(IDLE);
        let asking = stream(&holders, 900, ago(1000));
        let small = stream(&holders, 100, ago(1000));
        let large = stream(&holders, 600, ago(1000));
        let middle = stream(&holders, 300, ago(1000));
        let quick = stream(&holders, 800, ago(10));
        let solving = stream(&holders, 700, ago(1000));
        solving.holder.work.in_pool.store(1, Ordering::Relaxed);
        let all = [&asking, &small, &large, &middle, &quick, &solving];
        let closed = all.map(|s| Box::pin(s.holder.closed()));
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        // 200 free and 1,000 wanted: the largest slow one (600) and the next (300) make 1,100.
        holders.look(Budget::Buffered, 200, 1000, &asking.holder);
        let closed: Vec<bool> = closed
            .into_iter()
            .map(|mut c| c.as_mut().poll(&mut cx).is_ready())
            .collect();
        assert_eq!(closed, [false, false, true, true, false, false]);
        assert_eq!(large.holder.closed_for(), Budget::Buffered);
        // Looks are spaced out, whoever asks.
        let again = Box::pin(small.holder.closed());
        holders.look(Budget::Buffered, 0, 1000, &asking.holder);
        let mut again = again;
        assert!(again.as_mut().poll(&mut cx).is_pending());
    }
}
