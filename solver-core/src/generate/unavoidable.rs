//! Unavoidable sets of a 9×9 solution: cell sets that some other valid grid changes and
//! nothing else, so a puzzle with no given among them has two solutions. A removal that would
//! leave one of them empty is refused without a search.
//!
//! Two families cost a few thousand instructions per grid and settle about a third of the
//! removals carving refuses: digit pairs (swap two digits on a component of their cells linked
//! by rows, columns and boxes) and line pairs (swap two rows of a band, or two columns of a
//! stack, on a cycle of their digit permutation).

/// Cells as bits of a `u128`, bit `9 * row + col`.
pub(super) type Cells = u128;

/// The unavoidable sets found for one solution.
pub(super) struct Unavoidable {
    sets: Vec<Cells>,
}

impl Unavoidable {
    /// The digit-pair and line-pair sets of a complete 9×9 grid.
    pub(super) fn new(solution: &[u8; 81]) -> Unavoidable {
        // Duplicates (a rectangle is both kinds) cost less to test than sorting them out.
        let mut sets = Vec::with_capacity(256);
        line_pairs(solution, &mut sets);
        digit_pairs(solution, &mut sets);
        Unavoidable { sets }
    }

    /// Whether some set has no cell in `givens`: the puzzle they make is not unique.
    pub(super) fn missed_by(&self, givens: Cells) -> bool {
        self.sets.iter().any(|&s| s & givens == 0)
    }
}

/// Components of each digit pair's 18 cells, joined where they share a row, column or box:
/// swapping the two digits on one keeps every house holding each once.
fn digit_pairs(solution: &[u8; 81], sets: &mut Vec<Cells>) {
    // Per digit, its cell in each row, column and box as a bit, and the column and box of its
    // cell in each row: each pair then costs lookups, no shifts of 128-bit values.
    let mut at = [[[0 as Cells; 9]; 3]; 10];
    let mut crossing = [[(0usize, 0usize); 9]; 10];
    for (i, &v) in solution.iter().enumerate() {
        let (v, bit) = (usize::from(v), 1 << i);
        let (row, col, bx) = (i / 9, i % 9, i / 27 * 3 + i % 9 / 3);
        at[v][0][row] = bit;
        at[v][1][col] = bit;
        at[v][2][bx] = bit;
        crossing[v][row] = (col, bx);
    }
    for a in 1..=9 {
        for b in a + 1..=9 {
            // Disjoint parts so far; each a-cell's links merge every part they touch.
            let mut parts = [0 as Cells; 9];
            let mut n = 0;
            // Each house holds one a and one b: link each a-cell to the b-cells of its houses.
            for (row, &(col, bx)) in crossing[a].iter().enumerate() {
                let mut part = at[a][0][row] | at[b][0][row] | at[b][1][col] | at[b][2][bx];
                let mut k = 0;
                while k < n {
                    if parts[k] & part != 0 {
                        part |= parts[k];
                        n -= 1;
                        parts[k] = parts[n];
                    } else {
                        k += 1;
                    }
                }
                parts[n] = part;
                n += 1;
            }
            sets.extend_from_slice(&parts[..n]);
        }
    }
}

/// Cycles of two lines in one band or stack: moving each digit of a cycle to the other line
/// keeps both lines full, and every box and crossing line holds the same digits as before.
fn line_pairs(solution: &[u8; 81], sets: &mut Vec<Cells>) {
    // Cell k of line l, for rows then columns.
    let cell = |columns: bool, l: usize, k: usize| if columns { k * 9 + l } else { l * 9 + k };
    for columns in [false, true] {
        for first in 0..9 {
            for second in first + 1..first / 3 * 3 + 3 {
                let mut place = [0usize; 10];
                for k in 0..9 {
                    place[usize::from(solution[cell(columns, first, k)])] = k;
                }
                let mut seen = 0u16;
                for start in 0..9 {
                    if seen & 1 << start != 0 {
                        continue;
                    }
                    let mut set: Cells = 0;
                    let mut k = start;
                    while seen & 1 << k == 0 {
                        seen |= 1 << k;
                        set |= 1 << cell(columns, first, k) | 1 << cell(columns, second, k);
                        // The next position holds, on the first line, this digit of the second.
                        k = place[usize::from(solution[cell(columns, second, k)])];
                    }
                    sets.push(set);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::fill::random_solution;
    use crate::generate::rng::Random;
    use crate::grid::{Grid, Shape};
    use crate::solve::{Options, Outcome, solve};

    #[test]
    fn every_set_leaves_a_second_solution() {
        for seed in 0..20 {
            let solution = random_solution(Shape::CLASSIC, &mut Random::new(seed));
            let cells: &[u8; 81] = solution.cells().try_into().expect("9x9");
            let bank = Unavoidable::new(cells);
            assert!(bank.sets.len() > 36, "{}", bank.sets.len());
            for &set in &bank.sets {
                let puzzle: Vec<u8> = (0..81)
                    .map(|i| if set >> i & 1 == 1 { 0 } else { cells[i] })
                    .collect();
                let grid = Grid::new(Shape::CLASSIC, &puzzle).expect("a subset of a solution");
                let found = solve(&grid, &Options::default()).expect("9x9").outcome;
                assert!(matches!(found, Outcome::Multiple { .. }), "{set:b}");
            }
        }
    }
}
