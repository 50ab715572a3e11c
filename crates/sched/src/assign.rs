//! Shared assignment helpers: serve jobs in an order a policy computed.
//!
//! Most policies reduce to "walk the jobs in my order and give the slot to
//! the first one that has a suitable task": FIFO (priority, submit time),
//! fair sharing (furthest below its share first), FLEX (its epoch targets),
//! RTMR (EDF). This module does that walk once, for maps with optional delay
//! scheduling and for reduces, so policies only differ in their order.

use crate::delay::DelayScheduler;
use mrsched_model::{JobId, Locality, NodeId};
use mrsched_state::{ClusterState, Launch};

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

/// The first reduce launch for `node` from `order`.
pub fn first_reduce(
    st: &ClusterState,
    node: NodeId,
    order: impl IntoIterator<Item = JobId>,
) -> Option<Launch> {
    if st.free_reduce_slots(node) == 0 {
        return None;
    }
    order
        .into_iter()
        .find_map(|j| st.next_pending_reduce(j).map(|t| Launch::reduce(j, t)))
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
