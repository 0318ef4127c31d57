//! `sudoku.v1.Grid` with hand-written wire code.
//!
//! The bytes are exactly what prost generates for the schema (cells as packed varints), but
//! prost's generic code decodes a packed field one varint call and one `Vec` push at a time,
//! growing the vector six times for a 9×9 grid. Grids are most of every message, so on a
//! batch of easy puzzles that cost more than solving them. Cell values are below 128, one byte
//! each on the wire, so both directions here copy bytes in bulk and fall back to varints only
//! for values that need them.

use prost::bytes::{Buf, BufMut};
use prost::encoding::{
    DecodeContext, WireType, encode_key, encode_varint, encoded_len_varint, key_len, skip_field,
    uint32,
};
use prost::{DecodeError, Message};

/// A grid on the wire: box shape and row-major cells, 0 for empty.
#[derive(Clone, PartialEq, Eq, Hash, Default, Debug)]
pub struct Grid {
    /// Rows per box (3 for the classic 9×9 grid).
    pub box_rows: u32,
    /// Columns per box (3 for the classic 9×9 grid).
    pub box_cols: u32,
    /// side × side cells in row-major order: 0 for empty, else 1..=side.
    pub cells: Vec<u32>,
}

const BOX_ROWS: u32 = 1;
const BOX_COLS: u32 = 2;
const CELLS: u32 = 3;

impl Grid {
    /// Whether every cell value takes one byte on the wire (true of every valid grid).
    fn one_byte_cells(&self) -> bool {
        // An OR over all values, which compiles to a few vector instructions.
        self.cells.iter().fold(0, |acc, &v| acc | v) < 0x80
    }

    /// Bytes of the packed cells, without key and length.
    fn cells_len(&self) -> usize {
        if self.one_byte_cells() {
            return self.cells.len();
        }
        self.cells
            .iter()
            .map(|&v| encoded_len_varint(u64::from(v)))
            .sum()
    }
}

impl Message for Grid {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        if self.box_rows != 0 {
            uint32::encode(BOX_ROWS, &self.box_rows, buf);
        }
        if self.box_cols != 0 {
            uint32::encode(BOX_COLS, &self.box_cols, buf);
        }
        if self.cells.is_empty() {
            return;
        }
        encode_key(CELLS, WireType::LengthDelimited, buf);
        let len = self.cells_len();
        encode_varint(len as u64, buf);
        // Only one-byte values make the length equal to the count.
        if len == self.cells.len() {
            // Every value takes one byte: copy through a stack buffer, a chunk at a time.
            let mut bytes = [0u8; 256];
            for chunk in self.cells.chunks(bytes.len()) {
                for (byte, &v) in bytes.iter_mut().zip(chunk) {
                    *byte = v as u8;
                }
                buf.put_slice(&bytes[..chunk.len()]);
            }
        } else {
            for &v in &self.cells {
                encode_varint(u64::from(v), buf);
            }
        }
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        match tag {
            BOX_ROWS => uint32::merge(wire_type, &mut self.box_rows, buf, ctx),
            BOX_COLS => uint32::merge(wire_type, &mut self.box_cols, buf, ctx),
            CELLS => merge_cells(wire_type, &mut self.cells, buf, ctx),
            _ => skip_field(wire_type, tag, buf, ctx),
        }
    }

    fn encoded_len(&self) -> usize {
        let dim = |tag, v: u32| {
            if v == 0 {
                0
            } else {
                key_len(tag) + encoded_len_varint(u64::from(v))
            }
        };
        let cells = if self.cells.is_empty() {
            0
        } else {
            let len = self.cells_len();
            key_len(CELLS) + encoded_len_varint(len as u64) + len
        };
        dim(BOX_ROWS, self.box_rows) + dim(BOX_COLS, self.box_cols) + cells
    }

    fn clear(&mut self) {
        *self = Grid::default();
    }
}

/// Appends cells. The common case, a packed field whose bytes all sit in the current chunk
/// with every value one byte, is a bulk copy; anything else (values of several bytes, a field
/// split across chunks, unpacked values, malformed input) goes to prost's own code.
fn merge_cells(
    wire_type: WireType,
    cells: &mut Vec<u32>,
    buf: &mut impl Buf,
    ctx: DecodeContext,
) -> Result<(), DecodeError> {
    if wire_type == WireType::LengthDelimited
        && let Some((prefix, values)) = one_byte_values(buf.chunk())
    {
        cells.extend(values.iter().map(|&b| u32::from(b)));
        buf.advance(prefix + values.len());
        return Ok(());
    }
    uint32::merge_repeated(wire_type, cells, buf, ctx)
}

/// For packed varints at the start of `bytes` (length prefix, then values): the prefix's size
/// and the values, when all of them are in `bytes` and every value takes one byte.
fn one_byte_values(bytes: &[u8]) -> Option<(usize, &[u8])> {
    let mut len = 0usize;
    // A prefix of up to four bytes covers 256 MiB, far beyond any message size limit.
    for (i, &b) in bytes.iter().enumerate().take(4) {
        len |= usize::from(b & 0x7F) << (7 * i);
        if b < 0x80 {
            let values = bytes.get(i + 1..)?.get(..len)?;
            return values.iter().all(|&v| v < 0x80).then_some((i + 1, values));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// What prost generates for the schema's `Grid`: the reference for the wire format.
    #[derive(Clone, PartialEq, prost::Message)]
    struct Generated {
        #[prost(uint32, tag = "1")]
        box_rows: u32,
        #[prost(uint32, tag = "2")]
        box_cols: u32,
        #[prost(uint32, repeated, tag = "3")]
        cells: Vec<u32>,
    }

    /// The same field sent unpacked, one key per value, which decoders must accept.
    #[derive(Clone, PartialEq, prost::Message)]
    struct Unpacked {
        #[prost(uint32, tag = "1")]
        box_rows: u32,
        #[prost(uint32, repeated, packed = "false", tag = "3")]
        cells: Vec<u32>,
        #[prost(string, tag = "9")]
        unknown: String,
    }

    /// Small cell values mostly, as on the wire, with some that need several bytes.
    fn cells() -> impl Strategy<Value = Vec<u32>> {
        prop::collection::vec(
            prop_oneof![8 => 0..26u32, 1 => 0..300u32, 1 => any::<u32>()],
            0..700,
        )
    }

    proptest! {
        #[test]
        fn encodes_what_prost_encodes(box_rows: u32, box_cols in 0..6u32, cells in cells()) {
            let ours = Grid { box_rows, box_cols, cells: cells.clone() };
            let reference = Generated { box_rows, box_cols, cells };
            prop_assert_eq!(ours.encoded_len(), reference.encoded_len());
            prop_assert_eq!(ours.encode_to_vec(), reference.encode_to_vec());
        }

        #[test]
        fn decodes_what_prost_encodes(box_rows: u32, box_cols in 0..6u32, cells in cells()) {
            let bytes = Generated { box_rows, box_cols, cells: cells.clone() }.encode_to_vec();
            let decoded = Grid::decode(bytes.as_slice()).expect("valid encoding");
            prop_assert_eq!(decoded, Grid { box_rows, box_cols, cells });
        }

        #[test]
        fn decodes_unpacked_cells_and_skips_unknown_fields(cells in cells(), unknown in ".{0,20}") {
            let bytes = Unpacked { box_rows: 3, cells: cells.clone(), unknown }.encode_to_vec();
            let decoded = Grid::decode(bytes.as_slice()).expect("valid encoding");
            prop_assert_eq!(decoded, Grid { box_rows: 3, box_cols: 0, cells });
        }

        #[test]
        fn decodes_across_buffer_chunks(cells in cells(), split in 0..800usize) {
            let bytes = Generated { box_rows: 5, box_cols: 5, cells: cells.clone() }.encode_to_vec();
            let split = split.min(bytes.len());
            let chained = bytes[..split].chain(&bytes[split..]);
            let decoded = Grid::decode(chained).expect("valid encoding");
            prop_assert_eq!(decoded.cells, cells);
        }

        #[test]
        fn never_panics_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
            // Whatever prost's own code makes of the bytes, ours must agree.
            let ours = Grid::decode(bytes.as_slice()).ok();
            let reference = Generated::decode(bytes.as_slice()).ok();
            prop_assert_eq!(
                ours.map(|g| (g.box_rows, g.box_cols, g.cells)),
                reference.map(|g| (g.box_rows, g.box_cols, g.cells))
            );
        }
    }

    #[test]
    fn truncated_cells_are_an_error() {
        let bytes = Generated {
            box_rows: 3,
            box_cols: 3,
            cells: vec![200; 81],
        }
        .encode_to_vec();
        // Byte 4 is the cells key; any cut after it leaves the field short.
        for cut in 5..bytes.len() {
            assert!(Grid::decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
    }
}
