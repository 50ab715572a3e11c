//! MarS, T-MarS and their baselines (seed 001, Ling et al., JPDC 2016):
//! joint scheduling of MapReduce jobs with server assignment.
//!
//! Why a planner: MSJO (§3) is an offline problem on identical machines
//! (the simulator's unified slots) with known task times, release times,
//! weights and map -> reduce delays. Every algorithm of the paper computes
//! a whole schedule (task -> machine, start times) up front; the policy
//! turns it into a [`Plan`] of per-node queues and the assignment layer is
//! [`PlanFollower::next`], so the same plan runs in the simulator and on a
//! live cluster. Planned idle time is not enforced (a task starts as soon as
//! its node is free and its inputs are ready), except for T-MarS's analysed
//! intervals, whose floors are part of the algorithm.
//!
//! * [`coge`]: the LP relaxation (1)-(4) and COGE (Algorithm 1); its value
//!   is the lower bound every run reports ([`lower_bound`]).
//! * [`listsched`]: MarS (Algorithm 2), T-MarS's intervals with Graham list
//!   scheduling (Algorithm 3), and the list rules of the baselines.
//! * [`improve`]: `mars+ls` (ours, beyond the paper): a local search over
//!   MarS's list order and machine rule, bounded by an evaluation count.
//! * [`tasklp`]: completion-time LPs for T-MarS (11)-(13) and MARES.
//! * [`planner`]: every algorithm as instance -> schedule.
//! * [`instance`]: the MSJO instance, from a workload or from the state.
//! * [`lp`]: the LP backend (microlp) and sparse prefix cuts.
//! * [`classes`]: interchangeable tasks share one LP variable (exact).
//!
//! Modes: offline (the driver announces the job set, one plan), semi-online
//! SO-MarS (`batch_interval_s`: every interval, plan what has arrived and is
//! not done), or, without either, a new plan at every arrival.
//! `prediction_error` plans on noisy times while tasks run their true times.

pub mod capacity;
pub mod classes;
pub mod coge;
#[cfg(feature = "highs")]
pub mod highs_backend;
pub mod improve;
pub mod instance;
pub mod listsched;
pub mod lp;
pub mod planner;
mod policy;
pub mod tasklp;

pub use policy::{info, presets, FollowerOpt, Msjo, MsjoOptions};

use coge::{CogeOptions, Relaxation};
use instance::Instance;
use lp::LpError;
use mrsched_model::{Cluster, TaskKind, Workload};
use mrsched_state::ClusterState;

/// Largest instance the lower bound is computed for with microlp: COGE
/// takes about 1 s at 800 random-time tasks and 17 s at 1,600
/// (docs/policies/msjo.md, Performance).
pub const LOWER_BOUND_MAX_TASKS: usize = 1_200;

/// The same limit with HiGHS: about 8.5 s at 4,000 random-time tasks.
pub const LOWER_BOUND_MAX_TASKS_HIGHS: usize = 5_000;

/// The task limit of [`lower_bound`] for the LP solver of this build.
pub fn lower_bound_max_tasks() -> usize {
    if lp::default_backend_name() == "HiGHS" {
        LOWER_BOUND_MAX_TASKS_HIGHS
    } else {
        LOWER_BOUND_MAX_TASKS
    }
}

/// The LP lower bound on total weighted job completion time of `workload`
/// on `cluster` (COGE with epsilon 0.3), or `None` when a task has no
/// explicit time or the workload has more than
/// [`lower_bound_max_tasks`] tasks. Valid for any scheduler: machines are
/// the cluster's slots and task times their fastest-node times.
pub fn lower_bound(workload: &Workload, cluster: &Cluster) -> Option<Result<Relaxation, LpError>> {
    let inst = Instance::from_workload(workload, cluster)?;
    if inst.tasks.len() > lower_bound_max_tasks() || inst.machines == 0 {
        return None;
    }
    Some(coge::coge(&inst, &CogeOptions::default()))
}

/// Total weighted task completion time of a finished run (task weights
/// from the job specs), seconds; tasks that did not finish are skipped.
pub fn twtct(st: &ClusterState) -> f64 {
    let mut sum = 0.0;
    for job in st.jobs() {
        for (kind, tasks) in [(TaskKind::Map, &job.maps), (TaskKind::Reduce, &job.reduces)] {
            for (i, t) in tasks.iter().enumerate() {
                if t.status == mrsched_state::TaskStatus::Done {
                    sum += job.spec.task_weight(kind, i) * t.finish.as_secs_f64();
                }
            }
        }
    }
    sum
}

#[cfg(test)]
mod tests;
