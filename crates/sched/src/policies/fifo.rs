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

use crate::assign::KeyedOrder;
use crate::config::{PolicyInfo, Preset, SchedulerConfig};
use crate::scheduler::Scheduler;
use mrsched_model::{Cluster, InputErrors, JobId, NodeId, Priority, Time};
use mrsched_state::{ClusterState, Launch, StateEvent};
use serde::Deserialize;
use std::cmp::Reverse;

/// FIFO's options.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct FifoOptions {
    /// Run copy-compute splitting on the nodes.
    #[serde(default)]
    copy_compute_splitting: bool,
}

/// The FIFO scheduler.
#[derive(Debug)]
pub struct Fifo {
    order: KeyedOrder<(Reverse<Priority>, Time)>,
    ccs: bool,
}

impl Default for Fifo {
    fn default() -> Fifo {
        Fifo {
            order: KeyedOrder::new(Fifo::key),
            ccs: false,
        }
    }
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

    fn key(st: &ClusterState, j: JobId) -> (Reverse<Priority>, Time) {
        let job = st.job(j);
        (Reverse(job.spec.priority), job.submitted)
    }

    /// Jobs in service order.
    pub fn order(&self) -> impl Iterator<Item = JobId> + '_ {
        self.order.order()
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
        self.order.on_event(st, ev);
    }

    fn assign(&mut self, st: &ClusterState, node: NodeId) -> Option<Launch> {
        self.order.assign(st, node)
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
