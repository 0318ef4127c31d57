//! The `sudoku.v1.Puzzles` handlers: knowing a puzzle (rate, hint, explain, validate) and
//! making them (generate). Work runs on the solver threads, never on the executor.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use solver_core::check::Entries;
use solver_core::logic::{self, LogicError, RateOptions};
use solver_core::{Grid, Outcome, Shape, StopReason};
use sudoku_proto::{entries_from_pb, pb, rating_to_pb, verdict_of};
use tokio::sync::mpsc;
use tonic::{Request, Response, Status, Streaming};
use tracing::{Instrument, Span};

use crate::Shared;
use crate::rpc::explain::{Explaining, Started};
use crate::rpc::sudoku::client_deadline;
use crate::scheduling::lanes::Tenant;
use crate::scheduling::logic::Until;
use crate::scheduling::pool::CancelOnDrop;
use crate::solving::Job;
use crate::status::RequestError;
use crate::telemetry;

/// The Puzzles service; cheap to clone.
#[derive(Clone)]
pub struct PuzzlesService {
    pub(crate) shared: Arc<Shared>,
}

/// A server-streamed answer.
type Answers<T> = tokio_stream::wrappers::ReceiverStream<Result<T, Status>>;

impl PuzzlesService {
    /// A request's grid, checked and within the server's limits; `field` names it in errors.
    fn read_grid(&self, wire: Option<&pb::Grid>, field: &str) -> Result<Grid, Status> {
        let missing = || match field {
            "grid" => RequestError::MissingGrid,
            _ => RequestError::MissingPuzzle,
        };
        let wire = wire.ok_or_else(|| missing().to_status_in(field, None))?;
        let shape = Shape::new(wire.box_rows as usize, wire.box_cols as usize).ok();
        (self.shared.limits.grid(wire)).map_err(|e| e.to_status_in(field, shape))
    }

    /// What Hint and Explain share: the caller, the grid, the options and the marks.
    fn logic_call(&self, request: Request<pb::HintRequest>) -> Result<LogicCall, Status> {
        let deadline = client_deadline(request.metadata());
        let tenant = Tenant::of(request.remote_addr());
        let request = request.into_inner();
        let grid = self.read_grid(request.grid.as_ref(), "grid")?;
        let cancel = CancelOnDrop::default();
        let options = logic_options(request.options, &cancel.0);
        Ok(LogicCall {
            tenant,
            deadline,
            grid,
            options,
            marks: request.candidates.map(|c| c.masks),
            _cancel: cancel,
        })
    }

    /// Runs logic work on the solver threads, short lane first (see [`crate::scheduling::pool::Pool::run_sliced`]),
    /// each try with `options` stopping at its own deadline; pool failures become statuses.
    async fn run<T: Send + 'static>(
        &self,
        tenant: Tenant,
        caller: Option<Instant>,
        options: RateOptions,
        mut work: impl FnMut(&RateOptions) -> Result<T, LogicError> + Send + 'static,
        stopped: fn(&Result<T, LogicError>) -> bool,
    ) -> Result<Result<T, LogicError>, Status> {
        let cap = self.shared.limits.max_solve_time;
        let run = move |until: Until| work(&until_deadline(&options, until.deadline));
        let ran = (self.shared.pool).run_sliced(tenant, caller, cap, run, stopped);
        Ok(ran.instrument(telemetry::work_span!("logic")).await?)
    }

    /// Checks a Validate request's grids: the player's grid (repeats allowed) and the puzzle.
    fn read_validate(
        &self,
        request: &pb::ValidateRequest,
    ) -> Result<(Entries, Option<Grid>), Status> {
        let wire = request
            .grid
            .as_ref()
            .ok_or_else(|| RequestError::MissingGrid.to_status_in("grid", None))?;
        let shape = Shape::new(wire.box_rows as usize, wire.box_cols as usize).ok();
        let entries = (self.shared.limits.check_wire_side(wire))
            .and_then(|()| Ok(entries_from_pb(wire)?))
            .map_err(|e: RequestError| e.to_status_in("grid", shape))?;
        let Some(puzzle) = request.puzzle.as_ref() else {
            return Ok((entries, None));
        };
        let puzzle = self.read_grid(Some(puzzle), "puzzle")?;
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
        let cancel = CancelOnDrop::default();
        let mut options = self.shared.limits.uniqueness(deadline);
        options.limits.cancel = Some(cancel.0.clone());
        let side = puzzle.side();
        let job = Job::new(puzzle, options, self.shared.limits.max_solve_time);
        let work = telemetry::work_span!("solve");
        let solution = self.shared.pool.solve(tenant, job).instrument(work).await?;
        telemetry::record_solve(&Span::current(), side, &solution);
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
pub(crate) struct LogicCall {
    pub(crate) tenant: Tenant,
    /// The client's deadline, if it set one.
    pub(crate) deadline: Option<Instant>,
    pub(crate) grid: Grid,
    pub(crate) options: RateOptions,
    pub(crate) marks: Option<Vec<u64>>,
    /// Raises the engine's cancel flag when the call is dropped.
    pub(crate) _cancel: CancelOnDrop,
}

/// The logic engine's options: the request's, and `cancel`, a flag the call raises when it
/// is dropped; the deadline is set where the work runs (see [`until_deadline`]).
pub(crate) fn logic_options(
    wire: Option<pb::LogicOptions>,
    cancel: &Arc<AtomicBool>,
) -> RateOptions {
    RateOptions {
        uniqueness: !wire.unwrap_or_default().no_uniqueness_techniques,
        limits: solver_core::Limits {
            cancel: Some(cancel.clone()),
            ..solver_core::Limits::default()
        },
        ..RateOptions::default()
    }
}

/// `options` for one try of logic work, which stops at `deadline`.
pub(crate) fn until_deadline(options: &RateOptions, deadline: Instant) -> RateOptions {
    RateOptions {
        limits: solver_core::Limits {
            deadline: Some(deadline),
            ..options.limits.clone()
        },
        ..options.clone()
    }
}

/// Whether a rating stopped at its deadline (the end of its slice, or of its time).
pub(crate) fn rating_stopped(rating: &Result<logic::Rating, LogicError>) -> bool {
    match rating {
        Ok(rating) => rating.end == logic::End::Stopped(StopReason::Deadline),
        Err(err) => stopped_at_deadline(err),
    }
}

/// Whether logic work failed only because it ran out of time.
fn stopped_at_deadline(err: &LogicError) -> bool {
    matches!(err, LogicError::Stopped(StopReason::Deadline))
}

/// The answer to logic work that failed: a message with its verdict (made by `answer`) where
/// the failure is one, else the caller's fault as INVALID_ARGUMENT.
pub(crate) fn verdict_answer<M>(
    err: &LogicError,
    answer: impl FnOnce(i32) -> M,
) -> Result<M, Status> {
    if let Some(verdict) = verdict_of(err) {
        return Ok(answer(verdict.into()));
    }
    let field = match err {
        LogicError::MarksCount { .. } => "candidates.masks",
        _ => "grid",
    };
    Err(crate::status::bad_request(field, err.to_string()))
}

#[tonic::async_trait]
impl pb::puzzles_server::Puzzles for PuzzlesService {
    async fn rate(
        &self,
        request: Request<pb::RateRequest>,
    ) -> Result<Response<pb::RateResponse>, Status> {
        let deadline = client_deadline(request.metadata());
        let tenant = Tenant::of(request.remote_addr());
        let request = request.into_inner();
        (self.shared.limits.check_id(&request.id)).map_err(|e| e.to_status(None))?;
        let grid = self.read_grid(request.puzzle.as_ref(), "puzzle")?;
        let cancel = CancelOnDrop::default();
        let options = logic_options(request.options, &cancel.0);
        let side = grid.side();
        let work = move |options: &RateOptions| logic::rate(&grid, options);
        let rating = self
            .run(tenant, deadline, options, work, rating_stopped)
            .await?;
        let rated = rating.as_ref().ok().map(logic::Rating::rating);
        telemetry::record_logic(&Span::current(), side, rated);
        let mut answer = match rating {
            Ok(rating) => rating_to_pb(&rating),
            Err(err) => verdict_answer(&err, |verdict| pb::RateResponse {
                verdict,
                ..pb::RateResponse::default()
            })?,
        };
        answer.id = request.id;
        Ok(Response::new(answer))
    }

    type BatchRateStream = crate::batch::Answers<pb::RateResponse>;

    async fn batch_rate(
        &self,
        request: Request<Streaming<pb::RateRequest>>,
    ) -> Result<Response<Self::BatchRateStream>, Status> {
        super::sudoku::serve_batch(&self.shared, request)
    }

    async fn hint(
        &self,
        request: Request<pb::HintRequest>,
    ) -> Result<Response<pb::HintResponse>, Status> {
        let call = self.logic_call(request)?;
        telemetry::record_logic(&Span::current(), call.grid.side(), None);
        // The call keeps its cancel guard until the answer is made.
        let (grid, marks) = (call.grid, call.marks);
        let work = move |options: &RateOptions| logic::hint(&grid, marks.as_deref(), options);
        let stopped = |hint: &Result<_, LogicError>| hint.as_ref().is_err_and(stopped_at_deadline);
        let hint = self
            .run(call.tenant, call.deadline, call.options, work, stopped)
            .await?;
        let answer = match hint {
            Ok(hint) => pb::HintResponse {
                verdict: pb::Verdict::Unique.into(),
                step: hint.step.as_ref().map(pb::Step::from),
                wrong_candidates: hint.wrong_marks.iter().map(pb::Cell::from).collect(),
                solved: hint.solved,
            },
            Err(err) => verdict_answer(&err, |verdict| pb::HintResponse {
                verdict,
                ..pb::HintResponse::default()
            })?,
        };
        Ok(Response::new(answer))
    }

    type ExplainStream = Answers<pb::ExplainResponse>;

    async fn explain(
        &self,
        request: Request<pb::HintRequest>,
    ) -> Result<Response<Self::ExplainStream>, Status> {
        let call = self.logic_call(request)?;
        telemetry::record_logic(&Span::current(), call.grid.side(), None);
        let started = Explaining::start(self.shared.clone(), call).await?;
        let (tx, rx) = mpsc::channel(2);
        match started {
            Started::Explaining(started) => {
                let (explaining, explainer) = *started;
                tokio::spawn(explaining.stream(explainer, tx).in_current_span());
            }
            Started::Verdict(verdict) => {
                // Room for one: the channel is new.
                let _ = tx.try_send(Ok(verdict));
            }
        }
        Ok(Response::new(Answers::new(rx)))
    }

    async fn validate(
        &self,
        request: Request<pb::ValidateRequest>,
    ) -> Result<Response<pb::ValidateResponse>, Status> {
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
        request: Request<pb::GenerateRequest>,
    ) -> Result<Response<Self::GenerateStream>, Status> {
        let deadline = client_deadline(request.metadata());
        let tenant = Tenant::of(request.remote_addr());
        let order = crate::rpc::generate::order(request.get_ref(), &self.shared)?;
        let rx = crate::rpc::generate::stream(self.shared.clone(), order, tenant, deadline);
        Ok(Response::new(Answers::new(rx)))
    }
}
