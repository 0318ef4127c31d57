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

/// Parses a puzzle as solver-core does, with the `--box` shape if given.
pub fn parse(text: &str, shape: Option<solver_core::Shape>) -> Result<pb::Grid, pb::SolveError> {
    solver_core::parse(text, shape)
        .map(|g| grid_to_pb(&g))
        .map_err(|e| pb::SolveError::from(&e))
}

/// Whether the outcome counts as solved for the exit code.
pub fn is_solved(outcome: Outcome) -> bool {
    matches!(
        outcome,
        Outcome::Unique | Outcome::Solved | Outcome::Multiple
    )
}

/// Why a server's answer cannot be trusted: its solution breaks the rules or the givens.
pub fn bad_solution(puzzle: &pb::Grid, response: &pb::SolveResponse) -> Option<String> {
    let solution = response.solution.as_ref()?;
    (!solves(puzzle, solution))
        .then(|| "the server's solution does not solve the puzzle".to_owned())
}

/// Whether `solution` solves `puzzle`: the same shape, every cell a digit, no digit twice in a
/// row, column or box, and the givens kept. Read straight off the wire cells: batches check
/// every answer, and building two grids per puzzle cost more than the easiest solves.
pub fn solves(puzzle: &pb::Grid, solution: &pb::Grid) -> bool {
    let dim = |v: u32| usize::try_from(v).unwrap_or(usize::MAX);
    let Ok(shape) = solver_core::Shape::new(dim(puzzle.box_rows), dim(puzzle.box_cols)) else {
        return false;
    };
    let side = shape.side();
    if (solution.box_rows, solution.box_cols) != (puzzle.box_rows, puzzle.box_cols)
        || solution.cells.len() != side * side
        || puzzle.cells.len() != side * side
    {
        return false;
    }
    // Digits seen per row, column and box, one bit each; row by row, so that no cell needs a
    // division to find its houses.
    let mut seen = [[0u64; solver_core::Shape::MAX_SIDE]; 3];
    let rows = solution.cells.chunks(side).zip(puzzle.cells.chunks(side));
    for (row, (cells, givens)) in rows.enumerate() {
        let first_box = shape.box_of(row, 0);
        for (col, (&v, &given)) in cells.iter().zip(givens).enumerate() {
            if v == 0 || dim(v) > side || (given != 0 && given != v) {
                return false;
            }
            let bit = 1u64 << (v - 1);
            let houses = [row, col, first_box + col / shape.box_cols()];
            for (kind, &house) in houses.iter().enumerate() {
                if seen[kind][house] & bit != 0 {
                    return false;
                }
                seen[kind][house] |= bit;
            }
        }
    }
    true
}

/// A grid's one-line text straight from its wire cells (`.` for empty, `1`-`9`, then `A`-`Z`);
/// `None` when a value is not a cell of that shape.
pub fn line_of(grid: &pb::Grid) -> Option<String> {
    let side = usize::try_from(grid.box_rows * grid.box_cols).ok()?;
    if grid.cells.len() != side * side || side > solver_core::Shape::MAX_SIDE {
        return None;
    }
    let mut line = String::with_capacity(grid.cells.len() + 1);
    for &v in &grid.cells {
        line.push(match v {
            0 => '.',
            _ if v as usize > side => return None,
            _ => char::from_digit(v, 36)?.to_ascii_uppercase(),
        });
    }
    Some(line)
}

/// Reports a per-puzzle problem on stderr without stopping.
pub fn report(origin: &Origin, message: &str) {
    eprintln!("{} {origin}: {message}", crate::error_word());
}

/// Counts and reports a puzzle that got no solver answer.
pub fn failed(tally: &mut Tally, origin: &Origin, reason: &str) {
    report(origin, reason);
    tally.total += 1;
    tally.failed += 1;
}

/// Counts one server answer, reporting on stderr why it failed if it did.
pub fn check(tally: &mut Tally, origin: &Origin, puzzle: &pb::Grid, response: &pb::SolveResponse) {
    tally.total += 1;
    if let Some(problem) = bad_solution(puzzle, response) {
        report(origin, &problem);
        tally.failed += 1;
        return;
    }
    if response.outcome() == Outcome::Invalid {
        let reason = response
            .error
            .as_ref()
            .map_or("the server gave no reason", |e| e.message.as_str());
        report(origin, reason);
    }
    if !is_solved(response.outcome()) {
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
