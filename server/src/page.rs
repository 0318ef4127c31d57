//! The page a person plays Sudoku on, served at `/` on the API's port: fixed files built by
//! `web/build.sh` (its gRPC-Web client generated from the proto) and embedded in the binary,
//! so serving one costs no I/O and no more than its size. Only GETs of the page's own paths
//! are answered here; the page's API calls are gRPC-Web to this same origin and pass every
//! layer any other call does.

use std::task::{Context, Poll};

use bytes::Bytes;
use futures::TryFutureExt;
use futures::future::{Either as EitherFuture, MapOk, Ready, ready};
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::{Either, Full};
use tower::Service;

/// The [`Asset`] at `$path` of the file `$file` in `web/dist`.
macro_rules! asset {
    ($path:literal, $file:literal, $content_type:literal) => {
        Asset {
            path: $path,
            content_type: $content_type,
            bytes: include_bytes!(concat!("../../web/dist/", $file)),
        }
    };
}

/// One file of the page.
struct Asset {
    path: &'static str,
    content_type: &'static str,
    bytes: &'static [u8],
}

/// The page's files, as `web/build.sh` left them in `web/dist`.
const ASSETS: [Asset; 4] = [
    asset!("/", "index.html", "text/html; charset=utf-8"),
    asset!("/app.js", "app.js", "text/javascript; charset=utf-8"),
    asset!("/style.css", "style.css", "text/css; charset=utf-8"),
    asset!("/favicon.svg", "favicon.svg", "image/svg+xml"),
];

/// This origin only, for scripts, styles, images and API calls; nothing inline, no frames
/// around the page, no forms, no `<base>`.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; \
     form-action 'none'; frame-ancestors 'none'";

/// A service with the page in front of it: GETs of the page's paths are answered where
/// `enabled`, every other request passed on; `PageOr<()>` is the layer that puts it there.
#[derive(Clone)]
pub(crate) struct PageOr<S> {
    inner: S,
    enabled: bool,
}

crate::wrapping_layer!(PageOr { enabled: bool });

/// A response of the page, or of the service behind it.
type Answer<R> = Response<Either<Full<Bytes>, R>>;

impl<S, B, R> Service<Request<B>> for PageOr<S>
where
    S: Service<Request<B>, Response = Response<R>>,
{
    type Response = Answer<R>;
    type Error = S::Error;
    type Future = EitherFuture<
        Ready<Result<Answer<R>, S::Error>>,
        MapOk<S::Future, fn(Response<R>) -> Answer<R>>,
    >;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let path = request.uri().path();
        match ASSETS
            .iter()
            .find(|asset| self.enabled && asset.path == path)
        {
            Some(asset) => EitherFuture::Left(ready(Ok(serve(asset, request.method())))),
            None => {
                let passed: fn(Response<R>) -> Answer<R> = |response| response.map(Either::Right);
                EitherFuture::Right(self.inner.call(request).map_ok(passed))
            }
        }
    }
}

/// `asset` to a GET; 405 to any other method.
fn serve<R>(asset: &Asset, method: &Method) -> Answer<R> {
    if method != Method::GET {
        let mut refused = Response::new(Either::Left(Full::new(Bytes::new())));
        *refused.status_mut() = StatusCode::METHOD_NOT_ALLOWED;
        let allow = HeaderValue::from_static("GET");
        refused.headers_mut().insert(header::ALLOW, allow);
        return refused;
    }
    let mut response = Response::new(Either::Left(Full::new(Bytes::from_static(asset.bytes))));
    let fixed = [
        (header::CONTENT_TYPE, asset.content_type),
        (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        // A new server's page replaces the old one at once.
        (header::CACHE_CONTROL, "no-cache"),
    ];
    let headers = response.headers_mut();
    for (name, value) in fixed {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_loads_only_what_it_embeds() {
        let html = std::str::from_utf8(ASSETS[0].bytes).expect("the page is UTF-8");
        for asset in &ASSETS[1..] {
            assert!(html.contains(asset.path), "the page links {}", asset.path);
        }
        assert!(
            !html.contains("http://") && !html.contains("https://"),
            "{html}"
        );
        assert!(
            !html.contains("<script>") && !html.contains("style="),
            "nothing inline"
        );
    }

    #[test]
    fn other_methods_are_refused_with_the_one_allowed() {
        let response = serve::<()>(&ASSETS[0], &Method::POST);
        assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(response.headers()[header::ALLOW], "GET");
        assert!(response.headers().get(header::CONTENT_TYPE).is_none());
    }
}
