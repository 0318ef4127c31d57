//! A player's pencil marks, as `hint` and `explain` read them: the compact form Sukaku
//! Explainer and HoDoKu exchange (each cell's `side` candidate positions, the digit or `.`;
//! 729 characters on a 9x9 grid), or a pencil-mark grid (each cell's candidates as one word,
//! rows of words, frame characters such as `|`, `-`, `+`, `:` and `'` ignored).

use solver_core::Shape;

/// Why pencil marks do not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MarksError {
    /// The compact form has a digit where another belongs.
    #[error(
        "r{row}c{col}: position {position} of the cell's candidates holds '{found}' (only '{expected}' or '.' belongs there)"
    )]
    Position {
        /// 1-based row.
        row: usize,
        /// 1-based column.
        col: usize,
        /// 1-based position within the cell.
        position: usize,
        /// What is there.
        found: char,
        /// The digit that belongs there.
        expected: char,
    },
    /// A word of the pencil-mark grid holds something that is not a digit of the grid.
    #[error("r{row}c{col}: '{word}' is not a set of candidates from 1 to {side}")]
    Word {
        /// 1-based row.
        row: usize,
        /// 1-based column.
        col: usize,
        /// The word.
        word: String,
        /// The grid's side.
        side: usize,
    },
    /// Neither form: the wrong number of characters or cells.
    #[error(
        "found {} of candidates, expected {cells} (a pencil-mark grid) or {chars} \
         characters (the compact form)",
        crate::shown::plural(*words as u64, "cell")
    )]
    Count {
        /// Words found.
        words: usize,
        /// Cells in the grid.
        cells: usize,
        /// Characters of the compact form.
        chars: usize,
    },
}

/// A digit's symbol: `1`-`9`, then `A`-`Z`.
fn symbol(digit: usize) -> char {
    char::from_digit(digit as u32, 36).map_or('?', |c| c.to_ascii_uppercase())
}

/// A symbol's digit, if it is one of a grid of `side`.
fn digit_of(c: char, side: usize) -> Option<usize> {
    c.to_digit(36)
        .map(|d| d as usize)
        .filter(|&d| (1..=side).contains(&d))
}

/// Reads pencil marks in either form for a grid of `shape`: one mask per cell, bit `d - 1`
/// for digit `d`, as the API's `Candidates` carries them.
pub fn parse(text: &str, shape: Shape) -> Result<Vec<u64>, MarksError> {
    let side = shape.side();
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let words = text.split_whitespace().count();
    if compact.chars().count() == side * side * side && words != side * side {
        return parse_compact(&compact, side);
    }
    parse_grid(text, side)
}

/// The compact form: `side` characters a cell, position `i` the digit `i + 1` or `.`/`0`.
fn parse_compact(text: &str, side: usize) -> Result<Vec<u64>, MarksError> {
    let chars: Vec<char> = text.chars().collect();
    chars
        .chunks(side)
        .enumerate()
        .map(|(cell, positions)| {
            let mut mask = 0u64;
            for (i, &c) in positions.iter().enumerate() {
                if c == '.' || c == '0' {
                    continue;
                }
                if digit_of(c, side) != Some(i + 1) {
                    return Err(MarksError::Position {
                        row: cell / side + 1,
                        col: cell % side + 1,
                        position: i + 1,
                        found: c,
                        expected: symbol(i + 1),
                    });
                }
                mask |= 1 << i;
            }
            Ok(mask)
        })
        .collect()
}

/// The pencil-mark grid: one word of candidates a cell, row by row.
fn parse_grid(text: &str, side: usize) -> Result<Vec<u64>, MarksError> {
    // Frames are drawn with these; none is a digit.
    let frame = |c: char| matches!(c, '|' | '-' | '+' | ':' | '\'' | '.' | '*' | '=' | ',');
    let cleaned: String = text
        .chars()
        .map(|c| if frame(c) { ' ' } else { c })
        .collect();
    let words: Vec<&str> = cleaned.split_whitespace().collect();
    if words.len() != side * side {
        return Err(MarksError::Count {
            words: words.len(),
            cells: side * side,
            chars: side * side * side,
        });
    }
    words
        .iter()
        .enumerate()
        .map(|(cell, word)| {
            word.chars().try_fold(0u64, |mask, c| {
                digit_of(c, side)
                    .map(|d| mask | 1 << (d - 1))
                    .ok_or_else(|| MarksError::Word {
                        row: cell / side + 1,
                        col: cell % side + 1,
                        word: (*word).to_owned(),
                        side,
                    })
            })
        })
        .collect()
}

/// Pencil marks in the compact form, one character per candidate position.
#[cfg(test)]
pub fn compact(masks: &[u64], side: usize) -> String {
    masks
        .iter()
        .flat_map(|&m| (0..side).map(move |i| if m >> i & 1 == 1 { symbol(i + 1) } else { '.' }))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compact_form_reads_and_writes_back() {
        let mut masks = vec![0b1_1111_1111u64; 81];
        masks[0] = 0b1_0000_0101; // 1, 3, 9
        masks[80] = 0b10; // 2
        let text = compact(&masks, 9);
        assert_eq!(text.len(), 729);
        assert!(text.starts_with("1.3.....9123456789"));
        assert_eq!(parse(&text, Shape::CLASSIC), Ok(masks.clone()));
        // Lines of 81 read the same; `0` is an empty position too.
        let lines: Vec<&str> = (0..9).map(|r| &text[r * 81..(r + 1) * 81]).collect();
        assert_eq!(parse(&lines.join("\n"), Shape::CLASSIC), Ok(masks.clone()));
        assert_eq!(parse(&text.replace('.', "0"), Shape::CLASSIC), Ok(masks));
    }

    #[test]
    fn a_digit_out_of_its_position_is_named() {
        let text = format!("2{}", ".".repeat(728));
        let err = parse(&text, Shape::CLASSIC).expect_err("2 in position 1");
        assert_eq!(
            err.to_string(),
            "r1c1: position 1 of the cell's candidates holds '2' (only '1' or '.' belongs there)"
        );
    }

    #[test]
    fn a_pencil_mark_grid_reads_with_its_frame() {
        let shape = Shape::new(2, 2).expect("2x2");
        let grid = ".-------.-------.\n| 1  24 | 3  4  |\n| 34 2  | 1  12 |\n:-------+-------:\n\
                    | 2  1  | 4  3  |\n| 4  3  | 2  1  |\n'-------'-------'\n";
        let masks = parse(grid, shape).expect("reads");
        assert_eq!(&masks[..4], &[0b1, 0b1010, 0b100, 0b1000]);
        assert_eq!(masks[4], 0b1100);
        let err = parse("1 2 3", shape).expect_err("three cells");
        assert!(
            matches!(
                err,
                MarksError::Count {
                    words: 3,
                    cells: 16,
                    chars: 64
                }
            ),
            "{err}"
        );
        let err = parse(&"15 ".repeat(16), shape).expect_err("5 on a 4x4 grid");
        assert_eq!(
            err.to_string(),
            "r1c1: '15' is not a set of candidates from 1 to 4"
        );
    }
}
