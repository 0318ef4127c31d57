//! Traces as a mesh sees them: the `sudoku-server` binary exports its spans over OTLP/gRPC to
//! a real trace receiver (opentelemetry-proto's TraceService, on loopback) where
//! `OTEL_EXPORTER_OTLP_ENDPOINT` is set, each call's span in the caller's trace.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::any_value::Value;
use opentelemetry_proto::tonic::trace::v1::Span;
use sudoku_proto::pb;
use sudoku_proto::pb::puzzles_client::PuzzlesClient;
use sudoku_proto::pb::sudoku_client::SudokuClient;

/// The caller's trace and span, as its `traceparent` names them.
const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT: &str = "00f067aa0ba902b7";
/// A caller that speaks B3, as some meshes do.
const B3_TRACE: &str = "80f198ee56343ba864fe8b2a57d3eff7";
const B3_PARENT: &str = "e457b5a2e4d86bd1";

const PUZZLE: &str =
    "3.65.84..52........87....31..3.1..8.9..863..5.5..9.6..13....25........74..52.63..";

/// Every span the receiver was sent.
#[derive(Clone, Default)]
struct Receiver(Arc<Mutex<Vec<Span>>>);

#[tonic::async_trait]
impl TraceService for Receiver {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        let spans = request
            .into_inner()
            .resource_spans
            .into_iter()
            .flat_map(|r| r.scope_spans)
            .flat_map(|s| s.spans);
        self.0.lock().expect("unpoisoned").extend(spans);
        Ok(tonic::Response::new(ExportTraceServiceResponse::default()))
    }
}

/// A receiver on a loopback port, with its address.
async fn receiver() -> (Receiver, std::net::SocketAddr) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("binds");
    let addr = listener.local_addr().expect("an address");
    let receiver = Receiver::default();
    let service = TraceServiceServer::new(receiver.clone());
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(service)
            .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener)),
    );
    (receiver, addr)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A span's attributes, as text.
fn attributes(span: &Span) -> HashMap<String, String> {
    span.attributes
        .iter()
        .map(|kv| {
            let value = match kv.value.as_ref().and_then(|v| v.value.as_ref()) {
                Some(Value::StringValue(s)) => s.clone(),
                Some(Value::IntValue(i)) => i.to_string(),
                Some(Value::DoubleValue(d)) => d.to_string(),
                Some(Value::BoolValue(b)) => b.to_string(),
                other => format!("{other:?}"),
            };
            (kv.key.clone(), value)
        })
        .collect()
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// A request carrying `headers`.
fn with_headers<T>(message: T, headers: &[(&'static str, String)]) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    for (key, value) in headers {
        let value = value.parse().expect("an ASCII header");
        request.metadata_mut().insert(*key, value);
    }
    request
}

/// A `sudoku-server` process exporting its spans to a receiver, with its log lines to come.
struct Exporting {
    receiver: Receiver,
    server: std::process::Child,
    logs: std::io::Lines<BufReader<std::process::ChildStderr>>,
    url: String,
}

impl Exporting {
    /// Starts the server, exporting to a new receiver, and waits until it serves.
    async fn start() -> Exporting {
        let (receiver, otlp) = receiver().await;
        let port = free_port();
        let mut server = Command::new(env!("CARGO_BIN_EXE_sudoku-server"))
            .args(["--metrics-listen", "off", "--log-format", "json"])
            .env("SUDOKU_LISTEN", format!("127.0.0.1:{port}"))
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", format!("http://{otlp}"))
            .env("OTEL_BSP_SCHEDULE_DELAY", "100")
            .env("RUST_LOG", "info,sudoku_server=debug")
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("server starts");
        let mut logs = BufReader::new(server.stderr.take().expect("stderr piped")).lines();
        let first = logs.next().expect("a log line").expect("utf-8");
        assert!(first.contains("serving"), "{first}");
        Exporting {
            receiver,
            server,
            logs,
            url: format!("http://127.0.0.1:{port}"),
        }
    }

    /// Stops the server with SIGTERM (it drains, then sends its last spans before it exits):
    /// every span the receiver got, and every log line.
    async fn finish(self) -> (Vec<Span>, Vec<String>) {
        let Exporting {
            receiver,
            mut server,
            logs,
            ..
        } = self;
        let status = Command::new("kill")
            .args(["-TERM", &server.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success());
        let exited = tokio::task::spawn_blocking(move || server.wait())
            .await
            .expect("waited")
            .expect("exit status");
        assert!(exited.success(), "{exited:?}");
        let logs = logs.map_while(Result::ok).collect();
        let spans = receiver.0.lock().expect("unpoisoned").clone();
        (spans, logs)
    }
}

/// The one span named `name`.
fn named(spans: &[Span], name: &str) -> Span {
    let mut found = spans.iter().filter(|s| s.name == name);
    let span = found
        .next()
        .unwrap_or_else(|| panic!("no {name} span among {:?}", names(spans)));
    assert!(found.next().is_none(), "more than one {name} span");
    span.clone()
}

/// The spans named `name` inside `call`, each checked to be in its trace.
fn children(spans: &[Span], call: &Span, name: &str) -> Vec<Span> {
    let found: Vec<Span> = spans
        .iter()
        .filter(|s| s.name == name && s.parent_span_id == call.span_id)
        .cloned()
        .collect();
    assert!(
        !found.is_empty(),
        "no {name} span inside {} among {:?}",
        call.name,
        names(spans)
    );
    for span in &found {
        assert_eq!(
            span.trace_id, call.trace_id,
            "{name} in {}'s trace",
            call.name
        );
    }
    found
}

fn traceparent() -> [(&'static str, String); 1] {
    [("traceparent", format!("00-{TRACE}-{PARENT}-01"))]
}

fn solve_request(grid: &solver_core::Grid) -> pb::SolveRequest {
    pb::SolveRequest {
        puzzle: Some(sudoku_proto::grid_to_pb(grid)),
        ..pb::SolveRequest::default()
    }
}

#[tokio::test]
async fn each_call_is_a_span_of_the_callers_trace_exported_over_otlp() {
    let server = Exporting::start().await;
    let grid: solver_core::Grid = PUZZLE.parse().expect("a puzzle");
    let mut sudoku = SudokuClient::connect(server.url.clone())
        .await
        .expect("connects");
    let answer = sudoku
        .solve(with_headers(solve_request(&grid), &traceparent()))
        .await
        .expect("solved")
        .into_inner();
    assert_eq!(answer.outcome(), pb::Outcome::Unique);

    let rate = pb::RateRequest {
        puzzle: Some(sudoku_proto::grid_to_pb(&grid)),
        ..pb::RateRequest::default()
    };
    let b3 = [
        ("x-b3-traceid", B3_TRACE.to_owned()),
        ("x-b3-spanid", B3_PARENT.to_owned()),
        ("x-b3-sampled", "1".to_owned()),
    ];
    let mut puzzles = PuzzlesClient::connect(server.url.clone())
        .await
        .expect("connects");
    let rated = puzzles
        .rate(with_headers(rate, &b3))
        .await
        .expect("rated")
        .into_inner();
    let (spans, logs) = server.finish().await;

    let call = named(&spans, "sudoku.v1.Sudoku/Solve");
    assert_eq!(hex(&call.trace_id), TRACE, "in the caller's trace");
    assert_eq!(
        hex(&call.parent_span_id),
        PARENT,
        "a child of the caller's span"
    );
    assert_eq!(call.kind, 2, "a server span");
    let seen = attributes(&call);
    assert_eq!(seen["rpc.system"], "grpc");
    assert_eq!(seen["rpc.method"], "Solve");
    assert_eq!(seen["rpc.grpc.status_code"], "0");
    assert_eq!(seen["sudoku.grid.side"], "9");
    assert_eq!(seen["sudoku.outcome"], "OUTCOME_UNIQUE");
    let stats = answer.stats.expect("stats");
    assert_eq!(seen["sudoku.guesses"], stats.guesses.to_string());
    assert_eq!(seen["sudoku.algorithm"], stats.algorithm().as_str_name());
    children(&spans, &call, "solve");

    let rate_call = named(&spans, "sudoku.v1.Puzzles/Rate");
    assert_eq!(hex(&rate_call.trace_id), B3_TRACE, "B3's trace");
    assert_eq!(hex(&rate_call.parent_span_id), B3_PARENT);
    let rating = attributes(&rate_call)["sudoku.rating"].parse::<f64>();
    assert_eq!(rating.expect("a rating"), rated.rating);
    children(&spans, &rate_call, "logic");

    // The call's log line (at debug) carries the caller's trace id.
    assert!(
        logs.iter().any(|line| line.contains(TRACE)),
        "no log line carries {TRACE}: {logs:?}"
    );
}

#[tokio::test]
async fn streams_and_batches_have_a_span_for_their_work_inside_the_call() {
    let server = Exporting::start().await;
    let grid: solver_core::Grid = PUZZLE.parse().expect("a puzzle");
    let mut puzzles = PuzzlesClient::connect(server.url.clone())
        .await
        .expect("connects");
    let explain = pb::HintRequest {
        grid: Some(sudoku_proto::grid_to_pb(&grid)),
        ..pb::HintRequest::default()
    };
    let mut steps = puzzles
        .explain(with_headers(explain, &traceparent()))
        .await
        .expect("explaining")
        .into_inner();
    let mut last = None;
    while let Some(message) = steps.message().await.expect("a step") {
        last = Some(message);
    }
    assert!(last.expect("messages").solved, "the explanation solves it");

    let generate = pb::GenerateRequest {
        seed: 11,
        count: 2,
        ..pb::GenerateRequest::default()
    };
    let mut made = puzzles
        .generate(with_headers(generate, &traceparent()))
        .await
        .expect("generating")
        .into_inner();
    let mut ratings = Vec::new();
    while let Some(generated) = made.message().await.expect("a puzzle") {
        let wire = |g: Option<&pb::Grid>| sudoku_proto::grid_from_pb(g.expect("a grid"));
        let puzzle = wire(generated.puzzle.as_ref()).expect("a puzzle");
        let solution = wire(generated.solution.as_ref()).expect("a solution");
        assert!(solution.is_solution_of(&puzzle), "{generated:?}");
        ratings.push(generated.rating.to_string());
    }

    let mut sudoku = SudokuClient::connect(server.url.clone())
        .await
        .expect("connects");
    let batch = tokio_stream::iter(vec![solve_request(&grid); 3]);
    let mut answers = sudoku
        .batch_solve(with_headers(batch, &traceparent()))
        .await
        .expect("a batch")
        .into_inner();
    let mut solved = 0;
    while let Some(answer) = answers.message().await.expect("an answer") {
        let solution = sudoku_proto::grid_from_pb(answer.solution.as_ref().expect("solved"));
        assert!(solution.expect("a grid").is_solution_of(&grid));
        solved += 1;
    }
    assert_eq!(solved, 3);

    let rate = pb::RateRequest {
        puzzle: Some(sudoku_proto::grid_to_pb(&grid)),
        ..pb::RateRequest::default()
    };
    let mut rated = puzzles
        .batch_rate(with_headers(tokio_stream::iter([rate]), &traceparent()))
        .await
        .expect("a batch")
        .into_inner();
    let rating = rated.message().await.expect("an answer").expect("one");
    assert_eq!(rating.verdict(), pb::Verdict::Unique);

    let mut filled = sudoku_proto::grid_to_pb(&grid);
    filled.cells[1] = filled.cells[0];
    let validate = pb::ValidateRequest {
        grid: Some(filled),
        puzzle: Some(sudoku_proto::grid_to_pb(&grid)),
    };
    let checked = puzzles
        .validate(with_headers(validate, &traceparent()))
        .await
        .expect("validated")
        .into_inner();
    assert_eq!(checked.puzzle_verdict(), pb::Verdict::Unique);
    assert!(!checked.valid, "a repeated digit: {checked:?}");
    let (spans, _) = server.finish().await;

    let rate = named(&spans, "sudoku.v1.Puzzles/BatchRate");
    let logic = children(&spans, &rate, "logic");
    let seen: Vec<String> = logic
        .iter()
        .map(|span| attributes(span)["sudoku.rating"].clone())
        .collect();
    assert_eq!(seen, [rating.rating.to_string()], "one span a puzzle");

    let validate = named(&spans, "sudoku.v1.Puzzles/Validate");
    assert_eq!(attributes(&validate)["sudoku.outcome"], "OUTCOME_UNIQUE");
    children(&spans, &validate, "solve");

    let explain = named(&spans, "sudoku.v1.Puzzles/Explain");
    assert_eq!(hex(&explain.trace_id), TRACE);
    assert_eq!(attributes(&explain)["sudoku.grid.side"], "9");
    assert_eq!(
        children(&spans, &explain, "logic").len(),
        1,
        "one span for it all"
    );

    let generate = named(&spans, "sudoku.v1.Puzzles/Generate");
    let pieces = children(&spans, &generate, "generate");
    let mut rated: Vec<String> = pieces
        .iter()
        .map(|span| attributes(span)["sudoku.rating"].clone())
        .collect();
    rated.sort();
    ratings.sort();
    assert_eq!(rated, ratings, "one span a puzzle, with its rating");

    let batch = named(&spans, "sudoku.v1.Sudoku/BatchSolve");
    let shares = children(&spans, &batch, "solve");
    let counted: u64 = shares
        .iter()
        .map(|span| {
            attributes(span)["sudoku.puzzles"]
                .parse::<u64>()
                .expect("a count")
        })
        .sum();
    assert_eq!(counted, 3, "every puzzle in a share's span");
}

#[tokio::test]
async fn a_trace_the_server_starts_is_in_its_log_lines() {
    let server = Exporting::start().await;
    let grid: solver_core::Grid = PUZZLE.parse().expect("a puzzle");
    let mut sudoku = SudokuClient::connect(server.url.clone())
        .await
        .expect("connects");
    let answer = sudoku.solve(solve_request(&grid)).await.expect("solved");
    assert_eq!(answer.into_inner().outcome(), pb::Outcome::Unique);
    let (spans, logs) = server.finish().await;

    let call = named(&spans, "sudoku.v1.Sudoku/Solve");
    assert!(call.parent_span_id.is_empty(), "a trace of its own");
    let trace = hex(&call.trace_id);
    assert_ne!(trace, "0".repeat(32));
    children(&spans, &call, "solve");
    assert!(
        logs.iter()
            .any(|line| line.contains("call ended") && line.contains(&trace)),
        "no log line of the call carries its trace {trace}: {logs:?}"
    );
}

fn names(spans: &[Span]) -> Vec<&str> {
    spans.iter().map(|s| s.name.as_str()).collect()
}

#[test]
fn nothing_is_exported_unless_the_endpoint_is_set() {
    // The variable is read at start; unset here (the test runner does not set it).
    if std::env::var_os(sudoku_server::telemetry::ENDPOINT_VARIABLE).is_some() {
        panic!("this test needs OTEL_EXPORTER_OTLP_ENDPOINT unset");
    }
    let exporting = sudoku_server::telemetry::exporting().expect("no error");
    assert!(exporting.is_none());
}
