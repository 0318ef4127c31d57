//! The Sudoku gRPC server as a library, so the binary, the CLI and tests start the same thing.
//!
//! [`start`] binds, serves `sudoku.v1.Sudoku`, `sudoku.v1.Puzzles`, `grpc.health.v1.Health` and server reflection
//! (v1 and v1alpha), the page at `/` (unless `--no-page`), and optionally Prometheus metrics;
//! [`Server::shutdown`] drains it.
//! [`start_in_memory`] serves the same (but reflection) to this process alone, through memory.
#![deny(missing_docs)]

/// Makes `$name<()>` the tower layer that wraps a service in `$name`, made by
/// `$name::layer` from the other fields, which it clones into each service it wraps.
macro_rules! wrapping_layer {
    ($name:ident { $($field:ident: $ty:ty),+ }) => {
        impl $name<()> {
            /// The layer that wraps services in this.
            pub(crate) fn layer($($field: $ty),+) -> $name<()> {
                $name { inner: (), $($field),+ }
            }
        }

        impl<S> tower::Layer<S> for $name<()> {
            type Service = $name<S>;

            fn layer(&self, inner: S) -> $name<S> {
                $name { inner, $($field: self.$field.clone()),+ }
            }
        }
    };
}
pub(crate) use wrapping_layer;

mod admission;
mod batch;
mod config;
mod metrics;
mod page;
mod rpc;
mod scheduling;
mod solving;
mod status;
pub mod telemetry;
mod transport;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use sudoku_proto::pb::puzzles_server::PuzzlesServer;
use sudoku_proto::pb::sudoku_server::SudokuServer;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::sync::{Notify, oneshot};
use tokio::task::JoinHandle;
use tonic::codec::CompressionEncoding;
use tonic::transport::server::{Connected, Router};
use tonic::transport::{Identity, ServerTlsConfig};
use tonic_web::GrpcWebLayer;
use tower::layer::util::{Identity as NoLayer, Stack};
use tower_http::cors::{AllowOrigin, CorsLayer};

pub use config::{Config, ConfigError, LogFormat, OptionalAddr, cores};
pub use metrics::Metrics;
pub use transport::in_process::Dialer;
pub use transport::shutdown::Signal;

use crate::admission::{Admission, Admitted};
use crate::metrics::layer::Counted;
use crate::page::PageOr;
use crate::rpc::health::Health;
use crate::rpc::puzzles::PuzzlesService;
use crate::rpc::sudoku::SudokuService;
use crate::scheduling::pool::Pool;
use crate::solving::Limits;

/// HTTP/2 flow-control window per stream: what a client may send beyond what the server has
/// read. A stream that stops reading (its batch window is full because its client reads
/// slowly) leaves up to this much in h2's buffers as small DATA frames, and h2 sends GOAWAY
/// ENHANCE_YOUR_CALM ("too_many_data_frames") once their framing overhead passes half the
/// connection window. 64 KiB per stream, with 64 streams per connection, keeps ~100-byte
/// request frames under that line with every stream stalled.
const STREAM_WINDOW: u32 = 64 << 10;
/// HTTP/2 flow-control window per connection; h2 allows half of it in framing overhead.
const CONNECTION_WINDOW: u32 = 8 << 20;

/// A running server.
pub struct Server {
    addr: SocketAddr,
    metrics_addr: Option<SocketAddr>,
    running: Running,
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
        &self.running.metrics
    }

    /// Drains: health goes NOT_SERVING, the listener closes, calls in flight get the grace
    /// period to finish.
    pub async fn shutdown(self) -> anyhow::Result<()> {
        self.running.shutdown().await
    }
}

/// A running server that only this process reaches, through [`Dialer`]: no socket, no port.
pub struct InMemoryServer {
    dialer: Dialer,
    running: Running,
}

impl InMemoryServer {
    /// Opens connections to it.
    pub fn dialer(&self) -> &Dialer {
        &self.dialer
    }

    /// The live metrics.
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.running.metrics
    }

    /// Drains as [`Server::shutdown`] does; dialling fails from then on.
    pub async fn shutdown(self) -> anyhow::Result<()> {
        self.running.shutdown().await
    }
}

/// The serving task of either kind of server, and how to stop it.
struct Running {
    metrics: Arc<Metrics>,
    stop: oneshot::Sender<()>,
    task: JoinHandle<anyhow::Result<()>>,
}

impl Running {
    async fn shutdown(self) -> anyhow::Result<()> {
        let _ = self.stop.send(());
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
    let (metrics, health, router) = prepare(&config, true).await?;
    let metrics_stop = Arc::new(Notify::new());
    let metrics_addr = serve_metrics(&config, metrics.clone(), metrics_stop.clone()).await?;
    tracing::info!(
        %addr,
        metrics = %metrics::describe(metrics_addr),
        workers = config.worker_count(),
        "serving"
    );
    let incoming = transport::incoming::incoming(listener, &config, metrics.clone());
    let running = launch(router, incoming, health, &config, metrics, move || {
        metrics_stop.notify_one();
    });
    Ok(Server {
        addr,
        metrics_addr,
        running,
    })
}

/// Starts a server reached only through the returned [`InMemoryServer::dialer`], for a
/// client in this process: `config.listen` and the metrics listener are not used, and the
/// connection limits and handshake timeout (which guard a socket against strangers) do not
/// apply. Reflection is left out: no tool outside the process can reach it.
pub async fn start_in_memory(config: Config) -> anyhow::Result<InMemoryServer> {
    let (metrics, health, router) = prepare(&config, false).await?;
    let (dialer, accepted) = transport::in_process::pair();
    let running = launch(router, accepted, health, &config, metrics, || {});
    Ok(InMemoryServer { dialer, running })
}

/// Serves `incoming` in the background until stopped, then drains: NOT_SERVING first (health
/// watchers hear it and their streams end), the listener closes, and calls in flight get the
/// grace period to finish; `stopped` runs when it is over.
fn launch<I, IO>(
    router: Router<Layers>,
    incoming: I,
    health: Health,
    config: &Config,
    metrics: Arc<Metrics>,
    stopped: impl FnOnce() + Send + 'static,
) -> Running
where
    I: futures::Stream<Item = std::io::Result<IO>> + Send + 'static,
    IO: AsyncRead + AsyncWrite + Connected + Unpin + Send + 'static,
    IO::ConnectInfo: Clone + Send + Sync + 'static,
{
    let (stop, stopping) = oneshot::channel::<()>();
    let notice = Duration::from_millis(config.not_serving_notice_ms);
    let grace = Duration::from_millis(config.grace_ms);
    let draining = Arc::new(Notify::new());
    let signal_drain = draining.clone();
    let on_stop = async move {
        let _ = stopping.await;
        tracing::info!(grace_ms = grace.as_millis() as u64, "draining");
        health.drain().await;
        // Let health watchers hear NOT_SERVING before connections get GOAWAY. A zero notice
        // (the embedded server) skips the timer, which would still wait for its next tick
        // (up to a millisecond).
        if !notice.is_zero() {
            tokio::time::sleep(notice).await;
        }
        signal_drain.notify_one();
    };
    let task = tokio::spawn(async move {
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
        stopped();
        tracing::info!("stopped");
        result.context("gRPC server failed")
    });
    Running {
        metrics,
        stop,
        task,
    }
}

/// The HTTP/2 side: stream limits, keepalive, flow-control windows and TLS.
fn transport(config: &Config) -> anyhow::Result<tonic::transport::Server> {
    let mut builder = tonic::transport::Server::builder()
        .max_concurrent_streams(Some(config.max_streams_per_connection))
        .http2_keepalive_interval(Some(Duration::from_secs(30)))
        .http2_keepalive_timeout(Some(Duration::from_secs(10)))
        .initial_stream_window_size(Some(STREAM_WINDOW))
        .initial_connection_window_size(Some(CONNECTION_WINDOW));
    if let Some((age, grace)) = config.max_connection_age() {
        builder = builder
            .max_connection_age(age)
            .max_connection_age_grace(grace);
    }
    if let (Some(cert), Some(key)) = (&config.tls_cert, &config.tls_key) {
        let cert =
            std::fs::read(cert).with_context(|| format!("cannot read {}", cert.display()))?;
        let key = std::fs::read(key).with_context(|| format!("cannot read {}", key.display()))?;
        let tls = ServerTlsConfig::new()
            .identity(Identity::from_pem(cert, key))
            .timeout(config.handshake_timeout());
        builder = builder.tls_config(tls)?;
    }
    Ok(builder)
}

/// The layers around every service: the page (GETs of its own paths), CORS (for browsers on
/// other origins), gRPC-Web turned into gRPC, the metrics layer, then admission (before any
/// body is read) and compression. A gRPC-Web call is a gRPC call to every layer after the
/// third.
type Layers = Stack<
    Admitted<()>,
    Stack<Counted<()>, Stack<GrpcWebLayer, Stack<CorsLayer, Stack<PageOr<()>, NoLayer>>>>,
>;

/// What either kind of server serves with, `config` checked first: its metrics, its health
/// service and every service it answers, each accepting and answering gzip and zstd (by
/// [`Admitted`]), with every call counted by the metrics layer; server reflection where
/// `reflection` (building its index costs start-up time a short-lived server notices).
async fn prepare(
    config: &Config,
    reflection: bool,
) -> anyhow::Result<(Arc<Metrics>, Health, Router<Layers>)> {
    config.check()?;
    let metrics = Arc::new(Metrics::new());
    let shared = Arc::new(Shared::new(config, metrics.clone())?);
    let health = Health::new().await;
    // Every service takes messages up to the size `admission::methods::message_limit` gives it: the
    // receive budget charges nothing for one its header shows to be larger (see `admission`), so
    // none may buffer one.
    let largest = config.largest_message();
    let control = largest.min(admission::methods::CONTROL_MESSAGE_BYTES);
    macro_rules! compressed {
        ($service:expr, $limit:expr) => {
            $service
                .max_decoding_message_size($limit)
                // Never used (messages are expanded before tonic sees them), but listed in
                // the grpc-accept-encoding tonic answers with.
                .accept_compressed(CompressionEncoding::Gzip)
                .accept_compressed(CompressionEncoding::Zstd)
        };
    }
    let sudoku = SudokuServer::new(SudokuService {
        shared: shared.clone(),
    });
    let puzzles = PuzzlesServer::new(PuzzlesService {
        shared: shared.clone(),
    });
    let mut transport = transport(config)?
        .accept_http1(true)
        .layer(PageOr::layer(!config.no_page))
        .layer(cors(&config.cors_origins))
        .layer(GrpcWebLayer::new())
        .layer(Counted::layer(metrics.clone()))
        .layer(Admitted::layer(shared.admission.clone()));
    let router = transport
        .add_service(compressed!(sudoku, largest))
        .add_service(compressed!(puzzles, largest))
        .add_service(compressed!(health.service(), control));
    if !reflection {
        return Ok((metrics, health, router));
    }
    let builder = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(sudoku_proto::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
    };
    let router = router
        .add_service(compressed!(builder().build_v1()?, control))
        .add_service(compressed!(builder().build_v1alpha()?, control));
    Ok((metrics, health, router))
}

/// CORS for gRPC-Web from `origins`: none answers no preflight, so browsers keep other
/// origins' pages out.
fn cors(origins: &[http::HeaderValue]) -> CorsLayer {
    if origins.is_empty() {
        return CorsLayer::new();
    }
    // What grpc-web clients send and must read (the status travels in the body's trailers,
    // but some clients read these headers of a trailers-only answer).
    let exposed = ["grpc-status", "grpc-message", "grpc-status-details-bin"];
    CorsLayer::new()
        .allow_origin(AllowOrigin::list(origins.iter().cloned()))
        .allow_methods([http::Method::POST, http::Method::OPTIONS])
        .allow_headers(tower_http::cors::Any)
        .expose_headers(exposed.map(http::HeaderName::from_static))
        .max_age(Duration::from_secs(24 * 60 * 60))
}

/// Serves `/metrics` when configured; `stop` ends it.
async fn serve_metrics(
    config: &Config,
    metrics: Arc<Metrics>,
    stop: Arc<Notify>,
) -> anyhow::Result<Option<SocketAddr>> {
    let Some(metrics_listen) = config.metrics_listen.0 else {
        return Ok(None);
    };
    let listener = TcpListener::bind(metrics_listen)
        .await
        .with_context(|| format!("cannot listen on {metrics_listen} for metrics"))?;
    let bound = listener.local_addr()?;
    tokio::spawn(async move {
        if let Err(err) =
            metrics::serve(listener, metrics, async move { stop.notified().await }).await
        {
            tracing::error!(%err, "metrics server failed");
        }
    });
    Ok(Some(bound))
}

/// State shared by every call.
pub(crate) struct Shared {
    pub(crate) pool: Pool,
    pub(crate) limits: Limits,
    /// The receive budget, the batch room and the idle timeout.
    pub(crate) admission: Arc<Admission>,
    pub(crate) batch_window: usize,
    /// Bytes one batch stream may hold in puzzles read and answers untaken: its share.
    pub(crate) stream_bytes: usize,
    /// How long a batch stream may go without reading, solving or sending.
    pub(crate) stream_idle: Option<Duration>,
}

impl Shared {
    /// Starts the solver threads and sets the limits from `config`.
    pub(crate) fn new(config: &Config, metrics: Arc<Metrics>) -> anyhow::Result<Shared> {
        Ok(Shared {
            pool: Pool::new(config.worker_count(), config.solvers_yield, metrics)?,
            limits: Limits::from(config),
            admission: Arc::new(Admission::new(config)),
            batch_window: config.batch_window.clamp(1, config::MAX_BATCH_WINDOW),
            stream_bytes: config.max_stream_bytes,
            stream_idle: config.stream_idle(),
        })
    }
}
