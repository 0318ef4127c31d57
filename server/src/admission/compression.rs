//! The server side: compressed requests are expanded before tonic reads them, and answers
//! are compressed after tonic writes them, in the requests' encoding when the client accepts
//! it. A client that only accepts an encoding (grpcio accepts gzip unasked) is answered
//! plain, as grpc-go servers answer: gzipping answers nobody asked for costs CPU on both ends.

use std::sync::Arc;

use bytes::Bytes;
use http_body::Body;
use tonic::codegen::StdError;
use tonic::codegen::http::{self, HeaderValue};

use sudoku_compress::{ACCEPT, Codec, ENCODING, Op, Reframe};
use tokio::sync::OwnedSemaphorePermit;
use tonic::Status;

use super::methods::{is_one_message, message_limit};
use super::streams::StreamRoom;
use super::{Admission, busy};

/// Set in the headers only when the answer is trailers-only.
const STATUS: &str = "grpc-status";

/// Room in the receive budget that a one-message call's expanded message holds until its
/// body is dropped: tonic holds the message until the body ends, and what it expanded to
/// (up to a thousand times its bytes, for gzip) is not what the door charged.
pub(crate) struct Charge {
    admission: Arc<Admission>,
    held: Option<OwnedSemaphorePermit>,
}

impl Charge {
    /// Charges to the receive budget of `admission`.
    pub(crate) fn to(admission: Arc<Admission>) -> Charge {
        Charge {
            admission,
            held: None,
        }
    }

    /// Takes room for a message expanded to `len` bytes and its decoded form, or refuses it
    /// as busy: the message is already in memory, so it must not wait. Never more than the
    /// budget less what its `compressed` bytes hold (twice as many, counted as it arrived),
    /// so a message larger than the whole budget still goes, alone.
    fn take(&mut self, len: usize, compressed: usize) -> Result<(), Status> {
        let size = self.admission.receiving_bytes;
        let arrived = compressed.saturating_mul(2).min(size);
        let cost = len.saturating_mul(2).min(size - arrived);
        let cost = u32::try_from(cost).unwrap_or(u32::MAX);
        let room = self.admission.receiving.clone();
        let permit = (room.try_acquire_many_owned(cost)).map_err(|_| busy(false, size))?;
        match &mut self.held {
            Some(held) => held.merge(permit),
            none => *none = Some(permit),
        }
        Ok(())
    }
}

/// Expands a compressed request before tonic reads it, each message up to the largest of
/// its method (see [`message_limit`]): a one-message call's charged to the receive budget,
/// a batch stream's (`stream`) grown in the batch room. The encoding its answer goes in:
/// the request's, where the client accepts it.
pub(crate) fn expand(
    request: http::Request<tonic::body::Body>,
    admission: &Arc<Admission>,
    stream: Option<Arc<StreamRoom>>,
) -> (http::Request<tonic::body::Body>, Option<Codec>) {
    let (mut parts, body) = request.into_parts();
    let headers = &mut parts.headers;
    let sent = (headers.get(ENCODING))
        .and_then(|e| e.to_str().ok())
        .and_then(Codec::named);
    if sent.is_some() {
        headers.remove(ENCODING);
    }
    let accept = headers.get(ACCEPT).and_then(|a| a.to_str().ok());
    let answer = sent.filter(|codec| accept.is_some_and(|a| codec.accepted_in(a)));
    // Without the header tonic answers plain, and the answer is compressed here.
    headers.remove(ACCEPT);
    let Some(codec) = sent else {
        return (http::Request::from_parts(parts, body), answer);
    };
    let path = parts.uri.path();
    let limit = message_limit(path, admission.max_message);
    let mut charge = is_one_message(path).then(|| Charge::to(admission.clone()));
    let streams = admission.streams.clone();
    let observe = move |compressed: bool, size: usize, expanded: usize| {
        if let Some(stream) = stream.as_deref().filter(|_| compressed)
            && !streams.try_grow(stream, expanded)
        {
            return Err(busy(true, streams.size));
        }
        match (&mut charge, compressed) {
            (Some(charge), true) => charge.take(expanded, size),
            _ => Ok(()),
        }
    };
    let body = Reframe::new(body, Op::Expand { codec, limit }).observed(Box::new(observe));
    let request = http::Request::from_parts(parts, tonic::body::Body::new(body));
    (request, answer)
}

/// `response` compressed in `answer`'s encoding, if any. A trailers-only answer (an error
/// before any message: the status is in these headers) stays one: wrapped, its body would
/// end with a DATA frame where clients such as grpcio expect trailers.
pub(crate) fn compress<R>(
    response: http::Response<R>,
    answer: Option<Codec>,
) -> http::Response<tonic::body::Body>
where
    R: Body<Data = Bytes> + Unpin + Send + 'static,
    R::Error: Into<StdError>,
{
    let headers = response.headers();
    let plain = headers.contains_key(ENCODING) || headers.contains_key(STATUS);
    let Some(codec) = answer.filter(|_| !plain) else {
        return response.map(tonic::body::Body::new);
    };
    let (mut parts, body) = response.into_parts();
    (parts.headers).insert(ENCODING, HeaderValue::from_static(codec.name()));
    let body = tonic::body::Body::new(Reframe::new(body, Op::Compress(codec)));
    http::Response::from_parts(parts, body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower::{Layer, Service};

    #[test]
    fn an_expansion_is_charged_what_the_budget_has_beside_its_arrival() {
        let budget = Arc::new(Admission::new(&crate::Config {
            max_receiving_bytes: 1000,
            ..crate::Config::default()
        }));
        let room = budget.receiving.clone();
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
        let admission = Arc::new(Admission::new(&crate::Config {
            max_receiving_bytes: 1 << 20,
            max_message_bytes: 1024,
            ..crate::Config::default()
        }));
        let mut service = super::super::Admitted::layer(admission).layer(refusing());
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
