//! `sudoku batch`: every puzzle through one BatchSolve stream, answers back in input order.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use sudoku_proto::pb::{self, SolveRequest};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

use crate::cli::BatchArgs;
use crate::conn::Connection;
use crate::input::{Origin, Place, puzzle_field};
use crate::output::{Printer, is_solved, outcome_word};
use crate::solve::{Tally, parse, report, wire_options};

/// Requests read ahead of the stream; the server's window bounds the rest.
const READ_AHEAD: usize = 1024;

/// What the reader hands to the printer besides server answers.
enum Local {
    /// A line that did not parse: answered here, never sent.
    Invalid(Origin, pb::SolveError),
    /// Every line has been read; this many puzzles in all.
    Done(usize),
}

/// Runs `sudoku batch`.
pub async fn run(conn: &Connection, args: &BatchArgs, printer: &Printer) -> anyhow::Result<Tally> {
    let (request_tx, request_rx) = mpsc::channel::<SolveRequest>(READ_AHEAD);
    let (local_tx, mut local_rx) = mpsc::unbounded_channel::<Local>();
    let files = args.files.clone();
    let options = wire_options(&args.options);
    let shape = args.options.shape;
    let reader = tokio::spawn(async move {
        let mut number = 0usize;
        let read = |file: Option<PathBuf>, start: usize| {
            let request_tx = request_tx.clone();
            let local_tx = local_tx.clone();
            async move {
                let input: Box<dyn tokio::io::AsyncRead + Unpin + Send> = match &file {
                    Some(path) => Box::new(
                        tokio::fs::File::open(path)
                            .await
                            .with_context(|| format!("cannot read {}", path.display()))?,
                    ),
                    None => Box::new(tokio::io::stdin()),
                };
                let mut lines = BufReader::new(input).lines();
                let (mut line_no, mut n) = (0usize, start);
                while let Some(line) = lines.next_line().await.context("cannot read input")? {
                    line_no += 1;
                    if line.trim().is_empty() || line.trim_start().starts_with('#') {
                        continue;
                    }
                    n += 1;
                    let origin = Origin {
                        number: n,
                        place: Place::Line(line_no),
                    };
                    let flags = crate::cli::SolveOptions {
                        algorithm: crate::cli::AlgorithmArg::Auto,
                        count: 2,
                        shape,
                    };
                    match parse(puzzle_field(&line), &flags) {
                        Ok(grid) => {
                            let id = format!("{n}:{line_no}");
                            let request = SolveRequest {
                                id,
                                puzzle: Some(grid),
                                options: Some(options),
                            };
                            if request_tx.send(request).await.is_err() {
                                break;
                            }
                        }
                        Err(error) => {
                            let _ = local_tx.send(Local::Invalid(origin, error));
                        }
                    }
                }
                anyhow::Ok(n)
            }
        };
        let paths: Vec<Option<PathBuf>> = if files.is_empty() {
            vec![None]
        } else {
            files
                .into_iter()
                .map(|f| (f.as_os_str() != "-").then_some(f))
                .collect()
        };
        for path in paths {
            number = read(path, number).await?;
        }
        let _ = local_tx.send(Local::Done(number));
        anyhow::Ok(())
    });

    let mut client = conn.sudoku();
    let mut answers = client
        .batch_solve(conn.request(ReceiverStream::new(request_rx)))
        .await
        .map_err(crate::status_error)?
        .into_inner();

    let progress = std::io::stderr().is_terminal().then(|| {
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} {pos} puzzles  {per_sec}  {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar
    });
    let start = Instant::now();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    // Answers arrive in completion order; hold the early ones until their turn.
    let mut waiting: BTreeMap<usize, (Origin, Result<pb::SolveResponse, pb::SolveError>)> =
        BTreeMap::new();
    let mut next = 1usize;
    let mut total: Option<usize> = None;
    let mut counts: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut tally = Tally::default();
    let mut stream_open = true;
    while total.is_none_or(|t| next <= t) {
        tokio::select! {
            local = local_rx.recv(), if total.is_none() => match local {
                Some(Local::Invalid(origin, error)) => { waiting.insert(origin.number, (origin, Err(error))); }
                Some(Local::Done(n)) => total = Some(n),
                // The reader failed; its error is reported below.
                None => break,
            },
            answer = answers.message(), if stream_open => match answer.map_err(crate::status_error)? {
                Some(response) => {
                    let (number, line) = parse_id(&response.id).context("the server answered an id it was not sent")?;
                    waiting.insert(number, (Origin { number, place: Place::Line(line) }, Ok(response)));
                }
                None => stream_open = false,
            },
        }
        while let Some((origin, answer)) = waiting.remove(&next) {
            let word = match &answer {
                Ok(response) => {
                    printer.answer(&mut out, &origin, response)?;
                    if !is_solved(response.outcome()) {
                        tally.failed += 1;
                    }
                    outcome_word(response.outcome())
                }
                Err(error) => {
                    report(&origin, &error.message);
                    printer.invalid(&mut out, &origin, error.clone())?;
                    tally.failed += 1;
                    "invalid"
                }
            };
            *counts.entry(word).or_default() += 1;
            tally.total += 1;
            next += 1;
            if let Some(bar) = &progress {
                bar.inc(1);
            }
        }
        if !stream_open
            && total.is_some_and(|t| next <= t)
            && waiting.is_empty()
            && local_rx.is_empty()
        {
            anyhow::bail!(
                "the server closed the stream after {} of {} answers",
                next - 1,
                total.unwrap_or(0)
            );
        }
    }
    out.flush()?;
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    reader.await.context("input reader failed")??;
    let seconds = start.elapsed().as_secs_f64();
    let by_outcome: Vec<String> = counts.iter().map(|(w, n)| format!("{n} {w}")).collect();
    eprintln!(
        "{} puzzles: {} in {:.2} s ({:.0} puzzles/s)",
        tally.total,
        if by_outcome.is_empty() {
            "none".to_owned()
        } else {
            by_outcome.join(", ")
        },
        seconds,
        tally.total as f64 / seconds.max(1e-9)
    );
    Ok(tally)
}

/// The puzzle number and line carried in a request id (`number:line`).
fn parse_id(id: &str) -> Option<(usize, usize)> {
    let (number, line) = id.split_once(':')?;
    Some((number.parse().ok()?, line.parse().ok()?))
}
