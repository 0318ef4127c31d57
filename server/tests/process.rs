//! The `sudoku-server` binary as an operator runs it: flags, env, SIGTERM drain, exit 0.

mod support;

use std::io::{BufRead, BufReader, Lines};
use std::process::{Child, ChildStderr, Command, Stdio};

use sudoku_proto::pb::sudoku_client::SudokuClient;
use sudoku_proto::pb::{Outcome, SolveRequest};
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::{HealthCheckRequest, HealthCheckResponse, health_client::HealthClient};

/// Reserves a free loopback port (the server binds it right after).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// A server with a 5 s grace period and JSON logs, past its first log line ("serving").
fn draining_server(port: u16) -> (Child, Lines<BufReader<ChildStderr>>) {
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
        // Not this test's stdout: a server left running by a failed test held cargo's pipe
        // open, and the run hung instead of failing.
        .stdout(Stdio::null())
        .spawn()
        .expect("server starts");
    let stderr = child.stderr.take().expect("stderr piped");
    let mut lines = BufReader::new(stderr).lines();
    let first = lines.next().expect("a log line").expect("utf-8 log");
    assert!(
        first.contains("\"serving\""),
        "first log line is JSON saying it serves: {first}"
    );
    (child, lines)
}

/// A health watch on `url`, past its first status (SERVING).
async fn serving_watch(url: String) -> tonic::Streaming<HealthCheckResponse> {
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
    watch
}

#[tokio::test]
async fn sigterm_drains_and_exits_zero() {
    let port = free_port();
    let (mut child, lines) = draining_server(port);

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

    let mut watch = serving_watch(url).await;
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
    drop(client);
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

/// Starts the server binary on a free port with `args`; returns it, its port and its log lines.
fn spawn_server(
    args: &[&str],
) -> (
    std::process::Child,
    u16,
    std::io::Lines<BufReader<std::process::ChildStderr>>,
) {
    let port = free_port();
    let mut command = Command::new(env!("CARGO_BIN_EXE_sudoku-server"));
    if !args.contains(&"--metrics-listen") {
        command.args(["--metrics-listen", "off"]);
    }
    let mut child = command
        .args(args)
        .env("SUDOKU_LISTEN", format!("127.0.0.1:{port}"))
        .env_remove("NO_COLOR")
        .stderr(Stdio::piped())
        // Not this test's stdout: a server left running by a failed test held cargo's pipe
        // open, and the run hung instead of failing.
        .stdout(Stdio::null())
        .spawn()
        .expect("server starts");
    let stderr = child.stderr.take().expect("stderr piped");
    let mut lines = BufReader::new(stderr).lines();
    let first = lines.next().expect("a log line").expect("utf-8 log");
    assert!(first.contains("serving"), "{first}");
    (child, port, lines)
}

/// The metrics the server on `port` serves.
async fn metrics(port: u16) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("the metrics port answers");
    stream
        .write_all(b"GET /metrics HTTP/1.0\r\nHost: test\r\n\r\n")
        .await
        .expect("sent");
    let mut body = String::new();
    stream.read_to_string(&mut body).await.expect("read");
    body
}

#[tokio::test]
async fn a_second_signal_exits_without_waiting_for_the_drain() {
    let metrics_port = free_port();
    let metrics_at = format!("127.0.0.1:{metrics_port}");
    let (mut child, port, mut lines) = spawn_server(&[
        "--grace-ms",
        "30000",
        "--max-solve-ms",
        "60000",
        "--metrics-listen",
        &metrics_at,
    ]);
    let mut client = SudokuClient::connect(format!("http://127.0.0.1:{port}"))
        .await
        .expect("connects");
    // A call that would hold the drain for the whole grace period.
    let endless = SolveRequest {
        puzzle: Some(sudoku_proto::grid_to_pb(&solver_core::Grid::empty(
            solver_core::Shape::CLASSIC,
        ))),
        options: Some(sudoku_proto::pb::SolveOptions {
            algorithm: sudoku_proto::pb::Algorithm::Backtracking.into(),
            max_solutions: u32::MAX,
            max_guesses: 0,
        }),
        ..Default::default()
    };
    let call = tokio::spawn(async move { client.solve(endless).await });
    // The drain has the call to wait for only once the server has it: a signal before that
    // would find nothing in flight, and the server would exit 0 at once.
    let mut in_flight = false;
    for _ in 0..200 {
        if metrics(metrics_port)
            .await
            .contains("sudoku_puzzles_in_flight 1")
        {
            in_flight = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(in_flight, "the endless call reached the solver threads");
    let pid = child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success()
    );
    let draining = lines
        .by_ref()
        .map_while(Result::ok)
        .find(|l| l.contains("draining"));
    assert!(draining.is_some(), "the first signal starts the drain");
    let start = std::time::Instant::now();
    assert!(
        Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success()
    );
    let exit = tokio::task::spawn_blocking(move || child.wait())
        .await
        .unwrap()
        .expect("server exits");
    // Well under the 30 s grace, with room for a loaded machine.
    assert!(
        start.elapsed() < std::time::Duration::from_secs(15),
        "exited {:?} after the second signal",
        start.elapsed()
    );
    assert_eq!(exit.code(), Some(130), "{exit:?}");
    call.abort();
}

#[test]
fn logs_carry_no_colour_codes_off_a_terminal() {
    let port = free_port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_sudoku-server"))
        .args(["--metrics-listen", "off", "--log-format", "text"])
        .env("SUDOKU_LISTEN", format!("127.0.0.1:{port}"))
        .env_remove("NO_COLOR")
        .stderr(Stdio::piped())
        // Not this test's stdout: a server left running by a failed test held cargo's pipe
        // open, and the run hung instead of failing.
        .stdout(Stdio::null())
        .spawn()
        .expect("server starts");
    let stderr = child.stderr.take().expect("stderr piped");
    let first = BufReader::new(stderr)
        .lines()
        .next()
        .expect("a log line")
        .expect("utf-8");
    let _ = child.kill();
    let _ = child.wait();
    assert!(first.contains("serving"), "{first}");
    assert!(
        !first.contains('\u{1b}'),
        "ANSI codes in a piped log: {first:?}"
    );
}

#[test]
fn a_grid_side_beyond_the_solver_is_refused_at_start() {
    let output = Command::new(env!("CARGO_BIN_EXE_sudoku-server"))
        .args(["--max-grid-side", "36", "--metrics-listen", "off"])
        .env("SUDOKU_LISTEN", "127.0.0.1:0")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--max-grid-side")
            && stderr.contains("36")
            && stderr.contains("from 4 to 35"),
        "{stderr}"
    );
}

/// A `/proc/<pid>/status` field in KiB.
#[cfg(target_os = "linux")]
fn proc_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
        .unwrap_or_else(|| panic!("{field} in /proc/{pid}/status"))
}

/// Reads the attacked server's peak RSS, says what the attack was, and stops the server:
/// its idle RSS and its peak, in MiB.
#[cfg(target_os = "linux")]
fn stop_attacked(mut child: Child, idle: u64, attack: String) -> (u64, u64) {
    let peak = proc_kib(child.id(), "VmHWM:");
    eprintln!(
        "{attack}; server RSS idle {} MiB, peak {} MiB",
        idle / 1024,
        peak / 1024
    );
    let _ = child.kill();
    let _ = child.wait();
    (idle / 1024, peak / 1024)
}

/// A 9x9 puzzle with one solution.
#[cfg(target_os = "linux")]
const CLASSIC: &str =
    "3.65.84..52........87....31..3.1..8.9..863..5.5..9.6..13....25........74..52.63..";

/// A server to attack, with its log (kept open while it runs) and its idle RSS in KiB.
#[cfg(target_os = "linux")]
struct Attacked {
    child: Child,
    _log: Lines<BufReader<ChildStderr>>,
    client: SudokuClient<tonic::transport::Channel>,
    port: u16,
    idle: u64,
}

/// A server to attack, and a client that sends it messages of up to 8 MiB.
#[cfg(target_os = "linux")]
async fn attacked() -> Attacked {
    let (child, port, log) = spawn_server(&[]);
    let client = SudokuClient::connect(format!("http://127.0.0.1:{port}"))
        .await
        .expect("connects")
        .max_encoding_message_size(8 << 20);
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let idle = proc_kib(child.id(), "VmRSS:");
    Attacked {
        child,
        _log: log,
        client,
        port,
        idle,
    }
}

/// One stream that never reads its answers sends `count` requests with a 4 MB `id` (issue
/// 10, item 3); returns the server's idle RSS and its peak, in MiB.
#[cfg(target_os = "linux")]
async fn big_id_attack(count: usize) -> (u64, u64) {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tokio_stream::StreamExt;
    let Attacked {
        child,
        _log,
        mut client,
        idle,
        ..
    } = attacked().await;
    let puzzle: solver_core::Grid = CLASSIC.parse().unwrap();
    let id = "x".repeat(4_000_000);
    let sent = Arc::new(AtomicUsize::new(0));
    let counter = sent.clone();
    let requests = tokio_stream::iter(0..count).map(move |_| {
        counter.fetch_add(1, Ordering::Relaxed);
        SolveRequest {
            id: id.clone(),
            puzzle: Some(sudoku_proto::grid_to_pb(&puzzle)),
            options: None,
        }
    });
    let answers = client
        .batch_solve(requests)
        .await
        .expect("the stream opens");
    let start = std::time::Instant::now();
    while sent.load(Ordering::Relaxed) < count && start.elapsed().as_secs() < 20 {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    drop(answers);
    stop_attacked(
        child,
        idle,
        format!(
            "big-id attack: {} of {count} requests of 4 MB sent in {:?}",
            sent.load(Ordering::Relaxed),
            start.elapsed()
        ),
    )
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn big_ids_on_a_stream_that_never_reads_keep_memory_bounded() {
    let (idle, peak) = big_id_attack(100).await;
    assert_rss_within(idle, peak, 256, "peak RSS");
}

#[cfg(target_os = "linux")]
#[tokio::test]
#[ignore = "sends 2 GB; the CI version above sends 400 MB"]
async fn big_ids_at_the_issues_size() {
    let (idle, peak) = big_id_attack(500).await;
    assert!(peak - idle < 256, "idle {idle} MiB, peak {peak} MiB");
}

/// The most puzzles a default server's batch stream takes in one message (its window is
/// 2,048; 2,000 puzzles of 9x9 in nibbles, or of 4x4 all refused, are held as under its
/// 1 MiB share).
#[cfg(target_os = "linux")]
const LARGEST: usize = 2000;

/// Streams that never read their answers each send one packed message of the most easy
/// puzzles a stream takes, in nibbles; returns the server's idle RSS and its peak, in MiB.
#[cfg(target_os = "linux")]
async fn packed_attack(streams: usize) -> (u64, u64) {
    let puzzle: solver_core::Grid = CLASSIC.parse().unwrap();
    let mut one = Vec::new();
    sudoku_proto::nibbles::pack(puzzle.cells(), &mut one);
    let message = sudoku_proto::pb::PackedPuzzles {
        nibbles: one.repeat(LARGEST).into(),
        ..Default::default()
    };
    unread_answers_attack(streams, message, "packed attack: one largest message each").await
}

/// Streams that never read their answers each send `message` once; returns the server's idle
/// RSS and its peak, in MiB, having said what the attack (`what`) was.
#[cfg(target_os = "linux")]
async fn unread_answers_attack(
    streams: usize,
    message: sudoku_proto::pb::PackedPuzzles,
    what: &str,
) -> (u64, u64) {
    let Attacked {
        child,
        _log,
        client,
        port,
        idle,
    } = attacked().await;
    let mut held = Vec::new();
    let mut connection = client;
    for stream in 0..streams {
        // A connection of its own for every 32 streams: the server takes 64 at a time on one.
        if stream > 0 && stream % 32 == 0 {
            connection = SudokuClient::connect(format!("http://127.0.0.1:{port}"))
                .await
                .expect("connects")
                .max_encoding_message_size(8 << 20);
        }
        let mut client = connection.clone();
        let answers = client
            .batch_solve_packed(tokio_stream::iter([message.clone()]))
            .await
            .expect("the stream opens");
        held.push(answers);
    }
    // Long enough to solve every message the budgets let in, many times over.
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    drop(held);
    stop_attacked(
        child,
        idle,
        format!("{what} ({streams} streams), answers never read"),
    )
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn packed_messages_whose_answers_are_never_read_keep_memory_bounded() {
    let (idle, peak) = packed_attack(16).await;
    assert_rss_within(idle, peak, 192, "peak RSS");
}

/// Streams that never read their answers each send one packed message of the most 4x4
/// puzzles a stream takes, every one refused (a digit twice), each with its reason in the
/// answer; returns the server's idle RSS and its peak, in MiB.
#[cfg(target_os = "linux")]
async fn refused_small_grids_attack(streams: usize) -> (u64, u64) {
    // Row 1 holds 1 twice; two cells a byte, 8 bytes a puzzle.
    let one = [0x11, 0, 0, 0, 0, 0, 0, 0];
    let message = sudoku_proto::pb::PackedPuzzles {
        box_rows: 2,
        box_cols: 2,
        nibbles: one.repeat(LARGEST).into(),
        ..Default::default()
    };
    let what = "refused 4x4 attack: one largest message each";
    unread_answers_attack(streams, message, what).await
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn refused_small_grids_keep_memory_bounded() {
    let (idle, peak) = refused_small_grids_attack(16).await;
    assert_rss_within(idle, peak, 192, "peak RSS");
}

// More streams than the batch room holds: those past it wait at the door, holding nothing,
// then end RESOURCE_EXHAUSTED.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn many_streams_waiting_with_large_messages_keep_memory_bounded() {
    let (idle, peak) = packed_attack(192).await;
    assert_rss_within(idle, peak, 192, "peak RSS");
}

/// Batch streams that each send one packed message of the most puzzles a stream takes, each
/// refused at once (two 1s in a row), read its whole answer, and stay open; returns the server's idle RSS, its RSS once
/// every stream has its answer, in MiB, and how many streams were refused or closed to make
/// room for others.
#[cfg(target_os = "linux")]
async fn kept_buffers_attack(streams: usize) -> (u64, u64, usize) {
    let Attacked {
        child,
        _log,
        client,
        port,
        idle,
    } = attacked().await;
    let mut one = [0u8; 41];
    one[0] = 0x11;
    let message = sudoku_proto::pb::PackedPuzzles {
        box_rows: 3,
        box_cols: 3,
        nibbles: one.repeat(LARGEST).into(),
        ..Default::default()
    };
    let mut open = Vec::new();
    let mut refused = 0;
    let mut connection = client;
    for stream in 0..streams {
        if stream > 0 && stream % 32 == 0 {
            connection = SudokuClient::connect(format!("http://127.0.0.1:{port}"))
                .await
                .expect("connects")
                .max_encoding_message_size(8 << 20)
                .max_decoding_message_size(64 << 20);
        }
        let mut client = connection.clone().max_decoding_message_size(64 << 20);
        let (tx, rx) = tokio::sync::mpsc::channel(1);
        tx.send(message.clone()).await.expect("queued");
        let mut answers = client
            .batch_solve_packed(tokio_stream::wrappers::ReceiverStream::new(rx))
            .await
            .expect("the stream opens")
            .into_inner();
        // The answer comes in pieces of at most twice the request, each puzzle refused once.
        let (mut outcomes, mut errors, mut pieces) = (0, 0, 0);
        let mut answered = vec![false; LARGEST];
        while outcomes < LARGEST {
            match answers.message().await {
                Ok(Some(answer)) => {
                    let size = prost::Message::encoded_len(&answer);
                    assert!(size <= 1 << 20, "an answer message of {size} bytes");
                    let first = answer.first as usize;
                    let run = &mut answered[first..first + answer.outcomes.len()];
                    assert!(
                        run.iter().all(|&a| !a),
                        "puzzles from {first} answered twice"
                    );
                    run.fill(true);
                    outcomes += answer.outcomes.len();
                    errors += answer.errors.len();
                    pieces += 1;
                }
                Ok(None) => panic!("the stream ended without an answer"),
                Err(status) => {
                    assert_refused_for_kept_room(&status);
                    refused += 1;
                    break;
                }
            }
        }
        if stream == 0 {
            eprintln!("one answer: {pieces} messages");
            assert_eq!((outcomes, errors), (LARGEST, LARGEST));
        }
        open.push((tx, answers));
    }
    let what = format!("kept buffers: {streams} open streams, each answered one largest message");
    end_attack(child, idle, open, refused, &what).await
}

/// Ends an attack that left `open` streams on `child`, `refused` more turned away: prints
/// `what`, with the server's RSS, idle and now, and the streams closed since to make room for
/// others; stops the server. Returns the RSS figures in MiB and the streams refused or closed.
#[cfg(target_os = "linux")]
async fn end_attack<S, T>(
    mut child: Child,
    idle: u64,
    mut open: Vec<(S, tonic::Streaming<T>)>,
    refused: usize,
    what: &str,
) -> (u64, u64, usize) {
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let now = proc_kib(child.id(), "VmRSS:");
    let closed = closed_to_make_room(&mut open);
    eprintln!(
        "{what} ({refused} refused, {closed} closed later); server RSS idle {} MiB, now {} MiB",
        idle / 1024,
        now / 1024
    );
    drop(open);
    let _ = child.kill();
    let _ = child.wait();
    (idle / 1024, now / 1024, refused + closed)
}

/// Asserts that `status` refuses a stream for want of room in `--memory-budget`.
#[cfg(target_os = "linux")]
fn assert_refused_for_kept_room(status: &tonic::Status) {
    assert_eq!(status.code(), tonic::Code::ResourceExhausted, "{status:?}");
    let message = status.message();
    assert!(message.contains("--memory-budget"), "{message}");
}

/// Asserts that `rss` (what: "RSS" or "peak RSS") is less than `limit` MiB above `idle`.
#[cfg(target_os = "linux")]
fn assert_rss_within(idle: u64, rss: u64, limit: u64, what: &str) {
    assert!(
        rss - idle < limit,
        "{what} {rss} MiB is more than {limit} MiB above idle ({idle} MiB)"
    );
}

/// How many of the `open` streams the server has closed since, to make room for others'
/// buffers (UNAVAILABLE naming `--memory-budget`).
#[cfg(target_os = "linux")]
fn closed_to_make_room<S, T>(open: &mut [(S, tonic::Streaming<T>)]) -> usize {
    use futures::FutureExt;
    let mut closed = 0;
    for (_, answers) in open {
        if let Some(Err(status)) = answers.message().now_or_never() {
            assert_eq!(status.code(), tonic::Code::Unavailable, "{status:?}");
            assert!(
                status.message().contains("--memory-budget"),
                "{}",
                status.message()
            );
            closed += 1;
        }
    }
    closed
}

// tonic keeps each stream's request and response buffers at the size of the largest message
// through them, for the stream's life: the batch room counts them with each stream's share.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn open_streams_do_not_keep_large_buffers_beyond_the_budget() {
    let (idle, now, turned_away) = kept_buffers_attack(16).await;
    assert_eq!(
        turned_away, 0,
        "16 streams take about 21 MiB, within the 192 MiB batch room"
    );
    assert_rss_within(idle, now, 160, "RSS");
    // About 1.3 MiB a stream: some 148 fit the batch room.
    let (idle, now, turned_away) = kept_buffers_attack(192).await;
    assert!(
        turned_away >= 32,
        "only {turned_away} of 192 streams refused or closed"
    );
    assert_rss_within(idle, now, 224, "RSS");
}

/// A BatchSolve request as a client with fields this server does not know might send it.
#[derive(Clone, PartialEq, prost::Message)]
struct PaddedSolve {
    #[prost(message, optional, tag = "2")]
    puzzle: Option<sudoku_proto::pb::Grid>,
    #[prost(bytes = "vec", tag = "15")]
    pad: Vec<u8>,
}

/// `streams` BatchSolve streams (32 a connection), each sending one gzip message of one
/// puzzle and 4 MB of an unknown field (about 4 KB on the wire), reading its answer and
/// staying open; returns the server's idle RSS and its RSS after, in MiB, and how many
/// streams were refused or closed to make room for others.
#[cfg(target_os = "linux")]
async fn padded_messages_attack(streams: usize) -> (u64, u64, usize) {
    let Attacked {
        child,
        _log,
        port,
        idle,
        ..
    } = attacked().await;
    let puzzle = sudoku_proto::grid_to_pb(&CLASSIC.parse().expect("a puzzle"));
    let path = http::uri::PathAndQuery::from_static("/sudoku.v1.Sudoku/BatchSolve");
    let (mut open, mut refused, mut channel) = (Vec::new(), 0, None);
    for stream in 0..streams {
        if stream % 32 == 0 {
            let endpoint =
                tonic::transport::Endpoint::from_shared(format!("http://127.0.0.1:{port}"));
            channel = Some(
                endpoint
                    .expect("an address")
                    .connect()
                    .await
                    .expect("connects"),
            );
        }
        let channel = channel.clone().expect("a connection");
        let mut grpc = tonic::client::Grpc::new(channel)
            .max_encoding_message_size(8 << 20)
            .send_compressed(tonic::codec::CompressionEncoding::Gzip);
        grpc.ready().await.expect("ready");
        let (tx, rx) = tokio::sync::mpsc::channel(1);
        let padded = PaddedSolve {
            puzzle: Some(puzzle.clone()),
            pad: vec![b'x'; 4_000_000],
        };
        tx.send(padded).await.expect("queued");
        let codec =
            tonic_prost::ProstCodec::<PaddedSolve, sudoku_proto::pb::SolveResponse>::default();
        let requests = tonic::Request::new(tokio_stream::wrappers::ReceiverStream::new(rx));
        let mut answers = grpc
            .streaming(requests, path.clone(), codec)
            .await
            .expect("the stream opens")
            .into_inner();
        match answers.message().await {
            Ok(Some(answer)) => assert_eq!(answer.outcome, Outcome::Unique as i32),
            Ok(None) => panic!("the stream ended without an answer"),
            Err(status) => {
                // A 4 MB BatchSolve message is more than the method takes: refused as it
                // expands, before its stream's room grows for it.
                if status.code() == tonic::Code::OutOfRange {
                    assert!(
                        status.message().contains("bytes BatchSolve takes")
                            || status.message().contains("could not be read"),
                        "{status:?}"
                    );
                } else {
                    assert_refused_for_kept_room(&status);
                }
                refused += 1;
            }
        }
        open.push((tx, answers));
    }
    let what =
        format!("padded messages: {streams} open streams, each sent one puzzle padded to 4 MB");
    end_attack(child, idle, open, refused, &what).await
}

// A message is charged as tonic buffers it, not as it decodes: prost drops unknown fields, so
// before, 64 such streams kept 260 MiB charged a few KB, and 256 kept 995 MiB.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn padding_a_message_with_unknown_fields_is_charged_too() {
    let (idle, now, turned_away) = padded_messages_attack(64).await;
    assert!(
        turned_away >= 24,
        "only {turned_away} of 64 streams refused or closed"
    );
    assert_rss_within(idle, now, 192, "RSS");
}

/// Calls to `path` on one connection, each sending one gzip message of about 4 KB that
/// expands to 4 MB, and never ending its body; returns the server's idle RSS and its peak, in
/// MiB.
#[cfg(target_os = "linux")]
async fn expanding_bodies_attack(path: &str, calls: usize) -> (u64, u64) {
    use bytes::Bytes;
    use std::io::Write;
    let Attacked {
        child,
        _log,
        port,
        idle,
        ..
    } = attacked().await;
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    // A string field (field 1, either message) of 4 MB of one letter.
    let mut plain = vec![0x0a];
    let mut len = 4_000_000u32;
    while len >= 0x80 {
        plain.push((len as u8) | 0x80);
        len >>= 7;
    }
    plain.push(len as u8);
    plain.resize(plain.len() + 4_000_000, b'x');
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gzip.write_all(&plain).unwrap();
    let gzip = gzip.finish().unwrap();
    let mut message = vec![1];
    message.extend_from_slice(&u32::try_from(gzip.len()).unwrap().to_be_bytes());
    message.extend_from_slice(&gzip);
    let message = Bytes::from(message);
    let mut open = Vec::new();
    for call in 0..calls {
        if call % 32 == 0 {
            open.push((support::raw::connect(addr, 64 << 10).await, Vec::new()));
        }
        let (connection, calls) = open.last_mut().expect("a connection");
        let mut send = connection.send.clone().ready().await.expect("a stream");
        let mut head = support::raw::grpc_head_at(addr, path);
        head.headers_mut()
            .insert("grpc-encoding", http::HeaderValue::from_static("gzip"));
        let (response, mut body) = send.send_request(head, false).expect("the call opens");
        body.send_data(message.clone(), false).expect("sent");
        calls.push((response, body));
    }
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    drop(open);
    let attack = format!(
        "expanding bodies: {calls} calls to {path}, each a {} byte gzip message of 4 MB, \
         bodies never ended",
        gzip.len()
    );
    stop_attacked(child, idle, attack)
}

// Regression (review): what a compressed message expanded to was charged nowhere, and tonic
// holds a one-message call's decoded request until its body ends: 128 health checks of a
// 4 KB gzip message each held 989 MiB for the receive timeout, 64 Solve calls 498 MiB. Health
// and reflection now take messages of at most 64 KiB, and a one-message call's expanded
// request is charged to the receive budget until its body ends.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn compressed_messages_that_expand_far_keep_memory_bounded() {
    for (path, calls) in [
        ("/grpc.health.v1.Health/Check", 128),
        ("/sudoku.v1.Sudoku/Solve", 64),
    ] {
        let (idle, peak) = expanding_bodies_attack(path, calls).await;
        assert!(
            peak - idle < 160,
            "{path}: peak RSS {peak} MiB is more than 160 MiB above idle ({idle} MiB)"
        );
    }
}

/// Unary Solve calls on one connection, each announcing a 4 MB message (gzip, where
/// `compressed`) and sending all of it but the last bytes as fast as flow control lets it;
/// returns the server's idle RSS and its peak, in MiB.
#[cfg(target_os = "linux")]
async fn unfinished_bodies_attack(streams: usize, compressed: bool) -> (u64, u64) {
    use bytes::Bytes;
    let Attacked {
        child,
        _log,
        port,
        idle,
        ..
    } = attacked().await;
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let connection = support::raw::connect(addr, 64 << 10).await;
    let len: usize = 4_000_000;
    let mut senders = Vec::new();
    for _ in 0..streams {
        let mut send = connection.send.clone().ready().await.expect("a stream");
        let mut head = support::raw::grpc_head(addr, "Solve");
        if compressed {
            head.headers_mut()
                .insert("grpc-encoding", http::HeaderValue::from_static("gzip"));
        }
        let (_response, mut body) = send.send_request(head, false).expect("the call opens");
        senders.push(tokio::spawn(async move {
            let mut first = vec![u8::from(compressed)];
            first.extend_from_slice(&u32::try_from(len).unwrap().to_be_bytes());
            support::raw::send_paced(&mut body, Bytes::from(first)).await;
            let chunk = Bytes::from(vec![b'x'; 16 << 10]);
            let mut sent = 0;
            while sent + chunk.len() < len {
                if !support::raw::send_paced(&mut body, chunk.clone()).await {
                    break;
                }
                sent += chunk.len();
            }
            // Never the last bytes: the call stays open, holding what it sent.
            std::future::pending::<()>().await;
            drop((body, _response));
        }));
    }
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    for sender in senders {
        sender.abort();
    }
    drop(connection);
    let attack = format!(
        "unfinished-bodies attack: {streams} Solve calls of 4 MB less a few bytes on one \
         connection (compressed: {compressed})"
    );
    stop_attacked(child, idle, attack)
}

// Regression (review): 64 such calls took the server from 6 MiB to a 254 MiB peak in 3 s,
// with --max-concurrent-requests 1 too (gzip: 549 MB), as tonic buffered every body before any
// handler ran. Now a message holds room in the 64 MiB receive budget from its header on
// (twice its size; compressed, its size and twice the largest message), and the others wait
// with their headers held back: 49 MiB plain.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn unfinished_unary_bodies_keep_memory_bounded() {
    for compressed in [false, true] {
        let (idle, peak) = unfinished_bodies_attack(64, compressed).await;
        assert!(
            peak - idle < 128,
            "compressed {compressed}: peak RSS {peak} MiB is more than 128 MiB above idle \
             ({idle} MiB)"
        );
    }
}
