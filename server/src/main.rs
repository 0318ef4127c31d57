//! `sudoku-server`: parse the configuration, start, drain on SIGTERM/SIGINT, exit 0; a second
//! signal during the drain exits at once.

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;
use sudoku_server::{Config, LogFormat, Signal};
use tracing_subscriber::EnvFilter;

/// Exit status when a second signal cuts the drain short: 128 + SIGINT, as shells report it.
const INTERRUPTED: u8 = 130;

fn main() -> ExitCode {
    let mut config = Config::parse();
    config.apply_memory_budget();
    init_logs(config.log_format);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(config.async_worker_count())
        .enable_all()
        .build();
    let result = match runtime {
        Ok(runtime) => runtime.block_on(run(config)),
        Err(err) => Err(anyhow::Error::new(err).context("cannot start the async runtime")),
    };
    result.unwrap_or_else(|err| {
        tracing::error!("{err:#}");
        ExitCode::FAILURE
    })
}

/// Logs to stderr; colour only on a terminal and never when NO_COLOR is set (and non-empty).
fn init_logs(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let logs = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(!no_color && std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    match format {
        LogFormat::Text => logs.init(),
        LogFormat::Json => logs.json().init(),
    }
}

async fn run(config: Config) -> anyhow::Result<ExitCode> {
    let server = sudoku_server::start(config).await?;
    let mut signal = Signal::new();
    signal.recv().await;
    tokio::select! {
        result = server.shutdown() => result.map(|()| ExitCode::SUCCESS),
        () = signal.recv() => {
            tracing::warn!("second signal: exiting without waiting for calls in flight");
            Ok(ExitCode::from(INTERRUPTED))
        }
    }
}
