//! Putting answers, which arrive by chunk in completion order, back in input order, and
//! counting them.

use std::collections::{BTreeMap, HashSet};
use std::io::{IsTerminal, Write};
use std::time::Instant;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressState, ProgressStyle};
use sudoku_proto::pb::{self, Outcome};

use super::Item;
use super::read::Chunk;
use crate::input::Origin;
use crate::output::{Answer, Printer, outcome_word};
use crate::request::{Tally, check, failed};

/// One puzzle waiting for its turn to be printed.
struct Slot {
    origin: Origin,
    /// The puzzle sent, to check the answer against; `None` when it never parsed.
    puzzle: Option<pb::Grid>,
    answer: Option<Result<pb::SolveResponse, String>>,
}

/// Puts answers, which arrive in completion order, back in input order.
#[derive(Default)]
pub struct Reorder {
    /// Puzzles by number (1-based), until printed.
    slots: BTreeMap<usize, Slot>,
    /// Chunks answered, so that a second answer to one is caught.
    answered: HashSet<u64>,
    /// Puzzles read so far.
    pub pushed: usize,
    /// The next puzzle number to print.
    next: usize,
}

/// One puzzle ready to print: the server's answer and the puzzle sent, or why it was not sent.
pub type Ready = Result<(pb::Grid, pb::SolveResponse), String>;

impl Reorder {
    /// Takes note of a puzzle read.
    pub fn push(&mut self, item: Item) {
        match item {
            Item::Puzzles(puzzles) => {
                for (origin, grid) in puzzles {
                    self.insert(origin, Some(grid), None);
                }
            }
            Item::Invalid(origin, reason) => self.insert(origin, None, Some(Err(reason))),
            Item::Done => {}
        }
    }

    fn insert(
        &mut self,
        origin: Origin,
        puzzle: Option<pb::Grid>,
        answer: Option<Result<pb::SolveResponse, String>>,
    ) {
        self.pushed += 1;
        self.slots.insert(
            origin.number,
            Slot {
                origin,
                puzzle,
                answer,
            },
        );
    }

    /// Files a chunk's answers under its puzzles.
    pub fn answer(&mut self, chunk: &Chunk, reply: &pb::PackedAnswers) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.answered.insert(chunk.id),
            "message {} was answered twice",
            chunk.id
        );
        anyhow::ensure!(
            reply.outcomes.len() == chunk.numbers.len(),
            "message {}: {} outcomes for {} puzzles",
            chunk.id,
            reply.outcomes.len(),
            chunk.numbers.len()
        );
        for (offset, &number) in chunk.numbers.iter().enumerate() {
            let slot = self
                .slots
                .get_mut(&number)
                .with_context(|| format!("an answer for puzzle {number}, which is not waiting"))?;
            slot.answer = Some(Ok(unpack(chunk, reply, offset)));
        }
        Ok(())
    }

    /// Puzzles read but not yet printed.
    pub fn outstanding(&self) -> usize {
        self.slots.len()
    }

    /// Hands every puzzle whose turn has come, in order, to `print`.
    pub fn drain(
        &mut self,
        mut print: impl FnMut(&Origin, Ready) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        if self.next == 0 {
            self.next = 1;
        }
        while let Some(slot) = self.slots.get(&self.next) {
            if slot.answer.is_none() {
                break;
            }
            let Some(slot) = self.slots.remove(&self.next) else {
                break;
            };
            let ready = match (slot.answer, slot.puzzle) {
                (Some(Ok(response)), Some(puzzle)) => Ok((puzzle, response)),
                (Some(Err(reason)), _) => Err(reason),
                _ => Err("no answer".to_owned()),
            };
            print(&slot.origin, ready)?;
            self.next += 1;
        }
        Ok(())
    }
}

/// The answer to the chunk's puzzle at `offset`, in BatchSolve's terms, so that checking and
/// printing are the same for every way of sending.
fn unpack(chunk: &Chunk, reply: &pb::PackedAnswers, offset: usize) -> pb::SolveResponse {
    let outcome = reply
        .outcomes
        .get(offset)
        .and_then(|&o| Outcome::try_from(i32::from(o)).ok())
        .unwrap_or(Outcome::Unspecified);
    let cells = (chunk.box_rows * chunk.box_cols).pow(2) as usize;
    let solution = matches!(
        outcome,
        Outcome::Unique | Outcome::Solved | Outcome::Multiple
    )
    .then(|| reply.solutions.get(offset * cells..(offset + 1) * cells))
    .flatten()
    .map(|bytes| pb::Grid {
        box_rows: chunk.box_rows,
        box_cols: chunk.box_cols,
        cells: bytes.iter().map(|&b| u32::from(b)).collect(),
    });
    let error = reply
        .errors
        .iter()
        .find(|e| e.offset as usize == offset)
        .and_then(|e| e.error.clone());
    pb::SolveResponse {
        id: String::new(),
        index: (chunk.numbers[offset] - 1) as u64,
        outcome: outcome.into(),
        solution,
        solutions_found: reply.solutions_found.get(offset).copied().unwrap_or(0),
        stats: Some(pb::SolveStats {
            guesses: reply.guesses.get(offset).copied().unwrap_or(0),
            ..pb::SolveStats::default()
        }),
        error,
    }
}

/// Counts outcomes, shows progress, and prints the closing line on stderr.
pub struct Summary {
    /// Puzzles answered, and how many failed.
    pub tally: Tally,
    counts: BTreeMap<&'static str, usize>,
    start: Instant,
    progress: Option<ProgressBar>,
}

impl Summary {
    /// Starts counting, with a progress display on a terminal: a bar with the ETA when the
    /// number of puzzles is known (`total`), a spinner otherwise.
    pub fn new(total: Option<u64>) -> Summary {
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
            counts: BTreeMap::new(),
            start: Instant::now(),
            progress,
        }
    }

    /// Checks, prints and counts one answer.
    pub fn print(
        &mut self,
        printer: &Printer,
        out: &mut impl Write,
        origin: &Origin,
        ready: Ready,
    ) -> std::io::Result<()> {
        let word = match &ready {
            Ok((puzzle, response)) => {
                check(&mut self.tally, origin, puzzle, response);
                printer.answer(out, origin, Answer::Response(response))?;
                outcome_word(response.outcome())
            }
            Err(reason) => {
                failed(&mut self.tally, origin, reason);
                printer.answer(out, origin, Answer::invalid(reason))?;
                "invalid"
            }
        };
        *self.counts.entry(word).or_default() += 1;
        if let Some(bar) = &self.progress {
            bar.inc(1);
        }
        Ok(())
    }

    /// Clears the spinner and prints the closing line.
    pub fn finish(&self) {
        if let Some(bar) = &self.progress {
            bar.finish_and_clear();
        }
        let seconds = self.start.elapsed().as_secs_f64();
        let by_outcome: Vec<String> = self
            .counts
            .iter()
            .map(|(w, n)| format!("{n} {w}"))
            .collect();
        eprintln!(
            "{} puzzles: {} in {:.2} s ({:.0} puzzles/s)",
            self.tally.total,
            if by_outcome.is_empty() {
                "none".to_owned()
            } else {
                by_outcome.join(", ")
            },
            seconds,
            self.tally.total as f64 / seconds.max(1e-9)
        );
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
