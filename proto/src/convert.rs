//! Conversions between wire messages and solver-core types, shared by server and client.

use solver_core::solve::Algorithm;
use solver_core::{Grid, GridError, Shape};

use crate::pb;

/// Builds a checked grid from its wire form.
pub fn grid_from_pb(grid: &pb::Grid) -> Result<Grid, GridError> {
    let dim = |v: u32| usize::try_from(v).unwrap_or(usize::MAX);
    let shape = Shape::new(dim(grid.box_rows), dim(grid.box_cols))?;
    Grid::new(shape, &grid.cells)
}

/// The wire form of a grid.
pub fn grid_to_pb(grid: &Grid) -> pb::Grid {
    pb::Grid {
        box_rows: grid.shape().box_rows() as u32,
        box_cols: grid.shape().box_cols() as u32,
        cells: grid.cells().iter().map(|&v| u32::from(v)).collect(),
    }
}

impl From<pb::Algorithm> for Algorithm {
    fn from(algorithm: pb::Algorithm) -> Self {
        match algorithm {
            pb::Algorithm::Unspecified => Algorithm::Auto,
            pb::Algorithm::Fast => Algorithm::Fast,
            pb::Algorithm::General => Algorithm::General,
            pb::Algorithm::Backtracking => Algorithm::Backtracking,
        }
    }
}

impl From<Algorithm> for pb::Algorithm {
    fn from(algorithm: Algorithm) -> Self {
        match algorithm {
            Algorithm::Fast => pb::Algorithm::Fast,
            Algorithm::General => pb::Algorithm::General,
            Algorithm::Backtracking => pb::Algorithm::Backtracking,
            // Auto, and any algorithm added later that the wire does not name yet.
            _ => pb::Algorithm::Unspecified,
        }
    }
}

impl From<&GridError> for pb::SolveError {
    fn from(err: &GridError) -> Self {
        let (row, col) = err.position().map_or((0, 0), |at| (at.row, at.col));
        pb::SolveError {
            message: err.to_string(),
            row: row as u32,
            col: col as u32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_round_trip() {
        let grid: Grid = "1...2...3...4...".parse().expect("a 4x4 grid");
        let wire = grid_to_pb(&grid);
        assert_eq!((wire.box_rows, wire.box_cols, wire.cells.len()), (2, 2, 16));
        assert_eq!(grid_from_pb(&wire), Ok(grid));
    }

    #[test]
    fn bad_wire_grids_name_the_problem() {
        let wire = pb::Grid {
            box_rows: 3,
            box_cols: 3,
            cells: vec![0; 80],
        };
        assert_eq!(
            grid_from_pb(&wire).unwrap_err().to_string(),
            "wrong number of cells: found 80, expected 81 for 3x3 boxes"
        );
        let wire = pb::Grid {
            box_rows: 0,
            box_cols: 3,
            cells: vec![],
        };
        assert!(matches!(grid_from_pb(&wire), Err(GridError::Shape { .. })));
        let wire = pb::Grid {
            box_rows: u32::MAX,
            box_cols: u32::MAX,
            cells: vec![],
        };
        assert!(matches!(grid_from_pb(&wire), Err(GridError::Shape { .. })));
        let mut cells = vec![0; 16];
        cells[6] = 9;
        let err = grid_from_pb(&pb::Grid {
            box_rows: 2,
            box_cols: 2,
            cells,
        })
        .unwrap_err();
        let wire_err = pb::SolveError::from(&err);
        assert_eq!((wire_err.row, wire_err.col), (2, 3));
        assert_eq!(
            wire_err.message,
            "row 2, column 3: 9 is not a digit of a 4x4 grid (digits are 1 to 4, 0 or . for empty)"
        );
    }
}
