//! The locality index: which pending map tasks of a job have data on a node
//! or a rack.
//!
//! Like Hadoop's `nonRunningMapCache`, each job keeps, per node and per rack,
//! a stack of its map tasks with a replica there, plus a stack of all its
//! pending maps. Entries are not removed when a task launches elsewhere;
//! a lookup drops stale entries from the top of the stack as it meets them,
//! so each entry is dropped at most once and a lookup costs amortised O(1).
//! A task that becomes pending again (failure, kill, lost output) is pushed
//! again. Lookups therefore mutate the cache, which lives in a `RefCell`:
//! logically the index is a read-only view of the pending tasks.

use mrsched_model::{NodeId, RackId};
use rustc_hash::FxHashMap;

/// Per-job pending-map lookups.
#[derive(Debug, Default)]
pub struct LocalityIndex {
    /// Tasks with a replica on a node.
    pub(crate) by_node: FxHashMap<NodeId, Vec<u32>>,
    /// Tasks with a replica on a rack.
    pub(crate) by_rack: FxHashMap<RackId, Vec<u32>>,
    /// Every pending task with data.
    pub(crate) any: Vec<u32>,
    /// Pending tasks that read no block.
    pub(crate) nodata: Vec<u32>,
    /// Pending reduces (lowest index on top).
    pub(crate) reduces: Vec<u32>,
}

impl LocalityIndex {
    /// Forget everything (the job ended).
    pub(crate) fn clear(&mut self) {
        *self = LocalityIndex::default();
    }
}

/// Pop stale entries off `stack` and return its top pending task.
#[inline]
pub(crate) fn top_pending(stack: &mut Vec<u32>, is_pending: impl Fn(u32) -> bool) -> Option<u32> {
    while let Some(&t) = stack.last() {
        if is_pending(t) {
            return Some(t);
        }
        stack.pop();
    }
    None
}
