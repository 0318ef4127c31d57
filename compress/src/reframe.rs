//! A body that rewrites each gRPC message of another as it passes: split at message bounds
//! whatever the chunking, each message changed by an [`Op`], trailers passed on.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, LazyLock};
use std::task::{Context, Poll, ready};

use bytes::{Bytes, BytesMut};
use http_body::{Body, Frame};
use tokio::sync::OwnedSemaphorePermit;
use tokio::sync::Semaphore;
use tonic::Status;

use crate::frames::{Bound, Bounds, Header};
use crate::{Op, Rewrite};

/// Told of each message rewritten: whether it came compressed, its size as it came and as
/// rewritten; an error ends the body with it (a server's charge for what it expanded to).
pub type Observer = Box<dyn FnMut(bool, usize, usize) -> Result<(), Status> + Send>;

/// `inner` with every message rewritten by `op`.
pub struct Reframe<B> {
    inner: B,
    op: Op,
    /// Where the stream stands between messages.
    bounds: Bounds,
    /// The prefix of the message being read.
    header: Option<Header>,
    /// The frame being read, while whole messages are taken from it as they are.
    pending: Bytes,
    /// Bytes of a message's body not yet whole, gathered from the frames it came in.
    partial: BytesMut,
    done: bool,
    observer: Option<Observer>,
    /// A message being rewritten off the async threads.
    working: Option<Working>,
}

/// A message rewritten on the blocking pool, with whether it came compressed and its size as
/// it came.
struct Working {
    /// The rewritten message and its turn (see [`TURNS`]), held until the message has been
    /// observed (charged, or refused), so that no more expanded messages are alive uncharged
    /// than there are turns; `None` had the turns been closed, which they never are.
    done: Pin<Box<dyn Future<Output = Rewritten> + Send>>,
    compressed: bool,
    size: usize,
}

/// A message rewritten off the async threads, with its turn.
type Rewritten = (Result<Bytes, Status>, Option<OwnedSemaphorePermit>);

/// Messages rewritten off the async threads at once, in all bodies together: as many as the
/// machine has cores. Without a bound, many small messages expanding to large ones would all
/// be expanded at once, before any expansion could be charged.
static TURNS: LazyLock<Arc<Semaphore>> = LazyLock::new(|| {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    Arc::new(Semaphore::new(cores))
});

/// Above this, the buffer a message was gathered in is not kept for the next one: a buffer
/// as large as the largest message would stay for the stream's life. Below it, it is: copying
/// out the rest of every frame after each small message cost more than the message.
const KEPT_PARTIAL: usize = 64 << 10;

impl<B> Reframe<B> {
    /// `inner`, each message rewritten by `op`.
    pub fn new(inner: B, op: Op) -> Reframe<B> {
        Reframe {
            inner,
            op,
            bounds: Bounds::default(),
            header: None,
            pending: Bytes::new(),
            partial: BytesMut::new(),
            done: false,
            observer: None,
            working: None,
        }
    }

    /// The same, telling `observer` of each message rewritten.
    pub fn observed(mut self, observer: Observer) -> Reframe<B> {
        self.observer = Some(observer);
        self
    }

    /// The next whole message, rewritten, if one has arrived; `None` too where its rewriting
    /// went to the blocking pool (see [`Reframe::working`]).
    fn next_message(&mut self) -> Option<Result<Bytes, Status>> {
        loop {
            let (n, bound) = self.bounds.next(&self.pending);
            let read = self.pending.split_to(n);
            match bound {
                None => {
                    if self.bounds.in_body() {
                        self.partial.extend_from_slice(&read);
                    }
                    return None;
                }
                Some(Bound::Start(header)) => {
                    if let Err(status) = self.admit(header) {
                        return Some(Err(status));
                    }
                    if self.pending.len() < header.len {
                        self.partial.reserve(header.len);
                    }
                    self.header = Some(header);
                }
                Some(Bound::End) => {
                    let compressed = self.header.take().is_some_and(|h| h.compressed);
                    // A message whole in its frame (as every message is before compression:
                    // a client or service encodes each into one frame) is read where it is;
                    // gathering it first cost a copy of every byte compressed.
                    if self.partial.is_empty() {
                        return self.rewrite(compressed, read);
                    }
                    self.partial.extend_from_slice(&read);
                    // Told before the split: an empty view of no capacity still keeps the
                    // whole buffer.
                    let large = self.partial.capacity() > KEPT_PARTIAL;
                    let body = self.partial.split().freeze();
                    if large {
                        self.partial = BytesMut::new();
                    }
                    return self.rewrite(compressed, body);
                }
            }
        }
    }

    /// The message `body` rewritten by the op, or `None` where that went to the blocking pool.
    fn rewrite(&mut self, compressed: bool, body: Bytes) -> Option<Result<Bytes, Status>> {
        let size = body.len();
        match self.op.apply_inline(compressed, &body) {
            Rewrite::Done(rewritten) => Some(self.finish(compressed, size, rewritten)),
            Rewrite::Blocking => {
                let op = self.op;
                let done = async move {
                    let turn = TURNS.clone().acquire_owned().await.ok();
                    // Made on this thread: see `Op::apply_into`.
                    let out = Vec::with_capacity(crate::PREFIX);
                    let task = tokio::task::spawn_blocking(move || {
                        (op.apply_into(compressed, &body, out), turn)
                    });
                    task.await.unwrap_or_else(|err| {
                        let failed = format!("rewriting a message failed: {err}");
                        (Err(Status::internal(failed)), None)
                    })
                };
                let done = Box::pin(done);
                self.working = Some(Working {
                    done,
                    compressed,
                    size,
                });
                None
            }
        }
    }

    fn finish(
        &mut self,
        compressed: bool,
        size: usize,
        rewritten: Result<Bytes, Status>,
    ) -> Result<Bytes, Status> {
        let rewritten = rewritten?;
        if let Some(observer) = &mut self.observer {
            observer(compressed, size, rewritten.len() - crate::PREFIX)?;
        }
        Ok(rewritten)
    }

    /// At the end of the data: a message cut short is an error.
    fn end(&mut self) -> Result<(), Status> {
        self.done = true;
        if !self.bounds.inside() && self.pending.is_empty() {
            Ok(())
        } else {
            Err(Status::internal("the stream ended inside a message"))
        }
    }

    /// Refuses a message no message that long can be accepted, before it is buffered.
    fn admit(&self, header: Header) -> Result<(), Status> {
        let Op::Expand { limit, .. } = self.op else {
            return Ok(());
        };
        // Refused before buffering one that could only be refused later (a plain one past the
        // limit too: the length is the client's word, and the buffer is reserved from it).
        if header.exceeds(limit) {
            // OUT_OF_RANGE, as tonic answers a plain message past the limit: sending it
            // again cannot help.
            return Err(Status::out_of_range(format!(
                "a message of {} bytes; at most {limit} accepted",
                header.len
            )));
        }
        Ok(())
    }
}

impl<B> Body for Reframe<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: Into<tonic::codegen::StdError>,
{
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        let this = &mut *self;
        loop {
            if let Some(working) = &mut this.working {
                // The turn is held until the message is charged.
                let (rewritten, _turn) = ready!(working.done.as_mut().poll(cx));
                let (compressed, size) = (working.compressed, working.size);
                this.working = None;
                return Poll::Ready(Some(
                    this.finish(compressed, size, rewritten).map(Frame::data),
                ));
            }
            if let Some(message) = this.next_message() {
                return Poll::Ready(Some(message.map(Frame::data)));
            }
            if this.working.is_some() {
                continue;
            }
            if this.done {
                return Poll::Ready(None);
            }
            match ready!(Pin::new(&mut this.inner).poll_frame(cx)) {
                Some(Ok(frame)) => match frame.into_data() {
                    // Whatever came before is in `partial` by now (see `next_message`).
                    Ok(data) => this.pending = data,
                    Err(trailers) => return Poll::Ready(Some(this.end().map(|()| trailers))),
                },
                Some(Err(err)) => return Poll::Ready(Some(Err(Status::from_error(err.into())))),
                None => {
                    if let Err(status) = this.end() {
                        return Poll::Ready(Some(Err(status)));
                    }
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.done && !self.bounds.inside() && self.pending.is_empty() && self.working.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Codec, PREFIX};
    use http_body_util::BodyExt;

    /// `source`, every message rewritten by `op`, as one buffer.
    async fn rewritten<B>(source: B, op: Op) -> Bytes
    where
        B: Body<Data = Bytes> + Unpin,
        B::Error: Into<tonic::codegen::StdError>,
    {
        Reframe::new(source, op).collect().await.unwrap().to_bytes()
    }

    /// A body of `chunks` then no trailers.
    fn body(
        chunks: Vec<&'static [u8]>,
    ) -> http_body_util::StreamBody<impl futures::Stream<Item = Result<Frame<Bytes>, Status>> + Unpin>
    {
        http_body_util::StreamBody::new(futures::stream::iter(
            chunks
                .into_iter()
                .map(|c| Ok(Frame::data(Bytes::from_static(c)))),
        ))
    }

    /// One stream of two messages, `a` then `b` bytes long, each with its prefix.
    fn two_messages(a: usize, b: usize) -> Vec<u8> {
        let mut stream = Vec::new();
        for (len, fill) in [(a, b'a'), (b, b'c')] {
            stream.push(0);
            stream.extend_from_slice(&u32::try_from(len).unwrap().to_be_bytes());
            stream.extend(std::iter::repeat_n(fill, len));
        }
        stream
    }

    /// A 200,000-byte message, then the start of a 700-byte one up to byte `to` of the
    /// stream, the first cut in two chunks, compressed: the body once the first is out.
    async fn after_a_large_message(to: usize) -> Reframe<impl Body<Data = Bytes> + Unpin> {
        let stream = two_messages(200_000, 700);
        let leaked: &'static [u8] = Box::leak(stream.into_boxed_slice());
        let source = body(vec![&leaked[..100_000], &leaked[100_000..to]]);
        let mut reframe = Reframe::new(source, Op::Compress(Codec::Gzip));
        let first = reframe
            .frame()
            .await
            .expect("a message")
            .expect("compressed");
        assert!(first.is_data());
        reframe
    }

    #[tokio::test]
    async fn a_large_message_leaves_no_large_buffer_behind() {
        // The second message's first bytes come with the first's end.
        let reframe = after_a_large_message(PREFIX + 200_000 + 5).await;
        assert_eq!(reframe.pending.len(), 5, "the next message's start is kept");
        assert!(
            reframe.partial.capacity() < 1024,
            "a buffer of {} bytes kept",
            reframe.partial.capacity()
        );
    }

    #[tokio::test]
    async fn a_large_message_ending_with_its_chunk_leaves_no_buffer_behind() {
        let mut reframe = after_a_large_message(PREFIX + 200_000).await;
        assert!(reframe.partial.is_empty());
        // An empty view of the message's buffer could take it back whole.
        assert!(
            !reframe.partial.try_reclaim(KEPT_PARTIAL + 1),
            "the message's buffer is kept"
        );
    }

    #[tokio::test]
    async fn large_messages_are_rewritten_off_the_async_thread_in_order() {
        // A large message between two small ones: compressed on the blocking pool, then
        // expanded there, each coming out in its place.
        let mut original = two_messages(300, 200_000);
        original.extend(two_messages(400, 10));
        let leaked: &'static [u8] = Box::leak(original.clone().into_boxed_slice());
        let source = body(vec![&leaked[..1000], &leaked[1000..]]);
        let zipped = rewritten(source, Op::Compress(Codec::Zstd)).await;
        assert!(zipped.len() < original.len() / 10, "compressed");
        let again = http_body_util::StreamBody::new(futures::stream::iter([Ok::<_, Status>(
            Frame::data(zipped),
        )]));
        let expand = Op::Expand {
            codec: Codec::Zstd,
            limit: 200_000,
        };
        let plain = rewritten(again, expand).await;
        assert_eq!(&plain[..], &original[..]);
    }

    #[tokio::test]
    async fn messages_split_across_chunks_are_rewritten_whole() {
        let original = two_messages(600, 700);
        let leaked: &'static [u8] = Box::leak(original.clone().into_boxed_slice());
        // Cut inside the first prefix, inside the first body, and inside the second prefix.
        let source = body(vec![
            &leaked[..3],
            &leaked[3..300],
            &leaked[300..607],
            &leaked[607..],
        ]);
        let zipped = rewritten(source, Op::Compress(Codec::Gzip)).await;
        let first = u32::from_be_bytes(zipped[1..5].try_into().unwrap()) as usize;
        let (a, b) = zipped.split_at(PREFIX + first);
        assert_eq!((a[0], b[0]), (1, 1));
        assert!(zipped.len() < original.len() / 4, "both compressed");
        let again = http_body_util::StreamBody::new(futures::stream::iter([Ok::<_, Status>(
            Frame::data(zipped.clone()),
        )]));
        let plain = rewritten(
            again,
            Op::Expand {
                codec: Codec::Gzip,
                limit: 700,
            },
        )
        .await;
        assert_eq!(&plain[..], &original[..]);
    }

    #[tokio::test]
    async fn whole_and_cut_messages_in_one_frame_are_both_rewritten() {
        // The first message whole in the first frame with the start of the second; a third
        // whole in the last frame after the second's end.
        let mut original = two_messages(600, 700);
        original.extend_from_slice(&two_messages(550, 0)[..PREFIX + 550]);
        let leaked: &'static [u8] = Box::leak(original.clone().into_boxed_slice());
        let cut = PREFIX + 600 + 300;
        let source = body(vec![&leaked[..cut], &leaked[cut..]]);
        let zipped = rewritten(source, Op::Compress(Codec::Zstd)).await;
        assert!(zipped.len() < original.len() / 4, "all three compressed");
        let limit = 700;
        let op = Op::Expand {
            codec: Codec::Zstd,
            limit,
        };
        let again = body(vec![Box::leak(zipped.to_vec().into_boxed_slice())]);
        let plain = rewritten(again, op).await;
        assert_eq!(&plain[..], &original[..]);
    }

    #[tokio::test]
    async fn a_plain_message_past_the_limit_is_refused_before_it_is_buffered() {
        // A plain message claiming 4 GiB inside a compressed stream.
        let source = body(vec![b"\0\xff\xff\xff\xffab"]);
        let op = Op::Expand {
            codec: Codec::Gzip,
            limit: 10,
        };
        let err = Reframe::new(source, op).collect().await.unwrap_err();
        assert_eq!(err.code(), tonic::Code::OutOfRange);
        assert!(err.message().contains("at most 10 accepted"), "{err:?}");
    }

    #[tokio::test]
    async fn a_cut_message_is_an_error() {
        let source = body(vec![b"\0\0\0\0\x05ab"]);
        let err = Reframe::new(source, Op::Compress(Codec::Gzip))
            .collect()
            .await
            .unwrap_err();
        assert_eq!(err.code(), tonic::Code::Internal);
    }
}
