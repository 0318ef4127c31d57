//! A profiling driver: `cargo run --release -p solver-bench --example profile -- WORD N MODE`
//! solves `N` transformed puzzles of the datasets whose name contains `WORD` with the fast
//! solver (`MODE` 1: first solution, 2: count to two), once, and prints guesses per puzzle.
//! A fourth argument `tdoku` solves the same puzzles with tdoku instead (build it without
//! AVX-512 for valgrind: `TDOKU_MARCH=x86-64-v3`).
//! Meant for instruction counts (`valgrind --tool=callgrind`), not timing.

#[path = "../../solver-core/tests/support/mod.rs"]
mod support;

use solver_bench::tdoku;
use solver_core::solve::Algorithm;
use solver_core::{Options, solve};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let word = args.first().map_or("", String::as_str);
    let count: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(200);
    let max_solutions: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(1);
    let with_tdoku = args.get(3).is_some_and(|a| a == "tdoku");
    let options = Options {
        max_solutions,
        algorithm: Algorithm::Fast,
        ..Options::default()
    };
    let Some(sets) = support::datasets() else {
        return;
    };
    for (name, mut puzzles) in sets.into_iter().filter(|(n, _)| n.contains(word)) {
        let mut rng = support::Rng::new(38);
        rng.shuffle(&mut puzzles);
        puzzles.truncate(count);
        let (mut solved, mut guesses) = (0, 0);
        for p in &puzzles {
            let p = support::Symmetry::random(p.shape(), &mut rng).apply(p);
            if with_tdoku {
                let t = tdoku::Puzzle::new(p.cells()).expect("a 9x9 grid");
                let (found, g) = tdoku::solve_all(&[t], max_solutions).expect("tdoku was built");
                solved += usize::from(found >= 1);
                guesses += g;
            } else if let Ok(r) = solve(&p, &options) {
                solved += usize::from(r.outcome.found() >= 1);
                guesses += r.stats.guesses;
            }
        }
        let n = puzzles.len().max(1);
        println!(
            "{name}: {solved}/{n} solved, {:.1} guesses",
            guesses as f64 / n as f64
        );
    }
}
