#[path = "../tests/support/mod.rs"]
mod support;
use solver_core::{Algorithm, Options, solve};
fn main() {
    for (name, puzzles) in support::datasets().unwrap() {
        for m in [1, 2] {
            let o = Options {
                max_solutions: m,
                algorithm: Algorithm::Fast,
                ..Options::default()
            };
            let g: u64 = puzzles
                .iter()
                .map(|p| solve(p, &o).unwrap().stats.guesses)
                .sum();
            println!(
                "{name} max={m} guesses/puzzle={:.1}",
                g as f64 / puzzles.len() as f64
            );
        }
    }
}
