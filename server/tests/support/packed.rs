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

/// Every answer of a stream of `messages`, by `first`, the stream ending cleanly; the runs
/// one message's answer came in (a puzzle that outlasts its time slice is answered apart)
/// joined back into one answer.
pub async fn answers_by_first(
    client: &mut SudokuClient<Channel>,
    messages: Vec<PackedPuzzles>,
) -> Vec<PackedAnswers> {
    joined(runs_by_first(client, messages).await)
}

/// Every answer message of a stream of `messages`, as sent, by `first`.
pub async fn runs_by_first(
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

/// `runs` sorted by `first`, each run that continues the one before it with the same id
/// appended to it.
pub fn joined(mut runs: Vec<PackedAnswers>) -> Vec<PackedAnswers> {
    runs.sort_by_key(|a| a.first);
    let mut whole: Vec<PackedAnswers> = Vec::new();
    for run in runs {
        match whole.last_mut() {
            Some(last)
                if last.id == run.id && last.first + last.outcomes.len() as u64 == run.first =>
            {
                let shift = last.outcomes.len() as u32;
                last.outcomes.extend(&run.outcomes);
                last.guesses.extend(&run.guesses);
                last.solutions_found.extend(&run.solutions_found);
                last.solutions = [&last.solutions[..], &run.solutions[..]].concat().into();
                last.solution_nibbles = [&last.solution_nibbles[..], &run.solution_nibbles[..]]
                    .concat()
                    .into();
                last.errors.extend(run.errors.into_iter().map(|mut e| {
                    e.offset += shift;
                    e
                }));
            }
            _ => whole.push(run),
        }
    }
    whole
}

/// The answer of a one-message stream, its runs joined.
pub async fn answer_of(
    client: &mut SudokuClient<Channel>,
    message: PackedPuzzles,
) -> PackedAnswers {
    let mut whole = answers_by_first(client, vec![message]).await;
    assert_eq!(whole.len(), 1, "one message, one answer: {whole:?}");
    whole.remove(0)
}
