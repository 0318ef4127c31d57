#[path = "../tests/support/mod.rs"]
mod support;
use solver_core::{Algorithm, Options, solve};
use std::time::Instant;
fn main() {
    let sets = support::datasets().unwrap();
    for (name, puzzles) in &sets {
        let puzzles = &puzzles[..puzzles.len().min(10000)];
        for m in [1, 2] {
            let o = Options {
                max_solutions: m,
                algorithm: Algorithm::Fast,
                ..Options::default()
            };
            let mut best = f64::MAX;
            for _ in 0..3 {
                let t = Instant::now();
                let n = puzzles
                    .iter()
                    .filter(|p| solve(p, &o).unwrap().outcome.found() == 1)
                    .count();
                assert_eq!(n, puzzles.len());
                best = best.min(t.elapsed().as_secs_f64());
            }
            println!("{name} max={m} per_s={:.0}", puzzles.len() as f64 / best);
        }
    }
}
