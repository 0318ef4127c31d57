//! The board a house-by-house search last found nothing on, so that the next search looks
//! again only at houses where something changed.
//!
//! Naked and hidden subsets read one house at a time: a house whose cells hold the values
//! and candidates they held when the search last found nothing finds nothing again. At the
//! steps of a hard puzzle every basic search runs and fails, and a step changes few houses.

use std::cell::RefCell;

use crate::Shape;
use crate::logic::board::Candidates;

/// The searches that remember (one board each).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Search {
    Naked2,
    Naked3,
    Naked4,
    DirectHidden2,
    DirectHidden3,
    Hidden2,
    Hidden3,
    Hidden4,
}

/// A board a search found nothing on: its houses' stamps.
struct Nothing {
    shape: Shape,
    stamps: Vec<u64>,
}

thread_local! {
    static NOTHING: RefCell<Vec<Option<Nothing>>> = const { RefCell::new(Vec::new()) };
}

/// The houses (bit `h`) whose cells hold what they held when `search` last found nothing on
/// a board of this shape; none when it has not.
pub(crate) fn unchanged_houses(search: Search, board: &Candidates) -> u128 {
    NOTHING
        .try_with(|memo| {
            let memo = memo.try_borrow().ok()?;
            let then = memo.get(search as usize)?.as_ref()?;
            if then.shape != board.shape() || then.stamps.len() != board.layout.houses.len() {
                return None;
            }
            // Two words, not one u128 shifted per house (a third of this function's cost).
            let mut changed = [0u64; 2];
            for (h, (now, then)) in board.stamps().iter().zip(&then.stamps).enumerate() {
                changed[h / 64] |= u64::from(now != then) << (h % 64);
            }
            Some(!(u128::from(changed[1]) << 64 | u128::from(changed[0])))
        })
        .ok()
        .flatten()
        .unwrap_or(0)
}

/// Records the board `search` ran on when it found nothing (else forgets it).
pub(crate) fn remember(search: Search, board: &Candidates, found: bool) {
    let _ = NOTHING.try_with(|memo| {
        let Ok(mut memo) = memo.try_borrow_mut() else {
            return;
        };
        let slot = search as usize;
        if memo.len() <= slot {
            memo.resize_with(slot + 1, || None);
        }
        if found {
            memo[slot] = None;
            return;
        }
        // The buffers of the board before are reused.
        let mut then = memo[slot].take().unwrap_or(Nothing {
            shape: board.shape(),
            stamps: Vec::new(),
        });
        then.shape = board.shape();
        then.stamps.clear();
        then.stamps.extend_from_slice(board.stamps());
        memo[slot] = Some(then);
    });
}

/// Searches whose patterns remove no more once their own cells have lost candidates (they read
/// other cells only for what they remove, which can only shrink): after one finds nothing,
/// the next need look only at patterns through a cell whose candidates changed.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Narrowing {
    XyWing,
    XyzWing,
    Wxyz,
}

/// Words of a cell set: enough for the largest grid (35 × 35 cells).
pub(crate) const WORDS: usize = (Shape::MAX_SIDE * Shape::MAX_SIDE).div_ceil(64);

/// The candidates of a board a search found nothing on.
struct Masks {
    shape: Shape,
    masks: Vec<u64>,
}

thread_local! {
    /// The board each search last found nothing on.
    static NARROWED: RefCell<Vec<Option<Masks>>> = const { RefCell::new(Vec::new()) };
}

/// The cells (bit c % 64 of word c / 64) whose candidates changed since `search` last found
/// nothing, when every cell has only lost candidates since; `None` when it must look at all.
pub(crate) fn changed_since_nothing(search: Narrowing, board: &Candidates) -> Option<[u64; WORDS]> {
    NARROWED
        .try_with(|memo| {
            let memo = memo.try_borrow().ok()?;
            let Masks { shape, masks: then } = memo.get(search as usize)?.as_ref()?;
            if *shape != board.shape() || then.len() != board.masks.len() {
                return None;
            }
            let mut changed = [0; WORDS];
            for (c, (&now, &then)) in board.masks.iter().zip(then).enumerate() {
                if now & !then != 0 {
                    return None;
                }
                if now != then {
                    changed[c / 64] |= 1 << (c % 64);
                }
            }
            Some(changed)
        })
        .ok()
        .flatten()
}

/// Records that `search` found nothing on `board`.
pub(crate) fn found_nothing(search: Narrowing, board: &Candidates) {
    let _ = NARROWED.try_with(|memo| {
        let Ok(mut memo) = memo.try_borrow_mut() else {
            return;
        };
        let slot = search as usize;
        if memo.len() <= slot {
            memo.resize_with(slot + 1, || None);
        }
        // The buffer of the board before is reused.
        let then = memo[slot].get_or_insert_with(|| Masks {
            shape: board.shape(),
            masks: Vec::new(),
        });
        then.shape = board.shape();
        then.masks.clone_from(&board.masks);
    });
}
