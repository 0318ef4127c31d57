//! State every call shares.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Semaphore;

use crate::admission::Admission;
use crate::config::{self, Config};
use crate::metrics::Metrics;
use crate::rpc::solving::Limits;
use crate::scheduling::pool::Pool;

/// State shared by every call.
pub(crate) struct Shared {
    pub(crate) pool: Pool,
    pub(crate) limits: Limits,
    /// The receive budget and the idle timeout.
    pub(crate) admission: Arc<Admission>,
    pub(crate) batch_window: usize,
    /// Bytes every batch stream together may hold in requests read and answers unsent.
    pub(crate) bytes: Arc<Semaphore>,
    /// The size of `bytes`: a message that would hold more takes all of it.
    pub(crate) buffered_bytes: usize,
    /// Bytes of batch messages read but waiting for room in `bytes` or their stream's budget
    /// (as large as `bytes`): a message that finds none ends its stream, so what waits is
    /// bounded however many streams wait.
    pub(crate) waiting: Arc<Semaphore>,
    /// Bytes the message buffers of open batch streams keep.
    pub(crate) kept: crate::batch::Kept,
    /// Every open batch stream, as the budgets above see it.
    pub(crate) holders: Arc<crate::batch::Holders>,
    /// Bytes one batch stream may hold.
    pub(crate) stream_bytes: usize,
    /// How long a batch stream may go without reading, solving or sending.
    pub(crate) stream_idle: Option<Duration>,
}

impl Shared {
    /// Starts the solver threads and sets the limits from `config`.
    pub(crate) fn new(config: &Config, metrics: Arc<Metrics>) -> anyhow::Result<Shared> {
        let bytes = Arc::new(Semaphore::new(config.max_buffered_bytes));
        let waiting = Arc::new(Semaphore::new(config.max_buffered_bytes));
        let kept = crate::batch::Kept::new(config.max_kept_bytes);
        let holders = crate::batch::Holders::new(
            Duration::from_millis(config.kept_idle_ms),
            [kept.room(), bytes.clone(), waiting.clone()],
        );
        Ok(Shared {
            pool: Pool::new(config.worker_count(), config.solvers_yield, metrics)?,
            limits: Limits::from(config),
            admission: Arc::new(Admission::new(config)),
            batch_window: config.batch_window.clamp(1, config::MAX_BATCH_WINDOW),
            bytes,
            buffered_bytes: config.max_buffered_bytes,
            waiting,
            kept,
            holders: Arc::new(holders),
            stream_bytes: config.max_stream_bytes,
            stream_idle: config.stream_idle(),
        })
    }
}
