//! The bitboard candidate state the chain search reasons on (9x9 only): one 81-bit cell set
//! per digit, so that an assumption's consequences are cheap to copy and propagate.

use std::sync::OnceLock;

use super::super::board::Candidates;

/// A set of cells, bit `c` for cell `c` (row-major, 0..81).
pub(crate) type Set = u128;

/// Every cell of the grid.
pub(crate) const FULL: Set = (1 << 81) - 1;

/// Each cell's bit: a 128-bit shift by a variable takes several instructions, a load one.
pub(crate) const BIT: [Set; 81] = {
    let mut bits = [0; 81];
    let mut c = 0;
    while c < 81 {
        bits[c] = 1 << c;
        c += 1;
    }
    bits
};

/// House and peer tables of the classic grid, built once per process.
#[derive(Debug)]
pub(crate) struct Tables {
    /// Peers of each cell (not the cell itself).
    pub(crate) peers: [Set; 81],
    /// Houses as cell sets: rows 0..9, columns 9..18, boxes 18..27.
    pub(crate) houses: [Set; 27],
    /// The row, column and box house of each cell.
    pub(crate) cell_houses: [[u8; 3]; 81],
    /// [`Tables::cell_houses`] as cell sets (dynamic chains look at them after every fact).
    pub(crate) house_sets: [[Set; 3]; 81],
    /// Each box with each line crossing it, (box, line) in the order of boxes then lines:
    /// the places of pointing and claiming.
    pub(crate) crossings: [(Set, Set); 54],
}

/// The shared tables.
pub(crate) fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut t = Tables {
            peers: [0; 81],
            houses: [0; 27],
            cell_houses: [[0; 3]; 81],
            house_sets: [[0; 3]; 81],
            crossings: [(0, 0); 54],
        };
        for c in 0..81 {
            let (r, col) = (c / 9, c % 9);
            let b = (r / 3) * 3 + col / 3;
            t.cell_houses[c] = [r as u8, (9 + col) as u8, (18 + b) as u8];
            for h in t.cell_houses[c] {
                t.houses[h as usize] |= 1 << c;
            }
        }
        for c in 0..81 {
            for (k, h) in t.cell_houses[c].into_iter().enumerate() {
                t.peers[c] |= t.houses[h as usize];
                t.house_sets[c][k] = t.houses[h as usize];
            }
            t.peers[c] &= !(1 << c);
        }
        let mut k = 0;
        for b in 18..27 {
            for line in 0..18 {
                let (bx, ln) = (t.houses[b], t.houses[line]);
                if bx & ln != 0 {
                    t.crossings[k] = (bx, ln);
                    k += 1;
                }
            }
        }
        t
    })
}

/// The cells of a set, lowest first.
///
/// Walked as two 64-bit halves: a 128-bit test, count and clear each take two or three
/// instructions where a 64-bit one takes one, and every trace and reach walks sets so.
pub(crate) fn cells(set: Set) -> impl Iterator<Item = usize> {
    let (mut low, mut high) = (set as u64, (set >> 64) as u64);
    std::iter::from_fn(move || {
        if low != 0 {
            let c = low.trailing_zeros() as usize;
            low &= low - 1;
            Some(c)
        } else if high != 0 {
            let c = high.trailing_zeros() as usize;
            high &= high - 1;
            Some(64 + c)
        } else {
            None
        }
    })
}

/// The state a search starts from, with each cell's digits worked out once: traces read
/// them for every fact they follow, and [`State::digits`] gathers nine bits each time.
#[derive(Debug, Clone)]
pub(crate) struct Start {
    state: State,
    masks: [u16; 81],
    /// The shared tables, at hand (traces read them for every fact).
    pub(crate) tables: &'static Tables,
    /// For each candidate (`c * 9 + d`), its digit's other place in each of its cell's row,
    /// column and box where it has only two ([`NO_CELL`] where not): the static strong links
    /// that every trace follows.
    bilocal: [[u8; 3]; 81 * 9],
    /// For each candidate (`c * 9 + d`), its strong links as bits: [`ROW`], [`COL`] and
    /// [`BOX`] where its digit has two places, [`CELL`] where its cell has two digits.
    links: [u8; 81 * 9],
    /// Cells with exactly two candidates (the static strong links inside cells).
    pub(crate) bivalue: Set,
    /// How many places each digit has in each house (by the tables' house order).
    pub(crate) places: [[u8; 27]; 9],
}

/// No cell, in [`Start::bilocal`].
pub(crate) const NO_CELL: u8 = u8::MAX;

/// A candidate's strong link in its row, in [`Start::links`].
pub(crate) const ROW: u8 = 1;
/// A candidate's strong link in its column.
pub(crate) const COL: u8 = 2;
/// A candidate's strong link in its box.
pub(crate) const BOX: u8 = 4;
/// A candidate's strong link in its cell.
pub(crate) const CELL: u8 = 8;

impl Start {
    /// The start of searches on `state`.
    pub(crate) fn new(state: State) -> Start {
        let t = tables();
        let mut bilocal = [[NO_CELL; 3]; 81 * 9];
        let mut links = [0u8; 81 * 9];
        let mut masks = [0u16; 81];
        let mut counts = [[0u8; 27]; 9];
        for (d, &cand) in state.cand.iter().enumerate() {
            for c in cells(cand) {
                masks[c] |= 1 << d;
            }
            // A house at a time (a candidate at a time asked each house once per place).
            for (h, &house) in t.houses.iter().enumerate() {
                let places = cand & house;
                counts[d][h] = places.count_ones() as u8;
                if places.count_ones() != 2 {
                    continue;
                }
                let a = places.trailing_zeros() as usize;
                let b = (places & (places - 1)).trailing_zeros() as usize;
                // Rows, columns, boxes: the order of each cell's houses.
                let kind = h / 9;
                bilocal[a * 9 + d][kind] = b as u8;
                bilocal[b * 9 + d][kind] = a as u8;
                // ROW, COL, BOX: the same order.
                links[a * 9 + d] |= 1 << kind;
                links[b * 9 + d] |= 1 << kind;
            }
        }
        let bivalue = (0..81)
            .filter(|&c| masks[c].count_ones() == 2)
            .fold(0, |a, c| a | 1 << c);
        for c in cells(bivalue) {
            let mut m = masks[c];
            while m != 0 {
                links[c * 9 + m.trailing_zeros() as usize] |= CELL;
                m &= m - 1;
            }
        }
        Start {
            masks,
            state,
            tables: t,
            bilocal,
            links,
            bivalue,
            places: counts,
        }
    }

    /// The other places of digit index `d` in the houses of `c` where it has two (row,
    /// column, box; [`NO_CELL`] where it has more).
    #[inline]
    pub(crate) fn bilocal(&self, c: usize, d: usize) -> [u8; 3] {
        self.bilocal[c * 9 + d]
    }

    /// The strong links of candidate (`c`, `d`) as bits ([`ROW`], [`COL`], [`BOX`],
    /// [`CELL`]).
    #[inline]
    pub(crate) fn links(&self, c: usize, d: usize) -> u8 {
        self.links[c * 9 + d]
    }

    /// Every (cell, digit index) candidate, cell-major (as [`State::candidates`], from the
    /// digits worked out once rather than nine sets per cell).
    pub(crate) fn candidates(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::with_capacity(self.masks.iter().map(|m| m.count_ones() as usize).sum());
        for (c, &mask) in self.masks.iter().enumerate() {
            let mut m = mask;
            while m != 0 {
                out.push((c, m.trailing_zeros() as usize));
                m &= m - 1;
            }
        }
        out
    }

    /// The candidate digits of a cell, bit `d` for digit index `d` (as [`State::digits`]).
    #[inline]
    pub(crate) fn digits(&self, c: usize) -> u16 {
        self.masks[c]
    }
}

impl std::ops::Deref for Start {
    type Target = State;

    fn deref(&self) -> &State {
        &self.state
    }
}

/// Candidates and placed values, by digit (index 0..9 for digits 1..9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct State {
    /// Cells where the digit is still a candidate (empty cells only).
    pub(crate) cand: [Set; 9],
    /// Cells holding the digit.
    pub(crate) val: [Set; 9],
}

impl State {
    /// The state of an engine board (9x9).
    pub(crate) fn from_board(board: &Candidates) -> State {
        let mut s = State {
            cand: [0; 9],
            val: [0; 9],
        };
        for c in 0..81 {
            let v = board.values[c];
            if v != 0 {
                s.val[usize::from(v - 1)] |= 1 << c;
            }
            for d in 0..9 {
                if board.masks[c] >> d & 1 != 0 {
                    s.cand[d] |= 1 << c;
                }
            }
        }
        s
    }

    /// Whether `d` is a candidate of cell `c`.
    #[inline]
    pub(crate) fn has(&self, c: usize, d: usize) -> bool {
        self.cand[d] >> c & 1 != 0
    }

    /// The candidate digits of a cell, bit `d` for digit index `d`.
    #[inline]
    pub(crate) fn digits(&self, c: usize) -> u16 {
        let mut m = 0;
        for d in 0..9 {
            m |= ((self.cand[d] >> c & 1) as u16) << d;
        }
        m
    }

    /// Cells without a value.
    pub(crate) fn open(&self) -> Set {
        FULL & !self.val.iter().fold(0, |a, v| a | v)
    }

    /// Places digit index `d` in `c`: the cell loses its other candidates, its peers lose `d`.
    #[inline]
    pub(crate) fn place(&mut self, c: usize, d: usize) {
        let bit: Set = 1 << c;
        for set in &mut self.cand {
            *set &= !bit;
        }
        self.cand[d] &= !tables().peers[c];
        self.val[d] |= bit;
    }

    /// Removes digit index `d` from the candidates of `c`.
    #[inline]
    pub(crate) fn eliminate(&mut self, c: usize, d: usize) {
        self.cand[d] &= !(1 << c);
    }

    /// Every (cell, digit index) candidate, cell-major.
    pub(crate) fn candidates(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for c in cells(self.open()) {
            for d in 0..9 {
                if self.has(c, d) {
                    out.push((c, d));
                }
            }
        }
        out
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::Grid;

    /// Puzzles of the rated file (SE 8.0, 8.0, 7.0), whose first chain steps are static.
    const PUZZLES: [&str; 3] = [
        ".....5.3..5....7.87.3....95..9.63.7..6.5.1.8..2.97.3..51....9.39.2....1..3.1.....",
        "...6...2....9453..4.....8...245..1...8.....9...1..246...9.....8..2891....3...7...",
        "....8..69.....47...4...3..2.5..1...3.96...85.3...6..9.2..1...4...14.....97..5....",
    ];

    /// Each puzzle's board, then the same with a few candidates placed (wrongly or not: the
    /// links are what matters), as a solve leaves it further on.
    pub(crate) fn boards() -> Vec<Start> {
        let mut out = Vec::new();
        for p in PUZZLES {
            let grid: Grid = p.parse().expect("a valid puzzle");
            let mut state = State::from_board(&Candidates::from_grid(&grid));
            out.push(Start::new(state));
            for (k, (c, d)) in state.candidates().into_iter().enumerate() {
                if k % 17 == 3 && state.has(c, d) {
                    state.place(c, d);
                }
            }
            out.push(Start::new(state));
        }
        out
    }

    #[test]
    fn cells_lists_both_halves_lowest_first() {
        let picks = [0usize, 5, 63, 64, 65, 80];
        let set = picks.iter().fold(0 as Set, |a, &c| a | 1 << c);
        assert_eq!(cells(set).collect::<Vec<_>>(), picks);
        assert_eq!(cells(0).count(), 0);
        assert_eq!(cells(FULL).collect::<Vec<_>>(), (0..81).collect::<Vec<_>>());
    }

    #[test]
    fn bilocal_and_links_name_each_house_with_two_places() {
        let t = tables();
        let mut seen = 0;
        for s in boards() {
            for (c, d) in s.candidates() {
                for (kind, h) in t.cell_houses[c].into_iter().enumerate() {
                    let places = s.cand[d] & t.houses[usize::from(h)];
                    let other = places & !(1 << c);
                    let want = if places.count_ones() == 2 {
                        seen += 1;
                        other.trailing_zeros() as u8
                    } else {
                        NO_CELL
                    };
                    assert_eq!(s.bilocal(c, d)[kind], want, "r{}c{} {d}", c / 9, c % 9);
                    let link = s.links(c, d) >> kind & 1 == 1;
                    assert_eq!(link, want != NO_CELL, "r{}c{} {d}", c / 9, c % 9);
                }
                let bivalue = s.digits(c).count_ones() == 2;
                assert_eq!(s.links(c, d) & CELL != 0, bivalue);
                assert_eq!(s.digits(c), State::digits(&s, c));
            }
        }
        assert!(seen > 0);
    }
}
