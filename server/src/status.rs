//! The one place a bad request becomes a gRPC `Status` (unary) or an INVALID item (batch).

use solver_core::{GridError, Shape, SolveError};
use sudoku_proto::{MESSAGE_TOO_LARGE, pb};
use thiserror::Error;
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

use crate::scheduling::pool::PoolError;

/// Why a request cannot be solved.
#[derive(Debug, Error)]
pub enum RequestError {
    /// The request's `id` is longer than this server accepts.
    #[error("the id is {len} bytes, more than this server's limit of {max}")]
    IdTooLong { len: usize, max: usize },
    /// `options.algorithm` is a number `sudoku.v1.Algorithm` does not define.
    #[error("unknown algorithm {0}: use 0 (automatic), 1 (fast), 2 (general) or 3 (backtracking)")]
    UnknownAlgorithm(i32),
    /// The solver failed on this puzzle (a bug, logged); other puzzles are unaffected.
    #[error("internal error: the solver failed on this puzzle ({0}); it has been logged")]
    Internal(String),
    /// No puzzle in the request.
    #[error("the request has no puzzle")]
    MissingPuzzle,
    /// No grid in a request that checks one.
    #[error("the request has no grid")]
    MissingGrid,
    /// The puzzle is not a valid grid.
    #[error("{0}")]
    Grid(#[from] GridError),
    /// The grid is larger than this server accepts.
    #[error("grid side {side} is larger than this server's limit of {max}")]
    TooLarge { side: usize, max: usize },
    /// The algorithm cannot solve this grid.
    #[error("{0}")]
    Unsupported(#[from] SolveError),
    /// A packed message's cells are not a whole number of puzzles.
    #[error("{field} holds {len} bytes, not a whole number of puzzles of {per_puzzle} bytes")]
    PackedLength {
        field: &'static str,
        len: usize,
        per_puzzle: usize,
    },
    /// A packed message sets both `cells` and `nibbles`.
    #[error("cells and nibbles are both set: send each message's puzzles in one of them")]
    PackedTwice,
    /// A packed message's puzzles come as nibbles but their values need more than four bits.
    #[error(
        "nibbles hold values up to {max}, and grids of side {side} need more: send them in \
         cells, a byte per cell"
    )]
    NibbleSide { side: usize, max: usize },
    /// A puzzle given to check a grid against has another box shape.
    #[error("the puzzle has {puzzle} boxes but the grid has {grid} boxes")]
    ShapeMismatch { grid: Shape, puzzle: Shape },
}

impl RequestError {
    /// The request field at fault, in `google.rpc.BadRequest` notation; `grid` names the
    /// request's grid field (`puzzle` in most requests).
    fn field(&self, grid: &str, shape: Option<Shape>) -> String {
        match self {
            RequestError::IdTooLong { .. } => "id".to_owned(),
            RequestError::UnknownAlgorithm(_) => "options.algorithm".to_owned(),
            RequestError::Internal(_) => String::new(),
            RequestError::MissingPuzzle => "puzzle".to_owned(),
            RequestError::MissingGrid => "grid".to_owned(),
            RequestError::Grid(GridError::Shape { box_rows, .. }) => {
                // Rows are read first: they are at fault unless they are fine alone.
                let at_fault = if *box_rows >= 2 {
                    "box_cols"
                } else {
                    "box_rows"
                };
                subfield(grid, at_fault)
            }
            RequestError::TooLarge { .. } => subfield(grid, "box_rows"),
            RequestError::Grid(err) => match (err.position(), shape) {
                (Some(at), Some(shape)) => format!("{grid}.cells[{}]", at.index(shape.side())),
                _ => format!("{grid}.cells"),
            },
            RequestError::ShapeMismatch { .. } => "puzzle.box_rows".to_owned(),
            RequestError::PackedLength { field, .. } => (*field).to_owned(),
            RequestError::PackedTwice | RequestError::NibbleSide { .. } => "nibbles".to_owned(),
            RequestError::Unsupported(_) => "options.algorithm".to_owned(),
        }
    }

    /// `INVALID_ARGUMENT` with the message and a `BadRequest` field violation; INTERNAL for a
    /// solver failure.
    pub fn to_status(&self, shape: Option<Shape>) -> Status {
        self.to_status_in("puzzle", shape)
    }

    /// As [`RequestError::to_status`], for a request whose grid field is named `grid`.
    pub fn to_status_in(&self, grid: &str, shape: Option<Shape>) -> Status {
        let message = self.to_string();
        if let RequestError::Internal(_) = self {
            return Status::internal(message);
        }
        bad_request(&self.field(grid, shape), message)
    }

    /// The error as carried in an INVALID batch item, its text with no spare room (it waits
    /// in memory with its answer, counted as what it takes).
    pub fn to_pb(&self) -> pb::SolveError {
        let mut error = match self {
            RequestError::Grid(err) => err.into(),
            other => pb::SolveError {
                message: other.to_string(),
                row: 0,
                col: 0,
            },
        };
        error.message.shrink_to_fit();
        error
    }
}

/// `field` of the request's grid field `grid`, or of the request itself where `grid` is empty.
fn subfield(grid: &str, field: &str) -> String {
    if grid.is_empty() {
        field.to_owned()
    } else {
        format!("{grid}.{field}")
    }
}

impl PoolError {
    /// The error a puzzle is answered with; `None` where its caller left, and nobody waits.
    pub(crate) fn into_request_error(self) -> Option<RequestError> {
        match self {
            PoolError::Solve(err) => Some(err.into()),
            PoolError::Panicked(panic) => Some(RequestError::Internal(panic)),
            PoolError::Abandoned => None,
        }
    }
}

impl From<PoolError> for Status {
    fn from(err: PoolError) -> Status {
        match err.into_request_error() {
            Some(err) => err.to_status(None),
            None => Status::cancelled("the call was cancelled"),
        }
    }
}

/// INVALID_ARGUMENT with a `google.rpc.BadRequest` violation naming `field`.
pub(crate) fn bad_request(field: &str, message: String) -> Status {
    let details = ErrorDetails::with_bad_request_violation(field, message.clone());
    Status::with_error_details(Code::InvalidArgument, message, details)
}

/// `code` with a `google.rpc.ErrorInfo` of `reason` in the API's domain, carrying `metadata`.
pub(crate) fn with_error_info<const N: usize>(
    code: Code,
    message: String,
    reason: &str,
    metadata: [(&str, String); N],
) -> Status {
    let metadata = metadata.map(|(key, value)| (key.to_owned(), value));
    let details = ErrorDetails::with_error_info(
        reason,
        sudoku_proto::ERROR_DOMAIN,
        std::collections::HashMap::from(metadata),
    );
    Status::with_error_details(code, message, details)
}

/// OUT_OF_RANGE for a batch message larger than its stream takes, saying in an `ErrorInfo`
/// how many puzzles `fits` in a message of its shape, for a client to send smaller ones.
pub(crate) fn message_too_large(message: String, fits: usize) -> Status {
    let fits = [("fits", fits.to_string())];
    with_error_info(Code::OutOfRange, message, MESSAGE_TOO_LARGE, fits)
}

/// An UNAVAILABLE that closes a stream, marked so that clients can tell it from a lost server
/// (a `google.rpc.ErrorInfo`, reason [`sudoku_proto::STREAM_CLOSED`]): a new stream may be
/// opened at once.
pub(crate) fn stream_closed(message: String) -> Status {
    with_error_info(Code::Unavailable, message, sudoku_proto::STREAM_CLOSED, [])
}
