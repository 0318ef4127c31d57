//! The services' handlers: short, checking requests and handing work to the scheduler.

pub(crate) mod explain;
pub(crate) mod generate;
pub(crate) mod health;
pub(crate) mod puzzles;
pub(crate) mod sudoku;
