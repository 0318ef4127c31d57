//! Properties that must hold for any puzzle: symmetry, agreement between algorithms,
//! refutation of wrong givens, every grid size, and a parser that never panics.

mod support;

use proptest::prelude::*;
use solver_core::grid::parse;
use solver_core::solve::Algorithm;
use solver_core::{Grid, Outcome, Shape, solve};
use support::{Rng, Symmetry, assert_solves, datasets, shapes, sparse_puzzle, unique_puzzle, with};

fn small_shapes() -> Vec<Shape> {
    shapes().into_iter().filter(|s| s.side() <= 12).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// A puzzle moved by a Sudoku symmetry has the moved solution.
    #[test]
    fn symmetry_moves_the_solution(seed in any::<u64>(), shape_index in 0usize..7) {
        let shapes = small_shapes();
        let shape = shapes[shape_index % shapes.len()];
        let mut rng = Rng::new(seed);
        let puzzle = unique_puzzle(shape, 0, &mut rng);
        let symmetry = Symmetry::random(shape, &mut rng);
        let moved = symmetry.apply(&puzzle);
        let Outcome::Unique(solution) = solve(&puzzle, &with(Algorithm::Auto, 2)).unwrap().outcome else {
            panic!("generated puzzles are unique");
        };
        let Outcome::Unique(moved_solution) = solve(&moved, &with(Algorithm::Auto, 2)).unwrap().outcome else {
            panic!("a symmetry keeps a puzzle unique");
        };
        prop_assert!(moved_solution.is_solution_of(&moved));
        prop_assert_eq!(moved_solution, symmetry.apply(&solution));
    }

    /// All algorithms count the same solutions on sparse puzzles, and every first solution holds.
    #[test]
    fn algorithms_agree_on_counts(seed in any::<u64>(), shape_index in 0usize..5, clues in 0usize..30) {
        let shape = [(2, 2), (2, 3), (3, 2), (2, 4), (3, 3)][shape_index];
        let shape = Shape::new(shape.0, shape.1).unwrap();
        let mut rng = Rng::new(seed);
        let keep = if shape.side() == 9 { 22 + clues / 2 } else { clues.min(shape.cells()) };
        let puzzle = sparse_puzzle(shape, keep, &mut rng);
        let mut algorithms = vec![Algorithm::General, Algorithm::Backtracking];
        if shape == Shape::CLASSIC {
            algorithms.push(Algorithm::Fast);
        }
        let outcomes: Vec<Outcome> = algorithms
            .iter()
            .map(|&a| solve(&puzzle, &with(a, 20)).unwrap().outcome)
            .collect();
        for outcome in &outcomes {
            prop_assert_eq!(outcome.found(), outcomes[0].found());
            prop_assert!(outcome.found() >= 1, "clues of a solution are solvable");
            assert_solves(&puzzle, outcome);
        }
    }

    /// Any text, however broken, parses to a grid or to an error; never a panic.
    #[test]
    fn parser_never_panics_on_strings(text in any::<String>()) {
        let _ = text.parse::<Grid>();
    }

    /// Any bytes, read as text the way a server or CLI would, never panic the parser.
    #[test]
    fn parser_never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..700)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = parse(&text, None);
        let _ = parse(&text, Some(Shape::new(2, 3).unwrap()));
    }

    /// Near-valid grids (the right alphabet and length) give grids or positioned errors.
    #[test]
    fn near_valid_text_reports_positions(text in "[.0-9A-Z#|, \n-]{60,100}") {
        if let Err(err) = text.parse::<Grid>() {
            let message = err.to_string();
            prop_assert!(!message.is_empty());
            if let Some(solver_core::grid::Cell { row, col }) = err.position() {
                prop_assert!(row >= 1 && col >= 1);
                let expected = format!("row {row}");
                prop_assert!(message.contains(&expected));
            }
        }
    }
}

#[test]
fn every_size_is_solved_uniquely() {
    let mut rng = Rng::new(7);
    for shape in shapes() {
        // 25x25: stop removing clues at 330 to keep generation quick.
        let keep = if shape.side() >= 20 { 330 } else { 0 };
        let puzzle = unique_puzzle(shape, keep, &mut rng);
        let solution = solve(&puzzle, &with(Algorithm::General, 2)).unwrap();
        assert!(
            matches!(solution.outcome, Outcome::Unique(_)),
            "{shape}: {:?}",
            solution.outcome
        );
        assert_solves(&puzzle, &solution.outcome);
        if shape.side() <= 9 {
            let reference = solve(&puzzle, &with(Algorithm::Backtracking, 2)).unwrap();
            assert_eq!(reference.outcome, solution.outcome, "{shape}");
        }
    }
}

#[test]
fn wrong_givens_in_hard_puzzles_are_refuted() {
    let Some(sets) = datasets() else { return };
    for (name, puzzles) in sets {
        for puzzle in puzzles.iter().step_by(puzzles.len() / 10 + 1) {
            let Outcome::Unique(answer) = solve(puzzle, &with(Algorithm::Fast, 2)).unwrap().outcome
            else {
                panic!("{name}: dataset puzzles are unique");
            };
            // The first open cell given a digit that breaks no rule but is not the answer.
            let cells: Vec<u32> = puzzle.cells().iter().map(|&c| c.into()).collect();
            let wrong = (0..81)
                .filter(|&i| cells[i] == 0)
                .flat_map(|i| (1..=9u32).map(move |v| (i, v)))
                .filter(|&(i, v)| v != u32::from(answer.cells()[i]))
                .find_map(|(i, v)| {
                    let mut changed = cells.clone();
                    changed[i] = v;
                    Grid::new(Shape::CLASSIC, &changed).ok()
                })
                .expect("some digit breaks no rule");
            for algorithm in [Algorithm::Fast, Algorithm::General] {
                let outcome = solve(&wrong, &with(algorithm, 2)).unwrap().outcome;
                assert_eq!(
                    outcome,
                    Outcome::NoSolution,
                    "{name} {algorithm}: {wrong:?}"
                );
            }
        }
    }
}
