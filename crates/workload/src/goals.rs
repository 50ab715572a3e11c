//! Jobs with completion-time goals (seed 003's experiments).
//!
//! The paper's workload is not available (prior work §1.5 [NOT FOUND]); this
//! generator is our stand-in, following the suggestion there: Poisson
//! arrivals, map-only jobs whose sizes spread over two orders of magnitude
//! (log-uniform), and goals a multiple of each job's time alone. Maps are
//! data-less with explicit times (the job's mean time, each map within
//! `±task_spread` of it), so that only scheduling, not locality, decides when
//! jobs finish; each job's profile (`expected_map_s`) is its mean map time
//! plus the cluster's task start-up cost (what an attempt takes there).
//!
//! A job's time alone is its ideal time on the given cluster with nothing
//! else running and no other workload (`cost::ideal_time`: the longest map or
//! the map work over all map slots, whichever is larger); its goal is
//! `factor x time alone` with `factor` uniform in `goal_factor`. A fraction
//! `best_effort` of the jobs has no goal.

use crate::build::WorkloadBuilder;
use mrsched_model::{cost, rng, Cluster, Time, Workload};
use rand::Rng as _;
use rand_distr::{Distribution, Exp};

/// Generator parameters.
#[derive(Clone, Debug)]
pub struct GoalMixParams {
    /// Number of jobs.
    pub jobs: usize,
    /// Mean inter-arrival time, seconds (Poisson arrivals).
    pub mean_interarrival_s: f64,
    /// First arrival no earlier than this, seconds.
    pub start_s: f64,
    /// Maps per job, log-uniform in this range.
    pub maps: (u32, u32),
    /// Mean map time of a job, seconds, uniform in this range.
    pub map_time_s: (f64, f64),
    /// Each map's time is within `±task_spread` (a fraction) of its job's
    /// mean.
    pub task_spread: f64,
    /// Goal = factor x time alone, factor uniform in this range.
    pub goal_factor: (f64, f64),
    /// Fraction of jobs without a goal (best effort).
    pub best_effort: f64,
}

impl Default for GoalMixParams {
    /// 300 jobs, one a minute on average, 50-1,000 maps of 30-120 s: about
    /// 40% of an 800-slot cluster.
    fn default() -> Self {
        GoalMixParams {
            jobs: 300,
            mean_interarrival_s: 60.0,
            start_s: 0.0,
            maps: (50, 1000),
            map_time_s: (30.0, 120.0),
            task_spread: 0.25,
            goal_factor: (2.0, 4.0),
            best_effort: 0.2,
        }
    }
}

/// Generate the workload; goals refer to `cluster` (see the module doc).
pub fn goal_mix(seed: u64, p: &GoalMixParams, cluster: &Cluster) -> Workload {
    let mut rng = rng::stream(seed, "workload:goal-mix");
    let exp = Exp::new(1.0 / p.mean_interarrival_s.max(1e-9)).expect("positive mean");
    let (lo, hi) = (p.maps.0.max(1) as f64, p.maps.1.max(p.maps.0).max(1) as f64);
    let mut b = WorkloadBuilder::new("goal-mix");
    let mut t = p.start_s.max(0.0);
    let slots = cost::SlotTotals::of(cluster);
    for i in 0..p.jobs {
        t += exp.sample(&mut rng);
        let maps = (lo * (hi / lo).powf(rng.random::<f64>())).round().max(1.0) as usize;
        let mean = rng.random_range(p.map_time_s.0..=p.map_time_s.1.max(p.map_time_s.0));
        let spread = p.task_spread.clamp(0.0, 0.99);
        let times: Vec<f64> = (0..maps)
            .map(|_| mean * (1.0 + spread * (2.0 * rng.random::<f64>() - 1.0)))
            .collect();
        let factor = rng.random_range(p.goal_factor.0..=p.goal_factor.1.max(p.goal_factor.0));
        let best_effort = rng.random::<f64>() < p.best_effort;
        let j = b.explicit_job(
            format!("goal-{i}"),
            Time::from_secs_f64(t),
            &times,
            &[],
            1.0,
        );
        j.user = format!("user{}", i % 10);
        // The profile: a map attempt's mean time on this cluster.
        j.expected_map = Some(Time::from_secs_f64(mean) + cluster.task_overhead);
        if !best_effort {
            let alone = cost::ideal_time_with(cluster, j, slots);
            j.goal = Some(alone.scale(factor).max(Time::from_secs(1)));
        }
    }
    b.build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goals_are_multiples_of_time_alone() {
        let c = Cluster::from_toml_str("c", "[[nodes]]\ncount = 10\nmap_slots = 4\n").unwrap();
        let p = GoalMixParams {
            jobs: 200,
            ..Default::default()
        };
        let w = goal_mix(3, &p, &c);
        assert_eq!(w.jobs.len(), 200);
        let with_goal = w.jobs.iter().filter(|j| j.goal.is_some()).count();
        // 20% best effort: 160 expected, sd ~5.7.
        assert!((135..=185).contains(&with_goal), "{with_goal}");
        for j in &w.jobs {
            assert!((50..=1000).contains(&j.maps.len()));
            assert!(j.reduces.is_empty());
            // No start-up cost on this cluster: the profile is the mean.
            let mean = j.expected_map.unwrap().as_secs_f64();
            assert!((30.0..=120.0).contains(&mean));
            for m in &j.maps {
                let s = m.time.unwrap().as_secs_f64();
                assert!(s >= mean * 0.75 - 1e-6 && s <= mean * 1.25 + 1e-6);
            }
            if let Some(g) = j.goal {
                let k = g.as_secs_f64() / cost::ideal_time(&c, j).as_secs_f64();
                assert!((1.999..=4.001).contains(&k), "{k}");
            }
        }
        assert_eq!(goal_mix(3, &p, &c), w);
    }
}
