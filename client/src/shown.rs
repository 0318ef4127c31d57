//! A cap on the per-puzzle error lines written to stderr: a file that is not puzzles (say a
//! README given to `batch`) would otherwise print one line for each of its lines. The first
//! [`SHOWN`] are written; the rest are counted and summed up in one line at exit.

use std::sync::atomic::{AtomicU64, Ordering};

/// Per-puzzle error lines written before the rest are only counted.
pub const SHOWN: u64 = 10;

/// Per-puzzle error lines so far, written or not.
static LINES: AtomicU64 = AtomicU64::new(0);

/// Writes `line` to stderr, unless [`SHOWN`] lines have been written already.
pub fn error_line(line: std::fmt::Arguments<'_>) {
    if LINES.fetch_add(1, Ordering::Relaxed) < SHOWN {
        eprintln!("{line}");
    }
}

/// The line that sums up the error lines left unwritten, if any.
pub fn summary() -> Option<String> {
    let hidden = LINES.load(Ordering::Relaxed).saturating_sub(SHOWN);
    (hidden > 0).then(|| {
        let noun = if hidden == 1 { "error" } else { "errors" };
        format!("sudoku: {hidden} more {noun} not shown (only the first {SHOWN} are)")
    })
}

/// `n` and the noun, in the plural unless `n` is 1: "1 puzzle", "2 puzzles".
pub fn plural(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `n` and `one` or `many`, for nouns whose plural is not the singular and an "s": "1 guess",
/// "2 guesses".
pub fn counted(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals() {
        assert_eq!(plural(0, "puzzle"), "0 puzzles");
        assert_eq!(plural(1, "puzzle"), "1 puzzle");
        assert_eq!(plural(2, "error"), "2 errors");
        assert_eq!(counted(1, "guess", "guesses"), "1 guess");
        assert_eq!(counted(0, "guess", "guesses"), "0 guesses");
    }
}
