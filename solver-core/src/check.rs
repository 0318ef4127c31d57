//! Checking a player's grid: entries that repeat a digit, and entries that are wrong against a
//! puzzle's solution. A [`Grid`] can never hold a repeat, so a player's grid is its own type.

use std::fmt;

use crate::grid::{Grid, GridError, House, Shape, Value, in_range, parse_values};

/// A digit in a cell; row and column are 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Entry {
    /// 1-based row.
    pub row: usize,
    /// 1-based column.
    pub col: usize,
    /// The digit, 1..=side.
    pub digit: u8,
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "r{}c{}={}", self.row, self.col, self.digit)
    }
}

/// Two entries with the same digit in one row, column or box.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Conflict {
    /// The house both are in (the first found: row, then column, then box).
    pub house: House,
    /// The entry that comes first in reading order.
    pub first: Entry,
    /// The other.
    pub second: Entry,
}

/// A grid as a player has it: any digits in range, repeats allowed (finding them is the point).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entries {
    shape: Shape,
    cells: Box<[u8]>,
}

/// What is right and wrong in a player's grid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// Every cell is filled.
    pub complete: bool,
    /// Every pair of entries repeating a digit in a house, each pair once.
    pub conflicts: Vec<Conflict>,
    /// Entries that differ from the solution (empty when no solution was given).
    pub wrong: Vec<Entry>,
}

impl Check {
    /// No conflicts and no wrong entries.
    pub fn is_valid(&self) -> bool {
        self.conflicts.is_empty() && self.wrong.is_empty()
    }

    /// Complete and valid: the grid is solved.
    pub fn is_solved(&self) -> bool {
        self.complete && self.is_valid()
    }
}

/// Parses a player's grid as [`parse`](crate::grid::parse) does, but keeps repeated digits:
/// checking them is [`Entries::check`]'s job.
pub fn parse_entries(text: &str, shape: Option<Shape>) -> Result<Entries, GridError> {
    let (shape, values) = parse_values(text, shape)?;
    Ok(Entries::from_values(shape, values))
}

impl Entries {
    /// A player's grid from row-major values (0 = empty), checked for size and range only.
    pub fn new<V: Value>(shape: Shape, cells: &[V]) -> Result<Entries, GridError> {
        Ok(Entries {
            shape,
            cells: in_range(shape, cells)?,
        })
    }

    /// Values already known to be in range.
    fn from_values(shape: Shape, cells: Box<[u8]>) -> Entries {
        debug_assert_eq!(cells.len(), shape.cells());
        Entries { shape, cells }
    }

    /// The box shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// Cell values in row-major order, 0 for empty.
    pub fn cells(&self) -> &[u8] {
        &self.cells
    }

    /// Checks the entries for repeats and, given the solution of the puzzle they grew from,
    /// for entries that differ from it.
    pub fn check(&self, solution: Option<&Grid>) -> Check {
        Check {
            complete: self.cells.iter().all(|&v| v != 0),
            conflicts: self.conflicts(),
            wrong: solution.map_or_else(Vec::new, |s| self.wrong_against(s)),
        }
    }

    /// The grid itself when it holds no repeat.
    pub fn to_grid(&self) -> Result<Grid, GridError> {
        Grid::from_values(self.shape, self.cells.clone())
    }

    fn entry(&self, index: usize) -> Entry {
        let side = self.shape.side();
        Entry {
            row: index / side + 1,
            col: index % side + 1,
            digit: self.cells[index],
        }
    }

    /// Pairs repeating a digit, each pair once: under its row, else its column, else its box.
    /// Cells are bucketed by house and digit, so the cost is the cells plus the pairs found.
    fn conflicts(&self) -> Vec<Conflict> {
        let shape = self.shape;
        let side = shape.side();
        let mut found = Vec::new();
        let mut holders: Vec<Vec<usize>> = vec![Vec::new(); side + 1];
        for kind in 0..3 {
            for house in 0..side {
                holders.iter_mut().for_each(Vec::clear);
                for k in 0..side {
                    let i = house_cell(shape, kind, house, k);
                    holders[usize::from(self.cells[i])].push(i);
                }
                for cells in &holders[1..] {
                    for (n, &a) in cells.iter().enumerate() {
                        for &b in &cells[n + 1..] {
                            let (a, b) = (a.min(b), a.max(b));
                            let same_row = a / side == b / side;
                            let same_col = a % side == b % side;
                            let counted = match kind {
                                0 => false,
                                1 => same_row,
                                _ => same_row || same_col,
                            };
                            if !counted {
                                found.push(Conflict {
                                    house: match kind {
                                        0 => House::Row(house + 1),
                                        1 => House::Column(house + 1),
                                        _ => House::Box(house + 1),
                                    },
                                    first: self.entry(a),
                                    second: self.entry(b),
                                });
                            }
                        }
                    }
                }
            }
        }
        found.sort_by_key(|c| (c.first, c.second));
        found
    }

    fn wrong_against(&self, solution: &Grid) -> Vec<Entry> {
        if solution.shape() != self.shape {
            return Vec::new();
        }
        (0..self.cells.len())
            .filter(|&i| self.cells[i] != 0 && self.cells[i] != solution.cells()[i])
            .map(|i| self.entry(i))
            .collect()
    }
}

/// The index of the `k`-th cell of a house: `kind` 0 rows, 1 columns, 2 boxes.
fn house_cell(shape: Shape, kind: usize, house: usize, k: usize) -> usize {
    let side = shape.side();
    match kind {
        0 => house * side + k,
        1 => k * side + house,
        _ => {
            let (band, stack) = (house / shape.box_rows(), house % shape.box_rows());
            let row = band * shape.box_rows() + k / shape.box_cols();
            let col = stack * shape.box_cols() + k % shape.box_cols();
            row * side + col
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Options, Outcome, solve};

    const PUZZLE: &str =
        "3.65.84..52........87....31..3.1..8.9..863..5.5..9.6..13....25........74..52.63..";

    #[test]
    fn players_grids_keep_their_repeats() {
        let text = format!("33{}", ".".repeat(79));
        assert!(crate::grid::parse(&text, None).is_err());
        let entries = parse_entries(&text, None).expect("repeats are allowed");
        assert_eq!(&entries.cells()[..3], &[3, 3, 0]);
        assert_eq!(entries.check(None).conflicts.len(), 1);
        let err = parse_entries("3#", None).unwrap_err();
        assert!(matches!(err, GridError::CellCount { found: 2 }), "{err}");
    }

    fn entries(text: &str) -> Entries {
        let cells: Vec<u32> = text
            .bytes()
            .map(|b| if b == b'.' { 0 } else { u32::from(b - b'0') })
            .collect();
        Entries::new(Shape::CLASSIC, &cells).expect("81 cells in range")
    }

    fn solution() -> Grid {
        let puzzle: Grid = PUZZLE.parse().expect("a valid puzzle");
        match solve(&puzzle, &Options::default()).expect("9x9").outcome {
            Outcome::Unique(grid) => grid,
            other => panic!("expected a unique solution, got {other:?}"),
        }
    }

    #[test]
    fn a_solved_grid_is_complete_and_valid() {
        let solution = solution();
        let check = entries(&solution.to_line()).check(Some(&solution));
        assert!(check.is_solved(), "{check:?}");
    }

    #[test]
    fn repeats_are_found_once_per_pair_with_their_house() {
        let mut text: Vec<u8> = PUZZLE.bytes().collect();
        text[1] = b'3'; // r1c2 = 3 repeats r1c1 (row 1 and box 1) and r7c2 (column 2)
        let check = entries(std::str::from_utf8(&text).expect("ascii")).check(None);
        let entry = |row, col| Entry { row, col, digit: 3 };
        let expected = vec![
            Conflict {
                house: House::Row(1),
                first: entry(1, 1),
                second: entry(1, 2),
            },
            Conflict {
                house: House::Column(2),
                first: entry(1, 2),
                second: entry(7, 2),
            },
        ];
        assert_eq!(check.conflicts, expected);

        text[1] = b'.';
        text[9 * 3 + 1] = b'5'; // r4c2 = 5 repeats r6c2 = 5 in column 2 and box 4
        let check = entries(std::str::from_utf8(&text).expect("ascii")).check(None);
        assert_eq!(check.conflicts.len(), 1, "{check:?}");
        assert_eq!(check.conflicts[0].house, House::Column(2));
        assert!(!check.is_valid());
    }

    #[test]
    fn entries_that_differ_from_the_solution_are_wrong() {
        let solution = solution();
        let mut text: Vec<u8> = PUZZLE.bytes().collect();
        // r1c2 is empty in the puzzle; fill it with a digit the solution does not have there
        // but that repeats nothing in the grid as given.
        let right = solution.get(0, 1);
        let wrong = (1..=9u8)
            .find(|&d| {
                d != right && {
                    text[1] = b'0' + d;
                    entries(std::str::from_utf8(&text).expect("ascii"))
                        .check(None)
                        .conflicts
                        .is_empty()
                }
            })
            .expect("some digit fits r1c2 without a repeat");
        let check = entries(std::str::from_utf8(&text).expect("ascii")).check(Some(&solution));
        assert!(check.conflicts.is_empty());
        assert_eq!(
            check.wrong,
            vec![Entry {
                row: 1,
                col: 2,
                digit: wrong
            }]
        );
        assert!(!check.complete && !check.is_valid());
    }

    proptest::proptest! {
        #[test]
        fn conflicts_are_every_pair_that_shares_a_house(
            shape in proptest::sample::select(vec![(2, 2), (2, 3), (3, 2), (3, 3), (2, 4), (4, 4)]),
            seed in proptest::collection::vec(0u32..64, 256),
        ) {
            let shape = Shape::new(shape.0, shape.1).expect("a supported shape");
            let side = shape.side() as u32;
            let cells: Vec<u32> = (0..shape.cells()).map(|i| seed[i % 256] % (side * 2 + 1))
                .map(|v| if v > side { 0 } else { v }).collect();
            let entries = Entries::new(shape, &cells).expect("in range");
            let found = entries.check(None).conflicts;
            let side = shape.side();
            let mut expected = Vec::new();
            for a in 0..cells.len() {
                for b in a + 1..cells.len() {
                    let (ra, ca, rb, cb) = (a / side, a % side, b / side, b % side);
                    let house = if ra == rb {
                        House::Row(ra + 1)
                    } else if ca == cb {
                        House::Column(ca + 1)
                    } else if shape.box_of(ra, ca) == shape.box_of(rb, cb) {
                        House::Box(shape.box_of(ra, ca) + 1)
                    } else {
                        continue;
                    };
                    if cells[a] != 0 && cells[a] == cells[b] {
                        expected.push(Conflict { house, first: entries.entry(a), second: entries.entry(b) });
                    }
                }
            }
            proptest::prop_assert_eq!(found, expected);
        }
    }

    #[test]
    fn bad_cells_are_refused_with_their_position() {
        let mut cells = vec![0u32; 81];
        cells[10] = 10;
        let err = Entries::new(Shape::CLASSIC, &cells).unwrap_err();
        assert_eq!(err.position(), Some(crate::grid::Cell { row: 2, col: 2 }));
        assert!(Entries::new(Shape::CLASSIC, &cells[..80]).is_err());
    }
}
