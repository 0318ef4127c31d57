//! A stream's chunks sent and not yet answered, and the answers that come in pieces: a server
//! cuts a large answer into messages of bounded size, and solves a message too large for its
//! stream's window a slice at a time, each piece naming its own first puzzle. Pieces come in
//! any order.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use sudoku_proto::pb;

use super::read::Chunk;

/// Chunks sent on one stream and not yet wholly answered.
#[derive(Default)]
pub struct InFlight {
    /// By the stream index of their first puzzle.
    chunks: BTreeMap<u64, Arc<Chunk>>,
    /// Pieces of answers begun, by their chunk's first puzzle's stream index.
    begun: HashMap<u64, Vec<pb::PackedAnswers>>,
}

impl InFlight {
    /// Records `chunk`, sent with its first puzzle at stream index `first`.
    pub fn insert(&mut self, first: u64, chunk: Arc<Chunk>) {
        self.chunks.insert(first, chunk);
    }

    /// Chunks not yet wholly answered.
    pub fn len(&self) -> usize {
        self.chunks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// Every chunk not wholly answered, to be sent again, whole; pieces of their answers are
    /// dropped.
    pub fn drain(&mut self) -> Vec<Arc<Chunk>> {
        self.begun.clear();
        std::mem::take(&mut self.chunks).into_values().collect()
    }

    /// Takes in `reply`, a chunk's whole answer or a piece of it: the chunk and its whole
    /// answer once every piece is in, `Ok(None)` before; an error names a reply that answers
    /// nothing sent, or something answered already.
    pub fn answer(
        &mut self,
        reply: pb::PackedAnswers,
    ) -> Result<Option<(Arc<Chunk>, pb::PackedAnswers)>, String> {
        let not_sent = || {
            format!(
                "answered puzzles from index {}, which were not sent or were answered twice",
                reply.first
            )
        };
        let Some((&first, chunk)) = self.chunks.range(..=reply.first).next_back() else {
            return Err(not_sent());
        };
        let (wanted, count) = (chunk.len() as u64, reply.outcomes.len() as u64);
        let end = reply.first.saturating_add(count);
        if end > first + wanted || (count == 0 && reply.first != first) {
            return Err(not_sent());
        }
        let overlaps = |p: &pb::PackedAnswers| {
            p.first < end && reply.first < p.first + p.outcomes.len() as u64
        };
        if self
            .begun
            .get(&first)
            .is_some_and(|pieces| pieces.iter().any(overlaps))
        {
            return Err(not_sent());
        }
        let mut pieces = self.begun.remove(&first).unwrap_or_default();
        pieces.push(reply);
        let have: u64 = pieces.iter().map(|p| p.outcomes.len() as u64).sum();
        if have < wanted && have > 0 {
            self.begun.insert(first, pieces);
            return Ok(None);
        }
        // A whole answer, or an empty one, which the printer refuses.
        let Some(chunk) = self.chunks.remove(&first) else {
            return Ok(None);
        };
        pieces.sort_unstable_by_key(|p| p.first);
        match join(pieces) {
            Some(whole) => Ok(Some((chunk, whole))),
            None => Err(format!(
                "answered the puzzles from index {first} in pieces that do not fit together"
            )),
        }
    }
}

/// One answer from its pieces, in order; `None` where they are not of one message or name a
/// puzzle beyond any offset.
fn join(mut pieces: Vec<pb::PackedAnswers>) -> Option<pb::PackedAnswers> {
    if pieces.len() == 1 {
        return pieces.pop();
    }
    let mut whole = pb::PackedAnswers::default();
    let (mut plain, mut nibbles) = (Vec::new(), Vec::new());
    for (i, piece) in pieces.into_iter().enumerate() {
        if i == 0 {
            (whole.id, whole.first) = (piece.id, piece.first);
        } else if piece.id != whole.id {
            return None;
        }
        let at = u32::try_from(whole.outcomes.len()).ok()?;
        for mut error in piece.errors {
            error.offset = error.offset.checked_add(at)?;
            whole.errors.push(error);
        }
        whole.outcomes.extend_from_slice(&piece.outcomes);
        whole.guesses.extend_from_slice(&piece.guesses);
        whole
            .solutions_found
            .extend_from_slice(&piece.solutions_found);
        plain.extend_from_slice(&piece.solutions);
        nibbles.extend_from_slice(&piece.solution_nibbles);
    }
    whole.solutions = plain.into();
    whole.solution_nibbles = nibbles.into();
    Some(whole)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{Origin, Place};

    /// A chunk of `count` puzzles (their cells do not matter here).
    fn chunk(id: u64, count: usize) -> Arc<Chunk> {
        Arc::new(Chunk {
            id,
            box_rows: 3,
            box_cols: 3,
            origins: (0..count)
                .map(|number| Origin {
                    number,
                    place: Place::Line(number),
                })
                .collect(),
            cells: vec![0; 41 * count].into(),
            _unprinted: None,
            sends: Default::default(),
        })
    }

    /// The answer to puzzles `from..to` of the stream, the one at `bad` refused.
    fn piece(id: u64, from: u64, to: u64, bad: u64) -> pb::PackedAnswers {
        let count = (to - from) as usize;
        let mut answer = pb::PackedAnswers {
            id: id.to_string(),
            first: from,
            outcomes: vec![pb::Outcome::Unique as u8; count],
            guesses: (from..to).collect(),
            solutions_found: vec![1; count],
            solution_nibbles: (from..to)
                .flat_map(|k| [k as u8; 41])
                .collect::<Vec<u8>>()
                .into(),
            ..pb::PackedAnswers::default()
        };
        if (from..to).contains(&bad) {
            let at = (bad - from) as usize;
            answer.outcomes[at] = pb::Outcome::Invalid as u8;
            answer.errors.push(pb::PackedError {
                offset: at as u32,
                error: Some(pb::SolveError {
                    message: "digit 3 appears twice".to_owned(),
                    row: 1,
                    col: 2,
                }),
            });
        }
        answer
    }

    #[test]
    fn pieces_make_the_whole_answer_once_all_are_in() {
        let mut flight = InFlight::default();
        let (a, b) = (chunk(0, 10), chunk(1, 5));
        flight.insert(0, a.clone());
        flight.insert(10, b.clone());
        // The second chunk whole, the first in three pieces.
        let (chunk, whole) = flight.answer(piece(1, 10, 15, 99)).unwrap().unwrap();
        assert!(Arc::ptr_eq(&chunk, &b));
        assert_eq!(whole, piece(1, 10, 15, 99));
        assert!(flight.answer(piece(0, 0, 4, 6)).unwrap().is_none());
        assert!(flight.answer(piece(0, 4, 7, 6)).unwrap().is_none());
        assert_eq!(flight.len(), 1, "still in flight");
        let (chunk, whole) = flight.answer(piece(0, 7, 10, 6)).unwrap().unwrap();
        assert!(Arc::ptr_eq(&chunk, &a));
        assert_eq!(whole, piece(0, 0, 10, 6), "joined as if sent whole");
        assert!(flight.is_empty());
        let twice = flight.answer(piece(0, 0, 10, 6)).unwrap_err();
        assert!(twice.contains("index 0"), "{twice}");
    }

    #[test]
    fn pieces_may_come_in_any_order_but_not_twice() {
        let mut flight = InFlight::default();
        let a = chunk(0, 10);
        flight.insert(20, a.clone());
        assert!(flight.answer(piece(0, 27, 30, 28)).unwrap().is_none());
        let twice = flight.answer(piece(0, 26, 28, 99)).unwrap_err();
        assert!(twice.contains("index 26"), "{twice}");
        let past = flight.answer(piece(0, 28, 31, 99)).unwrap_err();
        assert!(past.contains("index 28"), "{past}");
        let before = flight.answer(piece(0, 19, 20, 99)).unwrap_err();
        assert!(before.contains("index 19"), "{before}");
        assert!(flight.answer(piece(0, 20, 24, 99)).unwrap().is_none());
        let (chunk, whole) = flight.answer(piece(0, 24, 27, 99)).unwrap().unwrap();
        assert!(Arc::ptr_eq(&chunk, &a));
        assert_eq!(whole, piece(0, 20, 30, 28), "joined in order");
        assert!(flight.is_empty());
    }

    #[test]
    fn pieces_that_do_not_fit_together_are_refused() {
        let mut flight = InFlight::default();
        flight.insert(0, chunk(0, 10));
        assert!(flight.answer(piece(0, 0, 4, 99)).unwrap().is_none());
        let other = flight.answer(piece(7, 4, 10, 99)).unwrap_err();
        assert!(other.contains("do not fit together"), "{other}");
        flight.insert(0, chunk(0, 10));
        assert!(flight.answer(piece(0, 0, 4, 99)).unwrap().is_none());
        let mut past = piece(0, 4, 10, 5);
        past.errors[0].offset = u32::MAX;
        assert!(flight.answer(past).is_err(), "an offset past any puzzle");
    }

    #[test]
    fn a_chunk_with_part_of_its_answer_goes_again_whole() {
        let mut flight = InFlight::default();
        flight.insert(0, chunk(0, 10));
        assert!(flight.answer(piece(0, 0, 4, 99)).unwrap().is_none());
        let again = flight.drain();
        assert_eq!(again.len(), 1);
        assert_eq!(again[0].len(), 10);
        // The rest of the old answer answers nothing now.
        assert!(flight.answer(piece(0, 4, 10, 99)).is_err());
    }
}
