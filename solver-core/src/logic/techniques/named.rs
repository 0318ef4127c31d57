//! Patterns players know by name that Sukaku Explainer finds only as forcing chains: the
//! W-Wing and ALS-XZ. Hints and explanations offer them where SE's next step would be a chain,
//! with the rating SE gives that step; ratings never use them, so they stay SE's.

use crate::logic::board::{Candidates, bits, digit_char, digit_names};
use crate::logic::step::{Found, Technique, candidates_of};

/// Most cells in an almost locked set: larger sets are rare in hints and costly to pair.
const MAX_ALS_CELLS: usize = 4;

/// Two bivalue cells with the same digits x/y that do not see each other, joined by a strong
/// link on x (the only two x of a house, one seeing each cell): one of the two cells is y,
/// so y leaves every cell that sees both.
pub(crate) fn w_wing(board: &Candidates) -> Option<Found> {
    let layout = &board.layout;
    let n = board.masks.len();
    let pairs: Vec<usize> = (0..n)
        .filter(|&c| board.masks[c].count_ones() == 2)
        .collect();
    for (i, &a) in pairs.iter().enumerate() {
        for &b in &pairs[i + 1..] {
            let mask = board.masks[a];
            if board.masks[b] != mask || layout.sees(a, b) {
                continue;
            }
            for x in bits(mask) {
                let y_bit = mask & !(1 << x);
                let elims: Vec<usize> = (0..n)
                    .filter(|&c| {
                        c != a
                            && c != b
                            && board.masks[c] & y_bit != 0
                            && layout.sees(c, a)
                            && layout.sees(c, b)
                    })
                    .collect();
                if elims.is_empty() {
                    continue;
                }
                if let Some((p, q)) = strong_link(board, x, a, b) {
                    return Some(w_wing_step(board, [a, b], (p, q), x, y_bit, &elims));
                }
            }
        }
    }
    None
}

/// A house whose only two cells with digit index `x` are `p` seeing `a` and `q` seeing `b`.
fn strong_link(board: &Candidates, x: usize, a: usize, b: usize) -> Option<(usize, usize)> {
    let layout = &board.layout;
    layout.houses.iter().find_map(|house| {
        let mut holders = house
            .iter()
            .map(|&c| usize::from(c))
            .filter(|&c| board.masks[c] & 1 << x != 0);
        let (p, q) = (holders.next()?, holders.next()?);
        if holders.next().is_some() || [p, q].iter().any(|&c| c == a || c == b) {
            return None;
        }
        if layout.sees(p, a) && layout.sees(q, b) {
            Some((p, q))
        } else if layout.sees(q, a) && layout.sees(p, b) {
            Some((q, p))
        } else {
            None
        }
    })
}

fn w_wing_step(
    board: &Candidates,
    [a, b]: [usize; 2],
    (p, q): (usize, usize),
    x: usize,
    y_bit: u64,
    elims: &[usize],
) -> Found {
    let y = y_bit.trailing_zeros() as u8 + 1;
    let (xc, yc) = (digit_char(x as u8 + 1), digit_char(y));
    let mut support = candidates_of(board, [a, b], u64::MAX);
    support.extend(candidates_of(board, [p, q], 1 << x));
    let text = format!(
        "{} and {} hold only {xc}/{yc}, and digit {xc} is in {} or {}: if {} is not {yc} it is {xc}, \
         so {} is not, {} is, and {} is {yc}; either way {yc} is removed from {}",
        board.cell_name(a),
        board.cell_name(b),
        board.cell_name(p),
        board.cell_name(q),
        board.cell_name(a),
        board.cell_name(p),
        board.cell_name(q),
        board.cell_name(b),
        board.cell_names(elims.iter().copied()),
    );
    let eliminations = elims.iter().map(|&c| (c as u16, y)).collect();
    Found::removing(Technique::WWing, 0, eliminations)
        .resting_on(|| support)
        .saying(|| text)
}

/// An almost locked set: `cells` of one house holding one digit more than cells.
#[derive(Debug, Clone)]
struct Als {
    cells: Vec<usize>,
    digits: u64,
}

impl Als {
    /// Its cells that hold digit index `d`.
    fn holding(&self, board: &Candidates, d: usize) -> Vec<usize> {
        self.cells
            .iter()
            .copied()
            .filter(|&c| board.masks[c] & 1 << d != 0)
            .collect()
    }
}

/// Every almost locked set of up to [`MAX_ALS_CELLS`] empty cells in one house.
fn almost_locked_sets(board: &Candidates) -> Vec<Als> {
    let mut found = Vec::new();
    for house in &board.layout.houses {
        let open: Vec<usize> = house
            .iter()
            .map(|&c| usize::from(c))
            .filter(|&c| board.masks[c] != 0)
            .collect();
        let mut chosen = Vec::new();
        grow(board, &open, 0, 0, &mut chosen, &mut found);
    }
    found
}

/// Extends `chosen` with cells of `open` from `from` on, keeping each set that is an ALS.
fn grow(
    board: &Candidates,
    open: &[usize],
    from: usize,
    digits: u64,
    chosen: &mut Vec<usize>,
    found: &mut Vec<Als>,
) {
    for i in from..open.len() {
        let with = digits | board.masks[open[i]];
        chosen.push(open[i]);
        if with.count_ones() as usize == chosen.len() + 1 {
            found.push(Als {
                cells: chosen.clone(),
                digits: with,
            });
        }
        if chosen.len() < MAX_ALS_CELLS {
            grow(board, open, i + 1, with, chosen, found);
        }
        chosen.pop();
    }
}

/// Two almost locked sets A and B sharing a restricted common digit x (every x of A sees
/// every x of B, so at most one set holds x) and another common digit z: one set is then
/// locked without x, so z is in A or B, and leaves every cell that sees all their z.
pub(crate) fn als_xz(board: &Candidates) -> Option<Found> {
    let sets = almost_locked_sets(board);
    for (i, a) in sets.iter().enumerate() {
        for b in &sets[i + 1..] {
            if a.cells.iter().any(|c| b.cells.contains(c)) {
                continue;
            }
            let common = a.digits & b.digits;
            if common.count_ones() < 2 {
                continue;
            }
            if let Some(found) = als_pair(board, a, b, common) {
                return Some(found);
            }
        }
    }
    None
}

/// The ALS-XZ step of one pair of sets, if it removes anything.
fn als_pair(board: &Candidates, a: &Als, b: &Als, common: u64) -> Option<Found> {
    let layout = &board.layout;
    let sees_all = |c: usize, cells: &[usize]| cells.iter().all(|&o| o != c && layout.sees(c, o));
    for x in bits(common) {
        let (ax, bx) = (a.holding(board, x), b.holding(board, x));
        if !ax.iter().all(|&c| sees_all(c, &bx)) {
            continue;
        }
        let mut elims = Vec::new();
        for z in bits(common & !(1 << x)) {
            let mut zs = a.holding(board, z);
            zs.extend(b.holding(board, z));
            elims.extend(
                (0..board.masks.len())
                    .filter(|&c| board.masks[c] & 1 << z != 0 && sees_all(c, &zs))
                    .map(|c| (c as u16, z as u8 + 1)),
            );
        }
        if !elims.is_empty() {
            return Some(als_step(board, a, b, x, elims));
        }
    }
    None
}

fn als_step(board: &Candidates, a: &Als, b: &Als, x: usize, elims: Vec<(u16, u8)>) -> Found {
    let mut support = candidates_of(board, a.cells.iter().copied(), u64::MAX);
    support.extend(candidates_of(board, b.cells.iter().copied(), u64::MAX));
    let removed: u64 = elims.iter().fold(0, |m, &(_, d)| m | 1 << (d - 1));
    let text = format!(
        "{} ({}) and {} ({}) each hold one digit more than cells, and every {x} of one sees \
         every {x} of the other: one set is locked without {x}, so {} is in one of them and is \
         removed from {}",
        board.cell_names(a.cells.iter().copied()),
        digit_names(a.digits),
        board.cell_names(b.cells.iter().copied()),
        digit_names(b.digits),
        digit_names(removed),
        board.cell_names(elims.iter().map(|&(c, _)| usize::from(c))),
        x = digit_char(x as u8 + 1),
    );
    Found::removing(Technique::AlsXz, 0, elims)
        .resting_on(|| support)
        .saying(|| text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Grid;
    use crate::logic::engine;
    use crate::logic::{RateOptions, unique_solution};

    /// Rated puzzles from 6.2 up, each taken to where SE's basic techniques run out.
    fn stuck_boards(limit: usize) -> Vec<(Candidates, Grid)> {
        let Some(path) = test_support::data_file("se_rated_public.txt") else {
            return Vec::new();
        };
        let text = std::fs::read_to_string(path).expect("the rated file reads");
        let options = RateOptions::default();
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| {
                let (puzzle, rating) = l.split_once(' ')?;
                (rating.trim().parse::<f64>().ok()? >= 6.2).then_some(puzzle)
            })
            .take(limit)
            .map(|puzzle| {
                let grid: Grid = puzzle.parse().expect("a valid puzzle");
                let solution = unique_solution(&grid, &options).expect("unique");
                let mut board = Candidates::from_grid(&grid);
                while let Some(step) = engine::next_step(&board, &options) {
                    if matches!(step.technique, Technique::Chain(_)) {
                        break;
                    }
                    step.apply(&mut board);
                }
                (board, solution)
            })
            .collect()
    }

    #[test]
    fn w_wings_and_als_xz_found_past_the_basic_techniques_are_sound() {
        let boards = stuck_boards(60);
        if boards.is_empty() {
            return; // `data_file` said why, or failed in CI.
        }
        let (mut wings, mut als) = (0, 0);
        for (board, solution) in &boards {
            for (found, count) in [(w_wing(board), &mut wings), (als_xz(board), &mut als)] {
                let Some(found) = found else { continue };
                *count += 1;
                assert!(!found.eliminations.is_empty());
                assert!(
                    engine::agrees(&found, solution.cells()),
                    "{}: {:?} on {:?}",
                    found.text,
                    found.eliminations,
                    solution
                );
            }
        }
        // The sample must exercise both, or this test proves nothing.
        assert!(wings > 0 && als > 0, "W-Wings {wings}, ALS-XZ {als}");
    }
}
