//! Turbot fish, as Sukaku Explainer rates them: Skyscraper (4.0), 2-String Kite (4.1), and
//! Turbot Fish / Empty Rectangle (4.2); two strong links of one digit joined by a weak link.

use std::rc::Rc;

use super::per_digit;
use crate::logic::board::{Candidates, bits, digit_char};
use crate::logic::step::{Found, Technique};

/// Region kinds in SE's numbering: 0 box, 1 row, 2 column.
fn first_house(side: usize, kind: usize) -> usize {
    match kind {
        0 => 2 * side,
        1 => 0,
        _ => side,
    }
}

/// The best step so far with SE's sort key (rating, then more eliminations first).
#[derive(Clone)]
struct Best {
    found: Found,
    removed: usize,
}

/// Whether a step of `tenths` removing `removed` candidates would replace `best` (a tie keeps
/// the earlier one, in search order).
fn beats(best: &Option<Best>, tenths: u16, removed: usize) -> bool {
    best.as_ref().is_none_or(|b| {
        (tenths, std::cmp::Reverse(removed)) < (b.found.tenths, std::cmp::Reverse(b.removed))
    })
}

/// The turbot-fish step SE would pick: all are gathered, the lowest rating with the most
/// eliminations wins, ties in search order.
pub(crate) fn turbot_fish(board: &Candidates) -> Option<Found> {
    // Each digit's best of each kind (kept per digit, shared: copying them out of the keep was
    // a third of the search), then the best of them in SE's order: kinds first, then digits.
    let per_digit: Vec<Rc<[Option<Best>; KINDS.len()]>> = (0..board.side())
        .map(|d| {
            per_digit::cached(per_digit::Search::Turbot, board, d, || {
                Rc::new(kinds(board, d))
            })
        })
        .collect();
    let mut best: Option<Best> = None;
    for k in 0..KINDS.len() {
        for found in per_digit.iter().filter_map(|kinds| kinds[k].as_ref()) {
            if beats(&best, found.found.tenths, found.removed) {
                best = Some(found.clone());
            }
        }
    }
    best.map(|b| b.found)
}

/// SE's order of the (base, cover) region kinds of the two links.
const KINDS: [(usize, usize); 5] = [(1, 1), (2, 2), (2, 1), (1, 0), (2, 0)];

/// The best step of digit index `d` for each pair of [`KINDS`].
fn kinds(board: &Candidates, d: usize) -> [Option<Best>; KINDS.len()] {
    KINDS.map(|(base, cover)| {
        let mut best = None;
        search(board, d, (base, cover), &mut best);
        best
    })
}

/// The cells of a house holding the digit of `bit`, when there are at most six (the searches
/// look at no more), listed on the stack.
fn positions_list(board: &Candidates, house: usize, bit: u64) -> ([usize; 6], usize) {
    let digit = bit.trailing_zeros() as u8 + 1;
    let mut out = [0; 6];
    let mut n = 0;
    for (slot, i) in out.iter_mut().zip(bits(board.positions(house, digit))) {
        *slot = board.layout.houses[house][i] as usize;
        n += 1;
    }
    (out, n)
}

/// The house two cells share, looked for as column, row, then box (SE's order).
fn shared_house(board: &Candidates, a: usize, b: usize) -> Option<usize> {
    let (ha, hb) = (board.layout.cell_houses[a], board.layout.cell_houses[b]);
    [1, 0, 2]
        .into_iter()
        .find(|&k| ha[k] == hb[k])
        .map(|k| ha[k] as usize)
}

/// Places of `digit` joined by strong and weak links in turn, the first strong, in Eureka
/// notation: `(4)r1c2=(4)r1c7-(4)r5c7=(4)r5c3`.
pub(crate) fn eureka(board: &Candidates, digit: u8, cells: &[usize]) -> String {
    let mut out = String::new();
    for (i, &c) in cells.iter().enumerate() {
        if i > 0 {
            out.push(if i % 2 == 1 { '=' } else { '-' });
        }
        out.push_str(&format!("({}){}", digit_char(digit), board.cell_name(c)));
    }
    out
}

/// The heart of an empty rectangle: a box cell whose row and column hold all the box's
/// places for the digit.
fn heart(board: &Candidates, block: usize, places: &[usize]) -> Option<usize> {
    let layout = &board.layout;
    layout.houses[block].iter().map(|&c| c as usize).find(|&e| {
        places
            .iter()
            .all(|&p| layout.row(p) == layout.row(e) || layout.col(p) == layout.col(e))
    })
}

/// The best pattern of digit index `d` whose links lie in houses of kinds `base`, `cover`.
fn search(board: &Candidates, d: usize, (base, cover): (usize, usize), best: &mut Option<Best>) {
    let side = board.side();
    let layout = &board.layout;
    let (base0, cover0) = (first_house(side, base), first_house(side, cover));
    let bit = 1u64 << d;
    let is_base = |i1: usize| board.positions(base0 + i1, d as u8 + 1).count_ones() == 2;
    if !(0..side).any(is_base) {
        return;
    }
    let covers = covers(board, d, cover);
    for i1 in (0..side).filter(|&i1| is_base(i1)) {
        let base_house = base0 + i1;
        let (bp, _) = positions_list(board, base_house, bit);
        let start2 = if base == cover { i1 + 1 } else { 0 };
        for &(i2, ends, empty_rect) in covers.iter().filter(|c| c.0 >= start2) {
            let cover_house = cover0 + i2;
            let cells = [bp[0], bp[1], ends[0], ends[1]];
            let distinct = if empty_rect {
                cells[0] != cells[2] && cells[1] != cells[2]
            } else {
                (0..4).all(|i| (i + 1..4).all(|j| cells[i] != cells[j]))
            };
            if !distinct {
                continue;
            }
            if empty_rect
                && (layout.cell_houses[cells[0]][2] == layout.cell_houses[cells[2]][2]
                    || layout.cell_houses[cells[1]][2] == layout.cell_houses[cells[2]][2])
            {
                continue;
            }
            let pattern = Pattern {
                digit: d as u8 + 1,
                kinds: (base, cover),
                houses: (base_house, cover_house),
                empty_rect,
                cells,
            };
            pattern.steps(board, best);
        }
    }
}

/// The houses of kind `cover` that may end a pattern of digit index `d`, in order: their
/// index, the link's two cells (an empty rectangle's heart twice), and whether it is one;
/// found once for every base house.
fn covers(board: &Candidates, d: usize, cover: usize) -> Vec<(usize, [usize; 2], bool)> {
    let side = board.side();
    let cover0 = first_house(side, cover);
    let bit = 1u64 << d;
    let mut out = Vec::with_capacity(side);
    for i2 in 0..side {
        let cover_house = cover0 + i2;
        let count = board.positions(cover_house, d as u8 + 1).count_ones();
        if count != 2 && !(cover == 0 && (3..6).contains(&count)) {
            continue;
        }
        let (cp, n) = positions_list(board, cover_house, bit);
        let cp = &cp[..n];
        let empty_rect = cover == 0 && (3..6).contains(&cp.len());
        let ends: [usize; 2] = if cp.len() == 2 {
            [cp[0], cp[1]]
        } else if empty_rect {
            match heart(board, cover_house, cp) {
                Some(e) => [e, e],
                None => continue,
            }
        } else {
            continue;
        };
        out.push((i2, ends, empty_rect));
    }
    out
}

/// Two strong links of one digit (or one and an empty rectangle) found by [`search`].
struct Pattern {
    digit: u8,
    /// SE's region kinds of the base and cover houses.
    kinds: (usize, usize),
    houses: (usize, usize),
    empty_rect: bool,
    /// Base link cells, then cover link cells (the heart twice for an empty rectangle).
    cells: [usize; 4],
}

impl Pattern {
    /// Every orientation of the two links joined by a weak link in a third house.
    fn steps(&self, board: &Candidates, best: &mut Option<Best>) {
        let layout = &board.layout;
        let (base_house, cover_house) = self.houses;
        let cells = self.cells;
        for i in 0..2 {
            let last = if self.empty_rect { 3 } else { 4 };
            for j in 2..last {
                let (start, bridge1, bridge2, end) =
                    (cells[i], cells[1 - i], cells[j], cells[5 - j]);
                let Some(share) = shared_house(board, bridge1, bridge2) else {
                    continue;
                };
                if share == base_house || share == cover_house {
                    continue;
                }
                let in_pattern = |c: usize| {
                    self.empty_rect
                        && (layout.cell_houses[c].contains(&(cover_house as u16))
                            || layout.cell_houses[c].contains(&(base_house as u16)))
                };
                let elims = self.victims(board, start, end, in_pattern);
                if elims.is_empty() {
                    continue;
                }
                let (name, tenths) = match (self.kinds, self.empty_rect) {
                    (_, true) => ("Empty rectangle", 43),
                    ((1, 1), _) | ((2, 2), _) => ("Skyscraper", 40),
                    ((2, 1), _) | ((1, 2), _) => ("2-String Kite", 41),
                    _ => ("Turbot fish", 42),
                };
                // Only a step that wins is worth its sentence.
                if !beats(best, tenths, elims.len()) {
                    continue;
                }
                let removed = elims.len();
                let support = || {
                    [start, bridge1, bridge2, end]
                        .map(|c| (c as u16, self.digit))
                        .to_vec()
                };
                let text = || {
                    let digit = digit_char(self.digit);
                    if self.empty_rect {
                        return format!(
                            "digit {digit}: {} is a strong link in {}, and in {} the digit lies only in the row and column through {} (an empty rectangle), so it is removed from the cells outside them that see both {} and {}",
                            eureka(board, self.digit, &[start, bridge1]),
                            board.house_name(base_house),
                            board.house_name(cover_house),
                            board.cell_name(bridge2),
                            board.cell_name(start),
                            board.cell_name(end),
                        );
                    }
                    format!(
                        "digit {digit}: {} (strong links in {} and {}, weak link in {}), so {} or {} holds it and it is removed from the cells that see both",
                        eureka(board, self.digit, &[start, bridge1, bridge2, end]),
                        board.house_name(base_house),
                        board.house_name(cover_house),
                        board.house_name(share),
                        board.cell_name(start),
                        board.cell_name(end),
                    )
                };
                let found = Found::removing(Technique::TurbotFish(name), tenths, elims)
                    .resting_on(support)
                    .saying(text);
                *best = Some(Best { found, removed });
            }
        }
    }

    /// The cells holding the digit that see both `start` and `end`, outside the pattern.
    fn victims(
        &self,
        board: &Candidates,
        start: usize,
        end: usize,
        in_pattern: impl Fn(usize) -> bool,
    ) -> Vec<(u16, u8)> {
        let bit = 1u64 << (self.digit - 1);
        board
            .seeing_both(start, end, bit)
            .filter(|&c| !in_pattern(c))
            .map(|c| (c as u16, self.digit))
            .collect()
    }
}
