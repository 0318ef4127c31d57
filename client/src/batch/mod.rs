//! `sudoku batch`: every puzzle through BatchSolvePacked streams, on one server or spread
//! over several, answers back in input order.
//!
//! [`read`] turns files into puzzles and packs them into chunks ([`pace`] says how big),
//! [`send`] runs one worker per server taking chunks from one queue (a lost server's chunks
//! go to the others), [`reorder`] holds early answers until their turn, and [`summary`]
//! checks, prints and counts them.

mod fleet;
mod inflight;
mod pace;
mod read;
mod reorder;
mod send;
mod summary;

use std::io::IsTerminal;
use std::sync::Arc;

use anyhow::Context;
use sudoku_proto::pb;
use tokio::sync::{Semaphore, mpsc, oneshot};

pub use self::pace::Pace;
use crate::cli::BatchArgs;
use crate::conn::Connection;
use crate::input::Origin;
use crate::output::Printer;
use crate::request::{NoPuzzles, Tally};

/// Chunks read ahead of the streams; the servers' windows bound the rest.
const READ_AHEAD: usize = 4;

/// Puzzles read and not yet printed, beyond those the streams have in flight: room for the
/// read-ahead and for answers that wait for an earlier one to be printed, about 12 MB at
/// most. Without a bound, a slow reader of the output (`| less`) or one slow chunk among fast
/// ones kept every answer that came meanwhile (45 MB for 196,000 puzzles). A script that
/// writes all its input before it reads any output still gets its answers where the input is
/// well under this. A line that did not parse takes room too, by the length of its error
/// (usually two puzzles' worth), and a chunk takes room for a whole chunk as it starts.
const UNPRINTED: usize = 1 << 16;

/// Bytes of output gathered before a write: a few hundred answers per system call.
const OUT_BUFFER: usize = 1 << 16;

/// What the reader tells the printer, in input order.
pub enum Item {
    /// Puzzles sent to be solved, as one chunk.
    Puzzles(Arc<read::Chunk>),
    /// A line that did not parse: answered here, never sent; with its room, held until
    /// printed.
    Invalid(Origin, String, read::Held),
    /// Every line has been read.
    Done,
}

/// A batch's input being read and packed, on a thread of its own.
pub struct Input {
    chunks: mpsc::Receiver<Arc<read::Chunk>>,
    /// Puzzles that may be read and not yet printed (see [`UNPRINTED`]); each server's
    /// streams add room for what they keep in flight.
    unprinted: Arc<Semaphore>,
    pace: Pace,
    items: mpsc::UnboundedReceiver<Item>,
    /// How the reading ended.
    reader: oneshot::Receiver<anyhow::Result<()>>,
}

impl Input {
    /// Starts reading, in chunks sized for the servers `pace` is for: before the connection
    /// opens, so the first puzzles are ready when it is (the embedded server's start-up and
    /// the first chunk's reading then overlap, about half a millisecond).
    pub fn start(args: &BatchArgs, pace: Pace) -> anyhow::Result<Input> {
        let (chunk_tx, chunks) = mpsc::channel(READ_AHEAD);
        let (item_tx, items) = mpsc::unbounded_channel::<Item>();
        let (done, reader) = oneshot::channel();
        let args = args.clone();
        let unprinted = Arc::new(Semaphore::new(UNPRINTED));
        let room = read::Room {
            unprinted: unprinted.clone(),
            runtime: tokio::runtime::Handle::current(),
        };
        std::thread::Builder::new()
            .name("sudoku-reader".to_owned())
            .spawn(move || {
                let _ = done.send(read::read(args, pace.chunk, room, chunk_tx, item_tx));
            })
            .context("cannot start the input reader")?;
        Ok(Input {
            chunks,
            unprinted,
            pace,
            items,
            reader,
        })
    }
}

/// Runs `sudoku batch` on `input`, started with [`Pace::of`] `conn`.
pub async fn run(
    conn: Arc<Connection>,
    args: &BatchArgs,
    input: Input,
    printer: &Printer,
    verbose: bool,
) -> anyhow::Result<Tally> {
    let (mut item_rx, reader) = (input.items, input.reader);
    let (answer_tx, mut answer_rx) = mpsc::unbounded_channel();
    let queue = Arc::new(send::Queue::new(input.chunks));
    let options = pb::SolveOptions::from(&args.options);
    let room = fleet::Room {
        unprinted: input.unprinted,
        per_server: 2 * input.pace.in_flight * input.pace.chunk,
    };
    let fleet = tokio::spawn(fleet::run(
        conn.clone(),
        options,
        queue.clone(),
        answer_tx.clone(),
        room,
        verbose,
    ));
    drop(answer_tx);

    let mut reorder = reorder::Reorder::default();
    let total = if std::io::stderr().is_terminal() {
        read::count(args).await
    } else {
        None
    };
    let mut summary = summary::Summary::new(total, !conn.is_embedded());
    let failure = print_answers(
        &mut item_rx,
        &mut answer_rx,
        &mut reorder,
        &mut summary,
        printer,
    )
    .await?;
    // Before the closing line: a worker of a lost server says nothing once the job is over.
    queue.finish();
    let read = end_of_input(reader, failure.is_some(), &summary).await;
    if failure.is_some() {
        fleet.abort();
    }
    // Every answer is in: the streams only have to close, and an embedded server's need not
    // (it goes with the process).
    if !conn.is_embedded() {
        let _ = fleet.await;
    }
    if let Some(err) = failure {
        return Err(failed(err, &conn, summary.tally.total, reorder.pushed));
    }
    if let Some(read) = read {
        read?;
    }
    if summary.tally.total == 0 {
        return Err(NoPuzzles.into());
    }
    Ok(summary.tally)
}

/// Prints answers in input order as they come, until every item read is answered or the
/// batch fails: the failure, if any.
async fn print_answers(
    item_rx: &mut mpsc::UnboundedReceiver<Item>,
    answer_rx: &mut mpsc::UnboundedReceiver<anyhow::Result<send::Answered>>,
    reorder: &mut reorder::Reorder,
    summary: &mut summary::Summary,
    printer: &Printer,
) -> anyhow::Result<Option<anyhow::Error>> {
    let mut out = std::io::BufWriter::with_capacity(OUT_BUFFER, std::io::stdout().lock());
    let mut reading = true;
    let mut failure = None;
    while reading || reorder.outstanding() > 0 {
        // What is printed goes out before a wait: on a pipe that stays open, the last
        // answers would otherwise sit in the buffer until more input came.
        if item_rx.is_empty() && answer_rx.is_empty() && !out.buffer().is_empty() {
            std::io::Write::flush(&mut out)?;
        }
        tokio::select! {
            // Items first, so a puzzle's origin is known by the time its answer is handled.
            biased;
            item = item_rx.recv(), if reading => match item {
                Some(Item::Done) | None => reading = false,
                Some(item) => reorder.push(item),
            },
            answer = answer_rx.recv() => match answer {
                Some(Ok((chunk, reply))) => {
                    if let Err(err) = reorder.answer(&chunk, reply) {
                        failure = Some(err);
                    }
                }
                Some(Err(err)) => failure = Some(err),
                None => failure = Some(anyhow::anyhow!("every sender stopped")),
            },
        }
        reorder.drain(|origin, ready| summary.print(printer, &mut out, origin, ready))?;
        if failure.is_some() {
            break;
        }
    }
    std::io::Write::flush(&mut out)?;
    drop(out);
    Ok(failure)
}

/// How reading the input ended, and the closing line. Every item is in unless the batch
/// failed, so the reader has ended: `None` after a failure, where it may still be going (it is
/// left to end with the process). Input that failed before any answer (a missing file, a
/// binary one) gets no closing line: a summary of no puzzles would say nothing its error does
/// not.
async fn end_of_input(
    reader: oneshot::Receiver<anyhow::Result<()>>,
    failed: bool,
    summary: &summary::Summary,
) -> Option<anyhow::Result<()>> {
    let read = if failed {
        None
    } else {
        let read = reader.await;
        Some(
            read.map_err(|_| anyhow::anyhow!("the input reader failed"))
                .and_then(|r| r),
        )
    };
    match &read {
        Some(Err(_)) if summary.tally.total == 0 => summary.abandon(),
        _ => summary.finish(),
    }
    read
}

/// Why the batch stopped early, with how far it got.
fn failed(err: anyhow::Error, conn: &Connection, answered: usize, read: usize) -> anyhow::Error {
    let what = if err.is::<send::ServersLost>() {
        "lost the connection to"
    } else {
        "the batch failed on"
    };
    err.context(format!(
        "{what} {} after {answered} of {read} answers",
        conn.target()
    ))
}
