//! `sudoku`: parse flags, run one command, turn the result into exit codes 0/1/2.

mod batch;
mod bench;
mod cli;
mod conn;
mod generate;
mod health;
mod hint;
mod input;
mod output;
mod pencil;
mod rate;
mod request;
mod server_url;
mod shown;
mod solve;
mod style;
mod validate;

use std::io::{IsTerminal, Write};

use anyhow::Context;
use clap::{CommandFactory, Parser};

use crate::cli::{Cli, Command, Format};
use crate::conn::Connection;
use crate::output::Printer;

fn main() {
    style::init();
    let cli = Cli::parse();
    if let Command::Completions { shell } = cli.command {
        // Into memory first: clap_complete panics on a write error, we report it.
        let mut script = Vec::new();
        clap_complete::generate(shell, &mut Cli::command(), "sudoku", &mut script);
        std::process::exit(exit_code(write_stdout(&script).map(|()| true)));
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(async_workers(&cli))
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("error: cannot start the async runtime: {err}");
            std::process::exit(2);
        }
    };
    let code = exit_code(runtime.block_on(run(cli)));
    if let Some(summary) = shown::summary() {
        eprintln!("{summary}");
    }
    // The runtime is not dropped: its threads, and an embedded server's, end with the
    // process, with nothing to wait for (stdout is flushed by `exit`).
    std::process::exit(code)
}

/// Async worker threads: tokio's one per core, or the server's own default beside the
/// embedded server (one per two cores), whose solver threads take a core each while its async
/// share (HTTP/2 both ways) is a fraction of the solving: on 2 cores, one async thread gave
/// the solvers 2% more of the CPU on a batch of easy puzzles (fewer hand-overs).
fn async_workers(cli: &Cli) -> usize {
    if conn::is_embedded(&cli.global) {
        sudoku_server::Config::embedded().async_worker_count()
    } else {
        sudoku_server::cores()
    }
}

/// Writes all of `bytes` to stdout and flushes, so a full disk is an error, not a panic.
pub fn write_stdout(bytes: &[u8]) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .context("cannot write to stdout")
}

/// The one exit path: 0 all solved, 1 some not, 2 an error; a closed pipe is a normal end.
fn exit_code(result: anyhow::Result<bool>) -> i32 {
    match result {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(err) if is_broken_pipe(&err) => 0,
        Err(err) if err.is::<request::NoPuzzles>() => {
            eprintln!("{} {err}", error_word());
            1
        }
        Err(err) => {
            let line = one_line(&err);
            match conn::advice(&line) {
                Some(advice) => eprintln!("{} {line} {advice}", error_word()),
                None => eprintln!("{} {line}", error_word()),
            }
            2
        }
    }
}

/// Runs the command; `Ok(false)` when some puzzle was not solved.
async fn run(cli: Cli) -> anyhow::Result<bool> {
    // A batch reads its first puzzles while the connection opens.
    let input = match &cli.command {
        Command::Batch(args) => Some(batch::Input::start(
            args,
            batch::Pace::for_embedded(conn::is_embedded(&cli.global)),
        )?),
        _ => None,
    };
    let conn = std::sync::Arc::new(Connection::open(&cli.global).await?);
    let format = cli
        .global
        .format
        .unwrap_or(if std::io::stdout().is_terminal() {
            Format::Pretty
        } else {
            Format::Line
        });
    let printer = Printer::new(format);
    let result = match &cli.command {
        Command::Solve(args) => solve::run(&conn, args, &printer)
            .await
            .map(|t| t.failed == 0),
        Command::Batch(args) => {
            let input = match input {
                Some(input) => input,
                None => batch::Input::start(args, batch::Pace::of(&conn))?,
            };
            batch::run(conn.clone(), args, input, &printer, cli.global.verbose)
                .await
                .map(|t| t.failed == 0)
        }
        Command::Rate(args) => rate::run(&conn, args, format).await,
        Command::Hint(args) => hint::hint(&conn, args, format).await,
        Command::Explain(args) => hint::explain(&conn, args, format).await,
        Command::Validate(args) => validate::run(&conn, args, format).await,
        Command::Generate(args) => generate::run(&conn, args, format).await,
        Command::Health => health::run(&conn, format).await,
        Command::Bench(args) => bench::run(&conn, args, format).await,
        Command::Completions { .. } => Ok(true),
    };
    // Every task that shared the connection has ended by now, but for the streams of a batch
    // on the embedded server, which go with the process.
    if let Ok(conn) = std::sync::Arc::try_unwrap(conn) {
        conn.close().await?;
    }
    result
}

/// `error:`, in red where colour is on.
pub fn error_word() -> console::StyledObject<&'static str> {
    style::err(style::Tone::Bad, "error:")
}

/// The error and its causes on one line. The transport stack wraps one I/O error in several
/// layers with the same text, so a cause that repeats the one before is dropped.
fn one_line(err: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if parts.last() != Some(&text) {
            parts.push(text);
        }
    }
    parts.join(": ")
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
