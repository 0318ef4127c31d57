//! When work must stop early: a deadline and a cancel flag, shared by solving, rating and
//! generating. Each kind of work counts its own budget beside them (guesses, steps, attempts).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Why work stopped before it was complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StopReason {
    /// The budget ran out (guesses, steps or attempts, as the work counts them).
    Budget,
    /// The cancel flag was raised.
    Cancelled,
    /// The deadline passed.
    Deadline,
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StopReason::Budget => "its budget ran out",
            StopReason::Cancelled => "it was cancelled",
            StopReason::Deadline => "its time ran out",
        })
    }
}

/// When a solve, a rating or a generation must stop, whatever it counts.
#[derive(Debug, Clone, Default)]
pub struct Limits {
    /// A time after which the work stops.
    pub deadline: Option<Instant>,
    /// A flag another thread may raise to stop the work.
    pub cancel: Option<Arc<AtomicBool>>,
}

impl Limits {
    /// Why the work must stop now, if it must: the cancel flag first, then the deadline (which
    /// reads the clock).
    pub fn reached(&self) -> Option<StopReason> {
        if self
            .cancel
            .as_deref()
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
        {
            return Some(StopReason::Cancelled);
        }
        if self
            .deadline
            .is_some_and(|deadline| Instant::now() >= deadline)
        {
            return Some(StopReason::Deadline);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cancel_flag_comes_before_the_deadline() {
        assert_eq!(Limits::default().reached(), None);
        let flag = Arc::new(AtomicBool::new(false));
        let mut limits = Limits {
            deadline: Some(Instant::now()),
            cancel: Some(flag.clone()),
        };
        assert_eq!(limits.reached(), Some(StopReason::Deadline));
        flag.store(true, Ordering::Relaxed);
        assert_eq!(limits.reached(), Some(StopReason::Cancelled));
        limits.deadline = None;
        assert_eq!(limits.reached(), Some(StopReason::Cancelled));
    }
}
