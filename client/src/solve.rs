//! `sudoku solve`: one unary Solve per puzzle, answers in input order.

use std::io::Write;
use std::time::Duration;

use anyhow::Context;
use sudoku_proto::pb::{self, Outcome, SolveRequest};
use tonic::Code;
use tonic::transport::Channel;

use crate::cli::SolveArgs;
use crate::conn::{Connection, Server, is_server_lost, status_error};
use crate::input::solve_inputs;
use crate::output::{Answer, Printer};
use crate::request::{NoPuzzles, Tally, check, failed, line_of, parse};

/// Runs `sudoku solve`.
pub async fn run(conn: &Connection, args: &SolveArgs, printer: &Printer) -> anyhow::Result<Tally> {
    let puzzles = solve_inputs(&args.puzzles, args.file.as_deref())?;
    if puzzles.is_empty() {
        return Err(NoPuzzles.into());
    }
    if puzzles.len() >= SUGGEST_BATCH {
        eprintln!(
            "sudoku: {} puzzles, one call each; `sudoku batch` streams them much faster",
            puzzles.len()
        );
    }
    let options = pb::SolveOptions::from(&args.options);
    let mut tally = Tally::default();
    let mut spread = Spread::new(conn);
    let stdout = std::io::stdout();
    for (origin, text) in puzzles {
        let mut out = stdout.lock();
        let grid = match parse(&text, args.options.shape) {
            Ok(grid) => grid,
            Err(error) => {
                failed(&mut tally, &origin, &error.message);
                let text = text.trim();
                printer.answer(
                    &mut out,
                    &origin,
                    Some(text),
                    Answer::invalid(&error.message),
                )?;
                continue;
            }
        };
        let line = line_of(&grid);
        let request = SolveRequest {
            id: origin.number.to_string(),
            puzzle: Some(grid.clone()),
            options: Some(options),
        };
        match spread.solve(conn, request).await {
            Ok(response) => {
                let response = response.into_inner();
                check(&mut tally, &origin, &grid, &response);
                printer.answer(
                    &mut out,
                    &origin,
                    line.as_deref(),
                    Answer::Response(&response),
                )?;
            }
            Err(status) if stopped_answer(&status).is_some() => {
                let response = pb::SolveResponse {
                    id: origin.number.to_string(),
                    ..stopped_answer(&status).unwrap_or_default()
                };
                failed(&mut tally, &origin, status.message());
                printer.answer(
                    &mut out,
                    &origin,
                    line.as_deref(),
                    Answer::Response(&response),
                )?;
            }
            Err(status) if per_puzzle(status.code()).is_some() => {
                let outcome = per_puzzle(status.code()).unwrap_or(Outcome::Invalid);
                failed(&mut tally, &origin, status.message());
                let answer = Answer::Failed {
                    outcome,
                    reason: status.message(),
                };
                printer.answer(&mut out, &origin, line.as_deref(), answer)?;
            }
            Err(status) => {
                let server = spread.last_server(conn).to_owned();
                return Err(status_error(&server, status)).context(format!("{origin}"));
            }
        }
        out.flush()?;
    }
    Ok(tally)
}

/// From this many puzzles on, `solve` suggests `batch`.
const SUGGEST_BATCH: usize = 1000;

/// Tries after RESOURCE_EXHAUSTED before giving up: 0.1 s, then doubling, 3.1 s in all.
const BUSY_RETRIES: u32 = 5;

/// Calls spread over the servers in turn; a server that is lost is left out and the call
/// goes to the next, so one dead server among several fails nothing.
struct Spread {
    /// Each server with its channel, or one balanced channel for one server or the embedded one.
    servers: Vec<(Server, Channel)>,
    next: usize,
    /// The server the last call went to, when there are several: an error names it alone.
    last: Option<String>,
}

impl Spread {
    fn new(conn: &Connection) -> Spread {
        let servers = match conn.servers() {
            [_, _, ..] => conn
                .servers()
                .iter()
                .map(|s| (s.clone(), s.lazy()))
                .collect(),
            _ => Vec::new(),
        };
        Spread {
            servers,
            next: 0,
            last: None,
        }
    }

    /// Who the last call went to, for its error: one server, or the connection's target.
    fn last_server<'a>(&'a self, conn: &'a Connection) -> &'a str {
        self.last.as_deref().unwrap_or(conn.target())
    }

    async fn solve(
        &mut self,
        conn: &Connection,
        request: SolveRequest,
    ) -> Result<tonic::Response<pb::SolveResponse>, tonic::Status> {
        let mut busy = 0;
        loop {
            let answer = self.try_once(conn, request.clone()).await;
            match answer {
                // The server sheds load: wait and try again (another server, if several),
                // a bounded number of times.
                Err(status) if status.code() == Code::ResourceExhausted && busy < BUSY_RETRIES => {
                    busy += 1;
                    let wait = Duration::from_millis(50 << busy);
                    eprintln!(
                        "sudoku: the server is busy ({}); trying again in {} ms",
                        status.message(),
                        wait.as_millis()
                    );
                    tokio::time::sleep(wait).await;
                }
                answer => return answer,
            }
        }
    }

    async fn try_once(
        &mut self,
        conn: &Connection,
        request: SolveRequest,
    ) -> Result<tonic::Response<pb::SolveResponse>, tonic::Status> {
        if self.servers.is_empty() {
            return conn.sudoku().solve(conn.request(request)).await;
        }
        loop {
            self.next %= self.servers.len();
            let (server, channel) = &self.servers[self.next];
            self.last = Some(server.url.clone());
            let answer = conn
                .sudoku_on(channel.clone())
                .solve(conn.request(request.clone()))
                .await;
            match answer {
                Err(status) if is_server_lost(&status) && self.servers.len() > 1 => {
                    eprintln!(
                        "sudoku: lost {} ({}); leaving it out",
                        server.url,
                        status_error(&server.url, status)
                    );
                    self.servers.remove(self.next);
                }
                answer => {
                    self.next += 1;
                    return answer;
                }
            }
        }
    }
}

/// A solve the caller's deadline stopped, as the answer it would have been: the server's
/// status carries the work done (its `ErrorInfo`, reason `SOLVE_STOPPED`).
fn stopped_answer(status: &tonic::Status) -> Option<pb::SolveResponse> {
    use tonic_types::StatusExt;
    let info = status.get_details_error_info()?;
    if status.code() != Code::DeadlineExceeded || info.reason != sudoku_proto::SOLVE_STOPPED {
        return None;
    }
    let number = |key: &str| info.metadata.get(key).and_then(|v| v.parse::<u64>().ok());
    let algorithm = info
        .metadata
        .get("algorithm")
        .and_then(|name| pb::Algorithm::from_str_name(name))
        .unwrap_or(pb::Algorithm::Unspecified);
    Some(pb::SolveResponse {
        outcome: Outcome::DeadlineExceeded.into(),
        stats: Some(pb::SolveStats {
            guesses: number("guesses").unwrap_or(0),
            solve_micros: number("solve_micros").unwrap_or(0),
            algorithm: algorithm.into(),
        }),
        error: Some(pb::SolveError {
            message: status.message().to_owned(),
            ..pb::SolveError::default()
        }),
        ..pb::SolveResponse::default()
    })
}

/// The outcome of a status that concerns one puzzle only; `None` ends the run.
fn per_puzzle(code: Code) -> Option<Outcome> {
    match code {
        Code::InvalidArgument => Some(Outcome::Invalid),
        Code::DeadlineExceeded => Some(Outcome::DeadlineExceeded),
        _ => None,
    }
}
