//! Reading puzzles from arguments, files and stdin, each with where it came from.

use std::fmt;
use std::io::Read;
use std::path::Path;

use anyhow::Context;

/// Where a puzzle came from, for error messages.
#[derive(Debug, Clone)]
pub struct Origin {
    /// 1-based position among all puzzles.
    pub number: usize,
    /// An argument index or a line number.
    pub place: Place,
}

/// An argument index or a 1-based line number.
#[derive(Debug, Clone, Copy)]
pub enum Place {
    /// The n-th puzzle argument.
    Argument(usize),
    /// The line in the input where the puzzle starts.
    Line(usize),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.place {
            Place::Argument(n) => write!(f, "puzzle {} (argument {n})", self.number),
            Place::Line(n) => write!(f, "puzzle {} (line {n})", self.number),
        }
    }
}

/// Puzzles for `solve`: arguments, or the file, or stdin when there are none or `-`.
pub fn solve_inputs(args: &[String], file: Option<&Path>) -> anyhow::Result<Vec<(Origin, String)>> {
    let mut texts = Vec::new();
    let mut add = |place, text: String| {
        texts.push((
            Origin {
                number: texts.len() + 1,
                place,
            },
            text,
        ))
    };
    if let Some(path) = file {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        for (line, block) in blocks(&text) {
            add(Place::Line(line), block);
        }
    }
    for (i, arg) in args.iter().enumerate() {
        if arg == "-" {
            for (line, block) in blocks(&read_stdin()?) {
                add(Place::Line(line), block);
            }
        } else {
            add(Place::Argument(i + 1), arg.clone());
        }
    }
    if args.is_empty() && file.is_none() {
        for (line, block) in blocks(&read_stdin()?) {
            add(Place::Line(line), block);
        }
    }
    Ok(texts)
}

fn read_stdin() -> anyhow::Result<String> {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .context("cannot read stdin")?;
    Ok(text)
}

/// Splits text into puzzles: blank lines separate multi-line grids, and a block whose lines
/// each hold a whole one-line puzzle is that many puzzles.
pub fn blocks(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut block: Vec<(usize, &str)> = Vec::new();
    let mut flush = |block: &mut Vec<(usize, &str)>| {
        if block.is_empty() {
            return;
        }
        let one_line_each = block.iter().all(|(_, l)| is_one_line_puzzle(l));
        if one_line_each {
            out.extend(block.iter().map(|&(n, l)| (n, puzzle_field(l).to_owned())));
        } else {
            let first = block[0].0;
            out.push((
                first,
                block.iter().map(|(_, l)| *l).collect::<Vec<_>>().join("\n"),
            ));
        }
        block.clear();
    };
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            flush(&mut block);
        } else {
            block.push((i + 1, line));
        }
    }
    flush(&mut block);
    out
}

/// The grid field of a dataset line: the first whitespace-separated field.
pub fn puzzle_field(line: &str) -> &str {
    line.split_whitespace().next().unwrap_or("")
}

/// Whether a line's first field alone has as many cells as a whole grid.
fn is_one_line_puzzle(line: &str) -> bool {
    let n = puzzle_field(line).chars().count();
    n >= 16 && n.isqrt() * n.isqrt() == n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_split_one_line_puzzles_and_keep_grids_whole() {
        let line = ".".repeat(81);
        let text = format!(
            "# comment\n{line}\n{line} extra fields\n\n1 2 3 4\n3 4 1 2\n2 1 4 3\n4 3 2 1\n"
        );
        let found = blocks(&text);
        assert_eq!(found.len(), 3);
        assert_eq!((found[0].0, found[0].1.len()), (2, 81));
        assert_eq!(found[1].1, line);
        assert_eq!(found[2].0, 5);
        assert_eq!(found[2].1.lines().count(), 4);
    }
}
