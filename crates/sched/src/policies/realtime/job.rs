//! A real-time job as the admission controllers see it: seed 004's
//! J = (A, D, M, R, sigma) with the input split sizes sigma_i^m.

use mrsched_model::{JobId, JobSpec, Time};
use mrsched_state::ClusterState;

/// The size a split counts for when a map reads no data (data-less maps
/// with explicit times): one unit, so that c_m^max becomes "seconds per
/// task" for such jobs. Mixing data-less and data-reading jobs under one
/// learned c_m^max is therefore pessimistic for the latter.
pub const EMPTY_SPLIT_UNITS: f64 = 1.0;

/// J = (A, D, M, R, sigma) plus the largest split.
#[derive(Clone, Debug, PartialEq)]
pub struct RtJob {
    /// The job.
    pub id: JobId,
    /// A: arrival.
    pub arrival: Time,
    /// A + D: the absolute deadline (`Time::MAX` for a job without one,
    /// which EDF serves last and which never misses).
    pub deadline: Time,
    /// M: map tasks.
    pub maps: u32,
    /// R: reduce tasks.
    pub reduces: u32,
    /// sigma: input size, MB (sum of the splits).
    pub input_mb: f64,
    /// max_i sigma_i^m: the largest split, MB.
    pub max_split_mb: f64,
}

impl RtJob {
    /// From a job spec submitted at `arrival`.
    pub fn from_spec(id: JobId, spec: &JobSpec, arrival: Time) -> RtJob {
        let splits = spec.maps.iter().map(|m| split_units(m.input_mb));
        let (sum, max) = splits.fold((0.0, 0.0f64), |(s, m), x| (s + x, m.max(x)));
        RtJob {
            id,
            arrival,
            deadline: spec
                .deadline
                .map_or(Time::MAX, |d| arrival.saturating_add(d)),
            maps: spec.maps.len() as u32,
            reduces: spec.reduces.len() as u32,
            input_mb: sum,
            max_split_mb: max,
        }
    }

    /// From the cluster state (the job must exist).
    pub fn from_state(st: &ClusterState, j: JobId) -> RtJob {
        let job = st.job(j);
        RtJob::from_spec(j, &job.spec, job.submitted)
    }

    /// Whether the job has a deadline.
    pub fn has_deadline(&self) -> bool {
        self.deadline != Time::MAX
    }
}

/// A split's size in the units c_m is learned in (MB, or one unit for a
/// data-less map).
pub fn split_units(input_mb: f64) -> f64 {
    if input_mb > 0.0 {
        input_mb
    } else {
        EMPTY_SPLIT_UNITS
    }
}
