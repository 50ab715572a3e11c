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
}
