//! `sudoku generate`: puzzles with exactly one solution, streamed from Generate and printed
//! one per line, so the output feeds `sudoku batch` and `sudoku rate`.

use std::io::Write;

use sudoku_proto::grid_from_pb;
use sudoku_proto::pb;

use crate::cli::{Format, GenerateArgs, LevelArg, SymmetryArg};
use crate::conn::Connection;
use crate::rate::level_name;
use crate::request::{shape_name, shape_tag};

impl From<LevelArg> for pb::Level {
    fn from(level: LevelArg) -> pb::Level {
        match level {
            LevelArg::Easy => pb::Level::Easy,
            LevelArg::Medium => pb::Level::Medium,
            LevelArg::Hard => pb::Level::Hard,
            LevelArg::Diabolical => pb::Level::Diabolical,
            LevelArg::Extreme => pb::Level::Extreme,
            LevelArg::Hardest => pb::Level::Hardest,
        }
    }
}

impl From<SymmetryArg> for pb::Symmetry {
    fn from(symmetry: SymmetryArg) -> pb::Symmetry {
        match symmetry {
            SymmetryArg::None => pb::Symmetry::None,
            SymmetryArg::Rotational => pb::Symmetry::Rotate180,
            SymmetryArg::Rotate90 => pb::Symmetry::Rotate90,
            SymmetryArg::MirrorLeftRight => pb::Symmetry::Mirror,
            SymmetryArg::MirrorTopBottom => pb::Symmetry::MirrorVertical,
            SymmetryArg::Diagonal => pb::Symmetry::Diagonal,
            SymmetryArg::AntiDiagonal => pb::Symmetry::AntiDiagonal,
        }
    }
}

/// The Generate request the flags describe.
fn request(args: &GenerateArgs) -> pb::GenerateRequest {
    let (box_rows, box_cols) = args
        .shape
        .map_or((3, 3), |s| (s.box_rows() as u32, s.box_cols() as u32));
    let (min_rating, max_rating) = args.rating.unwrap_or((0.0, 0.0));
    let (min_givens, max_givens) = args.givens.unwrap_or((0, 0));
    pb::GenerateRequest {
        box_rows,
        box_cols,
        level: args
            .level
            .map_or(pb::Level::Unspecified, pb::Level::from)
            .into(),
        min_rating,
        max_rating,
        symmetry: pb::Symmetry::from(args.symmetry).into(),
        minimal: args.minimal,
        min_givens,
        max_givens,
        seed: args.seed.unwrap_or(0),
        count: args.count,
        options: None,
        unrated: !args.rate,
    }
}

/// Prints each puzzle as it comes; true when all asked for came.
pub async fn run(conn: &Connection, args: &GenerateArgs, format: Format) -> anyhow::Result<bool> {
    let mut stream = conn
        .puzzles()
        .generate(conn.request(request(args)))
        .await
        .map_err(|s| conn.status_error(s))?
        .into_inner();
    let mut made = 0u32;
    while let Some(puzzle) = stream.message().await.map_err(|s| conn.status_error(s))? {
        let mut out = std::io::stdout().lock();
        print(&mut out, format, &puzzle)?;
        out.flush()?;
        made += 1;
    }
    if made < args.count {
        eprintln!(
            "sudoku: {made} of {} generated",
            crate::shown::plural(args.count.into(), "puzzle")
        );
    }
    Ok(made == args.count)
}

fn print(out: &mut impl Write, format: Format, answer: &pb::GeneratedPuzzle) -> anyhow::Result<()> {
    let grid = |g: Option<&pb::Grid>| {
        g.ok_or_else(|| anyhow::anyhow!("the server sent a puzzle without its grid"))
            .and_then(|g| {
                grid_from_pb(g).map_err(|e| anyhow::anyhow!("the server sent a bad grid: {e}"))
            })
    };
    let puzzle = grid(answer.puzzle.as_ref())?;
    let level = level_name(answer.level());
    // Lines of non-square boxes carry their shape (`3x2:...`), so that they read back in it.
    let line = |g: &solver_core::Grid| {
        let shape = g.shape();
        let tag = shape_tag(shape.box_rows() as u32, shape.box_cols() as u32);
        format!("{}{}", tag.unwrap_or_default(), g.to_line())
    };
    match format {
        Format::Line => writeln!(out, "{}", line(&puzzle))?,
        Format::Json => {
            let solution = grid(answer.solution.as_ref())?;
            let value = serde_json::json!({
                "index": answer.index,
                "puzzle": line(&puzzle),
                "solution": line(&solution),
                "box": shape_name(puzzle.shape()),
                "rating": level.map(|_| answer.rating),
                "level": level,
                "givens": answer.givens,
                "seed": answer.seed,
            });
            writeln!(out, "{value}")?;
        }
        Format::Pretty => {
            // The grid alone on stdout reads back in; what it is goes to stderr.
            writeln!(out, "{puzzle}")?;
            out.flush()?;
            let rating = match level {
                Some(level) => format!("rating {:.1} ({level})", answer.rating),
                None if puzzle.side() == 9 => "not rated (--rate rates it)".to_owned(),
                None => "not rated (the engine rates 9x9 grids)".to_owned(),
            };
            eprintln!(
                "puzzle {}: {rating}, {} givens, seed {}",
                answer.index + 1,
                answer.givens,
                answer.seed
            );
        }
    }
    Ok(())
}
