//! Aligned pair exclusion: two cells that see each other cannot take a pair of digits that
//! would empty a common peer (a cell holding only those digits) or repeat a digit.

use super::deduction::Deduction;
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
                elims
                    .iter()
                    .map(|&(c, d)| format!("r{}c{}≠{d}", c / 9 + 1, c % 9 + 1))
                    .collect::<Vec<_>>()
                    .join(", ")
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
