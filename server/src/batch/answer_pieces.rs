//! A packed answer cut into messages of bounded size. tonic keeps a stream's answer buffer as
//! large as the largest answer through it, for the stream's life, and grpcio and grpc-go take
//! messages of at most 4 MiB by default, while the answer to a full request can be larger
//! than the request, several times larger when its puzzles are refused.

use prost::Message;
use prost::encoding::encoded_len_varint;
use sudoku_proto::pb;

/// `answer`, with `each` solution bytes per puzzle, in pieces of at most `cap` bytes, in order,
/// each naming its own first puzzle and its errors' offsets from it; one piece where it fits.
/// A puzzle whose answer alone is larger than `cap` still goes, in a piece of its own.
pub(super) fn cut(
    mut answer: pb::PackedAnswers,
    each: usize,
    cap: usize,
) -> Vec<pb::PackedAnswers> {
    if answer.encoded_len() <= cap {
        return vec![answer];
    }
    let (mut pieces, mut start) = (Vec::new(), 0);
    for end in ends(&answer, each, cap) {
        pieces.push(run(&mut answer, each, start..end));
        start = end;
    }
    pieces
}

/// As [`cut`], leaving out the puzzles at `holes` (sorted offsets, answered apart): each run
/// between them is cut on its own, so every piece is a run of puzzles from its `first`.
pub(super) fn cut_around(
    mut answer: pb::PackedAnswers,
    each: usize,
    cap: usize,
    holes: &[usize],
) -> Vec<pb::PackedAnswers> {
    if holes.is_empty() {
        return cut(answer, each, cap);
    }
    let count = answer.outcomes.len();
    let mut pieces = Vec::new();
    let mut start = 0;
    for end in holes.iter().copied().chain([count]) {
        if end > start {
            pieces.extend(cut(run(&mut answer, each, start..end), each, cap));
        }
        start = end + 1;
    }
    pieces
}

/// The answers of the puzzles in `range` of `answer`, as an answer of their own; their
/// errors' texts are moved out of `answer` (sorted by offset), whose solutions are shared.
fn run(
    answer: &mut pb::PackedAnswers,
    each: usize,
    range: std::ops::Range<usize>,
) -> pb::PackedAnswers {
    let (start, end) = (range.start, range.end);
    let slice = |s: &bytes::Bytes| {
        if s.is_empty() {
            s.clone()
        } else {
            s.slice(start * each..end * each)
        }
    };
    let at = |offset: usize| {
        answer
            .errors
            .partition_point(|e| (e.offset as usize) < offset)
    };
    let errors = at(start)..at(end);
    pb::PackedAnswers {
        id: answer.id.clone(),
        first: answer.first + start as u64,
        outcomes: answer.outcomes[range.clone()].to_vec(),
        solutions: slice(&answer.solutions),
        // Exactly as many as it holds, so no list holds more room than its errors take.
        errors: answer.errors[errors]
            .iter_mut()
            .map(|e| pb::PackedError {
                offset: e.offset - start as u32,
                error: e.error.take(),
            })
            .collect(),
        guesses: answer.guesses[range.clone()].to_vec(),
        solutions_found: answer.solutions_found[range].to_vec(),
        solution_nibbles: slice(&answer.solution_nibbles),
    }
}

/// Where each piece ends: the offset after its last puzzle.
fn ends(answer: &pb::PackedAnswers, each: usize, cap: usize) -> Vec<usize> {
    // The id, `first`, and each field's key and length.
    let budget = cap.saturating_sub(answer.id.len() + 64);
    let count = answer.outcomes.len();
    let mut errors = answer.errors.iter().peekable();
    let (mut ends, mut size, mut in_piece) = (Vec::new(), 0, 0);
    for at in 0..count {
        let varints = |v: &[u64]| v.get(at).map_or(0, |&n| encoded_len_varint(n));
        let mut bytes = 1 + each + varints(&answer.guesses) + varints(&answer.solutions_found);
        while let Some(error) = errors.next_if(|e| e.offset as usize <= at) {
            let len = error.encoded_len();
            bytes += 1 + encoded_len_varint(len as u64) + len;
        }
        if in_piece > 0 && size + bytes > budget {
            ends.push(at);
            (size, in_piece) = (0, 0);
        }
        size += bytes;
        in_piece += 1;
    }
    ends.push(count);
    ends
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An answer of `count` 9x9 puzzles packed a byte a cell, every third one refused.
    fn answer(count: usize) -> pb::PackedAnswers {
        let mut answer = pb::PackedAnswers {
            id: "job".to_owned(),
            first: 1000,
            ..pb::PackedAnswers::default()
        };
        let mut solutions = Vec::new();
        for at in 0..count {
            let refused = at % 3 == 1;
            let outcome = if refused {
                pb::Outcome::Invalid
            } else {
                pb::Outcome::Unique
            };
            answer.outcomes.push(outcome as u8);
            answer
                .guesses
                .push(if refused { 0 } else { at as u64 * 1000 });
            answer.solutions_found.push(u64::from(!refused));
            solutions.extend((0..81).map(|cell| if refused { 0 } else { (at + cell) as u8 }));
            if refused {
                answer.errors.push(pb::PackedError {
                    offset: at as u32,
                    error: Some(pb::SolveError {
                        message: format!("puzzle {at}: digit 4 appears twice in row 1"),
                        row: 1,
                        col: 2,
                    }),
                });
            }
        }
        answer.solutions = solutions.into();
        answer
    }

    #[test]
    fn an_answer_that_fits_goes_whole() {
        let whole = answer(50);
        assert_eq!(cut(whole.clone(), 81, whole.encoded_len()), [whole]);
    }

    #[test]
    fn pieces_fit_the_cap_and_put_back_together_make_the_answer() {
        let whole = answer(1000);
        for cap in [4 << 10, 10_000, whole.encoded_len() - 1] {
            let pieces = cut(whole.clone(), 81, cap);
            assert!(pieces.len() > 1, "cap {cap}: {} piece", pieces.len());
            let mut joined = pb::PackedAnswers {
                id: whole.id.clone(),
                first: whole.first,
                ..pb::PackedAnswers::default()
            };
            let mut solutions = Vec::new();
            for piece in &pieces {
                assert!(
                    piece.encoded_len() <= cap,
                    "a piece of {}",
                    piece.encoded_len()
                );
                assert_eq!(piece.id, whole.id);
                let at = joined.outcomes.len();
                assert_eq!(piece.first, whole.first + at as u64, "pieces in order");
                joined.outcomes.extend_from_slice(&piece.outcomes);
                joined.guesses.extend_from_slice(&piece.guesses);
                joined
                    .solutions_found
                    .extend_from_slice(&piece.solutions_found);
                solutions.extend_from_slice(&piece.solutions);
                assert_eq!(piece.solutions.len(), 81 * piece.outcomes.len());
                joined.errors.extend(piece.errors.iter().map(|e| {
                    assert!(
                        (e.offset as usize) < piece.outcomes.len(),
                        "offset in its piece"
                    );
                    pb::PackedError {
                        offset: e.offset + at as u32,
                        error: e.error.clone(),
                    }
                }));
            }
            joined.solutions = solutions.into();
            assert_eq!(joined, whole, "cap {cap}");
        }
    }

    #[test]
    fn a_puzzle_larger_than_the_cap_goes_alone() {
        let whole = answer(7);
        let pieces = cut(whole, 81, 10);
        assert_eq!(pieces.len(), 7);
        assert!(pieces.iter().all(|p| p.outcomes.len() == 1));
        assert_eq!(pieces[4].first, 1004);
        assert_eq!(pieces[4].errors[0].offset, 0);
    }

    #[test]
    fn an_answer_cut_around_holes_leaves_out_just_those_puzzles() {
        let whole = answer(12);
        let pieces = cut_around(whole.clone(), 81, 1 << 20, &[0, 5, 9]);
        let runs: Vec<(u64, usize)> = pieces.iter().map(|p| (p.first, p.outcomes.len())).collect();
        assert_eq!(runs, [(1001, 4), (1006, 3), (1010, 2)]);
        for piece in &pieces {
            let at = (piece.first - whole.first) as usize;
            let n = piece.outcomes.len();
            assert_eq!(piece.outcomes, whole.outcomes[at..at + n]);
            assert_eq!(piece.guesses, whole.guesses[at..at + n]);
            assert_eq!(piece.solutions, whole.solutions[at * 81..(at + n) * 81]);
            let offsets: Vec<u32> = piece.errors.iter().map(|e| e.offset + at as u32).collect();
            let expected: Vec<u32> = whole
                .errors
                .iter()
                .map(|e| e.offset)
                .filter(|&o| (at..at + n).contains(&(o as usize)))
                .collect();
            assert_eq!(offsets, expected);
        }
        assert_eq!(cut_around(whole.clone(), 81, 1 << 20, &[]), vec![whole]);
    }
}
