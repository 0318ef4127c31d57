//! Reading batch input: lines to puzzles in input order, and puzzles to packed chunks.

use std::path::PathBuf;
use std::sync::Arc;

use bytes::Bytes;

use sudoku_proto::pb;
use tokio::sync::mpsc;

use super::Item;
use crate::cli::BatchArgs;
use crate::input::{LineReader, Origin, Place, open_input, puzzle_field};
use crate::request::parse;

/// Puzzles of one shape, sent as one BatchSolvePacked message and answered together.
#[derive(Debug)]
pub struct Chunk {
    /// The chunk's number in the job, sent as the message id.
    pub id: u64,
    /// Box shape.
    pub box_rows: u32,
    /// Box shape.
    pub box_cols: u32,
    /// Where each puzzle came from, in order.
    pub origins: Vec<Origin>,
    /// The puzzles' cells, one byte per cell value; shared with the message that carries
    /// them (and with any re-send), never copied.
    pub cells: Bytes,
}

impl Chunk {
    /// Puzzles in the chunk.
    pub fn len(&self) -> usize {
        self.origins.len()
    }

    /// Cells per puzzle.
    pub fn cells_each(&self) -> usize {
        (self.box_rows * self.box_cols).pow(2) as usize
    }
}

/// Reads every input in order and packs the puzzles that parse into chunks of one shape, at
/// most `chunk` puzzles each, on a thread of its own (reads block; on the async thread they
/// went through tokio's blocking pool, a hand-over per read and 1 ms before the first line):
/// a chunk goes out when full, when the shape changes, or when the input has nothing more in
/// memory (so a slow pipe is not held back). Each chunk goes to `items` first, so the printer
/// knows its puzzles before an answer can arrive; a line that does not parse is answered there.
pub fn read(
    args: BatchArgs,
    chunk: usize,
    chunks: mpsc::Sender<Arc<Chunk>>,
    items: mpsc::UnboundedSender<Item>,
) -> anyhow::Result<()> {
    let mut inputs: Vec<Option<PathBuf>> = args
        .files
        .iter()
        .chain(&args.file)
        .map(|f| (f.as_os_str() != "-").then(|| f.clone()))
        .collect();
    if inputs.is_empty() {
        inputs.push(None);
    }
    let mut packer = Packer {
        limit: chunk,
        ..Packer::default()
    };
    let mut number = 0usize;
    for input in inputs {
        let mut lines = LineReader::new(open_input(input.as_deref())?, input.as_deref());
        while let Some(line) = lines.next_raw()? {
            let origin = Origin {
                number: number + 1,
                place: Place::Line(line.number),
            };
            // A classic line is ASCII up to its puzzle's end; only the rest is checked as text.
            let packed = args.options.shape.is_none() && packer.add_classic(line.raw, &origin) && {
                line.text_from(CLASSIC_CELLS)?;
                true
            };
            if !packed {
                match parse_line(line.text()?, args.options.shape) {
                    None => continue,
                    Some(Ok(grid)) => {
                        if !packer.fits(&grid) && !packer.flush(&chunks, &items) {
                            return Ok(());
                        }
                        packer.add(origin, &grid);
                    }
                    Some(Err(error)) => {
                        let _ = items.send(Item::Invalid(origin, error.message));
                    }
                }
            }
            number += 1;
            if (packer.full() || !lines.buffered()) && !packer.flush(&chunks, &items) {
                return Ok(());
            }
        }
    }
    packer.flush(&chunks, &items);
    let _ = items.send(Item::Done);
    Ok(())
}

/// The puzzle of a line that is not a whole classic one (see [`Packer::add_classic`]), or
/// why it is not one; `None` for a blank or comment line.
fn parse_line(
    line: &str,
    shape: Option<solver_core::Shape>,
) -> Option<Result<pb::Grid, pb::SolveError>> {
    if line.trim().is_empty() || line.trim_start().starts_with('#') {
        return None;
    }
    let field = puzzle_field(line);
    Some(match shape {
        None => classic(field).map_or_else(|| parse(field, None), Ok),
        shape => parse(field, shape),
    })
}

/// A classic one-line puzzle (81 characters, `.` or `0` empty, `1`-`9`) as wire cells,
/// without looking for repeated digits: the server checks every puzzle anyway and names the
/// cells of a repeat, and parsing cost the client as much as solving the easiest puzzles.
/// Anything else goes through the full parser.
fn classic(field: &str) -> Option<pb::Grid> {
    let bytes = field.as_bytes();
    if bytes.len() != CLASSIC_CELLS {
        return None;
    }
    let cells = bytes
        .iter()
        .map(|&b| classic_value(b).map(u32::from))
        .collect::<Option<Vec<u32>>>()?;
    Some(pb::Grid {
        box_rows: 3,
        box_cols: 3,
        cells,
    })
}

/// Cells of a classic grid.
const CLASSIC_CELLS: usize = 81;

/// A classic cell's value from its character.
fn classic_value(b: u8) -> Option<u8> {
    match b {
        b'.' => Some(0),
        b'0'..=b'9' => Some(b - b'0'),
        _ => None,
    }
}

/// The chunk being filled.
#[derive(Default)]
struct Packer {
    next_id: u64,
    /// Most puzzles in a chunk.
    limit: usize,
    shape: (u32, u32),
    origins: Vec<Origin>,
    cells: Vec<u8>,
}

impl Packer {
    /// Whether the chunk has no room left.
    fn full(&self) -> bool {
        self.origins.len() >= self.limit
    }

    /// Whether `grid` can join the chunk: room left and the same shape.
    fn fits(&self, grid: &pb::Grid) -> bool {
        self.origins.is_empty() || (!self.full() && self.shape == (grid.box_rows, grid.box_cols))
    }

    fn add(&mut self, origin: Origin, grid: &pb::Grid) {
        self.shape = (grid.box_rows, grid.box_cols);
        self.origins.push(origin);
        // Values are at most the side (checked when parsed), so they fit a byte.
        self.cells.extend(grid.cells.iter().map(|&v| v as u8));
    }

    /// Adds `line` if it starts with a whole classic one-line puzzle (what
    /// [`puzzle_field`] and [`classic`] would take) and the chunk has room for it; false
    /// leaves the line to the general path. Most lines of big inputs go this way, without a
    /// copy of their cells on the way.
    fn add_classic(&mut self, bytes: &[u8], origin: &Origin) -> bool {
        let Some(field) = bytes.get(..CLASSIC_CELLS) else {
            return false;
        };
        // The field ends at the 81st character only when whitespace follows it.
        let ends = bytes
            .get(CLASSIC_CELLS)
            .is_none_or(|&b| b.is_ascii() && char::from(b).is_whitespace());
        if !ends || !(self.origins.is_empty() || (!self.full() && self.shape == (3, 3))) {
            return false;
        }
        // Every cell converted and checked, then one test: no branch per cell.
        let mut cells = [0u8; CLASSIC_CELLS];
        let mut digits = true;
        for (cell, &b) in cells.iter_mut().zip(field) {
            let digit = b.wrapping_sub(b'0');
            digits &= digit <= 9 || b == b'.';
            *cell = if b == b'.' { 0 } else { digit };
        }
        if !digits {
            return false;
        }
        self.cells.extend_from_slice(&cells);
        self.shape = (3, 3);
        self.origins.push(origin.clone());
        true
    }

    /// Sends the chunk, if any; false when nobody takes chunks any more.
    fn flush(
        &mut self,
        chunks: &mpsc::Sender<Arc<Chunk>>,
        items: &mpsc::UnboundedSender<Item>,
    ) -> bool {
        if self.origins.is_empty() {
            return true;
        }
        let cells = Vec::with_capacity(self.cells.len());
        let chunk = Arc::new(Chunk {
            id: self.next_id,
            box_rows: self.shape.0,
            box_cols: self.shape.1,
            origins: std::mem::replace(&mut self.origins, Vec::with_capacity(self.limit)),
            cells: std::mem::replace(&mut self.cells, cells).into(),
        });
        self.next_id += 1;
        let _ = items.send(Item::Puzzles(chunk.clone()));
        chunks.blocking_send(chunk).is_ok()
    }
}

/// How many puzzles the input files hold, for a progress bar; `None` for stdin or when a file
/// cannot be read (reading it for real then reports why).
pub async fn count(args: &BatchArgs) -> Option<u64> {
    let files: Vec<PathBuf> = args.files.iter().chain(&args.file).cloned().collect();
    if files.is_empty() || files.iter().any(|f| f.as_os_str() == "-") {
        return None;
    }
    let counted = tokio::task::spawn_blocking(move || {
        use std::io::BufRead;
        let mut total = 0u64;
        for file in files {
            let reader = std::io::BufReader::new(std::fs::File::open(file).ok()?);
            for line in reader.split(b'\n') {
                let line = line.ok()?;
                let text = line.trim_ascii_start();
                total += u64::from(!text.is_empty() && text[0] != b'#');
            }
        }
        Some(total)
    });
    counted.await.ok().flatten()
}
