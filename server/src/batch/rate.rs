//! BatchRate: one puzzle per message, rated by the logic engine in the long lane.

use std::sync::atomic::Ordering;

use solver_core::StopReason;
use solver_core::logic::{self, RateOptions};
use sudoku_proto::{grid_from_pb, pb, rating_to_pb, verdict_of};
use tonic::Status;

use super::{Batched, Read, Submit};
use crate::scheduling::pool::PoolError;
use crate::solving::Limits;
use crate::status::RequestError;
use crate::telemetry;

impl Batched for pb::RateRequest {
    type Answer = pb::RateResponse;

    fn puzzles(&self, _limits: &Limits) -> Result<usize, Status> {
        Ok(1)
    }

    fn submit(group: Vec<Read<Self>>, to: &Submit<'_, Self::Answer>) {
        let limits = &to.shared.limits;
        let (max_time, client_deadline) = (limits.max_solve_time, to.caller.deadline);
        for Read {
            message,
            first,
            hold,
        } in group
        {
            let grid = limits
                .check_id(&message.id)
                .and_then(|()| message.puzzle.as_ref().ok_or(RequestError::MissingPuzzle))
                .and_then(|wire| {
                    limits.check_side(wire)?;
                    grid_from_pb(wire).map_err(RequestError::from)
                });
            let grid = match grid {
                Ok(grid) => grid,
                Err(err) => {
                    to.send_now(vec![(invalid(message.id, first, &err), hold)]);
                    continue;
                }
            };
            let options = RateOptions {
                uniqueness: !message.options.unwrap_or_default().no_uniqueness_techniques,
                limits: solver_core::Limits {
                    cancel: Some(to.cancel.clone()),
                    ..solver_core::Limits::default()
                },
                ..RateOptions::default()
            };
            let (out, progress, id) = (to.out.clone(), to.progress.clone(), message.id);
            let in_pool = to.in_pool();
            // The puzzle's span, ended once its answer is on its way.
            let (span, side) = (telemetry::logic_span(), grid.side());
            telemetry::record_logic(&span, side, None);
            to.shared.pool.spawn_sliced(
                to.caller.tenant,
                client_deadline,
                max_time,
                move |until| {
                    // The time cap starts with the rating, as a solve's does, not when the
                    // group arrived: puzzles queued behind others keep their full time.
                    let options = RateOptions {
                        limits: solver_core::Limits {
                            deadline: Some(until.deadline),
                            ..options.limits.clone()
                        },
                        ..options.clone()
                    };
                    logic::rate(&grid, &options)
                },
                |rating| match rating {
                    Ok(rating) => rating.end == logic::End::Stopped(StopReason::Deadline),
                    Err(err) => matches!(err, logic::LogicError::Stopped(StopReason::Deadline)),
                },
                move |result| {
                    // Counted in the pool until the answer is on its way.
                    let _in_pool = in_pool;
                    let answer = match result {
                        Ok(Ok(rating)) => {
                            telemetry::record_logic(&span, side, Some(rating.rating()));
                            rating_to_pb(&rating)
                        }
                        Ok(Err(err)) => match verdict_of(&err) {
                            Some(verdict) => pb::RateResponse {
                                verdict: verdict.into(),
                                ..pb::RateResponse::default()
                            },
                            None => invalid(
                                String::new(),
                                first,
                                &RequestError::Internal(err.to_string()),
                            ),
                        },
                        Err(PoolError::Panicked(panic)) => {
                            invalid(String::new(), first, &RequestError::Internal(panic))
                        }
                        Err(PoolError::Solve(err)) => invalid(String::new(), first, &err.into()),
                        // The stream is gone; nobody waits for this answer.
                        Err(PoolError::Abandoned) => return,
                    };
                    progress.fetch_add(1, Ordering::Relaxed);
                    let answer = pb::RateResponse {
                        id,
                        index: first,
                        ..answer
                    };
                    out.send(vec![(answer, hold)]);
                },
            );
        }
    }

    fn broken(messages: u64, _puzzles: u64, why: &str) -> String {
        format!(
            "request {messages} of the stream could not be read: {why}; the {messages} \
             requests before it were answered"
        )
    }
}

/// The VERDICT_INVALID item for a bad request; an over-long id is not echoed.
fn invalid(id: String, index: u64, err: &RequestError) -> pb::RateResponse {
    let id = match err {
        RequestError::IdTooLong { .. } => String::new(),
        _ => id,
    };
    pb::RateResponse {
        id,
        index,
        verdict: pb::Verdict::Invalid.into(),
        error: Some(err.to_pb()),
        ..pb::RateResponse::default()
    }
}
