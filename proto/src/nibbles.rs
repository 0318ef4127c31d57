//! Cells packed two a byte, as `PackedPuzzles.nibbles` and `PackedAnswers.solution_nibbles`
//! carry them: the first cell in the high four bits, each grid starting on a byte of its own.

/// The largest side whose values fit in four bits.
pub const MAX_SIDE: usize = 15;

/// Bytes that `cells` cells take packed.
pub const fn packed_len(cells: usize) -> usize {
    cells.div_ceil(2)
}

/// Packs `values` (each at most 15) into `out`, which must hold [`packed_len`] bytes; an odd
/// last cell leaves the low half of the last byte 0.
pub fn pack_into(values: &[u8], out: &mut [u8]) {
    let mut pairs = values.chunks_exact(2);
    for (byte, pair) in out.iter_mut().zip(&mut pairs) {
        *byte = (pair[0] << 4) | (pair[1] & 0x0f);
    }
    if let ([last], Some(byte)) = (pairs.remainder(), out.get_mut(values.len() / 2)) {
        *byte = last << 4;
    }
}

/// Appends `values` (each at most 15) packed.
pub fn pack(values: &[u8], out: &mut Vec<u8>) {
    let start = out.len();
    out.resize(start + packed_len(values.len()), 0);
    pack_into(values, &mut out[start..]);
}

/// Unpacks the first `out.len()` cells of `packed` into `out`; cells past the end of
/// `packed` are 0.
pub fn unpack_into(packed: &[u8], out: &mut [u8]) {
    let mut pairs = out.chunks_exact_mut(2);
    for (pair, &byte) in (&mut pairs).zip(packed) {
        pair[0] = byte >> 4;
        pair[1] = byte & 0x0f;
    }
    let whole = (out.len() / 2).min(packed.len());
    out[whole * 2..].fill(0);
    if out.len() % 2 == 1
        && let Some(&byte) = packed.get(out.len() / 2)
    {
        out[out.len() - 1] = byte >> 4;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_for_odd_and_even_counts() {
        for count in [0, 1, 2, 81, 144, 225] {
            let values: Vec<u8> = (0..count).map(|i| (i * 7 % 16) as u8).collect();
            let mut packed = vec![0xaa];
            pack(&values, &mut packed);
            assert_eq!(packed.len(), 1 + packed_len(count));
            assert_eq!(packed[0], 0xaa, "appended after what was there");
            let mut back = vec![0xff; count];
            unpack_into(&packed[1..], &mut back);
            assert_eq!(back, values, "{count} cells");
        }
    }

    #[test]
    fn the_first_cell_is_the_high_half_and_an_odd_last_leaves_the_low_half_zero() {
        let mut packed = Vec::new();
        pack(&[1, 2, 3], &mut packed);
        assert_eq!(packed, [0x12, 0x30]);
        let mut cells = [9; 3];
        unpack_into(&[0x45], &mut cells);
        assert_eq!(cells, [4, 5, 0], "cells past the bytes are empty");
    }
}
