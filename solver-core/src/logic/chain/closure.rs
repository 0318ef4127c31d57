//! Static forcing chains inside a nested chain's branch: the facts one assumption implies
//! through static links on the branch's board (a true digit removes its peers and its cell's
//! other digits; a false digit makes true the other digit of a bivalue cell and the other
//! place of a digit with two places in a house), with the board left as it is.
//!
//! A branch at SE's nesting level 2 removes each candidate whose assumption leads back to its
//! own absence (forcing X-, Y- and XY-chains, and the cycles, which such chains cover) and
//! sets each whose absence leads back to itself; at level 3 an assumption that leads to any
//! fact both true and false is refuted as well (static contradiction forcing chains).

use super::state::{State, cells, tables};

/// What refutes an assumption.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refute {
    /// Only the assumption's own opposite (forcing chains).
    Own,
    /// Any fact both true and false (multiple forcing chains' contradictions).
    Any,
}

/// The changes one pass of static chains makes on a board, found on the board as it was.
#[derive(Debug, Default)]
pub(crate) struct Changes {
    /// Candidates shown false, (cell, digit index), in the order found.
    pub(crate) removed: Vec<(usize, usize)>,
    /// Candidates shown true.
    pub(crate) set: Vec<(usize, usize)>,
}

/// Each cell's digits on `s`, worked out once per pass.
pub(crate) fn masks(s: &State) -> [u16; 81] {
    let mut m = [0u16; 81];
    for (d, &set) in s.cand.iter().enumerate() {
        for c in cells(set) {
            m[c] |= 1 << d;
        }
    }
    m
}

/// Calls `visit` for each fact `(c, d, on)` implied directly by one: the other digits of its
/// cell and its digit in its peers for a true one, the strong-link partners for a false one.
pub(crate) fn consequences(
    s: &State,
    masks: &[u16; 81],
    (c, d, on): (usize, usize, bool),
    mut visit: impl FnMut(usize, usize, bool),
) {
    let t = tables();
    if on {
        for e in (0..9).filter(|&e| e != d && masks[c] >> e & 1 != 0) {
            visit(c, e, false);
        }
        for q in cells(s.cand[d] & t.peers[c]) {
            visit(q, d, false);
        }
        return;
    }
    let m = masks[c] & !(1 << d);
    if masks[c] >> d & 1 != 0 && m.count_ones() == 1 {
        visit(c, m.trailing_zeros() as usize, true);
    }
    for h in t.house_sets[c] {
        let places = s.cand[d] & h;
        if places >> c & 1 != 0 && places.count_ones() == 2 {
            visit((places & !(1 << c)).trailing_zeros() as usize, d, true);
        }
    }
}

/// Whether assuming `start` on `s` leads by static links to what `refute` asks for; `queue`
/// is scratch space.
pub(crate) fn refutes(
    s: &State,
    masks: &[u16; 81],
    start: (usize, usize, bool),
    refute: Refute,
    queue: &mut Vec<(usize, usize, bool)>,
) -> bool {
    // Shown facts by sign and digit, and a queue of facts to follow.
    let mut shown = [[0u128; 9]; 2];
    queue.clear();
    let (c0, d0, on0) = start;
    shown[usize::from(on0)][d0] |= 1 << c0;
    queue.push(start);
    let mut next = 0;
    while next < queue.len() {
        let fact = queue[next];
        next += 1;
        let mut hit = false;
        consequences(s, masks, fact, |c, d, on| {
            if hit || shown[usize::from(on)][d] >> c & 1 != 0 {
                return;
            }
            let clash = shown[usize::from(!on)][d] >> c & 1 != 0;
            if clash && (refute == Refute::Any || (c, d, !on) == start) {
                hit = true;
                return;
            }
            shown[usize::from(on)][d] |= 1 << c;
            queue.push((c, d, on));
        });
        if hit {
            return true;
        }
    }
    false
}

/// One pass of static chains over every candidate of `s`.
pub(crate) fn pass(s: &State, refute: Refute) -> Changes {
    let masks = masks(s);
    let mut out = Changes::default();
    let mut queue = Vec::with_capacity(256);
    for c in cells(s.open()) {
        for d in (0..9).filter(|&d| masks[c] >> d & 1 != 0) {
            if refutes(s, &masks, (c, d, true), refute, &mut queue) {
                out.removed.push((c, d));
            } else if refutes(s, &masks, (c, d, false), refute, &mut queue) {
                out.set.push((c, d));
            }
        }
    }
    out
}

/// Applies a pass's changes: a candidate set true leaves its cell's other digits out (the
/// singles that follow place it, or find the cell empty); whether anything changed.
pub(crate) fn apply(s: &mut State, changes: &Changes) -> bool {
    let mut progress = false;
    for &(c, d) in &changes.removed {
        if s.has(c, d) {
            s.eliminate(c, d);
            progress = true;
        }
    }
    for &(c, d) in &changes.set {
        for e in (0..9).filter(|&e| e != d) {
            if s.has(c, e) {
                s.eliminate(c, e);
                progress = true;
            }
        }
    }
    progress
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::board::Candidates;
    use crate::logic::board::testing::{empty, remove};

    #[test]
    fn the_digit_an_xy_wing_removes_is_refuted_by_its_own_opposite() {
        // Pivot r1c1 {1,2}, pincers r1c5 {1,3} and r5c1 {2,3}: r5c5=3 leads through the
        // three cells to r5c1=3, which removes it.
        let mut b = empty(3, 3);
        let keep = |b: &mut Candidates, (r, c): (usize, usize), digits: [u8; 2]| {
            for d in (1..=9).filter(|d| !digits.contains(d)) {
                remove(b, d, &[(r, c)]);
            }
        };
        keep(&mut b, (0, 0), [1, 2]);
        keep(&mut b, (0, 4), [1, 3]);
        keep(&mut b, (4, 0), [2, 3]);
        let s = State::from_board(&b);
        let m = masks(&s);
        let q = &mut Vec::new();
        assert!(refutes(&s, &m, (4 * 9 + 4, 2, true), Refute::Own, q));
        assert!(!refutes(&s, &m, (80, 2, true), Refute::Any, q));
        let changes = pass(&s, Refute::Own);
        assert!(changes.removed.contains(&(4 * 9 + 4, 2)), "{changes:?}");
        assert!(changes.set.is_empty(), "{changes:?}");
    }
}
