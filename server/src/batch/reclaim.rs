//! Every open batch stream as the byte budgets see it, and room made in a budget by closing
//! streams that hold some of it without using it.
//!
//! A stream may be closed for another's room, by budget:
//! - for what its buffers keep (`--memory-budget`, see [`super::kept_buffers`]): while it waits
//!   for its client (for its next message, or to take answers), with no puzzle of its being
//!   solved and no message arriving that would need half of what it keeps, and it has read
//!   no message needing half of it, nor left an answer untaken, for a while (a second by
//!   default);
//! - for what its puzzles and answers hold, and its messages waiting for room
//!   (`--memory-budget`): once its client has left an answer untaken for that while,
//!   whatever its reader waits for (a stream waiting for the server's bytes with a budget's
//!   worth of answers untaken, or with one slow puzzle in the pool, held them all the same).
//!
//! The one holding most goes first, one a look, and only where others want more than is free.
//! The age of the oldest untaken answer is what tells a client that cannot keep up from one
//! that merely reads slowly: clients that took an answer every half second, just often
//! enough for a rule on the time since the last one taken, could hold every byte budget for
//! as long as they liked.

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};

use crate::admission::methods::LargestMessage;

/// How often streams are looked over for a budget while any stream waits for room in it, by
/// one task for all the waiting streams: one that has just sent its client's last answer may
/// still count a puzzle on the solver threads for a moment, and a look reads every stream (so
/// one look for all of them, not one per stream, nor a wake-up per stream to see whether to
/// look).
const LOOK_AGAIN: Duration = Duration::from_millis(20);

/// A byte budget streams may be closed to make room in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Budget {
    /// What message buffers keep (`--memory-budget`).
    Kept = 0,
    /// What puzzles read and answers unsent hold (`--memory-budget`).
    Buffered = 1,
    /// Messages read and waiting for room (`--memory-budget` again).
    Waiting = 2,
}

const BUDGETS: usize = 3;

const ALL: [Budget; BUDGETS] = [Budget::Kept, Budget::Buffered, Budget::Waiting];

impl Budget {
    /// Its bit in a set of budgets.
    fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// When a budget's streams were last looked at, before the first look.
const NEVER: u64 = u64::MAX;

/// Every open stream, each budget's room, and what the streams waiting for room want of it.
pub(crate) struct Holders {
    holders: Mutex<Vec<Weak<Holder>>>,
    rooms: [Arc<Semaphore>; BUDGETS],
    /// What times are counted from, in ms.
    epoch: Instant,
    /// How long a stream must not have used what it holds before it may be closed.
    unused_before_closed: Duration,
    /// Bytes the streams waiting for room want, together, by budget.
    wanted: [AtomicUsize; BUDGETS],
    /// When streams were last looked at for each budget, in ms since the epoch.
    looked_at: [AtomicU64; BUDGETS],
    /// Whether a task looks over the streams for each budget.
    looking: [AtomicBool; BUDGETS],
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
    /// The budgets it has been asked to close for since its reader last looked, as bits.
    asked: AtomicU8,
    /// Bytes it waits for, by budget.
    wants: [AtomicUsize; BUDGETS],
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
    /// Its byte budget: what it holds of it, it holds of the server's (`--memory-budget`).
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
    /// No streams yet, and the room of each budget (in [`Budget`] order); streams that have
    /// not used what they hold for `unused_before_closed` may be closed.
    pub(crate) fn new(unused_before_closed: Duration, rooms: [Arc<Semaphore>; BUDGETS]) -> Holders {
        Holders {
            holders: Mutex::new(Vec::new()),
            rooms,
            epoch: Instant::now(),
            unused_before_closed,
            wanted: Default::default(),
            looked_at: [const { AtomicU64::new(NEVER) }; BUDGETS],
            looking: Default::default(),
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
            asked: AtomicU8::new(0),
            wants: Default::default(),
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

    /// `bytes` of `budget`'s room for `asking`, streams that hold some without using it
    /// being closed while any stream waits; `None` if none is granted `within` that long.
    pub(crate) async fn take(
        self: &Arc<Self>,
        budget: Budget,
        bytes: usize,
        within: Option<Duration>,
        asking: &Holder,
    ) -> Option<OwnedSemaphorePermit> {
        let room = &self.rooms[budget as usize];
        let wanted = &self.wanted[budget as usize];
        let wants = &asking.wants[budget as usize];
        // SeqCst, with the looking flag: a looking task that ends as this stream begins to
        // wait sees its want, or this stream sees it gone (see `keep_looking`).
        wants.fetch_add(bytes, Ordering::Relaxed);
        wanted.fetch_add(bytes, Ordering::SeqCst);
        let _wanted = Wanted([wanted, wants], bytes);
        self.keep_looking(budget);
        let permit = room.clone().acquire_many_owned(permits(bytes));
        match within {
            Some(within) => tokio::time::timeout(within, permit).await.ok()?.ok(),
            None => permit.await.ok(),
        }
    }

    /// Looks over the streams for `budget` every [`LOOK_AGAIN`] while any stream waits for
    /// room in it, in one task for all of them.
    fn keep_looking(self: &Arc<Self>, budget: Budget) {
        let b = budget as usize;
        if self.looking[b].swap(true, Ordering::SeqCst) {
            return;
        }
        let holders = self.clone();
        tokio::spawn(async move {
            loop {
                let room = &holders.rooms[b];
                let wanted = holders.wanted[b].load(Ordering::SeqCst);
                if wanted == 0 {
                    holders.looking[b].store(false, Ordering::SeqCst);
                    // A stream that began to wait just now, having seen this task still
                    // looking, is looked for here, unless it started another task.
                    if holders.wanted[b].load(Ordering::SeqCst) == 0
                        || holders.looking[b].swap(true, Ordering::SeqCst)
                    {
                        return;
                    }
                    continue;
                }
                holders.look(budget, room.available_permits(), wanted);
                tokio::time::sleep(LOOK_AGAIN).await;
            }
        });
    }

    /// Closes the stream that may be closed for `budget` and holds the most of it, where
    /// others want more than `free`; at most once per [`LOOK_AGAIN`] a budget, whoever asks.
    /// One a look: the room it frees goes to the first stream waiting, and the next look sees
    /// what is still wanted (the sum of every want may be more than the whole budget).
    pub(crate) fn look(&self, budget: Budget, free: usize, wanted: usize) {
        if free >= wanted || !self.may_look(budget) {
            return;
        }
        let Ok(holders) = self.holders.lock() else {
            return;
        };
        let mut closable: Vec<(usize, Arc<Holder>)> = holders
            .iter()
            .filter_map(Weak::upgrade)
            .map(|h| (h.holds(budget), h))
            // Closing one that holds nothing frees nothing; one asked at the last look and not
            // closed yet is busy where it cannot be, for now: the next one is asked instead.
            .filter(|(held, h)| *held > 0 && h.closable_for(budget) && !h.was_asked(budget))
            .collect();
        drop(holders);
        // The cheap tests first: this one locks each stream's answers.
        closable.retain(|(_, h)| h.unused_for(budget, self.unused_before_closed));
        closable.sort_by_key(|(held, _)| std::cmp::Reverse(*held));
        // Closing a stream for nobody's want but its own gains nothing.
        let wanted_by_others = |h: &Holder| wanted.saturating_sub(h.wants(budget)) > free;
        if let Some((_, holder)) = closable.iter().find(|(_, h)| wanted_by_others(h)) {
            holder.ask(budget);
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

/// Takes back what a stream waiting for room wanted, from the total and its own, when it
/// stops waiting.
struct Wanted<'a>([&'a AtomicUsize; 2], usize);

impl Drop for Wanted<'_> {
    fn drop(&mut self) {
        for want in self.0 {
            want.fetch_sub(self.1, Ordering::Relaxed);
        }
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
            // A message waiting for the server's bytes has its stream's already: they hold
            // nothing of the server's yet.
            Budget::Buffered => {
                let free = self.work.stream_bytes.available_permits();
                let waiting = self.wants(Budget::Buffered);
                self.work.stream_budget.saturating_sub(free + waiting)
            }
            Budget::Waiting => self.in_waiting_room.load(Ordering::Relaxed),
        }
    }

    /// Whether it has not used what it holds of `budget` for `idle` (see the module's
    /// comment); [`Holder::closable`] says whether its state allows closing at all.
    fn unused_for(&self, budget: Budget, idle: Duration) -> bool {
        // The clock first: the answers' age locks them.
        let slow = || {
            let oldest = self.work.backlog.upgrade().and_then(|b| b.oldest());
            oldest.map(|made| made.elapsed() >= idle)
        };
        match budget {
            Budget::Kept => {
                let used = millis(self.epoch.elapsed())
                    .saturating_sub(self.used_at.load(Ordering::Relaxed));
                used >= millis(idle) && slow().unwrap_or(true)
            }
            Budget::Buffered | Budget::Waiting => slow().unwrap_or(false),
        }
    }

    /// The budget it should close for now, of those it has been asked to close for since
    /// it last looked: it may still be closed for it, and has still not used it for `idle`.
    pub(crate) fn close_for(&self, idle: Duration) -> Option<Budget> {
        let asked = self.asked.swap(0, Ordering::Relaxed);
        ALL.into_iter().find(|&budget| {
            asked & budget.bit() != 0 && self.closable_for(budget) && self.unused_for(budget, idle)
        })
    }

    /// Whether it may be closed for `budget` now, as far as its own state goes. For what its
    /// buffers keep: waiting for its client, with nothing being solved and no message
    /// arriving that uses it (tiny ones, each frame holding the next one's start, would keep
    /// it open for a few bytes a second). For what its answers hold, always: its answers'
    /// age says it all.
    fn closable_for(&self, budget: Budget) -> bool {
        if budget != Budget::Kept {
            return true;
        }
        let arriving = self.work.largest.arriving_now();
        let using = arriving > 0 && (self.work.kept_for)(arriving).saturating_mul(2) >= self.kept();
        self.waiting.load(Ordering::Relaxed)
            && self.work.in_pool.load(Ordering::Acquire) == 0
            && !using
    }

    /// Whether it has been asked to close for `budget` and has not looked yet.
    fn was_asked(&self, budget: Budget) -> bool {
        self.asked.load(Ordering::Relaxed) & budget.bit() != 0
    }

    /// Bytes of `budget` it waits for.
    fn wants(&self, budget: Budget) -> usize {
        self.wants[budget as usize].load(Ordering::Relaxed)
    }

    /// Forgets the asks not yet looked at: its reader looks at those that come from now on.
    /// An ask it missed (busy elsewhere) would close it later for a want long met.
    pub(crate) fn forget_asks(&self) {
        self.asked.store(0, Ordering::Relaxed);
    }

    /// Asks its reader to close it for room in `budget`.
    fn ask(&self, budget: Budget) {
        self.asked.fetch_or(budget.bit(), Ordering::Relaxed);
        self.close.notify_waiters();
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

    /// A registry whose budgets are 1,000 bytes each, none of them free.
    fn holders() -> Holders {
        let none = || Arc::new(Semaphore::new(0));
        Holders::new(IDLE, [none(), none(), none()])
    }

    fn ago(ms: u64) -> Option<Instant> {
        Instant::now().checked_sub(Duration::from_millis(ms))
    }

    #[test]
    fn a_client_is_slow_by_its_oldest_untaken_answer_not_its_last_taken_one() {
        let holders = holders();
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
        let holders = holders();
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

    /// Which of `streams` have been asked to close since last polled, and for what.
    fn asked(streams: &[&Stream]) -> Vec<Option<Budget>> {
        streams.iter().map(|s| s.holder.close_for(IDLE)).collect()
    }

    #[test]
    fn the_slow_stream_holding_most_is_closed_a_look_at_a_time() {
        let holders = holders();
        let small = stream(&holders, 100, ago(1000));
        let large = stream(&holders, 600, ago(1000));
        let quick = stream(&holders, 800, ago(10));
        // Solving, or waiting for the server rather than its client: slow all the same.
        let solving = stream(&holders, 700, ago(1000));
        solving.holder.work.in_pool.store(1, Ordering::Relaxed);
        solving.holder.waiting(false);
        let all = [&small, &large, &quick, &solving];
        let buffered = Some(Budget::Buffered);
        holders.look(Budget::Buffered, 200, 1000);
        assert_eq!(asked(&all), [None, None, None, buffered]);
        // Looks are spaced out, whoever asks.
        holders.look(Budget::Buffered, 0, 1000);
        assert_eq!(asked(&all), [None; 4]);
        std::thread::sleep(LOOK_AGAIN);
        holders.look(Budget::Buffered, 0, 1000);
        assert_eq!(asked(&all), [None, None, None, buffered]);
        // Nothing is closed where what is free meets the want.
        std::thread::sleep(LOOK_AGAIN);
        holders.look(Budget::Buffered, 1000, 1000);
        assert_eq!(asked(&all), [None; 4]);
        // For what buffers keep, a stream solving or not waiting for its client stays.
        for s in all {
            s.holder.kept.store(500, Ordering::Relaxed);
            s.holder.used_at.store(0, Ordering::Relaxed);
        }
        std::thread::sleep(IDLE);
        holders.look(Budget::Kept, 0, 900);
        assert_eq!(asked(&all), [Some(Budget::Kept), None, None, None]);
    }

    #[test]
    fn a_stream_asked_that_has_not_looked_yet_is_passed_over_for_the_next() {
        let holders = holders();
        let large = stream(&holders, 600, ago(1000));
        let small = stream(&holders, 100, ago(1000));
        holders.look(Budget::Buffered, 0, 1000);
        std::thread::sleep(LOOK_AGAIN);
        // The large one is busy where it cannot close; the small one is asked.
        holders.look(Budget::Buffered, 0, 1000);
        let buffered = Some(Budget::Buffered);
        assert_eq!(asked(&[&large, &small]), [buffered, buffered]);
        // Having looked, the large one is first again.
        std::thread::sleep(LOOK_AGAIN);
        holders.look(Budget::Buffered, 0, 1000);
        assert_eq!(asked(&[&large, &small]), [buffered, None]);
    }

    #[test]
    fn a_stream_is_not_closed_for_its_own_want() {
        let holders = holders();
        // It waits for 300 bytes of the server's, its stream's 300 already taken: it holds
        // 400 of the server's.
        let waiting = stream(&holders, 700, ago(1000));
        waiting.holder.wants[Budget::Buffered as usize].store(300, Ordering::Relaxed);
        assert_eq!(waiting.holder.holds(Budget::Buffered), 400);
        holders.look(Budget::Buffered, 0, 300);
        assert_eq!(asked(&[&waiting]), [None]);
        // Another's want of 100 more: closing it makes that room.
        let other = stream(&holders, 100, ago(10));
        std::thread::sleep(LOOK_AGAIN);
        holders.look(Budget::Buffered, 0, 400);
        assert_eq!(asked(&[&waiting, &other]), [Some(Budget::Buffered), None]);
    }

    #[test]
    fn a_stream_asked_to_close_is_closed_only_if_still_unused() {
        let holders = holders();
        let s = stream(&holders, 500, ago(1000));
        s.holder.ask(Budget::Buffered);
        s.holder.ask(Budget::Kept);
        // Its client took everything meanwhile; buffers used just now.
        *s.backlog.0.lock().expect("unpoisoned") = None;
        assert_eq!(s.holder.close_for(IDLE), None);
        // Asked again, still slow: closed, and the asks are used up.
        *s.backlog.0.lock().expect("unpoisoned") = ago(1000);
        s.holder.ask(Budget::Waiting);
        assert_eq!(s.holder.close_for(IDLE), Some(Budget::Waiting));
        assert_eq!(s.holder.close_for(IDLE), None);
    }

    #[tokio::test]
    async fn a_stream_waiting_for_room_has_the_streams_looked_over_until_it_stops_waiting() {
        let holders = Arc::new(holders());
        let slow = stream(&holders, 500, ago(1000));
        let waiting = tokio::spawn({
            let holders = holders.clone();
            async move {
                let within = Some(Duration::from_secs(1));
                let asking = stream(&holders, 0, None);
                let taken = holders.take(Budget::Buffered, 100, within, &asking.holder);
                taken.await.is_some()
            }
        });
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(slow.holder.close_for(IDLE), Some(Budget::Buffered));
        // Still waiting: asked again at the next look.
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(slow.holder.close_for(IDLE), Some(Budget::Buffered));
        assert!(!waiting.await.expect("no panic"), "nothing was let go");
        // Nobody waits: the looking stops.
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(!holders.looking[Budget::Buffered as usize].load(Ordering::SeqCst));
        slow.holder.close_for(IDLE);
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(slow.holder.close_for(IDLE), None);
    }
}
