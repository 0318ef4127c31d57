//! Aligned pair exclusion: two cells that see each other cannot take a pair of digits that
//! would empty a common peer (a cell holding only those digits) or repeat a digit.

use super::deduction::{self, Deduction};
use super::rating;
use super::state::{State, cells, tables};

/// SE's name.
const NAME: &str = "Aligned pair exclusion";

/// The first aligned pair exclusion on the board.
pub(crate) fn aligned_pair(s: &State) -> Option<Deduction> {
    let t = tables();
    let open = s.open();
    for a in cells(open) {
        for b in cells(open & !((1u128 << (a + 1)) - 1)) {
            let sees = t.peers[a] >> b & 1 != 0;
            let common = t.peers[a] & t.peers[b] & open;
            if common.count_ones() < 2 {
                continue;
            }
            // Peers of both cells with two candidates exclude exactly that pair.
            let pairs: Vec<u16> = cells(common)
                .map(|c| s.digits(c))
                .filter(|m| m.count_ones() == 2)
                .collect();
            let allowed =
                |x: usize, y: usize| (x != y || !sees) && !pairs.contains(&(1 << x | 1 << y));
            let (ma, mb) = (s.digits(a), s.digits(b));
            let mut elims = Vec::new();
            for (cell, mine, theirs, first) in [(a, ma, mb, true), (b, mb, ma, false)] {
                for x in bits9(mine) {
                    let ok =
                        bits9(theirs).any(|y| if first { allowed(x, y) } else { allowed(y, x) });
                    if !ok {
                        elims.push((cell as u16, x as u8 + 1));
                    }
                }
            }
            if elims.is_empty() {
                continue;
            }
            let mut found = Deduction::setting(NAME, rating::ALIGNED_PAIR, a, 0, false);
            found.text = format!(
                "{NAME}: every pair of digits left for r{}c{} and r{}c{} would repeat a digit or empty a cell that sees both, so {}",
                a / 9 + 1,
                a % 9 + 1,
                b / 9 + 1,
                b % 9 + 1,
                deduction::removals(&elims)
            );
            found.eliminations = elims;
            found.support = [a, b]
                .iter()
                .flat_map(|&c| bits9(s.digits(c)).map(move |d| (c as u16, d as u8 + 1)))
                .collect();
            return Some(found);
        }
    }
    None
}

/// Digit indices of a cell mask.
fn bits9(m: u16) -> impl Iterator<Item = usize> {
    (0..9).filter(move |d| m >> d & 1 != 0)
}

/// SE's name for three cells.
const TRIPLE: &str = "Aligned triplet exclusion";

/// The first aligned triplet exclusion: three cells with common peers, each of whose
/// candidates is in no combination of digits that the three cells could take together.
pub(crate) fn aligned_triple(s: &State) -> Option<Deduction> {
    let t = tables();
    let open = s.open();
    let base: Vec<usize> = cells(open)
        .filter(|&c| s.digits(c).count_ones() >= 2)
        .collect();
    for (i, &a) in base.iter().enumerate() {
        for (j, &b) in base.iter().enumerate().skip(i + 1) {
            let ab = t.peers[a] & t.peers[b] & open;
            if ab == 0 {
                continue;
            }
            for &c in &base[j + 1..] {
                let common = ab & t.peers[c];
                if common != 0
                    && let Some(found) = triple(s, [a, b, c], common)
                {
                    return Some(found);
                }
            }
        }
    }
    None
}

/// The removals of one triple with common peers `common`, as a deduction.
fn triple(s: &State, base: [usize; 3], common: u128) -> Option<Deduction> {
    let t = tables();
    let masks: Vec<u16> = cells(common)
        .map(|c| s.digits(c))
        .filter(|m| m.count_ones() <= 3)
        .collect();
    if masks.is_empty() {
        return None;
    }
    let sees = |i: usize, j: usize| t.peers[base[i]] >> base[j] & 1 != 0;
    let clash = [(0, 1), (0, 2), (1, 2)].map(|(i, j)| sees(i, j));
    let digits = base.map(|c| s.digits(c));
    let mut allowed = [0u16; 3];
    for x in bits9(digits[0]) {
        for y in bits9(digits[1]) {
            for z in bits9(digits[2]) {
                let equal = [x == y, x == z, y == z];
                if (0..3).any(|k| clash[k] && equal[k]) {
                    continue;
                }
                let combo = 1 << x | 1 << y | 1 << z;
                if masks.iter().any(|&m| m & !combo == 0) {
                    continue;
                }
                allowed[0] |= 1 << x;
                allowed[1] |= 1 << y;
                allowed[2] |= 1 << z;
            }
        }
    }
    let elims: Vec<(u16, u8)> = (0..3)
        .flat_map(|k| bits9(digits[k] & !allowed[k]).map(move |d| (base[k] as u16, d as u8 + 1)))
        .collect();
    if elims.is_empty() {
        return None;
    }
    let mut found = Deduction::setting(TRIPLE, rating::ALIGNED_TRIPLE, base[0], 0, false);
    found.text = format!(
        "{TRIPLE}: every way to fill {} with one of these digits repeats a digit or empties a cell that sees all three, so {}",
        base.map(|c| format!("r{}c{}", c / 9 + 1, c % 9 + 1))
            .join(", "),
        deduction::removals(&elims)
    );
    found.eliminations = elims;
    found.support = base
        .iter()
        .flat_map(|&c| bits9(s.digits(c)).map(move |d| (c as u16, d as u8 + 1)))
        .collect();
    Some(found)
}
