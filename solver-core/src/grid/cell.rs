//! Cells and houses as messages name them: 1-based rows, columns and boxes.

use std::fmt;

/// A cell of a grid by its 1-based row and column, as messages name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Cell {
    /// 1-based row, from the top.
    pub row: usize,
    /// 1-based column, from the left.
    pub col: usize,
}

impl Cell {
    /// The cell at 0-based `index` in a row-major grid of `side` columns.
    pub fn at_index(index: usize, side: usize) -> Cell {
        Cell {
            row: index / side + 1,
            col: index % side + 1,
        }
    }

    /// The cell's 0-based index in a row-major grid of `side` columns.
    pub fn index(self, side: usize) -> usize {
        (self.row - 1) * side + self.col - 1
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "row {}, column {}", self.row, self.col)
    }
}

/// A row, column or box of the grid (1-based number).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
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
