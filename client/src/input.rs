//! Reading puzzles from arguments, files and stdin, each with where it came from.

use std::fmt;
use std::io::{BufRead, BufReader, IsTerminal, Read};
use std::path::Path;

use anyhow::{Context, bail};

/// The longest input line accepted, in bytes: a 25x25 grid with separators and dataset
/// fields fits many times over, and a runaway line is refused before it fills memory.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// The most `solve` reads from one file or stdin; `batch` streams larger inputs.
pub const MAX_SOLVE_INPUT_BYTES: u64 = 16 << 20;

/// What a UTF-8 byte-order mark looks like; editors on some systems start files with it.
const BOM: char = '\u{feff}';
/// [`BOM`] as UTF-8.
const BOM_BYTES: &[u8] = "\u{feff}".as_bytes();

/// Where a puzzle came from, for error messages.
#[derive(Debug, Clone)]
pub struct Origin {
    /// 1-based position among all puzzles.
    pub number: usize,
    /// An argument index or a line number.
    pub place: Place,
}

/// An argument index or a 1-based line number.
#[derive(Debug, Clone, Copy)]
pub enum Place {
    /// The n-th puzzle argument.
    Argument(usize),
    /// The line in the input where the puzzle starts.
    Line(usize),
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Argument(n) => write!(f, "argument {n}"),
            Place::Line(n) => write!(f, "line {n}"),
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "puzzle {} ({})", self.number, self.place)
    }
}

/// Puzzles for `solve`: arguments, or the file, or stdin when there are none or either is `-`.
pub fn solve_inputs(args: &[String], file: Option<&Path>) -> anyhow::Result<Vec<(Origin, String)>> {
    let mut texts = Vec::new();
    let mut add = |place, text: String| {
        texts.push((
            Origin {
                number: texts.len() + 1,
                place,
            },
            text,
        ))
    };
    if let Some(path) = file {
        // `--file -` is stdin, as `-` among the puzzles is.
        let text = if path == Path::new("-") {
            read_stdin()?
        } else {
            let file = std::fs::File::open(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            read_bounded(file, &path.display().to_string())?
        };
        for (line, block) in blocks(&text) {
            add(Place::Line(line), block);
        }
    }
    for (i, arg) in args.iter().enumerate() {
        if arg == "-" {
            for (line, block) in blocks(&read_stdin()?) {
                add(Place::Line(line), block);
            }
        } else {
            add(Place::Argument(i + 1), arg.clone());
        }
    }
    if args.is_empty() && file.is_none() {
        for (line, block) in blocks(&read_stdin()?) {
            add(Place::Line(line), block);
        }
    }
    Ok(texts)
}

fn read_stdin() -> anyhow::Result<String> {
    if std::io::stdin().is_terminal() {
        // Someone typed `sudoku solve` alone: say what it waits for instead of hanging silently.
        eprintln!(
            "sudoku: reading puzzles from the terminal; end with Ctrl-D (or give a puzzle as an argument, or --file)"
        );
    }
    read_bounded(std::io::stdin(), "stdin")
}

/// Reads all of `input` as text, refusing more than [`MAX_SOLVE_INPUT_BYTES`] and binary data.
fn read_bounded(input: impl Read, name: &str) -> anyhow::Result<String> {
    let mut bytes = Vec::new();
    input
        .take(MAX_SOLVE_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {name}"))?;
    if bytes.len() as u64 > MAX_SOLVE_INPUT_BYTES {
        bail!(
            "{name} is larger than {} MiB: use `sudoku batch` for large inputs",
            MAX_SOLVE_INPUT_BYTES >> 20
        );
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{name} is not UTF-8 text (byte {})",
            e.utf8_error().valid_up_to()
        )
    })?;
    Ok(text.strip_prefix(BOM).map(str::to_owned).unwrap_or(text))
}

/// Opens a batch input: a file, or stdin for `None`. Reads block: they belong on a thread of
/// their own, never on an async one.
pub fn open_input(path: Option<&Path>) -> anyhow::Result<Box<dyn Read + Send>> {
    Ok(match path {
        Some(path) => Box::new(
            std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?,
        ),
        None => Box::new(std::io::stdin()),
    })
}

/// Lines of a batch input, each at most [`MAX_LINE_BYTES`], with a leading byte-order mark
/// dropped; errors name the input and the line.
pub struct LineReader {
    input: BufReader<Box<dyn Read + Send>>,
    name: String,
    line: usize,
    buf: Vec<u8>,
    /// Bytes of the read buffer the last line was lent from, given back at the next call: a
    /// line that is whole in the buffer is not copied.
    lent: usize,
}

impl LineReader {
    /// Reads `input`, called `path` (or stdin) in messages.
    pub fn new(input: Box<dyn Read + Send>, path: Option<&Path>) -> LineReader {
        LineReader {
            // Large enough that a fast file fills whole batch chunks between reads (the
            // embedded server's 1,024 classic puzzles are 83 KB).
            input: BufReader::with_capacity(1 << 18, input),
            name: path.map_or("stdin".to_owned(), |p| p.display().to_string()),
            line: 0,
            buf: Vec::new(),
            lent: 0,
        }
    }

    /// Whether more input is already in memory: the next line costs no read.
    pub fn buffered(&self) -> bool {
        self.input.buffer().len() > self.lent
    }

    /// The next line, without the line ending, as bytes not yet checked to be text
    /// ([`RawLine::text`] does): a caller that takes the usual lines (classic one-line
    /// puzzles, all ASCII) from the bytes spares the UTF-8 check of every line (150
    /// instructions of an 81-cell line).
    pub fn next_raw(&mut self) -> anyhow::Result<Option<RawLine<'_>>> {
        self.input.consume(std::mem::take(&mut self.lent));
        let whole = memchr::memchr(b'\n', self.input.buffer());
        let raw = match whole {
            Some(end) if end <= MAX_LINE_BYTES => {
                self.lent = end + 1;
                &self.input.buffer()[..end]
            }
            _ => {
                if !self.read_line()? {
                    return Ok(None);
                }
                &self.buf[..]
            }
        };
        self.line += 1;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let raw = match self.line {
            1 => raw.strip_prefix(BOM_BYTES).unwrap_or(raw),
            _ => raw,
        };
        Ok(Some(RawLine {
            number: self.line,
            raw,
            name: &self.name,
        }))
    }

    /// Reads a line that is not whole in the buffer into `buf`, without its `\n`; false at
    /// the end of the input.
    fn read_line(&mut self) -> anyhow::Result<bool> {
        self.buf.clear();
        let limit = MAX_LINE_BYTES as u64 + 1;
        let read = (&mut self.input)
            .take(limit)
            .read_until(b'\n', &mut self.buf)
            .with_context(|| format!("cannot read {}", self.name))?;
        if read == 0 {
            return Ok(false);
        }
        if self.buf.last() == Some(&b'\n') {
            self.buf.pop();
        } else if self.buf.len() > MAX_LINE_BYTES {
            bail!(
                "{} line {}: longer than the limit of {MAX_LINE_BYTES} bytes",
                self.name,
                self.line + 1
            );
        }
        Ok(true)
    }
}

/// A line of a batch input without its `\r` ending or (on line 1) a byte-order mark, as read.
pub struct RawLine<'a> {
    /// Its 1-based number.
    pub number: usize,
    /// Its bytes.
    pub raw: &'a [u8],
    name: &'a str,
}

impl<'a> RawLine<'a> {
    /// The line as text; an error naming the input and the line where it is not UTF-8.
    pub fn text(&self) -> anyhow::Result<&'a str> {
        self.text_from(0)
    }

    /// The line from byte `at` on as text (a caller that read the bytes before as ASCII
    /// needs no more checked); an error as for [`RawLine::text`].
    pub fn text_from(&self, at: usize) -> anyhow::Result<&'a str> {
        std::str::from_utf8(self.raw.get(at..).unwrap_or_default()).map_err(|_| {
            let (name, line) = (self.name, self.number);
            anyhow::anyhow!("{name} line {line}: not UTF-8 text (binary input?)")
        })
    }
}

/// Splits text into puzzles: blank lines separate multi-line grids, and a block where at
/// least half the lines hold a whole one-line puzzle is one puzzle per line. No line of a
/// multi-line grid is a whole puzzle by itself, so such a block is a list of puzzles with
/// some bad lines; read as one grid, one bad line would lose every puzzle in it, where each
/// bad line is its own error (with its own line number) read line by line, as `batch` does.
pub fn blocks(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut block: Vec<(usize, &str)> = Vec::new();
    let mut flush = |block: &mut Vec<(usize, &str)>| {
        if block.is_empty() {
            return;
        }
        let puzzles = block.iter().filter(|(_, l)| is_one_line_puzzle(l)).count();
        if 2 * puzzles >= block.len() {
            out.extend(block.iter().map(|&(n, l)| (n, puzzle_field(l).to_owned())));
        } else {
            let first = block[0].0;
            out.push((
                first,
                block.iter().map(|(_, l)| *l).collect::<Vec<_>>().join("\n"),
            ));
        }
        block.clear();
    };
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            flush(&mut block);
        } else {
            block.push((i + 1, line));
        }
    }
    flush(&mut block);
    out
}

/// The grid field of a dataset line: the first whitespace-separated field.
pub fn puzzle_field(line: &str) -> &str {
    line.split_whitespace().next().unwrap_or("")
}

/// Whether a line's first field alone has the cells of a whole grid: the square of a side
/// that has a box shape. A row of a 25x25 grid (25 cells, a side of 5, which has none) is not.
fn is_one_line_puzzle(line: &str) -> bool {
    let n = puzzle_field(line).chars().count();
    let side = n.isqrt();
    side * side == n && solver_core::Shape::for_side(side).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(bytes: &'static [u8]) -> anyhow::Result<Vec<(usize, String)>> {
        let mut reader = LineReader::new(Box::new(bytes), None);
        let mut out = Vec::new();
        while let Some(line) = reader.next_raw()? {
            out.push((line.number, line.text()?.to_owned()));
        }
        Ok(out)
    }

    #[test]
    fn line_reader_drops_a_bom_and_line_endings() {
        let lines = lines_of(b"\xef\xbb\xbfab\r\ncd\nef").unwrap();
        assert_eq!(
            lines,
            [
                (1, "ab".to_owned()),
                (2, "cd".to_owned()),
                (3, "ef".to_owned())
            ]
        );
    }

    #[test]
    fn line_reader_refuses_long_lines_and_binary_with_the_line() {
        let long: &'static [u8] = Box::leak(vec![b'.'; MAX_LINE_BYTES + 10].into_boxed_slice());
        let err = lines_of(long).unwrap_err().to_string();
        assert!(
            err.contains("stdin line 1: longer than the limit of 65536 bytes"),
            "{err}"
        );
        let err = lines_of(b"ok\n\xff\xfe\n").unwrap_err().to_string();
        assert!(err.contains("stdin line 2: not UTF-8"), "{err}");
    }

    #[test]
    fn solve_input_is_bounded_and_skips_a_bom() {
        let text = read_bounded(&b"\xef\xbb\xbf1234"[..], "x").unwrap();
        assert_eq!(text, "1234");
        let big = vec![b'.'; MAX_SOLVE_INPUT_BYTES as usize + 1];
        let err = read_bounded(&big[..], "big.txt").unwrap_err().to_string();
        assert!(err.contains("big.txt is larger than 16 MiB"), "{err}");
    }

    #[test]
    fn blocks_split_one_line_puzzles_and_keep_grids_whole() {
        let line = ".".repeat(81);
        let text = format!(
            "# comment\n{line}\n{line} extra fields\n\n1 2 3 4\n3 4 1 2\n2 1 4 3\n4 3 2 1\n"
        );
        let found = blocks(&text);
        assert_eq!(found.len(), 3);
        assert_eq!((found[0].0, found[0].1.len()), (2, 81));
        assert_eq!(found[1].1, line);
        assert_eq!(found[2].0, 5);
        assert_eq!(found[2].1.lines().count(), 4);
    }

    #[test]
    fn bad_lines_among_one_line_puzzles_are_each_their_own_puzzle() {
        let line = ".".repeat(81);
        let short = ".".repeat(80);
        let text = format!("{line}\n{short}\n{line} rating 1.2\n1 2 3\n{line}\n");
        let found = blocks(&text);
        let lines: Vec<usize> = found.iter().map(|(n, _)| *n).collect();
        assert_eq!(lines, [1, 2, 3, 4, 5]);
        assert_eq!(found[1].1, short);
        assert_eq!(found[2].1, line);
        // Half the lines whole puzzles is enough: two lines, one of them bad.
        let found = blocks(&format!("{short}\n{line}\n"));
        assert_eq!(found.len(), 2);
    }

    #[test]
    fn multi_line_grids_stay_whole() {
        // A 9x9 grid one row of characters a line, and the boxed form.
        let rows = "3.65.84..\n52.......\n.87....31\n..3.1..8.\n9..863..5\n.5..9.6..\n\
                    13....25.\n.......74\n..52.63..\n";
        let found = blocks(rows);
        assert_eq!((found.len(), found[0].0), (1, 1));
        let boxed = "3 . 6 | 5 . 8 | 4 . .\n5 2 . | . . . | . . .\n------+-------+------\n";
        assert_eq!(blocks(boxed).len(), 1);
        // A 25x25 grid's rows have 25 cells, a square, but 5 is no side a grid can have.
        let grid = format!("{}\n", ".".repeat(25)).repeat(25);
        let found = blocks(&grid);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].1.lines().count(), 25);
    }
}
