//! Sudoku grids of any box shape, their text forms, and solvers.
//!
//! ```
//! use solver_core::{solve, Grid, Options, Outcome};
//!
//! let puzzle: Grid = "3.65.84..52........87....31..3.1..8.9..863..5.5..9.6..13....25........74..52.63.."
//!     .parse()
//!     .expect("a valid puzzle");
//! let solution = solve(&puzzle, &Options::default()).expect("9x9 is supported");
//! let Outcome::Unique(grid) = solution.outcome else { panic!("expected a unique solution") };
//! assert!(grid.is_solution_of(&puzzle));
//!
//! // Any one solution, within a guess budget: options read as a sentence.
//! let quick = solve(&puzzle, &Options::default().max_solutions(1).budget(1_000))
//!     .expect("9x9 is supported");
//! assert!(quick.outcome.grid().is_some_and(|g| g.is_solution_of(&puzzle)));
//! // Cells go in and come out as the same integers.
//! assert_eq!(Grid::new(grid.shape(), grid.cells()), Ok(grid));
//! ```
#![deny(missing_docs)]

mod check;
mod format;
mod generate;
mod grid;
pub mod logic;
mod parse;
mod solve;

pub use check::{Check, Conflict, Entries, Entry};
pub use generate::{
    DEFAULT_ATTEMPTS, GenerateError, GenerateOptions, Generated, Generator, LARGE_GRID_FLOOR,
    Rater, SeRater, Symmetry, UnknownSymmetry, level_band, next_seed,
};
pub use grid::{Cell, Grid, GridError, House, Shape, Value};
pub use parse::{parse, parse_entries};
pub use solve::{
    Algorithm, Options, Outcome, Report, SolveError, Stats, StopReason, solve, solve_until,
};
