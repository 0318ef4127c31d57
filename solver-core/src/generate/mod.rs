//! Puzzle generation: random complete grids carved down to puzzles the solver proves unique,
//! with a symmetric pattern, a number of givens, minimality and a rating as asked.
//!
//! Without `minimal`, carving still removes every orbit of givens it can (down to the givens
//! range's low end, or [`LARGE_GRID_FLOOR`] above 16×16). `minimal` is strict: no single given
//! can go. With a symmetry that holds for few carved puzzles (about 1 in 40 with a half turn,
//! far fewer with a quarter turn), so such requests spend many attempts or end with
//! [`GenerateError::Stopped`]. Rates on one core of a shared 2-core VM (`SUDOKU_BENCH_SECONDS=3
//! cargo bench -p solver-core --bench generate`; absolute rates drift with the load, the ratio
//! holds): about 7,900 minimal 9×9 puzzles/s unrated (2.1× the `sudoku` crate); by level easy
//! 170/s, medium 880/s, hard 520/s, diabolical 210/s, extreme 230/s, hardest 2/s (about 1,500
//! grids each; the rater's [`Rater::guesses`] spares most of the ratings).
//!
//! ```
//! use solver_core::{Outcome, Options, solve};
//! use solver_core::generate::{GenerateOptions, Generator};
//!
//! let options = GenerateOptions { minimal: true, seed: 7, ..GenerateOptions::default() };
//! for made in Generator::new(options, None).expect("a valid request").take(2) {
//!     let made = made.expect("no limits were set");
//!     let check = solve(&made.puzzle, &Options::default()).expect("9x9 is supported");
//!     assert_eq!(check.outcome, Outcome::Unique(made.solution));
//! }
//! ```

mod carve;
mod classic;
mod error;
mod fill;
mod rate;
mod refill;
mod rng;
mod symmetry;
mod unavoidable;

use std::ops::RangeInclusive;

pub use error::GenerateError;
pub use rate::{SeRater, level_band};
pub use rng::next_seed;
pub use symmetry::{Symmetry, UnknownSymmetry};

use crate::grid::{Grid, Shape};
use crate::limits::{Limits, StopReason};
use crate::solve::Options;
use rng::Random;

/// Complete grids tried per puzzle when the caller sets no budget, so that a request no
/// puzzle can meet ends with an error instead of running forever. A hardest (SE 9.0+) puzzle
/// takes about 1,200 grids on average (up to 4,000 in 40 measured), so 10,000 run out for
/// about one request in 3,000; where nothing can be met they cost 1-2 s without a deadline.
pub const DEFAULT_ATTEMPTS: u64 = 10_000;

/// Guesses one uniqueness check may take on grids larger than 9×9 when minimality is not
/// required: a sparse 25×25 check can search for seconds, and keeping that given is cheaper.
const CHECK_GUESSES: u64 = 2000;

/// The share of cells (numerator, denominator) carving keeps on grids above 16×16 when no
/// givens range is asked for: below it a 25×25 puzzle takes seconds to carve and seconds more
/// to prove unique (measured: 344 givens in 25 ms, 275 givens in 9 s).
pub const LARGE_GRID_FLOOR: (usize, usize) = (11, 20);

/// Rates puzzles for a rating target (the logic engine's SE rating, or any other scale in
/// tenths).
pub trait Rater {
    /// The rating in tenths (SE 4.5 = 45) of a puzzle with a unique solution, or `None` when it
    /// cannot be rated (shape not supported, rating stopped); such a puzzle meets no target.
    fn rate(&self, puzzle: &Grid) -> Option<u16>;

    /// How many guesses the solver may need to prove a 9×9 puzzle rated in `band` unique, where
    /// the scale tells: puzzles outside are thrown back unrated, which saves most of the
    /// rating time of the bands at either end. Everything is rated unless a rater knows better.
    fn guesses(&self, band: &RangeInclusive<u16>) -> RangeInclusive<u64> {
        let _ = band;
        0..=u64::MAX
    }
}

impl<F: Fn(&Grid) -> Option<u16>> Rater for F {
    fn rate(&self, puzzle: &Grid) -> Option<u16> {
        self(puzzle)
    }
}

/// What to generate.
#[derive(Debug, Clone)]
pub struct GenerateOptions {
    /// The box shape.
    pub shape: Shape,
    /// The symmetry of the pattern of givens.
    pub symmetry: Symmetry,
    /// Whether no given may be removable without losing uniqueness.
    pub minimal: bool,
    /// How many givens the puzzle may have.
    pub givens: Option<RangeInclusive<usize>>,
    /// The rating band in tenths (needs a [`Rater`]).
    pub rating: Option<RangeInclusive<u16>>,
    /// The request's seed: puzzle k is seeded by `next_seed` applied k times to it.
    pub seed: u64,
    /// Complete grids tried per puzzle before giving up; `None` for no limit.
    pub max_attempts: Option<u64>,
    /// When generation stops with an error; its uniqueness checks stop then too.
    pub limits: Limits,
}

impl Default for GenerateOptions {
    fn default() -> Self {
        GenerateOptions {
            shape: Shape::CLASSIC,
            symmetry: Symmetry::None,
            minimal: false,
            givens: None,
            rating: None,
            seed: 0,
            max_attempts: Some(DEFAULT_ATTEMPTS),
            limits: Limits::default(),
        }
    }
}

/// A generated puzzle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generated {
    /// The puzzle; the solver has proved its solution unique.
    pub puzzle: Grid,
    /// Its only solution.
    pub solution: Grid,
    /// Filled cells in the puzzle.
    pub givens: usize,
    /// The seed that regenerates this puzzle first (with the same other options).
    pub seed: u64,
    /// The rating in tenths, when a rater was supplied and could rate it.
    pub rating: Option<u16>,
    /// Complete grids tried before this puzzle met the request.
    pub attempts: u64,
}

/// An endless stream of puzzles for one request; take as many as wanted.
pub struct Generator<'r> {
    options: GenerateOptions,
    rater: Option<&'r dyn Rater>,
    seed: u64,
    orbits: Vec<Vec<usize>>,
}

impl<'r> Generator<'r> {
    /// Checks the request; every puzzle is rated by `rater` when one is given.
    pub fn new(
        options: GenerateOptions,
        rater: Option<&'r dyn Rater>,
    ) -> Result<Generator<'r>, GenerateError> {
        validate(&options, rater.is_some())?;
        Ok(Generator {
            seed: options.seed,
            orbits: options.symmetry.orbits(options.shape.side()),
            options,
            rater,
        })
    }

    /// The puzzle seeded `seed`, as the request would make it.
    pub fn puzzle(&self, seed: u64) -> Result<Generated, GenerateError> {
        let options = &self.options;
        let mut rng = Random::new(seed);
        let mut orbits = self.orbits.clone();
        let checks = self.check_options();
        let limit = options.max_attempts.unwrap_or(u64::MAX);
        let mut attempts = 0;
        loop {
            if let Some(reason) = self.stop_reason(attempts, limit) {
                return Err(self.stopped(reason, attempts));
            }
            attempts += 1;
            let solution = fill::random_solution(options.shape, &mut rng);
            rng.shuffle(&mut orbits);
            let mut carved = carve::carve(&solution, &orbits, self.floor(), &checks)
                .map_err(|reason| self.stopped(reason, attempts))?;
            let givens = carved.cells.iter().filter(|&&v| v != 0).count();
            if options
                .givens
                .as_ref()
                .is_some_and(|r| !r.contains(&givens))
            {
                continue;
            }
            if options.minimal && !self.proven_minimal(&mut carved, &checks, attempts)? {
                continue;
            }
            // Carving proved each step; one count-to-two solve of the result is the proof
            // every caller can rely on, whatever shortcuts carving takes.
            let unbudgeted = Options {
                max_guesses: None,
                ..checks.clone()
            };
            let guesses =
                match carve::uniqueness_counting(options.shape, &carved.cells, &unbudgeted) {
                    (carve::Uniqueness::Unique, guesses) => guesses,
                    (carve::Uniqueness::Stopped(reason), _) => {
                        return Err(self.stopped(reason, attempts));
                    }
                    (carve::Uniqueness::NotUnique, _) => continue,
                };
            if self.out_of_band(guesses) {
                continue;
            }
            let puzzle = Grid::from_values(options.shape, carved.cells.clone().into())
                .expect("a subset of a solution has no repeats");
            let rating = self.rater.and_then(|r| r.rate(&puzzle));
            if let Some(band) = &options.rating
                && !rating.is_some_and(|t| band.contains(&t))
            {
                if let Some(made) = self.refilled(&carved.cells, &solution, &mut rng, band) {
                    return Ok(Generated {
                        givens: made.0.cells().iter().filter(|&&v| v != 0).count(),
                        puzzle: made.0,
                        solution,
                        seed,
                        rating: Some(made.1),
                        attempts,
                    });
                }
                continue;
            }
            return Ok(Generated {
                puzzle,
                solution,
                givens,
                seed,
                rating,
                attempts,
            });
        }
    }

    /// A puzzle above 9×9 that missed `band`, given back givens until it lands inside
    /// (see [`refill`]); not when minimality or a number of givens was asked for.
    fn refilled(
        &self,
        cells: &[u8],
        solution: &Grid,
        rng: &mut Random,
        band: &RangeInclusive<u16>,
    ) -> Option<(Grid, u16)> {
        let options = &self.options;
        let rater = self.rater?;
        if options.shape.side() <= 9 || options.minimal || options.givens.is_some() {
            return None;
        }
        let orbits = (&self.orbits[..], rng);
        refill::refill(
            options.shape,
            (cells, solution),
            orbits.0,
            orbits.1,
            (rater, band),
        )
    }

    /// Whether a puzzle proven unique in `guesses` is outside the request's rating band by the
    /// rater's own bounds, so not worth rating.
    fn out_of_band(&self, guesses: u64) -> bool {
        match (self.rater, &self.options.rating) {
            (Some(rater), Some(band)) if self.options.shape == Shape::CLASSIC => {
                !rater.guesses(band).contains(&guesses)
            }
            _ => false,
        }
    }

    /// Solver options for uniqueness checks: the request's deadline and cancel flag, and a
    /// guess cap on large grids when a kept given need not be proven necessary.
    fn check_options(&self) -> Options {
        let side = self.options.shape.side();
        Options {
            max_solutions: 2,
            max_guesses: (side > 9 && !self.options.minimal).then_some(CHECK_GUESSES),
            limits: self.options.limits.clone(),
            ..Options::default()
        }
    }

    /// The fewest givens carving may leave: the range's low end, unless minimality is asked
    /// for (then carving goes all the way and the count is checked afterwards). Grids above
    /// 16×16 stop at [`LARGE_GRID_FLOOR`] of their cells unless told otherwise.
    fn floor(&self) -> usize {
        let shape = self.options.shape;
        match &self.options.givens {
            _ if self.options.minimal => 0,
            Some(r) => *r.start(),
            None if shape.side() > 16 => shape.cells() * LARGE_GRID_FLOOR.0 / LARGE_GRID_FLOOR.1,
            None => 0,
        }
    }

    fn proven_minimal(
        &self,
        carved: &mut carve::Carved,
        checks: &Options,
        attempts: u64,
    ) -> Result<bool, GenerateError> {
        if !carved.orbit_minimal {
            return Ok(false);
        }
        // Without symmetry each kept given was shown necessary while carving; with one,
        // only whole orbits were, so try each given alone.
        if self.options.symmetry == Symmetry::None {
            return Ok(true);
        }
        let minimal = match &mut carved.classic {
            Some(classic) => classic.is_minimal(checks),
            None => carve::is_minimal(self.options.shape, &carved.cells, checks),
        };
        match minimal {
            Ok(minimal) => Ok(minimal),
            Err(StopReason::Budget) => Ok(false),
            Err(reason) => Err(self.stopped(reason, attempts)),
        }
    }

    fn stop_reason(&self, attempts: u64, limit: u64) -> Option<StopReason> {
        if attempts >= limit {
            return Some(StopReason::Budget);
        }
        self.options.limits.reached()
    }

    fn stopped(&self, reason: StopReason, attempts: u64) -> GenerateError {
        GenerateError::Stopped {
            reason,
            attempts,
            why: describe(&self.options),
        }
    }
}

impl Iterator for Generator<'_> {
    type Item = Result<Generated, GenerateError>;

    fn next(&mut self) -> Option<Self::Item> {
        let seed = self.seed;
        self.seed = next_seed(seed);
        Some(self.puzzle(seed))
    }
}

/// The request in words, for errors.
fn describe(options: &GenerateOptions) -> String {
    let mut parts = vec![format!("{} boxes", options.shape)];
    if options.symmetry != Symmetry::None {
        parts.push(format!("{} symmetry", options.symmetry));
    }
    if options.minimal {
        parts.push("minimal".into());
    }
    if let Some(r) = &options.givens {
        parts.push(format!("givens {}", error::counts(*r.start(), *r.end())));
    }
    if let Some(r) = &options.rating {
        let (low, high) = (f64::from(*r.start()) / 10.0, f64::from(*r.end()) / 10.0);
        parts.push(match *r.end() {
            u16::MAX => format!("rating {low:.1} or more"),
            _ if r.start() == r.end() => format!("rating {low:.1}"),
            _ => format!("rating {low:.1} to {high:.1}"),
        });
    }
    parts.join(", ")
}

/// Rejects requests no puzzle can meet, before any work.
fn validate(options: &GenerateOptions, has_rater: bool) -> Result<(), GenerateError> {
    let shape = options.shape;
    if let Some(r) = &options.rating {
        if r.is_empty() {
            return Err(GenerateError::RatingRange {
                min: *r.start(),
                max: *r.end(),
            });
        }
        if !has_rater {
            return Err(GenerateError::NoRater);
        }
    }
    let Some(range) = &options.givens else {
        return Ok(());
    };
    let (min, max) = (*range.start(), *range.end());
    if min > max || min > shape.cells() {
        return Err(GenerateError::GivensRange {
            min,
            max,
            cells: shape.cells(),
            shape,
        });
    }
    let least = least_givens(shape);
    if max < least {
        return Err(GenerateError::TooFewGivens { max, least, shape });
    }
    let reachable = reachable_counts(&options.symmetry.orbits(shape.side()));
    if !(min..=max.min(shape.cells())).any(|n| reachable[n]) {
        return Err(GenerateError::GivensForSymmetry {
            min,
            max,
            symmetry: options.symmetry,
            shape,
        });
    }
    Ok(())
}

/// A lower bound on the givens of a unique puzzle: two digits missing from the givens could be
/// swapped in any solution, and 9×9 puzzles need 17 (McGuire, Tugemann and Civario, 2012).
fn least_givens(shape: Shape) -> usize {
    if shape == Shape::CLASSIC {
        17
    } else {
        shape.side() - 1
    }
}

/// Which givens counts a union of whole orbits can have.
fn reachable_counts(orbits: &[Vec<usize>]) -> Vec<bool> {
    let total: usize = orbits.iter().map(Vec::len).sum();
    let mut reachable = vec![false; total + 1];
    reachable[0] = true;
    for orbit in orbits {
        for n in (orbit.len()..=total).rev() {
            if reachable[n - orbit.len()] {
                reachable[n] = true;
            }
        }
    }
    reachable
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impossible_givens_are_refused_up_front() {
        let with = |givens, symmetry| GenerateOptions {
            givens: Some(givens),
            symmetry,
            ..GenerateOptions::default()
        };
        let err = |o| Generator::new(o, None).err().expect("an error");
        assert!(matches!(
            err(with(RangeInclusive::new(30, 20), Symmetry::None)),
            GenerateError::GivensRange {
                min: 30,
                max: 20,
                ..
            }
        ));
        assert!(matches!(
            err(with(90..=100, Symmetry::None)),
            GenerateError::GivensRange { .. }
        ));
        // In words, without Rust's range syntax.
        assert_eq!(
            err(with(100..=100, Symmetry::None)).to_string(),
            "givens: 100 asked for, but a 3x3 grid has 81 cells"
        );
        assert_eq!(
            err(with(RangeInclusive::new(30, 20), Symmetry::None)).to_string(),
            "givens: the lowest (30) is above the highest (20)"
        );
        assert_eq!(
            err(with(26..=27, Symmetry::Rotate90)).to_string(),
            "givens: no count from 26 to 27 is possible with rotate90 symmetry on a 3x3 grid"
        );
        let too_few = err(with(10..=16, Symmetry::None));
        assert_eq!(
            too_few.to_string(),
            "givens: at most 16 asked for, but a 3x3 puzzle needs at least 17 givens to have a \
             unique solution"
        );
        // Quarter-turn orbits have 4 cells plus the centre: 26 and 27 are out of reach.
        assert!(matches!(
            err(with(26..=27, Symmetry::Rotate90)),
            GenerateError::GivensForSymmetry { .. }
        ));
        assert!(Generator::new(with(26..=28, Symmetry::Rotate90), None).is_ok());
    }

    #[test]
    fn requests_in_words() {
        let options = GenerateOptions {
            givens: Some(24..=30),
            rating: Some(90..=u16::MAX),
            ..GenerateOptions::default()
        };
        assert_eq!(
            describe(&options),
            "3x3 boxes, givens 24 to 30, rating 9.0 or more"
        );
        let options = GenerateOptions {
            rating: Some(30..=45),
            ..GenerateOptions::default()
        };
        assert_eq!(describe(&options), "3x3 boxes, rating 3.0 to 4.5");
    }

    #[test]
    fn rating_needs_a_rater_and_a_band() {
        let options = GenerateOptions {
            rating: Some(30..=40),
            ..GenerateOptions::default()
        };
        assert_eq!(
            Generator::new(options.clone(), None).err(),
            Some(GenerateError::NoRater)
        );
        let rater = |_: &Grid| Some(35u16);
        assert!(Generator::new(options, Some(&rater)).is_ok());
        let empty = GenerateOptions {
            rating: Some(RangeInclusive::new(40, 30)),
            ..GenerateOptions::default()
        };
        let err = Generator::new(empty, Some(&rater)).err();
        assert!(matches!(
            err,
            Some(GenerateError::RatingRange { min: 40, max: 30 })
        ));
        assert_eq!(
            err.map(|e| e.to_string()).as_deref(),
            Some("rating: the lowest (4.0) is above the highest (3.0)")
        );
    }

    #[test]
    fn unmeetable_request_ends_with_a_clear_error() {
        // 60 givens can be met only by stopping early, never by a minimal puzzle.
        let options = GenerateOptions {
            minimal: true,
            givens: Some(60..=60),
            max_attempts: Some(3),
            ..GenerateOptions::default()
        };
        let err = Generator::new(options, None)
            .expect("valid")
            .next()
            .expect("endless")
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "no puzzle met the request after 3 attempts (3x3 boxes, minimal, givens 60): \
             attempt budget spent"
        );
    }
}
