//! `sudoku rate`: each puzzle's SE rating, level, hardest step and techniques, over one
//! BatchRate stream, printed in input order.

use std::collections::HashMap;
use std::io::Write;

use sudoku_proto::pb::{self, Verdict};

use crate::cli::{Format, RateArgs};
use crate::conn::Connection;
use crate::input::{Origin, puzzle_field, solve_inputs};
use crate::request::{NoPuzzles, line_of, parse, report};

/// Rates every puzzle; true when every one was rated (a unique solution, rated to the end).
pub async fn run(conn: &Connection, args: &RateArgs, format: Format) -> anyhow::Result<bool> {
    let inputs = solve_inputs(&args.puzzles, args.file.as_deref())?;
    if inputs.is_empty() {
        return Err(NoPuzzles.into());
    }
    let (asked, requests) = requests(inputs, args);
    let mut ok = asked.iter().all(|a| a.invalid.is_none());
    let mut answers: HashMap<u64, pb::RateResponse> = HashMap::new();
    if !requests.is_empty() {
        let mut stream = conn
            .puzzles()
            .batch_rate(conn.request(tokio_stream::iter(requests)))
            .await
            .map_err(|s| conn.status_error(s))?
            .into_inner();
        while let Some(answer) = stream.message().await.map_err(|s| conn.status_error(s))? {
            answers.insert(answer.index, answer);
        }
    }
    let mut out = std::io::stdout().lock();
    let mut index = 0u64;
    for Asked {
        origin,
        line: text,
        invalid,
    } in &asked
    {
        if let Some(reason) = invalid {
            print_invalid(&mut out, format, origin, text, reason)?;
            continue;
        }
        let Some(answer) = answers.remove(&index) else {
            report(origin, "the server sent no rating for this puzzle");
            ok = false;
            index += 1;
            continue;
        };
        index += 1;
        ok &= answer.verdict() == Verdict::Unique && !answer.lower_bound;
        if answer.verdict() != Verdict::Unique {
            report(origin, &verdict_reason(&answer));
        }
        print(&mut out, format, origin, text, &answer)?;
    }
    out.flush()?;
    Ok(ok)
}

/// One input as `rate` prints it.
struct Asked {
    origin: Origin,
    /// Its one-line text, or where it is for a multi-line grid that does not parse.
    line: String,
    /// Why it does not parse, where it does not.
    invalid: Option<String>,
}

/// Each input in order with its one-line text and, where it does not parse, why (reported on
/// stderr here): every input gets a line (or object) on stdout, so the output lines up with
/// the input. Then the requests, for the inputs that parse.
fn requests(inputs: Vec<(Origin, String)>, args: &RateArgs) -> (Vec<Asked>, Vec<pb::RateRequest>) {
    let mut asked = Vec::new();
    let mut requests = Vec::new();
    for (origin, text) in inputs {
        let multi_line = text.contains('\n');
        // A rating file's lines are `<puzzle> <anything>`: the rest is ignored.
        let text = if multi_line {
            text.as_str()
        } else {
            puzzle_field(&text)
        };
        match parse(text, args.shape) {
            Ok(grid) => {
                // A multi-line grid is printed on one line, as the line format promises.
                let line = match line_of(&grid) {
                    Some(line) if multi_line => line,
                    _ => text.to_owned(),
                };
                asked.push(Asked {
                    origin,
                    line,
                    invalid: None,
                });
                requests.push(pb::RateRequest {
                    id: String::new(),
                    puzzle: Some(grid),
                    options: Some(pb::LogicOptions {
                        no_uniqueness_techniques: args.no_uniqueness,
                    }),
                });
            }
            Err(err) => {
                report(&origin, &err.message);
                // What did not parse has no one-line form but where it is.
                let line = if multi_line {
                    origin.place.to_string()
                } else {
                    text.to_owned()
                };
                asked.push(Asked {
                    origin,
                    line,
                    invalid: Some(err.message),
                });
            }
        }
    }
    (asked, requests)
}

/// A puzzle that did not parse, as `invalid` in the line format and an object with its error
/// in JSON (as `solve` prints one); the pretty format leaves the reason to stderr.
fn print_invalid(
    out: &mut impl Write,
    format: Format,
    origin: &Origin,
    puzzle: &str,
    reason: &str,
) -> std::io::Result<()> {
    match format {
        Format::Line => writeln!(out, "{puzzle} {}", verdict_word(Verdict::Invalid)),
        Format::Json => {
            let value = serde_json::json!({
                "index": origin.number - 1,
                "puzzle": puzzle,
                "verdict": verdict_word(Verdict::Invalid),
                "rating": serde_json::Value::Null,
                "error": { "message": reason },
            });
            writeln!(out, "{value}")
        }
        Format::Pretty => Ok(()),
    }
}

/// Why a puzzle has no rating.
fn verdict_reason(answer: &pb::RateResponse) -> String {
    match answer.verdict() {
        Verdict::NoSolution => "no solution, so no rating".to_owned(),
        Verdict::Multiple => "more than one solution, so no rating".to_owned(),
        Verdict::Stopped => "stopped before the end: the rating is a lower bound".to_owned(),
        Verdict::Invalid => answer
            .error
            .as_ref()
            .map_or("invalid".to_owned(), |e| e.message.clone()),
        _ => "no rating".to_owned(),
    }
}

/// Why a rating is only a lower bound: `None` when it is the rating.
fn lower_bound_reason(answer: &pb::RateResponse) -> Option<(&'static str, &'static str)> {
    if !answer.lower_bound {
        return None;
    }
    Some(if answer.verdict() == Verdict::Stopped {
        ("stopped", "a deadline or budget stopped the solve")
    } else {
        (
            "no_known_technique",
            "no known technique applies past this point",
        )
    })
}

/// The rating as printed: `7.2`, or `7.2+` when the puzzle is at least that hard.
fn rating_text(answer: &pb::RateResponse) -> String {
    let plus = if answer.lower_bound { "+" } else { "" };
    format!("{:.1}{plus}", answer.rating)
}

/// The level's lowercase name; `None` for a puzzle with no rating (JSON `null`).
pub fn level_name(level: pb::Level) -> Option<&'static str> {
    match level {
        pb::Level::Unspecified => None,
        pb::Level::Easy => Some("easy"),
        pb::Level::Medium => Some("medium"),
        pb::Level::Hard => Some("hard"),
        pb::Level::Diabolical => Some("diabolical"),
        pb::Level::Extreme => Some("extreme"),
        pb::Level::Hardest => Some("hardest"),
    }
}

fn print(
    out: &mut impl Write,
    format: Format,
    origin: &Origin,
    puzzle: &str,
    answer: &pb::RateResponse,
) -> std::io::Result<()> {
    let rated = answer.verdict() == Verdict::Unique || answer.verdict() == Verdict::Stopped;
    let hardest = answer
        .hardest
        .as_ref()
        .map(|s| s.technique.as_str())
        .filter(|t| !t.is_empty());
    match format {
        Format::Line if rated => writeln!(out, "{puzzle} {}", rating_text(answer)),
        Format::Line => writeln!(out, "{puzzle} {}", verdict_word(answer.verdict())),
        Format::Json => {
            let techniques: serde_json::Map<String, serde_json::Value> = answer
                .techniques
                .iter()
                .map(|t| (t.technique.clone(), t.count.into()))
                .collect();
            let value = serde_json::json!({
                "index": origin.number - 1,
                "puzzle": puzzle,
                "verdict": verdict_word(answer.verdict()),
                "rating": if rated { serde_json::json!(answer.rating) } else { serde_json::Value::Null },
                "level": if rated { level_name(answer.level()) } else { None },
                "hardest": if rated { hardest } else { None },
                "steps": answer.steps,
                "techniques": techniques,
                "lower_bound": answer.lower_bound,
                "lower_bound_reason": lower_bound_reason(answer).map(|r| r.0),
                "error": answer.error.as_ref().map(|e| serde_json::json!({
                    "message": e.message, "row": e.row, "col": e.col,
                })),
            });
            writeln!(out, "{value}")
        }
        Format::Pretty if rated => {
            let used: Vec<String> = answer
                .techniques
                .iter()
                .map(|t| format!("{} ×{}", t.technique, t.count))
                .collect();
            let why = lower_bound_reason(answer)
                .map_or(String::new(), |r| format!(" (a lower bound: {})", r.1));
            writeln!(
                out,
                "{origin}: {}{why} ({}), hardest step {}; {}: {}",
                rating_text(answer),
                level_name(answer.level()).unwrap_or("no level"),
                hardest.unwrap_or("none"),
                crate::shown::plural(answer.steps.into(), "step"),
                used.join(", ")
            )
        }
        Format::Pretty => writeln!(out, "{origin}: {}", verdict_reason(answer)),
    }
}

/// One word per verdict, for scripts.
pub fn verdict_word(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Unique => "unique",
        Verdict::NoSolution => "no-solution",
        Verdict::Multiple => "multiple",
        Verdict::Stopped => "stopped",
        Verdict::Invalid => "invalid",
        Verdict::Unspecified => "unknown",
    }
}
