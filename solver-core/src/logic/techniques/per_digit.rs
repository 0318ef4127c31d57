//! Results of single-digit searches kept from one step to the next, per digit.
//!
//! A single-digit pattern (fish, turbot fish, strong-link chains, grouped
//! or not) depends on the
//! places of its digit alone, and one step changes few digits' places: at the steps of a
//! hard puzzle, where every basic search runs and fails, two digits in three are where they
//! were the step before. A search split per digit asks here first and redoes only the digits
//! whose places changed; its result is the same, since the kept one was found on the same
//! places.

use std::any::Any;
use std::cell::RefCell;

use crate::Shape;
use crate::logic::board::Candidates;
use crate::logic::step::Found;
use crate::logic::wording;

/// The searches whose per-digit results are kept (one slot per digit each).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Search {
    Turbot,
    GroupedTurbot,
    StrongLinks3,
    StrongLinks4,
    GroupedThree,
    /// Not a search: the links and successors both grouped searches build.
    GroupedChains,
    Fish2,
    Fish3,
    Fish4,
}

/// One kept result and the places it was found on.
struct Kept {
    shape: Shape,
    /// The stamp of the digit's places (the same stamp, the same places).
    stamp: u64,
    /// The wording bar it was found under: its steps at or below it have no sentence.
    bar: Option<u16>,
    value: Box<dyn Any>,
}

impl Kept {
    fn matches(&self, board: &Candidates, d: usize) -> bool {
        self.shape == board.shape() && self.stamp == board.digit_stamp(d)
    }
}

thread_local! {
    /// The last result of each search and digit, `search * MAX_SIDE + digit index`.
    static KEPT: RefCell<Vec<Option<Kept>>> = const { RefCell::new(Vec::new()) };
}

/// `compute`'s result for digit index `d` of `board` in `search`: kept from an earlier call
/// when the digit's places are the same, else computed now (and kept for the next call).
///
/// `compute` must depend on the layout and the digit's places only (and on the wording bar,
/// for sentences and support: a result found under a higher bar is not handed out).
pub(crate) fn cached<R: Clone + 'static>(
    search: Search,
    board: &Candidates,
    d: usize,
    compute: impl FnOnce() -> R,
) -> R {
    let slot = search as usize * Shape::MAX_SIDE + d;
    let hit = KEPT
        .try_with(|kept| {
            let kept = kept.try_borrow().ok()?;
            let entry = kept.get(slot)?.as_ref()?;
            if !entry.matches(board, d) || !wording::worded_enough(entry.bar) {
                return None;
            }
            entry.value.downcast_ref::<R>().cloned()
        })
        .ok()
        .flatten();
    if let Some(value) = hit {
        return value;
    }
    let value = compute();
    // Gone at thread exit, or busy: the result is simply not kept.
    let _ = KEPT.try_with(|kept| {
        let Ok(mut kept) = kept.try_borrow_mut() else {
            return;
        };
        if kept.len() <= slot {
            kept.resize_with(slot + 1, || None);
        }
        match &mut kept[slot] {
            // The buffers of the result before are reused.
            Some(entry) => {
                entry.shape = board.shape();
                entry.stamp = board.digit_stamp(d);
                entry.bar = wording::bar();
                match entry.value.downcast_mut::<R>() {
                    Some(old) => *old = value.clone(),
                    None => entry.value = Box::new(value.clone()),
                }
            }
            none => {
                *none = Some(Kept {
                    shape: board.shape(),
                    stamp: board.digit_stamp(d),
                    bar: wording::bar(),
                    value: Box::new(value.clone()),
                });
            }
        }
    });
    value
}

/// Searches that remember, per digit, the places they last found nothing on (each slot
/// is one search over one digit's places alone, whose "nothing" holds while they stay).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Nothing {
    /// Locked candidates of `MEETS[k]`, direct or not: slot `2k + direct`.
    Locked(usize, bool),
}

impl Nothing {
    fn slot(self) -> usize {
        match self {
            Nothing::Locked(kind, direct) => 2 * kind + usize::from(direct),
        }
    }
}

/// Slots of [`Nothing`].
const NOTHING_SLOTS: usize = 8;

thread_local! {
    /// The digit stamp each search last found nothing on, per digit (0: none; stamps
    /// start above it).
    static NOTHING: RefCell<[[u64; Shape::MAX_SIDE]; NOTHING_SLOTS]> =
        const { RefCell::new([[0; Shape::MAX_SIDE]; NOTHING_SLOTS]) };
}

/// `search` over digit index `d`: none at once when it found nothing on the digit's places
/// as they are, else `find()` (and its "nothing" is remembered).
///
/// `find` must depend on the layout and the digit's places only.
pub(crate) fn unless_nothing<T>(
    search: Nothing,
    board: &Candidates,
    d: usize,
    find: impl FnOnce() -> Option<T>,
) -> Option<T> {
    let stamp = board.digit_stamp(d);
    let slot = search.slot();
    let known = NOTHING
        .try_with(|memo| memo.try_borrow().is_ok_and(|m| m[slot][d] == stamp))
        .unwrap_or(false);
    if known {
        return None;
    }
    let found = find();
    if found.is_none() {
        let _ = NOTHING.try_with(|memo| {
            if let Ok(mut m) = memo.try_borrow_mut() {
                m[slot][d] = stamp;
            }
        });
    }
    found
}

/// Replaces `best` with `found` when strictly better: a lower rating, or as low with more
/// removals (SE's order; among equals the first found stays, digit by digit as within one).
pub(crate) fn keep_better(
    best: &mut Option<(u16, usize, Found)>,
    found: Option<(u16, usize, Found)>,
) {
    if let Some((tenths, removed, found)) = found
        && best.as_ref().is_none_or(|(t, r, _)| {
            (tenths, std::cmp::Reverse(removed)) < (*t, std::cmp::Reverse(*r))
        })
    {
        *best = Some((tenths, removed, found));
    }
}
