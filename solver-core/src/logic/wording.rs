//! Whether a step's sentence and support will be read. The rater reads only the hardest
//! step's, so while it runs, steps rated no higher than the hardest so far (which cannot
//! become the hardest) go unworded: finders skip their sentences and support lists, which
//! cost several percent of the rating time and change nothing else.

use std::cell::Cell;

thread_local! {
    /// Steps rated this or lower go unread; `None` (hints, explanations): every step is read.
    static UNREAD_UPTO: Cell<Option<u16>> = const { Cell::new(None) };
}

/// Whether a step rated `tenths` will be read, so that its sentence and support are wanted.
pub(crate) fn read(tenths: u16) -> bool {
    bar().is_none_or(|upto| tenths > upto)
}

/// The bar now: steps rated this or lower go unread (`None`: every step is read).
pub(crate) fn bar() -> Option<u16> {
    UNREAD_UPTO.try_with(Cell::get).ok().flatten()
}

/// Whether steps worded under bar `then` are worded enough now: every step left unworded
/// then goes unread now too (results kept from an earlier search must pass this).
pub(crate) fn worded_enough(then: Option<u16>) -> bool {
    then.is_none_or(|then| bar().is_some_and(|now| then <= now))
}

/// While alive, steps rated at or below the bar set with [`Unread::upto`] go unworded; the
/// bar it found comes back when it is dropped (also on a panic).
pub(crate) struct Unread {
    /// The bar before this one.
    before: Option<u16>,
}

impl Unread {
    /// Starts with every step read.
    pub(crate) fn new() -> Unread {
        let before = UNREAD_UPTO.try_with(|b| b.replace(None)).ok().flatten();
        Unread { before }
    }

    /// From now on, steps rated `tenths` or lower go unread.
    pub(crate) fn upto(&self, tenths: u16) {
        let _ = UNREAD_UPTO.try_with(|b| b.set(Some(tenths)));
    }
}

impl Drop for Unread {
    fn drop(&mut self) {
        let _ = UNREAD_UPTO.try_with(|b| b.set(self.before));
    }
}

/// The changes a step makes, in the compact notation players exchange (HoDoKu's): placements
/// as `r2c6=3`, eliminations grouped by digit as `r1c23,r4c5<>7`, so that a sentence names
/// every cell it changes. Cells are 0-based indices on a grid of `side`.
pub(crate) fn changes(placements: &[(u16, u8)], eliminations: &[(u16, u8)], side: usize) -> String {
    let mut parts: Vec<String> = placements
        .iter()
        .map(|&(cell, digit)| {
            let (r, c) = (usize::from(cell) / side + 1, usize::from(cell) % side + 1);
            format!("r{r}c{c}={}", super::board::digit_char(digit))
        })
        .collect();
    let mut digits: Vec<u8> = eliminations.iter().map(|&(_, d)| d).collect();
    digits.sort_unstable();
    digits.dedup();
    for digit in digits {
        let cells: Vec<usize> = eliminations
            .iter()
            .filter(|&&(_, d)| d == digit)
            .map(|&(cell, _)| usize::from(cell))
            .collect();
        parts.push(format!(
            "{}<>{}",
            compact_cells(&cells, side),
            super::board::digit_char(digit)
        ));
    }
    parts.join(", ")
}

/// Cells as `r1c23,r45c6`: rows with the same columns merged. Numbers run together only on
/// grids of side 9 or less, where each is one character; larger grids name each cell.
pub(crate) fn compact_cells(cells: &[usize], side: usize) -> String {
    let mut cells = cells.to_vec();
    cells.sort_unstable();
    cells.dedup();
    if side > 9 {
        let names: Vec<String> = cells
            .iter()
            .map(|&c| format!("r{}c{}", c / side + 1, c % side + 1))
            .collect();
        return names.join(",");
    }
    // Each row's columns, then rows with the same columns joined, in order of first row.
    let mut rows: Vec<(String, String)> = Vec::new();
    for row in 0..side {
        let cols: String = cells
            .iter()
            .filter(|&&c| c / side == row)
            .map(|&c| char::from(b'1' + (c % side) as u8))
            .collect();
        if cols.is_empty() {
            continue;
        }
        let name = char::from(b'1' + row as u8);
        match rows.iter_mut().find(|(_, c)| *c == cols) {
            Some((rs, _)) => rs.push(name),
            None => rows.push((name.to_string(), cols)),
        }
    }
    let groups: Vec<String> = rows.iter().map(|(r, c)| format!("r{r}c{c}")).collect();
    groups.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_named_cell_by_cell_in_the_compact_notation() {
        // r1c2, r1c3 and r4c5 lose 7; r9c9 loses 1; r2c6 gets 3.
        let text = changes(&[(14, 3)], &[(1, 7), (2, 7), (31, 7), (80, 1)], 9);
        assert_eq!(text, "r2c6=3, r9c9<>1, r1c23,r4c5<>7");
        // Rows with the same columns merge: r1c1, r2c1, r1c4, r2c4.
        assert_eq!(compact_cells(&[0, 9, 3, 12], 9), "r12c14");
        // A 16x16 grid names every cell in full.
        assert_eq!(compact_cells(&[0, 17], 16), "r1c1,r2c2");
    }

    #[test]
    fn steps_above_the_bar_are_read_and_the_bar_goes_with_its_guard() {
        assert!(read(0));
        {
            let unread = Unread::new();
            assert!(read(12));
            unread.upto(26);
            assert!(!read(12));
            assert!(!read(26));
            assert!(read(27));
            {
                let inner = Unread::new();
                assert!(read(12));
                inner.upto(90);
                assert!(!read(80));
            }
            assert!(!read(26));
            assert!(read(27));
        }
        assert!(read(0));
    }

    #[test]
    fn what_was_worded_under_a_lower_bar_is_worded_enough() {
        assert!(worded_enough(None));
        assert!(!worded_enough(Some(20)));
        let unread = Unread::new();
        unread.upto(30);
        assert!(worded_enough(None));
        assert!(worded_enough(Some(20)));
        assert!(worded_enough(Some(30)));
        assert!(!worded_enough(Some(31)));
    }
}
