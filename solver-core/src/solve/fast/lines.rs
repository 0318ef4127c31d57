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

use super::{BOX, COLS, ROW, State};

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
        let (rows, cols) = minilines(cand);
        Lines { rows, cols }
    }
}

/// Bit-sliced counts of nine digits per bit, up to four: each field holds the bits counted
/// at least that often.
#[derive(Default, Debug, PartialEq, Eq)]
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

/// How often each bit of `rows[d] | cols[d] << 32` is set over the nine digits.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn tally_scalar(rows: &[u32; 9], cols: &[u32; 9]) -> Counts {
    let mut counts = Counts::default();
    for (&r, &c) in rows.iter().zip(cols) {
        counts.add(u64::from(r) | u64::from(c) << 32);
    }
    counts
}

#[cfg(not(target_arch = "x86_64"))]
use tally_scalar as tally;

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

/// Per digit, its minirows (as `Lines::rows`) and minicolumns (as `Lines::cols`) in `cand`.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn minilines_scalar(cand: &[u32; 27]) -> ([u32; 9], [u32; 9]) {
    let (mut rows, mut cols) = ([0; 9], [0; 9]);
    for d in 0..9 {
        (rows[d], cols[d]) = digit_minilines(cand, d);
    }
    (rows, cols)
}

/// [`minilines_scalar`] for digit `d`.
#[inline(always)]
fn digit_minilines(cand: &[u32; 27], d: usize) -> (u32, u32) {
    let m = [cand[d], cand[9 + d], cand[18 + d]];
    (
        minirows(m[0]) | minirows(m[1]) << 1 | minirows(m[2]) << 2,
        minicols(m[0]) | minicols(m[1]) << 9 | minicols(m[2]) << 18,
    )
}

/// Per digit, of its minirows and minicolumns those alone in their row or column: the band
/// and stack rules have closed rows and columns over permutations, so these are certain.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn certain_scalar(rows: &[u32; 9], cols: &[u32; 9]) -> ([u32; 9], [u32; 9]) {
    let (mut rows_certain, mut cols_certain) = ([0; 9], [0; 9]);
    for d in 0..9 {
        (rows_certain[d], cols_certain[d]) = digit_certain(rows[d], cols[d]);
    }
    (rows_certain, cols_certain)
}

/// [`certain_scalar`] for one digit's minirows and minicolumns.
#[inline(always)]
fn digit_certain(rows: u32, cols: u32) -> (u32, u32) {
    let rows_alone = once(rows & BOX, (rows >> 3) & BOX, (rows >> 6) & BOX) * 0o111;
    let cols_alone = once(cols & 0x1FF, (cols >> 9) & 0x1FF, cols >> 18) * COLS;
    (rows & rows_alone, cols & cols_alone)
}

#[cfg(not(target_arch = "x86_64"))]
use {certain_scalar as certain, minilines_scalar as minilines};

#[cfg(target_arch = "x86_64")]
use sse2::{certain, minilines, stack_rule, tally};

/// [`minilines_scalar`] and [`certain_scalar`] four digits at a time (digits 0–3 and 4–7 in
/// SSE2 lanes, digit 8 alone): the line rules run at every search node.
#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_andnot_si128, _mm_cmpeq_epi32, _mm_cvtsi128_si64,
        _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi32, _mm_setzero_si128,
        _mm_slli_epi32, _mm_srli_epi32, _mm_storeu_si128, _mm_unpackhi_epi32, _mm_unpackhi_epi64,
        _mm_unpacklo_epi32,
    };

    use super::{
        AFTER_HIGH, AFTER_LOW, ALL, BOX, Counts, NEXT_HIGH, NEXT_LOW, TRIAD_BITS, digit_certain,
        digit_minilines, digit_stack_rule,
    };

    /// Four digits' masks from `src[at..at + 4]`.
    #[inline(always)]
    fn load(src: &[u32], at: usize) -> __m128i {
        let lanes: &[u32; 4] = src[at..at + 4].try_into().expect("four lanes");
        // SAFETY: SSE2 is part of x86_64; the pointer covers the 16 bytes of `lanes`.
        unsafe { _mm_loadu_si128(lanes.as_ptr().cast::<__m128i>()) }
    }

    /// Stores four digits' masks to `dst[at..at + 4]`.
    #[inline(always)]
    fn store(dst: &mut [u32; 9], at: usize, v: __m128i) {
        let lanes: &mut [u32; 4] = (&mut dst[at..at + 4]).try_into().expect("four lanes");
        // SAFETY: SSE2 is part of x86_64; the pointer covers the 16 bytes of `lanes`.
        unsafe { _mm_storeu_si128(lanes.as_mut_ptr().cast::<__m128i>(), v) }
    }

    /// `(a | b | c) & !(bits in two or more)`, four lanes.
    #[inline(always)]
    fn once(a: __m128i, b: __m128i, c: __m128i) -> __m128i {
        // SAFETY: SSE2 is part of x86_64; register operations only.
        unsafe {
            let ab = _mm_or_si128(a, b);
            let twice = _mm_or_si128(_mm_and_si128(a, b), _mm_and_si128(c, ab));
            _mm_andnot_si128(twice, _mm_or_si128(ab, c))
        }
    }

    pub(super) fn minilines(cand: &[u32; 27]) -> ([u32; 9], [u32; 9]) {
        let (mut rows, mut cols) = ([0; 9], [0; 9]);
        for at in [0, 4] {
            // SAFETY: SSE2 is part of x86_64; register operations only.
            unsafe {
                let (mut r, mut c) = (_mm_set1_epi32(0), _mm_set1_epi32(0));
                let triads = _mm_set1_epi32(TRIAD_BITS as i32);
                let low9 = _mm_set1_epi32(0x1FF);
                for band in 0..3 {
                    let m = load(cand, 9 * band + at);
                    let mr = _mm_or_si128(
                        _mm_or_si128(m, _mm_srli_epi32::<1>(m)),
                        _mm_srli_epi32::<2>(m),
                    );
                    let mr = _mm_and_si128(mr, triads);
                    let mc = _mm_or_si128(
                        _mm_or_si128(m, _mm_srli_epi32::<9>(m)),
                        _mm_srli_epi32::<18>(m),
                    );
                    let mc = _mm_and_si128(mc, low9);
                    let (mr, mc) = match band {
                        0 => (mr, mc),
                        1 => (_mm_slli_epi32::<1>(mr), _mm_slli_epi32::<9>(mc)),
                        _ => (_mm_slli_epi32::<2>(mr), _mm_slli_epi32::<18>(mc)),
                    };
                    r = _mm_or_si128(r, mr);
                    c = _mm_or_si128(c, mc);
                }
                store(&mut rows, at, r);
                store(&mut cols, at, c);
            }
        }
        (rows[8], cols[8]) = digit_minilines(cand, 8);
        (rows, cols)
    }

    /// Four lanes' [`super::digit_stack_rule`]: the stack rule runs at every search node.
    #[inline(always)]
    fn lanes_stack_rule(cols: __m128i) -> (__m128i, __m128i) {
        // SAFETY: SSE2 is part of x86_64; register operations only.
        unsafe {
            let all = _mm_set1_epi32(ALL as i32);
            let down1 = _mm_and_si128(
                _mm_or_si128(_mm_srli_epi32::<9>(cols), _mm_slli_epi32::<18>(cols)),
                all,
            );
            let down2 = _mm_and_si128(
                _mm_or_si128(_mm_srli_epi32::<18>(cols), _mm_slli_epi32::<9>(cols)),
                all,
            );
            let (next_low, next_high) = (
                _mm_set1_epi32(NEXT_LOW as i32),
                _mm_set1_epi32(NEXT_HIGH as i32),
            );
            let (after_low, after_high) = (
                _mm_set1_epi32(AFTER_LOW as i32),
                _mm_set1_epi32(AFTER_HIGH as i32),
            );
            let next = |x| {
                _mm_or_si128(
                    _mm_and_si128(_mm_srli_epi32::<1>(x), next_low),
                    _mm_and_si128(_mm_slli_epi32::<2>(x), next_high),
                )
            };
            let after = |x| {
                _mm_or_si128(
                    _mm_and_si128(_mm_srli_epi32::<2>(x), after_low),
                    _mm_and_si128(_mm_slli_epi32::<1>(x), after_high),
                )
            };
            let kept = _mm_and_si128(
                cols,
                _mm_or_si128(
                    _mm_and_si128(next(down1), after(down2)),
                    _mm_and_si128(after(down1), next(down2)),
                ),
            );
            // All ones in lanes where some stack keeps nothing.
            let zero = _mm_setzero_si128();
            let stack = _mm_set1_epi32(BOX as i32);
            let empty = _mm_or_si128(
                _mm_or_si128(
                    _mm_cmpeq_epi32(_mm_and_si128(kept, stack), zero),
                    _mm_cmpeq_epi32(_mm_and_si128(kept, _mm_slli_epi32::<3>(stack)), zero),
                ),
                _mm_cmpeq_epi32(_mm_and_si128(kept, _mm_slli_epi32::<6>(stack)), zero),
            );
            (kept, empty)
        }
    }

    pub(super) fn stack_rule(cols: &[u32; 9]) -> Option<[u32; 9]> {
        let mut out = [0; 9];
        let (lo, lo_empty) = lanes_stack_rule(load(cols, 0));
        let (hi, hi_empty) = lanes_stack_rule(load(cols, 4));
        // SAFETY: SSE2 is part of x86_64; register operations only.
        if unsafe { _mm_movemask_epi8(_mm_or_si128(lo_empty, hi_empty)) } != 0 {
            return None;
        }
        store(&mut out, 0, lo);
        store(&mut out, 4, hi);
        out[8] = digit_stack_rule(cols[8])?;
        Some(out)
    }

    /// [`super::tally_scalar`] two digits per register (rows and columns interleaved into
    /// 64-bit lanes), the two lanes' counts added at the end.
    pub(super) fn tally(rows: &[u32; 9], cols: &[u32; 9]) -> Counts {
        // SAFETY: SSE2 is part of x86_64; register operations only.
        let lanes = unsafe {
            let (r0, r1) = (load(rows, 0), load(rows, 4));
            let (c0, c1) = (load(cols, 0), load(cols, 4));
            let pairs = [
                _mm_unpackhi_epi32(r0, c0),
                _mm_unpacklo_epi32(r1, c1),
                _mm_unpackhi_epi32(r1, c1),
            ];
            let mut one = _mm_unpacklo_epi32(r0, c0);
            let (mut two, mut three, mut four) = (
                _mm_setzero_si128(),
                _mm_setzero_si128(),
                _mm_setzero_si128(),
            );
            for x in pairs {
                four = _mm_or_si128(four, _mm_and_si128(three, x));
                three = _mm_or_si128(three, _mm_and_si128(two, x));
                two = _mm_or_si128(two, _mm_and_si128(one, x));
                one = _mm_or_si128(one, x);
            }
            let split = |v: __m128i| {
                (
                    _mm_cvtsi128_si64(v) as u64,
                    _mm_cvtsi128_si64(_mm_unpackhi_epi64(v, v)) as u64,
                )
            };
            [split(one), split(two), split(three), split(four)]
        };
        let [(o1, o2), (t1, t2), (h1, h2), (f1, f2)] = lanes;
        let mut counts = Counts {
            one: o1 | o2,
            two: t1 | t2 | (o1 & o2),
            three: h1 | h2 | (t1 & o2) | (o1 & t2),
            four: f1 | f2 | (h1 & o2) | (o1 & h2) | (t1 & t2),
        };
        counts.add(u64::from(rows[8]) | u64::from(cols[8]) << 32);
        counts
    }

    pub(super) fn certain(rows: &[u32; 9], cols: &[u32; 9]) -> ([u32; 9], [u32; 9]) {
        let (mut rows_certain, mut cols_certain) = ([0; 9], [0; 9]);
        for at in [0, 4] {
            // SAFETY: SSE2 is part of x86_64; register operations only.
            unsafe {
                let boxes = _mm_set1_epi32(BOX as i32);
                let low9 = _mm_set1_epi32(0x1FF);
                let r = load(rows, at);
                let alone = once(
                    _mm_and_si128(r, boxes),
                    _mm_and_si128(_mm_srli_epi32::<3>(r), boxes),
                    _mm_and_si128(_mm_srli_epi32::<6>(r), boxes),
                );
                let alone = _mm_or_si128(
                    _mm_or_si128(alone, _mm_slli_epi32::<3>(alone)),
                    _mm_slli_epi32::<6>(alone),
                );
                store(&mut rows_certain, at, _mm_and_si128(r, alone));
                let c = load(cols, at);
                let alone = once(
                    _mm_and_si128(c, low9),
                    _mm_and_si128(_mm_srli_epi32::<9>(c), low9),
                    _mm_srli_epi32::<18>(c),
                );
                let alone = _mm_or_si128(
                    _mm_or_si128(alone, _mm_slli_epi32::<9>(alone)),
                    _mm_slli_epi32::<18>(alone),
                );
                store(&mut cols_certain, at, _mm_and_si128(c, alone));
            }
        }
        (rows_certain[8], cols_certain[8]) = digit_certain(rows[8], cols[8]);
        (rows_certain, cols_certain)
    }
}

/// Stack `s`'s minicolumns from `cols`, as 9 bits: 3·band + column in the stack.
#[inline(always)]
pub(super) fn gather(cols: u32, s: usize) -> usize {
    // The three 3-bit groups (bits 0, 9 and 18) are multiplied up to bits 18, 21 and 24,
    // their other copies landing in disjoint bits, so no carries mix them.
    let y = (cols >> (3 * s)) & BOX;
    ((y.wrapping_mul(1 << 6 | 1 << 12 | 1 << 18) >> 18) & 0x1FF) as usize
}

/// Within each 3-bit group, bit c takes the group's bit c + 1 (mod 3).
const NEXT_LOW: u32 = 0o333_333_333;
const NEXT_HIGH: u32 = 0o444_444_444;
/// Within each 3-bit group, bit c takes the group's bit c + 2 (mod 3).
const AFTER_LOW: u32 = 0o111_111_111;
const AFTER_HIGH: u32 = 0o666_666_666;

/// One digit's minicolumns (as `Lines::cols`) kept to those on some permutation in their
/// stack (one minicolumn per band and per column there), all three stacks at once: a
/// minicolumn stays when the other two bands can take the other two columns. `None` when a
/// stack keeps none.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn stack_rule_scalar(cols: &[u32; 9]) -> Option<[u32; 9]> {
    let mut out = [0; 9];
    for (o, &c) in out.iter_mut().zip(cols) {
        *o = digit_stack_rule(c)?;
    }
    Some(out)
}

/// [`stack_rule_scalar`] for one digit.
#[inline(always)]
fn digit_stack_rule(cols: u32) -> Option<u32> {
    // Bit 9·band + 3·stack + column holds, after each step, the minicolumn one or two bands
    // further down (`down1`, `down2`) and one or two columns further right (`next`, `after`).
    let down1 = (cols >> 9 | cols << 18) & ALL;
    let down2 = (cols >> 18 | cols << 9) & ALL;
    let next = |x: u32| (x >> 1 & NEXT_LOW) | (x << 2 & NEXT_HIGH);
    let after = |x: u32| (x >> 2 & AFTER_LOW) | (x << 1 & AFTER_HIGH);
    let kept = cols & ((next(down1) & after(down2)) | (after(down1) & next(down2)));
    let stacks_kept = (0..3).all(|s| kept & BOX << (3 * s) != 0);
    stacks_kept.then_some(kept)
}

#[cfg(not(target_arch = "x86_64"))]
use stack_rule_scalar as stack_rule;

impl State {
    /// Runs the stack rule and the three-digits-per-minirow/minicolumn rules once, from the
    /// masks as they stand; `None` on a contradiction. What it removes marks digit-bands dirty;
    /// when it removes nothing, the returned `Lines` describe the state exactly.
    #[inline(always)]
    pub(super) fn line_rules(&mut self) -> Option<Lines> {
        let (rows, seen) = minilines(&self.cand);
        let cols = stack_rule(&seen)?;
        // Dirty bits gather in a register, not through `self.dirty` one store after another.
        let mut dirty = 0;
        for (d, (&cols, &seen)) in cols.iter().zip(&seen).enumerate() {
            if cols != seen {
                for (band, shift) in [0, 9, 18].into_iter().enumerate() {
                    dirty |= self.narrow(9 * band + d, ((cols >> shift) & 0x1FF) * COLS);
                }
            }
        }
        self.dirty |= dirty;
        let lines = Lines { rows, cols };
        let (rows_certain, cols_certain) = certain(&lines.rows, &lines.cols);
        let possible = tally(&lines.rows, &lines.cols);
        let certain = tally(&rows_certain, &cols_certain);
        let every = u64::from(ALL) | u64::from(ALL) << 32;
        if possible.three != every || certain.four != 0 {
            return None;
        }
        let (only_three, full) = (possible.exactly_three(), certain.exactly_three());
        // A minirow or minicolumn with three digits possible and three certain is settled.
        if only_three ^ full != 0 {
            for d in 0..9 {
                let x = u64::from(lines.rows[d]) | u64::from(lines.cols[d]) << 32;
                let locked = u64::from(rows_certain[d]) | u64::from(cols_certain[d]) << 32;
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
        let dirty = (0..3).fold(0, |a, band| a | self.narrow(9 * band + d, keep[band]));
        self.dirty |= dirty;
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Digit-bands of mixed density: sparse, dense and in between.
    fn cands() -> impl Strategy<Value = [u32; 27]> {
        let mask = (0..=ALL, 0..=ALL, 0..4u8).prop_map(|(a, b, kind)| match kind {
            0 => a & b,
            1 => a | b,
            _ => a,
        });
        proptest::array::uniform27(mask)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        #[test]
        fn sse2_minilines_match_the_scalar_ones(cand in cands()) {
            prop_assert_eq!(minilines(&cand), minilines_scalar(&cand));
        }

        #[test]
        fn sse2_stack_rule_matches_the_scalar_one(cand in cands()) {
            let (_, cols) = minilines_scalar(&cand);
            prop_assert_eq!(stack_rule(&cols), stack_rule_scalar(&cols));
        }

        #[test]
        fn sse2_tally_matches_the_scalar_one(a in cands(), b in cands()) {
            let (rows, _) = minilines_scalar(&a);
            let (_, cols) = minilines_scalar(&b);
            prop_assert_eq!(tally(&rows, &cols), tally_scalar(&rows, &cols));
            let (rows, cols) = certain_scalar(&rows, &cols);
            prop_assert_eq!(tally(&rows, &cols), tally_scalar(&rows, &cols));
        }

        #[test]
        fn sse2_certain_lines_match_the_scalar_ones(cand in cands()) {
            let (rows, cols) = minilines_scalar(&cand);
            prop_assert_eq!(certain(&rows, &cols), certain_scalar(&rows, &cols));
        }
    }

    /// The minicolumns of one stack's 3×3 (band, column) matrix `m` that lie on a
    /// permutation, by trying all six.
    fn permutations_through(m: u32) -> u32 {
        let mut kept = 0;
        for order in super::super::ORDERS {
            let cells = (0..3).fold(0, |a, band| a | 1 << (3 * band + order[band]));
            if m & cells == cells {
                kept |= cells;
            }
        }
        kept
    }

    #[test]
    fn the_stack_rule_keeps_exactly_the_minicolumns_on_a_permutation() {
        // Every 3×3 matrix in each stack, the other two stacks full.
        for s in 0..3 {
            for m in 0..512u32 {
                let spread = (m & 7) | (m >> 3 & 7) << 9 | (m >> 6 & 7) << 18;
                let others = ALL & !(BOX << (3 * s));
                let expected = permutations_through(m);
                let got = digit_stack_rule(others | spread << (3 * s));
                let got = got.map(|g| gather(g, s) as u32);
                assert_eq!(
                    got,
                    (expected != 0).then_some(expected),
                    "stack {s}, {m:09b}"
                );
            }
        }
    }

    #[test]
    fn a_lone_minirow_is_certain_and_a_shared_one_is_not() {
        let mut cand = [0u32; 27];
        // Digit 1: band 0, row 0, box 1 only; row 1 in boxes 0 and 2.
        cand[0] = 1 << 3 | 1 << 9 | 1 << (9 + 6);
        let (rows, cols) = minilines(&cand);
        assert_eq!(rows[0], 1 << 3 | 1 << 9 | 1 << 15);
        assert_eq!(cols[0], 1 << 3 | 1 | 1 << 6);
        let (rows_certain, _) = certain(&rows, &cols);
        assert_eq!(rows_certain[0], 1 << 3);
    }
}
