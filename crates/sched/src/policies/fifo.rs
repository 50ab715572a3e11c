//! Hadoop's default FIFO scheduler.
//!
//! Jobs are served by priority level, then submit time (seed 002 §2.1): a
//! free slot goes to the first job in that order that has a task of the
//! slot's kind, and for maps, to that job's most local pending task (node,
//! then rack, then anywhere), the locality optimisation of Google's
//! MapReduce. There is no waiting for locality and no preemption.

use crate::assign::{first_map, first_reduce};
use crate::config::{PolicyInfo, Preset, SchedulerConfig};
use crate::scheduler::Scheduler;
use mrsched_model::{Cluster, InputErrors, JobId, NodeId, Priority, Time};
use mrsched_state::{ClusterState, Launch, StateEvent};
use serde::Deserialize;
use std::cmp::Reverse;
use std::collections::BTreeSet;

/// FIFO has no options; the table must be empty.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct FifoOptions {}

/// The FIFO scheduler.
#[derive(Debug, Default)]
pub struct Fifo {
    order: BTreeSet<(Reverse<Priority>, Time, JobId)>,
}

impl Fifo {
    /// A FIFO scheduler.
    pub fn new() -> Fifo {
        Fifo::default()
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
        "fifo".into()
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
}

fn build(cfg: &SchedulerConfig, _cluster: &Cluster) -> Result<Box<dyn Scheduler>, InputErrors> {
    let _: FifoOptions = cfg.options()?;
    Ok(Box::new(Fifo::new()))
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
    vec![Preset {
        name: "fifo",
        about: "Hadoop's default FIFO scheduler",
        toml: "policy = \"fifo\"\n",
    }]
}
