//! Nishio forcing chains: a digit assumed in a cell whose consequences for that digit alone
//! leave it no consistent place.

use std::cell::Cell;
use std::thread::LocalKey;

use super::deduction::{self, Deduction};
use super::rating;
use super::state::{Set, Start};
use super::trace::{Mode, nishio_clashes, trace};

/// Nishio forcing chains: a digit assumed in a cell whose consequences for that digit alone
/// contradict each other.
pub(crate) fn nishio(s: &Start) -> Option<Deduction> {
    let mut best: Option<Deduction> = None;
    let skip = unchanged_digits(&NISHIO_FOUND_NOTHING, s);
    for (c, d) in s.candidates() {
        if skip >> d & 1 != 0 {
            continue;
        }
        // Only a trace with a contradiction counts: most have none, known without one.
        if !nishio_clashes(s, c, d) {
            continue;
        }
        let t = trace(s, c, d, true, Mode::Nishio);
        let Some(clash) = &t.contradiction else {
            continue;
        };
        let tenths = rating::rate(rating::NISHIO, t.clash_size());
        if best.as_ref().is_some_and(|b| b.tenths < tenths) {
            continue;
        }
        let name = "Nishio forcing chain";
        let mut found = Deduction::setting(name, tenths, c, d, false);
        found.rest_on(|| deduction::support(&t, clash));
        found.say(|| {
            format!(
                "{name}: with {} the digit {} has no consistent place left, so {}",
                deduction::fact(c, d, true),
                d + 1,
                deduction::fact(c, d, false)
            )
        });
        found.offer(&mut best);
    }
    remember(&NISHIO_FOUND_NOTHING, s, best.is_some());
    best
}

/// Each digit's candidates when a search last found nothing.
type NothingOn = LocalKey<Cell<Option<[Set; 9]>>>;

thread_local! {
    /// For Nishio chains: they follow one digit's candidates alone, so a digit whose candidates are as they were when the search last
    /// found nothing finds nothing again (hard puzzles run these at every step, and a step
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
