//! Forcing X-, Y- and XY-chains: an assumption that implies its own opposite (SE's unary
//! chaining; an AIC's elimination is the assumption "the target is true" failing this way).

use super::deduction::{self, Deduction};
use super::rating;
use super::state::State;
use super::trace::{Mode, trace};

/// The lowest-rated self-contradicting static chain on the board.
pub(crate) fn unary(s: &State) -> Option<Deduction> {
    let mut best = None;
    for (mode, name, base) in [
        (Mode::X, "Forcing X-chain", rating::FORCING_X),
        (Mode::Y, "Forcing Y-chain", rating::FORCING_X),
        (Mode::Xy, "Forcing chain", rating::FORCING_XY),
    ] {
        for (c, d) in s.candidates() {
            for on in [true, false] {
                if let Some(found) = self_contradiction(s, c, d, on, mode, name, base)
                    && found.better_than(&best)
                {
                    best = Some(found);
                }
            }
        }
    }
    best
}

/// The chain from one assumption back to its opposite, if there is one.
fn self_contradiction(
    s: &State,
    c: usize,
    d: usize,
    on: bool,
    mode: Mode,
    name: &'static str,
    base: u16,
) -> Option<Deduction> {
    let t = trace(s, c, d, on, mode);
    let end = t.find(c, d, !on)?;
    let tenths = rating::rate(base, t.ancestors(&[end]));
    let mut found = Deduction::setting(name, tenths, c, d, !on);
    found.support = deduction::support(&t, &[end]);
    found.text = format!(
        "{name}: {} so {}",
        deduction::path(&t.path(end)),
        deduction::fact(c, d, !on)
    );
    Some(found)
}
