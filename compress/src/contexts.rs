//! Compressor and expander state kept per thread and reused for every message.
//!
//! Creating a zstd context or a deflate state for each message costs more than compressing a
//! 1,000-puzzle message with it, mostly in allocating and clearing their tables. The threads
//! that run these are the runtime's long-lived workers, so each keeps one of each.

use std::cell::RefCell;
use std::io::ErrorKind::{InvalidData, UnexpectedEof};
use std::io::{self, Read};

use flate2::{Decompress, FlushDecompress, Status};
use libdeflater::{CompressionLvl, Compressor};

use super::inflate::{Failed, GzipExpander};
use zstd::zstd_safe::{CParameter, DCtx, DParameter, ParamSwitch, ResetDirective};

/// zstd's shortest match: level 1 takes 6 on messages of this size; at 7 the digits of
/// puzzles and answers make fewer, longer matches, which cost both ends less and come out
/// smaller. 7 is the most the fast strategy takes.
const ZSTD_MIN_MATCH: u32 = 7;

/// How fast the fast strategy skips ahead where it finds no match (its target length; 0 at
/// level 1): at 8, with the literals still Huffman-coded, compressing costs a third less
/// for a few more bytes.
const ZSTD_ACCELERATION: u32 = 8;

/// The state one thread reuses.
#[derive(Default)]
struct Contexts {
    zstd_compressor: Option<zstd::bulk::Compressor<'static>>,
    zstd_expander: Option<DCtx<'static>>,
    deflate: Option<Compressor>,
    inflate: Option<GzipExpander>,
}

thread_local! {
    static CONTEXTS: RefCell<Contexts> = RefCell::new(Contexts::default());
}

/// Appends `payload` compressed as one zstd frame at `level` to `out`.
pub(super) fn zstd_compress(payload: &[u8], level: i32, out: &mut Vec<u8>) -> io::Result<()> {
    CONTEXTS.with_borrow_mut(|contexts| {
        let compressor = match &mut contexts.zstd_compressor {
            Some(compressor) => compressor,
            empty => {
                let mut compressor = zstd::bulk::Compressor::new(level)?;
                compressor.set_parameter(CParameter::MinMatch(ZSTD_MIN_MATCH))?;
                compressor.set_parameter(CParameter::TargetLength(ZSTD_ACCELERATION))?;
                // Acceleration alone would also leave the literals raw, as zstd's negative
                // levels do: the answers' digits then barely shrink.
                compressor
                    .set_parameter(CParameter::LiteralCompressionMode(ParamSwitch::Enable))?;
                empty.insert(compressor)
            }
        };
        out.reserve(zstd::zstd_safe::compress_bound(payload.len()));
        // Written after what `out` already holds (the message prefix).
        let mut tail = io::Cursor::new(&mut *out);
        tail.set_position(tail.get_ref().len() as u64);
        compressor.compress_to_buffer(payload, &mut tail).map(drop)
    })
}

/// Appends the zstd frames in `payload`, expanded, to `out`, reading at most `cap` bytes.
///
/// One frame that states its size (ours do), under the cap and at most `room` bytes, is
/// expanded in one call straight into `out`, not through the streaming decoder's own window
/// buffer and copied out in pieces. Other frames are streamed.
pub(super) fn zstd_expand(
    payload: &[u8],
    cap: u64,
    room: usize,
    out: &mut Vec<u8>,
) -> io::Result<usize> {
    CONTEXTS.with_borrow_mut(|contexts| {
        let context = match &mut contexts.zstd_expander {
            Some(context) => context,
            empty => empty
                .insert(DCtx::try_create().ok_or_else(|| {
                    io::Error::new(io::ErrorKind::OutOfMemory, "no zstd context")
                })?),
        };
        let one_frame = zstd::zstd_safe::find_frame_compressed_size(payload) == Ok(payload.len());
        let stated = zstd::zstd_safe::get_frame_content_size(payload)
            .ok()
            .flatten();
        let fits = |&n: &u64| one_frame && n > 0 && n < cap && n <= room as u64;
        if let Some(size) = stated.filter(fits) {
            // The size is the sender's word: a frame that holds more or less fails to expand.
            let size = usize::try_from(size).map_err(io::Error::other)?;
            out.reserve(size);
            let mut tail = io::Cursor::new(&mut *out);
            tail.set_position(tail.get_ref().len() as u64);
            return context
                .decompress(&mut tail, payload)
                .map_err(|code| io::Error::other(zstd::zstd_safe::get_error_name(code)));
        }
        // The window a frame may make the decoder allocate, before any output: by default
        // up to 128 MiB, for a frame of 20 bytes that states no size. A frame of a message
        // under the cap needs no window larger than the cap; 8 MiB at least, for senders
        // that use one on every message.
        let window_log = (u64::BITS - cap.saturating_sub(1).leading_zeros()).clamp(23, 31);
        let zstd_error = |code| io::Error::other(zstd::zstd_safe::get_error_name(code));
        // Parameters are set between sessions only.
        context
            .reset(ResetDirective::SessionOnly)
            .map_err(zstd_error)?;
        context
            .set_parameter(DParameter::WindowLogMax(window_log))
            .map_err(zstd_error)?;
        // `with_context` resets the context's session, whatever a failed message left in it.
        zstd::stream::read::Decoder::with_context(payload, context)
            .take(cap)
            .read_to_end(out)
    })
}

/// Appends `payload` compressed as one gzip member at `level` to `out`.
pub(super) fn gzip_compress(payload: &[u8], level: u32, out: &mut Vec<u8>) -> io::Result<()> {
    CONTEXTS.with_borrow_mut(|contexts| {
        let deflate = match &mut contexts.deflate {
            Some(deflate) => deflate,
            empty => {
                let level = CompressionLvl::new(i32::try_from(level).unwrap_or(i32::MAX))
                    .map_err(|err| io::Error::other(format!("deflate level {level}: {err:?}")))?;
                empty.insert(Compressor::new(level))
            }
        };
        let start = out.len();
        out.resize(start + deflate.gzip_compress_bound(payload.len()), 0);
        let written = deflate
            .gzip_compress(payload, &mut out[start..])
            .map_err(io::Error::other);
        out.truncate(start + *written.as_ref().unwrap_or(&0));
        written.map(drop)
    })
}

/// Appends the gzip members in `payload`, expanded, to `out`, reading at most `cap` bytes.
///
/// A member that states its size (every sender's does, modulo 4 GiB), under the cap and at
/// most `room` bytes, and is the whole payload, is expanded in one call by libdeflate, faster
/// than streaming inflate. A member whose claim is false, or too large to take on its word, or
/// whose header carries a CRC of its own, is streamed into `out` as it grows, never past the
/// cap.
pub(super) fn gzip_expand(
    payload: &[u8],
    cap: u64,
    room: usize,
    out: &mut Vec<u8>,
) -> io::Result<()> {
    let claimed = payload
        .last_chunk::<4>()
        .map_or(0, |size| u64::from(u32::from_le_bytes(*size)));
    // libdeflate skips a header CRC (FHCRC) without checking it; flate2 checks it.
    let header_crc = payload.get(3).is_some_and(|flags| flags & 0x02 != 0);
    if claimed > 0 && claimed < cap && claimed <= room as u64 && !header_crc {
        let start = out.len();
        out.resize(start + room, 0);
        let expanded = CONTEXTS.with_borrow_mut(|contexts| {
            let expander = match &mut contexts.inflate {
                Some(expander) => expander,
                empty => empty.insert(GzipExpander::new().ok_or_else(|| {
                    io::Error::new(io::ErrorKind::OutOfMemory, "no gzip expander")
                })?),
            };
            Ok::<_, io::Error>(expander.expand(payload, &mut out[start..]))
        })?;
        match expanded {
            Ok((read, n)) if read == payload.len() => {
                out.truncate(start + n);
                return Ok(());
            }
            // More members, or bytes after the first: streamed, where each is seen.
            Ok(_) => out.truncate(start),
            // The claim was short of the truth: stream it instead.
            Err(Failed::NoRoom) => out.truncate(start),
            Err(err @ Failed::BadData) => {
                out.truncate(start);
                return Err(io::Error::new(InvalidData, err));
            }
        }
    }
    gzip_stream(payload, cap, out)
}

/// Streams the gzip members in `payload` into `out`, one after another as RFC 1952 allows
/// (grpc-go reads them all), at most [`MEMBERS`] of them, reading at most `cap` bytes; bytes
/// after the last member that start no other are refused, as grpc-core refuses them, rather
/// than dropped.
///
/// Straight into `out`'s spare room: `flate2::read::GzDecoder` read the message through a
/// buffer of its own and cleared every block of `out` before filling it.
fn gzip_stream(payload: &[u8], cap: u64, out: &mut Vec<u8>) -> io::Result<()> {
    let cap = usize::try_from(cap).unwrap_or(usize::MAX);
    let start = out.len();
    let mut rest = payload;
    let mut members = 0;
    while !rest.is_empty() {
        members += 1;
        if members > MEMBERS {
            return Err(io::Error::new(
                InvalidData,
                format!("more than {MEMBERS} gzip members"),
            ));
        }
        if !rest.starts_with(&[0x1f, 0x8b]) {
            return Err(io::Error::new(
                InvalidData,
                "bytes after the end of the gzip data",
            ));
        }
        let read = gzip_member(rest, cap - (out.len() - start).min(cap), out)?;
        if out.len() - start >= cap {
            return Ok(());
        }
        rest = &rest[read..];
    }
    Ok(())
}

/// Gzip members read in one message: senders write one; each costs a fresh inflater, and a
/// message of many empty members would expand to nothing for a long time.
const MEMBERS: usize = 16;

/// Streams the gzip member at the start of `payload` into `out`, at most `cap` bytes; the
/// bytes it took.
fn gzip_member(payload: &[u8], cap: usize, out: &mut Vec<u8>) -> io::Result<usize> {
    let start = out.len();
    let mut inflate = Decompress::new_gzip(15);
    let took = |inflate: &Decompress| usize::try_from(inflate.total_in()).unwrap_or(usize::MAX);
    loop {
        let written = out.len() - start;
        if written >= cap {
            return Ok(took(&inflate));
        }
        if out.len() == out.capacity() {
            // Doubling, but never past the cap: a hostile message gets no more room than that.
            let more = written.max(payload.len().saturating_mul(4)).max(1024);
            out.reserve_exact(more.min(cap - written));
        }
        let rest = payload.get(took(&inflate)..).unwrap_or_default();
        let room = (out.capacity() - out.len()).min(cap - written);
        let before = (inflate.total_in(), inflate.total_out());
        let status = inflate.decompress_vec(rest, out, FlushDecompress::Finish)?;
        if status == Status::StreamEnd {
            return Ok(took(&inflate));
        }
        if room > 0 && (inflate.total_in(), inflate.total_out()) == before {
            return Err(io::Error::new(UnexpectedEof, "the gzip stream ends early"));
        }
    }
}
