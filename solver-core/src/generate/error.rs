//! Why a generation request cannot be met.

use thiserror::Error;

use super::Symmetry;
use crate::grid::Shape;
use crate::solve::StopReason;

/// Why no puzzle came out.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum GenerateError {
    /// The givens range is empty or outside the grid.
    #[error("givens: range {min}..={max} is empty or exceeds the {cells} cells of a {shape} grid")]
    GivensRange {
        /// Lowest number of givens asked for.
        min: usize,
        /// Highest number of givens asked for.
        max: usize,
        /// Cells in the grid.
        cells: usize,
        /// The box shape.
        shape: Shape,
    },
    /// No puzzle with that few givens can have a unique solution.
    #[error(
        "givens: at most {max} asked for, but a {shape} puzzle needs at least {least} givens \
         to have a unique solution"
    )]
    TooFewGivens {
        /// Highest number of givens asked for.
        max: usize,
        /// The fewest givens a unique puzzle of the shape can have (a known lower bound).
        least: usize,
        /// The box shape.
        shape: Shape,
    },
    /// The symmetry's orbits cannot add up to any count in the range.
    #[error(
        "givens: no count in {min}..={max} is possible with {symmetry} symmetry on a {shape} grid"
    )]
    GivensForSymmetry {
        /// Lowest number of givens asked for.
        min: usize,
        /// Highest number of givens asked for.
        max: usize,
        /// The symmetry asked for.
        symmetry: Symmetry,
        /// The box shape.
        shape: Shape,
    },
    /// A rating range was asked for but no rater was supplied.
    #[error("rating: a rating range was asked for but no rater is available")]
    NoRater,
    /// The rating range is empty.
    #[error("rating: range {min}..={max} (tenths of SE) is empty")]
    RatingRange {
        /// Lowest rating asked for, in tenths.
        min: u16,
        /// Highest rating asked for, in tenths.
        max: u16,
    },
    /// The search for a puzzle meeting the request stopped before it found one.
    #[error(
        "no puzzle met the request after {attempts} attempts ({why}): {}",
        match reason {
            StopReason::Budget => "attempt budget spent",
            StopReason::Deadline => "deadline passed",
            StopReason::Cancelled => "cancelled",
        }
    )]
    Stopped {
        /// Why it stopped.
        reason: StopReason,
        /// Complete grids tried for this puzzle.
        attempts: u64,
        /// What was asked, in words (e.g. "minimal, givens 30..=35").
        why: String,
    },
}
