//! `cargo bench -p solver-core`: our fast solver against the `sudoku` crate (a JCZSolve port)
//! on every dataset, in one process and one thread, plus the general solver on 16×16 and 25×25.
//!
//! Each dataset is cut into chunks; each chunk is solved by both solvers in turn for a few
//! rounds, and each solver's fastest round per chunk counts, so a noisy neighbour slows
//! both alike and the printed ratio holds. Reading the one-line text form is timed likewise
//! (`parse`); ours also checks that no digit repeats in a house and allocates the grid, which
//! the crate's `from_str_line` does not.
//! `SUDOKU_DATA` moves the dataset folder (missing data: SKIP, or a failure in CI); `SUDOKU_BENCH_LIMIT` caps puzzles per dataset;
//! `cargo bench -p solver-core -- WORD` runs only the datasets whose name contains WORD.

#[path = "../tests/support/mod.rs"]
mod support;

use std::hint::black_box;
use std::time::{Duration, Instant};

use solver_core::{Algorithm, Grid, Options, Shape, solve};
use sudoku::Sudoku;

/// Rounds per chunk; each solver's fastest round of each chunk counts.
const ROUNDS: usize = 3;
/// Puzzles per chunk: short enough that both solvers of a round see the same machine load.
const CHUNK: usize = 250;

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    First,
    Unique,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::First => "first",
            Mode::Unique => "unique",
        }
    }

    fn max_solutions(self) -> usize {
        match self {
            Mode::First => 1,
            Mode::Unique => 2,
        }
    }
}

fn ours(puzzles: &[Grid], mode: Mode, algorithm: Algorithm) -> usize {
    let options = Options {
        max_solutions: mode.max_solutions(),
        algorithm,
        ..Options::default()
    };
    puzzles
        .iter()
        .filter(|p| solve(black_box(p), &options).is_ok_and(|s| s.outcome.found() == 1))
        .count()
}

fn theirs(puzzles: &[Sudoku], mode: Mode) -> usize {
    puzzles
        .iter()
        .filter(|&&p| match mode {
            Mode::First => black_box(p).some_solution().is_some(),
            Mode::Unique => black_box(p).solution().is_some(),
        })
        .count()
}

fn timed(f: impl FnOnce() -> usize) -> (Duration, usize) {
    let start = Instant::now();
    let solved = f();
    (start.elapsed(), solved)
}

fn per_s(count: usize, time: Duration) -> f64 {
    count as f64 / time.as_secs_f64()
}

fn main() {
    let limit = std::env::var("SUDOKU_BENCH_LIMIT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(usize::MAX);
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let wanted =
        |name: &str| filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str()));
    if let Some(sets) = support::datasets() {
        for (name, mut puzzles) in sets.into_iter().filter(|(name, _)| wanted(name)) {
            puzzles.truncate(limit);
            let crate_puzzles: Vec<Sudoku> = puzzles
                .iter()
                .map(|g| Sudoku::from_bytes_slice(g.cells()).expect("a valid 9x9 grid"))
                .collect();
            parsing(&name, &puzzles);
            for mode in [Mode::First, Mode::Unique] {
                let chunks = puzzles.chunks(CHUNK).zip(crate_puzzles.chunks(CHUNK));
                let (a, b) = side_by_side(
                    chunks,
                    |mine| ours(mine, mode, Algorithm::Fast),
                    |crates| theirs(crates, mode),
                    &format!("{name}: solve"),
                );
                println!(
                    "bench dataset={name} mode={} ours_per_s={a:.0} sudoku_crate_per_s={b:.0} ratio={:.2}",
                    mode.name(),
                    a / b
                );
            }
        }
    }
    general_sizes(&wanted);
}

/// Reading the puzzles from their one-line text form, ours against the crate's, chunk by
/// chunk as the solves are.
fn parsing(name: &str, puzzles: &[Grid]) {
    let lines: Vec<String> = puzzles.iter().map(Grid::to_line).collect();
    let (a, b) = side_by_side(
        lines.chunks(CHUNK).map(|chunk| (chunk, chunk)),
        |chunk| {
            chunk
                .iter()
                .filter(|l| black_box(l.parse::<Grid>()).is_ok())
                .count()
        },
        |chunk| {
            chunk
                .iter()
                .filter(|l| black_box(Sudoku::from_str_line(l)).is_ok())
                .count()
        },
        &format!("{name}: read"),
    );
    println!(
        "bench dataset={name} parse ours_per_s={a:.0} sudoku_crate_per_s={b:.0} ratio={:.2}",
        a / b
    );
}

/// Ours and the crate's in turn on each pair of chunks (the same puzzles in each side's
/// form), `ROUNDS` times; each side's fastest round per chunk counts. Each side must get
/// through every puzzle (`what` says at what). Returns each side's puzzles per second.
fn side_by_side<'a, T: 'a, U: 'a>(
    chunks: impl Iterator<Item = (&'a [T], &'a [U])>,
    ours: impl Fn(&'a [T]) -> usize,
    theirs: impl Fn(&'a [U]) -> usize,
    what: &str,
) -> (f64, f64) {
    let (mut count, mut best_ours, mut best_theirs) = (0, Duration::ZERO, Duration::ZERO);
    for (mine, crates) in chunks {
        let (mut a, mut b) = (Duration::MAX, Duration::MAX);
        for _ in 0..ROUNDS {
            let (t, n) = timed(|| ours(mine));
            assert_eq!(n, mine.len(), "{what}: ours must do every puzzle");
            a = a.min(t);
            let (t, n) = timed(|| theirs(crates));
            assert_eq!(n, crates.len(), "{what}: the crate must do every puzzle");
            b = b.min(t);
        }
        count += mine.len();
        best_ours += a;
        best_theirs += b;
    }
    (per_s(count, best_ours), per_s(count, best_theirs))
}

/// The general solver on generated puzzles of the larger sizes (no published competitor).
fn general_sizes(wanted: &dyn Fn(&str) -> bool) {
    let mut rng = support::Rng::new(2026);
    for (rows, cols, count, keep) in [(4, 4, 50, 0), (5, 5, 10, 330)] {
        let shape = Shape::new(rows, cols).expect("supported shape");
        let side = shape.side();
        if !wanted(&format!("generated-{side}x{side}")) {
            continue;
        }
        let puzzles: Vec<Grid> = (0..count)
            .map(|_| support::unique_puzzle(shape, keep, &mut rng))
            .collect();
        for mode in [Mode::First, Mode::Unique] {
            let best = (0..ROUNDS)
                .map(|_| {
                    let (t, n) = timed(|| ours(&puzzles, mode, Algorithm::General));
                    assert_eq!(
                        n,
                        puzzles.len(),
                        "general must solve every generated puzzle"
                    );
                    t
                })
                .min()
                .unwrap_or(Duration::MAX);
            println!(
                "bench dataset=generated-{side}x{side} mode={} ours_per_s={:.0} algorithm=general",
                mode.name(),
                per_s(puzzles.len(), best)
            );
        }
    }
}
