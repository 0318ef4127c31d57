//! The client side: a tower layer for a tonic channel that sends gzip requests and takes
//! gzip answers at [`super::GZIP_LEVEL`], in place of tonic's own gzip (level 6).

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::Body;
use tonic::codegen::StdError;
use tonic::codegen::http::{self, HeaderValue};
use tower::{Layer, Service};

use super::frames::Reframe;
use super::server::{ACCEPT, ENCODING};
use super::{GZIP, Op};

/// Compresses a client's requests with gzip and expands its gzip answers; use it instead of
/// the client's `send_compressed`/`accept_compressed` for gzip.
#[derive(Debug, Clone, Copy)]
pub struct GzipLayer {
    /// The largest message an answer may expand to.
    limit: usize,
}

impl GzipLayer {
    /// Expands answers up to `limit` bytes a message.
    pub fn new(limit: usize) -> GzipLayer {
        GzipLayer { limit }
    }
}

impl<S> Layer<S> for GzipLayer {
    type Service = Gzip<S>;

    fn layer(&self, inner: S) -> Gzip<S> {
        Gzip {
            inner,
            limit: self.limit,
        }
    }
}

/// A channel whose calls go gzip-compressed both ways.
#[derive(Debug, Clone)]
pub struct Gzip<S> {
    inner: S,
    limit: usize,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S, R> Service<http::Request<tonic::body::Body>> for Gzip<S>
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
        let (mut parts, body) = request.into_parts();
        parts
            .headers
            .insert(ENCODING, HeaderValue::from_static(GZIP));
        parts.headers.insert(ACCEPT, HeaderValue::from_static(GZIP));
        let body = tonic::body::Body::new(Reframe::new(body, Op::Gzip));
        let call = self.inner.call(http::Request::from_parts(parts, body));
        let limit = self.limit;
        Box::pin(async move {
            let response = call.await?;
            if response.headers().get(ENCODING).is_none_or(|e| e != GZIP) {
                return Ok(response.map(tonic::body::Body::new));
            }
            let (mut parts, body) = response.into_parts();
            parts.headers.remove(ENCODING);
            let body = tonic::body::Body::new(Reframe::new(body, Op::Gunzip { limit }));
            Ok(http::Response::from_parts(parts, body))
        })
    }
}
