//! Givens handed back to a carved puzzle until it rates inside a band: on grids above 9×9
//! the engine knows only the techniques that work on every box shape, and a puzzle carved as
//! far as uniqueness allows is mostly one it cannot finish (so meets no band).

use std::ops::RangeInclusive;

use super::Rater;
use super::rng::Random;
use crate::grid::{Grid, Shape};

/// Puts back removed orbits of `solution` (in a random order) into `cells`, as few as make
/// the puzzle rate at or below the band's top; the puzzle and its rating when that lands
/// inside the band. Ratings fall as givens come back, so the count is found by halving.
pub(super) fn refill(
    shape: Shape,
    (cells, solution): (&[u8], &Grid),
    orbits: &[Vec<usize>],
    rng: &mut Random,
    (rater, band): (&dyn Rater, &RangeInclusive<u16>),
) -> Option<(Grid, u16)> {
    let mut removed: Vec<&Vec<usize>> = orbits
        .iter()
        .filter(|orbit| orbit.iter().all(|&c| cells[c] == 0))
        .collect();
    rng.shuffle(&mut removed);
    let with = |k: usize| {
        let mut out = cells.to_vec();
        for orbit in &removed[..k] {
            for &c in orbit.iter() {
                out[c] = solution.cells()[c];
            }
        }
        let puzzle = Grid::from_values(shape, out.into_boxed_slice()).ok()?;
        let rating = rater.rate(&puzzle);
        Some((puzzle, rating))
    };
    // The fewest orbits back for a rating at or below the band's top (every orbit back
    // leaves the solution, rated 0).
    let (mut low, mut high) = (0, removed.len());
    let mut found = None;
    while low < high {
        let mid = (low + high) / 2;
        let (puzzle, rating) = with(mid)?;
        match rating {
            Some(t) if t <= *band.end() => {
                high = mid;
                found = Some((puzzle, t));
            }
            _ => low = mid + 1,
        }
    }
    found.filter(|(_, t)| band.contains(t))
}
