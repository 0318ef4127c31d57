//! `sudoku`: parse flags, run one command, turn the result into exit codes 0/1/2.

mod batch;
mod bench;
mod cli;
mod conn;
mod health;
mod input;
mod output;
mod solve;

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use crate::cli::{Cli, Command, Format};
use crate::conn::Connection;
use crate::output::Printer;

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Command::Completions { shell } = cli.command {
        clap_complete::generate(shell, &mut Cli::command(), "sudoku", &mut std::io::stdout());
        return ExitCode::SUCCESS;
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("error: cannot start the async runtime: {err}");
            return ExitCode::from(2);
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {}", one_line(&err));
            ExitCode::from(2)
        }
    }
}

/// Runs the command; `Ok(false)` when some puzzle was not solved.
async fn run(cli: Cli) -> anyhow::Result<bool> {
    let conn = Connection::open(&cli.global).await?;
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
        Command::Batch(args) => batch::run(&conn, args, &printer)
            .await
            .map(|t| t.failed == 0),
        Command::Health => health::run(&conn).await,
        Command::Bench(args) => bench::run(&conn, args).await,
        Command::Completions { .. } => Ok(true),
    };
    conn.close().await?;
    result
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

/// A gRPC status as a one-line error: unreachable servers say so plainly.
pub fn status_error(status: tonic::Status) -> anyhow::Error {
    match status.code() {
        tonic::Code::Unavailable => anyhow::anyhow!("server unavailable: {}", status.message()),
        code => anyhow::anyhow!("{} ({code:?})", status.message()),
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
