//! Hand-checked tests of FIFO and the shared machinery on small states.

use mrsched_model::{
    BlockRef, Cluster, DatasetId, JobId, JobSpec, Locality, MapSpec, NodeId, Priority, TaskKind,
    Time,
};
use mrsched_sched::assign::by_deficit;
use mrsched_sched::delay::{DelayMode, DelayScheduler};
use mrsched_sched::plan::{Plan, PlanFollower, PlannedTask};
use mrsched_sched::policies::fifo::Fifo;
use mrsched_sched::Scheduler;
use mrsched_state::{ClusterState, DatasetBlocks, Launch};

/// Nodes 0,2 on rack 0; 1,3 on rack 1; one map slot each.
fn state() -> ClusterState {
    let c = Cluster::from_toml_str(
        "c",
        "[[nodes]]\ncount = 4\nracks = 2\nmap_slots = 1\nreduce_slots = 1\n",
    )
    .unwrap();
    let mut st = ClusterState::new(c);
    // Block b has its only replica on node b % 4.
    let reps: Vec<Vec<NodeId>> = (0..8).map(|b| vec![NodeId(b % 4)]).collect();
    st.add_dataset(DatasetBlocks::new("d", vec![64.0; 8], &reps));
    st
}

fn job_on_blocks(blocks: &[u32], priority: Priority) -> JobSpec {
    let mut j = JobSpec::explicit("j", Time::ZERO, &[], &[], 1.0);
    j.priority = priority;
    j.input = vec![DatasetId(0)];
    j.maps = blocks
        .iter()
        .map(|&b| MapSpec {
            block: Some(BlockRef {
                dataset: DatasetId(0),
                index: b,
            }),
            input_mb: 64.0,
            time: None,
        })
        .collect();
    j
}

fn admit(st: &mut ClusterState, s: &mut dyn Scheduler, spec: JobSpec) -> JobId {
    let j = st.submit(spec);
    st.admit(j).unwrap();
    for ev in st.take_events() {
        s.on_event(st, &ev);
    }
    j
}

#[test]
fn fifo_serves_priority_then_submit_time_with_most_local_map() {
    let mut st = state();
    let mut f = Fifo::new();
    let a = admit(&mut st, &mut f, job_on_blocks(&[1, 2], Priority::Normal));
    let b = admit(&mut st, &mut f, job_on_blocks(&[0, 3], Priority::Normal));
    let c = admit(&mut st, &mut f, job_on_blocks(&[5], Priority::High));
    // High priority first even though submitted last; its block is on node 1,
    // node 0 gets it off-rack because FIFO does not wait.
    assert_eq!(f.order().collect::<Vec<_>>(), vec![c, a, b]);
    assert_eq!(f.assign(&st, NodeId(0)), Some(Launch::map(c, 0)));
    st.launch(NodeId(0), &Launch::map(c, 0)).unwrap();
    // Next: job a, and on node 2 its most local task is block 2 (task 1).
    assert_eq!(f.assign(&st, NodeId(2)), Some(Launch::map(a, 1)));
    // Node 0 is full.
    assert_eq!(st.free_map_slots(NodeId(0)), 0);
}

#[test]
fn delay_scheduling_waits_then_relaxes_level() {
    let mut st = state();
    let mut f = Fifo::new();
    // Only block 1 (node 1, rack 1).
    let j = admit(&mut st, &mut f, job_on_blocks(&[1], Priority::Normal));
    let mut d = DelayScheduler::new(DelayMode::Wait {
        node: Time::from_secs(5),
        rack: Time::from_secs(5),
    });
    // Heartbeat at t=0 from node 0 (off-rack): skipped.
    d.on_heartbeat(Time::ZERO);
    assert_eq!(d.pick(&st, j, NodeId(0)), None);
    assert_eq!(d.allowed_level(&st, j), Locality::Node);
    // Heartbeat at 6 s from node 3 (same rack as node 1): 6 s >= T1 allows rack.
    st.advance_to(Time::from_secs(6));
    d.on_heartbeat(Time::from_secs(6));
    assert_eq!(d.allowed_level(&st, j), Locality::Rack);
    assert_eq!(
        d.pick(&st, j, NodeId(2)),
        None,
        "node 2 is off-rack: still skipped"
    );
    // Another 5 s of skipping: off-rack allowed (T1 + T2).
    st.advance_to(Time::from_secs(11));
    d.on_heartbeat(Time::from_secs(11));
    assert_eq!(d.allowed_level(&st, j), Locality::OffRack);
    assert_eq!(d.pick(&st, j, NodeId(0)), Some((0, Locality::OffRack)));
    assert_eq!(d.level(j), 2);
}

#[test]
fn a_local_launch_brings_the_job_back_to_node_level() {
    let mut d = DelayScheduler::new(DelayMode::Wait {
        node: Time::from_secs(5),
        rack: Time::from_secs(5),
    });
    let j = JobId(0);
    d.launched(j, Locality::OffRack);
    assert_eq!(d.level(j), 2);
    d.launched(j, Locality::Node);
    assert_eq!(d.level(j), 0);
}

#[test]
fn skip_count_form() {
    let mut st = state();
    let mut f = Fifo::new();
    let j = admit(&mut st, &mut f, job_on_blocks(&[1], Priority::Normal));
    let mut d = DelayScheduler::new(DelayMode::Skip { node: 2, rack: 1 });
    assert_eq!(d.pick(&st, j, NodeId(0)), None);
    assert_eq!(d.pick(&st, j, NodeId(0)), None);
    // Two skips: rack level. Node 3 shares node 1's rack.
    assert_eq!(d.pick(&st, j, NodeId(3)), Some((0, Locality::Rack)));
}

#[test]
fn per_job_waits_override_the_policy_default() {
    let mut st = state();
    let mut f = Fifo::new();
    let mut spec = job_on_blocks(&[1], Priority::Normal);
    spec.locality_wait = Some([Time::ZERO, Time::ZERO]);
    let j = admit(&mut st, &mut f, spec);
    let d = DelayScheduler::new(DelayMode::Wait {
        node: Time::from_secs(60),
        rack: Time::from_secs(60),
    });
    assert_eq!(
        d.allowed_level(&st, j),
        Locality::OffRack,
        "a CPU-bound job with zero waits"
    );
}

#[test]
fn deficit_order() {
    let running = |j: JobId| [4u32, 1, 0, 3][j.idx()];
    let order = by_deficit(
        &[
            (JobId(0), 8.0),
            (JobId(1), 1.0),
            (JobId(2), 0.0),
            (JobId(3), 3.0),
        ],
        running,
    );
    // Ratios: 0.5, 1.0, inf (target 0), 1.0 -> ties by id.
    assert_eq!(order, vec![JobId(0), JobId(1), JobId(3), JobId(2)]);
}

#[test]
fn plan_follower_keeps_order_and_requeues_failures() {
    let c = Cluster::from_toml_str("c", "[[nodes]]\ncount = 2\nslots = 1\n").unwrap();
    let mut st = ClusterState::new(c);
    let j = st.submit(JobSpec::explicit("e", Time::ZERO, &[5.0, 5.0], &[2.0], 1.0));
    st.admit(j).unwrap();
    st.take_events();
    let mut plan = Plan::new(2);
    let t = |kind, index| PlannedTask {
        job: j,
        kind,
        index,
        not_before: Time::ZERO,
    };
    plan.push(NodeId(0), t(TaskKind::Map, 1));
    plan.push(NodeId(0), t(TaskKind::Reduce, 0));
    plan.push(NodeId(1), t(TaskKind::Map, 0));
    let mut f = PlanFollower::new(plan, false);
    assert_eq!(f.next(&st, NodeId(0)), Some(Launch::map(j, 1)));
    let a = st.launch(NodeId(0), &Launch::map(j, 1)).unwrap();
    // The reduce waits: its maps are not done, and node 0 is busy anyway.
    assert_eq!(f.next(&st, NodeId(0)), None);
    st.fail_attempt(a, "test").unwrap();
    for ev in st.take_events() {
        f.on_event(&st, &ev);
    }
    // The failed map goes back to the front of node 0's queue.
    assert_eq!(f.next(&st, NodeId(0)), Some(Launch::map(j, 1)));
    assert_eq!(f.next(&st, NodeId(1)), Some(Launch::map(j, 0)));
}
