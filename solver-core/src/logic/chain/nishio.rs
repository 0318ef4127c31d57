//! Nishio forcing chains: a digit assumed in a cell whose consequences for that digit alone
//! leave it no consistent place.

use std::cell::Cell;
use std::thread::LocalKey;

use super::super::wording;
use super::deduction::{self, Deduction};
use super::implications::{Fact, Rules, Search, fact, parts};
use super::rating;
use super::state::{Set, Start, Tables, cells};
use super::trail::{support, write};

/// The Nishio step SE takes: each candidate assumed true, then false (cell by cell, digits
/// in order), its digit followed alone on the board as the chain changes it, until some
/// fact turns out both true and false; the lowest rating, then the fewest facts, then the
/// first found. A chain rests on the facts behind both sides of its contradiction, counted
/// once for each side.
pub(crate) fn nishio(s: &Start) -> Option<Deduction> {
    // The rating, the facts, the deduction and its assumption.
    let mut best: Option<(f64, usize, Deduction, Fact)> = None;
    let skip = unchanged_digits(&NISHIO_FOUND_NOTHING, s);
    let rules = Rules {
        cells: false,
        dynamic: true,
    };
    let mut search = Search::new();
    for (c, d) in s.candidates() {
        if skip >> d & 1 != 0 || s.digits(c).count_ones() < 2 {
            continue;
        }
        for on in [true, false] {
            if !clashes(s, c, d, on) {
                continue;
            }
            let Some((yes, no)) = search.run(s, fact(c, d, on), rules) else {
                continue;
            };
            let facts = search.ancestors(yes) + search.ancestors(no);
            let difficulty = rating::difficulty(rating::NISHIO, facts);
            if best
                .as_ref()
                .is_some_and(|b| (b.0, b.1) <= (difficulty, facts))
            {
                continue;
            }
            let tenths = rating::tenths(difficulty);
            let mut found = Deduction::setting(NAME, tenths, c, d, !on);
            if !on {
                found.placements.clear();
                found.eliminations = others(s, c, d);
            }
            best = Some((difficulty, facts, found, fact(c, d, on)));
        }
    }
    remember(&NISHIO_FOUND_NOTHING, s, best.is_some());
    let (_, _, mut found, start) = best?;
    if wording::read(found.tenths) {
        // Only the step chosen is worded: its search again, traced back from both sides.
        let trail = search
            .run(s, start, rules)
            .map(|(yes, no)| search.trail(&[yes, no]))
            .unwrap_or_default();
        let (c, d, on) = parts(start);
        let (q, e, _) = trail.last().map_or((c, d, on), |l| l.fact);
        found.support = support(std::slice::from_ref(&trail));
        found.text = format!(
            "{NAME}: {}, following digit {} alone, leads to both {} and {}: {}",
            deduction::fact(c, d, on),
            d + 1,
            deduction::fact(q, e, true),
            deduction::fact(q, e, false),
            write(&trail)
        );
    }
    Some(found)
}

/// SE's name of the technique.
const NAME: &str = "Nishio forcing chain";

/// Whether the Nishio search from digit index `d` assumed in (`on`) or out of cell `c` meets
/// a contradiction, found without searching: most do not. The same links on the digit's
/// places alone: a true fact removes its peers, a house with one place left puts the digit
/// there, and the contradiction is a house with none (the search's clashes all come to that
/// once nothing more follows, and what follows does not depend on the order).
fn clashes(start: &Start, c: usize, d: usize, on: bool) -> bool {
    let t = start.tables;
    let cand = start.cand[d];
    let (mut alive, mut on): (Set, Set) = if on {
        (cand & !t.peers[c], 1 << c)
    } else {
        (cand & !(1 << c), 0)
    };
    // Houses to look at: those that lost a place since last looked at (a house that never
    // lost one adds nothing new).
    let mut dirty = houses_of(t, cand & !alive);
    while dirty != 0 {
        let h = dirty.trailing_zeros() as usize;
        dirty &= dirty - 1;
        let left = alive & t.houses[h];
        // Two places left, or the house's true fact: nothing follows.
        if left & left.wrapping_sub(1) != 0 || left & on != 0 {
            continue;
        }
        if left == 0 {
            return true;
        }
        on |= left;
        let gone = alive & t.peers[left.trailing_zeros() as usize];
        alive &= !gone;
        dirty |= houses_of(t, gone);
    }
    false
}

/// The houses (bit `h` for the tables' house `h`) of the cells of `set`.
fn houses_of(t: &Tables, set: Set) -> u32 {
    cells(set).fold(0, |m, q| {
        let [row, col, bx] = t.cell_houses[q];
        m | 1 << row | 1 << col | 1 << bx
    })
}

/// Removals that place digit index `d` in `c`: the cell's other digits.
pub(crate) fn others(s: &Start, c: usize, d: usize) -> Vec<(u16, u8)> {
    let mut out = Vec::new();
    let mut m = s.digits(c) & !(1 << d);
    while m != 0 {
        out.push((c as u16, m.trailing_zeros() as u8 + 1));
        m &= m - 1;
    }
    out
}

/// Each digit's candidates when a search last found nothing.
type NothingOn = LocalKey<Cell<Option<[Set; 9]>>>;

thread_local! {
    /// Nishio chains follow one digit's candidates alone, so a digit whose candidates are
    /// as they were when the search last found nothing finds nothing again (hard puzzles run these at every step, and a step
    /// moves few digits).
    static NISHIO_FOUND_NOTHING: Cell<Option<[Set; 9]>> = const { Cell::new(None) };
}

/// The digits (bit `d`) whose candidates are those `memo` last found nothing on.
fn unchanged_digits(memo: &'static NothingOn, s: &Start) -> u16 {
    let Some(then) = memo.try_with(Cell::get).ok().flatten() else {
        return 0;
    };
    (0..9)
        .filter(|&d| then[d] == s.cand[d])
        .fold(0, |m, d| m | 1 << d)
}

/// Records the candidates a search ran on when it found nothing (else forgets).
fn remember(memo: &'static NothingOn, s: &Start, found: bool) {
    let _ = memo.try_with(|m| m.set((!found).then_some(s.cand)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::chain::state::State;

    #[test]
    fn clashes_as_the_search_does() {
        let (mut clash, mut not) = (0, 0);
        // Boards of real solves, with a house of one place for a digit left out: the engine
        // places such a digit before any chain (and the search, as SE's, sees a house
        // emptied only when a false fact leaves it one place).
        let mut all = Vec::new();
        for puzzle in crate::logic::engine::SOLVE_PATH_PUZZLES {
            crate::logic::engine::each_board(puzzle, |b| {
                all.push(Start::new(State::from_board(b)));
            });
        }
        let t = crate::logic::chain::state::tables();
        all.retain(|s| (0..9).all(|d| t.houses.iter().all(|&h| (s.cand[d] & h).count_ones() != 1)));
        let rules = Rules {
            cells: false,
            dynamic: true,
        };
        let mut search = Search::new();
        for s in all {
            for (c, d) in s.candidates() {
                for on in [true, false] {
                    let found = search.run(&s, fact(c, d, on), rules).is_some();
                    assert_eq!(
                        clashes(&s, c, d, on),
                        found,
                        "r{}c{} {} {on}",
                        c / 9 + 1,
                        c % 9 + 1,
                        d + 1
                    );
                    if found {
                        clash += 1;
                    } else {
                        not += 1;
                    }
                }
            }
        }
        assert!(clash > 0 && not > 0, "{clash} clash, {not} do not");
    }
}
