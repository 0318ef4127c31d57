//! Errors that name what is wrong with a grid and where (rows and columns are 1-based).

use std::fmt;

use thiserror::Error;

use crate::grid::Shape;
use crate::solve::Algorithm;

/// A row, column or box of the grid (1-based number).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum House {
    /// A row, numbered from the top.
    Row(usize),
    /// A column, numbered from the left.
    Column(usize),
    /// A box, numbered in reading order.
    Box(usize),
}

impl fmt::Display for House {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            House::Row(n) => write!(f, "row {n}"),
            House::Column(n) => write!(f, "column {n}"),
            House::Box(n) => write!(f, "box {n}"),
        }
    }
}

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
    #[error(
        "wrong number of cells: found {found}, expected one of 16, 36, 64, 81, 144, 256, 625 \
         (the square of a side with a box shape)"
    )]
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
    #[error("row {row}, column {col}: '{text}' is not a digit")]
    NotADigit {
        /// 1-based row.
        row: usize,
        /// 1-based column.
        col: usize,
        /// What the cell held.
        text: String,
    },
    /// A cell holds a number outside 1..=side.
    #[error("row {row}, column {col}: value {value} is out of range 1..={side}")]
    OutOfRange {
        /// 1-based row.
        row: usize,
        /// 1-based column.
        col: usize,
        /// The value found.
        value: u64,
        /// The grid's side, the largest allowed value.
        side: usize,
    },
    /// Two givens in one row, column or box hold the same digit.
    #[error(
        "digit {digit} appears twice in {house}: at row {}, column {} and row {}, column {}",
        first.0, first.1, second.0, second.1
    )]
    Duplicate {
        /// The repeated digit.
        digit: u8,
        /// Where both are.
        house: House,
        /// 1-based (row, column) of the first.
        first: (usize, usize),
        /// 1-based (row, column) of the second.
        second: (usize, usize),
    },
}

impl GridError {
    /// The 1-based (row, column) the error points at, if it points at one cell.
    pub fn position(&self) -> Option<(usize, usize)> {
        match *self {
            GridError::NotADigit { row, col, .. } | GridError::OutOfRange { row, col, .. } => {
                Some((row, col))
            }
            GridError::Duplicate { second, .. } => Some(second),
            _ => None,
        }
    }
}

/// Why a solve could not start.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SolveError {
    /// The algorithm asked for cannot solve grids of this shape.
    #[error("the {algorithm} algorithm solves only 9x9 grids with 3x3 boxes, not {shape} boxes")]
    Unsupported {
        /// The algorithm asked for.
        algorithm: Algorithm,
        /// The grid's box shape.
        shape: Shape,
    },
}
