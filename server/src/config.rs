//! Every setting of the server, from flags or `SUDOKU_*` environment variables, with defaults.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use clap::{Parser, ValueEnum};

/// Default gRPC address.
pub const DEFAULT_LISTEN: &str = "0.0.0.0:50051";
/// Default Prometheus address.
pub const DEFAULT_METRICS_LISTEN: &str = "0.0.0.0:9090";
/// Default largest grid side accepted (25×25 grids).
pub const DEFAULT_MAX_GRID_SIDE: usize = 25;
/// Default largest request message.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 4 << 20;
/// Default limit of RPCs (unary calls plus open streams) served at once.
pub const DEFAULT_MAX_CONCURRENT_REQUESTS: usize = 1024;
/// Default limit of HTTP/2 streams per connection.
pub const DEFAULT_MAX_STREAMS_PER_CONNECTION: u32 = 256;
/// Default puzzles in flight per BatchSolve stream: about 1 MB of requests and answers, and
/// groups large enough that a solver thread wakes once per hundreds of easy puzzles.
pub const DEFAULT_BATCH_WINDOW: usize = 1024;
/// Largest accepted `--batch-window`.
pub const MAX_BATCH_WINDOW: usize = 1 << 20;
/// Default server-side cap on guesses per puzzle.
pub const DEFAULT_MAX_GUESSES: u64 = 100_000_000;
/// Default server-side cap on solve time per puzzle, in milliseconds.
pub const DEFAULT_MAX_SOLVE_MS: u64 = 10_000;
/// Default time in-flight work gets to finish after SIGTERM, in milliseconds.
pub const DEFAULT_GRACE_MS: u64 = 20_000;

/// How logs are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

/// A listen address, or `off` to listen nowhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OptionalAddr(pub Option<SocketAddr>);

impl FromStr for OptionalAddr {
    type Err = std::net::AddrParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "" | "off" | "none" => Ok(OptionalAddr(None)),
            addr => addr.parse().map(|a| OptionalAddr(Some(a))),
        }
    }
}

/// The server's configuration.
#[derive(Debug, Clone, Parser)]
#[command(name = "sudoku-server", version, about = "gRPC Sudoku solving service")]
pub struct Config {
    /// gRPC address to listen on.
    #[arg(long, env = "SUDOKU_LISTEN", default_value = DEFAULT_LISTEN)]
    pub listen: SocketAddr,
    /// Prometheus `/metrics` address, or `off`.
    #[arg(long, env = "SUDOKU_METRICS_LISTEN", default_value = DEFAULT_METRICS_LISTEN)]
    pub metrics_listen: OptionalAddr,
    /// Solver threads (default: one per core).
    #[arg(long, env = "SUDOKU_WORKERS")]
    pub workers: Option<usize>,
    /// Largest grid side accepted.
    #[arg(long, env = "SUDOKU_MAX_GRID_SIDE", default_value_t = DEFAULT_MAX_GRID_SIDE)]
    pub max_grid_side: usize,
    /// Largest request message, in bytes.
    #[arg(long, env = "SUDOKU_MAX_MESSAGE_BYTES", default_value_t = DEFAULT_MAX_MESSAGE_BYTES)]
    pub max_message_bytes: usize,
    /// RPCs served at once (unary calls plus open streams); more are refused with RESOURCE_EXHAUSTED.
    #[arg(long, env = "SUDOKU_MAX_CONCURRENT_REQUESTS", default_value_t = DEFAULT_MAX_CONCURRENT_REQUESTS)]
    pub max_concurrent_requests: usize,
    /// HTTP/2 streams per connection.
    #[arg(long, env = "SUDOKU_MAX_STREAMS_PER_CONNECTION", default_value_t = DEFAULT_MAX_STREAMS_PER_CONNECTION)]
    pub max_streams_per_connection: u32,
    /// Puzzles in flight per BatchSolve stream; the stream stops reading beyond it.
    #[arg(
        long,
        env = "SUDOKU_BATCH_WINDOW",
        default_value_t = DEFAULT_BATCH_WINDOW,
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=MAX_BATCH_WINDOW as u64)
    )]
    pub batch_window: usize,
    /// Server-side cap on guesses per puzzle.
    #[arg(long, env = "SUDOKU_MAX_GUESSES", default_value_t = DEFAULT_MAX_GUESSES)]
    pub max_guesses: u64,
    /// Server-side cap on solve time per puzzle, in milliseconds.
    #[arg(long, env = "SUDOKU_MAX_SOLVE_MS", default_value_t = DEFAULT_MAX_SOLVE_MS)]
    pub max_solve_ms: u64,
    /// Time in-flight calls get to finish after SIGTERM/SIGINT, in milliseconds.
    #[arg(long, env = "SUDOKU_GRACE_MS", default_value_t = DEFAULT_GRACE_MS)]
    pub grace_ms: u64,
    /// Log format; the level comes from RUST_LOG (default info).
    #[arg(long, env = "SUDOKU_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// PEM certificate chain; with --tls-key, serve TLS.
    #[arg(long, env = "SUDOKU_TLS_CERT", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// PEM private key for --tls-cert.
    #[arg(long, env = "SUDOKU_TLS_KEY", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
}

impl Config {
    /// A configuration for an in-process server: loopback, ephemeral port, no metrics port.
    pub fn embedded() -> Config {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            metrics_listen: OptionalAddr(None),
            ..Config::default()
        }
    }

    /// Solver threads to run.
    pub fn worker_count(&self) -> usize {
        self.workers
            .filter(|&w| w > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    }

    /// The per-puzzle solve time cap.
    pub fn max_solve_time(&self) -> Duration {
        Duration::from_millis(self.max_solve_ms)
    }

    /// The drain period after a shutdown signal.
    pub fn grace(&self) -> Duration {
        Duration::from_millis(self.grace_ms)
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            listen: DEFAULT_LISTEN
                .parse()
                .expect("default listen address parses"),
            metrics_listen: DEFAULT_METRICS_LISTEN
                .parse()
                .expect("default metrics address parses"),
            workers: None,
            max_grid_side: DEFAULT_MAX_GRID_SIDE,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            max_concurrent_requests: DEFAULT_MAX_CONCURRENT_REQUESTS,
            max_streams_per_connection: DEFAULT_MAX_STREAMS_PER_CONNECTION,
            batch_window: DEFAULT_BATCH_WINDOW,
            max_guesses: DEFAULT_MAX_GUESSES,
            max_solve_ms: DEFAULT_MAX_SOLVE_MS,
            grace_ms: DEFAULT_GRACE_MS,
            log_format: LogFormat::Text,
            tls_cert: None,
            tls_key: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_defaults_match_default() {
        let parsed = Config::try_parse_from(["sudoku-server"]).expect("no flags parse");
        let default = Config::default();
        assert_eq!(parsed.listen, default.listen);
        assert_eq!(parsed.metrics_listen, default.metrics_listen);
        assert_eq!(parsed.max_grid_side, default.max_grid_side);
        assert_eq!(parsed.grace_ms, default.grace_ms);
    }

    #[test]
    fn metrics_can_be_turned_off() {
        let parsed = Config::try_parse_from(["sudoku-server", "--metrics-listen", "off"]).unwrap();
        assert_eq!(parsed.metrics_listen, OptionalAddr(None));
        assert!(Config::try_parse_from(["sudoku-server", "--tls-cert", "x.pem"]).is_err());
    }

    #[test]
    fn batch_window_must_be_in_range() {
        for bad in ["0", "1048577", "many"] {
            let err = Config::try_parse_from(["sudoku-server", "--batch-window", bad])
                .expect_err("out of range");
            assert!(err.to_string().contains("--batch-window"), "{err}");
        }
        let parsed = Config::try_parse_from(["sudoku-server", "--batch-window", "1"])
            .expect("the smallest window parses");
        assert_eq!(parsed.batch_window, 1);
    }
}
