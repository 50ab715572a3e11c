//! Earliest goal first (EDF): a baseline for the goal-driven policies.
//!
//! Why it exists: the Adaptive Scheduler and Reverse-Adaptive (seed 003)
//! claim to meet completion-time goals; FIFO ignores goals, so beating it
//! says little. EDF is the classic goal-aware list order, and the bar the
//! adaptive family is measured against in `adaptive-exp1..3` (ours, not in
//! the paper). A free slot goes to the active job with the earliest
//! absolute goal (arrival + `goal_s`) that has a task of the slot's kind;
//! jobs without a goal come after every goal job, in arrival order; ties by
//! arrival, then job id. It is work-conserving (a slot is never left idle
//! while some job has a task for it), never preempts, and takes each job's
//! most local pending map, as FIFO does.

use crate::assign::KeyedOrder;
use crate::config::{PolicyInfo, Preset, SchedulerConfig};
use crate::scheduler::Scheduler;
use mrsched_model::{Cluster, InputErrors, JobId, NodeId, Time};
use mrsched_state::{ClusterState, Launch, StateEvent};
use serde::Deserialize;

/// EDF has no options (the table, if present, must be empty).
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct EdfOptions {}

/// The EDF scheduler.
#[derive(Debug)]
pub struct Edf {
    order: KeyedOrder<(Time, Time)>,
}

impl Default for Edf {
    fn default() -> Edf {
        Edf {
            order: KeyedOrder::new(Edf::key),
        }
    }
}

impl Edf {
    /// An EDF scheduler.
    pub fn new() -> Edf {
        Edf::default()
    }

    /// Service key: absolute goal (best effort: after every goal), then
    /// submission (then id).
    fn key(st: &ClusterState, j: JobId) -> (Time, Time) {
        let job = st.job(j);
        (job.spec.abs_goal().unwrap_or(Time::MAX), job.submitted)
    }

    /// Active jobs in service order.
    pub fn order(&self) -> impl Iterator<Item = JobId> + '_ {
        self.order.order()
    }
}

impl Scheduler for Edf {
    fn name(&self) -> String {
        "edf".into()
    }

    fn on_event(&mut self, st: &ClusterState, ev: &StateEvent) {
        self.order.on_event(st, ev);
    }

    fn assign(&mut self, st: &ClusterState, node: NodeId) -> Option<Launch> {
        self.order.assign(st, node)
    }

    /// EDF keeps no state between heartbeats: with nothing pending, a
    /// heartbeat launches nothing and changes nothing.
    fn idle_heartbeats(&self) -> crate::IdleBeats {
        crate::IdleBeats::Never
    }
}

fn build(cfg: &SchedulerConfig, _cluster: &Cluster) -> Result<Box<dyn Scheduler>, InputErrors> {
    let _: EdfOptions = cfg.options()?;
    Ok(Box::new(Edf::new()))
}

/// Registry entry.
pub fn info() -> PolicyInfo {
    PolicyInfo {
        name: "edf",
        about: "Earliest goal first, work-conserving; best-effort jobs after goal jobs by arrival (baseline, ours)",
        build,
    }
}

/// Presets.
pub fn presets() -> Vec<Preset> {
    vec![Preset {
        name: "edf",
        about: "Earliest completion-time goal first, work-conserving (baseline for the adaptive family, ours)",
        toml: "policy = \"edf\"\n",
    }]
}
