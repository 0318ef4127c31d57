//! `cargo bench -p sudoku-server --bench cpu`: the server's CPU per hard puzzle at full load,
//! against the bare solver's.
//!
//! The real `sudoku-server` binary runs as a child process; this process loads it with the
//! hard set over BatchSolvePacked (1,000 puzzles a message), BatchSolve and unary Solve, several
//! calls at once so every solver thread stays busy, and reads the child's CPU time (user +
//! system, all threads, from `/proc/<pid>/stat`) per puzzle. The bare solver's CPU per puzzle
//! is the same puzzles solved one after another on one thread here (`/proc/thread-self/stat`),
//! so both come from the kernel's same accounting. Rounds alternate the two; the lowest of
//! each is kept, as a busy neighbour on a shared machine only ever adds.
//!
//! On the 17-clue set the same child's CPU per puzzle is measured over packed streams plain,
//! gzip and zstd: what compression costs the server, whatever the client pays. Then 50,000
//! of them by unary calls: what one call costs beyond its solve (`unary_call_us`).
//!
//! `SUDOKU_DATA` moves the dataset folder; `SUDOKU_BENCH_LIMIT` caps the puzzles per set
//! (default 50,000: the whole hard set, so the 10 ms ticks of the CPU counters are noise); `SUDOKU_BENCH_ROUNDS` sets the rounds (default 3).
//! `SUDOKU_BENCH_SERVER` runs another `sudoku-server` binary (a copy of an earlier build), to
//! compare two builds by running the bench with each in turn.

mod common;

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use solver_core::{Grid, Options, solve};
use sudoku_compress::Codec;
use sudoku_compress::client::CompressLayer;
use sudoku_proto::grid_to_pb;
use sudoku_proto::pb::sudoku_client::SudokuClient;
use sudoku_proto::pb::{PackedPuzzles, SolveRequest};
use tokio_stream::StreamExt;
use tonic::codec::CompressionEncoding;
use tonic::transport::Channel;
use tower::Layer;

use common::{env_number, load, packed_messages, packed_stream};

const HARD: &str = "puzzles5_forum_hardest_1905_11+";
const EASY: &str = "puzzles2_17_clue";
/// Easy puzzles per measurement: about a second of solving.
const EASY_PUZZLES: usize = 400_000;
/// Calls in flight at once: enough that a solver thread never waits for the next message.
const STREAMS: usize = 4;
/// Easy puzzles sent by unary calls to measure a call's own cost (about a second).
const UNARY_EASY: usize = 50_000;
/// Unary calls in flight at once.
const UNARY_CONCURRENCY: usize = 32;
/// Puzzles per BatchSolvePacked message.
const PACKED: usize = 1_000;
/// Clock ticks per second in `/proc/*/stat` (USER_HZ: 100 on every Linux platform in use).
const USER_HZ: f64 = 100.0;

/// User plus system CPU seconds in a `/proc/.../stat` file (fields 14 and 15).
fn cpu_seconds(stat_path: &str) -> anyhow::Result<f64> {
    let stat = std::fs::read_to_string(stat_path)?;
    // The command name (field 2) may hold spaces; the fields after its ')' are plain.
    let rest = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest)
        .ok_or_else(|| anyhow::anyhow!("{stat_path}: no ')' in {stat:?}"))?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3, so fields 14 and 15 are at 11 and 12.
    let ticks = |i: usize| -> anyhow::Result<f64> {
        Ok(fields
            .get(i)
            .ok_or_else(|| anyhow::anyhow!("{stat_path}: short"))?
            .parse::<f64>()?)
    };
    Ok((ticks(11)? + ticks(12)?) / USER_HZ)
}

/// The server binary, listening on a free loopback port, killed when dropped.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    fn start() -> anyhow::Result<Server> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port();
        // Another build may be named, to compare two servers on the same machine in turn.
        let binary = std::env::var_os("SUDOKU_BENCH_SERVER")
            .unwrap_or_else(|| env!("CARGO_BIN_EXE_sudoku-server").into());
        let child = Command::new(binary)
            .args(["--metrics-listen", "off", "--listen"])
            .arg(format!("127.0.0.1:{port}"))
            .env("RUST_LOG", "warn")
            .stderr(Stdio::inherit())
            .spawn()?;
        Ok(Server {
            child,
            url: format!("http://127.0.0.1:{port}"),
        })
    }

    async fn connect(&self) -> anyhow::Result<Channel> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            match Channel::from_shared(self.url.clone())?.connect().await {
                Ok(channel) => return Ok(channel),
                Err(err) if Instant::now() > deadline => return Err(err.into()),
                Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        }
    }

    fn cpu(&self) -> anyhow::Result<f64> {
        cpu_seconds(&format!("/proc/{}/stat", self.child.id()))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The bare solver's CPU seconds for `puzzles`, on this thread.
fn bare_cpu(puzzles: &[Grid]) -> anyhow::Result<f64> {
    let options = Options::default();
    let before = cpu_seconds("/proc/thread-self/stat")?;
    let solved = puzzles
        .iter()
        .filter(|p| solve(p, &options).is_ok())
        .count();
    anyhow::ensure!(solved == puzzles.len(), "every puzzle solves");
    Ok(cpu_seconds("/proc/thread-self/stat")? - before)
}

/// How a packed load is compressed: none, gzip (this crate's layers both ends), tonic's zstd.
#[derive(Debug, Clone, Copy)]
enum Wire {
    Plain,
    Gzip,
    Zstd,
}

async fn packed_call(
    channel: Channel,
    wire: Wire,
    messages: Vec<PackedPuzzles>,
) -> anyhow::Result<usize> {
    let client = SudokuClient::new(channel.clone());
    let zstd = CompressionEncoding::Zstd;
    match wire {
        Wire::Plain => packed_stream(client, messages).await,
        Wire::Gzip => {
            let layered = CompressLayer::new(Codec::Gzip, 64 << 20).layer(channel);
            packed_stream(SudokuClient::new(layered), messages).await
        }
        Wire::Zstd => {
            packed_stream(
                client.send_compressed(zstd).accept_compressed(zstd),
                messages,
            )
            .await
        }
    }
}

/// Sends `puzzles` over `STREAMS` BatchSolvePacked streams at once.
async fn packed(channel: &Channel, wire: Wire, puzzles: &[Grid]) -> anyhow::Result<()> {
    let messages = packed_messages(puzzles, PACKED);
    let mut calls = Vec::new();
    for stream in 0..STREAMS {
        let mine = messages
            .iter()
            .skip(stream)
            .step_by(STREAMS)
            .cloned()
            .collect();
        calls.push(tokio::spawn(packed_call(channel.clone(), wire, mine)));
    }
    let mut answered = 0;
    for call in calls {
        answered += call.await??;
    }
    anyhow::ensure!(answered == puzzles.len(), "every packed puzzle answered");
    Ok(())
}

fn requests(puzzles: &[Grid]) -> Vec<SolveRequest> {
    puzzles
        .iter()
        .map(|p| SolveRequest {
            puzzle: Some(grid_to_pb(p)),
            ..SolveRequest::default()
        })
        .collect()
}

/// Sends `puzzles` over `STREAMS` BatchSolve streams at once, a message per puzzle.
async fn batch(channel: &Channel, puzzles: &[Grid]) -> anyhow::Result<()> {
    let all = requests(puzzles);
    let mut calls = Vec::new();
    for stream in 0..STREAMS {
        let mine: Vec<SolveRequest> = all.iter().skip(stream).step_by(STREAMS).cloned().collect();
        let mut client = SudokuClient::new(channel.clone());
        calls.push(tokio::spawn(async move {
            let mut answers = client
                .batch_solve(tokio_stream::iter(mine))
                .await?
                .into_inner();
            let mut answered = 0;
            while let Some(answer) = answers.next().await {
                answer?;
                answered += 1;
            }
            anyhow::Ok(answered)
        }));
    }
    let mut answered = 0;
    for call in calls {
        answered += call.await??;
    }
    anyhow::ensure!(answered == puzzles.len(), "every batch puzzle answered");
    Ok(())
}

/// Solves `puzzles` by unary calls, `UNARY_CONCURRENCY` at once.
async fn unary(channel: &Channel, puzzles: &[Grid]) -> anyhow::Result<()> {
    let all = Arc::new(requests(puzzles));
    let mut calls = Vec::new();
    for lane in 0..UNARY_CONCURRENCY {
        let (all, mut client) = (all.clone(), SudokuClient::new(channel.clone()));
        calls.push(tokio::spawn(async move {
            for request in all.iter().skip(lane).step_by(UNARY_CONCURRENCY) {
                client.solve(request.clone()).await?;
            }
            anyhow::Ok(())
        }));
    }
    for call in calls {
        call.await??;
    }
    Ok(())
}

/// The server's CPU seconds while `load` runs.
async fn server_cpu(
    server: &Server,
    load: impl Future<Output = anyhow::Result<()>>,
) -> anyhow::Result<f64> {
    let before = server.cpu()?;
    load.await?;
    Ok(server.cpu()? - before)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let limit = env_number("SUDOKU_BENCH_LIMIT", 50_000) as usize;
    let rounds = env_number("SUDOKU_BENCH_ROUNDS", 3).max(1);
    let server = Server::start()?;
    let channel = server.connect().await?;
    // `load` has said why when a dataset is absent.
    match load(HARD, limit) {
        Some(hard) => calls(&server, &channel, &hard, rounds).await?,
        None => eprintln!("bench cpu: no {HARD}, its section not measured"),
    }
    match load(EASY, limit) {
        Some(easy) => {
            // Easy puzzles take ~2 µs: repeated, so the counters' 10 ms ticks are noise.
            let easy: Vec<Grid> = easy.iter().cycle().take(EASY_PUZZLES).cloned().collect();
            compression(&server, &channel, &easy, rounds).await?;
            call_cost(&server, &channel, &easy[..UNARY_EASY], rounds).await?
        }
        None => eprintln!("bench cpu: no {EASY}, its section not measured"),
    }
    Ok(())
}

/// What a unary call costs the server beyond its solve: easy puzzles (solved on the
/// calling task, no thread hop) by unary calls, less the bare solver's time for them. This
/// per-call cost (HTTP/2 framing, headers, routing) is paid whatever the puzzle, which is why
/// unary Solve cannot come near the bare solver on hard puzzles and throughput callers
/// should stream.
async fn call_cost(
    server: &Server,
    channel: &Channel,
    puzzles: &[Grid],
    rounds: u64,
) -> anyhow::Result<()> {
    let [bare, unary_us] = best_of(rounds, puzzles.len(), async || {
        Ok([
            bare_cpu(puzzles)?,
            server_cpu(server, unary(channel, puzzles)).await?,
        ])
    })
    .await?;
    println!(
        "bench cpu dataset={EASY} puzzles={} bare_us={bare:.2} unary_us={unary_us:.2} \
         unary_call_us={:.2}",
        puzzles.len(),
        unary_us - bare
    );
    Ok(())
}

/// Lowest of `rounds` runs of each of `runs`, per puzzle in microseconds.
async fn best_of<const N: usize>(
    rounds: u64,
    puzzles: usize,
    mut run: impl AsyncFnMut() -> anyhow::Result<[f64; N]>,
) -> anyhow::Result<[f64; N]> {
    let mut best = [f64::MAX; N];
    for round in 0..rounds {
        let per_puzzle = run().await?.map(|s| s * 1e6 / puzzles as f64);
        println!("round {round}: {per_puzzle:.1?} us");
        for (best, now) in best.iter_mut().zip(per_puzzle) {
            *best = best.min(now);
        }
    }
    Ok(best)
}

/// The hard set: bare solver against packed, per-puzzle stream and unary calls.
async fn calls(
    server: &Server,
    channel: &Channel,
    puzzles: &[Grid],
    rounds: u64,
) -> anyhow::Result<()> {
    // Warm up: the server's threads, allocator and connection reach their steady state.
    packed(
        channel,
        Wire::Plain,
        &puzzles[..puzzles.len().min(2 * PACKED)],
    )
    .await?;
    let [bare, packed_us, batch_us, unary_us] = best_of(rounds, puzzles.len(), async || {
        Ok([
            bare_cpu(puzzles)?,
            server_cpu(server, packed(channel, Wire::Plain, puzzles)).await?,
            server_cpu(server, batch(channel, puzzles)).await?,
            server_cpu(server, unary(channel, puzzles)).await?,
        ])
    })
    .await?;
    println!(
        "bench cpu dataset={HARD} puzzles={} bare_us={bare:.1} packed_us={packed_us:.1} \
         batch_us={batch_us:.1} unary_us={unary_us:.1} packed_ratio={:.3} batch_ratio={:.3} \
         unary_ratio={:.3}",
        puzzles.len(),
        packed_us / bare,
        batch_us / bare,
        unary_us / bare
    );
    Ok(())
}

/// The easy set, where compression weighs most: the server's CPU per puzzle over packed
/// streams plain, gzip and zstd.
async fn compression(
    server: &Server,
    channel: &Channel,
    puzzles: &[Grid],
    rounds: u64,
) -> anyhow::Result<()> {
    let [bare, plain, gzip, zstd] = best_of(rounds, puzzles.len(), async || {
        Ok([
            bare_cpu(puzzles)?,
            server_cpu(server, packed(channel, Wire::Plain, puzzles)).await?,
            server_cpu(server, packed(channel, Wire::Gzip, puzzles)).await?,
            server_cpu(server, packed(channel, Wire::Zstd, puzzles)).await?,
        ])
    })
    .await?;
    println!(
        "bench cpu dataset={EASY} puzzles={} bare_us={bare:.2} plain_us={plain:.2} \
         gzip_us={gzip:.2} zstd_us={zstd:.2} plain_ratio={:.3} gzip_vs_plain={:.3} \
         zstd_vs_plain={:.3}",
        puzzles.len(),
        plain / bare,
        gzip / plain,
        zstd / plain
    );
    Ok(())
}
