//! Connections through memory, for a client in the same process (the CLI's embedded server):
//! the same HTTP/2 and gRPC as over TCP, with the bytes handed over in a buffer instead of
//! through the kernel's loopback, whose system calls and TCP processing weigh on a batch of
//! easy puzzles.

use std::io;

use futures::StreamExt;
use futures::stream::Map;
use tokio::io::DuplexStream;
use tokio::sync::mpsc;
use tokio_stream::wrappers::UnboundedReceiverStream;

/// Bytes in flight each way on a connection before the writer waits: a few 1,024-puzzle
/// messages (83 KB each), so a batch's writes rarely wait for the reader.
const BUFFER: usize = 1 << 20;

/// Opens connections to an in-memory server; cloned freely.
#[derive(Clone, Debug)]
pub struct Dialer {
    accept: mpsc::UnboundedSender<DuplexStream>,
}

impl Dialer {
    /// A new connection: the client's end of a pipe whose other end the server serves.
    /// Fails once the server has stopped.
    pub fn dial(&self) -> io::Result<DuplexStream> {
        let (client, server) = tokio::io::duplex(BUFFER);
        self.accept.send(server).map_err(|_| {
            io::Error::new(io::ErrorKind::ConnectionRefused, "the server has stopped")
        })?;
        Ok(client)
    }
}

/// The server's side: each dialled connection as it comes.
pub(crate) type Accepted =
    Map<UnboundedReceiverStream<DuplexStream>, fn(DuplexStream) -> Connection>;

/// A connection as the server takes it.
type Connection = io::Result<DuplexStream>;

/// A dialer and the connections it opens.
pub(crate) fn pair() -> (Dialer, Accepted) {
    // Unbounded: one connection per dial, and the only dialler is this process's client.
    let (accept, rx) = mpsc::unbounded_channel();
    let accepted = UnboundedReceiverStream::new(rx).map(Ok as fn(DuplexStream) -> Connection);
    (Dialer { accept }, accepted)
}
