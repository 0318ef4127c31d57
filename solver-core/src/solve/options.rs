//! What a caller can ask of a solve: how many solutions, which algorithm, and when to stop.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use crate::limits::Limits;

/// Which search to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Algorithm {
    /// `Fast` for 9×9 grids, `General` for every other shape.
    #[default]
    Auto,
    /// Bit-parallel 9×9 solver: the fastest, 3×3 boxes only.
    Fast,
    /// Candidate propagation with singles, for every box shape.
    General,
    /// The textbook algorithm: first empty cell, try 1..N, undo on dead end.
    Backtracking,
}

impl Algorithm {
    /// The lowercase name used in messages and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Auto => "auto",
            Algorithm::Fast => "fast",
            Algorithm::General => "general",
            Algorithm::Backtracking => "backtracking",
        }
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Options for [`solve`](crate::solve()).
#[derive(Debug, Clone)]
pub struct Options {
    /// Solutions to look for: 1 = any (fastest), 2 = prove uniqueness (default), N = count to N.
    /// 0 is taken as 1.
    pub max_solutions: usize,
    /// The algorithm; `Auto` picks the best one for the grid's shape.
    pub algorithm: Algorithm,
    /// The most guesses the search may make before it stops.
    pub max_guesses: Option<u64>,
    /// When the search must stop, whatever it has found.
    pub limits: Limits,
}

/// Builder-style setters: `Options::default().max_solutions(1).deadline(at)`.
impl Options {
    /// Solutions to look for (1 any, 2 prove uniqueness, N count to N).
    pub fn max_solutions(mut self, max_solutions: usize) -> Options {
        self.max_solutions = max_solutions;
        self
    }

    /// The algorithm to run.
    pub fn algorithm(mut self, algorithm: Algorithm) -> Options {
        self.algorithm = algorithm;
        self
    }

    /// The most guesses the search may make.
    pub fn max_guesses(mut self, guesses: u64) -> Options {
        self.max_guesses = Some(guesses);
        self
    }

    /// When the search must stop.
    pub fn deadline(mut self, deadline: Instant) -> Options {
        self.limits.deadline = Some(deadline);
        self
    }

    /// A flag another thread may raise to stop the search.
    pub fn cancel(mut self, flag: Arc<AtomicBool>) -> Options {
        self.limits.cancel = Some(flag);
        self
    }

    /// The deadline and cancel flag, as shared with rating and generating.
    pub fn limits(mut self, limits: Limits) -> Options {
        self.limits = limits;
        self
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_solutions: 2,
            algorithm: Algorithm::Auto,
            max_guesses: None,
            limits: Limits::default(),
        }
    }
}
