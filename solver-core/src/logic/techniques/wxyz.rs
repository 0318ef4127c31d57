//! WXYZ-Wing as Sukaku Explainer rates it (5.5, or 5.6 when the largest cell of the set has
//! three candidates): three cells that see each other hold four digits between them (an
//! almost locked set), and a bivalue cell xz links to it.

use super::house_memo::{self, Narrowing, WORDS};
use crate::logic::board::{Candidates, bits, digit_names};
use crate::logic::step::{Found, Technique};

/// The WXYZ-Wing SE would pick: lowest rating, then most eliminations.
///
/// The board a search last found nothing on is kept: while cells have only lost candidates
/// since, a wing of cells that all kept theirs removes no more than it did then (nothing), so
/// only wings through a changed cell are looked at; the first best of those is the search's.
pub(crate) fn wxyz_wing(board: &Candidates) -> Option<Found> {
    let changed = house_memo::changed_since_nothing(Narrowing::Wxyz, board);
    let changed = changed.as_ref();
    let found = match board.masks.len().div_ceil(64) {
        ..=2 => search::<2>(board, changed),
        3..=4 => search::<4>(board, changed),
        5..=10 => search::<10>(board, changed),
        _ => search::<WORDS>(board, changed),
    };
    if found.is_none() {
        house_memo::found_nothing(Narrowing::Wxyz, board);
    }
    found
}

/// The cells changed since the search that found nothing (`since`), and those with the cells
/// that see a changed bivalue cell (a wing must hold one of these): every cell without it.
fn changes<const W: usize>(
    board: &Candidates,
    since: Option<&[u64; WORDS]>,
    pair_set: &Cells<W>,
) -> (Cells<W>, Cells<W>) {
    let Some(since) = since else {
        return ([u64::MAX; W], [u64::MAX; W]);
    };
    let mut changed = [0; W];
    changed.copy_from_slice(&since[..W]);
    let mut hot = changed;
    let mut changed_pairs = changed;
    for (w, p) in changed_pairs.iter_mut().zip(pair_set) {
        *w &= p;
    }
    for y in cells_of(&changed_pairs) {
        for (h, p) in hot.iter_mut().zip(&board.layout.peers[y]) {
            *h |= p;
        }
    }
    (changed, hot)
}

fn has<const W: usize>(set: &Cells<W>, cell: usize) -> bool {
    set[cell / 64] >> (cell % 64) & 1 != 0
}

/// [`wxyz_wing`] with cell sets of `W` words, looking only at wings through a cell changed
/// since the last search found nothing (`since`, when given).
fn search<const W: usize>(board: &Candidates, since: Option<&[u64; WORDS]>) -> Option<Found> {
    let n = board.masks.len();
    let layout = &board.layout;
    let mut best: Option<(u16, usize, Found)> = None;
    let width = |m: u64| m.count_ones();
    // Set cells hold 2 to 4 candidates; the linked cell holds 2.
    let mut small_set: Cells<W> = [0; W];
    let mut pair_set: Cells<W> = [0; W];
    for c in 0..n {
        let w = width(board.masks[c]);
        if (2..=4).contains(&w) {
            small_set[c / 64] |= 1 << (c % 64);
        }
        if w == 2 {
            pair_set[c / 64] |= 1 << (c % 64);
        }
    }
    let (changed, hot) = changes(board, since, &pair_set);
    // The set cells see each other: each next one is looked for among the later peers of
    // those before it (a cell set, read in cell order).
    for a in cells_of(&small_set) {
        let ma = board.masks[a];
        let with_a = later(a, &small_set, &layout.peers[a]);
        let a_hot = has(&hot, a);
        if !a_hot && with_a.iter().zip(&hot).all(|(w, h)| w & h == 0) {
            continue;
        }
        for b in cells_of(&with_a) {
            let mb = board.masks[b];
            if width(ma | mb) > 4 {
                continue;
            }
            let mut with_b = later(b, &with_a, &layout.peers[b]);
            if !a_hot && !has(&hot, b) {
                for (w, h) in with_b.iter_mut().zip(&hot) {
                    *w &= h;
                }
            }
            for c in cells_of(&with_b) {
                let mc = board.masks[c];
                let digits = ma | mb | mc;
                if width(digits) != 4 {
                    continue;
                }
                let set = [a, b, c];
                let biggest = width(ma).max(width(mb)).max(width(mc));
                let tenths = if biggest == 3 { 56 } else { 55 };
                // The bivalue cells that see a set cell, in cell order: read off peer sets
                // once per set rather than tested one by one over every bivalue cell; only
                // changed ones when the set cells are as they were.
                let fresh = set.iter().any(|&s| has(&changed, s));
                let mut linked: Cells<W> = [0; W];
                for (w, word) in linked.iter_mut().enumerate().take(n.div_ceil(64)) {
                    let seen = set.iter().fold(0, |m, &s| m | layout.peers[s][w]);
                    *word = pair_set[w] & seen & if fresh { u64::MAX } else { changed[w] };
                }
                for y in cells_of(&linked) {
                    let my = board.masks[y];
                    if my & digits != my || set.contains(&y) {
                        continue;
                    }
                    let Some(elims) = eliminations(board, &set, y, digits) else {
                        continue;
                    };
                    let removed = elims.len();
                    if best.as_ref().is_some_and(|(t, r, _)| {
                        (tenths, std::cmp::Reverse(removed)) >= (*t, std::cmp::Reverse(*r))
                    }) {
                        continue;
                    }
                    best = Some((tenths, removed, wing(board, set, y, digits, tenths, elims)));
                }
            }
        }
    }
    best.map(|(_, _, f)| f)
}

/// The step of the wing with set `set` and bivalue cell `y`.
fn wing(
    board: &Candidates,
    set: [usize; 3],
    y: usize,
    digits: u64,
    tenths: u16,
    elims: Vec<(u16, u8)>,
) -> Found {
    let my = board.masks[y];
    let text = || {
        format!(
            "{} hold only {} and {} holds {}; one of their shared digits must be in the set, so the other is in it or in {}, and is removed from the cells that see them",
            board.cell_names(set),
            digit_names(digits),
            board.cell_name(y),
            digit_names(my),
            board.cell_name(y)
        )
    };
    let [a, b, c] = set;
    let support = || crate::logic::step::candidates_of(board, [a, b, c, y], u64::MAX);
    Found::removing(Technique::WxyzWing, tenths, elims)
        .resting_on(support)
        .saying(text)
}

/// A set of cells, bit c % 64 of word c / 64 (on the stack: the search makes one per pair),
/// `W` words: the fewest of 2, 4, 10 and all that hold the board's cells.
type Cells<const W: usize> = [u64; W];

/// The cells of `among` that are peers of `cell` (`peers`) and come after it.
fn later<const W: usize>(cell: usize, among: &Cells<W>, peers: &[u64]) -> Cells<W> {
    let mut set = [0; W];
    for (w, (word, p)) in set.iter_mut().zip(peers).enumerate() {
        let keep = match w.cmp(&(cell / 64)) {
            std::cmp::Ordering::Less => 0,
            std::cmp::Ordering::Equal => !(u64::MAX >> (63 - cell % 64)),
            std::cmp::Ordering::Greater => u64::MAX,
        };
        *word = among[w] & p & keep;
    }
    set
}

/// The cells of a cell set, lowest first.
fn cells_of(set: &[u64]) -> impl Iterator<Item = usize> + '_ {
    set.iter().enumerate().flat_map(|(w, &word)| {
        let mut m = word;
        std::iter::from_fn(move || {
            (m != 0).then(|| {
                let c = w * 64 + m.trailing_zeros() as usize;
                m &= m - 1;
                c
            })
        })
    })
}

/// Cells outside `all` that hold `digit` and see all of `cells` that hold it.
fn seeing_all_holders(
    board: &Candidates,
    (cells, all): (&[usize], &[usize]),
    digit: usize,
    out: &mut Vec<(u16, u8)>,
) {
    let bit = 1u64 << digit;
    let n = board.masks.len();
    let holders = cells.iter().filter(|&&c| board.masks[c] & bit != 0);
    // Peer sets leave out the cell itself, so no holder sees itself (as `sees` has it).
    for w in 0..n.div_ceil(64) {
        let mut m = holders
            .clone()
            .fold(u64::MAX, |m, &h| m & board.layout.peers[h][w]);
        while m != 0 {
            let v = w * 64 + m.trailing_zeros() as usize;
            m &= m - 1;
            if v >= n {
                break;
            }
            if board.masks[v] & bit != 0
                && !all.contains(&v)
                && !out.contains(&(v as u16, digit as u8 + 1))
            {
                out.push((v as u16, digit as u8 + 1));
            }
        }
    }
}

/// The removals of the wing with set `set` and bivalue cell `y`, if any.
fn eliminations(
    board: &Candidates,
    set: &[usize; 3],
    y: usize,
    digits: u64,
) -> Option<Vec<(u16, u8)>> {
    let my = board.masks[y];
    // The restricted common digits: every set cell holding one sees y.
    let restricted = bits(my)
        .filter(|&d| {
            set.iter()
                .all(|&s| board.masks[s] & 1 << d == 0 || board.layout.sees(s, y))
        })
        .fold(0u64, |m, d| m | 1 << d);
    let all = [set[0], set[1], set[2], y];
    let mut elims = Vec::new();
    match restricted.count_ones() {
        1 => {
            let z = bits(my & !restricted).next()?;
            seeing_all_holders(board, (&all, &all), z, &mut elims);
        }
        2 => {
            // Doubly linked: the four cells lock all four digits.
            for d in bits(digits) {
                let cells: &[usize] = if my & 1 << d != 0 { &all } else { set };
                seeing_all_holders(board, (cells, &all), d, &mut elims);
            }
        }
        _ => return None,
    }
    (!elims.is_empty()).then_some(elims)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::engine;

    #[test]
    fn searches_after_one_that_found_nothing_find_what_a_full_search_finds() {
        // Solves that fail at WXYZ-Wings many times and meet some (SE 5.5 - 8.x).
        let mut met = 0;
        let mut narrowed = 0;
        for puzzle in [
            "......89.....6...33.....671.2.58.36....9.1....74.26.8.496.....78...3.....35......",
            ".....24.3..17..59.4.8.9.2...6.........38251.........3...7.1.3.4.54..96..1.64.....",
            "...3.57..38..19....5.....1.5.19..4...7.....9...9..85.2.9.....6....64..27..68.7...",
            "..65.91....52.36......7.....8..5..1............97.24..4...2...9.1..9..8.3.78.45.1",
            "....5....5..7.6..3...4.9...37..9..82.8.....3.2.......7..4...2....53.19..6...7...1",
        ] {
            engine::each_board(puzzle, |b| {
                narrowed += usize::from(
                    house_memo::changed_since_nothing(Narrowing::Wxyz, b)
                        .is_some_and(|c| c.iter().any(|&w| w != 0)),
                );
                let full = search::<WORDS>(b, None).map(|f| f.to_step(b));
                met += usize::from(full.is_some());
                assert_eq!(wxyz_wing(b).map(|f| f.to_step(b)), full);
            });
        }
        assert!(
            met > 20 && narrowed > 100,
            "{met} wings, {narrowed} narrowed searches"
        );
    }
}
