//! The Sudoku gRPC server as a library, so the binary, the CLI and tests start the same thing.
//!
//! [`start`] binds, serves `sudoku.v1.Sudoku`, `grpc.health.v1.Health` and server reflection
//! (v1 and v1alpha), and optionally Prometheus metrics; [`Server::shutdown`] drains it.
#![deny(missing_docs)]

mod batch;
mod config;
mod metrics;
mod pool;
mod respond;
mod service;
mod shutdown;
mod status;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use sudoku_proto::pb::sudoku_server::SudokuServer;
use tokio::net::TcpListener;
use tokio::sync::{Notify, Semaphore, oneshot};
use tokio::task::JoinHandle;
use tonic::codec::CompressionEncoding;
use tonic::transport::server::TcpIncoming;
use tonic::transport::{Identity, ServerTlsConfig};

pub use config::{Config, LogFormat, OptionalAddr};
pub use metrics::Metrics;
pub use shutdown::signal;

use crate::pool::Pool;
use crate::respond::Limits;
use crate::service::{Shared, SudokuService};

/// Time between NOT_SERVING and closing the listener, for watchers to hear it.
const NOT_SERVING_NOTICE: Duration = Duration::from_millis(100);
/// TCP keepalive probe interval on accepted connections.
const TCP_KEEPALIVE: Duration = Duration::from_secs(60);
/// HTTP/2 flow-control window per stream.
const STREAM_WINDOW: u32 = 1 << 20;
/// HTTP/2 flow-control window per connection.
const CONNECTION_WINDOW: u32 = 4 << 20;

/// A running server.
pub struct Server {
    addr: SocketAddr,
    metrics_addr: Option<SocketAddr>,
    metrics: Arc<Metrics>,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<anyhow::Result<()>>,
}

impl Server {
    /// The gRPC address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The metrics address, if metrics are served.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics_addr
    }

    /// The live metrics.
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    /// Drains: health goes NOT_SERVING, the listener closes, calls in flight get the grace
    /// period to finish.
    pub async fn shutdown(mut self) -> anyhow::Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.task.await.context("server task panicked")?
    }
}

/// Binds `config.listen` and starts serving in the background.
pub async fn start(config: Config) -> anyhow::Result<Server> {
    let listener = TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("cannot listen on {}", config.listen))?;
    start_on(listener, config).await
}

/// Starts serving on a listener the caller bound.
pub async fn start_on(listener: TcpListener, config: Config) -> anyhow::Result<Server> {
    let addr = listener.local_addr()?;
    let metrics = Arc::new(Metrics::new());
    let workers = config.worker_count();
    let shared = Arc::new(Shared {
        pool: Pool::new(workers, metrics.clone())?,
        limits: Limits {
            max_grid_side: config.max_grid_side,
            max_guesses: config.max_guesses,
            max_solve_time: config.max_solve_time(),
        },
        metrics: metrics.clone(),
        requests: Arc::new(Semaphore::new(config.max_concurrent_requests)),
        max_requests: config.max_concurrent_requests,
        batch_window: config.batch_window.clamp(1, config::MAX_BATCH_WINDOW),
    });

    let (health, health_service) = tonic_health::server::health_reporter();
    health.set_serving::<SudokuServer<SudokuService>>().await;
    let reflection = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(sudoku_proto::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
    };
    let reflection_v1 = reflection().build_v1()?;
    let reflection_v1alpha = reflection().build_v1alpha()?;

    // Every service accepts and answers gzip and zstd, health and reflection included.
    macro_rules! compressed {
        ($service:expr) => {
            $service
                .accept_compressed(CompressionEncoding::Gzip)
                .accept_compressed(CompressionEncoding::Zstd)
                .send_compressed(CompressionEncoding::Gzip)
                .send_compressed(CompressionEncoding::Zstd)
        };
    }
    let sudoku = compressed!(
        SudokuServer::new(SudokuService::new(shared))
            .max_decoding_message_size(config.max_message_bytes)
    );

    let mut builder = tonic::transport::Server::builder()
        .max_concurrent_streams(Some(config.max_streams_per_connection))
        .http2_keepalive_interval(Some(Duration::from_secs(30)))
        .http2_keepalive_timeout(Some(Duration::from_secs(10)))
        // Batch streams carry thousands of small messages: wide flow-control windows keep
        // them from waiting on WINDOW_UPDATE round trips.
        .initial_stream_window_size(Some(STREAM_WINDOW))
        .initial_connection_window_size(Some(CONNECTION_WINDOW));
    if let (Some(cert), Some(key)) = (&config.tls_cert, &config.tls_key) {
        let cert =
            std::fs::read(cert).with_context(|| format!("cannot read {}", cert.display()))?;
        let key = std::fs::read(key).with_context(|| format!("cannot read {}", key.display()))?;
        builder =
            builder.tls_config(ServerTlsConfig::new().identity(Identity::from_pem(cert, key)))?;
    }
    let router = builder
        .add_service(sudoku)
        .add_service(compressed!(health_service))
        .add_service(compressed!(reflection_v1))
        .add_service(compressed!(reflection_v1alpha));

    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let draining = Arc::new(Notify::new());
    let metrics_stop = Arc::new(Notify::new());

    let metrics_addr = match config.metrics_listen.0 {
        Some(metrics_listen) => {
            let listener = TcpListener::bind(metrics_listen)
                .await
                .with_context(|| format!("cannot listen on {metrics_listen} for metrics"))?;
            let bound = listener.local_addr()?;
            let stop = metrics_stop.clone();
            let metrics = metrics.clone();
            tokio::spawn(async move {
                if let Err(err) =
                    metrics::serve(listener, metrics, async move { stop.notified().await }).await
                {
                    tracing::error!(%err, "metrics server failed");
                }
            });
            Some(bound)
        }
        None => None,
    };
    tracing::info!(%addr, metrics = %metrics::describe(metrics_addr), workers, "serving");

    let grace = config.grace();
    let signal_drain = draining.clone();
    let task = tokio::spawn(async move {
        let on_stop = async move {
            let _ = stop_rx.await;
            tracing::info!(grace_ms = grace.as_millis() as u64, "draining");
            health
                .set_not_serving::<SudokuServer<SudokuService>>()
                .await;
            // "" is the whole server, what probes and meshes ask about by default.
            health
                .set_service_status("", tonic_health::ServingStatus::NotServing)
                .await;
            // Let health watchers hear NOT_SERVING before connections get GOAWAY.
            tokio::time::sleep(NOT_SERVING_NOTICE).await;
            signal_drain.notify_one();
        };
        // serve_with_incoming ignores the builder's TCP settings: set them on the incoming side,
        // or Nagle's algorithm adds 40 ms stalls to small messages.
        let incoming = TcpIncoming::from(listener)
            .with_nodelay(Some(true))
            .with_keepalive(Some(TCP_KEEPALIVE));
        let serve = router.serve_with_incoming_shutdown(incoming, on_stop);
        tokio::pin!(serve);
        let result = tokio::select! {
            result = &mut serve => result,
            () = draining.notified() => match tokio::time::timeout(grace, &mut serve).await {
                Ok(result) => result,
                Err(_) => {
                    tracing::warn!("grace period over; closing the calls still open");
                    Ok(())
                }
            },
        };
        metrics_stop.notify_one();
        tracing::info!("stopped");
        result.context("gRPC server failed")
    });
    Ok(Server {
        addr,
        metrics_addr,
        metrics,
        stop: Some(stop_tx),
        task,
    })
}
