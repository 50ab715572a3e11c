//! Worst-case task-time estimates learned from finished jobs (seed 004
//! §IV.A).
//!
//! Three parameters are learned as running maxima after every finished job:
//!
//! * delta = max(delta, sigma_r / sigma): intermediate over input size;
//! * c_m^max = max(c_m^max, tau_i^m / sigma_i^m over the job's maps);
//! * c_r^max = max(c_r^max, tau_i^r / sigma_i^r over the job's reduces).
//!
//! A map task of J is then estimated at c_m^max x max_i sigma_i^m (its
//! largest split, Algorithm II line 1) and a reduce task at c_r^max x
//! max_i sigma_i^r (Algorithm III line 2). The reduce partitions are not
//! known at admission; keys are spread evenly in our workloads (and in
//! loadgen), so sigma_i^r = delta x sigma / R [prior-work §7, INFERRED].
//! Observed times are the successful attempts' start-to-finish times the
//! cluster state records per task; a reduce's time includes its copy phase,
//! so c_r^max covers the shuffle as the paper's "retrieving and processing".
//! The paper does not say where the parameters start: they start at
//! configurable priors (from history, e.g. a profiling run) and only grow.

use super::job::{split_units, RtJob};
use mrsched_model::{cost, Time};
use mrsched_state::{Job, TaskStatus};

/// The learned parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimator {
    /// delta: largest intermediate / input ratio seen.
    pub delta: f64,
    /// c_m^max: largest map seconds per input MB seen.
    pub map_s_per_mb: f64,
    /// c_r^max: largest reduce seconds per partition MB seen.
    pub reduce_s_per_mb: f64,
    map_time_sum: f64,
    map_time_count: u64,
}

/// Round seconds up to the microsecond, so that an estimate is never below
/// the value it bounds because of rounding.
pub fn secs_ceil(s: f64) -> Time {
    if s.is_nan() || s <= 0.0 {
        return Time::ZERO;
    }
    let us = (s * 1e6).ceil();
    if us >= u64::MAX as f64 {
        Time::MAX
    } else {
        Time(us as u64)
    }
}

impl Estimator {
    /// Start from priors.
    pub fn new(delta: f64, map_s_per_mb: f64, reduce_s_per_mb: f64) -> Estimator {
        Estimator {
            delta,
            map_s_per_mb,
            reduce_s_per_mb,
            map_time_sum: 0.0,
            map_time_count: 0,
        }
    }

    /// tau~_m: the estimated (worst-case) time of one of J's maps.
    pub fn map_task(&self, job: &RtJob) -> Time {
        secs_ceil(self.map_s_per_mb * job.max_split_mb)
    }

    /// sigma_i^r: the estimated partition of one of J's reduces, MB.
    pub fn reduce_partition_mb(&self, job: &RtJob) -> f64 {
        if job.reduces == 0 {
            0.0
        } else {
            self.delta * job.input_mb / job.reduces as f64
        }
    }

    /// tau~_r: the estimated (worst-case) time of one of J's reduces.
    pub fn reduce_task(&self, job: &RtJob) -> Time {
        secs_ceil(self.reduce_s_per_mb * self.reduce_partition_mb(job))
    }

    /// The mean observed map time, seconds (the "typical map task time"
    /// that sets the feedback threshold), once a map has been observed.
    pub fn typical_map(&self) -> Option<Time> {
        (self.map_time_count > 0)
            .then(|| Time::from_secs_f64(self.map_time_sum / self.map_time_count as f64))
    }

    /// Learn from a finished job (seed 004 §IV.A's three update equations).
    /// sigma_r is the job's intermediate size, the sum of its map outputs
    /// (Hadoop's map-output-bytes counter).
    pub fn learn(&mut self, job: &Job) {
        let sigma: f64 = job.spec.maps.iter().map(|m| split_units(m.input_mb)).sum();
        let sigma_r = cost::job_output_mb(&job.spec);
        if sigma > 0.0 && !job.reduces.is_empty() {
            self.delta = self.delta.max(sigma_r / sigma);
        }
        for (t, m) in job.maps.iter().zip(&job.spec.maps) {
            if t.status != TaskStatus::Done {
                continue;
            }
            let tau = (t.finish - t.start).as_secs_f64();
            self.map_s_per_mb = self.map_s_per_mb.max(tau / split_units(m.input_mb));
            self.map_time_sum += tau;
            self.map_time_count += 1;
        }
        let part = cost::partition_mb(&job.spec);
        if part > 0.0 {
            for t in job.reduces.iter().filter(|t| t.status == TaskStatus::Done) {
                let tau = (t.finish - t.start).as_secs_f64();
                self.reduce_s_per_mb = self.reduce_s_per_mb.max(tau / part);
            }
        }
    }

    /// Learn from every succeeded job of a finished run (history).
    pub fn learn_all<'a>(&mut self, jobs: impl IntoIterator<Item = &'a Job>) {
        for j in jobs {
            if j.status == mrsched_state::JobStatus::Succeeded {
                self.learn(j);
            }
        }
    }
}
