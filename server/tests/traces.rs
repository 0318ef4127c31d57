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

#[tokio::test]
async fn each_call_is_a_span_of_the_callers_trace_exported_over_otlp() {
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
    let url = format!("http://127.0.0.1:{port}");

    let grid: solver_core::Grid = PUZZLE.parse().expect("a puzzle");
    let solve = pb::SolveRequest {
        puzzle: Some(sudoku_proto::grid_to_pb(&grid)),
        ..pb::SolveRequest::default()
    };
    let traceparent = format!("00-{TRACE}-{PARENT}-01");
    let mut sudoku = SudokuClient::connect(url.clone()).await.expect("connects");
    let answer = sudoku
        .solve(with_headers(solve, &[("traceparent", traceparent)]))
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
    let mut puzzles = PuzzlesClient::connect(url).await.expect("connects");
    let rated = puzzles
        .rate(with_headers(rate, &b3))
        .await
        .expect("rated")
        .into_inner();

    // SIGTERM: the server drains, then sends its last spans before it exits.
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
    let logs: Vec<String> = logs.map_while(Result::ok).collect();

    let spans = receiver.0.lock().expect("unpoisoned").clone();
    let named = |name: &str| {
        spans
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("no {name} span among {:?}", names(&spans)))
            .clone()
    };
    let call = named("sudoku.v1.Sudoku/Solve");
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
    let work = named("solve");
    assert_eq!(work.trace_id, call.trace_id);
    assert_eq!(
        work.parent_span_id, call.span_id,
        "the solve is inside the call"
    );

    let rate_call = named("sudoku.v1.Puzzles/Rate");
    assert_eq!(hex(&rate_call.trace_id), B3_TRACE, "B3's trace");
    assert_eq!(hex(&rate_call.parent_span_id), B3_PARENT);
    let rating = attributes(&rate_call)["sudoku.rating"].parse::<f64>();
    assert_eq!(rating.expect("a rating"), rated.rating);
    let logic = named("logic");
    assert_eq!(logic.parent_span_id, rate_call.span_id);

    // The call's log line (at debug) carries the caller's trace id.
    assert!(
        logs.iter().any(|line| line.contains(TRACE)),
        "no log line carries {TRACE}: {logs:?}"
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
