//! XY-Wing and XYZ-Wing.

use super::board::{Candidates, digit_char};
use super::step::{Found, Technique};

/// A pivot with candidates xy (XY-Wing, 4.2) or xyz (XYZ-Wing, 4.4) seeing pincers xz and yz:
/// z leaves every cell that sees both pincers (and the pivot, for XYZ).
pub(crate) fn wing(board: &Candidates, xyz: bool) -> Option<Found> {
    let (technique, tenths) = if xyz {
        (Technique::XyzWing, 44)
    } else {
        (Technique::XyWing, 42)
    };
    let n = board.masks.len();
    let layout = &board.layout;
    let pivot_size = if xyz { 3 } else { 2 };
    for pivot in 0..n {
        let pm = board.masks[pivot];
        if pm.count_ones() != pivot_size {
            continue;
        }
        // Bivalue peers of the pivot sharing exactly one digit (XY) or two of three (XYZ).
        let wings: Vec<usize> = peers(board, pivot)
            .filter(|&c| {
                let m = board.masks[c];
                m.count_ones() == 2
                    && if xyz {
                        m & pm == m
                    } else {
                        (m & pm).count_ones() == 1
                    }
            })
            .collect();
        for (i, &a) in wings.iter().enumerate() {
            for &b in &wings[i + 1..] {
                let (ma, mb) = (board.masks[a], board.masks[b]);
                if ma == mb {
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
                let support = || super::step::candidates_of(board, [pivot, a, b], u64::MAX);
                let text = || {
                    format!(
                        "pivot {} with pincers {} and {}: whichever holds, {} is in a pincer{}, so it leaves the cells that see {}",
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

/// The peers of a cell, lowest first (its peer set read, not every cell tested).
fn peers(board: &Candidates, cell: usize) -> impl Iterator<Item = usize> + '_ {
    board.layout.peers[cell]
        .iter()
        .enumerate()
        .flat_map(|(w, &word)| {
            let mut m = word;
            std::iter::from_fn(move || {
                (m != 0).then(|| {
                    let c = w * 64 + m.trailing_zeros() as usize;
                    m &= m - 1;
                    c
                })
            })
        })
}
