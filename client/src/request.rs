//! Request pieces shared by every solving command: flags to wire options, parsing with an
//! optional box shape, checking answers, reporting per-puzzle problems, and the tally.

use sudoku_proto::grid_to_pb;
use sudoku_proto::pb::{self, Outcome};

use crate::cli::{AlgorithmArg, SolveOptions as Flags};
use crate::input::Origin;

/// How a run of puzzles went, for the exit code.
#[derive(Debug, Default, Clone, Copy)]
pub struct Tally {
    /// Puzzles with no solution, invalid, or stopped.
    pub failed: usize,
    /// Puzzles answered.
    pub total: usize,
}

/// The input held no puzzle: exit 1, as for a puzzle not solved.
#[derive(Debug, thiserror::Error)]
#[error("no puzzle in the input")]
pub struct NoPuzzles;

impl From<AlgorithmArg> for pb::Algorithm {
    fn from(algorithm: AlgorithmArg) -> pb::Algorithm {
        match algorithm {
            AlgorithmArg::Auto => pb::Algorithm::Unspecified,
            AlgorithmArg::Fast => pb::Algorithm::Fast,
            AlgorithmArg::General => pb::Algorithm::General,
            AlgorithmArg::Backtracking => pb::Algorithm::Backtracking,
        }
    }
}

impl From<&Flags> for pb::SolveOptions {
    fn from(flags: &Flags) -> pb::SolveOptions {
        pb::SolveOptions {
            max_solutions: flags.count,
            algorithm: pb::Algorithm::from(flags.algorithm).into(),
            max_guesses: 0,
        }
    }
}

/// Parses a puzzle as solver-core does, with its box shape from a leading tag (`3x2:...`, as
/// lines of non-square boxes are written) or the `--box` shape; where neither gives it and
/// the side has several shapes, says once on stderr which was assumed.
pub fn parse(text: &str, shape: Option<solver_core::Shape>) -> Result<pb::Grid, pb::SolveError> {
    let (tagged, cells) = split_shape_tag(text).map_err(|e| grid_error(&e))?;
    let shape = match (tagged, shape) {
        (Some(tag), Some(flag)) if tag != flag => {
            return Err(pb::SolveError {
                message: format!(
                    "the grid is tagged {}, but --box says {}",
                    shape_name(tag),
                    shape_name(flag)
                ),
                ..pb::SolveError::default()
            });
        }
        (tag, flag) => tag.or(flag),
    };
    let parsed = solver_core::grid::parse(cells, shape);
    if shape.is_none() {
        // Also when the grid is refused: a repeat in a box may come from the shape assumed.
        let assumed = match &parsed {
            Ok(grid) => Some(grid.shape()),
            Err(_) => solver_core::check::parse_entries(cells, None)
                .ok()
                .map(|e| e.shape()),
        };
        if let Some(assumed) = assumed {
            note_assumed_shape(assumed);
        }
    }
    parsed
        .map(|grid| grid_to_pb(&grid))
        .map_err(|e| grid_error(&e))
}

/// A shape as `ROWSxCOLS`, the form `--box` and line tags take.
pub fn shape_name(shape: solver_core::Shape) -> String {
    format!("{}x{}", shape.box_rows(), shape.box_cols())
}

/// A line's box-shape tag, `ROWSxCOLS:` before the cells, and the text after it; no tag, the
/// whole text. A tag that names no shape is an error.
fn split_shape_tag(
    text: &str,
) -> Result<(Option<solver_core::Shape>, &str), solver_core::GridError> {
    let trimmed = text.trim_start();
    let Some((tag, rest)) = trimmed.split_once(':') else {
        return Ok((None, text));
    };
    let Some((rows, cols)) = tag.split_once(['x', 'X']) else {
        return Ok((None, text));
    };
    let number = |s: &str| {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<usize>().ok())
            .flatten()
    };
    match (number(rows), number(cols)) {
        (Some(rows), Some(cols)) => Ok((Some(solver_core::Shape::new(rows, cols)?), rest)),
        _ => Ok((None, text)),
    }
}

/// Whether a note on an assumed shape was already given (one per run, not one per puzzle).
static SHAPE_NOTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Says on stderr, once, which box shape a grid of an ambiguous side was read with.
fn note_assumed_shape(shape: solver_core::Shape) {
    // Non-square boxes could be the other way round; a square is the only shape players use
    // for its side (a 16x16 grid has 4x4 boxes, never 2x8).
    let side = shape.side();
    let ambiguous = shape.box_rows() != shape.box_cols();
    if ambiguous && !SHAPE_NOTED.swap(true, std::sync::atomic::Ordering::Relaxed) {
        eprintln!(
            "sudoku: note: a {side}x{side} grid without its box shape was read with {} boxes \
             ({} rows by {} columns); give --box, or write the grid as ROWSxCOLS:<cells>, for \
             another shape",
            shape_name(shape),
            shape.box_rows(),
            shape.box_cols()
        );
    }
}

/// The tag that starts the line form of a grid with non-square boxes (`3x2:`), so that it
/// reads back in its own shape; square boxes need none.
pub fn shape_tag(box_rows: u32, box_cols: u32) -> Option<String> {
    (box_rows != box_cols).then(|| format!("{box_rows}x{box_cols}:"))
}

/// A grid error as the client reports it.
pub fn grid_error(err: &solver_core::GridError) -> pb::SolveError {
    pb::SolveError::from(err)
}

/// Whether the outcome counts as solved for the exit code.
pub fn is_solved(outcome: Outcome) -> bool {
    matches!(
        outcome,
        Outcome::Unique | Outcome::Solved | Outcome::Multiple
    )
}

/// What `check` reports when a server's solution breaks the rules or the givens.
pub const BAD_SOLUTION: &str = "the server's solution does not solve the puzzle";

/// Why a server's answer cannot be trusted: its solution breaks the rules or the givens.
pub fn bad_solution(puzzle: &pb::Grid, response: &pb::SolveResponse) -> Option<String> {
    let solution = response.solution.as_ref()?;
    (!solves(puzzle, solution)).then(|| BAD_SOLUTION.to_owned())
}

/// Whether `solution` solves `puzzle`: the same shape, every cell a digit, no digit twice in a
/// row, column or box, and the givens kept.
pub fn solves(puzzle: &pb::Grid, solution: &pb::Grid) -> bool {
    (solution.box_rows, solution.box_cols) == (puzzle.box_rows, puzzle.box_cols)
        && solves_cells(
            puzzle.box_rows,
            puzzle.box_cols,
            &puzzle.cells,
            &solution.cells,
        )
}

/// [`solves`] on bare cells of one box shape, as Grid messages (u32) or packed ones (a byte
/// each) carry them. Read straight off the wire: batches check every answer, and building two
/// grids per puzzle cost more than the easiest solves.
pub fn solves_cells<C: Copy + Into<u32>>(
    box_rows: u32,
    box_cols: u32,
    puzzle: &[C],
    solution: &[C],
) -> bool {
    let dim = |v: u32| usize::try_from(v).unwrap_or(usize::MAX);
    let Ok(shape) = solver_core::Shape::new(dim(box_rows), dim(box_cols)) else {
        return false;
    };
    let (side, width) = (shape.side(), shape.box_cols());
    if solution.len() != side * side || puzzle.len() != side * side {
        return false;
    }
    if (side, width) == (9, 3) {
        classic_solves(puzzle, solution)
    } else {
        cells_solve(puzzle, solution, side, width)
    }
}

/// [`solves_cells`] once the shape (`side`, boxes `width` cells wide) and lengths are checked.
#[inline(always)]
fn cells_solve<C: Copy + Into<u32>>(
    puzzle: &[C],
    solution: &[C],
    side: usize,
    width: usize,
) -> bool {
    let (puzzle, solution) = (&puzzle[..side * side], &solution[..side * side]);
    // No early exit, so that the loop runs branch-free over the cells.
    let kept = puzzle.iter().zip(solution).fold(true, |ok, (&given, &v)| {
        let (given, v): (u32, u32) = (given.into(), v.into());
        ok & (v != 0) & (v as usize <= side) & ((given == 0) | (given == v))
    });
    kept && houses_complete(solution, side, width)
}

/// [`cells_solve`] for the classic shape, lengths checked: `batch` checks every answer here.
/// Each digit v counts as the bit 1 << (v - 1); nine such bits add up to 511 (nine ones) only
/// when no two are the same, since two equal bits would carry. So a house is whole exactly
/// when its bits sum to 511, and the sums run as vector code over byte planes of the bits
/// (17-clue answers: 33 ns each, from 58 ns with one OR per cell into its digit's word).
#[inline(always)]
fn classic_solves<C: Copy + Into<u32>>(puzzle: &[C], solution: &[C]) -> bool {
    let (puzzle, solution) = (&puzzle[..81], &solution[..81]);
    // Every cell a digit and every given kept, over all cells with no branch (vector code).
    let bad = puzzle.iter().zip(solution).fold(0u8, |bad, (&given, &v)| {
        let (given, v): (u32, u32) = (given.into(), v.into());
        bad | u8::from(v.wrapping_sub(1) > 8) | (u8::from(given != 0) & u8::from(given != v))
    });
    if bad != 0 {
        return false;
    }
    // The bit of each cell's digit, as its low byte (digits 1-8) and high byte (digit 9).
    let (mut low, mut high) = ([0u8; 81], [0u8; 81]);
    for ((low, high), &v) in low.iter_mut().zip(&mut high).zip(solution) {
        let v: u32 = v.into();
        *low = if v <= 8 {
            1 << (v.wrapping_sub(1) & 7)
        } else {
            0
        };
        *high = u8::from(v == 9);
    }
    let bit = |i: usize| u16::from(low[i]) | u16::from(high[i]) << 8;
    let mut columns = [0u16; 9];
    let mut whole = true;
    for band in 0..3 {
        let mut in_band = [0u16; 9];
        for row in 3 * band..3 * band + 3 {
            let mut in_row = 0u16;
            for (col, sum) in in_band.iter_mut().enumerate() {
                in_row += bit(9 * row + col);
                *sum += bit(9 * row + col);
            }
            whole &= in_row == 511;
        }
        for (column, &sum) in columns.iter_mut().zip(&in_band) {
            *column += sum;
        }
        whole &= in_band
            .chunks_exact(3)
            .all(|b| b.iter().sum::<u16>() == 511);
    }
    whole && columns.iter().all(|&sum| sum == 511)
}

/// Whether every row, column and box of `cells` (each a digit 1..=`side`) holds every digit.
/// A house has as many cells as digits, so it holds each once exactly when the bits of its
/// cells' digits make up all of them: ORs only, no test per cell.
#[inline(always)]
fn houses_complete<C: Copy + Into<u32>>(cells: &[C], side: usize, width: usize) -> bool {
    let height = side / width;
    let all = u64::MAX >> (64 - side);
    let mut cols = [0u64; solver_core::Shape::MAX_SIDE];
    let mut boxes = [0u64; solver_core::Shape::MAX_SIDE];
    let mut rows = all;
    for (row, cells) in cells.chunks_exact(side).enumerate() {
        // Boxes are `height` rows by `width` columns, so a band of rows meets `height` boxes.
        let first_box = row / height * height;
        let mut in_row = 0u64;
        for (b, cells) in cells.chunks_exact(width).enumerate() {
            let mut in_box = 0u64;
            for (i, &v) in cells.iter().enumerate() {
                let bit = 1u64 << (v.into() - 1);
                in_box |= bit;
                cols[b * width + i] |= bit;
            }
            in_row |= in_box;
            boxes[first_box + b] |= in_box;
        }
        rows &= in_row;
    }
    rows == all && cols[..side].iter().chain(&boxes[..side]).all(|&h| h == all)
}

/// A grid's one-line text straight from its wire cells (`.` for empty, `1`-`9`, then `A`-`Z`);
/// `None` when a value is not a cell of that shape.
pub fn line_of(grid: &pb::Grid) -> Option<String> {
    let mut line = Vec::with_capacity(grid.cells.len() + 1);
    push_line(&mut line, grid.box_rows, grid.box_cols, &grid.cells)?;
    String::from_utf8(line).ok()
}

/// Appends the one-line text of `cells` (of that box shape) to `out`; `None`, with `out` as it
/// was, when a value is not a cell of that shape.
pub fn push_line<C: Copy + Into<u32>>(
    out: &mut Vec<u8>,
    box_rows: u32,
    box_cols: u32,
    cells: &[C],
) -> Option<()> {
    if (box_rows, box_cols) == (3, 3)
        && let Ok(classic) = <&[C; 81]>::try_from(cells)
    {
        return push_classic_line(out, classic).then_some(());
    }
    let side = usize::try_from(box_rows.checked_mul(box_cols)?).ok()?;
    if cells.len() != side * side || side > solver_core::Shape::MAX_SIDE {
        return None;
    }
    let fits = cells
        .iter()
        .fold(true, |ok, &v| ok & (v.into() as usize <= side));
    if !fits {
        return None;
    }
    if let Some(tag) = shape_tag(box_rows, box_cols) {
        out.extend_from_slice(tag.as_bytes());
    }
    let start = out.len();
    out.resize(start + cells.len(), 0);
    for (text, &v) in out[start..].iter_mut().zip(cells) {
        // At most the side (checked above), so a byte; selects, not a table, so that the
        // loop runs on vectors.
        let v = v.into() as u8;
        *text = match v {
            0 => b'.',
            1..=9 => b'0' + v,
            _ => b'A' - 10 + v,
        };
    }
    Some(())
}

/// [`push_line`] for a classic grid, its length known when compiled so that it runs in
/// vector code (`batch` prints every answer so); false, with `out` as it was, when a value is
/// not a cell.
pub fn push_classic_line<C: Copy + Into<u32>>(out: &mut Vec<u8>, cells: &[C; 81]) -> bool {
    if cells.iter().fold(0, |most, &v| most.max(v.into())) > 9 {
        return false;
    }
    // Into an array first: `extend` over the cells checked the capacity at each byte, three
    // times slower (15 ns against 5 a line).
    let mut text = [0u8; 81];
    for (text, &v) in text.iter_mut().zip(cells) {
        *text = match v.into() as u8 {
            0 => b'.',
            v => b'0' + v,
        };
    }
    out.extend_from_slice(&text);
    true
}

/// Reports a per-puzzle problem on stderr without stopping.
pub fn report(origin: &Origin, message: &str) {
    crate::shown::error_line(format_args!("{} {origin}: {message}", crate::error_word()));
}

/// Counts and reports a puzzle that got no solver answer.
pub fn failed(tally: &mut Tally, origin: &Origin, reason: &str) {
    report(origin, reason);
    tally.total += 1;
    tally.failed += 1;
}

/// Counts one server answer, reporting on stderr why it failed if it did.
pub fn check(tally: &mut Tally, origin: &Origin, puzzle: &pb::Grid, response: &pb::SolveResponse) {
    let bad = bad_solution(puzzle, response).is_some();
    count(
        tally,
        origin,
        bad,
        response.outcome(),
        response.error.as_ref(),
    );
}

/// Counts one server answer whose solution, if it had one, was checked (`bad`: it does not
/// solve the puzzle), reporting on stderr why it failed if it did.
pub fn count(
    tally: &mut Tally,
    origin: &Origin,
    bad: bool,
    outcome: Outcome,
    error: Option<&pb::SolveError>,
) {
    tally.total += 1;
    if bad {
        report(origin, BAD_SOLUTION);
        tally.failed += 1;
        return;
    }
    if outcome == Outcome::Invalid {
        let reason = error.map_or("the server gave no reason", |e| e.message.as_str());
        report(origin, reason);
    }
    if !is_solved(outcome) {
        tally.failed += 1;
    }
}

/// A grid argument's text: the argument itself, or stdin for `-`.
pub fn grid_text(arg: &str) -> anyhow::Result<String> {
    use std::io::Read;
    if arg != "-" {
        return Ok(arg.to_owned());
    }
    let mut text = String::new();
    // A grid is a few hundred bytes; a megabyte leaves room for comments and 25x25 grids.
    std::io::stdin()
        .take(1 << 20)
        .read_to_string(&mut text)
        .map_err(|e| anyhow::anyhow!("cannot read the grid from stdin: {e}"))?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(text: &str) -> pb::Grid {
        parse(text, None).expect("test grid parses")
    }

    #[test]
    fn a_wrong_cell_count_names_the_nearest_sizes_that_parse() {
        let parses = |n: usize| parse(&".".repeat(n), None).is_ok();
        for found in [1, 15, 17, 49, 80, 82, 1000, 1224, 1226, 2000] {
            let err = parse(&".".repeat(found), None).expect_err("not a grid size");
            let (head, sizes) = err.message.split_once("; ").expect("two parts");
            assert_eq!(head, format!("wrong number of cells: found {found}"));
            // Each size named with its side, `81 (9x9)`: the sizes themselves parse.
            let named: Vec<usize> = sizes
                .split(' ')
                .filter_map(|word| word.parse().ok())
                .collect();
            assert!(!named.is_empty() && named.len() <= 2, "{}", err.message);
            assert!(named.iter().all(|&n| parses(n)), "{}", err.message);
            // And nothing between them (or beyond the only one) does.
            let low = named
                .iter()
                .copied()
                .filter(|&n| n < found)
                .max()
                .unwrap_or(0);
            let high = named
                .iter()
                .copied()
                .filter(|&n| n > found)
                .min()
                .unwrap_or(1300);
            assert!((low + 1..high).all(|n| !parses(n)), "{}", err.message);
        }
    }

    #[test]
    fn a_wrong_solution_is_caught() {
        let puzzle = grid(&format!("1{}", ".".repeat(15)));
        let good = grid("1234341221434321");
        let wrong = grid("2134342112434312");
        let answer = |g: &pb::Grid| pb::SolveResponse {
            outcome: Outcome::Unique.into(),
            solution: Some(g.clone()),
            ..pb::SolveResponse::default()
        };
        assert_eq!(bad_solution(&puzzle, &answer(&good)), None);
        assert!(bad_solution(&puzzle, &answer(&wrong)).is_some());
        let mut tally = Tally::default();
        let origin = Origin {
            number: 1,
            place: crate::input::Place::Argument(1),
        };
        check(&mut tally, &origin, &puzzle, &answer(&wrong));
        assert_eq!((tally.total, tally.failed), (1, 1));
    }

    #[test]
    fn solutions_are_checked_on_the_wire_cells() {
        let puzzle = grid(&format!("1{}", ".".repeat(15)));
        let good = grid("1234341221434321");
        assert!(solves(&puzzle, &good));
        // A given changed, a digit twice in a box, a value beyond the side, a cell short.
        let mut changed = good.clone();
        changed.cells.swap(0, 1);
        assert!(!solves(&puzzle, &changed));
        let mut repeat = good.clone();
        repeat.cells[5] = 1;
        assert!(!solves(&puzzle, &repeat));
        let mut large = good.clone();
        large.cells[15] = 7;
        assert!(!solves(&puzzle, &large));
        let mut short = good.clone();
        short.cells.pop();
        assert!(!solves(&puzzle, &short));
        assert_eq!(line_of(&good).as_deref(), Some("1234341221434321"));
        assert_eq!(line_of(&large), None);
        assert_eq!(line_of(&puzzle).as_deref(), Some("1..............."));
    }

    #[test]
    fn packed_cells_are_checked_in_their_own_box_shape() {
        let cells = |t: &str| -> Vec<u8> {
            t.bytes()
                .map(|b| if b == b'.' { 0 } else { b - b'0' })
                .collect()
        };
        let (empty, good) = (
            cells(&".".repeat(36)),
            cells("123456456123231564564231312645645312"),
        );
        // Every row and column right, the boxes not.
        let latin = cells("123456234561345612456123561234612345");
        assert!(solves_cells(2, 3, &empty, &good));
        assert!(!solves_cells(3, 2, &empty, &good));
        assert!(!solves_cells(2, 3, &empty, &latin));
        let puzzle = cells(
            ".................3.....1.6......6.1...3.9......4....2..6......9.7..8...521...7...",
        );
        let solution = cells(
            "546328791821769543937541862792856314183294657654173928368415279479682135215937486",
        );
        assert!(solves_cells(3, 3, &puzzle, &solution));
        let mut swapped = solution.clone();
        swapped.swap(0, 1);
        assert!(!solves_cells(3, 3, &puzzle, &swapped));
        let mut line = Vec::new();
        assert_eq!(push_line(&mut line, 3, 3, &solution), Some(()));
        assert_eq!(line, solution.iter().map(|v| b'0' + v).collect::<Vec<u8>>());
        // The packed classic path writes the same, '.' for an empty cell, and no line past 9.
        let mut classic = Vec::new();
        assert!(push_classic_line(
            &mut classic,
            solution[..].try_into().unwrap()
        ));
        assert_eq!(classic, line);
        classic.clear();
        let puzzle: [u8; 81] = puzzle[..].try_into().unwrap();
        assert!(push_classic_line(&mut classic, &puzzle));
        push_line(&mut line, 3, 3, &puzzle);
        assert_eq!(classic, line[81..]);
        let mut ten = puzzle;
        ten[80] = 10;
        assert!(!push_classic_line(&mut classic, &ten));
        assert_eq!(
            classic.len(),
            81,
            "a refused line leaves the output as it was"
        );
        line.truncate(81);
        // Past 9, letters; past the side, no line.
        let mut sixteen: Vec<u8> = (0..=16).collect();
        sixteen.resize(256, 1);
        line.clear();
        assert_eq!(push_line(&mut line, 4, 4, &sixteen), Some(()));
        assert!(line.starts_with(b".123456789ABCDEFG1"));
        sixteen[3] = 17;
        assert_eq!(push_line(&mut line, 4, 4, &sixteen), None);
        assert_eq!(
            line.len(),
            256,
            "a refused line leaves the output as it was"
        );
    }

    #[test]
    fn classic_answers_are_checked_house_by_house() {
        let digits = |t: &str| -> Vec<u8> { t.bytes().map(|b| b - b'0').collect() };
        let solution = digits(
            "546328791821769543937541862792856314183294657654173928368415279479682135215937486",
        );
        let empty = vec![0u8; 81];
        assert!(solves_cells(3, 3, &empty, &solution));
        // Every row and column a permutation, no box: digit (row + col) mod 9.
        let latin: Vec<u8> = (0..81).map(|i| ((i / 9 + i % 9) % 9 + 1) as u8).collect();
        assert!(!solves_cells(3, 3, &empty, &latin));
        // Rows and boxes kept, two columns broken: two cells of one row and box swapped.
        let mut columns = solution.clone();
        columns.swap(0, 1);
        assert!(!solves_cells(3, 3, &empty, &columns));
        // Columns and boxes kept, two rows broken: two cells of one column and box swapped.
        let mut rows = solution.clone();
        rows.swap(0, 9);
        assert!(!solves_cells(3, 3, &empty, &rows));
        // Any two cells of different digits swapped breaks some house; any relabelling of
        // the digits keeps every house whole.
        for a in 0..81 {
            for b in a + 1..81 {
                let mut swapped = solution.clone();
                swapped.swap(a, b);
                let same = solution[a] == solution[b];
                assert_eq!(solves_cells(3, 3, &empty, &swapped), same, "cells {a}, {b}");
            }
        }
        for shift in 1..9 {
            let relabelled: Vec<u8> = solution.iter().map(|&v| (v - 1 + shift) % 9 + 1).collect();
            assert!(solves_cells(3, 3, &empty, &relabelled), "shift {shift}");
        }
        // A cell empty or out of range, even where the digit counts would still add up.
        for bad in [0, 10, 17, 255] {
            let mut cells = solution.clone();
            cells[40] = bad;
            assert!(!solves_cells(3, 3, &empty, &cells), "value {bad}");
        }
        // A given not kept; the same check on Grid messages' u32 cells.
        let mut puzzle = empty.clone();
        puzzle[80] = 5;
        assert!(!solves_cells(3, 3, &puzzle, &solution));
        puzzle[80] = 6;
        assert!(solves_cells(3, 3, &puzzle, &solution));
        let wide = |cells: &[u8]| cells.iter().map(|&v| u32::from(v)).collect::<Vec<u32>>();
        assert!(solves_cells(3, 3, &wide(&puzzle), &wide(&solution)));
        assert!(!solves_cells(3, 3, &wide(&puzzle), &wide(&latin)));
        let mut large = wide(&solution);
        large[0] += 1 << 16;
        assert!(!solves_cells(3, 3, &wide(&puzzle), &large));
    }

    #[test]
    fn flags_map_to_wire_options() {
        let flags = Flags {
            algorithm: AlgorithmArg::Fast,
            count: 5,
            shape: None,
        };
        let options = pb::SolveOptions::from(&flags);
        assert_eq!(options.max_solutions, 5);
        assert_eq!(options.algorithm(), pb::Algorithm::Fast);
    }
}
