//! Server streams whose client takes nothing: every streamed answer goes out through
//! [`Taking`], which closes the call when an answer has waited for its client longer than the
//! idle timeout, whatever the RPC. Closing drops the handler's stream, so its work stops and
//! everything it held goes back.
//!
//! HTTP/2 polls a response body only when the client's flow-control window has room; an
//! answer handed over and not followed by another poll means the client has stopped taking.

use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::time::Instant;

use bytes::Bytes;
use http_body::{Body, Frame};
use tonic::Status;
use tonic::codegen::http;

/// What the body and its watchdog share.
struct Watched<B> {
    /// The handler's body; `None` once closed.
    inner: Mutex<Option<B>>,
    /// When the last answer was handed over and not yet followed by another poll, in ms
    /// since `epoch`, plus one; 0 while the client keeps up.
    offered: AtomicU64,
    epoch: Instant,
}

impl<B> Watched<B> {
    fn now(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis())
            .unwrap_or(u64::MAX - 1)
            .saturating_add(1)
    }
}

/// A streamed response body closed when its client takes nothing for `idle`.
pub(crate) struct Taking<B> {
    watched: Arc<Watched<B>>,
    idle: Duration,
    /// Whether the closing status went out.
    ended: bool,
}

impl<B> Taking<B>
where
    B: Send + 'static,
{
    /// Watches `inner`: a task looks every half `idle` while the body lives.
    pub(crate) fn new(inner: B, idle: Duration) -> Taking<B> {
        let watched = Arc::new(Watched {
            inner: Mutex::new(Some(inner)),
            offered: AtomicU64::new(0),
            epoch: Instant::now(),
        });
        let weak = Arc::downgrade(&watched);
        let limit = u64::try_from(idle.as_millis()).unwrap_or(u64::MAX);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(idle / 2).await;
                let Some(watched) = weak.upgrade() else {
                    return;
                };
                let offered = watched.offered.load(Ordering::Acquire);
                if offered != 0 && watched.now().saturating_sub(offered) >= limit {
                    // Dropped outside the lock: dropping the handler's stream may run code.
                    let inner = watched
                        .inner
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .take();
                    drop(inner);
                    return;
                }
            }
        });
        Taking {
            watched,
            idle,
            ended: false,
        }
    }
}

impl<B> Body for Taking<B>
where
    B: Body<Data = Bytes, Error = Status> + Unpin + Send + 'static,
{
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        let watched = self.watched.clone();
        // Polled again: the client has room, so it took what it was handed.
        watched.offered.store(0, Ordering::Release);
        let mut inner = watched.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(body) = inner.as_mut() else {
            drop(inner);
            if self.ended {
                return Poll::Ready(None);
            }
            self.ended = true;
            // The status the call ends with, where its client ever reads it.
            let closed = crate::status::stream_closed(format!(
                "stream closed: its client took no answer for {} ms (--idle-timeout-ms); read \
                 answers as they come, or open a new call",
                self.idle.as_millis()
            ));
            let mut trailers = http::HeaderMap::new();
            // Only a message that is not valid in a header fails, and ours is ASCII.
            let _ = closed.add_header(&mut trailers);
            return Poll::Ready(Some(Ok(Frame::trailers(trailers))));
        };
        let polled = Pin::new(body).poll_frame(cx);
        if let Poll::Ready(Some(Ok(frame))) = &polled
            && frame.is_data()
        {
            watched.offered.store(watched.now(), Ordering::Release);
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;
    use std::sync::atomic::AtomicBool;

    /// A body of endless answers that raises a flag when dropped.
    struct Endless(Arc<AtomicBool>);

    impl Body for Endless {
        type Data = Bytes;
        type Error = Status;
        fn poll_frame(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
            Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(b"answer")))))
        }
    }

    impl Drop for Endless {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_client_that_keeps_taking_is_never_closed() {
        let dropped = Arc::new(AtomicBool::new(false));
        let mut body = Taking::new(Endless(dropped.clone()), Duration::from_millis(100));
        for _ in 0..50 {
            let frame = body.frame().await.expect("a frame").expect("no error");
            assert!(frame.is_data());
            tokio::time::sleep(Duration::from_millis(60)).await;
        }
        assert!(!dropped.load(Ordering::SeqCst));
    }

    #[tokio::test(start_paused = true)]
    async fn an_answer_left_untaken_closes_the_call_and_drops_its_work() {
        let dropped = Arc::new(AtomicBool::new(false));
        let mut body = Taking::new(Endless(dropped.clone()), Duration::from_millis(100));
        body.frame().await.expect("a frame").expect("no error");
        tokio::time::sleep(Duration::from_millis(80)).await;
        assert!(!dropped.load(Ordering::SeqCst), "closed too soon");
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(
            dropped.load(Ordering::SeqCst),
            "the handler's body was not dropped"
        );
        let trailers = body
            .frame()
            .await
            .expect("a frame")
            .expect("no error")
            .into_trailers()
            .expect("trailers");
        let status = Status::from_header_map(&trailers).expect("a status");
        assert_eq!(status.code(), tonic::Code::Unavailable);
        assert!(
            status.message().contains("took no answer for 100 ms"),
            "{status:?}"
        );
        let info = tonic_types::StatusExt::get_details_error_info(&status).expect("ErrorInfo");
        assert_eq!(
            info.reason,
            sudoku_proto::STREAM_CLOSED,
            "clients may open anew"
        );
        assert!(body.frame().await.is_none());
    }
}
