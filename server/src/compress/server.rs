//! The server side: gzip requests are expanded before tonic reads them, and answers to
//! clients that prefer gzip are compressed after tonic writes them.

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::Body;
use tonic::codegen::StdError;
use tonic::codegen::http::{self, HeaderValue};
use tower::{Layer, Service};

use super::frames::Reframe;
use super::{GZIP, Op, prefers_gzip};

pub(super) const ENCODING: &str = "grpc-encoding";
pub(super) const ACCEPT: &str = "grpc-accept-encoding";

/// Serves gzip at [`super::GZIP_LEVEL`] for every service behind it; tonic keeps zstd.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ServeGzip {
    /// The largest message a request may expand to.
    limit: usize,
}

impl ServeGzip {
    /// Expands requests up to `limit` bytes a message.
    pub(crate) fn new(limit: usize) -> ServeGzip {
        ServeGzip { limit }
    }
}

impl<S> Layer<S> for ServeGzip {
    type Service = GzipServed<S>;

    fn layer(&self, inner: S) -> GzipServed<S> {
        GzipServed {
            inner,
            limit: self.limit,
        }
    }
}

/// A service whose gzip traffic this crate compresses and expands.
#[derive(Debug, Clone)]
pub(crate) struct GzipServed<S> {
    inner: S,
    limit: usize,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S, R> Service<http::Request<tonic::body::Body>> for GzipServed<S>
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
        let gzipped = headers.get(ENCODING).is_some_and(|e| e == GZIP);
        if gzipped {
            headers.remove(ENCODING);
        }
        let answer_gzip = headers
            .get(ACCEPT)
            .and_then(|a| a.to_str().ok())
            .is_some_and(prefers_gzip);
        // Without the header tonic answers plain, and the answer is compressed here.
        if answer_gzip {
            headers.remove(ACCEPT);
        }
        if gzipped {
            let limit = self.limit;
            request = request
                .map(|body| tonic::body::Body::new(Reframe::new(body, Op::Gunzip { limit })));
        }
        let call = self.inner.call(request);
        Box::pin(async move {
            let response = call.await?;
            if !answer_gzip || response.headers().contains_key(ENCODING) {
                return Ok(response.map(tonic::body::Body::new));
            }
            let (mut parts, body) = response.into_parts();
            parts
                .headers
                .insert(ENCODING, HeaderValue::from_static(GZIP));
            let body = tonic::body::Body::new(Reframe::new(body, Op::Gzip));
            Ok(http::Response::from_parts(parts, body))
        })
    }
}
