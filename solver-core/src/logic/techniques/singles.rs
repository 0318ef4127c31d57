//! Singles: full house, hidden single (box, then line) and naked single.

use crate::logic::board::{Candidates, HouseKind, digit_char};
use crate::logic::step::{Found, Technique};

/// The last empty cell of a house takes the one digit the house lacks (SE 1.0).
pub(crate) fn full_house(board: &Candidates) -> Option<Found> {
    let side = board.side();
    for house in house_order(side) {
        // The digits placed are kept per house: most houses lack several, and are passed
        // over without reading their cells.
        let missing = ((1u64 << side) - 1) & !board.placed_in(house);
        if missing.count_ones() != 1 {
            continue;
        }
        let cells = &board.layout.houses[house];
        let mut empty = cells.iter().filter(|&&c| board.values[c as usize] == 0);
        let (Some(&cell), None) = (empty.next(), empty.next()) else {
            continue;
        };
        let cell = cell as usize;
        if board.masks[cell] & missing != 0 {
            let digit = missing.trailing_zeros() as u8 + 1;
            let text = || {
                format!(
                    "{} is the last empty cell of {}, so it holds {}",
                    board.cell_name(cell),
                    board.house_name(house),
                    digit_char(digit)
                )
            };
            return Some(Found::placing(Technique::FullHouse, 10, cell, digit).saying(text));
        }
    }
    None
}

/// Boxes first, then columns, then rows: SE's order of regions.
pub(crate) fn house_order(side: usize) -> impl Iterator<Item = usize> {
    (2 * side..3 * side).chain(side..2 * side).chain(0..side)
}

/// A digit with one place left in a house: box 1.2, row or column 1.5.
pub(crate) fn hidden_single(board: &Candidates) -> Option<Found> {
    let side = board.side();
    for house in house_order(side) {
        let open = ((1u64 << side) - 1) & !board.placed_in(house);
        for d in crate::logic::board::bits(open) {
            let digit = d as u8 + 1;
            let pos = board.positions(house, digit);
            if pos.count_ones() == 1 {
                let cell = board.layout.houses[house][pos.trailing_zeros() as usize] as usize;
                let (technique, tenths) = match board.kind(house) {
                    HouseKind::Box => (Technique::HiddenSingleBox, 12),
                    _ => (Technique::HiddenSingleLine, 15),
                };
                let text = || {
                    format!(
                        "in {}, only {} can hold {}",
                        board.house_name(house),
                        board.cell_name(cell),
                        digit_char(digit)
                    )
                };
                return Some(
                    Found::placing(technique, tenths, cell, digit)
                        .resting_on(|| blockers(board, house, cell, digit))
                        .saying(text),
                );
            }
        }
    }
    None
}

/// What a hidden single rests on: for each other empty cell of the house, a placed `digit`
/// that sees it (a cell that lost the digit to an earlier step has none); never empty.
fn blockers(board: &Candidates, house: usize, cell: usize, digit: u8) -> Vec<(u16, u8)> {
    let layout = &board.layout;
    let mut out: Vec<(u16, u8)> = Vec::new();
    for &other in &layout.houses[house] {
        let other = usize::from(other);
        if other == cell || board.values[other] != 0 {
            continue;
        }
        let seen = layout.cell_houses[other].iter().find_map(|&h| {
            layout.houses[usize::from(h)]
                .iter()
                .find(|&&y| board.values[usize::from(y)] == digit)
        });
        if let Some(&y) = seen {
            out.push((y, digit));
        }
    }
    out.sort_unstable();
    out.dedup();
    // Candidates removed earlier block the other cells: the step then rests on its own cell.
    if out.is_empty() {
        out.push((cell as u16, digit));
    }
    out
}

/// A cell with one candidate left (SE 2.3).
pub(crate) fn naked_single(board: &Candidates) -> Option<Found> {
    let cell = board.masks.iter().position(|m| m.count_ones() == 1)?;
    let digit = board.masks[cell].trailing_zeros() as u8 + 1;
    let text = || {
        format!(
            "{} can only hold {}",
            board.cell_name(cell),
            digit_char(digit)
        )
    };
    Some(Found::placing(Technique::NakedSingle, 23, cell, digit).saying(text))
}
