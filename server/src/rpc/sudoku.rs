//! The `sudoku.v1.Sudoku` handlers: admission, deadlines, and solving off the executor.

use std::sync::Arc;
use std::time::{Duration, Instant};

use solver_core::{Shape, StopReason};
use sudoku_proto::{SOLVE_STOPPED, pb};
use tonic::metadata::MetadataMap;
use tonic::{Code, Request, Response, Status, Streaming};
use tracing::Instrument;

use crate::Shared;
use crate::admission::streams::StreamRoom;
use crate::batch::Caller;
use crate::scheduling::lanes::Tenant;
use crate::scheduling::pool::CancelOnDrop;
use crate::solving::{prepare, response, stopped_for};
use crate::status::with_error_info;
use crate::telemetry;

/// The Sudoku service; cheap to clone.
#[derive(Clone)]
pub struct SudokuService {
    pub(crate) shared: Arc<Shared>,
}

/// The DEADLINE_EXCEEDED of a solve the caller's deadline stopped, with the work done in its
/// `ErrorInfo` (reason [`sudoku_proto::SOLVE_STOPPED`]), so that clients keep the stats a
/// stopped answer has.
fn stopped_status(stats: &solver_core::solve::Stats) -> Status {
    let (micros, guesses) = (stats.elapsed.as_micros(), stats.guesses);
    let algorithm = pb::Algorithm::from(stats.algorithm).as_str_name();
    let metadata = [
        ("guesses", guesses.to_string()),
        ("solve_micros", micros.to_string()),
        ("algorithm", algorithm.to_owned()),
    ];
    let message = format!("deadline exceeded after {guesses} guesses in {micros} µs");
    with_error_info(Code::DeadlineExceeded, message, SOLVE_STOPPED, metadata)
}

#[tonic::async_trait]
impl pb::sudoku_server::Sudoku for SudokuService {
    async fn solve(
        &self,
        request: Request<pb::SolveRequest>,
    ) -> Result<Response<pb::SolveResponse>, Status> {
        let deadline = client_deadline(request.metadata());
        let tenant = Tenant::of(request.remote_addr());
        let request = request.into_inner();
        let wire = request.puzzle.as_ref();
        let shape = wire.and_then(|p| Shape::new(p.box_rows as usize, p.box_cols as usize).ok());
        let mut job =
            prepare(&request, &self.shared.limits, deadline).map_err(|e| e.to_status(shape))?;
        // Dropping this future (client cancel, disconnect) raises the flag and frees the core.
        let cancel = CancelOnDrop::default();
        job.cancel_with(cancel.0.clone());
        let side = shape.map_or(0, |s| s.side());
        let work = telemetry::work_span!("solve");
        let solution = self.shared.pool.solve(tenant, job).instrument(work).await?;
        let stopped_by_caller = stopped_for(&solution.outcome, StopReason::Deadline)
            && deadline.is_some_and(|d| Instant::now() >= d);
        telemetry::record_solve(&tracing::Span::current(), side, &solution);
        if stopped_by_caller {
            return Err(stopped_status(&solution.stats));
        }
        Ok(Response::new(response(request.id, 0, &solution)))
    }

    type BatchSolveStream = crate::batch::Answers<pb::SolveResponse>;

    async fn batch_solve(
        &self,
        request: Request<Streaming<pb::SolveRequest>>,
    ) -> Result<Response<Self::BatchSolveStream>, Status> {
        serve_batch(&self.shared, request)
    }

    type BatchSolvePackedStream = crate::batch::Answers<pb::PackedAnswers>;

    async fn batch_solve_packed(
        &self,
        request: Request<Streaming<pb::PackedPuzzles>>,
    ) -> Result<Response<Self::BatchSolvePackedStream>, Status> {
        serve_batch(&self.shared, request)
    }
}

/// Starts a batch stream of any kind (BatchSolve, BatchSolvePacked, BatchRate).
pub(crate) fn serve_batch<M: crate::batch::Batched>(
    shared: &Arc<Shared>,
    request: Request<Streaming<M>>,
) -> Result<Response<crate::batch::Answers<M::Answer>>, Status> {
    let caller = Caller {
        deadline: client_deadline(request.metadata()),
        tenant: Tenant::of(request.remote_addr()),
        stream: StreamRoom::of(&request),
    };
    let stream = crate::batch::spawn(shared.clone(), request.into_inner(), caller);
    Ok(Response::new(stream))
}

/// When the solver must stop to answer within the caller's `grpc-timeout`.
///
/// Tonic's own timeout answers CANCELLED when the time is up, so the solver stops a little
/// earlier and the call ends with our DEADLINE_EXCEEDED instead: 25 ms plus 5% (at most half
/// the time), room for a loaded machine to schedule the solver thread and the answer.
pub(crate) fn client_deadline(metadata: &MetadataMap) -> Option<Instant> {
    let timeout = parse_timeout(metadata.get("grpc-timeout")?.to_str().ok()?)?;
    let margin = (Duration::from_millis(25) + timeout / 20).min(timeout / 2);
    Some(Instant::now() + timeout - margin)
}

/// Parses a `grpc-timeout` value: up to 8 digits and a unit (H, M, S, m, u, n).
fn parse_timeout(value: &str) -> Option<Duration> {
    let split = value.len().checked_sub(1)?;
    let (digits, unit) = (value.get(..split)?, value.get(split..)?);
    if digits.is_empty() || digits.len() > 8 {
        return None;
    }
    let n: u64 = digits.parse().ok()?;
    Some(match unit {
        "H" => Duration::from_secs(n * 3600),
        "M" => Duration::from_secs(n * 60),
        "S" => Duration::from_secs(n),
        "m" => Duration::from_millis(n),
        "u" => Duration::from_micros(n),
        "n" => Duration::from_nanos(n),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_grpc_timeouts() {
        assert_eq!(parse_timeout("100m"), Some(Duration::from_millis(100)));
        assert_eq!(parse_timeout("2S"), Some(Duration::from_secs(2)));
        assert_eq!(parse_timeout("1H"), Some(Duration::from_secs(3600)));
        assert_eq!(parse_timeout("5u"), Some(Duration::from_micros(5)));
        assert_eq!(parse_timeout("m"), None);
        assert_eq!(parse_timeout("123456789S"), None);
        assert_eq!(parse_timeout("10x"), None);
        assert_eq!(parse_timeout("1é"), None);
        assert_eq!(parse_timeout(""), None);
    }
}
