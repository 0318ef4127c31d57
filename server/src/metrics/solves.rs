//! Solves counted on one solver thread and added to the shared metrics together. Counting
//! each puzzle in the shared counters and under the histogram's lock moved their cache lines
//! between every solver thread, several times per puzzle of a few microseconds.

use std::sync::{Arc, Mutex, PoisonError};

use prometheus_client::encoding::{EncodeMetric, MetricEncoder, NoLabelSet};
use prometheus_client::metrics::MetricType;
use solver_core::Report;

use crate::solving::wire_outcome;

/// Wire outcomes a solve is counted under, by number (`sudoku.v1.Outcome`).
pub const OUTCOMES: usize = sudoku_proto::pb::Outcome::Solved as usize + 1;

/// Solve-time buckets below +Inf: 10 µs, then each four times the last (up to about 10 s).
const BUCKETS: usize = 11;

/// The upper bound of solve-time bucket `i`, in seconds; f64::MAX, which prometheus-client
/// writes as +Inf, for the last.
fn upper_bound(i: usize) -> f64 {
    match i {
        i if i < BUCKETS => 1e-5 * 4f64.powi(i as i32),
        _ => f64::MAX,
    }
}

/// Solves counted where they happen, by outcome and time, until added to the metrics.
#[derive(Debug, Clone, Default)]
pub struct SolveTally {
    by_outcome: [u64; OUTCOMES],
    times: Times,
}

impl SolveTally {
    /// Counts one solve.
    pub fn add(&mut self, solution: &Report) {
        let outcome = wire_outcome(&solution.outcome) as usize;
        if let Some(n) = self.by_outcome.get_mut(outcome) {
            *n += 1;
        }
        self.times.observe(solution.stats.elapsed.as_secs_f64());
    }

    /// Solves counted, by wire outcome number.
    pub fn by_outcome(&self) -> &[u64; OUTCOMES] {
        &self.by_outcome
    }

    /// Whether nothing was counted.
    pub fn is_empty(&self) -> bool {
        self.times.count == 0
    }
}

/// A histogram's state: sum, count, and the count of each bucket (the last is +Inf).
#[derive(Debug, Clone, Copy, Default)]
struct Times {
    sum: f64,
    count: u64,
    buckets: [u64; BUCKETS + 1],
}

impl Times {
    fn observe(&mut self, seconds: f64) {
        self.sum += seconds;
        self.count += 1;
        let bucket = (0..BUCKETS)
            .find(|&i| seconds <= upper_bound(i))
            .unwrap_or(BUCKETS);
        self.buckets[bucket] += 1;
    }

    fn merge(&mut self, other: &Times) {
        self.sum += other.sum;
        self.count += other.count;
        for (mine, theirs) in self.buckets.iter_mut().zip(other.buckets) {
            *mine += theirs;
        }
    }
}

/// The solve-time histogram, taking a tally's times at once (prometheus-client's own
/// histogram takes one observation per lock).
#[derive(Debug, Clone, Default)]
pub struct SolveSeconds(Arc<Mutex<Times>>);

impl SolveSeconds {
    /// Adds the times of `tally`.
    pub fn add(&self, tally: &SolveTally) {
        let mut times = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        times.merge(&tally.times);
    }
}

impl EncodeMetric for SolveSeconds {
    fn encode(&self, mut encoder: MetricEncoder) -> Result<(), std::fmt::Error> {
        let times = *self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let buckets: Vec<(f64, u64)> = (times.buckets.iter().enumerate())
            .map(|(i, &n)| (upper_bound(i), n))
            .collect();
        encoder.encode_histogram::<NoLabelSet>(times.sum, times.count, &buckets, None)
    }

    fn metric_type(&self) -> MetricType {
        MetricType::Histogram
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_fall_in_the_first_bucket_that_holds_them() {
        let mut times = Times::default();
        for seconds in [0.0, 1e-5, 1.1e-5, 4e-5, 100.0] {
            times.observe(seconds);
        }
        assert_eq!(times.count, 5);
        assert_eq!(times.buckets[0], 2, "0 and 10 µs are in the first bucket");
        assert_eq!(times.buckets[1], 2, "11 µs and 40 µs are in the second");
        assert_eq!(times.buckets[BUCKETS], 1, "100 s is only under +Inf");
        let mut merged = Times::default();
        merged.merge(&times);
        merged.merge(&times);
        assert_eq!(merged.count, 10);
        assert_eq!(merged.buckets[1], 4);
        assert!((merged.sum - 2.0 * times.sum).abs() < 1e-12);
    }
}
