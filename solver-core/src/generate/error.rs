//! Why a generation request cannot be met.

use thiserror::Error;

use super::Symmetry;
use crate::grid::Shape;
use crate::limits::StopReason;

/// Why no puzzle came out.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum GenerateError {
    /// The givens range is empty or outside the grid.
    #[error(
        "givens: {}",
        if min > max {
            format!("the lowest ({min}) is above the highest ({max})")
        } else {
            format!("{} asked for, but a {shape} grid has {cells} cells", counts(*min, *max))
        }
    )]
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
        "givens: {} possible with {symmetry} symmetry on a {shape} grid",
        if min == max { format!("{min} is not") } else { format!("no count from {min} to {max} is") }
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
    #[error(
        "rating: the lowest ({:.1}) is above the highest ({:.1})",
        f64::from(*min) / 10.0,
        f64::from(*max) / 10.0
    )]
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

/// A count of givens, or a range of them, in words: `24` or `24 to 30`.
pub(crate) fn counts(min: usize, max: usize) -> String {
    if min == max {
        min.to_string()
    } else {
        format!("{min} to {max}")
    }
}
