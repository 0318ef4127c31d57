//! Nested forcing chains: assumptions whose consequences are found with forcing chains of a
//! lower level inside. With static chains inside (SE's nesting levels 2 and 3) every failing
//! branch is replayed and the step is the one of least complexity, counted as SE counts it;
//! deeper levels take the first failing branch, rated by the facts it changed.

use std::collections::HashMap;

use super::deduction::{Deduction, fact};
use super::propagate::{MULTIPLE, PLUS, propagate};
use super::rating;
use super::replay::{branch_complexity, failing_branch};
use super::state::{State, cells};

/// The failing branches counted at the static levels, at most (each is replayed).
const REPLAYED: usize = 3;

/// SE's name for every nested level.
const NAME: &str = "Nested forcing chain";

/// The first nested forcing chain at propagation `level` (2: static forcing chains inside,
/// 3: static contradiction chains too, 4: dynamic chains; see [`super::propagate`]).
pub(crate) fn nested(s: &State, level: u8) -> Option<Deduction> {
    let base = rating::NESTED + 5 * u16::from(level.saturating_sub(2));
    let mut failing = branches(s, level);
    if level > MULTIPLE {
        let (c, d, on, trial) = failing.next()?;
        let placed = cells(s.open() & !trial.open()).count();
        return Some(setting(
            s,
            rating::rate(base, placed + 2),
            level,
            (c, d, on),
        ));
    }
    let mut best: Option<(usize, (usize, usize, bool))> = None;
    // Each failing branch is replayed to be counted: a few give SE's least closely enough.
    for (c, d, on, _) in failing.take(REPLAYED) {
        let Some(size) = branch_complexity(s, (c, d, !on), level) else {
            continue;
        };
        if best.is_none_or(|(least, _)| size < least) {
            best = Some((size, (c, d, on)));
        }
    }
    let (size, (c, d, on)) = best?;
    Some(setting(s, rating::rate(base, size), level, (c, d, on)))
}

/// Each failing branch at `level` in turn, as the fact it proves (cell, digit index, true)
/// and the board the branch reached: first the candidates whose truth collapses the board,
/// then the bivalue-cell digits whose absence does.
fn branches(s: &State, level: u8) -> impl Iterator<Item = (usize, usize, bool, State)> + '_ {
    let order = ordered(s);
    let pairs: Vec<(usize, usize)> = order
        .iter()
        .copied()
        .take_while(|&(c, _)| s.digits(c).count_ones() == 2)
        .collect();
    let removals = order.into_iter().map(|(c, d)| (c, d, false));
    let settings = pairs.into_iter().map(|(c, d)| (c, d, true));
    // Many assumptions force the same board through singles and locked candidates (a
    // bivalue cell's digit out, its other digit in): the rest of the branch is then the same.
    let mut seen: HashMap<State, Option<State>> = HashMap::new();
    removals.chain(settings).filter_map(move |(c, d, on)| {
        let mut trial = *s;
        if on {
            trial.eliminate(c, d);
        } else {
            trial.place(c, d);
        }
        if !propagate(&mut trial, PLUS) {
            return Some((c, d, on, trial));
        }
        let failed = *seen.entry(trial).or_insert_with(|| {
            let mut rest = trial;
            (!propagate(&mut rest, level)).then_some(rest)
        });
        failed.map(|end| (c, d, on, end))
    })
}

/// Candidates of bivalue cells first (their branches are the most constrained), then the rest.
fn ordered(s: &State) -> Vec<(usize, usize)> {
    let mut list = s.candidates();
    list.sort_by_key(|&(c, _)| s.digits(c).count_ones());
    list
}

/// The deduction, rated `tenths`, that digit index `d` of `c` is (`on`) or is not there, its
/// text the failed branch replayed link by link.
fn setting(s: &State, tenths: u16, level: u8, (c, d, on): (usize, usize, bool)) -> Deduction {
    let mut found = Deduction::setting(NAME, tenths, c, d, on);
    found.rest_on(|| vec![(c as u16, d as u8 + 1)]);
    found.say(|| {
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
