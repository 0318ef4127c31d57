//! Every flag and subcommand of `sudoku`, parsed by clap; nothing here runs anything.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Exit codes in general, shown in `sudoku --help`; each subcommand's own below.
pub const EXIT_CODES: &str = "Exit codes: 0 success; 1 a negative answer (solve and batch: some puzzle had no \
solution, was invalid or was stopped; each subcommand's --help says what it means there); 2 usage, input or \
connection error.";

/// Exit codes of `solve` and `batch`.
pub const SOLVE_EXIT_CODES: &str = "Exit codes: 0 every puzzle solved (unique, any, or several solutions); 1 some \
puzzle had no solution, was invalid or was stopped, or the input held no puzzle; 2 usage, input or connection \
error.";

/// Exit codes of `rate`.
pub const RATE_EXIT_CODES: &str = "Exit codes: 0 every puzzle rated to the end; 1 some puzzle was invalid, had no \
unique solution or only a lower bound (a deadline), or the input held no puzzle; 2 usage, input or connection \
error.";

/// Exit codes of `hint`.
pub const HINT_EXIT_CODES: &str = "Exit codes: 0 a step was found, or the grid is already solved; 1 the grid has no \
solution or several, the search stopped, or no technique the engine knows applies; 2 an invalid grid (or one that \
repeats a digit), usage or connection error.";

/// Exit codes of `explain`.
pub const EXPLAIN_EXIT_CODES: &str = "Exit codes: 0 the steps reach the solution, or the grid is already solved; 1 \
the grid has no solution or several, the search stopped, or logic cannot finish it; 2 an invalid grid (or one that \
repeats a digit), usage or connection error.";

/// Exit codes of `validate`.
pub const VALIDATE_EXIT_CODES: &str = "Exit codes: 0 the grid breaks no rule (and, with --against, keeps every \
given and holds no wrong entry); 1 it does; 2 an --against puzzle with no solution or several, usage or connection \
error.";

/// Exit codes of `generate`.
pub const GENERATE_EXIT_CODES: &str = "Exit codes: 0 every puzzle asked for came; 1 the server ended the stream \
early without an error; 2 a request the server refuses, a deadline or attempt budget that ran out (the puzzles \
made by then are printed), usage or connection error.";

/// Exit codes of `health`.
pub const HEALTH_EXIT_CODES: &str = "Exit codes: 0 SERVING; 1 any other status (NOT_SERVING, UNKNOWN, \
SERVICE_UNKNOWN); 2 no --server given, usage or connection error.";

/// Exit codes of `bench`.
pub const BENCH_EXIT_CODES: &str = "Exit codes: 0 every call succeeded; 1 some call failed (the report counts them \
by status code); 2 a --file with no valid puzzle, usage or connection error.";

/// Exit codes of `completions`.
pub const COMPLETIONS_EXIT_CODES: &str =
    "Exit codes: 0 the script was written; 2 usage error, or stdout cannot be written.";

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
        value_parser = crate::server_url::parse_flag,
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
    #[command(after_help = SOLVE_EXIT_CODES)]
    Solve(SolveArgs),
    /// Stream a file of puzzles (one per line) through BatchSolvePacked, many puzzles a
    /// message; answers in input order.
    #[command(after_help = SOLVE_EXIT_CODES)]
    Batch(BatchArgs),
    /// Rate puzzles on the Sudoku Explainer scale: rating, level, hardest step, techniques.
    #[command(after_help = RATE_EXIT_CODES)]
    Rate(RateArgs),
    /// The next logical step from a grid (and the player's pencil marks, --candidates), with
    /// the cells it rests on.
    #[command(after_help = HINT_EXIT_CODES)]
    Hint(HintArgs),
    /// Every logical step from a grid to its solution.
    #[command(after_help = EXPLAIN_EXIT_CODES)]
    Explain(HintArgs),
    /// Check a player's grid: repeated digits, and with --against, lost givens and entries
    /// that are wrong.
    #[command(after_help = VALIDATE_EXIT_CODES)]
    Validate(ValidateArgs),
    /// Generate puzzles with one solution, at a level or rating, one per line.
    #[command(after_help = GENERATE_EXIT_CODES)]
    Generate(GenerateArgs),
    /// Check a remote server's health (--server or SUDOKU_SERVER is required); prints its
    /// status.
    #[command(after_help = HEALTH_EXIT_CODES)]
    Health,
    /// Load-test a server: unary calls (or one stream with --batch) for a while; without
    /// --server, the embedded one.
    #[command(after_help = BENCH_EXIT_CODES)]
    Bench(BenchArgs),
    /// Print a shell completion script.
    #[command(after_help = COMPLETIONS_EXIT_CODES)]
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
    #[arg(long, default_value_t = 2, value_parser = parse_solution_count)]
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

/// `sudoku rate`.
#[derive(Debug, Args)]
pub struct RateArgs {
    /// Puzzles as in `solve`; a line may go on after the puzzle (`<puzzle> <anything>`).
    pub puzzles: Vec<String>,
    /// Read puzzles from a file, one per line or blank-line separated grids.
    #[arg(long)]
    pub file: Option<PathBuf>,
    /// Box shape ROWSxCOLS where a side has several (e.g. 3x2 for 6x6 grids).
    #[arg(long = "box", value_parser = parse_shape)]
    pub shape: Option<solver_core::Shape>,
    /// Do not use techniques that assume a unique solution (unique rectangles, BUG).
    #[arg(long)]
    pub no_uniqueness: bool,
}

/// `sudoku hint` and `sudoku explain`.
#[derive(Debug, Args)]
pub struct HintArgs {
    /// The grid of givens and entries, in any format `solve` reads; `-` or none reads stdin.
    pub grid: Option<String>,
    /// The player's pencil marks: the 729-character form of Sukaku Explainer and HoDoKu (each
    /// cell's nine candidate positions, the digit or `.`; side³ characters on other grids),
    /// or a pencil-mark grid (each cell's candidates as one word); `-` reads stdin.
    #[arg(long)]
    pub candidates: Option<String>,
    /// Box shape ROWSxCOLS where a side has several (e.g. 3x2 for 6x6 grids).
    #[arg(long = "box", value_parser = parse_shape)]
    pub shape: Option<solver_core::Shape>,
    /// Do not use techniques that assume a unique solution (unique rectangles, BUG).
    #[arg(long)]
    pub no_uniqueness: bool,
}

/// `sudoku validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// The player's grid, in any format `solve` reads (repeated digits allowed); `-` reads stdin.
    pub grid: String,
    /// The puzzle the grid grew from: the grid must keep its givens, and entries that differ
    /// from its unique solution are wrong; a puzzle with no solution or several is an error.
    #[arg(long)]
    pub against: Option<String>,
    /// Box shape ROWSxCOLS where a side has several (e.g. 3x2 for 6x6 grids).
    #[arg(long = "box", value_parser = parse_shape)]
    pub shape: Option<solver_core::Shape>,
}

/// `sudoku generate`.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Difficulty level (SE bands: easy < 1.5 <= medium < 2.5 <= hard < 5.0 <= diabolical
    /// < 7.0 <= extreme < 9.0 <= hardest).
    #[arg(long, value_enum, conflicts_with = "rating")]
    pub level: Option<LevelArg>,
    /// SE rating range MIN..MAX (e.g. 3.0..4.5), or one rating.
    #[arg(long, value_parser = parse_rating_range)]
    pub rating: Option<(f64, f64)>,
    /// Symmetry of the givens.
    #[arg(long, value_enum, default_value_t = SymmetryArg::None)]
    pub symmetry: SymmetryArg,
    /// Box shape ROWSxCOLS (default 3x3; e.g. 2x2 for 4x4, 4x4 for 16x16).
    #[arg(long = "box", value_parser = parse_shape)]
    pub shape: Option<solver_core::Shape>,
    /// How many puzzles.
    #[arg(long, default_value_t = 1, value_parser = parse_puzzle_count)]
    pub count: u32,
    /// Seed that reproduces the same puzzles (default: random, printed with --format json).
    #[arg(long, value_parser = parse_seed)]
    pub seed: Option<u64>,
    /// No given can be removed without losing the unique solution.
    #[arg(long)]
    pub minimal: bool,
    /// Rate each puzzle (SE) without --level or --rating too; rating costs more than making.
    #[arg(long)]
    pub rate: bool,
    /// Number of givens MIN..MAX (e.g. 24..30), or one number.
    #[arg(long, value_parser = parse_count_range)]
    pub givens: Option<(u32, u32)>,
}

/// Difficulty levels on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum LevelArg {
    /// SE below 1.5.
    Easy,
    /// SE 1.5 to 2.4.
    Medium,
    /// SE 2.5 to 4.9.
    Hard,
    /// SE 5.0 to 6.9.
    Diabolical,
    /// SE 7.0 to 8.9.
    Extreme,
    /// SE 9.0 and above.
    Hardest,
}

/// Symmetries of the givens on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SymmetryArg {
    /// None.
    None,
    /// Unchanged by a half turn (180°).
    #[value(alias = "rotate-180")]
    Rotational,
    /// Unchanged by a quarter turn (90°).
    Rotate90,
    /// Unchanged by a left-right mirror (in the vertical axis).
    #[value(alias = "mirror")]
    MirrorLeftRight,
    /// Unchanged by a top-bottom mirror (in the horizontal axis).
    MirrorTopBottom,
    /// Mirror across the main diagonal.
    Diagonal,
    /// Mirror across the anti-diagonal.
    AntiDiagonal,
}

/// `sudoku bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Puzzles to send, one per line.
    #[arg(long)]
    pub file: PathBuf,
    /// Calls in flight at once.
    #[arg(long, default_value_t = 16, value_parser = parse_concurrency)]
    pub concurrency: usize,
    /// How long to run (e.g. 10s).
    #[arg(long, value_parser = parse_duration, default_value = "10s")]
    pub duration: Duration,
    /// One BatchSolve stream instead of unary calls (so --concurrency does not apply).
    #[arg(long, conflicts_with = "concurrency")]
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

/// The longest duration accepted, in seconds: gRPC's grpc-timeout header carries at most
/// eight digits, and tonic panics on a deadline it cannot write (about three years).
pub const MAX_DURATION_SECS: u64 = 99_999_999;

/// Parses `500ms`, `2s`, `1m` or a bare number of seconds; zero is refused (it would end
/// every call, or a whole bench, before it starts), and so is anything above
/// [`MAX_DURATION_SECS`].
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
    if seconds > MAX_DURATION_SECS as f64 {
        return Err(format!(
            "'{text}' is above the maximum of {MAX_DURATION_SECS}s (about 3 years: a gRPC \
             deadline has at most 8 digits)"
        ));
    }
    match Duration::try_from_secs_f64(seconds) {
        Ok(d) if d.is_zero() => Err(format!("'{text}': a duration must be above zero")),
        Ok(d) => Ok(d),
        Err(e) => Err(format!("'{text}': {e}")),
    }
}

/// A whole number from `min` to `max`; otherwise `rule`, which says what is allowed in words
/// (a number beyond what the type holds is "too large", not a limit in digits).
fn whole_number(text: &str, min: u64, max: u64, rule: &str) -> Result<u64, String> {
    let digits = text.trim();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("'{text}' is not a whole number; {rule}"));
    }
    match digits.parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        Ok(n) if n < min => Err(rule.to_owned()),
        _ if max < u64::from(u32::MAX) => Err(rule.to_owned()),
        _ => Err(format!("'{text}' is too large")),
    }
}

/// `solve --count`.
pub fn parse_solution_count(text: &str) -> Result<u32, String> {
    let rule =
        "the count is 1 or more (1 finds any solution, 2 proves uniqueness, N counts up to N)";
    whole_number(text, 1, u32::MAX.into(), rule).map(|n| n as u32)
}

/// `generate --count`.
pub fn parse_puzzle_count(text: &str) -> Result<u32, String> {
    let rule = "generate makes 1 to 100,000 puzzles a call";
    whole_number(text, 1, 100_000, rule).map(|n| n as u32)
}

/// `generate --seed`.
pub fn parse_seed(text: &str) -> Result<u64, String> {
    let rule = "seeds are 1 or more (leave --seed out for a random one)";
    whole_number(text, 1, u64::MAX, rule)
}

/// `bench --concurrency`.
pub fn parse_concurrency(text: &str) -> Result<usize, String> {
    let rule = "the concurrency is 1 or more calls in flight";
    whole_number(text, 1, u32::MAX.into(), rule).map(|n| n as usize)
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

/// Parses `MIN..MAX` (or one value) with `number`, refusing an empty range.
fn parse_range<T: PartialOrd + Copy>(
    text: &str,
    what: &str,
    number: impl Fn(&str) -> Option<T>,
) -> Result<(T, T), String> {
    let bad = || format!("'{text}' is not {what} or a range like MIN..MAX");
    let (low, high) = match text.split_once("..") {
        Some((low, high)) => (number(low).ok_or_else(bad)?, number(high).ok_or_else(bad)?),
        None => {
            let value = number(text).ok_or_else(bad)?;
            (value, value)
        }
    };
    if low > high {
        return Err(format!(
            "'{text}' is an empty range: its lowest value is above its highest"
        ));
    }
    Ok((low, high))
}

/// Parses an SE rating range such as `3.0..4.5` (ratings 1.0 to 20.0).
pub fn parse_rating_range(text: &str) -> Result<(f64, f64), String> {
    parse_range(text, "an SE rating (1.0 to 20.0)", |s| {
        s.trim()
            .parse::<f64>()
            .ok()
            .filter(|r| (1.0..=20.0).contains(r))
    })
}

/// Parses a range of counts such as `24..30`.
pub fn parse_count_range(text: &str) -> Result<(u32, u32), String> {
    parse_range(text, "a number of givens", |s| s.trim().parse::<u32>().ok())
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
        assert_eq!(
            parse_duration("99999999s"),
            Ok(Duration::from_secs(MAX_DURATION_SECS))
        );
        let endless = "9".repeat(400);
        for huge in ["100000000", "1000000000000s", "1666667m", &endless] {
            let err = parse_duration(huge).unwrap_err();
            assert!(
                err.contains("above the maximum of 99999999s"),
                "{huge}: {err}"
            );
        }
    }

    #[test]
    fn numbers_in_words() {
        assert_eq!(parse_seed("7"), Ok(7));
        assert_eq!(
            parse_seed("0"),
            Err("seeds are 1 or more (leave --seed out for a random one)".into())
        );
        assert_eq!(
            parse_seed("99999999999999999999"),
            Err("'99999999999999999999' is too large".into())
        );
        assert_eq!(parse_puzzle_count("100000"), Ok(100_000));
        assert_eq!(
            parse_puzzle_count("100001"),
            Err("generate makes 1 to 100,000 puzzles a call".into())
        );
        assert_eq!(
            parse_solution_count("5000000000"),
            Err("'5000000000' is too large".into())
        );
        assert!(
            parse_concurrency("-1")
                .unwrap_err()
                .starts_with("'-1' is not a whole number")
        );
        for err in [
            parse_seed("0"),
            parse_solution_count("0").map(u64::from),
            parse_concurrency("x").map(|n| n as u64),
        ] {
            let err = err.unwrap_err();
            assert!(!err.contains("..") && !err.contains("4294967295"), "{err}");
        }
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
    fn ranges() {
        assert_eq!(parse_rating_range("3.0..4.5"), Ok((3.0, 4.5)));
        assert_eq!(parse_rating_range("7.2"), Ok((7.2, 7.2)));
        assert!(
            parse_rating_range("4.5..3.0")
                .unwrap_err()
                .contains("empty")
        );
        assert!(parse_rating_range("0.5..3").is_err());
        assert!(parse_rating_range("hard").is_err());
        assert_eq!(parse_count_range("24..30"), Ok((24, 30)));
        assert_eq!(parse_count_range("25"), Ok((25, 25)));
        assert!(parse_count_range("30..24").is_err());
        assert!(parse_count_range("-1..3").is_err());
    }

    #[test]
    fn the_cli_is_well_formed() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
