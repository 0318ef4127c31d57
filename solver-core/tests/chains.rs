//! The chain family of the logic engine on real puzzles: every step agrees with the unique
//! solution (a spread of 100 rated puzzles of SE 6.2+ and 30 of the hardest), and every
//! puzzle of the forum's hardest list is solved by logic alone (release only:
//! `cargo test --release -p solver-core --test chains -- --include-ignored`).

use solver_core::logic::{End, RateOptions, Step, Technique, explain};
use solver_core::{Grid, Options, Outcome, solve};

/// The puzzles of a dataset file with their ratings (0 when unrated); `None` after the shared
/// rule for missing data (a panic under CI).
fn dataset(name: &str) -> Option<Vec<(Grid, u16)>> {
    let path = test_support::data_file(name)?;
    let text = std::fs::read_to_string(&path).expect("dataset readable");
    let rows = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut parts = l.split_whitespace();
            let grid: Grid = parts.next().unwrap_or("").parse().expect("puzzle parses");
            let se = parts
                .next()
                .and_then(|s| s.parse::<f64>().ok())
                .unwrap_or(0.0);
            (grid, (se * 10.0).round() as u16)
        })
        .collect();
    Some(rows)
}

/// Every `n / k`-th element, `k` of them: a deterministic spread over the whole file.
fn spread<T: Clone>(all: &[T], k: usize) -> Vec<T> {
    let step = (all.len() / k.max(1)).max(1);
    all.iter().step_by(step).take(k).cloned().collect()
}

/// Explains a puzzle and checks each step against its solution; returns the steps and end.
fn checked(grid: &Grid) -> (Vec<Step>, End) {
    let solution = match solve(grid, &Options::default()).expect("supported").outcome {
        Outcome::Unique(s) => s,
        other => panic!("{grid:?} is not unique: {other:?}"),
    };
    let e = explain(grid, None, &RateOptions::default()).expect("unique");
    for step in &e.steps {
        for m in &step.placements {
            assert_eq!(
                solution.cells()[m.row * 9 + m.col],
                m.digit,
                "{grid:?}: {}",
                step.text
            );
        }
        for m in &step.eliminations {
            assert_ne!(
                solution.cells()[m.row * 9 + m.col],
                m.digit,
                "{grid:?}: {}",
                step.text
            );
        }
    }
    (e.steps, e.end)
}

fn is_chain(step: &Step) -> bool {
    matches!(step.technique, Technique::Chain(_))
}

#[test]
fn chain_steps_agree_with_the_solution_on_rated_puzzles() {
    let Some(rated) = dataset("se_rated_public.txt") else {
        return;
    };
    let hard: Vec<(Grid, u16)> = rated.into_iter().filter(|(_, se)| *se >= 62).collect();
    let sample = spread(&hard, 100);
    let mut names = std::collections::BTreeSet::new();
    for (grid, se) in &sample {
        let (steps, end) = checked(grid);
        assert_eq!(end, End::Solved, "{grid:?} (SE {se}) not solved by logic");
        for s in steps.iter().filter(|s| is_chain(s)) {
            assert!(
                s.text.starts_with(s.technique.name()) && s.tenths >= 62,
                "{s:?}"
            );
            names.insert(s.technique.name());
        }
    }
    // The SE 6.2-9.2 spread meets every family below nested chains.
    for name in [
        "VWXYZ-Wing",
        "Aligned triplet exclusion",
        "Nishio forcing chain",
        "Forcing chain",
        "Dynamic forcing chain",
    ] {
        assert!(names.contains(name), "{name} never used: {names:?}");
    }
}

#[test]
fn chain_steps_agree_with_the_solution_on_the_hardest_puzzles() {
    let Some(hardest) = dataset("puzzles6_forum_hardest_1106") else {
        return;
    };
    let sample = spread(&hardest, 30);
    let mut nested = 0;
    for (grid, _) in &sample {
        let (steps, end) = checked(grid);
        assert_eq!(end, End::Solved, "{grid:?} not solved by logic");
        nested += steps
            .iter()
            .filter(|s| s.technique.name() == "Nested forcing chain")
            .count();
    }
    assert!(nested > 0, "the hardest puzzles need nested chains");
}

/// Time per puzzle is the rate bench's to report (`cargo bench -p solver-core --bench rate`
/// prints the slowest); this asserts only that logic alone finishes every one.
#[test]
#[cfg_attr(debug_assertions, ignore = "release only: cargo test --release")]
fn every_hardest_puzzle_is_solved_by_logic() {
    let Some(hardest) = dataset("puzzles6_forum_hardest_1106") else {
        return;
    };
    let unsolved: Vec<usize> = (0..hardest.len())
        .filter(|&i| checked(&hardest[i].0).1 != End::Solved)
        .collect();
    assert!(unsolved.is_empty(), "unsolved: {unsolved:?}");
}

#[test]
fn puzzles_se_rates_11_or_more_need_nested_chains_rated_past_10_5() {
    let Some(hard) = dataset("puzzles5_forum_hardest_1905_11+") else {
        return;
    };
    // SE's nesting levels 4 and 5 start at 10.5 and 11.0; the file holds SE 11+ only.
    for (grid, _) in spread(&hard, 3) {
        let r = solver_core::logic::rate(&grid, &RateOptions::default()).expect("unique");
        let hardest = r.hardest.as_ref().map(|s| s.technique.name());
        assert_eq!(hardest, Some("Nested forcing chain"), "{grid:?}");
        assert!(r.tenths >= 105, "{grid:?} rated {}", r.tenths);
    }
}
