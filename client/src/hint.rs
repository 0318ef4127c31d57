//! `sudoku hint` and `sudoku explain`: the next logical step, or every step to the solution,
//! each with its technique, the cells it rests on, and what it places or eliminates.

use std::io::Write;

use sudoku_proto::pb::{self, Verdict};

use crate::cli::{Format, HintArgs};
use crate::conn::Connection;
use crate::request::{grid_text, parse};
use crate::style::{Tone, out as out_style};

/// Prints the next step; true when there was one (or the grid is solved).
pub async fn hint(conn: &Connection, args: &HintArgs, format: Format) -> anyhow::Result<bool> {
    let request = request(args)?;
    let grid = request.grid.clone().unwrap_or_default();
    let answer = conn
        .puzzles()
        .hint(conn.request(request))
        .await
        .map_err(|s| conn.status_error(s))?
        .into_inner();
    report_wrong_marks(&answer.wrong_candidates);
    let mut out = std::io::stdout().lock();
    if answer.verdict() != Verdict::Unique {
        eprintln!("sudoku: {}", verdict_sentence(answer.verdict()));
        return Ok(false);
    }
    match &answer.step {
        Some(step) => print_step(&mut out, format, &grid, step, None)?,
        None if answer.solved => eprintln!("sudoku: the grid is already solved"),
        None => eprintln!("sudoku: no technique the engine knows applies to this grid"),
    }
    out.flush()?;
    Ok(answer.step.is_some() || answer.solved)
}

/// Prints every step; true when they reach the solution.
pub async fn explain(conn: &Connection, args: &HintArgs, format: Format) -> anyhow::Result<bool> {
    let request = request(args)?;
    let mut grid = request.grid.clone().unwrap_or_default();
    let mut stream = conn
        .puzzles()
        .explain(conn.request(request))
        .await
        .map_err(|s| conn.status_error(s))?
        .into_inner();
    let mut out = std::io::stdout().lock();
    let (mut number, mut solved) = (0, false);
    while let Some(message) = stream.message().await.map_err(|s| conn.status_error(s))? {
        report_wrong_marks(&message.wrong_candidates);
        if let Some(step) = &message.step {
            number += 1;
            print_step(&mut out, format, &grid, step, Some(number))?;
            for p in &step.placements {
                let side = (grid.box_rows * grid.box_cols) as usize;
                grid.cells[(p.row as usize - 1) * side + p.col as usize - 1] = p.digit;
            }
        } else if message.verdict() != Verdict::Unique {
            eprintln!("sudoku: {}", verdict_sentence(message.verdict()));
        } else {
            solved = message.solved;
            if !solved {
                eprintln!("sudoku: no technique the engine knows applies after step {number}");
            }
        }
    }
    out.flush()?;
    Ok(solved)
}

fn request(args: &HintArgs) -> anyhow::Result<pb::HintRequest> {
    let grid = parse(&grid_text(&args.grid)?, args.shape)
        .map_err(|e| anyhow::anyhow!("the grid: {}", e.message))?;
    Ok(pb::HintRequest {
        grid: Some(grid),
        candidates: None,
        options: Some(pb::LogicOptions {
            no_uniqueness_techniques: args.no_uniqueness,
        }),
    })
}

fn verdict_sentence(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::NoSolution => "the grid has no solution",
        Verdict::Multiple => "the grid has more than one solution: logic cannot finish it",
        Verdict::Stopped => "stopped before the end (deadline or budget)",
        _ => "the server gave no verdict",
    }
}

fn report_wrong_marks(marks: &[pb::Cell]) {
    for m in marks {
        eprintln!(
            "sudoku: wrong pencil mark: r{}c{} lacks {}, its digit in the solution",
            m.row, m.col, m.digit
        );
    }
}

fn cells_json(cells: &[pb::Cell]) -> serde_json::Value {
    cells
        .iter()
        .map(|c| serde_json::json!({"row": c.row, "col": c.col, "digit": c.digit}))
        .collect()
}

/// One step: its sentence (line), an object (json), or the grid with its cells marked.
fn print_step(
    out: &mut impl Write,
    format: Format,
    grid: &pb::Grid,
    step: &pb::Step,
    number: Option<usize>,
) -> std::io::Result<()> {
    match format {
        Format::Line => writeln!(out, "{}", step.text),
        Format::Json => {
            let mut value = serde_json::json!({
                "technique": step.technique,
                "rating": step.rating,
                "text": step.text,
                "support": cells_json(&step.support),
                "placements": cells_json(&step.placements),
                "eliminations": cells_json(&step.eliminations),
            });
            if let Some(n) = number {
                value["step"] = n.into();
            }
            writeln!(out, "{value}")
        }
        Format::Pretty => {
            if let Some(n) = number {
                write!(out, "{n}. ")?;
            }
            writeln!(out, "{} ({:.1})", step.text, step.rating)?;
            if number.is_none() {
                write_marked(out, grid, step)?;
            }
            Ok(())
        }
    }
}

/// The grid with the step's cells marked: `[d]` a placement, `(d)` a cell the step rests on,
/// `-` an empty cell that loses candidates, `.` other empty cells.
fn write_marked(out: &mut impl Write, grid: &pb::Grid, step: &pb::Step) -> std::io::Result<()> {
    let (rows, cols) = (grid.box_rows as usize, grid.box_cols as usize);
    let side = rows * cols;
    let at = |cells: &[pb::Cell], r: usize, c: usize| {
        cells
            .iter()
            .find(|x| x.row as usize == r + 1 && x.col as usize == c + 1)
            .map(|x| x.digit)
    };
    let symbol = |v: u32| char::from_digit(v, 36).map_or('?', |c| c.to_ascii_uppercase());
    for r in 0..side {
        if r > 0 && r % rows == 0 {
            let bar = "-".repeat(cols * 3);
            writeln!(out, "{}", vec![bar; side / cols].join("+"))?;
        }
        let mut line = String::new();
        for c in 0..side {
            if c > 0 && c % cols == 0 {
                line.push('|');
            }
            let value = grid.cells.get(r * side + c).copied().unwrap_or(0);
            let cell = if let Some(d) = at(&step.placements, r, c) {
                out_style(Tone::Good, format!("[{}]", symbol(d))).to_string()
            } else if value != 0 && at(&step.support, r, c).is_some() {
                out_style(Tone::Doubtful, format!("({})", symbol(value))).to_string()
            } else if value != 0 {
                format!(" {} ", symbol(value))
            } else if at(&step.eliminations, r, c).is_some() {
                out_style(Tone::Bad, " - ").to_string()
            } else {
                " . ".to_owned()
            };
            line.push_str(&cell);
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}
