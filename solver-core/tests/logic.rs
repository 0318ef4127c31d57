//! The logic engine end to end: every step agrees with the unique solution, the steps solve
//! the puzzle, each technique is met on real puzzles, hints start from pencil marks, ratings
//! survive symmetries, limits stop a rating, players' grids are checked.

mod support;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use solver_core::check::{Entries, Entry};
use solver_core::logic::{
    Candidates, End, LogicError, RateOptions, Step, Technique, explain, hint, rate,
};
use solver_core::{Grid, Limits, Options, Outcome, Shape, StopReason, solve};
use support::{Rng, Symmetry, data_dir, unique_puzzle};

/// `(puzzle, SE rating in tenths)` from the rated file; `None` (loudly) when it is missing.
fn se_rated() -> Option<Vec<(Grid, u16)>> {
    let path = data_dir().join("se_rated_public.txt");
    let Ok(text) = std::fs::read_to_string(&path) else {
        let msg = format!("{} not found (set SUDOKU_DATA)", path.display());
        if std::env::var_os("CI").is_some() {
            panic!("{msg}");
        }
        eprintln!("SKIP: {msg}");
        return None;
    };
    Some(
        text.lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| {
                let mut parts = l.split_whitespace();
                let grid: Grid = parts.next().unwrap_or("").parse().expect("puzzle parses");
                let se: f64 = parts.next().and_then(|s| s.parse().ok()).expect("rating");
                (grid, (se * 10.0).round() as u16)
            })
            .collect(),
    )
}

fn solution_of(grid: &Grid) -> Grid {
    match solve(grid, &Options::default()).expect("supported").outcome {
        Outcome::Unique(s) => s,
        other => panic!("{grid:?} is not unique: {other:?}"),
    }
}

/// Checks every step against the solution and that the placements fill exactly the empty
/// cells when the solve ended solved.
fn check_steps(grid: &Grid, steps: &[Step], end: End) {
    let solution = solution_of(grid);
    let side = grid.side();
    let mut values = grid.cells().to_vec();
    for step in steps {
        assert!(
            !step.placements.is_empty() || !step.eliminations.is_empty(),
            "{grid:?}: a step that changes nothing: {step:?}"
        );
        for m in &step.placements {
            let i = m.row * side + m.col;
            assert_eq!(
                solution.cells()[i],
                m.digit,
                "{grid:?}: wrong placement in {}",
                step.text
            );
            assert_eq!(values[i], 0, "{grid:?}: placed twice: {}", step.text);
            values[i] = m.digit;
        }
        for m in &step.eliminations {
            let i = m.row * side + m.col;
            assert_ne!(
                solution.cells()[i],
                m.digit,
                "{grid:?}: removed the solution in {}",
                step.text
            );
        }
        assert!(
            step.text.starts_with(step.technique.name()),
            "{}",
            step.text
        );
        assert_names_its_cells(step, side);
    }
    if end == End::Solved {
        assert_eq!(
            values,
            solution.cells(),
            "{grid:?}: the steps do not solve it"
        );
    }
}

/// The cells a sentence names, compact forms expanded: `r12c3` is r1c3 and r2c3 on grids of
/// side 9 or less (one character a number), `r10c11` one cell on larger ones.
fn named_cells(text: &str, side: usize) -> std::collections::HashSet<(usize, usize)> {
    let mut out = std::collections::HashSet::new();
    let bytes = text.as_bytes();
    let digits = |from: usize| {
        let end = (from..bytes.len())
            .find(|&i| !bytes[i].is_ascii_digit())
            .unwrap_or(bytes.len());
        (&text[from..end], end)
    };
    for i in 0..bytes.len() {
        let starts = bytes[i] == b'r' && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric());
        if !starts {
            continue;
        }
        let (rows, end) = digits(i + 1);
        if rows.is_empty() || bytes.get(end) != Some(&b'c') {
            continue;
        }
        let (cols, _) = digits(end + 1);
        let numbers = |s: &str| -> Vec<usize> {
            if side <= 9 {
                s.bytes().map(|b| usize::from(b - b'0')).collect()
            } else {
                s.parse().into_iter().collect()
            }
        };
        for r in numbers(rows) {
            for c in numbers(cols) {
                out.insert((r, c));
            }
        }
    }
    out
}

/// A step's sentence names every cell it places in or removes a candidate from, and a
/// wing's names its pivot and pincers (the cells it rests on).
fn assert_names_its_cells(step: &Step, side: usize) {
    let named = named_cells(&step.text, side);
    for m in step.placements.iter().chain(&step.eliminations) {
        assert!(
            named.contains(&(m.row + 1, m.col + 1)),
            "r{}c{} not named in: {}",
            m.row + 1,
            m.col + 1,
            step.text
        );
    }
    // Wings name their pivot and pincers, fish their cells, single-digit chains the cells
    // of their links.
    let names_support = matches!(
        step.technique,
        Technique::XyWing
            | Technique::XyzWing
            | Technique::XWing
            | Technique::Swordfish
            | Technique::Jellyfish
            | Technique::TurbotFish(_)
            | Technique::StrongLinks(_)
    );
    if names_support {
        for m in &step.support {
            assert!(
                named.contains(&(m.row + 1, m.col + 1)),
                "r{}c{} not named in: {}",
                m.row + 1,
                m.col + 1,
                step.text
            );
        }
    }
    if matches!(
        step.technique,
        Technique::HiddenSingleBox | Technique::HiddenSingleLine
    ) {
        assert!(!step.support.is_empty(), "no support: {}", step.text);
    }
}

#[test]
fn sentences_name_cells_in_the_compact_notation() {
    let named = named_cells("Pointing: digit 8 ... => r12c3,r4c56<>8", 9);
    let expected = [(1, 3), (2, 3), (4, 5), (4, 6)];
    assert_eq!(named.len(), 4, "{named:?}");
    assert!(expected.iter().all(|rc| named.contains(rc)), "{named:?}");
    assert!(named_cells("r10c11<>5", 16).contains(&(10, 11)));
    // A word that only starts like a cell names none.
    assert!(named_cells("rows 2, 8 or c4", 9).is_empty());
}

#[test]
fn explain_steps_agree_with_the_solution_and_solve_the_basic_puzzles() {
    let Some(puzzles) = se_rated() else { return };
    let mut seen: BTreeMap<Technique, usize> = BTreeMap::new();
    for (i, (grid, se)) in puzzles.iter().enumerate() {
        let explanation = explain(grid, None, &RateOptions::default()).expect("unique");
        check_steps(grid, &explanation.steps, explanation.end);
        // Everything up to Turbot fish is ours; harder puzzles may wait for chains.
        if *se <= 42 {
            assert_eq!(explanation.end, End::Solved, "puzzle {i} (SE {se})");
        }
        for step in &explanation.steps {
            *seen.entry(step.technique).or_default() += 1;
        }
    }
    eprintln!("techniques met: {seen:?}");
    let needed = [
        Technique::FullHouse,
        Technique::HiddenSingleBox,
        Technique::HiddenSingleLine,
        Technique::DirectPointing,
        Technique::DirectHiddenPair,
        Technique::NakedSingle,
        Technique::DirectHiddenTriple,
        Technique::Pointing,
        Technique::Claiming,
        Technique::NakedPair,
        Technique::XWing,
        Technique::HiddenPair,
        Technique::NakedTriple,
        Technique::Swordfish,
        Technique::HiddenTriple,
        Technique::TurbotFish("Skyscraper"),
        Technique::TurbotFish("2-String Kite"),
        Technique::TurbotFish("Empty rectangle"),
        Technique::XyWing,
        Technique::XyzWing,
        Technique::UniqueRectangle1,
        Technique::UniqueRectangle2,
        Technique::UniqueRectangle3,
        Technique::UniqueRectangle4,
        Technique::NakedQuad,
        Technique::Jellyfish,
        Technique::StrongLinks("Skyscraper (3 strong links)"),
        Technique::WxyzWing,
        Technique::StrongLinks("Grouped Three-String Kite"),
        Technique::BugPlusOne,
        Technique::Bug3,
    ];
    for t in needed {
        assert!(seen.contains_key(&t), "no sampled puzzle used {t}");
    }
}

#[test]
fn ratings_match_se_on_the_basic_buckets() {
    let Some(puzzles) = se_rated() else { return };
    // Ratings SE gives for techniques this engine implements in full.
    let ours = [
        12, 15, 17, 20, 23, 25, 26, 28, 30, 32, 34, 36, 38, 40, 41, 42,
    ];
    for (i, (grid, se)) in puzzles.iter().enumerate() {
        if ours.contains(se) {
            let rating = rate(grid, &RateOptions::default()).expect("unique");
            assert_eq!(rating.tenths, *se, "puzzle {i}: {rating:?}");
            assert!(!rating.lower_bound);
            let hardest = rating.hardest.expect("a step");
            assert_eq!(hardest.tenths, rating.tenths);
            assert_eq!(
                rating.steps,
                rating.techniques.iter().map(|(_, n)| n).sum::<usize>()
            );
        }
    }
}

#[test]
fn ratings_do_not_change_under_symmetries() {
    let Some(puzzles) = se_rated() else { return };
    let mut rng = Rng::new(11);
    for (i, (grid, _)) in puzzles.iter().enumerate().step_by(7) {
        let base = rate(grid, &RateOptions::default()).expect("unique");
        let moved = Symmetry::random(grid.shape(), &mut rng).apply(grid);
        let again = rate(&moved, &RateOptions::default()).expect("unique");
        // A chain's length depends on which derivation a fact gets first, which follows the
        // cells' order, as in SE: chain ratings (6.2 and up) may move a little. (SE itself
        // rates puzzle 756 of the file 8.5, and the same puzzle turned here 8.3.)
        let slack = if base.tenths >= 62 { 3 } else { 0 };
        if !base.lower_bound && !again.lower_bound {
            assert!(
                base.tenths.abs_diff(again.tenths) <= slack,
                "puzzle {i}: {grid:?} vs {moved:?}: {} vs {}",
                base.tenths,
                again.tenths
            );
        }
    }
}

#[test]
fn other_shapes_get_sound_steps_and_solve() {
    let mut rng = Rng::new(7);
    for (r, c, keep, count) in [(2, 2, 0, 20), (2, 3, 0, 20), (3, 3, 0, 10), (4, 4, 150, 2)] {
        let shape = Shape::new(r, c).expect("valid shape");
        let mut techniques: BTreeMap<Technique, usize> = BTreeMap::new();
        for _ in 0..count {
            let grid = unique_puzzle(shape, keep, &mut rng);
            let explanation = explain(&grid, None, &RateOptions::default()).expect("unique");
            check_steps(&grid, &explanation.steps, explanation.end);
            for s in &explanation.steps {
                *techniques.entry(s.technique).or_default() += 1;
            }
        }
        eprintln!("{shape}: {techniques:?}");
        assert!(
            techniques.contains_key(&Technique::HiddenSingleBox),
            "{shape}"
        );
    }
}

#[test]
fn hints_from_pencil_marks_follow_the_explanation_and_report_wrong_marks() {
    let Some(puzzles) = se_rated() else { return };
    let options = RateOptions::default();
    for (grid, _) in puzzles.iter().step_by(41) {
        let explanation = explain(grid, None, &options).expect("unique");
        let side = grid.side();
        // Replay the first steps into a player's grid and pencil marks, then ask for a hint.
        let mut cells: Vec<u32> = grid.cells().iter().map(|&v| v.into()).collect();
        let mut removed = vec![0u64; side * side];
        for (k, step) in explanation.steps.iter().enumerate().take(40) {
            let state = Grid::new(grid.shape(), &cells).expect("steps keep the grid valid");
            let board = Candidates::from_grid(&state);
            let marks: Vec<u64> = (0..side * side)
                .map(|i| board.mask(i / side, i % side) & !removed[i])
                .collect();
            let got = hint(&state, Some(&marks), &options).expect("unique");
            assert!(got.wrong_marks.is_empty(), "step {k}");
            assert_eq!(got.step.as_ref(), Some(step), "step {k} of {grid:?}");
            for m in &step.placements {
                cells[m.row * side + m.col] = m.digit.into();
            }
            for m in &step.eliminations {
                removed[m.row * side + m.col] |= 1 << (m.digit - 1);
            }
        }
        // A wrong mark: the solution's digit rubbed out of the first empty cell.
        let solution = solution_of(grid);
        let first = grid
            .cells()
            .iter()
            .position(|&v| v == 0)
            .expect("an empty cell");
        let board = Candidates::from_grid(grid);
        let mut marks: Vec<u64> = (0..side * side)
            .map(|i| board.mask(i / side, i % side))
            .collect();
        marks[first] &= !(1 << (solution.cells()[first] - 1));
        let got = hint(grid, Some(&marks), &options).expect("unique");
        assert_eq!(got.wrong_marks.len(), 1);
        let wrong = got.wrong_marks[0];
        assert_eq!((wrong.row, wrong.col), (first / side, first % side));
        assert_eq!(wrong.digit, solution.cells()[first]);
        check_steps(grid, &got.step.into_iter().collect::<Vec<_>>(), End::Stuck);
    }
}

#[test]
fn limits_make_the_rating_a_lower_bound() {
    let Some(puzzles) = se_rated() else { return };
    let (grid, _) = puzzles
        .iter()
        .find(|(_, se)| *se >= 30)
        .expect("a harder puzzle");
    let budget = RateOptions {
        max_steps: Some(3),
        ..RateOptions::default()
    };
    let r = rate(grid, &budget).expect("unique");
    assert!(r.lower_bound);
    assert_eq!(r.end, End::Stopped(StopReason::Budget));
    assert_eq!(r.steps, 3);
    let cancelled = RateOptions {
        limits: Limits {
            cancel: Some(Arc::new(AtomicBool::new(true))),
            ..Limits::default()
        },
        ..RateOptions::default()
    };
    let r = rate(grid, &cancelled);
    // The cancel flag may already stop the uniqueness check.
    match r {
        Ok(r) => assert_eq!(r.end, End::Stopped(StopReason::Cancelled)),
        Err(e) => assert_eq!(e, LogicError::Stopped(StopReason::Cancelled)),
    }
    let late = RateOptions {
        limits: Limits {
            deadline: Some(Instant::now()),
            ..Limits::default()
        },
        ..RateOptions::default()
    };
    match rate(grid, &late) {
        Ok(r) => assert!(r.lower_bound && r.end == End::Stopped(StopReason::Deadline)),
        Err(e) => assert_eq!(e, LogicError::Stopped(StopReason::Deadline)),
    }
}

#[test]
fn uniqueness_techniques_can_be_switched_off() {
    let Some(puzzles) = se_rated() else { return };
    let off = RateOptions {
        uniqueness: false,
        ..RateOptions::default()
    };
    let mut checked = 0;
    for (grid, se) in puzzles
        .iter()
        .filter(|(_, se)| (45..=47).contains(se) || *se == 56)
    {
        let on = rate(grid, &RateOptions::default()).expect("unique");
        let uses = |r: &solver_core::logic::Rating| {
            r.techniques.iter().any(|(t, _)| t.assumes_uniqueness())
        };
        if !uses(&on) {
            continue;
        }
        let explanation = explain(grid, None, &off).expect("unique");
        assert!(
            explanation
                .steps
                .iter()
                .all(|s| !s.technique.assumes_uniqueness()),
            "SE {se}"
        );
        check_steps(grid, &explanation.steps, explanation.end);
        checked += 1;
    }
    assert!(
        checked > 5,
        "too few puzzles with uniqueness steps: {checked}"
    );
}

#[test]
fn puzzles_without_a_unique_solution_are_refused() {
    let empty = Grid::empty(Shape::CLASSIC);
    assert_eq!(
        rate(&empty, &RateOptions::default()),
        Err(LogicError::MultipleSolutions)
    );
    let mut cells = vec![0u32; 81];
    cells[..8].copy_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
    cells[9 + 8] = 9; // r2c9 = 9 leaves no digit for r1c9
    let broken = Grid::new(Shape::CLASSIC, &cells).expect("no repeats");
    assert_eq!(
        hint(&broken, None, &RateOptions::default()),
        Err(LogicError::NoSolution)
    );
    let marks = [0u64; 3];
    let puzzle: Grid =
        "3.65.84..52........87....31..3.1..8.9..863..5.5..9.6..13....25........74..52.63.."
            .parse()
            .expect("valid");
    let err = hint(&puzzle, Some(&marks), &RateOptions::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "wrong number of pencil-mark cells: found 3, expected 81"
    );
}

#[test]
fn checks_find_wrong_entries_and_solved_grids() {
    let puzzle: Grid =
        "3.65.84..52........87....31..3.1..8.9..863..5.5..9.6..13....25........74..52.63.."
            .parse()
            .expect("valid");
    let solution = solution_of(&puzzle);
    let entries = |cells: &[u8]| {
        let values: Vec<u32> = cells.iter().map(|&v| u32::from(v)).collect();
        Entries::new(Shape::CLASSIC, &values).expect("in range")
    };
    let check = entries(solution.cells()).check(Some(&solution));
    assert!(check.complete && check.is_solved());
    // A player's entry that breaks no rule yet but is not the solution's digit.
    let mut cells = puzzle.cells().to_vec();
    let empty = cells.iter().position(|&v| v == 0).expect("an empty cell");
    let (row, col) = (empty / 9, empty % 9);
    let allowed =
        Candidates::from_grid(&puzzle).mask(row, col) & !(1 << (solution.cells()[empty] - 1));
    assert!(allowed != 0);
    let wrong_digit = allowed.trailing_zeros() as u8 + 1;
    cells[empty] = wrong_digit;
    let check = entries(&cells).check(Some(&solution));
    assert!(check.conflicts.is_empty() && !check.complete && !check.is_solved());
    let wrong = Entry {
        row: row + 1,
        col: col + 1,
        digit: wrong_digit,
    };
    assert_eq!(check.wrong, vec![wrong]);
    // Without the solution only rule breaks count.
    let check = entries(&cells).check(None);
    assert!(check.is_valid() && check.wrong.is_empty());
    // A full grid with two cells swapped in a row breaks the columns.
    let mut full = solution.cells().to_vec();
    full.swap(0, 1);
    let check = entries(&full).check(None);
    assert!(check.complete && !check.is_solved() && !check.conflicts.is_empty());
}
