//! The solving loop: try techniques simplest first, apply the first that makes progress.

use super::RateOptions;
use super::board::Candidates;
use super::step::Found;
use super::step::Technique;
use super::techniques::{
    fish, grouped, locked, loops, named, singles, strong, subsets, turbot, unique, wings, wxyz,
};
use crate::StopReason;

/// A technique finder: the first step of its kind on the board, in SE's search order.
type Finder = fn(&Candidates) -> Option<Found>;

/// SE's order of difficulty (Sudoku Explainer's `Solver`), singles and direct forms first.
const BASIC: &[(Finder, bool)] = &[
    (singles::full_house, false),
    (singles::hidden_single, false),
    (locked::direct_locked, false),
    (|b| subsets::hidden_set(b, 2, true), false),
    (singles::naked_single, false),
    (|b| subsets::hidden_set(b, 3, true), false),
    (locked::locked_candidates, false),
    (|b| subsets::naked_set(b, 2), false),
    (|b| fish::fish(b, 2), false),
    (|b| subsets::hidden_set(b, 2, false), false),
    (|b| subsets::naked_set(b, 3), false),
    (|b| fish::fish(b, 3), false),
    (|b| subsets::hidden_set(b, 3, false), false),
    (
        |b| turbot::turbot_fish(b).or_else(|| grouped::grouped_turbot(b)),
        false,
    ),
    (|b| wings::wing(b, false), false),
    (|b| wings::wing(b, true), false),
    (loops::unique_loop, true),
    (|b| subsets::naked_set(b, 4), false),
    (|b| fish::fish(b, 4), false),
    (|b| subsets::hidden_set(b, 4, false), false),
    (three_links, false),
    (wxyz::wxyz_wing, false),
    (unique::bug, true),
    // SE's four-link chains (5.7-5.9) come here; on the calibration file they never decide a
    // rating and cost a fifth of the rating time, so they wait for the chain module.
];

/// SE's three-link chains, plain or grouped, whichever rates lower (then removes more).
fn three_links(board: &Candidates) -> Option<Found> {
    let plain = strong::strong_links(board, 3);
    if plain.as_ref().is_some_and(|f| f.tenths <= 54) {
        return plain;
    }
    let grouped = grouped::grouped_three(board);
    match (plain, grouped) {
        (Some(p), Some(g)) => Some(
            if (g.tenths, std::cmp::Reverse(g.eliminations.len()))
                < (p.tenths, std::cmp::Reverse(p.eliminations.len()))
            {
                g
            } else {
                p
            },
        ),
        (p, g) => p.or(g),
    }
}

/// How a run of the engine ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum End {
    /// Every cell is filled.
    Solved,
    /// No technique the engine knows makes progress.
    Stuck,
    /// A deadline, budget or cancel flag stopped the run.
    Stopped(StopReason),
}

/// The chain family (VWXYZ-Wing, aligned exclusion, cycles, forcing chains up to nested ones;
/// 9x9 only), tried when no basic technique applies; its steps are `Technique::Chain(name)`.
const CHAINS: Option<Finder> = Some(super::chain::finder);

/// How the engine picks each step: [`next_step`] for ratings, [`next_hint`] for players.
pub(crate) type Next = fn(&Candidates, &RateOptions) -> Option<Found>;

/// The next step for a player: as [`next_step`], but where SE's step is a chain, a W-Wing or
/// ALS-XZ when one applies (named patterns players know), carrying the chain's rating.
pub(crate) fn next_hint(board: &Candidates, options: &RateOptions) -> Option<Found> {
    let step = next_step(board, options)?;
    if !matches!(step.technique, Technique::Chain(_)) {
        return Some(step);
    }
    match named::w_wing(board).or_else(|| named::als_xz(board)) {
        Some(mut named) => {
            named.tenths = step.tenths;
            Some(named)
        }
        None => Some(step),
    }
}

/// The simplest step available on `board`, if any.
pub(crate) fn next_step(board: &Candidates, options: &RateOptions) -> Option<Found> {
    BASIC
        .iter()
        .filter(|(_, unique)| options.uniqueness || !unique)
        .find_map(|(find, _)| find(board))
        .or_else(|| {
            let chains = CHAINS.filter(|_| board.shape() == crate::Shape::CLASSIC)?;
            chains(board)
        })
}

/// Runs the engine to the end, calling `on_step` with each step before it is applied.
pub(crate) fn run(
    board: &mut Candidates,
    options: &RateOptions,
    next: Next,
    solution: Option<&[u8]>,
    mut on_step: impl FnMut(&Found, &Candidates),
) -> End {
    let mut steps = 0u64;
    let budget = options.max_steps.unwrap_or(u64::MAX);
    loop {
        if board.is_solved() {
            return End::Solved;
        }
        if steps >= budget {
            return End::Stopped(StopReason::Budget);
        }
        if let Some(reason) = options.limits.reached() {
            return End::Stopped(reason);
        }
        let Some(found) = next(board, options) else {
            return End::Stuck;
        };
        if let Some(solution) = solution {
            debug_assert!(
                agrees(&found, solution),
                "unsound step {found:?}\nvalues {:?}\nmasks {:?}\nsolution {:?}",
                board.values,
                board.masks,
                solution
            );
        }
        on_step(&found, board);
        found.apply(board);
        steps += 1;
    }
}

/// Whether a step agrees with the solution: it places solution digits and removes others.
pub(crate) fn agrees(found: &Found, solution: &[u8]) -> bool {
    found
        .placements
        .iter()
        .all(|&(c, d)| solution[c as usize] == d)
        && found
            .eliminations
            .iter()
            .all(|&(c, d)| solution[c as usize] != d)
}

/// Puzzles (SE 4.2 to 8.x) whose solves try the wings and locked candidates at many steps
/// and meet some: the memo tests walk their solve paths with [`each_board`].
#[cfg(test)]
pub(crate) const SOLVE_PATH_PUZZLES: [&str; 4] = [
    "......89.....6...33.....671.2.58.36....9.1....74.26.8.496.....78...3.....35......",
    "...3.57..38..19....5.....1.5.19..4...7.....9...9..85.2.9.....6....64..27..68.7...",
    "....5....5..7.6..3...4.9...37..9..82.8.....3.2.......7..4...2....53.19..6...7...1",
    "....8..69.....47...4...3..2.5..1...3.96...85.3...6..9.2..1...4...14.....97..5....",
];

/// Runs a default simplest-first solve of `puzzle`, calling `f` with the board before each
/// step: tests compare a memoised search with a full one on boards real solves meet.
#[cfg(test)]
pub(crate) fn each_board(puzzle: &str, mut f: impl FnMut(&Candidates)) {
    let grid: crate::Grid = puzzle.parse().expect("a valid puzzle");
    let mut board = Candidates::from_grid(&grid);
    run(
        &mut board,
        &RateOptions::default(),
        next_step,
        None,
        |_, b| f(b),
    );
}
