//! Ratings against Sukaku Explainer's own: the public rated file (shared data) and a held-out
//! file kept with the tests (puzzles never used to calibrate, rated by SE v1.15.10).
//!
//! Every puzzle of both files is rated in release builds (`cargo test --release`); debug
//! builds rate a spread sample.

mod support;

use solver_core::Grid;
use solver_core::logic::{RateOptions, rate};
use support::data_dir;

/// `(puzzle, SE rating in tenths)` of a rated file's lines `<puzzle> <rating>`.
fn read_rated(text: &str) -> Vec<(Grid, u16)> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut parts = l.split_whitespace();
            let grid: Grid = parts.next().unwrap_or("").parse().expect("puzzle parses");
            let se: f64 = parts.next().and_then(|s| s.parse().ok()).expect("rating");
            (grid, (se * 10.0).round() as u16)
        })
        .collect()
}

/// The public file; `None` (loudly in CI) when it is missing.
fn public() -> Option<Vec<(Grid, u16)>> {
    let path = data_dir().join("se_rated_public.txt");
    let Ok(text) = std::fs::read_to_string(&path) else {
        let msg = format!("{} not found (set SUDOKU_DATA)", path.display());
        if std::env::var_os("CI").is_some() {
            panic!("{msg}");
        }
        eprintln!("SKIP: {msg}");
        return None;
    };
    Some(read_rated(&text))
}

fn held_out() -> Vec<(Grid, u16)> {
    read_rated(include_str!("data/se_rated_heldout.txt"))
}

/// In debug builds every `n`-th puzzle, in release builds all.
fn sample(all: Vec<(Grid, u16)>, n: usize) -> Vec<(Grid, u16)> {
    let step = if cfg!(debug_assertions) { n } else { 1 };
    all.into_iter().step_by(step).collect()
}

/// Exact, within 0.5 and exact where SE rates 7.0 or more, as shares of the puzzles.
fn agreement(name: &str, puzzles: &[(Grid, u16)]) -> (f64, f64, f64) {
    let (mut exact, mut close, mut hard, mut hard_exact) = (0, 0, 0, 0);
    for (grid, se) in puzzles {
        let r = rate(grid, &RateOptions::default()).expect("a unique puzzle");
        assert!(!r.lower_bound, "{grid:?} (SE {se}) not finished");
        let ours = r.tenths;
        if ours != *se {
            eprintln!("{name}: {} SE {se} ours {ours}", grid.to_line());
        }
        exact += usize::from(ours == *se);
        close += usize::from(ours.abs_diff(*se) <= 5);
        if *se >= 70 {
            hard += 1;
            hard_exact += usize::from(ours == *se);
        }
    }
    let share = |a: usize, b: usize| a as f64 / b.max(1) as f64;
    let out = (
        share(exact, puzzles.len()),
        share(close, puzzles.len()),
        share(hard_exact, hard),
    );
    eprintln!(
        "{name}: {} puzzles, exact {:.1}%, within 0.5 {:.1}%, exact at SE 7.0+ {:.1}% of {hard}",
        puzzles.len(),
        100.0 * out.0,
        100.0 * out.1,
        100.0 * out.2
    );
    out
}

fn assert_targets(name: &str, (exact, close, hard): (f64, f64, f64)) {
    assert!(exact >= 0.95, "{name}: exact {exact}");
    assert!(close >= 0.995, "{name}: within 0.5 {close}");
    assert!(hard >= 0.90, "{name}: exact at SE 7.0+ {hard}");
}

#[test]
fn ratings_agree_with_se_on_the_public_file() {
    let Some(all) = public() else { return };
    let puzzles = sample(all, 9);
    assert_targets("public", agreement("public", &puzzles));
}

#[test]
fn ratings_agree_with_se_on_the_held_out_file() {
    let all = held_out();
    assert!(all.len() >= 300, "the held-out file holds {}", all.len());
    let puzzles = sample(all, 7);
    assert_targets("held out", agreement("held out", &puzzles));
}

/// Hard puzzles kept with the tests, SE-rated 9.7 to 11.2 (see the file's header).
fn top_end() -> Vec<(Grid, u16)> {
    read_rated(include_str!("data/se_rated_top.txt"))
}

#[test]
fn ratings_at_the_top_end_are_close_to_se() {
    let all = top_end();
    assert!(all.len() >= 10, "the top-end file holds {}", all.len());
    // Each takes up to a second in release builds, far more in debug ones.
    let puzzles = sample(all, 5);
    let mut far = Vec::new();
    for (grid, se) in &puzzles {
        let r = rate(grid, &RateOptions::default()).expect("a unique puzzle");
        assert!(!r.lower_bound, "{grid:?} (SE {se}) not finished");
        eprintln!("top end: {} SE {se} ours {}", grid.to_line(), r.tenths);
        if r.tenths.abs_diff(*se) > 3 {
            far.push((grid.to_line(), *se, r.tenths));
        }
    }
    assert!(far.is_empty(), "more than 0.3 from SE: {far:?}");
}
