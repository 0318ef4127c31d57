//! BatchSolve: one task per stream reads puzzles and hands them to the solver threads with at
//! most `batch_window` unanswered; the solver threads put answers straight on the response
//! stream, in completion order.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures::FutureExt;
use sudoku_proto::pb;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio_stream::Stream;
use tonic::{Code, Status, Streaming};

use crate::pool::PoolError;
use crate::respond::{Job, invalid, prepare, response};
use crate::service::Shared;
use crate::status::RequestError;

/// An answer and the window slot its puzzle holds until tonic takes the answer.
type Answer = (pb::SolveResponse, OwnedSemaphorePermit);

/// Answers a solver thread gathers before sending them on together: one wake-up of the
/// response side, and one socket write, for many answers. Measured on easy puzzles: 16 gave
/// 0.45 of in-process throughput, 256 gives 0.51.
const GATHER: usize = 256;
/// The longest a gathered answer waits for others: hard puzzles take milliseconds each.
const GATHER_WAIT: Duration = Duration::from_millis(1);

/// The response side of a stream. Taking an answer frees its puzzle's window slot, so
/// puzzles read plus answers not yet sent never exceed the window: memory stays flat however
/// fast the client writes or slowly it reads, and the channel (as large as the window, each
/// message at least one answer) never turns a solver thread away.
pub struct Answers {
    rx: mpsc::Receiver<Vec<Answer>>,
    ready: std::vec::IntoIter<Answer>,
}

impl Stream for Answers {
    type Item = Result<pb::SolveResponse, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            if let Some((answer, _slot)) = self.ready.next() {
                return Poll::Ready(Some(Ok(answer)));
            }
            match self.rx.poll_recv(cx) {
                Poll::Ready(Some(answers)) => self.ready = answers.into_iter(),
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

/// Answers from one solver thread, sent on in groups of [`GATHER`], once they have waited
/// [`GATHER_WAIT`] of solving, and when dropped at the end of the thread's share of puzzles.
struct Gathered {
    out: mpsc::Sender<Vec<Answer>>,
    answers: Vec<Answer>,
    /// Solver time since the first gathered answer: the solver's own clock, no extra reads.
    waited: Duration,
}

impl Gathered {
    fn push(&mut self, answer: Answer, solving: Duration) {
        if !self.answers.is_empty() {
            self.waited += solving;
        }
        self.answers.push(answer);
        if self.answers.len() >= GATHER || self.waited >= GATHER_WAIT {
            self.flush();
        }
    }

    fn flush(&mut self) {
        self.waited = Duration::ZERO;
        // The next group gets the same room, so it grows without reallocating.
        let next = Vec::with_capacity(self.answers.capacity());
        self.send(next);
    }

    fn send(&mut self, next: Vec<Answer>) {
        let full = std::mem::replace(&mut self.answers, next);
        if !full.is_empty() {
            // A full channel cannot happen (see `Answers`); a closed one means nobody listens.
            let _ = self.out.try_send(full);
        }
    }
}

impl Drop for Gathered {
    fn drop(&mut self) {
        self.send(Vec::new());
    }
}

/// A puzzle of the stream on its way through a solver thread.
struct Item {
    job: Job,
    id: String,
    index: u64,
    slot: OwnedSemaphorePermit,
}

impl AsRef<Job> for Item {
    fn as_ref(&self) -> &Job {
        &self.job
    }
}

/// Starts serving one stream and returns its response side.
pub(crate) fn spawn(
    shared: Arc<Shared>,
    inbound: Streaming<pb::SolveRequest>,
    deadline: Option<Instant>,
    rpc_slot: OwnedSemaphorePermit,
) -> Answers {
    let (out_tx, out_rx) = mpsc::channel(shared.batch_window);
    tokio::spawn(async move {
        let code = run(&shared, inbound, deadline, out_tx).await;
        shared.metrics.request("BatchSolve", code);
        drop(rpc_slot);
    });
    Answers {
        rx: out_rx,
        ready: Vec::new().into_iter(),
    }
}

async fn run(
    shared: &Shared,
    mut inbound: Streaming<pb::SolveRequest>,
    deadline: Option<Instant>,
    out: mpsc::Sender<Vec<Answer>>,
) -> Code {
    let window_size = shared.batch_window;
    let window = Arc::new(Semaphore::new(window_size));
    // Raised when the client leaves: queued puzzles are skipped, running ones stop.
    let cancel = Arc::new(AtomicBool::new(false));
    let mut slot: Option<OwnedSemaphorePermit> = None;
    let (mut index, mut reading) = (0u64, true);
    let code = loop {
        tokio::select! {
            biased;
            () = out.closed() => break Code::Cancelled,
            // Every slot back means every answer has gone to the client.
            all = window.acquire_many(window_size as u32), if !reading => {
                drop(all);
                break Code::Ok;
            }
            permit = window.clone().acquire_owned(), if reading && slot.is_none() => {
                // The semaphore is never closed.
                slot = permit.ok();
            }
            message = inbound.message(), if reading && slot.is_some() => {
                let mut group = Vec::new();
                let mut next = message;
                loop {
                    match next {
                        Ok(Some(request)) => {
                            let Some(taken) = slot.take() else { break };
                            group.push((request, index, taken));
                            index += 1;
                        }
                        Ok(None) => {
                            reading = false;
                            break;
                        }
                        Err(status) => {
                            tracing::debug!(%status, "batch stream broken by the client");
                            reading = false;
                            cancel.store(true, Ordering::Relaxed);
                            break;
                        }
                    }
                    // Take every request already received, as far as the window allows.
                    slot = window.clone().try_acquire_owned().ok();
                    if slot.is_none() {
                        break;
                    }
                    match inbound.message().now_or_never() {
                        Some(message) => next = message,
                        None => break,
                    }
                }
                if !reading {
                    // Hand the spare slot back, or waiting for all of them never ends.
                    slot = None;
                }
                submit(shared, group, deadline, &cancel, &out);
                if cancel.load(Ordering::Relaxed) {
                    break Code::Cancelled;
                }
            }
        }
    };
    if code != Code::Ok {
        cancel.store(true, Ordering::Relaxed);
    }
    code
}

/// Checks a group of requests and spreads the valid ones over the solver threads.
fn submit(
    shared: &Shared,
    group: Vec<(pb::SolveRequest, u64, OwnedSemaphorePermit)>,
    deadline: Option<Instant>,
    cancel: &Arc<AtomicBool>,
    out: &mpsc::Sender<Vec<Answer>>,
) {
    let now = Instant::now();
    let mut items = Vec::with_capacity(group.len());
    let mut invalid_answers = Vec::new();
    for (request, index, slot) in group {
        match prepare(&request, &shared.limits, deadline, now) {
            Ok(mut job) => {
                job.options.cancel = Some(cancel.clone());
                items.push(Item {
                    job,
                    id: request.id,
                    index,
                    slot,
                });
            }
            Err(err) => invalid_answers.push((invalid(request.id, index, &err), slot)),
        }
    }
    if !invalid_answers.is_empty() {
        // A full channel cannot happen (see `Answers`); a closed one means nobody listens.
        let _ = out.try_send(invalid_answers);
    }
    // One job per solver thread keeps every core busy with one wake-up per thread.
    let per_thread = items.len().div_ceil(shared.pool.workers()).max(1);
    while !items.is_empty() {
        let rest = items.split_off(per_thread.min(items.len()));
        let chunk = std::mem::replace(&mut items, rest);
        let mut gathered = Gathered {
            out: out.clone(),
            answers: Vec::with_capacity(GATHER.min(chunk.len())),
            waited: Duration::ZERO,
        };
        shared.pool.submit(chunk, move |item, result| {
            let (answer, solving) = match result {
                Ok(solution) => (
                    response(item.id, item.index, &solution),
                    solution.stats.elapsed,
                ),
                Err(PoolError::Solve(err)) => (
                    invalid(item.id, item.index, &RequestError::from(err)),
                    Duration::ZERO,
                ),
                // The stream is gone; nobody waits for this answer.
                Err(PoolError::Abandoned) => return,
            };
            gathered.push((answer, item.slot), solving);
        });
    }
}
