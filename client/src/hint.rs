//! `sudoku hint` and `sudoku explain`: the next logical step, or every step to the solution,
//! each with its technique, the cells it rests on, and what it places or eliminates.

use std::io::Write;

use sudoku_proto::pb::{self, Verdict};

use crate::cli::{Format, HintArgs};
use crate::conn::Connection;
use crate::input::solve_inputs;
use crate::pencil;
use crate::rate::verdict_word;
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
    let unique = answer.verdict() == Verdict::Unique;
    match format {
        Format::Json => writeln!(out, "{}", hint_json(&answer))?,
        Format::Line if !unique => writeln!(out, "{}", verdict_word(answer.verdict()))?,
        Format::Line if answer.step.is_none() && answer.solved => writeln!(out, "solved")?,
        Format::Pretty if answer.step.is_none() && answer.solved => write_grid(&mut out, &grid)?,
        _ => {
            if let Some(step) = &answer.step {
                print_step(&mut out, format, &grid, step, None)?;
            }
        }
    }
    out.flush()?;
    if !unique {
        eprintln!("sudoku: {}", verdict_sentence(answer.verdict()));
    } else if answer.step.is_none() && answer.solved {
        eprintln!("sudoku: the grid is already solved");
    } else if answer.step.is_none() {
        eprintln!("sudoku: no technique the engine knows applies to this grid");
    }
    Ok(unique && (answer.step.is_some() || answer.solved))
}

/// A Hint answer as one JSON object: the verdict, whether the grid is solved, the step (null
/// when there is none) and the pencil marks that lacked the solution's digit.
fn hint_json(answer: &pb::HintResponse) -> serde_json::Value {
    serde_json::json!({
        "verdict": verdict_word(answer.verdict()),
        "solved": answer.solved,
        "step": answer.step.as_ref().map(step_json),
        "wrong_candidates": cells_json(&answer.wrong_candidates),
    })
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
    let (mut number, mut solved, mut wrong) = (0, false, Vec::new());
    let mut verdict = Verdict::Unspecified;
    while let Some(message) = stream.message().await.map_err(|s| conn.status_error(s))? {
        report_wrong_marks(&message.wrong_candidates);
        wrong.extend(message.wrong_candidates.iter().cloned());
        if let Some(step) = &message.step {
            number += 1;
            print_step(&mut out, format, &grid, step, Some(number))?;
            let side = (grid.box_rows * grid.box_cols) as usize;
            for p in &step.placements {
                // Cells from the server are 1-based; a 0 would be a bad answer, not a panic.
                let at = (p.row as usize)
                    .checked_sub(1)
                    .zip((p.col as usize).checked_sub(1));
                if let Some(cell) = at.and_then(|(r, c)| grid.cells.get_mut(r * side + c)) {
                    *cell = p.digit;
                }
            }
        } else {
            verdict = message.verdict();
            solved = message.solved;
        }
    }
    if format == Format::Json {
        let end = serde_json::json!({
            "verdict": verdict_word(verdict),
            "solved": solved,
            "steps": number,
            "wrong_candidates": cells_json(&wrong),
        });
        writeln!(out, "{end}")?;
    }
    out.flush()?;
    if verdict != Verdict::Unique {
        eprintln!("sudoku: {}", verdict_sentence(verdict));
    } else if !solved {
        eprintln!("sudoku: no technique the engine knows applies after step {number}");
    }
    Ok(solved)
}

/// The request: the grid (an argument, or stdin), its box shape, and the player's pencil
/// marks if given.
fn request(args: &HintArgs) -> anyhow::Result<pb::HintRequest> {
    let from_stdin = |arg: Option<&str>| arg.is_none_or(|a| a == "-");
    if from_stdin(args.grid.as_deref()) && args.candidates.as_deref() == Some("-") {
        anyhow::bail!("the grid and --candidates cannot both come from stdin");
    }
    let text = one_grid(args.grid.as_deref())?;
    let grid = parse(&text, args.shape).map_err(|e| anyhow::anyhow!("the grid: {}", e.message))?;
    let candidates = match args.candidates.as_deref() {
        Some(marks) => {
            let marks = if marks == "-" {
                grid_text("-")?
            } else {
                marks.to_owned()
            };
            let shape = solver_core::Shape::new(grid.box_rows as usize, grid.box_cols as usize)?;
            let masks =
                pencil::parse(&marks, shape).map_err(|e| anyhow::anyhow!("--candidates: {e}"))?;
            Some(pb::Candidates { masks })
        }
        None => None,
    };
    Ok(pb::HintRequest {
        grid: Some(grid),
        candidates,
        options: Some(pb::LogicOptions {
            no_uniqueness_techniques: args.no_uniqueness,
        }),
    })
}

/// The one grid `hint` and `explain` work on: the argument, or stdin when there is none or it
/// is `-`, read as `solve` reads it (`#` comments skipped, a line's first field the puzzle).
fn one_grid(arg: Option<&str>) -> anyhow::Result<String> {
    if let Some(text) = arg.filter(|a| *a != "-") {
        return Ok(text.to_owned());
    }
    let mut grids = solve_inputs(&["-".to_owned()], None)?;
    match grids.len() {
        1 => Ok(grids.remove(0).1),
        0 => anyhow::bail!("no grid on stdin"),
        n => anyhow::bail!("stdin holds {n} grids; hint and explain take one"),
    }
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

/// Cells as JSON objects `{"row","col","digit"}` (1-based).
fn cells_json(cells: &[pb::Cell]) -> serde_json::Value {
    cells
        .iter()
        .map(|c| serde_json::json!({"row": c.row, "col": c.col, "digit": c.digit}))
        .collect()
}

/// A step as JSON, the same object in `hint` and `explain`.
fn step_json(step: &pb::Step) -> serde_json::Value {
    serde_json::json!({
        "technique": step.technique,
        "rating": step.rating,
        "text": step.text,
        "support": cells_json(&step.support),
        "placements": cells_json(&step.placements),
        "eliminations": cells_json(&step.eliminations),
    })
}

/// A solved grid in the boxed form that reads back in.
fn write_grid(out: &mut impl Write, grid: &pb::Grid) -> anyhow::Result<()> {
    let grid = sudoku_proto::grid_from_pb(grid)
        .map_err(|e| anyhow::anyhow!("the grid cannot be shown: {e}"))?;
    write!(out, "{grid}")?;
    Ok(())
}

/// One step: its sentence (line), an object with its 0-based `index` (json, explain), or the
/// sentence and (for a hint, `number` none) the grid with the step marked on it.
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
            let value = serde_json::json!({
                "index": number.map_or(0, |n| n - 1),
                "step": step_json(step),
            });
            writeln!(out, "{value}")
        }
        Format::Pretty => {
            if let Some(n) = number {
                write!(out, "{n}. ")?;
            }
            writeln!(out, "{} ({:.1})", step.text, step.rating)?;
            if number.is_none() {
                write_marked(out, grid, step)?;
                writeln!(out, "{LEGEND}")?;
            }
            Ok(())
        }
    }
}

/// How the marked grid reads; the symbols tell the kinds apart without colour.
const LEGEND: &str = "[d] placed   (d) a candidate or digit the step rests on   -d removed";

/// What the marked grid shows in one cell: placed, rested on, removed, a given or entry, or
/// an empty cell; a cell both rested on and losing candidates shows both, `(3)-5`.
fn cell_label(grid: &pb::Grid, step: &pb::Step, cell: (u32, u32), side: usize) -> (String, Tone) {
    let digits = |cells: &[pb::Cell]| -> String {
        cells
            .iter()
            .filter(|x| (x.row, x.col) == cell)
            .map(|x| symbol(x.digit))
            .collect()
    };
    let (placed, rests, removed) = (
        digits(&step.placements),
        digits(&step.support),
        digits(&step.eliminations),
    );
    let index = (cell.0 as usize - 1) * side + cell.1 as usize - 1;
    let value = grid.cells.get(index).copied().unwrap_or(0);
    if !placed.is_empty() {
        return (format!("[{placed}]"), Tone::Good);
    }
    let rests = match (rests.is_empty(), value) {
        (true, _) => String::new(),
        (false, 0) => format!("({rests})"),
        (false, v) => format!("({})", symbol(v)),
    };
    match (rests.is_empty(), removed.is_empty(), value) {
        (_, false, _) => (format!("{rests}-{removed}"), Tone::Bad),
        (false, true, _) => (rests, Tone::Doubtful),
        (true, true, 0) => (".".to_owned(), Tone::Good),
        (true, true, v) => (symbol(v).to_string(), Tone::Good),
    }
}

/// A digit's symbol: `1`-`9`, then `A`-`Z`.
fn symbol(digit: u32) -> char {
    char::from_digit(digit, 36).map_or('?', |c| c.to_ascii_uppercase())
}

/// The grid with the step on it (see [`LEGEND`]), coloured on a terminal; every cell as wide
/// as the widest label, so that the columns line up.
fn write_marked(out: &mut impl Write, grid: &pb::Grid, step: &pb::Step) -> std::io::Result<()> {
    let (rows, cols) = (grid.box_rows as usize, grid.box_cols as usize);
    let side = rows * cols;
    let labels: Vec<(String, Tone)> = (0..side * side)
        .map(|i| {
            cell_label(
                grid,
                step,
                ((i / side + 1) as u32, (i % side + 1) as u32),
                side,
            )
        })
        .collect();
    let width = labels
        .iter()
        .map(|(l, _)| l.chars().count())
        .max()
        .unwrap_or(1)
        + 1;
    for r in 0..side {
        if r > 0 && r % rows == 0 {
            let bar = "-".repeat(cols * width + 1);
            writeln!(out, "{}", vec![bar; side / cols].join("+"))?;
        }
        let mut line = String::new();
        for c in 0..side {
            if c > 0 && c % cols == 0 {
                line.push_str(" |");
            }
            let (label, tone) = &labels[r * side + c];
            let padded = format!("{label:>width$}");
            let plain = matches!(label.as_str(), ".") || label.chars().count() == 1;
            if plain {
                line.push_str(&padded);
            } else {
                line.push_str(&out_style(*tone, padded).to_string());
            }
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}
