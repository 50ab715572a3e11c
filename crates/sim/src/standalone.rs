//! Each job alone on the cluster: the denominator of slowdown.
//!
//! Slowdown compares a job's response time in the shared run with its
//! response time when it is the only job on the same cluster under the same
//! scheduler (seed 002 §5.3). That takes one extra simulation per job, so it
//! is asked for explicitly (`--slowdown`).

use crate::engine::{simulate, SimError, SimOptions};
use mrsched_model::{Cluster, Time, Workload};
use mrsched_sched::Scheduler;
use std::sync::Arc;

/// Response time of every job of `workload` run alone (arrival moved to 0),
/// by job index in arrival order. `make` builds a fresh scheduler per run.
pub fn standalone_times(
    cluster: &Cluster,
    workload: &Workload,
    make: &mut dyn FnMut() -> Box<dyn Scheduler>,
    opts: &SimOptions,
) -> Result<Vec<Option<Time>>, SimError> {
    let mut out = Vec::with_capacity(workload.jobs.len());
    for job in &workload.jobs {
        let mut spec = job.clone();
        Arc::make_mut(&mut spec).arrival = Time::ZERO;
        let alone = Workload {
            name: format!("{} alone", job.name),
            datasets: workload.datasets.clone(),
            jobs: vec![spec],
        };
        let mut sched = make();
        let o = simulate(cluster, &alone, sched.as_mut(), opts)?;
        let j = &o.state.jobs()[0];
        out.push(
            j.finish
                .filter(|_| j.status == mrsched_state::JobStatus::Succeeded)
                .map(|f| f - j.submitted),
        );
    }
    Ok(out)
}
