//! Seed 000 §4's shared-scan workload: map-only jobs scanning one of `D`
//! datasets.
//!
//! * Arrivals: `n` Poisson arrivals over the horizon `T` (drawn as the
//!   sorted uniform times of a Poisson process conditioned on `n`
//!   arrivals in `T`).
//! * Popularity: dataset `i` (by decreasing popularity, 1-based) is chosen
//!   with probability proportional to `i^-theta1`, a Zipf-like law whose
//!   `theta = 1` is pure Zipf and `theta = 0` uniform, as the paper states.
//! * Sizes: the `r`-th largest dataset has size proportional to
//!   `r^-theta2`.
//! * Correlation (the paper's `kappa` scheme): going through the datasets
//!   by decreasing popularity (positive correlation) or increasing
//!   popularity (negative), step `i` gives the dataset a size rank drawn
//!   uniformly from `1..=min(D, kappa + i - 1)` minus the ranks already
//!   used. `kappa = 1` is perfect correlation, `kappa = D` random. The
//!   paper steps `kappa` by 5 for 9 settings labelled 0 (perfectly
//!   negative) to 8 (perfectly positive); we use `kappa = 1, 6, 11, 16`
//!   and `D` (the step to 21 clamped to `D = 20`) for labels `8 - k` and
//!   `k`, the random label 4 being shared.
//! * Scale: sizes are scaled so that the total map work of the drawn jobs,
//!   unshared, is `rho T S` slot-seconds (utilisation `rho`).

use crate::build::WorkloadBuilder;
use mrsched_model::workload::CostParams;
use mrsched_model::{rng, Time, Workload};
use rand::Rng as _;

/// Generator parameters (defaults: the paper's base case).
#[derive(Clone, Debug, PartialEq)]
pub struct SharedScanParams {
    /// Arrivals.
    pub jobs: usize,
    /// Datasets `D`.
    pub datasets: usize,
    /// Popularity skew `theta1`.
    pub theta_popularity: f64,
    /// Size skew `theta2`.
    pub theta_size: f64,
    /// Correlation label 0 (perfectly negative) ..= 8 (perfectly positive).
    pub correlation: u32,
    /// Horizon `T`, seconds.
    pub horizon_s: f64,
    /// Map slots `S`.
    pub slots: u32,
    /// Utilisation `rho`.
    pub rho: f64,
}

impl Default for SharedScanParams {
    fn default() -> Self {
        SharedScanParams {
            jobs: 1000,
            datasets: 20,
            theta_popularity: 1.0,
            theta_size: 1.0,
            correlation: 4,
            horizon_s: 6000.0,
            slots: 100,
            rho: 0.9,
        }
    }
}

/// A drawn instance.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedScanDraw {
    /// `(arrival s, dataset)`, sorted by arrival; dataset 0 is the most
    /// popular.
    pub arrivals: Vec<(f64, u32)>,
    /// Size of each dataset: slot-seconds to scan it alone.
    pub sizes: Vec<f64>,
    /// Size rank of each dataset (0 = largest).
    pub size_rank: Vec<u32>,
}

/// Zipf-like probabilities (or relative sizes) of `n` ranks: `i^-theta`
/// normalised to sum to 1.
pub fn zipf_like(n: usize, theta: f64) -> Vec<f64> {
    let raw: Vec<f64> = (1..=n).map(|i| (i as f64).powf(-theta)).collect();
    let s: f64 = raw.iter().sum();
    raw.into_iter().map(|x| x / s).collect()
}

/// `(kappa, positive)` of correlation label 0..=8 for `d` datasets.
pub fn kappa_of(label: u32, d: usize) -> (usize, bool) {
    let label = label.min(8) as i64;
    let k = (label - 4).unsigned_abs() as usize; // 0 random .. 4 perfect
    let kappa = (1 + 5 * (4 - k)).min(d.max(1));
    (kappa, label >= 4)
}

/// The size rank (0-based, 0 = largest) of each dataset indexed by
/// decreasing popularity, by the paper's kappa scheme.
pub fn correlate(d: usize, kappa: usize, positive: bool, rng: &mut rng::Rng) -> Vec<u32> {
    let mut rank = vec![0u32; d];
    let mut used = vec![false; d];
    for step in 0..d {
        let ds = if positive { step } else { d - 1 - step };
        let hi = (kappa + step).min(d); // ranks 1..=hi, 1-based
        let free: Vec<usize> = (0..hi).filter(|&r| !used[r]).collect();
        let r = free[rng.random_range(0..free.len())];
        used[r] = true;
        rank[ds] = r as u32;
    }
    rank
}

/// Draw an instance.
pub fn draw(seed: u64, p: &SharedScanParams) -> SharedScanDraw {
    let d = p.datasets.max(1);
    let mut r_corr = rng::stream(seed, "workload:shared-scans:correlation");
    let mut r_arr = rng::stream(seed, "workload:shared-scans:arrivals");
    let mut r_pick = rng::stream(seed, "workload:shared-scans:datasets");
    let (kappa, positive) = kappa_of(p.correlation, d);
    let size_rank = correlate(d, kappa, positive, &mut r_corr);
    let rel = zipf_like(d, p.theta_size);
    let pop = zipf_like(d, p.theta_popularity);
    let mut cdf = Vec::with_capacity(d);
    let mut acc = 0.0;
    for x in &pop {
        acc += x;
        cdf.push(acc);
    }
    let mut times: Vec<f64> = (0..p.jobs)
        .map(|_| r_arr.random::<f64>() * p.horizon_s)
        .collect();
    times.sort_by(|a, b| a.total_cmp(b));
    let arrivals: Vec<(f64, u32)> = times
        .into_iter()
        .map(|t| {
            let u: f64 = r_pick.random::<f64>() * acc;
            let i = cdf.partition_point(|&c| c <= u).min(d - 1);
            (t, i as u32)
        })
        .collect();
    let unscaled: f64 = arrivals
        .iter()
        .map(|&(_, i)| rel[size_rank[i as usize] as usize])
        .sum();
    let target = p.rho * p.horizon_s * p.slots as f64;
    let scale = if unscaled > 0.0 {
        target / unscaled
    } else {
        0.0
    };
    let sizes = (0..d).map(|i| scale * rel[size_rank[i] as usize]).collect();
    SharedScanDraw {
        arrivals,
        sizes,
        size_rank,
    }
}

impl SharedScanDraw {
    /// A workload for the cluster simulator: each dataset cut into blocks
    /// of about `block_s` seconds of map time (the exact block time keeps
    /// its size), explicit-time map-only jobs with scan fraction `f`.
    pub fn to_workload(&self, block_s: f64, scan_fraction: f64) -> Workload {
        let mut b = WorkloadBuilder::new("shared-scans");
        let mut per_block = Vec::with_capacity(self.sizes.len());
        let ids: Vec<_> = self
            .sizes
            .iter()
            .enumerate()
            .map(|(i, &s)| {
                let n = (s / block_s).round().max(1.0) as usize;
                per_block.push(s / n as f64);
                b.dataset(&format!("dataset-{i}"), vec![64.0; n], 3)
            })
            .collect();
        let cost = CostParams {
            map_cpu_s_per_mb: 0.0,
            map_output_ratio: 0.0,
            reduce_cpu_s_per_mb: 0.0,
            reduce_output_ratio: 0.0,
        };
        for (k, &(t, d)) in self.arrivals.iter().enumerate() {
            let j = b.data_job(
                format!("scan-{k}"),
                Time::from_secs_f64(t),
                &[ids[d as usize]],
                0,
                cost,
            );
            let tm = Time::from_secs_f64(per_block[d as usize]);
            for m in j.maps.list_mut() {
                m.time = Some(tm);
            }
            j.scan_fraction = scan_fraction;
        }
        b.build()
    }
}

/// Semi-shared scans (seed 000 §1, §3.3): `jobs` map-only jobs over 30
/// daily datasets (40 blocks of 5 s each), each reading the most recent
/// day, the last week or the last month as of a day drawn near the end of
/// the month (60% / 30% / 10%), arriving every 20 s on average. Their
/// inputs overlap, so CIRCUMFLEX's subjobs are the Venn cells.
pub fn day_week_month(seed: u64, jobs: usize) -> Workload {
    let mut r = rng::stream(seed, "workload:day-week-month");
    let mut b = WorkloadBuilder::new("day-week-month");
    let days: Vec<_> = (0..30)
        .map(|i| b.dataset(&format!("day-{:02}", i + 1), vec![64.0; 40], 3))
        .collect();
    let cost = CostParams {
        map_cpu_s_per_mb: 0.0,
        map_output_ratio: 0.0,
        reduce_cpu_s_per_mb: 0.0,
        reduce_output_ratio: 0.0,
    };
    let mut t = 0.0;
    for k in 0..jobs {
        t += -20.0 * (1.0 - r.random::<f64>()).ln();
        let last = 30 - (r.random::<f64>() * r.random::<f64>() * 8.0) as usize; // 23..=30
        let u: f64 = r.random();
        let span = if u < 0.6 {
            1
        } else if u < 0.9 {
            7
        } else {
            30
        };
        let first = last.saturating_sub(span);
        let input: Vec<_> = days[first..last].to_vec();
        let j = b.data_job(format!("scan-{k}"), Time::from_secs_f64(t), &input, 0, cost);
        for m in j.maps.list_mut() {
            m.time = Some(Time::from_secs(5));
        }
    }
    b.build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zipf_like_spans_uniform_to_zipf() {
        assert_eq!(zipf_like(4, 0.0), vec![0.25; 4]);
        let z = zipf_like(3, 1.0);
        let h = 1.0 + 0.5 + 1.0 / 3.0;
        assert!((z[0] - 1.0 / h).abs() < 1e-12 && (z[2] - 1.0 / 3.0 / h).abs() < 1e-12);
    }

    #[test]
    fn kappa_labels() {
        assert_eq!(kappa_of(8, 20), (1, true));
        assert_eq!(kappa_of(7, 20), (6, true));
        assert_eq!(kappa_of(4, 20), (20, true));
        assert_eq!(kappa_of(1, 20), (6, false));
        assert_eq!(kappa_of(0, 20), (1, false));
    }

    #[test]
    fn correlation_extremes() {
        let mut r = rng::stream(1, "t");
        // Perfectly positive: the most popular is the largest.
        assert_eq!(correlate(5, 1, true, &mut r), vec![0, 1, 2, 3, 4]);
        // Perfectly negative: the most popular is the smallest.
        assert_eq!(correlate(5, 1, false, &mut r), vec![4, 3, 2, 1, 0]);
        // Random: a permutation.
        let mut v = correlate(20, 20, true, &mut r);
        v.sort_unstable();
        assert_eq!(v, (0..20).collect::<Vec<u32>>());
        // kappa = 2: rank of the i-th most popular is within i + 1.
        for (i, &k) in correlate(20, 2, true, &mut r).iter().enumerate() {
            assert!((k as usize) <= i + 1);
        }
    }

    #[test]
    fn draws_hit_the_utilisation() {
        let p = SharedScanParams::default();
        let d = draw(3, &p);
        assert_eq!(d.arrivals.len(), 1000);
        assert!(d.arrivals.windows(2).all(|w| w[0].0 <= w[1].0));
        let work: f64 = d.arrivals.iter().map(|&(_, i)| d.sizes[i as usize]).sum();
        assert!((work - 0.9 * 6000.0 * 100.0).abs() < 1e-6);
        // Popularity follows Zipf: dataset 0 is the most drawn.
        let mut counts = vec![0; 20];
        for &(_, i) in &d.arrivals {
            counts[i as usize] += 1;
        }
        assert!(counts[0] > counts[19] * 5, "{counts:?}");
        let w = d.to_workload(5.0, 1.0);
        assert_eq!(w.jobs.len(), 1000);
        let total: f64 = w
            .jobs
            .iter()
            .flat_map(|j| j.maps.iter())
            .map(|m| m.time.unwrap().as_secs_f64())
            .sum();
        assert!((total - work).abs() / work < 1e-6);
        assert_eq!(draw(3, &p), d, "reproducible");
    }

    #[test]
    fn day_week_month_overlaps() {
        let w = day_week_month(1, 40);
        assert_eq!(w.jobs.len(), 40);
        assert!(w.jobs.iter().any(|j| j.input.len() == 7));
        assert!(w.jobs.iter().all(|j| (1..=30).contains(&j.input.len())));
    }
}
