//! The docs cannot drift from the code: every command in a `console` block of the README and
//! the guides under docs/ is run as written (against the embedded server, offline) and its
//! output compared with what the page shows; the operations guide has a row for each flag of
//! `sudoku-server`; and the files and links the pages name exist.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The pages whose `console` blocks are run.
const PAGES: [&str; 3] = ["README.md", "docs/cli.md", "docs/operations.md"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_path_buf()
}

fn read(page: &str) -> String {
    std::fs::read_to_string(root().join(page)).unwrap_or_else(|e| panic!("{page}: {e}"))
}

/// A command shown on a page and the output shown after it.
struct Example {
    line: usize,
    command: String,
    output: Vec<String>,
}

/// The `console` blocks of a page, each a list of `$ command` lines with their output.
fn console_blocks(text: &str) -> Vec<Vec<Example>> {
    let mut blocks = Vec::new();
    let mut block: Option<Vec<Example>> = None;
    for (i, line) in text.lines().enumerate() {
        match &mut block {
            None if line.trim_end() == "```console" => block = Some(Vec::new()),
            None => {}
            Some(_) if line.trim_end() == "```" => blocks.extend(block.take()),
            Some(examples) => match line.strip_prefix("$ ") {
                Some(command) => examples.push(Example {
                    line: i + 1,
                    command: command.to_owned(),
                    output: Vec::new(),
                }),
                None => match examples.last_mut() {
                    Some(example) => example.output.push(line.to_owned()),
                    None => panic!("line {}: output before any `$ ` command", i + 1),
                },
            },
        }
    }
    assert!(block.is_none(), "a console block is not closed");
    blocks
}

/// Whether `actual` is `expected`, where each `…` in `expected` stands for any text.
fn matches(expected: &str, actual: &str) -> bool {
    let parts: Vec<&str> = expected.split('…').collect();
    let (first, rest) = parts.split_first().expect("split yields one part");
    let Some(mut left) = actual.strip_prefix(first) else {
        return false;
    };
    let Some((last, middle)) = rest.split_last() else {
        return left.is_empty();
    };
    for part in middle {
        match left.find(part) {
            Some(at) => left = &left[at + part.len()..],
            None => return false,
        }
    }
    left.len() >= last.len() && left.ends_with(last)
}

/// Lines with trailing spaces and trailing blank lines dropped.
fn lines(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text.lines().map(|l| l.trim_end().to_owned()).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

/// Runs `command` in `dir` with the built `sudoku` first on the PATH, stdout and stderr
/// together in the order written.
fn run(dir: &Path, command: &str) -> String {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_sudoku"));
    let bin_dir = bin.parent().expect("the binary's folder");
    let path = std::env::join_paths(std::iter::once(bin_dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("a PATH");
    let output = assert_cmd::Command::new("sh")
        .args(["-c", &format!("exec 2>&1; {command}")])
        .current_dir(dir)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("SUDOKU_SERVER")
        .timeout(Duration::from_secs(60))
        .output()
        .expect("sh runs");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn every_console_example_prints_what_the_page_shows() {
    let mut ran = 0;
    for page in PAGES {
        for (b, block) in console_blocks(&read(page)).into_iter().enumerate() {
            // Each block in a folder of its own: its commands may leave files for the next.
            let dir = std::env::temp_dir().join(format!(
                "sudoku-docs-{}-{}-{b}",
                std::process::id(),
                page.replace('/', "-")
            ));
            std::fs::create_dir_all(&dir).expect("a temp folder");
            for example in block {
                let actual = lines(&run(&dir, &example.command));
                let expected = lines(&example.output.join("\n"));
                let same = actual.len() == expected.len()
                    && expected.iter().zip(&actual).all(|(e, a)| matches(e, a));
                assert!(
                    same,
                    "{page} line {}: `{}` printed\n{}\n\nbut the page shows\n{}",
                    example.line,
                    example.command,
                    actual.join("\n"),
                    expected.join("\n")
                );
                ran += 1;
            }
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
    assert!(ran >= 15, "only {ran} examples found");
}

#[test]
fn the_wildcard_matches_only_what_it_should() {
    assert!(matches("a … b", "a 12 µs b"));
    assert!(matches("x=… y=…", "x=1 y=2"));
    assert!(matches("exact", "exact"));
    assert!(!matches("exact", "exactly"));
    assert!(!matches("a … b", "a 12 c"));
    assert!(!matches("ab…ba", "aba"));
}

/// The flags of `sudoku-server --help` (less help and version), with their variables.
fn server_flags() -> BTreeSet<(String, String)> {
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_sudoku")).with_file_name("sudoku-server");
    assert!(
        binary.exists(),
        "{} missing: run `cargo build -p sudoku-server` first",
        binary.display()
    );
    let help = std::process::Command::new(binary)
        .arg("--help")
        .output()
        .expect("sudoku-server --help runs");
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    let mut flags = BTreeSet::new();
    let mut current: Option<String> = None;
    for line in help.lines() {
        let line = line.trim();
        if let Some(flag) = line.strip_prefix("--") {
            current = Some(format!("--{}", flag.split(' ').next().unwrap_or(flag)));
        } else if let Some(env) = line.strip_prefix("[env: ") {
            let flag = current.take().expect("[env: …] under a flag");
            flags.insert((flag, env.trim_end_matches("=]").to_owned()));
        }
    }
    flags
}

#[test]
fn the_operations_guide_has_a_row_for_each_server_flag() {
    let page = read("docs/operations.md");
    let rows: BTreeSet<(String, String)> = page
        .lines()
        .filter_map(|line| line.strip_prefix("| `--"))
        .map(|row| {
            let (flag, rest) = row.split_once('`').expect("a flag in backquotes");
            let env = rest
                .split_once("(`")
                .and_then(|(_, env)| env.split_once('`'))
                .map_or("", |(env, _)| env);
            (format!("--{flag}"), env.to_owned())
        })
        .collect();
    let flags = server_flags();
    assert!(
        flags.len() >= 10,
        "too few flags read from --help: {flags:?}"
    );
    let missing: Vec<_> = flags.difference(&rows).collect();
    let stale: Vec<_> = rows.difference(&flags).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "docs/operations.md lacks rows for {missing:?} and has rows for {stale:?}, which \
         sudoku-server does not take"
    );
}

/// The repository paths a page names in backquotes or links to.
fn named_paths(page: &str, text: &str) -> Vec<PathBuf> {
    let base = root().join(page);
    let base = base.parent().expect("the page's folder");
    let mut paths = Vec::new();
    for (i, piece) in text.split("](").enumerate() {
        if i == 0 {
            continue;
        }
        let target = piece.split(')').next().unwrap_or("");
        let target = target.split('#').next().unwrap_or("");
        if !target.is_empty() && !target.contains("://") {
            paths.push(base.join(target));
        }
    }
    for piece in text.split('`').skip(1).step_by(2) {
        let repo_file = [
            "deploy/",
            "server/src/",
            "client/tests/",
            "examples/",
            "docs/",
        ]
        .iter()
        .any(|dir| piece.starts_with(dir));
        if repo_file && !piece.contains(['*', ' ', '…']) {
            paths.push(root().join(piece));
        }
    }
    paths
}

#[test]
fn the_files_and_links_the_docs_name_exist() {
    for page in PAGES.iter().chain(&["docs/api.md"]) {
        let text = read(page);
        for path in named_paths(page, &text) {
            assert!(
                path.exists(),
                "{page} names {}, which is missing",
                path.display()
            );
        }
    }
    // The headless Service the operations guide uses is shipped.
    let headless = read("deploy/kubernetes/service-headless.yaml");
    assert!(headless.contains("name: sudoku-headless") && headless.contains("clusterIP: None"));
    assert!(read("docs/operations.md").contains("http://sudoku-headless:50051"));
}

#[test]
fn virtual_environments_are_not_committed() {
    let ignored = |path: &str| {
        std::process::Command::new("git")
            .args(["check-ignore", "-q", path])
            .current_dir(root())
            .status()
    };
    match ignored("examples/python/.venv/bin/python") {
        Ok(status) if status.code() == Some(128) || status.code().is_none() => {
            // Not a git checkout (a source archive): nothing can be committed from here.
            assert!(
                std::env::var_os("CI").is_none(),
                "CI runs in a git checkout"
            );
            eprintln!("SKIP: not a git checkout");
        }
        Ok(status) => {
            assert!(status.success(), "examples/python/.venv is not ignored");
            assert_eq!(
                ignored(".venv/bin/python").map(|s| s.success()).ok(),
                Some(true)
            );
        }
        Err(e) => {
            assert!(std::env::var_os("CI").is_none(), "git is needed in CI: {e}");
            eprintln!("SKIP: git not found: {e}");
        }
    }
}
