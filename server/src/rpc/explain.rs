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
use crate::scheduling::pool::CancelOnDrop;
use crate::telemetry;

/// Steps made per piece of work: enough that a piece's cost dwarfs its hand-over, few enough
/// that an unread stream holds little (a 25×25 step's message is up to a few KiB).
const RUN: u64 = 8;

/// An explanation under way: where it is, and what its call may still spend.
pub(crate) struct Explaining {
    shared: Arc<Shared>,
    tenant: Tenant,
    caller: Option<Instant>,
    options: RateOptions,
    explainer: Explainer,
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
    /// Steps to come.
    Explaining(Box<Explaining>),
    /// No unique solution, or the check for one stopped: one message with the verdict.
    Verdict(pb::ExplainResponse),
}

impl Explaining {
    /// Checks that the call's grid has one solution and sets out to explain it: a Status for a
    /// request at fault, a verdict where there is nothing to explain.
    pub(crate) async fn start(shared: Arc<Shared>, call: LogicCall) -> Result<Started, Status> {
        let cap = shared.limits.max_solve_time;
        let (tenant, caller) = (call.tenant, call.deadline);
        let grid = Arc::new((call.grid, call.marks));
        let mut short = true;
        let mut spent = Duration::ZERO;
        let work = telemetry::logic_span();
        let explainer = loop {
            let until = Until::for_piece(short, caller, cap.saturating_sub(spent));
            let options = until_deadline(&call.options, until.deadline);
            let grid = grid.clone();
            let begun = Instant::now();
            let made = shared
                .pool
                .run_piece(tenant, short, move || {
                    Explainer::new(&grid.0, grid.1.as_deref(), &options)
                })
                .instrument(work.clone())
                .await?;
            spent += begun.elapsed();
            match made {
                Ok(explainer) => break explainer,
                Err(LogicError::Stopped(StopReason::Deadline)) if until.slice => short = false,
                Err(err) => {
                    let verdict = verdict_answer(&err, |verdict| pb::ExplainResponse {
                        verdict,
                        ..pb::ExplainResponse::default()
                    });
                    return verdict.map(Started::Verdict);
                }
            }
        };
        Ok(Started::Explaining(Box::new(Explaining {
            shared,
            tenant,
            caller,
            options: call.options,
            explainer,
            short,
            spent,
            work,
            _cancel: call._cancel,
        })))
    }

    /// Makes and sends the steps, a run at a time, then the verdict; stops when the client
    /// leaves.
    pub(crate) async fn stream(mut self, tx: mpsc::Sender<Result<pb::ExplainResponse, Status>>) {
        let cap = self.shared.limits.max_solve_time;
        let mut wrong: Vec<pb::Cell> = self
            .explainer
            .wrong_marks()
            .iter()
            .map(pb::Cell::from)
            .collect();
        loop {
            let until = Until::for_piece(self.short, self.caller, cap.saturating_sub(self.spent));
            let options = until_deadline(&self.options, until.deadline);
            let mut explainer = self.explainer;
            let begun = Instant::now();
            let piece = self
                .shared
                .pool
                .run_piece(self.tenant, self.short, move || {
                    let (steps, end) = explainer.next_steps(RUN, &options);
                    (explainer, steps, end)
                })
                .instrument(self.work.clone())
                .await;
            self.spent += begun.elapsed();
            let (explainer, steps, end) = match piece {
                Ok(piece) => piece,
                Err(err) => {
                    let _ = tx.send(Err(err.into())).await;
                    return;
                }
            };
            self.explainer = explainer;
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
