//! Every puzzle of the shared datasets has exactly one solution: each algorithm must say so.

mod support;

use solver_core::solve::Algorithm;
use solver_core::{Outcome, solve};
use support::{assert_solves, datasets, with};

#[test]
fn fast_solver_proves_every_dataset_puzzle_unique() {
    let Some(sets) = datasets() else { return };
    for (name, puzzles) in sets {
        for (i, puzzle) in puzzles.iter().enumerate() {
            let solution = solve(puzzle, &with(Algorithm::Fast, 2)).expect("9x9");
            assert!(
                matches!(solution.outcome, Outcome::Unique(_)),
                "{name} puzzle {i}: {:?}",
                solution.outcome
            );
            assert_solves(puzzle, &solution.outcome);
        }
        eprintln!("{name}: {} puzzles unique", puzzles.len());
    }
}

#[test]
fn general_solver_agrees_on_a_sample() {
    let Some(sets) = datasets() else { return };
    for (name, puzzles) in sets {
        for (i, puzzle) in puzzles.iter().enumerate().step_by(97) {
            let general = solve(puzzle, &with(Algorithm::General, 2)).expect("any shape");
            let fast = solve(puzzle, &with(Algorithm::Fast, 2)).expect("9x9");
            assert!(
                matches!(general.outcome, Outcome::Unique(_)),
                "{name} puzzle {i}"
            );
            assert_eq!(general.outcome, fast.outcome, "{name} puzzle {i}");
        }
    }
}
