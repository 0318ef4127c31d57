//! Sending chunks to servers: one worker per server, each with its own BatchSolvePacked
//! stream, all taking chunks from one queue. A worker whose server is lost puts its
//! unanswered chunks back at the head of the queue for the others, then tries to reconnect.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sudoku_proto::pb;
use tokio::sync::{Notify, mpsc};
use tokio_stream::wrappers::ReceiverStream;

use super::inflight::InFlight;
use super::pace::Pace;
use super::read::Chunk;
use crate::conn::{
    Connection, Server, is_server_lost, is_stream_closed, message_fits, status_error,
};

/// Attempts to reconnect to a lost server before leaving the job to the others.
const RECONNECTS: u32 = 3;

/// Streams the server may close in a row, each within [`QUICK_CLOSE`] and without answering
/// anything, before it counts as lost: a server that closed every stream at once had the CLI
/// open 215 in 3 s. The server closes a stream only after a second or more without use, so a
/// slow producer's streams, closed as idle one after another, are not counted.
const CLOSES_IN_A_ROW: u32 = 3;
const QUICK_CLOSE: Duration = Duration::from_secs(1);

/// Attempts at a busy server (RESOURCE_EXHAUSTED) before leaving the job to the others, and
/// the longest wait between two: about 11 s in all. Either count starts again once the
/// server answers.
const BUSY_TRIES: u32 = 6;
const MAX_BACKOFF: Duration = Duration::from_secs(5);
/// Times one chunk may be sent to a server that then failed it (not counting streams closed
/// to open another, or refused as busy): a rolling restart of a few servers takes a handful.
const MAX_SENDS: u32 = 8;

/// Where workers take chunks from: re-sent chunks first, then fresh ones.
pub struct Queue {
    retry: Mutex<VecDeque<Arc<Chunk>>>,
    fresh: tokio::sync::Mutex<mpsc::Receiver<Arc<Chunk>>>,
    /// Raised when a chunk is put back or the job is over.
    wake: Notify,
    done: AtomicBool,
    /// Workers still running.
    workers: AtomicUsize,
}

impl Queue {
    /// A queue over the reader's chunks, with no worker yet.
    pub fn new(fresh: mpsc::Receiver<Arc<Chunk>>) -> Queue {
        Queue {
            retry: Mutex::new(VecDeque::new()),
            fresh: tokio::sync::Mutex::new(fresh),
            wake: Notify::new(),
            done: AtomicBool::new(false),
            workers: AtomicUsize::new(0),
        }
    }

    /// Ends the job: every waiting worker closes its stream.
    pub fn finish(&self) {
        self.done.store(true, Ordering::Release);
        self.wake.notify_waiters();
    }

    /// Whether the job is over: every answer is in.
    pub fn is_done(&self) -> bool {
        self.done.load(Ordering::Acquire)
    }

    /// Workers still running; when none is left, the job cannot finish.
    pub fn workers(&self) -> usize {
        self.workers.load(Ordering::Acquire)
    }

    /// Counts `n` workers about to start, before any of them can stop.
    pub fn add_workers(&self, n: usize) {
        self.workers.fetch_add(n, Ordering::AcqRel);
    }

    /// Waits until [`finish`](Queue::finish) is called.
    pub async fn finished(&self) {
        loop {
            let woken = self.wake.notified();
            tokio::pin!(woken);
            woken.as_mut().enable();
            if self.done.load(Ordering::Acquire) {
                return;
            }
            woken.await;
        }
    }

    fn put_back(&self, chunks: impl IntoIterator<Item = Arc<Chunk>>) {
        let mut retry = self.retry.lock().unwrap_or_else(|e| e.into_inner());
        for chunk in chunks {
            retry.push_front(chunk);
        }
        drop(retry);
        self.wake.notify_waiters();
    }

    /// The next chunk to send, or `None` when the job is over.
    async fn next(&self) -> Option<Arc<Chunk>> {
        loop {
            // Registered before looking, so a wake between the look and the wait is not lost.
            let woken = self.wake.notified();
            tokio::pin!(woken);
            woken.as_mut().enable();
            if self.done.load(Ordering::Acquire) {
                return None;
            }
            if let Some(chunk) = self
                .retry
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .pop_front()
            {
                return Some(chunk);
            }
            let mut fresh = self.fresh.lock().await;
            tokio::select! {
                chunk = fresh.recv() => match chunk {
                    Some(chunk) => return Some(chunk),
                    // Input done: wait for re-sent chunks or the end.
                    None => { drop(fresh); woken.await; }
                },
                () = &mut woken => {}
            }
        }
    }
}

/// Every server of the job was lost (the reason is the last one's).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ServersLost(pub String);

/// A chunk and the server's answer to it.
pub type Answered = (Arc<Chunk>, pb::PackedAnswers);

/// Sends chunks to `server` until the job is over; when the server is lost, its unanswered
/// chunks go back to the queue and the worker reconnects, or gives up after a few tries.
pub async fn worker(
    conn: Arc<Connection>,
    server: Server,
    options: pb::SolveOptions,
    queue: Arc<Queue>,
    answers: mpsc::UnboundedSender<anyhow::Result<Answered>>,
) {
    let (mut failures, mut closes) = (0, 0);
    // Puzzles a message may carry, as the server said when it refused a larger one.
    let mut per_message = usize::MAX;
    loop {
        let opened = std::time::Instant::now();
        let lost = match stream(&conn, &server, options, &queue, &answers, per_message).await {
            Ok(()) => break,
            Err(Lost::Fatal(err)) => {
                let _ = answers.send(Err(err));
                break;
            }
            // Each refusal says fewer fit than were sent, so this ends.
            Err(Lost::TooLarge { fits, unanswered }) => {
                per_message = fits;
                queue.put_back(not_counted(unanswered));
                continue;
            }
            // The server closed the stream, not the connection: another opens at once.
            Err(Lost::Stream {
                unanswered,
                answered,
                reason,
            }) => {
                let quick = !answered && opened.elapsed() < QUICK_CLOSE;
                closes = if quick { closes + 1 } else { 0 };
                if closes < CLOSES_IN_A_ROW {
                    failures = 0;
                    queue.put_back(not_counted(unanswered));
                    continue;
                }
                let reason = format!(
                    "{reason}; {closes} streams closed in a row as soon as opened, none answered"
                );
                ServerLost {
                    reason,
                    unanswered,
                    busy: false,
                    answered: false,
                }
            }
            Err(Lost::Server {
                reason,
                unanswered,
                busy,
                answered,
            }) => ServerLost {
                reason,
                unanswered,
                busy,
                answered,
            },
        };
        // Every answer is in: nothing is lost with the server, and nothing is worth saying
        // after the closing line.
        if queue.is_done() {
            break;
        }
        let Some(backoff) = after_loss(&server, &queue, &answers, &mut failures, lost) else {
            return;
        };
        tokio::select! {
            () = tokio::time::sleep(backoff) => {}
            () = queue.finished() => break,
        }
    }
    queue.workers.fetch_sub(1, Ordering::AcqRel);
}

/// How a worker lost its server.
struct ServerLost {
    reason: String,
    unanswered: Vec<Arc<Chunk>>,
    /// The server refused the chunks as busy: nothing is known against them.
    busy: bool,
    /// The server answered something on this connection before it was lost.
    answered: bool,
}

/// Puts a lost server's chunks back and says so; the wait before reconnecting, or `None`
/// when the worker leaves the job (the last one to leave fails it).
fn after_loss(
    server: &Server,
    queue: &Queue,
    answers: &mpsc::UnboundedSender<anyhow::Result<Answered>>,
    failures: &mut u32,
    lost: ServerLost,
) -> Option<Duration> {
    let ServerLost {
        reason,
        unanswered,
        busy,
        answered,
    } = lost;
    let unanswered = if busy {
        not_counted(unanswered)
    } else {
        unanswered
    };
    let puzzles: usize = unanswered.iter().map(|c| c.len()).sum();
    if answered {
        *failures = 0;
    }
    *failures += 1;
    let tries = if busy { BUSY_TRIES } else { RECONNECTS };
    // Alone, there is nobody to hand the work to, and no point in waiting for a server
    // that is gone; one that is busy asked to be tried again later.
    let alone = queue.workers() <= 1;
    let backoff = Duration::from_millis(100 << (*failures).min(8)).min(MAX_BACKOFF);
    if alone && busy && *failures <= tries {
        eprintln!(
            "sudoku: {} is busy ({reason}); trying again in {} ms",
            server.url,
            backoff.as_millis()
        );
    } else if !alone {
        let resend = match puzzles {
            0 => "it had nothing unanswered".to_owned(),
            1 => "re-sending its 1 unanswered puzzle to the others".to_owned(),
            n => format!("re-sending its {n} unanswered puzzles to the others"),
        };
        eprintln!("sudoku: lost {} ({reason}); {resend}", server.url);
    }
    queue.put_back(unanswered);
    if *failures > tries || (alone && !busy) {
        if queue.workers.fetch_sub(1, Ordering::AcqRel) == 1 {
            let _ = answers.send(Err(ServersLost(reason).into()));
        } else {
            eprintln!(
                "sudoku: leaving {} out of this batch ({reason})",
                server.url
            );
        }
        return None;
    }
    Some(backoff)
}

/// `chunks`, their last send not counted against [`MAX_SENDS`]: a server that closed the
/// stream to open another, or refused it as busy, said nothing about their puzzles.
fn not_counted(chunks: Vec<Arc<Chunk>>) -> Vec<Arc<Chunk>> {
    for chunk in &chunks {
        let _ = chunk
            .sends
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
    }
    chunks
}

/// Why a stream ended before the job did.
enum Lost {
    /// The server or the way to it is gone: the chunks can go elsewhere.
    Server {
        reason: String,
        unanswered: Vec<Arc<Chunk>>,
        /// It said it is busy (RESOURCE_EXHAUSTED): it may take the chunks a little later.
        busy: bool,
        /// It answered something first: the tries start again.
        answered: bool,
    },
    /// The server closed the stream (idle, or its buffers needed elsewhere) and said a new
    /// one may open at once.
    Stream {
        unanswered: Vec<Arc<Chunk>>,
        /// It answered something first.
        answered: bool,
        reason: String,
    },
    /// A message carried more puzzles than the server's stream takes: the chunks go again,
    /// `fits` puzzles a message.
    TooLarge {
        fits: usize,
        unanswered: Vec<Arc<Chunk>>,
    },
    /// The request itself was refused: no server will take it.
    Fatal(anyhow::Error),
}

/// One stream to `server`, fed from the queue until the job is over.
async fn stream(
    conn: &Connection,
    server: &Server,
    options: pb::SolveOptions,
    queue: &Queue,
    answers: &mpsc::UnboundedSender<anyhow::Result<Answered>>,
    per_message: usize,
) -> Result<(), Lost> {
    let channel = server.connect().await.map_err(|e| Lost::Server {
        reason: format!("cannot connect: {}", crate::conn::error_chain(&e)),
        unanswered: Vec::new(),
        busy: false,
        answered: false,
    })?;
    let pace = Pace::of(conn);
    let limit = pace.in_flight;
    // Room for every message of the chunks that may be unanswered, so sending never waits.
    let messages = limit.saturating_mul(pace.chunk.div_ceil(per_message));
    let (tx, rx) = mpsc::channel::<pb::PackedPuzzles>(messages.max(1));
    let mut client = conn.sudoku_on(channel);
    let mut out = Outbox {
        tx: Some(tx),
        in_flight: InFlight::default(),
        sent: 0,
        limit,
        per_message,
        options,
    };
    let call = client.batch_solve_packed(conn.request(ReceiverStream::new(rx)));
    tokio::pin!(call);
    // The first chunks go out while the stream opens, not after the server's first reply.
    let mut replies = loop {
        tokio::select! {
            response = &mut call => match response {
                Ok(response) => break response.into_inner(),
                Err(status) => return Err(lost(server, status, &mut out, false)),
            },
            chunk = queue.next(), if out.open() => out.send(chunk).await?,
        }
    };
    let mut answered = false;
    loop {
        tokio::select! {
            chunk = queue.next(), if out.open() => out.send(chunk).await?,
            reply = replies.message() => match reply {
                Ok(Some(reply)) => {
                    answered = true;
                    match out.in_flight.answer(reply) {
                        Ok(Some(answered)) => {
                            let _ = answers.send(Ok(answered));
                        }
                        Ok(None) => {}
                        Err(why) => {
                            let _ = answers.send(Err(anyhow::anyhow!("{} {why}", server.url)));
                        }
                    }
                }
                Ok(None) if out.in_flight.is_empty() && out.tx.is_none() => return Ok(()),
                Ok(None) => {
                    return Err(Lost::Server {
                        reason: "the server ended the stream early".to_owned(),
                        unanswered: out.unanswered(),
                        busy: false,
                        answered,
                    })
                }
                Err(status) => return Err(lost(server, status, &mut out, answered)),
            },
        }
    }
}

/// How a stream's call ended with `status`: closed by the server (open another), server lost
/// or busy (its unanswered puzzles go to the others), or a failure of the batch itself.
fn lost(server: &Server, status: tonic::Status, out: &mut Outbox, answered: bool) -> Lost {
    if let Some(fits) = message_fits(&status) {
        return Lost::TooLarge {
            fits,
            unanswered: out.unanswered(),
        };
    }
    // A busy server (RESOURCE_EXHAUSTED) is left to cool down like a lost one.
    let busy = status.code() == tonic::Code::ResourceExhausted;
    if is_stream_closed(&status) {
        Lost::Stream {
            unanswered: out.unanswered(),
            answered,
            reason: status_error(&server.url, status).to_string(),
        }
    } else if is_server_lost(&status) || busy {
        Lost::Server {
            reason: status_error(&server.url, status).to_string(),
            unanswered: out.unanswered(),
            busy,
            answered,
        }
    } else {
        Lost::Fatal(status_error(&server.url, status))
    }
}

/// One stream's sending side, and the chunks it sent that are not answered yet.
struct Outbox {
    /// Our side of the stream; `None` once closed.
    tx: Option<mpsc::Sender<pb::PackedPuzzles>>,
    /// Chunks sent and not yet answered.
    in_flight: InFlight,
    /// Puzzles sent so far: the stream index of the next chunk's first.
    sent: u64,
    /// Most chunks unanswered at once.
    limit: usize,
    /// Most puzzles a message carries: a chunk goes in as many as it takes, answered as
    /// pieces of one answer.
    per_message: usize,
    options: pb::SolveOptions,
}

impl Outbox {
    /// Whether another chunk may go now.
    fn open(&self) -> bool {
        self.tx.is_some() && self.in_flight.len() < self.limit
    }

    /// Sends `chunk`; `None` (the job is over) closes our side, so the server ends the stream.
    /// A chunk sent [`MAX_SENDS`] times already fails the batch.
    async fn send(&mut self, chunk: Option<Arc<Chunk>>) -> Result<(), Lost> {
        let Some(chunk) = chunk else {
            self.tx = None;
            return Ok(());
        };
        if chunk.sends.fetch_add(1, Ordering::Relaxed) >= MAX_SENDS {
            let (first, last) = match (chunk.origins.first(), chunk.origins.last()) {
                (Some(first), Some(last)) => (first.number, last.number),
                _ => (0, 0),
            };
            return Err(Lost::Fatal(anyhow::anyhow!(
                "puzzles {first} to {last} went to servers {MAX_SENDS} times and were never \
                 wholly answered: a server may fail on one of them, or answer them short"
            )));
        }
        self.in_flight.insert(self.sent, chunk.clone());
        self.sent += chunk.len() as u64;
        // Never waits: the channel holds as many messages as may be unanswered.
        let mut sent = true;
        for message in packed(&chunk, self.options, self.per_message) {
            sent = match &self.tx {
                Some(tx) => tx.send(message).await.is_ok(),
                None => false,
            };
            if !sent {
                break;
            }
        }
        if !sent {
            // The stream is over; its status comes from the replies.
            self.tx = None;
        }
        Ok(())
    }

    /// The chunks sent and not answered, to go elsewhere.
    fn unanswered(&mut self) -> Vec<Arc<Chunk>> {
        self.in_flight.drain()
    }
}

/// The messages that carry `chunk`, at most `per_message` puzzles each.
fn packed(chunk: &Chunk, options: pb::SolveOptions, per_message: usize) -> Vec<pb::PackedPuzzles> {
    let each = chunk.cells.len() / chunk.len().max(1);
    let step = each.saturating_mul(per_message).max(1);
    let mut messages = Vec::new();
    let mut start = 0;
    while start < chunk.cells.len() || messages.is_empty() {
        let end = start.saturating_add(step).min(chunk.cells.len());
        let mut message = pb::PackedPuzzles {
            box_rows: chunk.box_rows,
            box_cols: chunk.box_cols,
            options: Some(options),
            id: chunk.id.to_string(),
            ..pb::PackedPuzzles::default()
        };
        let field = if chunk.nibbles() {
            &mut message.nibbles
        } else {
            &mut message.cells
        };
        *field = chunk.cells.slice(start..end);
        messages.push(message);
        start = end;
    }
    messages
}
