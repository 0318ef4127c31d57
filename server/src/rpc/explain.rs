//! Explain: an explanation made a run of steps at a time on the solver threads, each run
//! handed to the client before the next is made, so a call holds one run of steps at most
//! and no solver thread ever waits for a client to read.

use std::sync::Arc;
use std::time::{Duration, Instant};

use solver_core::StopReason;
use solver_core::logic::{End, Explainer, LogicError, RateOptions};
use sudoku_proto::pb;
use tokio::sync::mpsc;
use tonic::Status;
use tracing::{Instrument, Span};

use crate::Shared;
use crate::rpc::puzzles::{LogicCall, until_deadline, verdict_answer};
use crate::scheduling::lanes::Tenant;
use crate::scheduling::logic::Until;
use crate::scheduling::pool::{CancelOnDrop, PoolError};
use crate::telemetry;

/// Steps made per piece of work: enough that a piece's cost dwarfs its hand-over, few enough
/// that an unread stream holds little (a 25×25 step's message is up to a few KiB).
const RUN: u64 = 8;

/// An explanation under way: what its call may still spend.
pub(crate) struct Explaining {
    shared: Arc<Shared>,
    tenant: Tenant,
    caller: Option<Instant>,
    options: RateOptions,
    /// Whether its next piece of work goes in the short lane, for a slice, or in the long
    /// lane for what is left of the call's cap.
    short: bool,
    /// Solver time spent so far, against the server's cap.
    spent: Duration,
    /// The span of the whole explanation's work, every piece in it; it ends with the last.
    work: Span,
    /// Raises the engine's cancel flag when the explanation is dropped.
    _cancel: CancelOnDrop,
}

/// How a started explanation reads to the client when there is nothing to explain.
pub(crate) enum Started {
    /// Steps to come, from the explainer.
    Explaining(Box<(Explaining, Explainer)>),
    /// No unique solution, or the check for one stopped: one message with the verdict.
    Verdict(pb::ExplainResponse),
}

impl Explaining {
    /// Checks that the call's grid has one solution and sets out to explain it: a Status for a
    /// request at fault, a verdict where there is nothing to explain.
    pub(crate) async fn start(shared: Arc<Shared>, call: LogicCall) -> Result<Started, Status> {
        let grid = Arc::new((call.grid, call.marks));
        let mut this = Explaining {
            shared,
            tenant: call.tenant,
            caller: call.deadline,
            options: call.options,
            short: true,
            spent: Duration::ZERO,
            work: telemetry::work_span!("logic"),
            _cancel: call._cancel,
        };
        loop {
            let grid = grid.clone();
            let made =
                move |options: RateOptions| Explainer::new(&grid.0, grid.1.as_deref(), &options);
            match this.run(made).await? {
                (Ok(explainer), _) => return Ok(Started::Explaining(Box::new((this, explainer)))),
                (Err(LogicError::Stopped(StopReason::Deadline)), until) if until.slice => {
                    this.short = false;
                }
                (Err(err), _) => {
                    let verdict = verdict_answer(&err, |verdict| pb::ExplainResponse {
                        verdict,
                        ..pb::ExplainResponse::default()
                    });
                    return verdict.map(Started::Verdict);
                }
            }
        }
    }

    /// Runs `work` as the explanation's next piece, with options that stop at the piece's
    /// deadline, in the lane `short` says; what it made, and when it had to stop.
    async fn run<T: Send + 'static>(
        &mut self,
        work: impl FnOnce(RateOptions) -> T + Send + 'static,
    ) -> Result<(T, Until), PoolError> {
        let cap = self.shared.limits.max_solve_time;
        let until = Until::for_piece(self.short, self.caller, cap.saturating_sub(self.spent));
        let options = until_deadline(&self.options, until.deadline);
        let begun = Instant::now();
        let made = (self.shared.pool)
            .run_piece(self.tenant, self.short, move || work(options))
            .instrument(self.work.clone())
            .await;
        self.spent += begun.elapsed();
        Ok((made?, until))
    }

    /// Makes and sends the steps of `explainer`, a run at a time, then the verdict; stops when
    /// the client leaves.
    pub(crate) async fn stream(
        mut self,
        mut explainer: Explainer,
        tx: mpsc::Sender<Result<pb::ExplainResponse, Status>>,
    ) {
        let cap = self.shared.limits.max_solve_time;
        let mut wrong: Vec<pb::Cell> = explainer.wrong_marks().iter().map(pb::Cell::from).collect();
        loop {
            let piece = self.run(move |options| {
                let (steps, end) = explainer.next_steps(RUN, &options);
                (explainer, steps, end)
            });
            let ((made, steps, end), until) = match piece.await {
                Ok(piece) => piece,
                Err(err) => {
                    let _ = tx.send(Err(err.into())).await;
                    return;
                }
            };
            explainer = made;
            for step in &steps {
                // The first message also carries the wrong pencil marks.
                let message = pb::ExplainResponse {
                    step: Some(step.into()),
                    wrong_candidates: std::mem::take(&mut wrong),
                    ..pb::ExplainResponse::default()
                };
                if tx.send(Ok(message)).await.is_err() {
                    return;
                }
            }
            let end = match end {
                None => continue,
                Some(End::Stopped(StopReason::Deadline)) if until.slice && self.spent < cap => {
                    self.short = false;
                    continue;
                }
                Some(end) => end,
            };
            // How the solve ended, with the wrong marks where no step carried them.
            let last = pb::ExplainResponse {
                verdict: match end {
                    End::Stopped(_) => pb::Verdict::Stopped,
                    _ => pb::Verdict::Unique,
                }
                .into(),
                solved: end == End::Solved,
                wrong_candidates: wrong,
                ..pb::ExplainResponse::default()
            };
            let _ = tx.send(Ok(last)).await;
            return;
        }
    }
}
