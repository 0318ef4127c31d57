//! XY-Wing and XYZ-Wing.

use super::house_memo::{self, Narrowing, WORDS};
use crate::logic::board::{Candidates, digit_char};
use crate::logic::step::{Found, Technique};

/// A pivot with candidates xy (XY-Wing, 4.2) or xyz (XYZ-Wing, 4.4) seeing pincers xz and yz:
/// z leaves every cell that sees both pincers (and the pivot, for XYZ).
///
/// After a search that found nothing, while cells have only lost candidates, a wing of three
/// cells that kept theirs removes nothing still: only wings through a changed cell are tried.
pub(crate) fn wing(board: &Candidates, xyz: bool) -> Option<Found> {
    let search = if xyz {
        Narrowing::XyzWing
    } else {
        Narrowing::XyWing
    };
    let changed = house_memo::changed_since_nothing(search, board);
    let found = first_wing(board, xyz, changed.as_ref());
    if found.is_none() {
        house_memo::found_nothing(search, board);
    }
    found
}

/// [`wing`], through a cell of `changed` only when given.
fn first_wing(board: &Candidates, xyz: bool, changed: Option<&[u64; WORDS]>) -> Option<Found> {
    let is_changed = |c: usize| changed.is_none_or(|set| set[c / 64] >> (c % 64) & 1 != 0);
    let (technique, tenths) = if xyz {
        (Technique::XyzWing, 44)
    } else {
        (Technique::XyWing, 42)
    };
    let n = board.masks.len();
    let layout = &board.layout;
    let pivot_size = if xyz { 3 } else { 2 };
    // The bivalue cells, so that a pivot's pincers are read off its peer set a word at a
    // time; one list of pincers for every pivot.
    let mut bivalue = [0u64; WORDS];
    for (c, m) in board.masks.iter().enumerate() {
        bivalue[c / 64] |= u64::from(m.count_ones() == 2) << (c % 64);
    }
    let mut wings: Vec<usize> = Vec::new();
    for pivot in 0..n {
        let pm = board.masks[pivot];
        if pm.count_ones() != pivot_size {
            continue;
        }
        let pivot_changed = is_changed(pivot);
        if !pivot_changed
            && changed
                .is_some_and(|set| (set.iter().zip(&layout.peers[pivot])).all(|(s, p)| s & p == 0))
        {
            continue;
        }
        pincers(board, (pivot, xyz), &bivalue, &mut wings);
        for (i, &a) in wings.iter().enumerate() {
            for &b in &wings[i + 1..] {
                let (ma, mb) = (board.masks[a], board.masks[b]);
                if ma == mb || !(pivot_changed || is_changed(a) || is_changed(b)) {
                    continue;
                }
                let z = ma & mb;
                if z.count_ones() != 1 || (!xyz && (ma | mb) & !pm != z) || (xyz && ma | mb != pm) {
                    continue;
                }
                let digit = z.trailing_zeros() as u8 + 1;
                let elims: Vec<(u16, u8)> = board
                    .seeing_both(a, b, z)
                    .filter(|&c| c != pivot && (!xyz || layout.sees(c, pivot)))
                    .map(|c| (c as u16, digit))
                    .collect();
                if elims.is_empty() {
                    continue;
                }
                let support = || crate::logic::step::candidates_of(board, [pivot, a, b], u64::MAX);
                let text = || {
                    format!(
                        "pivot {} with pincers {} and {}: whichever holds, digit {} is in a pincer{}, so it is removed from the cells that see {}",
                        board.cell_name(pivot),
                        board.cell_name(a),
                        board.cell_name(b),
                        digit_char(digit),
                        if xyz { " or the pivot" } else { "" },
                        if xyz { "all three" } else { "both pincers" }
                    )
                };
                return Some(
                    Found::removing(technique, tenths, elims)
                        .resting_on(support)
                        .saying(text),
                );
            }
        }
    }
    None
}

/// Into `wings`, the bivalue peers (`bivalue`, a bit per cell) of `pivot` that share exactly
/// one digit with it (XY) or two of its three (XYZ, when `xyz`).
fn pincers(
    board: &Candidates,
    (pivot, xyz): (usize, bool),
    bivalue: &[u64; WORDS],
    wings: &mut Vec<usize>,
) {
    let pm = board.masks[pivot];
    let words = board.masks.len().div_ceil(64);
    wings.clear();
    for (w, (&p, &two)) in board.layout.peers[pivot]
        .iter()
        .zip(bivalue)
        .take(words)
        .enumerate()
    {
        let mut m = p & two;
        while m != 0 {
            let c = w * 64 + m.trailing_zeros() as usize;
            m &= m - 1;
            let mc = board.masks[c];
            let fits = if xyz {
                mc & pm == mc
            } else {
                (mc & pm).count_ones() == 1
            };
            if fits {
                wings.push(c);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::engine;

    #[test]
    fn searches_after_one_that_found_nothing_find_what_a_full_search_finds() {
        // Solves that try wings at many steps and meet some (SE 4.2 - 8.x).
        let (mut met, mut narrowed) = (0, 0);
        for puzzle in engine::SOLVE_PATH_PUZZLES {
            engine::each_board(puzzle, |b| {
                for (xyz, search) in [(false, Narrowing::XyWing), (true, Narrowing::XyzWing)] {
                    narrowed += usize::from(
                        house_memo::changed_since_nothing(search, b)
                            .is_some_and(|c| c.iter().any(|&w| w != 0)),
                    );
                    let full = first_wing(b, xyz, None).map(|f| f.to_step(b));
                    met += usize::from(full.is_some());
                    assert_eq!(wing(b, xyz).map(|f| f.to_step(b)), full);
                }
            });
        }
        assert!(
            met > 20 && narrowed > 100,
            "{met} wings, {narrowed} narrowed searches"
        );
    }
}
