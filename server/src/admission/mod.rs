//! Admission in front of tonic, before a call's body is read (docs/design/server.md,
//! invariant 1): tonic reads and decodes a unary request before its handler runs, so room
//! taken in the handler would bound nothing.

pub(crate) mod compression;
pub(crate) mod idle;
pub(crate) mod methods;
pub(crate) mod streams;

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use bytes::Bytes;
use futures::future::BoxFuture;
use http_body::{Body, Frame};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Sleep;
use tonic::Status;
use tonic::codegen::http;
use tower::Service;

use crate::admission::idle::Taking;
use crate::admission::methods::{
    REFLECTION_STREAMS, is_one_message, is_reflection, kept_bytes, message_limit, streams_answers,
};
use crate::admission::streams::{Room, StreamRoom};
use sudoku_compress::frames::{Bound, Bounds, Header};

use crate::config::Config;

/// The limits every call is admitted under, shared by the layer and the handlers.
pub(crate) struct Admission {
    /// Reflection streams open (see [`REFLECTION_STREAMS`]).
    reflection: Arc<Semaphore>,
    receiving: Arc<Semaphore>,
    receiving_bytes: usize,
    max_message: usize,
    idle_timeout: Option<Duration>,
    /// The batch room: open batch streams' shares and what their buffers keep.
    pub(crate) streams: Arc<Room>,
}

impl Admission {
    pub(crate) fn new(config: &Config) -> Admission {
        Admission {
            reflection: Arc::new(Semaphore::new(REFLECTION_STREAMS)),
            receiving: Arc::new(Semaphore::new(config.max_receiving_bytes)),
            receiving_bytes: config.max_receiving_bytes,
            max_message: config.largest_message(),
            // A call may wait on its client (for a message, or to take an answer) for ever at 0.
            idle_timeout: (config.idle_timeout_ms != 0)
                .then(|| Duration::from_millis(config.idle_timeout_ms)),
            streams: Arc::new(Room::new(
                config.max_batch_bytes,
                config.max_stream_bytes,
                Duration::from_millis(config.kept_idle_ms),
            )),
        }
    }

    /// Room a message holds while it is received: twice its bytes (buffered, and decoded),
    /// compressed or not: its expansion happens within the poll that passes its last byte, so
    /// counting what it might expand to would only let tiny messages fill the budget. One that
    /// needs more than the whole budget takes all of it, so it still goes, alone.
    fn cost(&self, limit: usize, compressed: bool, len: usize) -> u32 {
        // One past what is accepted is refused by its header alone (by tonic, or by the
        // expansion), before anything is buffered: it must not queue for the budget.
        if (Header { compressed, len }).exceeds(limit) {
            return 0;
        }
        let cost = len.saturating_mul(2);
        u32::try_from(cost.min(self.receiving_bytes)).unwrap_or(u32::MAX)
    }
}

/// RESOURCE_EXHAUSTED for a message that found no room, naming the part of `--memory-budget`
/// that was full (of `bytes`): the batch room (`for_batch`) or the receive budget.
fn busy(for_batch: bool, bytes: usize) -> Status {
    Status::resource_exhausted(if for_batch {
        format!(
            "server busy: batch streams hold all {bytes} bytes of --memory-budget for their \
             buffers and answers; retry with backoff, or send smaller messages"
        )
    } else {
        format!(
            "server busy: request messages being received fill its {bytes} bytes \
             (--memory-budget); retry with backoff"
        )
    })
}

/// A service whose calls are admitted before their bodies are read, and their compressed
/// messages expanded and answers compressed (see [`compression`]); `Admitted<()>` is the
/// layer that wraps services so.
#[derive(Clone)]
pub(crate) struct Admitted<S> {
    inner: S,
    admission: Arc<Admission>,
}

crate::wrapping_layer!(Admitted { admission: Arc<Admission> });

impl<S, R> Service<http::Request<tonic::body::Body>> for Admitted<S>
where
    S: Service<http::Request<tonic::body::Body>, Response = http::Response<R>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    R: Body<Data = Bytes> + Unpin + Send + 'static,
    R::Error: Into<tonic::codegen::StdError>,
{
    type Response = http::Response<tonic::body::Body>;
    type Error = S::Error;
    type Future = BoxFuture<'static, Result<Self::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: http::Request<tonic::body::Body>) -> Self::Future {
        let admission = self.admission.clone();
        let path = request.uri().path().to_owned();
        // Held by the body, which the reflection service reads until the stream ends.
        let reflection = is_reflection(&path).then(|| admission.reflection.clone());
        let stream_slot = match reflection.map(Semaphore::try_acquire_owned) {
            Some(Err(_)) => {
                let busy = Status::resource_exhausted(format!(
                    "server busy: {REFLECTION_STREAMS} reflection streams already open; retry \
                     with backoff"
                ));
                // Trailers-only, and the body is never read.
                return Box::pin(std::future::ready(Ok(busy.into_http())));
            }
            slot => slot.and_then(Result::ok),
        };
        let one_message = is_one_message(&path);
        let limit = message_limit(request.uri().path(), self.admission.max_message);
        // A batch stream's room, which its reader and its expansion see too.
        let stream = kept_bytes(&path).map(|kept_for| self.admission.streams.open(kept_for));
        if let Some(stream) = &stream {
            request.extensions_mut().insert(stream.clone());
        }
        let expanding = stream.clone();
        let request = request.map(|body| {
            let mut body = Receiving::new(body, admission, one_message);
            body.stream = stream;
            body.limit = limit;
            body.method = crate::admission::methods::method_name(&path).to_owned();
            body._stream_slot = stream_slot;
            tonic::body::Body::new(body)
        });
        let answers_idle = streams_answers(&path)
            .then_some(self.admission.idle_timeout)
            .flatten();
        // Expanded after the door: a compressed message is charged as it arrives.
        let (request, answer) = compression::expand(request, &self.admission, expanding);
        let call = self.inner.call(request);
        Box::pin(async move {
            let response = compression::compress(call.await?, answer);
            Ok(match answers_idle {
                Some(idle) => response.map(|body| tonic::body::Body::new(Taking::new(body, idle))),
                None => response,
            })
        })
    }
}

impl<B> Drop for Receiving<B> {
    fn drop(&mut self) {
        // A body given up inside a message (timed out, refused, reset) has none arriving.
        if let Some(stream) = &self.stream {
            stream.arriving(0);
        }
    }
}

/// The longest a message waits for room before its call is refused as busy. Waiting is
/// first come, first served: unbounded, every call would queue behind whatever an attacker
/// keeps waiting, each of its messages holding the room for up to the receive timeout.
const ROOM_WAIT: Duration = Duration::from_secs(1);

/// Waiting for room: a batch stream's in the batch room first, then the message's in the
/// receive budget (so a header waiting for batch room holds no receive room); `None` where
/// a budget is closed, which never happens.
type Acquiring = Pin<Box<dyn Future<Output = Option<OwnedSemaphorePermit>> + Send>>;

/// A request body whose messages hold receive room from their header to their last byte (a
/// one-message call's to its body's end, as tonic holds it until then). A message without
/// room waits with its header's last byte held back, so tonic reserves no buffer for it.
/// In a client stream room goes at a message's last byte: the batch room counts it from there.
pub(crate) struct Receiving<B> {
    inner: B,
    admission: Arc<Admission>,
    /// Where the body stands between messages.
    bounds: Bounds,
    /// Room held by the message being received.
    current: Option<OwnedSemaphorePermit>,
    /// Data read but not yet passed on.
    held: Option<Bytes>,
    acquiring: Option<Acquiring>,
    /// When waiting for room ends in a refusal.
    room_due: Option<Pin<Box<Sleep>>>,
    /// When the message being received must be in: set once it has to wait for its data.
    due: Option<Pin<Box<Sleep>>>,
    /// Whether the body is a single message (not a client stream), whose clock runs from the
    /// first wait to the body's end: tonic reads such a body to its end before the handler
    /// runs, so a call that sends nothing, or never ends its body, must not keep its slot.
    one_message: bool,
    /// The largest message the call takes (see [`message_limit`]).
    limit: usize,
    /// A reflection stream's place among those open, held while its body is read.
    _stream_slot: Option<OwnedSemaphorePermit>,
    /// A batch stream's room, grown at each header to what the message will keep.
    stream: Option<Arc<StreamRoom>>,
    /// The method, named in refusals.
    method: String,
    /// A refusal to end the body with, once what came before it has passed.
    refused: Option<Status>,
}

impl<B> Receiving<B> {
    fn new(inner: B, admission: Arc<Admission>, one_message: bool) -> Receiving<B> {
        let admission_limit = admission.max_message;
        Receiving {
            inner,
            admission,
            bounds: Bounds::default(),
            current: None,
            held: None,
            acquiring: None,
            room_due: None,
            due: None,
            one_message,
            limit: admission_limit,
            _stream_slot: None,
            stream: None,
            method: String::new(),
            refused: None,
        }
    }

    /// Passes on what of `data` may go now; the rest waits for room (`self.acquiring`).
    fn scan(&mut self, mut data: Bytes) -> Bytes {
        let mut at = 0;
        loop {
            let (n, bound) = self.bounds.next(&data[at..]);
            at += n;
            let header = match bound {
                None => return data,
                Some(Bound::End) => {
                    self.finish_message();
                    continue;
                }
                Some(Bound::Start(header)) => header,
            };
            // Held back from here, the prefix's last byte keeps tonic from seeing the message
            // begin; it is read again with the body.
            let before_last = at - 1;
            if let Some(status) = self.oversized(header) {
                self.refused = Some(status);
                data.truncate(before_last);
                return data;
            }
            let cost = self
                .admission
                .cost(self.limit, header.compressed, header.len);
            let room = &self.admission.streams;
            if let Some(stream) = &self.stream {
                stream.arriving(header.len);
            }
            let grown = (self.stream.as_ref()).is_none_or(|s| room.try_grow(s, header.len));
            let receiving = self.admission.receiving.clone();
            match receiving.clone().try_acquire_many_owned(cost) {
                Ok(permit) if grown => self.hold_room(permit),
                _ => {
                    let (room, stream, len) = (room.clone(), self.stream.clone(), header.len);
                    self.acquiring = Some(Box::pin(async move {
                        if let Some(stream) = stream
                            && !room.grow(stream, len).await
                        {
                            return None;
                        }
                        receiving.acquire_many_owned(cost).await.ok()
                    }));
                    self.bounds.unread(1);
                    self.held = Some(data.split_off(before_last));
                    return data;
                }
            }
        }
    }

    /// OUT_OF_RANGE for a message larger than its method takes (a compressed one may be up
    /// to twice that and a little more on the wire, and is held to the limit as it expands).
    fn oversized(&self, header: Header) -> Option<Status> {
        header.exceeds(self.limit).then(|| {
            Status::out_of_range(format!(
                "a request message of {} bytes is more than the {} bytes {} takes",
                header.len, self.limit, self.method
            ))
        })
    }

    /// Holds `permit` for the message whose header came last; a one-message call's body keeps
    /// the room of every message it has sent (a second one is an error, but tonic reads it).
    fn hold_room(&mut self, permit: OwnedSemaphorePermit) {
        match &mut self.current {
            Some(held) if self.one_message => held.merge(permit),
            current => *current = Some(permit),
        }
    }

    fn finish_message(&mut self) {
        if let Some(stream) = &self.stream {
            stream.arriving(0);
        }
        // A one-message call's clock runs to the body's end: more messages must not reset it;
        // and its room stays until then too (tonic holds the message until the body ends).
        if !self.one_message {
            self.due = None;
            self.current = None;
        }
    }

    /// Room for the message whose header came last, once the budget has it; a refusal once
    /// it has waited [`ROOM_WAIT`].
    fn poll_room(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Status>> {
        let Some(acquiring) = self.acquiring.as_mut() else {
            return Poll::Ready(Ok(()));
        };
        let granted = match acquiring.as_mut().poll(cx) {
            Poll::Ready(granted) => granted,
            Poll::Pending => {
                let due = self
                    .room_due
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(ROOM_WAIT)));
                if due.as_mut().poll(cx).is_pending() {
                    return Poll::Pending;
                }
                // Asked before the wait is dropped, which takes the header from the door.
                let refused = match &self.stream {
                    Some(stream) if stream.at_door() => busy(true, self.admission.streams.size),
                    _ => busy(false, self.admission.receiving_bytes),
                };
                self.acquiring = None;
                return Poll::Ready(Err(refused));
            }
        };
        let permit = granted.ok_or_else(|| Status::internal("the receive budget is closed"))?;
        self.acquiring = None;
        self.room_due = None;
        self.hold_room(permit);
        // Time spent waiting for room is the server's, not the client's.
        self.due = None;
        Poll::Ready(Ok(()))
    }

    /// Whether the message being received is overdue; starts its clock the first time it
    /// has to wait for data, so messages that arrive whole never set a timer.
    fn overdue(&mut self, cx: &mut Context<'_>) -> Result<(), Status> {
        let Some(limit) = self.admission.idle_timeout else {
            return Ok(());
        };
        let in_progress = self.bounds.inside() || self.one_message;
        if !in_progress {
            return Ok(());
        }
        let due = self
            .due
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match due.as_mut().poll(cx) {
            Poll::Ready(()) => {
                // The call ends; its room goes back now, not when the body is dropped.
                self.current = None;
                Err(Status::deadline_exceeded(format!(
                    "a request message took more than {} ms to arrive (--idle-timeout-ms)",
                    limit.as_millis()
                )))
            }
            Poll::Pending => Ok(()),
        }
    }
}

impl<B> Body for Receiving<B>
where
    B: Body<Data = Bytes, Error = Status> + Unpin,
{
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        let this = &mut *self;
        loop {
            if this.held.is_none()
                && let Some(status) = this.refused.take()
            {
                this.current = None;
                return Poll::Ready(Some(Err(status)));
            }
            ready!(this.poll_room(cx))?;
            if let Some(data) = this.held.take() {
                let pass = this.scan(data);
                if !pass.is_empty() {
                    return Poll::Ready(Some(Ok(Frame::data(pass))));
                }
                continue;
            }
            let frame = match Pin::new(&mut this.inner).poll_frame(cx) {
                Poll::Ready(frame) => frame,
                Poll::Pending => {
                    this.overdue(cx)?;
                    return Poll::Pending;
                }
            };
            match frame {
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(data) => this.held = Some(data),
                    Err(trailers) => return Poll::Ready(Some(Ok(trailers))),
                },
                other => return Poll::Ready(other),
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.held.is_none() && self.inner.is_end_stream()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;
    use std::task::Waker;

    fn admission(receiving_bytes: usize, timeout_ms: u64) -> Arc<Admission> {
        Arc::new(Admission::new(&Config {
            max_receiving_bytes: receiving_bytes,
            max_message_bytes: 4096,
            idle_timeout_ms: timeout_ms,
            ..Config::default()
        }))
    }

    /// A gRPC message of `len` bytes of `fill`, with its prefix.
    fn message(len: usize, fill: u8) -> Vec<u8> {
        let mut out = vec![0];
        out.extend_from_slice(&u32::try_from(len).unwrap().to_be_bytes());
        out.extend(std::iter::repeat_n(fill, len));
        out
    }

    type Chunks = tokio_stream::wrappers::ReceiverStream<Result<Frame<Bytes>, Status>>;

    /// A body fed through the returned sender.
    fn fed() -> (
        tokio::sync::mpsc::Sender<Result<Frame<Bytes>, Status>>,
        http_body_util::StreamBody<Chunks>,
    ) {
        let (tx, rx) = tokio::sync::mpsc::channel(16);
        (tx, http_body_util::StreamBody::new(Chunks::new(rx)))
    }

    type Feed = tokio::sync::mpsc::Sender<Result<Frame<Bytes>, Status>>;

    /// Sends `bytes` to a fed body as one DATA frame.
    async fn send(tx: &Feed, bytes: &[u8]) {
        let frame = Frame::data(Bytes::copy_from_slice(bytes));
        tx.send(Ok(frame)).await.unwrap();
    }

    /// A call a quarter through a 400-byte message, holding its 800 bytes of room, and what
    /// feeds it (kept, so the message stays unfinished).
    async fn holding_room(
        admission: &Arc<Admission>,
    ) -> (Feed, Receiving<http_body_util::StreamBody<Chunks>>) {
        let (tx, source) = fed();
        let mut body = Receiving::new(source, admission.clone(), false);
        send(&tx, &message(400, b'a')[..100]).await;
        assert_eq!(data(poll(&mut body)).len(), 100);
        (tx, body)
    }

    fn poll<B: Body<Data = Bytes, Error = Status> + Unpin>(
        body: &mut Receiving<B>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        poll_in(body, &mut Context::from_waker(Waker::noop()))
    }

    fn poll_in<B: Body<Data = Bytes, Error = Status> + Unpin>(
        body: &mut Receiving<B>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        Pin::new(body).poll_frame(cx)
    }

    /// The error `body` ends with, once it comes; `why` says what it should be.
    async fn error<B: Body<Data = Bytes, Error = Status> + Unpin>(
        body: &mut Receiving<B>,
        why: &str,
    ) -> Status {
        let end = std::future::poll_fn(|cx| poll_in(body, cx)).await;
        end.expect("an end").expect_err(why)
    }

    fn data(frame: Poll<Option<Result<Frame<Bytes>, Status>>>) -> Bytes {
        match frame {
            Poll::Ready(Some(Ok(frame))) => frame.into_data().expect("a data frame"),
            other => panic!("expected data, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn messages_pass_unchanged_however_cut_and_give_their_room_back() {
        let stream: Vec<u8> = [message(0, b'a'), message(300, b'b'), message(1000, b'c')].concat();
        for cut in [1, 2, 5, 7, 301, stream.len()] {
            let admission = admission(1 << 20, 10_000);
            let chunks: Vec<Result<Frame<Bytes>, Status>> = stream
                .chunks(cut)
                .map(|c| Ok(Frame::data(Bytes::copy_from_slice(c))))
                .collect();
            let source = http_body_util::StreamBody::new(futures::stream::iter(chunks));
            let passed = Receiving::new(source, admission.clone(), false)
                .collect()
                .await
                .unwrap()
                .to_bytes();
            assert_eq!(&passed[..], &stream[..], "cut every {cut} bytes");
            assert_eq!(admission.receiving.available_permits(), 1 << 20);
        }
    }

    #[tokio::test]
    async fn a_message_holds_room_from_its_header_to_its_last_byte() {
        // 1,000 bytes of room: a 400-byte message holds 800 while it is received.
        let admission = admission(1000, 10_000);
        let (tx, source) = fed();
        let mut body = Receiving::new(source, admission.clone(), false);
        let whole = message(400, b'a');
        send(&tx, &whole[..200]).await;
        assert_eq!(data(poll(&mut body)).len(), 200);
        assert_eq!(admission.receiving.available_permits(), 200);
        send(&tx, &whole[200..]).await;
        assert_eq!(data(poll(&mut body)).len(), 205);
        assert_eq!(admission.receiving.available_permits(), 1000);
    }

    #[tokio::test]
    async fn a_one_message_call_holds_its_room_until_its_body_ends() {
        // tonic holds the decoded message until the body ends, so the room stays that long.
        let admission = admission(1000, 10_000);
        let (tx, source) = fed();
        let mut body = Receiving::new(source, admission.clone(), true);
        send(&tx, &message(400, b'a')).await;
        assert_eq!(data(poll(&mut body)).len(), 405);
        assert_eq!(admission.receiving.available_permits(), 200);
        drop(tx);
        assert!(matches!(poll(&mut body), Poll::Ready(None)));
        assert_eq!(
            admission.receiving.available_permits(),
            200,
            "until it is dropped"
        );
        drop(body);
        assert_eq!(admission.receiving.available_permits(), 1000);
    }

    #[tokio::test]
    async fn one_call_waits_for_room_another_holds() {
        let admission = admission(1000, 10_000);
        let (tx_a, source_a) = fed();
        let (tx_b, source_b) = fed();
        let mut a = Receiving::new(source_a, admission.clone(), false);
        let mut b = Receiving::new(source_b, admission.clone(), false);
        // A is halfway through a message that holds 800 bytes of room.
        let big = message(400, b'a');
        send(&tx_a, &big[..200]).await;
        assert_eq!(data(poll(&mut a)).len(), 200);
        send(&tx_b, &message(300, b'b')).await;
        // B's message needs 600: nothing passes but its first four header bytes.
        assert_eq!(data(poll(&mut b)).len(), 4);
        assert!(b.acquiring.is_some(), "the call waits for room");
        assert!(poll(&mut b).is_pending());
        drop(a);
        assert_eq!(data(poll(&mut b)).len(), 301);
        assert!(b.acquiring.is_none());
    }

    #[tokio::test]
    async fn a_message_that_stops_arriving_ends_its_call() {
        let admission = admission(1 << 20, 50);
        let (tx, source) = fed();
        let mut body = Receiving::new(source, admission.clone(), false);
        let whole = message(100, b'a');
        send(&tx, &whole[..50]).await;
        assert_eq!(data(poll(&mut body)).len(), 50);
        let err = error(&mut body, "overdue").await;
        assert_eq!(err.code(), tonic::Code::DeadlineExceeded);
        assert!(err.message().contains("--idle-timeout-ms"), "{err:?}");
        // The room goes back with the error, though the body lives on.
        assert_eq!(admission.receiving.available_permits(), 1 << 20);
        drop(body);
    }

    #[test]
    fn room_counts_what_a_message_holds_while_it_arrives() {
        let admission = admission(1 << 20, 0);
        assert_eq!(admission.cost(4096, false, 100), 200);
        // Compressed, the same: it is expanded after its room has gone back.
        assert_eq!(admission.cost(4096, true, 100), 200);
        assert_eq!(admission.cost(4096, true, 5000), 10_000);
        // More than all the room takes all of it.
        assert_eq!(admission.cost(4096, false, 4096), 8192);
        let small = Arc::new(Admission::new(&Config {
            max_receiving_bytes: 1000,
            max_message_bytes: 4096,
            ..Config::default()
        }));
        assert_eq!(small.cost(4096, false, 4096), 1000);
        // What its header alone gets refused (by tonic, or by expansion) costs
        // nothing: it must not wait for room, nor hold any.
        assert_eq!(admission.cost(4096, false, 4097), 0);
        assert_eq!(admission.cost(4096, true, 2 * 4096 + 1025), 0);
        assert_eq!(admission.cost(4096, false, u32::MAX as usize), 0);
    }

    #[tokio::test]
    async fn a_call_that_sends_too_little_ends_in_time() {
        // Nothing of a one-message body, or part of a header in a stream, then silence.
        for (one_message, sent) in [(true, &b""[..]), (false, &b"\0\0"[..])] {
            let admission = admission(1 << 20, 50);
            let (tx, source) = fed();
            let mut body = Receiving::new(source, admission.clone(), one_message);
            if !sent.is_empty() {
                send(&tx, sent).await;
                assert_eq!(data(poll(&mut body)).len(), sent.len());
            }
            let err = error(&mut body, "overdue").await;
            assert_eq!(err.code(), tonic::Code::DeadlineExceeded, "{one_message}");
        }
        // A whole message whose body never ends: tonic waits for the end before the handler.
        // Empty messages sent now and then do not reset its clock.
        let (tx, source) = fed();
        let mut body = Receiving::new(source, admission(1 << 20, 80), true);
        send(&tx, &message(3, b'a')).await;
        assert_eq!(data(poll(&mut body)).len(), 8);
        assert!(poll(&mut body).is_pending());
        tokio::time::sleep(Duration::from_millis(50)).await;
        send(&tx, &message(0, b'a')).await;
        assert_eq!(data(poll(&mut body)).len(), 5);
        let err = error(&mut body, "overdue").await;
        assert_eq!(err.code(), tonic::Code::DeadlineExceeded);
        // Between whole messages a stream may pause: no clock runs.
        let admission = admission(1 << 20, 50);
        let (tx, source) = fed();
        let mut body = Receiving::new(source, admission, false);
        send(&tx, &message(3, b'a')).await;
        assert_eq!(data(poll(&mut body)).len(), 8);
        let paused = tokio::time::timeout(
            Duration::from_millis(200),
            std::future::poll_fn(|cx| poll_in(&mut body, cx)),
        )
        .await;
        assert!(paused.is_err(), "still waiting for the next message");
    }

    #[tokio::test]
    async fn time_spent_waiting_for_room_is_not_the_clients() {
        let admission = admission(1000, 100);
        let (_feed, a) = holding_room(&admission).await;
        // B's one message waits for A's room longer than the timeout, then arrives whole.
        let (tx_b, source_b) = fed();
        let mut b = Receiving::new(source_b, admission.clone(), true);
        assert!(poll(&mut b).is_pending());
        tokio::time::sleep(Duration::from_millis(60)).await;
        let whole = message(300, b'b');
        send(&tx_b, &whole[..255]).await;
        assert_eq!(data(poll(&mut b)).len(), 4);
        tokio::time::sleep(Duration::from_millis(200)).await;
        drop(a);
        assert_eq!(data(poll(&mut b)).len(), 251);
        // Its clock restarted with its room: waiting for its last bytes is not overdue.
        assert!(poll(&mut b).is_pending());
        send(&tx_b, &whole[255..]).await;
        assert_eq!(data(poll(&mut b)).len(), 50);
        drop(tx_b);
        assert!(matches!(poll(&mut b), Poll::Ready(None)));
    }

    #[tokio::test]
    async fn a_message_that_waits_too_long_for_room_is_refused_as_busy() {
        let admission = admission(1000, 10_000);
        let (_feed, a) = holding_room(&admission).await;
        let (tx_b, source_b) = fed();
        let mut b = Receiving::new(source_b, admission.clone(), false);
        send(&tx_b, &message(300, b'b')).await;
        assert_eq!(data(poll(&mut b)).len(), 4);
        let waited = std::time::Instant::now();
        let err = error(&mut b, "refused").await;
        assert!(waited.elapsed() >= ROOM_WAIT - Duration::from_millis(50));
        assert_eq!(err.code(), tonic::Code::ResourceExhausted);
        assert!(err.message().contains("--memory-budget"), "{err:?}");
        assert!(b.acquiring.is_none());
        drop(a);
        assert_eq!(admission.receiving.available_permits(), 1000);
    }
}
