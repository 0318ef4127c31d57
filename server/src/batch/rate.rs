//! BatchRate: one puzzle per message, rated by the logic engine in the long lane.

use std::sync::atomic::Ordering;

use solver_core::logic;
use sudoku_proto::{pb, rating_to_pb, verdict_of};

use super::{Batched, Read, Reader};
use crate::rpc::puzzles::{logic_options, rating_stopped, until_deadline};
use crate::status::RequestError;
use crate::telemetry;

impl Batched for pb::RateRequest {
    type Answer = pb::RateResponse;

    fn submit(group: Vec<Read<Self>>, to: &Reader<Self>) {
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
                .and_then(|wire| limits.grid(wire));
            let grid = match grid {
                Ok(grid) => grid,
                Err(err) => {
                    to.send_now(vec![(invalid(message.id, first, &err), hold)]);
                    continue;
                }
            };
            let options = logic_options(message.options, &to.cancel);
            let (out, progress, id) = (to.out.clone(), to.progress.clone(), message.id);
            let in_pool = to.in_pool();
            // The puzzle's span, ended once its answer is on its way.
            let (span, side) = (telemetry::work_span!("logic"), grid.side());
            telemetry::record_logic(&span, side, None);
            to.shared.pool.spawn_sliced(
                to.caller.tenant,
                client_deadline,
                max_time,
                // The time cap starts with the rating, as a solve's does, not when the group
                // arrived: puzzles queued behind others keep their full time.
                move |until| logic::rate(&grid, &until_deadline(&options, until.deadline)),
                rating_stopped,
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
                        // `None`: the stream is gone; nobody waits for this answer.
                        Err(err) => match err.into_request_error() {
                            Some(err) => invalid(String::new(), first, &err),
                            None => return,
                        },
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
}

/// The VERDICT_INVALID item for a bad request.
fn invalid(id: String, index: u64, err: &RequestError) -> pb::RateResponse {
    pb::RateResponse {
        id: crate::solving::echoed(id, err),
        index,
        verdict: pb::Verdict::Invalid.into(),
        error: Some(err.to_pb()),
        ..pb::RateResponse::default()
    }
}
