//! Rates every puzzle of a file (one per line, puzzle first) and prints the total of the
//! ratings: a small, deterministic workload for `valgrind --tool=callgrind` or `perf stat`,
//! without the benchmark's extra passes. `cargo run --release -p solver-core --example
//! rate_profile -- FILE [LIMIT]`.

use solver_core::Grid;
use solver_core::logic::{RateOptions, rate};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: rate_profile FILE [LIMIT]");
        std::process::exit(2);
    };
    let limit = args
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(usize::MAX);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let grids: Vec<Grid> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next()?.parse().ok())
        .take(limit)
        .collect();
    let options = RateOptions::default();
    let start = std::time::Instant::now();
    let total: u64 = grids
        .iter()
        .filter_map(|g| rate(g, &options).ok())
        .map(|r| u64::from(r.tenths))
        .sum();
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{} puzzles, tenths total {total}, {:.3} s, {:.0}/s",
        grids.len(),
        secs,
        grids.len() as f64 / secs
    );
}
