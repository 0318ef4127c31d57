//! Bidirectional cycles (continuous nice loops) of one kind of link: a candidate and its
//! absence both lead, around the loop, to the same removal.

use super::deduction::{self, Deduction, fact};
use super::rating;
use super::state::{State, cells};
use super::trace::{Mode, Trace, trace};

/// The lowest-rated cycle elimination on the board.
pub(crate) fn cycles(s: &State) -> Option<Deduction> {
    let mut best = None;
    for (mode, name, base) in [
        (Mode::X, "Bidirectional X-cycle", rating::CYCLE),
        (Mode::Y, "Bidirectional Y-cycle", rating::CYCLE),
        (Mode::Xy, "Bidirectional cycle", rating::FORCING_XY),
    ] {
        for (c, d) in s.candidates() {
            let on = trace(s, c, d, true, mode);
            let off = trace(s, c, d, false, mode);
            // A contradiction is a forcing chain's business, not a cycle's.
            if on.contradiction.is_some() || off.contradiction.is_some() {
                continue;
            }
            if let Some(found) = both(s, [&on, &off], name, base, (c, d)) {
                found.offer(&mut best);
            }
        }
    }
    best
}

/// Removals both branches reach, rated by the facts of the two branches together.
fn both(
    s: &State,
    branches: [&Trace; 2],
    name: &'static str,
    base: u16,
    (c, d): (usize, usize),
) -> Option<Deduction> {
    let mut best: Option<Deduction> = None;
    for e in 0..9 {
        for q in cells(s.cand[e] & branches[0].off[e] & branches[1].off[e]) {
            // Single-kind loops count two facts fewer (calibrated on the rated file: SE
            // counts their links, while mixed loops match the facts of both branches).
            let short = if base == rating::CYCLE { 2 } else { 0 };
            let nodes = union(branches, q, e).saturating_sub(short);
            let mut found = Deduction::setting(name, rating::rate(base, nodes), q, e, false);
            if best.as_ref().is_some_and(|b| b.tenths < found.tenths) {
                continue;
            }
            for t in branches {
                if let Some(i) = t.find(q, e, false) {
                    found.support.extend(deduction::support(t, &[i]));
                }
            }
            found.support.sort_unstable();
            found.support.dedup();
            found.text = format!(
                "{name}: both {} and {} lead around a loop to {}",
                fact(c, d, true),
                fact(c, d, false),
                fact(q, e, false)
            );
            found.offer(&mut best);
        }
    }
    best
}

/// The number of distinct facts the removal of digit index `e` from `q` rests on, over both
/// branches.
fn union(branches: [&Trace; 2], q: usize, e: usize) -> usize {
    let mut seen = vec![false; 81 * 9 * 2];
    for t in branches {
        if let Some(i) = t.find(q, e, false) {
            for (c, d, on) in deduction::support_facts(t, &[i]) {
                seen[(c * 9 + d) * 2 + usize::from(on)] = true;
            }
        }
    }
    seen.iter().filter(|&&x| x).count()
}
