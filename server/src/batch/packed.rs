//! BatchSolvePacked: many puzzles of one shape per message, one byte per cell or two cells a
//! byte, answered a message at a time. One message costs the gRPC and HTTP/2 layers what one
//! puzzle costs in BatchSolve, so clients where messages are dear (Python, Node, compression)
//! go at solver speed.

use std::ops::Range;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};

use bytes::Bytes;
use prost::Message;
use solver_core::{Grid, GridError, Report, Shape};
use sudoku_proto::{nibbles, pb};
use tonic::Status;

use super::answers::Outbox;
use super::{Batched, Hold, Read, Reader, answer_pieces};
use crate::scheduling::pool::{Deliver, PoolError, Work};
use crate::solving::{Job, Limits, wire_outcome};
use crate::status::RequestError;

impl Batched for pb::PackedPuzzles {
    type Answer = pb::PackedAnswers;

    fn puzzles(&self, limits: &Limits) -> Result<usize, Status> {
        let shape = box_shape(self);
        let count = || -> Result<usize, RequestError> {
            limits.check_id(&self.id)?;
            // A side over this server's limit is each puzzle's error (see `submit`), as in
            // BatchSolve: the stream goes on with the next message.
            let (shape, layout) = (shape.clone()?, Layout::of(self)?);
            let (side, max) = (shape.side(), nibbles::MAX_SIDE);
            if layout == Layout::Nibbles && side > max {
                return Err(RequestError::NibbleSide { side, max });
            }
            let (len, per_puzzle) = (layout.cells(self).len(), layout.bytes_each(shape));
            if !len.is_multiple_of(per_puzzle) {
                return Err(RequestError::PackedLength {
                    field: layout.field(),
                    len,
                    per_puzzle,
                });
            }
            let algorithm = self.options.unwrap_or_default().algorithm;
            pb::Algorithm::try_from(algorithm)
                .map_err(|_| RequestError::UnknownAlgorithm(algorithm))?;
            Ok(len / per_puzzle)
        };
        count().map_err(|err| err.to_status_in("", shape.ok()))
    }

    fn held_bytes(&self, puzzles: usize) -> usize {
        // The message, its answer's solutions, and each part's own copy of its share of them;
        // and each puzzle's work, counts and room for its error, should it be refused.
        3 * self.encoded_len() + puzzles * (PUZZLE_HELD + ERROR_HELD)
    }

    /// prost decodes `bytes` fields as views of tonic's receive buffer, and a view keeps the
    /// whole buffer: a message of a few cells padded with large unknown fields (which decoding
    /// drops) would hold them for as long as its puzzles wait to be solved, while counted at
    /// its decoded size. A copy of the cells is cheap.
    fn own_bytes(&mut self) {
        for field in [&mut self.cells, &mut self.nibbles] {
            if !field.is_empty() {
                *field = Bytes::copy_from_slice(field);
            }
        }
    }

    fn puzzles_field(&self) -> &'static str {
        Layout::of(self).map_or("cells", Layout::field)
    }

    fn submit(group: Vec<Read<Self>>, to: &Reader<Self>) {
        let mut packs = Vec::with_capacity(group.len());
        for read in group {
            let (Ok(shape), Ok(layout)) = (box_shape(&read.message), Layout::of(&read.message))
            else {
                continue; // checked when read
            };
            let limits = &to.shared.limits;
            // Refused options refuse every puzzle of the message, each with the reason.
            let options = (limits.check_side(shape.side()))
                .and_then(|()| limits.options(read.message.options, to.caller.deadline))
                .map(|mut options| {
                    options.limits.cancel = Some(to.cancel.clone());
                    options
                })
                .map_err(|e| e.to_pb());
            let answer_cap = crate::admission::methods::answer_cap(read.message.encoded_len());
            // The message's own copy (see `own_bytes`), shared, not copied again.
            let cells = layout.cells(&read.message).clone();
            let count = cells.len() / layout.bytes_each(shape);
            let source = Source {
                shape,
                layout,
                options,
                cancel: to.cancel.clone(),
                cap: to.shared.limits.max_solve_time,
                answer_cap,
            };
            let pack = Pack::new(read.message.id, read.first, read.hold, count, source);
            let pack = Arc::new(pack);
            // A message with no puzzles is answered at once.
            if count == 0 {
                let state = pack.state.lock().ok();
                let answers = state.and_then(|mut s| s.take(&pack.source));
                to.send_now(answers.unwrap_or_default());
            }
            packs.push((pack, cells, count));
        }
        // One job per solver thread keeps every core busy with one wake-up per thread.
        let total: usize = packs.iter().map(|(_, _, count)| count).sum();
        let per_thread = total.div_ceil(to.shared.pool.lanes.workers).max(1);
        let mut job = Vec::with_capacity(per_thread.min(total));
        // Each part takes its own handle on its message's cells; the message's goes here.
        for (pack, cells, count) in packs {
            let mut start = 0;
            while start < count {
                let end = count.min(start + per_thread - job.len());
                let part = Arc::new(Part::new(pack.clone(), start..end, cells.clone()));
                // The grids are built and checked on the solver threads (see `Item`).
                job.extend((start..end).map(|offset| Item {
                    part: part.clone(),
                    offset,
                    step: Step::Packed,
                    detached: false,
                }));
                start = end;
                if job.len() == per_thread {
                    let rest = Vec::with_capacity(per_thread.min(total));
                    submit_job(std::mem::replace(&mut job, rest), to);
                }
            }
        }
        if !job.is_empty() {
            submit_job(job, to);
        }
    }

    fn broken(messages: u64, puzzles: u64, why: &str) -> String {
        format!(
            "message {messages} of the stream could not be read: {why}; the stream's first \
             {puzzles} puzzles were answered"
        )
    }
}

/// Bytes a packed puzzle holds beyond its cells and solution: its pool item, and its outcome,
/// guess and solution counts in the message's answer and in its part's (a 4 MiB message of
/// nibbles holds 102,000 puzzles, and this is most of what it costs).
const PUZZLE_HELD: usize = 128;

/// Bytes a refused puzzle's error holds at most: its entry in two lists at once (its part's
/// and its message's, or its message's and its answer piece's) and its text, at most
/// [`ERROR_TEXT`] bytes. Counted for every puzzle, since any may be refused, or a message of
/// small puzzles, each refused, would hold several times what it is charged.
const ERROR_HELD: usize = 2 * std::mem::size_of::<pb::PackedError>() + ERROR_TEXT + 16;

/// The longest error text a refused puzzle gets: every reason the server gives is shorter
/// (the longest, a repeated digit in a 25x25 grid, about 80 bytes); a longer one (a solver
/// panic's message) is cut.
const ERROR_TEXT: usize = 112;

/// Hands one solver thread's share of a group to the pool.
fn submit_job(items: Vec<Item>, to: &Reader<pb::PackedPuzzles>) {
    let packer = Packer {
        out: to.out.clone(),
        progress: to.progress.clone(),
        delivered: 0,
    };
    to.solve(items, packer);
}

/// A packed message's box shape; both sides 0 mean the classic 3x3 boxes.
fn box_shape(message: &pb::PackedPuzzles) -> Result<Shape, GridError> {
    match (message.box_rows, message.box_cols) {
        (0, 0) => Ok(Shape::CLASSIC),
        (rows, cols) => Shape::new(rows as usize, cols as usize),
    }
}

/// How a message's puzzles, and so its answer's solutions, are packed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// A byte per cell (`cells`, `solutions`).
    Bytes,
    /// Two cells per byte (`nibbles`, `solution_nibbles`).
    Nibbles,
}

impl Layout {
    fn of(message: &pb::PackedPuzzles) -> Result<Layout, RequestError> {
        match (message.cells.is_empty(), message.nibbles.is_empty()) {
            (false, false) => Err(RequestError::PackedTwice),
            (true, false) => Ok(Layout::Nibbles),
            _ => Ok(Layout::Bytes),
        }
    }

    fn cells(self, message: &pb::PackedPuzzles) -> &Bytes {
        match self {
            Layout::Bytes => &message.cells,
            Layout::Nibbles => &message.nibbles,
        }
    }

    fn bytes_each(self, shape: Shape) -> usize {
        match self {
            Layout::Bytes => shape.cells(),
            Layout::Nibbles => nibbles::packed_len(shape.cells()),
        }
    }

    fn field(self) -> &'static str {
        match self {
            Layout::Bytes => "cells",
            Layout::Nibbles => "nibbles",
        }
    }

    fn unpack(self, shape: Shape, bytes: &[u8]) -> Result<Grid, GridError> {
        match self {
            Layout::Bytes => unpack(shape, bytes),
            Layout::Nibbles => {
                let mut values = [0u8; nibbles::MAX_SIDE * nibbles::MAX_SIDE];
                // Sides over 15 are refused with the message; were one to get here, the grid
                // would be refused as too short rather than the thread panicking.
                let values = &mut values[..shape.cells().min(nibbles::MAX_SIDE.pow(2))];
                nibbles::unpack_into(bytes, values);
                Grid::new(shape, values)
            }
        }
    }

    fn pack(self, cells: &[u8], out: &mut [u8]) {
        match self {
            Layout::Bytes => out.copy_from_slice(cells),
            Layout::Nibbles => nibbles::pack_into(cells, out),
        }
    }

    /// Puts `solutions` in the answer's field for this layout.
    fn put(self, answer: &mut pb::PackedAnswers, solutions: Bytes) {
        match self {
            Layout::Bytes => answer.solutions = solutions,
            Layout::Nibbles => answer.solution_nibbles = solutions,
        }
    }
}

/// A grid from one byte per cell: a value (0 empty, 1..=side) or, above the side, its text
/// form ('.' or '0' empty, '1'-'9', then 'A'-'Z' or 'a'-'z' for 10 on).
fn unpack(shape: Shape, bytes: &[u8]) -> Result<Grid, GridError> {
    // Plain values (the usual case) go to the grid as they are, in one pass; text forms are
    // all above any side, so a grid with one is refused as out of range and read again below.
    match Grid::new(shape, bytes) {
        Err(GridError::OutOfRange { .. }) => {}
        built => return built,
    }
    let side = shape.side();
    let mut cells = Vec::with_capacity(bytes.len());
    for (i, &b) in bytes.iter().enumerate() {
        let value = match b {
            _ if usize::from(b) <= side => b,
            b'.' => 0,
            b'0'..=b'9' => b - b'0',
            b'A'..=b'Z' => b - b'A' + 10,
            b'a'..=b'z' => b - b'a' + 10,
            _ => {
                return Err(GridError::NotADigit {
                    at: solver_core::grid::Cell::at_index(i, side),
                    text: char::from(b).escape_default().to_string(),
                });
            }
        };
        cells.push(value);
    }
    Grid::new(shape, &cells)
}

/// One message's puzzles, and its answer as the parts of it come in from the solver threads.
struct Pack {
    state: Mutex<PackState>,
    source: Source,
    /// The message's id and first puzzle's index, for answers sent apart from the rest.
    id: String,
    first: u64,
}

/// What a message's puzzles are made from on the solver threads.
struct Source {
    shape: Shape,
    layout: Layout,
    /// The message's solver options, or why they are refused (every puzzle then is).
    options: Result<solver_core::Options, pb::SolveError>,
    /// Raised when the client leaves, refused options or not: queued puzzles are skipped.
    cancel: Arc<std::sync::atomic::AtomicBool>,
    /// The solve-time cap of each puzzle.
    cap: std::time::Duration,
    /// The largest answer message (see `pieces`).
    answer_cap: usize,
}

struct PackState {
    /// The answer but for its solutions, which are filled in `solutions`.
    answer: pb::PackedAnswers,
    /// Each puzzle's solution as its part comes in; the answer's, shared, once all are in.
    solutions: Vec<u8>,
    /// Puzzles whose part has not come in yet.
    remaining: usize,
    /// What the message holds, freed when tonic takes the answer, and how many puzzles it
    /// holds for (fewer than the message's where detached ones were answered first).
    hold: Option<Hold>,
    covered: usize,
    /// Puzzles (offsets) that went to the long lane: they are answered apart, each as it
    /// comes, so the rest of the message goes (and gives its room back) without them.
    detached: Vec<usize>,
    /// Detached puzzles not yet answered, and what they hold once the rest has gone.
    detached_due: usize,
    detached_hold: Option<Hold>,
}

impl Pack {
    fn new(id: String, first: u64, hold: Hold, count: usize, source: Source) -> Pack {
        let answer = pb::PackedAnswers {
            id,
            first,
            outcomes: vec![pb::Outcome::Unspecified as u8; count],
            guesses: vec![0; count],
            solutions_found: vec![0; count],
            ..pb::PackedAnswers::default()
        };
        let answer_id = answer.id.clone();
        Pack {
            state: Mutex::new(PackState {
                answer,
                solutions: vec![0; count * source.bytes_each()],
                remaining: count,
                hold: Some(hold),
                covered: count,
                detached: Vec::new(),
                detached_due: 0,
                detached_hold: None,
            }),
            source,
            id: answer_id,
            first,
        }
    }

    /// Takes in a finished part's answers; the message's answer, once every part is in.
    fn merge(&self, range: Range<usize>, part: Gathered) -> Option<Vec<(pb::PackedAnswers, Hold)>> {
        let mut state = self.state.lock().ok()?;
        let size = self.source.bytes_each();
        let answer = &mut state.answer;
        answer.outcomes[range.clone()].copy_from_slice(&part.outcomes);
        answer.guesses[range.clone()].copy_from_slice(&part.guesses);
        answer.solutions_found[range.clone()].copy_from_slice(&part.found);
        if answer.errors.is_empty() && !part.errors.is_empty() {
            let count = answer.outcomes.len();
            answer.errors.reserve_exact(count);
        }
        answer.errors.extend(part.errors);
        state.solutions[range.start * size..range.end * size].copy_from_slice(&part.solutions);
        state.detached.extend(part.detached);
        state.remaining = state.remaining.saturating_sub(range.len());
        if state.remaining > 0 {
            return None;
        }
        state.take(&self.source)
    }

    /// The answer of a detached puzzle, alone, with its share of what the message held;
    /// `None` where its client has left.
    fn answer_apart(
        &self,
        offset: usize,
        result: Result<Report, PoolError>,
    ) -> Option<(pb::PackedAnswers, Hold)> {
        let source = &self.source;
        let mut answer = pb::PackedAnswers {
            id: self.id.clone(),
            first: self.first + offset as u64,
            outcomes: vec![pb::Outcome::Invalid as u8],
            guesses: vec![0],
            solutions_found: vec![0],
            ..pb::PackedAnswers::default()
        };
        let mut solution = vec![0; source.bytes_each()];
        match result {
            Ok(report) => {
                answer.outcomes[0] = wire_outcome(&report.outcome) as u8;
                answer.guesses[0] = report.stats.guesses;
                answer.solutions_found[0] = report.outcome.found() as u64;
                if let Some(grid) = report.outcome.grid() {
                    source.layout.pack(grid.cells(), &mut solution);
                }
            }
            Err(err) => answer.errors.push(pb::PackedError {
                offset: 0,
                error: Some(bounded(err.into_request_error()?.to_pb())),
            }),
        }
        source.layout.put(&mut answer, solution.into());
        let mut state = self.state.lock().ok()?;
        let state = &mut *state;
        let due = state.detached_due;
        state.detached_due = due.saturating_sub(1);
        // Answered before the rest of its message: its share comes from the message's hold.
        if let Some(hold) = state.hold.as_mut() {
            let share = hold.split_share(1, state.covered);
            state.covered = state.covered.saturating_sub(1);
            return Some((answer, share));
        }
        let hold = if due <= 1 {
            state.detached_hold.take()?
        } else {
            state.detached_hold.as_mut()?.split_share(1, due)
        };
        Some((answer, hold))
    }
}

impl PackState {
    /// The answer, in pieces, each with its puzzles' window slots; the last holds the bytes.
    /// Detached puzzles are left out, their share of the hold kept for their own answers.
    fn take(&mut self, source: &Source) -> Option<Vec<(pb::PackedAnswers, Hold)>> {
        let mut hold = self.hold.take()?;
        let count = self.answer.outcomes.len();
        self.detached.sort_unstable();
        if self.detached_due > 0 {
            self.detached_hold = Some(hold.split_share(self.detached_due, self.covered));
        }
        // Refused puzzles are found by the solver threads in no set order.
        self.answer.errors.sort_unstable_by_key(|e| e.offset);
        let solutions = std::mem::take(&mut self.solutions).into();
        source.layout.put(&mut self.answer, solutions);
        let answer = std::mem::take(&mut self.answer);
        let mut left = count - self.detached.len();
        let mut pieces = answer_pieces::cut_around(
            answer,
            source.bytes_each(),
            source.answer_cap,
            &self.detached,
        );
        let last = pieces.pop()?;
        let mut answers = Vec::with_capacity(pieces.len() + 1);
        for piece in pieces {
            let share = hold.split_slots(piece.outcomes.len(), left);
            left -= piece.outcomes.len();
            answers.push((piece, share));
        }
        answers.push((last, hold));
        Some(answers)
    }
}

impl Source {
    fn bytes_each(&self) -> usize {
        self.layout.bytes_each(self.shape)
    }
}

/// The puzzles of a message that go to one solver thread. Their answers gather here and go to
/// the message together, and their jobs share the part's own copy of the options: per puzzle,
/// only that thread touches the part, where writing the message's state and counting
/// references to it and to the cancel flag from every solver thread would move their cache
/// lines between cores.
struct Part {
    pack: Arc<Pack>,
    /// The message's offsets of the part's puzzles.
    range: Range<usize>,
    /// The message's cells, until every puzzle of the part is built.
    cells: Mutex<Bytes>,
    options: Result<Arc<solver_core::Options>, pb::SolveError>,
    answers: Mutex<Gathered>,
}

/// A part's answers as they come in, by offset from the part's first puzzle; none once
/// they went to the message.
#[derive(Default)]
struct Gathered {
    outcomes: Vec<u8>,
    guesses: Vec<u64>,
    found: Vec<u64>,
    solutions: Vec<u8>,
    /// Refused puzzles, by their offset in the message.
    errors: Vec<pb::PackedError>,
    /// Puzzles (offsets in the message) gone to the long lane, to be answered apart.
    detached: Vec<usize>,
    remaining: usize,
}

impl Part {
    /// The part of `range` of `pack`, whose puzzles are `cells`, one after another.
    fn new(pack: Arc<Pack>, range: Range<usize>, cells: Bytes) -> Part {
        let options = pack.source.options.clone().map(Arc::new);
        let answers = Gathered {
            remaining: range.len(),
            ..Gathered::default()
        };
        Part {
            pack,
            range,
            options,
            answers: Mutex::new(answers),
            cells: Mutex::new(cells),
        }
    }

    /// The job of the puzzle at `offset` (in the message), or why it is not a puzzle.
    fn job(&self, offset: usize) -> Result<Job, pb::SolveError> {
        let source = &self.pack.source;
        let options = self.options.clone()?;
        let size = source.bytes_each();
        // Locked by this part's solver thread alone, but for its last puzzle's hand-off.
        let all = self.cells.lock().map_err(|_| {
            RequestError::Internal("a packed message's cells were lost".to_owned()).to_pb()
        })?;
        let cells = all
            .get(offset * size..(offset + 1) * size)
            .unwrap_or_default();
        let grid = (source.layout)
            .unpack(source.shape, cells)
            .map_err(|e| pb::SolveError::from(&e))?;
        drop(all);
        Ok(Job::shared(grid, options, source.cap))
    }

    /// The part's answers, with room for them made at the first: only the parts being solved
    /// hold a second copy of their message's answer, not every part in the stream's window.
    fn answers(&self) -> Option<MutexGuard<'_, Gathered>> {
        let mut answers = self.answers.lock().ok()?;
        if answers.outcomes.is_empty() {
            let count = self.range.len();
            answers.outcomes = vec![pb::Outcome::Unspecified as u8; count];
            answers.guesses = vec![0; count];
            answers.found = vec![0; count];
            answers.solutions = vec![0; count * self.pack.source.bytes_each()];
        }
        Some(answers)
    }

    /// Records a solve; the message's answer, once every puzzle has one.
    fn solved(&self, offset: usize, solution: &Report) -> Option<Vec<(pb::PackedAnswers, Hold)>> {
        let mut answers = self.answers()?;
        let at = offset.checked_sub(self.range.start)?;
        answers.outcomes[at] = wire_outcome(&solution.outcome) as u8;
        answers.guesses[at] = solution.stats.guesses;
        answers.found[at] = solution.outcome.found() as u64;
        if let Some(grid) = solution.outcome.grid() {
            let source = &self.pack.source;
            let size = source.bytes_each();
            let place = &mut answers.solutions[at * size..(at + 1) * size];
            source.layout.pack(grid.cells(), place);
        }
        self.done_one(answers)
    }

    /// Records an invalid puzzle; the message's answer, once every puzzle has one.
    fn failed(
        &self,
        offset: usize,
        error: pb::SolveError,
    ) -> Option<Vec<(pb::PackedAnswers, Hold)>> {
        let mut answers = self.answers()?;
        let at = offset.checked_sub(self.range.start)?;
        answers.outcomes[at] = pb::Outcome::Invalid as u8;
        // Room for all at the first: growing by doubling could take twice what is counted.
        if answers.errors.is_empty() {
            answers.errors.reserve_exact(self.range.len());
        }
        answers.errors.push(pb::PackedError {
            offset: offset as u32,
            error: Some(bounded(error)),
        });
        self.done_one(answers)
    }

    /// Takes the puzzle at `offset` out of its message's answer: it went to the long lane,
    /// and is answered apart when done; the message's answer, once every other puzzle has one.
    fn detach(&self, offset: usize) -> Option<Vec<(pb::PackedAnswers, Hold)>> {
        // Counted at once: its answer may come before its part's others.
        self.pack.state.lock().ok()?.detached_due += 1;
        let mut answers = self.answers()?;
        answers.detached.push(offset);
        self.done_one(answers)
    }

    fn done_one(
        &self,
        mut answers: MutexGuard<'_, Gathered>,
    ) -> Option<Vec<(pb::PackedAnswers, Hold)>> {
        answers.remaining = answers.remaining.saturating_sub(1);
        if answers.remaining > 0 {
            return None;
        }
        // Every puzzle of the part is built: its cells go, though a puzzle answered apart
        // keeps the part until its answer.
        if let Ok(mut cells) = self.cells.lock() {
            *cells = Bytes::new();
        }
        let done = std::mem::take(&mut *answers);
        drop(answers);
        self.pack.merge(self.range.clone(), done)
    }
}

/// `error` with its text at most [`ERROR_TEXT`] bytes, and no spare room.
fn bounded(mut error: pb::SolveError) -> pb::SolveError {
    if error.message.len() > ERROR_TEXT {
        let mut end = ERROR_TEXT - '…'.len_utf8();
        while !error.message.is_char_boundary(end) {
            end -= 1;
        }
        error.message.truncate(end);
        error.message.push('…');
    }
    error.message.shrink_to_fit();
    error
}

/// A puzzle of a packed message on its way through a solver thread.
struct Item {
    part: Arc<Part>,
    offset: usize,
    step: Step,
    /// Gone to the long lane and out of its message's answer: answered on its own.
    detached: bool,
}

/// How far an [`Item`] is: its grid is built and checked on the solver thread, which spares
/// the stream's async thread (the one reading every message) the per-puzzle work.
enum Step {
    /// Still cells in the message.
    Packed,
    /// A job to solve.
    Ready(Job),
    /// Not a puzzle the solver takes, and why.
    Refused(pb::SolveError),
}

impl Work for Item {
    fn abandoned(&self) -> bool {
        self.part.pack.source.cancel.load(Ordering::Relaxed)
    }

    fn job(&mut self) -> Option<&mut Job> {
        if let Step::Packed = self.step {
            self.step = match self.part.job(self.offset) {
                Ok(job) => Step::Ready(job),
                Err(error) => Step::Refused(error),
            };
        }
        match &mut self.step {
            Step::Ready(job) => Some(job),
            Step::Packed | Step::Refused(_) => None,
        }
    }
}

/// Fills parts from one solver thread and sends each message's answer when it is complete.
struct Packer {
    out: Outbox<pb::PackedAnswers>,
    progress: Arc<std::sync::atomic::AtomicU64>,
    /// Answers made since the last flush, added to `progress` together: the stream's reader
    /// and every solver thread write that counter, and once a puzzle it cost a cache miss.
    delivered: u64,
}

impl Deliver<Item> for Packer {
    fn flush(&mut self) {
        self.progress
            .fetch_add(std::mem::take(&mut self.delivered), Ordering::Relaxed);
    }

    fn refused(&mut self, item: Item) {
        self.delivered += 1;
        let Step::Refused(error) = item.step else {
            return; // `Work::job` refuses only with a reason
        };
        if let Some(answer) = item.part.failed(item.offset, error) {
            self.out.send(answer);
        }
    }

    fn went_long(&mut self, item: &mut Item) {
        item.detached = true;
        if let Some(answer) = item.part.detach(item.offset) {
            self.out.send(answer);
        }
    }

    fn deliver(&mut self, item: Item, result: Result<Report, PoolError>) {
        self.delivered += 1;
        if item.detached {
            if let Some(answer) = item.part.pack.answer_apart(item.offset, result) {
                self.out.send(vec![answer]);
            }
            return;
        }
        let done = match result {
            Ok(solution) => item.part.solved(item.offset, &solution),
            // `None`: the stream is gone; nobody waits for this answer.
            Err(err) => (err.into_request_error())
                .and_then(|err| item.part.failed(item.offset, err.to_pb())),
        };
        if let Some(answer) = done {
            self.out.send(answer);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PUZZLE: &str =
        "3.65.84..52........87....31..3.1..8.9..863..5.5..9.6..13....25........74..52.63..";

    fn values(text: &str) -> Vec<u8> {
        text.bytes()
            .map(|b| if b == b'.' { 0 } else { b - b'0' })
            .collect()
    }

    #[test]
    fn values_and_text_forms_unpack_to_the_same_grid() {
        let grid = unpack(Shape::CLASSIC, &values(PUZZLE)).expect("values");
        assert_eq!(unpack(Shape::CLASSIC, PUZZLE.as_bytes()), Ok(grid.clone()));
        // Values and text mixed, and '0' for an empty cell.
        let mut mixed = values(PUZZLE);
        for (cell, &b) in mixed.iter_mut().zip(PUZZLE.as_bytes()).take(40) {
            *cell = if b == b'.' { b'0' } else { b };
        }
        assert_eq!(unpack(Shape::CLASSIC, &mixed), Ok(grid));
        let shape = Shape::new(4, 4).expect("a shape");
        let mut sixteen = vec![0u8; 256];
        sixteen[0] = b'G';
        sixteen[1] = 15;
        let grid = unpack(shape, &sixteen).expect("letters above 9");
        assert_eq!(&grid.cells()[..2], &[16, 15]);
    }

    /// The source of a message of 9x9 puzzles laid out as `layout` says.
    fn source(layout: Layout) -> Source {
        Source {
            shape: Shape::CLASSIC,
            layout,
            options: Ok(solver_core::Options::default()),
            cancel: Arc::default(),
            cap: std::time::Duration::from_secs(10),
            answer_cap: crate::admission::methods::MOST_ANSWER_BYTES,
        }
    }

    /// What a stream's message holds, here from semaphores of its own.
    fn hold() -> Hold {
        let permit = || {
            Arc::new(tokio::sync::Semaphore::new(1))
                .try_acquire_owned()
                .expect("a permit")
        };
        Hold {
            _slot: permit(),
            _stream_bytes: permit(),
        }
    }

    /// Solves or refuses the puzzle at `offset` as a solver thread would.
    fn answer(part: &Part, offset: usize) -> Option<Vec<(pb::PackedAnswers, Hold)>> {
        match part.job(offset) {
            Ok(job) => {
                let report = solver_core::solve(&job.grid, &job.options).expect("solved");
                part.solved(offset, &report)
            }
            Err(error) => part.failed(offset, error),
        }
    }

    #[test]
    fn parts_answered_in_any_order_make_one_whole_answer() {
        whole_answer_from_parts(Layout::Bytes);
        whole_answer_from_parts(Layout::Nibbles);
    }

    fn whole_answer_from_parts(layout: Layout) {
        // Five puzzles, each a relabelling of PUZZLE; the second (3 relabelled 4) repeats its 4.
        let puzzles: Vec<Vec<u8>> = (0..5u8)
            .map(|k| {
                values(PUZZLE)
                    .iter()
                    .map(|&v| if v == 0 { 0 } else { (v - 1 + k) % 9 + 1 })
                    .collect()
            })
            .collect();
        let mut puzzles_sent = puzzles.clone();
        puzzles_sent[1][1] = puzzles_sent[1][0];
        let mut cells = Vec::new();
        for puzzle in &puzzles_sent {
            match layout {
                Layout::Bytes => cells.extend_from_slice(puzzle),
                Layout::Nibbles => nibbles::pack(puzzle, &mut cells),
            }
        }
        let pack = Arc::new(Pack::new("m".to_owned(), 7, hold(), 5, source(layout)));
        let cells = Bytes::from(cells);
        let parts: Vec<Part> = [0..2, 2..3, 3..5]
            .into_iter()
            .map(|range| Part::new(pack.clone(), range, cells.clone()))
            .collect();
        // The last part first, each part's puzzles backwards: the answer comes once, last.
        let order = [(2, 4), (2, 3), (0, 1), (0, 0), (1, 2)];
        let mut answers: Vec<_> = order
            .iter()
            .map(|&(part, offset)| answer(&parts[part], offset))
            .collect();
        let mut whole = answers
            .pop()
            .flatten()
            .expect("the last answer is the message's");
        assert_eq!(whole.len(), 1, "a small answer in one piece");
        let (whole, _hold) = whole.remove(0);
        assert!(
            answers.iter().all(Option::is_none),
            "one answer per message"
        );
        assert_eq!((whole.id.as_str(), whole.first), ("m", 7));
        let unique = pb::Outcome::Unique as u8;
        let invalid = pb::Outcome::Invalid as u8;
        assert_eq!(whole.outcomes, [unique, invalid, unique, unique, unique]);
        assert_eq!(whole.solutions_found, [1, 0, 1, 1, 1]);
        let errors: Vec<(u32, Option<String>)> = whole
            .errors
            .iter()
            .map(|e| (e.offset, e.error.as_ref().map(|e| e.message.clone())))
            .collect();
        assert_eq!(
            errors,
            [(
                1,
                Some(
                    "digit 4 appears twice in row 1: at row 1, column 1 and row 1, column 2".into()
                )
            )]
        );
        let solutions = solution_values(&whole, layout, 5);
        for (i, puzzle) in puzzles.iter().enumerate().filter(|&(i, _)| i != 1) {
            let puzzle = Grid::new(Shape::CLASSIC, puzzle).expect("a puzzle");
            let solution =
                Grid::new(Shape::CLASSIC, &solutions[i * 81..(i + 1) * 81]).expect("a full grid");
            assert!(solution.is_solution_of(&puzzle), "puzzle {i} ({layout:?})");
        }
        assert_eq!(
            solutions[81..162],
            [0; 81],
            "no solution for the invalid one"
        );
    }

    /// The cell values of the `count` 9x9 solutions of an answer packed in `layout`.
    fn solution_values(answer: &pb::PackedAnswers, layout: Layout, count: usize) -> Vec<u8> {
        match layout {
            Layout::Bytes => {
                assert!(answer.solution_nibbles.is_empty());
                answer.solutions.to_vec()
            }
            Layout::Nibbles => {
                assert!(answer.solutions.is_empty());
                assert_eq!(answer.solution_nibbles.len(), count * 41);
                let mut values = vec![0; count * 81];
                let packed = answer.solution_nibbles.chunks(41);
                for (packed, out) in packed.zip(values.chunks_mut(81)) {
                    nibbles::unpack_into(packed, out);
                }
                values
            }
        }
    }

    #[test]
    fn a_puzzles_held_bytes_cover_its_item_and_answer_fields() {
        // Outcome, guesses and solutions found, in the message's answer and in its part's.
        let answer_fields = 2 * (1 + 8 + 8);
        assert!(std::mem::size_of::<Item>() + answer_fields <= PUZZLE_HELD);
        let message = pb::PackedPuzzles {
            nibbles: vec![0; 41 * 1000].into(),
            ..pb::PackedPuzzles::default()
        };
        #[cfg(target_pointer_width = "64")]
        assert_eq!(
            PUZZLE_HELD + ERROR_HELD,
            336,
            "a packed puzzle is charged 336 bytes"
        );
        // The cells three times over (message, answer, part) and the per-puzzle rest.
        assert!(message.held_bytes(1000) >= 3 * 41 * 1000 + 1000 * (PUZZLE_HELD + ERROR_HELD));
    }

    #[test]
    fn puzzles_are_abandoned_when_their_client_leaves_even_with_refused_options() {
        for options in [
            Ok(solver_core::Options::default()),
            Err(pb::SolveError::default()),
        ] {
            let cancel = Arc::new(std::sync::atomic::AtomicBool::new(false));
            let source = Source {
                options,
                cancel: cancel.clone(),
                ..source(Layout::Bytes)
            };
            let pack = Arc::new(Pack::new("m".to_owned(), 0, hold(), 1, source));
            let item = Item {
                part: Arc::new(Part::new(pack, 0..1, values(PUZZLE).into())),
                offset: 0,
                step: Step::Packed,
                detached: false,
            };
            assert!(!item.abandoned());
            cancel.store(true, Ordering::Relaxed);
            assert!(item.abandoned());
        }
    }

    #[test]
    fn every_reason_a_puzzle_is_refused_fits_the_room_counted_for_it() {
        // The largest grid there is, 35x35, its last two cells the same, then not digits.
        let shape = Shape::new(5, 7).expect("a shape");
        let mut cells = vec![0u8; shape.cells()];
        let last = cells.len() - 1;
        (cells[last - 1], cells[last]) = (35, 35);
        let twice = unpack(shape, &cells).expect_err("a digit twice");
        cells[last] = 0xff;
        let not_a_digit = unpack(shape, &cells).expect_err("not a digit");
        cells[last] = 36;
        let out_of_range = unpack(shape, &cells).expect_err("out of range");
        let unsupported = solver_core::SolveError::Unsupported {
            algorithm: solver_core::solve::Algorithm::Fast,
            shape,
        };
        let reasons = [
            RequestError::Grid(twice),
            RequestError::Grid(not_a_digit),
            RequestError::Grid(out_of_range),
            RequestError::TooLarge {
                side: Shape::MAX_SIDE,
                max: usize::MAX,
            },
            RequestError::from(unsupported),
        ];
        for reason in reasons {
            let error = reason.to_pb();
            assert!(error.message.len() <= ERROR_TEXT, "{}", error.message);
            assert_eq!(bounded(error.clone()), error, "never cut");
            assert_eq!(
                bounded(error).message.capacity(),
                reason.to_pb().message.len()
            );
        }
        // A solver's panic message can be anything; it is cut, on a character's boundary.
        let panic = RequestError::Internal("é".repeat(500)).to_pb();
        let cut = bounded(panic);
        assert!(cut.message.len() <= ERROR_TEXT, "{}", cut.message.len());
        assert!(cut.message.starts_with("internal error: the solver failed"));
        assert!(cut.message.ends_with("é…"), "{}", cut.message);
        assert!(cut.message.capacity() <= ERROR_TEXT);
    }

    #[test]
    fn a_message_keeps_its_cells_not_the_buffer_they_arrived_in() {
        let message = pb::PackedPuzzles {
            nibbles: vec![0x12; 41].into(),
            ..pb::PackedPuzzles::default()
        };
        let mut wire = message.encode_to_vec();
        // 64 KB of a field this server does not know, which decoding skips.
        prost::encoding::bytes::encode(15, &vec![0u8; 64 << 10], &mut wire);
        let wire = Bytes::from(wire);
        let arrived = wire.as_ptr_range();
        let within = |field: &Bytes| arrived.contains(&field.as_ptr());
        let mut decoded = pb::PackedPuzzles::decode(wire.clone()).expect("decodes");
        assert!(
            within(&decoded.nibbles),
            "prost lends the cells from the buffer"
        );
        assert!(
            decoded.held_bytes(1) < 1000,
            "and counts only what it decoded"
        );
        decoded.own_bytes();
        assert!(!within(&decoded.nibbles), "a copy of its own");
        assert_eq!(decoded.nibbles, message.nibbles);
    }

    #[test]
    fn bad_cells_are_named() {
        let mut cells = values(PUZZLE);
        cells[12] = b'#';
        assert_eq!(
            unpack(Shape::CLASSIC, &cells).map_err(|e| e.to_string()),
            Err("row 2, column 4: '#' is not a digit".to_owned())
        );
        // A letter beyond the side, and a repeat given as values.
        cells[12] = b'A';
        assert!(matches!(
            unpack(Shape::CLASSIC, &cells),
            Err(GridError::OutOfRange { value: 10, .. })
        ));
        cells[12] = 5;
        assert!(matches!(
            unpack(Shape::CLASSIC, &cells),
            Err(GridError::Duplicate { digit: 5, .. })
        ));
    }

    #[test]
    fn a_detached_puzzle_is_answered_alone_with_its_share_of_the_hold() {
        let budgets: Vec<Arc<tokio::sync::Semaphore>> = (0..2)
            .map(|_| Arc::new(tokio::sync::Semaphore::new(300)))
            .collect();
        let take = |i: usize| budgets[i].clone().try_acquire_many_owned(300).expect("all");
        let hold = Hold {
            _slot: take(0),
            _stream_bytes: take(1),
        };
        let pack = Arc::new(Pack::new("m".to_owned(), 7, hold, 3, source(Layout::Bytes)));
        let part = Part::new(pack.clone(), 0..3, PUZZLE.repeat(3).into_bytes().into());
        // Built before it goes long, as on a solver thread.
        let job = part.job(1).expect("a puzzle");
        assert!(part.detach(1).is_none());
        assert!(answer(&part, 0).is_none());
        let pieces = answer(&part, 2).expect("the rest of the message");
        let firsts: Vec<u64> = pieces.iter().map(|(p, _)| p.first).collect();
        assert_eq!(firsts, [7, 9]);
        for (piece, _) in &pieces {
            assert_eq!(piece.outcomes, [pb::Outcome::Unique as u8]);
        }
        drop(pieces);
        // The detached puzzle's third of everything is still held.
        for budget in &budgets {
            assert_eq!(budget.available_permits(), 200);
        }
        let report = solver_core::solve(&job.grid, &job.options).expect("solved");
        let (alone, held) = pack.answer_apart(1, Ok(report)).expect("answered");
        assert_eq!((alone.first, alone.outcomes.len()), (8, 1));
        assert_eq!(alone.outcomes[0], pb::Outcome::Unique as u8);
        assert_eq!(alone.solutions.len(), 81);
        drop(held);
        for budget in &budgets {
            assert_eq!(budget.available_permits(), 300);
        }
    }

    #[test]
    fn a_detached_puzzle_answered_before_the_rest_takes_its_share_from_the_message() {
        let budget = Arc::new(tokio::sync::Semaphore::new(200));
        let take = || budget.clone().try_acquire_many_owned(100).expect("room");
        let hold = Hold {
            _slot: take(),
            _stream_bytes: take(),
        };
        let pack = Arc::new(Pack::new("m".to_owned(), 0, hold, 4, source(Layout::Bytes)));
        let part = Part::new(pack.clone(), 0..4, PUZZLE.repeat(4).into_bytes().into());
        assert!(part.detach(3).is_none());
        let job = part.job(3).expect("a puzzle");
        let report = solver_core::solve(&job.grid, &job.options).expect("solved");
        let (alone, held) = pack.answer_apart(3, Ok(report)).expect("answered");
        assert_eq!(alone.first, 3);
        drop(held);
        // A quarter of each of the two 100-permit holds is back.
        assert_eq!(budget.available_permits(), 50);
        for offset in 0..2 {
            assert!(answer(&part, offset).is_none());
        }
        let rest = answer(&part, 2).expect("the rest");
        assert_eq!(rest.len(), 1);
        assert_eq!((rest[0].0.first, rest[0].0.outcomes.len()), (0, 3));
        drop(rest);
        assert_eq!(budget.available_permits(), 200);
    }
}
