//! Why a text or a list of cells is not a grid: each error names what is wrong and where
//! (rows and columns are 1-based).

use thiserror::Error;

use super::{Cell, House, Shape};

/// Why a text or a list of cells is not a valid grid.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum GridError {
    /// The box shape is not supported.
    #[error(
        "unsupported box shape {box_rows}x{box_cols}: boxes need at least 2 rows and 2 columns, \
         and the side (rows x columns) may be at most {max}",
        max = Shape::MAX_SIDE
    )]
    Shape {
        /// Rows per box as given.
        box_rows: usize,
        /// Columns per box as given.
        box_cols: usize,
    },
    /// The number of cells is not the square of a supported side.
    #[error("wrong number of cells: found {found}; {}", nearest_sizes(*found))]
    CellCount {
        /// Cells found.
        found: usize,
    },
    /// The number of cells does not match the box shape that was asked for.
    #[error("wrong number of cells: found {found}, expected {expected} for {shape} boxes")]
    CellCountForShape {
        /// Cells found.
        found: usize,
        /// Cells a grid of this shape has.
        expected: usize,
        /// The box shape asked for.
        shape: Shape,
    },
    /// A cell holds something that is neither a digit nor an empty mark.
    #[error("{at}: '{text}' is not a digit")]
    NotADigit {
        /// The cell.
        at: Cell,
        /// What the cell held.
        text: String,
    },
    /// A cell holds a number above the grid's side.
    #[error("{at}: {value} is not a digit of a {side}x{side} grid ({})", allowed_digits(*side))]
    OutOfRange {
        /// The cell.
        at: Cell,
        /// The value found.
        value: u64,
        /// The grid's side, the largest allowed value.
        side: usize,
    },
    /// A cell holds a number too large to read, shown as the user wrote it.
    #[error("{at}: {text} is not a digit of a {side}x{side} grid ({})", allowed_digits(*side))]
    NumberTooLarge {
        /// The cell.
        at: Cell,
        /// The number as written.
        text: String,
        /// The grid's side, the largest allowed value.
        side: usize,
    },
    /// Two givens in one row, column or box hold the same digit.
    #[error("digit {digit} appears twice in {house}: at {first} and {second}")]
    Duplicate {
        /// The repeated digit.
        digit: u8,
        /// Where both are.
        house: House,
        /// The first, in reading order.
        first: Cell,
        /// The second.
        second: Cell,
    },
}

impl GridError {
    /// The cell the error points at, if it points at one.
    pub fn position(&self) -> Option<Cell> {
        match *self {
            GridError::NotADigit { at, .. }
            | GridError::OutOfRange { at, .. }
            | GridError::NumberTooLarge { at, .. } => Some(at),
            GridError::Duplicate { second, .. } => Some(second),
            _ => None,
        }
    }
}

/// What a cell of a grid with `side` digits may hold, in words.
fn allowed_digits(side: usize) -> String {
    if side <= 9 {
        return format!("digits are 1 to {side}, 0 or . for empty");
    }
    // Letters stand for 10 and up: A is 10, so the last is side - 10 letters after A.
    let last = char::from(b'A' + (side - 10).min(25) as u8);
    format!("digits are 1 to {side}, or A to {last} for 10 to {side}; 0 or . for empty")
}

/// The grid sizes nearest `found` cells, in words: the one below and the one above it.
fn nearest_sizes(found: usize) -> String {
    let sides: Vec<usize> = (4..=Shape::MAX_SIDE)
        .filter(|&side| Shape::for_side(side).is_some())
        .collect();
    let size = |side: usize| format!("{} ({side}x{side})", side * side);
    let below = sides.iter().rev().find(|&&s| s * s < found).copied();
    let above = sides.iter().find(|&&s| s * s > found).copied();
    match (below, above) {
        (Some(below), Some(above)) => {
            format!(
                "the nearest grid sizes are {} and {}",
                size(below),
                size(above)
            )
        }
        (None, Some(above)) => format!("the smallest grid has {} cells", size(above)),
        (Some(below), None) => format!("the largest grid has {} cells", size(below)),
        (None, None) => "no grid size is near it".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrong_cell_count_names_the_nearest_sizes() {
        let says = |found| GridError::CellCount { found }.to_string();
        assert_eq!(
            says(80),
            "wrong number of cells: found 80; the nearest grid sizes are 64 (8x8) and 81 (9x9)"
        );
        assert_eq!(
            says(5),
            "wrong number of cells: found 5; the smallest grid has 16 (4x4) cells"
        );
        assert_eq!(
            says(2000),
            "wrong number of cells: found 2000; the largest grid has 1225 (35x35) cells"
        );
        // 49 cells would be 7x7, a prime side with no box shape: its neighbours are named.
        assert!(
            says(49).ends_with("are 36 (6x6) and 64 (8x8)"),
            "{}",
            says(49)
        );
    }

    #[test]
    fn a_number_too_large_says_which_digits_are_allowed() {
        let at = Cell { row: 1, col: 1 };
        let says = |value, side| GridError::OutOfRange { at, value, side }.to_string();
        assert_eq!(
            says(10, 9),
            "row 1, column 1: 10 is not a digit of a 9x9 grid (digits are 1 to 9, 0 or . for empty)"
        );
        assert_eq!(
            says(17, 16),
            "row 1, column 1: 17 is not a digit of a 16x16 grid \
             (digits are 1 to 16, or A to G for 10 to 16; 0 or . for empty)"
        );
        assert!(
            says(36, 35).contains("or A to Z for 10 to 35"),
            "{}",
            says(36, 35)
        );
        let huge = GridError::NumberTooLarge {
            at,
            text: "99999999999999999999".into(),
            side: 4,
        };
        assert_eq!(
            huge.to_string(),
            "row 1, column 1: 99999999999999999999 is not a digit of a 4x4 grid \
             (digits are 1 to 4, 0 or . for empty)"
        );
        assert_eq!(huge.position(), Some(at));
    }
}
