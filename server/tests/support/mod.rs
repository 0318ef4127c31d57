//! Helpers shared by the end-to-end suites: a server on loopback, requests, checks, and a raw
//! HTTP/2 client for what the generated client would never send.
#![allow(dead_code)]

pub mod packed;
pub mod raw;

use std::time::{Duration, Instant};

use solver_core::Grid;
use sudoku_proto::pb::sudoku_client::SudokuClient;
use sudoku_proto::pb::{self, Algorithm, SolveOptions, SolveRequest};
use sudoku_proto::{grid_from_pb, grid_to_pb};
use sudoku_server::{Config, Server};
use tonic::transport::Channel;

/// Solved by singles alone.
pub const CLASSIC: &str =
    "3.65.84..52........87....31..3.1..8.9..863..5.5..9.6..13....25........74..52.63..";
/// A hard 9x9 puzzle for the fast solver (hundreds of guesses for plain backtracking).
pub const HARD: &str =
    "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4..";
/// Takes plain backtracking a long time.
pub const SLOW_FOR_BACKTRACKING: &str =
    "..............3.85..1.2.......5.7.....4...1...9.......5......73..2.1........4...9";

/// A server on 127.0.0.1, port 0, and a client connected to it.
pub async fn server(config: Config) -> (Server, SudokuClient<Channel>) {
    let server = sudoku_server::start(config).await.expect("server starts");
    let client = connect(&server).await;
    (server, client)
}

/// A new client on its own connection.
pub async fn connect(server: &Server) -> SudokuClient<Channel> {
    SudokuClient::connect(format!("http://{}", server.addr()))
        .await
        .expect("client connects")
}

/// A request with the given options.
pub fn request(id: &str, puzzle: &Grid, algorithm: Algorithm, max_solutions: u32) -> SolveRequest {
    SolveRequest {
        id: id.to_owned(),
        puzzle: Some(grid_to_pb(puzzle)),
        options: Some(SolveOptions {
            max_solutions,
            algorithm: algorithm.into(),
            max_guesses: 0,
        }),
    }
}

/// A test puzzle.
pub fn grid(text: &str) -> Grid {
    text.parse().expect("test puzzle parses")
}

/// The empty 9x9 grid under backtracking asked for every solution: runs until stopped.
pub fn endless(id: &str) -> SolveRequest {
    request(
        id,
        &Grid::empty(solver_core::Shape::CLASSIC),
        Algorithm::Backtracking,
        u32::MAX,
    )
}

/// Panics unless the response holds a solution of `puzzle` that keeps its givens.
pub fn assert_solved(puzzle: &Grid, response: &pb::SolveResponse) {
    let solution = response.solution.as_ref().expect("a solution");
    let solution = grid_from_pb(solution).expect("the solution is a valid grid");
    assert!(
        solution.is_solution_of(puzzle),
        "{solution:?} does not solve {puzzle:?}"
    );
}

/// Polls `check` until it holds or `limit` passes.
pub async fn eventually(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if check() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    check()
}

/// The field named by the first `BadRequest` violation of a status.
pub fn bad_field(status: &tonic::Status) -> Option<String> {
    use tonic_types::StatusExt;
    let details = status.get_details_bad_request()?;
    details.field_violations.first().map(|v| v.field.clone())
}
