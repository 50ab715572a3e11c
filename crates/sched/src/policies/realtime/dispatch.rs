//! The RTMR dispatcher's reduce side (seed 004 Algorithm IV): a reduce task
//! of a lower-priority job may take a free reduce slot only if enough free
//! reduce slots stay for the higher-priority jobs still in their map stage.
//!
//! Algorithm IV walks the queue with `reservedSlot = 0`; a job with a ready
//! reduce gets the slot, a job that has not reached its reduce stage adds
//! its R to `reservedSlot`, and the walk stops once `reservedSlot` is too
//! large compared with `Ra`, the free reduce slots of the cluster. The seed
//! prints the stop test as `reservedSlot > Ra`. With `reservedSlot == Ra`
//! that lets a lower-priority job take one of exactly the `Ra` slots the
//! higher-priority jobs need, leaving them `Ra - 1`; the safe test is
//! `reservedSlot >= Ra` (the lower job may take a slot only if
//! `Ra - 1 >= reservedSlot`). We default to `>=` (prior-work §7 reads the
//! printed `>` as a lost `≥`) and keep `>` selectable.

use mrsched_model::{JobId, NodeId};
use mrsched_state::{ClusterState, Launch};
use serde::Deserialize;

/// Algorithm IV line 10: when the reservation stops the walk.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub enum ReservationTest {
    /// Stop when `reservedSlot >= Ra`: the safe test (default).
    #[default]
    #[serde(rename = ">=")]
    AtLeast,
    /// Stop when `reservedSlot > Ra`: the test as printed in the seed.
    #[serde(rename = ">")]
    MoreThan,
}

impl ReservationTest {
    fn stops(self, reserved: u64, free: u64) -> bool {
        match self {
            ReservationTest::AtLeast => reserved >= free,
            ReservationTest::MoreThan => reserved > free,
        }
    }
}

/// What a job in the queue means for a free reduce slot.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ReduceView {
    /// Its maps are done and it has a reduce waiting for a slot.
    Ready,
    /// It has not reached its reduce stage: reserve its R reduce slots.
    MapStage {
        /// R.
        reduces: u32,
    },
    /// In its reduce stage with nothing waiting.
    Busy,
}

/// Algorithm IV lines 7-20: the job whose reduce gets the free slot, given
/// the queue in priority order and `free` (Ra) free reduce slots in the
/// cluster.
pub fn choose_reduce_job(
    jobs: impl IntoIterator<Item = (JobId, ReduceView)>,
    free: u32,
    test: ReservationTest,
) -> Option<JobId> {
    let mut reserved = 0u64;
    for (j, view) in jobs {
        if test.stops(reserved, free as u64) {
            break;
        }
        match view {
            ReduceView::Ready => return Some(j),
            ReduceView::MapStage { reduces } => reserved += reduces as u64,
            ReduceView::Busy => {}
        }
    }
    None
}

/// How job `j` looks to the reduce dispatcher. RTMR assumes a job's reduce
/// stage starts only after all its maps finished (§IV); we enforce it here
/// whatever the cluster's reduce slow-start.
pub fn reduce_view(st: &ClusterState, j: JobId) -> ReduceView {
    let job = st.job(j);
    if !job.maps_done() {
        ReduceView::MapStage {
            reduces: job.reduces.len() as u32,
        }
    } else if st.next_pending_reduce(j).is_some() {
        ReduceView::Ready
    } else {
        ReduceView::Busy
    }
}

/// Free reduce slots in the whole cluster (Ra).
pub fn cluster_free_reduce_slots(st: &ClusterState) -> u32 {
    (0..st.nodes().len())
        .map(|n| st.free_reduce_slots(NodeId(n as u32)))
        .sum()
}

/// A reduce launch for a free reduce slot of `node`, serving `order` with
/// the reservation rule.
pub fn dispatch_reduce(
    st: &ClusterState,
    node: NodeId,
    order: &[JobId],
    test: ReservationTest,
) -> Option<Launch> {
    if st.free_reduce_slots(node) == 0 {
        return None;
    }
    let free = cluster_free_reduce_slots(st);
    let j = choose_reduce_job(order.iter().map(|&j| (j, reduce_view(st, j))), free, test)?;
    st.next_pending_reduce(j).map(|t| Launch::reduce(j, t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ReduceView::*;

    const H: JobId = JobId(0);
    const L: JobId = JobId(1);

    #[test]
    fn ready_high_priority_job_gets_the_slot() {
        for test in [ReservationTest::AtLeast, ReservationTest::MoreThan] {
            assert_eq!(
                choose_reduce_job([(H, Ready), (L, Ready)], 1, test),
                Some(H)
            );
        }
    }

    #[test]
    fn reservation_at_the_boundary() {
        // H is in its map stage and will need 2 reduce slots; 2 are free.
        let jobs = [(H, MapStage { reduces: 2 }), (L, Ready)];
        // Safe test: reserved 2 >= Ra 2 stops the walk, L waits and H keeps
        // both slots.
        assert_eq!(choose_reduce_job(jobs, 2, ReservationTest::AtLeast), None);
        // As printed: 2 > 2 is false, L takes a slot and leaves H only 1.
        assert_eq!(
            choose_reduce_job(jobs, 2, ReservationTest::MoreThan),
            Some(L)
        );
        // With 3 free, both tests let L take one and 2 stay for H.
        for test in [ReservationTest::AtLeast, ReservationTest::MoreThan] {
            assert_eq!(choose_reduce_job(jobs, 3, test), Some(L));
        }
        // Over the boundary both stop.
        for test in [ReservationTest::AtLeast, ReservationTest::MoreThan] {
            assert_eq!(choose_reduce_job(jobs, 1, test), None);
        }
    }

    #[test]
    fn reservations_add_up_and_busy_jobs_reserve_nothing() {
        let jobs = [
            (JobId(0), Busy),
            (JobId(1), MapStage { reduces: 2 }),
            (JobId(2), MapStage { reduces: 3 }),
            (JobId(3), Ready),
        ];
        assert_eq!(choose_reduce_job(jobs, 5, ReservationTest::AtLeast), None);
        assert_eq!(
            choose_reduce_job(jobs, 5, ReservationTest::MoreThan),
            Some(JobId(3))
        );
        assert_eq!(
            choose_reduce_job(jobs, 6, ReservationTest::AtLeast),
            Some(JobId(3))
        );
        // A map-only job in its map stage reserves nothing.
        let jobs = [(JobId(0), MapStage { reduces: 0 }), (JobId(1), Ready)];
        assert_eq!(
            choose_reduce_job(jobs, 1, ReservationTest::AtLeast),
            Some(JobId(1))
        );
    }
}
