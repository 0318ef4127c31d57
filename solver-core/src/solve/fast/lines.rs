//! Rules across digits and sideways: each minirow (a row's three cells in a box) and each
//! minicolumn holds exactly three digits, and in a stack a digit takes one minicolumn per box
//! and per column (the band rule turned sideways).
//!
//! Per digit, two 27-bit masks say where it may still go:
//!
//! ```text
//!   rows: bit 9·row + 3·box + band    the minirow of that row (in its band) and box
//!   cols: bit 9·band + column         the minicolumn of that column in that band
//! ```
//!
//! Interleaving the bands in `rows` puts a row's three minirows three bits apart, as a
//! stack's three minicolumns are in `cols`, so one pass counts every minirow or minicolumn of
//! all nine digits at once.

use super::{BOX, COLS, ROW, State, perm_triads};

/// Bit 0 of every group of three: in a band mask, the first cell of each triad.
pub(super) const TRIAD_BITS: u32 = 0o111_111_111;
const ALL: u32 = 0x7FF_FFFF;

/// Where each digit may still go, per minirow and minicolumn, as the last pass saw it.
pub(super) struct Lines {
    /// Per digit, its minirows (bit 9·row + 3·box + band).
    pub(super) rows: [u32; 9],
    /// Per digit, its minicolumns (bit 9·band + column).
    pub(super) cols: [u32; 9],
}

impl Lines {
    /// The minirows and minicolumns of `cand` as they stand, no rule applied.
    pub(super) fn of(cand: &[u32; 27]) -> Lines {
        let mut lines = Lines {
            rows: [0; 9],
            cols: [0; 9],
        };
        for d in 0..9 {
            let m = [cand[d], cand[9 + d], cand[18 + d]];
            lines.rows[d] = minirows(m[0]) | minirows(m[1]) << 1 | minirows(m[2]) << 2;
            lines.cols[d] = minicols(m[0]) | minicols(m[1]) << 9 | minicols(m[2]) << 18;
        }
        lines
    }
}

/// Bit-sliced counts of nine digits per bit, up to four.
#[derive(Default)]
struct Counts {
    one: u64,
    two: u64,
    three: u64,
    four: u64,
}

impl Counts {
    #[inline(always)]
    fn add(&mut self, x: u64) {
        self.four |= self.three & x;
        self.three |= self.two & x;
        self.two |= self.one & x;
        self.one |= x;
    }

    fn exactly_three(&self) -> u64 {
        self.three & !self.four
    }
}

/// A band's minirows (bits 9·row + 3·box) from its cells.
#[inline(always)]
fn minirows(m: u32) -> u32 {
    (m | m >> 1 | m >> 2) & TRIAD_BITS
}

/// A band's minicolumns (bit = column) from its cells.
#[inline(always)]
fn minicols(m: u32) -> u32 {
    (m | m >> 9 | m >> 18) & 0x1FF
}

/// Of three 9-bit masks, the bits set in exactly one.
#[inline(always)]
fn once(a: u32, b: u32, c: u32) -> u32 {
    (a | b | c) & !((a & b) | (c & (a | b)))
}

/// For a stack's nine minicolumns gathered by [`gather`], those on some permutation, laid out
/// as in `cols` (bit 9·band + column in the stack); 0 when none.
static STACK_PERMS: [u32; 512] = stack_perms_table();

const fn stack_perms_table() -> [u32; 512] {
    let allowed = perm_triads();
    let mut table = [0u32; 512];
    let mut i = 0;
    while i < 512 {
        let a = allowed[i] as u32;
        table[i] = (a & 7) | (a & 0x38) << 6 | (a & 0x1C0) << 12;
        i += 1;
    }
    table
}

/// Stack `s`'s minicolumns from `cols`, as 9 bits: 3·band + column in the stack.
#[inline(always)]
pub(super) fn gather(cols: u32, s: usize) -> usize {
    // The three 3-bit groups (bits 0, 9 and 18) are multiplied up to bits 18, 21 and 24,
    // their other copies landing in disjoint bits, so no carries mix them.
    let y = (cols >> (3 * s)) & BOX;
    ((y.wrapping_mul(1 << 6 | 1 << 12 | 1 << 18) >> 18) & 0x1FF) as usize
}

/// One digit's minicolumns kept to those on some permutation in each stack; `None` when a
/// stack has none.
#[inline(always)]
fn stack_perms(cols: u32) -> Option<u32> {
    let mut out = 0;
    let mut empty = false;
    for s in 0..3 {
        let allowed = STACK_PERMS[gather(cols, s)];
        empty |= allowed == 0;
        out |= allowed << (3 * s);
    }
    (!empty).then_some(out)
}

impl State {
    /// Runs the stack rule and the three-digits-per-minirow/minicolumn rules once, from the
    /// masks as they stand; `None` on a contradiction. What it removes marks digit-bands dirty;
    /// when it removes nothing, the returned `Lines` describe the state exactly.
    pub(super) fn line_rules(&mut self) -> Option<Lines> {
        let mut lines = Lines {
            rows: [0; 9],
            cols: [0; 9],
        };
        let mut locked = [0u64; 9];
        let (mut possible, mut certain) = (Counts::default(), Counts::default());
        for (d, locked) in locked.iter_mut().enumerate() {
            let m = [self.cand[d], self.cand[9 + d], self.cand[18 + d]];
            let rows = minirows(m[0]) | minirows(m[1]) << 1 | minirows(m[2]) << 2;
            let seen = minicols(m[0]) | minicols(m[1]) << 9 | minicols(m[2]) << 18;
            let cols = stack_perms(seen)?;
            if cols != seen {
                for (band, shift) in [0, 9, 18].into_iter().enumerate() {
                    self.keep(9 * band + d, ((cols >> shift) & 0x1FF) * COLS);
                }
            }
            // Certain: a minirow alone in its row (the band rule has closed rows over
            // permutations), a minicolumn alone in its column (likewise, by the stack rule).
            let rows_alone = once(rows & BOX, (rows >> 3) & BOX, (rows >> 6) & BOX) * 0o111;
            let cols_alone = once(cols & 0x1FF, (cols >> 9) & 0x1FF, cols >> 18) * COLS;
            let x = u64::from(rows) | u64::from(cols) << 32;
            let y = u64::from(rows & rows_alone) | u64::from(cols & cols_alone) << 32;
            possible.add(x);
            certain.add(y);
            lines.rows[d] = rows;
            lines.cols[d] = cols;
            *locked = y;
        }
        let every = u64::from(ALL) | u64::from(ALL) << 32;
        if possible.three != every || certain.four != 0 {
            return None;
        }
        let (only_three, full) = (possible.exactly_three(), certain.exactly_three());
        // A minirow or minicolumn with three digits possible and three certain is settled.
        if only_three ^ full != 0 {
            for (d, &locked) in locked.iter().enumerate() {
                let x = u64::from(lines.rows[d]) | u64::from(lines.cols[d]) << 32;
                let need = x & only_three & !locked;
                let out = x & full & !locked;
                if need | out != 0 {
                    self.apply_lines(d, need, out);
                }
            }
        }
        Some(lines)
    }

    /// Commits digit `d` to the minirows and minicolumns of `need` and removes it from those
    /// of `out` (both laid out as `rows | cols << 32`).
    #[cold]
    fn apply_lines(&mut self, d: usize, need: u64, out: u64) {
        let mut keep = [ALL; 3];
        let mut bits = (need as u32) & ALL;
        while bits != 0 {
            let i = bits.trailing_zeros();
            bits &= bits - 1;
            let (band, row, bx) = ((i % 3) as usize, i / 9, (i % 9) / 3);
            keep[band] &= !(ROW[row as usize] | BOX << (3 * bx)) | 7 << (9 * row + 3 * bx);
        }
        let mut bits = (out as u32) & ALL;
        while bits != 0 {
            let i = bits.trailing_zeros();
            bits &= bits - 1;
            let (band, row, bx) = ((i % 3) as usize, i / 9, (i % 9) / 3);
            keep[band] &= !(7 << (9 * row + 3 * bx));
        }
        let mut bits = (need >> 32) as u32;
        while bits != 0 {
            let i = bits.trailing_zeros();
            bits &= bits - 1;
            let (band, col) = ((i / 9) as usize, i % 9);
            let stack = (COLS * 7) << (3 * (col / 3));
            for (b, k) in keep.iter_mut().enumerate() {
                *k &= if b == band {
                    !stack | COLS << col
                } else {
                    !(COLS << col)
                };
            }
        }
        let mut bits = (out >> 32) as u32;
        while bits != 0 {
            let i = bits.trailing_zeros();
            bits &= bits - 1;
            keep[(i / 9) as usize] &= !(COLS << (i % 9));
        }
        for (band, k) in keep.into_iter().enumerate() {
            self.keep(9 * band + d, k);
        }
    }
}
