//! Nested forcing chains: assumptions whose consequences are found with forcing chains of a
//! lower level inside (untraced, so the rating counts the facts a branch changed).

use super::deduction::{Deduction, fact};
use super::propagate::propagate;
use super::rating;
use super::replay::failing_branch;
use super::state::{State, cells};

/// SE's name for every nested level.
const NAME: &str = "Nested forcing chain";

/// The first nested forcing chain at propagation `level` (2 = one level of nesting).
pub(crate) fn nested(s: &State, level: u8) -> Option<Deduction> {
    let base = rating::NESTED + 5 * u16::from(level.saturating_sub(2));
    let order = ordered(s);
    // A candidate whose truth collapses the board is false.
    for &(c, d) in &order {
        let mut trial = *s;
        trial.place(c, d);
        if !propagate(&mut trial, level) {
            return Some(setting(s, &trial, base, c, d, false));
        }
    }
    // A bivalue-cell digit whose absence collapses the board is true.
    for &(c, d) in &order {
        if s.digits(c).count_ones() != 2 {
            break;
        }
        let mut trial = *s;
        trial.eliminate(c, d);
        if !propagate(&mut trial, level) {
            return Some(setting(s, &trial, base, c, d, true));
        }
    }
    None
}

/// Candidates of bivalue cells first (their branches are the most constrained), then the rest.
fn ordered(s: &State) -> Vec<(usize, usize)> {
    let mut list = s.candidates();
    list.sort_by_key(|&(c, _)| s.digits(c).count_ones());
    list
}

/// The deduction that digit index `d` of `c` is (`on`) or is not there, rated by how much the
/// failed branch had changed, its text the failed branch replayed link by link.
fn setting(s: &State, trial: &State, base: u16, c: usize, d: usize, on: bool) -> Deduction {
    let placed = cells(s.open() & !trial.open()).count();
    let mut found = Deduction::setting(NAME, rating::rate(base, placed + 2), c, d, on);
    found.rest_on(|| vec![(c as u16, d as u8 + 1)]);
    found.say(|| {
        let level = level_of(base);
        let told = failing_branch(s, (c, d, !on), level);
        told.map_or_else(
            || {
                format!(
                    "{NAME}: assuming {} leads, through forcing chains, to a contradiction",
                    fact(c, d, !on)
                )
            },
            |told| format!("{NAME}: {told}"),
        )
    });
    found
}

/// The propagation level of a nested step's base rating (see [`nested`]).
fn level_of(base: u16) -> u8 {
    ((base - rating::NESTED) / 5 + 2) as u8
}
