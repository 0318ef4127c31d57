//! Every setting of the server, from flags or `SUDOKU_*` environment variables, with defaults.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use clap::{Parser, ValueEnum};

// The defaults of the fields of the same names, each of which says what it bounds.
const DEFAULT_LISTEN: &str = "0.0.0.0:50051";
const DEFAULT_METRICS_LISTEN: &str = "0.0.0.0:9090";
const DEFAULT_MAX_GRID_SIDE: usize = 25;
const DEFAULT_MAX_MESSAGE_BYTES: usize = 4 << 20;
const DEFAULT_MAX_STREAMS_PER_CONNECTION: u32 = 64;
const DEFAULT_MAX_GUESSES: u64 = 100_000_000;
const DEFAULT_MAX_SOLVE_MS: u64 = 10_000;
const DEFAULT_GRACE_MS: u64 = 20_000;
const DEFAULT_MAX_CONNECTIONS: usize = 256;
const DEFAULT_HANDSHAKE_TIMEOUT_MS: u64 = 10_000;
const DEFAULT_STREAM_IDLE_MS: u64 = 60_000;
/// A 4 MiB message needs a client sending 400 KB/s.
const DEFAULT_IDLE_TIMEOUT_MS: u64 = 10_000;
/// Half an hour: long-lived clients reconnect and spread over new replicas.
const DEFAULT_MAX_CONNECTION_AGE_MS: u64 = 30 * 60 * 1000;
const DEFAULT_MAX_CONNECTION_AGE_GRACE_MS: u64 = 10 * 60 * 1000;
// What `Config::apply_memory_budget` makes of the default memory budget.
const DEFAULT_MAX_STREAM_BYTES: usize = 1 << 20;
const DEFAULT_MAX_BATCH_BYTES: usize = 192 << 20;
const DEFAULT_MAX_RECEIVING_BYTES: usize = 64 << 20;
/// Room for two 1,000-puzzle BatchSolvePacked messages, so the next is read and expanded
/// while one is solved (with room for one, the solver threads would idle through every
/// message's turnaround), and groups large enough that a solver thread wakes once per
/// hundreds of easy puzzles.
const DEFAULT_BATCH_WINDOW: usize = 2048;
/// The memory budget where no container limit is found.
pub const DEFAULT_MEMORY_BUDGET: usize = 320 << 20;
/// Largest batch window.
pub const MAX_BATCH_WINDOW: usize = 1 << 20;
/// The largest grid side the solver handles.
pub const MAX_GRID_SIDE: usize = solver_core::Shape::MAX_SIDE;
/// The most `--max-connections` may be: far beyond what one process's file descriptors allow.
pub const MAX_CONNECTIONS: usize = 1_000_000;
/// The largest `--memory-budget`, 1 PiB: the byte budgets it sizes are counted by semaphores,
/// which hold at most 2^61 permits.
pub const MAX_MEMORY_BUDGET: usize = 1 << 50;

/// A configuration that cannot be served.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The grid side limit is outside what the solver handles.
    #[error("--max-grid-side {0} is not a grid side from 4 to {MAX_GRID_SIDE}")]
    GridSide(usize),
    /// The batch room cannot hold even one stream's share.
    #[error("the batch streams' budget must be at least one stream's share")]
    BatchBelowStream,
    /// A limit that must be at least 1 is 0.
    #[error("--{0} must be at least 1")]
    Zero(&'static str),
    /// A count or budget is larger than the server counts: the flag, and its limit in words.
    #[error("--{0} must be at most {1}")]
    TooLarge(&'static str, &'static str),
}

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
    /// Async threads for gRPC and HTTP/2 (default: one per two cores, at least one); not a
    /// flag (read from `SUDOKU_ASYNC_WORKERS` by the binary).
    #[arg(skip)]
    pub async_workers: Option<usize>,
    /// Largest grid side accepted (at most 35, the solver's own limit).
    #[arg(
        long,
        env = "SUDOKU_MAX_GRID_SIDE",
        default_value_t = DEFAULT_MAX_GRID_SIDE,
        value_parser = parse_grid_side
    )]
    pub max_grid_side: usize,
    /// Largest request message, in bytes; not a flag.
    #[arg(skip = DEFAULT_MAX_MESSAGE_BYTES)]
    pub max_message_bytes: usize,
    /// Bytes the server may hold for its calls (requests arriving, batch work in flight and
    /// waiting, message buffers batch streams keep); default: 5/8 of the container's memory
    /// limit (cgroup), or 320 MiB where there is none. Sizes the byte budgets and each batch
    /// stream's share.
    #[arg(
        long,
        env = "SUDOKU_MEMORY_BUDGET",
        value_parser = |s: &str| whole_number(s, 1, MAX_MEMORY_BUDGET, MEMORY_BUDGET_RULE)
    )]
    pub memory_budget: Option<usize>,
    /// HTTP/2 streams per connection; not a flag (with `--max-connections` it bounds the
    /// calls open).
    #[arg(skip = DEFAULT_MAX_STREAMS_PER_CONNECTION)]
    pub max_streams_per_connection: u32,
    /// Puzzles in flight per BatchSolve stream; the stream stops reading beyond it. Derived
    /// from the memory budget.
    #[arg(skip = DEFAULT_BATCH_WINDOW)]
    pub batch_window: usize,
    /// Server-side cap on guesses per puzzle; not a flag (the time cap bounds the work).
    #[arg(skip = DEFAULT_MAX_GUESSES)]
    pub max_guesses: u64,
    /// Server-side cap on solve time per puzzle, in milliseconds.
    #[arg(long, env = "SUDOKU_MAX_SOLVE_MS", default_value_t = DEFAULT_MAX_SOLVE_MS)]
    pub max_solve_ms: u64,
    /// Time in-flight calls get to finish after SIGTERM/SIGINT, in milliseconds.
    #[arg(long, env = "SUDOKU_GRACE_MS", default_value_t = DEFAULT_GRACE_MS)]
    pub grace_ms: u64,
    /// Time between NOT_SERVING and closing the listener on shutdown, for health watchers to
    /// hear it; not a flag (an embedded server has no watchers and sets it to 0).
    #[arg(skip = 100u64)]
    pub not_serving_notice_ms: u64,
    /// Whether the solver threads yield their cores between tasks, at most once a millisecond,
    /// to the client's threads (an embedded server's); not a flag. A server of its own keeps
    /// them: yielding there lets its async threads in with fewer answers a wake-up.
    #[arg(skip)]
    pub solvers_yield: bool,
    /// Open client connections; more are closed as soon as accepted.
    #[arg(
        long,
        env = "SUDOKU_MAX_CONNECTIONS",
        default_value_t = DEFAULT_MAX_CONNECTIONS,
        value_parser = |s: &str| whole_number(s, 1, MAX_CONNECTIONS, CONNECTIONS_RULE)
    )]
    pub max_connections: usize,
    /// Time a new connection gets to send the HTTP/2 preface (and finish TLS), in
    /// milliseconds; not a flag (tests set it).
    #[arg(skip = DEFAULT_HANDSHAKE_TIMEOUT_MS)]
    pub handshake_timeout_ms: u64,
    /// Bytes one batch stream (BatchSolve, BatchSolvePacked) may hold in requests read and
    /// answers not yet sent; the stream stops reading beyond it. Derived from the memory budget.
    #[arg(skip = DEFAULT_MAX_STREAM_BYTES)]
    pub max_stream_bytes: usize,
    /// The batch room: bytes all open batch streams together may hold (docs/design/server.md).
    /// Derived from the memory budget.
    #[arg(skip = DEFAULT_MAX_BATCH_BYTES)]
    pub max_batch_bytes: usize,
    /// How long a batch stream must have left an answer untaken, or not used what it holds,
    /// before it may be closed to make room in --memory-budget; not a flag (tests set it).
    #[arg(skip = 1000u64)]
    pub kept_idle_ms: u64,
    /// A BatchSolve stream that reads, solves and sends nothing for this long (ms) ends with
    /// UNAVAILABLE; 0 turns this off. At least --max-solve-ms plus a second. Set from
    /// --idle-timeout-ms by the binary; not a flag of its own.
    #[arg(skip = DEFAULT_STREAM_IDLE_MS)]
    pub stream_idle_ms: u64,
    /// Bytes all calls together may hold in request messages being received, twice each
    /// message's size (docs/design/server.md). Derived from the memory budget.
    #[arg(skip = DEFAULT_MAX_RECEIVING_BYTES)]
    pub max_receiving_bytes: usize,
    /// How long (ms) a call may wait on its client: a request message must arrive whole within
    /// it (else DEADLINE_EXCEEDED), and a streamed answer must be taken within it (else the
    /// stream is closed UNAVAILABLE and its work stops); 0 turns both off.
    #[arg(long, env = "SUDOKU_IDLE_TIMEOUT_MS", default_value_t = DEFAULT_IDLE_TIMEOUT_MS)]
    pub idle_timeout_ms: u64,
    /// Age (ms) at which a connection gets GOAWAY, so clients reconnect and spread over new
    /// replicas without a mesh; calls in flight go on. 0 never. Not a flag.
    #[arg(skip = DEFAULT_MAX_CONNECTION_AGE_MS)]
    pub max_connection_age_ms: u64,
    /// Time (ms) calls on an aged connection get to finish before it is closed; not a flag.
    #[arg(skip = DEFAULT_MAX_CONNECTION_AGE_GRACE_MS)]
    pub max_connection_age_grace_ms: u64,
    /// Web origins (`https://example.com`, comma-separated) whose pages may call the API over
    /// gRPC-Web from a browser (CORS); none by default, so only pages served by this server may.
    #[arg(long, env = "SUDOKU_CORS_ORIGINS", value_delimiter = ',', value_parser = parse_origin)]
    pub cors_origins: Vec<http::HeaderValue>,
    /// Serve no page at `/` (the page plays Sudoku in a browser through this API).
    #[arg(long, env = "SUDOKU_NO_PAGE", value_parser = clap::builder::BoolishValueParser::new())]
    pub no_page: bool,
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

/// A whole number from `min` to `max`; otherwise `rule`, which says in words what is allowed
/// (clap shows the value given beside it).
fn whole_number(text: &str, min: usize, max: usize, rule: &str) -> Result<usize, String> {
    let digits = text.trim();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("not a whole number; {rule}"));
    }
    match digits.parse::<usize>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(rule.to_owned()),
    }
}

/// `--max-grid-side`: a side the solver handles.
fn parse_grid_side(text: &str) -> Result<usize, String> {
    let digits = text.trim();
    match digits.parse::<usize>() {
        Ok(side) if (4..=MAX_GRID_SIDE).contains(&side) => Ok(side),
        _ => Err(format!(
            "'{text}' is not a grid side from 4 to {MAX_GRID_SIDE}"
        )),
    }
}

/// What `--max-connections` may be, in words.
const CONNECTIONS_RULE: &str = "the server takes 1 to 1,000,000 connections";
/// What `--memory-budget` may be, in words.
const MEMORY_BUDGET_RULE: &str = "a memory budget is 1 byte to 1 PiB (1,125,899,906,842,624 bytes)";

/// An origin for `--cors-origins`: a scheme and a host, with a port if any, and nothing else.
fn parse_origin(origin: &str) -> Result<http::HeaderValue, String> {
    let scheme_ok = origin.starts_with("http://") || origin.starts_with("https://");
    let host = origin.split_once("://").map_or("", |(_, rest)| rest);
    if !scheme_ok || host.is_empty() || host.contains('/') {
        return Err(format!(
            "'{}' is not an origin: write it as a browser sends it, such as \
             https://example.com or http://localhost:8080 (no path)",
            origin.escape_debug()
        ));
    }
    http::HeaderValue::from_str(origin)
        .map_err(|_| format!("'{}' is not an origin", origin.escape_debug()))
}

/// The default memory budget: 5/8 of the cgroup's memory limit where one is set (v2's
/// `memory.max`, or v1's `memory.limit_in_bytes`), else [`DEFAULT_MEMORY_BUDGET`].
pub fn default_memory_budget() -> usize {
    let limit = [
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    ]
    .iter()
    .find_map(|path| std::fs::read_to_string(path).ok());
    budget_for_limit(limit.as_deref())
}

/// The memory budget for a cgroup limit as its file reads ("max" or a number of bytes).
fn budget_for_limit(limit: Option<&str>) -> usize {
    let limit = limit
        .and_then(|text| text.trim().parse::<u64>().ok())
        // v1 reports "no limit" as a number near 2^63.
        .filter(|&limit| limit < 1 << 50);
    match limit {
        Some(limit) => usize::try_from(limit / 8 * 5).unwrap_or(DEFAULT_MEMORY_BUDGET),
        None => DEFAULT_MEMORY_BUDGET,
    }
}

/// The cores this process may use, found once: std reads the cgroup files at every call.
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

impl Config {
    /// A configuration for an in-process server: loopback, ephemeral port, no metrics port
    /// (where started on a socket; [`crate::start_in_memory`] uses neither).
    pub fn embedded() -> Config {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            metrics_listen: OptionalAddr(None),
            // Its one client is in the same process: nothing to rebalance, and a long batch
            // must not be cut at the age limit.
            max_connection_age_ms: 0,
            // No health watchers: shutting down need not wait for them.
            not_serving_notice_ms: 0,
            // Its client's threads share the cores (see `solvers_yield`).
            solvers_yield: true,
            ..Config::default()
        }
    }

    /// Solver threads to run.
    pub fn worker_count(&self) -> usize {
        self.workers.filter(|&w| w > 0).unwrap_or_else(cores)
    }

    /// Async threads to run: the solver threads take a core each, and the async share of the
    /// work (HTTP/2, decoding, answers) is a fraction of the solving, so one thread per core
    /// only adds hand-overs.
    pub fn async_worker_count(&self) -> usize {
        self.async_workers
            .filter(|&w| w > 0)
            .unwrap_or_else(|| (cores() / 2).max(1))
    }

    /// The largest request message the server takes, a BatchSolvePacked one (other methods
    /// take less): a message of many puzzles is held as three times its size while solved,
    /// so one larger than a third of a batch stream's share could never be taken whole.
    pub fn largest_message(&self) -> usize {
        let packed = (self.max_stream_bytes / 3).max(crate::admission::methods::GRID_MESSAGE_BYTES);
        self.max_message_bytes.min(packed)
    }

    /// How long a batch stream may stand still before it is closed (`None`: for ever); never
    /// less than a solve may take, so a stream waiting on its slowest puzzle is not idle.
    pub fn stream_idle(&self) -> Option<Duration> {
        let least = self.max_solve_ms.saturating_add(1000);
        (self.stream_idle_ms != 0).then(|| Duration::from_millis(self.stream_idle_ms.max(least)))
    }

    /// When a connection is asked to go away, and how long its calls then get (`None`: never).
    pub fn max_connection_age(&self) -> Option<(Duration, Duration)> {
        (self.max_connection_age_ms != 0).then(|| {
            (
                Duration::from_millis(self.max_connection_age_ms),
                Duration::from_millis(self.max_connection_age_grace_ms),
            )
        })
    }

    /// The time a new connection gets to complete its handshake.
    pub fn handshake_timeout(&self) -> Duration {
        Duration::from_millis(self.handshake_timeout_ms)
    }

    /// Sizes the byte budgets from `--memory-budget` (or the container's limit), as the table
    /// in docs/design/server.md says. Called by the binary; an embedder's fields are kept.
    pub fn apply_memory_budget(&mut self) {
        let budget = self.memory_budget.unwrap_or_else(default_memory_budget);
        let fifth = (budget / 5).max(1);
        self.max_receiving_bytes = fifth;
        self.max_batch_bytes = (3 * fifth).max(1);
        self.max_stream_bytes = (budget / 320).clamp(1, fifth);
        self.batch_window = (self.max_stream_bytes / 512).clamp(1, MAX_BATCH_WINDOW);
        // A batch client may pause between messages longer than it may leave an answer
        // untaken: feeding a stream from a slower source is normal use.
        self.stream_idle_ms = self.idle_timeout_ms.saturating_mul(6);
    }

    /// Checks what clap cannot see when the configuration is built in code (the CLI's
    /// embedded server): a grid side beyond the solver's is refused here, at start-up.
    pub fn check(&self) -> Result<(), ConfigError> {
        if !(4..=MAX_GRID_SIDE).contains(&self.max_grid_side) {
            return Err(ConfigError::GridSide(self.max_grid_side));
        }
        if self.max_connections == 0 {
            return Err(ConfigError::Zero("max-connections"));
        }
        if self.max_stream_bytes == 0 || self.max_receiving_bytes == 0 {
            return Err(ConfigError::Zero("memory-budget"));
        }
        if self.max_connections > MAX_CONNECTIONS {
            return Err(ConfigError::TooLarge("max-connections", "1,000,000"));
        }
        let budgets = [
            self.max_stream_bytes,
            self.max_batch_bytes,
            self.max_receiving_bytes,
        ];
        if budgets.iter().any(|&bytes| bytes > MAX_MEMORY_BUDGET) {
            return Err(ConfigError::TooLarge("memory-budget", "1 PiB"));
        }
        if self.max_batch_bytes < self.max_stream_bytes {
            return Err(ConfigError::BatchBelowStream);
        }

        Ok(())
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
            async_workers: None,
            max_grid_side: DEFAULT_MAX_GRID_SIDE,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            memory_budget: None,
            max_streams_per_connection: DEFAULT_MAX_STREAMS_PER_CONNECTION,
            cors_origins: Vec::new(),
            no_page: false,
            batch_window: DEFAULT_BATCH_WINDOW,
            max_guesses: DEFAULT_MAX_GUESSES,
            max_solve_ms: DEFAULT_MAX_SOLVE_MS,
            grace_ms: DEFAULT_GRACE_MS,
            not_serving_notice_ms: 100,
            solvers_yield: false,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            handshake_timeout_ms: DEFAULT_HANDSHAKE_TIMEOUT_MS,
            max_stream_bytes: DEFAULT_MAX_STREAM_BYTES,
            max_batch_bytes: DEFAULT_MAX_BATCH_BYTES,
            kept_idle_ms: 1000,
            stream_idle_ms: DEFAULT_STREAM_IDLE_MS,
            max_receiving_bytes: DEFAULT_MAX_RECEIVING_BYTES,
            idle_timeout_ms: DEFAULT_IDLE_TIMEOUT_MS,
            max_connection_age_ms: DEFAULT_MAX_CONNECTION_AGE_MS,
            max_connection_age_grace_ms: DEFAULT_MAX_CONNECTION_AGE_GRACE_MS,
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
        assert!(!parsed.no_page && !default.no_page, "the page is served");
        assert!(
            !parsed.solvers_yield && !default.solvers_yield,
            "a server of its own keeps its cores"
        );
        assert!(
            Config::embedded().solvers_yield,
            "an embedded server's solvers make way for its client"
        );
        assert_eq!(parsed.max_connection_age(), default.max_connection_age());
        assert_eq!(
            default.max_connection_age(),
            Some((Duration::from_secs(1800), Duration::from_secs(600)))
        );
    }

    #[test]
    fn metrics_can_be_turned_off() {
        let parsed = Config::try_parse_from(["sudoku-server", "--metrics-listen", "off"]).unwrap();
        assert_eq!(parsed.metrics_listen, OptionalAddr(None));
        assert!(Config::try_parse_from(["sudoku-server", "--tls-cert", "x.pem"]).is_err());
    }

    #[test]
    fn budgets_and_counts_past_their_limits_are_refused_by_name() {
        let huge = Config {
            max_batch_bytes: usize::MAX,
            ..Config::embedded()
        };
        let err = huge.check().expect_err("too large");
        assert_eq!(err.to_string(), "--memory-budget must be at most 1 PiB");
        let crowded = Config {
            max_connections: MAX_CONNECTIONS + 1,
            ..Config::embedded()
        };
        assert_eq!(
            crowded.check().expect_err("too many").to_string(),
            "--max-connections must be at most 1,000,000"
        );
        let zero = Config {
            max_receiving_bytes: 0,
            ..Config::embedded()
        };
        assert_eq!(zero.check(), Err(ConfigError::Zero("memory-budget")));
        let below = Config {
            max_batch_bytes: 1,
            ..Config::embedded()
        };
        assert_eq!(below.check(), Err(ConfigError::BatchBelowStream));
    }

    #[test]
    fn grid_sides_beyond_the_solver_are_refused() {
        let err = Config::try_parse_from(["sudoku-server", "--max-grid-side", "36"])
            .expect_err("beyond the solver");
        assert!(err.to_string().contains("--max-grid-side"), "{err}");
        assert!(
            err.to_string()
                .contains("'36' is not a grid side from 4 to 35"),
            "{err}"
        );
        let parsed = Config::try_parse_from(["sudoku-server", "--max-grid-side", "35"])
            .expect("the solver's own limit parses");
        assert_eq!(parsed.check(), Ok(()));
        // The CLI builds its Config in code, past clap: start-up checks it again.
        let built = Config {
            max_grid_side: 100,
            ..Config::embedded()
        };
        assert_eq!(built.check(), Err(ConfigError::GridSide(100)));
        assert_eq!(
            built.check().unwrap_err().to_string(),
            "--max-grid-side 100 is not a grid side from 4 to 35"
        );
    }

    #[test]
    fn numbers_out_of_range_say_what_is_allowed() {
        for (flag, value, says) in [
            (
                "--max-grid-side",
                "100",
                "'100' is not a grid side from 4 to 35",
            ),
            (
                "--max-grid-side",
                "3",
                "'3' is not a grid side from 4 to 35",
            ),
            (
                "--max-grid-side",
                "big",
                "'big' is not a grid side from 4 to 35",
            ),
            ("--max-connections", "0", CONNECTIONS_RULE),
            ("--max-connections", "3000000000000000000", CONNECTIONS_RULE),
            (
                "--max-connections",
                "99999999999999999999999",
                CONNECTIONS_RULE,
            ),
            (
                "--max-connections",
                "lots",
                "not a whole number; the server takes 1",
            ),
            ("--memory-budget", "0", MEMORY_BUDGET_RULE),
            ("--memory-budget", "3000000000000000000", MEMORY_BUDGET_RULE),
            (
                "--memory-budget",
                "1.5",
                "not a whole number; a memory budget is 1 byte",
            ),
            ("--cors-origins", "ftp://x", "'ftp://x' is not an origin"),
        ] {
            let err = Config::try_parse_from(["sudoku-server", flag, value])
                .expect_err("out of range")
                .to_string();
            assert!(err.contains(flag) && err.contains(says), "{err}");
            let told = err.replace(value, "");
            for rust in ["..", "2305843009213693951", "18446744073709551615"] {
                assert!(!told.contains(rust), "{flag} {value}: {err}");
            }
        }
        let most = Config::try_parse_from(["sudoku-server", "--max-connections", "1000000"])
            .expect("the limit itself parses");
        assert_eq!(most.max_connections, MAX_CONNECTIONS);
        assert_eq!(most.check(), Ok(()));
        let budget = MAX_MEMORY_BUDGET.to_string();
        let mut most = Config::try_parse_from(["sudoku-server", "--memory-budget", &budget])
            .expect("the largest budget parses");
        most.apply_memory_budget();
        assert_eq!(most.check(), Ok(()));
    }

    #[test]
    fn async_workers_default_to_half_the_cores() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let parsed = Config::try_parse_from(["sudoku-server"]).expect("defaults parse");
        assert_eq!(parsed.async_worker_count(), (cores / 2).max(1));
    }

    #[test]
    fn the_memory_budget_sizes_every_byte_budget() {
        let mut config = Config::try_parse_from(["sudoku-server", "--memory-budget", "335544320"])
            .expect("a budget parses");
        config.apply_memory_budget();
        // 320 MiB, the default budget: each share is its own default.
        assert_eq!(config.max_receiving_bytes, DEFAULT_MAX_RECEIVING_BYTES);
        assert_eq!(config.max_batch_bytes, DEFAULT_MAX_BATCH_BYTES);
        assert_eq!(config.max_stream_bytes, DEFAULT_MAX_STREAM_BYTES);
        assert_eq!(config.batch_window, DEFAULT_BATCH_WINDOW);
        // A packed message takes at most a third of a stream's share, a grid's worth at least.
        assert_eq!(config.largest_message(), (1 << 20) / 3);
        let parts = config.max_receiving_bytes + config.max_batch_bytes;
        assert!(parts <= 320 << 20, "the parts fit the whole");
        let mut small = Config::try_parse_from(["sudoku-server", "--memory-budget", "10485760"])
            .expect("a budget parses");
        small.apply_memory_budget();
        assert_eq!(small.batch_window, 64);
        assert_eq!(small.largest_message(), 64 << 10);
        assert!(small.check().is_ok());
        for bad in ["many", "1.5"] {
            let err = Config::try_parse_from(["sudoku-server", "--memory-budget", bad])
                .expect_err("not a size");
            assert!(err.to_string().contains("--memory-budget"), "{err}");
        }
    }

    #[test]
    fn the_default_budget_is_a_share_of_the_containers_limit_or_320_mib() {
        assert_eq!(budget_for_limit(Some("536870912\n")), 320 << 20);
        assert_eq!(budget_for_limit(Some("max\n")), DEFAULT_MEMORY_BUDGET);
        assert_eq!(
            budget_for_limit(Some("9223372036854771712")),
            DEFAULT_MEMORY_BUDGET
        );
        assert_eq!(budget_for_limit(None), DEFAULT_MEMORY_BUDGET);
    }
}
