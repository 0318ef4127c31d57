//! Streams closed to make room for others: those whose buffers keep bytes they no longer use
//! (`--memory-budget`), and those whose clients leave answers untaken while other streams
//! wait for the room those answers hold (`--memory-budget`).

mod support;

use std::time::Duration;

use sudoku_proto::pb::sudoku_client::SudokuClient;
use sudoku_proto::pb::{self, Outcome, PackedAnswers, PackedPuzzles};
use sudoku_server::{Config, Server};
use support::packed::*;
use support::*;
use tonic::Code;
use tonic::transport::Channel;

#[tokio::test]
async fn a_stream_past_the_batch_room_is_refused_by_name() {
    // A stream holds its 1 MiB share, and its 81 KB message keeps 81 KB of request and
    // 162 KB of answer buffer. Streams waiting idle are never closed to make room here (see
    // the next test).
    let (server, mut client) = server(kept_budget(600_000)).await;
    let texts = mixed(1000);
    let (tx, mut first) = one_answered(&mut client, "first", &texts).await;
    // While the first stream stays open, a second one's small message goes; its large one
    // (sent once the small one is answered: a message is charged from its header) ends it,
    // after the answer to the small one.
    let (more, mut second) = one_answered(&mut client, "small", &texts[..10]).await;
    more.send(packed("large", &texts)).await.expect("queued");
    let status = second.message().await.expect_err("refused");
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    for part in ["--memory-budget", "message 1 of the stream", "2500000"] {
        assert!(
            status.message().contains(part),
            "{part}: {}",
            status.message()
        );
    }
    // Once the first stream ends, what it kept is free again.
    drop(tx);
    assert!(first.message().await.expect("no error").is_none());
    let answer = answer_of(&mut client, packed("third", &texts)).await;
    assert_answers(&answer, &texts);
    server.shutdown().await.expect("clean shutdown");
}

/// A server with batch room for two streams' shares and what one 81 KB message and one small
/// one keep (about 2.41 MB), not two 81 KB ones (2.58 MB); closing streams unused `idle_ms`.
fn kept_budget(idle_ms: u64) -> Config {
    Config {
        max_batch_bytes: 2_500_000,
        kept_idle_ms: idle_ms,
        ..Config::embedded()
    }
}

/// A stream that sent one message of `texts` (with id `id`), read its answer, and stays open.
async fn one_answered(
    client: &mut SudokuClient<Channel>,
    id: &str,
    texts: &[String],
) -> (
    tokio::sync::mpsc::Sender<PackedPuzzles>,
    tonic::Streaming<PackedAnswers>,
) {
    let (tx, rx) = tokio::sync::mpsc::channel(8);
    tx.send(packed(id, texts)).await.expect("queued");
    let mut answers = client
        .batch_solve_packed(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await
        .expect("the stream opens")
        .into_inner();
    // A puzzle that outlasts its time slice comes apart from the rest: read runs until every
    // puzzle has its answer.
    let mut runs = Vec::new();
    let mut count = 0;
    while count < texts.len() {
        let run = answers
            .message()
            .await
            .expect("no error")
            .expect("an answer");
        count += run.outcomes.len();
        runs.push(run);
    }
    let whole = joined(runs);
    assert_eq!(whole.len(), 1, "one message, one answer");
    assert_answers(&whole[0], texts);
    (tx, answers)
}

/// Asserts that `status` closes a stream for another's room, saying each of `why`, marked
/// so clients open anew.
fn assert_closed(status: &tonic::Status, why: &[&str]) {
    use tonic_types::StatusExt;
    assert_eq!(status.code(), Code::Unavailable, "{status:?}");
    for part in why.iter().chain(&["open a new stream"]) {
        assert!(
            status.message().contains(part),
            "{part}: {}",
            status.message()
        );
    }
    let info = status.get_details_error_info().expect("an ErrorInfo");
    assert_eq!(info.reason, sudoku_proto::STREAM_CLOSED);
    assert_eq!(info.domain, sudoku_proto::ERROR_DOMAIN);
}

/// Asserts that `status` closes a stream whose buffers kept bytes it did not use.
fn assert_closed_for_room(status: &tonic::Status) {
    assert_closed(status, &["had not used them", "--memory-budget"]);
}

#[tokio::test]
async fn a_stream_that_no_longer_uses_what_it_keeps_is_closed_to_make_room() {
    let (server, mut client) = server(kept_budget(200)).await;
    let texts = mixed(1000);
    // The first stream keeps 243 KB beside its share, then sends one puzzle every 50 ms:
    // small messages do not use what it keeps.
    let (tx, mut idle) = one_answered(&mut client, "first", &texts).await;
    for _ in 0..8 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        tx.send(packed("small", &texts[..1])).await.expect("queued");
        let small = idle.message().await.expect("no error").expect("an answer");
        assert_answers(&small, &texts[..1]);
    }
    answered(&mut client, &texts).await;
    assert_closed_for_room(&idle.message().await.expect_err("closed"));
    server.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn a_stream_whose_client_stops_taking_answers_is_closed_to_make_room() {
    let (server, mut client) = server(kept_budget(200)).await;
    let texts = mixed(1000);
    // A client with a small HTTP/2 window sends three messages and reads nothing: the
    // answers past its window wait on the server, its stream always owing some.
    let (tx, rx) = tokio::sync::mpsc::channel(3);
    for m in 0..3 {
        tx.send(packed(&format!("m{m}"), &texts))
            .await
            .expect("queued");
    }
    let mut stalled = SudokuClient::new(narrow(&server).await)
        .batch_solve_packed(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await
        .expect("the stream opens")
        .into_inner();
    tokio::time::sleep(Duration::from_millis(600)).await;
    answered(&mut client, &texts).await;
    // What it had been sent still comes, then the close.
    let status = loop {
        match stalled.message().await {
            Ok(Some(answer)) => {
                // Each message is `texts`; a run of one starts where its `first` says.
                let start = answer.first as usize % texts.len();
                let run = PackedAnswers { first: 0, ..answer };
                assert_answers(&run, &texts[start..start + run.outcomes.len()]);
            }
            Ok(None) => panic!("the stream ended without a status"),
            Err(status) => break status,
        }
    };
    assert_closed_as_slow(&status);
    drop(tx);
    server.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn a_header_the_server_refuses_charges_nothing() {
    // Streams are never closed for room here: what counts is what each is charged.
    let (server, mut client) = server(kept_budget(600_000)).await;
    let texts = mixed(1000);
    let (tx, mut open) = one_answered(&mut client, "first", &texts).await;
    // Another stream sends one puzzle and, in the same frame, the header of a 4 GiB message.
    // Counted from that header, its first message needed the whole budget, and was refused.
    let connection = support::raw::connect(server.addr(), 64 << 10).await;
    let mut send = connection.send.clone().ready().await.expect("a stream");
    let head = support::raw::grpc_head(server.addr(), "BatchSolve");
    let (response, mut body) = send.send_request(head, false).expect("the call opens");
    let puzzle = pb::SolveRequest {
        puzzle: Some(sudoku_proto::grid_to_pb(&grid(CLASSIC))),
        ..Default::default()
    };
    let mut data = support::raw::frame(&puzzle).to_vec();
    data.extend_from_slice(&[0, 0xff, 0xff, 0xff, 0xff]);
    body.send_data(data.into(), false).expect("sent");
    let response = response.await.expect("an answer");
    let mut answers = support::raw::Reader::new(response.into_body(), Duration::ZERO);
    let answer = answers.next().await.expect("no error").expect("an answer");
    assert_eq!(answer.outcome, Outcome::Unique as i32);
    assert!(answers.next().await.expect("no error").is_none());
    let (code, message) = answers.status().await.expect("trailers");
    assert_eq!(code, Code::OutOfRange as i32, "{message}");
    drop((body, send, tx));
    connection.driver.abort();
    assert!(open.message().await.expect("no error").is_none());
    server.shutdown().await.expect("clean shutdown");
}

/// A server whose streams may be closed once their clients have left answers untaken for
/// 200 ms, with `room` bytes for what all streams hold and `stream` for one's share.
fn batch_room(room: usize, stream: usize) -> Config {
    Config {
        max_batch_bytes: room,
        max_stream_bytes: stream,
        kept_idle_ms: 200,
        ..Config::embedded()
    }
}

/// `count` puzzles solved by singles, each relabelled: the slow client's are solved at once,
/// so that it soon waits for nothing but itself.
fn easy(count: usize) -> Vec<String> {
    (0..count)
        .map(|i| relabel(CLASSIC, (i % 9) as u8))
        .collect()
}

/// `texts` in messages of ten puzzles, named `name` and their number.
fn tens(texts: &[String], name: &str) -> Vec<PackedPuzzles> {
    let ten = texts.chunks(10).enumerate();
    ten.map(|(m, ten)| packed(&format!("{name}{m}"), ten))
        .collect()
}

/// Half a second on, with slow clients holding the room, another client's message of `few`
/// puzzles is answered.
async fn answered_meanwhile(client: &mut SudokuClient<Channel>, few: &[String]) {
    tokio::time::sleep(Duration::from_millis(500)).await;
    answered(client, few).await;
}

/// A message of `few` puzzles is answered within 30 s, every answer checked.
async fn answered(client: &mut SudokuClient<Channel>, few: &[String]) {
    let answer = tokio::time::timeout(
        Duration::from_secs(30),
        answer_of(client, packed("busy", few)),
    )
    .await
    .expect("answered");
    assert_answers(&answer, few);
}

/// A connection whose streams' HTTP/2 windows are 64 KiB: what its client does not read
/// soon stays on the server.
async fn narrow(server: &Server) -> Channel {
    tonic::transport::Endpoint::from_shared(format!("http://{}", server.addr()))
        .expect("an address")
        .initial_stream_window_size(65_535)
        .connect()
        .await
        .expect("connects")
}

/// A slow client's task: how its stream ended, and how many answers it took.
type Drip = tokio::task::JoinHandle<(Result<(), tonic::Status>, usize)>;

/// A client on a connection with a 64 KiB HTTP/2 window that sends `messages` on one stream
/// and then takes an answer every `every`: too slowly to keep up, and too often for a rule on
/// the time since it last took one. It ends with the stream's status and the answers it took.
async fn drip(server: &Server, messages: Vec<PackedPuzzles>, every: Duration) -> Drip {
    let mut answers = SudokuClient::new(narrow(server).await)
        .batch_solve_packed(tokio_stream::iter(messages))
        .await
        .expect("the stream opens")
        .into_inner();
    tokio::spawn(async move {
        let mut taken = 0;
        loop {
            tokio::time::sleep(every).await;
            match answers.message().await {
                Ok(Some(answer)) => taken += answer.outcomes.len(),
                Ok(None) => return (Ok(()), taken),
                Err(status) => return (Err(status), taken),
            }
        }
    })
}

/// Asserts that `status` closes a stream whose client left answers untaken.
fn assert_closed_as_slow(status: &tonic::Status) {
    let why = ["left answers untaken for over 200 ms", "--memory-budget"];
    assert_closed(status, &why);
}

/// The drip's end: closed for being slow, before it took every answer.
async fn assert_drip_closed(drip: Drip, puzzles: usize) {
    let closed = drip_closed(drip, puzzles).await;
    assert!(closed, "closed for the room its answers held");
}

/// Whether the drip ended closed for being slow (asserted so, before it took every answer)
/// rather than with every answer.
async fn drip_closed(drip: Drip, puzzles: usize) -> bool {
    let (end, taken) = tokio::time::timeout(Duration::from_secs(60), drip)
        .await
        .expect("the drip ends")
        .expect("the drip's task");
    let Err(status) = end else {
        return false;
    };
    assert_closed_as_slow(&status);
    assert!(taken < puzzles, "{taken} of {puzzles} answers taken");
    true
}

#[tokio::test]
async fn a_client_too_slow_for_its_answers_is_closed_when_others_wait_for_their_room() {
    // 400 messages of ten puzzles, each counted as about 6 KB until its answer is taken: the
    // stream's 1 MiB share, all the batch room, is full of answers long before its client,
    // taking one every 50 ms, has taken them (20 s), though it never goes a second without
    // taking one.
    let (server, mut client) = server(batch_room(1 << 20, 1 << 20)).await;
    let texts = easy(4000);
    let slow = drip(&server, tens(&texts, "d"), Duration::from_millis(50)).await;
    answered_meanwhile(&mut client, &texts[..1000]).await;
    assert_drip_closed(slow, texts.len()).await;
    server.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn a_client_too_slow_for_its_answers_is_closed_to_make_room_for_another_stream() {
    // 120 messages of 100 puzzles (4 KB of nibbles each, held as about 49 KB while in
    // flight): its stream's share and what its buffers keep take more than half the room.
    let (server, mut client) = server(batch_room(600_000, 256 << 10)).await;
    let texts = easy(12_000);
    // An answer a second: what its share took in lasts it a few seconds, and meanwhile
    // the messages it has room for are answered and wait, untaken, however slow the machine.
    let every = Duration::from_secs(1);
    let messages = texts.chunks(100).map(|c| nibbled("drip", c)).collect();
    let slow = drip(&server, messages, every).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    // Another client's stream finds no room at its first header: refused, and room is made
    // for its retry.
    let few = &texts[..1000];
    // Room is made within 50 tries.
    let mut pieces = answered_with_retries(&mut client, tens(few, "busy"), 50).await;
    pieces.sort_by_key(|p| p.first);
    let mut next = 0;
    for piece in &pieces {
        assert_eq!(piece.first, next as u64);
        let count = piece.outcomes.len();
        assert_answers(piece, &few[next..next + count]);
        next += count;
    }
    assert_eq!(next, few.len(), "every puzzle answered once");
    assert_drip_closed(slow, 12_000).await;
    server.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn clients_that_keep_up_are_never_closed_however_long_they_wait_for_room() {
    // Sixteen clients share room for three streams and take their answers as they come: the
    // others are refused at the door and retry with backoff, for seconds, but no stream that
    // got in is closed.
    let config = Config {
        max_batch_bytes: 1 << 20,
        max_stream_bytes: 256 << 10,
        ..Config::embedded()
    };
    let (server, client) = server(config).await;
    let texts = mixed(5000);
    let clients = (0..16).map(|c| {
        let mut client = client.clone();
        let messages = tens(&texts, &format!("c{c}-"));
        tokio::spawn(async move { answered_with_retries(&mut client, messages, 300).await })
    });
    for (c, answers) in futures::future::join_all(clients)
        .await
        .into_iter()
        .enumerate()
    {
        let answers = joined(answers.expect("every answer, no stream closed"));
        assert_eq!(answers.len(), 500, "client {c}");
        for answer in &answers {
            let first = answer.first as usize;
            assert_answers(answer, &texts[first..first + 10]);
        }
    }
    server.shutdown().await.expect("clean shutdown");
}

/// Every answer to a stream of `messages`, the stream opened again with backoff while it is
/// refused at the door (RESOURCE_EXHAUSTED before any answer), at most `tries` times; any
/// other end fails the test.
async fn answered_with_retries(
    client: &mut SudokuClient<Channel>,
    messages: Vec<PackedPuzzles>,
    tries: u64,
) -> Vec<PackedAnswers> {
    for retry in 0..tries {
        let mut stream = client
            .batch_solve_packed(tokio_stream::iter(messages.clone()))
            .await
            .expect("the stream opens")
            .into_inner();
        let mut answers = Vec::new();
        let status = loop {
            match stream.message().await {
                Ok(Some(answer)) => answers.push(answer),
                Ok(None) => return answers,
                Err(status) => break status,
            }
        };
        assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
        assert!(answers.is_empty(), "refused at the door, before any answer");
        tokio::time::sleep(Duration::from_millis(20 * retry.min(10))).await;
    }
    panic!("refused {tries} times: no room made");
}
