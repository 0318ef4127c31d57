//! `sudoku validate`: repeated digits in a player's grid and, given the puzzle it grew from,
//! the entries that differ from the puzzle's unique solution.

use std::io::Write;

use sudoku_proto::pb::{self, Verdict};

use crate::cli::{Format, ValidateArgs};
use crate::conn::Connection;
use crate::request::{grid_error, grid_text, parse};
use crate::style::{self, Tone};

/// Prints the verdict; true when the grid breaks no rule and holds no wrong entry.
pub async fn run(conn: &Connection, args: &ValidateArgs, format: Format) -> anyhow::Result<bool> {
    let entries = solver_core::parse_entries(&grid_text(&args.grid)?, args.shape)
        .map_err(|e| anyhow::anyhow!("the grid: {}", grid_error(&e).message))?;
    let grid = pb::Grid {
        box_rows: entries.shape().box_rows() as u32,
        box_cols: entries.shape().box_cols() as u32,
        cells: entries.cells().iter().map(|&v| u32::from(v)).collect(),
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
        puzzle,
    };
    let answer = conn
        .puzzles()
        .validate(conn.request(request))
        .await
        .map_err(|s| conn.status_error(s))?
        .into_inner();
    if args.against.is_some() && answer.puzzle_verdict() != Verdict::Unique {
        eprintln!(
            "sudoku: the --against puzzle {}, so wrong entries cannot be told",
            match answer.puzzle_verdict() {
                Verdict::NoSolution => "has no solution",
                Verdict::Multiple => "has more than one solution",
                Verdict::Stopped => "was not solved in time",
                _ => "has no unique solution",
            }
        );
    }
    let mut out = std::io::stdout().lock();
    print(&mut out, format, &answer)?;
    out.flush()?;
    Ok(answer.valid)
}

/// `solved`, `valid` (no fault, not complete) or `invalid`.
fn word(answer: &pb::ValidateResponse) -> &'static str {
    match (answer.valid, answer.complete) {
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
fn faults(answer: &pb::ValidateResponse) -> Vec<String> {
    let at = |c: Option<&pb::Cell>| c.map_or("?".to_owned(), |c| format!("r{}c{}", c.row, c.col));
    let mut lines: Vec<String> = answer
        .conflicts
        .iter()
        .map(|c| {
            let digit = c.first.as_ref().map_or(0, |c| c.digit);
            format!(
                "conflict: {} and {} both hold {digit}",
                at(c.first.as_ref()),
                at(c.second.as_ref())
            )
        })
        .collect();
    lines.extend(answer.wrong.iter().map(|w| {
        format!(
            "wrong: r{}c{} holds {}, not the solution's digit",
            w.row, w.col, w.digit
        )
    }));
    lines
}

fn print(
    out: &mut impl Write,
    format: Format,
    answer: &pb::ValidateResponse,
) -> std::io::Result<()> {
    match format {
        Format::Line => {
            writeln!(out, "{}", word(answer))?;
            for line in faults(answer) {
                eprintln!("{line}");
            }
            Ok(())
        }
        Format::Json => {
            let value = serde_json::json!({
                "valid": answer.valid,
                "complete": answer.complete,
                "conflicts": answer.conflicts.iter().map(|c| serde_json::json!({
                    "first": cell_json(c.first.as_ref()),
                    "second": cell_json(c.second.as_ref()),
                })).collect::<Vec<_>>(),
                "wrong": answer.wrong.iter().map(|w| cell_json(Some(w))).collect::<Vec<_>>(),
            });
            writeln!(out, "{value}")
        }
        Format::Pretty => {
            let (tone, summary) = match word(answer) {
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
            for line in faults(answer) {
                writeln!(out, "  {line}")?;
            }
            Ok(())
        }
    }
}
