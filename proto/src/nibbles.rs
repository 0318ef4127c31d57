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
    if let (Ok(values), Ok(out)) = (
        <&[u8; CLASSIC_CELLS]>::try_from(values),
        <&mut [u8; CLASSIC_BYTES]>::try_from(&mut *out),
    ) {
        return pack_classic(values, out);
    }
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
    if let (Ok(packed), Ok(out)) = (
        <&[u8; CLASSIC_BYTES]>::try_from(packed),
        <&mut [u8; CLASSIC_CELLS]>::try_from(&mut *out),
    ) {
        return unpack_classic(packed, out);
    }
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

/// Cells of a 9×9 grid, and the bytes they pack into.
const CLASSIC_CELLS: usize = 81;
const CLASSIC_BYTES: usize = packed_len(CLASSIC_CELLS);

// Every packed 9×9 puzzle and solution goes through these, five times on its way through the
// CLI and the server. With the sizes known, the loops become vector code: 3-5 ns a grid
// against 7-13 ns for the loops over slices above (x86-64-v2).

/// [`pack_into`] for a 9×9 grid.
fn pack_classic(values: &[u8; CLASSIC_CELLS], out: &mut [u8; CLASSIC_BYTES]) {
    let mut padded = [0u8; 2 * CLASSIC_BYTES];
    padded[..CLASSIC_CELLS].copy_from_slice(values);
    // As 16-bit lanes (first cell low), which narrow to bytes in vector code; pairs of bytes
    // became shuffles that ran slower than the plain loop.
    for (byte, &pair) in out.iter_mut().zip(padded.as_chunks::<2>().0) {
        let pair = u16::from_le_bytes(pair);
        *byte = (((pair & 0x0f) << 4) | ((pair >> 8) & 0x0f)) as u8;
    }
}

/// [`unpack_into`] for a 9×9 grid.
fn unpack_classic(packed: &[u8; CLASSIC_BYTES], out: &mut [u8; CLASSIC_CELLS]) {
    let mut padded = [0u8; 2 * CLASSIC_BYTES];
    for (i, &byte) in packed.iter().enumerate() {
        padded[2 * i] = byte >> 4;
        padded[2 * i + 1] = byte & 0x0f;
    }
    out.copy_from_slice(&padded[..CLASSIC_CELLS]);
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

    #[test]
    fn a_9x9_grid_packs_as_the_general_loop_packs_it() {
        // 82 values take the general loop; with the last 0 they pack to the same 41 bytes.
        let values: Vec<u8> = (0..82usize)
            .map(|i| if i == 81 { 0 } else { (i * 5 % 10) as u8 })
            .collect();
        let (mut classic, mut general) = ([0u8; 41], [0u8; 41]);
        pack_into(&values[..81], &mut classic);
        pack_into(&values, &mut general);
        assert_eq!(classic, general);
        assert_eq!(classic[0], 0x05, "cells 0 and 1");
        assert_eq!(classic[40], 0x00, "cell 80 (0) and no cell 81");
        let (mut back, mut longer) = ([9u8; 81], [9u8; 82]);
        unpack_into(&classic, &mut back);
        unpack_into(&classic, &mut longer);
        assert_eq!(back[..], values[..81]);
        assert_eq!(back[..], longer[..81]);
    }
}
