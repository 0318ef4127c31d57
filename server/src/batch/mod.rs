//! Batch streams (BatchSolve, BatchSolvePacked, BatchRate): one task per stream reads messages
//! and hands their puzzles to the solver threads within the stream's window and share; answers
//! go out in completion order, and a message that cannot be read ends the stream once every
//! puzzle before it is answered. What differs between the RPCs is [`Batched`].

mod answer_pieces;
mod answers;
mod coalesce;
mod packed;
mod rate;
mod single;

use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use answers::{Inbox, Outbox};
use futures::FutureExt;
use prost::Message;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot};
use tonic::{Status, Streaming};

use crate::Shared;
use crate::admission::streams::{self, StreamRoom, Why};
use crate::scheduling::lanes::Tenant;
use crate::scheduling::pool::{Deliver, PoolError, Work};
use crate::solving::Limits;
use crate::telemetry;

pub(crate) use answers::Answers;

/// Bytes counted for a one-puzzle message beyond twice its encoded size: the job, or the
/// error an invalid one is answered with (up to about 300 bytes, for a wrong number of
/// cells); the response's fixed fields; allocator slack.
const HOLD_OVERHEAD: usize = 512;

/// A message type a batch stream reads: how many puzzles it carries and how they are solved.
pub(crate) trait Batched: Message + Default + Send + 'static {
    /// The message the stream answers with.
    type Answer: Send + 'static;
    /// Puzzles in this message, each taking a slot of the window; an error (a message that
    /// cannot be split into puzzles) ends the stream once what came before is answered. By
    /// default one: a message is a puzzle.
    fn puzzles(&self, _limits: &Limits) -> Result<usize, Status> {
        Ok(1)
    }
    /// Bytes the message, its puzzles' work and its answer hold until the answer is sent:
    /// what it costs the stream's share. By default about twice its size (a one-puzzle
    /// answer is about as large as its request) and a job's worth.
    fn held_bytes(&self, _puzzles: usize) -> usize {
        2 * self.encoded_len() + HOLD_OVERHEAD
    }
    /// Copies out of tonic's receive buffer any bytes the message still borrows from it, so
    /// that what it holds is what [`Batched::held_bytes`] counts. Called as the message goes
    /// in flight: until then a view costs nothing beyond tonic's buffer, which the stream's
    /// room counts. By default nothing: decoded vectors and strings are copies already.
    fn own_bytes(&mut self) {}
    /// The field that holds a message's puzzles, for the error of one holding too many.
    fn puzzles_field(&self) -> &'static str {
        "puzzles"
    }
    /// Checks a group of messages read together and hands their puzzles to the solver threads.
    fn submit(group: Vec<Read<Self>>, to: &Reader<Self>);
    /// Why the stream ends when message `messages` (0-based), holding puzzle `puzzles` on,
    /// cannot be read; by default, for messages of one puzzle.
    fn broken(messages: u64, _puzzles: u64, why: &str) -> String {
        format!(
            "request {messages} of the stream could not be read: {why}; the {messages} \
             requests before it were answered"
        )
    }
}

/// A message read from a stream, with the stream index of its first puzzle and what it holds.
pub(crate) struct Read<M> {
    pub(crate) message: M,
    pub(crate) first: u64,
    pub(crate) hold: Hold,
}

/// A task of a stream's on the solver threads, queued or running, until dropped. A stream
/// with one is waiting on the server, not on its client, so it is never closed as idle: with
/// a long lane full of other clients' slow puzzles, a puzzle may wait longer than
/// `--idle-timeout-ms` for its turn. Dropping it counts as progress, as the answers it made do.
pub(crate) struct InPool {
    count: Arc<AtomicUsize>,
    progress: Arc<AtomicU64>,
}

impl Drop for InPool {
    fn drop(&mut self) {
        self.progress.fetch_add(1, Ordering::Relaxed);
        // Release: whoever sees the count fall sees the progress too.
        self.count.fetch_sub(1, Ordering::Release);
    }
}

/// A [`Deliver`] counted in its stream's work in the pool, in a span of its own. Fields drop
/// in order: the inner one first, sending on its last answers, then the count, then the span.
struct Tracked<D> {
    inner: D,
    _in_pool: InPool,
    _span: tracing::Span,
}

impl<J, D: Deliver<J>> Deliver<J> for Tracked<D> {
    fn deliver(&mut self, job: J, result: Result<solver_core::Report, PoolError>) {
        self.inner.deliver(job, result);
    }

    fn refused(&mut self, work: J) {
        self.inner.refused(work);
    }

    fn started(&mut self) {
        self.inner.started();
    }

    fn flush(&mut self) {
        self.inner.flush();
    }

    fn went_long(&mut self, job: &mut J) {
        self.inner.went_long(job);
    }
}

/// What a puzzle holds from when it is read until tonic takes its answer: its window slot
/// and its bytes of the stream's share.
pub(crate) struct Hold {
    _slot: OwnedSemaphorePermit,
    _stream_bytes: OwnedSemaphorePermit,
}

impl Hold {
    /// A hold of nothing, for tests of what carries answers.
    #[cfg(test)]
    pub(crate) fn nothing() -> Hold {
        let none = || {
            Arc::new(Semaphore::new(0))
                .try_acquire_many_owned(0)
                .expect("no permits")
        };
        Hold {
            _slot: none(),
            _stream_bytes: none(),
        }
    }

    /// The share of `part` of its `of` puzzles, slots and bytes alike, taken from this hold:
    /// what puzzles answered apart from their message keep while the rest goes.
    fn split_share(&mut self, part: usize, of: usize) -> Hold {
        Hold {
            _slot: share_of(&mut self._slot, part, of),
            _stream_bytes: share_of(&mut self._stream_bytes, part, of),
        }
    }

    /// The window slots of `part` of its `of` puzzles, taken from this hold. Its bytes stay:
    /// the pieces of an answer share one buffer of solutions until the last has gone.
    fn split_slots(&mut self, part: usize, of: usize) -> Hold {
        Hold {
            _slot: share_of(&mut self._slot, part, of),
            _stream_bytes: share_of(&mut self._stream_bytes, 0, 1),
        }
    }
}

/// `part` of `of` shares of `permit`'s permits, taken from it.
fn share_of(permit: &mut OwnedSemaphorePermit, part: usize, of: usize) -> OwnedSemaphorePermit {
    let all = permit.num_permits();
    let n = all as u128 * part as u128 / of.max(1) as u128;
    let n = usize::try_from(n).unwrap_or(0).min(all);
    permit.split(n).expect("at most what it holds")
}

/// Who is calling: the stream's deadline, whose turn its puzzles take on the solver threads,
/// and its room, which the door grows at each header.
pub(crate) struct Caller {
    pub(crate) deadline: Option<Instant>,
    pub(crate) tenant: Tenant,
    pub(crate) stream: Arc<StreamRoom>,
}

/// Starts serving one stream and returns its response side.
pub(crate) fn spawn<M: Batched>(
    shared: Arc<Shared>,
    inbound: Streaming<M>,
    caller: Caller,
) -> Answers<M::Answer> {
    let (out_tx, out_rx) = answers::outbox(shared.batch_window);
    let (end_tx, end_rx) = oneshot::channel();
    let inbox = Arc::new(Mutex::new(Inbox::new(out_rx)));
    let progress = Arc::new(AtomicU64::new(0));
    let in_pool = Arc::new(AtomicUsize::new(0));
    let backlog: Weak<dyn streams::Backlog> = Arc::downgrade(&inbox) as _;
    caller.stream.attach(streams::Work {
        in_pool: in_pool.clone(),
        backlog,
    });
    let reader = Reader {
        window: Arc::new(Semaphore::new(shared.batch_window)),
        stream_bytes: Arc::new(Semaphore::new(shared.stream_bytes)),
        cancel: Arc::new(AtomicBool::new(false)),
        progress: progress.clone(),
        in_pool,
        out: out_tx,
        carry: Arc::default(),
        answers: Arc::downgrade(&inbox),
        index: 0,
        messages: 0,
        caller,
        shared,
    };
    // In the call's span: the stream's logs carry its trace.
    let task = async move {
        if let Some(status) = reader.run(inbound).await {
            let _ = end_tx.send(status);
        }
    };
    tokio::spawn(tracing::Instrument::in_current_span(task));
    Answers {
        inbox,
        end: Some(end_rx),
        progress,
    }
}

/// Why a stream stopped reading.
enum End {
    /// The client half-closed: every request is in.
    Done,
    /// The client reset the stream or closed the connection.
    ClientLeft,
    /// A message could not be read; the stream ends with this status once the requests
    /// before it are answered.
    Broken(Status),
    /// Nothing read, solved or taken for the idle period.
    Stalled(Status),
}

/// The reading side of one stream, and the stream state its puzzles need.
pub(crate) struct Reader<M: Batched> {
    shared: Arc<Shared>,
    window: Arc<Semaphore>,
    stream_bytes: Arc<Semaphore>,
    /// Raised when the client leaves: queued puzzles are skipped, running ones stop.
    cancel: Arc<AtomicBool>,
    /// Bumped for every request read, answer made and answer taken: a stream that does not
    /// move for the idle period is closed.
    progress: Arc<AtomicU64>,
    /// The stream's tasks on the solver threads: while there are any, it is not idle.
    in_pool: Arc<AtomicUsize>,
    out: Outbox<M::Answer>,
    /// Answers the stream's tasks leave at their end, sent on together (see [`coalesce`]).
    carry: Arc<coalesce::Carry<M::Answer>>,
    /// Weak, so that the client dropping its side still closes the channel.
    answers: Weak<Mutex<Inbox<M::Answer>>>,
    /// Stream index of the next puzzle, and messages read.
    index: u64,
    messages: u64,
    caller: Caller,
}

impl<M: Batched> Reader<M> {
    /// Hands `jobs` to the short lane's solver threads for the caller, counted as the
    /// stream's work in the pool until `each` has been given every result.
    pub(crate) fn solve<J: Work>(&self, jobs: Vec<J>, each: impl Deliver<J>) {
        // One span for the task, not one a puzzle: a packed stream's tasks hold thousands.
        let span = telemetry::work_span!("solve");
        span.record("sudoku.puzzles", jobs.len());
        let each = Tracked {
            inner: each,
            _in_pool: self.in_pool(),
            _span: span,
        };
        self.shared.pool.submit(self.caller.tenant, jobs, each);
    }

    /// Counts a task of the stream's as in the pool until the guard is dropped.
    pub(crate) fn in_pool(&self) -> InPool {
        self.in_pool.fetch_add(1, Ordering::Relaxed);
        InPool {
            count: self.in_pool.clone(),
            progress: self.progress.clone(),
        }
    }

    /// Sends answers that need no solving (invalid items) straight out.
    pub(crate) fn send_now(&self, answers: Vec<(M::Answer, Hold)>) {
        let out = coalesce::Out {
            out: &self.out,
            progress: &self.progress,
        };
        out.send(answers);
    }

    /// Reads the stream to its end, then waits until every answer has gone out; the status
    /// the stream ends with, if not OK.
    async fn run(mut self, mut inbound: Streaming<M>) -> Option<Status> {
        let Err(end) = self.read_all(&mut inbound).await;
        // Nothing more is read: the body, and the room in the receive budget its last
        // message holds, go now, not once the answers owed have been taken.
        drop(inbound);
        // A broken or finished stream still owes the answers of what it read.
        let end = match end {
            End::Done | End::Broken(_) => {
                let window = self.window.clone();
                let all = window.acquire_many(self.shared.batch_window as u32);
                // Unless it stops while its client takes them.
                self.watch_unless(all, || false).await.err().unwrap_or(end)
            }
            stopped => stopped,
        };
        self.caller.stream.release();
        match end {
            End::Done => None,
            End::Broken(status) => Some(status),
            End::ClientLeft => {
                self.cancel.store(true, Ordering::Relaxed);
                None
            }
            End::Stalled(status) => {
                self.cancel.store(true, Ordering::Relaxed);
                // The answers nobody is taking go, freeing what their puzzles hold.
                if let Some(answers) = self.answers.upgrade()
                    && let Ok(mut inbox) = answers.lock()
                {
                    inbox.discard();
                }
                Some(status)
            }
        }
    }

    /// Reads and submits messages until the stream ends, and why.
    async fn read_all(&mut self, inbound: &mut Streaming<M>) -> Result<Infallible, End> {
        let mut waiting: Option<(M, usize)> = None;
        loop {
            let (first, puzzles) = match waiting.take() {
                Some(read) => read,
                None => self.count(self.next_message(inbound).await?)?,
            };
            let hold = match self.try_hold(&first, puzzles) {
                Some(hold) => hold,
                None => (self.hold(&first, puzzles).await?).ok_or(End::ClientLeft)?,
            };
            let mut group = vec![self.read(first, puzzles, hold)];
            // Take every message already received, as far as the window and share allow.
            let end = loop {
                let Some(message) = inbound.message().now_or_never() else {
                    break None;
                };
                let (message, puzzles) = match self.count(message) {
                    Ok(read) => read,
                    Err(end) => break Some(end),
                };
                match self.try_hold(&message, puzzles) {
                    Some(hold) => group.push(self.read(message, puzzles, hold)),
                    None => {
                        waiting = Some((message, puzzles));
                        break None;
                    }
                }
            };
            self.progress
                .fetch_add(group.len() as u64, Ordering::Relaxed);
            M::submit(group, self);
            if let Some(end) = end {
                return Err(end);
            }
        }
    }

    /// A message read with its puzzle count, or the stream's end: the client's, or one the
    /// message breaks: it cannot be read or split into puzzles, or it holds more puzzles or
    /// bytes than the stream may have in flight (OUT_OF_RANGE, as a message larger than its
    /// method takes; a message of one puzzle, which cannot be smaller, goes alone).
    fn count(&self, read: Result<Option<M>, Status>) -> Result<(M, usize), End> {
        let message = read
            .map_err(|status| self.broken(status))?
            .ok_or(End::Done)?;
        let puzzles = (message.puzzles(&self.shared.limits)).map_err(|s| self.broken(s))?;
        let (window, share) = (self.shared.batch_window, self.shared.stream_bytes);
        let held = message.held_bytes(puzzles);
        if puzzles > 1 && (puzzles > window || held > share) {
            // Fewer than were sent, and held as at most the share: a message's fixed bytes
            // weigh less than a puzzle's.
            let fits = (share as u128 * puzzles as u128 / held as u128).saturating_sub(1);
            let fits = usize::try_from(fits).unwrap_or(0).clamp(1, window);
            return Err(self.broken(crate::status::message_too_large(
                format!(
                    "{}: {puzzles} puzzles holding {held} bytes in one message; a stream takes \
                     at most {window} puzzles and {share} bytes in flight (--memory-budget): \
                     send them in smaller messages",
                    message.puzzles_field()
                ),
                fits,
            )));
        }
        Ok((message, puzzles))
    }

    /// Numbers a message's puzzles in the stream; it goes in flight as a copy (views would
    /// keep tonic's buffer as it reads the next).
    fn read(&mut self, mut message: M, puzzles: usize, hold: Hold) -> Read<M> {
        let first = self.index;
        self.index += puzzles as u64;
        self.messages += 1;
        message.own_bytes();
        Read {
            message,
            first,
            hold,
        }
    }

    /// Window slots (one a puzzle: a message larger than the window is refused, see
    /// [`Reader::count`]) and bytes of the share (see [`Batched::held_bytes`]) a message
    /// takes. A one-puzzle request larger than the share takes all of it, so it still goes.
    fn cost(&self, request: &M, puzzles: usize) -> (u32, u32) {
        let bytes = request.held_bytes(puzzles).min(self.shared.stream_bytes);
        let slots = puzzles.clamp(1, self.shared.batch_window);
        let permits = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        (permits(slots), permits(bytes))
    }

    /// Waits for the message's slots and bytes (`Ok(None)` only if they were closed, which
    /// never happens): waiting for its client to take answers.
    async fn hold(&self, request: &M, puzzles: usize) -> Result<Option<Hold>, End> {
        let (slots, bytes) = self.cost(request, puzzles);
        let (window, share) = (self.window.clone(), self.stream_bytes.clone());
        let own = async {
            Some(Hold {
                _slot: window.acquire_many_owned(slots).await.ok()?,
                _stream_bytes: share.acquire_many_owned(bytes).await.ok()?,
            })
        };
        self.watch_unless(own, || false).await
    }

    /// A hold if one is free now.
    fn try_hold(&self, request: &M, puzzles: usize) -> Option<Hold> {
        let (slots, bytes) = self.cost(request, puzzles);
        let (window, share) = (self.window.clone(), self.stream_bytes.clone());
        Some(Hold {
            _slot: window.try_acquire_many_owned(slots).ok()?,
            _stream_bytes: share.try_acquire_many_owned(bytes).ok()?,
        })
    }

    /// The client's next message, as [`Reader::watch_unless`] waits; meanwhile the stream counts as
    /// idle, to be closed if another stream needs the room it holds (see [`streams`]).
    async fn next_message(
        &self,
        inbound: &mut Streaming<M>,
    ) -> Result<Result<Option<M>, Status>, End> {
        // A message waiting at the door for room other calls hold is not the client's doing.
        let stream = &self.caller.stream;
        (self.watch_unless(inbound.message(), || stream.at_door())).await
    }

    /// Runs `work`, which waits for the client (its next message, or to take answers), until
    /// it ends, the client leaves, the stream is closed for room (see [`streams`]: meanwhile
    /// the stream may be), or it stalls: it is not stalled while `waiting_on_others` says so,
    /// nor while it has work on the solver threads.
    async fn watch_unless<T>(
        &self,
        work: impl Future<Output = T>,
        waiting_on_others: impl Fn() -> bool,
    ) -> Result<T, End> {
        tokio::pin!(work);
        let stream = &self.caller.stream;
        stream.waiting_for_client(true);
        stream.forget_asks();
        let idle = self.shared.stream_idle.unwrap_or(Duration::MAX);
        let mut seen = self.progress.load(Ordering::Relaxed);
        let watched = loop {
            tokio::select! {
                biased;
                () = self.out.closed() => break Err(End::ClientLeft),
                value = &mut work => break Ok(value),
                () = stream.closed() => {
                    let idle = self.shared.admission.streams.unused_before_closed;
                    if let Some(why) = stream.close_for(idle) {
                        break Err(End::Stalled(crate::status::stream_closed(self.closed_for_room(why))));
                    }
                }
                () = tokio::time::sleep(idle), if idle != Duration::MAX => {
                    // The count first: a task leaving the pool adds to the progress before
                    // it leaves the count (see `InPool`), so a stream is never caught between.
                    let in_pool = self.in_pool.load(Ordering::Acquire) > 0;
                    let now = self.progress.load(Ordering::Relaxed);
                    if now == seen && !in_pool && !waiting_on_others() {
                        break Err(End::Stalled(crate::status::stream_closed(format!(
                            "stream closed: nothing read, solved or taken for {} ms \
                             (--idle-timeout-ms); open a new stream",
                            idle.as_millis()
                        ))));
                    }
                    seen = now;
                }
            }
        };
        stream.waiting_for_client(false);
        watched
    }

    /// Why the stream was closed for another's room, for its client.
    fn closed_for_room(&self, why: Why) -> String {
        let room = &self.shared.admission.streams;
        let idle = room.unused_before_closed.as_millis();
        match why {
            Why::Unused => format!(
                "stream closed: its buffers kept bytes another stream needed, and it had not \
                 used them for a while (--memory-budget, {} bytes for all streams); open a new \
                 stream",
                room.size
            ),
            Why::Slow => format!(
                "stream closed: its client had left answers untaken for over {idle} ms while \
                 other streams waited for the room they hold (--memory-budget, {} bytes \
                 for all streams); take answers as they come, or open a new stream",
                room.size
            ),
        }
    }

    /// The status a stream ends with when its next message cannot be read.
    fn broken(&self, status: Status) -> End {
        tracing::debug!(%status, index = self.index, "batch stream broken by the client");
        // The details (a BadRequest naming the field) stay with the new message.
        End::Broken(Status::with_details(
            status.code(),
            M::broken(self.messages, self.index, status.message()),
            bytes::Bytes::copy_from_slice(status.details()),
        ))
    }
}
