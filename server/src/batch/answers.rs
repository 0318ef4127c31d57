//! A batch stream's answers on their way from the solver threads to tonic, in groups stamped
//! with when they were made: how long the oldest untaken one has waited tells a client that
//! cannot keep up (see [`crate::admission::streams`]).

use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Instant;

use tokio::sync::{mpsc, oneshot};
use tokio_stream::Stream;
use tonic::Status;

use super::Hold;
use crate::admission::streams::Backlog;

/// Answers made together, each with what its puzzle holds.
pub(crate) struct Group<A> {
    made: Instant,
    pub(crate) answers: Vec<(A, Hold)>,
}

/// Where a stream's answers go: as large as its window, each group at least one answer, so
/// it is never full (see [`Answers`]).
#[derive(Clone)]
pub(crate) struct Outbox<A>(mpsc::Sender<Group<A>>);

/// A stream's outbox for `size` groups, and the receiving end for its [`Answers`].
pub(crate) fn outbox<A>(size: usize) -> (Outbox<A>, mpsc::Receiver<Group<A>>) {
    let (tx, rx) = mpsc::channel(size);
    (Outbox(tx), rx)
}

impl<A> Outbox<A> {
    /// Sends `answers` on, made now; a closed outbox means nobody listens.
    pub(crate) fn send(&self, answers: Vec<(A, Hold)>) {
        let made = Instant::now();
        let _ = self.0.try_send(Group { made, answers });
    }

    /// Resolves when the response side goes.
    pub(crate) async fn closed(&self) {
        self.0.closed().await;
    }
}

/// Groups of answers on their way to the response side, and the group being sent, which the
/// reading task drops when the client stalls: tonic polls no more answers while the client
/// takes none, so a group's later pieces would hold their budget as long as the connection.
pub(crate) struct Inbox<T> {
    rx: mpsc::Receiver<Group<T>>,
    ready: std::vec::IntoIter<(T, Hold)>,
    /// When the group being sent was made.
    made: Instant,
}

impl<T> Inbox<T> {
    pub(crate) fn new(rx: mpsc::Receiver<Group<T>>) -> Inbox<T> {
        Inbox {
            rx,
            ready: Vec::new().into_iter(),
            made: Instant::now(),
        }
    }

    /// The next answer: the group being sent's, else the next group's.
    fn poll_answer(&mut self, cx: &mut Context<'_>) -> Poll<Option<(T, Hold)>> {
        loop {
            if let Some(answer) = self.ready.next() {
                return Poll::Ready(Some(answer));
            }
            match std::task::ready!(self.rx.poll_recv(cx)) {
                Some(group) => self.start(group),
                None => return Poll::Ready(None),
            }
        }
    }

    fn start(&mut self, group: Group<T>) {
        self.ready = group.answers.into_iter();
        self.made = group.made;
    }

    /// Drops every answer not yet taken, freeing what their puzzles hold.
    pub(crate) fn discard(&mut self) {
        self.rx.close();
        while self.rx.try_recv().is_ok() {}
        self.ready = Vec::new().into_iter();
    }
}

impl<T: Send> Backlog for Mutex<Inbox<T>> {
    fn oldest(&self) -> Option<Instant> {
        let mut inbox = self.lock().ok()?;
        if inbox.ready.len() == 0 {
            // The next group becomes the one being sent: what it holds is the same.
            let group = inbox.rx.try_recv().ok()?;
            inbox.start(group);
        }
        (inbox.ready.len() > 0).then_some(inbox.made)
    }
}

/// The response side of a stream. Taking an answer frees what its puzzle holds, so puzzles
/// read plus answers not yet sent stay within the window and the stream's share.
pub struct Answers<T> {
    /// Shared with the reading task, which empties it when the client stalls.
    pub(super) inbox: Arc<Mutex<Inbox<T>>>,
    /// How the stream ends once every answer is out: with this status, or OK if none comes.
    pub(super) end: Option<oneshot::Receiver<Status>>,
    /// Bumped for every answer taken.
    pub(super) progress: Arc<AtomicU64>,
}

impl<T> Answers<T> {
    /// After the last answer: the stream's status, if it has one.
    fn poll_end(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<T, Status>>> {
        let Some(end) = self.end.as_mut() else {
            return Poll::Ready(None);
        };
        let status = std::task::ready!(Pin::new(end).poll(cx));
        self.end = None;
        Poll::Ready(status.ok().map(Err))
    }
}

impl<T> Stream for Answers<T> {
    type Item = Result<T, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        // Uncontended but for a stall, and the budgets' looks (every 20 ms at most).
        let next = match self.inbox.lock() {
            Ok(mut inbox) => inbox.poll_answer(cx),
            Err(_) => Poll::Ready(None),
        };
        match next {
            Poll::Ready(Some((answer, _hold))) => {
                self.progress.fetch_add(1, Ordering::Relaxed);
                Poll::Ready(Some(Ok(answer)))
            }
            Poll::Ready(None) => self.poll_end(cx),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T> Unpin for Answers<T> {}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use tokio::sync::Semaphore;

    use super::*;

    /// A hold of one of `slots`.
    fn hold(slots: &Arc<Semaphore>) -> Hold {
        Hold {
            _slot: slots.clone().try_acquire_owned().expect("a slot"),
            ..Hold::nothing()
        }
    }

    #[test]
    fn discarding_drops_the_rest_of_the_group_being_sent() {
        let slots = Arc::new(Semaphore::new(3));
        let (tx, rx) = outbox(4);
        let mut inbox = Inbox::new(rx);
        tx.send(vec![(1, hold(&slots)), (2, hold(&slots))]);
        tx.send(vec![(3, hold(&slots))]);
        let mut cx = Context::from_waker(std::task::Waker::noop());
        let Poll::Ready(Some((first, _))) = inbox.poll_answer(&mut cx) else {
            panic!("the first answer");
        };
        assert_eq!(first, 1);
        // Taken: its slot is free; the second answer of its group and the next group wait.
        assert_eq!(slots.available_permits(), 1);
        // The client stalls: everything it has not taken goes, the group begun included.
        inbox.discard();
        assert_eq!(slots.available_permits(), 3);
        assert!(matches!(inbox.poll_answer(&mut cx), Poll::Ready(None)));
    }

    #[test]
    fn the_backlog_is_as_old_as_its_oldest_untaken_answer() {
        let (tx, rx) = outbox(4);
        let inbox = Mutex::new(Inbox::new(rx));
        assert_eq!(inbox.oldest(), None, "nothing made");
        tx.send(vec![(1, Hold::nothing()), (2, Hold::nothing())]);
        let first = inbox.oldest().expect("two answers wait");
        std::thread::sleep(std::time::Duration::from_millis(5));
        tx.send(vec![(3, Hold::nothing())]);
        let mut cx = Context::from_waker(std::task::Waker::noop());
        let mut take = || match inbox.lock().expect("unpoisoned").poll_answer(&mut cx) {
            Poll::Ready(Some((answer, _))) => answer,
            _ => panic!("an answer"),
        };
        // The first group's second answer is still the oldest; then the second group's.
        assert_eq!(take(), 1);
        assert_eq!(inbox.oldest(), Some(first));
        assert_eq!(take(), 2);
        let second = inbox.oldest().expect("one answer waits");
        assert!(second > first, "{second:?} after {first:?}");
        assert_eq!(take(), 3);
        assert_eq!(inbox.oldest(), None, "every answer taken");
    }
}
