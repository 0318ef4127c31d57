//! A tower layer that observes every call once: counted under the code it really ended with
//! (the `grpc-status` of its trailers or trailers-only headers, or CANCELLED when the client
//! left first and the call was dropped unfinished), in a span of the caller's trace that
//! lasts until its answer is sent and records that code.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::future::BoxFuture;
use http_body::{Body, Frame, SizeHint};
use tonic::Code;
use tonic::codegen::http::{self, HeaderMap};
use tower::Service;
use tracing::Instrument;

use crate::metrics::Metrics;
use crate::telemetry;

/// A service whose calls are counted in `sudoku_requests_total`; `Counted<()>` is the layer
/// that wraps services so.
#[derive(Clone)]
pub(crate) struct Counted<S> {
    inner: S,
    metrics: Arc<Metrics>,
}

crate::wrapping_layer!(Counted { metrics: Arc<Metrics> });

impl<S, B, R> Service<http::Request<B>> for Counted<S>
where
    S: Service<http::Request<B>, Response = http::Response<R>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    R: Body + Unpin + Send + 'static,
{
    type Response = http::Response<CountedBody<R>>;
    type Error = S::Error;
    type Future = BoxFuture<'static, Result<Self::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        // Made before the call starts: if the future is dropped unfinished, it counts CANCELLED.
        let span = telemetry::call_span(request.uri().path(), request.headers());
        let mut tally = Tally {
            metrics: Some(self.metrics.clone()),
            method: method_name(request.uri().path()),
            span: span.clone(),
        };
        let call = span.in_scope(|| self.inner.call(request)).instrument(span);
        Box::pin(async move {
            let response = call.await.inspect_err(|_| tally.finish(Code::Unknown))?;
            if let Some(code) = grpc_status(response.headers()) {
                tally.finish(code);
            }
            Ok(response.map(|body| CountedBody { body, tally }))
        })
    }
}

/// A response body that counts its call when the trailers go out, or CANCELLED if dropped
/// before.
pub(crate) struct CountedBody<B> {
    body: B,
    tally: Tally,
}

impl<B: Body + Unpin> Body for CountedBody<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        let this = &mut *self;
        let frame = Pin::new(&mut this.body).poll_frame(cx);
        match &frame {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(code) = frame.trailers_ref().and_then(grpc_status) {
                    this.tally.finish(code);
                }
            }
            // A body error is a broken call; a body ending without a status is not gRPC.
            Poll::Ready(Some(Err(_)) | None) => this.tally.finish(Code::Unknown),
            Poll::Pending => {}
        }
        frame
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// One call's count, taken exactly once, and its span, which ends when this is dropped.
struct Tally {
    metrics: Option<Arc<Metrics>>,
    method: &'static str,
    span: tracing::Span,
}

impl Tally {
    fn finish(&mut self, code: Code) {
        if let Some(metrics) = self.metrics.take() {
            metrics.request(self.method, code);
            telemetry::record_status(&self.span, code);
            tracing::debug!(parent: &self.span, code = ?code, "call ended");
        }
    }
}

impl Drop for Tally {
    fn drop(&mut self) {
        self.finish(Code::Cancelled);
    }
}

fn grpc_status(headers: &HeaderMap) -> Option<Code> {
    headers
        .get("grpc-status")
        .map(|value| Code::from_bytes(value.as_bytes()))
}

/// Every method the server serves, the one label each may take.
const METHODS: [&str; 14] = [
    "Solve",
    "BatchSolve",
    "BatchSolvePacked",
    "Rate",
    "BatchRate",
    "Hint",
    "Explain",
    "Validate",
    "Generate",
    "Check",
    "Watch",
    "List",
    "ServerReflectionInfo",
    "other",
];

/// The method label: the known methods by name, anything else as one label so that a client
/// cannot grow the metric without bound.
fn method_name(path: &str) -> &'static str {
    let name = path.rsplit('/').next().unwrap_or_default();
    METHODS
        .into_iter()
        .find(|&known| known == name)
        .unwrap_or("other")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dropped_call_counts_as_cancelled_once() {
        let metrics = Arc::new(Metrics::new());
        let mut tally = Tally {
            metrics: Some(metrics.clone()),
            method: "Solve",
            span: tracing::Span::none(),
        };
        drop(Tally {
            metrics: Some(metrics.clone()),
            method: "Solve",
            span: tracing::Span::none(),
        });
        tally.finish(Code::Ok);
        tally.finish(Code::Internal);
        drop(tally);
        assert_eq!(metrics.requests_for("Solve", Code::Cancelled), 1);
        assert_eq!(metrics.requests_for("Solve", Code::Ok), 1);
        assert_eq!(metrics.requests_for("Solve", Code::Internal), 0);
    }

    #[test]
    fn methods_are_labelled_from_a_closed_set() {
        assert_eq!(method_name("/sudoku.v1.Sudoku/BatchSolve"), "BatchSolve");
        assert_eq!(method_name("/grpc.health.v1.Health/Watch"), "Watch");
        assert_eq!(method_name("/x.Y/anything-at-all"), "other");
    }

    #[test]
    fn every_method_of_the_api_has_its_own_label() {
        use prost::Message;
        let set = prost_types::FileDescriptorSet::decode(sudoku_proto::FILE_DESCRIPTOR_SET)
            .expect("the descriptor set decodes");
        let mut seen = 0;
        for file in &set.file {
            for service in &file.service {
                for method in &service.method {
                    let name = method.name();
                    let path = format!("/{}.{}/{name}", file.package(), service.name());
                    assert_eq!(method_name(&path), name, "{path}");
                    seen += 1;
                }
            }
        }
        assert!(seen >= 9, "the API's methods were read: {seen}");
    }
}
