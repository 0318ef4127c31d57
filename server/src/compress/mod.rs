//! gRPC message compression at a level of our choosing, as tower layers around tonic.
//!
//! tonic compresses gzip at level 6 whatever the caller wants (a `FIXME` in tonic 0.14), and
//! level-6 deflate runs at about 30 MB/s on puzzle bytes: on easy puzzles it cost more than
//! the solving. These layers do gzip themselves at level 1 (ten times as fast, a fifth more
//! bytes) and hand tonic plain messages, so on the wire it is still standard gRPC gzip.
//! [`server`] serves it; [`client`] is the same for a tonic client.

pub mod client;
mod frames;
pub(crate) mod server;

use bytes::{BufMut, Bytes, BytesMut};
use std::io::{Read, Write};
use tonic::Status;

/// The `grpc-encoding` of gzip messages.
const GZIP: &str = "gzip";
/// Deflate level: level 1 runs at about 300 MB/s on puzzle bytes, level 6 at about 30.
const GZIP_LEVEL: u32 = 1;
/// A gRPC message's prefix: the compressed flag and the length.
const PREFIX: usize = 5;

/// What a [`frames::Reframe`] does to each message.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Op {
    /// Compresses plain messages; compressed ones pass as they are.
    Gzip,
    /// Expands compressed messages, refusing any larger than the limit; plain ones pass.
    Gunzip { limit: usize },
}

impl Op {
    /// The message `payload` (flag `compressed`) as this op leaves it, with its prefix.
    fn apply(self, compressed: bool, payload: &[u8]) -> Result<Bytes, Status> {
        match (self, compressed) {
            (Op::Gzip, false) => framed(true, |out| gzip(payload, out)),
            (Op::Gunzip { limit }, true) => framed(false, |out| gunzip(payload, limit, out)),
            _ => framed(compressed, |out| {
                out.extend_from_slice(payload);
                Ok(())
            }),
        }
    }
}

/// A message with its prefix, the body written by `write`.
fn framed(
    compressed: bool,
    write: impl FnOnce(&mut Vec<u8>) -> Result<(), Status>,
) -> Result<Bytes, Status> {
    let mut out = Vec::with_capacity(PREFIX);
    out.extend_from_slice(&[0; PREFIX]);
    write(&mut out)?;
    let len = u32::try_from(out.len() - PREFIX)
        .map_err(|_| Status::resource_exhausted("a message over 4 GiB"))?;
    let mut prefix = BytesMut::with_capacity(PREFIX);
    prefix.put_u8(u8::from(compressed));
    prefix.put_u32(len);
    out[..PREFIX].copy_from_slice(&prefix);
    Ok(Bytes::from(out))
}

fn gzip(payload: &[u8], out: &mut Vec<u8>) -> Result<(), Status> {
    // Puzzle bytes shrink to about a quarter at level 1.
    out.reserve(payload.len() / 3 + 64);
    let mut encoder = flate2::write::GzEncoder::new(out, flate2::Compression::new(GZIP_LEVEL));
    encoder
        .write_all(payload)
        .and_then(|()| encoder.try_finish())
        .map_err(|err| Status::internal(format!("gzip failed: {err}")))
}

fn gunzip(payload: &[u8], limit: usize, out: &mut Vec<u8>) -> Result<(), Status> {
    let start = out.len();
    // Read one byte past the limit to tell "at the limit" from "over it" without expanding
    // a hostile message any further.
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    flate2::read::GzDecoder::new(payload)
        .take(cap)
        .read_to_end(out)
        .map_err(|err| {
            Status::invalid_argument(format!("a gzip message could not be expanded: {err}"))
        })?;
    let len = out.len() - start;
    if len > limit {
        return Err(Status::resource_exhausted(format!(
            "a gzip message expands past {limit} bytes, the largest accepted"
        )));
    }
    Ok(())
}

/// Whether a `grpc-accept-encoding` value lists gzip ahead of every other encoding the
/// server sends (zstd), as tonic would choose.
fn prefers_gzip(accept: &str) -> bool {
    accept
        .split(',')
        .map(str::trim)
        .find(|e| *e == GZIP || *e == "zstd")
        == Some(GZIP)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(framed: &Bytes) -> (bool, &[u8]) {
        (framed[0] == 1, &framed[PREFIX..])
    }

    #[test]
    fn gzip_then_gunzip_gives_the_message_back() {
        let payload: Vec<u8> = (0..5000u32).map(|i| (i % 10) as u8).collect();
        let zipped = Op::Gzip.apply(false, &payload).unwrap();
        let (compressed, body) = message(&zipped);
        assert!(compressed);
        assert!(body.len() < payload.len());
        let back = Op::Gunzip { limit: 5000 }.apply(true, body).unwrap();
        assert_eq!(message(&back), (false, &payload[..]));
    }

    #[test]
    fn messages_already_as_wanted_pass_unchanged() {
        let plain = Op::Gunzip { limit: 1 }.apply(false, b"abc").unwrap();
        assert_eq!(&plain[..], b"\0\0\0\0\x03abc");
        let zipped = Op::Gzip.apply(true, b"xyz").unwrap();
        assert_eq!(&zipped[..], b"\x01\0\0\0\x03xyz");
    }

    #[test]
    fn a_message_expanding_past_the_limit_is_refused() {
        let zipped = Op::Gzip.apply(false, &[0; 10_000]).unwrap();
        let err = Op::Gunzip { limit: 9_999 }
            .apply(true, &zipped[PREFIX..])
            .unwrap_err();
        assert_eq!(err.code(), tonic::Code::ResourceExhausted);
        assert!(
            Op::Gunzip { limit: 10_000 }
                .apply(true, &zipped[PREFIX..])
                .is_ok()
        );
        let err = Op::Gunzip { limit: 10 }
            .apply(true, b"not gzip")
            .unwrap_err();
        assert_eq!(err.code(), tonic::Code::InvalidArgument);
    }

    #[test]
    fn gzip_is_chosen_when_listed_before_zstd() {
        assert!(prefers_gzip("gzip"));
        assert!(prefers_gzip("identity, gzip,zstd"));
        assert!(!prefers_gzip("zstd,gzip"));
        assert!(!prefers_gzip("deflate"));
    }
}
