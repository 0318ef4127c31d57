//! `cargo bench -p sudoku-client`: `sudoku batch` (the release binary with its embedded
//! server, from reading the file to printing every answer) against the solver on as many
//! threads in this process, the same puzzles already parsed. Both run in turn, at least nine
//! times each and for at least five seconds. `ratio` is the median of the pairs' ratios (a
//! pair's two runs are moments apart, so a busy neighbour slows both alike); `fastest_ratio`
//! sets each side's fastest run against the other's (with five runs, one busy spell could
//! cover every run of the CLI, which needs both cores for longest).
//!
//! The puzzles are relabelled and transposed at random first (fixed seed), as the reference
//! solvers' harnesses do, so the file's order cannot flatter either side.
//!
//! `SUDOKU_BENCH_CLI` runs another `sudoku` binary (a copy of an earlier build), to compare two
//! builds by running the bench with each in turn.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use solver_core::{Grid, Options, solve};

/// Fewest runs of each side, and the least time they take together.
const RUNS: usize = 9;
const LEAST_TIME: Duration = Duration::from_secs(5);

/// A small deterministic generator: the bench needs repeatable, not strong, randomness.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, below: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % below as u64) as usize
    }
}

/// The puzzle with its digits relabelled and, half the time, transposed.
fn transform(line: &str, rng: &mut Lcg) -> String {
    let mut labels: Vec<u8> = (b'1'..=b'9').collect();
    for i in (1..labels.len()).rev() {
        labels.swap(i, rng.next(i + 1));
    }
    let cells: Vec<u8> = line
        .bytes()
        .map(|c| match c {
            b'1'..=b'9' => labels[usize::from(c - b'1')],
            _ => b'.',
        })
        .collect();
    let transpose = rng.next(2) == 1;
    (0..81)
        .map(|i| char::from(cells[if transpose { (i % 9) * 9 + i / 9 } else { i }]))
        .collect()
}

fn main() {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    // Another build's binary (a copy of an earlier one), to compare two builds in turn.
    let binary = std::env::var_os("SUDOKU_BENCH_CLI").map_or_else(
        || env!("CARGO_BIN_EXE_sudoku").into(),
        std::path::PathBuf::from,
    );
    for name in ["puzzles2_17_clue", "puzzles5_forum_hardest_1905_11+"] {
        let Some(path) = test_support::data_file(name) else {
            continue;
        };
        let dataset = test_support::read_dataset(&path);
        let mut rng = Lcg(0x5eed);
        let lines: Vec<String> = dataset
            .puzzles
            .iter()
            .filter(|l| l.len() == 81)
            .map(|l| transform(l, &mut rng))
            .collect();
        let grids: Vec<Grid> = lines.iter().filter_map(|l| l.parse().ok()).collect();
        assert_eq!(grids.len(), lines.len(), "every transformed puzzle parses");
        let file = std::env::temp_dir().join(format!("sudoku-bench-{}-{name}", std::process::id()));
        let mut out = std::fs::File::create(&file).expect("a temporary file");
        out.write_all((lines.join("\n") + "\n").as_bytes())
            .expect("the puzzles are written");
        let (mut cli, mut local) = (Duration::MAX, Duration::MAX);
        let mut pairs = Vec::new();
        let began = Instant::now();
        while pairs.len() < RUNS || began.elapsed() < LEAST_TIME {
            let start = Instant::now();
            let status = Command::new(&binary)
                .args(["--format", "line", "batch"])
                .arg(&file)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .expect("sudoku runs");
            let cli_run = start.elapsed();
            cli = cli.min(cli_run);
            assert!(status.success(), "sudoku batch solves every puzzle");
            let start = Instant::now();
            let solved = pool.install(|| {
                grids
                    .par_iter()
                    .filter(|g| solve(g, &Options::default()).is_ok())
                    .count()
            });
            let local_run = start.elapsed();
            local = local.min(local_run);
            assert_eq!(solved, grids.len());
            pairs.push(local_run.as_secs_f64() / cli_run.as_secs_f64());
        }
        pairs.sort_by(f64::total_cmp);
        let _ = std::fs::remove_file(&file);
        let rate = |t: Duration| grids.len() as f64 / t.as_secs_f64();
        println!(
            "bench cli-batch dataset={name} puzzles={} cli_per_s={:.0} inprocess_per_s={:.0} threads={threads} ratio={:.2} fastest_ratio={:.2}",
            grids.len(),
            rate(cli),
            rate(local),
            pairs[pairs.len() / 2],
            rate(cli) / rate(local)
        );
    }
}
