//! The page at `/`: its files served over HTTP/1.1 as `web/build.sh` left them, each with its
//! content type and a same-origin-only Content-Security-Policy; GET only; and nothing of it
//! with `--no-page` (or `SUDOKU_NO_PAGE`). The page in a browser is `web/test/page.test.mjs`.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use sudoku_server::Config;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// An HTTP/1.1 answer.
struct Reply {
    status: u16,
    /// Header lines, names lowercased.
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find_map(|(key, value)| (key == name).then_some(value.as_str()))
    }
}

/// Sends `method path` over a connection of its own, which the server closes after answering.
async fn http1(addr: SocketAddr, method: &str, path: &str) -> Reply {
    let mut tcp = tokio::net::TcpStream::connect(addr)
        .await
        .expect("connects");
    let head = format!(
        "{method} {path} HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"
    );
    tcp.write_all(head.as_bytes()).await.expect("request sent");
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), tcp.read_to_end(&mut raw))
        .await
        .expect("answered and closed in time")
        .expect("reads");
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("an HTTP head");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("a status line: {head}"));
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(key, value)| (key.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    Reply {
        status,
        headers,
        body: raw[split + 4..].to_vec(),
    }
}

/// A file of the built page.
fn built(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../web/dist")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

#[tokio::test]
async fn the_page_is_served_as_built_with_its_types_and_policy() {
    let server = sudoku_server::start(Config::embedded())
        .await
        .expect("starts");
    let files = [
        ("/", "index.html", "text/html; charset=utf-8"),
        ("/app.js", "app.js", "text/javascript; charset=utf-8"),
        ("/style.css", "style.css", "text/css; charset=utf-8"),
        ("/favicon.svg", "favicon.svg", "image/svg+xml"),
    ];
    for (path, file, content_type) in files {
        let reply = http1(server.addr(), "GET", path).await;
        assert_eq!(reply.status, 200, "{path}");
        assert_eq!(reply.header("content-type"), Some(content_type), "{path}");
        assert_eq!(reply.header("x-content-type-options"), Some("nosniff"));
        let policy = reply.header("content-security-policy").expect("a CSP");
        for rule in [
            "default-src 'none'",
            "script-src 'self'",
            "connect-src 'self'",
            "frame-ancestors 'none'",
        ] {
            assert!(policy.contains(rule), "{path}: {policy}");
        }
        assert!(reply.body == built(file), "{path} is web/dist/{file}");
    }
    // A query string does not change what `/` is.
    let reply = http1(server.addr(), "GET", "/?level=hard").await;
    assert_eq!(reply.header("content-type"), Some(files[0].2));
    let html = String::from_utf8(reply.body).expect("UTF-8");
    assert!(
        html.contains(r#"<script type="module" src="/app.js">"#),
        "{html}"
    );

    // GET only.
    let reply = http1(server.addr(), "POST", "/").await;
    assert_eq!(reply.status, 405);
    assert_eq!(reply.header("allow"), Some("GET"));
    assert!(reply.body.is_empty());
    // Other paths are not the page's: they go on to gRPC-Web, which wants a gRPC-Web call.
    let reply = http1(server.addr(), "GET", "/index.html").await;
    assert_ne!(reply.status, 200);
    assert_eq!(reply.header("content-security-policy"), None);
    server.shutdown().await.expect("clean shutdown");
}

/// Asserts `/` at `addr` answers no page.
async fn no_page_at(addr: SocketAddr) {
    for path in ["/", "/app.js"] {
        let reply = http1(addr, "GET", path).await;
        assert_ne!(reply.status, 200, "{path}");
        assert_eq!(reply.header("content-security-policy"), None, "{path}");
        let body = String::from_utf8_lossy(&reply.body);
        assert!(!body.contains("<html"), "{path}: {body}");
    }
}

#[tokio::test]
async fn no_page_is_served_when_turned_off() {
    let config = Config {
        no_page: true,
        ..Config::embedded()
    };
    let server = sudoku_server::start(config).await.expect("starts");
    no_page_at(server.addr()).await;
    server.shutdown().await.expect("clean shutdown");
}

/// The server binary with `flags` and `env` on a port of its own, and its log; killed when
/// dropped.
struct Binary {
    child: std::process::Child,
    addr: SocketAddr,
    /// Kept open, so that the server's logging never meets a closed pipe.
    _log: std::io::Lines<BufReader<std::process::ChildStderr>>,
}

impl Binary {
    fn start(flags: &[&str], env: &[(&str, &str)]) -> Binary {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sudoku-server"))
            .args(["--listen", "127.0.0.1:0", "--metrics-listen", "off"])
            .args(flags)
            .envs(env.iter().copied())
            .env("NO_COLOR", "1")
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("server starts");
        let stderr = child.stderr.take().expect("stderr piped");
        let mut log = BufReader::new(stderr).lines();
        let first = log.next().expect("a log line").expect("UTF-8 log");
        let addr = first
            .split_whitespace()
            .find_map(|word| word.strip_prefix("addr="))
            .and_then(|addr| addr.parse().ok())
            .unwrap_or_else(|| panic!("the address in {first}"));
        Binary {
            child,
            addr,
            _log: log,
        }
    }
}

impl Drop for Binary {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn the_binary_serves_the_page_unless_the_flag_or_its_variable_says_not() {
    let on = Binary::start(&[], &[]);
    let reply = http1(on.addr, "GET", "/").await;
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    drop(on);
    let flag = Binary::start(&["--no-page"], &[]);
    no_page_at(flag.addr).await;
    drop(flag);
    let variable = Binary::start(&[], &[("SUDOKU_NO_PAGE", "1")]);
    no_page_at(variable.addr).await;
}
