//! A raw HTTP/2 gRPC client: one DATA frame per message, its own flow-control windows, and
//! reading as slowly as a test likes.

use std::net::SocketAddr;
use std::time::Duration;

use bytes::{Buf, Bytes, BytesMut};
use h2::client::SendRequest;
use h2::{RecvStream, SendStream};
use prost::Message;
use sudoku_proto::pb;
use tokio::net::TcpStream;
use tokio::task::JoinHandle;

/// A connection and the task driving it; the task ends with the connection's error, if any
/// (a GOAWAY with an error code is one).
pub struct Connection {
    pub send: SendRequest<Bytes>,
    pub driver: JoinHandle<Result<(), h2::Error>>,
}

/// Connects with `window` as the per-stream receive window.
pub async fn connect(addr: SocketAddr, window: u32) -> Connection {
    let tcp = TcpStream::connect(addr).await.expect("tcp connects");
    tcp.set_nodelay(true).expect("nodelay");
    let (send, connection) = h2::client::Builder::new()
        .initial_window_size(window)
        .initial_connection_window_size(window.saturating_mul(64))
        .handshake(tcp)
        .await
        .expect("h2 handshake");
    Connection {
        send,
        driver: tokio::spawn(connection),
    }
}

/// The request head of a gRPC call to `method` of `sudoku.v1.Sudoku`.
pub fn grpc_head(addr: SocketAddr, method: &str) -> http::Request<()> {
    grpc_head_at(addr, &format!("/sudoku.v1.Sudoku/{method}"))
}

/// The request head of a gRPC call to `path` (`/package.Service/Method`).
pub fn grpc_head_at(addr: SocketAddr, path: &str) -> http::Request<()> {
    http::Request::builder()
        .method("POST")
        .uri(format!("http://{addr}{path}"))
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .body(())
        .expect("a valid request head")
}

/// A message in gRPC's length-prefixed framing.
pub fn frame(message: &impl Message) -> Bytes {
    frame_bytes(&message.encode_to_vec())
}

/// Raw bytes in gRPC's length-prefixed framing.
pub fn frame_bytes(bytes: &[u8]) -> Bytes {
    let mut out = BytesMut::with_capacity(5 + bytes.len());
    out.extend_from_slice(&[0]);
    out.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
    out.extend_from_slice(bytes);
    out.freeze()
}

/// Sends `data` as one DATA frame once flow control allows it, as a well-behaved client
/// does; `false` if the stream is gone.
pub async fn send_paced(stream: &mut SendStream<Bytes>, data: Bytes) -> bool {
    stream.reserve_capacity(data.len());
    loop {
        if stream.capacity() >= data.len() {
            return stream.send_data(data, false).is_ok();
        }
        match std::future::poll_fn(|cx| stream.poll_capacity(cx)).await {
            Some(Ok(_)) => {}
            _ => return false,
        }
    }
}

/// Reads a response body message by message, releasing flow-control capacity only as each
/// message is taken, after `pause`.
pub struct Reader {
    body: RecvStream,
    buffer: BytesMut,
    pause: Duration,
}

impl Reader {
    pub fn new(body: RecvStream, pause: Duration) -> Reader {
        Reader {
            body,
            buffer: BytesMut::new(),
            pause,
        }
    }

    pub fn set_pause(&mut self, pause: Duration) {
        self.pause = pause;
    }

    /// The next answer, `Ok(None)` at the end of the body, or the stream's error.
    pub async fn next(&mut self) -> Result<Option<pb::SolveResponse>, h2::Error> {
        loop {
            if self.buffer.len() >= 5 {
                let len = u32::from_be_bytes([
                    self.buffer[1],
                    self.buffer[2],
                    self.buffer[3],
                    self.buffer[4],
                ]) as usize;
                if self.buffer.len() >= 5 + len {
                    self.buffer.advance(5);
                    let message = self.buffer.split_to(len);
                    if !self.pause.is_zero() {
                        tokio::time::sleep(self.pause).await;
                    }
                    let _ = self.body.flow_control().release_capacity(5 + len);
                    let answer = pb::SolveResponse::decode(message.freeze())
                        .expect("the server sends valid messages");
                    return Ok(Some(answer));
                }
            }
            match self.body.data().await {
                Some(Ok(chunk)) => self.buffer.extend_from_slice(&chunk),
                Some(Err(err)) => return Err(err),
                None => return Ok(None),
            }
        }
    }

    /// The call's `grpc-status` and `grpc-message` from the trailers.
    pub async fn status(&mut self) -> Result<(i32, String), h2::Error> {
        let trailers = self.body.trailers().await?.unwrap_or_default();
        let code = trailers
            .get("grpc-status")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse().ok())
            .unwrap_or(-1);
        let message = trailers
            .get("grpc-message")
            .map(|v| percent_decode(v.as_bytes()))
            .unwrap_or_default();
        Ok((code, message))
    }
}

/// `grpc-message` is percent-encoded.
pub fn percent_decode(bytes: &[u8]) -> String {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
