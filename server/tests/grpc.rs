//! End-to-end: a real server on 127.0.0.1 port 0, called with the generated client.

use std::time::{Duration, Instant};

use solver_core::{Grid, Shape};
use sudoku_proto::grid_to_pb;
use sudoku_proto::pb::{self, Algorithm, Outcome, SolveOptions, SolveRequest};
use sudoku_server::Config;
use tokio_stream::StreamExt;
use tonic::Code;
use tonic::codec::CompressionEncoding;
use tonic::transport::Channel;
use tonic_types::StatusExt;

mod support;

use support::*;

/// The first `limit_per_file` puzzles of the easy and the hard dataset; `None` (after saying so,
/// or failing in CI) when they are absent.
fn dataset(limit_per_file: usize) -> Option<Vec<Grid>> {
    let mut puzzles = Vec::new();
    for name in ["puzzles2_17_clue", "puzzles5_forum_hardest_1905_11+"] {
        let path = test_support::data_file(name)?;
        let set = test_support::read_dataset(&path);
        puzzles.extend(set.puzzles.iter().take(limit_per_file).map(|l| grid(l)));
    }
    Some(puzzles)
}

#[tokio::test]
async fn solve_answers_unique_multiple_and_none() {
    let (server, mut client) = server(Config::embedded()).await;
    let puzzle = grid(CLASSIC);
    let unique = client
        .solve(request("a", &puzzle, Algorithm::Unspecified, 0))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        (unique.id.as_str(), unique.outcome()),
        ("a", Outcome::Unique)
    );
    assert_eq!(unique.solutions_found, 1);
    assert_eq!(
        unique.stats.as_ref().map(|s| s.algorithm()),
        Some(Algorithm::Fast)
    );
    assert_solved(&puzzle, &unique);

    let open = grid(&format!("{}{}", &CLASSIC[..20], ".".repeat(61)));
    let multiple = client
        .solve(request("b", &open, Algorithm::General, 5))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(multiple.outcome(), Outcome::Multiple);
    assert_eq!(multiple.solutions_found, 5);
    assert_solved(&open, &multiple);

    let first = client
        .solve(request("c", &open, Algorithm::Fast, 1))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(first.outcome(), Outcome::Solved);
    assert_solved(&open, &first);

    let dead = grid(&format!("12345678.{}9{}", ".".repeat(8), ".".repeat(63)));
    let none = client
        .solve(request("d", &dead, Algorithm::Backtracking, 2))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(none.outcome(), Outcome::NoSolution);
    assert!(none.solution.is_none());
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn solve_handles_every_grid_size() {
    let (server, mut client) = server(Config::embedded()).await;
    for (rows, cols) in [
        (2, 2),
        (2, 3),
        (3, 2),
        (2, 4),
        (3, 3),
        (3, 4),
        (4, 4),
        (5, 5),
    ] {
        let shape = Shape::new(rows, cols).unwrap();
        // One given per row: solvable (a shifted pattern exists), with many solutions.
        let side = shape.side();
        let mut cells = vec![0u32; shape.cells()];
        cells[0] = 1;
        let puzzle = Grid::new(shape, &cells).unwrap();
        let answer = client
            .solve(request("s", &puzzle, Algorithm::Unspecified, 1))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(answer.outcome(), Outcome::Solved, "{shape}");
        assert_solved(&puzzle, &answer);
        assert_eq!(
            answer.solution.as_ref().map(|g| g.cells.len()),
            Some(side * side)
        );
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn invalid_puzzles_are_invalid_argument_with_the_cell() {
    let (server, mut client) = server(Config::embedded()).await;
    let mut wire = grid_to_pb(&grid(CLASSIC));
    wire.cells[1] = 3; // a second 3 in row 1
    let status = client
        .solve(SolveRequest {
            id: "x".into(),
            puzzle: Some(wire.clone()),
            options: None,
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
    assert_eq!(
        status.message(),
        "digit 3 appears twice in row 1: at row 1, column 1 and row 1, column 2"
    );
    let bad_request = status
        .get_details_bad_request()
        .expect("BadRequest details");
    assert_eq!(bad_request.field_violations.len(), 1);
    assert_eq!(bad_request.field_violations[0].field, "puzzle.cells[1]");
    assert_eq!(
        bad_request.field_violations[0].description,
        status.message()
    );

    wire.cells[1] = 0;
    wire.cells[40] = 10;
    let status = client
        .solve(SolveRequest {
            puzzle: Some(wire.clone()),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
    assert_eq!(
        status.message(),
        "row 5, column 5: 10 is not a digit of a 9x9 grid (digits are 1 to 9, 0 or . for empty)"
    );
    assert_eq!(
        status.get_details_bad_request().unwrap().field_violations[0].field,
        "puzzle.cells[40]"
    );

    wire.cells.pop();
    let status = client
        .solve(SolveRequest {
            puzzle: Some(wire),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        status.message(),
        "wrong number of cells: found 80, expected 81 for 3x3 boxes"
    );

    let status = client.solve(SolveRequest::default()).await.unwrap_err();
    assert_eq!(
        (status.code(), status.message()),
        (Code::InvalidArgument, "the request has no puzzle")
    );

    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn grids_beyond_the_limits_are_invalid_argument_naming_why() {
    let (server, mut client) = server(Config::embedded()).await;
    let big = pb::Grid {
        box_rows: 6,
        box_cols: 5,
        cells: vec![0; 900],
    };
    let status = client
        .solve(SolveRequest {
            puzzle: Some(big),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        status.message(),
        "grid side 30 is larger than this server's limit of 25"
    );

    let sixteen = Grid::empty(Shape::new(4, 4).unwrap());
    let status = client
        .solve(request("f", &sixteen, Algorithm::Fast, 1))
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
    assert_eq!(
        status.message(),
        "the fast algorithm solves only 9x9 grids with 3x3 boxes, not 4x4 boxes"
    );
    assert_eq!(
        status.get_details_bad_request().unwrap().field_violations[0].field,
        "options.algorithm"
    );

    // The field at fault is the one whose value is wrong.
    for (rows, cols, field) in [(3, 1, "puzzle.box_cols"), (1, 3, "puzzle.box_rows")] {
        let status = client
            .solve(SolveRequest {
                puzzle: Some(pb::Grid {
                    box_rows: rows,
                    box_cols: cols,
                    cells: vec![0; 9],
                }),
                ..Default::default()
            })
            .await
            .unwrap_err();
        assert_eq!(status.code(), Code::InvalidArgument);
        assert!(status.message().contains("box"), "{status:?}");
        assert_eq!(bad_field(&status).as_deref(), Some(field), "{rows}x{cols}");
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn batch_of_ten_thousand_dataset_puzzles() {
    let Some(puzzles) = dataset(5_000) else {
        return;
    };
    let (server, mut client) = server(Config::embedded()).await;
    let requests: Vec<SolveRequest> = puzzles
        .iter()
        .enumerate()
        .map(|(i, p)| request(&format!("p{i}"), p, Algorithm::Unspecified, 2))
        .collect();
    let mut responses = client
        .batch_solve(tokio_stream::iter(requests))
        .await
        .unwrap()
        .into_inner();
    let mut seen = vec![false; puzzles.len()];
    while let Some(response) = responses.next().await {
        let response = response.expect("stream item");
        let index = response.index as usize;
        assert!(!seen[index], "index {index} answered twice");
        seen[index] = true;
        assert_eq!(response.id, format!("p{index}"));
        assert_eq!(response.outcome(), Outcome::Unique, "puzzle {index}");
        assert_solved(&puzzles[index], &response);
    }
    assert!(seen.iter().all(|&s| s), "every index answered");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn batch_reports_invalid_items_and_goes_on() {
    let (server, mut client) = server(Config::embedded()).await;
    let puzzle = grid(CLASSIC);
    let mut requests: Vec<SolveRequest> = (0..20)
        .map(|i| request(&i.to_string(), &puzzle, Algorithm::Fast, 2))
        .collect();
    let mut bad = grid_to_pb(&puzzle);
    bad.cells[13] = 42;
    requests[7].puzzle = Some(bad);
    requests[12].puzzle = None;
    let sixteen = Grid::empty(Shape::new(4, 4).unwrap());
    requests[15] = request("15", &sixteen, Algorithm::Fast, 1);
    let responses: Vec<pb::SolveResponse> = client
        .batch_solve(tokio_stream::iter(requests))
        .await
        .unwrap()
        .into_inner()
        .collect::<Result<_, _>>()
        .await
        .expect("the stream survives bad items");
    assert_eq!(responses.len(), 20);
    for response in responses {
        match response.index {
            7 => {
                assert_eq!(response.outcome(), Outcome::Invalid);
                let error = response.error.expect("error details");
                assert_eq!((error.row, error.col), (2, 5));
                assert_eq!(
                    error.message,
                    "row 2, column 5: 42 is not a digit of a 9x9 grid (digits are 1 to 9, 0 or . for empty)"
                );
            }
            12 => assert_eq!(
                response.error.map(|e| e.message),
                Some("the request has no puzzle".into())
            ),
            15 => {
                assert_eq!(response.outcome(), Outcome::Invalid);
                assert!(
                    response
                        .error
                        .is_some_and(|e| e.message.starts_with("the fast algorithm"))
                );
            }
            _ => {
                assert_eq!(response.outcome(), Outcome::Unique);
                assert_solved(&puzzle, &response);
            }
        }
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_slow_puzzle_in_a_batch_does_not_hold_back_the_answers_of_quick_ones() {
    let (server, mut client) = server(Config {
        workers: Some(2),
        max_solve_ms: 3_000,
        ..Config::embedded()
    })
    .await;
    let (slow, quick) = (grid(SLOW_FOR_BACKTRACKING), grid(CLASSIC));
    let requests = vec![
        request("slow", &slow, Algorithm::Backtracking, 2),
        request("quick", &quick, Algorithm::Fast, 2),
    ];
    let start = Instant::now();
    let mut answers = client
        .batch_solve(tokio_stream::iter(requests))
        .await
        .unwrap()
        .into_inner();
    let mut arrived = Vec::new();
    while let Some(answer) = answers.next().await {
        let answer = answer.expect("answered");
        arrived.push((answer.id.clone(), start.elapsed()));
        if answer.id == "quick" {
            assert_solved(&quick, &answer);
        }
    }
    let at = |id: &str| arrived.iter().find(|(a, _)| a == id).map(|(_, t)| *t);
    let (slow_at, quick_at) = (at("slow").expect("slow"), at("quick").expect("quick"));
    // The slow one takes a second or more in the long lane (a debug build); answers the
    // stream's other tasks left to go out together must not wait for it.
    assert!(
        slow_at >= Duration::from_millis(500),
        "not slow enough: {arrived:?}"
    );
    assert!(quick_at < slow_at / 4, "{arrived:?}");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn client_cancellation_stops_the_work() {
    let config = Config {
        workers: Some(2),
        max_solve_ms: 600_000,
        ..Config::embedded()
    };
    let (server, mut client) = server(config).await;
    let metrics = server.metrics().clone();
    let (tx, rx) = tokio::sync::mpsc::channel(16);
    for i in 0..6 {
        tx.send(endless(&i.to_string())).await.unwrap();
    }
    let responses = client
        .batch_solve(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await
        .unwrap();
    assert!(
        eventually(Duration::from_secs(10), || metrics.in_flight().get() == 6).await,
        "all six accepted"
    );
    drop(responses);
    drop(tx);
    // Without cancellation these would run for ten minutes.
    assert!(
        eventually(Duration::from_secs(10), || metrics.in_flight().get() == 0).await,
        "cancelled work ends: {} still in flight",
        metrics.in_flight().get()
    );
    assert_eq!(
        metrics.abandoned().get(),
        6,
        "two stopped mid-solve, four skipped"
    );
    assert!(
        eventually(Duration::from_secs(5), || metrics
            .requests_for("BatchSolve", Code::Cancelled)
            == 1)
        .await
    );

    // A unary call dropped by its client frees its core too.
    let mut unary = client.clone();
    let call = tokio::spawn(async move { unary.solve(endless("u")).await });
    assert!(eventually(Duration::from_secs(10), || metrics.in_flight().get() == 1).await);
    call.abort();
    assert!(eventually(Duration::from_secs(10), || metrics.in_flight().get() == 0).await);
    assert_eq!(metrics.abandoned().get(), 7);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn backpressure_bounds_work_while_the_client_does_not_read() {
    let config = Config {
        batch_window: 8,
        ..Config::embedded()
    };
    let (server, mut client) = server(config).await;
    let metrics = server.metrics().clone();
    let puzzle = grid(CLASSIC);
    let total = 50_000usize;
    let taken = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = taken.clone();
    let requests = tokio_stream::iter(0..total).map(move |i| {
        counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        request(&i.to_string(), &puzzle, Algorithm::Fast, 2)
    });
    let mut responses = client.batch_solve(requests).await.unwrap().into_inner();
    // Read nothing for a while: the server may only hold its window of puzzles.
    let mut peak = 0;
    for _ in 0..100 {
        peak = peak.max(metrics.in_flight().get());
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let sent_while_stalled = taken.load(std::sync::atomic::Ordering::Relaxed);
    assert!(peak <= 8, "in flight {peak} exceeds the window");
    assert!(
        sent_while_stalled < total,
        "the client was held back ({sent_while_stalled} of {total} taken)"
    );
    // Reading resumes the flow; every puzzle is still answered.
    let mut count = 0;
    while let Some(item) = responses.next().await {
        assert_eq!(item.unwrap().outcome(), Outcome::Unique);
        count += 1;
    }
    assert_eq!(count, total);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn deadline_exceeded_on_a_slow_backtracking_solve() {
    let (server, mut client) = server(Config::embedded()).await;
    let mut call = tonic::Request::new(request(
        "slow",
        &grid(SLOW_FOR_BACKTRACKING),
        Algorithm::Backtracking,
        2,
    ));
    call.set_timeout(Duration::from_millis(200));
    let start = Instant::now();
    let status = client.solve(call).await.unwrap_err();
    assert_eq!(status.code(), Code::DeadlineExceeded, "{status:?}");
    assert!(
        status.message().starts_with("deadline exceeded after"),
        "{}",
        status.message()
    );
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "answered in {:?}",
        start.elapsed()
    );
    assert!(
        eventually(Duration::from_secs(2), || server
            .metrics()
            .in_flight()
            .get()
            == 0)
        .await
    );

    // The server's own cap answers OK with the outcome saying so.
    drop(client);
    server.shutdown().await.unwrap();
    let (server, mut client) = self::server(Config {
        max_solve_ms: 50,
        ..Config::embedded()
    })
    .await;
    let capped = client.solve(endless("cap")).await.unwrap().into_inner();
    assert_eq!(capped.outcome(), Outcome::DeadlineExceeded);
    assert!(capped.solutions_found > 0);
    let budget = SolveRequest {
        options: Some(SolveOptions {
            max_guesses: 10,
            algorithm: Algorithm::Backtracking.into(),
            max_solutions: 2,
        }),
        ..request(
            "b",
            &grid(SLOW_FOR_BACKTRACKING),
            Algorithm::Backtracking,
            2,
        )
    };
    let stopped = client.solve(budget).await.unwrap().into_inner();
    assert_eq!(stopped.outcome(), Outcome::BudgetExhausted);
    assert_eq!(stopped.stats.map(|s| s.guesses), Some(11));
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn health_and_reflection_answer() {
    use tonic_health::pb::health_check_response::ServingStatus;
    use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};
    use tonic_reflection::pb::v1::ServerReflectionRequest;
    use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
    use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;

    let (server, _) = server(Config::embedded()).await;
    let channel = Channel::from_shared(format!("http://{}", server.addr()))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut health = HealthClient::new(channel.clone()).send_compressed(CompressionEncoding::Gzip);
    // The whole server, and each service on its own, as mesh probes ask.
    for service in ["", "sudoku.v1.Sudoku", "sudoku.v1.Puzzles"] {
        let answer = health
            .check(HealthCheckRequest {
                service: service.into(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(answer.status(), ServingStatus::Serving, "{service:?}");
    }
    let unknown = health
        .check(HealthCheckRequest {
            service: "sudoku.v1.Nothing".into(),
        })
        .await
        .expect_err("no such service");
    assert_eq!(unknown.code(), tonic::Code::NotFound);
    let mut reflection =
        ServerReflectionClient::new(channel).send_compressed(CompressionEncoding::Zstd);
    let ask = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut answers = reflection
        .server_reflection_info(tokio_stream::iter(vec![ask]))
        .await
        .unwrap()
        .into_inner();
    let Some(Ok(answer)) = answers.next().await else {
        panic!("a reflection answer")
    };
    let Some(MessageResponse::ListServicesResponse(list)) = answer.message_response else {
        panic!("a service list")
    };
    let names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
    assert!(names.contains(&"sudoku.v1.Sudoku".to_owned()), "{names:?}");
    assert!(
        names.contains(&"grpc.health.v1.Health".to_owned()),
        "{names:?}"
    );
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn compressed_requests_are_accepted() {
    let (server, client) = server(Config::embedded()).await;
    let puzzle = grid(CLASSIC);
    for encoding in [CompressionEncoding::Gzip, CompressionEncoding::Zstd] {
        let mut client = client
            .clone()
            .send_compressed(encoding)
            .accept_compressed(encoding);
        let answer = client
            .solve(request("z", &puzzle, Algorithm::Fast, 2))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(answer.outcome(), Outcome::Unique);
        assert_solved(&puzzle, &answer);
        let batch: Vec<_> = (0..10)
            .map(|i| request(&i.to_string(), &puzzle, Algorithm::Fast, 2))
            .collect();
        let answers: Vec<_> = client
            .batch_solve(tokio_stream::iter(batch))
            .await
            .unwrap()
            .into_inner()
            .collect()
            .await;
        assert_eq!(answers.len(), 10);
        assert!(
            answers
                .iter()
                .all(|a| a.as_ref().is_ok_and(|a| a.outcome() == Outcome::Unique))
        );
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn answers_come_compressed_as_the_requests_came() {
    let (server, client) = server(Config::embedded()).await;
    // The header says the stream's encoding; a message this small goes flagged uncompressed.
    let ask = || request("z", &grid(CLASSIC), Algorithm::Fast, 2);
    let encoding_of = |answer: &tonic::Response<pb::SolveResponse>| {
        let sent = answer.metadata().get("grpc-encoding");
        sent.and_then(|v| v.to_str().ok()).map(str::to_owned)
    };
    for (encoding, other, name) in [
        (CompressionEncoding::Gzip, CompressionEncoding::Zstd, "gzip"),
        (CompressionEncoding::Zstd, CompressionEncoding::Gzip, "zstd"),
    ] {
        // Compressed requests, and the encoding accepted: compressed answers.
        let mut both = client
            .clone()
            .send_compressed(encoding)
            .accept_compressed(encoding);
        let answer = both.solve(ask()).await.unwrap();
        assert_eq!(encoding_of(&answer).as_deref(), Some(name));
        assert_solved(&grid(CLASSIC), &answer.into_inner());
        // Only accepted, as grpcio does unasked: plain answers.
        let answer = client
            .clone()
            .accept_compressed(encoding)
            .solve(ask())
            .await
            .unwrap();
        assert_eq!(encoding_of(&answer), None, "{name} accepted, not sent");
        assert_solved(&grid(CLASSIC), &answer.into_inner());
        // Sent in one encoding, only the other accepted: plain answers.
        let answer = client
            .clone()
            .send_compressed(encoding)
            .accept_compressed(other)
            .solve(ask())
            .await
            .unwrap();
        assert_eq!(encoding_of(&answer), None, "{name} sent, not accepted");
        assert_solved(&grid(CLASSIC), &answer.into_inner());
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_client_layer_compresses_both_ways_and_expansion_is_bounded() {
    use sudoku_compress::{Codec, client::CompressLayer};
    use sudoku_proto::pb::sudoku_client::SudokuClient;
    use tower::Layer;

    let config = Config {
        max_message_bytes: 300,
        ..Config::embedded()
    };
    let (server, _) = server(config).await;
    let channel = Channel::from_shared(format!("http://{}", server.addr()))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let puzzle = grid(CLASSIC);
    for codec in [Codec::Gzip, Codec::Zstd] {
        let layered = CompressLayer::new(codec, 1 << 20).layer(channel.clone());
        let mut client = SudokuClient::new(layered);
        let answer = client
            .solve(request("z", &puzzle, Algorithm::Fast, 2))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(answer.outcome(), Outcome::Unique);
        assert_solved(&puzzle, &answer);
        // Tiny on the wire, but larger than the server takes once expanded.
        let long_id = "x".repeat(250);
        let err = client
            .solve(request(&long_id, &puzzle, Algorithm::Fast, 2))
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::OutOfRange, "{codec:?}: {err}");
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn shutdown_drains_an_in_flight_stream() {
    let (server, mut client) = server(Config::embedded()).await;
    let puzzle = grid(SLOW_FOR_BACKTRACKING);
    let total = 3_000;
    let batch: Vec<_> = (0..total)
        .map(|i| request(&i.to_string(), &puzzle, Algorithm::General, 2))
        .collect();
    let mut responses = client
        .batch_solve(tokio_stream::iter(batch))
        .await
        .unwrap()
        .into_inner();
    let first = responses.next().await.expect("a first answer").expect("ok");
    assert_eq!(first.outcome(), Outcome::Unique);
    let drain = tokio::spawn(server.shutdown());
    let mut count = 1;
    while let Some(item) = responses.next().await {
        let answer = item.expect("no answer is dropped while draining");
        assert_eq!(answer.outcome(), Outcome::Unique);
        count += 1;
    }
    assert_eq!(count, total);
    drain.await.unwrap().expect("clean shutdown");
}

#[tokio::test]
async fn metrics_are_served_over_http() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let config = Config {
        metrics_listen: "127.0.0.1:0".parse().unwrap(),
        ..Config::embedded()
    };
    let (server, mut client) = server(config).await;
    client
        .solve(request("m", &grid(CLASSIC), Algorithm::Fast, 2))
        .await
        .unwrap();
    let addr = server.metrics_addr().expect("metrics enabled");
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(b"GET /metrics HTTP/1.0\r\nHost: test\r\n\r\n")
        .await
        .unwrap();
    let mut body = String::new();
    stream.read_to_string(&mut body).await.unwrap();
    assert!(
        body.starts_with("HTTP/1.0 200") || body.starts_with("HTTP/1.1 200"),
        "{body}"
    );
    assert!(
        body.contains(r#"sudoku_requests_total{method="Solve",code="Ok"} 1"#),
        "{body}"
    );
    assert!(
        body.contains(r#"sudoku_solves_total{outcome="OUTCOME_UNIQUE"} 1"#),
        "{body}"
    );
    assert!(body.contains("sudoku_solve_seconds_bucket"), "{body}");
    assert!(body.contains("sudoku_puzzles_in_flight 0"), "{body}");
    server.shutdown().await.unwrap();
}

/// Sends raw bytes as a message, bypassing the generated client's encoding.
#[derive(Clone, Copy)]
struct RawCodec;

struct RawEncoder;

impl tonic::codec::Encoder for RawEncoder {
    type Item = Vec<u8>;
    type Error = tonic::Status;

    fn encode(
        &mut self,
        item: Vec<u8>,
        buf: &mut tonic::codec::EncodeBuf<'_>,
    ) -> Result<(), tonic::Status> {
        prost::bytes::BufMut::put_slice(buf, &item);
        Ok(())
    }
}

impl tonic::codec::Codec for RawCodec {
    type Encode = Vec<u8>;
    type Decode = pb::SolveResponse;
    type Encoder = RawEncoder;
    type Decoder = tonic_prost::ProstDecoder<pb::SolveResponse>;

    fn encoder(&mut self) -> RawEncoder {
        RawEncoder
    }

    fn decoder(&mut self) -> Self::Decoder {
        tonic_prost::ProstDecoder::default()
    }
}

async fn solve_raw(
    addr: std::net::SocketAddr,
    bytes: Vec<u8>,
) -> Result<pb::SolveResponse, tonic::Status> {
    let channel = Channel::from_shared(format!("http://{addr}"))
        .expect("a valid address")
        .connect()
        .await
        .expect("client connects");
    let mut grpc = tonic::client::Grpc::new(channel);
    grpc.ready().await.expect("channel ready");
    let path = tonic::codegen::http::uri::PathAndQuery::from_static("/sudoku.v1.Sudoku/Solve");
    grpc.unary(tonic::Request::new(bytes), path, RawCodec)
        .await
        .map(tonic::Response::into_inner)
}

#[tokio::test]
async fn undecodable_messages_are_internal_and_the_server_goes_on() {
    let (server, mut client) = server(Config::embedded()).await;
    // A key with field number 0 is never valid protobuf.
    let status = solve_raw(server.addr(), vec![0x00, 0x01])
        .await
        .expect_err("garbage is refused");
    assert_eq!(status.code(), Code::Internal, "{status:?}");
    assert!(status.message().contains("invalid"), "{status:?}");
    // A truncated message: the puzzle field announces more bytes than follow.
    let status = solve_raw(server.addr(), vec![0x12, 0x40, 0x08, 0x03])
        .await
        .expect_err("a truncated message is refused");
    assert_eq!(status.code(), Code::Internal, "{status:?}");
    // The same path with well-formed bytes answers, and the server still serves others.
    let puzzle = grid(CLASSIC);
    let bytes = prost::Message::encode_to_vec(&request("raw", &puzzle, Algorithm::Fast, 2));
    let answer = solve_raw(server.addr(), bytes)
        .await
        .expect("a valid message");
    assert_eq!(answer.outcome(), Outcome::Unique);
    assert_solved(&puzzle, &answer);
    let answer = client
        .solve(request("after", &puzzle, Algorithm::Fast, 2))
        .await
        .expect("still serving")
        .into_inner();
    assert_solved(&puzzle, &answer);
    server.shutdown().await.unwrap();
}
