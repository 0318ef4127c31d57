//! What admission and compression need to know of a call from its path.

/// Methods whose clients send a stream of messages, and may pause between them (their
/// streams' idleness is watched by the batch reader); every other call's body is one message.
const STREAMING: [&str; 5] = [
    "/sudoku.v1.Sudoku/BatchSolve",
    "/sudoku.v1.Sudoku/BatchSolvePacked",
    "/sudoku.v1.Puzzles/BatchRate",
    "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
];

/// Methods that answer one request with a stream (their clients must keep taking them, see
/// `admission::idle`), as every method in [`STREAMING`] does too; every other call's answer is
/// one message.
const SERVER_STREAMING: [&str; 3] = [
    "/sudoku.v1.Puzzles/Explain",
    "/sudoku.v1.Puzzles/Generate",
    "/grpc.health.v1.Health/Watch",
];

/// Whether a call to `path` answers with a stream of messages.
pub(crate) fn streams_answers(path: &str) -> bool {
    STREAMING.contains(&path) || SERVER_STREAMING.contains(&path)
}

/// The API's services (health and reflection are the control services).
pub(crate) const API: &str = "/sudoku.v1.";

/// The largest message health and reflection take: their requests name a service, a file or
/// a symbol. Taking `--max-message-bytes` as the API does, a small gzip message expanding to
/// that much would be held in each of any number of unslotted calls.
pub(crate) const CONTROL_MESSAGE_BYTES: usize = 64 << 10;

/// Reflection streams open at once: they take no slot among the API's calls (a busy server
/// still answers grpcurl), and tonic-reflection echoes each request in its answer, so without
/// a count of their own idle streams of small gzip messages could hold gigabytes. Reflection
/// serves tools, a few at a time.
pub(crate) const REFLECTION_STREAMS: usize = 64;

/// The largest answer message the server sends: larger answers go in pieces.
pub(crate) const MOST_ANSWER_BYTES: usize = 1 << 20;
/// Answers to requests this small or smaller are never cut for being more than twice as large.
const LEAST_CAP: usize = 64 << 10;

/// The largest answer message to a packed request of `request` bytes: twice it (an answer
/// of solved puzzles is a few percent larger than its request, one of refused puzzles up to
/// six times), but at least 64 KiB and at most 1 MiB.
pub(crate) fn answer_cap(request: usize) -> usize {
    request
        .saturating_mul(2)
        .clamp(LEAST_CAP, MOST_ANSWER_BYTES)
}

/// What a stream's answer buffer keeps where its answers are small: tonic gathers answers
/// until 32 KiB before it sends them, and the buffer grows by doubling (open BatchSolve
/// streams that had sent many refused puzzles each kept about 136 KiB, buffers both ways and
/// allocator slack).
const ANSWER_BUFFER: usize = 64 << 10;

/// What a batch stream's buffers keep once a request of `len` bytes has gone through them,
/// for the batch methods: tonic's request buffer, as large as the largest request, and its
/// answer buffer. A packed message's puzzles stay views of tonic's buffer until they go in
/// flight, and its answers come in pieces of [`answer_cap`]; BatchSolve and BatchRate decode
/// a message into a copy, which may wait for room in the stream's share.
pub(crate) fn kept_bytes(path: &str) -> Option<fn(usize) -> usize> {
    match path {
        "/sudoku.v1.Sudoku/BatchSolvePacked" => Some(|len| len.saturating_add(answer_cap(len))),
        "/sudoku.v1.Sudoku/BatchSolve" | "/sudoku.v1.Puzzles/BatchRate" => {
            Some(|len| len.saturating_mul(2).saturating_add(ANSWER_BUFFER))
        }
        _ => None,
    }
}

/// Whether a call to `path` is server reflection.
pub(crate) fn is_reflection(path: &str) -> bool {
    path.starts_with("/grpc.reflection.")
}

/// Whether a call to `path` sends one request message (tonic reads its body to the end
/// before the handler runs), not a stream of them.
pub(crate) fn is_one_message(path: &str) -> bool {
    !STREAMING.contains(&path)
}

/// The largest request message of the unary API calls and of BatchSolve and BatchRate: one
/// grid of at most 35×35 cells with its pencil marks, options and id takes a few KiB.
pub(crate) const GRID_MESSAGE_BYTES: usize = 64 << 10;
/// The largest Generate request: a handful of numbers.
pub(crate) const GENERATE_MESSAGE_BYTES: usize = 4 << 10;

/// The largest request message a call to `path` takes, expanded: `max_message` (see
/// `Config::largest_message`) for BatchSolvePacked (many puzzles a message), a grid's worth
/// for the other API calls, less for Generate, health and reflection. A larger message is
/// refused at the door by its header.
pub(crate) fn message_limit(path: &str, max_message: usize) -> usize {
    let limit = match path {
        "/sudoku.v1.Sudoku/BatchSolvePacked" => max_message,
        "/sudoku.v1.Puzzles/Generate" => GENERATE_MESSAGE_BYTES,
        api if api.starts_with(API) => GRID_MESSAGE_BYTES,
        _ => CONTROL_MESSAGE_BYTES,
    };
    limit.min(max_message)
}

/// The method a path names, for messages (`Solve` for `/sudoku.v1.Sudoku/Solve`).
pub(crate) fn method_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_calls_take_small_messages() {
        assert_eq!(message_limit("/sudoku.v1.Sudoku/Solve", 4 << 20), 64 << 10);
        assert_eq!(
            message_limit("/sudoku.v1.Sudoku/BatchSolvePacked", 4 << 20),
            4 << 20
        );
        assert_eq!(
            message_limit("/sudoku.v1.Puzzles/Generate", 4 << 20),
            4 << 10
        );
        assert_eq!(message_limit("/sudoku.v1.Puzzles/Hint", 1000), 1000);
        assert_eq!(method_name("/sudoku.v1.Puzzles/Hint"), "Hint");
        assert_eq!(
            message_limit("/grpc.health.v1.Health/Check", 4 << 20),
            64 << 10
        );
        assert_eq!(message_limit("/grpc.health.v1.Health/Check", 1000), 1000);
        assert!(is_one_message("/sudoku.v1.Sudoku/Solve"));
        assert!(!is_one_message("/sudoku.v1.Sudoku/BatchSolvePacked"));
        assert!(is_reflection(
            "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"
        ));
        assert!(!is_reflection("/grpc.health.v1.Health/Check"));
        assert_eq!(answer_cap(100), LEAST_CAP);
        assert_eq!(answer_cap(100_000), 200_000);
        assert_eq!(answer_cap(4 << 20), MOST_ANSWER_BYTES);
        assert!(kept_bytes("/sudoku.v1.Sudoku/Solve").is_none());
    }
}
