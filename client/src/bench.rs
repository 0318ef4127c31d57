//! `sudoku bench`: a bounded load generator for sizing a deployment.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, bail};
use hdrhistogram::Histogram;
use sudoku_proto::pb::{self, SolveRequest};
use tokio_stream::StreamExt;

use crate::cli::{BenchArgs, Format};
use crate::conn::Connection;
use crate::input::puzzle_field;
use crate::request::parse;

/// Runs `sudoku bench`; every call stops by the deadline.
pub async fn run(conn: &Connection, args: &BenchArgs, format: Format) -> anyhow::Result<bool> {
    if conn.is_embedded() {
        // Said even without -v: numbers from a forgotten --server would pass for the server's.
        eprintln!("sudoku: benchmarking the embedded server in this process (no --server given)");
    }
    let grids = read_puzzles(&args.file)?;
    let requests: Arc<Vec<SolveRequest>> = Arc::new(
        grids
            .into_iter()
            .enumerate()
            .map(|(i, g)| SolveRequest {
                id: i.to_string(),
                puzzle: Some(g),
                options: None,
            })
            .collect(),
    );
    let start = Instant::now();
    let deadline = start + args.duration;
    let (latencies, errors) = if args.batch {
        batch(conn, &requests, deadline).await?
    } else {
        unary(conn, &requests, deadline, args.concurrency).await?
    };
    let seconds = start.elapsed().as_secs_f64();
    let report = Report {
        batch: args.batch,
        concurrency: if args.batch { 1 } else { args.concurrency },
        seconds,
        latencies: &latencies,
        errors: &errors,
    };
    let text = match format {
        Format::Json => format!("{}\n", report.json()),
        Format::Line | Format::Pretty => report.text(),
    };
    crate::write_stdout(text.as_bytes())?;
    Ok(errors.is_empty())
}

/// What a bench measured.
struct Report<'a> {
    batch: bool,
    concurrency: usize,
    seconds: f64,
    latencies: &'a Histogram<u64>,
    errors: &'a BTreeMap<String, u64>,
}

impl Report<'_> {
    fn mode(&self) -> &'static str {
        if self.batch { "batch" } else { "unary" }
    }

    /// `key=value` pairs on one line, then a line per error code.
    fn text(&self) -> String {
        let (ok, q) = (self.latencies.len(), |p: f64| {
            self.latencies.value_at_quantile(p)
        });
        let mut report = format!(
            "bench mode={} concurrency={} seconds={:.1} requests={} rps={:.0} p50_us={} p90_us={} p99_us={} max_us={} errors={}",
            self.mode(),
            self.concurrency,
            self.seconds,
            ok,
            ok as f64 / self.seconds,
            q(0.5),
            q(0.9),
            q(0.99),
            self.latencies.max(),
            self.errors.values().sum::<u64>()
        );
        for (code, n) in self.errors {
            report.push_str(&format!("\nerrors code={code} count={n}"));
        }
        report.push('\n');
        report
    }

    /// The same as one JSON object, the error counts by code.
    fn json(&self) -> serde_json::Value {
        let (ok, q) = (self.latencies.len(), |p: f64| {
            self.latencies.value_at_quantile(p)
        });
        serde_json::json!({
            "mode": self.mode(),
            "concurrency": self.concurrency,
            "seconds": self.seconds,
            "requests": ok,
            "rps": ok as f64 / self.seconds,
            "p50_us": q(0.5),
            "p90_us": q(0.9),
            "p99_us": q(0.99),
            "max_us": self.latencies.max(),
            "errors": self.errors.values().sum::<u64>(),
            "error_codes": self.errors,
        })
    }
}

/// The puzzles of a bench file, one per line; a line that does not parse is reported with its
/// number and left out (the bench still runs on the rest, but not on none).
fn read_puzzles(path: &Path) -> anyhow::Result<Vec<pb::Grid>> {
    let name = path.display();
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {name}"))?;
    let mut grids = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        match parse(puzzle_field(line), None) {
            Ok(grid) => grids.push(grid),
            Err(err) => crate::shown::error_line(format_args!(
                "sudoku: left out {name} line {}: {}",
                i + 1,
                err.message
            )),
        }
    }
    if grids.is_empty() {
        bail!("{name} holds no valid puzzle");
    }
    Ok(grids)
}

type Results = (Histogram<u64>, BTreeMap<String, u64>);

fn histogram() -> Histogram<u64> {
    // 1 µs to 1 hour at 3 significant digits: bounds are fixed, so creation cannot fail.
    Histogram::new_with_bounds(1, 3_600_000_000, 3)
        .unwrap_or_else(|_| Histogram::new(3).expect("3 sig figs"))
}

async fn unary(
    conn: &Connection,
    requests: &Arc<Vec<SolveRequest>>,
    deadline: Instant,
    concurrency: usize,
) -> anyhow::Result<Results> {
    let loops: Vec<_> = (0..concurrency.max(1))
        .map(|worker| {
            let mut client = conn.sudoku();
            let requests = requests.clone();
            // The --timeout header, copied onto every call made in the task.
            let template_timeout = conn.request(()).metadata().get("grpc-timeout").cloned();
            tokio::spawn(async move {
                let (mut latencies, mut errors) = (histogram(), BTreeMap::new());
                let mut i = worker;
                while Instant::now() < deadline {
                    let mut request = tonic::Request::new(requests[i % requests.len()].clone());
                    if let Some(t) = &template_timeout {
                        request.metadata_mut().insert("grpc-timeout", t.clone());
                    }
                    let begin = Instant::now();
                    match client.solve(request).await {
                        Ok(_) => {
                            let _ = latencies.record(begin.elapsed().as_micros().max(1) as u64);
                        }
                        Err(status) => {
                            *errors
                                .entry(crate::conn::code_name(status.code()).to_owned())
                                .or_insert(0) += 1
                        }
                    }
                    i += concurrency;
                }
                (latencies, errors)
            })
        })
        .collect();
    let (mut latencies, mut errors) = (histogram(), BTreeMap::new());
    for handle in loops {
        let (l, e) = handle.await.context("a load loop failed")?;
        latencies.add(&l).context("merging latencies")?;
        for (code, n) in e {
            *errors.entry(code).or_insert(0) += n;
        }
    }
    Ok((latencies, errors))
}

async fn batch(
    conn: &Connection,
    requests: &Arc<Vec<SolveRequest>>,
    deadline: Instant,
) -> anyhow::Result<Results> {
    let (tx, rx) = tokio::sync::mpsc::channel(256);
    let feed = requests.clone();
    // One clock for sending and receiving: each request carries its send time since `origin`.
    let origin = Instant::now();
    let sender = tokio::spawn(async move {
        let mut i = 0usize;
        while Instant::now() < deadline {
            let mut request = feed[i % feed.len()].clone();
            request.id = origin.elapsed().as_micros().to_string();
            if tx.send(request).await.is_err() {
                break;
            }
            i += 1;
        }
    });
    let mut client = conn.sudoku();
    // conn.request carries --timeout as the stream's deadline.
    let mut answers = client
        .batch_solve(conn.request(tokio_stream::wrappers::ReceiverStream::new(rx)))
        .await
        .map_err(|s| conn.status_error(s))?
        .into_inner();
    let (mut latencies, mut errors) = (histogram(), BTreeMap::new());
    // Answers still queued at the deadline are not waited for: the run ends on time.
    let end = tokio::time::Instant::from_std(deadline);
    while let Ok(Some(answer)) = tokio::time::timeout_at(end, answers.next()).await {
        match answer {
            Ok(response) => {
                let sent: u128 = response.id.parse().unwrap_or(0);
                let now = origin.elapsed().as_micros();
                let _ = latencies.record(now.saturating_sub(sent).max(1) as u64);
            }
            Err(status) => {
                *errors
                    .entry(crate::conn::code_name(status.code()).to_owned())
                    .or_insert(0) += 1
            }
        }
    }
    drop(answers);
    sender.abort();
    Ok((latencies, errors))
}
