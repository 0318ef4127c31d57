//! BatchSolve: one task per stream reads puzzles, hands them to the solver threads with at
//! most `batch_window` in flight, and forwards answers in completion order.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

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
    // Solver threads send answers here; at most `batch_window` are ever queued.
    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<Answer>();
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
            Some((answer, answer_slot)) = done_rx.recv() => {
                pending -= 1;
                if out.send(Ok(answer)).await.is_err() {
                    break Code::Cancelled;
                }
                drop(answer_slot);
            }
            permit = window.clone().acquire_owned(), if reading && slot.is_none() => {
                // The semaphore is never closed.
                slot = permit.ok();
            }
            message = inbound.message(), if reading && slot.is_some() => match message {
                Ok(Some(request)) => {
                    let Some(taken) = slot.take() else { continue };
                    submit(shared, request, index, deadline, &cancel, taken, done_tx.clone());
                    index += 1;
                    pending += 1;
                }
                Ok(None) => reading = false,
                Err(status) => {
                    tracing::debug!(%status, "batch stream broken by the client");
                    break Code::Cancelled;
                }
            },
        }
    };
    if code != Code::Ok {
        cancel.store(true, Ordering::Relaxed);
    }
    code
}

fn submit(
    shared: &Shared,
    request: pb::SolveRequest,
    index: u64,
    deadline: Option<Instant>,
    cancel: &Arc<AtomicBool>,
    slot: OwnedSemaphorePermit,
    done: mpsc::UnboundedSender<Answer>,
) {
    let mut job = match prepare(&request, &shared.limits, deadline) {
        Ok(job) => job,
        Err(err) => {
            let _ = done.send((invalid(request.id, index, &err), slot));
            return;
        }
    };
    job.options.cancel = Some(cancel.clone());
    let id = request.id;
    shared.pool.submit(job.grid, job.options, move |result| {
        let answer = match result {
            Ok(solution) => response(id, index, &solution),
            Err(PoolError::Solve(err)) => invalid(id, index, &RequestError::from(err)),
            // The stream is gone; nobody waits for this answer.
            Err(PoolError::Abandoned) => return,
        };
        let _ = done.send((answer, slot));
    });
}
