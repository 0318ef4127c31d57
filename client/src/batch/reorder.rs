//! Putting answers, which arrive by chunk in completion order, back in input order.

use std::collections::VecDeque;
use std::sync::Arc;

use sudoku_proto::pb::{self, Outcome};

use super::Item;
use super::read::{Chunk, Held};
use crate::input::Origin;
use crate::shown::plural;

/// A puzzle read, waiting for its turn to be printed.
enum Slot {
    /// A line that did not parse, and why; with its room, given back once it is printed.
    Invalid {
        origin: Origin,
        reason: String,
        _room: Held,
    },
    /// A puzzle sent in chunk `id`, at `offset`.
    Sent { id: u64, offset: usize },
}

/// A chunk sent, and its answer once in.
struct Sent {
    chunk: Arc<Chunk>,
    reply: Option<pb::PackedAnswers>,
}

/// Puts answers, which arrive in completion order, back in input order. Puzzles and chunks
/// are numbered in input order, so both wait in queues indexed from the next to print:
/// nothing per puzzle is allocated or searched for.
#[derive(Default)]
pub struct Reorder {
    /// Puzzles from number `next` on; `None` until read (a line that does not parse is
    /// known before the chunk of the puzzles around it).
    slots: VecDeque<Option<Slot>>,
    /// Chunks from id `first_chunk` on, until their last puzzle is printed.
    chunks: VecDeque<Option<Sent>>,
    first_chunk: u64,
    /// Puzzles read so far.
    pub pushed: usize,
    /// Puzzles printed so far.
    printed: usize,
}

/// One puzzle ready to print: the server's answer, or why it was not sent.
pub enum Ready<'a> {
    /// The server answered.
    Answer(Answered<'a>),
    /// The line did not parse.
    Invalid(&'a str),
}

/// A puzzle's answer, read from its chunk's reply.
#[derive(Clone, Copy)]
pub struct Answered<'a> {
    /// The chunk the puzzle went in.
    pub chunk: &'a Chunk,
    reply: &'a pb::PackedAnswers,
    offset: usize,
}

impl Reorder {
    /// Takes note of puzzles read.
    pub fn push(&mut self, item: Item) {
        match item {
            Item::Puzzles(chunk) => {
                for (offset, origin) in chunk.origins.iter().enumerate() {
                    let id = chunk.id;
                    self.insert(origin.number, Slot::Sent { id, offset });
                }
                let at = chunk.id.saturating_sub(self.first_chunk) as usize;
                if self.chunks.len() <= at {
                    self.chunks.resize_with(at + 1, || None);
                }
                self.chunks[at] = Some(Sent { chunk, reply: None });
            }
            Item::Invalid(origin, reason, room) => {
                let number = origin.number;
                let slot = Slot::Invalid {
                    origin,
                    reason,
                    _room: room,
                };
                self.insert(number, slot)
            }
            Item::Done => {}
        }
    }

    fn insert(&mut self, number: usize, slot: Slot) {
        self.pushed += 1;
        // Numbers start at 1 and every one below `number` not yet printed has a place.
        let at = number.saturating_sub(self.printed + 1);
        // Puzzles come in input order but for lines refused early, so almost always next.
        if at == self.slots.len() {
            self.slots.push_back(Some(slot));
            return;
        }
        if self.slots.len() <= at {
            self.slots.resize_with(at + 1, || None);
        }
        self.slots[at] = Some(slot);
    }

    /// Files a chunk's answers under its puzzles.
    pub fn answer(&mut self, chunk: &Chunk, reply: pb::PackedAnswers) -> anyhow::Result<()> {
        let Some(at) = chunk.id.checked_sub(self.first_chunk) else {
            anyhow::bail!("message {} was answered twice", chunk.id);
        };
        let Some(Some(sent)) = self.chunks.get_mut(at as usize) else {
            anyhow::bail!("an answer for message {}, which is not waiting", chunk.id);
        };
        anyhow::ensure!(
            sent.reply.is_none(),
            "message {} was answered twice",
            chunk.id
        );
        // A server from before `nibbles` reads such a message as one without puzzles.
        let older = if chunk.nibbles() && reply.outcomes.is_empty() {
            " (a server too old to read puzzles sent two cells a byte?)"
        } else {
            ""
        };
        anyhow::ensure!(
            reply.outcomes.len() == sent.chunk.len(),
            "message {}: {} for {}{older}",
            chunk.id,
            plural(reply.outcomes.len() as u64, "outcome"),
            plural(sent.chunk.len() as u64, "puzzle")
        );
        let (solutions, field) = chunk.solutions(&reply);
        let solutions = solutions.len();
        anyhow::ensure!(
            solutions == sent.chunk.len() * chunk.bytes_each(),
            "message {}: {field} holds {} for {} of {}",
            chunk.id,
            plural(solutions as u64, "byte"),
            plural(sent.chunk.len() as u64, "puzzle"),
            plural(chunk.bytes_each() as u64, "byte"),
        );
        sent.reply = Some(reply);
        Ok(())
    }

    /// Puzzles read but not yet printed.
    pub fn outstanding(&self) -> usize {
        self.pushed - self.printed
    }

    /// Hands every puzzle whose turn has come, in order, to `print`.
    pub fn drain<E>(
        &mut self,
        mut print: impl FnMut(&Origin, Ready) -> Result<(), E>,
    ) -> Result<(), E> {
        while let Some(Some(slot)) = self.slots.front() {
            match slot {
                Slot::Invalid { origin, reason, .. } => print(origin, Ready::Invalid(reason))?,
                &Slot::Sent { id, offset } => {
                    let at = id.saturating_sub(self.first_chunk) as usize;
                    let Some(Some(Sent {
                        chunk,
                        reply: Some(reply),
                    })) = self.chunks.get(at)
                    else {
                        break;
                    };
                    let answer = Answered {
                        chunk,
                        reply,
                        offset,
                    };
                    print(&chunk.origins[offset], Ready::Answer(answer))?;
                    // Chunks end in id order, so the chunk whose last puzzle this was is the
                    // oldest.
                    if offset + 1 == chunk.len() {
                        self.chunks.pop_front();
                        self.first_chunk += 1;
                    }
                }
            }
            self.slots.pop_front();
            self.printed += 1;
        }
        Ok(())
    }
}

impl Answered<'_> {
    /// The puzzle's outcome.
    pub fn outcome(&self) -> Outcome {
        self.reply
            .outcomes
            .get(self.offset)
            .and_then(|&o| Outcome::try_from(i32::from(o)).ok())
            .unwrap_or(Outcome::Unspecified)
    }

    /// The puzzle's cell values as sent, unpacked into `out`.
    pub fn puzzle<'b>(&self, out: &'b mut Vec<u8>) -> &'b [u8] {
        let size = self.chunk.bytes_each();
        let bytes = &self.chunk.cells[self.offset * size..(self.offset + 1) * size];
        self.chunk.unpack(bytes, out)
    }

    /// The solution's cell values, unpacked into `out`, where the outcome has one.
    pub fn solution<'b>(&self, out: &'b mut Vec<u8>) -> Option<&'b [u8]> {
        let size = self.chunk.bytes_each();
        let has = matches!(
            self.outcome(),
            Outcome::Unique | Outcome::Solved | Outcome::Multiple
        );
        let (solutions, _) = self.chunk.solutions(self.reply);
        let bytes = solutions.get(self.offset * size..(self.offset + 1) * size)?;
        has.then(|| self.chunk.unpack(bytes, out))
    }

    /// Why the server found the puzzle invalid, if it said.
    pub fn error(&self) -> Option<&pb::SolveError> {
        self.reply
            .errors
            .iter()
            .find(|e| e.offset as usize == self.offset)
            .and_then(|e| e.error.as_ref())
    }

    /// The answer in BatchSolve's terms, for the formats that print every field; what the
    /// packed answer does not carry (the id, solve time and algorithm) is left at its default
    /// for [`crate::output::Answer::Packed`] to leave out, and the stats are `None` where the
    /// server sent no guess counts.
    pub fn response(&self) -> pb::SolveResponse {
        let mut cells = Vec::new();
        let solution = self.solution(&mut cells).map(|bytes| pb::Grid {
            box_rows: self.chunk.box_rows,
            box_cols: self.chunk.box_cols,
            cells: bytes.iter().map(|&b| u32::from(b)).collect(),
        });
        pb::SolveResponse {
            id: String::new(),
            index: (self.chunk.origins[self.offset].number - 1) as u64,
            outcome: self.outcome().into(),
            solution,
            solutions_found: self
                .reply
                .solutions_found
                .get(self.offset)
                .copied()
                .unwrap_or(0),
            stats: self
                .reply
                .guesses
                .get(self.offset)
                .map(|&guesses| pb::SolveStats {
                    guesses,
                    ..pb::SolveStats::default()
                }),
            error: self.error().cloned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Place;
    use sudoku_proto::nibbles;

    const PUZZLE: &str =
        "3.65.84..52........87....31..3.1..8.9..863..5.5..9.6..13....25........74..52.63..";

    /// PUZZLE's cell values, 0 for empty.
    fn values() -> Vec<u8> {
        let grid: solver_core::Grid = PUZZLE.parse().expect("a puzzle");
        grid.cells().to_vec()
    }

    /// A chunk of `count` copies of PUZZLE, two cells a byte.
    fn chunk(id: u64, first: usize, count: usize) -> Arc<Chunk> {
        let mut cells = Vec::new();
        for _ in 0..count {
            nibbles::pack(&values(), &mut cells);
        }
        Arc::new(Chunk {
            id,
            box_rows: 3,
            box_cols: 3,
            origins: (first..first + count)
                .map(|number| Origin {
                    number,
                    place: Place::Line(number),
                })
                .collect(),
            cells: cells.into(),
            _unprinted: None,
            sends: Default::default(),
        })
    }

    /// The answer to `chunk`: every puzzle solved, its solution packed.
    fn solved(chunk: &Chunk) -> pb::PackedAnswers {
        let grid: solver_core::Grid = PUZZLE.parse().expect("a puzzle");
        let report = solver_core::solve(&grid, &solver_core::Options::default()).expect("solved");
        let solution = report.outcome.grid().expect("a solution").cells().to_vec();
        let mut packed = Vec::new();
        for _ in 0..chunk.len() {
            nibbles::pack(&solution, &mut packed);
        }
        pb::PackedAnswers {
            id: chunk.id.to_string(),
            outcomes: vec![Outcome::Unique as u8; chunk.len()],
            solution_nibbles: packed.into(),
            ..pb::PackedAnswers::default()
        }
    }

    /// What prints now: each puzzle's number, cells as sent and solution.
    fn drained(reorder: &mut Reorder) -> Vec<(usize, Vec<u8>, Vec<u8>)> {
        let mut printed = Vec::new();
        let print = |origin: &Origin, ready: Ready| {
            let Ready::Answer(answer) = ready else {
                panic!("every puzzle was answered");
            };
            let (mut puzzle, mut solution) = (Vec::new(), Vec::new());
            let puzzle = answer.puzzle(&mut puzzle).to_vec();
            let solution = answer.solution(&mut solution).expect("a solution").to_vec();
            printed.push((origin.number, puzzle, solution));
            Ok::<(), ()>(())
        };
        reorder.drain(print).expect("printed");
        printed
    }

    #[test]
    fn answers_print_in_input_order_unpacked() {
        let mut reorder = Reorder::default();
        let (first, second) = (chunk(0, 1, 2), chunk(1, 3, 3));
        reorder.push(Item::Puzzles(first.clone()));
        reorder.push(Item::Puzzles(second.clone()));
        // The second chunk's answer first: nothing can print until the first's comes.
        reorder
            .answer(&second, solved(&second))
            .expect("a whole answer");
        assert!(drained(&mut reorder).is_empty());
        reorder
            .answer(&first, solved(&first))
            .expect("a whole answer");
        let printed = drained(&mut reorder);
        let numbers: Vec<usize> = printed.iter().map(|(n, _, _)| *n).collect();
        assert_eq!(numbers, [1, 2, 3, 4, 5]);
        let puzzle: solver_core::Grid = PUZZLE.parse().expect("a puzzle");
        for (_, cells, solution) in &printed {
            assert_eq!(cells, &values(), "the puzzle as sent");
            let solution = solver_core::Grid::new(solver_core::Shape::CLASSIC, solution)
                .expect("a valid grid");
            assert!(solution.is_solution_of(&puzzle));
        }
        assert_eq!(reorder.outstanding(), 0);
    }

    #[test]
    fn answers_of_the_wrong_size_are_refused_and_named() {
        let mut reorder = Reorder::default();
        let sent = chunk(0, 1, 2);
        reorder.push(Item::Puzzles(sent.clone()));
        let mut short = solved(&sent);
        short.solution_nibbles = short.solution_nibbles.slice(..41);
        let err = reorder
            .answer(&sent, short)
            .expect_err("one solution short");
        assert_eq!(
            err.to_string(),
            "message 0: solution_nibbles holds 41 bytes for 2 puzzles of 41 bytes"
        );
        // What a server from before nibbles answers: no puzzles at all.
        let none = pb::PackedAnswers::default();
        let err = reorder.answer(&sent, none).expect_err("no outcomes");
        assert_eq!(
            err.to_string(),
            "message 0: 0 outcomes for 2 puzzles (a server too old to read puzzles sent two \
             cells a byte?)"
        );
        // One of anything is not "1 puzzles" or "1 bytes".
        let one = chunk(1, 3, 1);
        reorder.push(Item::Puzzles(one.clone()));
        let mut short = solved(&one);
        short.solution_nibbles = short.solution_nibbles.slice(..1);
        let err = reorder.answer(&one, short).expect_err("short");
        assert_eq!(
            err.to_string(),
            "message 1: solution_nibbles holds 1 byte for 1 puzzle of 41 bytes"
        );
        let mut two = solved(&one);
        two.outcomes.push(two.outcomes[0]);
        let err = reorder.answer(&one, two).expect_err("an outcome too many");
        assert_eq!(err.to_string(), "message 1: 2 outcomes for 1 puzzle");
    }
}
