//! Hadoop's default FIFO scheduler.
//!
//! Jobs are served by priority level, then submit time (seed 002 §2.1): a
//! free slot goes to the first job in that order that has a task of the
//! slot's kind, and for maps, to that job's most local pending task (node,
//! then rack, then anywhere), the locality optimisation of Google's
//! MapReduce. There is no waiting for locality and no preemption.
//!
//! With `copy_compute_splitting = true` (preset `fifo+ccs`) nodes run
//! copy-compute splitting (seed 002 §5.2): more reducers than reduce slots,
//! computing limited to the slots, and at most as many copying reducers per
//! job and node as the node has reduce slots.

use crate::assign::{first_map, first_reduce};
use crate::config::{PolicyInfo, Preset, SchedulerConfig};
use crate::scheduler::Scheduler;
use mrsched_model::{Cluster, InputErrors, JobId, NodeId, Priority, Time};
use mrsched_state::{ClusterState, Launch, StateEvent};
use serde::Deserialize;
use std::cmp::Reverse;
use std::collections::BTreeSet;

/// FIFO's options.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct FifoOptions {
    /// Run copy-compute splitting on the nodes.
    #[serde(default)]
    copy_compute_splitting: bool,
}

/// The FIFO scheduler.
#[derive(Debug, Default)]
pub struct Fifo {
    order: BTreeSet<(Reverse<Priority>, Time, JobId)>,
    ccs: bool,
}

impl Fifo {
    /// A FIFO scheduler.
    pub fn new() -> Fifo {
        Fifo::default()
    }

    /// A FIFO scheduler whose nodes run copy-compute splitting.
    pub fn with_copy_compute_splitting() -> Fifo {
        Fifo {
            ccs: true,
            ..Fifo::default()
        }
    }

    fn key(st: &ClusterState, j: JobId) -> (Reverse<Priority>, Time, JobId) {
        let job = st.job(j);
        (Reverse(job.spec.priority), job.submitted, j)
    }

    /// Jobs in service order.
    pub fn order(&self) -> impl Iterator<Item = JobId> + '_ {
        self.order.iter().map(|k| k.2)
    }
}

impl Scheduler for Fifo {
    fn name(&self) -> String {
        if self.ccs { "fifo+ccs" } else { "fifo" }.into()
    }

    fn copy_compute_splitting(&self) -> bool {
        self.ccs
    }

    fn on_event(&mut self, st: &ClusterState, ev: &StateEvent) {
        match ev {
            StateEvent::JobAdmitted(j) => {
                self.order.insert(Fifo::key(st, *j));
            }
            StateEvent::JobEnded(j) => {
                self.order.remove(&Fifo::key(st, *j));
            }
            _ => {}
        }
    }

    fn assign(&mut self, st: &ClusterState, node: NodeId) -> Option<Launch> {
        first_map(st, node, self.order(), None).or_else(|| first_reduce(st, node, self.order()))
    }

    /// FIFO keeps no state between heartbeats: with nothing pending, a
    /// heartbeat launches nothing and changes nothing.
    fn idle_heartbeats(&self) -> crate::IdleBeats {
        crate::IdleBeats::Never
    }
}

fn build(cfg: &SchedulerConfig, _cluster: &Cluster) -> Result<Box<dyn Scheduler>, InputErrors> {
    let o: FifoOptions = cfg.options()?;
    Ok(Box::new(if o.copy_compute_splitting {
        Fifo::with_copy_compute_splitting()
    } else {
        Fifo::new()
    }))
}

/// Registry entry.
pub fn info() -> PolicyInfo {
    PolicyInfo {
        name: "fifo",
        about: "Hadoop FIFO: priority then submit time, most local map of the head job",
        build,
    }
}

/// Presets.
pub fn presets() -> Vec<Preset> {
    vec![
        Preset {
            name: "fifo",
            about: "Hadoop's default FIFO scheduler",
            toml: "policy = \"fifo\"\n",
        },
        Preset {
            name: "fifo+ccs",
            about: "FIFO with copy-compute splitting (seed 002 §5.2)",
            toml: "policy = \"fifo\"\n[fifo]\ncopy_compute_splitting = true\n",
        },
    ]
}
