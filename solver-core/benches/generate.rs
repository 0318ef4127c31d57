//! `cargo bench -p solver-core --bench generate`: puzzles per second, one thread, one process.
//!
//! Against the `sudoku` crate's generator, like with like: random minimal unique 9×9 puzzles
//! (theirs: `generate_from(generate_solved())`, no symmetry), and 180°-symmetric puzzles where
//! no pair of givens can go (theirs: `generate()`; ours: carving without `minimal`). Both sides
//! run in turn in short chunks for a few rounds and each side's fastest chunk rate counts, so
//! machine noise hits both alike. Then our rate per symmetry and for larger grids.
//! `SUDOKU_BENCH_SECONDS` sets the time per measurement (default 1).

use std::hint::black_box;
use std::time::{Duration, Instant};

use solver_core::generate::{GenerateOptions, Generator, SeRater, Symmetry, level_band};
use solver_core::logic::Level;
use solver_core::{Limits, Shape};
use sudoku::Sudoku;
use sudoku::Symmetry as TheirSymmetry;

/// Rounds of alternating chunks; each side's best round counts.
const ROUNDS: usize = 5;

fn seconds() -> f64 {
    std::env::var("SUDOKU_BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0)
}

/// Our generator for `options`, continuing from `seed`; returns puzzles made and givens total.
fn ours(options: &GenerateOptions, seed: u64, count: usize) -> (usize, usize) {
    let options = GenerateOptions {
        seed,
        ..options.clone()
    };
    let generator = Generator::new(options, None).expect("a valid request");
    let mut givens = 0;
    for made in generator.take(count) {
        givens += black_box(made.expect("no limits").givens);
    }
    (count, givens)
}

fn theirs(symmetry: TheirSymmetry, count: usize) -> (usize, usize) {
    let mut givens = 0;
    for _ in 0..count {
        let puzzle = Sudoku::generate_with_symmetry_from(Sudoku::generate_solved(), symmetry);
        givens += usize::from(black_box(puzzle).n_clues());
    }
    (count, givens)
}

/// Puzzles per second of `run(count)`, best of `ROUNDS` chunks sized to take about
/// `seconds() / ROUNDS` each, plus mean givens.
struct Rate {
    per_second: f64,
    mean_givens: f64,
}

fn time(mut run: impl FnMut(usize) -> (usize, usize), chunk: usize) -> (f64, usize, usize) {
    let start = Instant::now();
    let (n, givens) = run(chunk);
    (n as f64 / start.elapsed().as_secs_f64(), n, givens)
}

/// Chunk size giving about `target` per chunk, from a short calibration run.
fn calibrate(run: &mut impl FnMut(usize) -> (usize, usize), target: Duration) -> usize {
    let (rate, _, _) = time(&mut *run, 3);
    ((rate * target.as_secs_f64()) as usize).max(1)
}

/// Runs `a` and `b` in alternating chunks; best chunk rate of each.
fn duel(
    mut a: impl FnMut(usize) -> (usize, usize),
    mut b: impl FnMut(usize) -> (usize, usize),
) -> (Rate, Rate) {
    let target = Duration::from_secs_f64(seconds() / ROUNDS as f64);
    let (ca, cb) = (calibrate(&mut a, target), calibrate(&mut b, target));
    let mut best = [0.0f64; 2];
    let mut totals = [(0usize, 0usize); 2];
    for _ in 0..ROUNDS {
        for (side, (run, chunk)) in [
            (&mut a as &mut dyn FnMut(usize) -> (usize, usize), ca),
            (&mut b, cb),
        ]
        .into_iter()
        .enumerate()
        {
            let (rate, n, givens) = time(run, chunk);
            best[side] = best[side].max(rate);
            totals[side].0 += n;
            totals[side].1 += givens;
        }
    }
    let rate = |side: usize| Rate {
        per_second: best[side],
        mean_givens: totals[side].1 as f64 / totals[side].0 as f64,
    };
    (rate(0), rate(1))
}

/// Our rate alone for one request.
fn solo(options: &GenerateOptions) -> Rate {
    let mut seed = 1u64;
    let mut run = |n: usize| {
        seed += 1_000_003;
        ours(options, seed, n)
    };
    let target = Duration::from_secs_f64(seconds() / ROUNDS as f64);
    let chunk = calibrate(&mut run, target);
    let mut best = 0.0f64;
    let (mut n, mut givens) = (0, 0);
    for _ in 0..ROUNDS {
        let (rate, made, g) = time(&mut run, chunk);
        best = best.max(rate);
        n += made;
        givens += g;
    }
    Rate {
        per_second: best,
        mean_givens: givens as f64 / n as f64,
    }
}

fn versus(label: &str, options: GenerateOptions, symmetry: TheirSymmetry) {
    let mut seed = 0u64;
    let (us, them) = duel(
        |n| {
            seed += 1_000_003;
            ours(&options, seed, n)
        },
        |n| theirs(symmetry, n),
    );
    println!(
        "{label:<34} ours {:>9.0}/s ({:.1} givens)  sudoku crate {:>9.0}/s ({:.1} givens)  ratio {:.2}x",
        us.per_second,
        us.mean_givens,
        them.per_second,
        them.mean_givens,
        us.per_second / them.per_second
    );
}

/// Puzzles per second at each level (rated by the logic engine), over a fixed time; a level
/// with none in that time prints its attempt rate instead.
fn levels() {
    let rater = SeRater::default();
    for level in [
        Level::Easy,
        Level::Medium,
        Level::Hard,
        Level::Diabolical,
        Level::Extreme,
        Level::Hardest,
    ] {
        let options = GenerateOptions {
            rating: Some(level_band(level)),
            max_attempts: None,
            limits: Limits {
                deadline: Some(Instant::now() + Duration::from_secs_f64(seconds() * 2.0)),
                ..Limits::default()
            },
            seed: 5,
            ..GenerateOptions::default()
        };
        let start = Instant::now();
        let generator = Generator::new(options, Some(&rater)).expect("a valid request");
        let (mut made, mut attempts) = (0u64, 0u64);
        for result in generator {
            match result {
                Ok(g) => {
                    made += 1;
                    attempts += g.attempts;
                }
                Err(solver_core::generate::GenerateError::Stopped { attempts: a, .. }) => {
                    attempts += a;
                    break;
                }
                Err(e) => panic!("{e}"),
            }
        }
        let secs = start.elapsed().as_secs_f64();
        println!(
            "9x9 level {:<11} ours {:>9.1}/s ({} made, {:.1} grids tried per puzzle)",
            level.name(),
            made as f64 / secs,
            made,
            attempts as f64 / made.max(1) as f64
        );
    }
}

fn main() {
    println!("generation, one thread, best of {ROUNDS} chunks per side");
    versus(
        "9x9 minimal, no symmetry",
        GenerateOptions {
            minimal: true,
            ..GenerateOptions::default()
        },
        TheirSymmetry::None,
    );
    versus(
        "9x9 rotate180, no pair removable",
        GenerateOptions {
            symmetry: Symmetry::Rotate180,
            ..GenerateOptions::default()
        },
        TheirSymmetry::HalfRotation,
    );
    if std::env::args().any(|a| a == "--duel") {
        return;
    }
    levels();
    for symmetry in Symmetry::ALL {
        // Strict minimality with a symmetry is rare (see `Generator`); only the half turn is
        // common enough to time.
        let minimals: &[bool] = match symmetry {
            Symmetry::None | Symmetry::Rotate180 => &[false, true],
            _ => &[false],
        };
        for &minimal in minimals {
            let rate = solo(&GenerateOptions {
                symmetry,
                minimal,
                ..GenerateOptions::default()
            });
            println!(
                "9x9 {:<16} {:<12} ours {:>9.0}/s ({:.1} givens)",
                symmetry.name(),
                if minimal { "minimal" } else { "orbit-minimal" },
                rate.per_second,
                rate.mean_givens
            );
        }
    }
    for (r, c, symmetry) in [
        (2, 2, Symmetry::None),
        (2, 3, Symmetry::None),
        (2, 4, Symmetry::None),
        (3, 4, Symmetry::None),
        (4, 4, Symmetry::None),
        (4, 4, Symmetry::Rotate180),
        (5, 5, Symmetry::None),
    ] {
        let shape = Shape::new(r, c).expect("a supported shape");
        let rate = solo(&GenerateOptions {
            shape,
            symmetry,
            ..GenerateOptions::default()
        });
        println!(
            "{:<5} boxes {:<16} unique     ours {:>9.1}/s ({:.1} givens)",
            shape.to_string(),
            symmetry.name(),
            rate.per_second,
            rate.mean_givens
        );
    }
}
