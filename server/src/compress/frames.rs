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
use tokio::task::JoinHandle;
use tonic::Status;

use super::{Budget, Op, PREFIX, Rewrite};
use crate::admission::methods::LargestMessage;

/// `inner` with every message rewritten by `op`.
pub(crate) struct Reframe<B> {
    inner: B,
    op: Op,
    /// The frame being read, while whole messages are taken from it as they are.
    pending: Bytes,
    /// Bytes of a message not yet whole, gathered from the frames it came in.
    partial: BytesMut,
    done: bool,
    /// Where expanded messages are charged, until the body is dropped.
    charge: Option<Charge>,
    /// Raised by each message rewritten (see [`LargestMessage`]).
    largest: Option<LargestMessage>,
    /// A message being rewritten off the async threads.
    working: Option<Working>,
}

/// A message rewritten on the blocking pool, with whether it came compressed and its size as
/// it came.
struct Working {
    step: Step,
    compressed: bool,
    size: usize,
}

/// A turn to rewrite a message off the async threads, once it comes.
type Turn = Pin<Box<dyn Future<Output = Turned> + Send>>;

/// A turn come (`None` had the turns been closed, which they never are).
type Turned = Option<OwnedSemaphorePermit>;

/// Where a message rewritten off the async threads is.
enum Step {
    /// Waiting for a turn (see [`TURNS`]), with the message.
    Waiting(Turn, Bytes),
    /// Being rewritten; the turn comes back with the message, to be held until the message
    /// has been charged (or refused), so that no more expanded messages are alive uncharged
    /// than there are turns.
    Running(JoinHandle<(Result<Bytes, Status>, Turned)>),
}

/// Messages rewritten off the async threads at once, in all bodies together: as many as the
/// machine has cores, as many as the async threads rewrote at once before. Without a bound,
/// 64 Solve calls, each a 4 KB gzip message expanding to 4 MB, all expanded at once, and the
/// server's memory went from 6 to 236 MiB before any expansion could be charged.
static TURNS: LazyLock<Arc<Semaphore>> = LazyLock::new(|| {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    Arc::new(Semaphore::new(cores))
});

impl Working {
    /// The rewritten message, once its turn has come and it is done, with the turn.
    fn poll(&mut self, op: Op, cx: &mut Context<'_>) -> Poll<(Result<Bytes, Status>, Turned)> {
        loop {
            match &mut self.step {
                Step::Waiting(turn, message) => {
                    let turn = ready!(turn.as_mut().poll(cx));
                    let (message, compressed) = (message.clone(), self.compressed);
                    // Made here: see `Op::apply_into`.
                    let out = Vec::with_capacity(PREFIX);
                    self.step = Step::Running(tokio::task::spawn_blocking(move || {
                        (op.apply_into(compressed, &message[PREFIX..], out), turn)
                    }));
                }
                Step::Running(task) => {
                    let joined = ready!(Pin::new(task).poll(cx));
                    return Poll::Ready(joined.unwrap_or_else(|err| {
                        let failed = format!("rewriting a message failed: {err}");
                        (Err(Status::internal(failed)), None)
                    }));
                }
            }
        }
    }
}

/// Above this, the buffer a message was gathered in is not kept for the next one: a buffer
/// as large as the largest message would stay for the stream's life. Below it, it is: copying
/// out the rest of every frame after each small message cost more than the message.
const KEPT_PARTIAL: usize = 64 << 10;

/// Room in the receive budget that a one-message call's expanded message holds until its
/// body is dropped: tonic holds the message until the body ends, and what it expanded to
/// (up to a thousand times its bytes, for gzip) is not what the admission layer charged.
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

impl<B> Reframe<B> {
    pub(crate) fn new(inner: B, op: Op) -> Reframe<B> {
        Reframe {
            inner,
            op,
            pending: Bytes::new(),
            partial: BytesMut::new(),
            done: false,
            charge: None,
            largest: None,
            working: None,
        }
    }

    /// The same, recording each rewritten message's size in `largest`.
    pub(crate) fn recording(mut self, largest: LargestMessage) -> Reframe<B> {
        self.largest = Some(largest);
        self
    }

    /// The same, charging what messages expand to (see [`Charge`]).
    pub(crate) fn charging(mut self, charge: Charge) -> Reframe<B> {
        self.charge = Some(charge);
        self
    }

    /// The next whole message, rewritten, if one has arrived; `None` too where its rewriting
    /// went to the blocking pool (see [`Reframe::working`]).
    fn next_message(&mut self) -> Option<Result<Bytes, Status>> {
        // A message whole in its frame (as every message is before compression: a client or
        // service encodes each into one frame) is read where it is; gathering it first cost
        // a copy of every byte compressed.
        if self.partial.is_empty() && !self.pending.is_empty() {
            match self.header(&self.pending) {
                Some(Ok((compressed, len))) if self.pending.len() >= PREFIX + len => {
                    let message = self.pending.split_to(PREFIX + len);
                    return self.rewrite(compressed, message);
                }
                Some(Err(status)) => return Some(Err(status)),
                _ => {}
            }
        }
        if !self.pending.is_empty() {
            self.partial.extend_from_slice(&self.pending);
            self.pending.clear();
        }
        let (compressed, len) = match self.header(&self.partial)? {
            Ok(header) => header,
            Err(status) => return Some(Err(status)),
        };
        if self.partial.len() < PREFIX + len {
            self.partial.reserve(PREFIX + len - self.partial.len());
            return None;
        }
        // Told before the split: a message that ends where its last chunk did leaves an
        // empty view, of no capacity, that still keeps the whole buffer.
        let large = self.partial.capacity() > KEPT_PARTIAL;
        let message = self.partial.split_to(PREFIX + len);
        if large {
            // What is left (the start of the next message, if any) moves to a buffer of its
            // own (see `KEPT_PARTIAL`).
            self.partial = BytesMut::from(&self.partial[..]);
        }
        self.rewrite(compressed, message.freeze())
    }

    /// The message (with its prefix) rewritten by the op, or `None` where that went to the
    /// blocking pool.
    fn rewrite(&mut self, compressed: bool, message: Bytes) -> Option<Result<Bytes, Status>> {
        let size = message.len() - PREFIX;
        match self.op.apply_inline(compressed, &message[PREFIX..]) {
            Rewrite::Done(rewritten) => Some(self.finish(compressed, size, rewritten)),
            Rewrite::Blocking => {
                let turn: Turn = Box::pin(async { TURNS.clone().acquire_owned().await.ok() });
                self.working = Some(Working {
                    step: Step::Waiting(turn, message),
                    compressed,
                    size,
                });
                None
            }
        }
    }

    /// A rewritten message, recorded; an expanded one charged to the budget, if any.
    fn finish(
        &mut self,
        compressed: bool,
        size: usize,
        rewritten: Result<Bytes, Status>,
    ) -> Result<Bytes, Status> {
        let rewritten = rewritten?;
        if let Some(largest) = &self.largest {
            largest.saw(rewritten.len() - PREFIX);
        }
        if let (Some(charge), true, Op::Expand { .. }) = (&mut self.charge, compressed, self.op) {
            charge.take(rewritten.len() - PREFIX, size)?;
        }
        Ok(rewritten)
    }

    /// The compressed flag and length of the message starting `bytes`, once its prefix is in;
    /// refused when no message that long can be accepted.
    fn header(&self, bytes: &[u8]) -> Option<Result<(bool, usize), Status>> {
        let header = bytes.get(..PREFIX)?;
        let compressed = header[0] == 1;
        let len = u32::from_be_bytes([header[1], header[2], header[3], header[4]]) as usize;
        if let Op::Expand { limit, .. } = self.op {
            // A compressed message is rarely larger than what it expands to; refuse before
            // buffering one that could only be refused later (a plain one past the limit
            // too: the length is the client's word, and the buffer is reserved from it).
            let most = if compressed {
                limit.saturating_mul(2).saturating_add(1024)
            } else {
                limit
            };
            if len > most {
                // OUT_OF_RANGE, as tonic answers a plain message past the limit: sending it
                // again cannot help.
                return Some(Err(Status::out_of_range(format!(
                    "a message of {len} bytes; at most {limit} accepted"
                ))));
            }
        }
        Some(Ok((compressed, len)))
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
                let (rewritten, _turn) = ready!(working.poll(this.op, cx));
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
                    this.done = true;
                    if let Err(status) = this.end() {
                        return Poll::Ready(Some(Err(status)));
                    }
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.done && self.partial.is_empty() && self.pending.is_empty() && self.working.is_none()
    }
}

impl<B> Reframe<B> {
    /// At the end of the data: a message cut short is an error.
    fn end(&mut self) -> Result<(), Status> {
        self.done = true;
        if self.partial.is_empty() && self.pending.is_empty() {
            Ok(())
        } else {
            Err(Status::internal("the stream ended inside a message"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compress::Codec;
    use http_body_util::BodyExt;

    #[test]
    fn an_expansion_is_charged_what_the_budget_has_beside_its_arrival() {
        let room = std::sync::Arc::new(tokio::sync::Semaphore::new(1000));
        let budget = Budget {
            room: room.clone(),
            size: 1000,
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
        assert_eq!(reframe.partial.len(), 5, "the next message's start is kept");
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
