//! Every flag and subcommand of `sudoku`, parsed by clap; nothing here runs anything.

use std::path::PathBuf;
use std::time::Duration;

use clap::builder::TypedValueParser;
use clap::{Args, Parser, Subcommand, ValueEnum};

/// Exit codes, also shown in `--help`.
pub const EXIT_CODES: &str = "Exit codes: 0 every puzzle solved; 1 some puzzle had no solution, was invalid or was \
stopped; 2 usage or connection error.";

/// Solve Sudoku grids over gRPC, against a server or an embedded one.
#[derive(Debug, Parser)]
#[command(name = "sudoku", version, after_help = EXIT_CODES, args_override_self = true)]
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
    /// Server: http://host:port, https://host:port, host:port or a host (port 50051); repeat
    /// to spread requests over several. Without it, or empty, an embedded server runs here.
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
    /// Deadline per call, sent as grpc-timeout (e.g. 500ms, 2s, 1m); bench and batch too.
    #[arg(long, value_parser = parse_duration, global = true)]
    pub timeout: Option<Duration>,
    /// Compress requests and accept compressed responses.
    #[arg(long, value_enum, global = true)]
    pub compress: Option<Compression>,
    /// Output format (default: pretty on a terminal, line otherwise).
    #[arg(long, value_enum, global = true)]
    pub format: Option<Format>,
    /// Largest grid side the embedded server accepts (it has no effect with --server).
    #[arg(long, global = true, value_parser = parse_grid_side)]
    pub max_grid_side: Option<usize>,
    /// Say on stderr which server is used.
    #[arg(long, short, global = true)]
    pub verbose: bool,
}

/// The subcommands. A new command is one variant here (its flags in an `Args` struct below)
/// plus one module with `run(&Connection, &Args, &Printer)`, dispatched in `main::run`.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Solve puzzles given as arguments, in a file, or on stdin, one unary call each.
    #[command(after_help = EXIT_CODES)]
    Solve(SolveArgs),
    /// Stream a file of puzzles (one per line) through BatchSolve; answers in input order.
    #[command(after_help = EXIT_CODES)]
    Batch(BatchArgs),
    /// Check the server's health; exit 0 when SERVING.
    #[command(after_help = EXIT_CODES)]
    Health,
    /// Load-test a server: unary calls (or one stream with --batch) for a while.
    #[command(after_help = EXIT_CODES)]
    Bench(BenchArgs),
    /// Print a shell completion script.
    #[command(after_help = EXIT_CODES)]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// How to solve.
#[derive(Debug, Clone, Args)]
pub struct SolveOptions {
    /// The algorithm.
    #[arg(long, value_enum, default_value_t = AlgorithmArg::Auto)]
    pub algorithm: AlgorithmArg,
    /// Solutions to look for: 1 any, 2 prove uniqueness, N count up to N.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..))]
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
#[derive(Debug, Clone, Args)]
pub struct BatchArgs {
    /// Files with one puzzle per line (`#` comments skipped); none or `-` reads stdin.
    pub files: Vec<PathBuf>,
    /// Another file to read, as in `solve --file`; read after the positional ones.
    #[arg(long)]
    pub file: Option<PathBuf>,
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
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..).map(|n| n as usize))]
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
    /// The boxed grid on stdout (it reads back in), a one-line verdict on stderr.
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

/// Parses `500ms`, `2s`, `1m` or a bare number of seconds; zero is refused (it would end
/// every call, or a whole bench, before it starts).
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
    match Duration::try_from_secs_f64(seconds) {
        Ok(d) if d.is_zero() => Err(format!("'{text}': a duration must be above zero")),
        Ok(d) => Ok(d),
        Err(e) => Err(format!("'{text}': {e}")),
    }
}

/// Parses a grid side the solver supports (4 to `Shape::MAX_SIDE`).
pub fn parse_grid_side(text: &str) -> Result<usize, String> {
    let max = solver_core::Shape::MAX_SIDE;
    match text.trim().parse::<usize>() {
        Ok(side) if (4..=max).contains(&side) => Ok(side),
        _ => Err(format!("'{text}' is not a grid side from 4 to {max}")),
    }
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
