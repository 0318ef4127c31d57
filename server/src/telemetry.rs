//! Traces. Every call has a span that joins the caller's trace (a W3C `traceparent`, or B3
//! headers where a mesh sends those) and carries its trace id into log lines; solver and logic
//! work inside a call has a span of its own. Spans leave the process over OTLP/gRPC only when
//! `OTEL_EXPORTER_OTLP_ENDPOINT` is set (the standard OpenTelemetry variables configure the
//! exporter); otherwise they are log context alone, and log lines carry a trace id only where
//! the caller sent one.

use opentelemetry::propagation::{Extractor, TextMapCompositePropagator, TextMapPropagator};
use opentelemetry::trace::TraceContextExt;
use opentelemetry_propagator_b3::{B3Encoding, Propagator as B3};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tonic::codegen::http::HeaderMap;
use tracing::Span;
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// The variable that turns export on.
pub const ENDPOINT_VARIABLE: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";

/// The name spans are exported under, unless `OTEL_SERVICE_NAME` says otherwise.
const SERVICE_NAME: &str = "sudoku-server";

/// A tracer provider exporting over OTLP/gRPC where [`ENDPOINT_VARIABLE`] is set, else
/// `None`. Made inside the async runtime (the exporter's channel runs on it); shut it down
/// after the server stops, so that the last spans go out.
pub fn exporting() -> anyhow::Result<Option<SdkTracerProvider>> {
    if std::env::var_os(ENDPOINT_VARIABLE).is_none_or(|v| v.is_empty()) {
        return Ok(None);
    }
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_tonic()
        .build()?;
    let name = std::env::var("OTEL_SERVICE_NAME").unwrap_or_else(|_| SERVICE_NAME.to_owned());
    let resource = opentelemetry_sdk::Resource::builder()
        .with_service_name(name)
        .build();
    let provider = SdkTracerProvider::builder().with_batch_exporter(exporter);
    Ok(Some(provider.with_resource(resource).build()))
}

/// Reads the caller's trace from a request's headers: B3 (single or multiple headers), then
/// W3C trace context, which wins where both are sent.
fn propagator() -> &'static TextMapCompositePropagator {
    static PROPAGATOR: std::sync::OnceLock<TextMapCompositePropagator> = std::sync::OnceLock::new();
    PROPAGATOR.get_or_init(|| {
        TextMapCompositePropagator::new(vec![
            Box::new(B3::with_encoding(B3Encoding::SingleAndMultiHeader)),
            Box::new(TraceContextPropagator::new()),
        ])
    })
}

/// HTTP headers as the propagators read them.
struct Headers<'a>(&'a HeaderMap);

impl Extractor for Headers<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|value| value.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(|key| key.as_str()).collect()
    }
}

/// The span of a call to `path` (`/package.Service/Method`), a child of the caller's span
/// where its headers name one.
pub(crate) fn call_span(path: &str, headers: &HeaderMap) -> Span {
    let name = path.trim_start_matches('/');
    let (service, method) = name.split_once('/').unwrap_or(("", path));
    let span = tracing::info_span!(
        "call",
        otel.name = %name,
        otel.kind = "server",
        otel.status_code = tracing::field::Empty,
        rpc.system = "grpc",
        rpc.service = %service,
        rpc.method = %method,
        rpc.grpc.status_code = tracing::field::Empty,
        trace_id = tracing::field::Empty,
        sudoku.grid.side = tracing::field::Empty,
        sudoku.algorithm = tracing::field::Empty,
        sudoku.outcome = tracing::field::Empty,
        sudoku.guesses = tracing::field::Empty,
        sudoku.rating = tracing::field::Empty,
    );
    let parent = propagator().extract(&Headers(headers));
    let caller = parent.span().span_context().clone();
    if caller.is_valid() {
        // Set apart from `set_parent`, so that logs carry it where nothing is exported.
        span.record("trace_id", tracing::field::display(caller.trace_id()));
        let _ = span.set_parent(parent);
    } else {
        // A trace this call starts: its id exists only where spans are exported.
        let own = span.context().span().span_context().trace_id();
        if own != opentelemetry::trace::TraceId::INVALID {
            span.record("trace_id", tracing::field::display(own));
        }
    }
    span
}

/// A span for a call's work (`solve`: one solve, or one solver thread's share of a batch;
/// `logic`: a rating, a hint, an explanation; `generate`: one puzzle's making), a child of
/// the current span (the call's), with room for the attributes the `record_*` functions set;
/// the current span itself where spans are off.
macro_rules! work_span {
    ($name:literal) => {
        tracing::info_span!(
            $name,
            sudoku.grid.side = tracing::field::Empty,
            sudoku.algorithm = tracing::field::Empty,
            sudoku.outcome = tracing::field::Empty,
            sudoku.guesses = tracing::field::Empty,
            sudoku.rating = tracing::field::Empty,
            sudoku.puzzles = tracing::field::Empty,
        )
        .or_current()
    };
}

pub(crate) use work_span;

/// Records a solve's grid, algorithm, outcome and guesses on `span`.
pub(crate) fn record_solve(span: &Span, side: usize, report: &solver_core::Report) {
    span.record("sudoku.grid.side", side);
    let algorithm = sudoku_proto::pb::Algorithm::from(report.stats.algorithm);
    span.record("sudoku.algorithm", algorithm.as_str_name());
    let outcome = crate::solving::wire_outcome(&report.outcome);
    span.record("sudoku.outcome", outcome.as_str_name());
    span.record("sudoku.guesses", report.stats.guesses);
}

/// Records the grid logic work is on, and its rating where it has one, on `span`.
pub(crate) fn record_logic(span: &Span, side: usize, rating: Option<f64>) {
    span.record("sudoku.grid.side", side);
    if let Some(rating) = rating {
        span.record("sudoku.rating", rating);
    }
}

/// Records how the call ended on its span.
pub(crate) fn record_status(span: &Span, code: tonic::Code) {
    span.record("rpc.grpc.status_code", code as i32);
    if code != tonic::Code::Ok {
        span.record("otel.status_code", "ERROR");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (key, value) in pairs {
            map.insert(*key, value.parse().expect("a header value"));
        }
        map
    }

    fn caller_of(map: &HeaderMap) -> opentelemetry::trace::SpanContext {
        propagator()
            .extract(&Headers(map))
            .span()
            .span_context()
            .clone()
    }

    #[test]
    fn the_callers_trace_is_read_from_traceparent_or_b3() {
        let w3c = headers(&[(
            "traceparent",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        )]);
        let context = caller_of(&w3c);
        assert_eq!(
            context.trace_id().to_string(),
            "4bf92f3577b34da6a3ce929d0e0e4736"
        );
        assert_eq!(context.span_id().to_string(), "00f067aa0ba902b7");
        let b3 = headers(&[
            ("x-b3-traceid", "80f198ee56343ba864fe8b2a57d3eff7"),
            ("x-b3-spanid", "e457b5a2e4d86bd1"),
            ("x-b3-sampled", "1"),
        ]);
        assert_eq!(
            caller_of(&b3).trace_id().to_string(),
            "80f198ee56343ba864fe8b2a57d3eff7"
        );
        let single = headers(&[("b3", "80f198ee56343ba864fe8b2a57d3eff7-e457b5a2e4d86bd1-1")]);
        assert_eq!(caller_of(&single).span_id().to_string(), "e457b5a2e4d86bd1");
        assert!(!caller_of(&HeaderMap::new()).is_valid(), "no caller");
    }
}
