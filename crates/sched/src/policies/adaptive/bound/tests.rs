use super::*;
use crate::policies::msjo::lp::{Cmp, LpBackend, Microlp};
use crate::testutil::cluster;
use mrsched_model::JobSpec;
use proptest::prelude::*;
use std::sync::Arc;

fn workload(jobs: Vec<JobSpec>) -> Workload {
    Workload {
        name: "w".into(),
        datasets: Vec::new(),
        jobs: jobs.into_iter().map(Arc::new).collect(),
    }
}

fn secs(s: u64) -> Time {
    Time::from_secs(s)
}

fn job(arrival_s: u64, maps: &[f64], goal_s: Option<u64>) -> JobSpec {
    let mut j = JobSpec::explicit("j", Time::from_secs(arrival_s), maps, &[], 1.0);
    j.goal = goal_s.map(Time::from_secs);
    j
}

#[test]
fn two_slots_meet_two_of_three_goals() {
    // One node, two slots, no start-up: three jobs of one 10 s map, all
    // due 10 s after arriving at 0. 20 slot-seconds fit two of them.
    let c = cluster("[[nodes]]\nmap_slots = 2\n");
    let w = workload(vec![
        job(0, &[10.0], Some(10)),
        job(0, &[10.0], Some(10)),
        job(0, &[10.0], Some(10)),
    ]);
    let b = goal_bound(&c, &w);
    assert_eq!(b.goal_jobs, 3);
    assert!((b.value - 2.0).abs() < 1e-9, "{b:?}");
    assert_eq!(b.met, 2);
    // A fourth job due later fits after them: 3.
    let mut jobs: Vec<JobSpec> = w.jobs.iter().map(|j| (**j).clone()).collect();
    jobs.push(job(0, &[10.0], Some(20)));
    assert_eq!(goal_bound(&c, &workload(jobs)).met, 3);
}

#[test]
fn small_jobs_first_and_start_up_counts() {
    // Two slots for 10 s; a job of two 5 s maps (10 slot-s) and one of
    // three 6 s maps (18 slot-s) both due at 10 s. Both together need 28 >
    // 20: the bound takes the small one whole and 10/18 of the other.
    let c = cluster("[[nodes]]\nmap_slots = 2\n");
    let w = workload(vec![
        job(0, &[6.0, 6.0, 6.0], Some(10)),
        job(0, &[5.0, 5.0], Some(10)),
    ]);
    let b = goal_bound(&c, &w);
    assert!((b.fractions[1] - 1.0).abs() < 1e-9);
    assert!((b.fractions[0] - 10.0 / 18.0).abs() < 1e-9, "{b:?}");
    assert_eq!(b.work, vec![18.0, 10.0]);
    assert_eq!(b.met, 1);
    // With 1 s of start-up per attempt the two-map job needs 12 slot-s,
    // and a map of 10 s no longer fits a 10 s goal at all.
    let c = cluster("task_overhead_s = 1\n[[nodes]]\nmap_slots = 2\n");
    let w = workload(vec![
        job(0, &[10.0], Some(10)),
        job(0, &[5.0, 5.0], Some(10)),
    ]);
    let b = goal_bound(&c, &w);
    assert_eq!(b.hopeless, 1);
    assert_eq!(b.fractions, vec![0.0, 1.0]);
}

#[test]
fn a_job_runs_at_most_its_task_count_at_once() {
    // Four slots for 20 s (80 slot-s). Jobs of two 10 s maps due at 10 s
    // and two 20 s maps due at 20 s fit together.
    let c = cluster("[[nodes]]\nmap_slots = 4\n");
    let w = workload(vec![
        job(0, &[10.0, 10.0], Some(10)),
        job(0, &[20.0, 20.0], Some(20)),
    ]);
    assert_eq!(goal_bound(&c, &w).met, 2);
    let w = workload(vec![
        job(0, &[10.0, 10.0], Some(10)),
        job(0, &[20.0, 20.0, 20.0], Some(20)),
    ]);
    // With three 20 s maps the second job needs 60 of the 60 slot-s the
    // first leaves, but it runs at most 3 maps at once: in [0, 10] the
    // first job, limited to 2 slots, takes both of its 20 slot-s on 2 of
    // them, so the second gets 2 x 10 + 3 x 10 = 50 of its 60.
    let b = goal_bound(&c, &w);
    assert_eq!(b.met, 1, "{b:?}");
    assert!(b.value < 2.0 - 1e-3);
    // Work 30 s in one map cannot be done in a 20 s window with any slots.
    let w = workload(vec![job(0, &[30.0], Some(20))]);
    assert_eq!(goal_bound(&c, &w).met, 0);
}

#[test]
fn capacity_counts_tasks_still_running_after_a_drop() {
    // 10 slots, half of them taken from 100 s: running tasks finish, so for
    // the longest attempt (30 s) after the drop up to 10 slots stay busy.
    let c = cluster(
        "[[nodes]]\nmap_slots = 10\n[[capacity]]\nkind = \"trace\"\npoints = [[0, 0.0], [100, 0.5]]\n",
    );
    assert_eq!(
        running_capacity(&c, secs(30)),
        vec![(secs(0), 10), (secs(130), 5)]
    );
    // A rise shows at once.
    let c = cluster(
        "[[nodes]]\nmap_slots = 10\n[[capacity]]\nkind = \"trace\"\npoints = [[0, 0.5], [100, 0.0]]\n",
    );
    assert_eq!(
        running_capacity(&c, secs(30)),
        vec![(secs(0), 5), (secs(100), 10)]
    );
    // Nodes whose curves differ are maximised one by one, then summed:
    // node 0 loses its slots at 100 s, node 1 gains them back.
    let c = cluster(
        "[[nodes]]\nname = \"a\"\nmap_slots = 4\n[[nodes]]\nname = \"b\"\nmap_slots = 4\n\
         [[capacity]]\nkind = \"trace\"\ngroup = \"a\"\npoints = [[0, 0.0], [100, 1.0]]\n\
         [[capacity]]\nkind = \"trace\"\ngroup = \"b\"\npoints = [[0, 1.0], [100, 0.0]]\n",
    );
    assert_eq!(
        running_capacity(&c, secs(30)),
        vec![(secs(0), 4), (secs(100), 8), (secs(130), 4)]
    );
}

/// The same relaxation solved by microlp from the network: the greedy flow
/// must reach the LP optimum.
fn lp_value(jobs: &[BoundJob], net: &Network) -> f64 {
    let mut lp = Microlp::default();
    let xs: Vec<_> = jobs.iter().map(|_| lp.add_var(-1.0, 0.0, 1.0)).collect();
    let mut per_bucket = vec![Vec::new(); net.buckets()];
    for (j, (first, caps)) in net.arcs.iter().enumerate() {
        let mut row = vec![(xs[j], -(jobs[j].work as f64))];
        for (k, &c) in caps.iter().enumerate() {
            let y = lp.add_var(0.0, 0.0, c as f64);
            row.push((y, 1.0));
            per_bucket[first + k].push((y, 1.0));
        }
        lp.add_row(&row, Cmp::Eq, 0.0);
    }
    for (b, row) in per_bucket.iter().enumerate() {
        if !row.is_empty() {
            lp.add_row(row, Cmp::Le, net.room(b) as f64);
        }
    }
    -lp.solve().expect("feasible: all zero")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn greedy_flow_is_the_lp_optimum(
        raw in prop::collection::vec((0u32..200, 1u32..6, 5u32..60, 10u32..200), 1..9),
        steps in prop::collection::vec((1u32..300, 0u32..20), 0..4),
    ) {
        let jobs: Vec<BoundJob> = raw
            .iter()
            .map(|&(a, n, d, window)| BoundJob {
                arrival: a as u64,
                goal: (a + window) as u64,
                tasks: n as u64,
                work: (n * d) as u64,
            })
            .collect();
        let mut capacity = vec![(0u64, 4u64)];
        let mut t = 0;
        for &(dt, slots) in &steps {
            t += dt as u64;
            capacity.push((t, slots as u64));
        }
        let net = Network::new(&jobs, &capacity);
        let greedy: f64 = greedy_flow(&jobs, &net)
            .iter()
            .zip(&jobs)
            .map(|(&f, j)| f as f64 / j.work as f64)
            .sum();
        let lp = lp_value(&jobs, &net);
        prop_assert!((greedy - lp).abs() < 1e-6, "greedy {greedy} lp {lp}");
    }
}
