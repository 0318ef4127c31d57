//! gRPC-Web over plain HTTP/1.1, as a browser's client sends it, with `curl --http1.1` (and
//! over HTTP/2): unary and server-streaming calls in binary and text form, refusals from the same door as gRPC's,
//! and CORS off unless origins are named.

mod support;

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use prost::Message;
use solver_core::Grid;
use sudoku_proto::pb;
use sudoku_server::Config;

/// What a gRPC-Web answer holds: its messages and its trailers (in the body's last frame, or
/// in the headers of a trailers-only answer).
struct Answer {
    messages: Vec<Vec<u8>>,
    trailers: String,
}

impl Answer {
    /// The `grpc-status` the trailers carry.
    fn status(&self) -> Option<i32> {
        self.field("grpc-status")?.parse().ok()
    }

    /// A trailer's value.
    fn field(&self, name: &str) -> Option<&str> {
        self.trailers.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim()
                .eq_ignore_ascii_case(name)
                .then_some(value.trim())
        })
    }
}

/// The frames of a gRPC-Web body: messages (flag 0) and the trailers frame (flag 0x80).
fn frames(mut body: &[u8]) -> Answer {
    let mut answer = Answer {
        messages: Vec::new(),
        trailers: String::new(),
    };
    while body.len() >= 5 {
        let len = u32::from_be_bytes([body[1], body[2], body[3], body[4]]) as usize;
        let (flag, content) = (body[0], &body[5..5 + len]);
        if flag & 0x80 != 0 {
            answer.trailers = String::from_utf8_lossy(content).into_owned();
        } else {
            answer.messages.push(content.to_vec());
        }
        body = &body[5 + len..];
    }
    assert!(body.is_empty(), "a frame cut short: {body:?}");
    answer
}

/// A message in gRPC's framing.
fn framed(message: &impl Message) -> Vec<u8> {
    let bytes = message.encode_to_vec();
    let mut out = vec![0];
    out.extend_from_slice(&u32::try_from(bytes.len()).expect("small").to_be_bytes());
    out.extend_from_slice(&bytes);
    out
}

/// `curl` with `args`, its stdout (HTTP/1.1 unless `args` say otherwise). Fails loudly where
/// curl is missing: the suite needs it.
fn curl(args: &[&str]) -> Vec<u8> {
    let http1 = ["--http1.1"].into_iter().filter(|_| !args.contains(&HTTP2));
    let output = Command::new("curl")
        .args(http1)
        .args(["--silent", "--show-error", "--max-time", "30"])
        .args(args)
        .output()
        .expect("curl runs (this test needs curl on the PATH)");
    assert!(
        output.status.success(),
        "curl {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

/// curl's flag for HTTP/2 on a plaintext port.
const HTTP2: &str = "--http2-prior-knowledge";

/// Calls `method` over gRPC-Web with `request`, in `form` (`proto`, `text`, or `plain` for
/// binary under the bare `application/grpc-web`), over HTTP/1.1.
async fn call(addr: std::net::SocketAddr, method: &str, request: Vec<u8>, form: &str) -> Answer {
    call_over("--http1.1", addr, method, request, form).await
}

/// [`call`] over `http`: `--http1.1` or [`HTTP2`].
async fn call_over(
    http: &'static str,
    addr: std::net::SocketAddr,
    method: &str,
    request: Vec<u8>,
    form: &str,
) -> Answer {
    let url = format!("http://{addr}/{method}");
    let kind = match form {
        "text" => "application/grpc-web-text",
        "plain" => "application/grpc-web",
        _ => "application/grpc-web+proto",
    };
    let content_type = format!("content-type: {kind}");
    let body = match form {
        "text" => STANDARD.encode(&request).into_bytes(),
        _ => request,
    };
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, Ordering::Relaxed);
    let file = std::env::temp_dir().join(format!("grpc-web-{}-{n}.bin", std::process::id()));
    std::fs::write(&file, body).expect("request written");
    let data = format!("@{}", file.display());
    let accept = format!("accept: {kind}");
    let args = [
        http,
        "-D",
        "-",
        "-X",
        "POST",
        "-H",
        content_type.as_str(),
        "-H",
        accept.as_str(),
        "-H",
        "x-grpc-web: 1",
        "--data-binary",
        data.as_str(),
        url.as_str(),
    ]
    .map(str::to_owned);
    let out = tokio::task::spawn_blocking(move || {
        curl(&args.iter().map(String::as_str).collect::<Vec<_>>())
    })
    .await
    .expect("curl ran");
    let _ = std::fs::remove_file(&file);
    let split = out
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("an HTTP head");
    let (head, body) = (String::from_utf8_lossy(&out[..split]), &out[split + 4..]);
    let version = if http == HTTP2 {
        "HTTP/2 200"
    } else {
        "HTTP/1.1 200"
    };
    assert!(head.starts_with(version), "{head}");
    let body = match form {
        // Each base64 run is padded on its own (a message, then the trailers).
        "text" => decode_runs(body),
        _ => body.to_vec(),
    };
    let mut answer = frames(&body);
    if answer.trailers.is_empty() {
        answer.trailers = head.into_owned();
    }
    answer
}

/// Base64 that may be several padded runs one after the other.
fn decode_runs(text: &[u8]) -> Vec<u8> {
    let text = std::str::from_utf8(text).expect("base64 is ASCII");
    let mut out = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        // A run ends after its padding, or at the end.
        let end = rest
            .find('=')
            .map(|i| i + rest[i..].chars().take_while(|&c| c == '=').count())
            .unwrap_or(rest.len());
        out.extend(STANDARD.decode(&rest[..end]).expect("valid base64"));
        rest = &rest[end..];
    }
    out
}

fn solve_request(puzzle: &str) -> pb::SolveRequest {
    support::request("web", &support::grid(puzzle), pb::Algorithm::Unspecified, 1)
}

#[tokio::test]
async fn a_solve_is_answered_in_every_form_over_http1_and_http2() {
    let server = sudoku_server::start(Config::embedded())
        .await
        .expect("starts");
    for form in ["proto", "text", "plain"] {
        let request = framed(&solve_request(support::HARD));
        let answer = call(server.addr(), "sudoku.v1.Sudoku/Solve", request, form).await;
        assert_eq!(answer.status(), Some(0), "{form}: {}", answer.trailers);
        assert_eq!(answer.messages.len(), 1, "{form}");
        let response = pb::SolveResponse::decode(&answer.messages[0][..]).expect("a response");
        support::assert_solved(&support::grid(support::HARD), &response);
    }
    // And over HTTP/2, where a browser's connection is one.
    let request = framed(&solve_request(support::HARD));
    let answer = call_over(
        HTTP2,
        server.addr(),
        "sudoku.v1.Sudoku/Solve",
        request,
        "proto",
    )
    .await;
    assert_eq!(answer.status(), Some(0), "HTTP/2: {}", answer.trailers);
    let response = pb::SolveResponse::decode(&answer.messages[0][..]).expect("a response");
    support::assert_solved(&support::grid(support::HARD), &response);
    server.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn generate_streams_its_puzzles_over_http1_and_http2() {
    let server = sudoku_server::start(Config::embedded())
        .await
        .expect("starts");
    let request = pb::GenerateRequest {
        seed: 7,
        count: 3,
        ..pb::GenerateRequest::default()
    };
    let mut streamed = Vec::new();
    for form in ["proto", "text"] {
        let answer = call(
            server.addr(),
            "sudoku.v1.Puzzles/Generate",
            framed(&request),
            form,
        )
        .await;
        assert_eq!(answer.status(), Some(0), "{form}: {}", answer.trailers);
        assert_eq!(answer.messages.len(), 3, "{form}: three puzzles streamed");
        for message in &answer.messages {
            let made = pb::GeneratedPuzzle::decode(&message[..]).expect("a puzzle");
            let puzzle = wire(made.puzzle.as_ref());
            let solution = wire(made.solution.as_ref());
            assert!(solution.is_solution_of(&puzzle), "{form}");
            let options = solver_core::Options::default().max_solutions(2);
            let report = solver_core::solve(&puzzle, &options).expect("solvable");
            assert!(
                matches!(report.outcome, solver_core::Outcome::Unique(_)),
                "{form}: a unique solution"
            );
        }
        streamed.push(answer.messages);
    }
    assert_eq!(streamed[0], streamed[1], "the same seed, the same puzzles");
    // The same stream over HTTP/2.
    let answer = call_over(
        HTTP2,
        server.addr(),
        "sudoku.v1.Puzzles/Generate",
        framed(&request),
        "proto",
    )
    .await;
    assert_eq!(answer.status(), Some(0), "HTTP/2: {}", answer.trailers);
    assert_eq!(answer.messages, streamed[0], "HTTP/2: the same puzzles");
    server.shutdown().await.expect("clean shutdown");
}

fn wire(grid: Option<&pb::Grid>) -> Grid {
    sudoku_proto::grid_from_pb(grid.expect("a grid")).expect("a valid grid")
}

#[tokio::test]
async fn refusals_come_from_the_same_door_as_grpc() {
    let server = sudoku_server::start(Config::embedded())
        .await
        .expect("starts");
    // Two 3s in row 1: INVALID_ARGUMENT naming where.
    let mut bad = solve_request(support::CLASSIC);
    let cells = &mut bad.puzzle.as_mut().expect("a grid").cells;
    assert_eq!(cells[0], 3);
    cells[1] = 3;
    let answer = call(
        server.addr(),
        "sudoku.v1.Sudoku/Solve",
        framed(&bad),
        "proto",
    )
    .await;
    assert_eq!(answer.status(), Some(3), "{}", answer.trailers);
    let message =
        support::raw::percent_decode(answer.field("grpc-message").unwrap_or_default().as_bytes());
    assert!(
        message.contains("row 1, column 2"),
        "names the cell: {message}"
    );
    // A Solve message past the 64 KiB a Solve takes, refused by its header.
    let mut padded = solve_request(support::CLASSIC);
    padded.id = "x".repeat(70 << 10);
    // Refused by its prefix alone: the client sends no more than that.
    let framed = framed(&padded);
    let head = http1_prefix_only(server.addr(), "sudoku.v1.Sudoku/Solve", &framed).await;
    let answer = Answer {
        messages: Vec::new(),
        trailers: head,
    };
    assert_eq!(
        answer.status(),
        Some(11),
        "OUT_OF_RANGE: {}",
        answer.trailers
    );
    server.shutdown().await.expect("clean shutdown");
}

/// The head of the answer to a gRPC-Web call over HTTP/1.1 that sends `message`'s prefix
/// and no more (its length says the rest is coming).
async fn http1_prefix_only(addr: std::net::SocketAddr, method: &str, message: &[u8]) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut tcp = tokio::net::TcpStream::connect(addr)
        .await
        .expect("connects");
    let head = format!(
        "POST /{method} HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/grpc-web+proto\r\n\
         x-grpc-web: 1\r\ncontent-length: {}\r\n\r\n",
        message.len()
    );
    tcp.write_all(head.as_bytes()).await.expect("head sent");
    tcp.write_all(&message[..5]).await.expect("prefix sent");
    let mut answer = Vec::new();
    let read = async {
        let mut buf = [0; 4096];
        while !answer.windows(4).any(|w| w == b"\r\n\r\n") {
            match tcp.read(&mut buf).await.expect("reads") {
                0 => break,
                n => answer.extend_from_slice(&buf[..n]),
            }
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(10), read)
        .await
        .expect("answered without the rest of the message");
    String::from_utf8_lossy(&answer).into_owned()
}

/// The CORS headers of a preflight from `origin`.
async fn preflight(addr: std::net::SocketAddr, origin: &str) -> String {
    let url = format!("http://{addr}/sudoku.v1.Sudoku/Solve");
    let origin = format!("origin: {origin}");
    let args = [
        "-X",
        "OPTIONS",
        "-D",
        "-",
        "-o",
        "/dev/null",
        "-H",
        origin.as_str(),
        "-H",
        "access-control-request-method: POST",
        "-H",
        "access-control-request-headers: content-type,x-grpc-web",
        url.as_str(),
    ]
    .map(str::to_owned);
    let out = tokio::task::spawn_blocking(move || {
        curl(&args.iter().map(String::as_str).collect::<Vec<_>>())
    })
    .await
    .expect("curl ran");
    String::from_utf8_lossy(&out).to_lowercase()
}

#[tokio::test]
async fn cors_is_off_unless_origins_are_named() {
    let server = sudoku_server::start(Config::embedded())
        .await
        .expect("starts");
    let headers = preflight(server.addr(), "https://games.example").await;
    assert!(
        !headers.contains("access-control-allow-origin"),
        "{headers}"
    );
    server.shutdown().await.expect("clean shutdown");

    let config = Config {
        cors_origins: vec![http::HeaderValue::from_static("https://games.example")],
        ..Config::embedded()
    };
    let server = sudoku_server::start(config).await.expect("starts");
    let headers = preflight(server.addr(), "https://games.example").await;
    assert!(
        headers.contains("access-control-allow-origin: https://games.example"),
        "{headers}"
    );
    let other = preflight(server.addr(), "https://elsewhere.example").await;
    assert!(!other.contains("access-control-allow-origin"), "{other}");
    server.shutdown().await.expect("clean shutdown");
}
