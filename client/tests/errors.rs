//! Errors in the user's words: what is allowed rather than Rust's range syntax or status
//! names, the nearest grid sizes, repeated errors summed up, and `--server` read strictly
//! with a sentence for each way of reaching the wrong thing.

use std::path::PathBuf;
use std::time::Duration;

use assert_cmd::Command;

const CLASSIC: &str =
    "3.65.84..52........87....31..3.1..8.9..863..5.5..9.6..13....25........74..52.63..";

/// What no message for a user may hold: Rust's ranges, tonic's status names, type limits.
const RUST_WORDS: [&str; 7] = [
    "..",
    "(InvalidArgument)",
    "(ResourceExhausted)",
    "(Unimplemented)",
    "4294967295",
    "18446744073709551615",
    "Status {",
];

fn sudoku() -> Command {
    let mut cmd = Command::cargo_bin("sudoku").expect("the sudoku binary");
    cmd.env_remove("SUDOKU_SERVER")
        .timeout(Duration::from_secs(60));
    cmd
}

/// Exit code and stderr of a run.
fn fails(args: &[&str]) -> (Option<i32>, String) {
    let output = sudoku().args(args).output().expect("runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Panics if `err`, less the user's own words echoed in it, holds any of [`RUST_WORDS`].
fn assert_plain(args: &[&str], err: &str) {
    let err = args
        .iter()
        .fold(err.to_owned(), |err, arg| err.replace(arg, ""));
    for word in RUST_WORDS {
        assert!(!err.contains(word), "{args:?} says {word:?}: {err}");
    }
}

fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sudoku-errors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("temp file");
    path
}

#[test]
fn numbers_out_of_range_say_what_is_allowed() {
    for (args, says) in [
        (
            &["generate", "--seed", "0"][..],
            "seeds are 1 or more (leave --seed out for a random one)",
        ),
        (
            &["generate", "--count", "0"],
            "generate makes 1 to 100,000 puzzles a call",
        ),
        (
            &["generate", "--count", "100001"],
            "generate makes 1 to 100,000 puzzles a call",
        ),
        (
            &["solve", "--count", "0", CLASSIC],
            "the count is 1 or more",
        ),
        (
            &["bench", "--concurrency", "0", "--file", "x"],
            "the concurrency is 1 or more",
        ),
        (
            &["generate", "--givens", "30..20"],
            "its lowest value is above its highest",
        ),
        (
            &["solve", "--count", "99999999999", CLASSIC],
            "'99999999999' is too large",
        ),
    ] {
        let (code, err) = fails(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert_plain(args, err.lines().next().unwrap_or(""));
    }
}

#[test]
fn refused_generate_requests_are_in_words() {
    let args = ["generate", "--givens", "100..100"];
    let (code, err) = fails(&args);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(
        err.trim(),
        "error: givens: 100 asked for, but a 3x3 grid has 81 cells"
    );
    // No 4x4 puzzle is hard enough: the attempt budget runs out, said without a range.
    let args = ["generate", "--level", "hardest", "--box", "2x2"];
    let (code, err) = fails(&args);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("(2x2 boxes, rating 9.0 or more)"), "{err}");
    assert_plain(&args, &err);
}

#[test]
fn a_wrong_cell_count_names_the_nearest_sizes() {
    for (puzzle, says) in [
        (
            &CLASSIC[1..],
            "found 80; the nearest grid sizes are 64 (8x8) and 81 (9x9)",
        ),
        ("hello", "found 5; the smallest grid has 16 (4x4) cells"),
    ] {
        let (code, err) = fails(&["--format", "line", "solve", puzzle]);
        assert_eq!(code, Some(1), "{err}");
        assert!(err.contains(says), "{err}");
        assert!(!err.contains("1225"), "every size listed: {err}");
    }
}

#[test]
fn a_number_too_large_for_a_cell_says_which_digits_are_allowed() {
    for (first, says) in [
        (
            "10",
            "row 1, column 1: 10 is not a digit of a 9x9 grid (digits are 1 to 9, 0 or . for empty)",
        ),
        (
            "99999999999999999999",
            "row 1, column 1: 99999999999999999999 is not a digit of a 9x9 grid \
             (digits are 1 to 9, 0 or . for empty)",
        ),
    ] {
        // The space-separated form, where a cell may hold a number of several digits.
        let mut cells: Vec<String> = CLASSIC
            .chars()
            .map(|c| if c == '.' { "0".into() } else { c.to_string() })
            .collect();
        cells[0] = first.into();
        let puzzle = cells.join(" ");
        let args = ["--format", "line", "solve", &puzzle];
        let (code, err) = fails(&args);
        assert_eq!(code, Some(1), "{err}");
        assert!(err.contains(says), "{err}");
        assert_plain(&args, &err);
        assert!(!err.contains("out of range"), "{err}");
    }
}

#[test]
fn repeated_errors_from_one_file_are_summed_up() {
    let lines: String = (0..600).map(|i| format!("not a puzzle {i}\n\n")).collect();
    let file = temp_file("many-bad.txt", &lines);
    let file = file.to_str().expect("utf-8 path");
    for args in [
        &["--format", "line", "batch", file][..],
        &["--format", "line", "solve", "--file", file],
        &["--format", "line", "rate", "--file", file],
        &["bench", "--duration", "100ms", "--file", file],
    ] {
        let output = sudoku().args(args).output().expect("runs");
        let err = String::from_utf8_lossy(&output.stderr);
        let per_line = err
            .lines()
            .filter(|l| l.contains("wrong number of cells"))
            .count();
        assert_eq!(per_line, 10, "{args:?}: {err}");
        assert!(
            err.contains("sudoku: 590 more errors not shown (only the first 10 are)"),
            "{args:?}: {err}"
        );
        assert!(err.lines().count() < 15, "{args:?}: {err}");
        assert_ne!(output.status.code(), Some(0), "{args:?}");
    }
    // stdout still answers every line.
    let out = sudoku()
        .args(["--format", "line", "batch", file])
        .output()
        .expect("runs");
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 600);
}

#[test]
fn counts_of_one_are_singular() {
    let output = sudoku()
        .args(["--format", "line", "batch"])
        .write_stdin(format!("{CLASSIC}\n"))
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("1 puzzle: 1 unique"), "{err}");
    // Not "271 puzzles/s", which ends in a one too.
    let plural_one = |l: &str| l.starts_with("1 puzzles") || l.contains(" 1 puzzles");
    assert!(!err.lines().any(plural_one), "{err}");
    // A puzzle that takes one guess (and none whose plural needs more than an "s").
    let one_guess =
        ".................1.....2.3......3.2...1.4......5....6..3......4.7..8...962...7...";
    let output = sudoku()
        .args(["--format", "pretty", "solve", "--count", "1", one_guess])
        .output()
        .expect("runs");
    // The grid goes to stdout, the verdict with its counts to stderr.
    let verdict = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{verdict}");
    assert!(verdict.contains("(1 guess, "), "{verdict}");
    assert!(
        !verdict.contains("1 guesses") && !verdict.contains("guesss"),
        "{verdict}"
    );
}

/// A cell's image in a left-right mirror, and in a top-bottom one, on a 9x9 grid.
type Image = fn(usize, usize) -> (usize, usize);
const LEFT_RIGHT: Image = |r, c| (r, 8 - c);
const TOP_BOTTOM: Image = |r, c| (8 - r, c);

#[test]
fn mirrors_swap_what_their_names_say() {
    for (name, image, other) in [
        ("mirror-top-bottom", TOP_BOTTOM, LEFT_RIGHT),
        ("mirror-left-right", LEFT_RIGHT, TOP_BOTTOM),
    ] {
        let output = sudoku()
            .args([
                "--format", "line", "generate", "--count", "3", "--seed", "5",
            ])
            .args(["--symmetry", name])
            .output()
            .expect("runs");
        assert!(output.status.success(), "{name}");
        let out = String::from_utf8_lossy(&output.stdout);
        let mut both = 0;
        for line in out.lines() {
            let filled: Vec<bool> = line.bytes().map(|b| b != b'.').collect();
            assert_eq!(filled.len(), 81, "{line}");
            let holds = |image: Image| {
                (0..81).all(|i| {
                    let (r, c) = image(i / 9, i % 9);
                    filled[i] == filled[r * 9 + c]
                })
            };
            assert!(holds(image), "{name}: {line}");
            both += usize::from(holds(other));
        }
        assert_eq!(out.lines().count(), 3);
        // A pattern with both mirrors is rare: the other one was not what was made.
        assert!(both < 3, "{name}: every puzzle has both mirrors");
    }
    let (code, err) = fails(&["generate", "--symmetry", "mirror-vertical"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("mirror-top-bottom"), "{err}");
}

#[test]
fn server_addresses_are_read_strictly() {
    for (server, says) in [
        (
            "htp://127.0.0.1:1",
            "the scheme 'htp://' is not one sudoku speaks",
        ),
        (
            "ftp://127.0.0.1",
            "the scheme 'ftp://' is not one sudoku speaks",
        ),
        (
            "grpc://127.0.0.1:1",
            "use http:// for a plaintext server or https:// for TLS",
        ),
        (
            "127.0.0.1:5005x",
            "'5005x' is not a port (a port is a number from 1 to 65535)",
        ),
        ("http://127.0.0.1:1/sudoku", "a server address has no path"),
        ("::1", "write an IPv6 address in brackets"),
    ] {
        let started = std::time::Instant::now();
        let (code, err) = fails(&["--server", server, "health"]);
        assert_eq!(code, Some(2), "{server}: {err}");
        assert!(err.contains(says), "{server}: {err}");
        assert!(!err.contains("Connection refused"), "{server}: {err}");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{server}: no connection is tried"
        );
        // The same from the environment.
        let output = sudoku()
            .env("SUDOKU_SERVER", server)
            .args(["solve", CLASSIC])
            .output()
            .expect("runs");
        assert_eq!(output.status.code(), Some(2), "{server}");
        assert!(
            String::from_utf8_lossy(&output.stderr).contains(says),
            "{server}"
        );
    }
}

/// A plaintext sudoku-server on loopback with its metrics port open; stopped on drop.
struct Server {
    child: std::process::Child,
    grpc: u16,
    metrics: u16,
}

impl Server {
    fn start() -> Server {
        let binary = PathBuf::from(env!("CARGO_BIN_EXE_sudoku")).with_file_name("sudoku-server");
        assert!(
            binary.exists(),
            "{} missing: run `cargo build -p sudoku-server` first",
            binary.display()
        );
        let free = || {
            std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .map(|a| a.port())
                .expect("a free port")
        };
        let (grpc, metrics) = (free(), free());
        let child = std::process::Command::new(binary)
            .args(["--listen", &format!("127.0.0.1:{grpc}")])
            .args(["--metrics-listen", &format!("127.0.0.1:{metrics}")])
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("sudoku-server starts");
        let server = Server {
            child,
            grpc,
            metrics,
        };
        for _ in 0..400 {
            let ok = sudoku()
                .args(["health", "--server", &format!("127.0.0.1:{grpc}")])
                .output()
                .is_ok_and(|o| o.status.success());
            if ok {
                return server;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!("sudoku-server did not become healthy");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_wrong_protocol_or_port_gets_a_sentence_to_act_on() {
    let server = Server::start();
    // TLS to a plaintext server.
    let https = format!("https://127.0.0.1:{}", server.grpc);
    for command in [&["health"][..], &["solve", CLASSIC]] {
        let (code, err) = fails(&[&["--server", &https][..], command].concat());
        assert_eq!(code, Some(2), "{err}");
        assert!(
            err.contains("the server did not answer in TLS: for a plaintext server use http://"),
            "{err}"
        );
    }
    // The metrics port answers HTTP, not gRPC.
    for server_url in [
        format!("http://127.0.0.1:{}", server.metrics),
        format!("127.0.0.1:{}", server.metrics),
    ] {
        let (code, err) = fails(&["--server", &server_url, "health"]);
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains("answered HTTP 404, not gRPC"), "{err}");
        assert!(err.contains("metrics port"), "{err}");
        assert_plain(&["health"], &err);
    }
    drop(server);
}
