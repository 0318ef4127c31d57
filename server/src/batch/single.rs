//! BatchSolve: one puzzle per message, one answer per puzzle.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use prost::Message;
use sudoku_proto::pb;

use super::answers::Outbox;
use super::coalesce::{Carry, GATHER, GATHER_WAIT, Out};
use super::{Batched, Hold, Read, Reader};
use crate::scheduling::pool::{Deliver, PoolError, Work};
use crate::solving::{Job, invalid, prepare, response};

/// An answer and what its puzzle holds.
type Answer = (pb::SolveResponse, Hold);

impl Batched for pb::SolveRequest {
    type Answer = pb::SolveResponse;

    /// As the default, and the answer's solution at four bytes a cell in memory (one on the
    /// wire): a 25x25 answer holds 2.5 KB more than its encoded size says.
    fn held_bytes(&self, _puzzles: usize) -> usize {
        let cells = self.puzzle.as_ref().map_or(0, |p| p.cells.len());
        2 * self.encoded_len() + super::HOLD_OVERHEAD + 4 * cells
    }

    fn submit(group: Vec<Read<Self>>, to: &Reader<Self>) {
        let mut items = Vec::with_capacity(group.len());
        let mut invalid_answers = Vec::new();
        for read in group {
            let (request, index, hold) = (read.message, read.first, read.hold);
            match prepare(&request, &to.shared.limits, to.caller.deadline) {
                Ok(mut job) => {
                    job.cancel_with(to.cancel.clone());
                    items.push(Item {
                        job,
                        id: request.id,
                        index,
                        hold,
                    });
                }
                Err(err) => invalid_answers.push((invalid(request.id, index, &err), hold)),
            }
        }
        to.send_now(invalid_answers);
        // One job per solver thread keeps every core busy with one wake-up per thread.
        let per_thread = items.len().div_ceil(to.shared.pool.lanes.workers).max(1);
        while !items.is_empty() {
            let rest = items.split_off(per_thread.min(items.len()));
            let chunk = std::mem::replace(&mut items, rest);
            let gathered = Gathered {
                out: to.out.clone(),
                progress: to.progress.clone(),
                carry: to.carry.clone(),
                answers: Vec::with_capacity(GATHER.min(chunk.len())),
                waited: Duration::ZERO,
                joined: false,
            };
            to.solve(chunk, gathered);
        }
    }
}

/// Answers from one solver thread, handed on to the stream's [`Carry`]: at once in groups of
/// [`GATHER`] or once they have waited [`GATHER_WAIT`] of solving, else when the pool pauses
/// the task and when the task ends.
struct Gathered {
    out: Outbox<pb::SolveResponse>,
    progress: Arc<AtomicU64>,
    carry: Arc<Carry<pb::SolveResponse>>,
    answers: Vec<Answer>,
    /// Solver time since the first gathered answer: the solver's own clock, no extra reads.
    waited: Duration,
    /// Whether the carry counts this task among those answers may wait for: while a solver
    /// thread works on it, until one of its puzzles goes to the long lane. A task queued (at
    /// first, or between time slices) is not waited for: other clients' work may be ahead.
    joined: bool,
}

impl Gathered {
    fn push(&mut self, answer: Answer, solving: Duration) {
        if !self.answers.is_empty() {
            self.waited += solving;
        }
        self.answers.push(answer);
        if self.answers.len() >= GATHER || self.waited >= GATHER_WAIT {
            self.hand(true);
        }
    }

    /// Hands the gathered answers to the stream's carry, sent on there at once when `now`.
    fn hand(&mut self, now: bool) {
        self.waited = Duration::ZERO;
        if self.answers.is_empty() {
            return;
        }
        // The next group gets the same room, so it grows without reallocating.
        let next = Vec::with_capacity(self.answers.capacity());
        let answers = std::mem::replace(&mut self.answers, next);
        self.carry.hand(answers, now, &self.to());
    }

    /// Takes this task out of those the carry's answers wait for, with its answers.
    fn leave(&mut self) {
        if std::mem::replace(&mut self.joined, false) {
            let answers = std::mem::take(&mut self.answers);
            self.carry.leave(answers, &self.to());
        }
    }

    fn to(&self) -> Out<'_, pb::SolveResponse> {
        Out {
            out: &self.out,
            progress: &self.progress,
        }
    }
}

impl Deliver<Item> for Gathered {
    fn deliver(&mut self, item: Item, result: Result<solver_core::Report, PoolError>) {
        let (answer, solving) = match result {
            Ok(solution) => (
                response(item.id, item.index, &solution),
                solution.stats.elapsed,
            ),
            // `None`: the stream is gone; nobody waits for this answer.
            Err(err) => match err.into_request_error() {
                Some(err) => (invalid(item.id, item.index, &err), Duration::ZERO),
                None => return,
            },
        };
        self.push((answer, item.hold), solving);
    }

    fn started(&mut self) {
        if !std::mem::replace(&mut self.joined, true) {
            self.carry.join();
        }
    }

    fn flush(&mut self) {
        if self.joined {
            self.leave();
        } else {
            self.hand(true);
        }
    }

    fn went_long(&mut self, _item: &mut Item) {
        self.leave();
    }
}

impl Drop for Gathered {
    fn drop(&mut self) {
        self.flush();
    }
}

/// A puzzle of the stream on its way through a solver thread.
struct Item {
    job: Job,
    id: String,
    index: u64,
    hold: Hold,
}

impl Work for Item {
    fn job(&mut self) -> Option<&mut Job> {
        Some(&mut self.job)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::status::RequestError;
    use solver_core::{Grid, Options, Shape};

    fn gathered(
        carry: &Arc<Carry<pb::SolveResponse>>,
        out: &Outbox<pb::SolveResponse>,
    ) -> Gathered {
        Gathered {
            out: out.clone(),
            progress: Arc::new(AtomicU64::new(0)),
            carry: carry.clone(),
            answers: Vec::new(),
            waited: Duration::ZERO,
            joined: false,
        }
    }

    fn answer(index: u64) -> Answer {
        let response = pb::SolveResponse {
            index,
            ..Default::default()
        };
        (response, Hold::nothing())
    }

    fn sent(
        rx: &mut tokio::sync::mpsc::Receiver<super::super::answers::Group<pb::SolveResponse>>,
    ) -> Vec<Vec<u64>> {
        std::iter::from_fn(|| rx.try_recv().ok())
            .map(|send| send.answers.into_iter().map(|(a, _)| a.index).collect())
            .collect()
    }

    #[test]
    fn the_longest_reasons_a_request_is_refused_fit_the_room_counted_for_it() {
        use solver_core::GridError;
        let big = usize::MAX;
        let shape = Shape::new(5, 7).expect("a shape");
        let reasons = [
            RequestError::Grid(GridError::CellCount { found: big }),
            RequestError::Grid(GridError::Shape {
                box_rows: big,
                box_cols: big,
            }),
            RequestError::Grid(GridError::CellCountForShape {
                found: big,
                expected: big,
                shape,
            }),
            RequestError::IdTooLong { len: big, max: big },
            RequestError::UnknownAlgorithm(i32::MIN),
            RequestError::ShapeMismatch {
                grid: shape,
                puzzle: shape,
            },
            RequestError::TooLarge {
                side: big,
                max: big,
            },
        ];
        let room = super::super::HOLD_OVERHEAD;
        for reason in reasons {
            let answer = crate::solving::invalid(String::new(), u64::MAX, &reason);
            let error = answer.error.as_ref().expect("the reason");
            let takes = std::mem::size_of::<pb::SolveResponse>() + error.message.capacity();
            // The rest of the room: the allocator's rounding and the answer's channel slot.
            assert!(takes + 64 <= room, "{takes} bytes: {}", error.message);
        }
    }

    #[test]
    fn answers_wait_only_for_tasks_a_solver_thread_is_working_on() {
        let (tx, mut rx) = super::super::answers::outbox(16);
        let carry = Arc::default();
        let (mut first, mut second) = (gathered(&carry, &tx), gathered(&carry, &tx));
        // The second task is still queued (behind other clients, say): the first's answer
        // does not wait for it.
        first.started();
        first.push(answer(0), Duration::ZERO);
        first.flush();
        assert_eq!(sent(&mut rx), [vec![0]]);
        // Both being worked on: the first to stop leaves its answer for the other's.
        first.started();
        second.started();
        first.push(answer(1), Duration::ZERO);
        first.flush();
        assert!(sent(&mut rx).is_empty(), "the second task is running");
        second.push(answer(2), Duration::ZERO);
        second.flush();
        assert_eq!(sent(&mut rx), [vec![1, 2]]);
        // A task whose puzzle went to the long lane is not waited for, and its later answers
        // go at once.
        first.started();
        second.started();
        Gathered::leave(&mut second);
        first.push(answer(3), Duration::ZERO);
        first.flush();
        assert_eq!(sent(&mut rx), [vec![3]]);
        second.push(answer(4), Duration::ZERO);
        second.flush();
        assert_eq!(sent(&mut rx), [vec![4]]);
        drop((first, second));
        assert!(sent(&mut rx).is_empty());
    }

    #[test]
    fn a_request_counts_what_its_answer_holds_in_memory() {
        for shape in [
            Shape::CLASSIC,
            Shape::new(4, 4).unwrap(),
            Shape::new(5, 5).unwrap(),
        ] {
            let grid = Grid::empty(shape);
            let request = pb::SolveRequest {
                puzzle: Some(sudoku_proto::grid_to_pb(&grid)),
                ..Default::default()
            };
            let report = solver_core::solve(&grid, &Options::default()).expect("solves");
            let answer = response(String::new(), 0, &report);
            let solution = answer.solution.as_ref().expect("a solution");
            let answer_heap = solution.cells.capacity() * size_of::<u32>();
            // The request itself, the answer's encoded size and its cells in memory.
            let needed = request.encoded_len() + answer.encoded_len() + answer_heap;
            assert!(
                request.held_bytes(1) >= needed,
                "{shape:?}: {} < {needed}",
                request.held_bytes(1)
            );
        }
    }
}
