//! A Poisson / Zipf synthetic workload generator.
//!
//! Jobs arrive as a Poisson process; job sizes (maps) follow a Zipf law over
//! `1..=max_maps`; each job scans one of `datasets` datasets chosen by a
//! Zipf-like popularity, or its own input when `datasets` is 0. It is the
//! general-purpose generator behind scale tests and what-if studies.

use crate::build::{blocks, WorkloadBuilder};
use crate::facebook::{loadgen_cost, BLOCK_MB};
use mrsched_model::rng;
use mrsched_model::{Time, Workload};
use rand::Rng as _;
use rand_distr::{Distribution, Exp, Zipf};

/// Generator parameters.
#[derive(Clone, Debug)]
pub struct SyntheticParams {
    /// Number of jobs.
    pub jobs: usize,
    /// Mean inter-arrival time, s.
    pub mean_interarrival_s: f64,
    /// Largest job, maps.
    pub max_maps: u32,
    /// Zipf exponent of job sizes (0 = uniform).
    pub size_exponent: f64,
    /// Reducers as a fraction of maps.
    pub reduce_fraction: (f64, f64),
    /// Shared datasets (0: every job reads its own input).
    pub datasets: usize,
    /// Zipf exponent of dataset popularity.
    pub popularity_exponent: f64,
    /// Node-local map time range, s.
    pub map_time_s: (f64, f64),
    /// Users jobs are spread over.
    pub users: usize,
}

impl Default for SyntheticParams {
    fn default() -> Self {
        SyntheticParams {
            jobs: 200,
            mean_interarrival_s: 20.0,
            max_maps: 400,
            size_exponent: 1.0,
            reduce_fraction: (0.05, 0.25),
            datasets: 0,
            popularity_exponent: 1.0,
            map_time_s: (10.0, 30.0),
            users: 10,
        }
    }
}

/// Generate a synthetic workload.
pub fn synthetic(seed: u64, p: &SyntheticParams) -> Workload {
    let mut rng = rng::stream(seed, "workload:synthetic");
    let exp = Exp::new(1.0 / p.mean_interarrival_s.max(1e-9)).expect("positive mean");
    let sizes = Zipf::new(p.max_maps.max(1) as f64, p.size_exponent.max(0.0)).expect("valid zipf");
    let mut b = WorkloadBuilder::new("synthetic");
    let shared: Vec<_> = if p.datasets > 0 {
        let pop_sizes =
            Zipf::new(p.max_maps.max(1) as f64, p.size_exponent.max(0.0)).expect("zipf");
        (0..p.datasets)
            .map(|d| {
                let maps = pop_sizes.sample(&mut rng) as u32;
                b.dataset(
                    &format!("dataset-{d}"),
                    blocks(maps as f64 * BLOCK_MB, BLOCK_MB),
                    3,
                )
            })
            .collect()
    } else {
        Vec::new()
    };
    let popularity = (p.datasets > 0)
        .then(|| Zipf::new(p.datasets as f64, p.popularity_exponent.max(0.0)).expect("zipf"));
    let mut t = 0.0;
    for i in 0..p.jobs {
        t += exp.sample(&mut rng);
        let (d, maps) = match &popularity {
            Some(z) => {
                let d = shared[z.sample(&mut rng) as usize - 1];
                (d, 0)
            }
            None => {
                let maps = sizes.sample(&mut rng) as u32;
                let d = b.dataset(
                    &format!("input-{i}"),
                    blocks(maps as f64 * BLOCK_MB, BLOCK_MB),
                    3,
                );
                (d, maps)
            }
        };
        let map_s = rng.random_range(p.map_time_s.0..=p.map_time_s.1);
        let cost = loadgen_cost(&mut rng, map_s, 200.0);
        let maps = if maps == 0 {
            b.build_ref().datasets[d.idx()].blocks_mb.len() as u32
        } else {
            maps
        };
        let f =
            rng.random_range(p.reduce_fraction.0..=p.reduce_fraction.1.max(p.reduce_fraction.0));
        let reduces = if p.reduce_fraction.1 <= 0.0 {
            0
        } else {
            ((maps as f64 * f).round() as usize).max(1)
        };
        let j = b.data_job(
            format!("syn-{i}"),
            Time::from_secs_f64(t),
            &[d],
            reduces,
            cost,
        );
        j.user = format!("user{}", i % p.users.max(1));
    }
    b.build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_and_determinism() {
        let p = SyntheticParams {
            jobs: 500,
            ..Default::default()
        };
        let w = synthetic(11, &p);
        assert_eq!(w.jobs.len(), 500);
        // Zipf(400, 1): P(maps <= 5) = H_5 / H_400 = 0.348, so ~174 of 500
        // (sd ~10.7); accept four standard deviations.
        let small = w.jobs.iter().filter(|j| j.maps.len() <= 5).count();
        assert!(
            (131..=217).contains(&small),
            "Zipf sizes are mostly small: {small}"
        );
        assert!(w.jobs.iter().all(|j| j.maps.len() <= 400));
        assert_eq!(synthetic(11, &p), w);
        assert_ne!(synthetic(12, &p), w);
    }

    #[test]
    fn shared_datasets_by_popularity() {
        let p = SyntheticParams {
            jobs: 300,
            datasets: 5,
            ..Default::default()
        };
        let w = synthetic(1, &p);
        assert_eq!(w.datasets.len(), 5);
        let first = w.jobs.iter().filter(|j| j.input[0].0 == 0).count();
        let last = w.jobs.iter().filter(|j| j.input[0].0 == 4).count();
        assert!(first > last, "{first} vs {last}");
    }
}
