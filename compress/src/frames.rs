//! Where a byte stream of gRPC messages stands, however it is cut: each message is a 5-byte
//! prefix (a compressed flag and a big-endian length) then that many bytes. The one reader of
//! that framing, for the server's door and for the compression layers alike.

/// A gRPC message's prefix: the compressed flag and the length.
pub const PREFIX: usize = 5;

/// A message's prefix, read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Whether the message is compressed (flag 1).
    pub compressed: bool,
    /// Its length, without the prefix: the sender's word.
    pub len: usize,
}

impl Header {
    /// Whether the message is too long to be one of at most `limit` bytes expanded: a
    /// compressed one is rarely larger than what it expands to, and may be up to twice that
    /// and a little more on the wire.
    pub fn exceeds(&self, limit: usize) -> bool {
        let most = if self.compressed {
            limit.saturating_mul(2).saturating_add(1024)
        } else {
            limit
        };
        self.len > most
    }
}

/// What reading a stream came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// A message's prefix is whole: its body follows.
    Start(Header),
    /// The message's last byte has been read.
    End,
}

/// How far into a message the stream is.
#[derive(Debug, Clone, Copy)]
enum At {
    /// In a prefix, with this much of it read.
    Prefix { read: usize },
    /// In a message's body, with this many bytes to come.
    Body { left: usize },
}

/// The reader: fed the stream's bytes in order, it says where each message starts and ends.
#[derive(Debug, Clone)]
pub struct Bounds {
    prefix: [u8; PREFIX],
    at: At,
}

impl Default for Bounds {
    fn default() -> Bounds {
        Bounds {
            prefix: [0; PREFIX],
            at: At::Prefix { read: 0 },
        }
    }
}

impl Bounds {
    /// Reads `data` up to the next bound: how many of its bytes that took, and the bound, or
    /// `None` where all of `data` was read without reaching one. Call it again with the bytes
    /// after those read (an empty slice too: a message of no bytes ends there).
    pub fn next(&mut self, data: &[u8]) -> (usize, Option<Bound>) {
        match self.at {
            At::Prefix { read } => {
                let n = (PREFIX - read).min(data.len());
                self.prefix[read..read + n].copy_from_slice(&data[..n]);
                if read + n < PREFIX {
                    self.at = At::Prefix { read: read + n };
                    return (n, None);
                }
                let [flag, len @ ..] = self.prefix;
                let header = Header {
                    compressed: flag == 1,
                    len: u32::from_be_bytes(len) as usize,
                };
                self.at = At::Body { left: header.len };
                (n, Some(Bound::Start(header)))
            }
            At::Body { left } => {
                let n = left.min(data.len());
                if n == left {
                    self.at = At::Prefix { read: 0 };
                    (n, Some(Bound::End))
                } else {
                    self.at = At::Body { left: left - n };
                    (n, None)
                }
            }
        }
    }

    /// Counts `n` bytes already read as still to come in the message's body: a reader that
    /// holds back the end of a prefix (so the next layer never sees the message begin) feeds
    /// them again with the body.
    pub fn unread(&mut self, n: usize) {
        if let At::Body { left } = &mut self.at {
            *left += n;
        }
    }

    /// Whether the stream is inside a prefix or a message: a stream ending here is cut short.
    pub fn inside(&self) -> bool {
        !matches!(self.at, At::Prefix { read: 0 })
    }

    /// Whether a message's body is being read.
    pub fn in_body(&self) -> bool {
        matches!(self.at, At::Body { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every bound in `chunks`, fed in order, with the offset in the whole stream after it.
    fn bounds(chunks: &[&[u8]]) -> Vec<(usize, Bound)> {
        let (mut reader, mut found, mut offset) = (Bounds::default(), Vec::new(), 0);
        for chunk in chunks {
            let mut at = 0;
            loop {
                let (n, bound) = reader.next(&chunk[at..]);
                at += n;
                match bound {
                    Some(bound) => found.push((offset + at, bound)),
                    None => break,
                }
            }
            offset += chunk.len();
        }
        found
    }

    fn message(compressed: bool, body: &[u8]) -> Vec<u8> {
        let mut out = vec![u8::from(compressed)];
        out.extend_from_slice(&u32::try_from(body.len()).unwrap().to_be_bytes());
        out.extend_from_slice(body);
        out
    }

    #[test]
    fn messages_are_bounded_however_the_stream_is_cut() {
        let stream = [
            message(false, b"abc"),
            message(true, b""),
            message(false, b"xy"),
        ]
        .concat();
        let start = |compressed, len| Bound::Start(Header { compressed, len });
        let expected = vec![
            (5, start(false, 3)),
            (8, Bound::End),
            (13, start(true, 0)),
            (13, Bound::End),
            (18, start(false, 2)),
            (20, Bound::End),
        ];
        assert_eq!(bounds(&[&stream]), expected);
        for cut in 0..=stream.len() {
            let (a, b) = stream.split_at(cut);
            assert_eq!(bounds(&[a, b]), expected, "cut at {cut}");
        }
        let bytes: Vec<&[u8]> = stream.chunks(1).collect();
        assert_eq!(bounds(&bytes), expected, "a byte at a time");
    }

    #[test]
    fn a_stream_cut_inside_a_message_is_told() {
        let stream = message(false, b"abcd");
        for cut in 0..stream.len() {
            let mut reader = Bounds::default();
            let mut at = 0;
            while let (n, Some(_)) = reader.next(&stream[at..cut]) {
                at += n;
            }
            assert_eq!(reader.inside(), cut > 0, "cut at {cut}");
        }
    }

    #[test]
    fn bytes_held_back_are_read_with_the_body() {
        let stream = message(false, b"abcd");
        let mut reader = Bounds::default();
        assert_eq!(reader.next(&stream).0, PREFIX);
        // The prefix's last byte is held back and fed again before the body.
        reader.unread(1);
        assert_eq!(reader.next(&stream[PREFIX - 1..PREFIX + 2]), (3, None));
        assert_eq!(reader.next(&stream[PREFIX + 2..]), (2, Some(Bound::End)));
        assert!(!reader.inside());
    }
}
