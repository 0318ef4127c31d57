//! Reading batch input: lines to puzzles in input order, and puzzles to packed chunks.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicU32;

use bytes::Bytes;

use sudoku_proto::{nibbles, pb};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, TryAcquireError, mpsc};

use super::{Item, UNPRINTED};
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
    /// The puzzles' cells, one after another, two a byte where [`Chunk::nibbles`] says so;
    /// shared with the message that carries them (and with any re-send), never copied.
    pub cells: Bytes,
    /// Its place among the chunks read and not yet printed, given back when the last copy
    /// of the chunk goes, once its answers are printed (see [`Room`]).
    pub _unprinted: Option<OwnedSemaphorePermit>,
    /// Times it was sent: a chunk that is never wholly answered (one of its puzzles fails
    /// every server, or a server answers it short) is not sent for ever.
    pub sends: AtomicU32,
}

/// Where the reader waits for room: it reads no further than the printer allows.
pub struct Room {
    /// Puzzles, and lines that did not parse, that may be read and not yet printed.
    pub unprinted: Arc<Semaphore>,
    /// To wait for that room from the reader's own thread.
    pub runtime: tokio::runtime::Handle,
}

/// Room taken for puzzles or lines read, given back when they are printed; `None` where
/// nothing bounds them.
pub type Held = Option<OwnedSemaphorePermit>;

impl Room {
    /// Room for `n`, taken at once; `Err` when that much is not free.
    fn try_take(&self, n: usize) -> Result<Held, TryAcquireError> {
        let n = u32::try_from(n).unwrap_or(u32::MAX);
        match self.unprinted.clone().try_acquire_many_owned(n) {
            Ok(held) => Ok(Some(held)),
            // Closed never: `None` would only let the puzzles go without a place.
            Err(TryAcquireError::Closed) => Ok(None),
            Err(err) => Err(err),
        }
    }

    /// Room for `n`, waited for.
    fn take(&self, n: usize) -> Held {
        let n = u32::try_from(n).unwrap_or(u32::MAX);
        let wait = self.unprinted.clone().acquire_many_owned(n);
        self.runtime.block_on(wait).ok()
    }
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

    /// Whether the cells go two a byte (sides up to 15: half the bytes to send and to
    /// compress), not one; the answer's solutions come the same way.
    pub fn nibbles(&self) -> bool {
        nibbles_for(self.box_rows * self.box_cols)
    }

    /// Bytes per puzzle, and per solution in the answer.
    pub fn bytes_each(&self) -> usize {
        if self.nibbles() {
            nibbles::packed_len(self.cells_each())
        } else {
            self.cells_each()
        }
    }

    /// The solutions' bytes in `reply`, and the field that holds them.
    pub fn solutions<'r>(&self, reply: &'r pb::PackedAnswers) -> (&'r Bytes, &'static str) {
        if self.nibbles() {
            (&reply.solution_nibbles, "solution_nibbles")
        } else {
            (&reply.solutions, "solutions")
        }
    }

    /// The cell values of one puzzle's (or solution's) bytes, into `out`.
    pub fn unpack<'a>(&self, bytes: &[u8], out: &'a mut Vec<u8>) -> &'a [u8] {
        out.clear();
        if self.nibbles() {
            out.resize(self.cells_each(), 0);
            nibbles::unpack_into(bytes, out);
        } else {
            out.extend_from_slice(bytes);
        }
        out
    }
}

/// Whether puzzles of `side` go two cells a byte.
fn nibbles_for(side: u32) -> bool {
    side as usize <= nibbles::MAX_SIDE
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
    room: Room,
    chunks: mpsc::Sender<Arc<Chunk>>,
    items: mpsc::UnboundedSender<Item>,
) -> anyhow::Result<()> {
    let mut packer = Packer {
        limit: (chunk / RAMP.pow(2)).max(1),
        most: chunk,
        room: Some(room),
        ..Packer::default()
    };
    let read = read_inputs(&args, &mut packer, &chunks, &items);
    // The puzzles read before an error go out too: the printer waits for every puzzle up to
    // the last line it was told of, and a bad line is told of before the chunk around it.
    let taken = packer.flush(&chunks, &items);
    match read {
        Ok(true) if taken => {
            let _ = items.send(Item::Done);
            Ok(())
        }
        // Nobody takes chunks any more: the batch stopped for a reason of its own.
        Ok(_) => Ok(()),
        Err(err) => Err(err),
    }
}

/// Reads every input into `packer`, sending each chunk as it fills (see [`read`]); false
/// when nobody takes chunks any more.
fn read_inputs(
    args: &BatchArgs,
    packer: &mut Packer,
    chunks: &mpsc::Sender<Arc<Chunk>>,
    items: &mpsc::UnboundedSender<Item>,
) -> anyhow::Result<bool> {
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
        let mut lines = LineReader::new(open_input(input.as_deref())?, input.as_deref());
        while let Some(line) = lines.next_raw()? {
            let origin = Origin {
                number: number + 1,
                place: Place::Line(line.number),
            };
            // A classic line is ASCII up to its puzzle's end; only the rest, where there is
            // any, is checked as text (a call per line to check nothing was 0.5% of the CPU).
            let packed = args.options.shape.is_none() && packer.add_classic(line.raw, &origin) && {
                if line.raw.len() > CLASSIC_CELLS {
                    line.text_from(CLASSIC_CELLS)?;
                }
                true
            };
            // A blank or comment line is no puzzle, but may be the last line in memory.
            let puzzle = packed
                || match parse_line(line.text()?, args.options.shape) {
                    None => false,
                    Some(Ok(grid)) => {
                        if !packer.fits(&grid) && !packer.flush(chunks, items) {
                            return Ok(false);
                        }
                        packer.add(origin, &grid);
                        true
                    }
                    Some(Err(error)) => {
                        // At most a quarter of all the room, so that it is always there to
                        // wait for (an error quoting a whole 64 KiB line takes 513).
                        let room = (1 + error.message.len() / ERROR_BYTES).min(UNPRINTED / 4);
                        let Some(held) = packer.line_room(room, chunks, items) else {
                            return Ok(false);
                        };
                        let _ = items.send(Item::Invalid(origin, error.message, held));
                        true
                    }
                };
            number += usize::from(puzzle);
            if (packer.full() || !lines.buffered()) && !packer.flush(chunks, items) {
                return Ok(false);
            }
        }
    }
    Ok(true)
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

/// Bytes of a bad line's error message that take the room of one puzzle waiting to be
/// printed (its cells, origin and answer, some 120 bytes): a line whose shape is wrong
/// keeps a 240-byte message naming every shape, and 65,536 of them held 31 MB.
const ERROR_BYTES: usize = 128;

/// A classic cell's value from its character.
fn classic_value(b: u8) -> Option<u8> {
    match b {
        b'.' => Some(0),
        b'0'..=b'9' => Some(b - b'0'),
        _ => None,
    }
}

/// How much larger each chunk is than the one before, until full size: the first two are a
/// sixteenth and a quarter of it.
const RAMP: usize = 4;

/// The chunk being filled.
#[derive(Default)]
struct Packer {
    next_id: u64,
    /// Most puzzles in the chunk being filled: small at first, so the servers start on the
    /// first puzzles while the next are read, then `RAMP` times more each chunk up to `most`.
    limit: usize,
    most: usize,
    shape: (u32, u32),
    origins: Vec<Origin>,
    cells: Vec<u8>,
    room: Option<Room>,
    /// Room for the chunk being filled, taken for `limit` puzzles as its first comes in.
    held: Held,
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
        self.start();
        self.shape = (grid.box_rows, grid.box_cols);
        self.origins.push(origin);
        // Values are at most the side (checked when parsed), so they fit a byte.
        let values: Vec<u8> = grid.cells.iter().map(|&v| v as u8).collect();
        if nibbles_for(grid.box_rows * grid.box_cols) {
            nibbles::pack(&values, &mut self.cells);
        } else {
            self.cells.extend_from_slice(&values);
        }
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
        self.start();
        nibbles::pack(&cells, &mut self.cells);
        self.shape = (3, 3);
        self.origins.push(origin.clone());
        true
    }

    /// Takes room for a chunk as its first puzzle comes in: for as many as it may hold, so
    /// that a line that did not parse, read while it fills, need not wait for room that the
    /// chunk's own puzzles would take later. Everything read before has gone to the printer,
    /// so waiting here holds nothing up.
    fn start(&mut self) {
        if self.origins.is_empty() {
            self.held = self.room.as_ref().and_then(|room| room.take(self.limit));
        }
    }

    /// Room for a line that did not parse (`places` puzzles' worth), answered without a
    /// chunk: a file of them with nobody reading the output would fill memory otherwise.
    /// Where there is not enough, the chunk being filled goes first, holding its room: its
    /// puzzles come before the line, so the printer may wait for them before it can print
    /// anything and free room. `None` when nobody takes chunks any more.
    fn line_room(
        &mut self,
        places: usize,
        chunks: &mpsc::Sender<Arc<Chunk>>,
        items: &mpsc::UnboundedSender<Item>,
    ) -> Option<Held> {
        let Some(room) = &self.room else {
            return Some(None);
        };
        if let Ok(held) = room.try_take(places) {
            return Some(held);
        }
        if !self.flush(chunks, items) {
            return None;
        }
        self.room.as_ref().map(|room| room.take(places))
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
        // The chunk keeps room for its puzzles only; what it took for more goes back.
        let unprinted = self
            .held
            .take()
            .and_then(|mut held| held.split(self.origins.len()));
        let next = (self.limit * RAMP).min(self.most);
        // Room for a full next chunk of puzzles of this size.
        let cells = Vec::with_capacity(self.cells.len() / self.origins.len() * next);
        let chunk = Arc::new(Chunk {
            id: self.next_id,
            box_rows: self.shape.0,
            box_cols: self.shape.1,
            origins: std::mem::replace(&mut self.origins, Vec::with_capacity(next)),
            cells: std::mem::replace(&mut self.cells, cells).into(),
            _unprinted: unprinted,
            sends: AtomicU32::new(0),
        });
        self.next_id += 1;
        self.limit = next;
        let _ = items.send(Item::Puzzles(chunk.clone()));
        chunks.blocking_send(chunk).is_ok()
    }
}

/// How many puzzles the input files hold, for a progress bar; `None` for stdin, for anything
/// but a regular file (a pipe such as `<(zcat big.gz)` or a FIFO: counting would read away
/// the puzzles the reader is waiting for), or when a file cannot be read (reading it for real
/// then reports why).
pub async fn count(args: &BatchArgs) -> Option<u64> {
    let files: Vec<PathBuf> = args.files.iter().chain(&args.file).cloned().collect();
    let regular = |f: &PathBuf| std::fs::metadata(f).is_ok_and(|m| m.is_file());
    if files.is_empty() || !files.iter().all(regular) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{AlgorithmArg, SolveOptions};

    const PUZZLE: &str =
        "3.65.84..52........87....31..3.1..8.9..863..5.5..9.6..13....25........74..52.63..";

    /// A temporary folder of this test's own (`name`) holding `puzzles.txt` with `contents`:
    /// the folder, to remove, and the file.
    fn puzzle_file(
        name: &str,
        contents: impl AsRef<[u8]>,
    ) -> (std::path::PathBuf, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("sudoku-read-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        let file = dir.join("puzzles.txt");
        std::fs::write(&file, contents).expect("the file is written");
        (dir, file)
    }

    #[test]
    fn chunks_grow_to_full_size_and_keep_every_puzzle() {
        // One bad line among 3,000 puzzles: answered as invalid, never sent.
        let mut lines = vec![PUZZLE; 3000];
        lines[100] = "not a puzzle";
        let (dir, file) = puzzle_file("grow", lines.join("\n"));
        let args = BatchArgs {
            files: vec![file],
            file: None,
            options: SolveOptions {
                algorithm: AlgorithmArg::Auto,
                count: 2,
                shape: None,
            },
        };
        let (chunk_tx, mut chunks) = mpsc::channel(4);
        let (item_tx, mut items) = mpsc::unbounded_channel();
        let (_runtime, room) = room(1 << 20);
        let reader = std::thread::spawn(move || read(args, 1024, room, chunk_tx, item_tx));
        let mut sizes = Vec::new();
        while let Some(chunk) = chunks.blocking_recv() {
            assert_eq!(chunk.id, sizes.len() as u64);
            assert_eq!(chunk.cells.len(), chunk.len() * 41, "two cells a byte");
            sizes.push(chunk.len());
        }
        reader.join().expect("no panic").expect("read");
        // A sixteenth, a quarter, then full chunks; the reader's buffer may end one early.
        assert_eq!(&sizes[..3], &[64, 256, 1024]);
        assert!(sizes.iter().all(|&n| n <= 1024), "{sizes:?}");
        assert_eq!(sizes.iter().sum::<usize>(), 2999);
        let mut numbers = Vec::new();
        while let Ok(item) = items.try_recv() {
            match item {
                Item::Puzzles(chunk) => numbers.extend(chunk.origins.iter().map(|o| o.number)),
                Item::Invalid(origin, _, _) => numbers.push(origin.number),
                Item::Done => break,
            }
        }
        // An invalid line is told at once, the chunk before it when sent: the printer orders.
        numbers.sort_unstable();
        assert!(numbers.iter().copied().eq(1..=3000), "every puzzle once");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Room for `puzzles` unprinted puzzles, and the runtime the reader waits for it on.
    fn room(puzzles: usize) -> (tokio::runtime::Runtime, Room) {
        let runtime = tokio::runtime::Runtime::new().expect("a runtime");
        let room = Room {
            unprinted: Arc::new(Semaphore::new(puzzles)),
            runtime: runtime.handle().clone(),
        };
        (runtime, room)
    }

    #[test]
    fn the_reader_goes_no_further_than_the_room_for_unprinted_puzzles() {
        let (dir, file) = puzzle_file("room", format!("{PUZZLE}\n").repeat(100));
        // Chunks of 1, then 4 puzzles; room for 5.
        let (_runtime, room) = room(5);
        let unprinted = room.unprinted.clone();
        let (chunk_tx, mut chunks) = mpsc::channel(100);
        let (item_tx, mut items) = mpsc::unbounded_channel();
        let reader = std::thread::spawn(move || read(args(vec![file]), 4, room, chunk_tx, item_tx));
        let first = chunks.blocking_recv().expect("a first chunk");
        let second = chunks.blocking_recv().expect("a second chunk");
        assert_eq!((first.len(), second.len()), (1, 4));
        std::thread::sleep(std::time::Duration::from_millis(200));
        let waiting = chunks.try_recv();
        assert!(waiting.is_err(), "no third while five are unprinted");
        assert_eq!(unprinted.available_permits(), 0);
        // The printer's copies go with the printing; then the second chunk's room is free.
        while items.try_recv().is_ok() {}
        drop(second);
        let third = chunks
            .blocking_recv()
            .expect("a third, once four are printed");
        assert_eq!((third.id, third.len()), (2, 4));
        while items.try_recv().is_ok() {}
        drop((first, third));
        let mut rest = 0;
        while let Some(chunk) = chunks.blocking_recv() {
            rest += chunk.len();
            while items.try_recv().is_ok() {}
        }
        reader.join().expect("no panic").expect("read");
        assert_eq!(rest + 9, 100, "every puzzle read in the end");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn bad_lines_take_room_and_the_chunk_before_them_goes_first() {
        let mut lines = vec![PUZZLE; 2];
        lines.extend(["not a puzzle"; 400]);
        lines.extend([PUZZLE; 3]);
        let (dir, file) = puzzle_file("bad", lines.join("\n") + "\n");
        // Chunks of 1, then 4 (room taken as each starts): none left when the bad lines come,
        // the second chunk holding one puzzle.
        let (_runtime, room) = room(5);
        let unprinted = room.unprinted.clone();
        let (chunk_tx, mut chunks) = mpsc::channel(100);
        let (item_tx, mut items) = mpsc::unbounded_channel();
        let reader = std::thread::spawn(move || read(args(vec![file]), 4, room, chunk_tx, item_tx));
        // The reader waits for room: the chunk before the bad lines went first (the printer
        // needs its answers before theirs), and not every bad line was read.
        let mut seen = Vec::new();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while seen.len() < 3 || unprinted.available_permits() > 0 {
            assert!(
                std::time::Instant::now() < deadline,
                "the reader stops for room"
            );
            match items.try_recv() {
                Ok(item) => seen.push(item),
                Err(_) => std::thread::sleep(std::time::Duration::from_millis(10)),
            }
        }
        // Given the time to go further, it does not.
        std::thread::sleep(std::time::Duration::from_millis(200));
        while let Ok(item) = items.try_recv() {
            seen.push(item);
        }
        let (first, second) = match &seen[..2] {
            [Item::Puzzles(a), Item::Puzzles(b)] => (a.clone(), b.clone()),
            _ => panic!("two chunks before the bad lines"),
        };
        assert_eq!((first.len(), second.len()), (1, 1));
        let bad = seen[2..]
            .iter()
            .filter(|item| matches!(item, Item::Invalid(..)))
            .count();
        assert!((1..=3).contains(&bad), "{bad} bad lines read ahead");
        assert_eq!(unprinted.available_permits(), 0);
        assert!(!reader.is_finished(), "waiting for room");
        // Printing frees room: everything comes, once, in order.
        drop((seen, first, second));
        let mut numbers = Vec::new();
        while !reader.is_finished() || !items.is_empty() || !chunks.is_empty() {
            while chunks.try_recv().is_ok() {}
            while let Ok(item) = items.try_recv() {
                match item {
                    Item::Puzzles(chunk) => numbers.extend(chunk.origins.iter().map(|o| o.number)),
                    Item::Invalid(origin, _, _) => numbers.push(origin.number),
                    Item::Done => {}
                }
            }
        }
        reader.join().expect("no panic").expect("read");
        let expected: Vec<usize> = (3 + bad..=405).collect();
        assert_eq!(numbers, expected);
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn args(files: Vec<PathBuf>) -> BatchArgs {
        BatchArgs {
            files,
            file: None,
            options: SolveOptions {
                algorithm: AlgorithmArg::Auto,
                count: 2,
                shape: None,
            },
        }
    }

    #[test]
    fn the_puzzles_read_before_an_error_are_sent_and_the_error_returned() {
        // A bad line, then a line that is not UTF-8: the printer knows of the bad line (the
        // third puzzle) and must get the chunk of the two before it, or it waits for ever.
        let mut bytes = format!("{PUZZLE}\n{PUZZLE}\nnot a puzzle\n").into_bytes();
        bytes.extend_from_slice(b"\xff\n");
        let (dir, file) = puzzle_file("error", bytes);
        let (chunk_tx, mut chunks) = mpsc::channel(4);
        let (item_tx, mut items) = mpsc::unbounded_channel();
        let (_runtime, room) = room(1 << 20);
        let reader =
            std::thread::spawn(move || read(args(vec![file]), 1024, room, chunk_tx, item_tx));
        let mut sent = 0;
        while let Some(chunk) = chunks.blocking_recv() {
            sent += chunk.len();
        }
        let err = reader
            .join()
            .expect("no panic")
            .expect_err("line 4 is not text");
        assert!(format!("{err:#}").contains("line 4"), "{err:#}");
        assert_eq!(sent, 2, "both puzzles before the error");
        let mut told = Vec::new();
        while let Ok(item) = items.try_recv() {
            told.push(match item {
                Item::Puzzles(chunk) => chunk.len(),
                Item::Invalid(origin, _, _) => origin.number * 100,
                Item::Done => panic!("no Done after an error"),
            });
        }
        assert_eq!(told, [300, 2], "the bad line, then the chunk before it");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn only_regular_files_are_counted_ahead() {
        let dir = std::env::temp_dir().join(format!("sudoku-count-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        let file = dir.join("puzzles.txt");
        std::fs::write(&file, format!("{PUZZLE}\n# a comment\n\n{PUZZLE}\n")).expect("written");
        assert_eq!(count(&args(vec![file.clone()])).await, Some(2));
        // A pipe or a device would be read away from under the reader: not counted.
        let device = PathBuf::from("/dev/null");
        assert_eq!(count(&args(vec![file, device])).await, None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
