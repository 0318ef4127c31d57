//! Human-style solving: rate a puzzle on the Sudoku Explainer (SE) scale, give the next hint,
//! explain a whole solve. (Checking a player's grid is [`crate::check::Entries::check`].)
//!
//! The engine works on a [`Candidates`] grid and always applies the simplest technique that
//! makes progress, in SE's order of difficulty; a puzzle's rating is its hardest step's.
//! The order and ratings follow Sukaku Explainer (which rated the calibration file):
//!
//! | technique | SE rating |
//! | --- | --- |
//! | full house, hidden single in a box, in a line | 1.0, 1.2, 1.5 |
//! | direct pointing, direct claiming, direct hidden pair | 1.7, 1.9, 2.0 |
//! | naked single, direct hidden triple | 2.3, 2.5 |
//! | pointing, claiming | 2.6, 2.8 |
//! | naked pair, X-Wing, hidden pair, naked triple, Swordfish, hidden triple | 3.0 - 4.0 |
//! | Skyscraper, 2-String Kite, Turbot Fish, Empty Rectangle | 4.0, 4.1, 4.2, 4.3 |
//! | any of them with a grouped link (line over two boxes, box on a row and a column) | 4.3 |
//! | XY-Wing, XYZ-Wing | 4.2, 4.4 |
//! | unique rectangles and loops, types 1-4 (uniqueness) | 4.5 + loop length + set size |
//! | naked quad, Jellyfish, hidden quad | 5.0, 5.2, 5.4 |
//! | three strong links (Skyscraper, Turbot, Kite); any with a grouped link | 5.4, 5.5, 5.6; 5.7 |
//! | WXYZ-Wing | 5.5, 5.6 |
//! | BUG types 1, 2, 4, 3 (uniqueness) | 5.6, 5.7, 5.7, 5.8+ |
//! | VWXYZ-Wing, aligned pair exclusion (9x9, as all below) | 6.2 - 6.4, 6.2 |
//! | bidirectional X- or Y-cycle, forcing X- or Y-chain | 6.5+, 6.6+ |
//! | bidirectional cycle, forcing chain (cell and house links) | 7.0+ |
//! | aligned triplet exclusion, Nishio forcing chain | 7.5, 7.5+ |
//! | cell, region, double-implication and contradiction forcing chains | 8.0+ |
//! | dynamic forcing chains, dynamic forcing chains (+) | 8.5+, 9.0+ |
//! | nested forcing chains: dynamic chains inside (SE's level 4), dynamic (+) inside (level 5) | 10.5+, 11.0+ |
//!
//! Chains add 0.1 each time their length passes 4, 6, 8, 12, 16, 24, 32, ... facts.
//!
//! Singles, locked candidates, subsets, fish and the other single-digit and wing patterns work
//! on every box shape.
//!
//! Hints and explanations (not ratings) also offer two patterns players know by name that SE
//! sees only as forcing chains, W-Wing and ALS-XZ, where SE's next step would be a chain; such
//! a step carries the rating of the chain it stands for.
//!
//! ```
//! use solver_core::Grid;
//! use solver_core::logic::{rate, Level, RateOptions};
//!
//! let puzzle: Grid = "3.65.84..52........87....31..3.1..8.9..863..5.5..9.6..13....25........74..52.63.."
//!     .parse()
//!     .expect("a valid puzzle");
//! let rating = rate(&puzzle, &RateOptions::default()).expect("a unique solution");
//! assert!(!rating.lower_bound);
//! assert_eq!(rating.level, Level::from_tenths(rating.tenths));
//! ```

mod board;
mod chain;
mod engine;
mod rating;
mod step;
mod techniques;
mod wording;

use thiserror::Error;

pub use board::Candidates;
pub use engine::End;
pub use rating::{Level, Rating, rate};
pub use step::{Mark, Step, Technique};

use crate::{Grid, Limits, Options, Outcome, StopReason, solve};

/// Options shared by [`rate`], [`hint`] and [`explain`].
#[derive(Debug, Clone)]
pub struct RateOptions {
    /// Whether techniques that assume a unique solution (unique rectangles, BUG) may be used.
    pub uniqueness: bool,
    /// The most steps the engine may take before it stops.
    pub max_steps: Option<u64>,
    /// When the engine must stop (a rating is then a lower bound); the check for a unique
    /// solution stops then too.
    pub limits: Limits,
}

impl Default for RateOptions {
    fn default() -> Self {
        RateOptions {
            uniqueness: true,
            max_steps: None,
            limits: Limits::default(),
        }
    }
}

/// Why the logic engine cannot work on a grid.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum LogicError {
    /// The grid has no solution.
    #[error("the grid has no solution")]
    NoSolution,
    /// The grid has more than one solution.
    #[error("the grid has more than one solution")]
    MultipleSolutions,
    /// Checking the solution stopped early.
    #[error("checking the grid's solution stopped early: {0}")]
    Stopped(StopReason),
    /// The pencil marks do not cover the grid.
    #[error("wrong number of pencil-mark cells: found {found}, expected {expected}")]
    MarksCount {
        /// Cells of marks given.
        found: usize,
        /// Cells in the grid.
        expected: usize,
    },
    /// The grid's cells are not a grid of the shape (count or range).
    #[error(transparent)]
    Grid(#[from] crate::GridError),
}

/// The unique solution of `grid`, or why there is none.
pub(crate) fn unique_solution(grid: &Grid, options: &RateOptions) -> Result<Grid, LogicError> {
    let solve_options = Options::default().limits(options.limits.clone());
    // Every shape is supported by the automatic choice of algorithm.
    let solution = solve(grid, &solve_options).map_err(|_| LogicError::NoSolution)?;
    match solution.outcome {
        Outcome::Unique(g) | Outcome::Solved(g) => Ok(g),
        Outcome::Multiple { .. } => Err(LogicError::MultipleSolutions),
        Outcome::NoSolution => Err(LogicError::NoSolution),
        Outcome::Stopped { reason, .. } => Err(LogicError::Stopped(reason)),
    }
}

/// The next step from a grid, and the player's wrong pencil marks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hint {
    /// The simplest step, or `None` when the grid is solved or no known technique applies.
    pub step: Option<Step>,
    /// Cells whose pencil marks lack the solution's digit (that digit is in the mark).
    pub wrong_marks: Vec<Mark>,
    /// Whether the grid is already complete.
    pub solved: bool,
}

/// Every step from a grid to the end of the logical solve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explanation {
    /// The steps in order.
    pub steps: Vec<Step>,
    /// How the solve ended.
    pub end: End,
    /// Cells whose pencil marks lack the solution's digit; restored before solving.
    pub wrong_marks: Vec<Mark>,
}

/// The board a hint or explanation starts from: the grid's candidates, narrowed by the
/// player's marks where given, with wrong marks (the solution's digit removed) reported and
/// put back so that every step stays sound.
fn starting_board(
    grid: &Grid,
    marks: Option<&[u64]>,
    solution: &Grid,
) -> Result<(Candidates, Vec<Mark>), LogicError> {
    let mut board = match marks {
        Some(marks) => Candidates::with_marks(grid, marks)?,
        None => Candidates::from_grid(grid),
    };
    let side = grid.side();
    let mut wrong = Vec::new();
    for (cell, &digit) in solution.cells().iter().enumerate() {
        if board.values[cell] == 0 && board.masks[cell] & 1 << (digit - 1) == 0 {
            wrong.push(Mark {
                row: cell / side,
                col: cell % side,
                digit,
            });
            board.restore(cell, digit);
        }
    }
    Ok((board, wrong))
}

/// The next step from `grid` (optionally from the player's pencil marks, bit `d - 1` of
/// `marks[cell]` for digit `d`), in SE's order of simplicity.
pub fn hint(grid: &Grid, marks: Option<&[u64]>, options: &RateOptions) -> Result<Hint, LogicError> {
    let solution = unique_solution(grid, options)?;
    let (board, wrong_marks) = starting_board(grid, marks, &solution)?;
    let step = engine::next_hint(&board, options).map(|found| {
        debug_assert!(engine::agrees(&found, solution.cells()));
        found.to_step(&board)
    });
    Ok(Hint {
        step,
        wrong_marks,
        solved: grid.is_complete(),
    })
}

/// An explanation made a few steps at a time, so that a caller can hand out each run of
/// steps before making the next (see [`explain`] for the whole at once).
#[derive(Debug, Clone)]
pub struct Explainer {
    board: Candidates,
    solution: Grid,
    wrong_marks: Vec<Mark>,
}

impl Explainer {
    /// Starts explaining `grid` (optionally from pencil marks, as in [`hint`]); `options`
    /// bound the check for a unique solution.
    pub fn new(
        grid: &Grid,
        marks: Option<&[u64]>,
        options: &RateOptions,
    ) -> Result<Explainer, LogicError> {
        let solution = unique_solution(grid, options)?;
        let (board, wrong_marks) = starting_board(grid, marks, &solution)?;
        Ok(Explainer {
            board,
            solution,
            wrong_marks,
        })
    }

    /// Cells whose pencil marks lacked the solution's digit; restored before solving.
    pub fn wrong_marks(&self) -> &[Mark] {
        &self.wrong_marks
    }

    /// Up to `max` more steps, and how the solve ended where it has (`None`: more to come).
    /// A stop by `options`' deadline or cancel flag keeps the steps made before it, and a
    /// later call goes on from there.
    pub fn next_steps(&mut self, max: u64, options: &RateOptions) -> (Vec<Step>, Option<End>) {
        let options = RateOptions {
            max_steps: Some(max),
            ..options.clone()
        };
        let mut steps = Vec::new();
        let end = engine::run(
            &mut self.board,
            &options,
            engine::next_hint,
            Some(self.solution.cells()),
            |found, board| steps.push(found.to_step(board)),
        );
        match end {
            End::Stopped(StopReason::Budget) => (steps, None),
            end => (steps, Some(end)),
        }
    }
}

/// Every step from `grid` (optionally from pencil marks, as in [`hint`]) to the end.
pub fn explain(
    grid: &Grid,
    marks: Option<&[u64]>,
    options: &RateOptions,
) -> Result<Explanation, LogicError> {
    let solution = unique_solution(grid, options)?;
    let (mut board, wrong_marks) = starting_board(grid, marks, &solution)?;
    let mut steps = Vec::new();
    let end = engine::run(
        &mut board,
        options,
        engine::next_hint,
        Some(solution.cells()),
        |found, board| steps.push(found.to_step(board)),
    );
    Ok(Explanation {
        steps,
        end,
        wrong_marks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Needs singles, pairs and more: dozens of steps.
    const PUZZLE: &str =
        "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......";

    #[test]
    fn an_explanation_made_in_runs_is_the_whole_explanation() {
        let grid: Grid = PUZZLE.parse().expect("a valid puzzle");
        let options = RateOptions::default();
        let whole = explain(&grid, None, &options).expect("a unique puzzle");
        let mut explainer = Explainer::new(&grid, None, &options).expect("a unique puzzle");
        let mut steps = Vec::new();
        let end = loop {
            let (run, end) = explainer.next_steps(3, &options);
            assert!(run.len() <= 3, "a run is at most what was asked");
            steps.extend(run);
            if let Some(end) = end {
                break end;
            }
        };
        assert!(whole.steps.len() > 3, "the puzzle takes several runs");
        assert_eq!(steps, whole.steps);
        assert_eq!(end, whole.end);
    }

    #[test]
    fn a_stop_is_said_in_words() {
        for (reason, words) in [
            (StopReason::Budget, "its budget ran out"),
            (StopReason::Cancelled, "it was cancelled"),
            (StopReason::Deadline, "its time ran out"),
        ] {
            let said = LogicError::Stopped(reason).to_string();
            assert_eq!(
                said,
                format!("checking the grid's solution stopped early: {words}")
            );
            assert!(!said.contains(&format!("{reason:?}")), "{said}");
        }
    }
}
