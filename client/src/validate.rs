//! `sudoku validate`: repeated digits in a player's grid and, given the puzzle it grew from,
//! the entries that differ from the puzzle's unique solution.

use std::io::Write;

use sudoku_proto::pb;
use sudoku_proto::pb::Verdict as PuzzleVerdict;

use crate::cli::{Format, ValidateArgs};
use crate::conn::Connection;
use crate::request::{grid_error, grid_text, parse};
use crate::style::{self, Tone};

/// Prints the verdict; true when the grid breaks no rule and holds no wrong entry.
pub async fn run(conn: &Connection, args: &ValidateArgs, format: Format) -> anyhow::Result<bool> {
    let entries = solver_core::check::parse_entries(&grid_text(&args.grid)?, args.shape)
        .map_err(|e| anyhow::anyhow!("the grid: {}", grid_error(&e).message))?;
    let grid_cells: Vec<u32> = entries.cells().iter().map(|&v| u32::from(v)).collect();
    let grid = pb::Grid {
        box_rows: entries.shape().box_rows() as u32,
        box_cols: entries.shape().box_cols() as u32,
        cells: grid_cells.clone(),
    };
    let puzzle = match &args.against {
        Some(text) => Some(
            parse(text, Some(entries.shape()))
                .map_err(|e| anyhow::anyhow!("the --against puzzle: {}", e.message))?,
        ),
        None => None,
    };
    let request = pb::ValidateRequest {
        grid: Some(grid),
        puzzle: puzzle.clone(),
    };
    let answer = conn
        .puzzles()
        .validate(conn.request(request))
        .await
        .map_err(|s| conn.status_error(s))?
        .into_inner();
    if args.against.is_some() {
        match answer.puzzle_verdict() {
            PuzzleVerdict::Unique => {}
            PuzzleVerdict::NoSolution => return Err(AgainstError::NoSolution.into()),
            PuzzleVerdict::Multiple => return Err(AgainstError::Multiple.into()),
            PuzzleVerdict::Stopped => return Err(AgainstError::Stopped.into()),
            _ => return Err(AgainstError::NoVerdict.into()),
        }
    }
    let lost = puzzle
        .as_ref()
        .map_or_else(Vec::new, |p| lost_givens(p, &grid_cells));
    let verdict = Verdict {
        answer: &answer,
        lost: &lost,
    };
    let mut out = std::io::stdout().lock();
    print(&mut out, format, &verdict)?;
    out.flush()?;
    Ok(verdict.valid())
}

/// Why an `--against` puzzle cannot judge a grid: it needs exactly one solution.
#[derive(Debug, thiserror::Error)]
pub enum AgainstError {
    /// No solution.
    #[error("the --against puzzle has no solution, so it cannot judge the grid")]
    NoSolution,
    /// Several.
    #[error("the --against puzzle has more than one solution, so it cannot judge the grid")]
    Multiple,
    /// Not solved in time.
    #[error("the --against puzzle was not solved in time (deadline or budget)")]
    Stopped,
    /// The server said nothing.
    #[error("the server gave no verdict on the --against puzzle")]
    NoVerdict,
}

/// A given of the puzzle the grid lost: where, its digit, and what the grid holds (0 empty).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LostGiven {
    /// 1-based row.
    pub row: u32,
    /// 1-based column.
    pub col: u32,
    /// The given's digit.
    pub digit: u32,
    /// What the grid holds there, 0 for nothing.
    pub found: u32,
}

/// The givens of `puzzle` that `grid` (cells of the same shape) does not keep.
fn lost_givens(puzzle: &pb::Grid, grid: &[u32]) -> Vec<LostGiven> {
    let side = (puzzle.box_rows * puzzle.box_cols).max(1);
    puzzle
        .cells
        .iter()
        .zip(grid)
        .enumerate()
        .filter(|&(_, (&given, &found))| given != 0 && given != found)
        .map(|(i, (&digit, &found))| LostGiven {
            row: i as u32 / side + 1,
            col: i as u32 % side + 1,
            digit,
            found,
        })
        .collect()
}

/// The server's answer and what the client adds: the givens the grid lost.
struct Verdict<'a> {
    answer: &'a pb::ValidateResponse,
    lost: &'a [LostGiven],
}

impl Verdict<'_> {
    /// No conflict, no wrong entry, no lost given.
    fn valid(&self) -> bool {
        self.answer.valid && self.lost.is_empty()
    }
}

/// `solved`, `valid` (no fault, not complete) or `invalid`.
fn word(verdict: &Verdict) -> &'static str {
    match (verdict.valid(), verdict.answer.complete) {
        (true, true) => "solved",
        (true, false) => "valid",
        (false, _) => "invalid",
    }
}

fn cell_json(cell: Option<&pb::Cell>) -> serde_json::Value {
    cell.map_or(
        serde_json::Value::Null,
        |c| serde_json::json!({"row": c.row, "col": c.col, "digit": c.digit}),
    )
}

/// The faults in words, one per line.
fn faults(verdict: &Verdict) -> Vec<String> {
    let answer = verdict.answer;
    let at = |c: Option<&pb::Cell>| c.map_or("?".to_owned(), |c| format!("r{}c{}", c.row, c.col));
    let mut lines: Vec<String> = verdict
        .lost
        .iter()
        .map(|g| match g.found {
            0 => format!(
                "given lost: r{}c{} is empty, the puzzle gives {}",
                g.row, g.col, g.digit
            ),
            found => format!(
                "given lost: r{}c{} holds {found}, the puzzle gives {}",
                g.row, g.col, g.digit
            ),
        })
        .collect();
    lines.extend(answer.conflicts.iter().map(|c| {
        let digit = c.first.as_ref().map_or(0, |c| c.digit);
        format!(
            "conflict: {} and {} both hold {digit}",
            at(c.first.as_ref()),
            at(c.second.as_ref())
        )
    }));
    lines.extend(answer.wrong.iter().map(|w| {
        format!(
            "wrong: r{}c{} holds {}, not the solution's digit",
            w.row, w.col, w.digit
        )
    }));
    lines
}

fn print(out: &mut impl Write, format: Format, verdict: &Verdict) -> std::io::Result<()> {
    let answer = verdict.answer;
    match format {
        Format::Line => {
            writeln!(out, "{}", word(verdict))?;
            for line in faults(verdict) {
                eprintln!("{line}");
            }
            Ok(())
        }
        Format::Json => {
            let value = serde_json::json!({
                "valid": verdict.valid(),
                "complete": answer.complete,
                "conflicts": answer.conflicts.iter().map(|c| serde_json::json!({
                    "first": cell_json(c.first.as_ref()),
                    "second": cell_json(c.second.as_ref()),
                })).collect::<Vec<_>>(),
                "wrong": answer.wrong.iter().map(|w| cell_json(Some(w))).collect::<Vec<_>>(),
                "lost_givens": verdict.lost.iter().map(|g| serde_json::json!({
                    "row": g.row, "col": g.col, "digit": g.digit, "found": g.found,
                })).collect::<Vec<_>>(),
            });
            writeln!(out, "{value}")
        }
        Format::Pretty => {
            let (tone, summary) = match word(verdict) {
                "solved" => (
                    Tone::Good,
                    "solved: the grid is complete and breaks no rule",
                ),
                "valid" => (
                    Tone::Good,
                    "valid so far: no repeated digit and no wrong entry found",
                ),
                _ => (Tone::Bad, "invalid:"),
            };
            writeln!(out, "{}", style::out(tone, summary))?;
            for line in faults(verdict) {
                writeln!(out, "  {line}")?;
            }
            Ok(())
        }
    }
}
