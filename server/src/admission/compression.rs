//! The server side: compressed requests are expanded before tonic reads them, and answers
//! are compressed after tonic writes them, in the requests' encoding when the client accepts
//! it. A client that only accepts an encoding (grpcio accepts gzip unasked) is answered
//! plain, as grpc-go servers answer: gzipping answers nobody asked for costs CPU on both ends.

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::Body;
use tonic::codegen::StdError;
use tonic::codegen::http::{self, HeaderValue};
use tower::{Layer, Service};

use sudoku_compress::{ACCEPT, Codec, ENCODING, Op, Reframe};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tonic::Status;

use super::methods::{is_one_message, message_limit};
use super::streams::{Room, StreamRoom};
/// Set in the headers only when the answer is trailers-only.
const STATUS: &str = "grpc-status";

/// Room in the server's receive budget (`--memory-budget`), which expanded requests of
/// one-message calls are charged to.
#[derive(Clone)]
pub(crate) struct Budget {
    /// The budget.
    pub(crate) room: std::sync::Arc<Semaphore>,
    /// Its size: a message that would take more takes all of it.
    pub(crate) size: usize,
    /// The batch room, which a batch stream's expanded messages grow its room in.
    pub(crate) streams: std::sync::Arc<Room>,
}

/// Room in the receive budget that a one-message call's expanded message holds until its
/// body is dropped: tonic holds the message until the body ends, and what it expanded to
/// (up to a thousand times its bytes, for gzip) is not what the door charged.
pub(crate) struct Charge {
    budget: Budget,
    held: Option<OwnedSemaphorePermit>,
}

impl Charge {
    /// Charges to `budget`.
    pub(crate) fn to(budget: Budget) -> Charge {
        Charge { budget, held: None }
    }

    /// Takes room for a message expanded to `len` bytes and its decoded form, or refuses it
    /// as busy: the message is already in memory, so it must not wait. Never more than the
    /// budget less what its `compressed` bytes hold (twice as many, counted as it arrived),
    /// so a message larger than the whole budget still goes, alone.
    fn take(&mut self, len: usize, compressed: usize) -> Result<(), Status> {
        let arrived = compressed.saturating_mul(2).min(self.budget.size);
        let cost = len.saturating_mul(2).min(self.budget.size - arrived);
        let cost = u32::try_from(cost).unwrap_or(u32::MAX);
        let permit = self
            .budget
            .room
            .clone()
            .try_acquire_many_owned(cost)
            .map_err(|_| {
                Status::resource_exhausted(format!(
                    "server busy: request messages being received fill its {} bytes \
                     (--memory-budget); retry with backoff",
                    self.budget.size
                ))
            })?;
        match &mut self.held {
            Some(held) => held.merge(permit),
            none => *none = Some(permit),
        }
        Ok(())
    }
}

/// Serves gzip and zstd at level 1 for every service behind it.
#[derive(Clone)]
pub(crate) struct ServeCompressed {
    /// The largest message a request to the API may expand to (see [`message_limit`]).
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
            let stream = request
                .extensions()
                .get::<std::sync::Arc<StreamRoom>>()
                .cloned();
            let (mut charge, streams) = (charge, self.budget.streams.clone());
            let observe = move |compressed: bool, size: usize, expanded: usize| {
                if let Some(stream) = stream.as_deref().filter(|_| compressed)
                    && !streams.try_grow(stream, expanded)
                {
                    return Err(Status::resource_exhausted(format!(
                        "server busy: batch streams hold all {} bytes of --memory-budget for \
                         their buffers and answers; retry with backoff, or send smaller \
                         messages",
                        streams.size()
                    )));
                }
                match (&mut charge, compressed) {
                    (Some(charge), true) => charge.take(expanded, size),
                    _ => Ok(()),
                }
            };
            request = request.map(|body| {
                let body = Reframe::new(body, Op::Expand { codec, limit });
                tonic::body::Body::new(body.observed(Box::new(observe)))
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

    #[test]
    fn an_expansion_is_charged_what_the_budget_has_beside_its_arrival() {
        let room = std::sync::Arc::new(Semaphore::new(1000));
        let budget = Budget {
            room: room.clone(),
            size: 1000,
            streams: std::sync::Arc::new(Room::new(0, 0, std::time::Duration::ZERO)),
        };
        // 200 compressed bytes held 400 as they arrived; their 600 expanded would cost 1,200,
        // more than the budget has beside them: the rest of it, so the message goes alone.
        let arrived = room.clone().try_acquire_many_owned(400).unwrap();
        let mut charge = Charge::to(budget.clone());
        charge.take(600, 200).unwrap();
        assert_eq!(room.available_permits(), 0);
        drop((charge, arrived));
        assert_eq!(room.available_permits(), 1000);
        // With other calls holding room, one that does not fit is refused, not kept waiting.
        let other = room.clone().try_acquire_many_owned(500).unwrap();
        let mut charge = Charge::to(budget);
        charge.take(200, 10).unwrap();
        let err = charge.take(200, 10).unwrap_err();
        assert_eq!(err.code(), tonic::Code::ResourceExhausted);
        assert!(
            err.message().contains("--memory-budget"),
            "{}",
            err.message()
        );
        drop(other);
    }

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
            streams: std::sync::Arc::new(Room::new(0, 0, std::time::Duration::ZERO)),
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
