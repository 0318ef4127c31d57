//! The gRPC codec of the `sudoku.v1` services: prost's encoder, and a decoder that reads each
//! message from one contiguous slice.
//!
//! tonic hands a decoder its message in a buffer that is contiguous in practice, but prost's
//! generic decoding goes through the buffer's `Buf` methods for every key and varint. Reading
//! the same bytes as a `&[u8]` lets those calls inline; on a batch of easy puzzles decoding was
//! the largest cost after solving. Messages split across chunks still decode through `Buf`, and
//! so do large ones, whose `bytes` fields then share the received buffer.

use std::marker::PhantomData;

use prost::Message;
use prost::bytes::Buf;
use tonic::Status;
use tonic::codec::{DecodeBuf, Decoder};
use tonic_prost::ProstEncoder;

/// Encodes `T` and decodes `U`, like `tonic_prost::ProstCodec`.
#[derive(Debug, Clone, Copy)]
pub struct Codec<T, U>(PhantomData<(T, U)>);

impl<T, U> Default for Codec<T, U> {
    fn default() -> Self {
        Codec(PhantomData)
    }
}

impl<T, U> tonic::codec::Codec for Codec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = SliceDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        ProstEncoder::default()
    }

    fn decoder(&mut self) -> Self::Decoder {
        SliceDecoder(PhantomData)
    }
}

/// Messages from this size on decode through the buffer, not a slice: their `bytes` fields (a
/// batch's packed cells) then share the received bytes instead of being copied into their own,
/// and the per-key calls the slice saves are nothing beside such a message's size.
const SHARED_FROM: usize = 16 << 10;

/// Decodes `U` from the message's bytes as one slice when they are contiguous and small.
#[derive(Debug, Clone, Copy)]
pub struct SliceDecoder<U>(PhantomData<U>);

impl<U: Message + Default> Decoder for SliceDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        let len = buf.remaining();
        let decoded = match buf.chunk().get(..len) {
            Some(bytes) if len < SHARED_FROM => {
                let decoded = U::decode(bytes);
                buf.advance(len);
                decoded
            }
            _ => U::decode(buf),
        };
        // As tonic-prost does: a message that does not parse is INTERNAL.
        decoded
            .map(Some)
            .map_err(|err| Status::internal(err.to_string()))
    }
}
