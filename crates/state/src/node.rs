//! A node's live state: liveness, slot use, capacity taken by other
//! workloads (the hot part, [`NodeSlots`]), and the rest: running attempts,
//! reducers waiting to compute, map outputs held ([`NodeState`]). The
//! intermediate data a node holds is a dense array of the cluster state's
//! (`ClusterState::intermediate_on`).

use mrsched_model::{AttemptId, JobId};
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;
use std::collections::VecDeque;

/// Running attempts a node keeps inline, beside its counters: a task's
/// launch and end touch the list, and a separate allocation per node was a
/// cache miss of its own on both (nodes with more slots spill to the heap).
pub const INLINE_ATTEMPTS: usize = 12;

/// A node's slots: what it has, what runs on it and what other workloads
/// take, and whether it is alive. Every heartbeat and every wake-up reads
/// these, so they live apart from the rest of the node's state
/// ([`NodeState`]): 36 bytes a node, where the rest is 200, so
/// a 3000-node cluster's fit in a core's L2 cache and a heartbeat's check
/// reads one line, not two.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct NodeSlots {
    /// Heartbeating.
    pub alive: bool,
    /// Running map attempts.
    pub running_maps: u32,
    /// Running reduce attempts (copying, waiting or computing).
    pub running_reduces: u32,
    /// Map slots taken by other workloads now (unified: slots).
    pub taken_map: u32,
    /// Reduce slots taken by other workloads now (unified: same as map).
    pub taken_reduce: u32,
    /// Map slots (the cluster description's).
    pub(crate) map: u32,
    /// Reduce slots.
    pub(crate) reduce: u32,
    /// Slots of either kind (unified nodes).
    pub(crate) total: u32,
    /// Reducers allowed at once under copy-compute splitting.
    pub(crate) max_reducers: u32,
    /// One pool of slots for both kinds.
    pub(crate) unified: bool,
}

/// The state of one node, but for its slots ([`NodeSlots`]).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct NodeState {
    /// Reduce attempts in their compute phase.
    pub computing_reduces: u32,
    /// Running attempts in launch order.
    pub attempts: SmallVec<[AttemptId; INLINE_ATTEMPTS]>,
    /// Reducers whose copy is done, waiting to compute (FIFO).
    pub waiting_compute: VecDeque<AttemptId>,
    /// Map outputs stored here: `(job, map)`; stale entries are skipped,
    /// and dropped when the list has doubled since it was last compacted.
    pub(crate) outputs: Vec<(JobId, u32)>,
    /// Length of `outputs` after its last compaction.
    #[serde(skip)]
    pub(crate) outputs_compacted: usize,
    /// The jobs whose outputs are held here, ascending, each with how many
    /// it holds: the distinct holders without a pass over `outputs`, which
    /// on a full disk lists thousands (an eviction's victim search runs
    /// at every refusal).
    #[serde(skip)]
    pub(crate) holders: Vec<(JobId, u32)>,
}

impl NodeState {
    /// One more output of job `j` is held here.
    #[inline]
    pub(crate) fn hold(&mut self, j: JobId) {
        match self.holders.binary_search_by_key(&j, |h| h.0) {
            Ok(i) => self.holders[i].1 += 1,
            Err(i) => self.holders.insert(i, (j, 1)),
        }
    }

    /// One output of job `j` held here is gone.
    #[inline]
    pub(crate) fn unhold(&mut self, j: JobId) {
        if let Ok(i) = self.holders.binary_search_by_key(&j, |h| h.0) {
            self.holders[i].1 -= 1;
            if self.holders[i].1 == 0 {
                self.holders.remove(i);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A heartbeat's checks read one node's slots: 36 bytes, so a
    /// 3000-node cluster's are 108 KB, within a core's L2 cache beside
    /// everything else a heartbeat reads.
    #[test]
    fn node_slots_stay_small() {
        assert_eq!(std::mem::size_of::<NodeSlots>(), 36);
    }
}
