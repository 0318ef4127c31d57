//! Printing answers for people (boxed grids and a verdict), scripts (one line) and tools (JSON).

use std::io::{self, Write};

use sudoku_proto::grid_from_pb;
use sudoku_proto::pb::{self, Outcome};

use crate::cli::Format;
use crate::input::Origin;

/// The word for an outcome, as printed in `line` format and in JSON.
pub fn outcome_word(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Unique => "unique",
        Outcome::Solved => "solved",
        Outcome::Multiple => "multiple",
        Outcome::NoSolution => "no-solution",
        Outcome::Invalid | Outcome::Unspecified => "invalid",
        Outcome::BudgetExhausted | Outcome::DeadlineExceeded => "stopped",
    }
}

/// Whether the puzzle counts as solved for the exit code.
pub fn is_solved(outcome: Outcome) -> bool {
    matches!(
        outcome,
        Outcome::Unique | Outcome::Solved | Outcome::Multiple
    )
}

/// Writes answers in one format.
pub struct Printer {
    format: Format,
}

impl Printer {
    /// A printer for `format`.
    pub fn new(format: Format) -> Printer {
        Printer { format }
    }

    /// Writes one answer.
    pub fn answer(
        &self,
        out: &mut impl Write,
        origin: &Origin,
        response: &pb::SolveResponse,
    ) -> io::Result<()> {
        let outcome = response.outcome();
        let solution = response
            .solution
            .as_ref()
            .and_then(|g| grid_from_pb(g).ok());
        match self.format {
            Format::Line => match (&solution, outcome) {
                (Some(grid), Outcome::Unique | Outcome::Solved) => {
                    writeln!(out, "{}", grid.to_line())
                }
                _ => writeln!(out, "{}", outcome_word(outcome)),
            },
            Format::Json => {
                let stats = response.stats.unwrap_or_default();
                let value = serde_json::json!({
                    "puzzle": origin.number,
                    "id": response.id,
                    "index": response.index,
                    "outcome": outcome_word(outcome),
                    "solution": solution.as_ref().map(|g| g.to_line()),
                    "solutions_found": response.solutions_found,
                    "guesses": stats.guesses,
                    "solve_micros": stats.solve_micros,
                    "algorithm": stats.algorithm().as_str_name().trim_start_matches("ALGORITHM_").to_lowercase(),
                    "error": response.error.as_ref().map(|e| serde_json::json!({
                        "message": e.message, "row": e.row, "col": e.col,
                    })),
                });
                writeln!(out, "{value}")
            }
            Format::Pretty => {
                if let Some(grid) = &solution {
                    write!(out, "{grid}")?;
                }
                let stats = response.stats.unwrap_or_default();
                let work = format!("{} guesses, {} µs", stats.guesses, stats.solve_micros);
                let verdict = match outcome {
                    Outcome::Unique => format!("unique solution ({work})"),
                    Outcome::Solved => format!("a solution; uniqueness not checked ({work})"),
                    Outcome::Multiple => format!(
                        "several solutions: {} found, first shown ({work})",
                        response.solutions_found
                    ),
                    Outcome::NoSolution => format!("no solution ({work})"),
                    Outcome::BudgetExhausted => format!("stopped: guess budget exhausted ({work})"),
                    Outcome::DeadlineExceeded => format!("stopped: deadline exceeded ({work})"),
                    Outcome::Invalid | Outcome::Unspecified => format!(
                        "invalid: {}",
                        response
                            .error
                            .as_ref()
                            .map_or("unknown error", |e| e.message.as_str())
                    ),
                };
                writeln!(out, "{origin}: {verdict}")?;
                writeln!(out)
            }
        }
    }

    /// Writes the answer for a puzzle that could not be sent: invalid, with the reason.
    pub fn invalid(
        &self,
        out: &mut impl Write,
        origin: &Origin,
        error: pb::SolveError,
    ) -> io::Result<()> {
        let response = pb::SolveResponse {
            outcome: Outcome::Invalid.into(),
            error: Some(error),
            ..pb::SolveResponse::default()
        };
        match self.format {
            // People read the error on stderr; stdout stays for answers.
            Format::Pretty => Ok(()),
            _ => self.answer(out, origin, &response),
        }
    }
}
