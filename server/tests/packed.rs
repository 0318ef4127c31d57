//! BatchSolvePacked end to end: many puzzles per message, a byte per cell or two cells a
//! byte, answers packed the same way, with BatchSolve's per-item error rules and byte budgets.

mod support;

use std::time::Duration;

use solver_core::{Grid, Shape};
use sudoku_proto::nibbles;
use sudoku_proto::pb::sudoku_client::SudokuClient;
use sudoku_proto::pb::{self, Algorithm, Outcome, PackedAnswers, PackedPuzzles, SolveOptions};
use sudoku_server::Config;
use support::*;
use tonic::Code;
use tonic::transport::Channel;

/// The puzzle with its digits relabelled by `shift` (1..=8): a different puzzle, same difficulty.
fn relabel(text: &str, shift: u8) -> String {
    text.bytes()
        .map(|b| match b {
            b'1'..=b'9' => char::from(b'1' + (b - b'1' + shift) % 9),
            _ => '.',
        })
        .collect()
}

/// `count` puzzles, easy and hard in turn, each relabelled: unique solutions all.
fn mixed(count: usize) -> Vec<String> {
    (0..count)
        .map(|i| relabel(if i % 2 == 0 { CLASSIC } else { HARD }, (i % 9) as u8))
        .collect()
}

/// The first `texts.len()` answers of a nibble message: unique, each solution checked against
/// the rules and its puzzle's givens.
fn assert_nibble_answers(answer: &PackedAnswers, texts: &[String]) {
    for (i, text) in texts.iter().enumerate() {
        assert_eq!(answer.outcomes[i], Outcome::Unique as u8, "puzzle {i}");
        let mut cells = [0u8; 81];
        nibbles::unpack_into(&answer.solution_nibbles[i * 41..(i + 1) * 41], &mut cells);
        let solution = Grid::new(Shape::CLASSIC, &cells).expect("a valid grid");
        assert!(solution.is_solution_of(&grid(text)), "puzzle {i}");
    }
}

fn packed(id: &str, puzzles: &[String]) -> PackedPuzzles {
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
fn values(text: &str) -> Vec<u8> {
    text.bytes()
        .map(|b| {
            b.checked_sub(b'0')
                .filter(|v| (1..=9).contains(v))
                .unwrap_or(0)
        })
        .collect()
}

/// `puzzles` two cells a byte, in `nibbles`.
fn nibbled(id: &str, puzzles: &[String]) -> PackedPuzzles {
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
fn assert_answers(answer: &PackedAnswers, puzzles: &[String]) {
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

#[tokio::test]
async fn packed_messages_are_answered_whole_and_checked() {
    let (server, mut client) = server(Config::embedded()).await;
    let texts = mixed(900);
    let messages: Vec<PackedPuzzles> = texts
        .chunks(300)
        .enumerate()
        .map(|(m, chunk)| packed(&format!("m{m}"), chunk))
        .collect();
    let answers = answers_by_first(&mut client, messages).await;
    let firsts: Vec<_> = answers.iter().map(|a| (a.id.as_str(), a.first)).collect();
    assert_eq!(firsts, vec![("m0", 0), ("m1", 300), ("m2", 600)]);
    for answer in &answers {
        let start = answer.first as usize;
        assert_answers(answer, &texts[start..start + 300]);
        assert!(answer.errors.is_empty());
        assert_eq!(answer.guesses.len(), 300);
    }
    server.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn bad_puzzles_are_invalid_entries_and_the_stream_goes_on() {
    let (server, mut client) = server(Config::embedded()).await;
    let mut repeat = CLASSIC.to_owned().into_bytes();
    repeat[1] = b'3'; // a second 3 in row 1
    let mut symbol = CLASSIC.to_owned().into_bytes();
    symbol[12] = b'#';
    // Values instead of text for the last puzzle: 0 empty, 1..=9.
    let values: Vec<u8> = CLASSIC
        .bytes()
        .map(|b| if b == b'.' { 0 } else { b - b'0' })
        .collect();
    let mut cells = repeat;
    cells.extend_from_slice(&symbol);
    cells.extend_from_slice(&values);
    cells.extend_from_slice(&[0; 81]); // an empty grid: many solutions
    let message = PackedPuzzles {
        cells: cells.into(),
        ..packed("mixed", &[])
    };
    let answer = answer_of(&mut client, message).await;
    let outcomes: Vec<u8> = answer.outcomes.clone();
    assert_eq!(
        outcomes,
        vec![
            Outcome::Invalid as u8,
            Outcome::Invalid as u8,
            Outcome::Unique as u8,
            Outcome::Multiple as u8
        ]
    );
    let mut errors: Vec<(u32, String, u32, u32)> = answer
        .errors
        .iter()
        .map(|e| {
            let err = e.error.clone().expect("an error");
            (e.offset, err.message, err.row, err.col)
        })
        .collect();
    errors.sort();
    assert_eq!(
        errors,
        vec![
            (
                0,
                "digit 3 appears twice in row 1: at row 1, column 1 and row 1, column 2".into(),
                1,
                2
            ),
            (1, "row 2, column 4: '#' is not a digit".into(), 2, 4),
        ]
    );
    assert_answers(
        &PackedAnswers {
            outcomes: answer.outcomes[2..3].to_vec(),
            solutions: answer.solutions.slice(162..243),
            ..PackedAnswers::default()
        },
        &[CLASSIC.to_owned()],
    );
    server.shutdown().await.expect("clean shutdown");
}

/// A stream of a good message then a bad one: the good one's answer, then the stream's end.
async fn good_then_bad(
    client: &mut SudokuClient<Channel>,
    good: PackedPuzzles,
    bad: PackedPuzzles,
) -> (PackedAnswers, tonic::Status) {
    let mut stream = client
        .batch_solve_packed(tokio_stream::iter([good, bad]))
        .await
        .expect("the stream opens")
        .into_inner();
    let first = stream
        .message()
        .await
        .expect("the earlier message is answered")
        .expect("an answer");
    let status = stream.message().await.expect_err("then the stream fails");
    (first, status)
}

#[tokio::test]
async fn a_message_that_is_not_whole_puzzles_ends_the_stream_after_the_earlier_ones() {
    let (server, mut client) = server(Config::embedded()).await;
    let good = packed("good", &[CLASSIC.to_owned(), HARD.to_owned()]);
    let bad = PackedPuzzles {
        cells: vec![b'.'; 100].into(),
        ..packed("bad", &[])
    };
    let (first, status) = good_then_bad(&mut client, good, bad).await;
    assert_answers(&first, &[CLASSIC.to_owned(), HARD.to_owned()]);
    assert_eq!(status.code(), Code::InvalidArgument);
    assert_eq!(
        status.message(),
        "message 1 of the stream could not be read: cells holds 100 bytes, not a whole number \
         of puzzles of 81 bytes; the stream's first 2 puzzles were answered"
    );
    server.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn other_shapes_and_the_fast_solvers_limit() {
    let (server, mut client) = server(Config::embedded()).await;
    // A 4x4 puzzle and a 16x16 one with letters, each in its own message.
    let small = PackedPuzzles {
        box_rows: 2,
        box_cols: 2,
        cells: b"1...2...3...4...".to_vec().into(),
        ..packed("4x4", &[])
    };
    let sixteen = PackedPuzzles {
        box_rows: 4,
        box_cols: 4,
        cells: vec![b'.'; 256].into(),
        options: Some(SolveOptions {
            max_solutions: 1,
            algorithm: Algorithm::Fast.into(),
            max_guesses: 0,
        }),
        ..packed("16x16", &[])
    };
    let answers = answers_by_first(&mut client, vec![small, sixteen]).await;
    assert_eq!(answers.len(), 2);
    assert_eq!(answers[0].outcomes, vec![Outcome::Multiple as u8]);
    let cells: Vec<u32> = answers[0].solutions.iter().map(|&b| u32::from(b)).collect();
    let solution = Grid::new(Shape::new(2, 2).expect("2x2"), &cells).expect("valid");
    assert!(solution.is_solution_of(&grid("1...2...3...4...")));
    assert_eq!(answers[1].outcomes, vec![Outcome::Invalid as u8]);
    let error = answers[1].errors[0].error.clone().expect("a reason");
    assert!(
        error.message.contains("fast algorithm solves only 9x9"),
        "{error:?}"
    );
    server.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn grids_over_the_servers_side_limit_are_each_invalid_and_the_stream_goes_on() {
    let config = Config {
        max_grid_side: 9,
        ..Config::embedded()
    };
    let (server, mut client) = server(config).await;
    // Two 16x16 puzzles in one message, then a classic one in the next.
    let sixteen = PackedPuzzles {
        box_rows: 4,
        box_cols: 4,
        cells: vec![b'.'; 2 * 256].into(),
        ..packed("16x16", &[])
    };
    let classic = packed("9x9", &[CLASSIC.to_owned()]);
    let answers = answers_by_first(&mut client, vec![sixteen, classic]).await;
    assert_eq!(answers.len(), 2);
    assert_eq!(answers[0].outcomes, vec![Outcome::Invalid as u8; 2]);
    assert!(answers[0].solutions.iter().all(|&b| b == 0));
    let mut offsets = Vec::new();
    for error in &answers[0].errors {
        offsets.push(error.offset);
        let message = &error.error.as_ref().expect("a reason").message;
        assert_eq!(
            message,
            "grid side 16 is larger than this server's limit of 9"
        );
    }
    assert_eq!(offsets, [0, 1]);
    assert_answers(&answers[1], &[CLASSIC.to_owned()]);
    server.shutdown().await.expect("clean shutdown");
}

/// Every answer of a stream of `messages`, in stream order, the stream ending cleanly.
async fn answers_by_first(
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
async fn answer_of(client: &mut SudokuClient<Channel>, message: PackedPuzzles) -> PackedAnswers {
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

#[tokio::test]
async fn nibble_packed_puzzles_get_nibble_packed_solutions() {
    let (server, mut client) = server(Config::embedded()).await;
    let texts = mixed(200);
    // A puzzle with a cell of value 10, which a nibble holds but a 9x9 grid does not.
    let mut message = nibbled("n", &texts);
    let mut bytes = message.nibbles.to_vec();
    nibbles::pack(&values(CLASSIC), &mut bytes);
    let last = bytes.len() - 41;
    bytes[last + 6] = (bytes[last + 6] & 0x0f) | 0xa0; // cell 12: row 2, column 4
    message.nibbles = bytes.into();
    let answer = answer_of(&mut client, message).await;
    assert!(answer.solutions.is_empty(), "solutions come as nibbles");
    assert_eq!(answer.solution_nibbles.len(), 201 * 41);
    assert_eq!(answer.outcomes.len(), 201);
    assert_nibble_answers(&answer, &texts);
    assert_eq!(answer.outcomes[200], Outcome::Invalid as u8);
    let error = answer.errors[0].error.clone().expect("a reason");
    assert_eq!(answer.errors[0].offset, 200);
    assert_eq!(
        (error.message.as_str(), error.row, error.col),
        ("row 2, column 4: value 10 is out of range 1..=9", 2, 4)
    );
    // Odd cell counts: a 4x4 puzzle in 8 bytes, a 3x5 one (15 cells a row) in 113.
    let small = PackedPuzzles {
        box_rows: 2,
        box_cols: 2,
        ..nibbled("4x4", &["1...2...3...4...".to_owned()])
    };
    let answer = answer_of(&mut client, small).await;
    assert_eq!(answer.outcomes, [Outcome::Multiple as u8]);
    let mut cells = [0u8; 16];
    nibbles::unpack_into(&answer.solution_nibbles, &mut cells);
    let solution = Grid::new(Shape::new(2, 2).expect("2x2"), &cells).expect("valid");
    assert!(solution.is_solution_of(&grid("1...2...3...4...")));
    let fifteen = PackedPuzzles {
        box_rows: 3,
        box_cols: 5,
        nibbles: vec![0; 113].into(),
        ..packed("15x15", &[])
    };
    let answer = answer_of(&mut client, fifteen).await;
    assert_eq!(answer.outcomes, [Outcome::Multiple as u8]);
    assert_eq!(answer.solution_nibbles.len(), 113);
    let mut cells = [0u8; 225];
    nibbles::unpack_into(&answer.solution_nibbles, &mut cells);
    let shape = Shape::new(3, 5).expect("3x5");
    let solution = Grid::new(shape, &cells).expect("valid");
    let empty = Grid::new(shape, &[0u8; 225]).expect("an empty grid");
    assert!(solution.is_solution_of(&empty));
    server.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn nibbles_refused_where_they_cannot_hold_the_puzzles() {
    let (server, mut client) = server(Config::embedded()).await;
    let both = PackedPuzzles {
        cells: CLASSIC.as_bytes().to_vec().into(),
        ..nibbled("both", &[CLASSIC.to_owned()])
    };
    let sixteen = PackedPuzzles {
        box_rows: 4,
        box_cols: 4,
        nibbles: vec![0; 128].into(),
        ..packed("16x16", &[])
    };
    let short = PackedPuzzles {
        nibbles: vec![0; 81].into(),
        ..packed("short", &[])
    };
    let cases = [
        (
            both,
            "cells and nibbles are both set: send each message's puzzles in one of them",
            "nibbles",
        ),
        (
            sixteen,
            "nibbles hold values up to 15, and grids of side 16 need more: send them in cells, \
             a byte per cell",
            "nibbles",
        ),
        (
            short,
            "nibbles holds 81 bytes, not a whole number of puzzles of 41 bytes",
            "nibbles",
        ),
    ];
    for (message, why, field) in cases {
        let good = nibbled("good", &[HARD.to_owned()]);
        let (first, status) = good_then_bad(&mut client, good, message).await;
        assert_eq!(first.outcomes, [Outcome::Unique as u8]);
        assert_eq!(status.code(), Code::InvalidArgument);
        assert_eq!(
            status.message(),
            format!(
                "message 1 of the stream could not be read: {why}; the stream's first 1 \
                 puzzles were answered"
            )
        );
        // The field at fault survives the stream's own message.
        assert_eq!(bad_field(&status).as_deref(), Some(field), "{why}");
    }
    server.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn a_message_too_large_for_its_stream_is_solved_a_slice_at_a_time_while_others_go() {
    let stream_bytes = 64 << 10;
    let (server, mut client) = server(Config {
        max_stream_bytes: stream_bytes,
        max_buffered_bytes: 256 << 10,
        ..Config::embedded()
    })
    .await;
    let texts = mixed(3000);
    // 123 KB of nibbles, held as about 750 KB while solved: more than the stream's budget
    // and the server's. Taken whole, it held all of the server's, and another stream's
    // message waited for it all to be answered.
    let mut big = client
        .batch_solve_packed(tokio_stream::iter([nibbled("big", &texts)]))
        .await
        .expect("the stream opens")
        .into_inner();
    let mut pieces = vec![
        big.message()
            .await
            .expect("no error")
            .expect("a first slice"),
    ];
    // The big stream's client takes nothing more for now, so what it holds stays held.
    let few = texts[..10].to_vec();
    let mut other = client.clone();
    let small = tokio::time::timeout(
        Duration::from_secs(30),
        answer_of(&mut other, nibbled("small", &few)),
    )
    .await
    .expect("answered while the big stream holds only its own budget");
    assert_eq!(small.outcomes.len(), 10);
    assert_nibble_answers(&small, &few);
    while let Some(piece) = big.message().await.expect("no error") {
        pieces.push(piece);
    }
    // Slices are answered as they are solved, each keyed by its first puzzle.
    pieces.sort_by_key(|p| p.first);
    let mut next = 0;
    for piece in &pieces {
        assert_eq!((piece.id.as_str(), piece.first), ("big", next));
        let count = piece.outcomes.len();
        assert!(
            count * 3 * 41 <= stream_bytes / 2,
            "a slice of {count} puzzles holds at most half the stream's budget"
        );
        let start = next as usize;
        assert_nibble_answers(piece, &texts[start..start + count]);
        next += count as u64;
    }
    assert_eq!(next, 3000, "every puzzle answered once");
    server.shutdown().await.expect("clean shutdown");
}

/// Puzzles solved so far, every outcome, as the metrics page counts them.
fn solves(server: &sudoku_server::Server) -> u64 {
    let page = server.metrics().render();
    let counts = page
        .lines()
        .filter(|line| line.starts_with("sudoku_solves_total"))
        .filter_map(|line| line.rsplit(' ').next()?.parse::<u64>().ok());
    counts.sum()
}

#[tokio::test]
async fn a_client_that_leaves_during_a_sliced_message_stops_its_slices() {
    let (server, mut client) = server(Config::embedded()).await;
    // 100,000 hard puzzles, 4.1 MB: seconds of work on two cores, a slice at a time.
    let texts: Vec<String> = (0..100_000).map(|i| relabel(HARD, (i % 9) as u8)).collect();
    let mut answers = client
        .batch_solve_packed(tokio_stream::iter([nibbled("big", &texts)]))
        .await
        .expect("the stream opens")
        .into_inner();
    let first = answers.message().await.expect("no error").expect("a slice");
    assert!(first.outcomes.len() < texts.len(), "sliced");
    drop(answers);
    let idle = || server.metrics().in_flight().get() == 0;
    assert!(
        eventually(Duration::from_secs(20), idle).await,
        "the work ends"
    );
    let solved = solves(&server);
    assert!(solved > 0, "the metrics page counts solves");
    // Two slices were in the pool when it left; all 100,000 were solved before the reader
    // looked for a client gone between slices.
    assert!(
        solved < 50_000,
        "{solved} of 100,000 puzzles solved for a client that left after the first slice"
    );
    server.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn sliced_messages_give_back_their_room_however_their_stream_ends() {
    // Room among the waiting messages (250,000 bytes) for the rest of one sliced message
    // (246,500 counted), and not for a slice's 6,400 too: a slice charged again while it
    // waits, or a stream that kept its rest's room after it ended, would leave too little,
    // and the stream would end RESOURCE_EXHAUSTED.
    let (server, mut client) = server(Config {
        max_stream_bytes: 64 << 10,
        max_buffered_bytes: 250_000,
        ..Config::embedded()
    })
    .await;
    let texts = mixed(3000);
    for round in 0..3 {
        // Answered whole.
        let answers = answers_by_first(&mut client, vec![nibbled("whole", &texts)]).await;
        let count: usize = answers.iter().map(|a| a.outcomes.len()).sum();
        assert_eq!(count, texts.len(), "round {round}");
        // Left after the first slice's answer.
        let mut left = client
            .batch_solve_packed(tokio_stream::iter([nibbled("left", &texts)]))
            .await
            .expect("the stream opens")
            .into_inner();
        left.message()
            .await
            .expect("no error")
            .expect("a first slice");
        drop(left);
        let idle = || server.metrics().in_flight().get() == 0;
        assert!(eventually(Duration::from_secs(20), idle).await);
    }
    server.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn a_puzzle_larger_than_every_byte_budget_still_goes_alone() {
    let (server, mut client) = server(Config {
        max_stream_bytes: 1 << 10,
        max_buffered_bytes: 1 << 10,
        ..Config::embedded()
    })
    .await;
    // Four puzzles of 81 bytes, each held as about 500 bytes, more than half the stream's
    // budget: the message goes a puzzle at a time, each taking all it can of both budgets.
    let texts = mixed(4);
    let answers = tokio::time::timeout(
        Duration::from_secs(30),
        answers_by_first(&mut client, vec![packed("two", &texts)]),
    )
    .await
    .expect("answered, not stuck on its budget");
    let mut next = 0;
    for answer in &answers {
        assert_eq!(answer.first, next);
        let start = next as usize;
        assert_answers(answer, &texts[start..start + answer.outcomes.len()]);
        next += answer.outcomes.len() as u64;
    }
    assert_eq!((answers.len(), next), (4, 4), "a slice each");
    server.shutdown().await.expect("clean shutdown");
}

/// The answers of a one-message stream, every piece, in the order they came.
async fn pieces_of(
    client: &mut SudokuClient<Channel>,
    message: PackedPuzzles,
) -> Vec<PackedAnswers> {
    let mut stream = client
        .batch_solve_packed(tokio_stream::iter([message]))
        .await
        .expect("the stream opens")
        .into_inner();
    let mut pieces = Vec::new();
    while let Some(piece) = stream.message().await.expect("no error") {
        pieces.push(piece);
    }
    pieces
}

#[tokio::test]
async fn a_large_answer_comes_in_pieces_that_answer_every_puzzle_once() {
    let (server, mut client) = server(Config::embedded()).await;
    // 1,000 puzzles two cells a byte, nine in ten with a digit twice in row 1: 41 KB asked,
    // about 110 KB answered, more than twice the request, so the answer comes in pieces.
    let texts: Vec<String> = (0..1000)
        .map(|i| {
            let mut text = relabel(CLASSIC, (i % 9) as u8).into_bytes();
            if i % 10 != 0 {
                text[1] = text[0];
            }
            String::from_utf8(text).expect("ascii")
        })
        .collect();
    let message = nibbled("job", &texts);
    let request = prost::Message::encoded_len(&message);
    let pieces = pieces_of(&mut client, message).await;
    assert!(pieces.len() >= 2, "{} piece(s)", pieces.len());
    let mut next = 0;
    for piece in &pieces {
        let size = prost::Message::encoded_len(piece);
        assert!(
            size <= 2 * request,
            "a piece of {size} bytes for {request} asked"
        );
        assert_eq!(
            (piece.id.as_str(), piece.first),
            ("job", next),
            "pieces in order"
        );
        let count = piece.outcomes.len();
        let start = next as usize;
        let puzzles = &texts[start..start + count];
        assert_eq!(piece.solution_nibbles.len(), count * 41);
        let mut errors = piece.errors.iter().peekable();
        for (k, text) in puzzles.iter().enumerate() {
            let i = start + k;
            if i.is_multiple_of(10) {
                assert_eq!(piece.outcomes[k], Outcome::Unique as u8, "puzzle {i}");
                let mut cells = [0u8; 81];
                nibbles::unpack_into(&piece.solution_nibbles[k * 41..(k + 1) * 41], &mut cells);
                let solution = Grid::new(Shape::CLASSIC, &cells).expect("a valid grid");
                assert!(solution.is_solution_of(&grid(text)), "puzzle {i}");
            } else {
                assert_eq!(piece.outcomes[k], Outcome::Invalid as u8, "puzzle {i}");
                let error = errors.next().expect("an error for each invalid puzzle");
                assert_eq!(
                    error.offset as usize, k,
                    "offsets count from the piece's first"
                );
                let error = error.error.as_ref().expect("why");
                assert_eq!(
                    (error.row, error.col),
                    (1, 2),
                    "puzzle {i}: {}",
                    error.message
                );
                assert!(
                    error.message.contains("twice in row 1"),
                    "{}",
                    error.message
                );
            }
        }
        assert!(
            errors.next().is_none(),
            "no error beyond the piece's puzzles"
        );
        next += count as u64;
    }
    assert_eq!(next, 1000, "every puzzle answered once");
    server.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn a_stream_past_the_kept_bytes_budget_is_refused_by_name() {
    // One stream's 81 KB message keeps 81 KB of request and 162 KB of answer buffer. Streams
    // waiting idle are never closed to make room here (see the next test).
    let (server, mut client) = server(kept_budget(600_000)).await;
    let texts = mixed(1000);
    let (tx, mut first) = one_answered(&mut client, "first", &texts).await;
    // While the first stream stays open, a second one's small message goes; its large one
    // (sent once the small one is answered: a message is charged from its header) ends it,
    // after the answer to the small one.
    let (more, mut second) = one_answered(&mut client, "small", &texts[..10]).await;
    more.send(packed("large", &texts)).await.expect("queued");
    let status = second.message().await.expect_err("refused");
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    for part in ["--max-kept-bytes", "message 1 of the stream", "400000"] {
        assert!(
            status.message().contains(part),
            "{part}: {}",
            status.message()
        );
    }
    // Once the first stream ends, what it kept is free again.
    drop(tx);
    assert!(first.message().await.expect("no error").is_none());
    let answer = answer_of(&mut client, packed("third", &texts)).await;
    assert_answers(&answer, &texts);
    server.shutdown().await.expect("clean shutdown");
}

/// A server with 400,000 bytes for what streams keep, closing streams unused `idle_ms`.
fn kept_budget(idle_ms: u64) -> Config {
    Config {
        max_kept_bytes: 400_000,
        kept_idle_ms: idle_ms,
        ..Config::embedded()
    }
}

/// A stream that sent one message of `texts` (with id `id`), read its answer, and stays open.
async fn one_answered(
    client: &mut SudokuClient<Channel>,
    id: &str,
    texts: &[String],
) -> (
    tokio::sync::mpsc::Sender<PackedPuzzles>,
    tonic::Streaming<PackedAnswers>,
) {
    let (tx, rx) = tokio::sync::mpsc::channel(8);
    tx.send(packed(id, texts)).await.expect("queued");
    let mut answers = client
        .batch_solve_packed(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await
        .expect("the stream opens")
        .into_inner();
    let answer = answers
        .message()
        .await
        .expect("no error")
        .expect("an answer");
    assert_answers(&answer, texts);
    (tx, answers)
}

/// Asserts that `status` closes a stream for another's room, marked so clients open anew.
fn assert_closed_for_room(status: &tonic::Status) {
    use tonic_types::StatusExt;
    assert_eq!(status.code(), Code::Unavailable, "{status:?}");
    for part in ["had not used them", "--max-kept-bytes", "open a new stream"] {
        assert!(
            status.message().contains(part),
            "{part}: {}",
            status.message()
        );
    }
    let info = status.get_details_error_info().expect("an ErrorInfo");
    assert_eq!(info.reason, sudoku_proto::STREAM_CLOSED);
    assert_eq!(info.domain, sudoku_proto::ERROR_DOMAIN);
}

#[tokio::test]
async fn a_stream_that_no_longer_uses_what_it_keeps_is_closed_to_make_room() {
    let (server, mut client) = server(kept_budget(200)).await;
    let texts = mixed(1000);
    // The first stream keeps 243 KB, then sends one puzzle every 50 ms: small messages do
    // not use what it keeps.
    let (tx, mut idle) = one_answered(&mut client, "first", &texts).await;
    for _ in 0..8 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        tx.send(packed("small", &texts[..1])).await.expect("queued");
        let small = idle.message().await.expect("no error").expect("an answer");
        assert_answers(&small, &texts[..1]);
    }
    let answer = tokio::time::timeout(
        Duration::from_secs(30),
        answer_of(&mut client, packed("busy", &texts)),
    )
    .await
    .expect("answered");
    assert_answers(&answer, &texts);
    assert_closed_for_room(&idle.message().await.expect_err("closed"));
    server.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn a_stream_whose_client_stops_taking_answers_is_closed_to_make_room() {
    let (server, mut client) = server(kept_budget(200)).await;
    let texts = mixed(1000);
    // A client with a small HTTP/2 window sends three messages and reads nothing: the
    // answers past its window wait on the server, its stream always owing some. A reviewer
    // held the whole budget so for about 100 bytes a second.
    let url = format!("http://{}", server.addr());
    let narrow = tonic::transport::Endpoint::from_shared(url)
        .expect("an address")
        .initial_stream_window_size(65_535)
        .connect()
        .await
        .expect("connects");
    let (tx, rx) = tokio::sync::mpsc::channel(3);
    for m in 0..3 {
        tx.send(packed(&format!("m{m}"), &texts))
            .await
            .expect("queued");
    }
    let mut stalled = SudokuClient::new(narrow)
        .batch_solve_packed(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await
        .expect("the stream opens")
        .into_inner();
    tokio::time::sleep(Duration::from_millis(600)).await;
    let answer = tokio::time::timeout(
        Duration::from_secs(30),
        answer_of(&mut client, packed("busy", &texts)),
    )
    .await
    .expect("answered");
    assert_answers(&answer, &texts);
    // What it had been sent still comes, then the close.
    let status = loop {
        match stalled.message().await {
            Ok(Some(answer)) => assert_answers(&answer, &texts[..answer.outcomes.len()]),
            Ok(None) => panic!("the stream ended without a status"),
            Err(status) => break status,
        }
    };
    assert_closed_for_room(&status);
    drop(tx);
    server.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn a_header_the_server_refuses_charges_nothing() {
    // Streams are never closed for room here: what counts is what each is charged.
    let (server, mut client) = server(kept_budget(600_000)).await;
    let texts = mixed(1000);
    let (tx, mut open) = one_answered(&mut client, "first", &texts).await;
    // Another stream sends one puzzle and, in the same frame, the header of a 4 GiB message.
    // Counted from that header, its first message needed the whole budget, and was refused.
    let connection = support::raw::connect(server.addr(), 64 << 10).await;
    let mut send = connection.send.clone().ready().await.expect("a stream");
    let head = support::raw::grpc_head(server.addr(), "BatchSolve");
    let (response, mut body) = send.send_request(head, false).expect("the call opens");
    let puzzle = pb::SolveRequest {
        puzzle: Some(sudoku_proto::grid_to_pb(&grid(CLASSIC))),
        ..Default::default()
    };
    let mut data = support::raw::frame(&puzzle).to_vec();
    data.extend_from_slice(&[0, 0xff, 0xff, 0xff, 0xff]);
    body.send_data(data.into(), false).expect("sent");
    let response = response.await.expect("an answer");
    let mut answers = support::raw::Reader::new(response.into_body(), Duration::ZERO);
    let answer = answers.next().await.expect("no error").expect("an answer");
    assert_eq!(answer.outcome, Outcome::Unique as i32);
    assert!(answers.next().await.expect("no error").is_none());
    let (code, message) = answers.status().await.expect("trailers");
    assert_eq!(code, Code::OutOfRange as i32, "{message}");
    drop((body, send, tx));
    connection.driver.abort();
    assert!(open.message().await.expect("no error").is_none());
    server.shutdown().await.expect("clean shutdown");
}
