//! What the message buffers of open batch streams keep (`--max-kept-bytes`), and room made in
//! it by closing streams that no longer use what they keep.
//!
//! tonic keeps a stream's request buffer as large as its largest request, and its answer
//! buffer as large as its largest answer message, until the stream ends; so kept bytes come
//! back only as streams end. Refusing every stream past the budget let a few cheap streams
//! lock everyone else out: 27 gzip streams, each sent one 12 KB message expanding to 4 MB and
//! then a message a minute, held the whole 128 MiB. Where a stream finds no room, streams
//! that are waiting for their client's next message, owe it nothing (no puzzle being solved,
//! no answer not yet taken), and have not read a message as large as half their largest for
//! a while (a second by default), are closed, those keeping most first, until it fits. Small
//! messages do not keep a stream open: 33 streams that each sent one message expanding to
//! 4 MB, then a puzzle every half second, still held the whole budget when only waiting
//! counted.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};

/// How long a stream that found no room waits for streams to close for it and let go.
const ROOM_WAIT: Duration = Duration::from_secs(1);
/// How often a stream waiting for room looks again for streams to close: one that has just
/// sent its client's last answer may still count a puzzle on the solver threads for a moment.
const LOOK_AGAIN: Duration = Duration::from_millis(20);

/// The budget, and every open stream that holds some of it.
pub(crate) struct Kept {
    room: Arc<Semaphore>,
    size: usize,
    holders: Mutex<Vec<Weak<Holder>>>,
    /// What [`Holder::used_at`] counts from.
    epoch: Instant,
    /// How long since a stream last used what it keeps before it may be closed, in ms.
    unused_before_closed: u64,
}

/// What one stream shows the budget.
pub(crate) struct Holder {
    /// Bytes it keeps.
    kept: AtomicUsize,
    /// When it last read a message at least half as large as its largest, in ms since the
    /// budget's epoch.
    used_at: AtomicU64,
    /// Whether it is waiting for its client's next message.
    waiting: AtomicBool,
    /// Whether it owes its client anything: a puzzle being solved or an answer not yet taken.
    owes: Box<dyn Fn() -> bool + Send + Sync>,
    /// Raised to close it.
    close: Notify,
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
            unused_before_closed: u64::try_from(unused_before_closed.as_millis())
                .unwrap_or(u64::MAX),
        }
    }

    /// Its size.
    pub(crate) fn size(&self) -> usize {
        self.size
    }

    /// A new stream's place among the holders; `owes` says whether it owes its client
    /// anything (a stream that does is never closed).
    pub(crate) fn holder(&self, owes: impl Fn() -> bool + Send + Sync + 'static) -> Arc<Holder> {
        let holder = Arc::new(Holder {
            kept: AtomicUsize::new(0),
            used_at: AtomicU64::new(self.now()),
            waiting: AtomicBool::new(false),
            owes: Box::new(owes),
            close: Notify::new(),
        });
        if let Ok(mut holders) = self.holders.lock() {
            holders.retain(|h| h.strong_count() > 0);
            holders.push(Arc::downgrade(&holder));
        }
        holder
    }

    /// `bytes` more for `holder`, if there is room now.
    pub(crate) fn try_take(&self, bytes: usize) -> Option<OwnedSemaphorePermit> {
        let n = u32::try_from(bytes).unwrap_or(u32::MAX);
        self.room.clone().try_acquire_many_owned(n).ok()
    }

    /// `bytes` more for `holder`, after closing streams that keep enough between them, once
    /// they have let go; `None` if none can be found within [`ROOM_WAIT`].
    pub(crate) async fn take(&self, bytes: usize, holder: &Holder) -> Option<OwnedSemaphorePermit> {
        let n = u32::try_from(bytes).unwrap_or(u32::MAX);
        let deadline = tokio::time::Instant::now() + ROOM_WAIT;
        loop {
            if let Some(permit) = self.try_take(bytes) {
                return Some(permit);
            }
            if self.close_unused(bytes, holder) {
                let permit = self.room.clone().acquire_many_owned(n);
                return tokio::time::timeout_at(deadline, permit).await.ok()?.ok();
            }
            if tokio::time::Instant::now() + LOOK_AGAIN >= deadline {
                return None;
            }
            tokio::time::sleep(LOOK_AGAIN).await;
        }
    }

    /// Raises the close of the closable streams that keep the most, until they keep `bytes`
    /// beyond what is free now; whether they do.
    fn close_unused(&self, bytes: usize, asking: &Holder) -> bool {
        let unused_since = self.now().saturating_sub(self.unused_before_closed);
        let Ok(holders) = self.holders.lock() else {
            return false;
        };
        let mut closable: Vec<Arc<Holder>> = holders
            .iter()
            .filter_map(Weak::upgrade)
            .filter(|h| !std::ptr::eq(h.as_ref(), asking))
            .filter(|h| h.used_at.load(Ordering::Relaxed) <= unused_since && h.closable())
            .collect();
        drop(holders);
        closable.sort_by_key(|h| std::cmp::Reverse(h.kept.load(Ordering::Relaxed)));
        let mut freed = self.room.available_permits();
        let mut closing = Vec::new();
        for holder in closable {
            if freed >= bytes {
                break;
            }
            freed += holder.kept.load(Ordering::Relaxed);
            closing.push(holder);
        }
        if freed < bytes {
            return false;
        }
        for holder in closing {
            holder.close.notify_waiters();
        }
        true
    }

    /// Milliseconds since the epoch.
    fn now(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Records that `holder` keeps `bytes` in all, having just read a message that needs them.
    pub(crate) fn keeps(&self, holder: &Holder, bytes: usize) {
        holder.kept.store(bytes, Ordering::Relaxed);
        self.used(holder);
    }

    /// Records that `holder` has just read a message as large as half its largest.
    pub(crate) fn used(&self, holder: &Holder) {
        holder.used_at.store(self.now(), Ordering::Relaxed);
    }
}

impl Holder {
    /// Marks the stream as waiting for its client's next message, or not.
    pub(crate) fn waiting(&self, waiting: bool) {
        self.waiting.store(waiting, Ordering::Relaxed);
    }

    /// Whether it may be closed now: waiting for its client and owing it nothing.
    pub(crate) fn closable(&self) -> bool {
        self.waiting.load(Ordering::Relaxed) && !(self.owes)()
    }

    /// Resolves when the budget closes the stream.
    pub(crate) fn closed(&self) -> tokio::sync::futures::Notified<'_> {
        self.close.notified()
    }
}
