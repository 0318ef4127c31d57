//! Printing answers for people (boxed grids and a verdict), scripts (one line) and tools (JSON).

use std::io::{self, Write};

use sudoku_proto::grid_from_pb;
use sudoku_proto::pb::{self, Outcome};

use crate::cli::Format;
use crate::input::Origin;
use crate::request::{line_of, push_line};
use crate::style::{self, Tone};

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

/// Appends one answer in `line` format: the solution's text for a unique or solved puzzle
/// whose solution (box rows, box columns, cells) is a grid of that shape, else the outcome word.
pub fn push_line_answer<C: Copy + Into<u32>>(
    out: &mut Vec<u8>,
    outcome: Outcome,
    solution: Option<(u32, u32, &[C])>,
) {
    let printed = matches!(outcome, Outcome::Unique | Outcome::Solved)
        && solution.is_some_and(|(rows, cols, cells)| push_line(out, rows, cols, cells).is_some());
    if !printed {
        out.extend_from_slice(outcome_word(outcome).as_bytes());
    }
    out.push(b'\n');
}

/// One puzzle's answer as the client saw it.
#[derive(Debug, Clone, Copy)]
pub enum Answer<'a> {
    /// The server answered.
    Response(&'a pb::SolveResponse),
    /// The server answered in a packed batch, whose answers carry no id, solve time or
    /// algorithm: those are null in JSON (the response holds defaults there).
    Packed(&'a pb::SolveResponse),
    /// No answer from a solver: the puzzle did not parse, or its call ended with a status.
    Failed {
        /// The outcome word to print.
        outcome: Outcome,
        /// Why, as already reported on stderr.
        reason: &'a str,
    },
}

impl<'a> Answer<'a> {
    /// The answer for a puzzle that did not parse.
    pub fn invalid(reason: &'a str) -> Answer<'a> {
        Answer::Failed {
            outcome: Outcome::Invalid,
            reason,
        }
    }
}

/// JSON fields a packed batch answer does not carry (null in its JSON).
const UNKNOWN_WHEN_PACKED: [&str; 3] = ["id", "solve_micros", "algorithm"];

/// Writes answers in one format.
pub struct Printer {
    format: Format,
}

impl Printer {
    /// A printer for `format`.
    pub fn new(format: Format) -> Printer {
        Printer { format }
    }

    /// The format it writes.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Writes one answer to `puzzle` (its one-line text, where known).
    pub fn answer(
        &self,
        out: &mut impl Write,
        origin: &Origin,
        puzzle: Option<&str>,
        answer: Answer,
    ) -> io::Result<()> {
        let asked = Asked { origin, puzzle };
        match answer {
            Answer::Response(response) => self.response(out, asked, response, false),
            Answer::Packed(response) => self.response(out, asked, response, true),
            Answer::Failed { outcome, reason } => match self.format {
                Format::Line => writeln!(out, "{}", outcome_word(outcome)),
                Format::Json => {
                    let value = serde_json::json!({
                        "index": origin.number - 1,
                        "puzzle": puzzle,
                        "outcome": outcome_word(outcome),
                        "solution": null,
                        "guesses": null,
                        "algorithm": null,
                        "error": { "message": reason },
                    });
                    writeln!(out, "{value}")
                }
                // People read the reason on stderr; stdout stays for grids.
                Format::Pretty => Ok(()),
            },
        }
    }

    fn response(
        &self,
        out: &mut impl Write,
        asked: Asked,
        response: &pb::SolveResponse,
        packed: bool,
    ) -> io::Result<()> {
        let origin = asked.origin;
        let outcome = response.outcome();
        let solution = || {
            response
                .solution
                .as_ref()
                .and_then(|g| grid_from_pb(g).ok())
        };
        match self.format {
            Format::Line => {
                let solution = response.solution.as_ref();
                let mut line = Vec::with_capacity(solution.map_or(0, |g| g.cells.len()) + 1);
                push_line_answer(
                    &mut line,
                    outcome,
                    solution.map(|g| (g.box_rows, g.box_cols, &g.cells[..])),
                );
                out.write_all(&line)
            }
            Format::Json => writeln!(out, "{}", response_json(asked, response, packed)),
            Format::Pretty => {
                let solution = solution();
                if let Some(grid) = &solution {
                    write!(out, "{grid}")?;
                }
                let stats = response.stats.unwrap_or_default();
                let guesses = crate::shown::counted(stats.guesses, "guess", "guesses");
                let work = if packed {
                    guesses
                } else {
                    format!("{guesses}, {} µs", stats.solve_micros)
                };
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
                // The grid alone on stdout reads back in; the verdict is for people.
                if solution.is_some() {
                    writeln!(out)?;
                }
                out.flush()?;
                let tone = match outcome {
                    Outcome::Unique | Outcome::Solved => Tone::Good,
                    Outcome::Multiple | Outcome::BudgetExhausted | Outcome::DeadlineExceeded => {
                        Tone::Doubtful
                    }
                    _ => Tone::Bad,
                };
                eprintln!("{origin}: {}", style::err(tone, verdict));
                Ok(())
            }
        }
    }
}

/// Which puzzle an answer is for: where it came from and its one-line text, where known.
#[derive(Clone, Copy)]
struct Asked<'a> {
    origin: &'a Origin,
    puzzle: Option<&'a str>,
}

/// One answer as a JSON object; a packed answer's fields it does not carry are null.
/// `index` is the puzzle's 0-based place in the input, `puzzle` its grid text.
fn response_json(asked: Asked, response: &pb::SolveResponse, packed: bool) -> serde_json::Value {
    let stats = response.stats.unwrap_or_default();
    let mut value = serde_json::json!({
        "index": asked.origin.number - 1,
        "puzzle": asked.puzzle,
        "id": response.id,
        "outcome": outcome_word(response.outcome()),
        "solution": response.solution.as_ref().and_then(line_of),
        "box": response.solution.as_ref().map(|g| format!("{}x{}", g.box_rows, g.box_cols)),
        "solutions_found": response.solutions_found,
        "guesses": stats.guesses,
        "solve_micros": stats.solve_micros,
        "algorithm": stats.algorithm().as_str_name().trim_start_matches("ALGORITHM_").to_lowercase(),
        "error": response.error.as_ref().map(|e| serde_json::json!({
            "message": e.message, "row": e.row, "col": e.col,
        })),
    });
    // Every key is there in every answer: what an answer does not carry is null, never left
    // out (the JSON contract, docs/cli-json.schema.json).
    if let (true, Some(fields)) = (packed, value.as_object_mut()) {
        for key in UNKNOWN_WHEN_PACKED {
            fields.insert(key.to_owned(), serde_json::Value::Null);
        }
        if response.stats.is_none() {
            fields.insert("guesses".to_owned(), serde_json::Value::Null);
        }
    }
    value
}
