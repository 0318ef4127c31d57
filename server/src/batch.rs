//! BatchSolve: one task per stream reads puzzles, hands them to the solver threads with at
//! most `batch_window` in flight, and forwards answers in completion order.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use futures::FutureExt;
use sudoku_proto::pb;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Code, Status, Streaming};

use crate::pool::PoolError;
use crate::respond::{invalid, prepare, response};
use crate::service::Shared;
use crate::status::RequestError;

type Answer = (pb::SolveResponse, OwnedSemaphorePermit);

/// Starts serving one stream and returns its response side.
pub(crate) fn spawn(
    shared: Arc<Shared>,
    inbound: Streaming<pb::SolveRequest>,
    deadline: Option<Instant>,
    rpc_slot: OwnedSemaphorePermit,
) -> ReceiverStream<Result<pb::SolveResponse, Status>> {
    let (out_tx, out_rx) = mpsc::channel(shared.batch_window);
    tokio::spawn(async move {
        let code = run(&shared, inbound, deadline, out_tx).await;
        shared.metrics.request("BatchSolve", code);
        drop(rpc_slot);
    });
    ReceiverStream::new(out_rx)
}

async fn run(
    shared: &Shared,
    mut inbound: Streaming<pb::SolveRequest>,
    deadline: Option<Instant>,
    out: mpsc::Sender<Result<pb::SolveResponse, Status>>,
) -> Code {
    // A slot per puzzle between reading it and handing its answer to the client: memory
    // stays flat however fast the client writes or slowly it reads.
    let window = Arc::new(Semaphore::new(shared.batch_window));
    // Solver threads send groups of answers here; at most `batch_window` answers are queued.
    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<Vec<Answer>>();
    // Raised when the client leaves: queued puzzles are skipped, running ones stop.
    let cancel = Arc::new(AtomicBool::new(false));
    let mut slot: Option<OwnedSemaphorePermit> = None;
    let (mut index, mut pending, mut reading) = (0u64, 0usize, true);
    let code = loop {
        if !reading && pending == 0 {
            break Code::Ok;
        }
        tokio::select! {
            biased;
            () = out.closed() => break Code::Cancelled,
            Some(answers) = done_rx.recv() => {
                pending -= answers.len();
                let mut gone = false;
                for (answer, answer_slot) in answers {
                    if out.send(Ok(answer)).await.is_err() {
                        gone = true;
                        break;
                    }
                    drop(answer_slot);
                }
                if gone {
                    break Code::Cancelled;
                }
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
                pending += group.len();
                submit(shared, group, deadline, &cancel, &done_tx);
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
    done: &mpsc::UnboundedSender<Vec<Answer>>,
) {
    let mut invalid_answers = Vec::new();
    let mut jobs = Vec::with_capacity(group.len());
    for (request, index, slot) in group {
        match prepare(&request, &shared.limits, deadline) {
            Ok(mut job) => {
                job.options.cancel = Some(cancel.clone());
                jobs.push((job, request.id, index, slot));
            }
            Err(err) => invalid_answers.push((invalid(request.id, index, &err), slot)),
        }
    }
    if !invalid_answers.is_empty() {
        let _ = done.send(invalid_answers);
    }
    // One job per solver thread keeps every core busy with one wake-up per thread.
    let per_thread = jobs.len().div_ceil(shared.pool.workers()).max(1);
    let mut jobs = jobs.into_iter().peekable();
    while jobs.peek().is_some() {
        let chunk: Vec<_> = jobs.by_ref().take(per_thread).collect();
        let mut meta = Vec::with_capacity(chunk.len());
        let work = chunk
            .into_iter()
            .map(|(job, id, index, slot)| {
                meta.push((id, index, slot));
                (job.grid, job.options)
            })
            .collect();
        let done = done.clone();
        shared.pool.submit(work, move |results| {
            let answers: Vec<Answer> = results
                .into_iter()
                .zip(meta)
                .filter_map(|(result, (id, index, slot))| {
                    let answer = match result {
                        Ok(solution) => response(id, index, &solution),
                        Err(PoolError::Solve(err)) => invalid(id, index, &RequestError::from(err)),
                        // The stream is gone; nobody waits for this answer.
                        Err(PoolError::Abandoned) => return None,
                    };
                    Some((answer, slot))
                })
                .collect();
            let _ = done.send(answers);
        });
    }
}
