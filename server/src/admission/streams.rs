//! The batch room: each open batch stream's share and what its buffers keep, taken at each
//! message's header and held to the stream's end, since tonic keeps its buffers as long; and
//! which stream is closed for a header waiting at the door (docs/design/server.md, "Whom the
//! server refuses or closes"). A stream is slow by the age of its oldest untaken answer, not
//! the time since it last took one: a client taking one every half second would pass that.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};

/// How often streams are looked over while a header waits for room, by one task for all of
/// them: a stream that has just sent its client's last answer may still count a puzzle on
/// the solver threads for a moment, and a look reads every stream.
const LOOK_AGAIN: Duration = Duration::from_millis(20);

const NEVER: u64 = u64::MAX;

/// The room, every open batch stream, and what the headers waiting at the door want of it.
pub(crate) struct Room {
    room: Arc<Semaphore>,
    pub(crate) size: usize,
    /// What each stream may hold in puzzles read and answers untaken.
    share: usize,
    /// How long a stream must not have used what it holds before it may be closed.
    pub(crate) unused_before_closed: Duration,
    epoch: Instant,
    streams: Mutex<Vec<Weak<StreamRoom>>>,
    /// Bytes the headers waiting at the door want, together.
    wanted: AtomicUsize,
    /// When the streams were last looked at, in ms since the epoch.
    looked_at: AtomicU64,
    looking: AtomicBool,
}

/// One batch stream as the room sees it, shared by the door, the expansion of its messages
/// and its reader.
pub(crate) struct StreamRoom {
    held: Mutex<Option<OwnedSemaphorePermit>>,
    /// Bytes of `held`.
    holds: AtomicUsize,
    /// What its buffers keep once a request of so many bytes has gone through them.
    kept_for: fn(usize) -> usize,
    /// Its share (see [`Room`]), held with what its buffers keep.
    share: usize,
    /// The size of the message arriving; 0 where none is.
    arriving: AtomicUsize,
    /// When it last read a message needing half what it keeps, in ms since the epoch.
    used_at: AtomicU64,
    /// Whether it waits for its client (for its next message, or to take answers).
    for_client: AtomicBool,
    /// Bytes its header waiting at the door for room wants; 0 where none waits.
    wants: AtomicUsize,
    /// Whether it has been asked to close since its reader last looked.
    asked: AtomicBool,
    /// What it is doing, once its reader has begun.
    work: OnceLock<Work>,
    epoch: Instant,
    close: Notify,
}

/// What shows whether a stream is working for its client: its tasks on the solver threads,
/// and its answers not yet taken.
pub(crate) struct Work {
    pub(crate) in_pool: Arc<AtomicUsize>,
    pub(crate) backlog: Weak<dyn Backlog>,
}

/// Answers made and not yet taken by the client.
pub(crate) trait Backlog: Send + Sync {
    /// When the oldest of them was made; `None` when there are none.
    fn oldest(&self) -> Option<Instant>;
}

/// Why a stream was closed for another's room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Why {
    /// Its client left an answer untaken for too long.
    Slow,
    /// It held room for buffers it had not used for a while.
    Unused,
}

impl Room {
    /// `size` bytes of room, `share` of it at least for each stream that has sent a header;
    /// streams that have not used what they hold for `unused_before_closed` may be closed.
    pub(crate) fn new(size: usize, share: usize, unused_before_closed: Duration) -> Room {
        Room {
            room: Arc::new(Semaphore::new(size)),
            size,
            share,
            unused_before_closed,
            epoch: Instant::now(),
            streams: Mutex::new(Vec::new()),
            wanted: AtomicUsize::new(0),
            looked_at: AtomicU64::new(NEVER),
            looking: AtomicBool::new(false),
        }
    }

    /// A new stream's place, holding nothing until its first header; its buffers keep
    /// `kept_for(len)` bytes once a request of `len` bytes has gone through them.
    pub(crate) fn open(&self, kept_for: fn(usize) -> usize) -> Arc<StreamRoom> {
        let stream = Arc::new(StreamRoom::new(kept_for, self.share, self.epoch));
        if let Ok(mut streams) = self.streams.lock() {
            streams.retain(|s| s.strong_count() > 0);
            streams.push(Arc::downgrade(&stream));
        }
        stream
    }

    /// Bytes `stream` needs beyond what it holds for a message of `len` bytes, noting the
    /// message as a use of what it keeps where it needs half of it. A stream that would need
    /// more than the whole room takes all of it, so it still goes, alone.
    fn more(&self, stream: &StreamRoom, len: usize) -> usize {
        let kept = (stream.kept_for)(len);
        let holds = stream.holds();
        if kept.saturating_mul(2) >= holds.saturating_sub(self.share) {
            stream.used();
        }
        let need = self.share.saturating_add(kept).min(self.size);
        need.saturating_sub(holds)
    }

    /// Grows `stream` to what a message of `len` bytes needs, waiting while streams that do
    /// not use their room are closed for it; `false` if the wait was given up (the caller
    /// times it).
    pub(crate) async fn grow(self: Arc<Self>, stream: Arc<StreamRoom>, len: usize) -> bool {
        let more = self.more(&stream, len);
        if more == 0 {
            return true;
        }
        // SeqCst, with the looking flag: a looking task that ends as this header begins to
        // wait sees its want, or this header sees it gone (see `keep_looking`).
        stream.wants.fetch_add(more, Ordering::Relaxed);
        self.wanted.fetch_add(more, Ordering::SeqCst);
        let _waiting = AtDoor(&self.wanted, &stream, more);
        self.keep_looking();
        let permit = self.room.clone().acquire_many_owned(permits(more)).await;
        permit.map(|permit| stream.add(permit)).is_ok()
    }

    /// Grows `stream` as [`Room::grow`] does, for a message already in memory (one expanded
    /// as it arrived), if there is room now; where there is none, streams are looked over
    /// for the retry.
    pub(crate) fn try_grow(&self, stream: &StreamRoom, len: usize) -> bool {
        let more = self.more(stream, len);
        if more == 0 {
            return true;
        }
        let Ok(permit) = self.room.clone().try_acquire_many_owned(permits(more)) else {
            self.look(self.room.available_permits(), more);
            return false;
        };
        stream.add(permit);
        true
    }

    /// Looks over the streams every [`LOOK_AGAIN`] while any header waits for room, in one
    /// task for all of them.
    fn keep_looking(self: &Arc<Self>) {
        if self.looking.swap(true, Ordering::SeqCst) {
            return;
        }
        let room = self.clone();
        tokio::spawn(async move {
            loop {
                let wanted = room.wanted.load(Ordering::SeqCst);
                if wanted == 0 {
                    room.looking.store(false, Ordering::SeqCst);
                    // A header that began to wait just now, having seen this task still
                    // looking, is looked for here, unless it started another task.
                    if room.wanted.load(Ordering::SeqCst) == 0
                        || room.looking.swap(true, Ordering::SeqCst)
                    {
                        return;
                    }
                    continue;
                }
                room.look(room.room.available_permits(), wanted);
                tokio::time::sleep(LOOK_AGAIN).await;
            }
        });
    }

    /// Asks the closable stream holding most to close, where others want more than `free`;
    /// at most once per [`LOOK_AGAIN`], whoever asks. One a look: the room it frees goes to
    /// the first header waiting, and the next look sees what is still wanted.
    fn look(&self, free: usize, wanted: usize) {
        if free >= wanted || !self.may_look() {
            return;
        }
        let Ok(streams) = self.streams.lock() else {
            return;
        };
        let mut closable: Vec<(usize, Arc<StreamRoom>)> = streams
            .iter()
            .filter_map(Weak::upgrade)
            .map(|s| (s.holds(), s))
            // Closing one that holds nothing frees nothing; one asked at the last look and not
            // closed yet is busy where it cannot be, for now: the next one is asked instead.
            .filter(|(held, s)| *held > 0 && !s.asked.load(Ordering::Relaxed))
            .collect();
        drop(streams);
        closable.retain(|(_, s)| s.closable(self.unused_before_closed).is_some());
        closable.sort_by_key(|(held, _)| std::cmp::Reverse(*held));
        // Closing a stream for nobody's want but its own gains nothing.
        let wanted_by_others = |s: &StreamRoom| wanted.saturating_sub(s.wants()) > free;
        if let Some((_, stream)) = closable.iter().find(|(_, s)| wanted_by_others(s)) {
            stream.asked.store(true, Ordering::Relaxed);
            stream.close.notify_waiters();
        }
    }

    /// Whether this caller is the one to look now.
    fn may_look(&self) -> bool {
        let now = millis(self.epoch.elapsed());
        let last = self.looked_at.load(Ordering::Relaxed);
        (last == NEVER || now >= last.saturating_add(millis(LOOK_AGAIN)))
            && self
                .looked_at
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
    }
}

/// A header waiting at the door, until it stops: its want is taken back from the total and
/// its stream's.
struct AtDoor<'a>(&'a AtomicUsize, &'a StreamRoom, usize);

impl Drop for AtDoor<'_> {
    fn drop(&mut self) {
        self.1.wants.fetch_sub(self.2, Ordering::Relaxed);
        self.0.fetch_sub(self.2, Ordering::Relaxed);
    }
}

impl StreamRoom {
    fn new(kept_for: fn(usize) -> usize, share: usize, epoch: Instant) -> StreamRoom {
        StreamRoom {
            held: Mutex::new(None),
            holds: AtomicUsize::new(0),
            kept_for,
            share,
            arriving: AtomicUsize::new(0),
            used_at: AtomicU64::new(millis(epoch.elapsed())),
            for_client: AtomicBool::new(false),
            wants: AtomicUsize::new(0),
            asked: AtomicBool::new(false),
            work: OnceLock::new(),
            epoch,
            close: Notify::new(),
        }
    }

    /// The one the door put on `request`, or one outside any room (it never grows) where
    /// none was put.
    pub(crate) fn of<T>(request: &tonic::Request<T>) -> Arc<StreamRoom> {
        let outside = || Arc::new(StreamRoom::new(|_| 0, 0, Instant::now()));
        request.extensions().get().cloned().unwrap_or_else(outside)
    }

    pub(crate) fn attach(&self, work: Work) {
        let _ = self.work.set(work);
    }

    /// Records that a message of `len` bytes has begun to arrive, or (0) that none is.
    pub(crate) fn arriving(&self, len: usize) {
        self.arriving.store(len, Ordering::Relaxed);
    }

    pub(crate) fn waiting_for_client(&self, waiting: bool) {
        self.for_client.store(waiting, Ordering::Relaxed);
    }

    /// Whether one of its headers waits at the door for room: the server's doing, not its
    /// client's.
    pub(crate) fn at_door(&self) -> bool {
        self.wants() > 0
    }

    /// Gives back its room, as its reader ends. (An answer tonic has taken but the client not
    /// yet read stays in tonic's and HTTP/2's buffers until the client reads it or the
    /// connection closes: a piece at most.)
    pub(crate) fn release(&self) {
        if let Ok(mut held) = self.held.lock() {
            *held = None;
        }
        self.holds.store(0, Ordering::Relaxed);
    }

    /// Why it should close now, if it has been asked to since its reader last looked and
    /// still may be closed, not having used its room for `idle`.
    pub(crate) fn close_for(&self, idle: Duration) -> Option<Why> {
        if !self.asked.swap(false, Ordering::Relaxed) {
            return None;
        }
        self.closable(idle)
    }

    /// Forgets the asks not yet looked at: its reader looks at those that come from now on.
    /// An ask it missed (busy elsewhere) would close it later for a want long met.
    pub(crate) fn forget_asks(&self) {
        self.asked.store(false, Ordering::Relaxed);
    }

    pub(crate) fn closed(&self) -> tokio::sync::futures::Notified<'_> {
        self.close.notified()
    }

    /// Why it may be closed now, if it may (see the module's comment).
    fn closable(&self, idle: Duration) -> Option<Why> {
        let work = self.work.get();
        // The cheap tests first: the answers' age locks them.
        let in_pool = work.is_some_and(|w| w.in_pool.load(Ordering::Acquire) > 0);
        let kept = self.holds().saturating_sub(self.share);
        let arriving = self.arriving.load(Ordering::Relaxed);
        let using = arriving > 0 && (self.kept_for)(arriving).saturating_mul(2) >= kept;
        let waiting = self.for_client.load(Ordering::Relaxed) && !in_pool && !using;
        let used =
            millis(self.epoch.elapsed()).saturating_sub(self.used_at.load(Ordering::Relaxed));
        let oldest = work
            .and_then(|w| w.backlog.upgrade())
            .and_then(|b| b.oldest());
        let slow = oldest.map(|made| made.elapsed() >= idle);
        match slow {
            Some(true) => Some(Why::Slow),
            None if waiting && used >= millis(idle) => Some(Why::Unused),
            _ => None,
        }
    }

    fn holds(&self) -> usize {
        self.holds.load(Ordering::Relaxed)
    }

    fn wants(&self) -> usize {
        self.wants.load(Ordering::Relaxed)
    }

    /// Records that it has just read a message needing half what it keeps.
    fn used(&self) {
        self.used_at
            .store(millis(self.epoch.elapsed()), Ordering::Relaxed);
    }

    fn add(&self, permit: OwnedSemaphorePermit) {
        if let Ok(mut held) = self.held.lock() {
            match &mut *held {
                Some(held) => held.merge(permit),
                none => *none = Some(permit),
            }
            let bytes = held.as_ref().map_or(0, OwnedSemaphorePermit::num_permits);
            self.holds.store(bytes, Ordering::Relaxed);
        }
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

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

    /// A stream waiting for its client, holding `held` bytes of the room (its 100-byte share
    /// and what it keeps), with answers untaken since `since`.
    struct Stream {
        room: Arc<StreamRoom>,
        backlog: Arc<Since>,
        in_pool: Arc<AtomicUsize>,
    }

    fn stream(room: &Room, held: usize, since: Option<Instant>) -> Stream {
        let backlog = Arc::new(Since(Mutex::new(since)));
        let in_pool = Arc::new(AtomicUsize::new(0));
        let weak: Weak<dyn Backlog> = Arc::downgrade(&backlog) as _;
        let stream = room.open(|len| len);
        stream.attach(Work {
            in_pool: in_pool.clone(),
            backlog: weak,
        });
        stream.waiting_for_client(true);
        assert!(room.try_grow(&stream, held.saturating_sub(SHARE)), "room");
        Stream {
            room: stream,
            backlog,
            in_pool,
        }
    }

    impl Stream {
        fn untaken_since(&self, since: Option<Instant>) {
            *self.backlog.0.lock().expect("unpoisoned") = since;
        }
    }

    const IDLE: Duration = Duration::from_millis(200);
    const SHARE: usize = 100;

    /// A room of 2,000 bytes, streams sharing 100 each.
    fn room() -> Room {
        Room::new(2000, SHARE, IDLE)
    }

    fn ago(ms: u64) -> Option<Instant> {
        Instant::now().checked_sub(Duration::from_millis(ms))
    }

    /// Fills what is left of `room`, so that every want is unmet.
    fn fill(room: &Room) -> OwnedSemaphorePermit {
        let free = room.room.available_permits();
        room.room
            .clone()
            .try_acquire_many_owned(permits(free))
            .expect("free")
    }

    #[test]
    fn a_stream_grows_only_past_what_it_holds_and_gives_it_all_back() {
        let room = room();
        let s = stream(&room, 600, None);
        assert_eq!(s.room.holds(), 600);
        // A smaller message needs nothing more; a larger one the difference.
        assert!(room.try_grow(&s.room, 300));
        assert_eq!(room.room.available_permits(), 1400);
        assert!(room.try_grow(&s.room, 700));
        assert_eq!((s.room.holds(), room.room.available_permits()), (800, 1200));
        // More than the whole room: all of it, so it still goes, alone.
        assert!(room.try_grow(&s.room, 5000));
        assert_eq!(room.room.available_permits(), 0);
        s.room.release();
        assert_eq!((s.room.holds(), room.room.available_permits()), (0, 2000));
    }

    #[test]
    fn a_client_is_slow_by_its_oldest_untaken_answer_not_its_last_taken_one() {
        let room = room();
        let s = stream(&room, 500, ago(1000));
        // Untaken for a second: however recently the client took the one before it, and
        // whatever its reader waits for.
        s.in_pool.store(1, Ordering::Relaxed);
        assert_eq!(s.room.closable(IDLE), Some(Why::Slow));
        s.untaken_since(ago(50));
        assert_eq!(s.room.closable(IDLE), None);
    }

    #[test]
    fn a_stream_is_unused_with_no_large_message_read_and_no_answer_untaken() {
        let room = room();
        let s = stream(&room, 500, None);
        // Just grown counts as just used.
        assert_eq!(s.room.closable(IDLE), None);
        s.room.used_at.store(0, Ordering::Relaxed);
        std::thread::sleep(IDLE);
        assert_eq!(s.room.closable(IDLE), Some(Why::Unused));
        s.untaken_since(ago(50));
        assert_eq!(s.room.closable(IDLE), None, "answers just made");
        s.untaken_since(None);
        // Solving, not waiting for its client, or a large message arriving: in use.
        s.in_pool.store(1, Ordering::Relaxed);
        assert_eq!(s.room.closable(IDLE), None, "solving");
        s.in_pool.store(0, Ordering::Relaxed);
        s.room.waiting_for_client(false);
        assert_eq!(s.room.closable(IDLE), None, "not waiting for its client");
        s.room.waiting_for_client(true);
        s.room.arriving(300);
        assert_eq!(s.room.closable(IDLE), None, "a large message arriving");
        s.room.arriving(100);
        assert_eq!(s.room.closable(IDLE), Some(Why::Unused), "a small one");
        // A header needing half what it keeps is a use; a small one is not.
        assert!(room.try_grow(&s.room, 100));
        assert_eq!(s.room.closable(IDLE), Some(Why::Unused));
        assert!(room.try_grow(&s.room, 300));
        assert_eq!(s.room.closable(IDLE), None, "a large message read");
    }

    /// Which of `streams` have been asked to close since last polled, and why.
    fn asked(streams: &[&Stream]) -> Vec<Option<Why>> {
        streams.iter().map(|s| s.room.close_for(IDLE)).collect()
    }

    #[test]
    fn the_closable_stream_holding_most_is_closed_a_look_at_a_time() {
        let room = room();
        let small = stream(&room, 200, ago(1000));
        let large = stream(&room, 600, ago(1000));
        let quick = stream(&room, 800, ago(10));
        let _full = fill(&room);
        let all = [&small, &large, &quick];
        let slow = Some(Why::Slow);
        room.look(0, 100);
        assert_eq!(asked(&all), [None, slow, None]);
        // Looks are spaced out, whoever asks.
        room.look(0, 100);
        assert_eq!(asked(&all), [None; 3]);
        std::thread::sleep(LOOK_AGAIN);
        room.look(0, 100);
        assert_eq!(asked(&all), [None, slow, None]);
        // Nothing is closed where what is free meets the want.
        std::thread::sleep(LOOK_AGAIN);
        room.look(100, 100);
        assert_eq!(asked(&all), [None; 3]);
    }

    #[test]
    fn a_stream_asked_that_has_not_looked_yet_is_passed_over_for_the_next() {
        let room = room();
        let large = stream(&room, 600, ago(1000));
        let small = stream(&room, 200, ago(1000));
        room.look(0, 100);
        std::thread::sleep(LOOK_AGAIN);
        // The large one is busy where it cannot close; the small one is asked.
        room.look(0, 100);
        let slow = Some(Why::Slow);
        assert_eq!(asked(&[&large, &small]), [slow, slow]);
        // Having looked, the large one is first again.
        std::thread::sleep(LOOK_AGAIN);
        room.look(0, 100);
        assert_eq!(asked(&[&large, &small]), [slow, None]);
    }

    #[test]
    fn a_stream_is_not_closed_for_its_own_want() {
        let room = room();
        let waiting = stream(&room, 600, ago(1000));
        waiting.room.wants.store(300, Ordering::Relaxed);
        room.look(0, 300);
        assert_eq!(asked(&[&waiting]), [None]);
        // Another's want of 100 more: closing it makes that room.
        std::thread::sleep(LOOK_AGAIN);
        room.look(0, 400);
        assert_eq!(asked(&[&waiting]), [Some(Why::Slow)]);
    }

    #[test]
    fn a_stream_asked_to_close_is_closed_only_if_still_closable() {
        let room = room();
        let s = stream(&room, 500, ago(1000));
        s.room.asked.store(true, Ordering::Relaxed);
        // Its client took everything meanwhile, and its room was used just now.
        s.untaken_since(None);
        assert_eq!(s.room.close_for(IDLE), None);
        // Asked again, still slow: closed, and the ask is used up.
        s.untaken_since(ago(1000));
        s.room.asked.store(true, Ordering::Relaxed);
        assert_eq!(s.room.close_for(IDLE), Some(Why::Slow));
        assert_eq!(s.room.close_for(IDLE), None);
    }

    #[tokio::test]
    async fn a_header_waiting_at_the_door_has_the_streams_looked_over_until_it_stops() {
        let room = Arc::new(room());
        let slow = stream(&room, 500, ago(1000));
        let full = fill(&room);
        let asking = room.open(|len| len);
        let waiting = tokio::spawn({
            let (room, asking) = (room.clone(), asking.clone());
            async move {
                let grow = room.grow(asking, 100);
                tokio::time::timeout(Duration::from_millis(250), grow)
                    .await
                    .is_ok()
            }
        });
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(asking.at_door(), "the server's doing, not its client's");
        assert_eq!(slow.room.close_for(IDLE), Some(Why::Slow));
        // Still waiting: asked again at the next look.
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(slow.room.close_for(IDLE), Some(Why::Slow));
        assert!(!waiting.await.expect("no panic"), "nothing was let go");
        assert!(!asking.at_door());
        assert_eq!(room.wanted.load(Ordering::SeqCst), 0);
        // Nobody waits: the looking stops.
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(!room.looking.load(Ordering::SeqCst));
        slow.room.close_for(IDLE);
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(slow.room.close_for(IDLE), None);
        // Room let go goes to the next header.
        drop(full);
        assert!(room.clone().grow(asking.clone(), 100).await);
        assert_eq!(asking.holds(), 200);
    }
}
