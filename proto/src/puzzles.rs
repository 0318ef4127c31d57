//! Conversions for the `sudoku.v1.Puzzles` messages: player grids, entries and conflicts.

use solver_core::check::{Conflict, Entries, Entry};
use solver_core::logic::{End, Level, LogicError, Mark, Rating, Step};
use solver_core::{GridError, Shape};

use crate::pb;

/// A player's grid from its wire form: size and range are checked, repeats are allowed.
pub fn entries_from_pb(grid: &pb::Grid) -> Result<Entries, GridError> {
    let dim = |v: u32| usize::try_from(v).unwrap_or(usize::MAX);
    let shape = Shape::new(dim(grid.box_rows), dim(grid.box_cols))?;
    Entries::new(shape, &grid.cells)
}

impl From<Entry> for pb::Cell {
    fn from(entry: Entry) -> Self {
        pb::Cell {
            row: entry.row as u32,
            col: entry.col as u32,
            digit: u32::from(entry.digit),
        }
    }
}

impl From<Conflict> for pb::Conflict {
    fn from(conflict: Conflict) -> Self {
        pb::Conflict {
            first: Some(conflict.first.into()),
            second: Some(conflict.second.into()),
        }
    }
}

impl From<&Mark> for pb::Cell {
    fn from(mark: &Mark) -> Self {
        pb::Cell {
            row: mark.row as u32 + 1,
            col: mark.col as u32 + 1,
            digit: u32::from(mark.digit),
        }
    }
}

/// Wire cells of marks.
fn cells(marks: &[Mark]) -> Vec<pb::Cell> {
    marks.iter().map(pb::Cell::from).collect()
}

impl From<&Step> for pb::Step {
    fn from(step: &Step) -> Self {
        pb::Step {
            technique: step.technique.name().to_owned(),
            rating: step.rating(),
            text: step.text.clone(),
            support: cells(&step.support),
            placements: cells(&step.placements),
            eliminations: cells(&step.eliminations),
        }
    }
}

impl From<Level> for pb::Level {
    fn from(level: Level) -> Self {
        match level {
            Level::Easy => pb::Level::Easy,
            Level::Medium => pb::Level::Medium,
            Level::Hard => pb::Level::Hard,
            Level::Diabolical => pb::Level::Diabolical,
            Level::Extreme => pb::Level::Extreme,
            _ => pb::Level::Hardest,
        }
    }
}

/// The verdict for a puzzle the logic engine refused: no solution, several, or stopped.
pub fn verdict_of(err: &LogicError) -> Option<pb::Verdict> {
    match err {
        LogicError::NoSolution => Some(pb::Verdict::NoSolution),
        LogicError::MultipleSolutions => Some(pb::Verdict::Multiple),
        LogicError::Stopped(_) => Some(pb::Verdict::Stopped),
        _ => None,
    }
}

/// The wire answer for a rating (id and index are the caller's).
pub fn rating_to_pb(rating: &Rating) -> pb::RateResponse {
    pb::RateResponse {
        // Stuck (no known technique applies) still has a unique solution: only a stop is
        // STOPPED; both make the rating a lower bound.
        verdict: if matches!(rating.end, End::Stopped(_)) {
            pb::Verdict::Stopped
        } else {
            pb::Verdict::Unique
        }
        .into(),
        rating: rating.rating(),
        level: pb::Level::from(rating.level).into(),
        hardest: rating.hardest.as_ref().map(pb::Step::from),
        steps: rating.steps as u32,
        techniques: rating
            .techniques
            .iter()
            .rev()
            .map(|(technique, count)| pb::TechniqueCount {
                technique: technique.name().to_owned(),
                count: *count as u32,
            })
            .collect(),
        lower_bound: rating.lower_bound,
        ..pb::RateResponse::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn player_grids_may_repeat_but_not_overflow() {
        let mut cells = vec![0; 16];
        cells[0] = 1;
        cells[1] = 1;
        let grid = pb::Grid {
            box_rows: 2,
            box_cols: 2,
            cells: cells.clone(),
        };
        let entries = entries_from_pb(&grid).expect("repeats are allowed");
        let check = entries.check(None);
        assert_eq!(check.conflicts.len(), 1);
        let wire = pb::Conflict::from(check.conflicts[0]);
        let first = wire.first.expect("first");
        let second = wire.second.expect("second");
        assert_eq!((first.row, first.col, first.digit), (1, 1, 1));
        assert_eq!((second.row, second.col, second.digit), (1, 2, 1));
        cells[5] = 5;
        let err = entries_from_pb(&pb::Grid { cells, ..grid }).unwrap_err();
        assert_eq!(
            err.position(),
            Some(solver_core::grid::Cell { row: 2, col: 2 })
        );
    }
}
