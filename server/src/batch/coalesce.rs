//! Answers a stream's solver tasks hand on, sent out together across tasks.
//!
//! A client that keeps a window of one-puzzle messages in flight refills it as answers come,
//! so its messages are read a few at a time and each becomes a small task on the solver
//! threads. Sending each task's answers at its end would send a few answers at a time, each
//! send a wake-up of the async thread and a socket write. Answers a task leaves when a solver
//! thread stops working on it (at its end, or at the end of a time slice) wait here for the
//! stream's other tasks that solver threads are working on, and go out when there are none,
//! when enough have gathered, or when the oldest has waited long enough: looked at whenever
//! one of those tasks hands answers on or stops. A task waiting in the queue does not count (other
//! clients' work may be ahead of it), nor does one whose puzzle moved to the long lane (it may
//! run for seconds), so answers wait at most for a running task's next slice.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::Hold;
use super::answers::Outbox;

/// Answers sent on together at most: one wake-up of the response side, and one socket
/// write, for many answers.
pub(crate) const GATHER: usize = 256;
/// The longest a gathered answer waits for others while the stream's puzzles are solved.
pub(crate) const GATHER_WAIT: Duration = Duration::from_millis(1);

/// A stream's answers between its tasks' ends and the response side.
pub(crate) struct Carry<A> {
    state: Mutex<State<A>>,
    /// The longest an answer waits here: [`GATHER_WAIT`] but in tests.
    wait: Duration,
}

struct State<A> {
    answers: Vec<(A, Hold)>,
    /// When the oldest answer held here was handed on.
    since: Option<Instant>,
    /// Tasks that will still hand answers here.
    tasks: usize,
}

impl<A> Default for Carry<A> {
    fn default() -> Self {
        Carry::waiting(GATHER_WAIT)
    }
}

impl<A> Carry<A> {
    fn waiting(wait: Duration) -> Carry<A> {
        Carry {
            state: Mutex::new(State {
                answers: Vec::new(),
                since: None,
                tasks: 0,
            }),
            wait,
        }
    }

    /// Counts a task a solver thread works on, until it [`Carry::leave`]s.
    pub(crate) fn join(&self) {
        self.lock().tasks += 1;
    }

    /// Takes a task's answers; everything held goes out at once when `now` (the task has
    /// gathered enough itself), or when enough are held or the oldest waited long enough.
    pub(crate) fn hand(&self, answers: Vec<(A, Hold)>, now: bool, to: &Out<'_, A>) {
        self.settle(answers, to, |_| now);
    }

    /// A task's answers as a solver thread stops working on it: everything held goes out
    /// when no other task of the stream's is being worked on.
    pub(crate) fn leave(&self, answers: Vec<(A, Hold)>, to: &Out<'_, A>) {
        self.settle(answers, to, |state| {
            state.tasks = state.tasks.saturating_sub(1);
            state.tasks == 0
        });
    }

    /// Takes `answers` after `update`, and sends everything held when `update` says so or
    /// enough are held or the oldest waited long enough; the send is made after the lock
    /// is let go.
    fn settle(
        &self,
        answers: Vec<(A, Hold)>,
        to: &Out<'_, A>,
        update: impl FnOnce(&mut State<A>) -> bool,
    ) {
        let mut state = self.lock();
        let forced = update(&mut state);
        state.take(answers);
        let waited = state.since.is_some_and(|t| t.elapsed() >= self.wait);
        let ready = if forced || waited || state.answers.len() >= GATHER {
            state.since = None;
            std::mem::take(&mut state.answers)
        } else {
            Vec::new()
        };
        drop(state);
        to.send(ready);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State<A>> {
        // Every change leaves the state whole, so a panic elsewhere does not spoil it.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<A> State<A> {
    fn take(&mut self, answers: Vec<(A, Hold)>) {
        if answers.is_empty() {
            return;
        }
        if self.answers.is_empty() {
            self.since = Some(Instant::now());
            // The first task's answers are moved, not copied.
            self.answers = answers;
        } else {
            self.answers.extend(answers);
        }
    }
}

/// Where a stream's answers go out, and its progress counter.
pub(crate) struct Out<'a, A> {
    pub(crate) out: &'a Outbox<A>,
    pub(crate) progress: &'a AtomicU64,
}

impl<A> Out<'_, A> {
    /// Sends `answers` on, counted as progress; nothing when there are none.
    pub(crate) fn send(&self, answers: Vec<(A, Hold)>) {
        if !answers.is_empty() {
            self.progress
                .fetch_add(answers.len() as u64, Ordering::Relaxed);
            self.out.send(answers);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answers(range: std::ops::Range<u32>) -> Vec<(u32, Hold)> {
        range.map(|a| (a, Hold::nothing())).collect()
    }

    type Sent = tokio::sync::mpsc::Receiver<super::super::answers::Group<u32>>;

    /// A stream's outbox, what it sends to, and its progress counter.
    fn stream() -> (Outbox<u32>, Sent, AtomicU64) {
        let (tx, rx) = super::super::answers::outbox(16);
        (tx, rx, AtomicU64::new(0))
    }

    fn out<'a>(tx: &'a Outbox<u32>, progress: &'a AtomicU64) -> Out<'a, u32> {
        Out { out: tx, progress }
    }

    /// What has gone out: each send's answers.
    fn sent(rx: &mut Sent) -> Vec<Vec<u32>> {
        std::iter::from_fn(|| rx.try_recv().ok())
            .map(|send| send.answers.into_iter().map(|(a, _)| a).collect())
            .collect()
    }

    #[test]
    fn answers_wait_for_the_streams_last_task_and_go_out_together() {
        let (tx, mut rx, progress) = stream();
        let to = out(&tx, &progress);
        // Waits far longer than the test, so no pause of a busy machine makes answers due.
        let carry = Carry::waiting(Duration::from_secs(3600));
        for _ in 0..3 {
            carry.join();
        }
        carry.hand(answers(0..2), false, &to);
        carry.leave(answers(2..4), &to);
        carry.leave(Vec::new(), &to);
        assert!(
            sent(&mut rx).is_empty(),
            "a task of the stream's is still in the pool"
        );
        carry.leave(answers(4..5), &to);
        assert_eq!(sent(&mut rx), [vec![0, 1, 2, 3, 4]]);
        assert_eq!(progress.load(Ordering::Relaxed), 5);
    }

    #[test]
    fn a_task_that_gathered_enough_or_a_full_group_goes_out_at_once() {
        let (tx, mut rx, progress) = stream();
        let to = out(&tx, &progress);
        let carry = Carry::waiting(Duration::from_secs(3600));
        carry.join();
        carry.join();
        carry.hand(answers(0..1), false, &to);
        carry.hand(answers(1..2), true, &to);
        assert_eq!(sent(&mut rx), [vec![0, 1]], "the task's own group was due");
        let many = u32::try_from(GATHER).expect("small");
        carry.hand(answers(0..many), false, &to);
        assert_eq!(sent(&mut rx).concat().len(), GATHER, "a full group is due");
        carry.leave(Vec::new(), &to);
        carry.leave(Vec::new(), &to);
        assert!(sent(&mut rx).is_empty(), "nothing left to send");
    }

    #[test]
    fn answers_that_waited_long_enough_go_out() {
        let (tx, mut rx, progress) = stream();
        let to = out(&tx, &progress);
        let carry = Carry::waiting(Duration::from_millis(1));
        carry.join();
        carry.join();
        carry.hand(answers(7..8), false, &to);
        std::thread::sleep(Duration::from_millis(5));
        carry.leave(answers(8..9), &to);
        assert_eq!(sent(&mut rx), [vec![7, 8]], "the oldest waited long enough");
        carry.leave(Vec::new(), &to);
        assert!(sent(&mut rx).is_empty(), "nothing left to send");
    }
}
