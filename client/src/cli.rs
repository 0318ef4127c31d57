//! Every flag and subcommand of `sudoku`, parsed by clap; nothing here runs anything.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Exit codes, also shown in `--help`.
pub const EXIT_CODES: &str = "Exit codes: 0 every puzzle solved; 1 some puzzle had no solution, was invalid or was \
stopped; 2 usage or connection error.";

/// Solve Sudoku grids over gRPC, against a server or an embedded one.
#[derive(Debug, Parser)]
#[command(name = "sudoku", version, after_help = EXIT_CODES)]
pub struct Cli {
    /// Global connection and output flags.
    #[command(flatten)]
    pub global: Global,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Flags accepted before or after the subcommand.
#[derive(Debug, Args)]
pub struct Global {
    /// Server URL (http://host:port or https://…); repeat to spread requests over several.
    /// Without it, an embedded server runs in this process.
    #[arg(
        long = "server",
        env = "SUDOKU_SERVER",
        value_delimiter = ',',
        global = true
    )]
    pub servers: Vec<String>,
    /// CA certificate (PEM) to trust for https servers.
    #[arg(long, env = "SUDOKU_CA_CERT", global = true)]
    pub ca_cert: Option<PathBuf>,
    /// Deadline per call, sent as grpc-timeout (e.g. 500ms, 2s, 1m).
    #[arg(long, value_parser = parse_duration, global = true)]
    pub timeout: Option<Duration>,
    /// Compress requests and accept compressed responses.
    #[arg(long, value_enum, global = true)]
    pub compress: Option<Compression>,
    /// Output format (default: pretty on a terminal, line otherwise).
    #[arg(long, value_enum, global = true)]
    pub format: Option<Format>,
    /// Say on stderr which server is used.
    #[arg(long, short, global = true)]
    pub verbose: bool,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Solve puzzles given as arguments, in a file, or on stdin, one unary call each.
    Solve(SolveArgs),
    /// Stream a file of puzzles (one per line) through BatchSolve; answers in input order.
    Batch(BatchArgs),
    /// Check the server's health; exit 0 when SERVING.
    Health,
    /// Load-test a server: unary calls (or one stream with --batch) for a while.
    Bench(BenchArgs),
    /// Print a shell completion script.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// How to solve.
#[derive(Debug, Args)]
pub struct SolveOptions {
    /// The algorithm.
    #[arg(long, value_enum, default_value_t = AlgorithmArg::Auto)]
    pub algorithm: AlgorithmArg,
    /// Solutions to look for: 1 any, 2 prove uniqueness, N count up to N.
    #[arg(long, default_value_t = 2)]
    pub count: u32,
    /// Box shape ROWSxCOLS where a side has several (e.g. 3x2 for 6x6 grids).
    #[arg(long = "box", value_parser = parse_shape)]
    pub shape: Option<solver_core::Shape>,
}

/// `sudoku solve`.
#[derive(Debug, Args)]
pub struct SolveArgs {
    /// Puzzles, each in any format (one line, rows of numbers, the boxed form); `-` or none reads stdin.
    pub puzzles: Vec<String>,
    /// Read puzzles from a file (blank lines separate multi-line grids).
    #[arg(long)]
    pub file: Option<PathBuf>,
    /// How to solve.
    #[command(flatten)]
    pub options: SolveOptions,
}

/// `sudoku batch`.
#[derive(Debug, Args)]
pub struct BatchArgs {
    /// Files with one puzzle per line (`#` comments skipped); none or `-` reads stdin.
    pub files: Vec<PathBuf>,
    /// How to solve.
    #[command(flatten)]
    pub options: SolveOptions,
}

/// `sudoku bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Puzzles to send, one per line.
    #[arg(long)]
    pub file: PathBuf,
    /// Calls in flight at once.
    #[arg(long, default_value_t = 16)]
    pub concurrency: usize,
    /// How long to run (e.g. 10s).
    #[arg(long, value_parser = parse_duration, default_value = "10s")]
    pub duration: Duration,
    /// One BatchSolve stream instead of unary calls.
    #[arg(long)]
    pub batch: bool,
}

/// Request and response compression.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Compression {
    /// gzip.
    Gzip,
    /// zstd.
    Zstd,
}

/// How answers are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// The boxed grid and a one-line verdict.
    Pretty,
    /// One line per puzzle: the solution, or the outcome word.
    Line,
    /// One JSON object per line with every response field.
    Json,
}

/// The algorithm names on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum AlgorithmArg {
    /// The server picks.
    Auto,
    /// The fast 9x9 solver.
    Fast,
    /// The general solver, any shape.
    General,
    /// Textbook backtracking.
    Backtracking,
}

/// Parses `500ms`, `2s`, `1m` or a bare number of seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("'{text}' is not a duration like 500ms or 2s"))?;
    let seconds = match unit {
        "ms" => value / 1000.0,
        "" | "s" => value,
        "m" => value * 60.0,
        _ => {
            return Err(format!(
                "unknown unit '{unit}' in '{text}' (use ms, s or m)"
            ));
        }
    };
    Duration::try_from_secs_f64(seconds).map_err(|e| format!("'{text}': {e}"))
}

/// Parses a box shape such as `3x2`.
pub fn parse_shape(text: &str) -> Result<solver_core::Shape, String> {
    let (rows, cols) = text
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("'{text}' is not ROWSxCOLS, e.g. 3x3"))?;
    let number = |s: &str| {
        s.trim()
            .parse::<usize>()
            .map_err(|_| format!("'{text}' is not ROWSxCOLS, e.g. 3x3"))
    };
    solver_core::Shape::new(number(rows)?, number(cols)?).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("1.5"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("1m"), Ok(Duration::from_secs(60)));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("3h").is_err());
    }

    #[test]
    fn shapes() {
        assert_eq!(
            parse_shape("3x2").map(|s| (s.box_rows(), s.box_cols())),
            Ok((3, 2))
        );
        assert!(parse_shape("3").is_err());
        assert!(parse_shape("1x9").is_err());
    }

    #[test]
    fn the_cli_is_well_formed() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
