//! The textbook algorithm, kept as a reference: take the first empty cell in row order, try
//! 1..N against its row, column and box, and undo on a dead end.

use super::control::{Control, SearchResult};
use crate::grid::Grid;

/// Searches any grid by plain backtracking, reporting solutions to `control`.
pub(crate) fn search(grid: &Grid, control: &mut Control) -> SearchResult {
    let shape = grid.shape();
    let side = grid.side();
    let mut cells = grid.cells().to_vec();
    // used[house] has bit v set when digit v is in that row, column or box.
    let mut used = vec![0u64; 3 * side];
    let houses = |i: usize| {
        let (r, c) = (i / side, i % side);
        [r, side + c, 2 * side + shape.box_of(r, c)]
    };
    for (i, &v) in cells.iter().enumerate() {
        for h in houses(i) {
            used[h] |= 1 << v;
        }
    }
    let empties: Vec<usize> = (0..cells.len()).filter(|&i| cells[i] == 0).collect();
    let mut depth = 0;
    loop {
        if depth == empties.len() {
            if control.solution(&cells) || depth == 0 {
                return Ok(());
            }
            depth -= 1;
        }
        let i = empties[depth];
        let hs = houses(i);
        let current = cells[i];
        if current != 0 {
            for h in hs {
                used[h] &= !(1 << current);
            }
        }
        let next =
            (current + 1..=side as u8).find(|&v| hs.iter().all(|&h| used[h] & (1 << v) == 0));
        match next {
            Some(v) => {
                control.guess()?;
                for h in hs {
                    used[h] |= 1 << v;
                }
                cells[i] = v;
                depth += 1;
            }
            None => {
                cells[i] = 0;
                if depth == 0 {
                    return Ok(());
                }
                depth -= 1;
            }
        }
    }
}
