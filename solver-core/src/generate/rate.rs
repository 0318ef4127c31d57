//! The logic engine's SE rating as a [`Rater`], and the rating band of each level.

use std::ops::RangeInclusive;

use super::Rater;
use crate::grid::Grid;
use crate::logic::{Level, RateOptions, rate};

/// Rates with [`crate::logic::rate`]; a rating the engine could not finish (a lower bound) or
/// a shape it does not support counts as unrated, so it meets no target.
#[derive(Debug, Clone, Default)]
pub struct SeRater {
    /// Options for each rating (budget, deadline, cancel).
    pub options: RateOptions,
}

impl Rater for SeRater {
    fn rate(&self, puzzle: &Grid) -> Option<u16> {
        let rating = rate(puzzle, &self.options).ok()?;
        (!rating.lower_bound).then_some(rating.tenths)
    }

    /// Measured on 60,000 random carved 9×9 puzzles: every one rated 6.5 or more needed a
    /// guess (none of 27,000 proven without one did), every one rated 9.0 or more (46) needed
    /// 7; skipping the rest halves the time a hardest puzzle takes.
    fn least_guesses(&self, band: &RangeInclusive<u16>) -> u64 {
        match *band.start() {
            90.. => 7,
            65.. => 1,
            _ => 0,
        }
    }
}

/// The ratings (in tenths) of a level, from the logic engine's own table.
pub fn level_band(level: Level) -> RangeInclusive<u16> {
    let mut tenths = (0..=u16::MAX).filter(|&t| Level::from_tenths(t) == level);
    let low = tenths.next().unwrap_or(0);
    // Bands are contiguous; the last one runs to the end of the scale.
    let high = (low..=u16::MAX)
        .take_while(|&t| Level::from_tenths(t) == level)
        .last()
        .unwrap_or(low);
    low..=high
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_follow_the_level_table() {
        assert_eq!(level_band(Level::Easy), 0..=14);
        assert_eq!(level_band(Level::Hard), 25..=49);
        assert_eq!(*level_band(Level::Hardest).end(), u16::MAX);
        for level in [
            Level::Easy,
            Level::Medium,
            Level::Hard,
            Level::Diabolical,
            Level::Extreme,
        ] {
            let band = level_band(level);
            assert_eq!(Level::from_tenths(*band.start()), level);
            assert_eq!(Level::from_tenths(*band.end()), level);
            assert_ne!(Level::from_tenths(*band.end() + 1), level);
        }
    }
}
