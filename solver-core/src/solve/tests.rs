//! Outcomes, limits and agreement between the three algorithms.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::*;
use crate::Limits;

const CLASSIC: &str =
    "3.65.84..52........87....31..3.1..8.9..863..5.5..9.6..13....25........74..52.63..";
/// Hard for plain backtracking: the first rows hold few clues and high digits.
const SLOW_FOR_BACKTRACKING: &str =
    "..............3.85..1.2.......5.7.....4...1...9.......5......73..2.1........4...9";
const ALL: [Algorithm; 3] = [Algorithm::Fast, Algorithm::General, Algorithm::Backtracking];

fn grid(text: &str) -> Grid {
    text.parse().expect("test grid parses")
}

fn run(puzzle: &Grid, algorithm: Algorithm, max_solutions: usize) -> Report {
    let options = Options {
        algorithm,
        max_solutions,
        ..Options::default()
    };
    solve(puzzle, &options).expect("algorithm supports the shape")
}

#[test]
fn every_algorithm_proves_the_classic_puzzle_unique() {
    let puzzle = grid(CLASSIC);
    for algorithm in ALL {
        let solution = run(&puzzle, algorithm, 2);
        let Outcome::Unique(answer) = &solution.outcome else {
            panic!("{algorithm}: {:?}", solution.outcome)
        };
        assert!(answer.is_solution_of(&puzzle), "{algorithm}");
        assert_eq!(solution.stats.algorithm, algorithm);
    }
}

#[test]
fn auto_picks_fast_for_9x9_and_general_otherwise() {
    let nine = run(&grid(CLASSIC), Algorithm::Auto, 2);
    assert_eq!(nine.stats.algorithm, Algorithm::Fast);
    let four = run(&Grid::empty(Shape::new(2, 2).unwrap()), Algorithm::Auto, 2);
    assert_eq!(four.stats.algorithm, Algorithm::General);
}

#[test]
fn fast_refuses_other_shapes() {
    let shape = Shape::new(4, 4).unwrap();
    let options = Options {
        algorithm: Algorithm::Fast,
        ..Options::default()
    };
    assert_eq!(
        solve(&Grid::empty(shape), &options),
        Err(SolveError::Unsupported {
            algorithm: Algorithm::Fast,
            shape
        })
    );
}

#[test]
fn one_solution_asked_means_uniqueness_unchecked() {
    let puzzle = grid(CLASSIC);
    for algorithm in ALL {
        let solution = run(&puzzle, algorithm, 1);
        assert!(matches!(&solution.outcome, Outcome::Solved(g) if g.is_solution_of(&puzzle)));
        // 0 is taken as 1.
        assert!(matches!(
            run(&puzzle, algorithm, 0).outcome,
            Outcome::Solved(_)
        ));
    }
}

#[test]
fn all_algorithms_count_every_4x4_grid() {
    // There are 288 completed 4x4 Sudoku grids.
    let empty = Grid::empty(Shape::new(2, 2).unwrap());
    for algorithm in [Algorithm::General, Algorithm::Backtracking] {
        let solution = run(&empty, algorithm, 1000);
        assert!(
            matches!(&solution.outcome, Outcome::Multiple { found: 288, first } if first.is_solution_of(&empty)),
            "{algorithm}: {:?}",
            solution.outcome
        );
    }
}

#[test]
fn counts_stop_at_the_limit() {
    let empty = Grid::empty(Shape::CLASSIC);
    for algorithm in ALL {
        let solution = run(&empty, algorithm, 50);
        assert!(
            matches!(&solution.outcome, Outcome::Multiple { found: 50, first } if first.is_solution_of(&empty)),
            "{algorithm}"
        );
    }
}

#[test]
fn multiple_solutions_agree_across_algorithms() {
    // Removing clues from a unique puzzle leaves several solutions; every count must match.
    let mut text = CLASSIC.to_string();
    for i in [0, 2, 3, 5, 6] {
        text.replace_range(i..i + 1, ".");
    }
    let puzzle = grid(&text);
    let counts: Vec<usize> = ALL
        .iter()
        .map(|&a| run(&puzzle, a, 10_000).outcome.found())
        .collect();
    assert!(counts[0] >= 2, "{counts:?}");
    assert!(counts.iter().all(|&c| c == counts[0]), "{counts:?}");
}

#[test]
fn no_solution_found_directly_and_after_search() {
    // Row 1 leaves cell (1, 9) only 9, which column 9 already holds.
    let direct = grid(&format!("12345678.{}9{}", ".".repeat(8), ".".repeat(63)));
    // A wrong given that breaks no rule: refuted only by propagation and search.
    let solved = run(&grid(CLASSIC), Algorithm::Fast, 1).outcome;
    let answer = solved.grid().expect("classic puzzle solves").clone();
    let puzzle = grid(CLASSIC);
    let (cell, wrong) = (0..81)
        .filter(|&i| puzzle.cells()[i] == 0)
        .flat_map(|i| (1..=9u32).map(move |v| (i, v)))
        .find(|&(i, v)| {
            let mut cells: Vec<u32> = puzzle.cells().iter().map(|&c| c.into()).collect();
            cells[i] = v;
            v != u32::from(answer.cells()[i]) && Grid::new(Shape::CLASSIC, &cells).is_ok()
        })
        .expect("some wrong digit breaks no rule");
    let mut cells: Vec<u32> = puzzle.cells().iter().map(|&c| c.into()).collect();
    cells[cell] = wrong;
    let refuted = Grid::new(Shape::CLASSIC, &cells).unwrap();
    for algorithm in ALL {
        assert_eq!(
            run(&direct, algorithm, 2).outcome,
            Outcome::NoSolution,
            "{algorithm}"
        );
        assert_eq!(
            run(&refuted, algorithm, 2).outcome,
            Outcome::NoSolution,
            "{algorithm}"
        );
    }
}

#[test]
fn budget_stops_every_algorithm() {
    let puzzle = grid(SLOW_FOR_BACKTRACKING);
    for algorithm in ALL {
        let options = Options {
            algorithm,
            max_guesses: Some(3),
            max_solutions: 2,
            ..Options::default()
        };
        let solution = solve(&puzzle, &options).unwrap();
        match solution.outcome {
            Outcome::Stopped {
                reason: StopReason::Budget,
                ..
            } => {
                assert_eq!(solution.stats.guesses, 4, "{algorithm}")
            }
            // Strong propagation may need fewer guesses than the budget.
            Outcome::Unique(ref g) if algorithm != Algorithm::Backtracking => {
                assert!(g.is_solution_of(&puzzle));
                assert!(solution.stats.guesses <= 3);
            }
            other => panic!("{algorithm}: {other:?}"),
        }
    }
}

#[test]
fn raised_cancel_flag_stops_backtracking() {
    let puzzle = grid(SLOW_FOR_BACKTRACKING);
    let flag = Arc::new(AtomicBool::new(true));
    let options = Options {
        algorithm: Algorithm::Backtracking,
        limits: Limits {
            cancel: Some(flag),
            ..Limits::default()
        },
        ..Options::default()
    };
    let solution = solve(&puzzle, &options).unwrap();
    assert!(matches!(
        solution.outcome,
        Outcome::Stopped {
            reason: StopReason::Cancelled,
            found: 0,
            ..
        }
    ));
    assert_eq!(solution.stats.guesses, 1);
}

#[test]
fn cancel_from_another_thread_stops_a_long_search() {
    let flag = Arc::new(AtomicBool::new(false));
    let options = Options {
        algorithm: Algorithm::Backtracking,
        limits: Limits {
            cancel: Some(flag.clone()),
            ..Limits::default()
        },
        // Counting every solution of a sparse grid never ends by itself.
        max_solutions: usize::MAX,
        ..Options::default()
    };
    let sparse = grid(&format!(
        "{}{}",
        &SLOW_FOR_BACKTRACKING[..20],
        ".".repeat(61)
    ));
    let worker = std::thread::spawn(move || solve(&sparse, &options));
    std::thread::sleep(Duration::from_millis(20));
    flag.store(true, Ordering::Relaxed);
    let solution = worker.join().expect("solver thread").unwrap();
    assert!(matches!(
        solution.outcome,
        Outcome::Stopped {
            reason: StopReason::Cancelled,
            ..
        }
    ));
    assert!(solution.outcome.found() > 0, "it was counting solutions");
}

#[test]
fn deadline_stops_every_algorithm() {
    // Counting all solutions of an empty 16x16 grid cannot finish before the deadline.
    let empty = Grid::empty(Shape::new(4, 4).unwrap());
    for algorithm in [Algorithm::General, Algorithm::Backtracking] {
        let options = Options {
            algorithm,
            max_solutions: usize::MAX,
            limits: Limits {
                deadline: Some(Instant::now() + Duration::from_millis(5)),
                ..Limits::default()
            },
            ..Options::default()
        };
        let solution = solve(&empty, &options).unwrap();
        let Outcome::Stopped {
            reason: StopReason::Deadline,
            first: Some(first),
            ..
        } = &solution.outcome
        else {
            panic!("{algorithm}: {:?}", solution.outcome)
        };
        assert!(first.is_solution_of(&empty));
    }
    let options = Options {
        algorithm: Algorithm::Fast,
        max_solutions: usize::MAX,
        limits: Limits {
            deadline: Some(Instant::now() + Duration::from_millis(5)),
            ..Limits::default()
        },
        ..Options::default()
    };
    let solution = solve(&Grid::empty(Shape::CLASSIC), &options).unwrap();
    assert!(matches!(
        solution.outcome,
        Outcome::Stopped {
            reason: StopReason::Deadline,
            ..
        }
    ));
}

#[test]
fn solve_until_stops_at_the_earlier_deadline() {
    let empty = Grid::empty(Shape::CLASSIC);
    let counting = |deadline: Option<Instant>| Options {
        max_solutions: usize::MAX,
        limits: Limits {
            deadline,
            ..Limits::default()
        },
        ..Options::default()
    };
    let stopped_by_deadline = |report: &Report| {
        matches!(
            report.outcome,
            Outcome::Stopped {
                reason: StopReason::Deadline,
                ..
            }
        )
    };
    let soon = Instant::now() + Duration::from_millis(5);
    let late = Instant::now() + Duration::from_secs(3600);
    // The call's deadline comes first, then the options' one: either stops the count.
    for (own, call) in [
        (Some(late), Some(soon)),
        (Some(soon), Some(late)),
        (None, Some(soon)),
    ] {
        let report = solve_until(&empty, &counting(own), Instant::now(), call).unwrap();
        assert!(stopped_by_deadline(&report), "{own:?} {call:?}: {report:?}");
        assert!(report.stats.elapsed < Duration::from_secs(60));
    }
    // A later deadline changes nothing: the puzzle is proved unique as by `solve`.
    let puzzle = grid(CLASSIC);
    let started = Instant::now();
    std::thread::sleep(Duration::from_millis(20));
    let report = solve_until(&puzzle, &Options::default(), started, Some(late)).unwrap();
    assert!(
        report.stats.elapsed >= Duration::from_millis(20),
        "timed from the start given"
    );
    let Outcome::Unique(solution) = &report.outcome else {
        panic!("{:?}", report.outcome)
    };
    assert!(solution.is_solution_of(&puzzle));
    assert_eq!(
        report.outcome,
        solve(&puzzle, &Options::default()).unwrap().outcome
    );
}

#[test]
fn stats_count_guesses() {
    let puzzle = grid(SLOW_FOR_BACKTRACKING);
    let backtracking = run(&puzzle, Algorithm::Backtracking, 1);
    let fast = run(&puzzle, Algorithm::Fast, 1);
    assert!(
        backtracking
            .outcome
            .grid()
            .is_some_and(|g| g.is_solution_of(&puzzle))
    );
    assert!(backtracking.stats.guesses > 1000 * fast.stats.guesses.max(1));
}
