//! Checking, printing and counting answers as their turn comes, with progress on a terminal
//! and a closing line on stderr.

use std::io::{IsTerminal, Write};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressState, ProgressStyle};

use super::reorder::Ready;
use crate::cli::Format;
use crate::input::Origin;
use crate::output::{Answer, Printer, outcome_word, push_line_answer};
use crate::request::{Tally, count, failed, push_line, solves_cells};

/// Counts outcomes, shows progress, and prints the closing line on stderr.
pub struct Summary {
    /// Puzzles answered, and how many failed.
    pub tally: Tally,
    /// Puzzles by outcome word, in the order the words first came.
    counts: Vec<(&'static str, usize)>,
    /// One line of output, kept to spare an allocation per puzzle.
    line: Vec<u8>,
    /// The cells of a puzzle and of its solution, kept likewise.
    puzzle: Vec<u8>,
    solution: Vec<u8>,
    start: Instant,
    progress: Option<ProgressBar>,
    /// Whether each solution is checked against the rules and the givens.
    check: bool,
}

impl Summary {
    /// Starts counting, with a progress display on a terminal: a bar with the ETA when the
    /// number of puzzles is known (`total`), a spinner otherwise. `check` has each solution
    /// checked against the rules and the givens: a server elsewhere may run another version,
    /// or be faulty; the embedded one is this binary's own solver, whose answers the
    /// solver's tests check, and the check (with unpacking the puzzle for it) cost 1.5% of a
    /// 17-clue batch's time.
    pub fn new(total: Option<u64>, check: bool) -> Summary {
        let progress = std::io::stderr().is_terminal().then(|| {
            let (bar, template) = match total {
                Some(total) => (
                    ProgressBar::new(total),
                    "{wide_bar} {human_pos}/{human_len} puzzles  {rate}  ETA {eta}",
                ),
                None => (
                    ProgressBar::new_spinner(),
                    "{spinner} {human_pos} puzzles  {rate}  {elapsed}",
                ),
            };
            let style = ProgressStyle::with_template(template)
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .with_key(
                    "rate",
                    |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = write!(w, "{}/s", round_rate(state.per_sec()));
                    },
                );
            bar.set_style(style);
            bar
        });
        Summary {
            tally: Tally::default(),
            counts: Vec::new(),
            line: Vec::new(),
            puzzle: Vec::new(),
            solution: Vec::new(),
            start: Instant::now(),
            progress,
            check,
        }
    }

    /// Checks, prints and counts one answer.
    pub fn print(
        &mut self,
        printer: &Printer,
        out: &mut impl Write,
        origin: &Origin,
        ready: Ready<'_>,
    ) -> std::io::Result<()> {
        let word = match ready {
            Ready::Answer(answer) => {
                let outcome = answer.outcome();
                let solution = answer.solution(&mut self.solution);
                let shape = (answer.chunk.box_rows, answer.chunk.box_cols);
                let bad = self.check
                    && solution.is_some_and(|s| {
                        !solves_cells(shape.0, shape.1, answer.puzzle(&mut self.puzzle), s)
                    });
                count(&mut self.tally, origin, bad, outcome, answer.error());
                if printer.format() == Format::Line {
                    self.line.clear();
                    let solution = solution.map(|s| (shape.0, shape.1, s));
                    push_line_answer(&mut self.line, outcome, solution);
                    out.write_all(&self.line)?;
                } else {
                    let cells = answer.puzzle(&mut self.puzzle);
                    self.line.clear();
                    let puzzle = push_line(&mut self.line, shape.0, shape.1, cells)
                        .and_then(|()| std::str::from_utf8(&self.line).ok());
                    printer.answer(out, origin, puzzle, Answer::Packed(&answer.response()))?;
                }
                if bad { "wrong" } else { outcome_word(outcome) }
            }
            Ready::Invalid(reason) => {
                failed(&mut self.tally, origin, reason);
                printer.answer(out, origin, None, Answer::invalid(reason))?;
                "invalid"
            }
        };
        match self.counts.iter_mut().find(|(w, _)| *w == word) {
            Some((_, n)) => *n += 1,
            None => self.counts.push((word, 1)),
        }
        if let Some(bar) = &self.progress {
            bar.inc(1);
        }
        Ok(())
    }

    /// Clears the progress display and prints nothing: the run ended before any answer.
    pub fn abandon(&self) {
        if let Some(bar) = &self.progress {
            bar.finish_and_clear();
        }
    }

    /// Clears the spinner and prints the closing line.
    pub fn finish(&self) {
        if let Some(bar) = &self.progress {
            bar.finish_and_clear();
        }
        let seconds = self.start.elapsed().as_secs_f64();
        let mut counts = self.counts.clone();
        counts.sort_unstable();
        let by_outcome: Vec<String> = counts.iter().map(|(w, n)| format!("{n} {w}")).collect();
        let line = format!(
            "{}: {} in {:.2} s ({:.0} puzzles/s)\n",
            crate::shown::plural(self.tally.total as u64, "puzzle"),
            if by_outcome.is_empty() {
                "none".to_owned()
            } else {
                by_outcome.join(", ")
            },
            seconds,
            self.tally.total as f64 / seconds.max(1e-9)
        );
        // One write: `eprintln!` wrote each piece of the line with a system call of its own,
        // nine for this line, and another process's output could land between them.
        let _ = std::io::stderr().write_all(line.as_bytes());
    }
}

/// A rate as people read it: three significant digits, thousands separated (12,300/s).
fn round_rate(per_sec: f64) -> String {
    if !per_sec.is_finite() || per_sec < 1.0 {
        return format!("{:.1}", per_sec.max(0.0));
    }
    let digits = per_sec.log10().floor() as i32;
    let scale = 10f64.powi((digits - 2).max(0));
    let rounded = ((per_sec / scale).round() * scale) as u64;
    let text = rounded.to_string();
    let mut grouped = String::new();
    for (i, c) in text.chars().enumerate() {
        if i > 0 && (text.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    grouped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_rounded_to_three_digits() {
        assert_eq!(round_rate(0.25), "0.2");
        assert_eq!(round_rate(7.4), "7");
        assert_eq!(round_rate(123.4), "123");
        assert_eq!(round_rate(12_345.6), "12,300");
        assert_eq!(round_rate(1_234_567.0), "1,230,000");
        assert_eq!(round_rate(f64::NAN), "0.0");
    }
}
