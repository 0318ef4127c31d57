//! The `sudoku.v1` wire types, client and server, and their conversions to `solver-core`.
#![deny(missing_docs)]

pub mod codec;
mod convert;
mod grid;
pub mod nibbles;
mod puzzles;

/// Generated code for the `sudoku.v1` package.
pub mod pb {
    #![allow(missing_docs, clippy::all, clippy::pedantic)]
    pub use crate::grid::Grid;
    tonic::include_proto!("sudoku.v1");
}

/// The encoded `FileDescriptorSet` of the schema, for server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/sudoku_descriptor.bin"));

/// The `google.rpc.ErrorInfo` domain of the server's machine-readable errors.
pub const ERROR_DOMAIN: &str = "sudoku.v1";

/// `ErrorInfo.reason` of an UNAVAILABLE that closes a batch stream the server no longer keeps
/// open for its client (idle too long, or its buffers needed for other streams): nothing is
/// wrong with the server, and a new stream may be opened at once.
pub const STREAM_CLOSED: &str = "STREAM_CLOSED";

/// `ErrorInfo.reason` of an OUT_OF_RANGE that ends a batch stream at a message holding more
/// puzzles than the stream takes in flight; its metadata's `fits` is how many puzzles of that
/// message's shape a message may carry.
pub const MESSAGE_TOO_LARGE: &str = "MESSAGE_TOO_LARGE";

/// `ErrorInfo.reason` of a DEADLINE_EXCEEDED for a solve the caller's deadline stopped; its
/// metadata carries the work done, as a stopped answer's stats would: `guesses`,
/// `solve_micros` and `algorithm` (the `Algorithm` name, e.g. `ALGORITHM_FAST`).
pub const SOLVE_STOPPED: &str = "SOLVE_STOPPED";

pub use convert::{grid_from_pb, grid_to_pb};
pub use puzzles::{entries_from_pb, rating_to_pb, verdict_of};
