//! End-to-end: the real `sudoku` binary against its embedded server and a separately started one.

use std::path::PathBuf;

use assert_cmd::Command;
use solver_core::Grid;

const CLASSIC: &str =
    "3.65.84..52........87....31..3.1..8.9..863..5.5..9.6..13....25........74..52.63..";
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
    let solution = solver_core::parse(line.trim(), Some(puzzle.shape())).expect("a grid");
    assert!(
        solution.is_solution_of(puzzle),
        "{line} does not solve {puzzle:?}"
    );
}

fn data_file(name: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("SUDOKU_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data"));
    let path = dir.join(name);
    if path.exists() {
        Some(path)
    } else {
        eprintln!("skipping: {} not found (set SUDOKU_DATA)", path.display());
        None
    }
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
    // A 6x6 grid with tall boxes needs --box.
    let tall = solver_core::parse(
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
    assert_eq!(values[0]["puzzle"], 1);
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
fn pretty_output_is_a_boxed_grid_and_a_verdict() {
    let out = stdout(sudoku().args(["solve", "--format", "pretty", CLASSIC]));
    assert!(out.contains("------+-------+------"), "{out}");
    assert!(
        out.contains("puzzle 1 (argument 1): unique solution"),
        "{out}"
    );
    let grid_text: String = out.lines().take(11).collect::<Vec<_>>().join("\n");
    assert_solves(&grid(CLASSIC), &grid(&grid_text).to_line());
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
    let Some(path) = data_file("puzzles5_forum_hardest_1905_11+") else {
        return;
    };
    let text = std::fs::read_to_string(&path).unwrap();
    let puzzles: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .take(10_000)
        .collect();
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
        assert_eq!(answer["puzzle"], i + 1, "input order");
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
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("sudoku-server starts");
        // Owned by the guard at once, so a failed start still stops the process.
        let server = ServerProcess {
            child,
            url: format!("http://127.0.0.1:{port}"),
        };
        // Ready when the health check answers.
        for _ in 0..200 {
            if sudoku()
                .args(["health", "--server", &server.url])
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

#[test]
fn every_command_against_a_separate_server() {
    let server = ServerProcess::start();
    let url = server.url.clone();
    let out = stdout(sudoku().args(["--server", &url, "--compress", "zstd", "solve", CLASSIC]));
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
    sudoku()
        .args(["health", "--server", &url])
        .assert()
        .success()
        .stdout("SERVING\n");
    let dir = std::env::temp_dir().join(format!("sudoku-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("easy.txt");
    std::fs::write(&file, format!("{CLASSIC}\n")).unwrap();
    for extra in [&[][..], &["--batch"][..]] {
        let out = stdout(
            sudoku()
                .args([
                    "--server",
                    &url,
                    "bench",
                    "--concurrency",
                    "4",
                    "--duration",
                    "300ms",
                    "--file",
                ])
                .arg(&file)
                .args(extra),
        );
        assert!(out.starts_with("bench mode="), "{out}");
        assert!(out.contains("errors=0") && out.contains("p99_us="), "{out}");
    }
    drop(server);
}

#[test]
fn help_documents_exit_codes_and_completions_work() {
    let help = stdout(sudoku().arg("--help"));
    assert!(help.contains("Exit codes: 0 every puzzle solved"), "{help}");
    let script = stdout(sudoku().args(["completions", "bash"]));
    assert!(script.contains("_sudoku()"), "{script}");
    sudoku()
        .arg("health")
        .assert()
        .success()
        .stdout("SERVING\n");
}
