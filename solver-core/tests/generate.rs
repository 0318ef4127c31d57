//! End-to-end generation: every puzzle checked by the solver, the pattern, minimality, givens,
//! ratings, seeds and limits.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use solver_core::generate::{
    GenerateError, GenerateOptions, Generated, Generator, LARGE_GRID_FLOOR, Symmetry, next_seed,
};
use solver_core::{Grid, Limits, Options, Outcome, Shape, StopReason, solve};

fn shape(r: usize, c: usize) -> Shape {
    Shape::new(r, c).expect("a supported shape")
}

fn make(options: GenerateOptions, count: usize) -> Vec<Generated> {
    Generator::new(options, None)
        .expect("a valid request")
        .take(count)
        .map(|g| g.expect("no limits hit"))
        .collect()
}

/// The solver, counting to two, finds exactly the puzzle's recorded solution, which keeps
/// every given; the pattern has the symmetry; the givens count is right.
fn assert_sound(made: &Generated, symmetry: Symmetry) {
    let outcome = solve(&made.puzzle, &Options::default())
        .expect("every shape is supported")
        .outcome;
    assert_eq!(outcome, Outcome::Unique(made.solution.clone()), "{made:?}");
    assert!(made.solution.is_solution_of(&made.puzzle));
    assert_eq!(made.givens, made.puzzle.givens());
    assert!(
        symmetry.holds_for(made.puzzle.side(), made.puzzle.cells()),
        "{symmetry}: {:?}",
        made.puzzle
    );
}

/// Removing any single given leaves more than one solution.
fn assert_minimal(puzzle: &Grid) {
    let side = puzzle.side();
    for (i, &v) in puzzle.cells().iter().enumerate() {
        if v == 0 {
            continue;
        }
        let mut cells: Vec<u32> = puzzle.cells().iter().map(|&v| v.into()).collect();
        cells[i] = 0;
        let fewer = Grid::new(puzzle.shape(), &cells).expect("a subset of a valid grid");
        let outcome = solve(&fewer, &Options::default())
            .expect("supported")
            .outcome;
        assert!(
            matches!(outcome, Outcome::Multiple { .. }),
            "row {}, column {} can go from {puzzle:?}",
            i / side + 1,
            i % side + 1
        );
    }
}

#[test]
fn classic_puzzles_are_unique_for_every_symmetry() {
    for symmetry in Symmetry::ALL {
        let options = GenerateOptions {
            symmetry,
            seed: 100,
            ..GenerateOptions::default()
        };
        for made in make(options, 5) {
            assert_sound(&made, symmetry);
        }
    }
}

#[test]
fn smaller_and_larger_shapes_are_unique_with_symmetry() {
    for (r, c) in [(2, 2), (2, 3), (2, 4), (3, 4), (4, 4)] {
        for symmetry in [
            Symmetry::None,
            Symmetry::Rotate180,
            Symmetry::Rotate90,
            Symmetry::Diagonal,
        ] {
            let options = GenerateOptions {
                shape: shape(r, c),
                symmetry,
                seed: 7,
                ..GenerateOptions::default()
            };
            for made in make(options, 2) {
                assert_sound(&made, symmetry);
            }
        }
    }
}

#[test]
fn twenty_five_by_twenty_five_is_unique() {
    let options = GenerateOptions {
        shape: shape(5, 5),
        seed: 3,
        ..GenerateOptions::default()
    };
    let made = make(options, 1);
    assert_sound(&made[0], Symmetry::None);
    // Above 16x16 carving stops at 55% of the cells unless a givens range says otherwise.
    let floor = 625 * LARGE_GRID_FLOOR.0 / LARGE_GRID_FLOOR.1;
    assert!((floor..625).contains(&made[0].givens), "{}", made[0].givens);
}

#[test]
fn minimal_puzzles_lose_uniqueness_without_any_given() {
    for (shape, symmetry, count) in [
        (Shape::CLASSIC, Symmetry::None, 4),
        (Shape::CLASSIC, Symmetry::Rotate180, 2),
        (Shape::CLASSIC, Symmetry::Mirror, 2),
        (shape(2, 3), Symmetry::None, 2),
        (shape(2, 4), Symmetry::Rotate180, 1),
        (shape(3, 4), Symmetry::None, 1),
    ] {
        let options = GenerateOptions {
            shape,
            symmetry,
            minimal: true,
            seed: 21,
            ..GenerateOptions::default()
        };
        for made in make(options, count) {
            assert_sound(&made, symmetry);
            assert_minimal(&made.puzzle);
        }
    }
}

#[test]
fn same_seed_same_puzzles_and_each_regenerates_alone() {
    let options = GenerateOptions {
        symmetry: Symmetry::Rotate180,
        seed: 2024,
        ..GenerateOptions::default()
    };
    let first = make(options.clone(), 4);
    assert_eq!(first, make(options.clone(), 4));
    assert_eq!(first[0].seed, 2024);
    assert_eq!(first[1].seed, next_seed(2024));
    let again = Generator::new(options.clone(), None).expect("valid");
    assert_eq!(again.puzzle(first[3].seed).expect("no limits"), first[3]);
    // Asking with a puzzle's seed starts the same chain from that puzzle.
    let from_third = make(
        GenerateOptions {
            seed: first[2].seed,
            ..options.clone()
        },
        2,
    );
    assert_eq!(from_third[..], first[2..]);
    let other = make(
        GenerateOptions {
            seed: 2025,
            ..options
        },
        4,
    );
    assert!(
        other
            .iter()
            .all(|o| first.iter().all(|f| f.puzzle != o.puzzle))
    );
}

#[test]
fn givens_stay_in_the_requested_range() {
    for (shape, symmetry, range) in [
        (Shape::CLASSIC, Symmetry::None, 30..=32),
        (Shape::CLASSIC, Symmetry::Rotate90, 36..=37),
        (shape(4, 4), Symmetry::Rotate180, 150..=160),
    ] {
        let options = GenerateOptions {
            shape,
            symmetry,
            givens: Some(range.clone()),
            seed: 9,
            ..GenerateOptions::default()
        };
        for made in make(options, 3) {
            assert_sound(&made, symmetry);
            assert!(
                range.contains(&made.givens),
                "{} not in {range:?}",
                made.givens
            );
        }
    }
    let minimal = GenerateOptions {
        minimal: true,
        givens: Some(24..=25),
        seed: 5,
        ..GenerateOptions::default()
    };
    for made in make(minimal, 3) {
        assert!((24..=25).contains(&made.givens));
        assert_minimal(&made.puzzle);
    }
}

#[test]
fn ratings_fall_in_the_band_of_the_rater() {
    // A stand-in rater (the logic engine plugs in the same way): empty cells in the first row,
    // in tenths, so that some puzzles miss the band and must be thrown back.
    let rater = |g: &Grid| Some((0..9).filter(|&c| g.get(0, c) == 0).count() as u16 * 10);
    let options = GenerateOptions {
        rating: Some(70..=90),
        seed: 1,
        ..GenerateOptions::default()
    };
    let generator = Generator::new(options, Some(&rater)).expect("valid");
    let made: Vec<Generated> = generator.take(5).map(|g| g.expect("reachable")).collect();
    assert!(
        made.iter().any(|m| m.attempts > 1),
        "the filter never threw one back"
    );
    for m in &made {
        assert_sound(m, Symmetry::None);
        let rating = m.rating.expect("rated");
        assert_eq!(Some(rating), rater(&m.puzzle));
        assert!((70..=90).contains(&rating));
    }
}

#[test]
fn limits_end_generation_with_a_clear_error() {
    let never = |_: &Grid| Some(0u16);
    let options = GenerateOptions {
        rating: Some(100..=110),
        max_attempts: None,
        limits: Limits {
            deadline: Some(Instant::now() + Duration::from_millis(200)),
            ..Limits::default()
        },
        ..GenerateOptions::default()
    };
    let err = Generator::new(options.clone(), Some(&never))
        .expect("valid")
        .next()
        .expect("endless")
        .unwrap_err();
    assert!(
        matches!(
            err,
            GenerateError::Stopped {
                reason: StopReason::Deadline,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("rating 10.0 to 11.0"), "{err}");
    assert!(err.to_string().ends_with("deadline passed"), "{err}");

    let cancel = Arc::new(AtomicBool::new(true));
    let cancelled = GenerateOptions {
        limits: Limits {
            deadline: None,
            cancel: Some(cancel),
        },
        ..options
    };
    let err = Generator::new(cancelled, Some(&never))
        .expect("valid")
        .next()
        .expect("endless")
        .unwrap_err();
    assert!(
        matches!(
            err,
            GenerateError::Stopped {
                reason: StopReason::Cancelled,
                attempts: 0,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn level_targets_are_met_by_our_rater() {
    use solver_core::generate::{SeRater, level_band};
    use solver_core::logic::{Level, RateOptions, rate};

    let rater = SeRater::default();
    for (level, count) in [(Level::Easy, 3), (Level::Medium, 2), (Level::Hard, 2)] {
        let band = level_band(level);
        let options = GenerateOptions {
            rating: Some(band.clone()),
            seed: 77,
            ..GenerateOptions::default()
        };
        let generator = Generator::new(options, Some(&rater)).expect("valid");
        for made in generator.take(count) {
            let made = made.expect("levels up to hard come within the default attempts");
            assert_sound(&made, Symmetry::None);
            let rating = rate(&made.puzzle, &RateOptions::default()).expect("unique");
            assert!(!rating.lower_bound);
            assert_eq!(made.rating, Some(rating.tenths));
            assert_eq!(rating.level, level, "{:?}", made.puzzle);
            assert!(band.contains(&rating.tenths));
        }
    }
}

#[test]
fn extreme_and_hardest_come_within_the_default_attempts() {
    use solver_core::generate::{SeRater, level_band};
    use solver_core::logic::{Level, RateOptions, rate};

    let rater = SeRater::default();
    for level in [Level::Extreme, Level::Hardest] {
        let options = GenerateOptions {
            rating: Some(level_band(level)),
            seed: 99,
            ..GenerateOptions::default()
        };
        let generator = Generator::new(options, Some(&rater)).expect("valid");
        let made = generator.puzzle(99).expect("reachable with chains");
        assert_sound(&made, Symmetry::None);
        let rating = rate(&made.puzzle, &RateOptions::default()).expect("unique");
        assert_eq!(rating.level, level, "{:?}", made.puzzle);
    }
}

#[test]
fn sixteen_by_sixteen_levels_are_met_by_handing_givens_back() {
    use solver_core::generate::{SeRater, level_band};
    use solver_core::logic::{Level, RateOptions, rate};

    // Carved as far as uniqueness allows, a 16x16 puzzle is mostly one the engine cannot
    // finish (its chains are 9x9 only): givens come back until it rates in the band.
    let rater = SeRater::default();
    for (level, symmetry) in [
        (Level::Hard, Symmetry::None),
        (Level::Medium, Symmetry::Rotate180),
    ] {
        let band = level_band(level);
        let options = GenerateOptions {
            shape: shape(4, 4),
            symmetry,
            rating: Some(band.clone()),
            max_attempts: Some(20),
            seed: 8,
            ..GenerateOptions::default()
        };
        let made = Generator::new(options, Some(&rater))
            .expect("valid")
            .puzzle(8)
            .expect("a 16x16 puzzle in the band within 20 grids");
        assert_sound(&made, symmetry);
        let rating = rate(&made.puzzle, &RateOptions::default()).expect("unique");
        assert!(!rating.lower_bound, "{:?}", made.puzzle);
        assert_eq!(made.rating, Some(rating.tenths));
        assert_eq!(rating.level, level, "{:?}", made.puzzle);
    }
}
