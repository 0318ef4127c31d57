//! Reading batch input: lines to puzzles in input order, and puzzles to packed chunks.

use std::path::PathBuf;
use std::sync::Arc;

use sudoku_proto::pb;
use tokio::sync::mpsc;

use super::Item;
use crate::cli::BatchArgs;
use crate::input::{LineReader, Origin, Place, open_input, puzzle_field};
use crate::request::parse;

/// Most puzzles in one BatchSolvePacked message: large enough that a message's cost is
/// spread thin, small enough that a lost server leaves little to re-send.
pub const CHUNK: usize = 256;

/// Puzzles of one shape, sent as one BatchSolvePacked message and answered together.
#[derive(Debug)]
pub struct Chunk {
    /// The chunk's number in the job, sent as the message id.
    pub id: u64,
    /// Box shape.
    pub box_rows: u32,
    /// Box shape.
    pub box_cols: u32,
    /// Each puzzle's number (1-based, as in messages), in order.
    pub numbers: Vec<usize>,
    /// The puzzles' cells, one byte per cell.
    pub cells: Vec<u8>,
}

/// Reads every input in order and packs the puzzles that parse into chunks of one shape:
/// a chunk goes out when full, when the shape changes, or when the input has nothing more in
/// memory (so a slow pipe is not held back). Its puzzles go to `items` first, so the printer
/// knows them before an answer can arrive; a line that does not parse is answered there.
pub async fn read(
    args: BatchArgs,
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
    let mut packer = Packer::default();
    let mut number = 0usize;
    for input in inputs {
        let mut lines = LineReader::new(open_input(input.as_deref()).await?, input.as_deref());
        while let Some((line_no, line)) = lines.next().await? {
            if line.trim().is_empty() || line.trim_start().starts_with('#') {
                continue;
            }
            number += 1;
            let origin = Origin {
                number,
                place: Place::Line(line_no),
            };
            let field = puzzle_field(&line);
            let parsed = match args.options.shape {
                None => classic(field).map_or_else(|| parse(field, None), Ok),
                shape => parse(field, shape),
            };
            match parsed {
                Ok(grid) => {
                    if !packer.fits(&grid) && !packer.flush(&chunks, &items).await {
                        return Ok(());
                    }
                    packer.add(origin, grid);
                }
                Err(error) => {
                    let _ = items.send(Item::Invalid(origin, error.message));
                }
            }
            if !lines.buffered() && !packer.flush(&chunks, &items).await {
                return Ok(());
            }
        }
    }
    packer.flush(&chunks, &items).await;
    let _ = items.send(Item::Done);
    Ok(())
}

/// A classic one-line puzzle (81 characters, `.` or `0` empty, `1`-`9`) as wire cells,
/// without looking for repeated digits: the server checks every puzzle anyway and names the
/// cells of a repeat, and parsing cost the client as much as solving the easiest puzzles.
/// Anything else goes through the full parser.
fn classic(field: &str) -> Option<pb::Grid> {
    let bytes = field.as_bytes();
    if bytes.len() != 81 {
        return None;
    }
    let cells = bytes
        .iter()
        .map(|&b| match b {
            b'.' => Some(0),
            b'0'..=b'9' => Some(u32::from(b - b'0')),
            _ => None,
        })
        .collect::<Option<Vec<u32>>>()?;
    Some(pb::Grid {
        box_rows: 3,
        box_cols: 3,
        cells,
    })
}

/// The chunk being filled.
#[derive(Default)]
struct Packer {
    next_id: u64,
    puzzles: Vec<(Origin, pb::Grid)>,
}

impl Packer {
    /// Whether `grid` can join the chunk: room left and the same shape.
    fn fits(&self, grid: &pb::Grid) -> bool {
        self.puzzles.len() < CHUNK
            && self
                .puzzles
                .first()
                .is_none_or(|(_, g)| (g.box_rows, g.box_cols) == (grid.box_rows, grid.box_cols))
    }

    fn add(&mut self, origin: Origin, grid: pb::Grid) {
        self.puzzles.push((origin, grid));
    }

    /// Sends the chunk, if any; false when nobody takes chunks any more.
    async fn flush(
        &mut self,
        chunks: &mpsc::Sender<Arc<Chunk>>,
        items: &mpsc::UnboundedSender<Item>,
    ) -> bool {
        let Some((_, first)) = self.puzzles.first() else {
            return true;
        };
        let chunk = Chunk {
            id: self.next_id,
            box_rows: first.box_rows,
            box_cols: first.box_cols,
            numbers: self.puzzles.iter().map(|(o, _)| o.number).collect(),
            // Values are at most the side (checked when parsed), so they fit a byte.
            cells: self
                .puzzles
                .iter()
                .flat_map(|(_, g)| g.cells.iter().map(|&v| v as u8))
                .collect(),
        };
        self.next_id += 1;
        let _ = items.send(Item::Puzzles(std::mem::take(&mut self.puzzles)));
        chunks.send(Arc::new(chunk)).await.is_ok()
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
