//! State every call shares, and admission: the one place a call gets (or is refused) a slot.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tonic::Status;

use crate::config::{self, Config};
use crate::metrics::Metrics;
use crate::pool::Pool;
use crate::respond::Limits;

/// State shared by every call.
pub(crate) struct Shared {
    pub(crate) pool: Pool,
    pub(crate) limits: Limits,
    requests: Arc<Semaphore>,
    max_requests: usize,
    pub(crate) batch_window: usize,
    /// Bytes every batch stream together may hold in requests read and answers unsent.
    pub(crate) bytes: Arc<Semaphore>,
    /// The size of `bytes`: a message that would hold more takes all of it.
    pub(crate) buffered_bytes: usize,
    /// Bytes one batch stream may hold.
    pub(crate) stream_bytes: usize,
    /// How long a batch stream may go without reading, solving or sending.
    pub(crate) stream_idle: Option<Duration>,
}

impl Shared {
    /// Starts the solver threads and sets the limits from `config`.
    pub(crate) fn new(config: &Config, metrics: Arc<Metrics>) -> anyhow::Result<Shared> {
        Ok(Shared {
            pool: Pool::new(config.worker_count(), metrics)?,
            limits: Limits::from(config),
            requests: Arc::new(Semaphore::new(config.max_concurrent_requests)),
            max_requests: config.max_concurrent_requests,
            batch_window: config.batch_window.clamp(1, config::MAX_BATCH_WINDOW),
            bytes: Arc::new(Semaphore::new(config.max_buffered_bytes)),
            buffered_bytes: config.max_buffered_bytes,
            stream_bytes: config.max_stream_bytes,
            stream_idle: config.stream_idle(),
        })
    }

    /// A slot among the concurrent RPCs, or RESOURCE_EXHAUSTED: shed load, never queue it.
    pub(crate) fn admit(&self) -> Result<OwnedSemaphorePermit, Status> {
        self.requests.clone().try_acquire_owned().map_err(|_| {
            Status::resource_exhausted(format!(
                "server busy: {} requests already in progress; retry with backoff",
                self.max_requests
            ))
        })
    }
}
