//! The 9×9 solver: bit-parallel candidates per digit and band, no heap allocation.
//!
//! For each digit `d` and band `b` (three rows) a 27-bit mask `cand[9 * b + d]` holds the
//! cells where `d` may still go:
//!
//! ```text
//!            box 0   box 1   box 2
//!   row 0:   0 1 2 | 3 4 5 | 6 7 8      bit = 9 * (row in band) + column
//!   row 1:   9 ...               17
//!   row 2:  18 ...               26
//! ```
//!
//! In a band a digit takes one triad (row ∩ box) per row and per box, a 3×3 permutation.
//! One table lookup (`PERM_BY_KEY`) keeps only triads that fit some permutation: box/line claims and
//! pointing pairs inside the band at once. A row left with one cell places the digit there;
//! naked singles and hidden singles in columns feed the same loop. When those stall, the line
//! rules ([`lines`]) run the same rule sideways on stacks and use that each minirow and
//! minicolumn holds exactly three digits; the generator's dense puzzles skip them.
//!
//! Search branches on where one digit goes in a band or stack: each of its configurations
//! (which triad it takes in each row, or column, there) in turn, for the digit with the fewest
//! (then the fewest cells) in the band or stack whose digits have the fewest in all, or, when
//! every band and stack is still wide open, in the one with the fewest open digits. A triad
//! filled that way settles three cells' worth of choices at once, so hard puzzles need fewer
//! guesses than with branches on cells. Once every digit's triads are settled, search
//! branches on a cell.

use super::StopReason;
use super::control::{Control, SearchResult};
use crate::grid::Grid;

mod isa;
mod lines;

use isa::{Isa, recurse};
use lines::Lines;

const BAND: u32 = 0x7FF_FFFF;
const ROW: [u32; 3] = [0x1FF, 0x1FF << 9, 0x1FF << 18];
/// Column 0 in each of a band's rows; multiply by a 9-bit column set to spread it.
const COLS: u32 = 0x40201;
/// Box 0 of a band; shift by 3 per box.
const BOX: u32 = 0x1C0E07;

/// For a row's 9 bits, which of its three triads are non-empty (bit k = box k).
static TRIADS: [u8; 512] = triads();
/// The band of each digit-band index, and the same digit's index in the other two bands:
/// lookups where the hottest loop would otherwise divide.
static BAND_OF: [u8; 27] = {
    let mut table = [0u8; 27];
    let mut idx = 0;
    while idx < 27 {
        table[idx] = (idx / 9) as u8;
        idx += 1;
    }
    table
};
static OTHER_BANDS: [[u8; 2]; 27] = {
    let mut table = [[0u8; 2]; 27];
    let mut idx = 0;
    while idx < 27 {
        table[idx] = [((idx + 9) % 27) as u8, ((idx + 18) % 27) as u8];
        idx += 1;
    }
    table
};

/// For a band mask's [`triad_key`], the cells of every triad that lies on a permutation of
/// its occupied triads (one triad per row and per box); 0 when none fits.
static PERM_BY_KEY: [u32; 1 << KEY_BITS] = perms_by_key();
/// Bits of a [`triad_key`].
const KEY_BITS: u32 = 10;
/// A multiplier that maps the 512 possible spread occupancies (bits 9·row + 3·box) to
/// distinct `KEY_BITS`-bit keys in its product's top bits (found by search).
const KEY_MAGIC: u32 = 0x51A5_A592;

const fn triads() -> [u8; 512] {
    let mut table = [0u8; 512];
    let mut x = 0;
    while x < 512 {
        let mut k = 0;
        while k < 3 {
            if (x >> (3 * k)) & 7 != 0 {
                table[x] |= 1 << k;
            }
            k += 1;
        }
        x += 1;
    }
    table
}

/// The six ways a digit can take one triad per row and per box of a band: the box of row 0,
/// 1 and 2.
const ORDERS: [[usize; 3]; 6] = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
];

/// For the 9-bit triad occupancy of a band, which of the six `ORDERS` fit (bit p).
static CONFIGS: [u8; 512] = configs();
/// Configurations over a band's digits above which only a digit with two is branched on.
const OPEN_BAND: u32 = 36;
/// Configurations over a band's or stack's digits below which search finishes the least open
/// one; above it, every band and stack is open and the one with the fewest open digits goes
/// first, where settling one digit leaves the others the fewest triads to share.
const SETTLING: u32 = 18;
/// Configurations of a digit in a band or stack by how many minirows or minicolumns it may
/// still take there, once those are closed over permutations (4 cannot occur).
const CONFIG_COUNT: [u8; 10] = [0, 0, 0, 1, 2, 2, 2, 3, 4, 6];
/// How open a digit is in a band or stack, by the same count: ten per open digit, so that
/// open digits weigh first, and one per minirow or minicolumn above five.
const OPENNESS: [u8; 10] = [0, 0, 0, 0, 0, 10, 11, 12, 13, 14];
/// `CONFIG_COUNT` shifted to band or stack `line`'s byte of a packed total.
static CONFIG_TOTALS: [[u64; 10]; 6] = line_totals(&CONFIG_COUNT);
/// `OPENNESS` shifted likewise.
static OPENNESS_TOTALS: [[u64; 10]; 6] = line_totals(&OPENNESS);
/// The cells of each of the six `ORDERS`' triads.
static CONFIG_CELLS: [u32; 6] = config_cells();

/// `per_digit[n]` shifted to band or stack `line`'s byte, for `n` minirows or minicolumns.
const fn line_totals(per_digit: &[u8; 10]) -> [[u64; 10]; 6] {
    let mut table = [[0u64; 10]; 6];
    let mut line = 0;
    while line < 6 {
        let mut n = 0;
        while n < 10 {
            table[line][n] = (per_digit[n] as u64) << (8 * line);
            n += 1;
        }
        line += 1;
    }
    table
}

const fn configs() -> [u8; 512] {
    let mut table = [0u8; 512];
    let mut occupied = 0;
    while occupied < 512 {
        let mut p = 0;
        while p < 6 {
            let mut triads = 0;
            let mut r = 0;
            while r < 3 {
                triads |= 1 << (3 * r + ORDERS[p][r]);
                r += 1;
            }
            if occupied & triads == triads {
                table[occupied] |= 1 << p;
            }
            p += 1;
        }
        occupied += 1;
    }
    table
}

const fn config_cells() -> [u32; 6] {
    let mut table = [0u32; 6];
    let mut p = 0;
    while p < 6 {
        let mut r = 0;
        while r < 3 {
            table[p] |= 7 << (9 * r + 3 * ORDERS[p][r]);
            r += 1;
        }
        p += 1;
    }
    table
}

/// How many minirows (band `line` < 3) or minicolumns (stack `line` - 3) a digit with
/// `Lines` masks `rows` and `cols` may still take there.
#[inline(always)]
fn line_triads(rows: u32, cols: u32, line: usize) -> usize {
    let x = if line < 3 {
        rows & (lines::TRIAD_BITS << line)
    } else {
        cols & (BOX << (3 * (line - 3)))
    };
    x.count_ones() as usize
}

/// Over every digit, `table`'s packed entry for the minirows (or minicolumns) it may still
/// take in each band and stack: one byte of the sum per band and stack.
#[inline(always)]
fn summed(lines: &Lines, table: &[[u64; 10]; 6]) -> u64 {
    let mut sum = 0u64;
    for (&rows, &cols) in lines.rows.iter().zip(&lines.cols) {
        for b in 0..3 {
            let band = (rows & lines::TRIAD_BITS << b).count_ones() as usize;
            let stack = (cols & BOX << (3 * b)).count_ones() as usize;
            sum += table[b][band] + table[3 + b][stack];
        }
    }
    sum
}

/// The band (0-2) or stack (3-5) whose digits are least `OPENNESS`, the first of equals; band 0
/// when none is open (without the line rules a digit can have configurations and no openness).
#[inline(always)]
fn least_open(lines: &Lines) -> usize {
    // Per band and stack a byte of the total (at most 9 digits × 14).
    let openness = summed(lines, &OPENNESS_TOTALS);
    // Settled bands and stacks weigh nothing.
    let mut least = (u32::MAX, 0);
    for line in 0..6 {
        let o = (openness >> (8 * line)) as u32 & 0xFF;
        if o > 0 && o < least.0 {
            least = (o, line);
        }
    }
    least.1
}

/// Which triads of a band a digit's cells touch, as 9 bits (bit 3·row + box).
#[inline(always)]
fn occupancy(m: u32) -> usize {
    usize::from(TRIADS[(m & 0x1FF) as usize])
        | usize::from(TRIADS[((m >> 9) & 0x1FF) as usize]) << 3
        | usize::from(TRIADS[(m >> 18) as usize]) << 6
}

/// A band mask's occupied triads (one bit each, 9·row + 3·box) hashed to `KEY_BITS` bits,
/// distinct for distinct occupancies: three operations fewer than gathering them.
#[inline(always)]
fn triad_key(m: u32) -> usize {
    let spread = (m | m >> 1 | m >> 2) & lines::TRIAD_BITS;
    (spread.wrapping_mul(KEY_MAGIC) >> (32 - KEY_BITS)) as usize
}

const fn perms_by_key() -> [u32; 1 << KEY_BITS] {
    let perms = perms();
    let mut table = [0u32; 1 << KEY_BITS];
    let mut taken = [false; 1 << KEY_BITS];
    let mut occupied = 0;
    while occupied < 512 {
        let mut spread = 0u32;
        let mut t = 0;
        while t < 9 {
            spread |= ((occupied as u32 >> t) & 1) << (3 * t);
            t += 1;
        }
        let key = (spread.wrapping_mul(KEY_MAGIC) >> (32 - KEY_BITS)) as usize;
        assert!(!taken[key], "two occupancies share a key");
        taken[key] = true;
        table[key] = perms[occupied];
        occupied += 1;
    }
    table
}

/// For the 9-bit triad occupancy of a band, the allowed triads themselves ([`perms`] before
/// spreading to cells).
const fn perm_triads() -> [u16; 512] {
    let mut table = [0u16; 512];
    let mut occupied = 0;
    while occupied < 512 {
        let mut allowed = 0;
        let mut p = 0;
        while p < 6 {
            let mut triads = 0;
            let mut r = 0;
            while r < 3 {
                triads |= 1 << (3 * r + ORDERS[p][r]);
                r += 1;
            }
            if occupied & triads == triads {
                allowed |= triads;
            }
            p += 1;
        }
        table[occupied] = allowed as u16;
        occupied += 1;
    }
    table
}

/// For the 9-bit triad occupancy of a band (bit 3·row + box), the cells of every triad that
/// lies on a permutation of occupied triads; 0 when none fits.
const fn perms() -> [u32; 512] {
    let triads = perm_triads();
    let mut table = [0u32; 512];
    let mut occupied = 0;
    while occupied < 512 {
        let allowed = triads[occupied];
        let mut cells = 0u32;
        let mut t = 0;
        while t < 9 {
            if (allowed >> t) & 1 != 0 {
                cells |= 7 << (9 * (t / 3) + 3 * (t % 3));
            }
            t += 1;
        }
        table[occupied] = cells;
        occupied += 1;
    }
    table
}

/// A 9×9 puzzle's givens as cells per digit and band: every search starts from these, and
/// callers that change one given at a time between searches keep them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Givens([u32; 27]);

impl Givens {
    /// The givens of 9×9 cells (0 for empty).
    pub(crate) fn new(cells: &[u8; 81]) -> Givens {
        let mut givens = Givens([0; 27]);
        for (band, cells) in cells.chunks_exact(27).enumerate() {
            let digits: &mut [u32; 9] = (&mut givens.0[9 * band..9 * band + 9])
                .try_into()
                .expect("9 digits per band");
            for (bit, &v) in cells.iter().enumerate() {
                // An empty cell (0) wraps past the nine digits and is skipped.
                if let Some(m) = digits.get_mut(usize::from(v).wrapping_sub(1)) {
                    *m |= 1 << bit;
                }
            }
        }
        givens
    }

    /// Makes `digit` (1-9) a given at `cell`.
    pub(crate) fn set(&mut self, cell: usize, digit: u8) {
        self.0[9 * (cell / 27) + usize::from(digit - 1)] |= 1 << (cell % 27);
    }

    /// Removes the given `digit` (1-9) at `cell`.
    pub(crate) fn clear(&mut self, cell: usize, digit: u8) {
        self.0[9 * (cell / 27) + usize::from(digit - 1)] &= !(1 << (cell % 27));
    }
}

#[derive(Clone, Copy)]
struct State {
    /// Candidate cells per digit and band.
    cand: [u32; 27],
    /// Digit-bands (bit `9 * b + d`) changed since they were last propagated.
    dirty: u32,
    /// Cells not yet placed, per band.
    unsolved: [u32; 3],
}

impl State {
    /// The state of `givens`, every elimination done per digit in bulk (a fixed cost, whatever
    /// the number of givens), so the first propagation starts from settled cells.
    fn from_givens(givens: &Givens) -> State {
        let given = &givens.0;
        let mut placed = [0u32; 3];
        for (band, p) in placed.iter_mut().enumerate() {
            *p = given[9 * band..9 * band + 9].iter().fold(0, |a, &g| a | g);
        }
        let mut cand = [0u32; 27];
        for d in 0..9 {
            let cols = (0..3).fold(0, |a, b| {
                let g = given[9 * b + d];
                a | ((g | g >> 9 | g >> 18) & 0x1FF)
            }) * COLS;
            for band in 0..3 {
                let g = given[9 * band + d];
                let rows = ROW.iter().fold(0, |a, &r| a | (r * u32::from(g & r != 0)));
                cand[9 * band + d] = (BAND & !placed[band] & !rows & !cols) | g;
            }
        }
        State {
            cand,
            dirty: (1 << 27) - 1,
            unsolved: placed.map(|p| BAND & !p),
        }
    }

    /// Makes `cell` the only place for `digit` in its row; propagation does the rest.
    #[inline]
    fn place(&mut self, digit: usize, band: usize, cell: u32) {
        let row = ROW[(cell.trailing_zeros() / 9) as usize];
        self.keep(9 * band + digit, !row | cell);
    }

    /// Keeps only `mask` of one digit-band, marking it dirty if that removed anything.
    #[inline(always)]
    fn keep(&mut self, idx: usize, mask: u32) {
        self.dirty |= self.narrow(idx, mask);
    }

    /// Keeps only `mask` of one digit-band; returns its dirty bit if that removed anything.
    #[inline(always)]
    fn narrow(&mut self, idx: usize, mask: u32) -> u32 {
        let old = self.cand[idx];
        let new = old & mask;
        self.cand[idx] = new;
        u32::from(new != old) << idx
    }

    /// Applies the band rule to one digit-band; returns its row singles that are still open
    /// (to place), `None` on contradiction. No branch on whether there are any: which updates
    /// find one is unpredictable, and a mispredicted branch per update costs more than batching.
    #[inline(always)]
    fn update_band(&mut self, idx: usize) -> Option<u32> {
        let mut m = self.cand[idx];
        m &= PERM_BY_KEY[triad_key(m)];
        if m == 0 {
            return None;
        }
        self.cand[idx] = m;
        let band = usize::from(BAND_OF[idx]);
        let open = m & self.unsolved[band];
        // Every row keeps a cell (a permutation fits), so subtracting one per row borrows
        // within rows only, and a row's bits survive `m & (m - 1)` unless it holds one cell.
        let crowded = m & m.wrapping_sub(COLS);
        let lone = |row: u32| if crowded & row == 0 { row } else { 0 };
        Some(open & (lone(ROW[0]) | lone(ROW[1]) | lone(ROW[2])))
    }

    /// Places `new`, row singles of one digit-band found by [`State::update_band`] earlier in
    /// the round; returns the digit-bands that changed, `None` if another placement since took
    /// one of them (its row is then empty).
    #[inline(always)]
    fn place_singles(&mut self, idx: usize, new: u32) -> Option<u32> {
        let mine = self.cand[idx];
        if mine & new != new {
            return None;
        }
        let band = usize::from(BAND_OF[idx]);
        self.unsolved[band] &= !new;
        // Placed cells leave every digit of the band; the placing digit gets its mask back.
        let digits: &mut [u32; 9] = (&mut self.cand[9 * band..9 * band + 9])
            .try_into()
            .expect("9 digits per band");
        let cleared = clear_digits(digits, new) << (9 * band);
        self.cand[idx] = mine;
        let cols = !(((new | new >> 9 | new >> 18) & 0x1FF) * COLS);
        let [a, b] = OTHER_BANDS[idx];
        let others = self.narrow(usize::from(a), cols) | self.narrow(usize::from(b), cols);
        Some((cleared & !(1 << idx)) | others)
    }

    /// Runs the rules to a fixpoint; `None` on contradiction, else what the last pass of the
    /// line rules saw (empty when the grid is solved).
    #[inline(always)]
    fn propagate<const LINE_RULES: bool>(&mut self) -> Option<Lines> {
        loop {
            // In rounds: the band rule runs on every digit-band of the round first, with no
            // branch on its outcome, so updates overlap; then the row singles they found are
            // placed, and what that changes makes the next round. The fixpoint, and so the
            // search, is the same as placing each single at once.
            let mut round = std::mem::take(&mut self.dirty);
            let mut news = [0u32; 27];
            while round != 0 {
                let mut placing = 0;
                while round != 0 {
                    let idx = round.trailing_zeros() as usize;
                    round &= round - 1;
                    let new = self.update_band(idx)?;
                    news[idx] = new;
                    placing |= u32::from(new != 0) << idx;
                }
                while placing != 0 {
                    let idx = placing.trailing_zeros() as usize;
                    placing &= placing - 1;
                    round |= self.place_singles(idx, news[idx])?;
                }
            }
            if self.is_solved() {
                return Some(Lines {
                    rows: [0; 9],
                    cols: [0; 9],
                });
            }
            if self.naked_singles()? || self.hidden_column_singles()? {
                continue;
            }
            if !LINE_RULES {
                return Some(Lines::of(&self.cand));
            }
            let lines = self.line_rules()?;
            if self.dirty == 0 {
                return Some(lines);
            }
        }
    }

    /// Places cells with one candidate left; `None` on a cell with none.
    #[inline(always)]
    fn naked_singles(&mut self) -> Option<bool> {
        // Dirty bits gather in a register, not through `self.dirty` one store after another.
        let (mut progress, mut dirty) = (false, 0);
        for band in 0..3 {
            let (ones, twos, _) = band_counts(&self.cand, band);
            let unsolved = self.unsolved[band];
            if unsolved & !ones != 0 {
                return None;
            }
            let singles = unsolved & !twos;
            if singles == 0 {
                continue;
            }
            // Which digits hold the singles, found without a branch per digit: which ones do
            // is unpredictable.
            let hits: [u32; 9] = std::array::from_fn(|d| singles & self.cand[9 * band + d]);
            let mut digits = (0..9).fold(0u32, |a, d| a | u32::from(hits[d] != 0) << d);
            while digits != 0 {
                let d = digits.trailing_zeros() as usize;
                digits &= digits - 1;
                dirty |= self.restrict_rows(9 * band + d, hits[d])?;
            }
            progress = true;
        }
        self.dirty |= dirty;
        Some(progress)
    }

    /// Places digits that have one cell left in a column; `None` on a column with none.
    #[inline(always)]
    fn hidden_column_singles(&mut self) -> Option<bool> {
        let (hits, any) = column_singles(&self.cand, &self.unsolved)?;
        if !any {
            return Some(false);
        }
        let mut dirty = 0;
        for (idx, &cells) in hits.iter().enumerate() {
            if cells != 0 {
                dirty |= self.restrict_rows(idx, cells)?;
            }
        }
        self.dirty |= dirty;
        Some(true)
    }

    /// Makes each of `cells` the only candidate in its row; returns the digit-band's dirty bit
    /// if that removed anything, `None` if two share a row.
    #[inline]
    fn restrict_rows(&mut self, idx: usize, cells: u32) -> Option<u32> {
        let (mut rows, mut crowded) = (0, 0);
        for row in ROW {
            let x = cells & row;
            crowded |= x & x.wrapping_sub(1);
            rows |= if x != 0 { row } else { 0 };
        }
        if crowded != 0 {
            return None;
        }
        Some(self.narrow(idx, !rows | cells))
    }

    fn is_solved(&self) -> bool {
        self.unsolved == [0; 3]
    }

    /// The cell to branch on: of the cells with two candidates, the one with the most open
    /// peers, whose placement spreads furthest; else the first open cell.
    fn pick(&self) -> (usize, u32) {
        let mut best = (0, 0, 0);
        let mut fallback = None;
        for band in 0..3 {
            let unsolved = self.unsolved[band];
            let (_, twos, threes) = band_counts(&self.cand, band);
            let mut pairs = twos & !threes & unsolved;
            while pairs != 0 {
                let cell = pairs & pairs.wrapping_neg();
                pairs &= pairs - 1;
                let bit = cell.trailing_zeros();
                let col = COLS << (bit % 9);
                let line_and_box = ROW[(bit / 9) as usize] | BOX << (3 * (bit % 9 / 3));
                let open = (unsolved & line_and_box).count_ones()
                    + self
                        .unsolved
                        .iter()
                        .map(|u| (u & col).count_ones())
                        .sum::<u32>();
                if open > best.0 {
                    best = (open, band, cell);
                }
            }
            if fallback.is_none() && unsolved != 0 {
                fallback = Some((band, unsolved & unsolved.wrapping_neg()));
            }
        }
        if best.0 > 0 {
            return (best.1, best.2);
        }
        // Only called on unsolved states, so some band has an unsolved cell.
        fallback.unwrap_or((0, 1))
    }

    /// The digit and band or stack to branch on, with the digit's configurations there
    /// (bit p of `ORDERS`): in the band or stack whose digits have the fewest configurations
    /// in all if that is under `SETTLING`, else in the one whose digits are least `OPENNESS`,
    /// the digit with the fewest, two or more. `None` when every digit's triads are settled in
    /// every band and stack.
    #[inline(always)]
    fn pick_configs(&self, lines: &Lines) -> Option<Split> {
        // Per band and stack a byte of the total (at most 9 digits × 6 configurations).
        let totals = summed(lines, &CONFIG_TOTALS);
        // Nine settled digits make 9. Per byte, 9 becomes 0xFF and 10 or more one less than
        // its excess over 9 (no byte borrows from the next), so that a plain minimum over
        // keys (total, then line) finds the least open band or stack without a branch.
        // No byte is under 9: after propagation each digit keeps a minirow per row of each
        // band (the band rule) and a minicolumn per column of each stack (the column rule),
        // which counts one configuration at least.
        const ONES: u64 = 0x0101_0101_0101;
        const HIGH: u64 = 0x80 * ONES;
        debug_assert!(
            (0..6).all(|l| (totals >> (8 * l)) & 0xFF >= 9),
            "{totals:x}"
        );
        let excess = totals - 9 * ONES;
        let keys = ((excess | HIGH) - ONES) ^ HIGH;
        let fewest = (0..6).fold(u32::MAX, |best, line| {
            best.min(((keys >> (8 * line)) as u32 & 0xFF) << 3 | line as u32)
        });
        if fewest >> 3 == 0xFF {
            return None;
        }
        // Deep in the search some band or stack is nearly settled: the openness is needed
        // only near the root.
        let least_total = (fewest >> 3) + 10;
        let line = if least_total < SETTLING {
            (fewest & 7) as usize
        } else {
            least_open(lines)
        };
        let total = (totals >> (8 * line)) as u32 & 0xFF;
        // The fewest configurations above one, then the fewest cells, then the lowest digit:
        // one key each (settled digits out of reach), no branch per digit.
        let key = (0..9).fold(u32::MAX, |best, d| {
            let n = u32::from(CONFIG_COUNT[line_triads(lines.rows[d], lines.cols[d], line)]);
            let key = n << 10 | self.cells_in(d, line) << 4 | d as u32;
            best.min(if n > 1 { key } else { u32::MAX })
        });
        if key == u32::MAX {
            return None;
        }
        let (n, digit) = (key >> 10, (key & 15) as usize);
        // In an open band a digit of three or more is left to cell branches: committing many
        // digits' triads early can overfill a triad, which propagation sees only once its
        // cells run out (on an empty grid, never).
        if n > 2 && total > OPEN_BAND {
            return None;
        }
        let configs = if line < 3 {
            CONFIGS[occupancy(self.cand[9 * line + digit])]
        } else {
            CONFIGS[lines::gather(lines.cols[digit], line - 3)]
        };
        Some(Split {
            line,
            digit,
            configs,
        })
    }

    /// How many cells digit `d` may take in band (`line` < 3) or stack `line` - 3.
    #[inline(always)]
    fn cells_in(&self, d: usize, line: usize) -> u32 {
        if line < 3 {
            self.cand[9 * line + d].count_ones()
        } else {
            let stack = (COLS * 7) << (3 * (line - 3));
            (0..3)
                .map(|b| (self.cand[9 * b + d] & stack).count_ones())
                .sum()
        }
    }

    /// Keeps configuration `p` of `split`'s digit in its band or stack.
    fn keep_config(&mut self, split: &Split, p: usize) {
        let (line, d) = (split.line, split.digit);
        if line < 3 {
            self.keep(9 * line + d, CONFIG_CELLS[p]);
        } else {
            let stack = line - 3;
            let cols = (COLS * 7) << (3 * stack);
            for (band, &col) in ORDERS[p].iter().enumerate() {
                self.keep(9 * band + d, !cols | COLS << (3 * stack + col));
            }
        }
    }

    fn cells(&self) -> [u8; 81] {
        // 32 cells per band, so that a mask's bit indexes a band without a bounds check.
        let mut bands = [[0u8; 32]; 3];
        for (band, out) in bands.iter_mut().enumerate() {
            for (digit, &mask) in (1..).zip(&self.cand[9 * band..9 * band + 9]) {
                let mut m = mask;
                while m != 0 {
                    out[(m.trailing_zeros() & 31) as usize] = digit;
                    m &= m - 1;
                }
            }
        }
        let mut out = [0u8; 81];
        for (cells, band) in out.chunks_exact_mut(27).zip(&bands) {
            cells.copy_from_slice(&band[..27]);
        }
        out
    }
}

/// Of band `band`'s cells, those with at least one, two and three candidate digits.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn band_counts_scalar(cand: &[u32; 27], band: usize) -> (u32, u32, u32) {
    let (mut ones, mut twos, mut threes) = (0, 0, 0);
    for &m in &cand[9 * band..9 * band + 9] {
        threes |= twos & m;
        twos |= ones & m;
        ones |= m;
    }
    (ones, twos, threes)
}

#[cfg(not(target_arch = "x86_64"))]
use band_counts_scalar as band_counts;

/// [`band_counts_scalar`] with digits 0–3 and 4–7 in SSE2 lanes, their lanes then folded
/// together, and digit 8 alone.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn band_counts(cand: &[u32; 27], band: usize) -> (u32, u32, u32) {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cvtsi128_si32, _mm_loadu_si128, _mm_or_si128, _mm_shuffle_epi32,
    };
    let digits: &[u32; 9] = cand[9 * band..9 * band + 9]
        .try_into()
        .expect("9 digits per band");
    // SAFETY: SSE2 is part of x86_64; the loads cover digits[0..4] and digits[4..8].
    let (ones, twos, threes) = unsafe {
        let ptr = digits.as_ptr().cast::<__m128i>();
        let (lo, hi) = (_mm_loadu_si128(ptr), _mm_loadu_si128(ptr.add(1)));
        // Per lane: two digits' counts, up to two.
        let (ones, twos) = (_mm_or_si128(lo, hi), _mm_and_si128(lo, hi));
        // Lanes 2 and 3 onto 0 and 1, then lane 1 onto 0; counts add, saturating at three.
        let (o, t) = (
            _mm_shuffle_epi32::<0x4E>(ones),
            _mm_shuffle_epi32::<0x4E>(twos),
        );
        let threes = _mm_or_si128(_mm_and_si128(twos, o), _mm_and_si128(ones, t));
        let twos = _mm_or_si128(_mm_or_si128(twos, t), _mm_and_si128(ones, o));
        let ones = _mm_or_si128(ones, o);
        let (o, t, h) = (
            _mm_shuffle_epi32::<0xB1>(ones),
            _mm_shuffle_epi32::<0xB1>(twos),
            _mm_shuffle_epi32::<0xB1>(threes),
        );
        let threes = _mm_or_si128(
            _mm_or_si128(threes, h),
            _mm_or_si128(_mm_and_si128(twos, o), _mm_and_si128(ones, t)),
        );
        let twos = _mm_or_si128(_mm_or_si128(twos, t), _mm_and_si128(ones, o));
        let ones = _mm_or_si128(ones, o);
        (
            _mm_cvtsi128_si32(ones) as u32,
            _mm_cvtsi128_si32(twos) as u32,
            _mm_cvtsi128_si32(threes) as u32,
        )
    };
    let m = digits[8];
    (ones | m, twos | (ones & m), threes | (twos & m))
}

/// Per digit-band, the open cells where the digit is alone in its column, and whether there
/// are any; `None` when a digit has no cell left in some column.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn column_singles_scalar(cand: &[u32; 27], unsolved: &[u32; 3]) -> Option<([u32; 27], bool)> {
    let mut hits = [0; 27];
    let mut any = 0;
    for d in 0..9 {
        any |= digit_column_singles(cand, unsolved, d, &mut hits)?;
    }
    Some((hits, any != 0))
}

/// [`column_singles_scalar`] for one digit: writes its hits and returns them or-ed together.
#[inline(always)]
fn digit_column_singles(
    cand: &[u32; 27],
    unsolved: &[u32; 3],
    d: usize,
    hits: &mut [u32; 27],
) -> Option<u32> {
    let (mut ones, mut twos) = (0, 0);
    for band in 0..3 {
        // Fold the band's three rows first, then the band into the running counts.
        let m = cand[9 * band + d];
        let (a, b, c) = (m & 0x1FF, (m >> 9) & 0x1FF, m >> 18);
        let at_least_one = a | b | c;
        twos |= (a & b) | (c & (a | b)) | (ones & at_least_one);
        ones |= at_least_one;
    }
    if ones != 0x1FF {
        return None;
    }
    let once = (ones & !twos) * COLS;
    let mut any = 0;
    for band in 0..3 {
        hits[9 * band + d] = cand[9 * band + d] & once & unsolved[band];
        any |= hits[9 * band + d];
    }
    Some(any)
}

#[cfg(not(target_arch = "x86_64"))]
use column_singles_scalar as column_singles;

/// [`column_singles_scalar`] four digits at a time (digits 0–3 and 4–7 in SSE2 lanes, digit 8
/// alone): the pass runs at every search node and is otherwise a third of propagation.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn column_singles(cand: &[u32; 27], unsolved: &[u32; 3]) -> Option<([u32; 27], bool)> {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_andnot_si128, _mm_cmpeq_epi32, _mm_loadu_si128,
        _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi32, _mm_setzero_si128, _mm_slli_epi32,
        _mm_srli_epi32, _mm_storeu_si128,
    };
    let mut hits = [0u32; 27];
    // SAFETY: SSE2 is part of x86_64. Every load and store covers [9 * band + 4 * half,
    // + 4) with band < 3 and half < 2, so at most index 25 of a 27-element array.
    unsafe {
        let src = cand.as_ptr().cast::<u32>();
        let dst = hits.as_mut_ptr();
        let low9 = _mm_set1_epi32(0x1FF);
        let zero = _mm_setzero_si128();
        let (mut ones, mut twos) = ([zero; 2], [zero; 2]);
        for band in 0..3 {
            for half in 0..2 {
                let m = _mm_loadu_si128(src.add(9 * band + 4 * half).cast::<__m128i>());
                let a = _mm_and_si128(m, low9);
                let b = _mm_and_si128(_mm_srli_epi32::<9>(m), low9);
                let c = _mm_srli_epi32::<18>(m);
                let at_least_one = _mm_or_si128(_mm_or_si128(a, b), c);
                let at_least_two =
                    _mm_or_si128(_mm_and_si128(a, b), _mm_and_si128(c, _mm_or_si128(a, b)));
                twos[half] = _mm_or_si128(
                    twos[half],
                    _mm_or_si128(at_least_two, _mm_and_si128(ones[half], at_least_one)),
                );
                ones[half] = _mm_or_si128(ones[half], at_least_one);
            }
        }
        let covered = _mm_and_si128(
            _mm_cmpeq_epi32(ones[0], low9),
            _mm_cmpeq_epi32(ones[1], low9),
        );
        if _mm_movemask_epi8(covered) != 0xFFFF {
            return None;
        }
        let mut any = zero;
        for half in 0..2 {
            let once = _mm_andnot_si128(twos[half], ones[half]);
            let spread = _mm_or_si128(
                _mm_or_si128(once, _mm_slli_epi32::<9>(once)),
                _mm_slli_epi32::<18>(once),
            );
            for (band, &open) in unsolved.iter().enumerate() {
                let offset = 9 * band + 4 * half;
                let m = _mm_loadu_si128(src.add(offset).cast::<__m128i>());
                let h = _mm_and_si128(_mm_and_si128(m, spread), _mm_set1_epi32(open as i32));
                _mm_storeu_si128(dst.add(offset).cast::<__m128i>(), h);
                any = _mm_or_si128(any, h);
            }
        }
        let any = _mm_movemask_epi8(_mm_cmpeq_epi32(any, zero)) != 0xFFFF;
        // Digit 8, the ninth lane.
        let last = digit_column_singles(cand, unsolved, 8, &mut hits)?;
        Some((hits, any || last != 0))
    }
}

/// Removes `cells` from nine digit masks; returns the digits (bit d) that lost any.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn clear_digits(digits: &mut [u32; 9], cells: u32) -> u32 {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_andnot_si128, _mm_castsi128_ps, _mm_cmpeq_epi32,
        _mm_loadu_si128, _mm_movemask_ps, _mm_set1_epi32, _mm_setzero_si128, _mm_storeu_si128,
    };
    // SSE2 is part of x86_64, so these are always available; four digits per instruction.
    // SAFETY: the pointers cover digits[0..4] and digits[4..8] of a live `&mut [u32; 9]`.
    unsafe {
        let ptr = digits.as_mut_ptr().cast::<__m128i>();
        let c = _mm_set1_epi32(cells as i32);
        let zero = _mm_setzero_si128();
        let lo = _mm_loadu_si128(ptr);
        let hi = _mm_loadu_si128(ptr.add(1));
        let kept_lo = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(
            _mm_and_si128(lo, c),
            zero,
        )));
        let kept_hi = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(
            _mm_and_si128(hi, c),
            zero,
        )));
        _mm_storeu_si128(ptr, _mm_andnot_si128(c, lo));
        _mm_storeu_si128(ptr.add(1), _mm_andnot_si128(c, hi));
        let changed8 = !(kept_lo as u32 | (kept_hi as u32) << 4) & 0xFF;
        let last = u32::from(digits[8] & cells != 0);
        digits[8] &= !cells;
        changed8 | last << 8
    }
}

/// Removes `cells` from nine digit masks; returns the digits (bit d) that lost any.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn clear_digits(digits: &mut [u32; 9], cells: u32) -> u32 {
    let mut changed = 0;
    for (d, m) in digits.iter_mut().enumerate() {
        changed |= u32::from(*m & cells != 0) << d;
        *m &= !cells;
    }
    changed
}

/// Searches a 9×9 grid, reporting solutions to `control`.
pub(crate) fn search(grid: &Grid, control: &mut Control) -> SearchResult {
    let Ok(cells) = <&[u8; 81]>::try_from(grid.cells()) else {
        unreachable!("the fast solver is only called on 9x9 grids");
    };
    let mut state = State::from_givens(&Givens::new(cells));
    recurse::<true>(&mut state, control).map(|_| ())
}

/// Searches 9×9 givens known to hold no repeats, with `exclude`'s digit (1-9) ruled out at its
/// (empty) cell: callers that test many variations of one puzzle skip building a grid each.
pub(crate) fn search_givens(
    givens: &Givens,
    exclude: Option<(usize, u8)>,
    control: &mut Control,
) -> SearchResult {
    let mut state = State::from_givens(givens);
    if let Some((cell, digit)) = exclude {
        debug_assert!((1..=9).contains(&digit));
        state.cand[9 * (cell / 27) + usize::from(digit - 1)] &= !(1 << (cell % 27));
    }
    // No line rules: on the generator's dense puzzles they cost more than the guesses they
    // save (measured: 8% more instructions per minimal puzzle).
    recurse::<false>(&mut state, control).map(|_| ())
}

/// A branch on where one digit goes in a band (lines 0-2) or a stack (3-5).
struct Split {
    line: usize,
    digit: usize,
    /// The digit's configurations there, bit p for `ORDERS[p]`; two or more.
    configs: u8,
}

/// `Ok(true)` once the solution limit is reached; children recurse in `isa`'s build.
#[inline(always)]
fn recurse_with<const LINE_RULES: bool, I: Isa>(
    isa: I,
    state: &mut State,
    control: &mut Control,
) -> Result<bool, StopReason> {
    let Some(lines) = state.propagate::<LINE_RULES>() else {
        return Ok(false);
    };
    if state.is_solved() {
        return Ok(control.solution(&state.cells()));
    }
    if let Some(split) = state.pick_configs(&lines) {
        return branch::<LINE_RULES, I>(isa, state, control, split.configs.into(), |s, p| {
            s.keep_config(&split, p)
        });
    }
    // Every digit's triads are settled: branch on a cell.
    let (band, cell) = state.pick();
    let digits: u32 = (0..9)
        .filter(|d| state.cand[9 * band + d] & cell != 0)
        .fold(0, |acc, d| acc | 1 << d);
    branch::<LINE_RULES, I>(isa, state, control, digits, |s, d| s.place(d, band, cell))
}

/// Searches each alternative (bit i of `alternatives`, applied by `apply`) in turn, the last
/// in `state` itself.
#[inline(always)]
fn branch<const LINE_RULES: bool, I: Isa>(
    isa: I,
    state: &mut State,
    control: &mut Control,
    mut alternatives: u32,
    apply: impl Fn(&mut State, usize),
) -> Result<bool, StopReason> {
    while alternatives != 0 {
        let i = alternatives.trailing_zeros() as usize;
        alternatives &= alternatives - 1;
        control.guess()?;
        if alternatives == 0 {
            apply(state, i);
            return isa.recurse::<LINE_RULES>(state, control);
        }
        let mut child = *state;
        apply(&mut child, i);
        if isa.recurse::<LINE_RULES>(&mut child, control)? {
            return Ok(true);
        }
    }
    Ok(false)
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Digit-bands of mixed density, so that about half the states have a digit missing from
    /// some column and the rest have columns holding a digit once, twice or more.
    fn masks() -> impl Strategy<Value = ([u32; 27], [u32; 3])> {
        let mask = (0..BAND, 0..BAND, 0..BAND, 0..7u8).prop_map(|(a, b, c, kind)| match kind {
            0 => a,
            1 => a & b,
            2 => a & b & c,
            _ => a | b,
        });
        (
            proptest::array::uniform27(mask),
            proptest::array::uniform3(0..=BAND),
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        #[test]
        fn sse2_band_counts_match_the_scalar_ones((cand, _) in masks(), band in 0..3usize) {
            prop_assert_eq!(band_counts(&cand, band), band_counts_scalar(&cand, band));
        }

        #[test]
        fn sse2_column_singles_match_the_scalar_ones((cand, unsolved) in masks()) {
            prop_assert_eq!(
                column_singles(&cand, &unsolved),
                column_singles_scalar(&cand, &unsolved)
            );
        }
    }

    #[test]
    fn column_singles_find_a_lone_digit_and_an_empty_column() {
        let mut cand = [BAND; 27];
        // Digit 9 (index 8) only in band 2, row 1, column 4 of column 4; elsewhere everywhere.
        for band in 0..3 {
            cand[9 * band + 8] &= !(COLS << 4);
        }
        cand[18 + 8] |= 1 << (9 + 4);
        let (hits, any) = column_singles(&cand, &[BAND; 3]).expect("every column covered");
        assert!(any);
        let found: Vec<(usize, u32)> = (0..27)
            .filter(|&i| hits[i] != 0)
            .map(|i| (i, hits[i]))
            .collect();
        assert_eq!(found, vec![(26, 1 << (9 + 4))]);
        // The same cell already placed is no news.
        let placed = [BAND, BAND, BAND & !(1 << (9 + 4))];
        assert_eq!(
            column_singles(&cand, &placed).map(|(_, any)| any),
            Some(false)
        );
        // Digit 1 with no cell in column 0 is a contradiction.
        for band in 0..3 {
            cand[9 * band] &= !COLS;
        }
        assert_eq!(column_singles(&cand, &[BAND; 3]), None);
    }
}
