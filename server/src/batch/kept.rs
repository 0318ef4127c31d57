//! What the message buffers of open batch streams keep (`--max-kept-bytes`), and room made in
//! it by closing streams that no longer use what they keep.
//!
//! tonic keeps a stream's request buffer as large as its largest request, and its answer
//! buffer as large as its largest answer message, until the stream ends; so kept bytes come
//! back only as streams end. Refusing every stream past the budget let a few cheap streams
//! lock everyone else out: 27 gzip streams, each sent one 12 KB message expanding to 4 MB and
//! then a message a minute, held the whole 128 MiB. So where streams wait for room, a stream
//! is closed for them (those keeping most first) if it waits for its client (for its next
//! message, or to take answers), no puzzle of its is being solved, no message arriving would
//! need half what it keeps, its client has taken an answer within the last while (a second by
//! default) or has none waiting, and it has not read a message needing half what it keeps for
//! that while.
//! Reviewers' streams that defeated looser rules: a puzzle every half second after one 4 MB
//! message (33 streams held the whole budget); a client that never read its answers, so
//! that the stream always owed it some (about 100 bytes a second held 1 MB).

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};

use crate::calls::LargestMessage;

/// How long a stream that found no room waits for streams to close for it and let go.
const ROOM_WAIT: Duration = Duration::from_secs(1);
/// How often streams waiting for room look for streams to close, all of them together: one
/// that has just sent its client's last answer may still count a puzzle on the solver
/// threads for a moment, and a look reads every stream (a thousand streams each looking
/// every 20 ms took half a core).
const LOOK_AGAIN: Duration = Duration::from_millis(20);

/// The budget, and every open stream that holds some of it.
pub(crate) struct Kept {
    room: Arc<Semaphore>,
    size: usize,
    holders: Mutex<Vec<Weak<Holder>>>,
    /// What times are counted from, in ms.
    epoch: Instant,
    /// How long a stream must not have used what it keeps before it may be closed, in ms.
    unused_before_closed: u64,
    /// Bytes the streams waiting for room want, together.
    wanted: AtomicUsize,
    /// When streams were last looked at, in ms since the epoch.
    looked_at: AtomicU64,
}

/// One stream as the budget sees it, shared by its reading and answering sides.
pub(crate) struct Holder {
    /// Bytes it keeps.
    kept: AtomicUsize,
    /// Their share of the budget.
    permit: Mutex<Option<OwnedSemaphorePermit>>,
    /// When it last read a message needing half what it keeps, in ms since the epoch.
    used_at: AtomicU64,
    /// When its client last took answers, in ms since the epoch.
    taken_at: AtomicU64,
    /// Whether it waits for its client: for its next message, or to take answers.
    waiting: AtomicBool,
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
    /// Its window: a slot not free is a puzzle read and not yet answered to tonic.
    pub(crate) window: Arc<Semaphore>,
    pub(crate) window_size: usize,
    /// Its largest message, and the one arriving.
    pub(crate) largest: LargestMessage,
    /// What it keeps once a request of so many bytes has gone through (`Batched::kept_bytes`).
    pub(crate) kept_for: fn(usize) -> usize,
}

impl Kept {
    /// A budget of `size` bytes, where streams that have not used what they keep for
    /// `unused_before_closed` may be closed.
    pub(crate) fn new(size: usize, unused_before_closed: Duration) -> Kept {
        Kept {
            room: Arc::new(Semaphore::new(size)),
            size,
            holders: Mutex::new(Vec::new()),
            epoch: Instant::now(),
            unused_before_closed: millis(unused_before_closed),
            wanted: AtomicUsize::new(0),
            looked_at: AtomicU64::new(0),
        }
    }

    /// Its size.
    pub(crate) fn size(&self) -> usize {
        self.size
    }

    /// A new stream's place among the holders.
    pub(crate) fn holder(&self, work: Work) -> Arc<Holder> {
        let now = millis(self.epoch.elapsed());
        let holder = Arc::new(Holder {
            kept: AtomicUsize::new(0),
            permit: Mutex::new(None),
            used_at: AtomicU64::new(now),
            taken_at: AtomicU64::new(now),
            waiting: AtomicBool::new(false),
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

    /// `bytes` more, if there is room now.
    pub(crate) fn try_take(&self, bytes: usize) -> Option<OwnedSemaphorePermit> {
        self.room
            .clone()
            .try_acquire_many_owned(permits(bytes))
            .ok()
    }

    /// `bytes` more for `holder`, as streams closed for it let go; `None` if none has within
    /// [`ROOM_WAIT`].
    pub(crate) async fn take(&self, bytes: usize, holder: &Holder) -> Option<OwnedSemaphorePermit> {
        let deadline = tokio::time::Instant::now() + ROOM_WAIT;
        self.wanted.fetch_add(bytes, Ordering::Relaxed);
        let _wanted = Wanted(&self.wanted, bytes);
        // One place in the queue throughout: a new one each look went to its back.
        let permit = self.room.clone().acquire_many_owned(permits(bytes));
        tokio::pin!(permit);
        loop {
            self.look(holder);
            let until = (tokio::time::Instant::now() + LOOK_AGAIN).min(deadline);
            match tokio::time::timeout_at(until, &mut permit).await {
                Ok(granted) => return granted.ok(),
                Err(_) if tokio::time::Instant::now() >= deadline => return None,
                Err(_) => {}
            }
        }
    }

    /// Closes the streams that may be closed and keep the most, until they keep what the
    /// waiting streams want beyond what is free; at most once per [`LOOK_AGAIN`], whoever asks.
    fn look(&self, asking: &Holder) {
        let now = millis(self.epoch.elapsed());
        let last = self.looked_at.load(Ordering::Relaxed);
        if now < last.saturating_add(millis(LOOK_AGAIN))
            || self
                .looked_at
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_err()
        {
            return;
        }
        let Ok(holders) = self.holders.lock() else {
            return;
        };
        let since = now.saturating_sub(self.unused_before_closed);
        let mut closable: Vec<Arc<Holder>> = holders
            .iter()
            .filter_map(Weak::upgrade)
            .filter(|h| !std::ptr::eq(h.as_ref(), asking) && h.closable_since(since))
            // Closing one that keeps nothing frees nothing.
            .filter(|h| h.kept.load(Ordering::Relaxed) > 0)
            .collect();
        drop(holders);
        closable.sort_by_key(|h| std::cmp::Reverse(h.kept.load(Ordering::Relaxed)));
        let wanted = self.wanted.load(Ordering::Relaxed);
        let mut freed = self.room.available_permits();
        for holder in closable {
            if freed >= wanted {
                break;
            }
            freed += holder.kept.load(Ordering::Relaxed);
            holder.close.notify_waiters();
        }
    }

    /// Adds `permit` to what `holder` keeps, having just read a message that needs it all.
    pub(crate) fn keeps(&self, holder: &Holder, permit: OwnedSemaphorePermit) {
        if let Ok(mut held) = holder.permit.lock() {
            match &mut *held {
                Some(held) => held.merge(permit),
                none => *none = Some(permit),
            }
            let bytes = held.as_ref().map_or(0, OwnedSemaphorePermit::num_permits);
            holder.kept.store(bytes, Ordering::Relaxed);
        }
        holder.used();
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
        self.used_at.store(self.now(), Ordering::Relaxed);
    }

    /// Records that its client has just taken answers.
    pub(crate) fn taken(&self) {
        self.taken_at.store(self.now(), Ordering::Relaxed);
    }

    /// Marks the stream as waiting for its client, or not.
    pub(crate) fn waiting(&self, waiting: bool) {
        self.waiting.store(waiting, Ordering::Relaxed);
    }

    /// Whether it may be closed: waiting for its client, which has not made it use what it
    /// keeps, nor taken answers it has waiting, since `since` (ms since the epoch).
    fn closable_since(&self, since: u64) -> bool {
        let unused = self.used_at.load(Ordering::Relaxed) <= since;
        let answers_waiting = self.work.window.available_permits() < self.work.window_size;
        let untaken = !answers_waiting || self.taken_at.load(Ordering::Relaxed) <= since;
        unused && untaken && self.closable()
    }

    /// Gives back what it keeps, as its reader ends. (An answer tonic has taken but the
    /// client not yet read stays in tonic's and HTTP/2's buffers until the client reads it or
    /// the connection closes: a piece at most, 1 MiB.)
    pub(crate) fn release(&self) {
        if let Ok(mut held) = self.permit.lock() {
            *held = None;
        }
        self.kept.store(0, Ordering::Relaxed);
    }

    /// Bytes it keeps.
    pub(crate) fn kept(&self) -> usize {
        self.kept.load(Ordering::Relaxed)
    }

    /// Whether it may be closed now, as far as its own state goes: waiting for its client,
    /// with nothing being solved and no message arriving that uses what it keeps (tiny ones,
    /// each frame holding the next one's start, would keep it open for a few bytes a second).
    pub(crate) fn closable(&self) -> bool {
        let arriving = self.work.largest.arriving_now();
        let using = arriving > 0 && (self.work.kept_for)(arriving).saturating_mul(2) >= self.kept();
        self.waiting.load(Ordering::Relaxed)
            && self.work.in_pool.load(Ordering::Acquire) == 0
            && !using
    }

    /// Resolves when the budget closes the stream.
    pub(crate) fn closed(&self) -> tokio::sync::futures::Notified<'_> {
        self.close.notified()
    }

    fn now(&self) -> u64 {
        millis(self.epoch.elapsed())
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
