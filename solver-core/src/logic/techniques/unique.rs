//! Techniques that assume a unique solution: bivalue universal graves (BUG types 1-4).

use super::house_memo::WORDS;
use super::subsets::combos_within;
use crate::logic::board::{Candidates, bits, digit_names};
use crate::logic::step::{Found, Technique, candidates_of};

/// The cells and digits that break a bivalue universal grave, found as SE does: a digit with
/// other than 0 or 2 places in a house must owe it to exactly one cell of 3+ candidates.
struct Bug {
    cells: Vec<usize>,
    extra: Vec<u64>,
    all_extra: u64,
    /// Empty cells that see every bug cell.
    common: Vec<usize>,
}

/// Houses in SE's order of region types: boxes, rows, columns.
fn se_houses(side: usize) -> impl Iterator<Item = usize> {
    (2 * side..3 * side).chain(0..2 * side)
}

fn find_bug(board: &Candidates) -> Option<Bug> {
    let side = board.side();
    let layout = &board.layout;
    let mut rest = board.masks.clone();
    let mut bug = Bug {
        cells: Vec::new(),
        extra: Vec::new(),
        all_extra: 0,
        common: Vec::new(),
    };
    // The cells that see every bug cell and are none, as a cell set (bit c % 64 of word
    // c / 64): narrowed a word at a time as bug cells are met.
    let mut common: Option<[u64; WORDS]> = None;
    let words = board.masks.len().div_ceil(64);
    for house in se_houses(side) {
        for d in 0..side {
            let bit = 1u64 << d;
            // The house's places of the digit, read off its position mask (a list per house
            // and digit was most of this search's cost).
            let places = board.positions(house, d as u8 + 1);
            if places == 0 || places.count_ones() == 2 {
                continue;
            }
            let mut wide = bits(places)
                .map(|i| layout.houses[house][i] as usize)
                .filter(|&c| board.masks[c].count_ones() >= 3);
            match (wide.next(), wide.next()) {
                (None, _) => return None,
                (Some(cell), None) => {
                    let k = match bug.cells.iter().position(|&c| c == cell) {
                        Some(k) => k,
                        None => {
                            bug.cells.push(cell);
                            bug.extra.push(0);
                            bug.cells.len() - 1
                        }
                    };
                    bug.extra[k] |= bit;
                    bug.all_extra |= bit;
                    rest[cell] &= !bit;
                    let seen = common.get_or_insert([u64::MAX; WORDS]);
                    // A cell is not its own peer: the bug cells leave the set as they come.
                    for (s, p) in seen.iter_mut().zip(&layout.peers[cell]) {
                        *s &= p;
                    }
                    if bug.cells.len() > 1
                        && bug.all_extra.count_ones() > 1
                        && seen[..words].iter().all(|&w| w == 0)
                    {
                        return None;
                    }
                }
                _ => {}
            }
        }
    }
    if bug.cells.is_empty()
        || rest
            .iter()
            .zip(&board.values)
            .any(|(&m, &v)| v == 0 && m.count_ones() != 2)
    {
        return None;
    }
    for house in 0..3 * side {
        for d in 0..side {
            let n = layout.houses[house]
                .iter()
                .filter(|&&c| rest[c as usize] & 1 << d != 0)
                .count();
            if n != 0 && n != 2 {
                return None;
            }
        }
    }
    let common = common.unwrap_or([0; WORDS]);
    bug.common = (0..board.masks.len())
        .filter(|&c| common[c / 64] >> (c % 64) & 1 != 0 && board.values[c] == 0)
        .collect();
    Some(bug)
}

/// Bivalue universal grave, SE's types 1 (5.6), 2 (5.7), 4 (5.7) and 3 (5.7 + 0.1 per naked
/// digit beyond one): without the extra digits every empty cell would have two candidates and
/// every digit two places per house, a pattern with two solutions, so an extra digit is true.
pub(crate) fn bug(board: &Candidates) -> Option<Found> {
    let bug = find_bug(board)?;
    let extras = || digit_names(bug.all_extra);
    if bug.cells.len() == 1 {
        let cell = bug.cells[0];
        let elims = candidates_of(board, [cell], !bug.all_extra);
        let text = || {
            format!(
                "all other empty cells have two candidates; {} must be {}, or the grid would have two solutions",
                board.cell_name(cell),
                extras()
            )
        };
        return Some(Found::removing(Technique::BugPlusOne, 56, elims).saying(text));
    }
    if bug.all_extra.count_ones() == 1 {
        let elims = candidates_of(board, bug.common.iter().copied(), bug.all_extra);
        if !elims.is_empty() {
            let text = || {
                let (cells, extras) = (board.cell_names(bug.cells.iter().copied()), extras());
                format!(
                    "one of {cells} is {extras}, so {extras} is removed from the cells that see them all"
                )
            };
            return Some(Found::removing(Technique::Bug2, 57, elims).saying(text));
        }
        if bug.cells.len() == 2 {
            return bug_type4(board, &bug);
        }
        return None;
    }
    if bug.common.is_empty() {
        return None;
    }
    if bug.cells.len() == 2
        && let Some(found) = bug_type4(board, &bug)
    {
        return Some(found);
    }
    bug_type3(board, &bug)
}

/// The house of one kind (box, row, column in SE's order) that every bug cell shares.
fn shared_houses(board: &Candidates, cells: &[usize]) -> Vec<usize> {
    [2, 0, 1]
        .into_iter()
        .filter(|&k| {
            cells
                .iter()
                .all(|&c| board.layout.cell_houses[c][k] == board.layout.cell_houses[cells[0]][k])
        })
        .map(|k| board.layout.cell_houses[cells[0]][k] as usize)
        .collect()
}

fn bug_type4(board: &Candidates, bug: &Bug) -> Option<Found> {
    let (c1, c2) = (bug.cells[0], bug.cells[1]);
    let common = board.masks[c1] & board.masks[c2] & !bug.all_extra;
    if common.count_ones() != 1 {
        return None;
    }
    let house = *shared_houses(board, &bug.cells).first()?;
    let mut elims = candidates_of(board, [c1], !(bug.extra[0] | common));
    elims.extend(candidates_of(board, [c2], !(bug.extra[1] | common)));
    let text = || {
        format!(
            "one of {} holds its extra digit and, in {}, the other then holds {}, so their other digits go",
            board.cell_names([c1, c2]),
            board.house_name(house),
            digit_names(common)
        )
    };
    Some(Found::removing(Technique::Bug4, 57, elims).saying(text))
}

fn bug_type3(board: &Candidates, bug: &Bug) -> Option<Found> {
    for house in shared_houses(board, &bug.cells) {
        let region: Vec<(usize, u64)> = bug
            .common
            .iter()
            .copied()
            .filter(|&c| board.layout.cell_houses[c].contains(&(house as u16)))
            .map(|c| (c, board.masks[c]))
            .collect();
        for degree in 2..=6usize {
            let found = combos_within(&region, degree - 1, degree as u32, &mut |chosen, union| {
                if union.count_ones() as usize != degree || bug.all_extra & !union != 0 {
                    return None;
                }
                let set: Vec<usize> = bits(chosen).map(|i| region[i].0).collect();
                let others = region.iter().map(|&(c, _)| c).filter(|c| !set.contains(c));
                let elims = candidates_of(board, others, union);
                if elims.is_empty() {
                    return None;
                }
                let text = || {
                    format!(
                        "one of {} holds {}, which with {} forms a naked set in {}, so {} is removed from its other cells",
                        board.cell_names(bug.cells.iter().copied()),
                        digit_names(bug.all_extra),
                        board.cell_names(set.iter().copied()),
                        board.house_name(house),
                        digit_names(union)
                    )
                };
                let tenths = 57 + degree as u16 - 1;
                Some(Found::removing(Technique::Bug3, tenths, elims).saying(text))
            });
            if found.is_some() {
                return found;
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::engine;

    #[test]
    fn the_cells_common_to_a_bug_are_those_seeing_every_bug_cell() {
        let mut bugs = 0;
        // Solves that meet BUG+1 and BUG type 2 steps (SE 5.6 - 5.7).
        for puzzle in [
            "4..2.5..6..1..94...8.....5.81.4.3..9....1....5..6.2.18.4.....7...95..8..6..7.4..1",
            "9..7.4..223.8.1.57.7.....1.8...5...95..3.7..6...........51.23.....675.....7...2..",
            ".........6...2...9.859.143.5.9...6.4.61...38..........3..892..5...........87362..",
        ] {
            engine::each_board(puzzle, |b| {
                let Some(bug) = find_bug(b) else {
                    return;
                };
                bugs += 1;
                let one_by_one: Vec<usize> = (0..b.masks.len())
                    .filter(|&c| {
                        b.values[c] == 0
                            && !bug.cells.contains(&c)
                            && bug.cells.iter().all(|&x| b.layout.sees(c, x))
                    })
                    .collect();
                assert_eq!(bug.common, one_by_one);
            });
        }
        assert!(bugs > 0);
    }
}
