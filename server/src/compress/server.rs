//! The server side: compressed requests are expanded before tonic reads them, and answers
//! are compressed after tonic writes them, in the requests' encoding when the client accepts
//! it. A client that only accepts an encoding (grpcio accepts gzip unasked) is answered
//! plain, as grpc-go servers answer: gzipping the packed answers nobody asked for cost the
//! server a tenth more CPU per 17-clue puzzle, and held a grpcio client to 310,000-330,000
//! puzzles/s where plain answers reach 380,000-450,000.

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::Body;
use tonic::codegen::StdError;
use tonic::codegen::http::{self, HeaderValue};
use tower::{Layer, Service};

use super::frames::{Charge, Reframe};
use super::{Budget, Codec, Op};
use crate::admission::methods::{LargestMessage, is_one_message, message_limit};

pub(super) const ENCODING: &str = "grpc-encoding";
pub(super) const ACCEPT: &str = "grpc-accept-encoding";
/// Set in the headers only when the answer is trailers-only.
const STATUS: &str = "grpc-status";

/// Serves gzip and zstd at level 1 for every service behind it.
#[derive(Clone)]
pub(crate) struct ServeCompressed {
    /// The largest message a request to the API may expand to (see `calls::message_limit`).
    limit: usize,
    /// Where one-message calls' expanded requests are charged.
    budget: Budget,
}

impl ServeCompressed {
    /// Expands requests up to `limit` bytes a message, charging to `budget`.
    pub(crate) fn new(limit: usize, budget: Budget) -> ServeCompressed {
        ServeCompressed { limit, budget }
    }
}

impl<S> Layer<S> for ServeCompressed {
    type Service = Compressed<S>;

    fn layer(&self, inner: S) -> Compressed<S> {
        Compressed {
            inner,
            limit: self.limit,
            budget: self.budget.clone(),
        }
    }
}

/// A service whose compressed traffic this crate compresses and expands.
#[derive(Clone)]
pub(crate) struct Compressed<S> {
    inner: S,
    limit: usize,
    budget: Budget,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S, R> Service<http::Request<tonic::body::Body>> for Compressed<S>
where
    S: Service<http::Request<tonic::body::Body>, Response = http::Response<R>>,
    S::Future: Send + 'static,
    R: Body<Data = Bytes> + Unpin + Send + 'static,
    R::Error: Into<StdError>,
{
    type Response = http::Response<tonic::body::Body>;
    type Error = S::Error;
    type Future = BoxFuture<Result<Self::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: http::Request<tonic::body::Body>) -> Self::Future {
        let headers = request.headers_mut();
        let sent = headers
            .get(ENCODING)
            .and_then(|e| e.to_str().ok())
            .and_then(Codec::named);
        if sent.is_some() {
            headers.remove(ENCODING);
        }
        let accept = headers.get(ACCEPT).and_then(|a| a.to_str().ok());
        let answer = sent.filter(|codec| accept.is_some_and(|a| codec.accepted_in(a)));
        // Without the header tonic answers plain, and the answer is compressed here.
        headers.remove(ACCEPT);
        if let Some(codec) = sent {
            let path = request.uri().path();
            let limit = message_limit(path, self.limit);
            let charge = is_one_message(path).then(|| Charge::to(self.budget.clone()));
            let largest = request.extensions().get::<LargestMessage>().cloned();
            request = request.map(|body| {
                let mut body = Reframe::new(body, Op::Expand { codec, limit });
                if let Some(largest) = largest {
                    body = body.recording(largest);
                }
                match charge {
                    Some(charge) => tonic::body::Body::new(body.charging(charge)),
                    None => tonic::body::Body::new(body),
                }
            });
        }
        let call = self.inner.call(request);
        Box::pin(async move {
            let response = call.await?;
            // A trailers-only answer (an error before any message: the status is in these
            // headers) must stay one: wrapped, its body would end with a DATA frame where
            // clients such as grpcio expect trailers.
            let headers = response.headers();
            let plain = headers.contains_key(ENCODING) || headers.contains_key(STATUS);
            let Some(codec) = answer.filter(|_| !plain) else {
                return Ok(response.map(tonic::body::Body::new));
            };
            let (mut parts, body) = response.into_parts();
            parts
                .headers
                .insert(ENCODING, HeaderValue::from_static(codec.name()));
            let body = tonic::body::Body::new(Reframe::new(body, Op::Compress(codec)));
            Ok(http::Response::from_parts(parts, body))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A service answering every call with a trailers-only INVALID_ARGUMENT, as tonic does.
    fn refusing() -> impl Service<
        http::Request<tonic::body::Body>,
        Response = http::Response<tonic::body::Body>,
        Error = std::convert::Infallible,
        Future = std::future::Ready<
            Result<http::Response<tonic::body::Body>, std::convert::Infallible>,
        >,
    > + Clone {
        tower::service_fn(|_| {
            std::future::ready(Ok(tonic::Status::invalid_argument("no").into_http()))
        })
    }

    #[tokio::test]
    async fn a_trailers_only_answer_stays_trailers_only() {
        let budget = Budget {
            room: std::sync::Arc::new(tokio::sync::Semaphore::new(1 << 20)),
            size: 1 << 20,
        };
        let mut service = ServeCompressed::new(1024, budget).layer(refusing());
        // A compressed call: its answer would be compressed too.
        let request = http::Request::builder()
            .header(ENCODING, "gzip")
            .header(ACCEPT, "identity,deflate,gzip")
            .body(tonic::body::Body::empty())
            .unwrap();
        let response = service.call(request).await.unwrap();
        assert_eq!(response.headers().get(STATUS).unwrap(), "3");
        assert!(response.headers().get(ENCODING).is_none());
        assert!(response.body().is_end_stream(), "no DATA frame may follow");
    }
}
