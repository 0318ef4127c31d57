//! Why a solve could not start.

use thiserror::Error;

use super::Algorithm;
use crate::grid::Shape;

/// Why a solve could not start.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SolveError {
    /// The algorithm asked for cannot solve grids of this shape.
    #[error("the {algorithm} algorithm solves only 9x9 grids with 3x3 boxes, not {shape} boxes")]
    Unsupported {
        /// The algorithm asked for.
        algorithm: Algorithm,
        /// The grid's box shape.
        shape: Shape,
    },
}
