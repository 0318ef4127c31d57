//! How a batch is cut into messages, and how many of them a stream keeps in flight.

use crate::conn::Connection;

/// Puzzles per BatchSolvePacked message and messages in flight per stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pace {
    /// Most puzzles in one message (all of one shape).
    pub chunk: usize,
    /// Messages a stream sends before it waits for an answer.
    pub in_flight: usize,
}

impl Pace {
    /// For servers elsewhere, whose batch window (1,024 puzzles by default) must take every
    /// chunk in flight at once: chunks small enough that the servers share the work and a lost
    /// one leaves little to re-send, and enough of them to keep a server's solver threads busy
    /// while answers travel back (2 measured as fast as 8; one more covers a chunk's slow tail
    /// on a big server).
    pub const REMOTE: Pace = Pace {
        chunk: 256,
        in_flight: 3,
    };

    /// For the embedded server, whose window this process sets to [`Pace::window`]: on
    /// puzzles of a few µs, a message's cost and each hand-over between threads on the way
    /// weigh like solving, and 768 puzzles queued (under a millisecond of work for two solver
    /// threads) left them waiting whenever the async threads were late. 1,024 a message and
    /// four in flight: 17-clue share of CPU in the solver 59% -> 62%.
    pub const EMBEDDED: Pace = Pace {
        chunk: 1024,
        in_flight: 4,
    };

    /// The pace for the servers of `conn`.
    pub fn of(conn: &Connection) -> Pace {
        Pace::for_embedded(conn.is_embedded())
    }

    /// The pace for the embedded server, or for servers elsewhere.
    pub fn for_embedded(embedded: bool) -> Pace {
        if embedded {
            Pace::EMBEDDED
        } else {
            Pace::REMOTE
        }
    }

    /// Puzzles one stream may have unanswered: the server's batch window must hold them.
    pub const fn window(self) -> usize {
        self.chunk * self.in_flight
    }
}
