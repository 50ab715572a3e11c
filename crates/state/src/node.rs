//! A node's live state: liveness, slot use, capacity taken by other
//! workloads, intermediate data held.

use mrsched_model::{AttemptId, JobId};
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;
use std::collections::VecDeque;

/// Running attempts a node keeps inline, beside its counters: a task's
/// launch and end touch the list, and a separate allocation per node was a
/// cache miss of its own on both (nodes with more slots spill to the heap).
pub const INLINE_ATTEMPTS: usize = 12;

/// The state of one node.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct NodeState {
    /// Heartbeating.
    pub alive: bool,
    /// Running map attempts.
    pub running_maps: u32,
    /// Running reduce attempts (copying, waiting or computing).
    pub running_reduces: u32,
    /// Reduce attempts in their compute phase.
    pub computing_reduces: u32,
    /// Map slots taken by other workloads now (unified: slots).
    pub taken_map: u32,
    /// Reduce slots taken by other workloads now (unified: same as map).
    pub taken_reduce: u32,
    /// Intermediate data held, MB.
    pub intermediate_mb: f64,
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
