//! The client side: a tower layer for a tonic channel that sends compressed requests and
//! takes compressed answers at level 1, in place of tonic's own compression.

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::Body;
use tonic::codegen::StdError;
use tonic::codegen::http::{self, HeaderValue};
use tower::{Layer, Service};

use crate::{ACCEPT, Codec, ENCODING, Op, Reframe};

/// Compresses a client's requests and expands its answers; use it instead of the client's
/// `send_compressed`/`accept_compressed`.
#[derive(Debug, Clone, Copy)]
pub struct CompressLayer {
    /// `None` passes calls through untouched, so that one client type serves both choices.
    codec: Option<Codec>,
    /// The largest message an answer may expand to.
    limit: usize,
}

impl CompressLayer {
    /// Sends `codec` and expands answers up to `limit` bytes a message.
    pub fn new(codec: Codec, limit: usize) -> CompressLayer {
        CompressLayer::optional(Some(codec), limit)
    }

    /// Sends `codec`, or leaves calls plain for `None`.
    pub fn optional(codec: Option<Codec>, limit: usize) -> CompressLayer {
        CompressLayer { codec, limit }
    }

    /// `inner` behind this layer, for callers without `tower` in scope.
    pub fn on<S>(self, inner: S) -> Compressed<S> {
        self.layer(inner)
    }
}

impl<S> Layer<S> for CompressLayer {
    type Service = Compressed<S>;

    fn layer(&self, inner: S) -> Compressed<S> {
        Compressed {
            inner,
            codec: self.codec,
            limit: self.limit,
        }
    }
}

/// A channel whose calls go compressed both ways.
#[derive(Debug, Clone)]
pub struct Compressed<S> {
    inner: S,
    codec: Option<Codec>,
    limit: usize,
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

    fn call(&mut self, request: http::Request<tonic::body::Body>) -> Self::Future {
        let limit = self.limit;
        let Some(codec) = self.codec else {
            let call = self.inner.call(request);
            return Box::pin(async move { Ok(call.await?.map(tonic::body::Body::new)) });
        };
        let (mut parts, body) = request.into_parts();
        let name = HeaderValue::from_static(codec.name());
        parts.headers.insert(ENCODING, name.clone());
        parts.headers.insert(ACCEPT, name);
        let body = tonic::body::Body::new(Reframe::new(body, Op::Compress(codec)));
        let call = self.inner.call(http::Request::from_parts(parts, body));
        Box::pin(async move {
            let (mut parts, body) = call.await?.into_parts();
            let sent = parts
                .headers
                .get(ENCODING)
                .and_then(|e| e.to_str().ok())
                .and_then(Codec::named);
            // Gone even from a trailers-only answer, which has no messages to expand: tonic,
            // told of no encoding of its own, reads the header before the status, and
            // reported a server's error as an unsupported encoding.
            if sent.is_some() {
                parts.headers.remove(ENCODING);
            }
            let body = match sent {
                Some(codec) if !parts.headers.contains_key("grpc-status") => {
                    tonic::body::Body::new(Reframe::new(body, Op::Expand { codec, limit }))
                }
                _ => tonic::body::Body::new(body),
            };
            Ok(http::Response::from_parts(parts, body))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_trailers_only_error_naming_an_encoding_keeps_its_status() {
        // Another server's refusal: trailers-only, with the encoding the call asked for.
        let server = tower::service_fn(|_| {
            let mut refusal: http::Response<tonic::body::Body> =
                tonic::Status::not_found("no such puzzle").into_http();
            let gzip = HeaderValue::from_static("gzip");
            refusal.headers_mut().insert(ENCODING, gzip);
            std::future::ready(Ok::<_, std::convert::Infallible>(refusal))
        });
        let mut client =
            tonic::client::Grpc::new(CompressLayer::new(Codec::Gzip, 1 << 20).on(server));
        client.ready().await.expect("ready");
        let codec = tonic_prost::ProstCodec::<(), ()>::default();
        let path = http::uri::PathAndQuery::from_static("/sudoku.v1.Sudoku/Solve");
        let status = client
            .unary(tonic::Request::new(()), path, codec)
            .await
            .expect_err("refused");
        assert_eq!(status.code(), tonic::Code::NotFound, "{status:?}");
        assert_eq!(status.message(), "no such puzzle");
    }
}
