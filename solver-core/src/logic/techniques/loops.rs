//! Unique rectangles and loops (types 1-4), found and ranked as Sudoku Explainer does: every
//! loop of cells sharing two digits is gathered, the lowest rating (then type) wins.

use std::cell::RefCell;

use super::subsets::{combos, combos_within};
use crate::Shape;
use crate::logic::board::{Candidates, bits, digit_char, digit_names};
use crate::logic::step::{Found, Technique, candidates_of};

/// SE's region types in order: box, row, column, as slots of `cell_houses`.
const REGION_SLOTS: [usize; 3] = [2, 0, 1];

/// One deadly pattern: the loop's cells in order and its two digits (as a mask).
struct Loop<'a> {
    cells: &'a [usize],
    pair: u64,
}

impl Loop<'_> {
    /// 4.5, plus 0.1 for six cells, 0.2 for eight, 0.5 for ten or more.
    fn tenths(&self) -> u16 {
        match self.cells.len() {
            0..6 => 45,
            6..8 => 46,
            8..10 => 47,
            _ => 50,
        }
    }
}

/// The best unique-loop step on the board: lowest rating, then lowest type, first found.
pub(crate) fn unique_loop(board: &Candidates) -> Option<Found> {
    best_loop(board, true)
}

/// [`unique_loop`], each walk passing over the starts walked from before when `skip_walked`
/// (the same step, as the tests check against walks through every cell).
///
/// The loops of a pair are kept from the calls before while the board has only lost
/// candidates since and the cells that may be on a loop of the pair keep theirs (see
/// [`PairLoops::members`]); the steps are judged afresh.
fn best_loop(board: &Candidates, skip_walked: bool) -> Option<Found> {
    let mut best: Option<(u16, u8, Found)> = None;
    let mut consider = |found: Found, kind: u8| {
        if best
            .as_ref()
            .is_none_or(|(t, k, _)| (found.tenths, kind) < (*t, *k))
        {
            best = Some((found.tenths, kind, found));
        }
    };
    let mut kept = if skip_walked {
        WALKED
            .try_with(|w| w.try_borrow_mut().map(|mut w| std::mem::take(&mut *w)))
            .ok()
            .and_then(Result::ok)
            .unwrap_or_default()
    } else {
        Walked::default()
    };
    let at = refresh(&mut kept, board, skip_walked);
    let mut found: Vec<(usize, &[usize])> = Vec::new();
    for &i in &at {
        found.extend(
            kept.pairs[i]
                .loops
                .iter()
                .map(|(s, cells)| (*s, cells.as_slice())),
        );
    }
    // The order of the walks through every start in cell order (ties keep the first).
    found.sort_by_key(|&(start, _)| start);
    for &(start, cells) in &found {
        let pattern = Loop {
            cells,
            pair: board.masks[start],
        };
        loop_steps(board, &pattern, &mut consider);
    }
    drop(found);
    if skip_walked {
        let _ = WALKED.try_with(|w| {
            if let Ok(mut w) = w.try_borrow_mut() {
                *w = kept;
            }
        });
    }
    best.map(|(_, _, found)| found)
}

/// Brings `kept` up to date for each pair of the board's bivalue cells (walking the pairs
/// whose cells changed) and gives their places in it.
fn refresh(kept: &mut Walked, board: &Candidates, skip_walked: bool) -> Vec<usize> {
    let narrowed = kept.shape == Some(board.shape())
        && kept.masks.len() == board.masks.len()
        && kept
            .masks
            .iter()
            .zip(&board.masks)
            .all(|(&then, &now)| now & !then == 0);
    if !narrowed {
        kept.pairs.clear();
    }
    kept.shape = Some(board.shape());
    kept.masks.clone_from(&board.masks);
    let mut pairs: Vec<u64> = Vec::new();
    for &m in &board.masks {
        if m.count_ones() == 2 && !pairs.contains(&m) {
            pairs.push(m);
        }
    }
    let mut walk = None;
    let mut at = Vec::with_capacity(pairs.len());
    for &pair in &pairs {
        let slot = kept.pairs.iter().position(|k| k.pair == pair);
        let fresh = slot.is_none_or(|i| {
            kept.pairs[i]
                .members
                .iter()
                .any(|&(c, m)| board.masks[c] != m)
        });
        let i = slot.unwrap_or(kept.pairs.len());
        if fresh {
            let walk = walk.get_or_insert_with(|| Walk::new(board, skip_walked));
            let loops = walk.pair_loops(pair);
            let side = board.side();
            let rows = &walk.members.cells[..walk.members.first[side]];
            let entry = PairLoops {
                pair,
                members: rows.iter().map(|&c| (c, board.masks[c])).collect(),
                loops,
            };
            if i == kept.pairs.len() {
                kept.pairs.push(entry);
            } else {
                kept.pairs[i] = entry;
            }
        }
        at.push(i);
    }
    at
}

/// The two digits (1-based) of a pair mask.
fn digit_pair(pair: u64) -> (u8, u8) {
    let low = pair.trailing_zeros() as u8;
    let high = (pair & (pair - 1)).trailing_zeros() as u8;
    (low + 1, high + 1)
}

/// The valid closed loops of one pair, each with its start, as the walks found them.
struct PairLoops {
    pair: u64,
    /// The cells that may be on a loop of the pair (see [`Members`]) and their candidates:
    /// all the walks read. While the board only loses candidates, the cells holding both
    /// digits only become fewer, and those that may be on a loop with them: where these keep
    /// their candidates, they are the same cells, and the walks find the same loops.
    members: Vec<(usize, u64)>,
    loops: Vec<(usize, Vec<usize>)>,
}

/// The loops of each pair met by the searches since the board last gained a candidate (one
/// entry per pair), and the board of the last search.
#[derive(Default)]
struct Walked {
    shape: Option<Shape>,
    masks: Vec<u64>,
    pairs: Vec<PairLoops>,
}

thread_local! {
    static WALKED: RefCell<Walked> = RefCell::new(Walked::default());
}

/// The cells of each house holding both digits of a pair that a valid loop may visit, in house
/// order: the only cells a loop of that pair may visit (a walk looks at each house many times).
///
/// A valid loop visits each house of each of its cells twice (see [`valid`]), so a cell
/// alone in one of its houses among the cells that may be on a loop is on none; such cells
/// are left out until none is (often all are, and the walks are not made).
#[derive(Default)]
struct Members {
    /// House `h`'s are `cells[first[h]..first[h + 1]]`.
    first: Vec<usize>,
    cells: Vec<usize>,
    /// The places of each house (bit i: its i-th cell) that may be on a loop.
    places: Vec<u64>,
}

impl Members {
    /// Lists the members of `pair`, all of them unless `cut` (then only those that may be on a
    /// valid loop).
    fn list(&mut self, board: &Candidates, pair: u64, cut: bool) {
        let layout = &board.layout;
        let (a, b) = digit_pair(pair);
        self.places.clear();
        self.places.extend(
            (0..layout.houses.len()).map(|h| board.positions(h, a) & board.positions(h, b)),
        );
        while cut && self.cut_lone(board) {}
        self.first.clear();
        self.cells.clear();
        self.first.push(0);
        for (house, &places) in layout.houses.iter().zip(&self.places) {
            self.cells.extend(bits(places).map(|i| house[i] as usize));
            self.first.push(self.cells.len());
        }
    }

    /// Leaves out the cells alone in a house; whether there were any.
    fn cut_lone(&mut self, board: &Candidates) -> bool {
        let layout = &board.layout;
        let mut cut = false;
        for h in 0..self.places.len() {
            let m = self.places[h];
            if m != 0 && m & (m - 1) == 0 {
                let c = layout.houses[h][m.trailing_zeros() as usize] as usize;
                for (&g, &slot) in layout.cell_houses[c].iter().zip(&layout.cell_slots[c]) {
                    self.places[g as usize] &= !(1 << slot);
                }
                cut = true;
            }
        }
        cut
    }
}

/// SE's depth-first search for closed loops through cells holding both digits of `pair`.
struct Walk<'a> {
    board: &'a Candidates,
    pair: u64,
    /// The cells holding `pair`, house by house.
    members: Members,
    /// The cells of the loop so far, and the same as a cell set (bit c % 64 of word c / 64),
    /// so that a cell is known on the path at once.
    path: Vec<usize>,
    on_path: Vec<u64>,
    /// The closed loops found.
    loops: Vec<Vec<usize>>,
    /// Whether the starts walked from before are passed over (see [`Walk::started_from`]).
    skip_walked: bool,
    /// Whether cells on no valid loop are left out (see [`Members`]).
    cut_lone: bool,
}

impl<'a> Walk<'a> {
    fn new(board: &'a Candidates, skip_walked: bool) -> Walk<'a> {
        Walk {
            board,
            pair: 0,
            members: Members::default(),
            path: Vec::new(),
            on_path: vec![0; board.masks.len().div_ceil(64)],
            loops: Vec::new(),
            skip_walked,
            cut_lone: true,
        }
    }

    /// The valid loops of `pair` from each of its bivalue cells in turn, with their starts.
    fn pair_loops(&mut self, pair: u64) -> Vec<(usize, Vec<usize>)> {
        let board = self.board;
        self.members.list(board, pair, self.cut_lone);
        self.pair = pair;
        let mut out = Vec::new();
        // The listed cells of the rows: every listed cell once, in cell order.
        for k in 0..self.members.first[board.side()] {
            let start = self.members.cells[k];
            if board.masks[start] != pair {
                continue;
            }
            self.loops.clear();
            self.extend(start, 2, 0, None);
            for cells in self.loops.drain(..) {
                if valid(board, &cells) {
                    out.push((start, cells));
                }
            }
        }
        out
    }

    fn extend(&mut self, cell: usize, allowed_extra: u8, extra: u64, last_slot: Option<usize>) {
        let board = self.board;
        self.path.push(cell);
        self.on_path[cell / 64] |= 1 << (cell % 64);
        for slot in REGION_SLOTS {
            if Some(slot) == last_slot {
                continue;
            }
            let house = board.layout.cell_houses[cell][slot] as usize;
            for k in self.members.first[house]..self.members.first[house + 1] {
                // Only cells holding the pair: the others were passed over here.
                let next = self.members.cells[k];
                if next == self.path[0] && self.path.len() >= 4 {
                    self.loops.push(self.path.clone());
                } else if self.on_path[next / 64] >> (next % 64) & 1 == 0
                    && !self.started_from(next)
                {
                    let m = board.masks[next];
                    // SE lets extra digits leak between sibling branches; here each branch
                    // keeps its own, so that no loop depends on the order cells are visited in.
                    let extra = extra | m & !self.pair;
                    let wide = m.count_ones() > 2;
                    if !wide || extra.count_ones() == 1 || allowed_extra > 0 {
                        let left = allowed_extra.saturating_sub(u8::from(wide));
                        self.extend(next, left, extra, Some(slot));
                    }
                }
            }
        }
        self.path.pop();
        self.on_path[cell / 64] &= !(1 << (cell % 64));
    }
}

impl Walk<'_> {
    /// Whether `cell` is a start already walked from: a bivalue cell of the pair before
    /// this walk's start.
    ///
    /// Whether a loop is found does not depend on where it starts or which way round it
    /// goes (the extra digits of its cells are judged as a whole: more than two cells with
    /// extras pass only when they all add the same one digit), so every loop through such a
    /// cell was found from it already, and its steps rate and rank the same from any start:
    /// found again, they could not displace the first. Leaving those cells out leaves the
    /// other loops, in the same order.
    fn started_from(&self, cell: usize) -> bool {
        self.skip_walked && cell < self.path[0] && self.board.masks[cell] == self.pair
    }
}

/// Every house the loop visits is visited once by an odd and once by an even position.
fn valid(board: &Candidates, cells: &[usize]) -> bool {
    // House sets (at most 3 × 35 houses): each side visits a house at most once.
    let (mut odd, mut even) = (0u128, 0u128);
    for (i, &c) in cells.iter().enumerate() {
        let seen = if i % 2 == 1 { &mut odd } else { &mut even };
        for h in board.layout.cell_houses[c] {
            if *seen >> h & 1 != 0 {
                return false;
            }
            *seen |= 1 << h;
        }
    }
    odd == even
}

fn loop_steps(board: &Candidates, pattern: &Loop<'_>, consider: &mut impl FnMut(Found, u8)) {
    let extra_cells: Vec<usize> = pattern
        .cells
        .iter()
        .copied()
        .filter(|&c| board.masks[c].count_ones() > 2)
        .collect();
    let base = pattern.tenths();
    // Named and listed only for a step (most loops give none).
    let support = || candidates_of(board, pattern.cells.iter().copied(), pattern.pair);
    match extra_cells.len() {
        1 => {
            let cell = extra_cells[0];
            let elims = candidates_of(board, [cell], pattern.pair);
            let text = || {
                let names = board.cell_names(pattern.cells.iter().copied());
                let pair = digit_names(pattern.pair);
                format!(
                    "{names} would hold only {pair} (two solutions), so {} cannot be {pair}",
                    board.cell_name(cell)
                )
            };
            let found = Found::removing(Technique::UniqueRectangle1, base, elims)
                .resting_on(support)
                .saying(text);
            consider(found, 1);
        }
        0 => {}
        n => {
            let extras = extra_cells
                .iter()
                .fold(0u64, |acc, &c| acc | board.masks[c])
                & !pattern.pair;
            if n > 2 || extras.count_ones() == 1 {
                if let Some(found) = type2(board, pattern, &extra_cells, base) {
                    consider(found.resting_on(support), 2);
                }
            } else {
                type3(
                    board,
                    pattern,
                    extra_cells[0],
                    extra_cells[1],
                    extras,
                    &mut *consider,
                );
            }
            if n == 2
                && let Some(found) = type4(board, pattern, extra_cells[0], extra_cells[1], base)
            {
                consider(found.resting_on(support), 4);
            }
        }
    }
}

fn type2(
    board: &Candidates,
    pattern: &Loop<'_>,
    extra_cells: &[usize],
    tenths: u16,
) -> Option<Found> {
    let value = (board.masks[extra_cells[0]] & !pattern.pair).trailing_zeros() as u8 + 1;
    let bit = 1u64 << (value - 1);
    let elims: Vec<(u16, u8)> = (0..board.masks.len())
        .filter(|&c| {
            board.masks[c] & bit != 0
                && !extra_cells.contains(&c)
                && extra_cells.iter().all(|&e| board.layout.sees(c, e))
        })
        .map(|c| (c as u16, value))
        .collect();
    if elims.is_empty() {
        return None;
    }
    let text = || {
        format!(
            "{} on {}: one of {} must be {}, so it is removed from the cells that see them all",
            board.cell_names(pattern.cells.iter().copied()),
            digit_names(pattern.pair),
            board.cell_names(extra_cells.iter().copied()),
            digit_char(value)
        )
    };
    Some(Found::removing(Technique::UniqueRectangle2, tenths, elims).saying(text))
}

fn shared(board: &Candidates, a: usize, b: usize) -> impl Iterator<Item = usize> + '_ {
    REGION_SLOTS
        .into_iter()
        .filter(move |&k| board.layout.cell_houses[a][k] == board.layout.cell_houses[b][k])
        .map(move |k| board.layout.cell_houses[a][k] as usize)
}

fn type4(
    board: &Candidates,
    pattern: &Loop<'_>,
    c1: usize,
    c2: usize,
    tenths: u16,
) -> Option<Found> {
    let digits: Vec<u64> = bits(pattern.pair).map(|d| 1u64 << d).collect();
    let (mut lock1, mut lock2) = (None, None);
    for house in shared(board, c1, c2) {
        let elsewhere = |bit: u64| {
            board.layout.houses[house].iter().any(|&c| {
                c as usize != c1 && c as usize != c2 && board.masks[c as usize] & bit != 0
            })
        };
        if !elsewhere(digits[0]) {
            lock1 = Some(house);
        }
        if !elsewhere(digits[1]) {
            lock2 = Some(house);
        }
    }
    let (house, lock, gone) = match (lock1, lock2) {
        (Some(h), _) => (h, digits[0], digits[1]),
        (None, Some(h)) => (h, digits[1], digits[0]),
        _ => return None,
    };
    let elims = candidates_of(board, [c1, c2], gone);
    let text = || {
        format!(
            "{} on {}: in {}, digit {} must go in {} or {}, so digit {} is removed from them",
            board.cell_names(pattern.cells.iter().copied()),
            digit_names(pattern.pair),
            board.house_name(house),
            digit_names(lock),
            board.cell_name(c1),
            board.cell_name(c2),
            digit_names(gone)
        )
    };
    Some(Found::removing(Technique::UniqueRectangle4, tenths, elims).saying(text))
}

/// Type 3: the extra digits of the two extra cells, as one pseudo-cell, form a naked set with
/// other cells of a shared house, or the pair digits a hidden set; rated the loop's rating
/// plus 0.1 per set digit beyond one.
fn type3(
    board: &Candidates,
    pattern: &Loop<'_>,
    c1: usize,
    c2: usize,
    extras: u64,
    consider: &mut impl FnMut(Found, u8),
) {
    let base = pattern.tenths();
    let side = board.side();
    for degree in extras.count_ones() as usize..=side.saturating_sub(2) {
        for house in shared(board, c1, c2) {
            let cells = &board.layout.houses[house];
            let empty = cells
                .iter()
                .filter(|&&c| board.values[c as usize] == 0)
                .count();
            let tenths = base + degree as u16 - 1;
            if degree * 2 <= empty {
                let others: Vec<(usize, u64)> = cells
                    .iter()
                    .map(|&c| (c as usize, board.masks[c as usize]))
                    .filter(|&(c, m)| c != c1 && c != c2 && m != 0)
                    .collect();
                let common_extra = extras & board.masks[c1] & board.masks[c2];
                combos_within(
                    &others,
                    degree - 1,
                    degree as u32,
                    &mut |chosen, union| -> Option<()> {
                        let set = union | extras;
                        if (union | common_extra).count_ones() as usize != degree
                            || set.count_ones() as usize != degree
                        {
                            return None;
                        }
                        let members: Vec<usize> = bits(chosen).map(|i| others[i].0).collect();
                        let rest = others
                            .iter()
                            .map(|&(c, _)| c)
                            .filter(|c| !members.contains(c));
                        let elims = candidates_of(board, rest, set);
                        if !elims.is_empty() {
                            let text = || {
                                format!(
                                    "{} on {}: {} or {} holds one of {}, which with {} forms a naked set in {}, so {} is removed from its other cells",
                                    board.cell_names(pattern.cells.iter().copied()),
                                    digit_names(pattern.pair),
                                    board.cell_name(c1),
                                    board.cell_name(c2),
                                    digit_names(extras),
                                    board.cell_names(members.iter().copied()),
                                    board.house_name(house),
                                    digit_names(set)
                                )
                            };
                            consider(
                                Found::removing(Technique::UniqueRectangle3, tenths, elims)
                                    .saying(text),
                                3,
                            );
                        }
                        None
                    },
                );
            }
            if degree * 2 < empty && degree >= 2 {
                hidden_type3(
                    board, pattern, c1, c2, extras, house, degree, tenths, consider,
                );
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn hidden_type3(
    board: &Candidates,
    pattern: &Loop<'_>,
    c1: usize,
    c2: usize,
    extras: u64,
    house: usize,
    degree: usize,
    tenths: u16,
    consider: &mut impl FnMut(Found, u8),
) {
    let side = board.side();
    let cells = &board.layout.houses[house];
    let index2 = cells
        .iter()
        .position(|&c| c as usize == c2)
        .unwrap_or(usize::MAX);
    // The places of each digit in the house, c2 aside (read once, not per combination).
    let mut places = [0u64; 64];
    for (i, &c) in cells.iter().enumerate() {
        if i != index2 {
            for d in bits(board.masks[c as usize]) {
                places[d] |= 1 << i;
            }
        }
    }
    // Only digits still open in the house can be part of a hidden set.
    let rem: Vec<(usize, u64)> = bits(((1u64 << side) - 1) & !pattern.pair & !extras)
        .filter(|&d| places[d] != 0)
        .map(|d| (d, 1u64 << d))
        .collect();
    let pair_pos = bits(pattern.pair).fold(0, |acc, d| acc | places[d]);
    combos(&rem, degree - 2, &mut |_, digits| -> Option<()> {
        let union = bits(digits).fold(pair_pos, |acc, d| acc | places[d]);
        if union.count_ones() as usize != degree {
            return None;
        }
        let hidden = digits | pattern.pair;
        let members: Vec<usize> = bits(union)
            .map(|i| cells[i] as usize)
            .filter(|&c| c != c1 && c != c2)
            .collect();
        let elims = candidates_of(board, members.iter().copied(), !hidden);
        if !elims.is_empty() {
            let text = || {
                format!(
                    "{} on {}: {} or {} holds one of {}, so in {} the digits {} fill {} with one of them, and other digits are removed from those cells",
                    board.cell_names(pattern.cells.iter().copied()),
                    digit_names(pattern.pair),
                    board.cell_name(c1),
                    board.cell_name(c2),
                    digit_names(extras),
                    board.house_name(house),
                    digit_names(hidden),
                    board.cell_names(members.iter().copied())
                )
            };
            consider(
                Found::removing(Technique::UniqueRectangle3, tenths, elims).saying(text),
                3,
            );
        }
        None
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::engine;

    #[test]
    fn walks_among_cells_that_may_be_on_a_loop_find_the_loops_of_full_walks() {
        let (mut loops, mut cut) = (0, 0);
        for puzzle in engine::SOLVE_PATH_PUZZLES {
            engine::each_board(puzzle, |b| {
                let mut pairs: Vec<u64> = b.masks.clone();
                pairs.retain(|m| m.count_ones() == 2);
                pairs.sort_unstable();
                pairs.dedup();
                for pair in pairs {
                    let mut full = Walk::new(b, false);
                    full.cut_lone = false;
                    let every = full.pair_loops(pair);
                    let mut walk = Walk::new(b, false);
                    let found = walk.pair_loops(pair);
                    loops += every.len();
                    cut += full.members.cells.len() - walk.members.cells.len();
                    assert_eq!(found, every);
                }
            });
        }
        assert!(
            loops > 20 && cut > 1000,
            "{loops} loops, {cut} cells left out"
        );
    }

    #[test]
    fn walks_passing_over_earlier_starts_find_the_same_step() {
        // Puzzles whose solves meet unique rectangles of types 1 to 4 (SE 5.6 - 6.0).
        let mut met = 0;
        for puzzle in [
            "....3....8.1...6.246.....95...748.............9.....1...6...5....2.8.7...4.317.6.",
            "..54821............8.9.7.2...8...5.....7.5...3.6...4.22.......78.9...2.1..71.38..",
            "4...........146.2......8.6.3..97...885.3.4.919...15..4.9.5......4.687...........3",
            "............635....51...97.52.....34.8.....6...3...1..7...9...63..287..1..51.43..",
            ".7.4.2.9...23.76............39...58....541.............2879345..1.....7.4...5...2",
            ".96...3...5.....263..76...5....8.9....51.37....9.2....9...76..387.....6...3...28.",
        ] {
            engine::each_board(puzzle, |b| {
                let every = best_loop(b, false).map(|f| f.to_step(b));
                met += usize::from(every.is_some());
                assert_eq!(best_loop(b, true).map(|f| f.to_step(b)), every);
            });
        }
        assert!(met > 10, "{met} boards with a loop step");
    }
}
