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
//! ```
#![deny(missing_docs)]

mod error;
mod format;
mod grid;
mod parse;
mod solve;

pub use error::{GridError, House, SolveError};
pub use grid::{Grid, Shape};
pub use parse::parse;
pub use solve::{Algorithm, Options, Outcome, Solution, Stats, StopReason, solve};
