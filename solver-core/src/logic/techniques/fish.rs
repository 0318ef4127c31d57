//! Basic fish: X-Wing, Swordfish and Jellyfish, on rows and on columns.

use super::per_digit;
use super::subsets::combos_within;
use crate::logic::board::{Candidates, bits, digit_char};
use crate::logic::step::{Found, Technique};

/// A digit whose places in `k` rows (or columns) lie in `k` columns (rows): it leaves the
/// rest of those columns (rows).
pub(crate) fn fish(board: &Candidates, k: usize) -> Option<Found> {
    let search = match k {
        2 => Some(per_digit::Search::Fish2),
        3 => Some(per_digit::Search::Fish3),
        4 => Some(per_digit::Search::Fish4),
        _ => None,
    };
    (0..board.side()).find_map(|d| match search {
        Some(search) => per_digit::cached(search, board, d, || digit_fish(board, k, d)),
        None => digit_fish(board, k, d),
    })
}

/// The first fish of size `k` on digit index `d`: rows as base first, then columns.
fn digit_fish(board: &Candidates, k: usize, d: usize) -> Option<Found> {
    let (technique, tenths) = match k {
        2 => (Technique::XWing, 32),
        3 => (Technique::Swordfish, 38),
        _ => (Technique::Jellyfish, 52),
    };
    let side = board.side();
    let mut items = Vec::with_capacity(side);
    let digit = d as u8 + 1;
    for rows in [true, false] {
        let base_first = if rows { 0 } else { side };
        let cover_first = if rows { side } else { 0 };
        items.clear();
        for line in 0..side {
            let pos = board.positions(base_first + line, digit);
            if (2..=k as u32).contains(&pos.count_ones()) {
                items.push((line, pos));
            }
        }
        let found = combos_within(&items, k, k as u32, &mut |chosen, cover| {
            if cover.count_ones() as usize != k {
                return None;
            }
            let base: u64 = bits(chosen).fold(0, |acc, i| acc | 1 << items[i].0);
            let mut elims = Vec::new();
            for c in bits(cover) {
                for (i, &cell) in board.layout.houses[cover_first + c].iter().enumerate() {
                    if base & 1 << i == 0 && board.masks[cell as usize] & 1 << d != 0 {
                        elims.push((cell, digit));
                    }
                }
            }
            if elims.is_empty() {
                return None;
            }
            Some(describe(
                board,
                (technique, tenths),
                elims,
                (rows, digit),
                (base, cover),
            ))
        });
        if found.is_some() {
            return found;
        }
    }
    None
}

/// The step of a fish on `digit` with base lines `base` and cover lines `cover` (bitmasks of
/// line numbers), rows as base when `rows`.
fn describe(
    board: &Candidates,
    (technique, tenths): (Technique, u16),
    elims: Vec<(u16, u8)>,
    (rows, digit): (bool, u8),
    (base, cover): (u64, u64),
) -> Found {
    let base_first = if rows { 0 } else { board.side() };
    let bit = 1u64 << (digit - 1);
    let support = || {
        let mut support = Vec::new();
        for line in bits(base) {
            for &cell in &board.layout.houses[base_first + line] {
                if board.masks[cell as usize] & bit != 0 {
                    support.push((cell, digit));
                }
            }
        }
        support
    };
    let (base_name, cover_name) = if rows {
        ("rows", "columns")
    } else {
        ("columns", "rows")
    };
    let list = |m: u64| {
        bits(m)
            .map(|i| (i + 1).to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    // The fish's cells: the digit's places in the base lines, all on the cover lines.
    let corners = || {
        let cells: Vec<usize> = support().iter().map(|&(c, _)| usize::from(c)).collect();
        crate::logic::wording::compact_cells(&cells, board.side())
    };
    let text = || {
        format!(
            "digit {}: in {base_name} {} it lies only in {cover_name} {} (at {}), so it is removed from the rest of those {cover_name}",
            digit_char(digit),
            list(base),
            list(cover),
            corners()
        )
    };
    Found::removing(technique, tenths, elims)
        .resting_on(support)
        .saying(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::board::testing::{empty, remove, removed};

    #[test]
    fn x_wing_on_a_6x6_board() {
        let mut board = empty(2, 3);
        // Digit 1 of rows 1 and 4 only in columns 1 and 5.
        for r in [0, 3] {
            remove(&mut board, 1, &[(r, 1), (r, 2), (r, 3), (r, 5)]);
        }
        let found = fish(&board, 2).expect("x-wing");
        assert_eq!(found.technique, Technique::XWing);
        let expected: Vec<(usize, usize, u8)> = [1, 2, 4, 5]
            .iter()
            .flat_map(|&r| [(r, 0, 1), (r, 4, 1)])
            .collect();
        assert_eq!(removed(&board, &found.eliminations), expected);
    }

    #[test]
    fn swordfish_on_a_9x9_board_columns() {
        let mut board = empty(3, 3);
        // Digit 9 of columns 1, 5 and 9 only in rows 1, 4 and 7, two places each.
        let rows_of = [(0, [0, 3]), (4, [3, 6]), (8, [0, 6])];
        for (c, keep) in rows_of {
            let drop: Vec<(usize, usize)> = (0..9)
                .filter(|r| !keep.contains(r))
                .map(|r| (r, c))
                .collect();
            remove(&mut board, 9, &drop);
        }
        assert!(fish(&board, 2).is_none());
        let found = fish(&board, 3).expect("swordfish");
        assert_eq!(found.technique, Technique::Swordfish);
        let expected: Vec<(usize, usize, u8)> = [0, 3, 6]
            .iter()
            .flat_map(|&r| {
                (0..9)
                    .filter(|c| ![0, 4, 8].contains(c))
                    .map(move |c| (r, c, 9))
            })
            .collect();
        assert_eq!(removed(&board, &found.eliminations), expected);
    }
}
