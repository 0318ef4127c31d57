//! Connections that rebalance: after its maximum age a connection gets GOAWAY, its
//! calls get the grace period, and clients reconnect (to whichever replica is behind the
//! Service), so long-lived clients spread over new pods without a mesh.

mod support;

use std::time::{Duration, Instant};

use sudoku_proto::pb::Algorithm;
use sudoku_server::Config;
use support::raw;
use support::*;

fn aging(age_ms: u64, grace_ms: u64) -> Config {
    Config {
        max_connection_age_ms: age_ms,
        max_connection_age_grace_ms: grace_ms,
        ..Config::embedded()
    }
}

/// Waits for the raw connection's driver to end; `None` if it outlives `limit`.
async fn closed_within(connection: raw::Connection, limit: Duration) -> Option<Duration> {
    let start = Instant::now();
    tokio::time::timeout(limit, connection.driver)
        .await
        .ok()
        .map(|_| start.elapsed())
}

#[tokio::test]
async fn an_idle_connection_goes_away_at_the_age_limit() {
    let (aged, _) = server(aging(200, 300)).await;
    let connection = raw::connect(aged.addr(), 64 << 10).await;
    let took = closed_within(connection, Duration::from_secs(5)).await;
    assert!(took.is_some(), "the connection outlived its age by seconds");

    // Without the limit a connection stays (the default for the embedded server).
    let (plain, _) = server(Config::embedded()).await;
    let connection = raw::connect(plain.addr(), 64 << 10).await;
    assert!(
        closed_within(connection, Duration::from_millis(800))
            .await
            .is_none(),
        "a connection without an age limit was closed"
    );

    // Clients simply reconnect: calls after the age limit still succeed. A call sent just as
    // the aged connection closes, before the client has read its GOAWAY, fails on the dead
    // connection (on a loaded machine, now and then); grpc-go retries such a call by itself,
    // tonic does not, so the test retries it once, as a client should: over a new connection.
    let mut client = connect(&aged).await;
    for _ in 0..3 {
        let ask = || request("again", &grid(CLASSIC), Algorithm::Unspecified, 2);
        let answer = match client.solve(ask()).await {
            Ok(answer) => answer,
            Err(_) => client
                .solve(ask())
                .await
                .expect("a call after the age limit succeeds, retried once"),
        };
        assert_solved(&grid(CLASSIC), answer.get_ref());
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    aged.shutdown().await.expect("clean shutdown");
    plain.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn calls_on_an_aged_connection_get_the_grace_period_then_it_closes() {
    let (server, _) = server(aging(100, 600)).await;
    let connection = raw::connect(server.addr(), 64 << 10).await;
    let mut send = connection.send.clone();
    // A stream that stays open (no end of stream): it holds the connection past its age.
    let (_response, _stream) = send
        .send_request(raw::grpc_head(server.addr(), "BatchSolve"), false)
        .expect("a stream opens");
    let start = Instant::now();
    let took = closed_within(connection, Duration::from_secs(5))
        .await
        .expect("the aged connection was closed after its grace period");
    // Age plus grace, measured from just after the stream opened.
    assert!(
        start.elapsed() >= Duration::from_millis(500),
        "closed after {took:?}, before the grace period ended"
    );
    server.shutdown().await.expect("clean shutdown");
}
