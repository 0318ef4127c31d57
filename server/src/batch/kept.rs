//! What the message buffers of open batch streams keep (`--max-kept-bytes`), and room made in
//! it by closing streams that sit idle on what they keep.
//!
//! tonic keeps a stream's request buffer as large as its largest request, and its answer
//! buffer as large as its largest answer message, until the stream ends; so kept bytes come
//! back only as streams end. Refusing every stream past the budget let a few cheap streams
//! lock everyone else out: 27 gzip streams, each sent one 12 KB message expanding to 4 MB and
//! then a message a minute, held the whole 128 MiB. Where a stream finds no room, streams
//! that have waited long enough for their client's next message, with
//! nothing of theirs being solved, are closed (largest first) until it fits. A second is the
//! default wait: a client streaming its messages one after another never waits that long.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};

/// How long a stream that found no room waits for the streams closed for it to let go.
const ROOM_WAIT: Duration = Duration::from_secs(1);

/// The budget, and every open stream that holds some of it.
pub(crate) struct Kept {
    room: Arc<Semaphore>,
    size: usize,
    holders: Mutex<Vec<Weak<Holder>>>,
    /// What [`Holder::idle_since`] counts from.
    epoch: Instant,
    /// How long a stream must have waited idle before it may be closed, in ms.
    idle_before_closed: u64,
}

/// What one stream shows the budget.
pub(crate) struct Holder {
    /// Bytes it keeps.
    kept: AtomicUsize,
    /// Milliseconds since the budget's epoch, plus one, since the stream began waiting for its
    /// client's next message with nothing being solved; 0 while it is not.
    idle_since: AtomicU64,
    /// Its tasks on the solver threads.
    in_pool: Arc<AtomicUsize>,
    /// Raised to close it.
    close: Notify,
}

impl Kept {
    /// A budget of `size` bytes, where streams idle `idle_before_closed` may be closed.
    pub(crate) fn new(size: usize, idle_before_closed: Duration) -> Kept {
        Kept {
            room: Arc::new(Semaphore::new(size)),
            size,
            holders: Mutex::new(Vec::new()),
            epoch: Instant::now(),
            idle_before_closed: u64::try_from(idle_before_closed.as_millis()).unwrap_or(u64::MAX),
        }
    }

    /// Its size.
    pub(crate) fn size(&self) -> usize {
        self.size
    }

    /// A new stream's place among the holders; `in_pool` counts its tasks on the solver
    /// threads (a stream with any is not idle).
    pub(crate) fn holder(&self, in_pool: Arc<AtomicUsize>) -> Arc<Holder> {
        let holder = Arc::new(Holder {
            kept: AtomicUsize::new(0),
            idle_since: AtomicU64::new(0),
            in_pool,
            close: Notify::new(),
        });
        if let Ok(mut holders) = self.holders.lock() {
            holders.retain(|h| h.strong_count() > 0);
            holders.push(Arc::downgrade(&holder));
        }
        holder
    }

    /// `bytes` more for `holder`: at once if there is room; else after closing idle streams
    /// that keep enough between them, once they have let go; `None` if they do not.
    pub(crate) async fn take(&self, bytes: usize, holder: &Holder) -> Option<OwnedSemaphorePermit> {
        let n = u32::try_from(bytes).unwrap_or(u32::MAX);
        if let Ok(permit) = self.room.clone().try_acquire_many_owned(n) {
            return Some(permit);
        }
        if !self.close_idle(bytes, holder) {
            return None;
        }
        let permit = self.room.clone().acquire_many_owned(n);
        tokio::time::timeout(ROOM_WAIT, permit).await.ok()?.ok()
    }

    /// Raises the close of the streams idle long enough that keep the most, until they keep
    /// `bytes` beyond what is free now; whether they do.
    fn close_idle(&self, bytes: usize, asking: &Holder) -> bool {
        let now = self.now();
        let Ok(holders) = self.holders.lock() else {
            return false;
        };
        let mut idle: Vec<Arc<Holder>> = holders
            .iter()
            .filter_map(Weak::upgrade)
            .filter(|h| !std::ptr::eq(h.as_ref(), asking))
            .filter(|h| h.idle_long_enough(now, self.idle_before_closed))
            .collect();
        drop(holders);
        idle.sort_by_key(|h| std::cmp::Reverse(h.kept.load(Ordering::Relaxed)));
        let mut freed = self.room.available_permits();
        let mut closing = Vec::new();
        for holder in idle {
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

    /// Marks `holder` as waiting for its client's next message with nothing being solved
    /// (`true`), or not.
    pub(crate) fn idle(&self, holder: &Holder, idle: bool) {
        let since = if idle { self.now() + 1 } else { 0 };
        holder.idle_since.store(since, Ordering::Relaxed);
    }
}

impl Holder {
    /// Whether it has waited `least` ms for its client by `now` (ms since the epoch), with
    /// nothing being solved.
    fn idle_long_enough(&self, now: u64, least: u64) -> bool {
        let since = self.idle_since.load(Ordering::Relaxed);
        since > 0 && now >= (since - 1).saturating_add(least) && self.idle_now()
    }

    /// Whether nothing of the stream's is on the solver threads.
    pub(crate) fn idle_now(&self) -> bool {
        self.in_pool.load(Ordering::Acquire) == 0
    }

    /// Records that the stream keeps `bytes` in all.
    pub(crate) fn keeps(&self, bytes: usize) {
        self.kept.store(bytes, Ordering::Relaxed);
    }

    /// Resolves when the budget closes the stream.
    pub(crate) fn closed(&self) -> tokio::sync::futures::Notified<'_> {
        self.close.notified()
    }
}
