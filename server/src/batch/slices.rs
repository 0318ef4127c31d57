//! Messages too large for their stream's window or byte budget, admitted a slice at a time. A
//! message that did not fit went alone, holding as much of the server's byte budget as it
//! cost: a 4 MiB message of 4x4 puzzles cost more than the whole 64 MiB, and while it waited
//! for all of it, and then was solved, every other stream's next message waited behind it.
//! Sliced, no stream holds more than its own budget, and the server's budget goes round.

use tokio::sync::OwnedSemaphorePermit;

use super::Batched;
use crate::shared::Shared;

/// The puzzles of each slice of a message of `puzzles` puzzles, or `None` where the stream
/// can take it whole. A slice takes at most half the window and half the stream's bytes, so
/// that the next is read while the last is being solved.
pub(super) fn size<M: Batched>(message: &M, puzzles: usize, shared: &Shared) -> Option<usize> {
    let held = message.held_bytes(puzzles);
    if puzzles <= 1 || (puzzles <= shared.batch_window && held <= shared.stream_bytes) {
        return None;
    }
    let each = held.div_ceil(puzzles).max(1);
    let slice = (shared.batch_window / 2)
        .min(shared.stream_bytes / 2 / each)
        .max(1);
    (slice < puzzles).then_some(slice)
}

/// What is left of a message being admitted a slice at a time.
pub(super) struct Rest<M> {
    message: M,
    puzzles: usize,
    slice: usize,
    /// The rest counted among the messages waiting for room until its last slice is taken.
    _waiting: OwnedSemaphorePermit,
}

impl<M: Batched> Rest<M> {
    /// `message` of `puzzles` puzzles, to be taken `slice` puzzles at a time.
    pub(super) fn new(
        message: M,
        puzzles: usize,
        slice: usize,
        waiting: OwnedSemaphorePermit,
    ) -> Self {
        Rest {
            message,
            puzzles,
            slice,
            _waiting: waiting,
        }
    }

    /// The next slice with its puzzle count, and what is left after it, if anything.
    pub(super) fn next(mut self) -> ((M, usize), Option<Rest<M>>) {
        if self.puzzles > self.slice
            && let Some(slice) = self.message.split_off(self.slice)
        {
            self.puzzles -= self.slice;
            let count = self.slice;
            return ((slice, count), Some(self));
        }
        // The last slice: a copy of its own, so the whole message's bytes go now.
        let mut last = self.message;
        last.own_bytes();
        ((last, self.puzzles), None)
    }
}
