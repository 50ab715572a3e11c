//! Shared assignment helpers: serve jobs in an order a policy computed.
//!
//! Most policies reduce to "walk the jobs in my order and give the slot to
//! the first one that has a suitable task": FIFO (priority, submit time),
//! fair sharing (furthest below its share first), FLEX (its epoch targets),
//! RTMR (EDF). This module does that walk once, for maps with optional delay
//! scheduling and for reduces, so policies only differ in their order.

use crate::delay::DelayScheduler;
use mrsched_model::{JobId, Locality, NodeId};
use mrsched_state::{ClusterState, Launch, StateEvent};
use std::collections::BTreeSet;

/// A job order fixed when each job is admitted (FIFO's priority and submit
/// time, EDF's absolute goal): jobs enter under their key on admission and
/// leave when they end; ties go to the lower job id.
#[derive(Debug)]
pub struct KeyedOrder<K> {
    jobs: BTreeSet<(K, JobId)>,
    key: fn(&ClusterState, JobId) -> K,
}

impl<K: Ord + Copy> KeyedOrder<K> {
    /// An empty order keyed by `key`.
    pub fn new(key: fn(&ClusterState, JobId) -> K) -> KeyedOrder<K> {
        KeyedOrder {
            jobs: BTreeSet::new(),
            key,
        }
    }

    /// Follow admissions and job ends.
    pub fn on_event(&mut self, st: &ClusterState, ev: &StateEvent) {
        match ev {
            StateEvent::JobAdmitted(j) => {
                self.jobs.insert(((self.key)(st, *j), *j));
            }
            StateEvent::JobEnded(j) => {
                self.jobs.remove(&((self.key)(st, *j), *j));
            }
            _ => {}
        }
    }

    /// Active jobs in order.
    pub fn order(&self) -> impl Iterator<Item = JobId> + '_ {
        self.jobs.iter().map(|k| k.1)
    }

    /// The first job in order with a task for a free slot of `node`: its
    /// most local map, else a reduce (no waiting for locality).
    pub fn assign(&self, st: &ClusterState, node: NodeId) -> Option<Launch> {
        first_map(st, node, self.order(), None).or_else(|| first_reduce(st, node, self.order()))
    }
}

/// The first map launch for `node` from `order`, most local task of the
/// first job that has one within its allowed level. Without a delay
/// scheduler every job may go off-rack.
pub fn first_map(
    st: &ClusterState,
    node: NodeId,
    order: impl IntoIterator<Item = JobId>,
    mut delay: Option<&mut DelayScheduler>,
) -> Option<Launch> {
    if st.free_map_slots(node) == 0 {
        return None;
    }
    // Nothing pending anywhere: no job has a task (a delay scheduler still
    // sees every job, it ends their waits).
    if delay.is_none() && st.pending_maps_total() == 0 {
        return None;
    }
    for j in order {
        let found = match delay.as_deref_mut() {
            Some(d) => d.pick(st, j, node),
            None => st.find_map_task(j, node, Locality::OffRack),
        };
        if let Some((t, _)) = found {
            return Some(Launch::map(j, t));
        }
    }
    None
}

/// The first reduce launch for `node` from `order`. Under copy-compute
/// splitting a job skips nodes where it already has as many reducers
/// copying as the node has compute slots ([`ccs_copy_cap_ok`]).
pub fn first_reduce(
    st: &ClusterState,
    node: NodeId,
    order: impl IntoIterator<Item = JobId>,
) -> Option<Launch> {
    if st.free_reduce_slots(node) == 0 || st.launchable_reduces_total() == 0 {
        return None;
    }
    order.into_iter().find_map(|j| {
        let t = st.next_pending_reduce(j)?;
        ccs_copy_cap_ok(st, j, node).then(|| Launch::reduce(j, t))
    })
}

/// Copy-compute splitting's per-job cap (seed 002 §5.2): "each job can only
/// have maxComputing reduces performing copies on each node", maxComputing
/// being the node's reduce slots. Reducers that finished copying but wait
/// for a compute slot count too: the paper lets a job launch more only
/// "when its reducers begin computing". Always true without copy-compute
/// splitting.
pub fn ccs_copy_cap_ok(st: &ClusterState, job: JobId, node: NodeId) -> bool {
    if !st.copy_compute_splitting() {
        return true;
    }
    let cap = st.cluster().nodes[node.idx()].reduce_slots();
    let not_computing = st
        .attempts_on(node)
        .filter(|a| {
            a.job == job
                && a.kind == mrsched_model::TaskKind::Reduce
                && a.phase != mrsched_state::ReducePhase::Computing
        })
        .count() as u32;
    not_computing < cap
}

/// Jobs ordered by how far they are below a target number of running tasks:
/// `running / target` ascending (a job with target 0 comes last), ties by id.
/// This is the fair-sharing order of seed 002 and the target order FLEX's
/// allocations are honoured with.
pub fn by_deficit(targets: &[(JobId, f64)], running: impl Fn(JobId) -> u32) -> Vec<JobId> {
    let mut v: Vec<(f64, JobId)> = targets
        .iter()
        .map(|&(j, t)| {
            let r = running(j) as f64;
            let key = if t > 0.0 { r / t } else { f64::INFINITY };
            (key, j)
        })
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    v.into_iter().map(|(_, j)| j).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{data_job, state_with};

    #[test]
    fn ccs_caps_copying_reducers_per_job_and_node() {
        // One node with 2 reduce slots (maxComputing) and 6 reducers
        // (maxReducers).
        let c = "reduce_slowstart = 0.0\n[[nodes]]\nmap_slots = 1\nreduce_slots = 2\nmax_reducers = 6\n";
        for ccs in [false, true] {
            let mut st = state_with(c, &[vec![0], vec![0]]);
            st.set_copy_compute_splitting(ccs);
            let a = st.submit(data_job(2, 5));
            let b = st.submit(data_job(2, 5));
            st.admit(a).unwrap();
            st.admit(b).unwrap();
            let n = NodeId(0);
            let mut launched = Vec::new();
            while let Some(l) = first_reduce(&st, n, [a, b]) {
                st.launch(n, &l).unwrap();
                launched.push(l.job());
            }
            if ccs {
                // Job a copies on 2 reducers, then job b gets 2 more; two of
                // the six reducer places stay free for other jobs.
                assert_eq!(launched, vec![a, a, b, b]);
                assert_eq!(st.free_reduce_slots(n), 2);
            } else {
                // Without splitting, a hoards both reduce slots.
                assert_eq!(launched, vec![a, a]);
            }
        }
    }
}
