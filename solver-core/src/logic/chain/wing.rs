//! The VWXYZ-Wing as Sukaku Explainer rates it (6.2-6.4): four cells of one house holding
//! five digits (an almost locked set) linked to a bivalue cell, the WXYZ-Wing grown by a cell.

use super::deduction::{self, Deduction};
use super::rating;
use super::state::{Set, Start, cells, tables};

/// The lowest-rated wing of `size` set cells (4: VWXYZ); equal ones merge.
pub(crate) fn wing(s: &Start, size: usize) -> Option<Deduction> {
    let (name, base) = ("VWXYZ-Wing", rating::VWXYZ);
    let t = tables();
    let open = s.open();
    let pairs: Vec<usize> = cells(open)
        .filter(|&c| s.digits(c).count_ones() == 2)
        .collect();
    let mut best: Option<Deduction> = None;
    for &house in &t.houses {
        let pool: Vec<usize> = cells(house & open)
            .filter(|&c| (2..=size + 1).contains(&(s.digits(c).count_ones() as usize)))
            .collect();
        for set in combinations(&pool, size).chunks(size) {
            let digits = set.iter().fold(0u16, |m, &c| m | s.digits(c));
            if digits.count_ones() as usize != size + 1 {
                continue;
            }
            let biggest = set
                .iter()
                .map(|&c| s.digits(c).count_ones())
                .max()
                .unwrap_or(0);
            let tenths = base + width_bonus(biggest);
            for &y in &pairs {
                let my = s.digits(y);
                if my & digits != my || set.contains(&y) {
                    continue;
                }
                let Some(elims) = removals(s, set, y, digits) else {
                    continue;
                };
                let mut found = Deduction::setting(name, tenths, 0, 0, false);
                found.text = format!(
                    "{name}: {} hold only {} digits between them and r{}c{} holds two of them, so a shared digit leaves the cells that see every cell holding it: {}",
                    set.iter()
                        .map(|&c| format!("r{}c{}", c / 9 + 1, c % 9 + 1))
                        .collect::<Vec<_>>()
                        .join(", "),
                    size + 1,
                    y / 9 + 1,
                    y % 9 + 1,
                    deduction::removals(&elims)
                );
                found.eliminations = elims;
                found.support = set
                    .iter()
                    .chain([&y])
                    .flat_map(|&c| {
                        (0..9)
                            .filter(move |&d| s.has(c, d))
                            .map(move |d| (c as u16, d as u8 + 1))
                    })
                    .collect();
                found.offer(&mut best);
            }
        }
    }
    best
}

/// The removals of the wing with set `set` and bivalue cell `y`, if any.
fn removals(s: &Start, set: &[usize], y: usize, digits: u16) -> Option<Vec<(u16, u8)>> {
    let t = tables();
    let my = s.digits(y);
    let set_cells: Set = set.iter().fold(0, |a, &c| a | 1 << c);
    // A restricted common digit: every set cell holding it sees y.
    let restricted: Vec<usize> = (0..9)
        .filter(|&d| my >> d & 1 != 0 && s.cand[d] & set_cells & !t.peers[y] == 0)
        .collect();
    let all = set_cells | 1 << y;
    let mut elims = Vec::new();
    let mut remove = |d: usize, holders: Set| {
        let seen = cells(holders).fold(!0 as Set, |a, h| a & t.peers[h]);
        for v in cells(s.cand[d] & seen & !all) {
            elims.push((v as u16, d as u8 + 1));
        }
    };
    match restricted.as_slice() {
        &[x] => {
            let z = (0..9).find(|&d| my >> d & 1 != 0 && d != x)?;
            remove(z, s.cand[z] & all);
        }
        [_, _] => {
            // Doubly linked: the cells lock every digit.
            for d in (0..9).filter(|&d| digits >> d & 1 != 0) {
                let cells = if my >> d & 1 != 0 { all } else { set_cells };
                remove(d, s.cand[d] & cells);
            }
        }
        _ => return None,
    }
    elims.sort_unstable();
    elims.dedup();
    (!elims.is_empty()).then_some(elims)
}

/// Every `k`-subset of `items`, in order, one after another in one list (one allocation per
/// house, not one per subset).
fn combinations(items: &[usize], k: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut pick = Vec::with_capacity(k);
    /// Extends `pick` from `from` on.
    fn go(items: &[usize], k: usize, from: usize, pick: &mut Vec<usize>, out: &mut Vec<usize>) {
        if pick.len() == k {
            out.extend_from_slice(pick);
            return;
        }
        for i in from..items.len() {
            pick.push(items[i]);
            go(items, k, i + 1, pick, out);
            pick.pop();
        }
    }
    go(items, k, 0, &mut pick, &mut out);
    out
}

/// SE's tenths on top of the base by the largest set cell's candidate count (calibrated on
/// the rated file: 3 candidates rate highest, as for the WXYZ-Wing, and a cell holding all five
/// digits lowest).
fn width_bonus(biggest: u32) -> u16 {
    match biggest {
        3 => 2,
        2 | 4 => 1,
        _ => 0,
    }
}
