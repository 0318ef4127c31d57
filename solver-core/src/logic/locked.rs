//! Locked candidates: pointing (box to line) and claiming (line to box), and SE's direct forms.

use super::board::{Candidates, digit_char};
use super::per_digit;
use super::step::{Found, Technique};

/// One locked-candidates pattern: `digit` of house `from` confined to its meeting with `to`.
struct Lock {
    digit: u8,
    from: usize,
    /// Which of a cell's houses (row 0, column 1, box 2) `from` is.
    from_slot: usize,
    to: usize,
    /// Cells of `to` outside the meeting that hold the digit.
    removed: Vec<u16>,
}

/// The first step `visit` makes of a locked pattern in SE's order: box to column, box to
/// row, column to box, row to box (pointing when `pointing`, else claiming), digit by digit.
///
/// A pattern and its step read one digit's places alone: each digit's first steps are kept
/// from the search before (as `search`) and redone only when its places moved.
fn locks(
    board: &Candidates,
    (pointing, search): (bool, per_digit::Search),
    visit: impl Fn(Lock) -> Option<Found>,
) -> Option<Found> {
    // (kind of the source house by its slot in `cell_houses`, slot of the target house)
    let pairs: [(usize, usize); 2] = if pointing {
        [(2, 1), (2, 0)]
    } else {
        [(1, 2), (0, 2)]
    };
    let firsts: Vec<[Option<Found>; 2]> = (0..board.side())
        .map(|d| {
            per_digit::cached(search, board, d, || {
                pairs.map(|pair| digit_locks(board, pair, d, &visit))
            })
        })
        .collect();
    (0..2).find_map(|k| firsts.iter().find_map(|first| first[k].clone()))
}

/// The first step `visit` makes of a pattern of digit index `d` from houses of the kind
/// `from_slot` to those of `to_slot`.
fn digit_locks(
    board: &Candidates,
    (from_slot, to_slot): (usize, usize),
    d: usize,
    visit: &impl Fn(Lock) -> Option<Found>,
) -> Option<Found> {
    let side = board.side();
    let digit = d as u8 + 1;
    let bit = 1u64 << d;
    for from in from_slot * side..(from_slot + 1) * side {
        let cells = &board.layout.houses[from];
        let pos = board.positions(from, digit);
        if pos.count_ones() < 2 {
            continue;
        }
        let first = cells[pos.trailing_zeros() as usize];
        let to = board.layout.cell_houses[first as usize][to_slot] as usize;
        let all_in = cells
            .iter()
            .filter(|&&c| board.masks[c as usize] & bit != 0)
            .all(|&c| board.layout.cell_houses[c as usize][to_slot] as usize == to);
        if !all_in {
            continue;
        }
        let removed: Vec<u16> = board.layout.houses[to]
            .iter()
            .copied()
            .filter(|&c| {
                board.masks[c as usize] & bit != 0
                    && board.layout.cell_houses[c as usize][from_slot] as usize != from
            })
            .collect();
        if !removed.is_empty()
            && let Some(found) = visit(Lock {
                digit,
                from,
                from_slot,
                to,
                removed,
            })
        {
            return Some(found);
        }
    }
    None
}

fn describe(board: &Candidates, lock: &Lock) -> String {
    format!(
        "in {}, {} lies only in {}, so it goes from {}",
        board.house_name(lock.from),
        digit_char(lock.digit),
        board.house_name(lock.to),
        board.cell_names(lock.removed.iter().map(|&c| c as usize))
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
    for pointing in [true, false] {
        let (technique, tenths) = if pointing {
            (Technique::Pointing, 26)
        } else {
            (Technique::Claiming, 28)
        };
        let search = if pointing {
            per_digit::Search::Pointing
        } else {
            per_digit::Search::Claiming
        };
        let found = locks(board, (pointing, search), |lock| {
            let elims = lock.removed.iter().map(|&c| (c, lock.digit)).collect();
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
    direct_kind(board, true).or_else(|| direct_kind(board, false))
}

/// Direct pointing (`pointing`) or direct claiming.
fn direct_kind(board: &Candidates, pointing: bool) -> Option<Found> {
    let (technique, tenths) = if pointing {
        (Technique::DirectPointing, 17)
    } else {
        (Technique::DirectClaiming, 19)
    };
    let search = if pointing {
        per_digit::Search::DirectPointing
    } else {
        per_digit::Search::DirectClaiming
    };
    locks(board, (pointing, search), |lock| {
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
    let bit = 1u64 << (lock.digit - 1);
    let mut seen = 0u64;
    for &c in &board.layout.houses[lock.to] {
        let house = board.layout.cell_houses[c as usize][lock.from_slot] as usize;
        let index = house % board.side();
        if house == lock.from || seen & 1 << index != 0 {
            continue;
        }
        seen |= 1 << index;
        let holders = || {
            board.layout.houses[house]
                .iter()
                .filter(|&&c| board.masks[c as usize] & bit != 0)
        };
        if board.positions(house, lock.digit).count_ones() < 2 {
            continue;
        }
        let mut left = holders().filter(|c| !lock.removed.contains(c));
        if let (Some(&cell), None) = (left.next(), left.next()) {
            return Some((cell as usize, house));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::board::testing::{empty, remove, removed};
    use super::*;

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
        let found = direct_kind(&board, false).expect("direct claiming");
        assert_eq!(found.technique, Technique::DirectClaiming);
        assert_eq!(found.placements, vec![(17, 1)]);
        assert!(found.eliminations.is_empty());
        assert_eq!(found.support.len(), 3);
    }
}

#[cfg(test)]
mod kept_tests {
    use super::super::board::testing::{empty, remove};
    use super::super::wording::Unread;
    use super::*;

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
