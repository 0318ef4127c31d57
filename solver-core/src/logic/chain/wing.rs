//! The VWXYZ-Wing as Sukaku Explainer rates it (6.2-6.4): four cells of one house holding
//! five digits (an almost locked set) linked to a bivalue cell, the WXYZ-Wing grown by a cell.

use std::cell::RefCell;

use super::deduction::{self, Deduction};
use super::rating;
use super::state::{Set, Start, cells, tables};

/// The lowest-rated wing of `size` set cells (4: VWXYZ); equal ones merge.
pub(crate) fn wing(s: &Start, size: usize) -> Option<Deduction> {
    let (name, base) = ("VWXYZ-Wing", rating::VWXYZ);
    let t = tables();
    let open = s.open();
    let pairs: Set = cells(open)
        .filter(|&c| s.digits(c).count_ones() == 2)
        .fold(0, |m, c| m | 1 << c);
    let mut best: Option<Deduction> = None;
    for h in 0..t.houses.len() {
        house_sets(s, h, size, &mut |set, digits| {
            let biggest = set
                .iter()
                .map(|&c| s.digits(c).count_ones())
                .max()
                .unwrap_or(0);
            let tenths = base + width_bonus(biggest);
            // A linked cell sees a set cell (its restricted digit's holders): read off the
            // set's peers, in cell order, rather than tried over every bivalue cell.
            let set_cells: Set = set.iter().fold(0, |a, &c| a | 1 << c);
            let near: Set = set.iter().fold(0, |a, &c| a | t.peers[c]);
            for y in cells(pairs & near & !set_cells) {
                let my = s.digits(y);
                if my & digits != my {
                    continue;
                }
                let Some(elims) = removals(s, set_cells, y, digits) else {
                    continue;
                };
                let mut found = Deduction::setting(name, tenths, 0, 0, false);
                found.say(|| {
                    format!(
                        "{name}: {} hold only {} digits between them and r{}c{} holds two of them, so a shared digit is removed from the cells that see every cell holding it: {}",
                        set.iter()
                            .map(|&c| format!("r{}c{}", c / 9 + 1, c % 9 + 1))
                            .collect::<Vec<_>>()
                            .join(", "),
                        size + 1,
                        y / 9 + 1,
                        y % 9 + 1,
                        deduction::removals(&elims)
                    )
                });
                found.eliminations = elims;
                found.rest_on(|| {
                    set.iter()
                        .chain([&y])
                        .flat_map(|&c| {
                            (0..9)
                                .filter(move |&d| s.has(c, d))
                                .map(move |d| (c as u16, d as u8 + 1))
                        })
                        .collect()
                });
                found.offer(&mut best);
            }
        });
    }
    best
}

/// The sets of `size` cells of house `h` that [`for_sets`] finds, and their digits, as of the
/// last board searched: a step changes few houses, and listing the sets anew was most of the
/// wings' time.
#[derive(Default)]
struct HouseSets {
    /// Each cell's digits (bit 15: not open), and the size, when the sets were listed.
    key: Option<([u16; 9], usize)>,
    /// The sets' cells, `size` per set, in the order found.
    cells: Vec<usize>,
    digits: Vec<u16>,
}

thread_local! {
    static SETS: RefCell<Vec<HouseSets>> = const { RefCell::new(Vec::new()) };
}

/// Calls `visit` on every set [`for_sets`] visits among the cells of house `h` holding two
/// to `size + 1` digits, in the same order: listed again only where the house changed.
fn house_sets(s: &Start, h: usize, size: usize, visit: &mut impl FnMut(&[usize], u16)) {
    let t = tables();
    let (house, open) = (t.houses[h], s.open());
    let mut key = [0u16; 9];
    for (k, c) in cells(house).enumerate() {
        key[k] = s.digits(c) | u16::from(open >> c & 1 == 0) << 15;
    }
    let taken = SETS.try_with(|m| {
        let mut m = m.borrow_mut();
        if m.len() <= h {
            m.resize_with(h + 1, HouseSets::default);
        }
        std::mem::take(&mut m[h])
    });
    let mut sets = taken.unwrap_or_default();
    if sets.key != Some((key, size)) {
        sets.cells.clear();
        sets.digits.clear();
        let pool: Vec<usize> = cells(house & open)
            .filter(|&c| (2..=size + 1).contains(&(s.digits(c).count_ones() as usize)))
            .collect();
        let mut pick = Vec::with_capacity(size);
        for_sets(s, &pool, size, 0, (&mut pick, 0), &mut |set, digits| {
            sets.cells.extend_from_slice(set);
            sets.digits.push(digits);
        });
        sets.key = Some((key, size));
    }
    for (set, &digits) in sets.cells.chunks_exact(size).zip(&sets.digits) {
        visit(set, digits);
    }
    let _ = SETS.try_with(|m| m.borrow_mut()[h] = sets);
}

/// The removals of the wing with set `set` and bivalue cell `y`, if any.
fn removals(s: &Start, set_cells: Set, y: usize, digits: u16) -> Option<Vec<(u16, u8)>> {
    let t = tables();
    let my = s.digits(y);
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

/// Calls `visit` on every `size`-subset of `pool`, in lexicographic order, that holds
/// exactly `size + 1` digits, with those digits; `pick` holds the cells chosen so far and
/// their digits. A cell that would take the digits past `size + 1` is not chosen (the digits
/// of a set only grow), nor one too late in the pool to leave room for the rest: most
/// subsets are skipped without a call.
fn for_sets(
    s: &Start,
    pool: &[usize],
    size: usize,
    from: usize,
    (pick, digits): (&mut Vec<usize>, u16),
    visit: &mut impl FnMut(&[usize], u16),
) {
    let need = size - pick.len();
    let Some(last) = pool.len().checked_sub(need) else {
        return;
    };
    for i in from..=last {
        let more = digits | s.digits(pool[i]);
        if more.count_ones() as usize > size + 1 {
            continue;
        }
        pick.push(pool[i]);
        if need > 1 {
            for_sets(s, pool, size, i + 1, (&mut *pick, more), visit);
        } else if more.count_ones() as usize == size + 1 {
            visit(pick, more);
        }
        pick.pop();
    }
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

#[cfg(test)]
mod tests {
    use super::super::state::tests::boards;
    use super::*;

    /// [`for_sets`] by listing every subset in lexicographic order.
    fn every_set(s: &Start, pool: &[usize], size: usize) -> Vec<(Vec<usize>, u16)> {
        let mut out = Vec::new();
        for mask in 0u32..1 << pool.len() {
            if mask.count_ones() as usize != size {
                continue;
            }
            let set: Vec<usize> = (0..pool.len())
                .filter(|&i| mask >> i & 1 != 0)
                .map(|i| pool[i])
                .collect();
            let digits = set.iter().fold(0, |m, &c| m | s.digits(c));
            if digits.count_ones() as usize == size + 1 {
                out.push((set, digits));
            }
        }
        out.sort();
        out
    }

    #[test]
    fn house_sets_are_the_sets_found_on_the_board_searched() {
        let mut listed = 0;
        // Boards one after another, each searched twice (the second time from memory).
        for s in boards().iter().chain(boards().iter().rev()) {
            for h in 0..27 {
                let pool: Vec<usize> = cells(tables().houses[h] & s.open())
                    .filter(|&c| (2..=5).contains(&s.digits(c).count_ones()))
                    .collect();
                let mut want = Vec::new();
                for_sets(s, &pool, 4, 0, (&mut Vec::new(), 0), &mut |set, digits| {
                    want.push((set.to_vec(), digits));
                });
                for _ in 0..2 {
                    let mut got = Vec::new();
                    house_sets(s, h, 4, &mut |set, digits| got.push((set.to_vec(), digits)));
                    assert_eq!(got, want, "house {h}");
                }
                listed += want.len();
            }
        }
        assert!(listed > 0);
    }

    #[test]
    fn for_sets_visits_every_set_of_one_digit_more_in_order() {
        let mut visited = 0;
        for s in boards() {
            for &house in &tables().houses {
                let pool: Vec<usize> = cells(house & s.open()).collect();
                for size in 2..=4 {
                    let mut got = Vec::new();
                    let mut pick = Vec::new();
                    for_sets(&s, &pool, size, 0, (&mut pick, 0), &mut |set, digits| {
                        got.push((set.to_vec(), digits));
                    });
                    assert_eq!(got, every_set(&s, &pool, size), "{house:x} {size}");
                    visited += got.len();
                }
            }
        }
        assert!(visited > 0);
    }
}
