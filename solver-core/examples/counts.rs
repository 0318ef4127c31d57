#[path = "../tests/support/mod.rs"]
mod support;
use solver_core::{Algorithm, Grid, Options, Shape, solve};
fn main() {
    let sets = support::datasets().unwrap();
    for (name, puzzles) in &sets {
        let puzzles = &puzzles[..puzzles.len().min(10000)];
        let o = Options {
            max_solutions: 1,
            algorithm: Algorithm::Fast,
            ..Options::default()
        };
        for p in puzzles {
            solve(p, &o).unwrap();
        }
        eprintln!("{name} x{}", puzzles.len());
        let _ = solve(&Grid::empty(Shape::CLASSIC), &o);
    }
}
