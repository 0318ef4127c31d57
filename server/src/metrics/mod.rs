//! Prometheus metrics: requests by method and status, solves by outcome, solve latency,
//! puzzles in flight, puzzles dropped because their caller left, solver panics, and client
//! connections open and closed by the server.

pub(crate) mod layer;
pub(crate) mod solves;

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use tokio::net::TcpListener;

use crate::metrics::solves::{OUTCOMES, SolveSeconds, SolveTally};

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    method: &'static str,
    code: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReasonLabels {
    reason: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabels {
    outcome: &'static str,
}

/// The server's metrics; cheap to update from any thread.
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    /// One counter per wire outcome, indexed by its number: a solver thread counts without
    /// hashing labels or taking the family's lock.
    solves_by_outcome: Vec<Counter>,
    solve_seconds: SolveSeconds,
    in_flight: Gauge,
    abandoned: Counter,
    panics: Counter,
    connections: Gauge,
    connections_closed: Family<ReasonLabels, Counter>,
}

impl Metrics {
    /// A fresh set of metrics in its own registry.
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("sudoku");
        let requests = Family::default();
        let solves = Family::<OutcomeLabels, Counter>::default();
        let (solve_seconds, in_flight) = (SolveSeconds::default(), Gauge::default());
        let (abandoned, panics) = (Counter::default(), Counter::default());
        let (connections, connections_closed) = (Gauge::default(), Family::default());
        macro_rules! register {
            ($($metric:ident $name:literal $help:literal,)*) => {
                $(registry.register($name, $help, $metric.clone());)*
            };
        }
        register! {
            requests "requests" "gRPC requests by method and status code",
            solves "solves" "Puzzles solved, by outcome",
            solve_seconds "solve_seconds" "Time spent solving one puzzle",
            in_flight "puzzles_in_flight" "Puzzles accepted and not yet answered",
            abandoned "puzzles_abandoned"
                "Puzzles stopped or skipped because the caller cancelled or left",
            panics "solver_panics"
                "Solves that panicked; each answered INTERNAL (or an error item in a batch)",
            connections "connections_open" "Client connections open",
            connections_closed "connections_closed_by_server"
                "Connections the server closed, by reason (limit, handshake_timeout)",
        }
        // Every outcome a solve ends with gets its series from the start, at 0; the others
        // (unspecified, invalid) are never counted here.
        use sudoku_proto::pb::Outcome;
        let solves_by_outcome = (0..OUTCOMES as i32)
            .map(|number| match Outcome::try_from(number) {
                Ok(Outcome::Unspecified | Outcome::Invalid) | Err(_) => Counter::default(),
                Ok(outcome) => solves
                    .get_or_create(&OutcomeLabels {
                        outcome: outcome.as_str_name(),
                    })
                    .clone(),
            })
            .collect();
        Metrics {
            registry,
            requests,
            solves_by_outcome,
            solve_seconds,
            in_flight,
            abandoned,
            panics,
            connections,
            connections_closed,
        }
    }

    /// Counts one finished RPC.
    pub fn request(&self, method: &'static str, code: tonic::Code) {
        self.requests
            .get_or_create(&RequestLabels {
                method,
                code: code_name(code),
            })
            .inc();
    }

    /// Counts one solved puzzle, by outcome and the solver's own time.
    pub fn solved(&self, solution: &solver_core::Report) {
        let mut tally = SolveTally::default();
        tally.add(solution);
        self.add_solves(&mut tally);
    }

    /// Counts the solves of `tally`, which is left empty.
    pub fn add_solves(&self, tally: &mut SolveTally) {
        if tally.is_empty() {
            return;
        }
        for (counter, &n) in self.solves_by_outcome.iter().zip(tally.by_outcome()) {
            if n > 0 {
                counter.inc_by(n);
            }
        }
        self.solve_seconds.add(tally);
        *tally = SolveTally::default();
    }

    /// Puzzles accepted and not yet answered.
    pub fn in_flight(&self) -> &Gauge {
        &self.in_flight
    }

    /// Counts a puzzle stopped or skipped because its caller left.
    pub fn abandoned(&self) -> &Counter {
        &self.abandoned
    }

    /// Counts a solve that panicked.
    pub fn panics(&self) -> &Counter {
        &self.panics
    }

    /// Client connections open.
    pub fn connections(&self) -> &Gauge {
        &self.connections
    }

    /// Counts a connection the server closed, and why.
    pub fn connection_closed(&self, reason: &'static str) {
        self.connections_closed
            .get_or_create(&ReasonLabels { reason })
            .inc();
    }

    /// Connections closed so far for a reason.
    pub fn connections_closed_for(&self, reason: &'static str) -> u64 {
        self.connections_closed
            .get_or_create(&ReasonLabels { reason })
            .get()
    }

    /// Requests counted so far for a method and code.
    pub fn requests_for(&self, method: &'static str, code: tonic::Code) -> u64 {
        self.requests
            .get_or_create(&RequestLabels {
                method,
                code: code_name(code),
            })
            .get()
    }

    /// The text exposition format.
    pub fn render(&self) -> String {
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}

/// The label for a status code: its name as tonic spells it, without an allocation per call.
fn code_name(code: tonic::Code) -> &'static str {
    static NAMES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| {
        let name = |n| &*format!("{:?}", tonic::Code::from_i32(n)).leak();
        (0..=16).map(name).collect()
    });
    names.get(code as usize).copied().unwrap_or("Unknown")
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

/// Serves `GET /metrics` on `listener` until `shutdown` resolves.
pub async fn serve(
    listener: TcpListener,
    metrics: Arc<Metrics>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = Router::new()
        .route("/metrics", get(render))
        .with_state(metrics);
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await
}

async fn render(State(metrics): State<Arc<Metrics>>) -> impl IntoResponse {
    let openmetrics = "application/openmetrics-text; version=1.0.0; charset=utf-8";
    ([(header::CONTENT_TYPE, openmetrics)], metrics.render())
}

/// The address a metrics listener is bound to, for logs.
pub fn describe(addr: Option<SocketAddr>) -> String {
    addr.map_or_else(|| "off".to_owned(), |a| format!("http://{a}/metrics"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_labels_match_tonic_names() {
        for n in 0..=16 {
            let code = tonic::Code::from_i32(n);
            assert_eq!(code_name(code), format!("{code:?}"));
        }
    }

    #[test]
    fn solves_are_counted_under_their_outcome() {
        use solver_core::solve::{Algorithm, Stats};
        use solver_core::{Outcome, Report, StopReason};
        let metrics = Metrics::new();
        let stats = Stats {
            guesses: 0,
            elapsed: std::time::Duration::from_micros(5),
            algorithm: Algorithm::Fast,
        };
        let outcomes = [
            Outcome::NoSolution,
            Outcome::NoSolution,
            Outcome::Stopped {
                reason: StopReason::Budget,
                first: None,
                found: 0,
            },
        ];
        for outcome in outcomes {
            metrics.solved(&Report { outcome, stats });
        }
        let text = metrics.render();
        for line in [
            r#"sudoku_solves_total{outcome="OUTCOME_NO_SOLUTION"} 2"#,
            r#"sudoku_solves_total{outcome="OUTCOME_BUDGET_EXHAUSTED"} 1"#,
            r#"sudoku_solves_total{outcome="OUTCOME_UNIQUE"} 0"#,
            "sudoku_solve_seconds_count 3",
        ] {
            assert!(text.contains(line), "{line} missing from\n{text}");
        }
        assert!(!text.contains("OUTCOME_UNSPECIFIED"), "{text}");
    }
}
