//! `sudoku solve`: one unary Solve per puzzle, answers in input order.

use std::io::Write;

use anyhow::Context;
use sudoku_proto::pb::{self, Outcome, SolveRequest};
use tonic::Code;

use crate::cli::SolveArgs;
use crate::conn::Connection;
use crate::input::solve_inputs;
use crate::output::{Answer, Printer};
use crate::request::{NoPuzzles, Tally, check, failed, parse};

/// Runs `sudoku solve`.
pub async fn run(conn: &Connection, args: &SolveArgs, printer: &Printer) -> anyhow::Result<Tally> {
    let puzzles = solve_inputs(&args.puzzles, args.file.as_deref())?;
    if puzzles.is_empty() {
        return Err(NoPuzzles.into());
    }
    let options = pb::SolveOptions::from(&args.options);
    let mut tally = Tally::default();
    let stdout = std::io::stdout();
    for (origin, text) in puzzles {
        let mut out = stdout.lock();
        let grid = match parse(&text, args.options.shape) {
            Ok(grid) => grid,
            Err(error) => {
                failed(&mut tally, &origin, &error.message);
                printer.answer(&mut out, &origin, Answer::invalid(&error.message))?;
                continue;
            }
        };
        let request = SolveRequest {
            id: origin.number.to_string(),
            puzzle: Some(grid.clone()),
            options: Some(options),
        };
        match conn.sudoku().solve(conn.request(request)).await {
            Ok(response) => {
                let response = response.into_inner();
                check(&mut tally, &origin, &grid, &response);
                printer.answer(&mut out, &origin, Answer::Response(&response))?;
            }
            Err(status) if per_puzzle(status.code()).is_some() => {
                let outcome = per_puzzle(status.code()).unwrap_or(Outcome::Invalid);
                failed(&mut tally, &origin, status.message());
                let answer = Answer::Failed {
                    outcome,
                    reason: status.message(),
                };
                printer.answer(&mut out, &origin, answer)?;
            }
            Err(status) => return Err(conn.status_error(status)).context(format!("{origin}")),
        }
        out.flush()?;
    }
    Ok(tally)
}

/// The outcome of a status that concerns one puzzle only; `None` ends the run.
fn per_puzzle(code: Code) -> Option<Outcome> {
    match code {
        Code::InvalidArgument => Some(Outcome::Invalid),
        Code::DeadlineExceeded => Some(Outcome::DeadlineExceeded),
        _ => None,
    }
}
