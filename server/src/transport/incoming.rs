//! The accept loop: caps open connections and closes those that do not complete the HTTP/2
//! handshake in time, logging what was closed and why, so idle sockets cannot use up the
//! server's file descriptors.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures::Stream;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Sleep;
use tonic::transport::server::{Connected, TcpConnectInfo};

use crate::config::Config;
use crate::metrics::Metrics;

/// Bytes a client sends to open HTTP/2: the 24-byte preface and a SETTINGS frame header.
/// Under TLS the count is of raw bytes, and rustls's own handshake timeout applies too.
const HANDSHAKE_BYTES: usize = 24 + 9;
/// Pause after a failed accept (out of file descriptors): retrying at once would spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// Connections accepted on `listener` under `config`'s limits, each holding one of
/// `--max-connections` slots while open.
pub(crate) fn incoming(
    listener: TcpListener,
    config: &Config,
    metrics: Arc<Metrics>,
) -> impl Stream<Item = io::Result<Guarded>> + use<> {
    let limits = Arc::new(Limits {
        slots: Arc::new(Semaphore::new(config.max_connections)),
        max_connections: config.max_connections,
        handshake_timeout: config.handshake_timeout(),
        metrics,
        log: Throttle::default(),
    });
    futures::stream::unfold((listener, limits), |(listener, limits)| async move {
        loop {
            match listener.accept().await {
                Ok((stream, peer)) => {
                    if let Some(connection) = limits.admit(stream, peer) {
                        return Some((Ok(connection), (listener, limits)));
                    }
                }
                Err(err) => {
                    tracing::warn!(%err, "accept failed; pausing before the next one");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                }
            }
        }
    })
}

/// What each accepted connection is admitted under.
struct Limits {
    slots: Arc<Semaphore>,
    max_connections: usize,
    handshake_timeout: Duration,
    metrics: Arc<Metrics>,
    log: Throttle,
}

impl Limits {
    fn admit(self: &Arc<Self>, stream: TcpStream, peer: SocketAddr) -> Option<Guarded> {
        let Ok(slot) = self.slots.clone().try_acquire_owned() else {
            self.metrics.connection_closed("limit");
            self.log.warn(|dropped| {
                tracing::warn!(
                    %peer,
                    max_connections = self.max_connections,
                    closed_since_last_log = dropped,
                    "connection closed: too many open connections"
                );
            });
            return None;
        };
        // Small answers must not wait for Nagle's algorithm (40 ms stalls).
        if let Err(err) = stream.set_nodelay(true) {
            tracing::debug!(%peer, %err, "cannot set TCP_NODELAY");
        }
        self.metrics.connections().inc();
        Some(Guarded {
            stream,
            peer,
            handshake: Some(Handshake {
                read: 0,
                timer: Box::pin(tokio::time::sleep(self.handshake_timeout)),
            }),
            limits: self.clone(),
            _slot: slot,
        })
    }
}

/// The handshake a new connection owes, and the time it has left.
struct Handshake {
    read: usize,
    timer: Pin<Box<Sleep>>,
}

/// An accepted TCP connection that fails its reads once the handshake is overdue.
pub(crate) struct Guarded {
    stream: TcpStream,
    peer: SocketAddr,
    handshake: Option<Handshake>,
    limits: Arc<Limits>,
    _slot: OwnedSemaphorePermit,
}

impl Drop for Guarded {
    fn drop(&mut self) {
        self.limits.metrics.connections().dec();
    }
}

impl Connected for Guarded {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        self.stream.connect_info()
    }
}

impl AsyncRead for Guarded {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if let Some(handshake) = this.handshake.as_mut()
            && handshake.timer.as_mut().poll(cx).is_ready()
        {
            let limits = &this.limits;
            limits.metrics.connection_closed("handshake_timeout");
            let (peer, bytes, timeout) = (this.peer, handshake.read, limits.handshake_timeout);
            limits.log.warn(|dropped| {
                tracing::warn!(
                    %peer,
                    bytes,
                    timeout_ms = timeout.as_millis() as u64,
                    closed_since_last_log = dropped,
                    "connection closed: no HTTP/2 handshake in time"
                );
            });
            let err = io::Error::new(io::ErrorKind::TimedOut, "no HTTP/2 handshake in time");
            return Poll::Ready(Err(err));
        }
        let before = buf.filled().len();
        let read = Pin::new(&mut this.stream).poll_read(cx, buf);
        if let (Poll::Ready(Ok(())), Some(handshake)) = (&read, this.handshake.as_mut()) {
            handshake.read += buf.filled().len() - before;
            if handshake.read >= HANDSHAKE_BYTES {
                this.handshake = None;
            }
        }
        read
    }
}

impl AsyncWrite for Guarded {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// At most one log line a second per kind of closure, so a flood of bad connections cannot
/// flood the log; each line says how many were closed without one.
#[derive(Default)]
struct Throttle {
    last_ms: AtomicU64,
    quiet: AtomicU64,
}

impl Throttle {
    fn warn(&self, log: impl FnOnce(u64)) {
        static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
        let now = START.get_or_init(Instant::now).elapsed().as_millis() as u64 + 1000;
        let last = self.last_ms.load(Ordering::Relaxed);
        if now.saturating_sub(last) >= 1000
            && self
                .last_ms
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            log(self.quiet.swap(0, Ordering::Relaxed));
        } else {
            self.quiet.fetch_add(1, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_throttle_logs_once_a_second_and_counts_the_rest() {
        let throttle = Throttle::default();
        let mut logged = Vec::new();
        for _ in 0..5 {
            throttle.warn(|quiet| logged.push(quiet));
        }
        assert_eq!(logged, vec![0]);
        assert_eq!(throttle.quiet.load(Ordering::Relaxed), 4);
    }
}
