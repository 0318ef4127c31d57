//! `cargo bench -p solver-bench`: our fast 9×9 solver against tdoku (C++, vendored, built with
//! `-O3 -march=native`) and the `sudoku` crate (a JCZSolve port) on every dataset, in one
//! process and one thread, plus the general solver on 16×16 and 25×25.
//!
//! Every puzzle is a randomly transformed copy (digits relabelled, rows permuted within bands,
//! bands permuted, the same for columns and stacks, transposed or not), and the copies are
//! shuffled, all from a fixed seed (`SUDOKU_BENCH_SEED`): file order and the authors' own
//! orientation flatter a solver whose choices follow the grid's layout.
//!
//! Each dataset is cut into chunks; each chunk is solved by every solver in turn for a few
//! rounds, and each solver's fastest round per chunk counts, so a noisy neighbour slows all
//! alike and the printed ratios hold. Ratios are others' time over ours: above 1 we are faster.
//! Guesses per puzzle are each solver's own count: ours counts every value tried in a cell,
//! tdoku one per binary branch on a band configuration.
//! Reading the one-line text form is timed likewise (`parse`, ours against the crate's).
//! `SUDOKU_DATA` moves the dataset folder (missing data: SKIP, or a failure in CI);
//! `SUDOKU_BENCH_LIMIT` caps puzzles per dataset;
//! `cargo bench -p solver-bench -- WORD` runs only the datasets whose name contains WORD.

#[path = "../../solver-core/tests/support/mod.rs"]
mod support;

use std::hint::black_box;
use std::time::{Duration, Instant};

use solver_bench::tdoku;
use solver_core::solve::Algorithm;
use solver_core::{Grid, Options, Shape, solve};
use sudoku::Sudoku;

/// Rounds per chunk; each solver's fastest round of each chunk counts.
const ROUNDS: usize = 3;
/// Puzzles per chunk: short enough that the solvers of a round see the same machine load.
const CHUNK: usize = 250;
/// The transformations' seed unless `SUDOKU_BENCH_SEED` says otherwise.
const SEED: u64 = 38;

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

/// What one solver did with one chunk: puzzles it got right, and its guesses.
type Done = (usize, u64);

fn ours(puzzles: &[Grid], mode: Mode, algorithm: Algorithm) -> Done {
    let options = Options {
        max_solutions: mode.max_solutions(),
        algorithm,
        ..Options::default()
    };
    puzzles
        .iter()
        .fold((0, 0), |(n, g), p| match solve(black_box(p), &options) {
            Ok(r) => (n + usize::from(r.outcome.found() == 1), g + r.stats.guesses),
            Err(_) => (n, g),
        })
}

fn crate_solver(puzzles: &[Sudoku], mode: Mode) -> Done {
    let solved = puzzles
        .iter()
        .filter(|&&p| match mode {
            Mode::First => black_box(p).some_solution().is_some(),
            Mode::Unique => black_box(p).solution().is_some(),
        })
        .count();
    (solved, 0)
}

fn tdoku_solver(puzzles: &[tdoku::Puzzle], mode: Mode) -> Done {
    // Every dataset puzzle has one solution, so one found per puzzle in either mode.
    tdoku::solve_all(puzzles, mode.max_solutions()).unwrap_or((0, 0))
}

fn env<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

fn main() {
    let limit = env("SUDOKU_BENCH_LIMIT").unwrap_or(usize::MAX);
    let seed = env("SUDOKU_BENCH_SEED").unwrap_or(SEED);
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let wanted =
        |name: &str| filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str()));
    if !tdoku::available() {
        eprintln!(
            "WARNING: tdoku was not built (no C++ compiler found): it is SKIPPED, no tdoku ratios below"
        );
    }
    if let Some(sets) = support::datasets() {
        for (name, puzzles) in sets.into_iter().filter(|(name, _)| wanted(name)) {
            let puzzles = transformed(puzzles, limit, seed);
            dataset(&name, &puzzles);
        }
    }
    general_sizes(&wanted);
}

/// Random transformed copies of up to `limit` of `puzzles`, in random order.
fn transformed(mut puzzles: Vec<Grid>, limit: usize, seed: u64) -> Vec<Grid> {
    let mut rng = support::Rng::new(seed);
    rng.shuffle(&mut puzzles);
    puzzles.truncate(limit);
    puzzles
        .iter()
        .map(|p| support::Symmetry::random(p.shape(), &mut rng).apply(p))
        .collect()
}

/// Every solver on one dataset's puzzles, in both modes.
fn dataset(name: &str, puzzles: &[Grid]) {
    let crates: Vec<Sudoku> = puzzles
        .iter()
        .map(|g| Sudoku::from_bytes_slice(g.cells()).expect("a valid 9x9 grid"))
        .collect();
    let tdokus: Vec<tdoku::Puzzle> = puzzles
        .iter()
        .map(|g| tdoku::Puzzle::new(g.cells()).expect("a 9x9 grid"))
        .collect();
    parsing(name, puzzles);
    let with_tdoku = tdoku::available();
    for mode in [Mode::First, Mode::Unique] {
        let mut sides: Vec<Side> = vec![
            Side::new("ours", |i| ours(chunk(puzzles, i), mode, Algorithm::Fast)),
            Side::new("sudoku_crate", |i| crate_solver(chunk(&crates, i), mode)),
        ];
        if with_tdoku {
            sides.push(Side::new("tdoku", |i| {
                tdoku_solver(chunk(&tdokus, i), mode)
            }));
        }
        race(&mut sides, puzzles.len(), &format!("{name}: solve"));
        let n = puzzles.len() as f64;
        let rate = |s: &Side| per_s(puzzles.len(), s.time);
        let mut line = format!(
            "bench dataset={name} mode={} ours_per_s={:.0} sudoku_crate_per_s={:.0} vs_crate={:.2}",
            mode.name(),
            rate(&sides[0]),
            rate(&sides[1]),
            sides[1].time.as_secs_f64() / sides[0].time.as_secs_f64(),
        );
        if let Some(t) = sides.get(2) {
            line += &format!(
                " tdoku_per_s={:.0} vs_tdoku={:.2} guesses_per_puzzle ours={:.1} tdoku={:.1}",
                rate(t),
                t.time.as_secs_f64() / sides[0].time.as_secs_f64(),
                sides[0].guesses as f64 / n,
                t.guesses as f64 / n,
            );
        } else {
            line += &format!(
                " tdoku=SKIPPED guesses_per_puzzle ours={:.1}",
                sides[0].guesses as f64 / n
            );
        }
        println!("{line}");
    }
}

fn chunk<T>(items: &[T], i: usize) -> &[T] {
    &items[i * CHUNK..((i + 1) * CHUNK).min(items.len())]
}

/// One solver in a race: how to run chunk `i`, and its best times and guesses summed.
struct Side<'a> {
    name: &'static str,
    run: Box<dyn Fn(usize) -> Done + 'a>,
    time: Duration,
    guesses: u64,
}

impl<'a> Side<'a> {
    fn new(name: &'static str, run: impl Fn(usize) -> Done + 'a) -> Side<'a> {
        Side {
            name,
            run: Box::new(run),
            time: Duration::ZERO,
            guesses: 0,
        }
    }
}

/// Every side in turn on each chunk of `count` puzzles, `ROUNDS` times; each side's fastest
/// round per chunk counts. Each side must get every puzzle right (`what` says at what).
fn race(sides: &mut [Side], count: usize, what: &str) {
    for i in 0..count.div_ceil(CHUNK) {
        let len = CHUNK.min(count - i * CHUNK);
        let mut best = vec![Duration::MAX; sides.len()];
        for round in 0..ROUNDS {
            for (side, best) in sides.iter_mut().zip(&mut best) {
                let start = Instant::now();
                let (solved, guesses) = (side.run)(i);
                *best = (*best).min(start.elapsed());
                assert_eq!(solved, len, "{what}: {} must solve every puzzle", side.name);
                if round == 0 {
                    side.guesses += guesses;
                }
            }
        }
        for (side, best) in sides.iter_mut().zip(best) {
            side.time += best;
        }
    }
}

fn per_s(count: usize, time: Duration) -> f64 {
    count as f64 / time.as_secs_f64()
}

/// Reading the puzzles from their one-line text form, ours against the crate's, chunk by
/// chunk as the solves are.
fn parsing(name: &str, puzzles: &[Grid]) {
    let lines: Vec<String> = puzzles.iter().map(Grid::to_line).collect();
    let mut sides = [
        Side::new("ours", |i| {
            let n = chunk(&lines, i)
                .iter()
                .filter(|l| black_box(l.parse::<Grid>()).is_ok())
                .count();
            (n, 0)
        }),
        Side::new("sudoku_crate", |i| {
            let n = chunk(&lines, i)
                .iter()
                .filter(|l| black_box(Sudoku::from_str_line(l)).is_ok())
                .count();
            (n, 0)
        }),
    ];
    race(&mut sides, lines.len(), &format!("{name}: read"));
    println!(
        "bench dataset={name} parse ours_per_s={:.0} sudoku_crate_per_s={:.0} ratio={:.2}",
        per_s(lines.len(), sides[0].time),
        per_s(lines.len(), sides[1].time),
        sides[1].time.as_secs_f64() / sides[0].time.as_secs_f64()
    );
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
            let mut best = Duration::MAX;
            let mut guesses = 0;
            for _ in 0..ROUNDS {
                let start = Instant::now();
                let (n, g) = ours(&puzzles, mode, Algorithm::General);
                best = best.min(start.elapsed());
                guesses = g;
                assert_eq!(
                    n,
                    puzzles.len(),
                    "general must solve every generated puzzle"
                );
            }
            println!(
                "bench dataset=generated-{side}x{side} mode={} ours_per_s={:.0} guesses_per_puzzle={:.1} algorithm=general",
                mode.name(),
                per_s(puzzles.len(), best),
                guesses as f64 / puzzles.len() as f64
            );
        }
    }
}
