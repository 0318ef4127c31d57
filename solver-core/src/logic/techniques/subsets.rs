//! Naked and hidden subsets (pairs, triples, quads), and SE's direct hidden pair and triple.

use super::house_memo;
use super::singles::house_order;
use crate::logic::board::{Candidates, bits, digit_char, digit_names};
use crate::logic::step::{Found, Technique, candidates_of};

/// Calls `visit` with every `k`-subset of `items` (as a bitmask of positions in `items`, and
/// the OR of their `masks`) until it returns a step.
pub(crate) fn combos<T>(
    items: &[(usize, u64)],
    k: usize,
    visit: &mut impl FnMut(u64, u64) -> Option<T>,
) -> Option<T> {
    combos_within(items, k, u32::MAX, visit)
}

/// [`combos`] over the subsets whose masks hold at most `cap` bits together: a subset past
/// it is never extended (its supersets are past it too).
pub(crate) fn combos_within<T>(
    items: &[(usize, u64)],
    k: usize,
    cap: u32,
    visit: &mut impl FnMut(u64, u64) -> Option<T>,
) -> Option<T> {
    /// One subset's choices from `start` on.
    struct Walk<'a, F> {
        items: &'a [(usize, u64)],
        cap: u32,
        visit: &'a mut F,
    }
    impl<F> Walk<'_, F> {
        fn go<T>(&mut self, start: usize, left: usize, chosen: u64, union: u64) -> Option<T>
        where
            F: FnMut(u64, u64) -> Option<T>,
        {
            if left == 0 {
                return (self.visit)(chosen, union);
            }
            for i in start..=self.items.len().saturating_sub(left) {
                let next = union | self.items[i].1;
                if next.count_ones() > self.cap {
                    continue;
                }
                if let Some(t) = self.go(i + 1, left - 1, chosen | 1 << i, next) {
                    return Some(t);
                }
            }
            None
        }
    }
    if items.len() < k {
        return None;
    }
    Walk { items, cap, visit }.go(0, k, 0, 0)
}

fn naked_technique(k: usize) -> (Technique, u16) {
    match k {
        2 => (Technique::NakedPair, 30),
        3 => (Technique::NakedTriple, 36),
        _ => (Technique::NakedQuad, 50),
    }
}

fn hidden_technique(k: usize, direct: bool) -> (Technique, u16) {
    match (k, direct) {
        (2, true) => (Technique::DirectHiddenPair, 20),
        (3, true) => (Technique::DirectHiddenTriple, 25),
        (2, false) => (Technique::HiddenPair, 34),
        (3, false) => (Technique::HiddenTriple, 40),
        _ => (Technique::HiddenQuad, 54),
    }
}

/// `k` cells of a house whose candidates together are `k` digits: those digits leave the
/// house's other cells.
pub(crate) fn naked_set(board: &Candidates, k: usize) -> Option<Found> {
    use house_memo::Search;
    let memo = match k {
        2 => Some(Search::Naked2),
        3 => Some(Search::Naked3),
        4 => Some(Search::Naked4),
        _ => None,
    };
    let skip = memo.map_or(0, |m| house_memo::unchanged_houses(m, board));
    let found = naked_in(board, k, skip);
    if let Some(m) = memo {
        house_memo::remember(m, board, found.is_some());
    }
    found
}

/// [`naked_set`] in the houses not in `skip` (bit `h`), where the last search found nothing.
fn naked_in(board: &Candidates, k: usize, skip: u128) -> Option<Found> {
    let (technique, tenths) = naked_technique(k);
    let skip = words(skip);
    let mut items = Vec::with_capacity(board.side());
    for house in house_order(board.side()) {
        if skip[house / 64] >> (house % 64) & 1 != 0 {
            continue;
        }
        let cells = &board.layout.houses[house];
        items.clear();
        items.extend(
            cells
                .iter()
                .map(|&c| (c as usize, board.masks[c as usize]))
                .filter(|(_, m)| (2..=k as u32).contains(&m.count_ones())),
        );
        let found = combos_within(&items, k, k as u32, &mut |chosen, union| {
            if union.count_ones() as usize != k {
                return None;
            }
            let set = Set::of(bits(chosen).map(|i| items[i].0));
            let set = set.cells();
            let others = cells
                .iter()
                .map(|&c| c as usize)
                .filter(|c| !set.contains(c));
            let elims = candidates_of(board, others, union);
            if elims.is_empty() {
                return None;
            }
            let text = || {
                format!(
                    "in {}, {} hold only {}, so those digits are removed from the other cells",
                    board.house_name(house),
                    board.cell_names(set.iter().copied()),
                    digit_names(union)
                )
            };
            let support = || candidates_of(board, set.iter().copied(), union);
            Some(
                Found::removing(technique, tenths, elims)
                    .resting_on(support)
                    .saying(text),
            )
        });
        if found.is_some() {
            return found;
        }
    }
    None
}

/// `k` digits of a house confined to `k` cells: other digits leave those cells. In the direct
/// form (pairs and triples) the step is the hidden single that this leaves in the house.
pub(crate) fn hidden_set(board: &Candidates, k: usize, direct: bool) -> Option<Found> {
    use house_memo::Search;
    let memo = match (k, direct) {
        (2, true) => Some(Search::DirectHidden2),
        (3, true) => Some(Search::DirectHidden3),
        (2, false) => Some(Search::Hidden2),
        (3, false) => Some(Search::Hidden3),
        (4, false) => Some(Search::Hidden4),
        _ => None,
    };
    let skip = memo.map_or(0, |m| house_memo::unchanged_houses(m, board));
    let found = hidden_in(board, (k, direct), skip);
    if let Some(m) = memo {
        house_memo::remember(m, board, found.is_some());
    }
    found
}

/// [`hidden_set`] in the houses not in `skip` (bit `h`), where the last search found nothing.
fn hidden_in(board: &Candidates, (k, direct): (usize, bool), skip: u128) -> Option<Found> {
    let (technique, tenths) = hidden_technique(k, direct);
    let skip = words(skip);
    let side = board.side();
    let mut items = Vec::with_capacity(side);
    for house in house_order(side) {
        if skip[house / 64] >> (house % 64) & 1 != 0 {
            continue;
        }
        let cells = &board.layout.houses[house];
        // Each filled cell holds one of the digits placed in the house.
        let empty = side - board.placed_in(house).count_ones() as usize;
        // A hidden set in a house of at most 2k empty cells is also a naked set of the rest,
        // which SE finds first.
        if !(empty > 2 * k || direct && empty > k) {
            continue;
        }
        let open = ((1u64 << side) - 1) & !board.placed_in(house);
        items.clear();
        for d in bits(open) {
            let pos = board.positions(house, d as u8 + 1);
            if (1..=k as u32).contains(&pos.count_ones()) {
                items.push((d, pos));
            }
        }
        let found = combos_within(&items, k, k as u32, &mut |chosen, union| {
            if union.count_ones() as usize != k {
                return None;
            }
            let digits = bits(chosen).fold(0u64, |acc, i| acc | 1 << items[i].0);
            let set = Set::of(bits(union).map(|i| cells[i] as usize));
            let set = set.cells();
            // What the set changes first: most sets found change nothing, and need no sentence.
            let change = if direct {
                Err(direct_single(board, house, union, open & !digits)?)
            } else {
                let elims = candidates_of(board, set.iter().copied(), !digits);
                if elims.is_empty() {
                    return None;
                }
                Ok(elims)
            };
            let support = || candidates_of(board, set.iter().copied(), digits);
            let text = || {
                format!(
                    "in {}, digits {} can only go in {}",
                    board.house_name(house),
                    digit_names(digits),
                    board.cell_names(set.iter().copied())
                )
            };
            Some(match change {
                Err((cell, digit)) => {
                    let text = || {
                        format!(
                            "{}; then only {} can hold {}",
                            text(),
                            board.cell_name(cell),
                            digit_char(digit)
                        )
                    };
                    Found::placing(technique, tenths, cell, digit)
                        .resting_on(support)
                        .saying(text)
                }
                Ok(elims) => {
                    let text =
                        || format!("{}, so other digits are removed from those cells", text());
                    Found::removing(technique, tenths, elims)
                        .resting_on(support)
                        .saying(text)
                }
            })
        });
        if found.is_some() {
            return found;
        }
    }
    None
}

/// A 128-bit house set as two words: read house by house, a u128 shift costs several.
fn words(set: u128) -> [u64; 2] {
    [set as u64, (set >> 64) as u64]
}

/// The cells of a subset, on the stack (sets have at most four cells; most found change
/// nothing and are dropped at once).
struct Set {
    cells: [usize; 4],
    len: usize,
}

impl Set {
    fn of(cells: impl Iterator<Item = usize>) -> Set {
        let mut set = Set {
            cells: [0; 4],
            len: 0,
        };
        for c in cells {
            set.cells[set.len] = c;
            set.len += 1;
        }
        set
    }

    fn cells(&self) -> &[usize] {
        &self.cells[..self.len]
    }
}

/// A digit of `others` with several places in `house` but one outside the set's positions.
fn direct_single(board: &Candidates, house: usize, set: u64, others: u64) -> Option<(usize, u8)> {
    for d in bits(others) {
        let pos = board.positions(house, d as u8 + 1);
        if pos.count_ones() > 1 && (pos & !set).count_ones() == 1 {
            let cell = board.layout.houses[house][(pos & !set).trailing_zeros() as usize];
            return Some((cell as usize, d as u8 + 1));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::board::testing::{empty, remove, removed};

    #[test]
    fn naked_pair_on_a_16x16_board() {
        let mut board = empty(4, 4);
        for d in 3..=16 {
            remove(&mut board, d, &[(0, 0), (0, 1)]);
        }
        let found = naked_set(&board, 2).expect("naked pair");
        assert_eq!(found.technique, Technique::NakedPair);
        // Box 1 comes first in SE's order of houses.
        let expected: Vec<(usize, usize, u8)> = (0..4)
            .flat_map(|r| (0..4).map(move |c| (r, c)))
            .filter(|&(r, c)| r > 0 || c > 1)
            .flat_map(|(r, c)| [(r, c, 1), (r, c, 2)])
            .collect();
        assert_eq!(removed(&board, &found.eliminations), expected);
    }

    #[test]
    fn hidden_pair_and_triple_on_a_6x6_board() {
        let mut board = empty(2, 3);
        // In box 1 (rows 1-2, columns 1-3), digits 1 and 2 only in r1c1 and r1c2.
        for d in [1, 2] {
            remove(&mut board, d, &[(0, 2), (1, 0), (1, 1), (1, 2)]);
        }
        let found = hidden_set(&board, 2, false).expect("hidden pair");
        assert_eq!(found.technique, Technique::HiddenPair);
        let expected: Vec<(usize, usize, u8)> = [(0, 0), (0, 1)]
            .iter()
            .flat_map(|&(r, c)| (3..=6).map(move |d| (r, c, d)))
            .collect();
        assert_eq!(removed(&board, &found.eliminations), expected);
        assert!(hidden_set(&board, 3, false).is_none());
    }

    #[test]
    fn combos_visit_every_subset_once() {
        let items: Vec<(usize, u64)> = (0..6).map(|i| (i, 1 << i)).collect();
        let mut count = 0;
        let none: Option<()> = combos(&items, 3, &mut |chosen, union| {
            assert_eq!(chosen, union);
            count += 1;
            None
        });
        assert!(none.is_none());
        assert_eq!(count, 20);
    }
}
