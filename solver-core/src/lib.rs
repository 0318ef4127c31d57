//! Sudoku grids of any box shape, their text forms, and solvers.
//!
//! The crate root holds the everyday names: a [`Grid`] and its [`Shape`], [`solve()`] with its
//! [`Options`] and [`Report`], and the [`Limits`] that stop solving, rating and generating
//! alike. The rest is found by domain: [`grid`] (cells, houses, parsing),
//! [`mod@solve`] (algorithms, statistics), [`logic`] (rating, hints, explanations), [`generate`]
//! (puzzles made to order) and [`check`] (a player's grid, repeats and all).
//!
//! ```
//! use solver_core::{Grid, Options, Outcome, solve};
//!
//! let puzzle: Grid = "3.65.84..52........87....31..3.1..8.9..863..5.5..9.6..13....25........74..52.63.."
//!     .parse()
//!     .expect("a valid puzzle");
//! let solution = solve(&puzzle, &Options::default()).expect("9x9 is supported");
//! let Outcome::Unique(grid) = solution.outcome else { panic!("expected a unique solution") };
//! assert!(grid.is_solution_of(&puzzle));
//!
//! // Any one solution, within a guess budget: options read as a sentence.
//! let quick = solve(&puzzle, &Options::default().max_solutions(1).max_guesses(1_000))
//!     .expect("9x9 is supported");
//! assert!(quick.outcome.grid().is_some_and(|g| g.is_solution_of(&puzzle)));
//! // Cells go in and come out as the same integers.
//! assert_eq!(Grid::new(grid.shape(), grid.cells()), Ok(grid));
//! ```
#![deny(missing_docs)]

pub mod check;
pub mod generate;
pub mod grid;
mod limits;
pub mod logic;
pub mod solve;

pub use grid::{Grid, GridError, Shape};
pub use limits::{Limits, StopReason};
pub use solve::{Options, Outcome, Report, SolveError, solve};
