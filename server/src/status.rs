//! The one place a bad request becomes a gRPC `Status` (unary) or an INVALID item (batch).

use solver_core::{GridError, Shape, SolveError};
use sudoku_proto::pb;
use thiserror::Error;
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

/// Why a request cannot be solved.
#[derive(Debug, Error)]
pub enum RequestError {
    /// No puzzle in the request.
    #[error("the request has no puzzle")]
    MissingPuzzle,
    /// The puzzle is not a valid grid.
    #[error("{0}")]
    Grid(#[from] GridError),
    /// The grid is larger than this server accepts.
    #[error("grid side {side} is larger than this server's limit of {max}")]
    TooLarge {
        /// The grid's side.
        side: usize,
        /// The server's limit.
        max: usize,
    },
    /// The algorithm cannot solve this grid.
    #[error("{0}")]
    Unsupported(#[from] SolveError),
}

impl RequestError {
    /// The request field at fault, in `google.rpc.BadRequest` notation.
    fn field(&self, shape: Option<Shape>) -> String {
        match self {
            RequestError::MissingPuzzle => "puzzle".to_owned(),
            RequestError::Grid(GridError::Shape { .. }) | RequestError::TooLarge { .. } => {
                "puzzle.box_rows".to_owned()
            }
            RequestError::Grid(err) => match (err.position(), shape) {
                (Some((row, col)), Some(shape)) => {
                    format!("puzzle.cells[{}]", (row - 1) * shape.side() + col - 1)
                }
                _ => "puzzle.cells".to_owned(),
            },
            RequestError::Unsupported(_) => "options.algorithm".to_owned(),
        }
    }

    /// `INVALID_ARGUMENT` with the message and a `BadRequest` field violation.
    pub fn to_status(&self, shape: Option<Shape>) -> Status {
        let message = self.to_string();
        let details = ErrorDetails::with_bad_request_violation(self.field(shape), message.clone());
        Status::with_error_details(Code::InvalidArgument, message, details)
    }

    /// The error as carried in an INVALID batch item.
    pub fn to_pb(&self) -> pb::SolveError {
        match self {
            RequestError::Grid(err) => err.into(),
            other => pb::SolveError {
                message: other.to_string(),
                row: 0,
                col: 0,
            },
        }
    }
}
