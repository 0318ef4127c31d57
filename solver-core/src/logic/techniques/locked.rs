//! Locked candidates: pointing (box to line) and claiming (line to box), and SE's direct forms.

use super::per_digit::{self, Nothing};
use crate::logic::board::{Candidates, MEETS, bits, digit_char};
use crate::logic::step::{Found, Technique};

/// One locked-candidates pattern: `digit` of house `from` confined to its meeting with `to`.
struct Lock {
    digit: u8,
    from: usize,
    /// Which of a cell's houses (row 0, column 1, box 2) `from` is.
    from_slot: usize,
    to: usize,
    /// Cells of `to` outside the meeting that hold the digit (bit i: the i-th cell of `to`).
    removed: u64,
}

impl Lock {
    /// The removed cells, in the target's order.
    fn removed_cells<'a>(&self, board: &'a Candidates) -> impl Iterator<Item = u16> + 'a {
        let targets = &board.layout.houses[self.to];
        bits(self.removed).map(move |i| targets[i])
    }
}

/// The first step `visit` makes of a locked pattern in SE's order: box to column, box to
/// row, column to box, row to box (pointing when `pointing`, else claiming), digit by digit.
///
/// With `memo` (`Some(direct)`, telling the two searches apart), a kind and digit that found
/// nothing on the digit's places as they are is skipped: `visit` depends on them alone.
fn locks(
    board: &Candidates,
    pointing: bool,
    memo: Option<bool>,
    visit: impl Fn(Lock) -> Option<Found>,
) -> Option<Found> {
    // Indices of MEETS: box to column and to row, or column and row to box.
    let kinds = if pointing { [0, 1] } else { [2, 3] };
    kinds.into_iter().find_map(|kind| {
        (0..board.side()).find_map(|d| match memo {
            Some(direct) => {
                per_digit::unless_nothing(Nothing::Locked(kind, direct), board, d, || {
                    digit_locks(board, kind, d, &visit)
                })
            }
            None => digit_locks(board, kind, d, &visit),
        })
    })
}

/// The first step `visit` makes of a pattern of digit index `d` from houses to houses of the
/// kinds `MEETS[kind]`.
fn digit_locks(
    board: &Candidates,
    kind: usize,
    d: usize,
    visit: &impl Fn(Lock) -> Option<Found>,
) -> Option<Found> {
    let side = board.side();
    let digit = d as u8 + 1;
    let layout = &board.layout;
    let (from_slot, to_slot) = MEETS[kind];
    for from in from_slot * side..(from_slot + 1) * side {
        let cells = &layout.houses[from];
        let pos = board.positions(from, digit);
        if pos.count_ones() < 2 {
            continue;
        }
        let first = cells[pos.trailing_zeros() as usize] as usize;
        let (meeting, back) = layout.meets[first][kind];
        if pos & !meeting != 0 {
            continue;
        }
        let to = layout.cell_houses[first][to_slot] as usize;
        let removed = board.positions(to, digit) & !back;
        if removed == 0 {
            continue;
        }
        if let Some(found) = visit(Lock {
            digit,
            from,
            from_slot,
            to,
            removed,
        }) {
            return Some(found);
        }
    }
    None
}

fn describe(board: &Candidates, lock: &Lock) -> String {
    format!(
        "in {}, digit {} lies only in {}, so it is removed from {}",
        board.house_name(lock.from),
        digit_char(lock.digit),
        board.house_name(lock.to),
        board.cell_names(lock.removed_cells(board).map(usize::from))
    )
}

fn support(board: &Candidates, lock: &Lock) -> Vec<(u16, u8)> {
    let bit = 1u64 << (lock.digit - 1);
    board.layout.houses[lock.from]
        .iter()
        .filter(|&&c| board.masks[c as usize] & bit != 0)
        .map(|&c| (c, lock.digit))
        .collect()
}

/// Pointing (2.6), then claiming (2.8).
pub(crate) fn locked_candidates(board: &Candidates) -> Option<Found> {
    locked_with(board, true)
}

/// [`locked_candidates`], skipping what found nothing before when `memo`.
fn locked_with(board: &Candidates, memo: bool) -> Option<Found> {
    for pointing in [true, false] {
        let (technique, tenths) = if pointing {
            (Technique::Pointing, 26)
        } else {
            (Technique::Claiming, 28)
        };
        let found = locks(board, pointing, memo.then_some(false), |lock| {
            let elims = lock.removed_cells(board).map(|c| (c, lock.digit)).collect();
            Some(
                Found::removing(technique, tenths, elims)
                    .resting_on(|| support(board, &lock))
                    .saying(|| describe(board, &lock)),
            )
        });
        if found.is_some() {
            return found;
        }
    }
    None
}

/// Locked candidates whose removals leave a hidden single of the digit: direct pointing
/// (1.7), then direct claiming (1.9). Only the placement is applied, as in SE.
pub(crate) fn direct_locked(board: &Candidates) -> Option<Found> {
    direct_kind(board, true, true).or_else(|| direct_kind(board, false, true))
}

/// Direct pointing (`pointing`) or direct claiming, skipping what found nothing before when
/// `memo`.
fn direct_kind(board: &Candidates, pointing: bool, memo: bool) -> Option<Found> {
    let (technique, tenths) = if pointing {
        (Technique::DirectPointing, 17)
    } else {
        (Technique::DirectClaiming, 19)
    };
    locks(board, pointing, memo.then_some(true), |lock| {
        let (cell, house) = single_after(board, &lock)?;
        let text = || {
            format!(
                "{}; then in {}, only {} can hold {}",
                describe(board, &lock),
                board.house_name(house),
                board.cell_name(cell),
                digit_char(lock.digit)
            )
        };
        Some(
            Found::placing(technique, tenths, cell, lock.digit)
                .resting_on(|| support(board, &lock))
                .saying(text),
        )
    })
}

/// Another house of the source's kind, crossing the target, where the digit is left with
/// one place once the removed cells lose it (SE only looks there).
fn single_after(board: &Candidates, lock: &Lock) -> Option<(usize, usize)> {
    let layout = &board.layout;
    let mut seen = 0u64;
    for &c in &layout.houses[lock.to] {
        let house = layout.cell_houses[c as usize][lock.from_slot] as usize;
        let index = house % board.side();
        if house == lock.from || seen & 1 << index != 0 {
            continue;
        }
        seen |= 1 << index;
        let places = board.positions(house, lock.digit);
        if places.count_ones() < 2 {
            continue;
        }
        // The house's places that lose the digit.
        let gone = lock
            .removed_cells(board)
            .map(usize::from)
            .filter(|&r| layout.cell_houses[r][lock.from_slot] as usize == house)
            .fold(0u64, |m, r| m | 1 << layout.cell_slots[r][lock.from_slot]);
        let left = places & !gone;
        if left.count_ones() == 1 {
            let cell = layout.houses[house][left.trailing_zeros() as usize];
            return Some((cell as usize, house));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::board::testing::{empty, remove, removed};

    #[test]
    fn pointing_on_a_4x4_board() {
        let mut board = empty(2, 2);
        remove(&mut board, 1, &[(1, 0), (1, 1)]);
        let found = locked_candidates(&board).expect("pointing");
        assert_eq!(found.technique, Technique::Pointing);
        assert_eq!(
            removed(&board, &found.eliminations),
            vec![(0, 2, 1), (0, 3, 1)]
        );
    }

    #[test]
    fn claiming_on_a_16x16_board() {
        let mut board = empty(4, 4);
        // Digit 5 of row 1 only in its first four cells (box 1): the rest of box 1 loses it.
        let rest: Vec<(usize, usize)> = (4..16).map(|c| (0, c)).collect();
        remove(&mut board, 5, &rest);
        let found = locked_candidates(&board).expect("claiming");
        assert_eq!(found.technique, Technique::Claiming);
        let expected: Vec<(usize, usize, u8)> = (1..4)
            .flat_map(|r| (0..4).map(move |c| (r, c, 5)))
            .collect();
        assert_eq!(removed(&board, &found.eliminations), expected);
    }

    #[test]
    fn direct_claiming_places_the_single_it_leaves() {
        let mut board = empty(3, 3);
        // Digit 1 of row 1 only in box 1; row 2 has it in box 1 and at r2c9 only.
        let row1: Vec<(usize, usize)> = (3..9).map(|c| (0, c)).collect();
        let row2: Vec<(usize, usize)> = (3..8).map(|c| (1, c)).collect();
        remove(&mut board, 1, &row1);
        remove(&mut board, 1, &row2);
        let found = direct_kind(&board, false, true).expect("direct claiming");
        assert_eq!(found.technique, Technique::DirectClaiming);
        assert_eq!(found.placements, vec![(17, 1)]);
        assert!(found.eliminations.is_empty());
        assert_eq!(found.support.len(), 3);
    }
}

#[cfg(test)]
mod memo_tests {
    use super::*;
    use crate::logic::engine;

    #[test]
    fn searches_skipping_digits_that_found_nothing_find_what_a_full_search_finds() {
        let (mut found, mut skipped) = (0, 0);
        for puzzle in engine::SOLVE_PATH_PUZZLES {
            engine::each_board(puzzle, |b| {
                // Digits direct pointing skips, found nothing on at an earlier step.
                skipped += (0..9)
                    .filter(|&d| {
                        per_digit::unless_nothing(Nothing::Locked(0, true), b, d, || Some(()))
                            .is_none()
                    })
                    .count();
                let full = locked_with(b, false).map(|f| f.to_step(b));
                found += usize::from(full.is_some());
                assert_eq!(locked_candidates(b).map(|f| f.to_step(b)), full);
                for pointing in [true, false] {
                    let full = direct_kind(b, pointing, false).map(|f| f.to_step(b));
                    found += usize::from(full.is_some());
                    assert_eq!(direct_kind(b, pointing, true).map(|f| f.to_step(b)), full);
                }
            });
        }
        assert!(
            found > 20 && skipped > 100,
            "{found} found, {skipped} skipped"
        );
    }
}

#[cfg(test)]
mod kept_tests {
    use super::*;
    use crate::logic::board::testing::{empty, remove};
    use crate::logic::wording::Unread;

    #[test]
    fn a_step_kept_unworded_by_the_rater_is_worded_when_asked_again() {
        let mut board = empty(2, 2);
        remove(&mut board, 3, &[(1, 0), (1, 1)]);
        {
            let unread = Unread::new();
            unread.upto(30);
            let quiet = locked_candidates(&board).expect("pointing");
            assert!(quiet.text.is_empty());
        }
        let found = locked_candidates(&board).expect("pointing");
        assert!(found.text.starts_with("Pointing: "), "{found:?}");
        assert!(!found.support.is_empty());
    }
}
