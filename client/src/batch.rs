//! `sudoku batch`: every puzzle through one BatchSolve stream, answers back in input order.
//!
//! Four parts, each one job: [`read`] turns files into requests (a task), the stream sends
//! them, [`Reorder`] holds early answers until their turn, and [`Summary`] counts outcomes.

use std::collections::{BTreeMap, HashMap};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use sudoku_proto::pb::{self, SolveRequest};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

use crate::cli::BatchArgs;
use crate::conn::Connection;
use crate::input::{LineReader, Origin, Place, open_input, puzzle_field};
use crate::output::{Answer, Printer, outcome_word};
use crate::request::{NoPuzzles, Tally, check, failed, parse};

/// Requests read ahead of the stream; the server's window bounds the rest.
const READ_AHEAD: usize = 1024;

/// What the reader tells the reorderer, in input order.
enum Item {
    /// Sent as the next request of the stream; the server answers with its 0-based `index`.
    Sent(Origin, pb::Grid),
    /// A line that did not parse: answered here, never sent.
    Invalid(Origin, String),
    /// Every line has been read.
    Done,
}

/// Runs `sudoku batch`.
pub async fn run(conn: &Connection, args: &BatchArgs, printer: &Printer) -> anyhow::Result<Tally> {
    let (request_tx, request_rx) = mpsc::channel::<SolveRequest>(READ_AHEAD);
    let (item_tx, mut item_rx) = mpsc::unbounded_channel::<Item>();
    let reader = tokio::spawn(read(args.clone(), request_tx, item_tx));
    let mut answers = conn
        .sudoku()
        .batch_solve(conn.request(ReceiverStream::new(request_rx)))
        .await
        .map_err(|s| conn.status_error(s))?
        .into_inner();

    let mut reorder = Reorder::default();
    let mut summary = Summary::new();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let (mut reading, mut streaming) = (true, true);
    let mut lost = None;
    while reading || (streaming && reorder.outstanding() > 0) {
        tokio::select! {
            // Items first: the reader queues a puzzle's item before sending it, so its origin
            // is always known by the time its answer is handled.
            biased;
            item = item_rx.recv(), if reading => match item {
                Some(Item::Done) | None => reading = false,
                Some(item) => reorder.push(item),
            },
            answer = answers.message(), if streaming => match answer {
                Ok(Some(response)) => reorder.answer(response)?,
                Ok(None) => streaming = false,
                Err(status) => lost = Some(conn.status_error(status)),
            },
        }
        reorder.drain(|origin, ready| summary.print(printer, &mut out, origin, ready))?;
        if lost.is_some() {
            break;
        }
    }
    out.flush()?;
    summary.finish();
    reader.abort();
    if let Some(err) = lost {
        return Err(err.context(format!(
            "lost the connection to {} after {} of {} answers",
            conn.target(),
            summary.tally.total,
            reorder.pushed
        )));
    }
    if reorder.outstanding() > 0 {
        anyhow::bail!(
            "{} closed the stream after {} of {} answers",
            conn.target(),
            summary.tally.total,
            reorder.pushed
        );
    }
    match reader.await {
        Ok(result) => result?,
        Err(err) if err.is_cancelled() => {}
        Err(err) => return Err(err).context("the input reader failed"),
    }
    if summary.tally.total == 0 {
        return Err(NoPuzzles.into());
    }
    Ok(summary.tally)
}

/// Reads every input in order, sending puzzles that parse and reporting those that do not.
async fn read(
    args: BatchArgs,
    requests: mpsc::Sender<SolveRequest>,
    items: mpsc::UnboundedSender<Item>,
) -> anyhow::Result<()> {
    let options = pb::SolveOptions::from(&args.options);
    let mut inputs: Vec<Option<PathBuf>> = args
        .files
        .iter()
        .chain(&args.file)
        .map(|f| (f.as_os_str() != "-").then(|| f.clone()))
        .collect();
    if inputs.is_empty() {
        inputs.push(None);
    }
    let mut number = 0usize;
    for input in inputs {
        let mut lines = LineReader::new(open_input(input.as_deref()).await?, input.as_deref());
        while let Some((line_no, line)) = lines.next().await? {
            if line.trim().is_empty() || line.trim_start().starts_with('#') {
                continue;
            }
            number += 1;
            let origin = Origin {
                number,
                place: Place::Line(line_no),
            };
            match parse(puzzle_field(&line), args.options.shape) {
                Ok(grid) => {
                    let request = SolveRequest {
                        id: String::new(),
                        puzzle: Some(grid.clone()),
                        options: Some(options),
                    };
                    // The item goes first so its origin is known before the answer arrives.
                    let _ = items.send(Item::Sent(origin, grid));
                    if requests.send(request).await.is_err() {
                        return Ok(());
                    }
                }
                Err(error) => {
                    let _ = items.send(Item::Invalid(origin, error.message));
                }
            }
        }
    }
    let _ = items.send(Item::Done);
    Ok(())
}

/// One puzzle waiting for its turn to be printed.
struct Slot {
    origin: Origin,
    /// The puzzle sent, to check the answer against; `None` when it never parsed.
    puzzle: Option<pb::Grid>,
    answer: Option<Result<pb::SolveResponse, String>>,
}

/// Puts answers, which arrive in completion order, back in input order.
#[derive(Default)]
struct Reorder {
    /// Puzzles by number (1-based), until printed.
    slots: BTreeMap<usize, Slot>,
    /// Stream index to puzzle number.
    by_index: HashMap<u64, usize>,
    /// Requests sent so far.
    sent: u64,
    /// Puzzles read so far.
    pushed: usize,
    /// The next puzzle number to print.
    next: usize,
}

/// One puzzle ready to print: the server's answer and the puzzle sent, or why it was not sent.
type Ready = Result<(pb::Grid, pb::SolveResponse), String>;

impl Reorder {
    fn push(&mut self, item: Item) {
        let (origin, puzzle, answer) = match item {
            Item::Sent(origin, grid) => {
                self.by_index.insert(self.sent, origin.number);
                self.sent += 1;
                (origin, Some(grid), None)
            }
            Item::Invalid(origin, reason) => (origin, None, Some(Err(reason))),
            Item::Done => return,
        };
        self.pushed += 1;
        self.slots.insert(
            origin.number,
            Slot {
                origin,
                puzzle,
                answer,
            },
        );
    }

    fn answer(&mut self, response: pb::SolveResponse) -> anyhow::Result<()> {
        let slot = self
            .by_index
            .remove(&response.index)
            .and_then(|n| self.slots.get_mut(&n))
            .with_context(|| {
                format!(
                    "the server answered index {}, which was not sent or was answered twice",
                    response.index
                )
            })?;
        slot.answer = Some(Ok(response));
        Ok(())
    }

    /// Puzzles read but not yet printed.
    fn outstanding(&self) -> usize {
        self.slots.len()
    }

    /// Hands every puzzle whose turn has come, in order, to `print`.
    fn drain(
        &mut self,
        mut print: impl FnMut(&Origin, Ready) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        if self.next == 0 {
            self.next = 1;
        }
        while let Some(slot) = self.slots.get(&self.next) {
            if slot.answer.is_none() {
                break;
            }
            let Some(slot) = self.slots.remove(&self.next) else {
                break;
            };
            let ready = match (slot.answer, slot.puzzle) {
                (Some(Ok(response)), Some(puzzle)) => Ok((puzzle, response)),
                (Some(Err(reason)), _) => Err(reason),
                _ => Err("no answer".to_owned()),
            };
            print(&slot.origin, ready)?;
            self.next += 1;
        }
        Ok(())
    }
}

/// Counts outcomes, shows progress, and prints the closing line on stderr.
struct Summary {
    tally: Tally,
    counts: BTreeMap<&'static str, usize>,
    start: Instant,
    progress: Option<ProgressBar>,
}

impl Summary {
    fn new() -> Summary {
        let progress = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new_spinner();
            bar.set_style(
                ProgressStyle::with_template("{spinner} {human_pos} puzzles  {per_sec}  {elapsed}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar
        });
        Summary {
            tally: Tally::default(),
            counts: BTreeMap::new(),
            start: Instant::now(),
            progress,
        }
    }

    fn print(
        &mut self,
        printer: &Printer,
        out: &mut impl Write,
        origin: &Origin,
        ready: Ready,
    ) -> std::io::Result<()> {
        let word = match &ready {
            Ok((puzzle, response)) => {
                check(&mut self.tally, origin, puzzle, response);
                printer.answer(out, origin, Answer::Response(response))?;
                outcome_word(response.outcome())
            }
            Err(reason) => {
                failed(&mut self.tally, origin, reason);
                printer.answer(out, origin, Answer::invalid(reason))?;
                "invalid"
            }
        };
        *self.counts.entry(word).or_default() += 1;
        if let Some(bar) = &self.progress {
            bar.inc(1);
        }
        Ok(())
    }

    fn finish(&self) {
        if let Some(bar) = &self.progress {
            bar.finish_and_clear();
        }
        let seconds = self.start.elapsed().as_secs_f64();
        let by_outcome: Vec<String> = self
            .counts
            .iter()
            .map(|(w, n)| format!("{n} {w}"))
            .collect();
        eprintln!(
            "{} puzzles: {} in {:.2} s ({:.0} puzzles/s)",
            self.tally.total,
            if by_outcome.is_empty() {
                "none".to_owned()
            } else {
                by_outcome.join(", ")
            },
            seconds,
            self.tally.total as f64 / seconds.max(1e-9)
        );
    }
}
