//! Packed messages for the suites that send BatchSolvePacked: puzzles packed a byte a cell
//! or two cells a byte, and checks of their answers against the rules and the givens.

use solver_core::{Grid, Shape};
use sudoku_proto::nibbles;
use sudoku_proto::pb::sudoku_client::SudokuClient;
use sudoku_proto::pb::{Outcome, PackedAnswers, PackedPuzzles};
use tonic::transport::Channel;

use super::{CLASSIC, HARD, grid};

/// The puzzle with its digits relabelled by `shift` (1..=8): a different puzzle, same difficulty.
pub fn relabel(text: &str, shift: u8) -> String {
    text.bytes()
        .map(|b| match b {
            b'1'..=b'9' => char::from(b'1' + (b - b'1' + shift) % 9),
            _ => '.',
        })
        .collect()
}

/// `count` puzzles, easy and hard in turn, each relabelled: unique solutions all.
pub fn mixed(count: usize) -> Vec<String> {
    (0..count)
        .map(|i| relabel(if i % 2 == 0 { CLASSIC } else { HARD }, (i % 9) as u8))
        .collect()
}

/// The first `texts.len()` answers of a nibble message: unique, each solution checked against
/// the rules and its puzzle's givens.
pub fn assert_nibble_answers(answer: &PackedAnswers, texts: &[String]) {
    for (i, text) in texts.iter().enumerate() {
        assert_eq!(answer.outcomes[i], Outcome::Unique as u8, "puzzle {i}");
        let mut cells = [0u8; 81];
        nibbles::unpack_into(&answer.solution_nibbles[i * 41..(i + 1) * 41], &mut cells);
        let solution = Grid::new(Shape::CLASSIC, &cells).expect("a valid grid");
        assert!(solution.is_solution_of(&grid(text)), "puzzle {i}");
    }
}

pub fn packed(id: &str, puzzles: &[String]) -> PackedPuzzles {
    PackedPuzzles {
        box_rows: 3,
        box_cols: 3,
        cells: puzzles.concat().into_bytes().into(),
        options: None,
        id: id.to_owned(),
        nibbles: Default::default(),
    }
}

/// Cell values (0 empty) of a puzzle's text.
pub fn values(text: &str) -> Vec<u8> {
    text.bytes()
        .map(|b| {
            b.checked_sub(b'0')
                .filter(|v| (1..=9).contains(v))
                .unwrap_or(0)
        })
        .collect()
}

/// `puzzles` two cells a byte, in `nibbles`.
pub fn nibbled(id: &str, puzzles: &[String]) -> PackedPuzzles {
    let mut bytes = Vec::new();
    for text in puzzles {
        nibbles::pack(&values(text), &mut bytes);
    }
    PackedPuzzles {
        nibbles: bytes.into(),
        ..packed(id, &[])
    }
}

/// Every answer of `message` checked against its puzzles: outcome, solution and givens.
pub fn assert_answers(answer: &PackedAnswers, puzzles: &[String]) {
    assert_eq!(answer.outcomes.len(), puzzles.len());
    assert_eq!(answer.solutions.len(), puzzles.len() * 81);
    for (i, text) in puzzles.iter().enumerate() {
        let puzzle = grid(text);
        assert_eq!(answer.outcomes[i], Outcome::Unique as u8, "puzzle {i}");
        let cells: Vec<u32> = answer.solutions[i * 81..(i + 1) * 81]
            .iter()
            .map(|&b| u32::from(b))
            .collect();
        let solution = Grid::new(Shape::CLASSIC, &cells).expect("a valid grid");
        assert!(solution.is_solution_of(&puzzle), "puzzle {i}");
    }
}

/// Every answer of a stream of `messages`, in stream order, the stream ending cleanly.
pub async fn answers_by_first(
    client: &mut SudokuClient<Channel>,
    messages: Vec<PackedPuzzles>,
) -> Vec<PackedAnswers> {
    let mut answers = Vec::new();
    let mut stream = client
        .batch_solve_packed(tokio_stream::iter(messages))
        .await
        .expect("the stream opens")
        .into_inner();
    while let Some(answer) = stream.message().await.expect("no error") {
        answers.push(answer);
    }
    answers.sort_by_key(|a| a.first);
    answers
}

/// The answer of a one-message stream.
pub async fn answer_of(
    client: &mut SudokuClient<Channel>,
    message: PackedPuzzles,
) -> PackedAnswers {
    client
        .batch_solve_packed(tokio_stream::iter([message]))
        .await
        .expect("the stream opens")
        .into_inner()
        .message()
        .await
        .expect("no error")
        .expect("one answer")
}
