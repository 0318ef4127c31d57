//! `sudoku-server`: parse the configuration, start, drain on SIGTERM/SIGINT, exit 0; a second
//! signal during the drain exits at once.

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::trace::SdkTracerProvider;
use sudoku_server::{Config, LogFormat, Signal, telemetry};
use tracing_subscriber::filter::{EnvFilter, LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{Layer, fmt};

/// Exit status when a second signal cuts the drain short: 128 + SIGINT, as shells report it.
const INTERRUPTED: u8 = 130;

fn main() -> ExitCode {
    let mut config = Config::parse();
    config.apply_memory_budget();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(config.async_worker_count())
        .enable_all()
        .build();
    let runtime = match runtime {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("sudoku-server: cannot start the async runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    // The exporter's channel runs on the runtime.
    let traces = match runtime.block_on(async { telemetry::exporting() }) {
        Ok(traces) => traces,
        Err(err) => {
            let variable = telemetry::ENDPOINT_VARIABLE;
            eprintln!("sudoku-server: cannot export traces to {variable}: {err:#}");
            return ExitCode::FAILURE;
        }
    };
    init_logs(config.log_format, traces.as_ref());
    let result = runtime.block_on(run(config));
    // The last spans go out before the process does.
    if let Some(traces) = traces
        && let Err(err) = traces.shutdown()
    {
        tracing::warn!("the last spans were not exported: {err}");
    }
    // Dropping the runtime would wait for every blocking solve still running; after a second
    // signal those are exactly the calls the operator chose not to wait for.
    runtime.shutdown_background();
    result.unwrap_or_else(|err| {
        tracing::error!("{err:#}");
        ExitCode::FAILURE
    })
}

/// Logs to stderr, at the level RUST_LOG sets (default info); colour only on a terminal and
/// never when NO_COLOR is set (and non-empty). Where `traces` export, this crate's spans go to
/// them whatever RUST_LOG says.
fn init_logs(format: LogFormat, traces: Option<&SdkTracerProvider>) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let logs = fmt::layer()
        .with_ansi(!no_color && std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    let logs = match format {
        LogFormat::Text => logs.with_filter(filter).boxed(),
        LogFormat::Json => logs.json().with_filter(filter).boxed(),
    };
    let spans = traces.map(|provider| {
        let ours = Targets::new().with_target("sudoku_server", LevelFilter::INFO);
        tracing_opentelemetry::layer()
            .with_tracer(provider.tracer("sudoku-server"))
            .with_filter(ours)
    });
    tracing_subscriber::registry().with(logs).with(spans).init();
}

async fn run(config: Config) -> anyhow::Result<ExitCode> {
    // Watched before the server answers anything: a SIGTERM right after its first answer
    // would otherwise find the default action and kill it without a drain.
    let mut signal = Signal::new();
    let server = sudoku_server::start(config).await?;
    signal.recv().await;
    tokio::select! {
        result = server.shutdown() => result.map(|()| ExitCode::SUCCESS),
        () = signal.recv() => {
            tracing::warn!("second signal: exiting without waiting for calls in flight");
            Ok(ExitCode::from(INTERRUPTED))
        }
    }
}
