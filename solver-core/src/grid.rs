//! `Shape` and `Grid`: a grid is checked once when built, so every `Grid` is a valid puzzle.
//! The cells, houses and errors that name a place in a grid live here too.

mod cell;
mod error;
mod format;
mod parse;

use std::fmt;

pub use cell::{Cell, House};
pub use error::GridError;
pub use parse::parse;
pub(crate) use parse::parse_values;

/// The box shape of a grid: `box_rows × box_cols` cells per box, side `box_rows · box_cols`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shape {
    box_rows: u8,
    box_cols: u8,
}

impl Shape {
    /// The largest side supported: every value still has a one-character form (1-9, A-Z).
    pub const MAX_SIDE: usize = 35;
    /// The classic 9×9 grid.
    pub const CLASSIC: Shape = Shape {
        box_rows: 3,
        box_cols: 3,
    };

    /// A shape with boxes of `box_rows × box_cols` cells.
    pub fn new(box_rows: usize, box_cols: usize) -> Result<Shape, GridError> {
        if box_rows < 2 || box_cols < 2 || box_rows.saturating_mul(box_cols) > Self::MAX_SIDE {
            return Err(GridError::Shape { box_rows, box_cols });
        }
        Ok(Shape {
            box_rows: box_rows as u8,
            box_cols: box_cols as u8,
        })
    }

    /// The usual shape for a side: the squarest boxes, with no more rows than columns.
    pub fn for_side(side: usize) -> Option<Shape> {
        (2..=side)
            .take_while(|r| r * r <= side)
            .filter(|r| side.is_multiple_of(*r))
            .last()
            .and_then(|r| Shape::new(r, side / r).ok())
    }

    /// Rows per box.
    pub fn box_rows(self) -> usize {
        self.box_rows as usize
    }

    /// Columns per box.
    pub fn box_cols(self) -> usize {
        self.box_cols as usize
    }

    /// Cells per row, column and box; also the largest digit.
    pub fn side(self) -> usize {
        self.box_rows() * self.box_cols()
    }

    /// Cells in the grid.
    pub fn cells(self) -> usize {
        self.side() * self.side()
    }

    /// The 0-based box index of a cell, boxes numbered in reading order.
    pub fn box_of(self, row: usize, col: usize) -> usize {
        let boxes_per_band = self.side() / self.box_cols();
        (row / self.box_rows()) * boxes_per_band + col / self.box_cols()
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.box_rows, self.box_cols)
    }
}

/// An integer type a cell value may come in: `u8` (as [`Grid::cells`] gives them), `u16`,
/// `u32` (as protobuf carries them) or `u64`.
pub trait Value: Copy + Into<u64> + sealed::Sealed {}

impl Value for u8 {}
impl Value for u16 {}
impl Value for u32 {}
impl Value for u64 {}

mod sealed {
    /// Keeps [`super::Value`] to the integer types above, and holds what [`super::in_range`]
    /// does per type: bytes, as servers unpack them for every puzzle, go through whole-slice
    /// operations (a vector max, a copy) instead of a widening step per cell.
    pub trait Sealed: Copy + Into<u64> {
        /// The largest of `values`, 0 for none.
        fn largest(values: &[Self]) -> u64 {
            values.iter().fold(0, |acc, &v| acc.max(v.into()))
        }

        /// `values` as bytes; each must fit one.
        fn to_bytes(values: &[Self]) -> Box<[u8]> {
            values.iter().map(|&v| v.into() as u8).collect()
        }
    }

    impl Sealed for u8 {
        fn largest(values: &[u8]) -> u64 {
            values.iter().fold(0, |acc, &v| acc.max(v)).into()
        }

        fn to_bytes(values: &[u8]) -> Box<[u8]> {
            values.into()
        }
    }
    impl Sealed for u16 {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

/// A Sudoku grid: cells in row-major order, 0 for empty, no digit twice in a row, column or box.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Grid {
    shape: Shape,
    cells: Box<[u8]>,
}

impl Grid {
    /// A grid from row-major cell values (0 = empty), checked for size, range and repeats.
    /// Takes the values as [`cells`](Grid::cells) gives them (`u8`), or as wider integers
    /// (`u32` from the wire).
    pub fn new<V: Value>(shape: Shape, cells: &[V]) -> Result<Grid, GridError> {
        Self::from_values(shape, in_range(shape, cells)?)
    }

    /// A grid from values already known to be in range; checks only for repeats.
    pub(crate) fn from_values(shape: Shape, cells: Box<[u8]>) -> Result<Grid, GridError> {
        debug_assert_eq!(cells.len(), shape.cells());
        let grid = Grid { shape, cells };
        match grid.first_repeat() {
            Some(err) => Err(err),
            None => Ok(grid),
        }
    }

    /// A grid a solver filled in; solvers only produce complete, valid grids.
    pub(crate) fn solved(shape: Shape, cells: Box<[u8]>) -> Grid {
        let grid = Grid { shape, cells };
        debug_assert!(
            grid.is_complete() && grid.first_repeat().is_none(),
            "{grid:?}"
        );
        grid
    }

    /// An empty grid of this shape.
    pub fn empty(shape: Shape) -> Grid {
        Grid {
            shape,
            cells: vec![0; shape.cells()].into(),
        }
    }

    /// The box shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// Cells per row.
    pub fn side(&self) -> usize {
        self.shape.side()
    }

    /// Cell values in row-major order, 0 for empty.
    pub fn cells(&self) -> &[u8] {
        &self.cells
    }

    /// The value at a 0-based row and column, 0 if empty.
    pub fn get(&self, row: usize, col: usize) -> u8 {
        self.cells[row * self.side() + col]
    }

    /// Number of filled cells.
    pub fn givens(&self) -> usize {
        self.cells.iter().filter(|&&v| v != 0).count()
    }

    /// Whether every cell is filled (a filled `Grid` is always a valid solution).
    pub fn is_complete(&self) -> bool {
        self.cells.iter().all(|&v| v != 0)
    }

    /// Whether this grid is complete, follows the rules and keeps every given of `puzzle`.
    pub fn is_solution_of(&self, puzzle: &Grid) -> bool {
        self.shape == puzzle.shape
            && self.is_complete()
            && self.first_repeat().is_none()
            && puzzle
                .cells
                .iter()
                .zip(self.cells.iter())
                .all(|(&p, &s)| p == 0 || p == s)
    }

    /// The first digit found twice in a house, in row, column, box order.
    fn first_repeat(&self) -> Option<GridError> {
        let (box_rows, box_cols) = (self.shape.box_rows(), self.shape.box_cols());
        // The classic shape gets its own copy with constant sizes: servers check every
        // request, and on easy puzzles the general loop cost a tenth of the solve.
        let repeated = match <&[u8; 81]>::try_from(&*self.cells) {
            Ok(cells) if self.shape == Shape::CLASSIC => classic_has_repeat(cells),
            _ => has_repeat(&self.cells, box_rows, box_cols),
        };
        if repeated { self.locate_repeat() } else { None }
    }

    /// The error naming both cells of the first repeat; only runs on invalid grids.
    fn locate_repeat(&self) -> Option<GridError> {
        let side = self.side();
        let shape = self.shape;
        // first[house][digit] = 1 + index of the cell holding it.
        let mut first = vec![0usize; 3 * side * (side + 1)];
        for (i, &v) in self.cells.iter().enumerate() {
            if v == 0 {
                continue;
            }
            let (row, col) = (i / side, i % side);
            let houses = [
                (row, House::Row(row + 1)),
                (side + col, House::Column(col + 1)),
                (
                    2 * side + shape.box_of(row, col),
                    House::Box(shape.box_of(row, col) + 1),
                ),
            ];
            for (h, house) in houses {
                let slot = &mut first[h * (side + 1) + v as usize];
                if *slot != 0 {
                    let earlier = *slot - 1;
                    return Some(GridError::Duplicate {
                        digit: v,
                        house,
                        first: Cell::at_index(earlier, side),
                        second: Cell {
                            row: row + 1,
                            col: col + 1,
                        },
                    });
                }
                *slot = i + 1;
            }
        }
        None
    }
}

/// [`has_repeat`] for 9×9 grids with values in range, visiting the filled cells only: a
/// 17-clue puzzle has 17 of 81. Each digit keeps the houses it was seen in as one word, so a
/// cell costs one table read, one test and one update (368 instructions a 17-clue grid, from
/// 647 with a bitmask per house; 790 for the loop over every cell).
fn classic_has_repeat(cells: &[u8; 81]) -> bool {
    // seen[v]: the houses holding digit v so far (v <= 9 here; empty cells are not visited).
    let mut seen = [0u32; 16];
    let mut repeated = 0u32;
    let high = filled_bytes(&cells[64..72]) | filled_bytes(&cells[72..80]) << 8;
    let low = (0..8).fold(0, |mask, k| {
        mask | filled_bytes(&cells[8 * k..8 * k + 8]) << (8 * k)
    });
    for (first, mut filled) in [(0, low), (64, high | u64::from(cells[80] != 0) << 16)] {
        while filled != 0 {
            let i = first + filled.trailing_zeros() as usize;
            filled &= filled - 1;
            let houses = CLASSIC_HOUSES[i];
            let seen = &mut seen[usize::from(cells[i] & 15)];
            repeated |= *seen & houses;
            *seen |= houses;
        }
    }
    repeated != 0
}

/// One bit per nonzero byte of eight, first byte lowest, in a few word operations: a fold
/// over the bytes did not become vector code and cost more than the whole dense check.
fn filled_bytes(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(bytes);
    let word = u64::from_le_bytes(word);
    let low7 = 0x7f7f_7f7f_7f7f_7f7f;
    // A byte's top bit: set when its low seven bits carry into it or it was set already.
    let nonzero = (((word & low7) + low7) | word) & !low7;
    // Gathers the eight top bits (each bit 8k + 7) into the top byte, bit 56 + k.
    (nonzero >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// Each 9×9 cell's row, column and box as one bit each: bits 0-8 the row, 9-17 the column,
/// 18-26 the box (cells row by row), for checks that OR a cell's houses into its digit's word.
pub(crate) const CLASSIC_HOUSES: [u32; 81] = {
    let mut houses = [0; 81];
    let mut i = 0;
    while i < 81 {
        let (row, col) = (i / 9, i % 9);
        houses[i] = 1 << row | 1 << (9 + col) | 1 << (18 + row / 3 * 3 + col / 3);
        i += 1;
    }
    houses
};

/// Whether two cells of a row, column or box hold the same digit; one bitmask per house, no
/// allocation and no division per cell.
fn has_repeat(cells: &[u8], box_rows: usize, box_cols: usize) -> bool {
    let side = (box_rows * box_cols).min(Shape::MAX_SIDE);
    let mut box_of_col = [0usize; Shape::MAX_SIDE];
    for (col, b) in box_of_col.iter_mut().enumerate().take(side) {
        *b = col / box_cols;
    }
    let mut cols = [0u64; Shape::MAX_SIDE];
    let mut boxes = [0u64; Shape::MAX_SIDE];
    let mut repeated = 0;
    for (row, line) in cells.chunks_exact(side).enumerate() {
        let first_box = row / box_rows * box_rows;
        let mut in_row = 0u64;
        for (col, &v) in line.iter().enumerate() {
            // Bit v - 1 for a digit, no bit for an empty cell.
            let bit = (1u64 << v) >> 1;
            let in_box = &mut boxes[first_box + box_of_col[col]];
            repeated |= (in_row | cols[col] | *in_box) & bit;
            in_row |= bit;
            cols[col] |= bit;
            *in_box |= bit;
        }
    }
    repeated != 0
}

/// Row-major cell values as bytes, checked for count and range (repeats are allowed here).
pub(crate) fn in_range<V: Value>(shape: Shape, cells: &[V]) -> Result<Box<[u8]>, GridError> {
    if cells.len() != shape.cells() {
        return Err(GridError::CellCountForShape {
            found: cells.len(),
            expected: shape.cells(),
            shape,
        });
    }
    let side = shape.side();
    // A max over all values vectorizes; the position is only looked for on bad input.
    let side_value = side as u64;
    if V::largest(cells) > side_value
        && let Some(i) = cells.iter().position(|&v| v.into() > side_value)
    {
        return Err(GridError::OutOfRange {
            at: Cell::at_index(i, side),
            value: cells[i].into(),
            side,
        });
    }
    // In range, so every value fits a byte.
    Ok(V::to_bytes(cells))
}

impl fmt::Debug for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Grid({}, {})", self.shape, self.to_line())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_shapes_are_the_squarest() {
        let shape = |s| Shape::for_side(s).map(|s| (s.box_rows(), s.box_cols()));
        assert_eq!(shape(4), Some((2, 2)));
        assert_eq!(shape(6), Some((2, 3)));
        assert_eq!(shape(8), Some((2, 4)));
        assert_eq!(shape(9), Some((3, 3)));
        assert_eq!(shape(12), Some((3, 4)));
        assert_eq!(shape(16), Some((4, 4)));
        assert_eq!(shape(25), Some((5, 5)));
        assert_eq!(shape(7), None);
        assert_eq!(shape(36), None);
    }

    #[test]
    fn rejects_bad_shapes() {
        assert!(matches!(Shape::new(1, 9), Err(GridError::Shape { .. })));
        assert!(matches!(Shape::new(6, 6), Err(GridError::Shape { .. })));
    }

    #[test]
    fn box_numbering_is_reading_order() {
        let s = Shape::new(2, 3).unwrap();
        assert_eq!(s.box_of(0, 0), 0);
        assert_eq!(s.box_of(0, 3), 1);
        assert_eq!(s.box_of(2, 0), 2);
        assert_eq!(s.box_of(5, 5), 5);
    }

    #[test]
    fn new_reports_repeats_with_both_cells() {
        let mut cells = vec![0u32; 81];
        cells[2] = 5;
        cells[7] = 5;
        let err = Grid::new(Shape::CLASSIC, &cells).unwrap_err();
        assert_eq!(
            err,
            GridError::Duplicate {
                digit: 5,
                house: House::Row(1),
                first: Cell { row: 1, col: 3 },
                second: Cell { row: 1, col: 8 }
            }
        );
        assert_eq!(
            err.to_string(),
            "digit 5 appears twice in row 1: at row 1, column 3 and row 1, column 8"
        );
        cells[7] = 0;
        cells[9 * 4 + 2] = 5;
        assert!(matches!(
            Grid::new(Shape::CLASSIC, &cells),
            Err(GridError::Duplicate {
                house: House::Column(3),
                ..
            })
        ));
        cells[9 * 4 + 2] = 0;
        cells[9 + 1] = 5;
        assert!(matches!(
            Grid::new(Shape::CLASSIC, &cells),
            Err(GridError::Duplicate {
                house: House::Box(1),
                ..
            })
        ));
    }

    #[test]
    fn new_reports_range_and_count() {
        let mut cells = vec![0u32; 16];
        cells[5] = 7;
        let err = Grid::new(Shape::new(2, 2).unwrap(), &cells).unwrap_err();
        assert_eq!(
            err,
            GridError::OutOfRange {
                at: Cell { row: 2, col: 2 },
                value: 7,
                side: 4
            }
        );
        assert_eq!(err.position(), Some(Cell { row: 2, col: 2 }));
        // Bytes take their own path (a vector max and a copy), with the same answers.
        let bytes: Vec<u8> = cells.iter().map(|&v| v as u8).collect();
        assert_eq!(
            Grid::new(Shape::new(2, 2).unwrap(), &bytes),
            Grid::new(Shape::new(2, 2).unwrap(), &cells)
        );
        cells[5] = 3;
        let grid = Grid::new(Shape::new(2, 2).unwrap(), &cells).unwrap();
        let bytes: Vec<u8> = cells.iter().map(|&v| v as u8).collect();
        assert_eq!(Grid::new(Shape::new(2, 2).unwrap(), &bytes), Ok(grid));
        let err = Grid::new(Shape::CLASSIC, &cells).unwrap_err();
        assert_eq!(
            err.to_string(),
            "wrong number of cells: found 16, expected 81 for 3x3 boxes"
        );
    }

    proptest::proptest! {
        #[test]
        fn repeats_are_found_exactly_when_two_peers_share_a_digit(
            (box_rows, box_cols) in proptest::sample::select(vec![(2, 2), (2, 3), (3, 2), (2, 4), (3, 3), (3, 4), (4, 4), (5, 5)]),
            seed in proptest::collection::vec(0u32..=25, 625),
            density in 2u32..12,
        ) {
            let shape = Shape::new(box_rows, box_cols).expect("listed shapes are valid");
            let side = shape.side() as u32;
            // Mostly empty cells, so that grids with and without repeats both come up.
            let cells: Vec<u32> = seed[..shape.cells()]
                .iter()
                .map(|&v| if v % density == 0 { v % side + 1 } else { 0 })
                .collect();
            let at = |i: usize| (i / shape.side(), i % shape.side());
            let peers = |a: usize, b: usize| {
                let ((r1, c1), (r2, c2)) = (at(a), at(b));
                r1 == r2 || c1 == c2 || shape.box_of(r1, c1) == shape.box_of(r2, c2)
            };
            let naive = (0..cells.len()).any(|a| {
                (a + 1..cells.len()).any(|b| cells[a] != 0 && cells[a] == cells[b] && peers(a, b))
            });
            let result = Grid::new(shape, &cells);
            proptest::prop_assert_eq!(result.is_err(), naive, "{:?}", result);
            if let Err(err) = result {
                proptest::prop_assert!(matches!(err, GridError::Duplicate { .. }), "{}", err);
            }
        }
    }
}
