#[path = "../tests/support/mod.rs"]
mod support;
use solver_core::{Algorithm, Options, solve};
fn main() {
    let sets = support::datasets().unwrap();
    let o = Options {
        max_solutions: 2,
        algorithm: Algorithm::Fast,
        ..Options::default()
    };
    for _ in 0..2 {
        for (name, puzzles) in &sets {
            if !name.contains("puzzles5") {
                continue;
            }
            let n = puzzles
                .iter()
                .filter(|p| solve(p, &o).unwrap().outcome.found() == 1)
                .count();
            println!("{n}");
        }
    }
}
