//! Request pieces shared by every solving command: flags to wire options, parsing with an
//! optional box shape, checking answers, reporting per-puzzle problems, and the tally.

use sudoku_proto::pb::{self, Outcome};
use sudoku_proto::{grid_from_pb, grid_to_pb};

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
    let (Ok(puzzle), Ok(solution)) = (grid_from_pb(puzzle), grid_from_pb(solution)) else {
        return Some("the server sent a malformed solution grid".to_owned());
    };
    (!solution.is_solution_of(&puzzle))
        .then(|| "the server's solution does not solve the puzzle".to_owned())
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
