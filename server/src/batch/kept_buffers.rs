//! What the message buffers of open batch streams keep (`--memory-budget`); room is made in
//! it by closing streams that no longer use what they keep (see [`super::reclaim`]).
//!
//! tonic keeps a stream's request buffer as large as its largest request, and its answer
//! buffer as large as its largest answer message, until the stream ends; so kept bytes come
//! back only as streams end. Refusing every stream past the budget would let a few cheap
//! streams (one large message, then a trickle, or answers never read) lock everyone else out,
//! so where streams wait for room, streams that have not used what they keep for a while are
//! closed for them.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::reclaim::{Budget, Holder, Holders};

/// How long a stream that found no room waits for streams to close for it and let go.
const ROOM_WAIT: Duration = Duration::from_secs(1);

/// The budget.
pub(crate) struct Kept {
    room: Arc<Semaphore>,
    size: usize,
}

impl Kept {
    /// A budget of `size` bytes.
    pub(crate) fn new(size: usize) -> Kept {
        Kept {
            room: Arc::new(Semaphore::new(size)),
            size,
        }
    }

    /// Its size.
    pub(crate) fn size(&self) -> usize {
        self.size
    }

    /// `bytes` more, if there is room now.
    pub(crate) fn try_take(&self, bytes: usize) -> Option<OwnedSemaphorePermit> {
        let bytes = u32::try_from(bytes).unwrap_or(u32::MAX);
        self.room.clone().try_acquire_many_owned(bytes).ok()
    }

    /// Its room, for [`Holders`] to make room in.
    pub(crate) fn room(&self) -> Arc<Semaphore> {
        self.room.clone()
    }

    /// `bytes` more for `asking`, as streams closed for it let go; `None` if none has within
    /// [`ROOM_WAIT`].
    pub(crate) async fn take(
        &self,
        bytes: usize,
        holders: &Arc<Holders>,
        asking: &Holder,
    ) -> Option<OwnedSemaphorePermit> {
        holders
            .take(Budget::Kept, bytes, Some(ROOM_WAIT), asking)
            .await
    }
}
