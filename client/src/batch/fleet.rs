//! The servers a batch goes to: each `--server` resolved to its addresses, one worker per
//! address, and resolved again every few seconds while the job runs, so pods that join a
//! headless Service get work (pods that leave are lost servers, and their work moves on).

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use sudoku_proto::pb;
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinSet;

use super::send::{self, Answered, Queue};
use crate::conn::Connection;

/// How often host names are resolved again during a job.
const RESOLVE_EVERY: Duration = Duration::from_secs(5);

/// How long the workers get to close their streams once every answer is in.
const CLOSE_GRACE: Duration = Duration::from_secs(1);

/// Room for puzzles read and not yet printed, grown with each server found.
pub struct Room {
    /// Puzzles that may be read and not yet printed.
    pub unprinted: Arc<Semaphore>,
    /// Puzzles each server's streams may keep in flight, and as many answered and waiting.
    pub per_server: usize,
}

/// Runs workers for every address of every server until the job is over, then waits for them.
pub async fn run(
    conn: Arc<Connection>,
    options: pb::SolveOptions,
    queue: Arc<Queue>,
    answers: mpsc::UnboundedSender<anyhow::Result<Answered>>,
    room: Room,
    verbose: bool,
) {
    let mut workers = JoinSet::new();
    let mut known = HashSet::new();
    let mut first = true;
    loop {
        let mut fresh = Vec::new();
        for server in conn.servers() {
            let each = server.resolve().await;
            fresh.extend(each.into_iter().filter(|s| known.insert(s.key())));
        }
        // Counted before any starts, so that one failing at once is not taken for the last.
        queue.add_workers(fresh.len());
        room.unprinted.add_permits(fresh.len() * room.per_server);
        for server in fresh {
            if verbose || !first {
                eprintln!("sudoku: sending puzzles to {}", server.url);
            }
            let worker = send::worker(
                conn.clone(),
                server,
                options,
                queue.clone(),
                answers.clone(),
            );
            workers.spawn(worker);
        }
        first = false;
        tokio::select! {
            () = tokio::time::sleep(RESOLVE_EVERY) => {}
            () = queue.finished() => break,
        }
    }
    drop(answers);
    // Workers with a stream close it at once; one still connecting to a server that does not
    // answer (a connection attempt waits up to 5 s, and it may try again) is not waited for.
    let closed = async { while workers.join_next().await.is_some() {} };
    if tokio::time::timeout(CLOSE_GRACE, closed).await.is_err() {
        workers.abort_all();
    }
}
