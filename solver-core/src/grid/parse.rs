//! Reading grids from the text forms people and datasets use.
//!
//! Accepted forms:
//! - one character per cell (`.`, `0`, `_` or `*` empty; `1-9` then `A-Z` for 10..35), on one
//!   line or several;
//! - numbers separated by whitespace or commas, one row per line (`0` empty);
//! - the pretty form written by [`Grid`]'s `Display`, with `|`, `-` and `+` separators.
//!
//! The side is inferred from the number of cells; the box shape is the squarest one unless given.

use std::str::FromStr;

use super::{Cell, Grid, GridError, Shape};

/// One cell's text before it is decoded, kept so errors can quote it.
enum Raw<'a> {
    Char(char),
    Token(&'a str),
}

/// Parses a grid in any accepted form; `shape` fixes the box shape, otherwise it is inferred.
pub fn parse(text: &str, shape: Option<Shape>) -> Result<Grid, GridError> {
    let (shape, values) = parse_values(text, shape)?;
    Grid::from_values(shape, values)
}

/// The shape and the cell values, each in range; repeats are not looked for.
pub(crate) fn parse_values(
    text: &str,
    shape: Option<Shape>,
) -> Result<(Shape, Box<[u8]>), GridError> {
    if shape.is_none_or(|shape| shape == Shape::CLASSIC)
        && let Some(values) = classic_line(text)
    {
        return Ok((Shape::CLASSIC, values));
    }
    let raw = split_cells(text);
    let shape = match shape {
        Some(shape) if shape.cells() == raw.len() => shape,
        Some(shape) => {
            return Err(GridError::CellCountForShape {
                found: raw.len(),
                expected: shape.cells(),
                shape,
            });
        }
        None => infer_shape(raw.len()).ok_or(GridError::CellCount { found: raw.len() })?,
    };
    let side = shape.side();
    let values = raw
        .iter()
        .enumerate()
        .map(|(i, cell)| decode(cell, side).map_err(|e| e.at(i / side + 1, i % side + 1, side)))
        .collect::<Result<Box<[u8]>, _>>()?;
    Ok((shape, values))
}

impl FromStr for Grid {
    type Err = GridError;

    fn from_str(text: &str) -> Result<Grid, GridError> {
        parse(text, None)
    }
}

/// The values of a 9x9 grid written as one line of 81 digits and empty marks, the datasets'
/// form, read in one pass; `None` for anything else, which [`split_cells`] reads. The general
/// path costs about 16,000 instructions on such a line (collecting every cell as a `char`,
/// then decoding each), more than solving a 17-clue puzzle.
fn classic_line(text: &str) -> Option<Box<[u8]>> {
    let line = text.trim().as_bytes();
    if line.len() != Shape::CLASSIC.cells() {
        return None;
    }
    // Checked over every byte with no early exit, then mapped: both loops run as vector code.
    let valid = line.iter().fold(true, |ok, &b| {
        ok & (b.is_ascii_digit() | (b == b'.') | (b == b'_') | (b == b'*'))
    });
    valid.then(|| {
        line.iter()
            .map(|&b| if b.is_ascii_digit() { b - b'0' } else { 0 })
            .collect()
    })
}

/// The shape for a cell count, if it is the square of a side that has one.
fn infer_shape(cells: usize) -> Option<Shape> {
    let side = cells.isqrt();
    (side * side == cells)
        .then(|| Shape::for_side(side))
        .flatten()
}

/// Splits text into cells: by separators when rows hold several tokens, else one char each.
fn split_cells(text: &str) -> Vec<Raw<'_>> {
    let is_sep = |c: char| c.is_whitespace() || c == ',' || c == '|';
    let is_space = |c: char| c.is_whitespace() || c == ',';
    let lines = text.lines().filter(|line| {
        // Rules between bands, such as `------+-------+------`, carry no cells.
        !line
            .chars()
            .all(|c| c.is_whitespace() || matches!(c, '-' | '+' | '|' | '='))
    });
    // Box bars (`|`) separate nothing on their own: `3.6|5.8|4..` is still one char per cell.
    let tokenised = lines
        .clone()
        .any(|line| line.split(is_space).filter(|t| !t.is_empty()).count() > 1);
    if tokenised {
        lines
            .flat_map(|line| line.split(is_sep))
            .filter(|t| !t.is_empty())
            .map(Raw::Token)
            .collect()
    } else {
        lines
            .flat_map(str::chars)
            .filter(|&c| !is_sep(c))
            .map(Raw::Char)
            .collect()
    }
}

/// Why one cell failed to decode, before its position is known.
enum CellError {
    NotADigit(String),
    OutOfRange(u64),
    /// All digits, but too many to read as a number: shown as written.
    TooLarge(String),
}

impl CellError {
    fn at(self, row: usize, col: usize, side: usize) -> GridError {
        match self {
            CellError::NotADigit(text) => GridError::NotADigit {
                at: Cell { row, col },
                text,
            },
            CellError::OutOfRange(value) => GridError::OutOfRange {
                at: Cell { row, col },
                value,
                side,
            },
            CellError::TooLarge(text) => GridError::NumberTooLarge {
                at: Cell { row, col },
                text,
                side,
            },
        }
    }
}

fn decode(cell: &Raw<'_>, side: usize) -> Result<u8, CellError> {
    let value = match *cell {
        Raw::Char(c) => decode_char(c, side)?,
        Raw::Token(t) if t.bytes().all(|b| b.is_ascii_digit()) => t
            .parse::<u64>()
            .map_err(|_| CellError::TooLarge(t.to_owned()))?,
        Raw::Token(t) => {
            let mut chars = t.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => decode_char(c, side)?,
                _ => return Err(CellError::NotADigit(t.to_owned())),
            }
        }
    };
    if value > side as u64 {
        return Err(CellError::OutOfRange(value));
    }
    Ok(value as u8)
}

fn decode_char(c: char, side: usize) -> Result<u64, CellError> {
    match c {
        '.' | '0' | '_' | '*' => Ok(0),
        '1'..='9' => Ok(u64::from(c) - u64::from('0')),
        // Letters are digits only in grids that need them (side above 9).
        'A'..='Z' | 'a'..='z' if side > 9 => {
            Ok(u64::from(c.to_ascii_uppercase()) - u64::from('A') + 10)
        }
        _ => Err(CellError::NotADigit(c.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLASSIC: &str =
        "3.65.84..52........87....31..3.1..8.9..863..5.5..9.6..13....25........74..52.63..";

    fn digits(grid: &Grid) -> String {
        grid.to_line()
    }

    #[test]
    fn one_line_with_every_empty_mark() {
        let grid: Grid = CLASSIC.parse().unwrap();
        assert_eq!(grid.shape(), Shape::CLASSIC);
        assert_eq!(grid.get(0, 0), 3);
        assert_eq!(grid.get(0, 1), 0);
        for mark in ['0', '_', '*'] {
            let other: Grid = CLASSIC.replace('.', &mark.to_string()).parse().unwrap();
            assert_eq!(other, grid);
        }
    }

    #[test]
    fn the_one_line_fast_path_reads_as_the_general_one_does() {
        // Every mark, at every position, on both paths: the same line split into rows goes
        // the general way.
        let marks = ['.', '0', '_', '*'];
        for (i, mark) in marks.iter().cycle().take(81).enumerate() {
            let mut line: Vec<char> = CLASSIC.chars().collect();
            if line[i] == '.' {
                line[i] = *mark;
            }
            let line: String = line.into_iter().collect();
            let rows: Vec<&str> = (0..9).map(|r| &line[r * 9..r * 9 + 9]).collect();
            let general = parse(&rows.join("\n"), None);
            assert!(classic_line(&line).is_some(), "fast path taken for {line}");
            assert_eq!(parse(&line, None), general);
            assert_eq!(
                parse(&format!("  {line}\r\n"), Some(Shape::CLASSIC)),
                general
            );
        }
        // Anything else in an 81-byte line leaves it to the general path and its errors.
        for bad in ['x', 'A', ',', '|', ' ', '-'] {
            let line = format!("{bad}{}", &CLASSIC[1..]);
            assert!(classic_line(&line).is_none(), "{bad:?} is not a cell");
            let rows: Vec<&str> = (0..9).map(|r| &line[r * 9..r * 9 + 9]).collect();
            assert_eq!(parse(&line, None), parse(&rows.join("\n"), None), "{bad:?}");
        }
    }

    #[test]
    fn rows_of_numbers_with_spaces_or_commas() {
        let grid: Grid = CLASSIC.parse().unwrap();
        let rows: Vec<String> = grid
            .cells()
            .chunks(9)
            .map(|r| {
                r.iter()
                    .map(|v| v.to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        assert_eq!(rows.join("\n").parse::<Grid>().unwrap(), grid);
        assert_eq!(
            rows.join("\n").replace(' ', ", ").parse::<Grid>().unwrap(),
            grid
        );
        // Nine lines of nine characters is the character form split over lines.
        let block: Vec<&str> = (0..9).map(|r| &CLASSIC[r * 9..r * 9 + 9]).collect();
        assert_eq!(block.join("\n").parse::<Grid>().unwrap(), grid);
    }

    #[test]
    fn pretty_form_parses_back() {
        let grid: Grid = CLASSIC.parse().unwrap();
        let pretty = grid.to_string();
        assert!(pretty.contains("------+-------+------"), "{pretty}");
        assert_eq!(pretty.parse::<Grid>().unwrap(), grid);
    }

    #[test]
    fn letters_for_sides_above_nine() {
        let mut line = String::from("G");
        line.push_str(&".".repeat(255));
        let grid: Grid = line.parse().unwrap();
        assert_eq!(grid.shape(), Shape::new(4, 4).unwrap());
        assert_eq!(grid.get(0, 0), 16);
        assert_eq!(digits(&grid), line);
        let lower: Grid = line.to_lowercase().parse().unwrap();
        assert_eq!(lower, grid);
    }

    #[test]
    fn explicit_shape_where_a_side_has_two() {
        let text = ".".repeat(36);
        assert_eq!(
            parse(&text, None).unwrap().shape(),
            Shape::new(2, 3).unwrap()
        );
        let tall = Shape::new(3, 2).unwrap();
        assert_eq!(parse(&text, Some(tall)).unwrap().shape(), tall);
        assert_eq!(
            parse(&text, Some(Shape::CLASSIC)),
            Err(GridError::CellCountForShape {
                found: 36,
                expected: 81,
                shape: Shape::CLASSIC
            })
        );
    }

    #[test]
    fn errors_name_the_cell() {
        let mut bad = CLASSIC.to_string();
        bad.replace_range(13..14, "#");
        let err = bad.parse::<Grid>().unwrap_err();
        assert_eq!(err.to_string(), "row 2, column 5: '#' is not a digit");

        let err = CLASSIC[..80].parse::<Grid>().unwrap_err();
        assert_eq!(err, GridError::CellCount { found: 80 });
        // The nearest sizes a grid can have, either side of the count found.
        assert_eq!(
            err.to_string(),
            "wrong number of cells: found 80; the nearest grid sizes are 64 (8x8) and 81 (9x9)"
        );

        let mut rows = ["0 0 0 0"; 4];
        rows[2] = "0 5 0 0";
        let err = rows.join("\n").parse::<Grid>().unwrap_err();
        assert_eq!(
            err,
            GridError::OutOfRange {
                at: Cell { row: 3, col: 2 },
                value: 5,
                side: 4
            }
        );
        assert_eq!(
            err.to_string(),
            "row 3, column 2: 5 is not a digit of a 4x4 grid (digits are 1 to 4, 0 or . for empty)"
        );

        rows[2] = "0 x1 0 0";
        let err = rows.join("\n").parse::<Grid>().unwrap_err();
        assert_eq!(err.to_string(), "row 3, column 2: 'x1' is not a digit");

        let mut letter = CLASSIC.to_string();
        letter.replace_range(0..1, "A");
        let err = letter.parse::<Grid>().unwrap_err();
        assert_eq!(err.to_string(), "row 1, column 1: 'A' is not a digit");

        let mut dup = CLASSIC.to_string();
        dup.replace_range(1..2, "3");
        assert_eq!(
            dup.parse::<Grid>().unwrap_err().to_string(),
            "digit 3 appears twice in row 1: at row 1, column 1 and row 1, column 2"
        );

        assert_eq!("".parse::<Grid>(), Err(GridError::CellCount { found: 0 }));
        assert_eq!(
            "99999999999999999999999 0 0 0\n".repeat(4).parse::<Grid>(),
            Err(GridError::NumberTooLarge {
                at: Cell { row: 1, col: 1 },
                text: "99999999999999999999999".into(),
                side: 4
            })
        );
        // The user's own digits, not a type's limit.
        let err = "99999999999999999999999 0 0 0\n"
            .repeat(4)
            .parse::<Grid>()
            .unwrap_err();
        assert!(
            err.to_string().starts_with(
                "row 1, column 1: 99999999999999999999999 is not a digit of a 4x4 grid"
            ),
            "{err}"
        );
    }
}
