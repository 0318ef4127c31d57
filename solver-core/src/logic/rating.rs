//! Ratings on the SE scale and the level names of its bands.

use std::fmt;

use super::board::Candidates;
use super::engine::{self, End};
use super::step::{Step, Technique};
use super::wording::Unread;
use super::{LogicError, RateOptions, unique_solution};
use crate::Grid;

/// A difficulty level: a named band of SE ratings.
///
/// | level | SE rating |
/// | --- | --- |
/// | easy | below 1.5 (hidden singles in boxes) |
/// | medium | 1.5 to below 2.5 (other singles and direct techniques) |
/// | hard | 2.5 to below 5.0 (locked candidates, subsets, X-Wing, Swordfish, wings, unique rectangles) |
/// | diabolical | 5.0 to below 7.0 (quads, Jellyfish, BUG, short chains) |
/// | extreme | 7.0 to below 9.0 (forcing chains) |
/// | hardest | 9.0 and above (dynamic and nested forcing chains) |
///
/// On other box shapes (4×4, 6×6, 16×16, 25×25, ...) the same table holds, but the engine knows
/// only the techniques that work on every shape (singles through fish, wings, unique
/// rectangles and BUG; chains are 9×9 only), so ratings there stop at about 6.0: easy to
/// diabolical mean what they mean at 9×9, extreme and hardest are never reached, and a puzzle
/// that needs more is rated as a lower bound (no known technique applies).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Level {
    /// Below 1.5.
    Easy,
    /// 1.5 to below 2.5.
    Medium,
    /// 2.5 to below 5.0.
    Hard,
    /// 5.0 to below 7.0.
    Diabolical,
    /// 7.0 to below 9.0.
    Extreme,
    /// 9.0 and above.
    Hardest,
}

impl Level {
    /// The band an SE rating (in tenths) falls in.
    pub fn from_tenths(tenths: u16) -> Level {
        match tenths {
            0..15 => Level::Easy,
            15..25 => Level::Medium,
            25..50 => Level::Hard,
            50..70 => Level::Diabolical,
            70..90 => Level::Extreme,
            _ => Level::Hardest,
        }
    }

    /// The lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
            Level::Diabolical => "diabolical",
            Level::Extreme => "extreme",
            Level::Hardest => "hardest",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How hard a puzzle is: the SE rating of its hardest step on the simplest-first path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rating {
    /// The SE rating in tenths (72 = 7.2).
    pub tenths: u16,
    /// The level band of the rating.
    pub level: Level,
    /// The hardest step (the first of that rating).
    pub hardest: Option<Step>,
    /// Steps taken.
    pub steps: usize,
    /// Each technique used and how often, simplest first.
    pub techniques: Vec<(Technique, usize)>,
    /// Whether the solve did not finish, so the puzzle is at least this hard.
    pub lower_bound: bool,
    /// How the solve ended.
    pub end: End,
}

impl Rating {
    /// The SE rating (e.g. 7.2).
    pub fn rating(&self) -> f64 {
        f64::from(self.tenths) / 10.0
    }
}

/// Rates a puzzle with a unique solution on the SE scale.
pub fn rate(grid: &Grid, options: &RateOptions) -> Result<Rating, LogicError> {
    let solution = unique_solution(grid, options)?;
    let mut board = Candidates::from_grid(grid);
    let mut tenths = 0u16;
    let mut hardest = None;
    let mut steps = 0usize;
    let mut techniques: Vec<(Technique, usize)> = Vec::new();
    // Only a step rated above the hardest so far can be the hardest: the others' sentences
    // and support would go unread.
    let unread = Unread::new();
    let end = engine::run(
        &mut board,
        options,
        engine::next_step,
        Some(solution.cells()),
        |found, board| {
            steps += 1;
            if found.tenths > tenths || hardest.is_none() {
                tenths = tenths.max(found.tenths);
                hardest = Some(found.to_step(board));
                unread.upto(tenths);
            }
            match techniques.iter_mut().find(|(t, _)| *t == found.technique) {
                Some((_, n)) => *n += 1,
                None => techniques.push((found.technique, 1)),
            }
        },
    );
    techniques.sort();
    Ok(Rating {
        tenths,
        level: Level::from_tenths(tenths),
        hardest,
        steps,
        techniques,
        lower_bound: end != End::Solved,
        end,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first step of the highest rating, found with every step worded.
    fn hardest_worded(puzzle: &str) -> Option<Step> {
        let grid: Grid = puzzle.parse().expect("a valid puzzle");
        let mut board = Candidates::from_grid(&grid);
        let mut hardest: Option<Step> = None;
        let options = RateOptions::default();
        engine::run(
            &mut board,
            &options,
            engine::next_step,
            None,
            |found, board| {
                if hardest.as_ref().is_none_or(|h| found.tenths > h.tenths) {
                    hardest = Some(found.to_step(board));
                }
            },
        );
        hardest
    }

    #[test]
    fn steps_kept_unworded_by_the_rater_are_worded_again_for_an_explanation() {
        // Single-digit searches keep their steps for the next call (`per_digit`): an
        // explanation on the same thread must not be handed the rater's unworded ones.
        let puzzle =
            "....5....5..7.6..3...4.9...37..9..82.8.....3.2.......7..4...2....53.19..6...7...1";
        let grid: Grid = puzzle.parse().expect("a valid puzzle");
        let options = RateOptions::default();
        rate(&grid, &options).expect("a unique solution");
        let explained = super::super::explain(&grid, None, &options).expect("a unique solution");
        assert!(explained.steps.len() > 20);
        for step in &explained.steps {
            assert!(step.text.starts_with(step.technique.name()), "{step:?}");
        }
    }

    #[test]
    fn the_hardest_step_keeps_its_sentence_and_support_when_others_go_unworded() {
        for puzzle in [
            "....5....5..7.6..3...4.9...37..9..82.8.....3.2.......7..4...2....53.19..6...7...1",
            "....8..69.....47...4...3..2.5..1...3.96...85.3...6..9.2..1...4...14.....97..5....",
        ] {
            let grid: Grid = puzzle.parse().expect("a valid puzzle");
            let rating = rate(&grid, &RateOptions::default()).expect("a unique solution");
            let hardest = rating.hardest.expect("a step");
            assert!(!hardest.text.is_empty() && !hardest.support.is_empty());
            assert_eq!(Some(hardest), hardest_worded(puzzle));
        }
    }

    #[test]
    fn bands_match_the_documented_table() {
        assert_eq!(Level::from_tenths(12), Level::Easy);
        assert_eq!(Level::from_tenths(15), Level::Medium);
        assert_eq!(Level::from_tenths(24), Level::Medium);
        assert_eq!(Level::from_tenths(25), Level::Hard);
        assert_eq!(Level::from_tenths(49), Level::Hard);
        assert_eq!(Level::from_tenths(50), Level::Diabolical);
        assert_eq!(Level::from_tenths(70), Level::Extreme);
        assert_eq!(Level::from_tenths(89), Level::Extreme);
        assert_eq!(Level::from_tenths(90), Level::Hardest);
        assert_eq!(Level::from_tenths(112), Level::Hardest);
    }
}
