//! WXYZ-Wing as Sukaku Explainer rates it (5.5, or 5.6 when the largest cell of the set has
//! three candidates): three cells that see each other hold four digits between them (an
//! almost locked set), and a bivalue cell xz links to it.

use super::board::{Candidates, bits, digit_names};
use super::step::{Found, Technique};

/// The WXYZ-Wing SE would pick: lowest rating, then most eliminations.
pub(crate) fn wxyz_wing(board: &Candidates) -> Option<Found> {
    let n = board.masks.len();
    let layout = &board.layout;
    let mut best: Option<(u16, usize, Found)> = None;
    let width = |m: u64| m.count_ones();
    // Set cells hold 2 to 4 candidates; the linked cell holds 2.
    let small: Vec<usize> = (0..n)
        .filter(|&c| (2..=4).contains(&width(board.masks[c])))
        .collect();
    // The set cells see each other: each next one is looked for among the later peers of
    // those before it (a cell set, read in cell order: the order of `small`).
    let mut small_set: Cells = [0; WORDS];
    for &c in &small {
        small_set[c / 64] |= 1 << (c % 64);
    }
    let mut pair_set: Cells = [0; WORDS];
    for &c in small.iter().filter(|&&c| width(board.masks[c]) == 2) {
        pair_set[c / 64] |= 1 << (c % 64);
    }
    let words = n.div_ceil(64);
    for &a in &small {
        let ma = board.masks[a];
        let with_a = later(a, &small_set, &layout.peers[a]);
        for b in cells_of(&with_a[..words]) {
            let mb = board.masks[b];
            if width(ma | mb) > 4 {
                continue;
            }
            for c in cells_of(&later(b, &with_a, &layout.peers[b])[..words]) {
                let mc = board.masks[c];
                let digits = ma | mb | mc;
                if width(digits) != 4 {
                    continue;
                }
                let set = [a, b, c];
                let biggest = width(ma).max(width(mb)).max(width(mc));
                let tenths = if biggest == 3 { 56 } else { 55 };
                // The bivalue cells that see a set cell, in cell order: read off peer sets
                // once per set rather than tested one by one over every bivalue cell.
                let mut linked: Cells = [0; WORDS];
                for (w, word) in linked.iter_mut().enumerate().take(words) {
                    *word = pair_set[w] & set.iter().fold(0, |m, &s| m | layout.peers[s][w]);
                }
                for y in cells_of(&linked[..words]) {
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
                    let text = || {
                        format!(
                            "{} hold only {} and {} holds {}; one of their shared digits must be in the set, so the other is in it or in {}, and leaves the cells that see them",
                            board.cell_names(set),
                            digit_names(digits),
                            board.cell_name(y),
                            digit_names(my),
                            board.cell_name(y)
                        )
                    };
                    let support = || super::step::candidates_of(board, [a, b, c, y], u64::MAX);
                    let found = Found::removing(Technique::WxyzWing, tenths, elims)
                        .resting_on(support)
                        .saying(text);
                    best = Some((tenths, removed, found));
                }
            }
        }
    }
    best.map(|(_, _, f)| f)
}

/// Words of a cell set: enough for the largest grid (35 × 35 cells).
const WORDS: usize = (crate::Shape::MAX_SIDE * crate::Shape::MAX_SIDE).div_ceil(64);

/// A set of cells, bit c % 64 of word c / 64 (on the stack: the search makes one per pair).
type Cells = [u64; WORDS];

/// The cells of `among` that are peers of `cell` (`peers`) and come after it.
fn later(cell: usize, among: &Cells, peers: &[u64]) -> Cells {
    let mut set = [0; WORDS];
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

/// Cells outside the pattern that hold `digit` and see all of `cells` that hold it.
fn seeing_all_holders(board: &Candidates, cells: &[usize], digit: usize, out: &mut Vec<(u16, u8)>) {
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
                && !cells.contains(&v)
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
    // A restricted common digit: every set cell holding it sees y.
    let restricted: Vec<usize> = bits(my)
        .filter(|&d| {
            set.iter()
                .all(|&s| board.masks[s] & 1 << d == 0 || board.layout.sees(s, y))
        })
        .collect();
    let all = [set[0], set[1], set[2], y];
    let mut elims = Vec::new();
    match restricted.as_slice() {
        [x] => {
            let z = bits(my).find(|d| d != x)?;
            seeing_all_holders(board, &all, z, &mut elims);
        }
        [_, _] => {
            // Doubly linked: the four cells lock all four digits.
            for d in bits(digits) {
                let cells: &[usize] = if my & 1 << d != 0 { &all } else { set };
                let mut found = Vec::new();
                seeing_all_holders(board, cells, d, &mut found);
                elims.extend(
                    found
                        .into_iter()
                        .filter(|&(c, _)| !all.contains(&(c as usize))),
                );
            }
        }
        _ => return None,
    }
    (!elims.is_empty()).then_some(elims)
}
