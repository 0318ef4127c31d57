//! gRPC message compression at levels of our choosing, as tower layers around tonic.
//!
//! tonic compresses gzip at level 6 whatever the caller wants (a `FIXME` in tonic 0.14), which
//! on easy puzzles costs more than the solving, and its zstd takes a fresh context per
//! message. These layers do both themselves at level 1 and hand tonic plain messages,
//! so on the wire it is still standard gRPC compression. [`Reframe`] rewrites a body's
//! messages; [`client`] is the layer for a tonic client, and the server has its own.

pub mod client;
mod contexts;
pub mod frames;
mod inflate;
mod reframe;

pub use frames::PREFIX;
pub use reframe::{Observer, Reframe};

use bytes::Bytes;
use tonic::Status;

/// Deflate level: libdeflate's level 1, its fastest; higher levels cost more than solving.
const GZIP_LEVEL: u32 = 1;
/// zstd level: level 1, its fastest, for the same reason (tonic's level 3 costs more).
const ZSTD_LEVEL: i32 = 1;
/// Smaller messages go uncompressed (their flag says so, as gRPC allows in a compressed
/// stream): a one-puzzle answer shrinks by a few bytes, less than setting up a compressor
/// for it costs per-message streams such as BatchSolve from grpcio, which accepts gzip.
const MIN_COMPRESSED: usize = 512;
/// The header a sender names its messages' encoding in.
pub const ENCODING: &str = "grpc-encoding";
/// The header a sender lists the encodings it takes in.
pub const ACCEPT: &str = "grpc-accept-encoding";

/// A `grpc-encoding` these layers handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    /// `gzip`.
    Gzip,
    /// `zstd`.
    Zstd,
}

impl Codec {
    /// Its `grpc-encoding` name.
    pub fn name(self) -> &'static str {
        match self {
            Codec::Gzip => "gzip",
            Codec::Zstd => "zstd",
        }
    }

    /// The codec named `name`, if handled here.
    pub fn named(name: &str) -> Option<Codec> {
        [Codec::Gzip, Codec::Zstd]
            .into_iter()
            .find(|c| c.name() == name)
    }

    /// Whether a `grpc-accept-encoding` value lists this codec.
    pub fn accepted_in(self, accept: &str) -> bool {
        accept
            .split(',')
            .map(str::trim)
            .any(|name| name == self.name())
    }

    fn compress(self, payload: &[u8], out: &mut Vec<u8>) -> Result<(), Status> {
        let done = match self {
            Codec::Gzip => contexts::gzip_compress(payload, GZIP_LEVEL, out),
            Codec::Zstd => contexts::zstd_compress(payload, ZSTD_LEVEL, out),
        };
        done.map_err(|err| Status::internal(format!("{} failed: {err}", self.name())))
    }

    /// The expanded size `payload` states (gzip's trailer, zstd's frame header): the
    /// sender's word, so only a hint, bounded by the caller.
    fn claimed_size(self, payload: &[u8]) -> usize {
        let claimed = match self {
            Codec::Gzip => payload
                .last_chunk::<4>()
                .map(|size| u64::from(u32::from_le_bytes(*size))),
            Codec::Zstd => zstd::zstd_safe::get_frame_content_size(payload)
                .ok()
                .flatten(),
        };
        claimed.map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX))
    }

    fn expand(self, payload: &[u8], limit: usize, out: &mut Vec<u8>) -> Result<(), Status> {
        let start = out.len();
        // Read one byte past the limit to tell "at the limit" from "over it" without
        // expanding a hostile message any further.
        let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
        // Room for the whole message at once, so the buffer is not reallocated as it grows and
        // the decoder runs in one call. The claim is the sender's, so the room is bounded by
        // the limit and by 16 times the bytes received (puzzle messages expand 3 to 6 times).
        let room = self
            .claimed_size(payload)
            .min(limit.saturating_add(1))
            .min(payload.len().saturating_mul(16));
        out.reserve(room);
        let read = match self {
            Codec::Gzip => contexts::gzip_expand(payload, cap, room, out),
            Codec::Zstd => contexts::zstd_expand(payload, cap, room, out).map(drop),
        };
        read.map_err(|err| {
            Status::invalid_argument(format!(
                "a {} message could not be expanded: {err}",
                self.name()
            ))
        })?;
        if out.len() - start > limit {
            return Err(Status::out_of_range(format!(
                "a {} message expands past {limit} bytes, the largest accepted",
                self.name()
            )));
        }
        Ok(())
    }
}

/// What a [`Reframe`] does to each message.
#[derive(Debug, Clone, Copy)]
pub enum Op {
    /// Compresses plain messages; compressed ones pass as they are.
    Compress(Codec),
    /// Expands compressed messages, refusing any larger than the limit; plain ones pass.
    Expand {
        /// The encoding messages come in.
        codec: Codec,
        /// The largest message accepted, expanded.
        limit: usize,
    },
}

/// Bytes a message may be compressed from or expanded to on an async thread; larger ones go
/// to the blocking pool, so that a large message (or a small bomb expanding to one) does not
/// hold up every other call on that thread.
const INLINE_BYTES: usize = 64 << 10;

/// A message rewritten where it is read, or to be rewritten off the async threads.
pub enum Rewrite {
    /// Done: the message as the op leaves it, or why it is refused.
    Done(Result<Bytes, Status>),
    /// Too much work for an async thread: [`Op::apply`] it on the blocking pool.
    Blocking,
}

impl Op {
    /// The message `payload` (flag `compressed`) as this op leaves it, where that is little
    /// work (see [`INLINE_BYTES`]). An expansion whose size is not known is tried up to that
    /// many bytes: the size a message states is the sender's word.
    pub fn apply_inline(self, compressed: bool, payload: &[u8]) -> Rewrite {
        match (self, compressed) {
            (Op::Compress(_), false) if payload.len() > INLINE_BYTES => Rewrite::Blocking,
            (Op::Expand { .. }, true) if payload.len() > INLINE_BYTES => Rewrite::Blocking,
            (Op::Expand { codec, limit }, true) if limit > INLINE_BYTES => {
                if codec.claimed_size(payload) > INLINE_BYTES {
                    return Rewrite::Blocking;
                }
                let inline = Op::Expand {
                    codec,
                    limit: INLINE_BYTES,
                };
                // Any failure is tried again under the real limit, which allows more (a
                // zstd window sized from it, for one).
                match inline.apply(compressed, payload) {
                    Err(_) => Rewrite::Blocking,
                    done => Rewrite::Done(done),
                }
            }
            _ => Rewrite::Done(self.apply(compressed, payload)),
        }
    }

    /// The message `payload` (flag `compressed`) as this op leaves it, with its prefix.
    pub fn apply(self, compressed: bool, payload: &[u8]) -> Result<Bytes, Status> {
        self.apply_into(compressed, payload, Vec::with_capacity(PREFIX))
    }

    /// [`Op::apply`], written into `out`, which is empty: a buffer the caller made, so that
    /// one handed to another thread grows, by reallocation, where the caller's thread
    /// allocates (glibc reallocates in the arena a block came from), not in a blocking
    /// thread's arena, where freed large messages stay cached.
    pub fn apply_into(
        self,
        compressed: bool,
        payload: &[u8],
        out: Vec<u8>,
    ) -> Result<Bytes, Status> {
        match (self, compressed) {
            (Op::Compress(codec), false) if payload.len() >= MIN_COMPRESSED => {
                framed(out, true, |out| codec.compress(payload, out))
            }
            (Op::Expand { codec, limit }, true) => {
                framed(out, false, |out| codec.expand(payload, limit, out))
            }
            _ => framed(out, compressed, |out| {
                out.extend_from_slice(payload);
                Ok(())
            }),
        }
    }
}

/// A message with its prefix, the body written by `write`.
fn framed(
    mut out: Vec<u8>,
    compressed: bool,
    write: impl FnOnce(&mut Vec<u8>) -> Result<(), Status>,
) -> Result<Bytes, Status> {
    out.extend_from_slice(&[0; PREFIX]);
    write(&mut out)?;
    let len = u32::try_from(out.len() - PREFIX)
        .map_err(|_| Status::resource_exhausted("a message over 4 GiB"))?;
    out[0] = u8::from(compressed);
    out[1..PREFIX].copy_from_slice(&len.to_be_bytes());
    Ok(Bytes::from(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(framed: &Bytes) -> (bool, &[u8]) {
        (framed[0] == 1, &framed[PREFIX..])
    }

    const CODECS: [Codec; 2] = [Codec::Gzip, Codec::Zstd];

    /// Asserts that `err` refuses a message INVALID_ARGUMENT, saying `why` (any text for "").
    fn assert_refused(err: &tonic::Status, why: &str) {
        assert_eq!(
            err.code(),
            tonic::Code::InvalidArgument,
            "{}",
            err.message()
        );
        assert!(err.message().contains(why), "{}", err.message());
    }

    #[test]
    fn compressing_then_expanding_gives_the_message_back() {
        let payload: Vec<u8> = (0..5000u32).map(|i| (i % 10) as u8).collect();
        for codec in CODECS {
            let packed = Op::Compress(codec).apply(false, &payload).unwrap();
            let (compressed, body) = message(&packed);
            assert!(compressed);
            assert!(body.len() < payload.len(), "{codec:?}");
            let back = Op::Expand { codec, limit: 5000 }.apply(true, body).unwrap();
            assert_eq!(message(&back), (false, &payload[..]), "{codec:?}");
        }
    }

    #[test]
    fn reused_contexts_start_each_message_afresh() {
        // The same thread's contexts serve every message, after a failed one too.
        for codec in CODECS {
            for round in 0..4u8 {
                let payload: Vec<u8> = (0..3000u32).map(|i| (i % 7) as u8 + round).collect();
                let packed = Op::Compress(codec).apply(false, &payload).unwrap();
                let cut = &packed[PREFIX..packed.len() / 2];
                let limit = payload.len();
                assert!(Op::Expand { codec, limit }.apply(true, cut).is_err());
                let back = Op::Expand { codec, limit }
                    .apply(true, &packed[PREFIX..])
                    .unwrap();
                assert_eq!(message(&back), (false, &payload[..]), "{codec:?} {round}");
            }
        }
    }

    #[test]
    fn any_gzip_member_is_read() {
        // Another sender's gzip: header fields ours never writes, level 9, a message that
        // expands far past the room first reserved for it.
        use std::io::Write;
        let payload: Vec<u8> = (0..200_000u32).map(|i| (i / 1000 % 3) as u8).collect();
        let mut gzip = flate2::GzBuilder::new()
            .filename("puzzles")
            .comment("from elsewhere")
            .extra(vec![1, 2, 3])
            .write(Vec::new(), flate2::Compression::best());
        gzip.write_all(&payload).unwrap();
        let body = gzip.finish().unwrap();
        assert!(body.len() * 16 < payload.len());
        let limit = payload.len();
        let back = Op::Expand {
            codec: Codec::Gzip,
            limit,
        }
        .apply(true, &body)
        .unwrap();
        assert_eq!(message(&back), (false, &payload[..]));
        let mut corrupt = body.clone();
        let at = corrupt.len() - 6;
        corrupt[at] ^= 1;
        let err = Codec::Gzip
            .expand(&corrupt, limit, &mut Vec::new())
            .unwrap_err();
        assert_eq!(err.code(), tonic::Code::InvalidArgument);
    }

    #[test]
    fn every_gzip_member_is_read_and_bytes_after_them_refused() {
        use std::io::Write;
        let member = |bytes: &[u8]| {
            let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            gzip.write_all(bytes).unwrap();
            gzip.finish().unwrap()
        };
        let payload: Vec<u8> = (0..30_000u32).map(|i| (i / 5 % 10) as u8).collect();
        let (a, b) = payload.split_at(10_000);
        let expand = |body: &[u8]| {
            let mut out = Vec::new();
            Codec::Gzip.expand(body, 1 << 20, &mut out).map(|()| out)
        };
        let two = [member(a), member(b)].concat();
        assert_eq!(
            expand(&two).unwrap(),
            payload,
            "both members, not the first alone"
        );
        // Two members of one size: the last trailer states the first's size too.
        let (c, d) = payload.split_at(15_000);
        let halves = [member(c), member(d)].concat();
        assert_eq!(expand(&halves).unwrap(), payload);
        // Two members alike: the payload ends with the first one's trailer too.
        let same = [member(a), member(a)].concat();
        assert_eq!(expand(&same).unwrap(), [a, a].concat());
        // Bytes after a member, even ones that end as its trailer does.
        let whole = member(&payload);
        let trailer = whole[whole.len() - 8..].to_vec();
        for junk in [&b"\0\0\0\0\0\0\0\0"[..], &[0x1f, 0x8b, 8], &trailer] {
            let body = [whole.clone(), junk.to_vec()].concat();
            assert_refused(&expand(&body).unwrap_err(), "");
        }
        // A flood of empty members is refused after a few.
        let empty = member(b"");
        let err = expand(&empty.repeat(1000)).unwrap_err();
        assert!(
            err.message().contains("more than 16 gzip members"),
            "{}",
            err.message()
        );
        assert_eq!(expand(&empty.repeat(16)).unwrap(), b"");
    }

    #[test]
    fn a_gzip_message_unlike_its_claim_is_refused() {
        // Ours, and so expanded in one call on its word: corrupt, or claiming a byte less or
        // more than it holds, it is refused, whichever way it is expanded.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let payload: Vec<u8> = (0..20_000)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state % 10) as u8
            })
            .collect();
        let packed = Op::Compress(Codec::Gzip).apply(false, &payload).unwrap();
        let body = &packed[PREFIX..];
        assert!(body.len() * 16 > payload.len(), "taken on its word");
        let limit = payload.len() * 2;
        let mut out = vec![9];
        Codec::Gzip.expand(body, limit, &mut out).unwrap();
        assert_eq!((out[0], &out[1..]), (9, &payload[..]));
        let mut corrupt = body.to_vec();
        corrupt[body.len() / 2] ^= 0x10;
        let size = body.len() - 4;
        let claiming = |n: usize| {
            let mut lying = body.to_vec();
            lying[size..].copy_from_slice(&u32::try_from(n).unwrap().to_le_bytes());
            lying
        };
        // A header CRC (FHCRC) that does not match: libdeflate skips it unchecked.
        let mut header_crc = body[..10].to_vec();
        header_crc[3] |= 0x02;
        header_crc.extend_from_slice(&[0xde, 0xad]);
        header_crc.extend_from_slice(&body[10..]);
        let bad_header = header_crc.clone();
        let mut crc = flate2::Crc::new();
        crc.update(&header_crc[..10]);
        header_crc[10..12].copy_from_slice(&(crc.sum() as u16).to_le_bytes());
        let mut out = vec![9];
        Codec::Gzip.expand(&header_crc, limit, &mut out).unwrap();
        assert_eq!(&out[1..], &payload[..], "a right header CRC is taken");
        for bad in [
            corrupt,
            claiming(payload.len() - 1),
            claiming(payload.len() + 1),
            bad_header,
        ] {
            let mut out = vec![9];
            let err = Codec::Gzip.expand(&bad, limit, &mut out).unwrap_err();
            assert_refused(&err, "a gzip message could not be expanded");
            assert!(
                err.message()
                    .starts_with("a gzip message could not be expanded")
            );
        }
    }

    #[test]
    fn any_zstd_frames_are_read() {
        let payload: Vec<u8> = (0..50_000u32).map(|i| (i / 7 % 10) as u8).collect();
        let expand = |body: &[u8]| {
            let mut out = vec![7];
            Codec::Zstd
                .expand(body, payload.len(), &mut out)
                .map(|()| out)
        };
        let ours = Op::Compress(Codec::Zstd).apply(false, &payload).unwrap();
        let ours = &ours[PREFIX..];
        assert_eq!(expand(ours).unwrap()[1..], payload[..]);
        // A streamed frame (no size stated), and two frames one after the other.
        let streamed = zstd::stream::encode_all(&payload[..], 3).unwrap();
        assert!(matches!(
            zstd::zstd_safe::get_frame_content_size(&streamed),
            Ok(None)
        ));
        assert_eq!(expand(&streamed).unwrap()[1..], payload[..]);
        let half = payload.len() / 2;
        let mut two = zstd::bulk::compress(&payload[..half], 1).unwrap();
        two.extend(zstd::bulk::compress(&payload[half..], 1).unwrap());
        assert_eq!(expand(&two).unwrap()[1..], payload[..]);
        // A frame stating one byte less than it holds is refused, not cut short.
        let mut lying = ours.to_vec();
        let descriptor = lying[4];
        let (single_segment, dictionary) = (descriptor & 0x20 != 0, descriptor & 3);
        let at = 5 + usize::from(!single_segment) + [0, 1, 2, 4][usize::from(dictionary)];
        // Sizes from 256 to 65,791 take two bytes, less 256.
        assert_eq!(descriptor >> 6, 1, "a 2-byte size for this payload");
        let stated = u16::from_le_bytes([lying[at], lying[at + 1]]);
        assert_eq!(usize::from(stated) + 256, payload.len());
        lying[at..at + 2].copy_from_slice(&(stated - 1).to_le_bytes());
        let err = expand(&lying).unwrap_err();
        assert_eq!(err.code(), tonic::Code::InvalidArgument);
    }

    #[test]
    fn large_rewrites_are_left_to_the_blocking_pool() {
        let is_blocking = |rewrite: Rewrite| matches!(rewrite, Rewrite::Blocking);
        let small = vec![1u8; INLINE_BYTES];
        let large = vec![1u8; INLINE_BYTES + 1];
        for codec in [Codec::Gzip, Codec::Zstd] {
            let compress = Op::Compress(codec);
            assert!(
                !is_blocking(compress.apply_inline(false, &small)),
                "{codec:?}"
            );
            assert!(
                is_blocking(compress.apply_inline(false, &large)),
                "{codec:?}"
            );
            let expand = Op::Expand {
                codec,
                limit: 4 << 20,
            };
            let small = compress.apply(false, &small).unwrap();
            let Rewrite::Done(back) = expand.apply_inline(true, &small[PREFIX..]) else {
                panic!("{codec:?}: a small expansion is done where it is");
            };
            assert_eq!(back.unwrap().len(), PREFIX + INLINE_BYTES);
            let large = compress.apply(false, &large).unwrap();
            assert!(
                is_blocking(expand.apply_inline(true, &large[PREFIX..])),
                "{codec:?}"
            );
        }
        // A message claiming to be small, expanding past the bytes done in place: the claim
        // is the sender's word (a few KB that expand to megabytes).
        let bomb = Op::Compress(Codec::Gzip)
            .apply(false, &vec![0u8; 1 << 20])
            .unwrap();
        let mut lying = bomb[PREFIX..].to_vec();
        let at = lying.len() - 4;
        lying[at..].copy_from_slice(&1000u32.to_le_bytes());
        let expand = Op::Expand {
            codec: Codec::Gzip,
            limit: 4 << 20,
        };
        assert!(is_blocking(expand.apply_inline(true, &lying)));
        // Where the limit is no more than is done in place, everything is.
        let within = Op::Expand {
            codec: Codec::Gzip,
            limit: INLINE_BYTES,
        };
        let Rewrite::Done(refused) = within.apply_inline(true, &bomb[PREFIX..]) else {
            panic!("done in place");
        };
        assert_eq!(refused.unwrap_err().code(), tonic::Code::OutOfRange);
    }

    #[test]
    fn a_zstd_window_is_no_larger_than_a_message_needs() {
        // Two frames that state no size: one asking for a window of 128 MiB, refused before
        // anything is allocated for it, and one of 8 MiB, taken (a message limit of 4 MiB).
        let payload = vec![3u8; 100];
        let streamed = |window_log: u32| {
            let mut encoder = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
            encoder.include_contentsize(false).unwrap();
            encoder.window_log(window_log).unwrap();
            std::io::Write::write_all(&mut encoder, &payload).unwrap();
            encoder.finish().unwrap()
        };
        let expand = |body: &[u8]| Codec::Zstd.expand(body, 4 << 20, &mut Vec::new());
        assert_refused(
            &expand(&streamed(27)).unwrap_err(),
            "Frame requires too much memory",
        );
        expand(&streamed(23)).expect("an 8 MiB window");
        // Under a limit of 16 MiB, a 16 MiB window: what the attempt in place refuses (its
        // window is sized from its own 64 KiB) goes to the blocking pool, which takes it.
        let op = Op::Expand {
            codec: Codec::Zstd,
            limit: 16 << 20,
        };
        let frame = streamed(24);
        assert!(matches!(op.apply_inline(true, &frame), Rewrite::Blocking));
        assert_eq!(
            op.apply(true, &frame).unwrap().len(),
            PREFIX + payload.len()
        );
    }

    #[test]
    fn a_false_size_claim_reserves_little() {
        let payload: Vec<u8> = (0..2000u32).map(|i| (i % 9) as u8).collect();
        let packed = Op::Compress(Codec::Gzip).apply(false, &payload).unwrap();
        let mut body = packed[PREFIX..].to_vec();
        // gzip's trailer ends with the expanded size: claim 4 GiB.
        let at = body.len() - 4;
        body[at..].copy_from_slice(&u32::MAX.to_le_bytes());
        let mut out = Vec::new();
        let err = Codec::Gzip
            .expand(&body, 1 << 30, &mut out)
            .expect_err("the size does not match");
        assert_eq!(err.code(), tonic::Code::InvalidArgument);
        assert!(
            out.capacity() <= 16 * body.len() + 4096,
            "{}",
            out.capacity()
        );
        assert_eq!(Codec::Gzip.claimed_size(&packed[PREFIX..]), payload.len());
        let zstd = Op::Compress(Codec::Zstd).apply(false, &payload).unwrap();
        assert_eq!(Codec::Zstd.claimed_size(&zstd[PREFIX..]), payload.len());
    }

    #[test]
    fn small_messages_go_uncompressed() {
        let packed = Op::Compress(Codec::Gzip).apply(false, b"abc").unwrap();
        assert_eq!(&packed[..], b"\0\0\0\0\x03abc");
    }

    #[test]
    fn messages_already_as_wanted_pass_unchanged() {
        let plain = Op::Expand {
            codec: Codec::Gzip,
            limit: 1,
        }
        .apply(false, b"abc")
        .unwrap();
        assert_eq!(&plain[..], b"\0\0\0\0\x03abc");
        let packed = Op::Compress(Codec::Zstd).apply(true, b"xyz").unwrap();
        assert_eq!(&packed[..], b"\x01\0\0\0\x03xyz");
    }

    #[test]
    fn a_message_expanding_past_the_limit_is_refused() {
        for codec in CODECS {
            let packed = Op::Compress(codec).apply(false, &[0; 10_000]).unwrap();
            let body = &packed[PREFIX..];
            let err = Op::Expand {
                codec,
                limit: 9_999,
            }
            .apply(true, body)
            .unwrap_err();
            assert_eq!(err.code(), tonic::Code::OutOfRange);
            assert!(
                Op::Expand {
                    codec,
                    limit: 10_000
                }
                .apply(true, body)
                .is_ok()
            );
            let err = Op::Expand { codec, limit: 10 }
                .apply(true, b"garbage")
                .unwrap_err();
            assert_eq!(err.code(), tonic::Code::InvalidArgument);
        }
    }

    #[test]
    fn accepted_encodings_are_read_from_the_list() {
        assert!(Codec::Gzip.accepted_in("gzip"));
        assert!(Codec::Gzip.accepted_in("identity, gzip,zstd"));
        assert!(Codec::Zstd.accepted_in("identity, gzip,zstd"));
        assert!(!Codec::Zstd.accepted_in("identity,deflate,gzip"));
        assert!(!Codec::Gzip.accepted_in("gzipx, deflate"));
    }
}
