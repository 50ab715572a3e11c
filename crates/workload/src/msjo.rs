//! Seed 001 §5.1.1 workloads (MSJO, MarS): jobs with explicit map and
//! reduce times, weights and map -> reduce delays.
//!
//! * Release times: Bernoulli arrivals, one trial per second (the text's
//!   "Bernoulli with probability 2" lost its fraction bar; we read 1/2).
//! * Task counts: uniform (30 maps, 10 reduces) or random (Poisson(30)
//!   maps, at least 1; reduces uniform in [1, maps]).
//! * Task times: uniform (maps 10 s, reduces 15 s) or random (N(10, 5) and
//!   N(15, 5), clipped at 1 s).
//! * Weights N(30, 10), clipped at 1; per-task weights the same way for the
//!   task-level experiments.
//! * Delays proportional to map time: `shuffle_delay_factor` (the paper
//!   gives no factor; 0.2 by default).
//! * Unit-weight categories (Figs. 11-12): the drawn unit weights
//!   (weight / total task time) are handed to jobs in increasing or
//!   decreasing order of release, each job's weight rescaled to its unit
//!   weight times its work.

use crate::build::WorkloadBuilder;
use mrsched_model::rng;
use mrsched_model::{Time, Workload};
use rand::Rng as _;
use rand_distr::{Distribution, Normal, Poisson};

/// Task-count category.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Counts {
    /// 30 maps and 10 reduces per job.
    Uniform,
    /// Poisson(30) maps, reduces uniform in [1, maps].
    Random,
}

/// Task-time category.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Times {
    /// Maps 10 s, reduces 15 s.
    Uniform,
    /// N(10, 5) and N(15, 5), clipped at 1 s.
    Random,
}

/// Unit-weight category.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum UnitWeights {
    /// As drawn.
    Random,
    /// Later jobs have higher unit weights (Fig. 11).
    Increasing,
    /// Later jobs have lower unit weights (Fig. 12).
    Decreasing,
}

/// Generator parameters.
#[derive(Clone, Debug)]
pub struct MsjoParams {
    /// Number of jobs.
    pub jobs: usize,
    /// Stop once this many tasks exist, trimming the last job (task-level
    /// experiments: "100 to 1000 tasks").
    pub max_tasks: Option<usize>,
    /// Arrival probability per second.
    pub arrival_prob: f64,
    /// Task counts.
    pub counts: Counts,
    /// Task times.
    pub times: Times,
    /// Unit-weight order.
    pub unit_weights: UnitWeights,
    /// Map -> reduce delay as a fraction of the map's time.
    pub delay_factor: f64,
    /// Draw a weight per task too.
    pub task_weights: bool,
}

impl Default for MsjoParams {
    fn default() -> Self {
        MsjoParams {
            jobs: 100,
            max_tasks: None,
            arrival_prob: 0.5,
            counts: Counts::Random,
            times: Times::Random,
            unit_weights: UnitWeights::Random,
            delay_factor: 0.2,
            task_weights: false,
        }
    }
}

/// One drawn job: arrival, map times, reduce times, weight, task weights.
type Drawn = (f64, Vec<f64>, Vec<f64>, f64, Vec<f64>);

/// Generate a seed 001 workload.
pub fn msjo(seed: u64, p: &MsjoParams) -> Workload {
    let mut rng = rng::stream(seed, "workload:msjo");
    let map_t: Normal<f64> = Normal::new(10.0, 5.0).expect("valid normal");
    let red_t: Normal<f64> = Normal::new(15.0, 5.0).expect("valid normal");
    let weight: Normal<f64> = Normal::new(30.0, 10.0).expect("valid normal");
    let poisson: Poisson<f64> = Poisson::new(30.0).expect("valid poisson");
    let prob = p.arrival_prob.clamp(1e-6, 1.0);
    let mut b = WorkloadBuilder::new("msjo");
    let mut t = 0u64;
    let mut tasks = 0usize;
    let mut specs: Vec<Drawn> = Vec::new();
    for _ in 0..p.jobs {
        if p.max_tasks.is_some_and(|m| tasks >= m) {
            break;
        }
        while rng.random::<f64>() >= prob {
            t += 1;
        }
        let arrival = t as f64;
        t += 1;
        let (mut nm, mut nr) = match p.counts {
            Counts::Uniform => (30usize, 10usize),
            Counts::Random => {
                let nm = (poisson.sample(&mut rng) as usize).max(1);
                (nm, rng.random_range(1..=nm))
            }
        };
        if let Some(m) = p.max_tasks {
            let room = m - tasks;
            if nm + nr > room {
                // Trim the last job, keeping at least one map.
                nr = nr.min(room.saturating_sub(1) / 2);
                nm = (room - nr).max(1);
            }
        }
        let draw = |rng: &mut rng::Rng, d: &Normal<f64>, fixed: f64| match p.times {
            Times::Uniform => fixed,
            Times::Random => d.sample(rng).max(1.0),
        };
        let maps: Vec<f64> = (0..nm).map(|_| draw(&mut rng, &map_t, 10.0)).collect();
        let reds: Vec<f64> = (0..nr).map(|_| draw(&mut rng, &red_t, 15.0)).collect();
        let w = weight.sample(&mut rng).max(1.0);
        let tw: Vec<f64> = if p.task_weights {
            (0..nm + nr)
                .map(|_| weight.sample(&mut rng).max(1.0))
                .collect()
        } else {
            Vec::new()
        };
        tasks += nm + nr;
        specs.push((arrival, maps, reds, w, tw));
    }
    if p.unit_weights != UnitWeights::Random {
        let work: Vec<f64> = specs.iter().map(|s| s.1.iter().chain(&s.2).sum()).collect();
        let mut uw: Vec<f64> = specs.iter().zip(&work).map(|(s, w)| s.3 / w).collect();
        uw.sort_by(|a, b| a.total_cmp(b));
        if p.unit_weights == UnitWeights::Decreasing {
            uw.reverse();
        }
        for (i, s) in specs.iter_mut().enumerate() {
            s.3 = uw[i] * work[i];
        }
    }
    for (i, (arrival, maps, reds, w, tw)) in specs.into_iter().enumerate() {
        let j = b.explicit_job(
            format!("msjo-{i}"),
            Time::from_secs_f64(arrival),
            &maps,
            &reds,
            w,
        );
        j.shuffle_delay_factor = p.delay_factor;
        if !tw.is_empty() {
            j.task_weights = Some(tw);
        }
    }
    b.build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let w = msjo(3, &MsjoParams::default());
        assert_eq!(w.jobs.len(), 100);
        let maps: usize = w.jobs.iter().map(|j| j.maps.len()).sum();
        // Poisson(30) maps: mean 30 per job, sd of the total ~55.
        assert!((2700..3300).contains(&maps), "{maps}");
        assert!(w
            .jobs
            .iter()
            .all(|j| !j.reduces.is_empty() && j.reduces.len() <= j.maps.len()));
        assert!(w
            .jobs
            .iter()
            .all(|j| j.weight >= 1.0 && j.shuffle_delay_factor == 0.2));
        // Bernoulli(1/2) per second: about 200 s for 100 jobs.
        let last = w.jobs.last().unwrap().arrival.as_secs_f64();
        assert!((140.0..280.0).contains(&last), "{last}");
        assert_eq!(msjo(3, &MsjoParams::default()), w);

        let u = msjo(
            3,
            &MsjoParams {
                counts: Counts::Uniform,
                times: Times::Uniform,
                ..Default::default()
            },
        );
        assert!(u
            .jobs
            .iter()
            .all(|j| j.maps.len() == 30 && j.reduces.len() == 10));
        assert!(u.jobs[0]
            .maps
            .iter()
            .all(|m| m.time == Some(Time::from_secs(10))));

        let t = msjo(
            3,
            &MsjoParams {
                max_tasks: Some(250),
                task_weights: true,
                ..Default::default()
            },
        );
        let n: usize = t.jobs.iter().map(|j| j.maps.len() + j.reduces.len()).sum();
        assert_eq!(n, 250);
        assert!(t
            .jobs
            .iter()
            .all(|j| j.task_weights.as_ref().unwrap().len() == j.maps.len() + j.reduces.len()));
    }

    #[test]
    fn unit_weight_orders() {
        for (cat, inc) in [
            (UnitWeights::Increasing, true),
            (UnitWeights::Decreasing, false),
        ] {
            let w = msjo(
                5,
                &MsjoParams {
                    jobs: 30,
                    unit_weights: cat,
                    ..Default::default()
                },
            );
            let uw: Vec<f64> = w
                .jobs
                .iter()
                .map(|j| {
                    let work: f64 = j
                        .maps
                        .iter()
                        .map(|m| m.time.unwrap().as_secs_f64())
                        .sum::<f64>()
                        + j.reduces
                            .iter()
                            .map(|r| r.time.unwrap().as_secs_f64())
                            .sum::<f64>();
                    j.weight / work
                })
                .collect();
            for p in uw.windows(2) {
                assert!(
                    if inc {
                        p[0] <= p[1] + 1e-9
                    } else {
                        p[0] + 1e-9 >= p[1]
                    },
                    "{uw:?}"
                );
            }
        }
    }
}
