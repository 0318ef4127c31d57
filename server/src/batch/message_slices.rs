//! Messages too large for their stream's window or share, admitted a slice at a time: no
//! stream holds more of a message in flight than its share, and the next slice is read while
//! the last is solved. The rest stays a view of tonic's buffer, which the stream's room counts.

use super::Batched;
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

/// What is left of a message being admitted a slice at a time.
pub(super) struct Rest<M> {
    message: M,
    puzzles: usize,
    slice: usize,
}

impl<M: Batched> Rest<M> {
    /// `message` of `puzzles` puzzles, to be taken `slice` puzzles at a time.
    pub(super) fn new(message: M, puzzles: usize, slice: usize) -> Self {
        Rest {
            message,
            puzzles,
            slice,
        }
    }

    /// The next slice with its puzzle count, and what is left after it, if anything. The
    /// last is the rest itself, still a view, copied as it goes in flight.
    pub(super) fn next(mut self) -> ((M, usize), Option<Rest<M>>) {
        if self.puzzles > self.slice
            && let Some(slice) = self.message.split_off(self.slice)
        {
            self.puzzles -= self.slice;
            let count = self.slice;
            return ((slice, count), Some(self));
        }
        ((self.message, self.puzzles), None)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use sudoku_proto::pb;

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

    /// Every slice of `message`, `slice` puzzles at a time.
    fn cut(
        message: pb::PackedPuzzles,
        count: usize,
        slice: usize,
    ) -> Vec<(pb::PackedPuzzles, usize)> {
        let mut slices = Vec::new();
        let mut rest = Some(Rest::new(message, count, slice));
        while let Some(left) = rest.take() {
            let (slice, next) = left.next();
            slices.push(slice);
            rest = next;
        }
        slices
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
        let slices = cut(whole.clone(), 10, 3);
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
}
