//! `cargo bench -p sudoku-server`: the cost of the gRPC layer, as ratios measured in one run.
//!
//! - `bench batch`: BatchSolve over one stream on 127.0.0.1 against the same number of solver
//!   threads solving the same puzzles in process.
//! - `bench packed`: BatchSolvePacked (1,000 puzzles a message, two cells a byte) over one
//!   stream, uncompressed, gzip and zstd (by a client with this crate's `CompressLayer`, and by
//!   one with tonic's own compression), each against the in-process solver threads, and
//!   compressed against plain; each ratio is a median of ratios between runs made moments
//!   apart.
//! - `bench unary`: unary Solve of easy puzzles against the health Check RPC (the floor cost
//!   of a call on this stack) at the same concurrency.
//!
//! `SUDOKU_DATA` moves the dataset folder; `SUDOKU_BENCH_LIMIT` caps puzzles per dataset
//! (default 20,000); `SUDOKU_BENCH_SECONDS` sets each unary run's length (default 3);
//! `SUDOKU_BENCH_ONLY` (comma-separated sections `batch`, `packed`, `unary` and dataset names)
//! runs only the sections named, on only the datasets named (all where none are).

mod common;

use std::time::{Duration, Instant};

use rayon::prelude::*;
use solver_core::{Grid, Options, solve};
use sudoku_compress::Codec;
use sudoku_compress::client::CompressLayer;
use sudoku_proto::grid_to_pb;
use sudoku_proto::pb::sudoku_client::SudokuClient;
use sudoku_proto::pb::{PackedPuzzles, SolveOptions, SolveRequest};
use sudoku_server::Config;
use tokio_stream::StreamExt;
use tonic::codec::CompressionEncoding;
use tonic::transport::Channel;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;
use tower::Layer;

use common::{env_number, load, packed_messages, packed_stream};

const CONCURRENCY: usize = 16;
/// Puzzles per stream, and per alternation between the gRPC and in-process runs: long enough
/// that a stream's start and drain do not dominate, as on the millions-of-puzzles streams
/// BatchSolve is for.
const CHUNK: usize = 10_000;
/// Puzzles per BatchSolvePacked message.
const PACKED: usize = 1_000;

const SECTIONS: [&str; 3] = ["batch", "packed", "unary"];
const DATASETS: [&str; 2] = ["puzzles5_forum_hardest_1905_11+", "puzzles2_17_clue"];

/// Whether the section or dataset `name` runs: all of its kind do unless `SUDOKU_BENCH_ONLY`
/// names some.
fn wanted(name: &str) -> bool {
    let Ok(only) = std::env::var("SUDOKU_BENCH_ONLY") else {
        return true;
    };
    let named: Vec<&str> = only.split(',').map(str::trim).collect();
    let kind: &[&str] = if SECTIONS.contains(&name) {
        &SECTIONS
    } else {
        &DATASETS
    };
    named.contains(&name) || !named.iter().any(|n| kind.contains(n))
}

fn requests(puzzles: &[Grid]) -> Vec<SolveRequest> {
    puzzles
        .iter()
        .enumerate()
        .map(|(i, p)| SolveRequest {
            id: i.to_string(),
            puzzle: Some(grid_to_pb(p)),
            options: Some(SolveOptions {
                max_solutions: 2,
                ..SolveOptions::default()
            }),
        })
        .collect()
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let config = Config::embedded();
    let workers = config.worker_count();
    let server = sudoku_server::start(config).await?;
    let channel = Channel::from_shared(format!("http://{}", server.addr()))?
        .connect()
        .await?;
    let limit = env_number("SUDOKU_BENCH_LIMIT", 20_000) as usize;
    let threads = rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build()?;

    for name in DATASETS {
        if !wanted("batch") || !wanted(name) {
            continue;
        }
        // `load` has said why when the dataset is absent.
        let Some(puzzles) = load(name, limit) else {
            continue;
        };
        bench_batch(name, &puzzles, &channel, &threads).await?;
    }

    for name in DATASETS {
        if !wanted("packed") || !wanted(name) {
            continue;
        }
        // `load` has said why when the dataset is absent.
        let Some(puzzles) = load(name, limit) else {
            continue;
        };
        bench_packed(name, &puzzles, &channel, &threads).await?;
    }

    if !wanted("unary") {
        return server.shutdown().await;
    }
    bench_unary(&channel).await;
    server.shutdown().await
}

/// One-puzzle-per-message BatchSolve against the solver on as many threads in process.
async fn bench_batch(
    name: &str,
    puzzles: &[Grid],
    channel: &Channel,
    threads: &rayon::ThreadPool,
) -> anyhow::Result<()> {
    // Chunks alternate between the two, each run three times keeping the fastest, so a
    // busy neighbour on this shared machine slows both alike.
    let (mut grpc_time, mut local_time) = (Duration::ZERO, Duration::ZERO);
    for chunk in puzzles.chunks(CHUNK) {
        let wire = requests(chunk);
        let (mut best_grpc, mut best_local) = (Duration::MAX, Duration::MAX);
        for _ in 0..3 {
            let mut client = SudokuClient::new(channel.clone());
            // The copy is the harness's, not the service's: made before the clock starts.
            let outbound = tokio_stream::iter(wire.clone());
            let start = Instant::now();
            let mut answers = client.batch_solve(outbound).await?.into_inner();
            let mut answered = 0;
            while let Some(answer) = answers.next().await {
                answer?;
                answered += 1;
            }
            best_grpc = best_grpc.min(start.elapsed());
            let start = Instant::now();
            let solved = solve_all(threads, chunk);
            best_local = best_local.min(start.elapsed());
            assert_eq!((answered, solved), (chunk.len(), chunk.len()));
        }
        grpc_time += best_grpc;
        local_time += best_local;
    }
    let grpc = puzzles.len() as f64 / grpc_time.as_secs_f64();
    let local = puzzles.len() as f64 / local_time.as_secs_f64();
    println!(
        "bench batch dataset={name} grpc_per_s={grpc:.0} inprocess_per_s={local:.0} ratio={:.2}",
        grpc / local
    );
    Ok(())
}

/// Unary Solve of easy puzzles against health Check, both at the same concurrency.
async fn bench_unary(channel: &Channel) {
    let easy = load("puzzles2_17_clue", 1_000)
        .unwrap_or_else(|| vec![Grid::empty(solver_core::Shape::CLASSIC)]);
    let easy = requests(&easy);
    let seconds = Duration::from_secs(env_number("SUDOKU_BENCH_SECONDS", 3));
    let easy = std::sync::Arc::new(easy);
    let (solve_channel, health_channel) = (channel.clone(), channel.clone());
    let solve_run = run_calls(seconds, move |i| {
        let mut client = SudokuClient::new(solve_channel.clone());
        let request = easy[i % easy.len()].clone();
        async move { client.solve(request).await.is_ok() }
    })
    .await;
    let health_run = run_calls(seconds, move |_| {
        let mut client = HealthClient::new(health_channel.clone());
        async move {
            client
                .check(HealthCheckRequest {
                    service: String::new(),
                })
                .await
                .is_ok()
        }
    })
    .await;
    println!(
        "bench unary concurrency={CONCURRENCY} solve_rps={:.0} health_rps={:.0} ratio={:.2} p50_us={} p99_us={} health_p50_us={} health_p99_us={}",
        solve_run.rps,
        health_run.rps,
        solve_run.rps / health_run.rps,
        solve_run.p50_us,
        solve_run.p99_us,
        health_run.p50_us,
        health_run.p99_us
    );
}

/// How a packed run's client compresses.
#[derive(Debug, Clone, Copy)]
enum Wire {
    Plain,
    /// By this crate's [`CompressLayer`] (level 1), as the server answers.
    Ours(Codec),
    /// By tonic's own compression (gzip level 6, zstd level 3); the server answers at level 1.
    Tonic(CompressionEncoding),
}

const WIRES: [Wire; 5] = [
    Wire::Plain,
    Wire::Ours(Codec::Gzip),
    Wire::Ours(Codec::Zstd),
    Wire::Tonic(CompressionEncoding::Gzip),
    Wire::Tonic(CompressionEncoding::Zstd),
];

async fn packed_run(
    channel: &Channel,
    wire: Wire,
    messages: Vec<PackedPuzzles>,
) -> anyhow::Result<usize> {
    let client = SudokuClient::new(channel.clone());
    match wire {
        Wire::Plain => packed_stream(client, messages).await,
        Wire::Ours(codec) => {
            let layered = CompressLayer::new(codec, 64 << 20).layer(channel.clone());
            packed_stream(SudokuClient::new(layered), messages).await
        }
        Wire::Tonic(encoding) => {
            let client = client.send_compressed(encoding).accept_compressed(encoding);
            packed_stream(client, messages).await
        }
    }
}

/// Rounds per chunk: every wire and the in-process threads once each, in an order rotated
/// from round to round.
const ROUNDS: usize = 7;

/// BatchSolvePacked plain, gzip and zstd (our client layer and tonic's) against the in-process
/// threads. The rates are each one's fastest round per chunk; each ratio is the median, over
/// every round of every chunk, of the two runs' ratio within that round: runs moments apart
/// share a busy neighbour's slowdown, where two fastest runs may come from quiet spells of
/// different lengths (best-of-three ratios of gzip against plain spread from 0.69 to 0.86 over
/// four runs of this bench on one build).
async fn bench_packed(
    name: &str,
    puzzles: &[Grid],
    channel: &Channel,
    threads: &rayon::ThreadPool,
) -> anyhow::Result<()> {
    const LOCAL: usize = WIRES.len();
    let mut fastest = [Duration::ZERO; LOCAL + 1];
    let mut rounds: Vec<[Duration; LOCAL + 1]> = Vec::new();
    for chunk in puzzles.chunks(CHUNK) {
        let messages = packed_messages(chunk, PACKED);
        let mut best = [Duration::MAX; LOCAL + 1];
        for round in 0..ROUNDS {
            let mut times = [Duration::ZERO; LOCAL + 1];
            for k in 0..=LOCAL {
                let slot = (round + k) % (LOCAL + 1);
                // The copy is the harness's, made before the clock starts.
                let wire = WIRES.get(slot).map(|&wire| (wire, messages.clone()));
                let start = Instant::now();
                let answered = match wire {
                    Some((wire, messages)) => packed_run(channel, wire, messages).await?,
                    None => solve_all(threads, chunk),
                };
                times[slot] = start.elapsed();
                assert_eq!(answered, chunk.len());
            }
            for (best, time) in best.iter_mut().zip(times) {
                *best = (*best).min(time);
            }
            rounds.push(times);
        }
        for (total, best) in fastest.iter_mut().zip(best) {
            *total += best;
        }
    }
    let rate = |t: Duration| puzzles.len() as f64 / t.as_secs_f64();
    let [plain, gzip, zstd, tonic_gzip, tonic_zstd, local] = fastest.map(rate);
    // Rate of `a` over rate of `b`: the time of `b` over the time of `a`.
    let ratio = |a: usize, b: usize| {
        let mut each: Vec<f64> = rounds
            .iter()
            .map(|t| t[b].as_secs_f64() / t[a].as_secs_f64())
            .collect();
        each.sort_by(f64::total_cmp);
        each[each.len() / 2]
    };
    println!(
        "bench packed dataset={name} plain_per_s={plain:.0} gzip_per_s={gzip:.0} \
         zstd_per_s={zstd:.0} tonic_gzip_per_s={tonic_gzip:.0} tonic_zstd_per_s={tonic_zstd:.0} \
         inprocess_per_s={local:.0} rounds={} ratio={:.2} gzip_vs_plain={:.2} \
         zstd_vs_plain={:.2} tonic_gzip_vs_plain={:.2} tonic_zstd_vs_plain={:.2}",
        rounds.len(),
        ratio(0, LOCAL),
        ratio(1, 0),
        ratio(2, 0),
        ratio(3, 0),
        ratio(4, 0)
    );
    Ok(())
}

struct Run {
    rps: f64,
    p50_us: u128,
    p99_us: u128,
}

/// Runs `CONCURRENCY` loops of calls for `length`; every call must succeed.
async fn run_calls<F, Fut>(length: Duration, call: F) -> Run
where
    F: Fn(usize) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = bool> + Send + 'static,
{
    let call = std::sync::Arc::new(call);
    let start = Instant::now();
    let deadline = start + length;
    let loops: Vec<_> = (0..CONCURRENCY)
        .map(|worker| {
            let call = call.clone();
            tokio::spawn(async move {
                let mut latencies = Vec::new();
                let mut i = worker;
                while Instant::now() < deadline {
                    let begin = Instant::now();
                    assert!(call(i).await, "every benchmark call succeeds");
                    latencies.push(begin.elapsed().as_micros());
                    i += CONCURRENCY;
                }
                latencies
            })
        })
        .collect();
    let mut latencies = Vec::new();
    for handle in loops {
        latencies.extend(handle.await.expect("call loop"));
    }
    let elapsed = start.elapsed();
    latencies.sort_unstable();
    let at = |q: f64| {
        latencies
            .get(((latencies.len() as f64 * q) as usize).min(latencies.len().saturating_sub(1)))
            .copied()
            .unwrap_or(0)
    };
    Run {
        rps: latencies.len() as f64 / elapsed.as_secs_f64(),
        p50_us: at(0.50),
        p99_us: at(0.99),
    }
}

/// Solves `chunk` on `threads` in this process: the reference every gRPC run is set against.
fn solve_all(threads: &rayon::ThreadPool, chunk: &[Grid]) -> usize {
    let options = Options::default();
    threads.install(|| {
        chunk
            .par_iter()
            .filter(|p| solve(p, &options).is_ok())
            .count()
    })
}
