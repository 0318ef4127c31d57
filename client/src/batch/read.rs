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

/// Reads every input in order: each puzzle that parses goes to `puzzles` (its item to
/// `items` first, so the printer knows it before its answer can arrive), each line that does
/// not is answered here.
pub async fn read(
    args: BatchArgs,
    puzzles: mpsc::Sender<(usize, pb::Grid)>,
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
            match parse(puzzle_field(&line), args.options.shape) {
                Ok(grid) => {
                    let _ = items.send(Item::Puzzle(origin, grid.clone()));
                    if puzzles.send((number, grid)).await.is_err() {
                        return Ok(());
                    }
                }
                Err(error) => {
                    let _ = items.send(Item::Invalid(origin, error.message));
                }
            }
        }
    }
    let _ = items.send(Item::Done);
    Ok(())
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

/// Packs puzzles into chunks of one shape, as many as are ready (up to [`CHUNK`]), so a fast
/// file fills whole chunks and a slow pipe is not held back waiting for more.
pub async fn chunk(
    mut puzzles: mpsc::Receiver<(usize, pb::Grid)>,
    chunks: mpsc::Sender<Arc<Chunk>>,
) {
    let mut ready = Vec::with_capacity(CHUNK);
    let mut id = 0;
    while puzzles.recv_many(&mut ready, CHUNK).await > 0 {
        for group in
            ready.chunk_by(|(_, a), (_, b)| (a.box_rows, a.box_cols) == (b.box_rows, b.box_cols))
        {
            let (box_rows, box_cols) = (group[0].1.box_rows, group[0].1.box_cols);
            let chunk = Chunk {
                id,
                box_rows,
                box_cols,
                numbers: group.iter().map(|(n, _)| *n).collect(),
                // Values are at most the side (checked when parsed), so they fit a byte.
                cells: group
                    .iter()
                    .flat_map(|(_, g)| g.cells.iter().map(|&v| v as u8))
                    .collect(),
            };
            id += 1;
            if chunks.send(Arc::new(chunk)).await.is_err() {
                return;
            }
        }
        ready.clear();
    }
}
