//! BatchSolvePacked end to end: many puzzles per message, a byte per cell or two cells a
//! byte, answers packed the same way, with BatchSolve's per-item error rules and byte budgets.

mod support;

use std::time::Duration;

use solver_core::{Grid, Shape};
use sudoku_proto::nibbles;
use sudoku_proto::pb::sudoku_client::SudokuClient;
use sudoku_proto::pb::{Algorithm, Outcome, PackedAnswers, PackedPuzzles, SolveOptions};
use sudoku_server::Config;
use support::packed::*;
use support::*;
use tonic::Code;
use tonic::transport::Channel;

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
    // The earlier message's answer may come in runs (a slow puzzle apart), then the error.
    let mut runs = Vec::new();
    let status = loop {
        match stream.message().await {
            Ok(Some(run)) => runs.push(run),
            Ok(None) => panic!("the stream ended OK"),
            Err(status) => break status,
        }
    };
    let mut whole = joined(runs);
    assert_eq!(whole.len(), 1, "the earlier message is answered, whole");
    (whole.remove(0), status)
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
        (
            "row 2, column 4: 10 is not a digit of a 9x9 grid (digits are 1 to 9, 0 or . for empty)",
            2,
            4
        )
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

/// The refusal of a message of `count` puzzles, held as `held` bytes, on a stream that takes
/// `window` puzzles and `share` bytes, after one puzzle was answered.
fn assert_too_large(
    status: &tonic::Status,
    field: &str,
    count: usize,
    window: usize,
    share: usize,
) {
    assert_eq!(status.code(), Code::OutOfRange, "{status:?}");
    let message = status.message();
    let start =
        format!("message 1 of the stream could not be read: {field}: {count} puzzles holding ");
    let end = format!(
        " bytes in one message; a stream takes at most {window} puzzles and {share} bytes in \
         flight (--memory-budget): send them in smaller messages; the stream's first 1 \
         puzzles were answered"
    );
    assert!(message.starts_with(&start), "{message}");
    assert!(message.ends_with(&end), "{message}");
    let held: usize = message[start.len()..message.len() - end.len()]
        .parse()
        .expect(message);
    // How many of these puzzles a message may carry: fewer, within the window and share.
    use tonic_types::StatusExt;
    let info = status.get_details_error_info().expect("an ErrorInfo");
    assert_eq!(info.reason, sudoku_proto::MESSAGE_TOO_LARGE);
    assert_eq!(info.domain, sudoku_proto::ERROR_DOMAIN);
    let fits: usize = info.metadata["fits"].parse().expect("a count");
    assert!(
        (1..count).contains(&fits) && fits <= window,
        "{fits} of {count}"
    );
    assert!(
        fits == 1 || fits * held / count <= share,
        "{fits} of {count} in {held} bytes"
    );
}

/// The puzzles a refusal says fit in a message.
fn fits_of(status: &tonic::Status) -> usize {
    use tonic_types::StatusExt;
    let info = status.get_details_error_info().expect("an ErrorInfo");
    info.metadata["fits"].parse().expect("a count")
}

#[tokio::test]
async fn a_message_larger_than_its_stream_takes_is_refused_after_the_earlier_ones() {
    let (window, share) = (500, 64 << 10);
    let (server, mut client) = server(Config {
        batch_window: window,
        max_stream_bytes: share,
        ..Config::embedded()
    })
    .await;
    let texts = mixed(1000);
    let good = || nibbled("good", &texts[..1]);
    // 400 puzzles in nibbles (16 KB) are held as about 200 KB while solved: more than the
    // stream's share.
    let (first, status) = good_then_bad(&mut client, good(), nibbled("big", &texts[..400])).await;
    assert_nibble_answers(&first, &texts[..1]);
    assert_too_large(&status, "nibbles", 400, window, share);
    // A message of as many as the refusal says fit is answered.
    let fits = fits_of(&status);
    let answer = answer_of(&mut client, nibbled("fits", &texts[..fits])).await;
    assert_nibble_answers(&answer, &texts[..fits]);
    // 600 puzzles are more than the window, a byte a cell as well.
    let (_, status) = good_then_bad(&mut client, good(), packed("many", &texts[..600])).await;
    assert_too_large(&status, "cells", 600, window, share);
    // What fits is answered whole, as is any number of such messages.
    let messages = texts
        .chunks(100)
        .enumerate()
        .map(|(m, c)| nibbled(&format!("fits{m}"), c))
        .collect();
    let answers = answers_by_first(&mut client, messages).await;
    assert_eq!(answers.len(), 10);
    for answer in &answers {
        let start = answer.first as usize;
        assert_nibble_answers(answer, &texts[start..start + 100]);
    }
    server.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn refused_messages_give_back_their_room_however_their_stream_ends() {
    // Batch room (450,000 bytes) for one stream's share and what its buffers keep for a
    // 123 KB message (about 435 KB), not two: a stream that kept its room after it ended
    // would leave too little, and the next would end RESOURCE_EXHAUSTED.
    let (server, mut client) = server(Config {
        max_stream_bytes: 64 << 10,
        max_batch_bytes: 450_000,
        ..Config::embedded()
    })
    .await;
    let texts = mixed(3000);
    for round in 0..3 {
        // Refused: more than the stream takes.
        let mut refused = client
            .batch_solve_packed(tokio_stream::iter([nibbled("large", &texts)]))
            .await
            .expect("the stream opens")
            .into_inner();
        let status = refused.message().await.expect_err("refused");
        assert_eq!(status.code(), Code::OutOfRange, "round {round}: {status:?}");
        // Answered whole.
        let few = &texts[..100];
        let answers = answers_by_first(&mut client, vec![nibbled("whole", few)]).await;
        assert_nibble_answers(&answers[0], few);
        // Left before its answer.
        let left = client
            .batch_solve_packed(tokio_stream::iter([nibbled("left", few)]))
            .await
            .expect("the stream opens");
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
        max_batch_bytes: 1 << 10,
        ..Config::embedded()
    })
    .await;
    // Puzzles of 81 bytes, each held as about 500 bytes, more than half the stream's share:
    // a message of one goes, taking all of the share; a message of two is refused.
    let texts = mixed(4);
    let alone: Vec<PackedPuzzles> = texts
        .chunks(1)
        .enumerate()
        .map(|(m, c)| packed(&format!("one{m}"), c))
        .collect();
    let answers = tokio::time::timeout(
        Duration::from_secs(30),
        answers_by_first(&mut client, alone),
    )
    .await
    .expect("answered, not stuck on its budget");
    assert_eq!(answers.len(), 4);
    for answer in &answers {
        let start = answer.first as usize;
        assert_answers(answer, &texts[start..start + 1]);
    }
    let (_, status) = good_then_bad(
        &mut client,
        packed("one", &texts[..1]),
        packed("two", &texts[..2]),
    )
    .await;
    assert_too_large(
        &status,
        "cells",
        2,
        Config::embedded().batch_window,
        1 << 10,
    );
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

// A puzzle that outlasts its time slice is answered apart from its message: the rest of the
// message is answered (and gives its room back) at once, in runs around it, and the slow
// puzzle comes last, alone, under its own index.
#[tokio::test]
async fn a_slow_puzzle_is_answered_apart_and_the_rest_of_its_message_does_not_wait() {
    let (server, mut client) = server(Config {
        max_solve_ms: 1500,
        ..Config::embedded()
    })
    .await;
    let mut texts: Vec<String> = (0..40).map(|i| relabel(CLASSIC, (i % 9) as u8)).collect();
    // An empty grid, every solution asked for: it runs to the server's cap.
    texts.insert(10, ".".repeat(81));
    let message = PackedPuzzles {
        options: Some(SolveOptions {
            max_solutions: u32::MAX,
            algorithm: Algorithm::Unspecified.into(),
            max_guesses: 0,
        }),
        ..packed("slow", &texts)
    };
    let start = std::time::Instant::now();
    let mut stream = client
        .batch_solve_packed(tokio_stream::iter([message]))
        .await
        .expect("the stream opens")
        .into_inner();
    let mut answered = vec![false; texts.len()];
    let mut quick_done_at = None;
    while let Some(answer) = stream.message().await.expect("no error") {
        let first = answer.first as usize;
        for at in 0..answer.outcomes.len() {
            assert!(
                !answered[first + at],
                "puzzle {} answered twice",
                first + at
            );
            answered[first + at] = true;
        }
        if first == 10 {
            assert_eq!(answer.outcomes.len(), 1, "the slow puzzle comes alone");
            assert_eq!(answer.outcomes[0], Outcome::DeadlineExceeded as u8);
            assert!(
                quick_done_at.is_some(),
                "the slow puzzle came before the rest"
            );
        } else {
            let piece_texts = &texts[first..first + answer.outcomes.len()];
            let piece = PackedAnswers {
                first: 0,
                ..answer.clone()
            };
            assert_answers(&piece, piece_texts);
            if answered.iter().enumerate().all(|(i, &a)| a || i == 10) {
                quick_done_at = Some(start.elapsed());
            }
        }
    }
    assert!(answered.iter().all(|&a| a), "every puzzle answered");
    let quick = quick_done_at.expect("the quick puzzles answered");
    assert!(
        quick < std::time::Duration::from_millis(1000),
        "the quick puzzles waited {quick:?} for the slow one"
    );
    server.shutdown().await.unwrap();
}
