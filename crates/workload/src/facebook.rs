//! The Facebook workloads of the seed papers.
//!
//! * **BM** (seed 002 §6.1, Table 2): 50 loadgen jobs in 9 size bins
//!   (16, 40, 80, 160, 320, 600, 1200, 2400, 6400 maps; 29, 5, 4, 4, 3, 2, 1,
//!   1, 1 jobs), reducers 5-25% of maps, Poisson arrivals about every 30 s,
//!   128 MB blocks, random keepMap / keepReduce and CPU work per record so
//!   that maps take 9-60 s.
//! * **FB 2009 bins** (seed 004 Table II, from the delay-scheduling
//!   benchmark): 9 bins of 1, 2, 10, 50, 100, 200, 400, 800 and 4800 maps
//!   holding 39, 16, 14, 9, 6, 6, 4, 4, 3 % of jobs (38, 16, 14, 8, 6, 6, 4,
//!   4, 4 jobs in the 100-job benchmark), exponential inter-arrival times of
//!   mean 14 s.

use crate::build::{blocks, WorkloadBuilder};
use mrsched_model::rng::{self, Rng};
use mrsched_model::workload::CostParams;
use mrsched_model::{Time, Workload};
use rand::seq::SliceRandom;
use rand::Rng as _;
use rand_distr::{Distribution, Exp};

/// Block size of every Facebook workload, MB (seed 002 §6).
pub const BLOCK_MB: f64 = 128.0;

/// BM's bins: (maps per job, jobs in the benchmark).
pub const BM_BINS: [(u32, u32); 9] = [
    (16, 29),
    (40, 5),
    (80, 4),
    (160, 4),
    (320, 3),
    (600, 2),
    (1200, 1),
    (2400, 1),
    (6400, 1),
];

/// Seed 004 Table II: (maps, share of jobs at Facebook, jobs in benchmark).
pub const FB2009_BINS: [(u32, f64, u32); 9] = [
    (1, 0.39, 38),
    (2, 0.16, 16),
    (10, 0.14, 14),
    (50, 0.09, 8),
    (100, 0.06, 6),
    (200, 0.06, 6),
    (400, 0.04, 4),
    (800, 0.04, 4),
    (4800, 0.03, 4),
];

/// Loadgen-like cost parameters with a node-local map time of about
/// `map_s` seconds on reference nodes reading at `disk_mb_s`.
pub fn loadgen_cost(rng: &mut Rng, map_s: f64, disk_mb_s: f64) -> CostParams {
    let read = BLOCK_MB / disk_mb_s;
    // keepMap and keepReduce: log-uniform between 0.1% and 100%.
    let keep_map = 10f64.powf(rng.random_range(-3.0..=0.0));
    let keep_reduce = 10f64.powf(rng.random_range(-3.0..=0.0));
    CostParams {
        map_cpu_s_per_mb: ((map_s - read) / BLOCK_MB).max(0.0),
        map_output_ratio: keep_map,
        reduce_cpu_s_per_mb: rng.random_range(0.02..0.2),
        reduce_output_ratio: keep_reduce,
    }
}

fn reduces_for(rng: &mut Rng, maps: u32, lo: f64, hi: f64) -> usize {
    let f = rng.random_range(lo..=hi);
    ((maps as f64 * f).round() as usize).max(1)
}

/// Parameters of BM.
#[derive(Clone, Debug)]
pub struct BmParams {
    /// Mean inter-arrival time, s.
    pub mean_interarrival_s: f64,
    /// Shortest and longest node-local map time, s.
    pub map_time_s: (f64, f64),
    /// Disk rate the map times assume, MB/s.
    pub disk_mb_s: f64,
}

impl Default for BmParams {
    fn default() -> Self {
        BmParams {
            mean_interarrival_s: 30.0,
            map_time_s: (9.0, 60.0),
            disk_mb_s: 200.0,
        }
    }
}

/// Seed 002's multi-user benchmark BM: 50 jobs, shuffled bin order, Poisson
/// arrivals. Every job scans its own input file.
pub fn bm(seed: u64, p: &BmParams) -> Workload {
    let mut rng = rng::stream(seed, "workload:fb-bm");
    let mut sizes: Vec<u32> = BM_BINS
        .iter()
        .flat_map(|&(maps, n)| std::iter::repeat_n(maps, n as usize))
        .collect();
    sizes.shuffle(&mut rng);
    let exp = Exp::new(1.0 / p.mean_interarrival_s).expect("positive mean");
    let mut b = WorkloadBuilder::new("fb-bm");
    let mut t = 0.0;
    for (i, maps) in sizes.into_iter().enumerate() {
        t += exp.sample(&mut rng);
        let d = b.dataset(
            &format!("bm-input-{i}"),
            blocks(maps as f64 * BLOCK_MB, BLOCK_MB),
            3,
        );
        let map_s = rng.random_range(p.map_time_s.0..=p.map_time_s.1);
        let cost = loadgen_cost(&mut rng, map_s, p.disk_mb_s);
        let reduces = reduces_for(&mut rng, maps, 0.05, 0.25);
        let user = format!("user{}", i % 10);
        let j = b.data_job(
            format!("bm-{i}-{maps}maps"),
            Time::from_secs_f64(t),
            &[d],
            reduces,
            cost,
        );
        j.user = user;
        j.class = Some(format!("bin{}", bm_bin(maps)));
    }
    b.build()
}

/// The BM bin index (0-8) of a job with `maps` maps.
pub fn bm_bin(maps: u32) -> usize {
    BM_BINS
        .iter()
        .position(|(m, _)| *m == maps)
        .unwrap_or_else(|| {
            // Facebook's bin edges for sizes that are not BM's representatives.
            const EDGES: [u32; 8] = [25, 50, 100, 200, 400, 800, 1600, 3200];
            EDGES.iter().position(|e| maps <= *e).unwrap_or(8)
        })
}

/// Parameters of the FB 2009 bins workload.
#[derive(Clone, Debug)]
pub struct Fb2009Params {
    /// Number of jobs; `None` uses the 100-job benchmark's exact counts,
    /// otherwise sizes are drawn from the bins' shares.
    pub jobs: Option<usize>,
    /// Mean exponential inter-arrival time, s.
    pub mean_interarrival_s: f64,
    /// Largest job size to keep (seed 004 drops jobs above 300 maps).
    pub max_maps: u32,
    /// Reducers as a fraction of maps, (low, high).
    pub reduce_fraction: (f64, f64),
    /// Node-local map time range, s.
    pub map_time_s: (f64, f64),
}

impl Default for Fb2009Params {
    fn default() -> Self {
        Fb2009Params {
            jobs: None,
            mean_interarrival_s: 14.0,
            max_maps: u32::MAX,
            reduce_fraction: (0.05, 0.25),
            map_time_s: (10.0, 20.0),
        }
    }
}

/// Job sizes (maps) of the FB 2009 bins workload.
pub fn fb2009_sizes(rng: &mut Rng, p: &Fb2009Params) -> Vec<u32> {
    let bins: Vec<(u32, f64, u32)> = FB2009_BINS
        .iter()
        .copied()
        .filter(|(m, _, _)| *m <= p.max_maps)
        .collect();
    let mut sizes: Vec<u32> = match p.jobs {
        None => bins
            .iter()
            .flat_map(|&(m, _, n)| std::iter::repeat_n(m, n as usize))
            .collect(),
        Some(n) => {
            let total: f64 = bins.iter().map(|b| b.1).sum();
            (0..n)
                .map(|_| {
                    let mut x = rng.random_range(0.0..total);
                    for &(m, share, _) in &bins {
                        if x < share {
                            return m;
                        }
                        x -= share;
                    }
                    bins.last().map(|b| b.0).unwrap_or(1)
                })
                .collect()
        }
    };
    sizes.shuffle(rng);
    sizes
}

/// The FB 2009 bins workload (seed 004 Table II).
pub fn fb2009_bins(seed: u64, p: &Fb2009Params) -> Workload {
    let mut rng = rng::stream(seed, "workload:fb2009-bins");
    let sizes = fb2009_sizes(&mut rng, p);
    let exp = Exp::new(1.0 / p.mean_interarrival_s).expect("positive mean");
    let mut b = WorkloadBuilder::new("fb2009-bins");
    let mut t = 0.0;
    for (i, maps) in sizes.into_iter().enumerate() {
        t += exp.sample(&mut rng);
        let d = b.dataset(
            &format!("fb-input-{i}"),
            blocks(maps as f64 * BLOCK_MB, BLOCK_MB),
            3,
        );
        let map_s = rng.random_range(p.map_time_s.0..=p.map_time_s.1);
        let cost = loadgen_cost(&mut rng, map_s, 200.0);
        let reduces = reduces_for(&mut rng, maps, p.reduce_fraction.0, p.reduce_fraction.1);
        let j = b.data_job(
            format!("fb-{i}-{maps}maps"),
            Time::from_secs_f64(t),
            &[d],
            reduces,
            cost,
        );
        j.user = format!("user{}", i % 10);
    }
    b.build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bm_matches_table_2() {
        let w = bm(7, &BmParams::default());
        assert_eq!(w.jobs.len(), 50);
        let mut per_bin = [0u32; 9];
        for j in &w.jobs {
            per_bin[bm_bin(j.maps.len() as u32)] += 1;
            let r = j.reduces.len() as f64 / j.maps.len() as f64;
            assert!((0.04..=0.26).contains(&r) || j.reduces.len() == 1, "{r}");
        }
        assert_eq!(per_bin, [29, 5, 4, 4, 3, 2, 1, 1, 1]);
        let mean_gap = w.jobs.last().unwrap().arrival.as_secs_f64() / 50.0;
        assert!((15.0..60.0).contains(&mean_gap), "{mean_gap}");
        assert_eq!(bm(7, &BmParams::default()), w, "deterministic");
    }

    #[test]
    fn fb2009_counts_and_shares() {
        let w = fb2009_bins(3, &Fb2009Params::default());
        assert_eq!(w.jobs.len(), 100);
        assert_eq!(w.jobs.iter().filter(|j| j.maps.len() == 1).count(), 38);
        assert_eq!(w.jobs.iter().filter(|j| j.maps.len() == 4800).count(), 4);
        let p = Fb2009Params {
            jobs: Some(5000),
            max_maps: 300,
            ..Default::default()
        };
        let w = fb2009_bins(3, &p);
        assert!(w.jobs.iter().all(|j| j.maps.len() <= 300));
        let ones = w.jobs.iter().filter(|j| j.maps.len() == 1).count() as f64 / 5000.0;
        // 39% of the jobs in bins up to 300 maps (89% of all) = 43.8%.
        assert!((ones - 0.39 / 0.89).abs() < 0.03, "{ones}");
    }
}
