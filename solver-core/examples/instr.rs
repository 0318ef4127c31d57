use solver_core::{Algorithm, Grid, Options, solve};
use std::hint::black_box;
#[inline(never)]
fn ours(p: &[Grid], m: usize) -> usize {
    let o = Options {
        max_solutions: m,
        algorithm: Algorithm::Fast,
        ..Options::default()
    };
    p.iter()
        .filter(|p| solve(black_box(p), &o).unwrap().outcome.found() == 1)
        .count()
}
#[inline(never)]
fn theirs(p: &[sudoku::Sudoku], m: usize) -> usize {
    p.iter()
        .filter(|&&s| {
            if m == 1 {
                black_box(s).some_solution().is_some()
            } else {
                black_box(s).solution().is_some()
            }
        })
        .count()
}
fn main() {
    let file = std::env::args().nth(1).unwrap();
    let m: usize = std::env::args().nth(2).unwrap().parse().unwrap();
    let text = std::fs::read_to_string(file).unwrap();
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .take(500)
        .collect();
    let g: Vec<Grid> = lines.iter().map(|l| l.parse().unwrap()).collect();
    let s: Vec<sudoku::Sudoku> = g
        .iter()
        .map(|g| sudoku::Sudoku::from_bytes_slice(g.cells()).unwrap())
        .collect();
    println!("{} {}", ours(&g, m), theirs(&s, m));
}
