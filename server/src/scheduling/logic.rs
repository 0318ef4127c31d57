//! Logic work (rating, hints, explanations, generation) on the solver threads, as every call's
//! work runs: first for a short slice in the short lane, so cheap work never waits behind
//! another client's slow work; what outlasts its slice starts again in the long lane, with
//! the server's cap counted from when it starts there.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use crate::scheduling::lanes::{Task, Tenant};
use crate::scheduling::pool::{Pool, PoolError, guarded};

/// How long logic work runs in the short lane before it starts again in the long lane: most
/// such work on a 9×9 grid takes a few milliseconds of CPU, and this leaves room for it to
/// finish on a loaded machine (the slice is wall time); what outlasts it throws at most this
/// much away, and delays other clients' quick work by at most this much a turn.
pub(crate) const LOGIC_SLICE: Duration = Duration::from_millis(100);

/// When logic work must stop.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Until {
    /// The instant the work must stop by: the end of its slice, its cap or the caller's
    /// deadline, whichever comes first.
    pub(crate) deadline: Instant,
    /// Whether that instant is a short-lane slice's end (work stopped by it starts again in
    /// the long lane) rather than the call's own end.
    pub(crate) slice: bool,
}

impl Until {
    /// A short-lane slice from now, or the caller's deadline if that comes first.
    fn slice(caller: Option<Instant>) -> Until {
        let end = Instant::now() + LOGIC_SLICE;
        Until {
            deadline: caller.map_or(end, |c| c.min(end)),
            slice: caller.is_none_or(|c| c > end),
        }
    }

    /// `cap` from now, or the caller's deadline if that comes first.
    fn capped(caller: Option<Instant>, cap: Duration) -> Until {
        let end = Instant::now() + cap;
        Until {
            deadline: caller.map_or(end, |c| c.min(end)),
            slice: false,
        }
    }

    /// The deadline of a piece of work in the short lane (`short`) or the long one, with
    /// `left` of its call's cap.
    pub(crate) fn for_piece(short: bool, caller: Option<Instant>, left: Duration) -> Until {
        if short {
            Until::slice(caller)
        } else {
            Until::capped(caller, left)
        }
    }
}

impl Pool {
    /// Runs logic work for `tenant`, a slice in the short lane first; if it stops at the
    /// slice's end (`stopped` says whether it stopped at its deadline), it runs again in the
    /// long lane with `cap` of its own, never past `caller` (the client's deadline).
    pub(crate) async fn run_sliced<T: Send + 'static>(
        &self,
        tenant: Tenant,
        caller: Option<Instant>,
        cap: Duration,
        work: impl FnMut(Until) -> T + Send + 'static,
        stopped: fn(&T) -> bool,
    ) -> Result<T, PoolError> {
        let (tx, rx) = oneshot::channel();
        self.spawn_sliced(tenant, caller, cap, work, stopped, move |result| {
            let _ = tx.send(result);
        });
        rx.await.unwrap_or(Err(PoolError::Abandoned))
    }

    /// As [`Pool::run_sliced`], handing the result to `then` on the solver thread.
    pub(crate) fn spawn_sliced<T: Send + 'static>(
        &self,
        tenant: Tenant,
        caller: Option<Instant>,
        cap: Duration,
        work: impl FnMut(Until) -> T + Send + 'static,
        stopped: fn(&T) -> bool,
        then: impl FnOnce(Result<T, PoolError>) + Send + 'static,
    ) {
        let work = Arc::new(Mutex::new(work));
        let lanes = self.lanes.clone();
        let metrics = self.metrics.clone();
        let first = move || {
            let until = Until::slice(caller);
            match guarded(&metrics, || lock(&work)(until)) {
                Ok(value) if until.slice && stopped(&value) => {
                    let again: Task = Box::new(move || {
                        let until = Until::capped(caller, cap);
                        then(guarded(&metrics, || lock(&work)(until)));
                    });
                    lanes.long(tenant, again);
                }
                out => then(out),
            }
        };
        self.lanes.short(tenant, Box::new(first));
    }

    /// Runs one piece of logic work for `tenant` in the short lane (`short`: work bounded by
    /// a slice) or the long lane.
    pub(crate) async fn run_piece<T: Send + 'static>(
        &self,
        tenant: Tenant,
        short: bool,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, PoolError> {
        let (tx, rx) = oneshot::channel();
        let metrics = self.metrics.clone();
        let task: Task = Box::new(move || {
            let _ = tx.send(guarded(&metrics, work));
        });
        if short {
            self.lanes.short(tenant, task);
        } else {
            self.lanes.long(tenant, task);
        }
        rx.await.unwrap_or(Err(PoolError::Abandoned))
    }
}

/// Locks logic work shared by its two lanes (never contended: one runs after the other).
fn lock<W>(work: &Mutex<W>) -> std::sync::MutexGuard<'_, W> {
    work.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Metrics;

    fn pool() -> Pool {
        Pool::new(1, false, Arc::new(Metrics::new())).expect("threads start")
    }

    #[tokio::test]
    async fn work_that_outlasts_its_slice_starts_again_with_its_own_cap() {
        let pool = pool();
        let tenant = Tenant::of(None);
        let runs = pool
            .run_sliced(
                tenant,
                None,
                Duration::from_secs(5),
                {
                    let mut runs = Vec::new();
                    move |until: Until| {
                        // Stops at the slice's end the first time, runs to its end the second.
                        runs.push((until.slice, until.deadline - Instant::now()));
                        runs.clone()
                    }
                },
                |runs| runs.len() == 1,
            )
            .await
            .expect("runs");
        assert_eq!(runs.len(), 2, "{runs:?}");
        assert!(runs[0].0 && runs[0].1 <= LOGIC_SLICE, "{runs:?}");
        assert!(!runs[1].0 && runs[1].1 > Duration::from_secs(4), "{runs:?}");
    }

    #[tokio::test]
    async fn a_callers_deadline_before_the_slices_end_is_final() {
        let pool = pool();
        let caller = Instant::now() + Duration::from_millis(5);
        let until = pool
            .run_sliced(
                Tenant::of(None),
                Some(caller),
                Duration::from_secs(5),
                |until: Until| until,
                |_| true,
            )
            .await
            .expect("runs");
        assert!(!until.slice);
        assert_eq!(until.deadline, caller);
    }

    #[tokio::test]
    async fn a_panic_fails_only_its_own_piece() {
        let pool = pool();
        let panicked = pool
            .run_piece(Tenant::of(None), false, || -> u8 { panic!("boom") })
            .await;
        assert!(matches!(panicked, Err(PoolError::Panicked(m)) if m.contains("boom")));
        let fine = pool.run_piece(Tenant::of(None), true, || 7u8).await;
        assert_eq!(fine.ok(), Some(7));
    }
}
