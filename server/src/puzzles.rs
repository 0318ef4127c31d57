//! The `sudoku.v1.Puzzles` handlers: knowing a puzzle (rate, hint, explain, validate) and
//! making them (generate). Work runs on the solver threads, never on the executor.

use std::sync::Arc;
use std::time::Instant;

use solver_core::logic::{self, LogicError, RateOptions};
use solver_core::{Entries, Grid, Outcome, Shape};
use sudoku_proto::{entries_from_pb, grid_from_pb, pb, rating_to_pb, verdict_of};
use tokio::sync::mpsc;
use tonic::{Request, Response, Status, Streaming};

use crate::lanes::Tenant;
use crate::pool::{CancelOnDrop, PoolError};
use crate::respond::Job;
use crate::service::client_deadline;
use crate::shared::Shared;
use crate::status::RequestError;

/// The Puzzles service; cheap to clone.
#[derive(Clone)]
pub struct PuzzlesService {
    shared: Arc<Shared>,
}

/// A server-streamed answer.
type Answers<T> = tokio_stream::wrappers::ReceiverStream<Result<T, Status>>;

impl PuzzlesService {
    pub(crate) fn new(shared: Arc<Shared>) -> PuzzlesService {
        PuzzlesService { shared }
    }

    /// A request's grid, checked and within the server's limits; `field` names it in errors.
    fn read_grid(&self, wire: Option<&pb::Grid>, field: &str) -> Result<Grid, Status> {
        let missing = || match field {
            "grid" => RequestError::MissingGrid,
            _ => RequestError::MissingPuzzle,
        };
        let wire = wire.ok_or_else(|| missing().to_status_in(field, None))?;
        let shape = Shape::new(wire.box_rows as usize, wire.box_cols as usize).ok();
        self.shared
            .limits
            .check_side(wire)
            .and_then(|()| grid_from_pb(wire).map_err(RequestError::from))
            .map_err(|e| e.to_status_in(field, shape))
    }

    /// What Hint and Explain share: the caller, the grid, the options and the marks.
    fn logic_call(&self, request: Request<pb::HintRequest>) -> Result<LogicCall, Status> {
        let deadline = client_deadline(request.metadata());
        let tenant = Tenant::of(request.remote_addr());
        let request = request.into_inner();
        let grid = self.read_grid(request.grid.as_ref(), "grid")?;
        let cancel = CancelOnDrop::new();
        let options = self.logic_options(request.options, deadline, &cancel);
        Ok(LogicCall {
            tenant,
            grid,
            options,
            marks: marks(request.candidates),
            _cancel: cancel,
        })
    }

    /// The logic engine's options: the request's, the server's time cap and the caller's
    /// deadline, and a flag the call raises when it is dropped.
    fn logic_options(
        &self,
        wire: Option<pb::LogicOptions>,
        deadline: Option<Instant>,
        cancel: &CancelOnDrop,
    ) -> RateOptions {
        let cap = Instant::now() + self.shared.limits.max_solve_time;
        RateOptions {
            uniqueness: !wire.unwrap_or_default().no_uniqueness_techniques,
            deadline: Some(deadline.map_or(cap, |d| d.min(cap))),
            cancel: Some(cancel.0.clone()),
            ..RateOptions::default()
        }
    }

    /// Runs logic work on the solver threads; pool failures become statuses.
    async fn run<T: Send + 'static>(
        &self,
        tenant: Tenant,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, Status> {
        match self.shared.pool.run(tenant, work).await {
            Ok(value) => Ok(value),
            Err(PoolError::Panicked(panic)) => Err(RequestError::Internal(panic).to_status(None)),
            Err(PoolError::Solve(err)) => Err(RequestError::from(err).to_status(None)),
            Err(PoolError::Abandoned) => Err(Status::cancelled("the call was cancelled")),
        }
    }

    /// Checks a Validate request's grids: the player's grid (repeats allowed) and the puzzle.
    fn read_validate(
        &self,
        request: &pb::ValidateRequest,
    ) -> Result<(Entries, Option<Grid>), Status> {
        let limits = &self.shared.limits;
        let wire = request
            .grid
            .as_ref()
            .ok_or_else(|| RequestError::MissingGrid.to_status_in("grid", None))?;
        let shape_of = |g: &pb::Grid| Shape::new(g.box_rows as usize, g.box_cols as usize).ok();
        let entries = limits
            .check_side(wire)
            .and_then(|()| entries_from_pb(wire).map_err(RequestError::from))
            .map_err(|e| e.to_status_in("grid", shape_of(wire)))?;
        let Some(puzzle) = request.puzzle.as_ref() else {
            return Ok((entries, None));
        };
        let puzzle = limits
            .check_side(puzzle)
            .and_then(|()| grid_from_pb(puzzle).map_err(RequestError::from))
            .map_err(|e| e.to_status_in("puzzle", shape_of(puzzle)))?;
        if puzzle.shape() != entries.shape() {
            let err = RequestError::ShapeMismatch {
                grid: entries.shape(),
                puzzle: puzzle.shape(),
            };
            return Err(err.to_status(None));
        }
        Ok((entries, Some(puzzle)))
    }

    /// Solves `puzzle` on the solver threads to find whether it has exactly one solution.
    async fn solution(
        &self,
        tenant: Tenant,
        puzzle: Grid,
        deadline: Option<Instant>,
    ) -> Result<(pb::Verdict, Option<Grid>), Status> {
        let cancel = CancelOnDrop::new();
        let mut options = self.shared.limits.uniqueness(deadline);
        options.cancel = Some(cancel.0.clone());
        let solution = match self
            .shared
            .pool
            .solve(
                tenant,
                Job::new(puzzle, options, self.shared.limits.max_solve_time),
            )
            .await
        {
            Ok(solution) => solution,
            Err(PoolError::Solve(err)) => return Err(RequestError::from(err).to_status(None)),
            Err(PoolError::Panicked(panic)) => {
                return Err(RequestError::Internal(panic).to_status(None));
            }
            Err(PoolError::Abandoned) => return Err(Status::cancelled("the call was cancelled")),
        };
        Ok(match solution.outcome {
            Outcome::Unique(grid) => (pb::Verdict::Unique, Some(grid)),
            Outcome::NoSolution => (pb::Verdict::NoSolution, None),
            Outcome::Multiple { .. } | Outcome::Solved(_) => (pb::Verdict::Multiple, None),
            // Stopped, or an outcome added later: no verdict to give.
            _ => (pb::Verdict::Stopped, None),
        })
    }
}

/// A Hint or Explain request, checked.
struct LogicCall {
    tenant: Tenant,
    grid: Grid,
    options: RateOptions,
    marks: Option<Vec<u64>>,
    /// Raises the engine's cancel flag when the call is dropped.
    _cancel: CancelOnDrop,
}

/// A logic error that is the caller's fault, as INVALID_ARGUMENT; `None` for verdicts.
fn logic_status(err: &LogicError) -> Status {
    let message = err.to_string();
    let details = tonic_types::ErrorDetails::with_bad_request_violation(
        match err {
            LogicError::MarksCount { .. } => "candidates.masks",
            _ => "grid",
        },
        message.clone(),
    );
    <Status as tonic_types::StatusExt>::with_error_details(
        tonic::Code::InvalidArgument,
        message,
        details,
    )
}

/// An explanation as stream messages: wrong marks first, the steps, the verdict last.
fn explain_messages(explanation: &logic::Explanation) -> Vec<pb::ExplainResponse> {
    let mut messages: Vec<pb::ExplainResponse> = explanation
        .steps
        .iter()
        .map(|step| pb::ExplainResponse {
            step: Some(step.into()),
            ..pb::ExplainResponse::default()
        })
        .collect();
    messages.push(pb::ExplainResponse {
        verdict: match explanation.end {
            logic::End::Stopped(_) => pb::Verdict::Stopped,
            _ => pb::Verdict::Unique,
        }
        .into(),
        solved: explanation.end == logic::End::Solved,
        ..pb::ExplainResponse::default()
    });
    messages[0].wrong_candidates = explanation.wrong_marks.iter().map(pb::Cell::from).collect();
    messages
}

/// Pencil marks from the wire, if any.
fn marks(candidates: Option<pb::Candidates>) -> Option<Vec<u64>> {
    candidates.map(|c| c.masks)
}

#[tonic::async_trait]
impl pb::puzzles_server::Puzzles for PuzzlesService {
    async fn rate(
        &self,
        mut request: Request<pb::RateRequest>,
    ) -> Result<Response<pb::RateResponse>, Status> {
        let _slot = self.shared.admit(&mut request)?;
        let deadline = client_deadline(request.metadata());
        let tenant = Tenant::of(request.remote_addr());
        let request = request.into_inner();
        self.shared
            .limits
            .check_id(&request.id)
            .map_err(|e| e.to_status(None))?;
        let grid = self.read_grid(request.puzzle.as_ref(), "puzzle")?;
        let cancel = CancelOnDrop::new();
        let options = self.logic_options(request.options, deadline, &cancel);
        let rating = self
            .run(tenant, move || logic::rate(&grid, &options))
            .await?;
        let mut answer = match rating {
            Ok(rating) => rating_to_pb(&rating),
            Err(err) => match verdict_of(&err) {
                Some(verdict) => pb::RateResponse {
                    verdict: verdict.into(),
                    ..pb::RateResponse::default()
                },
                None => return Err(logic_status(&err)),
            },
        };
        answer.id = request.id;
        Ok(Response::new(answer))
    }

    type BatchRateStream = crate::batch::Answers<pb::RateResponse>;

    async fn batch_rate(
        &self,
        mut request: Request<Streaming<pb::RateRequest>>,
    ) -> Result<Response<Self::BatchRateStream>, Status> {
        let slot = self.shared.admit(&mut request)?;
        let caller = crate::batch::Caller {
            deadline: client_deadline(request.metadata()),
            tenant: Tenant::of(request.remote_addr()),
            room: crate::admit::WaitingForRoom::of(&request),
            largest: crate::calls::LargestMessage::of(&request),
        };
        let stream = crate::batch::spawn(self.shared.clone(), request.into_inner(), caller, slot);
        Ok(Response::new(stream))
    }

    async fn hint(
        &self,
        mut request: Request<pb::HintRequest>,
    ) -> Result<Response<pb::HintResponse>, Status> {
        let _slot = self.shared.admit(&mut request)?;
        let call = self.logic_call(request)?;
        let hint = self
            .run(call.tenant, move || {
                logic::hint(&call.grid, call.marks.as_deref(), &call.options)
            })
            .await?;
        let answer = match hint {
            Ok(hint) => pb::HintResponse {
                verdict: pb::Verdict::Unique.into(),
                step: hint.step.as_ref().map(pb::Step::from),
                wrong_candidates: hint.wrong_marks.iter().map(pb::Cell::from).collect(),
                solved: hint.solved,
            },
            Err(err) => match verdict_of(&err) {
                Some(verdict) => pb::HintResponse {
                    verdict: verdict.into(),
                    ..pb::HintResponse::default()
                },
                None => return Err(logic_status(&err)),
            },
        };
        Ok(Response::new(answer))
    }

    type ExplainStream = Answers<pb::ExplainResponse>;

    async fn explain(
        &self,
        mut request: Request<pb::HintRequest>,
    ) -> Result<Response<Self::ExplainStream>, Status> {
        let _slot = self.shared.admit(&mut request)?;
        let call = self.logic_call(request)?;
        let explanation = self
            .run(call.tenant, move || {
                logic::explain(&call.grid, call.marks.as_deref(), &call.options)
            })
            .await?;
        let messages = match explanation {
            Ok(explanation) => explain_messages(&explanation),
            Err(err) => match verdict_of(&err) {
                Some(verdict) => vec![pb::ExplainResponse {
                    verdict: verdict.into(),
                    ..pb::ExplainResponse::default()
                }],
                None => return Err(logic_status(&err)),
            },
        };
        // The steps are made; the stream only hands them out as the client reads.
        let (tx, rx) = mpsc::channel(16);
        tokio::spawn(async move {
            for message in messages {
                if tx.send(Ok(message)).await.is_err() {
                    break;
                }
            }
        });
        Ok(Response::new(Answers::new(rx)))
    }

    async fn validate(
        &self,
        mut request: Request<pb::ValidateRequest>,
    ) -> Result<Response<pb::ValidateResponse>, Status> {
        let _slot = self.shared.admit(&mut request)?;
        let deadline = client_deadline(request.metadata());
        let tenant = Tenant::of(request.remote_addr());
        let (entries, puzzle) = self.read_validate(request.get_ref())?;
        let (verdict, solution) = match puzzle {
            Some(puzzle) => self.solution(tenant, puzzle, deadline).await?,
            None => (pb::Verdict::Unspecified, None),
        };
        let check = entries.check(solution.as_ref());
        Ok(Response::new(pb::ValidateResponse {
            valid: check.is_valid(),
            complete: check.complete,
            conflicts: check.conflicts.into_iter().map(Into::into).collect(),
            wrong: check.wrong.into_iter().map(Into::into).collect(),
            puzzle_verdict: verdict.into(),
        }))
    }

    type GenerateStream = Answers<pb::GeneratedPuzzle>;

    async fn generate(
        &self,
        mut request: Request<pb::GenerateRequest>,
    ) -> Result<Response<Self::GenerateStream>, Status> {
        let slot = self.shared.admit(&mut request)?;
        let deadline = client_deadline(request.metadata());
        let tenant = Tenant::of(request.remote_addr());
        let order = crate::generate::order(request.get_ref(), &self.shared)?;
        let rx = crate::generate::stream(self.shared.clone(), order, tenant, deadline, slot);
        Ok(Response::new(Answers::new(rx)))
    }
}
