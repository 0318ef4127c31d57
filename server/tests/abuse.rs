//! The abuse suite: what an attacker or a careless client does to the server, on loopback,
//! each case bounded in count and time. One test per defect of issue 10, then regression
//! tests for what already held (deadlines, cancellation, long mixed streams, rapid reset,
//! header floods, malformed messages).

mod support;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use bytes::Bytes;
use sudoku_proto::pb::{Algorithm, Outcome, SolveOptions, SolveRequest};
use sudoku_server::Config;
use support::raw;
use support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_stream::StreamExt;
use tonic::Code;

/// The HTTP/2 client preface.
const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

// Item 1: a stream whose Nth message cannot be read answers the N before it, then fails.
#[tokio::test]
async fn a_broken_stream_answers_what_came_before_then_fails() {
    let (server, _) = server(Config::embedded()).await;
    let puzzle = grid(CLASSIC);
    let hard = grid(HARD);
    let connection = raw::connect(server.addr(), 1 << 20).await;
    let mut send = connection.send.clone();
    let (response, mut stream) = send
        .send_request(raw::grpc_head(server.addr(), "BatchSolve"), false)
        .expect("a stream opens");
    // Easy and hard puzzles alternate so that answers are still being solved when the bad
    // message arrives.
    let total = 200usize;
    for i in 0..total {
        let p = if i.is_multiple_of(2) { &puzzle } else { &hard };
        let message = raw::frame(&request(&i.to_string(), p, Algorithm::Unspecified, 2));
        assert!(raw::send_paced(&mut stream, message).await);
    }
    // A key with field number 0 is never valid protobuf.
    assert!(raw::send_paced(&mut stream, raw::frame_bytes(&[0x00, 0x01])).await);
    stream
        .send_data(bytes::Bytes::new(), true)
        .expect("half-close");
    let response = response.await.expect("response headers");
    let mut reader = raw::Reader::new(response.into_body(), Duration::ZERO);
    let mut seen = vec![false; total];
    while let Some(answer) = reader.next().await.expect("the body reads") {
        let index = answer.index as usize;
        assert!(!seen[index], "answer {index} twice");
        seen[index] = true;
        assert_eq!(answer.id, index.to_string());
        assert_solved(
            if index.is_multiple_of(2) {
                &puzzle
            } else {
                &hard
            },
            &answer,
        );
    }
    let answered = seen.iter().filter(|&&s| s).count();
    assert_eq!(answered, total, "every request before the bad one answered");
    let (code, message) = reader.status().await.expect("trailers");
    assert_eq!(code, Code::Internal as i32, "{message}");
    assert!(
        message.starts_with("request 200 of the stream could not be read: failed to decode"),
        "{message}"
    );
    assert!(
        message.ends_with("the 200 requests before it were answered"),
        "{message}"
    );
    connection.driver.abort();
    server.shutdown().await.unwrap();
}

// Item 1, the other way to break a stream: a message over --max-message-bytes.
#[tokio::test]
async fn an_oversized_message_fails_the_stream_after_the_answers_owed() {
    let (server, mut client) = server(Config {
        max_message_bytes: 4096,
        ..Config::embedded()
    })
    .await;
    let puzzle = grid(CLASSIC);
    let mut requests: Vec<SolveRequest> = (0..100)
        .map(|i| request(&i.to_string(), &puzzle, Algorithm::Unspecified, 2))
        .collect();
    requests.push(SolveRequest {
        id: "x".repeat(5000),
        ..request("big", &puzzle, Algorithm::Unspecified, 2)
    });
    let mut answers = client
        .batch_solve(tokio_stream::iter(requests))
        .await
        .expect("the stream opens")
        .into_inner();
    let mut count = 0;
    let status = loop {
        match answers.next().await {
            Some(Ok(answer)) => {
                assert_solved(&puzzle, &answer);
                count += 1;
            }
            Some(Err(status)) => break status,
            None => panic!("the stream ended OK after {count} answers"),
        }
    };
    assert_eq!(count, 100);
    assert_eq!(status.code(), Code::OutOfRange, "{status:?}");
    assert!(
        status
            .message()
            .starts_with("request 100 of the stream could not be read")
            && status.message().contains("4096"),
        "{status:?}"
    );
    server.shutdown().await.unwrap();
}

// Item 3: the `id` is capped, with a clear error naming the field; a batch gets an INVALID
// item without the id echoed, and the stream goes on.
#[tokio::test]
async fn an_over_long_id_is_refused_by_name() {
    let (server, mut client) = server(Config::embedded()).await;
    let puzzle = grid(CLASSIC);
    let long = SolveRequest {
        id: "i".repeat(257),
        ..request("", &puzzle, Algorithm::Unspecified, 2)
    };
    let status = client.solve(long.clone()).await.unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    assert_eq!(
        status.message(),
        "the id is 257 bytes, more than this server's limit of 256"
    );
    assert_eq!(bad_field(&status).as_deref(), Some("id"));
    let at_limit = SolveRequest {
        id: "i".repeat(256),
        ..long.clone()
    };
    let answer = client
        .solve(at_limit)
        .await
        .expect("256 bytes is fine")
        .into_inner();
    assert_solved(&puzzle, &answer);

    let requests = vec![
        request("a", &puzzle, Algorithm::Unspecified, 2),
        long,
        request("c", &puzzle, Algorithm::Unspecified, 2),
    ];
    let mut answers: Vec<_> = client
        .batch_solve(tokio_stream::iter(requests))
        .await
        .unwrap()
        .into_inner()
        .collect::<Result<Vec<_>, _>>()
        .await
        .expect("the stream ends OK");
    answers.sort_by_key(|a| a.index);
    assert_eq!(answers.len(), 3);
    assert_solved(&puzzle, &answers[0]);
    assert_solved(&puzzle, &answers[2]);
    assert_eq!(answers[1].outcome(), Outcome::Invalid);
    assert_eq!(answers[1].id, "", "an over-long id is not echoed");
    let error = answers[1].error.as_ref().expect("an error");
    assert!(error.message.contains("the id is 257 bytes"), "{error:?}");
    server.shutdown().await.unwrap();
}

// Item 3: what a stream that never reads its answers can make the server hold is bounded
// in bytes, not only in count: the stream stops being read at its byte budget, and HTTP/2
// flow control holds the client back.
#[tokio::test]
async fn a_stream_that_never_reads_holds_at_most_its_byte_budget() {
    let (server, _) = server(Config {
        max_stream_bytes: 64 << 10,
        ..Config::embedded()
    })
    .await;
    let metrics = server.metrics().clone();
    let puzzle = grid(CLASSIC);
    // The client's window of 64 KiB takes about 180 answers, then the server's sending stops.
    let connection = raw::connect(server.addr(), 64 << 10).await;
    let mut send = connection.send.clone();
    let (response, mut stream) = send
        .send_request(raw::grpc_head(server.addr(), "BatchSolve"), false)
        .expect("a stream opens");
    // Each request near the id cap: about 1 KB held with its answer, so 64 KiB holds ~70.
    let mut sent = 0usize;
    let start = Instant::now();
    while sent < 5_000 && start.elapsed() < Duration::from_secs(2) {
        let message = raw::frame(&SolveRequest {
            id: format!("{sent:0>250}"),
            ..request("", &puzzle, Algorithm::Unspecified, 2)
        });
        match tokio::time::timeout(
            Duration::from_millis(300),
            raw::send_paced(&mut stream, message),
        )
        .await
        {
            Ok(true) => sent += 1,
            Ok(false) => panic!("the stream broke"),
            // Flow control holds the client back: the server stopped reading.
            Err(_) => break,
        }
    }
    // The count window alone (2048) would have let about 2,400 through (180 answers in the
    // client's window, the batch window, 64 KiB of HTTP/2 buffer); the byte budget stops at
    // about 70 instead of 2048.
    assert!(
        sent < 600,
        "the server read {sent} requests from a stream that takes no answers"
    );
    assert_eq!(metrics.in_flight().get(), 0, "everything read was answered");
    let response = response.await.expect("response headers");
    let mut reader = raw::Reader::new(response.into_body(), Duration::ZERO);
    let first = reader.next().await.expect("reads").expect("an answer");
    assert_solved(&puzzle, &first);
    connection.driver.abort();
    server.shutdown().await.unwrap();
}

// Item 4: connections that never complete the HTTP/2 handshake are closed, logged and
// counted; past --max-connections new ones are closed at once; the server keeps serving.
#[tokio::test]
async fn silent_and_surplus_connections_are_closed() {
    let (server, _) = server(Config {
        handshake_timeout_ms: 300,
        max_connections: 8,
        ..Config::embedded()
    })
    .await;
    let metrics = server.metrics().clone();
    let mut silent = Vec::new();
    for i in 0..8 {
        let mut tcp = tokio::net::TcpStream::connect(server.addr()).await.unwrap();
        if i % 2 == 1 {
            // Half the preface, then nothing.
            tcp.write_all(&PREFACE[..12]).await.unwrap();
        }
        silent.push(tcp);
    }
    assert!(eventually(Duration::from_secs(2), || metrics.connections().get() == 8).await);
    // The ninth is over the cap: closed as soon as accepted.
    let mut surplus = tokio::net::TcpStream::connect(server.addr()).await.unwrap();
    let mut byte = [0u8; 1];
    let closed = tokio::time::timeout(Duration::from_secs(2), surplus.read(&mut byte)).await;
    assert!(
        matches!(closed, Ok(Ok(0) | Err(_))),
        "surplus connection closed: {closed:?}"
    );
    assert_eq!(metrics.connections_closed_for("limit"), 1);
    // The silent ones are closed once the handshake time is up.
    let start = Instant::now();
    for tcp in &mut silent {
        let mut sink = Vec::new();
        let read = tokio::time::timeout(Duration::from_secs(3), tcp.read_to_end(&mut sink)).await;
        assert!(read.is_ok(), "a silent connection is still open after 3 s");
    }
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    assert!(
        eventually(Duration::from_secs(2), || metrics
            .connections_closed_for("handshake_timeout")
            == 8)
        .await
    );
    assert!(eventually(Duration::from_secs(2), || metrics.connections().get() == 0).await);
    // A real client is served again.
    let mut client = connect(&server).await;
    let puzzle = grid(CLASSIC);
    let answer = client
        .solve(request("after", &puzzle, Algorithm::Unspecified, 2))
        .await
        .expect("served")
        .into_inner();
    assert_solved(&puzzle, &answer);
    // A connection that completes the handshake in time is not closed later.
    tokio::time::sleep(Duration::from_millis(400)).await;
    let answer = client
        .solve(request("later", &puzzle, Algorithm::Unspecified, 2))
        .await
        .expect("still served on the same connection")
        .into_inner();
    assert_solved(&puzzle, &answer);
    server.shutdown().await.unwrap();
}

// Item 6: an open Health.Watch hears NOT_SERVING, then ends, and does not hold shutdown.
#[tokio::test]
async fn health_watch_does_not_hold_shutdown() {
    use tonic_health::pb::health_check_response::ServingStatus;
    use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};
    let (server, _) = server(Config {
        grace_ms: 20_000,
        ..Config::embedded()
    })
    .await;
    let channel = tonic::transport::Channel::from_shared(format!("http://{}", server.addr()))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut watch = HealthClient::new(channel)
        .watch(HealthCheckRequest {
            service: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    let first = watch.next().await.expect("a status").expect("ok");
    assert_eq!(first.status(), ServingStatus::Serving);
    let start = Instant::now();
    let watcher = tokio::spawn(async move {
        let mut statuses = Vec::new();
        while let Some(Ok(status)) = watch.next().await {
            statuses.push(status.status());
        }
        statuses
    });
    server.shutdown().await.unwrap();
    let took = start.elapsed();
    assert!(took < Duration::from_secs(2), "shutdown took {took:?}");
    let heard = tokio::time::timeout(Duration::from_secs(2), watcher)
        .await
        .expect("the watch ended")
        .unwrap();
    assert_eq!(heard, vec![ServingStatus::NotServing]);
}

// Item 7: an algorithm number the proto does not define is refused, by field.
#[tokio::test]
async fn unknown_algorithms_are_invalid_argument() {
    let (server, mut client) = server(Config::embedded()).await;
    let puzzle = grid(CLASSIC);
    let unknown = SolveRequest {
        options: Some(SolveOptions {
            algorithm: 99,
            max_solutions: 2,
            max_guesses: 0,
        }),
        ..request("alg", &puzzle, Algorithm::Unspecified, 2)
    };
    let status = client.solve(unknown.clone()).await.unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    assert!(
        status.message().starts_with("unknown algorithm 99"),
        "{status:?}"
    );
    assert_eq!(bad_field(&status).as_deref(), Some("options.algorithm"));
    let answers: Vec<_> = client
        .batch_solve(tokio_stream::iter(vec![unknown]))
        .await
        .unwrap()
        .into_inner()
        .collect::<Result<Vec<_>, _>>()
        .await
        .unwrap();
    assert_eq!(answers.len(), 1);
    assert_eq!(answers[0].outcome(), Outcome::Invalid);
    let error = answers[0].error.as_ref().expect("an error");
    assert!(
        error.message.starts_with("unknown algorithm 99"),
        "{error:?}"
    );
    server.shutdown().await.unwrap();
}

// Item 8: a unary call cancelled by its client is counted, under CANCELLED, once.
#[tokio::test]
async fn cancelled_calls_are_counted() {
    let (server, client) = server(Config {
        max_solve_ms: 60_000,
        ..Config::embedded()
    })
    .await;
    let metrics = server.metrics().clone();
    let mut caller = client.clone();
    let call = tokio::spawn(async move { caller.solve(endless("gone")).await });
    assert!(eventually(Duration::from_secs(10), || metrics.in_flight().get() == 1).await);
    call.abort();
    assert!(
        eventually(Duration::from_secs(5), || metrics
            .requests_for("Solve", Code::Cancelled)
            == 1)
        .await,
        "{}",
        metrics.render()
    );
    // Refusals and other endings are counted by the same layer.
    let mut caller = client.clone();
    let _ = caller
        .solve(SolveRequest {
            puzzle: None,
            ..endless("none")
        })
        .await
        .unwrap_err();
    assert_eq!(metrics.requests_for("Solve", Code::InvalidArgument), 1);
    assert_eq!(metrics.requests_for("Solve", Code::Ok), 0);
    server.shutdown().await.unwrap();
}

// Item 9: a panic in a solve is INTERNAL for that call alone (an INVALID item with the
// error in a batch), logged and counted; the server goes on.
#[tokio::test]
async fn a_solver_panic_fails_only_its_own_call() {
    const FAULT: &str = "fault-injection: panic";
    let (server, mut client) = server(Config::embedded()).await;
    let metrics = server.metrics().clone();
    let puzzle = grid(CLASSIC);
    let status = client
        .solve(request(FAULT, &puzzle, Algorithm::Unspecified, 2))
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::Internal, "{status:?}");
    assert!(
        status.message().contains("fault injected by a test"),
        "{status:?}"
    );
    let requests: Vec<_> = (0..50)
        .map(|i| {
            let id = if i == 25 {
                FAULT.to_owned()
            } else {
                i.to_string()
            };
            request(&id, &puzzle, Algorithm::Unspecified, 2)
        })
        .collect();
    let answers: Vec<_> = client
        .batch_solve(tokio_stream::iter(requests))
        .await
        .unwrap()
        .into_inner()
        .collect::<Result<Vec<_>, _>>()
        .await
        .expect("the batch ends OK");
    assert_eq!(answers.len(), 50);
    for answer in &answers {
        if answer.index == 25 {
            assert_eq!(answer.outcome(), Outcome::Invalid);
            let error = answer.error.as_ref().expect("an error");
            assert!(error.message.starts_with("internal error"), "{error:?}");
        } else {
            assert_solved(&puzzle, answer);
        }
    }
    assert_eq!(metrics.panics().get(), 2);
    let answer = client
        .solve(request("after", &puzzle, Algorithm::Unspecified, 2))
        .await
        .expect("still serving")
        .into_inner();
    assert_solved(&puzzle, &answer);
    server.shutdown().await.unwrap();
}

/// Runs `streams` BatchSolve streams on one connection for `duration`, each sending as fast
/// as flow control allows, one small DATA frame per request, and reading one answer every
/// `pause`; then half-closes and reads the rest. Panics unless every request is answered
/// exactly once and the connection survives. Returns the answers per stream.
async fn slow_readers(
    config: Config,
    streams: usize,
    duration: Duration,
    pause: Duration,
) -> Vec<usize> {
    let (server, _) = server(config).await;
    let connection = raw::connect(server.addr(), 64 << 10).await;
    let puzzle = grid(CLASSIC);
    let deadline = Instant::now() + duration;
    let mut tasks = Vec::new();
    for s in 0..streams {
        let mut send = connection.send.clone();
        let addr = server.addr();
        let puzzle = puzzle.clone();
        tasks.push(tokio::spawn(async move {
            let (response, mut stream) = send
                .send_request(raw::grpc_head(addr, "BatchSolve"), false)
                .expect("a stream opens");
            let writer = tokio::spawn(async move {
                let mut sent = 0usize;
                while Instant::now() < deadline {
                    let message = raw::frame(&request(
                        &format!("{s}-{sent}"),
                        &puzzle,
                        Algorithm::Fast,
                        2,
                    ));
                    let paced = tokio::time::timeout_at(
                        deadline.into(),
                        raw::send_paced(&mut stream, message),
                    );
                    match paced.await {
                        Ok(true) => sent += 1,
                        Ok(false) => panic!("stream {s} broke after {sent} requests"),
                        Err(_) => break,
                    }
                }
                stream
                    .send_data(bytes::Bytes::new(), true)
                    .expect("half-close");
                sent
            });
            let response = response.await.expect("response headers");
            let mut reader = raw::Reader::new(response.into_body(), pause);
            let mut seen = std::collections::HashSet::new();
            loop {
                if Instant::now() >= deadline {
                    reader.set_pause(Duration::ZERO);
                }
                match reader.next().await {
                    Ok(Some(answer)) => {
                        assert!(seen.insert(answer.index), "stream {s}: answer twice");
                        assert_eq!(answer.outcome(), Outcome::Unique);
                    }
                    Ok(None) => break,
                    Err(err) => panic!("stream {s} died after {} answers: {err}", seen.len()),
                }
            }
            let (code, message) = reader.status().await.expect("trailers");
            assert_eq!(code, 0, "stream {s}: {message}");
            let sent = writer.await.expect("the writer finishes");
            assert_eq!(seen.len(), sent, "stream {s}: every request answered");
            sent
        }));
    }
    let mut answered = Vec::new();
    for task in tasks {
        answered.push(task.await.expect("a stream task"));
    }
    assert!(
        !connection.driver.is_finished(),
        "the connection ended: {:?}",
        connection.driver.await
    );
    server.shutdown().await.unwrap();
    answered
}

// Item 2: slow readers get backpressure through HTTP/2 flow control and keep their
// connection (no GOAWAY "too_many_data_frames").
#[tokio::test]
async fn slow_readers_keep_their_connection() {
    let answered = slow_readers(
        Config::embedded(),
        16,
        Duration::from_secs(4),
        Duration::from_millis(10),
    )
    .await;
    eprintln!("16 slow streams for 4 s on one connection, answers per stream: {answered:?}");
    assert!(answered.iter().all(|&n| n > 300), "{answered:?}");
    // One stream with a window of one puzzle died the same way.
    let config = Config {
        batch_window: 1,
        ..Config::embedded()
    };
    let answered = slow_readers(config, 1, Duration::from_secs(2), Duration::from_millis(10)).await;
    assert!(answered[0] > 100, "{answered:?}");
}

// Item 2 at the full size: 16 streams for 60 s (run with --ignored).
#[tokio::test]
#[ignore = "runs for a minute; the CI version above runs 4 s"]
async fn slow_readers_keep_their_connection_for_a_minute() {
    let answered = slow_readers(
        Config::embedded(),
        16,
        Duration::from_secs(60),
        Duration::from_millis(10),
    )
    .await;
    eprintln!("16 slow streams for 60 s on one connection, answers per stream: {answered:?}");
}

// Item 5: while one client floods slow puzzles, another client's hard 9x9 puzzles are
// answered promptly: slow work moves to the long lane after a 5 ms slice, and the queues
// serve connections in turn.
#[tokio::test]
async fn a_flood_of_slow_puzzles_does_not_starve_another_client() {
    let (server, flooder) = server(Config {
        workers: Some(2),
        max_solve_ms: 2_000,
        ..Config::embedded()
    })
    .await;
    let slow = grid(SLOW_FOR_BACKTRACKING);
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    // Eight callers keep a slow puzzle each in flight for as long as the test measures.
    let mut flood = Vec::new();
    for i in 0..8 {
        let mut client = flooder.clone();
        let request = request(&format!("slow-{i}"), &slow, Algorithm::Backtracking, 2);
        let stop = stop.clone();
        flood.push(tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let _ = client.solve(request.clone()).await;
            }
        }));
    }
    assert!(
        eventually(Duration::from_secs(5), || server
            .metrics()
            .in_flight()
            .get()
            >= 8)
        .await,
        "the flood is running"
    );
    let mut other = connect(&server).await;
    let hard = grid(HARD);
    let mut latencies = Vec::new();
    for i in 0..100 {
        let start = Instant::now();
        let answer = other
            .solve(request(&i.to_string(), &hard, Algorithm::Unspecified, 2))
            .await
            .expect("answered")
            .into_inner();
        latencies.push(start.elapsed());
        assert_solved(&hard, &answer);
        // More guesses than the server tries inline: each of these went to a solver thread.
        assert!(
            answer.stats.as_ref().is_some_and(|s| s.guesses > 32),
            "{answer:?}"
        );
    }
    latencies.sort();
    let p50 = latencies[49];
    let p99 = latencies[98];
    eprintln!("other client's hard 9x9 Solve under a slow flood: p50 {p50:?}, p99 {p99:?}");
    // The target is 50 ms on a release build; a loaded 2-core CI machine running a debug
    // build gets slack. Before the lanes, these waited for the flood: seconds.
    assert!(p99 < Duration::from_millis(500), "p99 {p99:?}");
    stop.store(true, Ordering::Relaxed);
    for call in flood {
        call.abort();
    }
    server.shutdown().await.unwrap();
}

// Item 5: streams that do nothing are closed after the idle period.
#[tokio::test]
async fn idle_streams_are_closed() {
    let (server, client) = server(Config {
        max_solve_ms: 200,
        // Raised to max_solve_ms + 1 s = 1.2 s.
        stream_idle_ms: 300,
        ..Config::embedded()
    })
    .await;
    let mut idle = Vec::new();
    let mut senders = Vec::new();
    for _ in 0..8 {
        let (tx, rx) = tokio::sync::mpsc::channel::<SolveRequest>(1);
        senders.push(tx);
        let stream = client
            .clone()
            .batch_solve(tokio_stream::wrappers::ReceiverStream::new(rx))
            .await
            .expect("a slot")
            .into_inner();
        idle.push(stream);
    }
    let puzzle = grid(CLASSIC);
    let start = Instant::now();
    for mut stream in idle {
        let status = tokio::time::timeout(Duration::from_secs(5), stream.next())
            .await
            .expect("closed within 5 s")
            .expect("an item")
            .expect_err("an error");
        assert_eq!(status.code(), Code::Unavailable, "{status:?}");
        assert!(status.message().contains("--idle-timeout-ms"), "{status:?}");
    }
    let took = start.elapsed();
    assert!(took >= Duration::from_millis(1000), "closed after {took:?}");
    let answer = client
        .clone()
        .solve(request("y", &puzzle, Algorithm::Unspecified, 2))
        .await
        .expect("still served")
        .into_inner();
    assert_solved(&puzzle, &answer);
    drop(senders);
    server.shutdown().await.unwrap();
}

// Item 5: one connection holds at most its streams-per-connection limit of calls; another
// connection is still served.
#[tokio::test]
async fn one_connection_cannot_take_every_call() {
    let (server, hog) = server(Config {
        max_streams_per_connection: 4,
        max_solve_ms: 60_000,
        ..Config::embedded()
    })
    .await;
    let metrics = server.metrics().clone();
    let mut calls = Vec::new();
    for i in 0..12 {
        let mut client = hog.clone();
        calls.push(tokio::spawn(async move {
            client.solve(endless(&i.to_string())).await
        }));
    }
    assert!(eventually(Duration::from_secs(5), || metrics.in_flight().get() == 4).await);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(metrics.in_flight().get(), 4, "HTTP/2 held the rest back");
    let mut other = connect(&server).await;
    let puzzle = grid(CLASSIC);
    let answer = other
        .solve(request("other", &puzzle, Algorithm::Unspecified, 2))
        .await
        .expect("another connection is still served")
        .into_inner();
    assert_solved(&puzzle, &answer);
    for call in calls {
        call.abort();
    }
    server.shutdown().await.unwrap();
}

// Regression: a deadline is answered DEADLINE_EXCEEDED close to the deadline, and the solver
// thread is free right after.
#[tokio::test]
async fn deadlines_are_kept_and_free_the_core() {
    let (server, mut client) = server(Config {
        workers: Some(1),
        ..Config::embedded()
    })
    .await;
    let metrics = server.metrics().clone();
    // 100 ms, not less: the solve stops 30 ms early, and a shorter margin lets a loaded
    // machine answer after tonic's own timeout has answered CANCELLED.
    for timeout_ms in [100u64, 400] {
        let mut call = tonic::Request::new(endless("deadline"));
        call.set_timeout(Duration::from_millis(timeout_ms));
        let start = Instant::now();
        let status = client.solve(call).await.unwrap_err();
        let took = start.elapsed();
        assert_eq!(status.code(), Code::DeadlineExceeded, "{status:?}");
        // Well inside the 10 s solve cap it would otherwise run to; the slack is for a
        // loaded 2-core CI machine running the other abuse tests at the same time.
        assert!(took < Duration::from_millis(timeout_ms + 5_000), "{took:?}");
        assert!(
            eventually(Duration::from_secs(2), || metrics.in_flight().get() == 0).await,
            "the solver thread is still busy after the deadline"
        );
    }
    server.shutdown().await.unwrap();
}

// Regression: a client that leaves mid-batch frees the cores at once.
#[tokio::test]
async fn leaving_mid_stream_frees_the_cores() {
    let (server, mut client) = server(Config {
        workers: Some(2),
        max_solve_ms: 600_000,
        ..Config::embedded()
    })
    .await;
    let metrics = server.metrics().clone();
    let requests: Vec<_> = (0..6).map(|i| endless(&i.to_string())).collect();
    let (tx, rx) = tokio::sync::mpsc::channel(8);
    for r in requests {
        tx.send(r).await.unwrap();
    }
    let answers = client
        .batch_solve(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await
        .unwrap();
    assert!(eventually(Duration::from_secs(5), || metrics.in_flight().get() == 6).await);
    let start = Instant::now();
    drop(answers);
    drop(tx);
    assert!(eventually(Duration::from_secs(5), || metrics.in_flight().get() == 0).await);
    assert!(
        start.elapsed() < Duration::from_secs(1),
        "{:?}",
        start.elapsed()
    );
    assert!(
        eventually(Duration::from_secs(2), || metrics
            .requests_for("BatchSolve", Code::Cancelled)
            == 1)
        .await
    );
    server.shutdown().await.unwrap();
}

// Regression: a long stream of mixed valid, invalid and differently sized puzzles gets
// exactly one right answer for each request.
#[tokio::test]
async fn a_long_mixed_stream_is_answered_exactly_once_each() {
    let (server, mut client) = server(Config {
        batch_window: 64,
        ..Config::embedded()
    })
    .await;
    let classic = grid(CLASSIC);
    let hard = grid(HARD);
    let small = grid("1...2...3...4...");
    let total = 20_000usize;
    let make = move |i: usize| -> SolveRequest {
        match i % 5 {
            0 => request(&i.to_string(), &classic, Algorithm::Unspecified, 2),
            1 => request(&i.to_string(), &hard, Algorithm::Fast, 2),
            2 => request(&i.to_string(), &small, Algorithm::General, 2),
            3 => SolveRequest {
                puzzle: None,
                ..request(&i.to_string(), &classic, Algorithm::Fast, 2)
            },
            _ => request(&i.to_string(), &small, Algorithm::Fast, 2),
        }
    };
    let mut answers = client
        .batch_solve(tokio_stream::iter((0..total).map(make.clone())))
        .await
        .unwrap()
        .into_inner();
    let mut seen = vec![false; total];
    while let Some(answer) = answers.next().await {
        let answer = answer.expect("an answer");
        let i = answer.index as usize;
        assert!(!seen[i], "answer {i} twice");
        seen[i] = true;
        assert_eq!(answer.id, i.to_string());
        let asked = make(i);
        match i % 5 {
            3 | 4 => {
                assert_eq!(answer.outcome(), Outcome::Invalid, "{answer:?}");
                assert!(answer.error.is_some());
            }
            _ => {
                let puzzle = sudoku_proto::grid_from_pb(asked.puzzle.as_ref().unwrap()).unwrap();
                assert_solved(&puzzle, &answer);
            }
        }
    }
    assert!(seen.iter().all(|&s| s), "every request answered");
    server.shutdown().await.unwrap();
}

// Regression: opening and resetting streams at once, over and over (the HTTP/2 rapid-reset
// attack), costs the attacker its connection at most; the server keeps serving others.
#[tokio::test]
async fn rapid_reset_does_not_hurt_other_clients() {
    let (server, mut client) = server(Config::embedded()).await;
    let connection = raw::connect(server.addr(), 64 << 10).await;
    let mut send = connection.send.clone();
    let puzzle = grid(CLASSIC);
    let message = raw::frame(&endless("reset"));
    let mut opened = 0;
    for _ in 0..2_000 {
        let Ok(ready) = tokio::time::timeout(Duration::from_secs(1), send.clone().ready()).await
        else {
            break;
        };
        let Ok(ready) = ready else { break };
        send = ready;
        let Ok((_, mut stream)) = send.send_request(raw::grpc_head(server.addr(), "Solve"), false)
        else {
            break;
        };
        let _ = stream.send_data(message.clone(), true);
        stream.send_reset(h2::Reason::CANCEL);
        opened += 1;
    }
    assert!(opened > 0);
    // Whatever became of the attacker's connection, the server answers others promptly.
    let start = Instant::now();
    let answer = client
        .solve(request("after", &puzzle, Algorithm::Unspecified, 2))
        .await
        .expect("still serving")
        .into_inner();
    assert_solved(&puzzle, &answer);
    assert!(start.elapsed() < Duration::from_secs(3));
    assert!(
        eventually(Duration::from_secs(5), || server
            .metrics()
            .in_flight()
            .get()
            == 0)
        .await,
        "the reset calls' work is stopped"
    );
    connection.driver.abort();
    server.shutdown().await.unwrap();
}

// Regression: oversized and endless headers end the offender's stream or connection, not
// the server.
#[tokio::test]
async fn header_floods_are_refused() {
    let (server, mut client) = server(Config::embedded()).await;
    let connection = raw::connect(server.addr(), 64 << 10).await;
    let mut head = raw::grpc_head(server.addr(), "Solve");
    for i in 0..2_000 {
        head.headers_mut().insert(
            http::HeaderName::from_bytes(format!("x-flood-{i}").as_bytes()).unwrap(),
            http::HeaderValue::from_static("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
        );
    }
    let mut send = connection.send.clone();
    let outcome = match send.send_request(head, true) {
        Ok((response, _)) => tokio::time::timeout(Duration::from_secs(5), response)
            .await
            .expect("the server answers the flood at once")
            .map(|r| r.status()),
        Err(err) => Err(err),
    };
    assert!(
        !matches!(outcome, Ok(status) if status == http::StatusCode::OK),
        "an 80 KB header block is refused: {outcome:?}"
    );
    let puzzle = grid(CLASSIC);
    let answer = client
        .solve(request("after", &puzzle, Algorithm::Unspecified, 2))
        .await
        .expect("still serving")
        .into_inner();
    assert_solved(&puzzle, &answer);
    connection.driver.abort();
    server.shutdown().await.unwrap();
}

// Regression: malformed messages and raw bytes get a status, never a dropped server.
#[tokio::test]
async fn malformed_messages_are_refused_with_a_status() {
    let (server, mut client) = server(Config::embedded()).await;
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("field number 0", vec![0x00, 0x01]),
        ("truncated puzzle", vec![0x12, 0x40, 0x08, 0x03]),
        (
            "bad varint",
            vec![
                0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
            ],
        ),
        ("wrong wire type for id", vec![0x08, 0x01]),
        ("invalid utf-8 id", vec![0x0a, 0x02, 0xff, 0xfe]),
        ("group wire type", vec![0x13, 0x14]),
    ];
    for (what, bytes) in cases {
        let connection = raw::connect(server.addr(), 64 << 10).await;
        let mut send = connection.send.clone();
        let (response, mut stream) = send
            .send_request(raw::grpc_head(server.addr(), "Solve"), false)
            .unwrap();
        stream.send_data(raw::frame_bytes(&bytes), true).unwrap();
        let response = tokio::time::timeout(Duration::from_secs(5), response)
            .await
            .expect("answered")
            .expect("a response");
        let code = response
            .headers()
            .get("grpc-status")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let code = match code {
            Some(code) => code,
            None => {
                let mut reader = raw::Reader::new(response.into_body(), Duration::ZERO);
                reader.status().await.expect("trailers").0.to_string()
            }
        };
        assert!(
            code == (Code::Internal as i32).to_string()
                || code == (Code::InvalidArgument as i32).to_string(),
            "{what}: grpc-status {code}"
        );
        connection.driver.abort();
    }
    // A gRPC frame that announces more than it carries, then the stream ends.
    let connection = raw::connect(server.addr(), 64 << 10).await;
    let mut send = connection.send.clone();
    let (response, mut stream) = send
        .send_request(raw::grpc_head(server.addr(), "Solve"), false)
        .unwrap();
    stream
        .send_data(bytes::Bytes::from_static(&[0, 0, 0, 1, 0, 1, 2]), true)
        .unwrap();
    let response = tokio::time::timeout(Duration::from_secs(5), response)
        .await
        .expect("answered");
    assert!(response.is_ok(), "{response:?}");
    let puzzle = grid(CLASSIC);
    let answer = client
        .solve(request("after", &puzzle, Algorithm::Unspecified, 2))
        .await
        .expect("still serving")
        .into_inner();
    assert_solved(&puzzle, &answer);
    server.shutdown().await.unwrap();
}

// The per-puzzle time cap counts from when a solver starts the puzzle, not from when it
// arrived: the last puzzles of a batch, queued behind others, still get their full time.
#[tokio::test]
async fn each_batched_puzzle_gets_its_full_solve_time() {
    let (server, mut client) = server(Config {
        workers: Some(1),
        max_solve_ms: 150,
        ..Config::embedded()
    })
    .await;
    let requests: Vec<SolveRequest> = (0..4).map(|i| endless(&i.to_string())).collect();
    let mut answers = client
        .batch_solve(tokio_stream::iter(requests))
        .await
        .expect("the stream starts")
        .into_inner();
    let mut count = 0;
    while let Some(answer) = answers.message().await.expect("answers") {
        count += 1;
        assert_eq!(answer.outcome(), Outcome::DeadlineExceeded, "{answer:?}");
        let micros = answer.stats.expect("stats").solve_micros;
        // Before, the queued ones stopped at once (a few µs): the cap had run out waiting.
        assert!(micros >= 100_000, "puzzle {} ran {micros} µs", answer.id);
    }
    assert_eq!(count, 4);
    server.shutdown().await.unwrap();
}

/// The `grpc-status` code and message of a raw call's response: from its headers when it is
/// trailers-only, else from its trailers.
async fn raw_status(response: h2::client::ResponseFuture) -> (i32, String) {
    let response = tokio::time::timeout(Duration::from_secs(10), response)
        .await
        .expect("an answer in time")
        .expect("a response");
    if let Some(code) = response.headers().get("grpc-status") {
        let code = code.to_str().unwrap().parse().unwrap();
        let message = response
            .headers()
            .get("grpc-message")
            .map(|m| m.to_str().unwrap().to_owned())
            .unwrap_or_default();
        return (code, message);
    }
    let mut reader = raw::Reader::new(response.into_body(), Duration::ZERO);
    while reader.next().await.expect("the body").is_some() {}
    reader.status().await.expect("trailers")
}

// Messages hold room in the receive budget while they arrive; one that stops arriving ends
// its call after --idle-timeout-ms, and the calls waiting for its room go on.
#[tokio::test]
async fn a_message_that_stops_arriving_gives_its_room_to_the_others() {
    let (server, mut client) = server(Config {
        max_receiving_bytes: 64 << 10,
        idle_timeout_ms: 300,
        ..Config::embedded()
    })
    .await;
    let connection = raw::connect(server.addr(), 64 << 10).await;
    let mut send = connection.send.clone().ready().await.unwrap();
    let (response, mut unfinished) = send
        .send_request(raw::grpc_head(server.addr(), "Solve"), false)
        .unwrap();
    // 40,000 bytes announced (all the room: twice that is more than 64 KiB), 1,000 sent.
    let mut start = vec![0, 0, 0, 0x9c, 0x40];
    start.resize(1005, b'x');
    unfinished.send_data(Bytes::from(start), false).unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let puzzle = grid(CLASSIC);
    let waited = Instant::now();
    let answer = client
        .solve(request("after", &puzzle, Algorithm::Unspecified, 2))
        .await
        .expect("answered once the room is free")
        .into_inner();
    assert_solved(&puzzle, &answer);
    assert!(
        waited.elapsed() >= Duration::from_millis(100),
        "it waited for the room: {:?}",
        waited.elapsed()
    );
    let (code, message) = raw_status(response).await;
    assert_eq!(code, Code::DeadlineExceeded as i32, "{message}");
    assert!(message.contains("--idle-timeout-ms"), "{message}");
    server.shutdown().await.unwrap();
}

// Regression (review): a compressed message was charged, from its header on, what it might
// expand to (twice --max-message-bytes), though it is expanded only after its last byte, when
// its room has gone back: eight compressed messages of a few bytes each, stalled, filled a
// 64 MiB budget, and every other call waited 1 s and was refused. Now each holds twice its own
// bytes, and a call beside sixteen such is answered at once.
#[tokio::test]
async fn stalled_compressed_messages_hold_only_their_own_bytes() {
    let (server, mut client) = server(Config {
        max_receiving_bytes: 64 << 10,
        idle_timeout_ms: 5_000,
        ..Config::embedded()
    })
    .await;
    let connection = raw::connect(server.addr(), 64 << 10).await;
    let mut stalled = Vec::new();
    for _ in 0..16 {
        let mut send = connection.send.clone().ready().await.unwrap();
        let mut head = raw::grpc_head(server.addr(), "Solve");
        head.headers_mut()
            .insert("grpc-encoding", http::HeaderValue::from_static("gzip"));
        let (response, mut body) = send.send_request(head, false).unwrap();
        // A 200-byte compressed message, half of it sent.
        let mut start = vec![1, 0, 0, 0, 200];
        start.resize(105, 0x1f);
        body.send_data(Bytes::from(start), false).unwrap();
        stalled.push((response, body));
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let puzzle = grid(CLASSIC);
    let waited = Instant::now();
    let answer = client
        .solve(request("beside", &puzzle, Algorithm::Unspecified, 2))
        .await
        .expect("answered: the stalled messages hold a few hundred bytes each")
        .into_inner();
    assert_solved(&puzzle, &answer);
    assert!(
        waited.elapsed() < Duration::from_millis(900),
        "it did not wait for room: {:?}",
        waited.elapsed()
    );
    drop(stalled);
    server.shutdown().await.unwrap();
}

// Regression (review): a stream whose puzzle waited for a solver thread longer than
// --idle-timeout-ms was closed as idle, as if its client had gone quiet. With one long-lane
// thread, five other clients' slow puzzles and four of its own connection's ahead of it
// (400 ms each), the victim's slow puzzle waits over 1.6 s, past the 1.4 s idle period; it
// is answered.
#[tokio::test]
async fn a_stream_waiting_for_a_solver_thread_is_not_idle() {
    let (server, _client) = server(Config {
        workers: Some(1),
        max_solve_ms: 400,
        // Raised to max_solve_ms + 1 s = 1.4 s.
        stream_idle_ms: 300,
        ..Config::embedded()
    })
    .await;
    let mut hogs = Vec::new();
    for hog in 0..5 {
        let mut client = connect(&server).await;
        let requests: Vec<SolveRequest> = (0..4).map(|i| endless(&format!("{hog}-{i}"))).collect();
        let answers = client
            .batch_solve(tokio_stream::iter(requests))
            .await
            .expect("a hog's stream opens")
            .into_inner();
        hogs.push(answers);
    }
    // The long lane takes a connection's puzzles in order: the victim's own connection's
    // go first.
    let mut victim = connect(&server).await;
    let own: Vec<SolveRequest> = (0..4).map(|i| endless(&format!("own-{i}"))).collect();
    let own = victim
        .batch_solve(tokio_stream::iter(own))
        .await
        .expect("the victim connection's other stream opens")
        .into_inner();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let (tx, rx) = tokio::sync::mpsc::channel::<SolveRequest>(1);
    let mut answers = victim
        .batch_solve(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await
        .expect("the victim's stream opens")
        .into_inner();
    tx.send(endless("victim")).await.unwrap();
    let start = Instant::now();
    let answer = tokio::time::timeout(Duration::from_secs(20), answers.next())
        .await
        .expect("an answer in time")
        .expect("an item")
        .expect("answered, not closed as idle");
    assert_eq!(answer.id, "victim");
    assert_eq!(answer.outcome(), Outcome::DeadlineExceeded, "{answer:?}");
    assert!(
        start.elapsed() > Duration::from_millis(1400),
        "it waited past the idle period: {:?}",
        start.elapsed()
    );
    drop((tx, own, hogs));
    server.shutdown().await.unwrap();
}

// A call that opens and sends nothing is ended once --idle-timeout-ms passes.
#[tokio::test]
async fn a_call_that_sends_nothing_is_ended_in_time() {
    let (server, mut client) = server(Config {
        idle_timeout_ms: 300,
        ..Config::embedded()
    })
    .await;
    let connection = raw::connect(server.addr(), 64 << 10).await;
    let mut send = connection.send.clone().ready().await.unwrap();
    let (response, _silent) = send
        .send_request(raw::grpc_head(server.addr(), "Solve"), false)
        .unwrap();
    let (code, message) = raw_status(response).await;
    assert_eq!(code, Code::DeadlineExceeded as i32, "{message}");
    let puzzle = grid(CLASSIC);
    let answer = client
        .solve(request("after", &puzzle, Algorithm::Unspecified, 2))
        .await
        .expect("others are served")
        .into_inner();
    assert_solved(&puzzle, &answer);
    server.shutdown().await.unwrap();
}

// Regression (review): reflection streams took no slot, and tonic-reflection echoes each
// request in its answer: 4,096 idle streams, each sent three gzip messages of 112 bytes,
// held 2.4 GB. At most 64 are open at once now; the next is refused at once, and one closing
// makes room. The API's calls are not counted against them.
#[tokio::test]
async fn reflection_streams_are_counted() {
    let (server, mut client) = server(Config::embedded()).await;
    let head = || {
        raw::grpc_head_at(
            server.addr(),
            "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        )
    };
    let mut open = Vec::new();
    let mut connections = Vec::new();
    for stream in 0..65 {
        if stream % 32 == 0 {
            connections.push(raw::connect(server.addr(), 64 << 10).await);
        }
        let connection = connections.last().unwrap();
        let mut send = connection.send.clone().ready().await.unwrap();
        let (response, body) = send.send_request(head(), false).unwrap();
        open.push((response, body));
    }
    let (last, _body) = open.pop().unwrap();
    let (code, message) = tokio::time::timeout(Duration::from_secs(5), raw_status(last))
        .await
        .expect("the 65th stream is refused at once");
    assert_eq!(code, Code::ResourceExhausted as i32, "{message}");
    // grpc-message as sent, percent-encoded.
    assert!(message.contains("64%20reflection%20streams"), "{message}");
    // The API is not held up by them.
    let puzzle = grid(CLASSIC);
    let answer = client
        .solve(request("beside", &puzzle, Algorithm::Unspecified, 2))
        .await
        .expect("the API answers")
        .into_inner();
    assert_solved(&puzzle, &answer);
    // One ends (its client closes its side): another may open.
    let (_response, mut body) = open.pop().unwrap();
    body.send_data(Bytes::new(), true).unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let connection = connections.last().unwrap();
    let mut send = connection.send.clone().ready().await.unwrap();
    let (response, mut body) = send.send_request(head(), false).unwrap();
    let request =
        prost::Message::encode_to_vec(&tonic_reflection::pb::v1::ServerReflectionRequest {
            host: String::new(),
            message_request: Some(
                tonic_reflection::pb::v1::server_reflection_request::MessageRequest::ListServices(
                    String::new(),
                ),
            ),
        });
    body.send_data(raw::frame_bytes(&request), true).unwrap();
    let response = tokio::time::timeout(Duration::from_secs(5), response)
        .await
        .expect("an answer in time")
        .expect("a response");
    assert!(
        response.headers().get("grpc-status").is_none(),
        "not refused: {:?}",
        response.headers()
    );
    let mut answer = response.into_body();
    let listed = answer.data().await.expect("an answer").expect("its bytes");
    assert!(
        listed.windows(16).any(|w| w == b"sudoku.v1.Sudoku"),
        "the services are listed"
    );
    drop(open);
    server.shutdown().await.unwrap();
}

// A batch stream takes its room at its message's header, before the message is read: once
// the room is full, further streams wait at the door and are refused, holding nothing.
#[tokio::test]
async fn streams_past_the_batch_room_are_refused_at_the_door() {
    // One solver thread, on puzzles that never end (no guess budget; a dropped stream stops
    // its solve): what a stream holds stays held, and no stream may be closed for room. Each
    // stream takes its 1 KiB share and what its buffers keep for a message of about 100
    // bytes (twice it, and 64 KiB for answers): three fit.
    let (server, _client) = server(Config {
        workers: Some(1),
        max_guesses: u64::MAX,
        max_stream_bytes: 1024,
        max_batch_bytes: 201_000,
        max_solve_ms: 60_000,
        stream_idle_ms: 60_000,
        ..Config::embedded()
    })
    .await;
    let mut ends = Vec::new();
    for stream in 0..8 {
        let mut client = connect(&server).await;
        let mut answers = client
            .batch_solve(tokio_stream::iter([endless(&stream.to_string())]))
            .await
            .expect("the stream opens")
            .into_inner();
        ends.push(tokio::spawn(async move {
            tokio::time::timeout(Duration::from_secs(5), answers.message())
                .await
                .ok()
        }));
    }
    let mut refused = 0;
    for end in ends {
        match end.await.unwrap() {
            None => {}
            Some(Err(status)) => {
                assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
                let message = status.message();
                assert!(message.contains("server busy"), "{message}");
                assert!(message.contains("--memory-budget"), "{message}");
                refused += 1;
            }
            Some(Ok(answer)) => panic!("a puzzle that never ends was answered: {answer:?}"),
        }
    }
    assert_eq!(
        refused, 5,
        "three streams hold the room, the rest are refused"
    );
    server.shutdown().await.unwrap();
}

// Review (attack): batch streams that never read their answers, each sending 4 MB messages,
// kept their last decoded message's room in the receive budget while waiting for their own
// byte budget, so unary calls waited behind them for generations of --idle-timeout-ms (150 s
// measured). Room now goes back with a message's last byte: other calls are not held up.
#[tokio::test]
async fn streams_that_never_read_do_not_hold_up_other_calls() {
    // Each 300 KB message needs more than all the room, so it takes all of it.
    let (server, mut client) = server(Config {
        max_receiving_bytes: 512 << 10,
        max_solve_ms: 60_000,
        stream_idle_ms: 60_000,
        ..Config::embedded()
    })
    .await;
    // A window of nothing: the server can send these streams no answer.
    let connection = raw::connect(server.addr(), 0).await;
    let big = raw::frame(&SolveRequest {
        id: "x".repeat(300_000),
        ..request("big", &grid(CLASSIC), Algorithm::Unspecified, 2)
    });
    let mut streams = Vec::new();
    for _ in 0..8 {
        let mut send = connection.send.clone().ready().await.unwrap();
        let (response, mut body) = send
            .send_request(raw::grpc_head(server.addr(), "BatchSolve"), false)
            .unwrap();
        let big = big.clone();
        streams.push(tokio::spawn(async move {
            // In pieces the 64 KiB stream window takes.
            'sending: for _ in 0..6 {
                for piece in big.chunks(16 << 10) {
                    if !raw::send_paced(&mut body, Bytes::copy_from_slice(piece)).await {
                        break 'sending;
                    }
                }
            }
            std::future::pending::<()>().await;
            drop((response, body));
        }));
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let puzzle = grid(CLASSIC);
    let start = Instant::now();
    let answer = client
        .solve(request("other", &puzzle, Algorithm::Unspecified, 2))
        .await
        .expect("served while the streams sit")
        .into_inner();
    assert_solved(&puzzle, &answer);
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    for stream in streams {
        stream.abort();
    }
    server.shutdown().await.unwrap();
}

// Each method takes messages of its own size: a Solve request needs a grid's worth, so one of
// 100 KB is refused OUT_OF_RANGE by its header, naming the method and its limit, while a
// BatchSolvePacked message of that size is taken.
#[tokio::test]
async fn a_message_larger_than_its_method_takes_is_refused_at_the_door() {
    let (server, mut client) = server(Config::embedded()).await;
    let puzzle = grid(CLASSIC);
    let big = SolveRequest {
        id: "x".repeat(100_000),
        ..request("", &puzzle, Algorithm::Unspecified, 2)
    };
    let status = client.solve(big).await.expect_err("refused");
    assert_eq!(status.code(), Code::OutOfRange, "{status:?}");
    assert!(
        status
            .message()
            .contains("is more than the 65536 bytes Solve takes"),
        "{status:?}"
    );
    let texts: Vec<String> = (0..1200)
        .map(|i| support::packed::relabel(CLASSIC, (i % 9) as u8))
        .collect();
    let message = support::packed::packed("big", &texts);
    assert!(prost::Message::encoded_len(&message) > 65536);
    let answer = support::packed::answer_of(&mut client, message).await;
    support::packed::assert_answers(&answer, &texts);
    let answer = client
        .solve(request("after", &puzzle, Algorithm::Unspecified, 2))
        .await
        .expect("served after")
        .into_inner();
    assert_solved(&puzzle, &answer);
    server.shutdown().await.unwrap();
}
