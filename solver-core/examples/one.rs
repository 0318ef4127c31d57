#[path = "../tests/support/mod.rs"]
mod support;
use solver_core::{Algorithm, Options, solve};
fn main() {
    let sets = support::datasets().unwrap();
    let o = Options {
        max_solutions: 1,
        algorithm: Algorithm::Fast,
        ..Options::default()
    };
    let n: usize = sets[0].1[..2000]
        .iter()
        .map(|p| solve(p, &o).unwrap().outcome.found())
        .sum();
    println!("{n}");
}
