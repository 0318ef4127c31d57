//! Generate: puzzles made one after another on the long lane and streamed as they come.

use std::ops::RangeInclusive;
use std::sync::Arc;
use std::time::{Duration, Instant};

use solver_core::generate::{
    GenerateError, GenerateOptions, Generated, Generator, Rater, SeRater, Symmetry, next_seed,
};
use solver_core::logic::{Level, RateOptions};
use solver_core::{Shape, StopReason};
use sudoku_proto::{grid_to_pb, pb};
use tokio::sync::mpsc;
use tonic::Status;
use tracing::Instrument;

use crate::Shared;
use crate::scheduling::lanes::Tenant;
use crate::scheduling::logic::Until;
use crate::scheduling::pool::{CancelOnDrop, PoolError};
use crate::status::{RequestError, bad_request as invalid};
use crate::telemetry;

/// Most puzzles one request may ask for.
pub(crate) const MAX_COUNT: u32 = 100_000;

/// A checked request: what to make and how many.
pub(crate) struct Order {
    options: GenerateOptions,
    count: u32,
    /// Whether each puzzle is rated: always for a band, else unless `unrated` was asked.
    rate: bool,
}

/// Checks a request against the wire rules and the server's limits.
pub(crate) fn order(request: &pb::GenerateRequest, shared: &Shared) -> Result<Order, Status> {
    let shape = match (request.box_rows, request.box_cols) {
        (0, 0) => Shape::CLASSIC,
        (rows, cols) => Shape::new(rows as usize, cols as usize)
            .map_err(|e| RequestError::from(e).to_status_in("", None))?,
    };
    (shared.limits.check_side(shape.side())).map_err(|e| e.to_status_in("", None))?;
    let symmetry = match pb::Symmetry::try_from(request.symmetry) {
        Ok(pb::Symmetry::None) => Symmetry::None,
        Ok(pb::Symmetry::Rotate180) => Symmetry::Rotate180,
        Ok(pb::Symmetry::Rotate90) => Symmetry::Rotate90,
        Ok(pb::Symmetry::Mirror) => Symmetry::Mirror,
        Ok(pb::Symmetry::MirrorVertical) => Symmetry::MirrorTopBottom,
        Ok(pb::Symmetry::Diagonal) => Symmetry::Diagonal,
        Ok(pb::Symmetry::AntiDiagonal) => Symmetry::AntiDiagonal,
        Err(_) => {
            let message = format!("unknown symmetry {}", request.symmetry);
            return Err(invalid("symmetry", message));
        }
    };
    if request.count > MAX_COUNT {
        return Err(invalid(
            "count",
            format!(
                "count {} is more than {MAX_COUNT} puzzles a request",
                request.count
            ),
        ));
    }
    let givens = match (request.min_givens, request.max_givens) {
        (0, 0) => None,
        (min, 0) => Some(min as usize..=shape.cells()),
        (min, max) => Some(min as usize..=max as usize),
    };
    let rating = band(request)?;
    Ok(Order {
        rate: rating.is_some() || !request.unrated,
        options: GenerateOptions {
            shape,
            symmetry,
            minimal: request.minimal,
            givens,
            rating,
            seed: match request.seed {
                0 => rand_seed(),
                seed => seed,
            },
            ..GenerateOptions::default()
        },
        count: request.count.max(1),
    })
}

/// The rating band in tenths: a level's, or the SE range asked for.
fn band(request: &pb::GenerateRequest) -> Result<Option<RangeInclusive<u16>>, Status> {
    let level = pb::Level::try_from(request.level)
        .map_err(|_| invalid("level", format!("unknown level {}", request.level)))?;
    let ranged = request.min_rating != 0.0 || request.max_rating != 0.0;
    if level != pb::Level::Unspecified && ranged {
        let message = "give either a level or a rating range, not both".to_owned();
        return Err(invalid("level", message));
    }
    let tenths = |r: f64| (r * 10.0).round().clamp(0.0, f64::from(u16::MAX)) as u16;
    Ok(match level {
        pb::Level::Unspecified if ranged => {
            check_range(request.min_rating, request.max_rating)?;
            Some(
                tenths(request.min_rating)..=if request.max_rating == 0.0 {
                    u16::MAX
                } else {
                    tenths(request.max_rating)
                },
            )
        }
        pb::Level::Unspecified => None,
        pb::Level::Easy => Some(0..=14),
        pb::Level::Medium => Some(15..=24),
        pb::Level::Hard => Some(25..=49),
        pb::Level::Diabolical => Some(50..=69),
        pb::Level::Extreme => Some(70..=89),
        pb::Level::Hardest => Some(90..=u16::MAX),
    })
}

/// The easiest rating a puzzle can have on the SE scale (a naked single's).
const EASIEST_RATING: f64 = 1.0;
/// Above the hardest ratings known on the SE scale (about 11.9).
const HARDEST_RATING: f64 = 12.0;

/// Refuses a rating range no puzzle can meet: not a number, negative, reversed, wholly
/// below the easiest rating or above the hardest; a zero maximum means "no upper bound".
fn check_range(min: f64, max: f64) -> Result<(), Status> {
    let scale = format!("ratings run from {EASIEST_RATING:.1} to about 11.9");
    let (min, max) = (Shown(min), Shown(max));
    if !min.0.is_finite() || min.0 < 0.0 {
        let message = format!("min_rating {min} is not a rating: {scale}");
        return Err(invalid("min_rating", message));
    }
    if max.0.is_nan() || max.0 < 0.0 {
        let message = format!("max_rating {max} is not a rating: {scale}");
        return Err(invalid("max_rating", message));
    }
    if min.0 > HARDEST_RATING {
        let message = format!("no puzzle rates {min} or more: {scale}");
        return Err(invalid("min_rating", message));
    }
    if max.0 != 0.0 && max.0 < min.0 {
        let message = format!("max_rating {max} is below min_rating {min}");
        return Err(invalid("max_rating", message));
    }
    if max.0 != 0.0 && max.0 < EASIEST_RATING {
        let message = format!("no puzzle rates {max} or less: {scale}");
        return Err(invalid("max_rating", message));
    }
    Ok(())
}

/// A requested rating as an error message shows it: huge ones in exponent form (`1e300`), not
/// three hundred digits.
struct Shown(f64);

impl std::fmt::Display for Shown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.abs() >= 1e6 {
            write!(f, "{:e}", self.0)
        } else {
            write!(f, "{}", self.0)
        }
    }
}

/// A seed for a request that did not give one; reported with each puzzle.
fn rand_seed() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(Instant::now()) | 1
}

/// Streams `order`'s puzzles, one piece of solver work per puzzle, until done, failed, past
/// the call's cap on solver time (the server's per-call cap, for all its puzzles together)
/// or the client leaves.
pub(crate) fn stream(
    shared: Arc<Shared>,
    order: Order,
    tenant: Tenant,
    deadline: Option<Instant>,
) -> mpsc::Receiver<Result<pb::GeneratedPuzzle, Status>> {
    let (tx, rx) = mpsc::channel(2);
    let side = order.options.shape.side();
    telemetry::record_logic(&tracing::Span::current(), side, None);
    let making = async move {
        let cancel = CancelOnDrop::default();
        let cap = shared.limits.max_solve_time;
        let mut spent = Duration::ZERO;
        let (count, rate, mut options) = (order.count, order.rate, order.options);
        options.limits.cancel = Some(cancel.0.clone());
        for index in 0..u64::from(count) {
            let Some(left) = cap.checked_sub(spent).filter(|left| !left.is_zero()) else {
                let _ = tx
                    .send(Err(over_cap(index, count, cap, options.seed)))
                    .await;
                break;
            };
            let (begun, span) = (Instant::now(), telemetry::work_span!("generate"));
            let work = slices(options.clone(), rate);
            let run = (shared.pool)
                .run_sliced(tenant, deadline, left, work, stopped_at_deadline)
                .instrument(span.clone());
            let made = tokio::select! {
                made = run => made,
                () = tx.closed() => break,
            };
            spent += begun.elapsed();
            if let Ok(Ok(made)) = &made {
                let rating = made.rating.map(|tenths| f64::from(tenths) / 10.0);
                telemetry::record_logic(&span, side, rating);
            }
            // The puzzle's span ends with its making, not once the client has taken it.
            drop(span);
            let message = match made {
                Ok(Ok(made)) => Ok(generated(index, &made)),
                Ok(Err(GenerateError::Stopped {
                    reason: StopReason::Deadline,
                    ..
                })) if deadline.is_none_or(|d| Instant::now() < d) => {
                    Err(over_cap(index, count, cap, options.seed))
                }
                Ok(Err(err)) => Err(generate_status(&err)),
                Err(PoolError::Panicked(panic)) => Err(Status::internal(format!(
                    "internal error: generation failed ({panic}); it has been logged"
                ))),
                Err(PoolError::Solve(err)) => Err(Status::internal(err.to_string())),
                Err(PoolError::Abandoned) => break,
            };
            let failed = message.is_err();
            if tx.send(message).await.is_err() || failed {
                break;
            }
            options.seed = next_seed(options.seed);
        }
    };
    // In the call's span: the puzzles' logs carry its trace.
    tokio::spawn(making.in_current_span());
    rx
}

/// The work of making the puzzle seeded `options.seed`, rated by the logic engine when `rate`
/// is set, each slice of it stopping at its own deadline.
fn slices(
    options: GenerateOptions,
    rate: bool,
) -> impl FnMut(Until) -> Result<Generated, GenerateError> + Send + 'static {
    move |until: Until| {
        let limits = solver_core::Limits {
            deadline: Some(until.deadline),
            ..options.limits.clone()
        };
        // The engine's own rater: an unfinished rating meets no band, and it tells the
        // generator which puzzles are too easy to be worth rating for a high band.
        let rater = SeRater {
            options: RateOptions {
                limits: limits.clone(),
                ..RateOptions::default()
            },
        };
        let options = GenerateOptions {
            limits,
            ..options.clone()
        };
        let seed = options.seed;
        Generator::new(options, rate.then_some(&rater as &dyn Rater))?.puzzle(seed)
    }
}

/// Whether generation stopped at its deadline (the end of its slice, or of its time).
fn stopped_at_deadline(made: &Result<Generated, GenerateError>) -> bool {
    matches!(
        made,
        Err(GenerateError::Stopped {
            reason: StopReason::Deadline,
            ..
        })
    )
}

/// RESOURCE_EXHAUSTED for a call that used its cap on solver time after `index` puzzles.
fn over_cap(index: u64, count: u32, cap: Duration, seed: u64) -> Status {
    Status::resource_exhausted(format!(
        "generation stopped at this server's cap of {} ms of solver time a call, after {index} \
         of {count} puzzles; ask again with seed {seed} for the rest",
        cap.as_millis()
    ))
}

/// The wire form of a made puzzle.
fn generated(index: u64, made: &Generated) -> pb::GeneratedPuzzle {
    let tenths = made.rating.unwrap_or(0);
    pb::GeneratedPuzzle {
        index,
        puzzle: Some(grid_to_pb(&made.puzzle)),
        solution: Some(grid_to_pb(&made.solution)),
        rating: f64::from(tenths) / 10.0,
        level: match made.rating {
            Some(t) => pb::Level::from(Level::from_tenths(t)),
            None => pb::Level::Unspecified,
        }
        .into(),
        givens: made.givens as u32,
        seed: made.seed,
    }
}

/// How a generation error reaches the client.
fn generate_status(err: &GenerateError) -> Status {
    let message = err.to_string();
    match err {
        GenerateError::Stopped {
            reason: StopReason::Budget,
            ..
        } => Status::resource_exhausted(message),
        GenerateError::Stopped {
            reason: StopReason::Deadline,
            ..
        } => Status::deadline_exceeded(message),
        GenerateError::Stopped { .. } => Status::cancelled(message),
        GenerateError::RatingRange { .. } => invalid("min_rating", message),
        GenerateError::GivensForSymmetry { .. } => invalid("symmetry", message),
        GenerateError::TooFewGivens { .. } => invalid("max_givens", message),
        _ => invalid("min_givens", message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(min: f64, max: f64) -> Option<(String, String)> {
        let status = check_range(min, max).err()?;
        let field = tonic_types::StatusExt::get_details_bad_request(&status)
            .and_then(|b| b.field_violations.first().map(|v| v.field.clone()))
            .unwrap_or_default();
        Some((field, status.message().to_owned()))
    }

    #[test]
    fn bands_no_puzzle_can_meet_are_refused_naming_the_field() {
        for (min, max, field) in [
            (20.0, 30.0, "min_rating"),
            (f64::INFINITY, 0.0, "min_rating"),
            (1e300, 0.0, "min_rating"),
            (f64::NAN, 0.0, "min_rating"),
            (-1.0, 0.0, "min_rating"),
            (0.1, 0.5, "max_rating"),
            (7.0, 5.0, "max_rating"),
            (2.0, f64::NAN, "max_rating"),
        ] {
            let (got, message) = refused(min, max).unwrap_or_else(|| panic!("{min}..{max} taken"));
            assert_eq!(got, field, "{min}..{max}: {message}");
            assert!(
                message.contains(field) || message.contains("ratings run"),
                "{message}"
            );
        }
    }

    #[test]
    fn huge_ratings_are_named_in_exponent_form() {
        let (_, message) = refused(1e300, 0.0).expect("1e300 refused");
        assert!(
            message.starts_with("no puzzle rates 1e300 or more:"),
            "{message}"
        );
        let (_, message) = refused(-2.5e9, 0.0).expect("-2.5e9 refused");
        assert!(message.starts_with("min_rating -2.5e9 is not"), "{message}");
    }

    #[test]
    fn bands_a_puzzle_can_meet_are_taken() {
        for (min, max) in [
            (1.0, 1.5),
            (5.0, 0.0),
            (10.0, 12.0),
            (0.0, 2.0),
            (11.5, f64::INFINITY),
        ] {
            assert!(refused(min, max).is_none(), "{min}..{max}");
        }
    }
}
