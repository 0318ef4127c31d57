//! `sudoku solve`: one unary Solve per puzzle, answers in input order.

use std::io::Write;

use anyhow::Context;
use sudoku_proto::grid_to_pb;
use sudoku_proto::pb::{self, SolveOptions, SolveRequest};
use tonic::Code;

use crate::cli::{AlgorithmArg, SolveArgs, SolveOptions as Flags};
use crate::conn::Connection;
use crate::input::{Origin, solve_inputs};
use crate::output::{Printer, is_solved};

/// How a run of puzzles went, for the exit code.
#[derive(Debug, Default)]
pub struct Tally {
    /// Puzzles with no solution, invalid, or stopped.
    pub failed: usize,
    /// Puzzles answered.
    pub total: usize,
}

/// The wire options for the solve flags.
pub fn wire_options(flags: &Flags) -> SolveOptions {
    let algorithm = match flags.algorithm {
        AlgorithmArg::Auto => pb::Algorithm::Unspecified,
        AlgorithmArg::Fast => pb::Algorithm::Fast,
        AlgorithmArg::General => pb::Algorithm::General,
        AlgorithmArg::Backtracking => pb::Algorithm::Backtracking,
    };
    SolveOptions {
        max_solutions: flags.count,
        algorithm: algorithm.into(),
        max_guesses: 0,
    }
}

/// Parses a puzzle as solver-core does, with the `--box` shape if given.
pub fn parse(text: &str, flags: &Flags) -> Result<pb::Grid, pb::SolveError> {
    solver_core::parse(text, flags.shape)
        .map(|g| grid_to_pb(&g))
        .map_err(|e| pb::SolveError::from(&e))
}

/// Runs `sudoku solve`.
pub async fn run(conn: &Connection, args: &SolveArgs, printer: &Printer) -> anyhow::Result<Tally> {
    let puzzles = solve_inputs(&args.puzzles, args.file.as_deref())?;
    let options = wire_options(&args.options);
    let mut client = conn.sudoku();
    let mut tally = Tally::default();
    let stdout = std::io::stdout();
    for (origin, text) in puzzles {
        tally.total += 1;
        let mut out = stdout.lock();
        let grid = match parse(&text, &args.options) {
            Ok(grid) => grid,
            Err(error) => {
                report(&origin, &error.message);
                tally.failed += 1;
                printer.invalid(&mut out, &origin, error)?;
                continue;
            }
        };
        let request = SolveRequest {
            id: origin.number.to_string(),
            puzzle: Some(grid),
            options: Some(options),
        };
        match client.solve(conn.request(request)).await {
            Ok(response) => {
                let response = response.into_inner();
                if !is_solved(response.outcome()) {
                    tally.failed += 1;
                }
                printer.answer(&mut out, &origin, &response)?;
            }
            Err(status)
                if matches!(
                    status.code(),
                    Code::InvalidArgument | Code::DeadlineExceeded
                ) =>
            {
                report(&origin, status.message());
                tally.failed += 1;
                let outcome = match status.code() {
                    Code::DeadlineExceeded => pb::Outcome::DeadlineExceeded,
                    _ => pb::Outcome::Invalid,
                };
                let response = pb::SolveResponse {
                    outcome: outcome.into(),
                    error: Some(pb::SolveError {
                        message: status.message().to_owned(),
                        row: 0,
                        col: 0,
                    }),
                    ..pb::SolveResponse::default()
                };
                printer.answer(&mut out, &origin, &response)?;
            }
            Err(status) => return Err(crate::status_error(status)).context(format!("{origin}")),
        }
        out.flush()?;
    }
    Ok(tally)
}

/// Reports a per-puzzle problem on stderr without stopping.
pub fn report(origin: &Origin, message: &str) {
    eprintln!("error: {origin}: {message}");
}
