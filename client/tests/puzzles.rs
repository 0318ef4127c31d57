//! End-to-end: `rate`, `hint`, `explain`, `validate` and `generate` through the real binary
//! and its embedded server, each answer checked against solver-core's own solver and rater.

use assert_cmd::Command;
use serde_json::Value;
use solver_core::logic::{RateOptions, rate};
use solver_core::{Grid, Options, Outcome, solve};

const CLASSIC: &str =
    "3.65.84..52........87....31..3.1..8.9..863..5.5..9.6..13....25........74..52.63..";
/// Needs locked candidates (SE 2.6).
const POINTING: &str =
    "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......";
/// CLASSIC's solution without r1c3, r1c8, r2c3, r2c8: 6 and 9 can swap (a deadly pattern).
const TWO_SOLUTIONS: &str =
    "31.5784.252.1347.8487629531263415987974863125851792643138947256692351874745286319";

/// Exit code, stdout and stderr of `sudoku ARGS` against the embedded server.
fn run(args: &[&str]) -> (i32, String, String) {
    let output = Command::cargo_bin("sudoku")
        .expect("the sudoku binary")
        .env_remove("SUDOKU_SERVER")
        .args(args)
        .output()
        .expect("runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).expect("utf-8 stdout"),
        String::from_utf8(output.stderr).expect("utf-8 stderr"),
    )
}

/// Stdout of a run that must exit 0.
fn ok(args: &[&str]) -> String {
    let (code, out, err) = run(args);
    assert_eq!(code, 0, "sudoku {args:?}: {err}");
    out
}

fn json_lines(out: &str) -> Vec<Value> {
    out.lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

fn grid(text: &str) -> Grid {
    let (shape, cells) = split_tag(text);
    solver_core::grid::parse(cells, shape).expect("test grid parses")
}

/// A line's box-shape tag (`3x2:` before the cells), as the CLI writes lines of non-square
/// boxes, and the cells after it.
fn split_tag(text: &str) -> (Option<solver_core::Shape>, &str) {
    let Some((tag, cells)) = text.split_once(':') else {
        return (None, text);
    };
    let (rows, cols) = tag.split_once('x').expect("a tag is ROWSxCOLS");
    let number = |s: &str| s.parse::<usize>().expect("a number in the tag");
    let shape = solver_core::Shape::new(number(rows), number(cols)).expect("a shape");
    (Some(shape), cells)
}

/// The unique solution, by the solver.
fn unique_solution(puzzle: &Grid) -> Grid {
    match solve(puzzle, &Options::default()).expect("solves").outcome {
        Outcome::Unique(g) => g,
        other => panic!("not unique: {other:?}"),
    }
}

/// (cell index, digit) for each `{"row","col","digit"}` of a JSON array.
fn cells(value: &Value, side: usize) -> Vec<(usize, u8)> {
    value
        .as_array()
        .expect("an array of cells")
        .iter()
        .map(|c| {
            let n = |k: &str| c[k].as_u64().expect("a number") as usize;
            assert!((1..=side).contains(&n("row")) && (1..=side).contains(&n("col")));
            ((n("row") - 1) * side + n("col") - 1, n("digit") as u8)
        })
        .collect()
}

/// Every placement is the solution's digit, every elimination is not.
fn assert_sound(step: &Value, solution: &Grid) {
    let s = solution.cells();
    for (cell, digit) in cells(&step["placements"], 9) {
        assert_eq!(s[cell], digit, "placement in {step}");
    }
    for (cell, digit) in cells(&step["eliminations"], 9) {
        assert_ne!(s[cell], digit, "elimination in {step}");
    }
}

#[test]
fn rate_prints_the_library_rating_and_ignores_the_rest_of_a_line() {
    let line = format!("{POINTING} 2.6 whatever the file says");
    let out = ok(&["rate", CLASSIC, &line]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    for (text, puzzle) in lines.iter().zip([CLASSIC, POINTING]) {
        let expected = rate(&grid(puzzle), &RateOptions::default()).expect("rated");
        let want = format!("{puzzle} {}.{}", expected.tenths / 10, expected.tenths % 10);
        assert_eq!(*text, want);
    }
    // POINTING needs more than singles: its rating is above a hidden single's.
    assert!(lines[1].ends_with(" 2.6"), "{out}");
}

#[test]
fn rate_json_has_every_field_and_counts_agree() {
    let out = ok(&["rate", "--format", "json", POINTING]);
    let value = &json_lines(&out)[0];
    let expected = rate(&grid(POINTING), &RateOptions::default()).expect("rated");
    assert_eq!(value["puzzle"], POINTING);
    assert_eq!(
        value["rating"].as_f64(),
        Some(f64::from(expected.tenths) / 10.0)
    );
    assert_eq!(value["level"], "hard");
    assert_eq!(value["lower_bound"], false);
    assert_eq!(value["lower_bound_reason"], Value::Null);
    assert!(
        value["hardest"]
            .as_str()
            .is_some_and(|h| h.contains("Pointing") || h.contains("Claiming")),
        "{value}"
    );
    let counted: u64 = value["techniques"]
        .as_object()
        .expect("techniques by name")
        .values()
        .map(|v| v.as_u64().expect("a count"))
        .sum();
    assert_eq!(Some(counted), value["steps"].as_u64(), "{value}");
}

#[test]
fn rate_says_why_a_rating_is_only_a_lower_bound() {
    // A sparse 16x16 puzzle: past the techniques that work on every box shape, the engine
    // knows none (its chains are 9x9 only), so the solve stops there.
    let options = solver_core::generate::GenerateOptions {
        shape: solver_core::Shape::new(4, 4).expect("a shape"),
        seed: 34,
        ..solver_core::generate::GenerateOptions::default()
    };
    let made = solver_core::generate::Generator::new(options, None)
        .expect("a valid request")
        .find_map(|made| {
            let made = made.expect("no limits set");
            let r = rate(&made.puzzle, &RateOptions::default()).expect("unique");
            (r.end == solver_core::logic::End::Stuck).then_some(made.puzzle)
        })
        .expect("a puzzle the engine cannot finish");
    let line = made.to_line();
    // Exit code 1: a rating that is only a lower bound.
    let (code, out, _) = run(&["rate", "--format", "json", &line]);
    assert_eq!(code, 1, "{out}");
    let value = &json_lines(&out)[0];
    assert_eq!(value["lower_bound"], true, "{value}");
    assert_eq!(value["lower_bound_reason"], "no_known_technique", "{value}");
    let (code, out, _) = run(&["rate", "--format", "pretty", &line]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("+ (a lower bound: no known technique applies"),
        "{out}"
    );
}

#[test]
fn rate_says_why_a_puzzle_has_no_rating() {
    let (code, out, err) = run(&["rate", TWO_SOLUTIONS]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(out.trim(), format!("{TWO_SOLUTIONS} multiple"));
    assert!(err.contains("more than one solution"), "{err}");
    let (code, _, err) = run(&["rate", "1234"]);
    assert_eq!(code, 1);
    assert!(err.contains("puzzle 1"), "{err}");
}

#[test]
fn rate_prints_every_input_in_order_the_invalid_ones_too() {
    let (code, out, err) = run(&["rate", CLASSIC, "1234", POINTING]);
    assert_eq!(code, 1, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(lines[0].starts_with(&format!("{CLASSIC} ")), "{out}");
    assert_eq!(lines[1], "1234 invalid");
    assert!(lines[2].starts_with(&format!("{POINTING} ")), "{out}");
    assert!(
        err.contains("puzzle 2 (argument 2): wrong number of cells: found 4"),
        "{err}"
    );
    let (code, out, _) = run(&["rate", "--format", "json", CLASSIC, "1234"]);
    assert_eq!(code, 1);
    let values = json_lines(&out);
    assert_eq!(values.len(), 2, "{out}");
    assert_eq!(values[0]["verdict"], "unique");
    assert!(values[0]["error"].is_null(), "{out}");
    assert_eq!(values[1]["puzzle"], "1234");
    assert_eq!(values[1]["verdict"], "invalid");
    assert!(values[1]["rating"].is_null(), "{out}");
    assert!(
        values[1]["error"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("wrong number of cells: found 4")),
        "{out}"
    );
}

#[test]
fn rate_prints_a_multi_line_grid_on_one_line() {
    let dir = std::env::temp_dir().join(format!("sudoku-puzzles-rate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp folder");
    let file = dir.join("grids.txt");
    let rows: Vec<&str> = (0..9).map(|r| &CLASSIC[9 * r..9 * r + 9]).collect();
    let bad_rows = &rows[..8];
    let text = format!("{}\n\n{}\n", rows.join("\n"), bad_rows.join("\n"));
    std::fs::write(&file, text).expect("written");
    let path = file.to_str().expect("a UTF-8 path");
    let (code, out, err) = run(&["rate", "--file", path]);
    assert_eq!(code, 1, "{err}");
    let expected = rate(&grid(CLASSIC), &RateOptions::default()).expect("rated");
    let rating = format!("{}.{}", expected.tenths / 10, expected.tenths % 10);
    assert_eq!(out, format!("{CLASSIC} {rating}\nline 11 invalid\n"));
    assert!(
        err.contains("puzzle 2 (line 11): wrong number of cells: found 72"),
        "{err}"
    );
}

#[test]
fn hint_gives_a_sound_step_in_every_format() {
    let solution = unique_solution(&grid(CLASSIC));
    let answer = &json_lines(&ok(&["hint", "--format", "json", CLASSIC]))[0];
    assert_eq!(
        (&answer["verdict"], &answer["solved"]),
        (&"unique".into(), &false.into())
    );
    let value = &answer["step"];
    assert_sound(value, &solution);
    let placed = cells(&value["placements"], 9);
    assert!(!placed.is_empty() || !cells(&value["eliminations"], 9).is_empty());
    let text = value["text"].as_str().expect("a sentence");
    assert!(text.starts_with(value["technique"].as_str().expect("a name")));
    // The line format is the sentence; pretty marks the placed cell with brackets.
    assert_eq!(ok(&["hint", CLASSIC]).trim(), text);
    let pretty = ok(&["hint", "--format", "pretty", CLASSIC]);
    let (cell, digit) = placed[0];
    let row = pretty
        .lines()
        .skip(1)
        .filter(|l| !l.starts_with('-'))
        .nth(cell / 9)
        .expect("the placement's row");
    assert!(row.contains(&format!("[{digit}]")), "{pretty}");
    // What the step rests on is marked too, and the legend says how to read the marks.
    let (support, _) = cells(&value["support"], 9)[0];
    let row = pretty
        .lines()
        .skip(1)
        .filter(|l| !l.starts_with('-'))
        .nth(support / 9)
        .expect("the support's row");
    assert!(row.contains('('), "{pretty}");
    assert!(
        pretty.contains("[d] placed") && pretty.contains("-d removed"),
        "{pretty}"
    );
}

#[test]
fn the_pretty_hint_tells_support_placements_and_eliminations_apart() {
    // The first step of this puzzle that removes candidates only: pointing in box 8.
    let Some(puzzle) = se_puzzle("4.5") else {
        return;
    };
    let steps = walk_by_hints(&puzzle, None);
    let removing = steps
        .iter()
        .position(|s| s["placements"] == serde_json::json!([]))
        .expect("a step that removes candidates");
    // Replay the walk up to that step, then ask for it in the pretty form.
    let parsed = grid(&puzzle);
    let solution = unique_solution(&parsed);
    let mut player = Player::new(&parsed);
    for step in &steps[..removing] {
        player.apply(step, &solution);
    }
    let (line, marks) = (player.line(), player.compact());
    let pretty = ok(&["hint", "--format", "pretty", &line, "--candidates", &marks]);
    let step = &steps[removing];
    // Each cell's label, row by row: the words of a grid line, box bars left out.
    let labels: Vec<Vec<&str>> = pretty
        .lines()
        .skip(1)
        .filter(|l| !l.starts_with('-') && !l.starts_with('['))
        .map(|l| l.split_whitespace().filter(|w| *w != "|").collect())
        .collect();
    let label = |cell: usize| labels[cell / 9][cell % 9];
    for (cell, digit) in cells(&step["eliminations"], 9) {
        let removed = label(cell).split('-').nth(1).unwrap_or_default();
        assert!(
            removed.contains(&digit.to_string()),
            "r{}c{}: {pretty}",
            cell / 9 + 1,
            cell % 9 + 1
        );
    }
    for (cell, digit) in cells(&step["support"], 9) {
        let rests = label(cell).split(')').next().unwrap_or_default();
        assert!(
            rests.starts_with('(') && rests.contains(&digit.to_string()),
            "r{}c{}: {pretty}",
            cell / 9 + 1,
            cell % 9 + 1
        );
    }
    // Cells the step does not touch show their digit or `.`, unmarked.
    let touched: Vec<usize> = ["eliminations", "support"]
        .iter()
        .flat_map(|k| cells(&step[k], 9))
        .map(|(cell, _)| cell)
        .collect();
    for cell in (0..81).filter(|c| !touched.contains(c)) {
        assert_eq!(
            label(cell).chars().count(),
            1,
            "r{}c{}: {pretty}",
            cell / 9 + 1,
            cell % 9 + 1
        );
    }
}

#[test]
fn explain_steps_agree_with_the_solution_and_reach_it() {
    let puzzle = grid(POINTING);
    let solution = unique_solution(&puzzle);
    let out = ok(&["explain", "--format", "json", POINTING]);
    let mut cells_now: Vec<u8> = puzzle.cells().to_vec();
    let mut steps = json_lines(&out);
    let end = steps.pop().expect("the closing object");
    assert_eq!(end["verdict"], "unique", "{end}");
    assert_eq!(end["solved"], true, "{end}");
    assert_eq!(end["steps"].as_u64(), Some(steps.len() as u64), "{end}");
    for (n, line) in steps.iter().enumerate() {
        assert_eq!(line["index"].as_u64(), Some(n as u64));
        let step = &line["step"];
        assert_sound(step, &solution);
        for (cell, digit) in cells(&step["placements"], 9) {
            assert_eq!(cells_now[cell], 0, "step {n} places in a filled cell");
            cells_now[cell] = digit;
        }
    }
    assert_eq!(cells_now, solution.cells(), "the steps fill the grid");
    // One sentence per step in the line format.
    assert_eq!(ok(&["explain", POINTING]).lines().count(), steps.len());
}

#[test]
fn hint_and_explain_refuse_what_logic_cannot_finish() {
    let (code, _, err) = run(&["hint", TWO_SOLUTIONS]);
    assert_eq!(code, 1);
    assert!(err.contains("more than one solution"), "{err}");
    let (code, _, err) = run(&["hint", "12"]);
    assert_eq!(code, 2);
    assert!(err.contains("the grid"), "{err}");
}

#[test]
fn validate_names_conflicts_and_wrong_entries() {
    let solution = unique_solution(&grid(CLASSIC)).to_line();
    // A repeated 3 in row 1 (c1 is a given 3; c2 gets another).
    let mut repeated = CLASSIC.to_owned();
    repeated.replace_range(1..2, "3");
    let (code, out, _) = run(&["validate", "--format", "json", &repeated]);
    assert_eq!(code, 1);
    let value = &json_lines(&out)[0];
    assert_eq!(value["valid"], false);
    let conflicts = value["conflicts"].as_array().expect("conflicts");
    assert!(
        conflicts.iter().any(|c| c["first"]["row"] == 1
            && c["first"]["col"] == 1
            && c["second"]["col"] == 2
            && c["first"]["digit"] == 3),
        "{value}"
    );
    // An entry that breaks no rule but is not the solution's digit.
    let empty = CLASSIC.find('.').expect("an empty cell");
    let right = solution.as_bytes()[empty] - b'0';
    let wrong_digit = (1..=9)
        .find(|&d| d != right && !CLASSIC[..9].contains(char::from(b'0' + d)))
        .expect("a digit row 1 lacks");
    assert!(empty < 9, "the first empty cell is in row 1");
    let mut wrong = CLASSIC.to_owned();
    wrong.replace_range(empty..empty + 1, &wrong_digit.to_string());
    let (code, out, err) = run(&["validate", "--against", CLASSIC, &wrong]);
    assert_eq!((code, out.trim()), (1, "invalid"), "{err}");
    assert!(
        err.contains(&format!("wrong: r1c{} holds {wrong_digit}", empty + 1)),
        "{err}"
    );
    // The solution itself is solved; an unfinished right grid is valid.
    assert_eq!(
        ok(&["validate", "--against", CLASSIC, &solution]).trim(),
        "solved"
    );
    assert_eq!(ok(&["validate", CLASSIC]).trim(), "valid");
}

#[test]
fn validate_keeps_the_givens_of_the_puzzle_it_is_checked_against() {
    // CLASSIC with its given r1c1 (3) rubbed out, and with it changed: neither is valid.
    let mut lost = CLASSIC.to_owned();
    lost.replace_range(0..1, ".");
    let (code, out, err) = run(&["validate", "--against", CLASSIC, &lost]);
    assert_eq!((code, out.trim()), (1, "invalid"), "{err}");
    assert!(
        err.contains("given lost: r1c1 is empty, the puzzle gives 3"),
        "{err}"
    );
    let (code, out, _) = run(&["validate", "--format", "json", "--against", CLASSIC, &lost]);
    assert_eq!(code, 1);
    let value = &json_lines(&out)[0];
    assert_eq!(value["valid"], false);
    assert_eq!(
        value["lost_givens"],
        serde_json::json!([{"row": 1, "col": 1, "digit": 3, "found": 0}])
    );
    // The grid alone breaks no rule: without --against it is valid.
    assert_eq!(ok(&["validate", &lost]).trim(), "valid");
}

#[test]
fn validate_refuses_an_against_puzzle_without_one_solution() {
    let empty_row = format!("12345678.........9{}", ".".repeat(63));
    for (against, says) in [
        (
            TWO_SOLUTIONS,
            "the --against puzzle has more than one solution, so it cannot judge the grid",
        ),
        (
            empty_row.as_str(),
            "the --against puzzle has no solution, so it cannot judge the grid",
        ),
    ] {
        for format in ["line", "json", "pretty"] {
            let (code, out, err) = run(&[
                "validate",
                "--format",
                format,
                "--against",
                against,
                against,
            ]);
            assert_eq!(code, 2, "{format}: {out}{err}");
            assert!(out.is_empty(), "{format}: nothing on stdout: {out}");
            assert!(err.contains(says), "{format}: {err}");
        }
    }
}

#[test]
fn hint_and_explain_read_the_grid_from_stdin() {
    let run_stdin = |args: &[&str], input: &str| {
        let output = Command::cargo_bin("sudoku")
            .expect("the sudoku binary")
            .env_remove("SUDOKU_SERVER")
            .args(args)
            .write_stdin(input)
            .output()
            .expect("runs");
        let stdout = String::from_utf8(output.stdout).expect("utf-8");
        (output.status.code().unwrap_or(-1), stdout)
    };
    let from_arg = ok(&["hint", CLASSIC]);
    // A comment and a rating after the grid, as in a dataset file; `-` or no argument.
    let input = format!("# a puzzle\n{CLASSIC} 4.5\n");
    assert_eq!(run_stdin(&["hint"], &input), (0, from_arg.clone()));
    assert_eq!(run_stdin(&["hint", "-"], &input), (0, from_arg));
    let explained = ok(&["explain", CLASSIC]);
    assert_eq!(run_stdin(&["explain"], &input), (0, explained));
    // Two grids: hint takes one, and says so.
    let output = Command::cargo_bin("sudoku")
        .expect("the sudoku binary")
        .args(["hint"])
        .write_stdin(format!("{CLASSIC}\n{POINTING}\n"))
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(
        err.contains("stdin holds 2 grids; hint and explain take one"),
        "{err}"
    );
}

#[test]
fn hint_on_a_solved_grid_answers_in_every_format() {
    let solved = unique_solution(&grid(CLASSIC)).to_line();
    assert_eq!(ok(&["hint", "--format", "line", &solved]), "solved\n");
    let value = &json_lines(&ok(&["hint", "--format", "json", &solved]))[0];
    assert_eq!(value["solved"], true);
    assert_eq!(value["step"], Value::Null);
    let (code, pretty, err) = run(&["hint", "--format", "pretty", &solved]);
    assert_eq!(code, 0);
    assert!(err.contains("the grid is already solved"), "{err}");
    // The pretty form is the grid, which reads back in.
    assert_eq!(grid(&pretty).to_line(), solved);
}

#[test]
fn candidates_come_in_the_compact_form_or_as_a_pencil_mark_grid() {
    let puzzle = grid(CLASSIC);
    let player = Player::new(&puzzle);
    let compact = player.compact();
    assert_eq!(compact.len(), 729);
    let by_compact = ok(&[
        "hint",
        "--format",
        "json",
        CLASSIC,
        "--candidates",
        &compact,
    ]);
    // The same marks as a pencil-mark grid, one word a cell, with a frame.
    let words: Vec<String> = compact
        .as_bytes()
        .chunks(9)
        .map(|c| {
            c.iter()
                .filter(|&&b| b != b'.')
                .map(|&b| char::from(b))
                .collect()
        })
        .collect();
    let rows: Vec<String> = words
        .chunks(9)
        .map(|r| {
            format!(
                "| {} | {} | {} |",
                r[..3].join(" "),
                r[3..6].join(" "),
                r[6..].join(" ")
            )
        })
        .collect();
    let grid_form = format!(".---.\n{}\n'---'", rows.join("\n"));
    let by_grid = ok(&[
        "hint",
        "--format",
        "json",
        CLASSIC,
        "--candidates",
        &grid_form,
    ]);
    assert_eq!(by_compact, by_grid);
    // A digit out of its place, and the wrong size, are errors that say where.
    let mut bad = compact.clone();
    bad.replace_range(0..1, "5");
    let (code, _, err) = run(&["hint", CLASSIC, "--candidates", &bad]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--candidates: r1c1: position 1 of the cell's candidates holds '5'"),
        "{err}"
    );
    let (code, _, err) = run(&["hint", CLASSIC, "--candidates", "123"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("found 1 cell of candidates, expected 81"),
        "{err}"
    );
    // A mark that removes the solution's digit is reported, and the hint is still sound.
    let solution = unique_solution(&puzzle);
    let mut wrong = player;
    let cell = CLASSIC.find('.').expect("an empty cell");
    wrong.marks[cell] &= !(1 << (solution.cells()[cell] - 1));
    let (code, out, err) = run(&[
        "hint",
        "--format",
        "json",
        CLASSIC,
        "--candidates",
        &wrong.compact(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("wrong pencil mark: r1c2 lacks"), "{err}");
    assert_sound(&json_lines(&out)[0]["step"], &solution);
}

#[test]
fn box_shapes_travel_with_the_grid() {
    // generate writes a 3x2 grid with its tag; solve reads it back in its own shape.
    let line = ok(&["generate", "--box", "3x2", "--seed", "4"]);
    let line = line.trim();
    assert!(line.starts_with("3x2:"), "{line}");
    let (code, solved, err) = run(&["solve", "--format", "line", line]);
    assert_eq!(code, 0, "{err}");
    assert!(solved.starts_with("3x2:"), "{solved}");
    assert!(!err.contains("note"), "a tagged grid needs no note: {err}");
    // The bare cells are read with 2x3 boxes, and the CLI says so.
    let bare = &line[4..];
    let (_, _, err) = run(&["solve", bare]);
    assert!(
        err.contains("note: a 6x6 grid without its box shape was read with 2x3 boxes"),
        "{err}"
    );
    // A tag that disagrees with --box is an error that names both.
    let (code, _, err) = run(&["solve", "--box", "2x3", line]);
    assert_eq!(code, 1);
    assert!(
        err.contains("the grid is tagged 3x2, but --box says 2x3"),
        "{err}"
    );
    let (code, _, err) = run(&["hint", "--box", "2x3", line]);
    assert_eq!(code, 2);
    assert!(
        err.contains("the grid is tagged 3x2, but --box says 2x3"),
        "{err}"
    );
}

/// The puzzles printed by `generate ARGS` (line format).
fn generated(args: &[&str]) -> Vec<Grid> {
    let mut all = vec!["generate"];
    all.extend_from_slice(args);
    ok(&all).lines().map(grid).collect()
}

#[test]
fn generate_gives_unique_reproducible_puzzles_with_what_was_asked() {
    let puzzles = generated(&[
        "--count",
        "3",
        "--seed",
        "11",
        "--symmetry",
        "rotational",
        "--givens",
        "24..32",
    ]);
    assert_eq!(puzzles.len(), 3);
    for p in &puzzles {
        unique_solution(p);
        let c = p.cells();
        assert!((0..81).all(|i| (c[i] == 0) == (c[80 - i] == 0)), "{p}");
        let givens = c.iter().filter(|&&v| v != 0).count();
        assert!((24..=32).contains(&givens), "{givens} givens");
    }
    let again = generated(&[
        "--count",
        "3",
        "--seed",
        "11",
        "--symmetry",
        "rotational",
        "--givens",
        "24..32",
    ]);
    assert_eq!(puzzles, again, "the same seed gives the same puzzles");
}

#[test]
fn generate_levels_ratings_and_json() {
    let out = ok(&[
        "generate", "--format", "json", "--level", "hard", "--count", "2", "--seed", "5",
    ]);
    for value in json_lines(&out) {
        let puzzle = grid(value["puzzle"].as_str().expect("puzzle"));
        let solution = unique_solution(&puzzle);
        assert_eq!(
            value["solution"].as_str(),
            Some(solution.to_line().as_str())
        );
        let rating = rate(&puzzle, &RateOptions::default()).expect("rated");
        assert!((25..50).contains(&rating.tenths), "hard is 2.5 to 4.9");
        assert_eq!(
            value["rating"].as_f64(),
            Some(f64::from(rating.tenths) / 10.0)
        );
        assert_eq!(value["level"], "hard");
        let givens = puzzle.cells().iter().filter(|&&v| v != 0).count();
        assert_eq!(value["givens"].as_u64(), Some(givens as u64));
        assert!(value["seed"].as_u64().is_some());
    }
    for p in generated(&["--rating", "3.0..4.5", "--seed", "9"]) {
        let tenths = rate(&p, &RateOptions::default()).expect("rated").tenths;
        assert!((30..=45).contains(&tenths), "{tenths}");
    }
}

#[test]
fn generate_rates_only_when_asked() {
    let args = ["generate", "--format", "json", "--minimal", "--count", "2"];
    let plain = json_lines(&ok(&[&args[..], &["--seed", "4"]].concat()));
    let rated = json_lines(&ok(&[&args[..], &["--seed", "4", "--rate"]].concat()));
    assert_eq!(plain.len(), 2);
    for (p, r) in plain.iter().zip(&rated) {
        assert_eq!(p["puzzle"], r["puzzle"], "--rate makes the same puzzles");
        assert!(p["rating"].is_null() && p["level"].is_null(), "{p}");
        let puzzle = grid(p["puzzle"].as_str().expect("puzzle"));
        unique_solution(&puzzle);
        let tenths = rate(&puzzle, &RateOptions::default())
            .expect("rated")
            .tenths;
        assert_eq!(r["rating"].as_f64(), Some(f64::from(tenths) / 10.0));
        assert!(r["level"].is_string(), "{r}");
    }
}

#[test]
fn generate_other_shapes_and_minimal() {
    for p in generated(&["--box", "2x3", "--minimal", "--count", "2", "--seed", "3"]) {
        assert_eq!(p.side(), 6);
        assert_eq!((p.shape().box_rows(), p.shape().box_cols()), (2, 3));
        unique_solution(&p);
        // Minimal: removing any given loses uniqueness.
        for cell in (0..36).filter(|&i| p.cells()[i] != 0) {
            let mut cells: Vec<u32> = p.cells().iter().map(|&v| u32::from(v)).collect();
            cells[cell] = 0;
            let fewer = Grid::new(p.shape(), &cells).expect("a grid");
            let outcome = solve(&fewer, &Options::default()).expect("solves").outcome;
            assert!(matches!(outcome, Outcome::Multiple { .. }), "given {cell}");
        }
    }
}

#[test]
fn generate_refuses_bad_requests_clearly() {
    let (code, _, err) = run(&["generate", "--rating", "5..3"]);
    assert_eq!(code, 2);
    assert!(err.contains("empty"), "{err}");
    let (code, _, err) = run(&["generate", "--givens", "5..8"]);
    assert_eq!(code, 2);
    assert!(err.contains("givens"), "{err}");
    let (code, _, err) = run(&["generate", "--level", "hard", "--rating", "3"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot be used with"), "{err}");
}

#[test]
fn generated_puzzles_feed_rate_and_batch() {
    let out = ok(&[
        "generate", "--count", "3", "--seed", "21", "--level", "medium",
    ]);
    for command in ["rate", "batch"] {
        let output = Command::cargo_bin("sudoku")
            .expect("the sudoku binary")
            .env_remove("SUDOKU_SERVER")
            .arg(command)
            .write_stdin(out.clone())
            .output()
            .expect("runs");
        assert!(output.status.success(), "{command}");
        let answers = String::from_utf8(output.stdout).expect("utf-8");
        assert_eq!(answers.lines().count(), 3, "{command}: {answers}");
        for (answer, puzzle) in answers.lines().zip(out.lines()) {
            let puzzle = grid(puzzle);
            match command {
                "rate" => {
                    let rating = answer.split_whitespace().nth(1).expect("a rating");
                    let tenths = rate(&puzzle, &RateOptions::default())
                        .expect("rated")
                        .tenths;
                    assert_eq!(rating, format!("{}.{}", tenths / 10, tenths % 10));
                    assert!((15..25).contains(&tenths), "medium is 1.5 to 2.4");
                }
                _ => assert_eq!(grid(answer), unique_solution(&puzzle)),
            }
        }
    }
}

/// The first puzzle of the SE-rated file with this rating; `None` (loudly under CI) when the
/// data is missing.
fn se_puzzle(rating: &str) -> Option<String> {
    let path = test_support::data_file("se_rated_public.txt")?;
    let text = std::fs::read_to_string(&path).expect("the SE-rated file reads");
    let found = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .find(|l| l.split_whitespace().nth(1) == Some(rating))
        .and_then(|l| l.split_whitespace().next())
        .map(str::to_owned);
    Some(found.unwrap_or_else(|| panic!("no puzzle rated {rating} in {}", path.display())))
}

/// A player's board: the grid of givens and entries, and pencil marks kept by hand.
struct Player {
    shape: solver_core::Shape,
    values: Vec<u8>,
    marks: Vec<u64>,
}

impl Player {
    /// Every candidate the givens allow, pencilled in.
    fn new(puzzle: &Grid) -> Player {
        let shape = puzzle.shape();
        let side = shape.side();
        let values = puzzle.cells().to_vec();
        let marks = (0..side * side)
            .map(|cell| {
                let seen = (0..side * side)
                    .filter(|&o| o != cell && sees(shape, cell, o))
                    .fold(0u64, |m, o| match values[o] {
                        0 => m,
                        v => m | 1 << (v - 1),
                    });
                (u64::MAX >> (64 - side)) & !seen
            })
            .collect();
        Player {
            shape,
            values,
            marks,
        }
    }

    fn side(&self) -> usize {
        self.shape.side()
    }

    /// The grid on one line (`.` empty, `1`-`9` then `A`-`Z`).
    fn line(&self) -> String {
        self.values
            .iter()
            .map(|&v| match v {
                0 => '.',
                v => char::from_digit(u32::from(v), 36).map_or('?', |c| c.to_ascii_uppercase()),
            })
            .collect()
    }

    /// The marks in the compact form (each cell's `side` positions, the digit or `.`).
    fn compact(&self) -> String {
        let side = self.side();
        self.marks
            .iter()
            .flat_map(|&m| {
                (0..side).map(move |i| match m >> i & 1 {
                    1 => char::from_digit(i as u32 + 1, 36).map_or('?', |c| c.to_ascii_uppercase()),
                    _ => '.',
                })
            })
            .collect()
    }

    /// Applies a hint's step as a player would: each placement written in, each elimination
    /// rubbed out; every one checked against the solution, and the step must change the board.
    fn apply(&mut self, step: &Value, solution: &Grid) {
        let side = self.side();
        let mut changed = false;
        for (cell, digit) in cells(&step["placements"], side) {
            assert_eq!(solution.cells()[cell], digit, "placement in {step}");
            changed |= self.values[cell] == 0;
            self.values[cell] = digit;
        }
        for (cell, digit) in cells(&step["eliminations"], side) {
            assert_ne!(solution.cells()[cell], digit, "elimination in {step}");
            changed |= self.marks[cell] >> (digit - 1) & 1 == 1;
            self.marks[cell] &= !(1 << (digit - 1));
        }
        assert!(
            changed,
            "a step that changes nothing on the player's board: {step}"
        );
    }
}

/// Whether two cells share a row, column or box.
fn sees(shape: solver_core::Shape, a: usize, b: usize) -> bool {
    let side = shape.side();
    let (ra, ca, rb, cb) = (a / side, a % side, b / side, b % side);
    ra == rb || ca == cb || shape.box_of(ra, ca) == shape.box_of(rb, cb)
}

/// Walks a puzzle to its solution by `sudoku hint` alone, as a player: each answer applied
/// (placements and eliminations) and sent back with the pencil marks. Returns the steps.
fn walk_by_hints(puzzle: &str, shape: Option<&str>) -> Vec<Value> {
    let parsed = grid(puzzle);
    // A tagged line travels with its tag, which the CLI must read back.
    let tag = split_tag(puzzle)
        .0
        .map(|_| &puzzle[..=puzzle.find(':').unwrap_or(0)]);
    let solution = unique_solution(&parsed);
    let mut player = Player::new(&parsed);
    let mut steps = Vec::new();
    for _ in 0..4 * player.values.len() {
        let (line, marks) = (
            format!("{}{}", tag.unwrap_or_default(), player.line()),
            player.compact(),
        );
        let mut args = vec!["hint", "--format", "json", &line, "--candidates", &marks];
        if let Some(shape) = shape {
            args.extend(["--box", shape]);
        }
        let answer = &json_lines(&ok(&args))[0];
        assert_eq!(answer["verdict"], "unique", "{answer}");
        assert_eq!(
            answer["wrong_candidates"],
            serde_json::json!([]),
            "{answer}"
        );
        if answer["step"].is_null() {
            assert_eq!(
                answer["solved"], true,
                "no step on an unsolved grid: {answer}"
            );
            break;
        }
        player.apply(&answer["step"], &solution);
        steps.push(answer["step"].clone());
    }
    assert_eq!(
        player.values,
        solution.cells(),
        "the hints reach the solution"
    );
    steps
}

#[test]
fn hints_applied_with_pencil_marks_walk_se_puzzles_to_their_solution() {
    for rating in ["3.2", "4.2", "4.5", "7.0"] {
        let Some(puzzle) = se_puzzle(rating) else {
            return;
        };
        let steps = walk_by_hints(&puzzle, None);
        // The walk went past steps that only remove candidates, where it used to loop.
        let removing = steps
            .iter()
            .filter(|s| s["placements"] == serde_json::json!([]))
            .count();
        assert!(removing > 0, "SE {rating}: no step removed candidates only");
    }
}

#[test]
fn hints_walk_other_shapes_to_their_solution() {
    // 3x2 boxes, not the 2x3 a bare 36-cell line is read with: the tag carries the shape.
    let out = ok(&[
        "generate", "--box", "3x2", "--seed", "5", "--format", "json",
    ]);
    let generated = &json_lines(&out)[0];
    assert_eq!(generated["box"], "3x2", "{generated}");
    let puzzle = generated["puzzle"].as_str().expect("a puzzle").to_owned();
    assert!(puzzle.starts_with("3x2:"), "{puzzle}");
    walk_by_hints(&puzzle, None);
    // A 16x16 grid the engine solves (seed 2 at these givens; chains are 9x9 only), with
    // steps that only remove candidates on the way.
    let args = [
        "generate", "--box", "4x4", "--seed", "2", "--givens", "110..125", "--format", "json",
    ];
    let puzzle = json_lines(&ok(&args))[0]["puzzle"]
        .as_str()
        .expect("a puzzle")
        .to_owned();
    let steps = walk_by_hints(&puzzle, Some("4x4"));
    assert!(
        steps
            .iter()
            .any(|s| s["placements"] == serde_json::json!([]))
    );
}

#[test]
fn the_pretty_hint_is_coloured_on_request_and_plain_otherwise() {
    let pretty = |env: (&str, &str)| {
        let output = Command::cargo_bin("sudoku")
            .expect("the sudoku binary")
            .env_remove("SUDOKU_SERVER")
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR_FORCE")
            .env(env.0, env.1)
            .args(["hint", "--format", "pretty", CLASSIC])
            .output()
            .expect("runs");
        String::from_utf8(output.stdout).expect("utf-8")
    };
    let coloured = pretty(("CLICOLOR_FORCE", "1"));
    // The placement in green, what it rests on in yellow; the symbols stay either way.
    assert!(
        coloured.contains("\u{1b}[32m") && coloured.contains("\u{1b}[33m"),
        "{coloured:?}"
    );
    let plain = pretty(("NO_COLOR", "1"));
    assert!(!plain.contains('\u{1b}'), "{plain:?}");
    assert!(plain.contains('[') && plain.contains('('), "{plain}");
}
