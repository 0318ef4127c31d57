//! Generate: puzzles made one after another on the long lane and streamed as they come.

use std::ops::RangeInclusive;
use std::sync::Arc;
use std::time::Instant;

use solver_core::logic::{Level, RateOptions};
use solver_core::{
    GenerateError, GenerateOptions, Generated, Generator, SeRater, Shape, StopReason, Symmetry,
    next_seed,
};
use sudoku_proto::{grid_to_pb, pb};
use tokio::sync::mpsc;
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

use crate::admit::Slot;
use crate::lanes::Tenant;
use crate::pool::{CancelOnDrop, PoolError};
use crate::shared::Shared;

/// Most puzzles one request may ask for.
pub(crate) const MAX_COUNT: u32 = 100_000;

/// INVALID_ARGUMENT naming the request field at fault.
fn invalid(field: &str, message: String) -> Status {
    let details = ErrorDetails::with_bad_request_violation(field, message.clone());
    Status::with_error_details(Code::InvalidArgument, message, details)
}

/// A checked request: what to make and how many.
pub(crate) struct Order {
    options: GenerateOptions,
    count: u32,
}

/// Checks a request against the wire rules and the server's limits.
pub(crate) fn order(request: &pb::GenerateRequest, shared: &Shared) -> Result<Order, Status> {
    let shape = match (request.box_rows, request.box_cols) {
        (0, 0) => Shape::CLASSIC,
        (rows, cols) => Shape::new(rows as usize, cols as usize).map_err(|e| {
            // Rows are read first: they are at fault unless they are fine alone.
            invalid(
                if rows >= 2 { "box_cols" } else { "box_rows" },
                e.to_string(),
            )
        })?,
    };
    if shape.side() > shared.limits.max_grid_side {
        return Err(invalid(
            "box_rows",
            format!(
                "grid side {} is larger than this server's limit of {}",
                shape.side(),
                shared.limits.max_grid_side
            ),
        ));
    }
    let symmetry = match pb::Symmetry::try_from(request.symmetry) {
        Ok(pb::Symmetry::None) => Symmetry::None,
        Ok(pb::Symmetry::Rotate180) => Symmetry::Rotate180,
        Ok(pb::Symmetry::Rotate90) => Symmetry::Rotate90,
        Ok(pb::Symmetry::Mirror) => Symmetry::Mirror,
        Ok(pb::Symmetry::MirrorVertical) => Symmetry::MirrorVertical,
        Ok(pb::Symmetry::Diagonal) => Symmetry::Diagonal,
        Ok(pb::Symmetry::AntiDiagonal) => Symmetry::AntiDiagonal,
        Err(_) => {
            return Err(invalid(
                "symmetry",
                format!("unknown symmetry {}", request.symmetry),
            ));
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
    Ok(Order {
        options: GenerateOptions {
            shape,
            symmetry,
            minimal: request.minimal,
            givens,
            rating: band(request)?,
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
        return Err(invalid(
            "level",
            "give either a level or a rating range, not both".to_owned(),
        ));
    }
    let tenths = |r: f64| (r * 10.0).round().clamp(0.0, f64::from(u16::MAX)) as u16;
    Ok(match level {
        pb::Level::Unspecified if ranged => Some(
            tenths(request.min_rating)..=if request.max_rating == 0.0 {
                u16::MAX
            } else {
                tenths(request.max_rating)
            },
        ),
        pb::Level::Unspecified => None,
        pb::Level::Easy => Some(0..=14),
        pb::Level::Medium => Some(15..=24),
        pb::Level::Hard => Some(25..=49),
        pb::Level::Diabolical => Some(50..=69),
        pb::Level::Extreme => Some(70..=89),
        pb::Level::Hardest => Some(90..=u16::MAX),
    })
}

/// A seed for a request that did not give one; reported with each puzzle.
fn rand_seed() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(Instant::now()) | 1
}

/// Streams `order`'s puzzles, one solver-thread task per puzzle, until done, failed or the
/// client leaves; `slot` holds the call's admission until then.
pub(crate) fn stream(
    shared: Arc<Shared>,
    order: Order,
    tenant: Tenant,
    deadline: Option<Instant>,
    slot: Slot,
) -> mpsc::Receiver<Result<pb::GeneratedPuzzle, Status>> {
    let (tx, rx) = mpsc::channel(4);
    tokio::spawn(async move {
        let _slot = slot;
        let cancel = CancelOnDrop::new();
        let mut seed = order.options.seed;
        for index in 0..u64::from(order.count) {
            let cap = Instant::now() + shared.limits.max_solve_time;
            let options = GenerateOptions {
                seed,
                deadline: Some(deadline.map_or(cap, |d| d.min(cap))),
                cancel: Some(cancel.0.clone()),
                ..order.options.clone()
            };
            let made = tokio::select! {
                made = shared.pool.run(tenant, move || make(options)) => made,
                () = tx.closed() => break,
            };
            let message = match made {
                Ok(Ok(made)) => Ok(generated(index, &made)),
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
            seed = next_seed(seed);
        }
    });
    rx
}

/// Makes the puzzle seeded `options.seed`, rated by the logic engine.
fn make(options: GenerateOptions) -> Result<Generated, GenerateError> {
    // The engine's own rater: an unfinished rating meets no band, and it tells the generator
    // which puzzles are too easy to be worth rating for a high band.
    let rater = SeRater {
        options: RateOptions {
            deadline: options.deadline,
            cancel: options.cancel.clone(),
            ..RateOptions::default()
        },
    };
    let seed = options.seed;
    Generator::new(options, Some(&rater))?.puzzle(seed)
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
