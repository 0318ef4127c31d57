//! The per-solve bookkeeping every algorithm shares: solutions found, guesses, stop checks.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::{Options, StopReason};

/// Guesses between two reads of the clock: a guess costs well under a microsecond, so a
/// deadline is noticed within a millisecond while the clock stays off the hot path.
const CLOCK_EVERY: u64 = 16;

/// Tracks a running search and tells it when to stop.
pub(crate) struct Control<'a> {
    limit: usize,
    found: usize,
    first: Option<Box<[u8]>>,
    guesses: u64,
    budget: u64,
    deadline: Option<Instant>,
    cancel: Option<&'a AtomicBool>,
}

impl<'a> Control<'a> {
    /// Stops at the earlier of `options.limits.deadline` and `deadline`.
    pub(crate) fn new(options: &'a Options, deadline: Option<Instant>) -> Self {
        Control {
            limit: options.max_solutions.max(1),
            found: 0,
            first: None,
            guesses: 0,
            budget: options.max_guesses.unwrap_or(u64::MAX),
            deadline: match (options.limits.deadline, deadline) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            cancel: options.limits.cancel.as_deref(),
        }
    }

    /// Records one guess; `Err` when the search must stop.
    #[inline]
    pub(crate) fn guess(&mut self) -> Result<(), StopReason> {
        self.guesses += 1;
        if self.guesses > self.budget {
            return Err(StopReason::Budget);
        }
        if self.cancel.is_some_and(|flag| flag.load(Ordering::Relaxed)) {
            return Err(StopReason::Cancelled);
        }
        if self.guesses.is_multiple_of(CLOCK_EVERY)
            && self
                .deadline
                .is_some_and(|deadline| Instant::now() >= deadline)
        {
            return Err(StopReason::Deadline);
        }
        Ok(())
    }

    /// Records a solution; `true` when enough have been found and the search should end.
    pub(crate) fn solution(&mut self, cells: &[u8]) -> bool {
        self.found += 1;
        if self.first.is_none() {
            self.first = Some(cells.into());
        }
        self.found >= self.limit
    }

    /// Whether the search already has all the solutions it was asked for.
    pub(crate) fn limit(&self) -> usize {
        self.limit
    }

    /// Solutions found, guesses made, and the first solution.
    pub(crate) fn finish(self) -> (usize, u64, Option<Box<[u8]>>) {
        (self.found, self.guesses, self.first)
    }
}

/// How a search ends: `Ok` when complete or the limit was reached, `Err` when stopped.
pub(crate) type SearchResult = Result<(), StopReason>;
