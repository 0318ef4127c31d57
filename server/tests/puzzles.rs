//! End-to-end tests of `sudoku.v1.Puzzles` over real gRPC on 127.0.0.1.

use solver_core::{Grid, Options, Outcome, solve};
use sudoku_proto::grid_to_pb;
use sudoku_proto::pb::puzzles_client::PuzzlesClient;
use sudoku_proto::pb::{self, ValidateRequest, Verdict};
use sudoku_server::{Config, Server};
use tonic::Code;
use tonic::transport::Channel;
use tonic_types::StatusExt;

const CLASSIC: &str =
    "3.65.84..52........87....31..3.1..8.9..863..5.5..9.6..13....25........74..52.63..";

async fn server() -> (Server, PuzzlesClient<Channel>) {
    let server = sudoku_server::start(Config::embedded())
        .await
        .expect("server starts");
    let client = PuzzlesClient::connect(format!("http://{}", server.addr()))
        .await
        .expect("client connects");
    (server, client)
}

fn grid(text: &str) -> Grid {
    text.parse().expect("test puzzle parses")
}

fn unique_solution(puzzle: &Grid) -> Grid {
    match solve(puzzle, &Options::default())
        .expect("solvable shape")
        .outcome
    {
        Outcome::Unique(grid) => grid,
        other => panic!("expected a unique solution, got {other:?}"),
    }
}

fn cell(c: &pb::Cell) -> (u32, u32, u32) {
    (c.row, c.col, c.digit)
}

/// Asserts INVALID_ARGUMENT whose message contains `text` and whose BadRequest names `field`.
fn assert_invalid(status: &tonic::Status, field: &str, text: &str) {
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    assert!(status.message().contains(text), "{status:?}");
    let details = status
        .get_details_bad_request()
        .expect("BadRequest details");
    assert_eq!(details.field_violations.len(), 1);
    assert_eq!(details.field_violations[0].field, field);
}

#[tokio::test]
async fn validate_finds_wrong_entries_against_the_solution() {
    let (server, mut client) = server().await;
    let puzzle = grid(CLASSIC);
    let solution = unique_solution(&puzzle);
    let mut player = grid_to_pb(&puzzle);
    // Two right entries and one wrong one that repeats nothing.
    player.cells[1] = u32::from(solution.get(0, 1));
    player.cells[4] = u32::from(solution.get(0, 4));
    let empty = (0..81)
        .find(|&i| {
            player.cells[i] == 0
                && (1..=9u32).any(|d| d != u32::from(solution.cells()[i]) && fits(&player, i, d))
        })
        .expect("an empty cell with a wrong digit that repeats nothing");
    let wrong = (1..=9u32)
        .find(|&d| d != u32::from(solution.cells()[empty]) && fits(&player, empty, d))
        .expect("checked above");
    player.cells[empty] = wrong;
    let answer = client
        .validate(ValidateRequest {
            grid: Some(player),
            puzzle: Some(grid_to_pb(&puzzle)),
        })
        .await
        .expect("validate answers")
        .into_inner();
    assert_eq!(answer.puzzle_verdict(), Verdict::Unique);
    assert!(answer.conflicts.is_empty(), "{answer:?}");
    let expected = ((empty / 9 + 1) as u32, (empty % 9 + 1) as u32, wrong);
    assert_eq!(
        answer.wrong.iter().map(cell).collect::<Vec<_>>(),
        vec![expected]
    );
    assert!(!answer.valid && !answer.complete);

    // The solution itself is complete and valid.
    let answer = client
        .validate(ValidateRequest {
            grid: Some(grid_to_pb(&solution)),
            puzzle: Some(grid_to_pb(&puzzle)),
        })
        .await
        .expect("validate answers")
        .into_inner();
    assert!(answer.valid && answer.complete, "{answer:?}");
    server.shutdown().await.expect("clean shutdown");
}

/// Whether digit `d` at cell `i` repeats nothing in its row, column and box.
fn fits(grid: &pb::Grid, i: usize, d: u32) -> bool {
    let (r, c) = (i / 9, i % 9);
    (0..81).all(|j| {
        let (rj, cj) = (j / 9, j % 9);
        let peer = j != i && (rj == r || cj == c || (rj / 3 == r / 3 && cj / 3 == c / 3));
        !peer || grid.cells[j] != d
    })
}

#[tokio::test]
async fn validate_lists_conflicts_without_a_puzzle() {
    let (server, mut client) = server().await;
    let mut player = grid_to_pb(&grid(CLASSIC));
    player.cells[1] = 3; // repeats r1c1 in row 1 (and box 1) and r7c2 in column 2
    let answer = client
        .validate(ValidateRequest {
            grid: Some(player),
            puzzle: None,
        })
        .await
        .expect("validate answers")
        .into_inner();
    let pairs: Vec<_> = answer
        .conflicts
        .iter()
        .map(|c| {
            let first = c.first.as_ref().expect("first");
            let second = c.second.as_ref().expect("second");
            (cell(first), cell(second))
        })
        .collect();
    assert_eq!(pairs, vec![((1, 1, 3), (1, 2, 3)), ((1, 2, 3), (7, 2, 3))]);
    assert_eq!(answer.puzzle_verdict(), Verdict::Unspecified);
    assert!(!answer.valid && answer.wrong.is_empty());
    server.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn validate_says_when_the_puzzle_has_no_unique_solution() {
    let (server, mut client) = server().await;
    let open = Grid::empty(solver_core::Shape::CLASSIC);
    let answer = client
        .validate(ValidateRequest {
            grid: Some(grid_to_pb(&open)),
            puzzle: Some(grid_to_pb(&open)),
        })
        .await
        .expect("validate answers")
        .into_inner();
    assert_eq!(answer.puzzle_verdict(), Verdict::Multiple);
    assert!(answer.valid && !answer.complete && answer.wrong.is_empty());
    server.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn validate_refuses_bad_grids_naming_the_field() {
    let (server, mut client) = server().await;
    let status = client
        .validate(ValidateRequest::default())
        .await
        .unwrap_err();
    assert_invalid(&status, "grid", "the request has no grid");

    let mut player = grid_to_pb(&grid(CLASSIC));
    player.cells[13] = 12;
    let status = client
        .validate(ValidateRequest {
            grid: Some(player),
            puzzle: None,
        })
        .await
        .unwrap_err();
    assert_invalid(
        &status,
        "grid.cells[13]",
        "row 2, column 5: 12 is not a digit of a 9x9 grid",
    );

    let mut puzzle = grid_to_pb(&grid(CLASSIC));
    puzzle.cells[1] = 3;
    let status = client
        .validate(ValidateRequest {
            grid: Some(grid_to_pb(&grid(CLASSIC))),
            puzzle: Some(puzzle),
        })
        .await
        .unwrap_err();
    assert_invalid(&status, "puzzle.cells[1]", "digit 3 appears twice in row 1");

    let small = grid("1...2...3...4...");
    let status = client
        .validate(ValidateRequest {
            grid: Some(grid_to_pb(&grid(CLASSIC))),
            puzzle: Some(grid_to_pb(&small)),
        })
        .await
        .unwrap_err();
    assert_invalid(
        &status,
        "puzzle.box_rows",
        "the puzzle has 2x2 boxes but the grid has 3x3 boxes",
    );

    let huge = pb::Grid {
        box_rows: 6,
        box_cols: 6,
        cells: vec![],
    };
    let status = client
        .validate(ValidateRequest {
            grid: Some(huge),
            puzzle: None,
        })
        .await
        .unwrap_err();
    assert_invalid(&status, "grid.box_rows", "larger than this server's limit");
    server.shutdown().await.expect("clean shutdown");
}

const HARD: &str =
    "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4..";
/// Needs locked candidates and subsets: rated above singles.
const MEDIUM: &str =
    "4.....938.32.941...953..24.37.6.9..4529..16736.47.3.9.957..83....39..4..24..3.7.9";

fn in_process_rating(puzzle: &Grid) -> solver_core::logic::Rating {
    solver_core::logic::rate(puzzle, &solver_core::logic::RateOptions::default())
        .expect("a unique solution")
}

#[tokio::test]
async fn rate_answers_what_the_engine_finds() {
    let (server, mut client) = server().await;
    for text in [CLASSIC, MEDIUM, HARD] {
        let puzzle = grid(text);
        let expected = in_process_rating(&puzzle);
        let answer = client
            .rate(pb::RateRequest {
                id: "r".into(),
                puzzle: Some(grid_to_pb(&puzzle)),
                options: None,
            })
            .await
            .expect("rate answers")
            .into_inner();
        assert_eq!(answer.id, "r");
        assert_eq!(answer.rating, expected.rating(), "{text}");
        assert_eq!(answer.lower_bound, expected.lower_bound);
        assert_eq!(answer.steps as usize, expected.steps);
        assert_eq!(answer.verdict(), Verdict::Unique);
        let counted: u32 = answer.techniques.iter().map(|t| t.count).sum();
        assert_eq!(counted, answer.steps);
        // A puzzle the engine is stuck on from the start has no steps and no hardest one.
        assert_eq!(answer.hardest.is_some(), expected.hardest.is_some());
        if let Some(hardest) = answer.hardest {
            assert_eq!(hardest.rating, answer.rating);
            assert!(
                answer
                    .techniques
                    .iter()
                    .any(|t| t.technique == hardest.technique)
            );
        }
    }
    server.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn rate_says_no_solution_multiple_and_names_bad_cells() {
    let (server, mut client) = server().await;
    let open = Grid::empty(solver_core::Shape::CLASSIC);
    let ask = |grid: pb::Grid| pb::RateRequest {
        id: String::new(),
        puzzle: Some(grid),
        options: None,
    };
    let answer = client.rate(ask(grid_to_pb(&open))).await.expect("answers");
    assert_eq!(answer.get_ref().verdict(), Verdict::Multiple);
    // Row 1 needs a 9 that columns and boxes all forbid: no solution.
    let none = grid(&format!("12345678.........9{}", ".".repeat(63)));
    let answer = client.rate(ask(grid_to_pb(&none))).await.expect("answers");
    assert_eq!(answer.get_ref().verdict(), Verdict::NoSolution);
    let mut bad = grid_to_pb(&grid(CLASSIC));
    bad.cells[1] = 3;
    let status = client.rate(ask(bad)).await.unwrap_err();
    assert_invalid(&status, "puzzle.cells[1]", "digit 3 appears twice in row 1");
    server.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn batch_rate_answers_every_item_once() {
    let (server, mut client) = server().await;
    let texts = [CLASSIC, MEDIUM, HARD];
    let mut requests: Vec<pb::RateRequest> = (0..30)
        .map(|i| pb::RateRequest {
            id: format!("p{i}"),
            puzzle: Some(grid_to_pb(&grid(texts[i % 3]))),
            options: None,
        })
        .collect();
    requests[7].puzzle = None;
    let mut answers: Vec<pb::RateResponse> = Vec::new();
    let mut stream = client
        .batch_rate(tokio_stream::iter(requests))
        .await
        .expect("the stream opens")
        .into_inner();
    while let Some(answer) = stream.message().await.expect("no error") {
        answers.push(answer);
    }
    answers.sort_by_key(|a| a.index);
    assert_eq!(
        answers.iter().map(|a| a.index).collect::<Vec<_>>(),
        (0..30).collect::<Vec<u64>>()
    );
    let expected: Vec<f64> = texts
        .iter()
        .map(|t| in_process_rating(&grid(t)).rating())
        .collect();
    for (i, answer) in answers.iter().enumerate() {
        assert_eq!(answer.id, format!("p{i}"));
        if i == 7 {
            assert_eq!(answer.verdict(), Verdict::Invalid);
            let error = answer.error.as_ref().expect("a reason");
            assert_eq!(error.message, "the request has no puzzle");
        } else {
            assert_eq!(answer.verdict(), Verdict::Unique);
            assert_eq!(answer.rating, expected[i % 3], "item {i}");
        }
    }
    server.shutdown().await.expect("clean shutdown");
}

/// Asserts a step agrees with the solution: placements are its digits, eliminations are not.
fn assert_sound(step: &pb::Step, solution: &Grid) {
    assert!(
        !step.placements.is_empty() || !step.eliminations.is_empty(),
        "{step:?} does nothing"
    );
    for p in &step.placements {
        let digit = solution.get(p.row as usize - 1, p.col as usize - 1);
        assert_eq!(u32::from(digit), p.digit, "{step:?}");
    }
    for e in &step.eliminations {
        let digit = solution.get(e.row as usize - 1, e.col as usize - 1);
        assert_ne!(u32::from(digit), e.digit, "{step:?}");
    }
}

#[tokio::test]
async fn hints_agree_with_the_solution_and_report_wrong_marks() {
    let (server, mut client) = server().await;
    let puzzle = grid(MEDIUM);
    let solution = unique_solution(&puzzle);
    let answer = client
        .hint(pb::HintRequest {
            grid: Some(grid_to_pb(&puzzle)),
            candidates: None,
            options: None,
        })
        .await
        .expect("hint answers")
        .into_inner();
    assert_eq!(answer.verdict(), Verdict::Unique);
    let step = answer.step.expect("a step");
    assert_sound(&step, &solution);
    assert!(!step.text.is_empty() && !step.technique.is_empty());
    assert!(answer.wrong_candidates.is_empty());

    // Pencil marks: every digit everywhere, but the solution's digit struck out of r1c2.
    let mut masks = vec![0x1ffu64; 81];
    let right = solution.get(0, 1);
    masks[1] &= !(1 << (right - 1));
    let answer = client
        .hint(pb::HintRequest {
            grid: Some(grid_to_pb(&puzzle)),
            candidates: Some(pb::Candidates { masks }),
            options: None,
        })
        .await
        .expect("hint answers")
        .into_inner();
    let wrong: Vec<_> = answer.wrong_candidates.iter().map(cell).collect();
    assert_eq!(wrong, vec![(1, 2, u32::from(right))]);
    assert_sound(&answer.step.expect("a step"), &solution);

    let status = client
        .hint(pb::HintRequest {
            grid: Some(grid_to_pb(&puzzle)),
            candidates: Some(pb::Candidates { masks: vec![0; 5] }),
            options: None,
        })
        .await
        .unwrap_err();
    assert_invalid(
        &status,
        "candidates.masks",
        "pencil-mark cells: found 5, expected 81",
    );
    server.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn explain_streams_sound_steps_that_solve_the_puzzle() {
    let (server, mut client) = server().await;
    for text in [CLASSIC, MEDIUM] {
        let puzzle = grid(text);
        let solution = unique_solution(&puzzle);
        let mut stream = client
            .explain(pb::HintRequest {
                grid: Some(grid_to_pb(&puzzle)),
                candidates: None,
                options: None,
            })
            .await
            .expect("explain answers")
            .into_inner();
        let mut cells: Vec<u8> = puzzle.cells().to_vec();
        let mut last = None;
        while let Some(message) = stream.message().await.expect("no error") {
            if let Some(step) = &message.step {
                assert_sound(step, &solution);
                for p in &step.placements {
                    cells[(p.row as usize - 1) * 9 + p.col as usize - 1] = p.digit as u8;
                }
            }
            last = Some(message);
        }
        let last = last.expect("a last message");
        assert_eq!(last.verdict(), Verdict::Unique);
        assert!(last.solved, "{text}");
        assert_eq!(cells, solution.cells(), "the placements fill the grid");
    }
    server.shutdown().await.expect("clean shutdown");
}

/// Walks a puzzle to its solution over gRPC as a player does: each Hint's step applied
/// (placements written in, eliminations rubbed out of the player's pencil marks) and the grid
/// and marks sent back, every change checked against the solution. Returns the steps taken.
async fn walk_by_hints(client: &mut PuzzlesClient<Channel>, puzzle: &Grid) -> usize {
    let solution = unique_solution(puzzle);
    let side = puzzle.side();
    let mut wire = grid_to_pb(puzzle);
    // Every digit everywhere: the server narrows the marks by the grid's entries.
    let mut masks = vec![u64::MAX >> (64 - side); side * side];
    for taken in 0..4 * side * side {
        let answer = client
            .hint(pb::HintRequest {
                grid: Some(wire.clone()),
                candidates: Some(pb::Candidates {
                    masks: masks.clone(),
                }),
                options: None,
            })
            .await
            .expect("hint answers")
            .into_inner();
        assert_eq!(answer.verdict(), Verdict::Unique);
        assert!(answer.wrong_candidates.is_empty(), "{answer:?}");
        let Some(step) = answer.step else {
            assert!(
                answer.solved,
                "no step on an unsolved grid after {taken} steps"
            );
            return taken;
        };
        assert_sound(&step, &solution);
        let at = |c: &pb::Cell| (c.row as usize - 1) * side + c.col as usize - 1;
        let mut changed = false;
        for p in &step.placements {
            changed |= wire.cells[at(p)] == 0;
            wire.cells[at(p)] = p.digit;
        }
        for e in &step.eliminations {
            changed |= masks[at(e)] >> (e.digit - 1) & 1 == 1;
            masks[at(e)] &= !(1 << (e.digit - 1));
        }
        assert!(changed, "the same step again: {}", step.text);
    }
    panic!("the hints did not reach the solution");
}

#[tokio::test]
async fn hints_applied_with_pencil_marks_reach_the_solution() {
    let Some(path) = test_support::data_file("se_rated_public.txt") else {
        return;
    };
    let text = std::fs::read_to_string(&path).expect("the SE-rated file reads");
    let (server, mut client) = server().await;
    // Puzzles whose hints used to loop at the first step that only removes candidates.
    for rating in ["3.2", "4.2", "4.5", "7.0"] {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(rating))
            .unwrap_or_else(|| panic!("no puzzle rated {rating}"));
        let puzzle = grid(line.split_whitespace().next().unwrap_or_default());
        let taken = walk_by_hints(&mut client, &puzzle).await;
        assert!(taken >= 81 - puzzle.givens(), "SE {rating}: {taken} steps");
    }
    server.shutdown().await.expect("clean shutdown");
}

async fn generate_all(
    client: &mut PuzzlesClient<Channel>,
    request: pb::GenerateRequest,
) -> Result<Vec<pb::GeneratedPuzzle>, tonic::Status> {
    let mut stream = client.generate(request).await?.into_inner();
    let mut made = Vec::new();
    while let Some(puzzle) = stream.message().await? {
        made.push(puzzle);
    }
    Ok(made)
}

fn wire_grid(grid: Option<&pb::Grid>) -> Grid {
    sudoku_proto::grid_from_pb(grid.expect("a grid")).expect("a valid grid")
}

#[tokio::test]
async fn generate_makes_unique_symmetric_minimal_puzzles_reproducibly() {
    let (server, mut client) = server().await;
    let request = pb::GenerateRequest {
        symmetry: pb::Symmetry::Rotate180.into(),
        minimal: true,
        seed: 42,
        count: 3,
        ..pb::GenerateRequest::default()
    };
    let made = generate_all(&mut client, request).await.expect("puzzles");
    assert_eq!(made.len(), 3);
    for (i, generated) in made.iter().enumerate() {
        assert_eq!(generated.index, i as u64);
        let puzzle = wire_grid(generated.puzzle.as_ref());
        let solution = wire_grid(generated.solution.as_ref());
        assert_eq!(unique_solution(&puzzle), solution);
        assert_eq!(generated.givens as usize, puzzle.givens());
        for (c, &v) in puzzle.cells().iter().enumerate() {
            let mirror = puzzle.cells()[80 - c];
            assert_eq!(v == 0, mirror == 0, "not symmetric at cell {c}");
        }
        // Minimal: every given is needed.
        for c in (0..81).filter(|&c| puzzle.cells()[c] != 0) {
            let mut cells: Vec<u32> = puzzle.cells().iter().map(|&v| u32::from(v)).collect();
            cells[c] = 0;
            let fewer = Grid::new(puzzle.shape(), &cells).expect("valid");
            let outcome = solve(&fewer, &Options::default()).expect("9x9").outcome;
            assert!(
                matches!(outcome, Outcome::Multiple { .. }),
                "given {c} is not needed"
            );
        }
        let rated = in_process_rating(&puzzle);
        assert_eq!(generated.rating, rated.rating());
        // The puzzle's own seed makes it again, alone.
        let again = generate_all(
            &mut client,
            pb::GenerateRequest {
                seed: generated.seed,
                count: 1,
                ..request
            },
        )
        .await
        .expect("the same puzzle");
        assert_eq!(again[0].puzzle, generated.puzzle);
    }
    let repeat = generate_all(&mut client, request).await.expect("puzzles");
    assert_eq!(repeat, made, "the same seed gives the same puzzles");
    server.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn generate_meets_a_level_and_other_shapes() {
    let (server, mut client) = server().await;
    let easy = generate_all(
        &mut client,
        pb::GenerateRequest {
            level: pb::Level::Easy.into(),
            seed: 7,
            count: 2,
            ..pb::GenerateRequest::default()
        },
    )
    .await
    .expect("easy puzzles");
    for generated in &easy {
        let rating = in_process_rating(&wire_grid(generated.puzzle.as_ref())).rating();
        assert!(rating < 1.5, "rated {rating}");
        assert_eq!(generated.level(), pb::Level::Easy);
    }
    let small = generate_all(
        &mut client,
        pb::GenerateRequest {
            box_rows: 2,
            box_cols: 3,
            seed: 9,
            count: 2,
            ..pb::GenerateRequest::default()
        },
    )
    .await
    .expect("6x6 puzzles");
    for generated in &small {
        let puzzle = wire_grid(generated.puzzle.as_ref());
        assert_eq!(puzzle.side(), 6);
        assert_eq!(
            unique_solution(&puzzle),
            wire_grid(generated.solution.as_ref())
        );
    }
    server.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn generate_refuses_impossible_requests_and_stops_in_time() {
    let (server, mut client) = server().await;
    let status = generate_all(
        &mut client,
        pb::GenerateRequest {
            symmetry: 99,
            ..pb::GenerateRequest::default()
        },
    )
    .await
    .unwrap_err();
    assert_invalid(&status, "symmetry", "unknown symmetry 99");
    let status = generate_all(
        &mut client,
        pb::GenerateRequest {
            max_givens: 10,
            ..pb::GenerateRequest::default()
        },
    )
    .await
    .unwrap_err();
    assert_invalid(&status, "max_givens", "needs at least");
    let status = generate_all(
        &mut client,
        pb::GenerateRequest {
            level: pb::Level::Hard.into(),
            min_rating: 3.0,
            ..pb::GenerateRequest::default()
        },
    )
    .await
    .unwrap_err();
    assert_invalid(&status, "level", "either a level or a rating range");
    let status = generate_all(
        &mut client,
        pb::GenerateRequest {
            box_rows: 3,
            box_cols: 1,
            ..pb::GenerateRequest::default()
        },
    )
    .await
    .unwrap_err();
    assert_invalid(&status, "box_cols", "box");

    // SE 10 and above is far out of reach of random generation: the deadline ends it.
    let mut request = tonic::Request::new(pb::GenerateRequest {
        min_rating: 10.0,
        ..pb::GenerateRequest::default()
    });
    request.set_timeout(std::time::Duration::from_millis(500));
    let start = std::time::Instant::now();
    let status = match client.generate(request).await {
        Ok(stream) => {
            let mut stream = stream.into_inner();
            stream.message().await.expect_err("no puzzle in time")
        }
        Err(status) => status,
    };
    assert_eq!(status.code(), Code::DeadlineExceeded, "{status:?}");
    assert!(start.elapsed() < std::time::Duration::from_secs(3));
    server.shutdown().await.expect("clean shutdown");
}

// A client that leaves a Generate call stops its work at once: with one solver thread, a
// search for SE 10+ (out of reach, it would run to the 10 s cap) left after 300 ms does not
// hold up the next request.
#[tokio::test]
async fn a_cancelled_generate_frees_its_thread_at_once() {
    let server = sudoku_server::start(Config {
        workers: Some(1),
        ..Config::embedded()
    })
    .await
    .expect("server starts");
    let mut client = PuzzlesClient::connect(format!("http://{}", server.addr()))
        .await
        .expect("client connects");
    let hopeless = client
        .generate(pb::GenerateRequest {
            min_rating: 10.0,
            ..pb::GenerateRequest::default()
        })
        .await
        .expect("the call starts");
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    drop(hopeless);
    let start = std::time::Instant::now();
    let made = generate_all(
        &mut client,
        pb::GenerateRequest {
            level: pb::Level::Easy.into(),
            seed: 7,
            ..pb::GenerateRequest::default()
        },
    )
    .await
    .expect("an easy puzzle");
    assert_eq!(made.len(), 1);
    let took = start.elapsed();
    // Seconds of slack for a loaded CI machine; uncancelled, the search would hold the only
    // thread for its full 10 s.
    assert!(took < std::time::Duration::from_secs(4), "{took:?}");
    server.shutdown().await.expect("clean shutdown");
}
