//! The `sudoku-server` binary as an operator runs it: flags, env, SIGTERM drain, exit 0.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use sudoku_proto::pb::sudoku_client::SudokuClient;
use sudoku_proto::pb::{Outcome, SolveRequest};
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};

/// Reserves a free loopback port (the server binds it right after).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

#[tokio::test]
async fn sigterm_drains_and_exits_zero() {
    let port = free_port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_sudoku-server"))
        .args([
            "--metrics-listen",
            "off",
            "--grace-ms",
            "5000",
            "--log-format",
            "json",
        ])
        .env("SUDOKU_LISTEN", format!("127.0.0.1:{port}"))
        .stderr(Stdio::piped())
        .spawn()
        .expect("server starts");
    let stderr = child.stderr.take().expect("stderr piped");
    let mut lines = BufReader::new(stderr).lines();
    let first = lines.next().expect("a log line").expect("utf-8 log");
    assert!(
        first.contains("\"serving\""),
        "first log line is JSON saying it serves: {first}"
    );

    let url = format!("http://127.0.0.1:{port}");
    let mut client = SudokuClient::connect(url.clone()).await.expect("connects");
    let puzzle: solver_core::Grid =
        "3.65.84..52........87....31..3.1..8.9..863..5.5..9.6..13....25........74..52.63.."
            .parse()
            .unwrap();
    let request = SolveRequest {
        puzzle: Some(sudoku_proto::grid_to_pb(&puzzle)),
        ..Default::default()
    };
    let answer = client
        .solve(request.clone())
        .await
        .expect("solves")
        .into_inner();
    assert_eq!(answer.outcome(), Outcome::Unique);

    // A stream open across the signal still gets every answer.
    let (tx, rx) = tokio::sync::mpsc::channel(8);
    tx.send(request.clone()).await.unwrap();
    let mut stream = client
        .batch_solve(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await
        .unwrap()
        .into_inner();
    assert!(stream.message().await.unwrap().is_some());

    let mut health = HealthClient::new(
        tonic::transport::Channel::from_shared(url)
            .unwrap()
            .connect()
            .await
            .unwrap(),
    );
    let mut watch = health
        .watch(HealthCheckRequest {
            service: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    let first = watch
        .message()
        .await
        .unwrap()
        .expect("a first health status");
    assert_eq!(first.status(), ServingStatus::Serving);
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    // Draining: watchers hear NOT_SERVING while the open stream finishes.
    let next = watch
        .message()
        .await
        .expect("the watch stays open")
        .expect("a status change");
    assert_eq!(next.status(), ServingStatus::NotServing);
    drop(watch);
    for i in 0..5 {
        tx.send(SolveRequest {
            id: i.to_string(),
            ..request.clone()
        })
        .await
        .unwrap();
    }
    drop(tx);
    let mut answered = 0;
    while let Some(answer) = stream.message().await.expect("no answer dropped") {
        assert_eq!(answer.outcome(), Outcome::Unique);
        answered += 1;
    }
    assert_eq!(answered, 5);
    drop((client, health));
    let exit = tokio::task::spawn_blocking(move || child.wait())
        .await
        .unwrap()
        .expect("server exits");
    assert!(exit.success(), "exit status {exit:?}");
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(rest.iter().any(|l| l.contains("draining")), "{rest:?}");
}

#[test]
fn bad_flags_are_a_usage_error() {
    let output = Command::new(env!("CARGO_BIN_EXE_sudoku-server"))
        .arg("--listen=nowhere")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("invalid value 'nowhere'"));
}
