//! A compact latency histogram for scheduler decision times.
//!
//! A run can make tens of millions of scheduling decisions, so individual
//! timings are not kept: values go into log-linear buckets (16 per power of
//! two, about 4% resolution), enough for p50/p99 without memory growth.

use serde::{Deserialize, Serialize};

const SUB: usize = 16;

/// Histogram of nanosecond latencies.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct LatencyHistogram {
    buckets: Vec<u64>,
    count: u64,
    sum_ns: u128,
    max_ns: u64,
}

fn bucket_of(ns: u64) -> usize {
    if ns < SUB as u64 {
        return ns as usize;
    }
    let log = 63 - ns.leading_zeros() as usize; // >= 4
    let shift = log - 4;
    let sub = ((ns >> shift) as usize) & (SUB - 1);
    (log - 3) * SUB + sub
}

fn bucket_low(b: usize) -> u64 {
    if b < SUB {
        return b as u64;
    }
    let log = b / SUB + 3;
    let sub = (b % SUB) as u64;
    (SUB as u64 + sub) << (log - 4)
}

impl LatencyHistogram {
    /// An empty histogram.
    pub fn new() -> Self {
        Self::default()
    }

    /// Record one latency.
    pub fn record(&mut self, ns: u64) {
        let b = bucket_of(ns);
        if self.buckets.len() <= b {
            self.buckets.resize(b + 1, 0);
        }
        self.buckets[b] += 1;
        self.count += 1;
        self.sum_ns += ns as u128;
        self.max_ns = self.max_ns.max(ns);
    }

    /// Number of recorded values.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Mean, ns.
    pub fn mean_ns(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum_ns as f64 / self.count as f64
        }
    }

    /// Largest value, ns.
    pub fn max_ns(&self) -> u64 {
        self.max_ns
    }

    /// The q-quantile (0..=1), ns: the lower edge of the bucket that holds it.
    pub fn quantile_ns(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.count as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (b, c) in self.buckets.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return bucket_low(b);
            }
        }
        self.max_ns
    }

    /// Add another histogram's counts.
    pub fn merge(&mut self, o: &LatencyHistogram) {
        if self.buckets.len() < o.buckets.len() {
            self.buckets.resize(o.buckets.len(), 0);
        }
        for (a, b) in self.buckets.iter_mut().zip(&o.buckets) {
            *a += b;
        }
        self.count += o.count;
        self.sum_ns += o.sum_ns;
        self.max_ns = self.max_ns.max(o.max_ns);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_monotone_and_tight() {
        let mut last = 0;
        for ns in [
            0u64,
            1,
            15,
            16,
            17,
            31,
            32,
            100,
            1000,
            123_456,
            10_000_000_000,
        ] {
            let b = bucket_of(ns);
            assert!(b >= last);
            last = b;
            let lo = bucket_low(b);
            assert!(lo <= ns, "{ns} -> {lo}");
            assert!(ns as f64 <= lo as f64 * 1.07 + 1.0, "{ns} -> {lo}");
        }
    }

    #[test]
    fn quantiles() {
        let mut h = LatencyHistogram::new();
        for i in 1..=1000u64 {
            h.record(i * 100);
        }
        let p50 = h.quantile_ns(0.5);
        let p99 = h.quantile_ns(0.99);
        assert!((47_000..=50_000).contains(&p50), "{p50}");
        assert!((95_000..=99_000).contains(&p99), "{p99}");
        assert_eq!(h.count(), 1000);
    }
}
