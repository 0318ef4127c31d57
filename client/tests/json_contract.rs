//! The JSON contract: every command's `--format json` output, in its usual and its unusual
//! answers (invalid input, no unique solution, a solved grid, a stopped solve), checked
//! against `docs/cli-json.schema.json`; and the schema itself keeps one meaning per key.

use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::Value;

const CLASSIC: &str =
    "3.65.84..52........87....31..3.1..8.9..863..5.5..9.6..13....25........74..52.63..";
const SOLVED: &str =
    "316578492529134768487629531263415987974863125851792643138947256692351874745286319";
/// CLASSIC's solution without r1c3, r1c8, r2c3, r2c8: 6 and 9 can swap.
const TWO_SOLUTIONS: &str =
    "31.5784.252.1347.8487629531263415987974863125851792643138947256692351874745286319";
/// r1c9 can hold nothing (1-8 in its row, 9 below it): no solution, no digit repeated.
const NO_SOLUTION: &str =
    "12345678.........9...............................................................";

/// The schema file, parsed.
fn schema() -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/cli-json.schema.json");
    let text = std::fs::read_to_string(&path).expect("docs/cli-json.schema.json reads");
    serde_json::from_str(&text).expect("the schema is JSON")
}

/// A validator for one command's objects (`$defs/commands/<command>`).
fn validator(command: &str) -> jsonschema::Validator {
    let mut schema = schema();
    schema["$ref"] = Value::from(format!("#/$defs/commands/{command}"));
    if let Some(root) = schema.as_object_mut() {
        root.remove("anyOf");
    }
    jsonschema::validator_for(&schema).expect("the schema compiles")
}

/// Runs `sudoku ARGS --format json` on the embedded server (stdin `input`); its exit code and
/// its stdout's objects, each checked against the command's schema.
fn checked(command: &str, args: &[&str], input: &str) -> (i32, Vec<Value>) {
    let output = Command::cargo_bin("sudoku")
        .expect("the sudoku binary")
        .env_remove("SUDOKU_SERVER")
        .args(args)
        .args(["--format", "json"])
        .write_stdin(input)
        .output()
        .expect("runs");
    let stdout = String::from_utf8(output.stdout).expect("utf-8 stdout");
    let validator = validator(command);
    let values: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON object per line"))
        .collect();
    assert!(
        !values.is_empty(),
        "sudoku {args:?} printed no JSON: {stdout}"
    );
    for value in &values {
        let errors: Vec<String> = validator
            .iter_errors(value)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "sudoku {args:?}: {value}\n{errors:#?}");
    }
    (output.status.code().unwrap_or(-1), values)
}

#[test]
fn every_key_is_defined_once_and_commands_only_refer_to_it() {
    let schema = schema();
    let keys = schema["$defs"]["keys"].as_object().expect("keys");
    let commands = schema["$defs"]["commands"].as_object().expect("commands");
    let mut checked_keys = 0;
    let mut check = |object: &Value| {
        for (key, value) in object["properties"].as_object().into_iter().flatten() {
            assert!(
                keys.contains_key(key),
                "{key} is not defined under $defs/keys"
            );
            assert_eq!(value["$ref"], format!("#/$defs/keys/{key}"), "{key}");
            checked_keys += 1;
        }
    };
    for command in commands.values() {
        check(command);
        for variant in command["oneOf"].as_array().into_iter().flatten() {
            check(variant);
        }
    }
    assert!(checked_keys > 40, "{checked_keys}");
    // And a wrong type is caught: `puzzle` as a number, as `solve` once printed it.
    let wrong = serde_json::json!({"index": 0, "puzzle": 1, "outcome": "unique", "solution": null,
        "guesses": 0, "algorithm": "fast", "error": null});
    assert!(!validator("solve").is_valid(&wrong));
}

#[test]
fn solve_and_batch_follow_the_contract() {
    let (_, values) = checked("solve", &["solve", CLASSIC, "12", TWO_SOLUTIONS], "");
    let indices: Vec<&Value> = values.iter().map(|v| &v["index"]).collect();
    assert_eq!(indices, [0, 1, 2]);
    assert_eq!(values[0]["puzzle"], CLASSIC);
    assert_eq!(values[1]["puzzle"], "12");
    assert_eq!(values[0]["outcome"], "unique");
    assert_eq!(values[1]["outcome"], "invalid");
    // A grid with 3x2 boxes: its solution carries the shape.
    let (_, generated) = checked("generate", &["generate", "--box", "3x2", "--seed", "4"], "");
    let six = generated[0]["puzzle"].as_str().expect("a puzzle");
    let (_, values) = checked("solve", &["solve", six], "");
    assert_eq!(values[0]["box"], "3x2");
    assert!(
        values[0]["solution"]
            .as_str()
            .is_some_and(|s| s.starts_with("3x2:"))
    );
    let input = format!("{CLASSIC}\nnot a puzzle\n{TWO_SOLUTIONS}\n");
    let (_, values) = checked("batch", &["batch"], &input);
    assert_eq!(values.len(), 3);
    assert_eq!(values[2]["index"], 2);
    assert_eq!(values[2]["puzzle"], TWO_SOLUTIONS);
}

#[test]
fn a_stopped_solve_keeps_guesses_and_algorithm() {
    // Counting the solutions of an empty grid, up to a number no deadline lets it reach.
    let empty = ".".repeat(81);
    let args = ["solve", "--count", "4000000000", "--timeout", "1s", &empty];
    let (code, values) = checked("solve", &args, "");
    let value = &values[0];
    assert_eq!(
        (code, &value["outcome"]),
        (1, &Value::from("stopped")),
        "{value}"
    );
    // The server's stop says how far it got, as an answer stopped by its own cap does.
    assert!(value["guesses"].as_u64().is_some_and(|g| g > 0), "{value}");
    assert!(value["algorithm"].is_string(), "{value}");
}

#[test]
fn rate_has_no_undocumented_level_for_an_unrated_puzzle() {
    let (code, values) = checked("rate", &["rate", CLASSIC, TWO_SOLUTIONS, "12"], "");
    assert_eq!(code, 1);
    assert_eq!(values[0]["index"], 0);
    assert!(values[0]["level"].is_string() && values[0]["hardest"].is_string());
    assert_eq!(values[1]["verdict"], "multiple");
    assert_eq!(
        (&values[1]["level"], &values[1]["hardest"]),
        (&Value::Null, &Value::Null)
    );
    assert_eq!(values[1]["rating"], Value::Null);
    assert_eq!(values[2]["verdict"], "invalid");
}

#[test]
fn hint_and_explain_follow_the_contract_in_every_case() {
    let (code, values) = checked("hint", &["hint", CLASSIC], "");
    assert_eq!((code, &values[0]["solved"]), (0, &Value::from(false)));
    // A solved grid answers in JSON too.
    let (code, values) = checked("hint", &["hint", SOLVED], "");
    assert_eq!(code, 0);
    assert_eq!(
        (&values[0]["solved"], &values[0]["step"]),
        (&Value::from(true), &Value::Null)
    );
    let (code, values) = checked("hint", &["hint", TWO_SOLUTIONS], "");
    assert_eq!((code, &values[0]["verdict"]), (1, &Value::from("multiple")));
    let (code, values) = checked("explain", &["explain", CLASSIC], "");
    assert_eq!(code, 0);
    let end = values.last().expect("the closing object");
    assert_eq!(end["steps"].as_u64(), Some(values.len() as u64 - 1));
    let (code, values) = checked("explain", &["explain", NO_SOLUTION], "");
    assert_eq!(
        (code, &values[0]["verdict"]),
        (1, &Value::from("no-solution"))
    );
}

#[test]
fn validate_and_generate_follow_the_contract() {
    let (code, values) = checked("validate", &["validate", SOLVED, "--against", CLASSIC], "");
    assert_eq!((code, &values[0]["valid"]), (0, &Value::from(true)));
    let (_, values) = checked("generate", &["generate", "--count", "2", "--seed", "9"], "");
    assert_eq!(
        (&values[0]["index"], &values[1]["index"]),
        (&Value::from(0), &Value::from(1))
    );
    assert_eq!(values[0]["box"], "3x3");
    // A shape the engine does not rate: no rating and no level, not 0 and "unrated".
    let (_, values) = checked("generate", &["generate", "--box", "4x4", "--seed", "2"], "");
    assert_eq!(
        (&values[0]["rating"], &values[0]["level"]),
        (&Value::Null, &Value::Null)
    );
}

#[test]
fn health_and_bench_honour_the_json_format() {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let server = runtime
        .block_on(sudoku_server::start(sudoku_server::Config::embedded()))
        .expect("the server starts");
    let url = format!("http://{}", server.addr());
    let (code, values) = checked("health", &["health", "--server", &url], "");
    assert_eq!((code, &values[0]["status"]), (0, &Value::from("SERVING")));
    let dir = std::env::temp_dir().join(format!("sudoku-contract-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let file = dir.join("bench.txt");
    std::fs::write(&file, format!("{CLASSIC}\n")).expect("the bench file");
    let path = file.to_string_lossy().into_owned();
    let args = [
        "bench",
        "--server",
        &url,
        "--file",
        &path,
        "--duration",
        "300ms",
    ];
    let (code, values) = checked("bench", &args, "");
    assert_eq!(code, 0);
    assert!(
        values[0]["requests"].as_u64().is_some_and(|n| n > 0),
        "{}",
        values[0]
    );
    let _ = std::fs::remove_dir_all(&dir);
    runtime.block_on(server.shutdown()).expect("clean shutdown");
}
