//! The candidate grid the logic engine reasons on: values, candidate masks and house tables.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use crate::grid::{Grid, Shape};

/// Cell, house and digit tables of one box shape, shared by every board of that shape.
#[derive(Debug)]
pub(crate) struct Layout {
    pub(crate) shape: Shape,
    pub(crate) side: usize,
    /// Houses in the order rows, columns, boxes; each lists its cells in reading order.
    pub(crate) houses: Vec<Vec<u16>>,
    /// The row, column and box house of each cell.
    pub(crate) cell_houses: Vec<[u16; 3]>,
    /// The position of each cell within its row, column and box.
    pub(crate) cell_slots: Vec<[u8; 3]>,
    /// Each cell's peers as a cell set (bit c % 64 of word c / 64).
    pub(crate) peers: Vec<Vec<u64>>,
    /// For each cell and each of [`MEETS`]: the places of the cell's source house that lie in
    /// its target house, and the target's places that lie in the source (bit i: i-th cell).
    pub(crate) meets: Vec<[(u64, u64); 4]>,
}

/// The pairs of houses locked candidates look at, as slots of `cell_houses` (source, target):
/// box to column, box to row, column to box, row to box.
pub(crate) const MEETS: [(usize, usize); 4] = [(2, 1), (2, 0), (1, 2), (0, 2)];

impl Layout {
    fn build(shape: Shape) -> Layout {
        let side = shape.side();
        let mut houses = vec![Vec::with_capacity(side); 3 * side];
        let mut cell_houses = Vec::with_capacity(side * side);
        let mut cell_slots = Vec::with_capacity(side * side);
        for row in 0..side {
            for col in 0..side {
                let cell = (row * side + col) as u16;
                let b = shape.box_of(row, col);
                let in_box = houses[2 * side + b].len() as u8;
                houses[row].push(cell);
                houses[side + col].push(cell);
                houses[2 * side + b].push(cell);
                cell_houses.push([row as u16, (side + col) as u16, (2 * side + b) as u16]);
                cell_slots.push([col as u8, row as u8, in_box]);
            }
        }
        let words = (side * side).div_ceil(64);
        let peers = (0..side * side)
            .map(|cell| {
                let mut set = vec![0u64; words];
                for &h in &cell_houses[cell] {
                    for &c in &houses[h as usize] {
                        set[c as usize / 64] |= 1 << (c % 64);
                    }
                }
                set[cell / 64] &= !(1 << (cell % 64));
                set
            })
            .collect();
        let meets = (0..side * side)
            .map(|cell| {
                MEETS.map(|(from_slot, to_slot)| {
                    let (from, to) = (cell_houses[cell][from_slot], cell_houses[cell][to_slot]);
                    let within = |house: u16, own: usize, other: usize, meet: u16| {
                        houses[house as usize]
                            .iter()
                            .filter(|&&c| cell_houses[c as usize][other] == meet)
                            .fold(0u64, |m, &c| m | 1 << cell_slots[c as usize][own])
                    };
                    (
                        within(from, from_slot, to_slot, to),
                        within(to, to_slot, from_slot, from),
                    )
                })
            })
            .collect();
        Layout {
            shape,
            side,
            houses,
            cell_houses,
            cell_slots,
            peers,
            meets,
        }
    }

    /// The shared layout of a shape, built once per process: a 25×25 layout is over 100 KB,
    /// and every board of the shape (one per rating, hint or explanation under way) shares it.
    pub(crate) fn of(shape: Shape) -> Arc<Layout> {
        static CLASSIC: OnceLock<Arc<Layout>> = OnceLock::new();
        static OTHERS: Mutex<Vec<Arc<Layout>>> = Mutex::new(Vec::new());
        if shape == Shape::CLASSIC {
            return CLASSIC
                .get_or_init(|| Arc::new(Layout::build(shape)))
                .clone();
        }
        // Few shapes exist (boxes of 2 to 35 cells), so a list is enough; a poisoned lock
        // still holds whole layouts.
        let mut others = OTHERS.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(layout) = others.iter().find(|l| l.shape == shape) {
            return layout.clone();
        }
        let layout = Arc::new(Layout::build(shape));
        others.push(layout.clone());
        layout
    }

    /// The 0-based row of a cell.
    pub(crate) fn row(&self, cell: usize) -> usize {
        cell / self.side
    }

    /// The 0-based column of a cell.
    pub(crate) fn col(&self, cell: usize) -> usize {
        cell % self.side
    }

    /// Whether two distinct cells share a house.
    pub(crate) fn sees(&self, a: usize, b: usize) -> bool {
        let (ha, hb) = (self.cell_houses[a], self.cell_houses[b]);
        a != b && (ha[0] == hb[0] || ha[1] == hb[1] || ha[2] == hb[2])
    }
}

/// Kind of house: a house index below `side` is a row, below `2·side` a column, else a box.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HouseKind {
    Row,
    Col,
    Box,
}

/// A grid of placed values and, for each empty cell, the digits still possible there.
///
/// Bit `d - 1` of a cell's mask stands for digit `d`; a filled cell has an empty mask.
#[derive(Debug, Clone)]
pub struct Candidates {
    pub(crate) layout: Arc<Layout>,
    pub(crate) values: Vec<u8>,
    pub(crate) masks: Vec<u64>,
    /// `pos[house · side + d]`: the cells of the house (bit i = i-th cell) where digit d + 1
    /// is still a candidate; kept in step with `masks` so techniques read it for free.
    pos: Vec<u64>,
    /// `stamps[house]`: the stamp of the last change to the house's values or candidates.
    /// Stamps are unique in the process (each change takes a new one; a copy keeps them),
    /// so a house with the stamp it had holds what it held then.
    stamps: Vec<u64>,
    /// `digit_stamps[d]`: the stamp of the last change to the places of digit d + 1 (any
    /// house), unique as `stamps`: the same stamp, the same places of the digit.
    digit_stamps: Vec<u64>,
    /// `placed[house]`: the digits placed in the house.
    placed: Vec<u64>,
}

/// The next change's stamp, unique in the process (a board may change threads): each thread
/// takes a block of 2^32 stamps from the shared counter once, so that threads rating side by
/// side do not fight over one cache line on every change.
fn new_stamp() -> u64 {
    const BLOCK: u64 = 1 << 32;
    static NEXT_BLOCK: AtomicU64 = AtomicU64::new(1);
    thread_local! {
        static STAMPS: std::cell::Cell<(u64, u64)> = const { std::cell::Cell::new((0, 0)) };
    }
    STAMPS.with(|s| {
        let (mut next, mut end) = s.get();
        if next == end {
            next = NEXT_BLOCK.fetch_add(1, Ordering::Relaxed) * BLOCK;
            end = next + BLOCK;
        }
        s.set((next + 1, end));
        next
    })
}

impl PartialEq for Candidates {
    fn eq(&self, other: &Self) -> bool {
        self.layout.shape == other.layout.shape
            && self.values == other.values
            && self.masks == other.masks
    }
}

impl Candidates {
    /// Every digit the rules allow in each empty cell of `grid`.
    pub fn from_grid(grid: &Grid) -> Candidates {
        let layout = Layout::of(grid.shape());
        let side = layout.side;
        let all = (1u64 << side) - 1;
        let mut used = vec![0u64; 3 * side];
        for (cell, &v) in grid.cells().iter().enumerate() {
            if v != 0 {
                for h in layout.cell_houses[cell] {
                    used[h as usize] |= 1 << (v - 1);
                }
            }
        }
        let masks = grid
            .cells()
            .iter()
            .enumerate()
            .map(|(cell, &v)| {
                let [r, c, b] = layout.cell_houses[cell];
                if v != 0 {
                    0
                } else {
                    all & !(used[r as usize] | used[c as usize] | used[b as usize])
                }
            })
            .collect();
        let mut board = Candidates {
            layout,
            values: grid.cells().to_vec(),
            masks,
            pos: Vec::new(),
            stamps: Vec::new(),
            digit_stamps: Vec::new(),
            placed: Vec::new(),
        };
        board.rebuild_positions();
        board
    }

    /// Recomputes the per-house positions after masks were edited directly.
    pub(crate) fn rebuild_positions(&mut self) {
        let side = self.layout.side;
        self.pos.clear();
        self.pos.resize(3 * side * side, 0);
        let stamp = new_stamp();
        self.stamps.clear();
        self.stamps.resize(3 * side, stamp);
        self.digit_stamps.clear();
        self.digit_stamps.resize(side, stamp);
        self.placed.clear();
        self.placed.resize(3 * side, 0);
        for (cell, &v) in self.values.iter().enumerate() {
            if v != 0 {
                for h in self.layout.cell_houses[cell] {
                    self.placed[h as usize] |= 1 << (v - 1);
                }
            }
        }
        for (cell, &mask) in self.masks.iter().enumerate() {
            let houses = self.layout.cell_houses[cell];
            let slots = self.layout.cell_slots[cell];
            for d in bits(mask) {
                for k in 0..3 {
                    self.pos[houses[k] as usize * side + d] |= 1 << slots[k];
                }
            }
        }
    }

    /// Clears `digit - 1` = `d` of `cell` from the position table, stamping its houses.
    #[inline]
    fn unposition(&mut self, cell: usize, d: usize, stamp: u64) {
        let side = self.layout.side;
        let houses = self.layout.cell_houses[cell];
        let slots = self.layout.cell_slots[cell];
        for k in 0..3 {
            self.pos[houses[k] as usize * side + d] &= !(1 << slots[k]);
            self.stamps[houses[k] as usize] = stamp;
        }
        self.digit_stamps[d] = stamp;
    }

    /// The grid's candidates narrowed to a player's pencil marks: `marks[i]` holds the digits
    /// pencilled in cell `i` (row-major, bit `d - 1` for digit `d`); marks of filled cells are
    /// ignored, and marks the givens already rule out are dropped.
    pub fn with_marks(grid: &Grid, marks: &[u64]) -> Result<Candidates, super::LogicError> {
        let mut board = Candidates::from_grid(grid);
        if marks.len() != board.masks.len() {
            return Err(super::LogicError::MarksCount {
                found: marks.len(),
                expected: board.masks.len(),
            });
        }
        for (mask, &mark) in board.masks.iter_mut().zip(marks) {
            *mask &= mark;
        }
        board.rebuild_positions();
        Ok(board)
    }

    /// The box shape.
    pub fn shape(&self) -> Shape {
        self.layout.shape
    }

    /// The digits still possible at a 0-based row and column (bit `d - 1` for digit `d`).
    pub fn mask(&self, row: usize, col: usize) -> u64 {
        self.masks[row * self.layout.side + col]
    }

    /// The value at a 0-based row and column, 0 if empty.
    pub fn value(&self, row: usize, col: usize) -> u8 {
        self.values[row * self.layout.side + col]
    }

    /// Whether every cell holds a value.
    pub fn is_solved(&self) -> bool {
        self.values.iter().all(|&v| v != 0)
    }

    /// The placed values as a grid (valid: the engine only places digits no peer holds).
    pub fn to_grid(&self) -> Grid {
        Grid::from_values(self.layout.shape, self.values.clone().into_boxed_slice())
            .unwrap_or_else(|_| Grid::empty(self.layout.shape))
    }

    pub(crate) fn side(&self) -> usize {
        self.layout.side
    }

    /// Places `digit` in `cell` and removes it from the cell's peers.
    pub(crate) fn place(&mut self, cell: usize, digit: u8) {
        let stamp = new_stamp();
        for h in self.layout.cell_houses[cell] {
            self.stamps[h as usize] = stamp;
            self.placed[h as usize] |= 1 << (digit - 1);
        }
        for d in bits(self.masks[cell]) {
            self.unposition(cell, d, stamp);
        }
        self.values[cell] = digit;
        self.masks[cell] = 0;
        let d = usize::from(digit - 1);
        let layout = Arc::clone(&self.layout);
        for h in layout.cell_houses[cell] {
            for &peer in &layout.houses[h as usize] {
                let peer = peer as usize;
                if self.masks[peer] & 1 << d != 0 {
                    self.masks[peer] &= !(1 << d);
                    self.unposition(peer, d, stamp);
                }
            }
        }
    }

    /// Removes `digit` from the candidates of `cell`.
    pub(crate) fn eliminate(&mut self, cell: usize, digit: u8) {
        let d = usize::from(digit - 1);
        if self.masks[cell] & 1 << d != 0 {
            self.masks[cell] &= !(1 << d);
            self.unposition(cell, d, new_stamp());
        }
    }

    /// Puts `digit` back among the candidates of an empty `cell` (a wrong pencil mark).
    pub(crate) fn restore(&mut self, cell: usize, digit: u8) {
        self.masks[cell] |= 1 << (digit - 1);
        self.rebuild_positions();
    }

    /// The positions (bit i = i-th cell of the house) where `digit` is still a candidate.
    #[inline]
    pub(crate) fn positions(&self, house: usize, digit: u8) -> u64 {
        self.pos[house * self.layout.side + usize::from(digit - 1)]
    }

    /// The cells other than `a` and `b` that see both and hold a candidate of `bit`, lowest
    /// first (peer sets, not a sweep of the grid: the chain patterns ask this per candidate).
    pub(crate) fn seeing_both(&self, a: usize, b: usize, bit: u64) -> impl Iterator<Item = usize> {
        let (pa, pb) = (&self.layout.peers[a], &self.layout.peers[b]);
        pa.iter()
            .zip(pb)
            .enumerate()
            .flat_map(|(w, (x, y))| {
                let mut m = x & y;
                std::iter::from_fn(move || {
                    (m != 0).then(|| {
                        let c = w * 64 + m.trailing_zeros() as usize;
                        m &= m - 1;
                        c
                    })
                })
            })
            .filter(move |&c| self.masks[c] & bit != 0)
    }

    /// The stamp of the last change to each house, by house index: the same stamp, the same
    /// values and candidates in it.
    pub(crate) fn stamps(&self) -> &[u64] {
        &self.stamps
    }

    /// The stamp of the last change to the places of digit index `d`: the same stamp, the
    /// same places of the digit in every house.
    #[inline]
    pub(crate) fn digit_stamp(&self, d: usize) -> u64 {
        self.digit_stamps[d]
    }

    /// Digits already placed in a house.
    pub(crate) fn placed_in(&self, house: usize) -> u64 {
        self.placed[house]
    }

    /// The kind of a house index.
    pub(crate) fn kind(&self, house: usize) -> HouseKind {
        match house / self.layout.side {
            0 => HouseKind::Row,
            1 => HouseKind::Col,
            _ => HouseKind::Box,
        }
    }

    /// A house named for people: "row 3", "column 5", "box 9" (1-based).
    pub(crate) fn house_name(&self, house: usize) -> String {
        let n = house % self.layout.side + 1;
        match self.kind(house) {
            HouseKind::Row => format!("row {n}"),
            HouseKind::Col => format!("column {n}"),
            HouseKind::Box => format!("box {n}"),
        }
    }

    /// A cell named for people: "r5c4" (1-based).
    pub(crate) fn cell_name(&self, cell: usize) -> String {
        format!(
            "r{}c{}",
            self.layout.row(cell) + 1,
            self.layout.col(cell) + 1
        )
    }

    /// A list of cells named for people: "r1c1, r1c2".
    pub(crate) fn cell_names(&self, cells: impl IntoIterator<Item = usize>) -> String {
        cells
            .into_iter()
            .map(|c| self.cell_name(c))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Digits of a mask for people: "3/7/9"; 10 and up are written as letters like the grid text.
pub(crate) fn digit_names(mask: u64) -> String {
    bits(mask)
        .map(|d| digit_char(d as u8 + 1).to_string())
        .collect::<Vec<_>>()
        .join("/")
}

/// One digit in the grid's one-character form.
pub(crate) fn digit_char(digit: u8) -> char {
    char::from_digit(digit as u32, 36)
        .map(|c| c.to_ascii_uppercase())
        .unwrap_or('?')
}

/// The indices of the set bits of a mask, lowest first.
#[inline]
pub(crate) fn bits(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if mask == 0 {
            None
        } else {
            let i = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            Some(i)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_follow_the_rules_on_every_shape() {
        for (r, c) in [(2, 2), (2, 3), (3, 3), (4, 4)] {
            let shape = Shape::new(r, c).unwrap();
            let side = shape.side();
            let mut cells = vec![0u32; side * side];
            cells[0] = 1;
            let grid = Grid::new(shape, &cells).unwrap();
            let board = Candidates::from_grid(&grid);
            for cell in 1..side * side {
                let (row, col) = (cell / side, cell % side);
                let seen = row == 0 || col == 0 || shape.box_of(row, col) == 0;
                assert_eq!(board.masks[cell] & 1 == 0, seen, "{shape} r{row}c{col}");
                assert_eq!(
                    board.masks[cell].count_ones() as usize,
                    side - seen as usize
                );
            }
            assert_eq!(board.masks[0], 0);
        }
    }

    #[test]
    fn a_box_meets_its_lines_in_one_box_row_or_column_on_every_shape() {
        for (r, c) in [(2, 2), (2, 3), (3, 2), (3, 3), (4, 5)] {
            let layout = Layout::build(Shape::new(r, c).unwrap());
            for cell in 0..layout.side * layout.side {
                let counts = layout.meets[cell].map(|(a, b)| (a.count_ones(), b.count_ones()));
                // Box and column share a box column (r cells), box and row a box row (c).
                assert_eq!(
                    counts,
                    [(r, r), (c, c), (r, r), (c, c)].map(|(a, b)| (a as u32, b as u32))
                );
                let (in_box, in_row) = layout.meets[cell][1];
                assert_ne!(in_box >> layout.cell_slots[cell][2] & 1, 0, "cell {cell}");
                assert_ne!(in_row >> layout.cell_slots[cell][0] & 1, 0);
            }
        }
    }

    #[test]
    fn a_house_keeps_its_stamp_until_it_changes_and_copies_changed_apart_differ() {
        let mut board = Candidates::from_grid(&Grid::empty(Shape::CLASSIC));
        let before: Vec<u64> = (0..27).map(|h| board.stamps()[h]).collect();
        board.eliminate(0, 1);
        let changed: Vec<usize> = (0..27)
            .filter(|&h| board.stamps()[h] != before[h])
            .collect();
        assert_eq!(changed, vec![0, 9, 18], "row 1, column 1, box 1");
        let stamp = board.stamps()[0];
        board.eliminate(0, 1);
        assert_eq!(board.stamps()[0], stamp, "nothing removed, no change");
        let mut copy = board.clone();
        board.eliminate(80, 2);
        copy.eliminate(80, 3);
        assert_ne!(board.stamps()[8], copy.stamps()[8]);
        assert_eq!(board.stamps()[1], copy.stamps()[1]);
        board.place(40, 5);
        assert!(
            (0..27)
                .filter(|&h| board.stamps()[h] != copy.stamps()[h])
                .count()
                > 20
        );
    }

    #[test]
    fn a_digit_keeps_its_stamp_until_its_places_change() {
        let mut board = Candidates::from_grid(&Grid::empty(Shape::CLASSIC));
        let before: Vec<u64> = (0..9).map(|d| board.digit_stamp(d)).collect();
        board.eliminate(0, 2);
        board.eliminate(0, 2);
        let changed: Vec<usize> = (0..9)
            .filter(|&d| board.digit_stamp(d) != before[d])
            .collect();
        assert_eq!(changed, vec![1], "digit 2 only");
        let copy = board.clone();
        // r1c1 holds 1 and 3-9: placing 4 there changes those digits' places, not 2's.
        board.place(0, 4);
        let changed: Vec<usize> = (0..9)
            .filter(|&d| board.digit_stamp(d) != copy.digit_stamp(d))
            .collect();
        assert_eq!(changed, vec![0, 2, 3, 4, 5, 6, 7, 8]);
        let mut other = copy.clone();
        other.eliminate(80, 9);
        let mut again = copy.clone();
        again.eliminate(80, 9);
        assert_ne!(
            other.digit_stamp(8),
            again.digit_stamp(8),
            "copies changed apart differ"
        );
        assert_eq!(other.digit_stamp(0), copy.digit_stamp(0));
    }

    #[test]
    fn place_removes_the_digit_from_peers_only() {
        let grid = Grid::empty(Shape::CLASSIC);
        let mut board = Candidates::from_grid(&grid);
        board.place(40, 5);
        assert_eq!(board.values[40], 5);
        let mut fresh = board.clone();
        fresh.rebuild_positions();
        assert_eq!(
            fresh.pos, board.pos,
            "the position table follows placements"
        );
        assert_eq!(fresh.placed, board.placed, "so do the digits placed");
        assert_eq!(board.placed_in(4), 1 << 4, "row 5 holds a 5");
        for cell in 0..81 {
            let has5 = board.masks[cell] & (1 << 4) != 0;
            assert_eq!(
                has5,
                cell != 40 && !board.layout.sees(cell, 40),
                "cell {cell}"
            );
        }
    }
}

/// Boards for the techniques' unit tests: an empty grid of a shape, candidates edited by hand.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// All candidates open on an empty grid with `box_rows × box_cols` boxes.
    pub(crate) fn empty(box_rows: usize, box_cols: usize) -> Candidates {
        Candidates::from_grid(&Grid::empty(
            Shape::new(box_rows, box_cols).expect("valid shape"),
        ))
    }

    /// Removes `digit` from the cells at (row, col), 0-based.
    pub(crate) fn remove(board: &mut Candidates, digit: u8, cells: &[(usize, usize)]) {
        for &(r, c) in cells {
            board.eliminate(r * board.side() + c, digit);
        }
    }

    /// The (row, col, digit) triples of a step's eliminations, sorted.
    pub(crate) fn removed(board: &Candidates, list: &[(u16, u8)]) -> Vec<(usize, usize, u8)> {
        let mut out: Vec<_> = list
            .iter()
            .map(|&(c, d)| {
                (
                    board.layout.row(c as usize),
                    board.layout.col(c as usize),
                    d,
                )
            })
            .collect();
        out.sort();
        out
    }
}
