//! `grpc.health.v1.Health` whose Watch streams end once a drain has told them NOT_SERVING,
//! so an open Watch never holds a shutdown for the whole grace period.

use std::pin::Pin;
use std::time::Duration;

use futures::{Stream, StreamExt};
use sudoku_proto::pb::puzzles_server::PuzzlesServer;
use sudoku_proto::pb::sudoku_server::SudokuServer;
use tokio::sync::watch;
use tonic::{Request, Response, Status};
use tonic_health::ServingStatus;
use tonic_health::pb::health_server::{self, HealthServer};
use tonic_health::pb::{HealthCheckRequest, HealthCheckResponse};
use tonic_health::server::{HealthReporter, HealthService};

use crate::rpc::puzzles::PuzzlesService;
use crate::rpc::sudoku::SudokuService;

/// How long a Watch stream lives after the drain starts: time to send NOT_SERVING and for a
/// busy watcher to read it. Once the stream ends the connection closes, and a close with the
/// watcher's own frames still unread is a reset that can cost the watcher the unread status,
/// so the time allows for a loaded machine.
const LAST_WORD: Duration = Duration::from_millis(500);

/// The health reporter and the drain flag its Watch streams follow.
pub(crate) struct Health {
    reporter: HealthReporter,
    draining: watch::Sender<bool>,
}

impl Health {
    /// Health with `sudoku.v1.Sudoku`, `sudoku.v1.Puzzles` and the whole server ("") SERVING.
    pub(crate) async fn new() -> Health {
        let reporter = HealthReporter::new();
        reporter.set_serving::<SudokuServer<SudokuService>>().await;
        reporter
            .set_serving::<PuzzlesServer<PuzzlesService>>()
            .await;
        let (draining, _) = watch::channel(false);
        Health { reporter, draining }
    }

    /// The gRPC service.
    pub(crate) fn service(&self) -> HealthServer<Draining> {
        HealthServer::new(Draining {
            inner: HealthService::from_health_reporter(self.reporter.clone()),
            draining: self.draining.subscribe(),
        })
    }

    /// Reports NOT_SERVING for every service; Watch streams send it and end.
    pub(crate) async fn drain(&self) {
        self.draining.send_replace(true);
        self.reporter
            .set_not_serving::<SudokuServer<SudokuService>>()
            .await;
        self.reporter
            .set_not_serving::<PuzzlesServer<PuzzlesService>>()
            .await;
        // "" is the whole server, what probes and meshes ask about by default.
        self.reporter
            .set_service_status("", ServingStatus::NotServing)
            .await;
    }
}

/// The health service, ending Watch streams on drain.
pub(crate) struct Draining {
    inner: HealthService,
    draining: watch::Receiver<bool>,
}

type WatchStream = Pin<Box<dyn Stream<Item = Result<HealthCheckResponse, Status>> + Send>>;

#[tonic::async_trait]
impl health_server::Health for Draining {
    async fn check(
        &self,
        request: Request<HealthCheckRequest>,
    ) -> Result<Response<HealthCheckResponse>, Status> {
        self.inner.check(request).await
    }

    type WatchStream = WatchStream;

    async fn watch(
        &self,
        request: Request<HealthCheckRequest>,
    ) -> Result<Response<WatchStream>, Status> {
        let statuses = self.inner.watch(request).await?.into_inner();
        let mut draining = self.draining.clone();
        let drained = async move {
            // An error means the server is gone: end the stream too.
            let _ = draining.wait_for(|&d| d).await;
            tokio::time::sleep(LAST_WORD).await;
        };
        let stream: WatchStream = Box::pin(statuses.take_until(drained));
        Ok(Response::new(stream))
    }
}
