//! Fast, untraced propagation of an assumption: what a hypothetical board forces, used for the
//! nested levels where only "does this lead to a contradiction?" matters.
//!
//! Levels: 0 applies singles (dynamic chains), 1 adds locked candidates (dynamic+ chains);
//! when nothing else moves, level 2 adds static forcing chains ([`STATIC`], SE's nesting
//! level 2), level 3 static cell and region forcing chains as well ([`MULTIPLE`], SE's
//! level 3), and
//! `k >= 4` a search for candidates whose assumption leads to a contradiction at
//! [`inner`]`(k)`: level 4 nests dynamic chains, as SE's nesting level 4 does, and level 5
//! dynamic (+) chains.

use super::closure::{self, Statics};
use super::state::{Set, State, cells, tables};

/// The level of singles plus locked candidates.
pub(crate) const PLUS: u8 = 1;
/// The level with static forcing chains inside.
pub(crate) const STATIC: u8 = 2;
/// The level with static multiple (cell and region) forcing chains inside as well.
pub(crate) const MULTIPLE: u8 = 3;

/// The level a nested search at `level` (4 or more) propagates its assumptions at: 4 and 5
/// nest dynamic and dynamic (+) chains, 6 and 7 nest levels 4 and 5.
pub(crate) fn inner(level: u8) -> u8 {
    if level < 6 { level - 4 } else { level - 2 }
}

/// The static chains a level applies, `None` below and above the static levels.
pub(crate) fn statics(level: u8) -> Option<Statics> {
    match level {
        STATIC => Some(Statics::Forcing),
        MULTIPLE => Some(Statics::Multiple),
        _ => None,
    }
}

/// Propagates `s` at `level` to a fixpoint; `false` when it reaches a contradiction.
pub(crate) fn propagate(s: &mut State, level: u8) -> bool {
    loop {
        if !singles(s) {
            return false;
        }
        if level >= PLUS && locked(s) {
            continue;
        }
        if let Some(statics) = statics(level) {
            let changes = closure::pass(s, statics);
            if closure::apply(s, &changes) {
                continue;
            }
        }
        if level >= 4 {
            match nested(s, inner(level)) {
                None => return false,
                Some(true) => continue,
                Some(false) => {}
            }
        }
        return true;
    }
}

/// Naked and hidden singles to a fixpoint; `false` on an empty cell or a digit with no place.
pub(crate) fn singles(s: &mut State) -> bool {
    let t = tables();
    loop {
        let mut progress = false;
        let (mut ones, mut twos): (Set, Set) = (0, 0);
        for set in &s.cand {
            twos |= ones & set;
            ones |= set;
        }
        if s.open() & !ones != 0 {
            return false;
        }
        for c in cells(ones & !twos) {
            // An earlier placement of this pass may have emptied the cell.
            let Some(d) = (0..9).find(|&d| s.has(c, d)) else {
                return false;
            };
            s.place(c, d);
            progress = true;
        }
        if progress {
            continue;
        }
        for d in 0..9 {
            for h in &t.houses {
                if s.val[d] & h != 0 {
                    continue;
                }
                let p = s.cand[d] & h;
                if p == 0 {
                    return false;
                }
                if p & (p - 1) == 0 {
                    s.place(p.trailing_zeros() as usize, d);
                    progress = true;
                }
            }
        }
        if !progress {
            return true;
        }
    }
}

/// Pointing and claiming once over the grid; whether anything was removed.
fn locked(s: &mut State) -> bool {
    let t = tables();
    let mut progress = false;
    for d in 0..9 {
        for &(bx, ln) in &t.crossings {
            // Box to line (pointing), then line to box (claiming).
            for (from, to) in [(bx, ln), (ln, bx)] {
                let p = s.cand[d] & from;
                if p != 0 && p & !to == 0 && s.cand[d] & to & !from != 0 {
                    s.cand[d] &= !(to & !from);
                    progress = true;
                }
            }
        }
    }
    progress
}

/// One pass of nested contradiction search: each candidate assumed true and propagated at
/// `inner`; those leading to a contradiction are removed. `None` when the state itself
/// collapses, else whether anything was removed.
fn nested(s: &mut State, inner: u8) -> Option<bool> {
    let mut progress = false;
    for (c, d) in s.candidates() {
        if !s.has(c, d) {
            continue;
        }
        let mut trial = *s;
        trial.place(c, d);
        if !propagate(&mut trial, inner) {
            s.eliminate(c, d);
            progress = true;
            if !propagate(s, inner.min(PLUS)) {
                return None;
            }
        }
    }
    Some(progress)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::board::testing::{empty, remove};

    #[test]
    fn singles_find_two_cells_that_need_the_same_digit() {
        let mut b = empty(3, 3);
        remove(&mut b, 2, &[(0, 0), (0, 1)]);
        for d in 3..=9 {
            remove(&mut b, d, &[(0, 0), (0, 1)]);
        }
        // r1c1 and r1c2 both hold only 1: one of them ends up empty.
        let mut s = State::from_board(&b);
        assert!(!propagate(&mut s, PLUS));
    }

    #[test]
    fn singles_fill_a_consistent_board_without_a_contradiction() {
        let mut b = empty(3, 3);
        remove(&mut b, 1, &[(0, 1), (0, 2)]);
        let mut s = State::from_board(&b);
        assert!(propagate(&mut s, 2));
        assert_eq!(
            s.open().count_ones(),
            81,
            "nothing is forced on an open grid"
        );
    }
}
