//! Hand-checked unit tests of the state machine.

use super::*;
use mrsched_model::{BlockRef, MapSpec, ReduceSpec};

fn cluster(text: &str) -> Cluster {
    Cluster::from_toml_str("c", text).unwrap()
}

fn two_racks() -> Cluster {
    cluster("reduce_slowstart = 0.5\n[[nodes]]\ncount = 4\nracks = 2\nmap_slots = 1\nreduce_slots = 1\n")
}

/// A job reading dataset 0's blocks with `reduces` cost-model reduces.
fn data_job(blocks: u32, reduces: usize) -> JobSpec {
    let mut j = JobSpec::explicit("j", Time::ZERO, &[], &[], 1.0);
    j.input = vec![DatasetId(0)];
    j.maps = (0..blocks)
        .map(|b| MapSpec {
            block: Some(BlockRef {
                dataset: DatasetId(0),
                index: b,
            }),
            input_mb: 64.0,
            time: None,
        })
        .collect();
    j.reduces = vec![ReduceSpec { time: None }; reduces];
    j.cost.map_output_ratio = 1.0;
    j
}

fn with_dataset(c: Cluster, replicas: Vec<Vec<u32>>) -> ClusterState {
    let mut st = ClusterState::new(c);
    let reps: Vec<Vec<NodeId>> = replicas
        .into_iter()
        .map(|r| r.into_iter().map(NodeId).collect())
        .collect();
    st.add_dataset(DatasetBlocks::new("d", vec![64.0; reps.len()], &reps));
    st
}

#[test]
fn most_local_task_is_found_per_level() {
    // Nodes 0,2 on rack 0; nodes 1,3 on rack 1.
    let mut st = with_dataset(two_racks(), vec![vec![0], vec![2], vec![1]]);
    let j = st.submit(data_job(3, 0));
    st.admit(j).unwrap();
    assert_eq!(
        st.find_map_task(j, NodeId(0), Locality::Node),
        Some((0, Locality::Node))
    );
    assert_eq!(st.find_map_task(j, NodeId(3), Locality::Node), None);
    assert_eq!(
        st.find_map_task(j, NodeId(3), Locality::Rack),
        Some((2, Locality::Rack))
    );
    st.launch(NodeId(1), &Launch::map(j, 2)).unwrap();
    // Block 2 is taken; node 3 must now go off-rack.
    assert_eq!(st.find_map_task(j, NodeId(3), Locality::Rack), None);
    let (t, loc) = st.find_map_task(j, NodeId(3), Locality::OffRack).unwrap();
    assert!(t == 0 || t == 1);
    assert_eq!(loc, Locality::OffRack);
    assert_eq!(st.pending_maps_total(), 2);
}

#[test]
fn launches_respect_slots_and_status() {
    let mut st = with_dataset(two_racks(), vec![vec![0], vec![0]]);
    let j = st.submit(data_job(2, 1));
    assert_eq!(
        st.launch(NodeId(0), &Launch::map(j, 0)),
        Err(LaunchError::JobNotRunning(j))
    );
    st.admit(j).unwrap();
    let a = st.launch(NodeId(0), &Launch::map(j, 0)).unwrap();
    assert_eq!(st.free_map_slots(NodeId(0)), 0);
    assert_eq!(
        st.launch(NodeId(0), &Launch::map(j, 1)),
        Err(LaunchError::NoFreeSlot(NodeId(0), TaskKind::Map))
    );
    assert_eq!(
        st.launch(NodeId(1), &Launch::map(j, 0)),
        Err(LaunchError::TaskNotPending(j, TaskKind::Map, 0))
    );
    assert_eq!(
        st.launch(NodeId(1), &Launch::reduce(j, 0)),
        Err(LaunchError::ReducesNotReady(j))
    );
    assert_eq!(st.attempt(a).unwrap().locality, Locality::Node);
}

#[test]
fn slowstart_then_copy_compute_then_done() {
    let mut st = with_dataset(two_racks(), vec![vec![0], vec![1]]);
    let j = st.submit(data_job(2, 1));
    st.admit(j).unwrap();
    let m0 = st.launch(NodeId(0), &Launch::map(j, 0)).unwrap();
    let m1 = st.launch(NodeId(1), &Launch::map(j, 1)).unwrap();
    st.advance_to(Time::from_secs(10));
    st.finish_map(m0).unwrap();
    // Slow-start 0.5 of 2 maps: reduces are ready after one map.
    assert!(st.job(j).reduces_ready);
    assert_eq!(st.next_pending_reduce(j), Some(0));
    assert_eq!(st.intermediate_on(NodeId(0)), 64.0);
    let r = st.launch(NodeId(2), &Launch::reduce(j, 0)).unwrap();
    assert_eq!(st.attempt(r).unwrap().phase, ReducePhase::Copying);
    assert!(st.finish_reduce(r).is_err(), "cannot finish while copying");
    st.advance_to(Time::from_secs(20));
    st.finish_map(m1).unwrap();
    assert!(st.job(j).maps_done());
    st.finish_copy(r).unwrap();
    assert_eq!(st.take_compute_started(), vec![r]);
    st.advance_to(Time::from_secs(30));
    st.finish_reduce(r).unwrap();
    assert_eq!(st.job(j).status, JobStatus::Succeeded);
    assert_eq!(st.job(j).finish, Some(Time::from_secs(30)));
    assert_eq!(st.intermediate_mb(), 0.0, "outputs freed at job end");
    assert!(st.active_jobs().is_empty());
    let evs = st.take_events();
    assert!(evs.contains(&StateEvent::ReducesReady(j)));
    assert!(evs.contains(&StateEvent::JobEnded(j)));
}

#[test]
fn copy_compute_splitting_limits_computing_reducers() {
    let c = cluster("reduce_slowstart = 0\n[[nodes]]\ncount = 1\nmap_slots = 1\nreduce_slots = 1\nmax_reducers = 3\n");
    let mut st = with_dataset(c, vec![vec![0]]);
    assert_eq!(st.free_reduce_slots(NodeId(0)), 1, "off by default");
    st.set_copy_compute_splitting(true);
    let j = st.submit(data_job(1, 3));
    st.admit(j).unwrap();
    let rs: Vec<AttemptId> = (0..3)
        .map(|t| st.launch(NodeId(0), &Launch::reduce(j, t)).unwrap())
        .collect();
    assert_eq!(st.free_reduce_slots(NodeId(0)), 0);
    for r in &rs {
        st.finish_copy(*r).unwrap();
    }
    assert_eq!(
        st.take_compute_started(),
        vec![rs[0]],
        "one computes at a time"
    );
    assert_eq!(st.node(NodeId(0)).waiting_compute.len(), 2);
    let m = st.launch(NodeId(0), &Launch::map(j, 0)).unwrap();
    st.finish_map(m).unwrap();
    st.finish_reduce(rs[0]).unwrap();
    assert_eq!(st.take_compute_started(), vec![rs[1]]);
}

#[test]
fn failures_retry_then_fail_the_job() {
    let c = cluster("max_attempts = 2\n[[nodes]]\ncount = 2\nmap_slots = 1\n");
    let mut st = ClusterState::new(c);
    let j = st.submit(JobSpec::explicit("e", Time::ZERO, &[5.0, 5.0], &[], 1.0));
    st.admit(j).unwrap();
    let a = st.launch(NodeId(0), &Launch::map(j, 0)).unwrap();
    let b = st.launch(NodeId(1), &Launch::map(j, 1)).unwrap();
    st.fail_attempt(a, "disk error").unwrap();
    assert_eq!(st.job(j).map_counts.pending, 1);
    let a2 = st.launch(NodeId(0), &Launch::map(j, 0)).unwrap();
    st.fail_attempt(a2, "disk error").unwrap();
    let job = st.job(j);
    assert_eq!(job.status, JobStatus::Failed);
    assert!(
        job.reason.as_deref().unwrap().contains("failed 2 times"),
        "{:?}",
        job.reason
    );
    assert!(
        st.attempt(b).is_none(),
        "the job's other attempts are killed"
    );
    assert_eq!(st.pending_maps_total(), 0);
    assert_eq!(st.running_attempts(), 0);
}

#[test]
fn node_loss_reruns_attempts_and_needed_outputs() {
    let mut st = with_dataset(two_racks(), vec![vec![0], vec![1]]);
    let j = st.submit(data_job(2, 1));
    st.admit(j).unwrap();
    let m0 = st.launch(NodeId(0), &Launch::map(j, 0)).unwrap();
    let m1 = st.launch(NodeId(1), &Launch::map(j, 1)).unwrap();
    st.advance_to(Time::from_secs(5));
    st.finish_map(m0).unwrap();
    st.node_lost(NodeId(1));
    assert!(st.attempt(m1).is_none());
    assert_eq!(st.job(j).map_counts.pending, 1, "running map re-run");
    st.node_lost(NodeId(0));
    assert_eq!(st.job(j).map_counts.pending, 2, "lost output re-run");
    assert_eq!(st.job(j).map_counts.done, 0);
    assert_eq!(st.free_map_slots(NodeId(0)), 0);
    st.node_recovered(NodeId(0));
    assert_eq!(st.free_map_slots(NodeId(0)), 1);
    // Failures from node loss do not count against the attempt limit.
    assert_eq!(st.job(j).failed_attempts, 0);
}

#[test]
fn shared_scan_serves_every_rider_once() {
    let mut st = with_dataset(two_racks(), vec![vec![0], vec![1]]);
    let a = st.submit(data_job(2, 0));
    let b = st.submit(data_job(2, 0));
    st.admit(a).unwrap();
    st.admit(b).unwrap();
    assert_eq!(st.scanners(DatasetId(0)), &[a, b]);
    assert_eq!(st.job(b).map_for_block(DatasetId(0), 1), Some(1));
    // A rider on a different block is refused.
    assert_eq!(
        st.launch(
            NodeId(0),
            &Launch::Map {
                job: a,
                task: 0,
                riders: vec![(b, 1)]
            }
        ),
        Err(LaunchError::BadRider(b, 1))
    );
    let x = st
        .launch(
            NodeId(0),
            &Launch::Map {
                job: a,
                task: 0,
                riders: vec![(b, 0)],
            },
        )
        .unwrap();
    assert_eq!(st.job(b).map_counts.running, 1);
    st.finish_map(x).unwrap();
    assert_eq!(st.job(a).map_counts.done, 1);
    assert_eq!(st.job(b).map_counts.done, 1);
    assert_eq!(st.free_map_slots(NodeId(0)), 1, "one slot for both riders");
}

#[test]
fn explicit_reduces_wait_for_delays() {
    let c = cluster("[[nodes]]\ncount = 2\nslots = 1\n");
    let mut st = ClusterState::new(c);
    let mut spec = JobSpec::explicit("e", Time::ZERO, &[10.0], &[3.0], 1.0);
    spec.shuffle_delay_factor = 0.5;
    let j = st.submit(spec);
    st.admit(j).unwrap();
    let m = st.launch(NodeId(0), &Launch::map(j, 0)).unwrap();
    st.advance_to(Time::from_secs(10));
    st.finish_map(m).unwrap();
    assert!(!st.job(j).reduces_ready);
    assert_eq!(st.take_wakeups(), vec![(Time::from_secs(15), j)]);
    st.advance_to(Time::from_secs(15));
    st.release_reduces(j);
    assert!(st.job(j).reduces_ready);
    let r = st.launch(NodeId(1), &Launch::reduce(j, 0)).unwrap();
    // No copy phase: computing at once.
    assert_eq!(st.take_compute_started(), vec![r]);
    st.finish_reduce(r).unwrap();
    assert_eq!(st.job(j).status, JobStatus::Succeeded);
}

#[test]
fn unified_slots_are_shared_and_capacity_is_honoured() {
    let c = cluster("reduce_slowstart = 0\n[[nodes]]\ncount = 1\nslots = 2\n");
    let mut st = ClusterState::new(c);
    let j = st.submit(JobSpec::explicit("e", Time::ZERO, &[1.0], &[], 1.0));
    st.admit(j).unwrap();
    st.set_taken(NodeId(0), 1, 1);
    assert_eq!(st.free_map_slots(NodeId(0)), 1);
    st.launch(NodeId(0), &Launch::map(j, 0)).unwrap();
    assert_eq!(st.free_map_slots(NodeId(0)), 0);
    assert_eq!(st.free_reduce_slots(NodeId(0)), 0);
    // Capacity drops below use: the running attempt stays.
    st.set_taken(NodeId(0), 2, 2);
    assert_eq!(st.running_attempts(), 1);
    assert_eq!(st.free_map_slots(NodeId(0)), 0);
}

#[test]
fn utilisation_integrates_busy_over_available() {
    let c = cluster("[[nodes]]\ncount = 2\nmap_slots = 1\n");
    let mut st = ClusterState::new(c);
    let j = st.submit(JobSpec::explicit("e", Time::ZERO, &[1.0], &[], 1.0));
    st.admit(j).unwrap();
    let a = st.launch(NodeId(0), &Launch::map(j, 0)).unwrap();
    st.advance_to(Time::from_secs(10));
    st.finish_map(a).unwrap();
    // One of two slots busy for 10 s.
    assert!((st.usage().utilization() - 0.5).abs() < 1e-12);
}

#[test]
fn kill_counts_work_and_repends() {
    let c = cluster("[[nodes]]\ncount = 1\nmap_slots = 1\n");
    let mut st = ClusterState::new(c);
    let j = st.submit(JobSpec::explicit("e", Time::ZERO, &[9.0], &[], 1.0));
    st.admit(j).unwrap();
    let a = st.launch(NodeId(0), &Launch::map(j, 0)).unwrap();
    st.advance_to(Time::from_secs(4));
    st.kill_attempt(a).unwrap();
    assert_eq!(st.job(j).killed_work, Time::from_secs(4));
    assert_eq!(st.job(j).map_counts.pending, 1);
    assert!(
        st.kill_attempt(a).is_err(),
        "an ended attempt cannot be killed again"
    );
    st.kill_job(j, "user asked").unwrap();
    assert_eq!(st.job(j).status, JobStatus::Killed);
    assert!(st.kill_job(j, "again").is_err());
}

#[test]
fn fail_job_ends_a_running_job_as_failed_with_its_reason() {
    let c = cluster("[[nodes]]\ncount = 1\nmap_slots = 1\n");
    let mut st = ClusterState::new(c);
    let j = st.submit(JobSpec::explicit("e", Time::ZERO, &[9.0, 9.0], &[], 1.0));
    assert!(st.fail_job(j, "too early").is_err(), "not running yet");
    st.admit(j).unwrap();
    let a = st.launch(NodeId(0), &Launch::map(j, 0)).unwrap();
    st.fail_job(j, "block 3 has no replica left").unwrap();
    assert_eq!(st.job(j).status, JobStatus::Failed);
    assert_eq!(
        st.job(j).reason.as_deref(),
        Some("block 3 has no replica left")
    );
    assert!(st.attempt(a).is_none(), "its attempt was stopped");
    assert!(st.fail_job(j, "again").is_err());
}

#[test]
fn outputs_on_lists_held_outputs_and_forgets_evicted_ones() {
    let mut st = with_dataset(two_racks(), vec![vec![0], vec![0]]);
    let a = st.submit(data_job(1, 1));
    let b = st.submit(data_job(2, 1));
    st.admit(a).unwrap();
    st.admit(b).unwrap();
    let ma = st.launch(NodeId(0), &Launch::map(a, 0)).unwrap();
    st.finish_map(ma).unwrap();
    let mb = st.launch(NodeId(0), &Launch::map(b, 1)).unwrap();
    st.finish_map(mb).unwrap();
    let held: Vec<(JobId, u32, f64)> = st.outputs_on(NodeId(0)).collect();
    assert_eq!(held, vec![(a, 0, 64.0), (b, 1, 64.0)]);
    st.evict_outputs(b, NodeId(0));
    let held: Vec<(JobId, u32, f64)> = st.outputs_on(NodeId(0)).collect();
    assert_eq!(held, vec![(a, 0, 64.0)]);
    assert_eq!(st.intermediate_on(NodeId(0)), 64.0);
    assert_eq!(st.job(b).pending_maps(), 2, "the evicted map runs again");
    assert_eq!(st.outputs_on(NodeId(1)).count(), 0);
}

#[test]
fn one_lost_map_output_is_rerun_only_while_needed() {
    let mut st = with_dataset(two_racks(), vec![vec![0], vec![1]]);
    let j = st.submit(data_job(2, 1));
    st.admit(j).unwrap();
    let m0 = st.launch(NodeId(0), &Launch::map(j, 0)).unwrap();
    let m1 = st.launch(NodeId(1), &Launch::map(j, 1)).unwrap();
    st.advance_to(Time::from_secs(5));
    st.finish_map(m0).unwrap();
    st.finish_map(m1).unwrap();
    assert_eq!(st.job(j).map_counts.done, 2);
    // A reducer cannot fetch map 1 from node 1: only map 1 runs again.
    st.take_events();
    st.map_output_lost(j, 1, NodeId(1));
    assert_eq!(st.job(j).map_counts.done, 1);
    assert_eq!(st.job(j).maps[1].status, TaskStatus::Pending);
    assert!(st
        .take_events()
        .contains(&StateEvent::MapOutputLost { job: j, task: 1 }));
    // A report naming the wrong node, or an unknown job, changes nothing.
    st.map_output_lost(j, 0, NodeId(1));
    st.map_output_lost(JobId(9), 0, NodeId(0));
    assert_eq!(st.job(j).map_counts.done, 1);
    // Once the reduce is done, outputs are no longer needed.
    let m1 = st.launch(NodeId(1), &Launch::map(j, 1)).unwrap();
    st.finish_map(m1).unwrap();
    let r = st.launch(NodeId(2), &Launch::reduce(j, 0)).unwrap();
    st.finish_copy(r).unwrap();
    st.map_output_lost(j, 0, NodeId(0));
    assert_eq!(st.job(j).map_counts.done, 2, "copied already: no re-run");
}

#[test]
fn an_output_dropped_while_unneeded_is_rerun_when_a_reduce_needs_it_again() {
    let mut st = with_dataset(two_racks(), vec![vec![0], vec![1]]);
    let j = st.submit(data_job(2, 1));
    st.admit(j).unwrap();
    let m0 = st.launch(NodeId(0), &Launch::map(j, 0)).unwrap();
    let m1 = st.launch(NodeId(1), &Launch::map(j, 1)).unwrap();
    st.finish_map(m0).unwrap();
    st.finish_map(m1).unwrap();
    let r = st.launch(NodeId(2), &Launch::reduce(j, 0)).unwrap();
    st.finish_copy(r).unwrap();
    // Node 0 dies while the reduce computes: its output is not needed.
    st.node_lost(NodeId(0));
    assert_eq!(st.job(j).map_counts.done, 2);
    // The reducer dies too: it must copy again, and map 0's output is gone.
    st.node_lost(NodeId(2));
    assert_eq!(st.job(j).reduce_counts.pending, 1);
    st.map_output_lost(j, 0, NodeId(0));
    assert_eq!(st.job(j).maps[0].status, TaskStatus::Pending);
    assert_eq!(st.job(j).map_counts.done, 1);
    // Map 1's output is still there: a wrong report about it changes nothing.
    st.map_output_lost(j, 1, NodeId(0));
    assert_eq!(st.job(j).maps[1].status, TaskStatus::Done);
}

#[test]
fn open_jobs_grow_stage_by_stage_and_finish_when_closed() {
    // Nodes 0,2 on rack 0; nodes 1,3 on rack 1. The second stage's one task
    // reads block 0 of a dataset held on node 3.
    let mut st = with_dataset(two_racks(), vec![vec![3]]);
    let j = st.submit(JobSpec::explicit("dag", Time::ZERO, &[], &[], 1.0));
    st.hold_open(j).unwrap();
    st.admit(j).unwrap();
    assert_eq!(st.job(j).status, JobStatus::Running);
    // Stage 1: two data-less tasks.
    let nodata = MapSpec {
        block: None,
        input_mb: 0.0,
        time: None,
    };
    assert_eq!(st.add_maps(j, vec![nodata, nodata]).unwrap(), 0);
    assert_eq!(st.job(j).map_counts.pending, 2);
    assert_eq!(st.pending_maps_total(), 2);
    assert!(st.take_events().contains(&StateEvent::TasksAdded(j)));
    let a = st.launch(NodeId(0), &Launch::map(j, 0)).unwrap();
    let b = st.launch(NodeId(1), &Launch::map(j, 1)).unwrap();
    st.finish_map(a).unwrap();
    st.finish_map(b).unwrap();
    // Every task is done, but the job is open: it keeps running.
    assert_eq!(st.job(j).status, JobStatus::Running);
    // Stage 2: one task whose input is on node 3.
    let local = MapSpec {
        block: Some(BlockRef {
            dataset: DatasetId(0),
            index: 0,
        }),
        input_mb: 1.0,
        time: None,
    };
    assert_eq!(st.add_maps(j, vec![local, local]).unwrap(), 2);
    assert_eq!(st.find_map_task(j, NodeId(2), Locality::Node), None);
    assert_eq!(
        st.find_map_task(j, NodeId(3), Locality::Node),
        Some((2, Locality::Node))
    );
    assert_eq!(
        st.find_map_task(j, NodeId(1), Locality::Rack),
        Some((2, Locality::Rack))
    );
    // The engine takes task 3 back: it counts as done without running.
    st.withdraw_map(j, 3).unwrap();
    assert!(st.withdraw_map(j, 3).is_err());
    assert_eq!(st.job(j).map_counts.pending, 1);
    assert_eq!(st.pending_maps_total(), 1);
    let c = st.launch(NodeId(3), &Launch::map(j, 2)).unwrap();
    st.finish_map(c).unwrap();
    assert_eq!(st.job(j).status, JobStatus::Running);
    st.close_job(j).unwrap();
    assert_eq!(st.job(j).status, JobStatus::Succeeded);
    assert!(st.add_maps(j, vec![]).is_err());
}

#[test]
fn tasks_cannot_be_added_to_a_closed_job() {
    let mut st = ClusterState::new(two_racks());
    let j = st.submit(JobSpec::explicit("j", Time::ZERO, &[1.0], &[], 1.0));
    st.admit(j).unwrap();
    let spec = st.job(j).spec.maps.at(0);
    assert!(st.add_maps(j, vec![spec]).is_err());
    assert_eq!(st.job(j).maps.len(), 1);
}

#[test]
fn a_node_lookup_that_finds_no_local_map_clears_the_bit_until_one_is_pending_again() {
    // Blocks 0 and 1 on node 0, block 2 on node 1; node 2 holds none. One
    // rack.
    let c = cluster("[[nodes]]\ncount = 3\nmap_slots = 2\n");
    let mut st = with_dataset(c, vec![vec![0], vec![0], vec![1]]);
    let j = st.submit(data_job(3, 0));
    st.admit(j).unwrap();
    assert!(st.may_have_local_map(j, NodeId(0)));
    assert!(!st.may_have_local_map(j, NodeId(2)));
    // Node 0's maps launch elsewhere: the bit is a superset until a
    // node-level lookup there finds nothing.
    let a0 = st.launch(NodeId(2), &Launch::map(j, 0)).unwrap();
    st.launch(NodeId(2), &Launch::map(j, 1)).unwrap();
    assert!(st.may_have_local_map(j, NodeId(0)));
    assert_eq!(st.find_map_task(j, NodeId(0), Locality::Node), None);
    assert!(!st.may_have_local_map(j, NodeId(0)));
    // A lookup at a wider level clears it too, and still finds the map.
    assert!(st.may_have_local_map(j, NodeId(1)));
    st.launch(NodeId(1), &Launch::map(j, 2)).unwrap();
    st.kill_attempt(a0).unwrap();
    assert_eq!(
        st.find_map_task(j, NodeId(1), Locality::OffRack),
        Some((0, Locality::Rack))
    );
    assert!(!st.may_have_local_map(j, NodeId(1)));
    // Map 0 is pending again: its node's bit is back and serves it.
    assert!(st.may_have_local_map(j, NodeId(0)));
    assert_eq!(
        st.find_map_task(j, NodeId(0), Locality::Node),
        Some((0, Locality::Node))
    );
}

#[test]
fn a_pending_data_less_map_keeps_every_node_bit() {
    let c = cluster("[[nodes]]\ncount = 2\nmap_slots = 2\n");
    let mut st = with_dataset(c, vec![vec![0]]);
    let mut spec = data_job(1, 0);
    spec.maps.push(MapSpec {
        block: None,
        input_mb: 0.0,
        time: None,
    });
    let j = st.submit(spec);
    st.admit(j).unwrap();
    st.launch(NodeId(1), &Launch::map(j, 0)).unwrap();
    assert_eq!(
        st.find_map_task(j, NodeId(0), Locality::Node),
        Some((1, Locality::NoData))
    );
    assert!(st.may_have_local_map(j, NodeId(0)));
    assert!(st.may_have_local_map(j, NodeId(1)));
}

#[test]
fn stacks_freed_after_the_last_launch_still_serve_maps_pending_again() {
    // Nodes 0,2 on rack 0; nodes 1,3 on rack 1. Blocks on 0, 2, 1.
    let c = cluster("[[nodes]]\ncount = 4\nracks = 2\nmap_slots = 2\n");
    let mut st = with_dataset(c, vec![vec![0], vec![2], vec![1]]);
    let j = st.submit(data_job(3, 0));
    st.admit(j).unwrap();
    let a0 = st.launch(NodeId(3), &Launch::map(j, 0)).unwrap();
    let a1 = st.launch(NodeId(3), &Launch::map(j, 1)).unwrap();
    assert!(st.job(j).index.borrow().any.capacity() > 0);
    st.launch(NodeId(1), &Launch::map(j, 2)).unwrap();
    assert_eq!(
        st.job(j).index.borrow().any.capacity(),
        0,
        "the last pending map launched: the stacks are freed"
    );
    assert_eq!(st.find_map_task(j, NodeId(0), Locality::OffRack), None);
    // Maps 1 then 0 are pending again (killed): found by node, rack and
    // any, the latest first, as with the stacks kept.
    st.kill_attempt(a1).unwrap();
    st.kill_attempt(a0).unwrap();
    assert_eq!(
        st.find_map_task(j, NodeId(2), Locality::Node),
        Some((1, Locality::Node))
    );
    assert_eq!(
        st.find_map_task(j, NodeId(0), Locality::Node),
        Some((0, Locality::Node))
    );
    assert_eq!(st.find_map_task(j, NodeId(1), Locality::Rack), None);
    assert_eq!(
        st.find_map_task(j, NodeId(3), Locality::OffRack),
        Some((0, Locality::OffRack))
    );
}

#[test]
fn each_rack_once_lists_racks_in_first_replica_order_at_any_replication() {
    // Racks of nodes: node n on rack n % 3; up to 12 replicas (past the
    // stack array of 8).
    let rack_of = |n: NodeId| RackId(n.0 % 3);
    for len in 0..=12u32 {
        let reps: Vec<NodeId> = (0..len).map(|i| NodeId((i * 7 + 2) % 11)).collect();
        let mut got = Vec::new();
        each_rack_once(&reps, rack_of, |r| got.push(r));
        let mut expect: Vec<RackId> = Vec::new();
        for &n in &reps {
            if !expect.contains(&rack_of(n)) {
                expect.push(rack_of(n));
            }
        }
        assert_eq!(got, expect, "{len} replicas");
    }
}

#[test]
fn slot_changes_name_each_changed_node_once_until_drained() {
    let mut st = with_dataset(two_racks(), vec![vec![0], vec![2], vec![3]]);
    let drained = |st: &ClusterState| {
        let mut v = Vec::new();
        st.drain_slot_changes(|n| v.push(n.0));
        v
    };
    // Not followed until asked: nothing to drain.
    let j = st.submit(data_job(3, 0));
    st.admit(j).unwrap();
    st.launch(NodeId(3), &Launch::map(j, 2)).unwrap();
    assert!(drained(&st).is_empty());
    st.follow_slot_changes();
    let a = st.launch(NodeId(2), &Launch::map(j, 1)).unwrap();
    st.launch(NodeId(0), &Launch::map(j, 0)).unwrap();
    st.finish_map(a).unwrap();
    // Node 2 changed twice (launch and end), node 0 once: index order,
    // each once.
    assert_eq!(drained(&st), vec![0, 2]);
    assert!(drained(&st).is_empty(), "a drain forgets what it named");
    st.node_lost(NodeId(3));
    assert_eq!(drained(&st), vec![3]);
}

proptest::proptest! {
    /// Whatever launches, map ends, evictions, lost outputs, node losses
    /// and job ends happen, `holders_on` names the jobs `outputs_on` lists,
    /// each once, in ascending order.
    #[test]
    fn holders_on_names_the_jobs_of_outputs_on(
        ops in proptest::collection::vec((0u8..7, 0u32..3, 0u32..4, 0u32..4), 1..120)
    ) {
        let mut st = with_dataset(two_racks(), vec![vec![0], vec![1], vec![2], vec![3]]);
        let jobs: Vec<JobId> = (0..3).map(|_| st.submit(data_job(4, 1))).collect();
        for &j in &jobs {
            st.admit(j).unwrap();
        }
        for (op, j, t, n) in ops {
            let (j, node) = (jobs[j as usize], NodeId(n));
            match op {
                0 | 1 => {
                    let _ = st.launch(node, &Launch::map(j, t));
                }
                2 => {
                    let running: Option<AttemptId> = st
                        .attempts_on(node)
                        .find(|a| a.kind == TaskKind::Map)
                        .map(|a| a.id);
                    if let Some(a) = running {
                        st.finish_map(a).unwrap();
                    }
                }
                3 => st.evict_outputs(j, node),
                4 => st.map_output_lost(j, t, node),
                5 => {
                    if n == 3 {
                        st.node_lost(node);
                    } else {
                        st.node_recovered(node);
                    }
                }
                _ => {
                    let _ = st.kill_job(j, "test");
                }
            }
            for n in (0..4).map(NodeId) {
                let holders: Vec<JobId> = st.nodes[n.idx()].holders.iter().map(|h| h.0).collect();
                proptest::prop_assert_eq!(st.holders_by_pass(n), holders);
            }
        }
    }
}
