//! End-to-end: the real `sudoku` binary against its embedded server and a separately started one.

use std::path::PathBuf;

use assert_cmd::Command;
use solver_core::Grid;

const CLASSIC: &str =
    "3.65.84..52........87....31..3.1..8.9..863..5.5..9.6..13....25........74..52.63..";
/// A 6x6 puzzle among 9x9 ones: chunks are of one shape.
const EASY_6X6: &str = "..63...5.......5.1..2........3.2...4";
const SLOW_FOR_BACKTRACKING: &str =
    "..............3.85..1.2.......5.7.....4...1...9.......5......73..2.1........4...9";

fn sudoku() -> Command {
    let mut cmd = Command::cargo_bin("sudoku").expect("the sudoku binary");
    cmd.env_remove("SUDOKU_SERVER");
    cmd
}

fn grid(text: &str) -> Grid {
    text.parse().expect("test grid parses")
}

/// A run's exit code, stdout and stderr.
fn run(cmd: &mut Command) -> (Option<i32>, String, String) {
    let output = cmd.output().expect("runs");
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (
        output.status.code(),
        text(&output.stdout),
        text(&output.stderr),
    )
}

fn stdout(cmd: &mut Command) -> String {
    let output = cmd.output().expect("runs");
    String::from_utf8(output.stdout).expect("utf-8 output")
}

/// Stdout of a run that must exit 0.
fn success(cmd: &mut Command) -> String {
    let output = cmd.output().expect("runs");
    assert!(
        output.status.success(),
        "{:?}: {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("utf-8 output")
}

/// Panics unless `line` is a solution of `puzzle`.
fn assert_solves(puzzle: &Grid, line: &str) {
    // Lines of non-square boxes start with their shape (`3x2:`).
    let line = line.trim();
    let cells = line.split_once(':').map_or(line, |(_, cells)| cells);
    let solution = solver_core::grid::parse(cells, Some(puzzle.shape())).expect("a grid");
    assert!(
        solution.is_solution_of(puzzle),
        "{line} does not solve {puzzle:?}"
    );
}

#[test]
fn solve_one_line_prints_the_solution() {
    let out = success(sudoku().args(["solve", CLASSIC]));
    assert_eq!(out.lines().count(), 1);
    assert_solves(&grid(CLASSIC), &out);
}

#[test]
fn solve_reads_every_input_format() {
    let puzzle = grid(CLASSIC);
    // Nine lines of nine numbers, on stdin.
    let rows: Vec<String> = puzzle
        .cells()
        .chunks(9)
        .map(|r| {
            r.iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let out = stdout(sudoku().arg("solve").write_stdin(rows.join("\n")));
    assert_solves(&puzzle, &out);
    // The boxed form, with `-` for stdin.
    let out = stdout(
        sudoku()
            .args(["solve", "-"])
            .write_stdin(puzzle.to_string()),
    );
    assert_solves(&puzzle, &out);
    // `--file -` is stdin too.
    let out = stdout(
        sudoku()
            .args(["solve", "--file", "-"])
            .write_stdin(puzzle.to_string()),
    );
    assert_solves(&puzzle, &out);
    // 16x16 with letters, from a file, with several puzzles.
    let mut sixteen = vec!['.'; 256];
    sixteen[0] = 'G';
    sixteen[17] = 'A';
    let sixteen: String = sixteen.into_iter().collect();
    let dir = std::env::temp_dir().join(format!("sudoku-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("puzzles.txt");
    std::fs::write(&file, format!("# two puzzles\n{sixteen}\n{CLASSIC}\n")).unwrap();
    let out = stdout(
        sudoku()
            .args(["solve", "--count", "1", "--file"])
            .arg(&file),
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert_solves(&grid(&sixteen), lines[0]);
    assert_solves(&puzzle, lines[1]);
    // The same through `batch`: 16x16 chunks go a byte per cell, 9x9 ones two cells a byte.
    std::fs::write(&file, format!("{sixteen}\n{CLASSIC}\n{sixteen}\n")).unwrap();
    let out = success(sudoku().args(["batch", "--count", "1"]).arg(&file));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert_solves(&grid(&sixteen), lines[0]);
    assert_solves(&puzzle, lines[1]);
    assert_solves(&grid(&sixteen), lines[2]);
    // A 6x6 grid with tall boxes needs --box.
    let tall = solver_core::grid::parse(
        &".".repeat(36),
        Some(solver_core::Shape::new(3, 2).unwrap()),
    )
    .unwrap();
    let out = stdout(sudoku().args(["solve", "--box", "3x2", "--count", "1", &".".repeat(36)]));
    assert_solves(&tall, &out);
}

#[test]
fn json_output_has_every_field() {
    let open = format!("{}{}", &CLASSIC[..30], ".".repeat(51));
    let out = success(sudoku().args(["--format", "json", "solve", CLASSIC, &open]));
    let values: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(values.len(), 2);
    assert_eq!(values[0]["outcome"], "unique");
    // `puzzle` is the grid, `index` its 0-based place in the input, as in every command.
    assert_eq!(values[0]["puzzle"], CLASSIC);
    assert_eq!(
        (&values[0]["index"], &values[1]["index"]),
        (&0.into(), &1.into())
    );
    assert_eq!(values[0]["solutions_found"], 1);
    assert_eq!(values[0]["algorithm"], "fast");
    assert!(values[0]["guesses"].is_u64() && values[0]["solve_micros"].is_u64());
    assert!(values[0]["error"].is_null());
    assert_solves(
        &grid(CLASSIC),
        values[0]["solution"].as_str().expect("solution"),
    );
    assert_eq!(values[1]["outcome"], "multiple");
    assert_eq!(values[1]["solutions_found"], 2);
    assert_solves(
        &grid(&open),
        values[1]["solution"].as_str().expect("first solution"),
    );
}

#[test]
fn pretty_output_is_a_boxed_grid_that_reads_back_in() {
    let output = sudoku()
        .args(["solve", "--format", "pretty", CLASSIC])
        .output()
        .unwrap();
    let out = String::from_utf8(output.stdout).unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(out.contains("------+-------+------"), "{out}");
    assert!(
        !out.contains("puzzle 1"),
        "the verdict stays off stdout: {out}"
    );
    assert!(
        err.contains("puzzle 1 (argument 1): unique solution"),
        "{err}"
    );
    // Issue 14: the boxed form on stdout is a puzzle `solve` reads back.
    let dir = temp_dir("pretty");
    let file = dir.join("g.txt");
    std::fs::write(&file, &out).unwrap();
    let again = success(sudoku().args(["solve", "--file"]).arg(&file));
    assert_solves(&grid(CLASSIC), &again);
    assert_solves(&grid(&again), &again);
}

/// A fresh folder for one test's files.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sudoku-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `args` with stdout a pipe whose reading end is already closed.
fn with_closed_stdout(args: &[&str]) -> std::process::Output {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_sudoku"))
        .args(args)
        .env_remove("SUDOKU_SERVER")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    child.wait_with_output().unwrap()
}

#[test]
fn closed_pipes_and_full_disks_are_not_crashes() {
    let dir = temp_dir("pipes");
    let file = dir.join("easy.txt");
    std::fs::write(&file, format!("{CLASSIC}\n")).unwrap();
    let file = file.to_str().unwrap();
    for args in [
        &["solve", CLASSIC][..],
        &[
            "bench",
            "--duration",
            "200ms",
            "--concurrency",
            "2",
            "--file",
            file,
        ][..],
        &["completions", "bash"][..],
    ] {
        let output = with_closed_stdout(args);
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_sudoku"))
        .args(["completions", "bash"])
        .stdout(full)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.starts_with("error: cannot write to stdout"), "{err}");
}

#[test]
fn every_invalid_batch_item_says_why() {
    let mut sixteen = vec!['.'; 256];
    sixteen[0] = 'G';
    let sixteen: String = sixteen.into_iter().collect();
    let output = sudoku()
        .args(["batch", "--algorithm", "fast"])
        .write_stdin(format!("{sixteen}\n"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "invalid");
    let err = String::from_utf8_lossy(&output.stderr);
    let reason = err
        .lines()
        .find(|l| l.starts_with("error: puzzle 1 (line 1): "))
        .unwrap_or_else(|| panic!("no reason given: {err}"));
    assert!(
        reason.len() > "error: puzzle 1 (line 1): ".len() + 5,
        "{err}"
    );
}

/// 3,000 4x4 puzzles refused by the fast solver: a full chunk's answer (1,024 reasons of about
/// 90 bytes, for 8 KB asked) is more than the server sends in one message, so it comes in
/// pieces, which the client puts back together.
#[test]
fn answers_that_come_in_pieces_are_printed_whole_and_in_order() {
    let base = [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1];
    let puzzles: Vec<String> = (0..3000)
        .map(|i: usize| {
            (0..16)
                .map(|cell| match (cell * 7 + i) % 16 < 6 {
                    true => '.',
                    false => char::from(b'0' + ((base[cell] + i) % 4 + 1) as u8),
                })
                .collect()
        })
        .collect();
    let (code, out, err) = run(sudoku()
        .args(["--format", "json", "batch", "--algorithm", "fast"])
        .write_stdin(puzzles.join("\n") + "\n"));
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(out.lines().count(), 3000, "{err}");
    // Every answer whole, in input order, with its own reason.
    for (i, line) in out.lines().enumerate() {
        let answer: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        assert_eq!(answer["index"], i, "{line}");
        assert_eq!(answer["outcome"], "invalid", "{line}");
        let reason = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(reason.starts_with("the fast algorithm"), "{line}");
    }
    // On stderr, the first reasons in order, then a count of the rest.
    let reasons: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("error: puzzle "))
        .collect();
    assert_eq!(reasons.len(), 10, "{err}");
    for (i, reason) in reasons.iter().enumerate() {
        let name = format!(
            "error: puzzle {} (line {}): the fast algorithm",
            i + 1,
            i + 1
        );
        assert!(reason.starts_with(&name), "{reason}");
    }
    assert!(err.contains("sudoku: 2990 more errors not shown"), "{err}");
}

#[test]
fn empty_input_says_so_and_exits_1() {
    for args in [&["solve"][..], &["batch"][..], &["batch", "/dev/null"][..]] {
        let output = sudoku().args(args).write_stdin("").output().unwrap();
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("no puzzle in the input"), "{args:?}: {err}");
    }
}

#[test]
fn oversized_and_unreadable_input_is_named() {
    let line = ".".repeat(1 << 20);
    let output = sudoku().arg("batch").write_stdin(line).output().unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(
        err.contains("stdin line 1: longer than the limit of 65536 bytes"),
        "{err}"
    );
    let dir = temp_dir("unreadable");
    let output = sudoku().arg("batch").arg(&dir).output().unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("cannot read {}", dir.display())),
        "{err}"
    );
    // A byte-order mark is not a cell; `--file` names batch input as it does for solve.
    let file = dir.join("bom.txt");
    std::fs::write(&file, format!("\u{feff}{CLASSIC}\n")).unwrap();
    let out = success(sudoku().args(["batch", "--file"]).arg(&file));
    assert_solves(&grid(CLASSIC), &out);
    let out = success(sudoku().args(["solve", "--file"]).arg(&file));
    assert_solves(&grid(CLASSIC), &out);
    // Classic lines are taken from their bytes; what follows the puzzle must still be text.
    let file = dir.join("tail.txt");
    let mut bytes = format!("{CLASSIC} a comment\r\n{CLASSIC}\t").into_bytes();
    std::fs::write(&file, &bytes).unwrap();
    let out = success(sudoku().args(["--format", "line", "batch"]).arg(&file));
    assert_eq!(out.lines().count(), 2, "{out}");
    out.lines()
        .for_each(|line| assert_solves(&grid(CLASSIC), line));
    bytes.extend_from_slice(b" \xff\n");
    std::fs::write(&file, &bytes).unwrap();
    let output = sudoku().arg("batch").arg(&file).output().unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("line 2: not UTF-8 text"), "{err}");
}

#[test]
fn a_ca_file_without_a_certificate_is_named() {
    let dir = temp_dir("ca");
    let file = dir.join("empty.pem");
    std::fs::write(&file, "not a certificate\n").unwrap();
    let output = sudoku()
        .args(["--server", "https://127.0.0.1:1", "--ca-cert"])
        .arg(&file)
        .args(["solve", CLASSIC])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("{} holds no PEM certificate", file.display())),
        "{err}"
    );
}

#[test]
fn an_empty_server_means_the_embedded_one() {
    let out = success(sudoku().env("SUDOKU_SERVER", "").args(["solve", CLASSIC]));
    assert_solves(&grid(CLASSIC), &out);
}

#[test]
fn the_embedded_server_limit_can_be_raised_and_lowered() {
    let sixteen = ".".repeat(256);
    let output = sudoku()
        .args(["--max-grid-side", "9", "solve", "--count", "1", &sixteen])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let out = success(sudoku().args(["--max-grid-side", "16", "solve", "--count", "1", &sixteen]));
    assert_solves(&grid(&sixteen), &out);
    // In a batch, the grid over the limit is one invalid answer among the others.
    let (code, out, err) = run(sudoku()
        .args([
            "--max-grid-side",
            "9",
            "--format",
            "line",
            "batch",
            "--count",
            "1",
        ])
        .write_stdin(format!("{CLASSIC}\n{sixteen}\n{CLASSIC}\n")));
    assert_eq!(code, Some(1), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert_solves(&grid(CLASSIC), lines[0]);
    assert_eq!(lines[1], "invalid");
    assert_solves(&grid(CLASSIC), lines[2]);
    assert!(
        err.contains("larger than this server's limit of 9"),
        "{err}"
    );
    let output = sudoku()
        .args(["--max-grid-side", "99", "health"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("not a grid side from 4 to 35"), "{err}");
}

#[test]
fn bad_input_names_the_puzzle_and_cell() {
    let mut bad = CLASSIC.to_string();
    bad.replace_range(13..14, "#");
    let output = sudoku().args(["solve", CLASSIC, &bad]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("error: puzzle 2 (argument 2): row 2, column 5: '#' is not a digit"),
        "{stderr}"
    );
    let out = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_solves(&grid(CLASSIC), lines[0]);
    assert_eq!(lines[1], "invalid");
}

#[test]
fn outcome_words_and_exit_codes() {
    let dead = format!("12345678.{}9{}", ".".repeat(8), ".".repeat(63));
    let output = sudoku().args(["solve", &dead]).output().unwrap();
    assert_eq!(
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).trim()
        ),
        (Some(1), "no-solution")
    );
    let open = ".".repeat(81);
    let output = sudoku().args(["solve", &open]).output().unwrap();
    assert_eq!(
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).trim()
        ),
        (Some(0), "multiple")
    );
}

#[test]
fn timeout_stops_a_slow_backtracking_solve() {
    let output = sudoku()
        .args([
            "--timeout",
            "300ms",
            "solve",
            "--algorithm",
            "backtracking",
            SLOW_FOR_BACKTRACKING,
        ])
        .timeout(std::time::Duration::from_secs(30))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "stopped");
    assert!(String::from_utf8_lossy(&output.stderr).contains("deadline exceeded"));
}

#[test]
fn unreachable_server_is_one_line_and_exit_2() {
    let output = sudoku()
        .args(["--server", "http://127.0.0.1:1", "solve", CLASSIC])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: cannot reach http://127.0.0.1:1"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("Status {") && !stderr.contains("backtrace"),
        "{stderr}"
    );
    let causes: Vec<&str> = stderr.trim_end().split(": ").collect();
    assert!(
        causes.windows(2).all(|pair| pair[0] != pair[1]),
        "no cause repeated: {stderr}"
    );
    let output = sudoku().args(["solve", "--count"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "usage errors exit 2");
}

#[test]
fn batch_keeps_input_order_and_reports_bad_lines() {
    let puzzles = [CLASSIC, "not-a-puzzle", &".".repeat(81), CLASSIC];
    let input = format!("# a comment\n{}\n", puzzles.join("  rating 1.0\n"));
    let output = sudoku().arg("batch").write_stdin(input).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let out = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert_solves(&grid(CLASSIC), lines[0]);
    assert_eq!(lines[1], "invalid");
    assert_eq!(lines[2], "multiple");
    assert_solves(&grid(CLASSIC), lines[3]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("error: puzzle 2 (line 3): wrong number of cells: found 12"),
        "{stderr}"
    );
    assert!(
        stderr.contains("4 puzzles: 1 invalid, 1 multiple, 2 unique"),
        "{stderr}"
    );
}

#[test]
fn batch_of_ten_thousand_in_input_order() {
    let Some(path) = test_support::data_file("puzzles5_forum_hardest_1905_11+") else {
        return;
    };
    let text = std::fs::read_to_string(&path).unwrap();
    let puzzles: Vec<&str> = test_support::puzzle_lines(&text).take(10_000).collect();
    let output = sudoku()
        .args(["batch", "--format", "json"])
        .write_stdin(puzzles.join("\n"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let out = String::from_utf8(output.stdout).unwrap();
    let answers: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), puzzles.len());
    for (i, (answer, puzzle)) in answers.iter().zip(&puzzles).enumerate() {
        assert_eq!(answer["index"], i, "input order");
        assert_eq!(answer["outcome"], "unique");
        assert_solves(&grid(puzzle), answer["solution"].as_str().unwrap());
    }
}

/// A `sudoku-server` process started apart from the CLI, as an operator would run it;
/// stopped with SIGTERM when dropped.
struct ServerProcess {
    child: std::process::Child,
    url: String,
}

impl ServerProcess {
    fn start() -> ServerProcess {
        ServerProcess::start_with(&[], "http://127.0.0.1", &[])
    }

    /// Starts the server with `extra` flags, reached at `base:port`; `client` flags go with
    /// the readiness check.
    fn start_with(extra: &[&str], base: &str, client: &[&str]) -> ServerProcess {
        // `cargo test --workspace` builds the server binary next to ours.
        let binary = PathBuf::from(env!("CARGO_BIN_EXE_sudoku")).with_file_name("sudoku-server");
        assert!(
            binary.exists(),
            "{} missing: run `cargo build -p sudoku-server` first",
            binary.display()
        );
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap();
        let child = std::process::Command::new(binary)
            .args([
                "--listen",
                &format!("127.0.0.1:{port}"),
                "--metrics-listen",
                "off",
            ])
            .args(extra)
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("sudoku-server starts");
        // Owned by the guard at once, so a failed start still stops the process.
        let server = ServerProcess {
            child,
            url: format!("{base}:{port}"),
        };
        // Ready when the health check answers.
        for _ in 0..200 {
            if sudoku()
                .args(["health", "--server", &server.url])
                .args(client)
                .output()
                .is_ok_and(|o| o.status.success())
            {
                return server;
            }
            std::thread::sleep(std::time::Duration::from_millis(25));
        }
        panic!("sudoku-server did not become healthy");
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = std::process::Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }
}

/// `CLASSIC` with its digits shifted by `shift`: another puzzle with one solution.
fn relabelled(shift: usize) -> String {
    CLASSIC
        .bytes()
        .map(|b| match b {
            b'1'..=b'9' => char::from(b'1' + (b - b'1' + shift as u8) % 9),
            _ => '.',
        })
        .collect()
}

/// A server short of room for what streams keep closes `sudoku batch`'s idle stream for
/// another client's; the CLI opens a new one and answers every puzzle, once, in order.
#[test]
fn a_batch_whose_stream_the_server_closes_goes_on_in_a_new_one() {
    use std::io::Write;
    let server = ServerProcess::start_with(&["--memory-budget", "250000"], "http://127.0.0.1", &[]);
    let puzzles: Vec<String> = (0..200).map(|i| relabelled(i % 9)).collect();
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_sudoku"));
    let mut first = std::process::Command::new(&binary)
        .args(["--format", "line", "batch", "--server", &server.url])
        .env_remove("SUDOKU_SERVER")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("sudoku starts");
    let mut stdin = first.stdin.take().expect("stdin");
    writeln!(stdin, "{}", puzzles[..100].join("\n")).expect("written");
    stdin.flush().expect("flushed");
    // Its answers in, the first stream waits for more input while keeping about 67 KB; a
    // second client needs as much again, of the 100 KB.
    std::thread::sleep(std::time::Duration::from_millis(1800));
    let second = success(
        sudoku()
            .args(["--format", "line", "batch", "--server", &server.url])
            .write_stdin(puzzles[100..].join("\n") + "\n"),
    );
    assert_eq!(second.lines().count(), 100);
    writeln!(stdin, "{}", puzzles[100..].join("\n")).expect("written");
    drop(stdin);
    let output = first.wait_with_output().expect("sudoku ends");
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{:?}: {err}", output.status);
    let out = String::from_utf8(output.stdout).expect("utf-8");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 200, "{err}");
    for (puzzle, line) in puzzles.iter().zip(&lines) {
        assert_solves(&grid(puzzle), line);
    }
}

/// A server that takes fewer puzzles a message than `sudoku batch`'s chunks (a 10 MiB budget
/// gives a batch stream 64) refuses the first too large, saying how many fit; the CLI sends
/// its chunks again in messages that fit, and every answer is printed once, in input order.
#[test]
fn a_server_that_takes_smaller_messages_than_the_batchs_chunks_still_answers_in_order() {
    let server =
        ServerProcess::start_with(&["--memory-budget", "10485760"], "http://127.0.0.1", &[]);
    // Easy and hard in turn, so that messages take unlike times.
    const HARD: &str =
        "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4..";
    let puzzles: Vec<String> = (0..3000)
        .map(|i| match i % 2 {
            0 => relabelled(i % 9),
            _ => HARD.to_owned(),
        })
        .collect();
    let out = success(
        sudoku()
            .args(["--format", "line", "batch", "--server", &server.url])
            .write_stdin(puzzles.join("\n") + "\n")
            .timeout(std::time::Duration::from_secs(60)),
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), puzzles.len());
    for (puzzle, line) in puzzles.iter().zip(&lines) {
        assert_solves(&grid(puzzle), line);
    }
}

/// A server that answers every call, at once, with the status that closes a stream for a new
/// one to open: `sudoku batch` must not open new ones for ever.
#[test]
fn a_server_that_closes_every_stream_at_once_counts_as_lost() {
    use tonic_types::StatusExt;
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("a port");
    let addr = listener.local_addr().expect("an address");
    let calls = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = calls.clone();
    runtime.spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let calls = counted.clone();
            tokio::spawn(async move {
                let Ok(mut h2) = h2::server::handshake(tcp).await else {
                    return;
                };
                while let Some(Ok((_, mut respond))) = h2.accept().await {
                    calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let mut details = tonic_types::ErrorDetails::new();
                    details.set_error_info(
                        sudoku_proto::STREAM_CLOSED,
                        sudoku_proto::ERROR_DOMAIN,
                        std::collections::HashMap::new(),
                    );
                    let status = tonic::Status::with_error_details(
                        tonic::Code::Unavailable,
                        "stream closed",
                        details,
                    );
                    let mut head = status.into_http::<()>();
                    *head.body_mut() = ();
                    let _ = respond.send_response(head, true);
                }
            });
        }
    });
    let (code, out, err) = run(sudoku()
        .args(["batch", "--server", &format!("http://{addr}")])
        .write_stdin(format!("{CLASSIC}\n{CLASSIC}\n"))
        .timeout(std::time::Duration::from_secs(30)));
    assert_eq!(code, Some(2), "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("closed in a row"), "{err}");
    let calls = calls.load(std::sync::atomic::Ordering::Relaxed);
    assert!(calls <= 10, "{calls} calls");
}

/// `count` fake servers on 127.0.0.1, each connection served by `serve` on `runtime`; their
/// URLs.
fn fake_servers<F>(
    runtime: &tokio::runtime::Runtime,
    count: usize,
    serve: fn(tokio::net::TcpStream) -> F,
) -> Vec<String>
where
    F: std::future::Future<Output = ()> + Send + 'static,
{
    (0..count)
        .map(|_| {
            let listener = runtime
                .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
                .expect("a port");
            let url = format!("http://{}", listener.local_addr().expect("an address"));
            runtime.spawn(async move {
                while let Ok((tcp, _)) = listener.accept().await {
                    tokio::spawn(serve(tcp));
                }
            });
            url
        })
        .collect()
}

/// A BatchSolvePacked server that answers the first message of each stream one puzzle
/// short, then ends the stream: `sudoku batch` must not send those puzzles for ever.
async fn answer_short(tcp: tokio::net::TcpStream) {
    answer_first_messages(tcp, 1).await;
}

/// A BatchSolvePacked server that answers the first message of each stream whole, every
/// solution all ones, then ends the stream.
async fn answer_wrong(tcp: tokio::net::TcpStream) {
    answer_first_messages(tcp, 0).await;
}

/// Answers the first message of each stream, `short` puzzles short and every solution all
/// ones, then ends the stream.
async fn answer_first_messages(tcp: tokio::net::TcpStream, short: usize) {
    let Ok(mut h2) = h2::server::handshake(tcp).await else {
        return;
    };
    // The connection is driven by accepting; each stream is answered on a task of its own.
    while let Some(Ok((request, respond))) = h2.accept().await {
        tokio::spawn(answer_first_message(request, respond, short));
    }
}

async fn answer_first_message(
    request: http::Request<h2::RecvStream>,
    mut respond: h2::server::SendResponse<bytes::Bytes>,
    short: usize,
) {
    use prost::Message;
    let mut body = request.into_body();
    let mut bytes = Vec::new();
    // The first whole gRPC message: a flag byte, a 4-byte length, the message.
    let message = loop {
        if bytes.len() >= 5 {
            let len = u32::from_be_bytes([bytes[1], bytes[2], bytes[3], bytes[4]]) as usize;
            if bytes.len() >= 5 + len {
                break sudoku_proto::pb::PackedPuzzles::decode(&bytes[5..5 + len]).ok();
            }
        }
        match body.data().await {
            Some(Ok(data)) => {
                let _ = body.flow_control().release_capacity(data.len());
                bytes.extend_from_slice(&data);
            }
            _ => break None,
        }
    };
    let Some(message) = message else { return };
    let answered = (message.nibbles.len() / 41).saturating_sub(short);
    let answer = sudoku_proto::pb::PackedAnswers {
        id: message.id,
        first: 0,
        outcomes: vec![sudoku_proto::pb::Outcome::Unique as u8; answered],
        solution_nibbles: vec![0x11; 41 * answered].into(),
        ..Default::default()
    };
    let encoded = answer.encode_to_vec();
    let mut framed = vec![0];
    framed.extend_from_slice(&(encoded.len() as u32).to_be_bytes());
    framed.extend_from_slice(&encoded);
    let head = http::Response::builder()
        .header("content-type", "application/grpc")
        .body(())
        .expect("a response head");
    let Ok(mut send) = respond.send_response(head, false) else {
        return;
    };
    let _ = send.send_data(framed.into(), false);
    let mut trailers = http::HeaderMap::new();
    trailers.insert("grpc-status", http::HeaderValue::from_static("0"));
    let _ = send.send_trailers(trailers);
}

#[test]
fn puzzles_never_wholly_answered_are_not_sent_for_ever() {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let urls = fake_servers(&runtime, 2, answer_short);
    let (code, out, err) = run(sudoku()
        .args(["batch", "--server", &urls.join(",")])
        .write_stdin(format!("{CLASSIC}\n{CLASSIC}\n"))
        .timeout(std::time::Duration::from_secs(60)));
    assert_eq!(code, Some(2), "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("puzzles 1 to 2 went to servers 8 times and were never wholly answered"),
        "{err}"
    );
}

/// A server elsewhere may be another version, or faulty: its solutions are checked, and
/// each that breaks the rules is reported by its line and counted as failed.
#[test]
fn a_remote_servers_solutions_are_checked() {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let urls = fake_servers(&runtime, 1, answer_wrong);
    let (code, _, err) = run(sudoku()
        .args(["--format", "line", "batch", "--server", &urls[0]])
        .write_stdin(format!("{CLASSIC}\n{CLASSIC}\n"))
        .timeout(std::time::Duration::from_secs(30)));
    assert_eq!(code, Some(1), "{err}");
    for n in 1..=2 {
        let reported = format!("puzzle {n} (line {n}): the server's solution does not solve");
        assert!(err.contains(&reported), "{err}");
    }
    // Counted as wrong in the closing line, not under the outcome the server claimed.
    assert!(err.contains("2 puzzles: 2 wrong in"), "{err}");
}

/// A server that refuses every call as busy, with the status a server at its limit gives.
async fn always_busy(tcp: tokio::net::TcpStream) {
    let Ok(mut h2) = h2::server::handshake(tcp).await else {
        return;
    };
    while let Some(Ok((_, mut respond))) = h2.accept().await {
        let status = tonic::Status::resource_exhausted("server busy: retry with backoff");
        let mut head = status.into_http::<()>();
        *head.body_mut() = ();
        let _ = respond.send_response(head, true);
    }
}

#[test]
fn puzzles_refused_by_busy_servers_are_not_counted_as_failing_them() {
    // Two servers busy throughout: each worker tries seven times, 14 sends of the first
    // chunk, none a failure of its puzzles. The batch ends for want of servers, saying so.
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let urls = fake_servers(&runtime, 2, always_busy);
    let (code, out, err) = run(sudoku()
        .args(["batch", "--server", &urls.join(",")])
        .write_stdin(format!("{CLASSIC}\n"))
        .timeout(std::time::Duration::from_secs(90)));
    assert_eq!(code, Some(2), "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(!err.contains("times and were never"), "{err}");
    assert!(err.contains("server busy"), "{err}");
}

#[test]
fn every_command_against_a_separate_server() {
    let server = ServerProcess::start();
    let url = server.url.clone();
    let out = stdout(sudoku().args(["--server", &url, "--compress", "zstd", "solve", CLASSIC]));
    assert_solves(&grid(CLASSIC), &out);
    // host:port, as grpcurl takes it.
    let host_port = url.trim_start_matches("http://");
    let out = stdout(sudoku().args(["--server", host_port, "solve", CLASSIC]));
    assert_solves(&grid(CLASSIC), &out);
    // Several endpoints: requests spread over a balanced channel.
    let out = stdout(sudoku().args([
        "solve",
        CLASSIC,
        "--server",
        &url,
        "--server",
        &url,
        "--compress",
        "gzip",
    ]));
    assert_solves(&grid(CLASSIC), &out);
    let out = stdout(
        sudoku()
            .env("SUDOKU_SERVER", &url)
            .arg("batch")
            .write_stdin(format!("{CLASSIC}\n{CLASSIC}\n")),
    );
    assert_eq!(out.lines().count(), 2);
    // Compressed batches of several chunks each way: the same answers as plain.
    let many = format!("{CLASSIC}\n").repeat(3000);
    let plain = stdout(
        sudoku()
            .args(["--server", &url, "batch"])
            .write_stdin(many.clone()),
    );
    assert_eq!(plain.lines().count(), 3000);
    assert_solves(&grid(CLASSIC), plain.lines().next().unwrap_or(""));
    for codec in ["gzip", "zstd"] {
        let packed = stdout(
            sudoku()
                .args(["--server", &url, "--compress", codec, "batch"])
                .write_stdin(many.clone()),
        );
        assert_eq!(packed, plain, "{codec}");
    }
    sudoku()
        .args(["health", "--server", &url])
        .assert()
        .success()
        .stdout("SERVING\n");
    let dir = std::env::temp_dir().join(format!("sudoku-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("easy.txt");
    std::fs::write(&file, format!("{CLASSIC}\n")).unwrap();
    for mode in [&["--concurrency", "4"][..], &["--batch"][..]] {
        let out = stdout(
            sudoku()
                .args(["--server", &url, "bench", "--duration", "300ms", "--file"])
                .arg(&file)
                .args(mode),
        );
        assert!(out.starts_with("bench mode="), "{out}");
        assert!(out.contains("errors=0") && out.contains("p99_us="), "{out}");
    }
    drop(server);
}

#[test]
fn help_documents_exit_codes_and_completions_work() {
    let help = stdout(sudoku().arg("--help"));
    assert!(help.contains("Exit codes: 0 success"), "{help}");
    let help = stdout(sudoku().args(["solve", "--help"]));
    assert!(help.contains("Exit codes: 0 every puzzle solved"), "{help}");
    let script = stdout(sudoku().args(["completions", "bash"]));
    assert!(script.contains("_sudoku()"), "{script}");
}

#[test]
fn each_subcommand_help_gives_its_own_exit_codes() {
    let health = stdout(sudoku().args(["health", "--help"]));
    assert!(
        health.contains("Exit codes: 0 SERVING; 1 any other status (NOT_SERVING"),
        "{health}"
    );
    let hint = stdout(sudoku().args(["hint", "--help"]));
    assert!(
        hint.contains("Exit codes: 0 a step was found, or the grid is already solved"),
        "{hint}"
    );
    for page in [&health, &hint] {
        assert!(!page.contains("every puzzle solved"), "{page}");
    }
    let batch = stdout(sudoku().args(["batch", "--help"]));
    assert!(
        batch.contains("BatchSolvePacked") && !batch.contains("through BatchSolve;"),
        "{batch}"
    );
}

#[test]
fn health_without_a_server_is_an_error_not_a_passing_probe() {
    let output = sudoku().arg("health").output().unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(output.stdout.is_empty(), "nothing like SERVING on stdout");
    assert!(
        err.contains("health checks a remote server: pass --server URL or set SUDOKU_SERVER"),
        "{err}"
    );
    let output = sudoku()
        .env("SUDOKU_SERVER", "")
        .arg("health")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}

/// Every `--help` page, as a user sees it; `UPDATE_SNAPSHOTS=1` rewrites the snapshot.
#[test]
fn help_matches_the_snapshot() {
    let mut pages = String::new();
    for command in [
        &[][..],
        &["solve"],
        &["batch"],
        &["hint"],
        &["validate"],
        &["health"],
        &["bench"],
        &["completions"],
    ] {
        let help = success(
            sudoku()
                .env_remove("SUDOKU_CA_CERT")
                .args(command)
                .arg("--help"),
        );
        assert!(help.contains("Exit codes: 0 "), "{command:?}: {help}");
        pages.push_str(&format!("$ sudoku {} --help\n{help}\n", command.join(" ")));
    }
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/help.txt");
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &pages).unwrap();
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_SNAPSHOTS=1)", path.display()));
    assert!(
        pages == expected,
        "--help changed; review and run with UPDATE_SNAPSHOTS=1:\n{pages}"
    );
}

#[test]
fn zero_counts_and_durations_are_rejected_and_repeats_take_the_last() {
    for args in [
        &["solve", "--count", "0", CLASSIC][..],
        &["--timeout", "0", "solve", CLASSIC],
        &["bench", "--duration", "0s", "--file", "x"],
        &["bench", "--concurrency", "0", "--file", "x"],
        &["bench", "--duration", "100000000", "--file", "x"],
    ] {
        let output = sudoku().args(args).output().unwrap();
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("error: invalid value"), "{args:?}: {err}");
    }
    // As cargo does: the last of a repeated flag wins.
    let open = ".".repeat(81);
    let output = sudoku()
        .args([
            "--format", "json", "solve", "--count", "5", "--count", "1", &open,
        ])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(out.contains("\"outcome\":\"solved\""), "{out}");
}

#[test]
fn a_timeout_too_large_for_grpc_is_refused_by_name() {
    let output = sudoku()
        .args(["--timeout", "1000000000000s", "solve", CLASSIC])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.contains("for '--timeout <TIMEOUT>'")
            && err.contains("is above the maximum of 99999999s"),
        "{err}"
    );
    // The largest accepted still runs.
    let out = success(sudoku().args(["--timeout", "99999999s", "solve", CLASSIC]));
    assert_solves(&grid(CLASSIC), &out);
}

#[test]
fn one_bad_line_among_one_line_puzzles_loses_only_itself() {
    let dir = temp_dir("bad-line");
    let file = dir.join("mixed.txt");
    let short = &CLASSIC[..80];
    let hash = format!("{}#{}", &CLASSIC[..40], &CLASSIC[41..]);
    std::fs::write(
        &file,
        format!("{CLASSIC}\n{short}\n{CLASSIC} 1.5\n{hash}\n{CLASSIC}\n"),
    )
    .unwrap();
    let (code, out, err) = run(sudoku().args(["solve", "--file"]).arg(&file));
    assert_eq!(code, Some(1), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    for i in [0, 2, 4] {
        assert_solves(&grid(CLASSIC), lines[i]);
    }
    assert_eq!((lines[1], lines[3]), ("invalid", "invalid"));
    assert!(
        err.contains("error: puzzle 2 (line 2): wrong number of cells: found 80"),
        "{err}"
    );
    assert!(
        err.contains("error: puzzle 4 (line 4): row 5, column 5: '#' is not a digit"),
        "{err}"
    );
    // `rate` reads files the same way, and prints every input, the invalid ones too.
    let (code, out, err) = run(sudoku().args(["rate", "--file"]).arg(&file));
    assert_eq!(code, Some(1), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    for i in [0, 2, 4] {
        assert_eq!(lines[i], format!("{CLASSIC} 1.5"));
    }
    assert_eq!(lines[1], format!("{short} invalid"));
    assert_eq!(lines[3], format!("{hash} invalid"));
    assert!(
        err.contains("error: puzzle 2 (line 2): wrong number"),
        "{err}"
    );
    // A multi-line grid is still one puzzle.
    let rows: Vec<&str> = (0..9).map(|r| &CLASSIC[9 * r..9 * r + 9]).collect();
    std::fs::write(&file, format!("{}\n\n{CLASSIC}\n", rows.join("\n"))).unwrap();
    let out = success(sudoku().args(["solve", "--file"]).arg(&file));
    assert_eq!(out.lines().count(), 2, "{out}");
    out.lines()
        .for_each(|line| assert_solves(&grid(CLASSIC), line));
}

#[test]
fn batch_json_prints_only_what_the_packed_answers_carry() {
    let out = stdout(
        sudoku()
            .args(["--format", "json", "batch"])
            .write_stdin(format!("{CLASSIC}\nnot-a-puzzle\n")),
    );
    let values: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(values.len(), 2, "{out}");
    let answer = values[0].as_object().expect("an object");
    // What packed answers do not carry is null, never made up (and never left out).
    for unknown in ["id", "algorithm", "solve_micros"] {
        assert!(
            answer.get(unknown).is_some_and(|v| v.is_null()),
            "{unknown}: {out}"
        );
    }
    assert_eq!(values[0]["puzzle"], CLASSIC);
    assert_eq!(values[0]["index"], 0);
    assert_eq!(values[0]["outcome"], "unique");
    assert_eq!(values[0]["solutions_found"], 1);
    assert!(values[0]["guesses"].is_u64(), "{out}");
    assert!(values[0]["error"].is_null(), "{out}");
    assert_solves(&grid(CLASSIC), values[0]["solution"].as_str().unwrap_or(""));
    assert_eq!(values[1]["outcome"], "invalid");
    assert!(
        values[1]["error"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("wrong number of cells: found 12")),
        "{out}"
    );
}

#[test]
fn a_batch_whose_input_fails_at_once_prints_the_error_alone() {
    let dir = temp_dir("batch-fails");
    let missing = dir.join("missing.txt");
    let binary = dir.join("binary.txt");
    std::fs::write(&binary, b"\xff\xfe\n").unwrap();
    for file in [&missing, &binary] {
        let output = sudoku().arg("batch").arg(file).output().unwrap();
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{err}");
        assert_eq!(err.lines().count(), 1, "the error alone: {err}");
        assert!(err.starts_with("error: "), "{err}");
        assert!(!err.contains("puzzles:"), "no summary: {err}");
    }
    // After some answers, the summary says how far it got.
    let late = dir.join("late.txt");
    let mut bytes = format!("{CLASSIC}\n").repeat(3000).into_bytes();
    bytes.extend_from_slice(b"\xff\n");
    std::fs::write(&late, bytes).unwrap();
    let output = sudoku().arg("batch").arg(&late).output().unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("line 3001: not UTF-8 text"), "{err}");
    assert!(err.contains("3000 puzzles: "), "the summary: {err}");
    // Every puzzle read before the error is answered, the last chunk's too.
    let out = String::from_utf8_lossy(&output.stdout);
    assert_eq!(out.lines().count(), 3000);
    assert_solves(&grid(CLASSIC), out.lines().last().unwrap_or_default());
}

#[test]
fn a_read_error_after_a_bad_line_ends_the_batch_with_every_answer_before_it() {
    // The bad line is answered at once, ahead of the chunk of the puzzles before it; the
    // reader's error must not strand that chunk, or the printer waits for it for ever.
    let dir = temp_dir("batch-error-after-invalid");
    let file = dir.join("puzzles.txt");
    let mut bytes = format!("{CLASSIC}\n{CLASSIC}\nnot a puzzle\n").into_bytes();
    bytes.extend_from_slice(b"\xff\n");
    std::fs::write(&file, bytes).unwrap();
    let (code, out, err) = run(sudoku()
        .args(["--format", "line", "batch"])
        .arg(&file)
        .timeout(std::time::Duration::from_secs(30)));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("line 4: not UTF-8 text"), "{err}");
    assert!(
        err.contains("3 puzzles: "),
        "the summary counts all three: {err}"
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert_solves(&grid(CLASSIC), lines[0]);
    assert_solves(&grid(CLASSIC), lines[1]);
    assert_eq!(lines[2], "invalid");
}

#[test]
fn a_blank_last_line_on_a_live_pipe_does_not_hold_back_the_puzzles_before_it() {
    use std::io::{BufRead, Write};
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_sudoku"));
    let mut child = std::process::Command::new(&binary)
        .args(["--format", "line", "batch"])
        .env_remove("SUDOKU_SERVER")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("sudoku starts");
    let mut stdin = child.stdin.take().expect("stdin");
    // The pipe stays open: more puzzles may come, but these must be answered now.
    write!(stdin, "{CLASSIC}\n\n# more to come\n").expect("written");
    stdin.flush().expect("flushed");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = std::io::BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let answer = rx.recv_timeout(std::time::Duration::from_secs(20));
    drop(stdin);
    let _ = child.wait();
    let answer = answer.expect("the answer while the input is still open");
    assert_solves(&grid(CLASSIC), answer.trim_end());
}

/// The resident memory of process `pid`, in KiB.
fn resident_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn a_batch_whose_output_nobody_reads_stops_reading_its_input() {
    // 400,000 puzzles (33 MB), answered into a pipe nobody reads for a while: the answers
    // that cannot be printed must hold the reader back (at most 65,536 puzzles ahead), not
    // pile up (they took 45 MB for 196,000 puzzles).
    read_with_the_output_blocked("puzzles", CLASSIC);
}

#[test]
fn a_batch_of_bad_lines_whose_output_nobody_reads_stops_reading_its_input() {
    // Lines that do not parse are answered without a chunk, each with its error: they hold
    // the reader back like puzzles (400,000 of them took 75 MB before).
    read_with_the_output_blocked("bad-lines", "not a puzzle");
}

/// Runs `batch` on 400,000 copies of `line` with nobody reading its output for 4 s: memory
/// must stay bounded, and every answer come once the output is read.
fn read_with_the_output_blocked(name: &str, line: &str) {
    use std::io::Read;
    const LINES: usize = 400_000;
    let dir = temp_dir(&format!("batch-output-blocked-{name}"));
    let file = dir.join("input.txt");
    std::fs::write(&file, format!("{line}\n").repeat(LINES)).unwrap();
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_sudoku"));
    let mut child = std::process::Command::new(&binary)
        .args(["--format", "line", "batch"])
        .arg(&file)
        .env_remove("SUDOKU_SERVER")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("sudoku starts");
    let mut most = 0;
    let until = std::time::Instant::now() + std::time::Duration::from_secs(4);
    while std::time::Instant::now() < until {
        most = most.max(resident_kib(child.id()).unwrap_or(0));
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let mut out = String::new();
    let mut stdout = child.stdout.take().expect("stdout");
    stdout.read_to_string(&mut out).expect("the answers");
    let status = child.wait().expect("ends");
    assert_eq!(
        out.lines().count(),
        LINES,
        "every answer once the pipe is read"
    );
    assert!(most > 0, "the memory was seen");
    // The embedded server's own code and buffers take some 30 MB; answers piling up took 45
    // to 75 MB more.
    assert!(
        most < 40 << 10,
        "{most} KiB resident while the output was blocked"
    );
    // Bad lines fail the batch (exit 1); puzzles that all solve do not.
    assert_eq!(status.success(), line == CLASSIC, "{status:?}");
}

#[test]
fn bench_says_which_server_and_names_lines_it_leaves_out() {
    let dir = temp_dir("bench-lines");
    let file = dir.join("mixed.txt");
    std::fs::write(
        &file,
        format!("{CLASSIC}\n# a comment\nnot-a-puzzle\n{CLASSIC}\n"),
    )
    .unwrap();
    let output = sudoku()
        .args([
            "bench",
            "--duration",
            "100ms",
            "--concurrency",
            "1",
            "--file",
        ])
        .arg(&file)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!(err.contains("benchmarking the embedded server"), "{err}");
    assert!(
        err.contains(&format!(
            "left out {} line 3: wrong number of cells: found 12",
            file.display()
        )),
        "{err}"
    );
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("bench mode=unary"));
    // One stream has no concurrency to set: asking for both is a usage error, not ignored.
    let output = sudoku()
        .args(["bench", "--batch", "--concurrency", "4", "--file"])
        .arg(&file)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("--concurrency"), "{err}");
}

#[test]
fn with_several_dead_servers_an_error_names_the_server_that_failed() {
    let output = sudoku()
        .args([
            "--server",
            "http://127.0.0.1:1,http://127.0.0.1:2",
            "solve",
            CLASSIC,
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{err}");
    let last = err.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("error: puzzle 1 (argument 1): http://127.0.0.1:"),
        "{err}"
    );
    assert!(!last.contains(", http://"), "one server named: {err}");
    assert!(err.contains("sudoku: lost http://127.0.0.1:"), "{err}");
}

/// Runs `sh -c script` in `dir`; `false` when the shell or a command in it failed.
fn shell(dir: &std::path::Path, script: &str) -> bool {
    std::process::Command::new("sh")
        .args(["-c", script])
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Held by the TLS test and the lost-server test, which both start server processes and
/// watch them closely.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn tls_with_the_operations_recipe() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let guide = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/operations.md"
    ))
    .expect("docs/operations.md");
    let section = guide
        .split("### TLS for testing")
        .nth(1)
        .and_then(|s| s.split("```sh\n").nth(1))
        .and_then(|s| s.split("\n\nsudoku-server").next())
        .expect("the operations guide's TLS recipe");
    let dir = temp_dir("tls");
    if !shell(&dir, "openssl version") {
        if std::env::var_os("CI").is_some() {
            panic!("openssl is needed for this test in CI");
        }
        eprintln!("SKIP: openssl not found; the TLS recipe is untested");
        return;
    }
    assert!(shell(&dir, section), "the recipe runs:\n{section}");
    let (cert, key, ca) = (
        dir.join("server.pem"),
        dir.join("server.key"),
        dir.join("ca.pem"),
    );
    let (cert, key, ca) = (
        cert.to_str().unwrap(),
        key.to_str().unwrap(),
        ca.to_str().unwrap(),
    );
    let server = ServerProcess::start_with(
        &["--tls-cert", cert, "--tls-key", key],
        "https://127.0.0.1",
        &["--ca-cert", ca],
    );
    let out = success(sudoku().args(["--server", &server.url, "--ca-cert", ca, "solve", CLASSIC]));
    assert_solves(&grid(CLASSIC), &out);
    // Without --ca-cert the system's roots are used, and they do not know the test CA (a
    // machine with no roots at all says "no native certs found").
    let output = sudoku()
        .args(["--server", &server.url, "health"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("cert"), "{err}");
    assert!(
        err.contains("(pass --ca-cert with the CA that signed the server's certificate)"),
        "{err}"
    );
    // Plain HTTP/2 to a TLS server is named as such.
    let plain = server.url.replace("https://", "");
    let output = sudoku()
        .args(["--server", &plain, "health"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("if it speaks TLS, use https://"), "{err}");
}

#[test]
fn a_lost_server_is_named_and_the_summary_still_printed() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let server = ServerProcess::start_with(&["--workers", "1"], "http://127.0.0.1", &[]);
    let puzzles = format!("{SLOW_FOR_BACKTRACKING}\n").repeat(200);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_sudoku"))
        .args([
            "--server",
            &server.url,
            "batch",
            "--algorithm",
            "backtracking",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(puzzles.as_bytes()).unwrap();
    drop(stdin);
    std::thread::sleep(std::time::Duration::from_millis(500));
    let _ = std::process::Command::new("kill")
        .args(["-KILL", &server.child.id().to_string()])
        .status();
    let output = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("lost the connection to {} after", server.url)),
        "{err}"
    );
    assert!(err.contains(" of 200 answers"), "{err}");
    assert!(err.contains("the connection was lost"), "{err}");
    assert!(
        !err.contains("TLS"),
        "a lost connection is not a TLS mix-up: {err}"
    );
    assert!(err.contains("puzzles: "), "the summary: {err}");
    drop(server);
}

#[test]
fn a_dead_server_is_not_retried_once_every_answer_is_in() {
    let server = ServerProcess::start();
    let puzzles = (0..20).map(relabelled).collect::<Vec<_>>().join("\n") + "\n";
    let started = std::time::Instant::now();
    let (code, out, err) = run(sudoku()
        .args(["--format", "line", "batch"])
        .args(["--server", &server.url, "--server", "http://127.0.0.1:1"])
        .write_stdin(puzzles)
        .timeout(std::time::Duration::from_secs(30)));
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out.lines().count(), 20);
    // The closing line is the last word: no retry of the dead server after it.
    let last = err.lines().last().unwrap_or_default();
    assert!(last.starts_with("20 puzzles: "), "{err}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "{err}"
    );
}

#[test]
fn a_batch_over_three_servers_survives_losing_one() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let servers: Vec<ServerProcess> = (0..3)
        .map(|_| {
            let flags = ["--workers", "1", "--max-solve-ms", "60000"];
            ServerProcess::start_with(&flags, "http://127.0.0.1", &[])
        })
        .collect();
    // One by name: it is resolved, and its address is named.
    let by_name = servers[2].url.replace("127.0.0.1", "localhost");
    let urls = [servers[0].url.as_str(), servers[1].url.as_str(), &by_name];
    // Two puzzles in turn, so an answer out of place shows; the slow one keeps every server
    // busy long enough to lose one mid-batch.
    // Enough chunks (3,000 puzzles, up to 256 a chunk, 3 in flight a server) that every server
    // holds some when one is killed.
    let inputs: Vec<&str> = (0..3000)
        .map(|i| {
            if i % 333 == 0 {
                SLOW_FOR_BACKTRACKING
            } else if i % 2 == 0 {
                EASY_6X6
            } else {
                CLASSIC
            }
        })
        .collect();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_sudoku"))
        .args([
            "-v",
            "--server",
            &urls.join(","),
            "batch",
            "--algorithm",
            "backtracking",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    let mut stdin = child.stdin.take().unwrap();
    // Written while the answers are read, as a pipeline does: sudoku reads only so far ahead
    // of what it has printed.
    let input = inputs.join("\n");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    std::thread::sleep(std::time::Duration::from_millis(300));
    let _ = std::process::Command::new("kill")
        .args(["-KILL", &servers[1].child.id().to_string()])
        .status();
    let output = child.wait_with_output().unwrap();
    writer
        .join()
        .expect("the input is written")
        .expect("written whole");
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!(
        err.contains(&format!("lost {}", servers[1].url)) && err.contains("re-sending its"),
        "a line says what happened: {err}"
    );
    let port = by_name.rsplit(':').next().unwrap_or_default();
    assert!(
        err.contains(&format!("sending puzzles to {by_name} (127.0.0.1:{port})")),
        "{err}"
    );
    let out = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), inputs.len(), "every answer exactly once");
    for (line, puzzle) in lines.iter().zip(&inputs) {
        assert_solves(&grid(puzzle), line);
    }
    // A dead server among several does not fail `solve` either.
    let out = success(sudoku().args([
        "--server",
        &format!("{},{}", servers[0].url, servers[1].url),
        "solve",
        CLASSIC,
        CLASSIC,
        CLASSIC,
        CLASSIC,
    ]));
    assert_eq!(out.lines().count(), 4);
    for line in out.lines() {
        assert_solves(&grid(CLASSIC), line);
    }
}

/// Flags for a server whose receive budget (a fifth of its memory budget) one unfinished
/// 4,096-byte message fills, so that [`run_while_busy`] can make it busy.
const BUSY_FLAGS: [&str; 4] = ["--workers", "1", "--memory-budget", "40960"];

/// Opens a Solve call on `url`'s server whose 4,096-byte message never finishes arriving,
/// holding the server's whole receive budget, and resets it after `hold`.
fn hold_receive_budget(url: &str, hold: std::time::Duration) -> std::thread::JoinHandle<()> {
    let addr: std::net::SocketAddr = url
        .trim_start_matches("http://")
        .parse()
        .expect("a loopback address");
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        runtime.block_on(async move {
            let tcp = tokio::net::TcpStream::connect(addr)
                .await
                .expect("connects");
            let (send, connection) = h2::client::handshake(tcp).await.expect("h2 handshake");
            tokio::spawn(connection);
            let mut send = send.ready().await.expect("ready");
            let head = http::Request::builder()
                .method("POST")
                .uri(format!("http://{addr}/sudoku.v1.Sudoku/Solve"))
                .header("content-type", "application/grpc")
                .header("te", "trailers")
                .body(())
                .expect("a request head");
            let (_response, mut body) = send.send_request(head, false).expect("sent");
            // A message of 4,096 bytes, of which 3 ever come.
            body.send_data(bytes::Bytes::from_static(b"\0\0\0\x10\0abc"), false)
                .expect("sent");
            tokio::time::sleep(hold).await;
            body.send_reset(h2::Reason::CANCEL);
        });
    })
}

/// `sudoku --server URL ARGS` started while an unfinished message holds the receive budget of
/// `server` (started with [`BUSY_FLAGS`]) for 1.5 s: its first call waits a second for room
/// and is refused RESOURCE_EXHAUSTED; the command's output.
fn run_while_busy(server: &ServerProcess, args: &[&str]) -> std::process::Output {
    let hold = hold_receive_budget(&server.url, std::time::Duration::from_millis(1500));
    std::thread::sleep(std::time::Duration::from_millis(300));
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_sudoku"))
        .args(["--server", &server.url])
        .args(args)
        .output()
        .expect("the command runs");
    hold.join().expect("the hold ends");
    output
}

#[test]
fn a_busy_server_is_tried_again_and_a_big_solve_suggests_batch() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let server = ServerProcess::start_with(&BUSY_FLAGS, "http://127.0.0.1", &[]);
    let output = run_while_busy(&server, &["solve", CLASSIC]);
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!(
        err.contains("the server is busy"),
        "the retry is said: {err}"
    );
    assert_solves(
        &grid(CLASSIC),
        String::from_utf8_lossy(&output.stdout).trim(),
    );
    // Many puzzles, one call each: `batch` is suggested.
    let dir = temp_dir("suggest");
    let file = dir.join("many.txt");
    std::fs::write(&file, format!("{CLASSIC}\n").repeat(1000)).unwrap();
    let output = sudoku()
        .args(["solve", "--file"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("`sudoku batch`"));
}

#[test]
fn a_batch_on_a_busy_server_waits_for_it() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let server = ServerProcess::start_with(&BUSY_FLAGS, "http://127.0.0.1", &[]);
    let dir = temp_dir("busy-batch");
    let file = dir.join("puzzles.txt");
    std::fs::write(&file, format!("{CLASSIC}\n").repeat(3)).unwrap();
    let file = file.to_str().unwrap();
    let output = run_while_busy(&server, &["--format", "line", "batch", file]);
    let err = String::from_utf8_lossy(&output.stderr);
    // Until now a lone server's RESOURCE_EXHAUSTED ended the batch (exit 2) at once.
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!(err.contains("is busy"), "the wait is said: {err}");
    assert!(err.contains("trying again"), "{err}");
    let out = String::from_utf8_lossy(&output.stdout);
    assert_eq!(out.lines().count(), 3, "{out}");
    for line in out.lines() {
        assert_solves(&grid(CLASSIC), line);
    }
}

#[test]
fn colour_only_when_asked_and_never_with_no_color() {
    let run = |env: &[(&str, &str)]| {
        let mut cmd = sudoku();
        cmd.env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let output = cmd
            .args(["--format", "pretty", "solve", CLASSIC])
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    assert!(!run(&[]).contains('\x1b'), "no colour into a pipe");
    assert!(run(&[("CLICOLOR_FORCE", "1")]).contains("\x1b[32m"));
    assert!(!run(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]).contains('\x1b'));
}
