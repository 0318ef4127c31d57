//! Messages too large for their stream's window or byte budget, admitted a slice at a time. A
//! message admitted whole could cost more than the server's whole byte budget, and while it
//! waited for it, and then was solved, every other stream's next message would wait behind it.
//! Sliced, no stream holds more of it than its own budget (the rest of the message waits,
//! counted among the messages waiting for room), and the server's budget goes round.

use super::Batched;
use super::reclaim::WaitingRoom;
use crate::Shared;

/// The puzzles of each slice of a message of `puzzles` puzzles, or `None` where the stream
/// can take it whole. A slice takes at most half the window and about half the stream's
/// bytes, so that the next is read while the last is being solved.
pub(super) fn size<M: Batched>(message: &M, puzzles: usize, shared: &Shared) -> Option<usize> {
    let held = message.held_bytes(puzzles);
    if puzzles <= 1 || (puzzles <= shared.batch_window && held <= shared.stream_bytes) {
        return None;
    }
    let each = held.div_ceil(puzzles).max(1);
    let most = (shared.batch_window / 2)
        .min(shared.stream_bytes / 2 / each)
        .max(1);
    // As many slices as need be, of like sizes: 2,000 puzzles go as 667, 667 and 666, not
    // 905, 905 and a last of 190.
    let slices = puzzles.div_ceil(most);
    (slices > 1).then(|| puzzles.div_ceil(slices))
}

/// What the rest of a message, `bytes` of it, counts for among the messages waiting for room:
/// twice its size, as any message waiting there counts. Its own copy is all it keeps (the
/// buffer it arrived in is counted in the kept budget), but counted once, twice as many rests
/// would fit, and the server's memory go well past the budget.
pub(super) fn rest_cost(bytes: usize) -> usize {
    bytes.saturating_mul(2).saturating_add(super::HOLD_OVERHEAD)
}

/// What is left of a message being admitted a slice at a time. It counts among the messages
/// waiting for room (see [`rest_cost`]; a permit its reader keeps until the last slice has
/// its hold).
pub(super) struct Rest<M> {
    message: M,
    puzzles: usize,
    slice: usize,
    /// Bytes of the buffer the rest is a view of: it keeps all of them.
    viewed: usize,
}

impl<M: Batched> Rest<M> {
    /// `message` of `puzzles` puzzles, to be taken `slice` puzzles at a time.
    pub(super) fn new(message: M, puzzles: usize, slice: usize) -> Self {
        let viewed = message.encoded_len();
        Rest {
            message,
            puzzles,
            slice,
            viewed,
        }
    }

    /// The next slice with its puzzle count, and what is left after it, if anything. Where
    /// the rest has come down to half the buffer it views, it moves to a copy of its own and
    /// gives back what the buffer was counted for beyond it, out of `room`.
    pub(super) fn next(mut self, room: &mut Option<WaitingRoom>) -> ((M, usize), Option<Rest<M>>) {
        if self.puzzles > self.slice
            && let Some(slice) = self.message.split_off(self.slice)
        {
            self.puzzles -= self.slice;
            let count = self.slice;
            let left = self.message.encoded_len();
            if left.saturating_mul(2) <= self.viewed {
                self.message.own_bytes();
                self.viewed = left;
                if let Some(room) = room.as_mut() {
                    room.keep(rest_cost(left));
                }
            }
            return ((slice, count), Some(self));
        }
        // The last slice: a copy of its own, so the buffer goes now.
        let mut last = self.message;
        last.own_bytes();
        ((last, self.puzzles), None)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use bytes::Bytes;
    use prost::Message;
    use sudoku_proto::pb;
    use tokio::sync::Semaphore;

    use super::*;

    /// A message of `count` 9x9 puzzles two cells a byte, puzzle k's bytes all k.
    fn message(count: usize) -> pb::PackedPuzzles {
        let nibbles: Vec<u8> = (0..count).flat_map(|k| [k as u8; 41]).collect();
        pb::PackedPuzzles {
            box_rows: 3,
            box_cols: 3,
            id: "job".to_owned(),
            nibbles: nibbles.into(),
            options: Some(pb::SolveOptions {
                max_solutions: 1,
                ..pb::SolveOptions::default()
            }),
            ..pb::PackedPuzzles::default()
        }
    }

    /// Every slice of `message`, `slice` puzzles at a time, and the permits `room` had left
    /// after each.
    fn cut(
        message: pb::PackedPuzzles,
        count: usize,
        slice: usize,
        room: &mut Option<WaitingRoom>,
    ) -> (Vec<(pb::PackedPuzzles, usize)>, Vec<usize>) {
        let (mut slices, mut permits) = (Vec::new(), Vec::new());
        let mut rest = Some(Rest::new(message, count, slice));
        while let Some(left) = rest.take() {
            let (slice, next) = left.next(room);
            slices.push(slice);
            permits.push(room.as_ref().map_or(0, WaitingRoom::bytes));
            rest = next;
        }
        (slices, permits)
    }

    #[test]
    fn only_a_message_too_large_for_its_stream_is_cut_in_slices_of_like_sizes() {
        let config = crate::Config::embedded();
        let metrics = Arc::new(crate::metrics::Metrics::new());
        let shared = Shared::new(&config, metrics).expect("shared state");
        let (window, budget) = (shared.batch_window, shared.stream_bytes);
        let size = |message: &pb::PackedPuzzles, puzzles| size(message, puzzles, &shared);
        let bytes = |count: usize| pb::PackedPuzzles {
            cells: vec![0; 81 * count].into(),
            ..pb::PackedPuzzles::default()
        };
        // 1,000 puzzles of a byte a cell fit the window and the stream's 1 MiB; 2,000 do not.
        assert_eq!(size(&bytes(1000), 1000), None);
        assert!(bytes(2000).held_bytes(2000) > budget);
        assert_eq!(size(&bytes(2000), 2000), Some(667));
        // More puzzles than the window, in nibbles: slices of at most half of it.
        let nibbles = message(3 * window / 2);
        let slice = size(&nibbles, 3 * window / 2).expect("sliced");
        assert!(slice <= window / 2 && slice * 2 >= window / 2, "{slice}");
        // One puzzle is never cut, however large.
        assert_eq!(size(&bytes(1), 1), None);
    }

    #[test]
    fn slices_cover_the_message_once_in_order_each_a_message_like_it() {
        let whole = message(10);
        let (slices, _) = cut(whole.clone(), 10, 3, &mut None);
        let counts: Vec<usize> = slices.iter().map(|(_, count)| *count).collect();
        assert_eq!(counts, [3, 3, 3, 1]);
        let mut joined = Vec::new();
        for (slice, count) in &slices {
            assert_eq!(slice.nibbles.len(), count * 41);
            assert_eq!((&slice.id, slice.options), (&whole.id, whole.options));
            assert_eq!((slice.box_rows, slice.box_cols), (3, 3));
            assert!(slice.cells.is_empty());
            joined.extend_from_slice(&slice.nibbles);
        }
        assert_eq!(joined, whole.nibbles);
    }

    #[test]
    fn the_rest_moves_to_a_copy_and_gives_back_room_as_it_shrinks() {
        let whole = message(100);
        let arrived = whole.nibbles.as_ptr_range();
        let within = |bytes: &Bytes| arrived.contains(&bytes.as_ptr());
        let room = Arc::new(Semaphore::new(1 << 20));
        let charged = rest_cost(whole.encoded_len());
        let counted = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let permit = room.clone().try_acquire_many_owned(charged as u32).unwrap();
        let mut permit = Some(WaitingRoom::new(permit, counted.clone()));
        let mut rest = Rest::new(whole, 100, 10);
        let mut permits = Vec::new();
        for _ in 0..6 {
            let (_, next) = rest.next(&mut permit);
            rest = next.expect("more to come");
            let now = permit.as_ref().expect("still held").bytes();
            assert_eq!(counted.load(std::sync::atomic::Ordering::Relaxed), now);
            assert_eq!(
                within(&rest.message.nibbles),
                now == charged,
                "a view until copied"
            );
            permits.push(now);
        }
        // Fewer than half the puzzles left (the message's other fields count too), the rest
        // is a copy of its own, counted as such.
        assert_eq!(permits[..5], [charged; 5]);
        assert_eq!(permits[5], rest_cost(rest.message.encoded_len()));
        assert_eq!(room.available_permits(), (1 << 20) - permits[5]);
        let (slices, _) = cut(rest.message, 40, 10, &mut permit);
        assert_eq!(slices.len(), 4);
        // Its stream's share goes with it.
        drop(permit);
        assert_eq!(counted.load(std::sync::atomic::Ordering::Relaxed), 0);
        assert_eq!(room.available_permits(), 1 << 20);
    }
}
