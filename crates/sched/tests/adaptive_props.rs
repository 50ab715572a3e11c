//! Property tests of the Adaptive / Reverse-Adaptive family.
//!
//! * The placement never asks a node for more than its capacity; it hands
//!   out every slot some job can use (goal jobs before best-effort ones) and
//!   keeps running maps where they run when they still fit.
//! * With constant capacity, Reverse-Adaptive behaves like Adaptive, in this
//!   precise sense (docs/policies/adaptive.md, "Constant capacity"):
//!   1. both plan with the same capacity on every node and in total;
//!   2. the goal job(s) with the earliest goal get s_fit = s_req;
//!   3. when every goal job has the same goal (any number of best-effort
//!      jobs besides), s_fit = s_req for every job, so the two produce the
//!      same placement matrix and the same predictions at that cycle (and
//!      whole runs coincide; the simulator's tests check that).

use mrsched_model::{Cluster, JobId, JobSpec, NodeId, Time};
use mrsched_sched::policies::adaptive::capacity::{node_capacity, CapacityCurve, CapacityView};
use mrsched_sched::policies::adaptive::estimate::{reverse_schedule, s_req, FitJob};
use mrsched_sched::policies::adaptive::placement::{place, PlaceJob, Surplus};
use mrsched_sched::policies::adaptive::status::JobRow;
use mrsched_sched::policies::adaptive::utility::clamp_estimate;
use mrsched_sched::policies::adaptive::{Adaptive, AdaptiveOptions};
use mrsched_sched::Scheduler;
use mrsched_state::{ClusterState, Launch};
use proptest::prelude::*;

/// Random placement inputs: jobs (goal or best effort, estimate, pending),
/// nodes (capacity, running maps of which jobs).
#[derive(Clone, Debug)]
struct Case {
    /// `(goal, estimate, pending)`.
    jobs: Vec<(Option<u64>, u32, u32)>,
    nodes: Vec<NodeCase>,
}

/// `(capacity, running (job, maps))`.
type NodeCase = (u32, Vec<(usize, u32)>);

fn case() -> impl Strategy<Value = Case> {
    (1usize..12, 1usize..10).prop_flat_map(|(nj, nn)| {
        let jobs = prop::collection::vec(
            (prop::option::weighted(0.8, 1u64..1000), 0u32..40, 0u32..30),
            nj,
        );
        let nodes = prop::collection::vec(
            (0u32..12, prop::collection::vec((0..nj, 1u32..4), 0..4)),
            nn,
        );
        (jobs, nodes).prop_map(|(jobs, nodes)| Case { jobs, nodes })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn placement_never_exceeds_capacity(c in case()) {
        let mut running_of = vec![0u32; c.jobs.len()];
        let mut running = Vec::new();
        let mut capacity = Vec::new();
        for (i, (cap, runs)) in c.nodes.iter().enumerate() {
            for &(j, k) in runs {
                running.push((j, NodeId(i as u32), k));
                running_of[j] += k;
            }
            capacity.push(*cap);
        }
        let jobs: Vec<PlaceJob> = c.jobs.iter().enumerate().map(|(i, &(goal, est, pending))| {
            let max = pending + running_of[i];
            PlaceJob {
                job: JobId(i as u32),
                goal: goal.map(Time::from_secs),
                submitted: Time::from_secs(i as u64),
                estimate: est.min(max),
                max,
                hopeless: false,
            }
        }).collect();
        let p = place(&jobs, &capacity, &running, Surplus::default());
        for (i, &cap) in capacity.iter().enumerate() {
            let n = NodeId(i as u32);
            prop_assert!(p.node_total(n) <= cap, "node {i}: {} allowed, capacity {cap}", p.node_total(n));
        }
        for (r, j) in jobs.iter().enumerate() {
            // No job gets more than it can use, and rows add up.
            prop_assert!(p.job_total(r) <= j.max);
            let row: u32 = (0..capacity.len()).map(|n| p.get(j.job, NodeId(n as u32))).sum();
            prop_assert_eq!(row, p.job_total(r));
        }
        // Work conserving: every slot is allowed to someone, or every job
        // has all it can use.
        let total: u32 = capacity.iter().sum();
        let demand: u32 = jobs.iter().map(|j| j.max).sum();
        let allowed: u32 = (0..capacity.len()).map(|n| p.node_total(NodeId(n as u32))).sum();
        prop_assert_eq!(allowed, total.min(demand));
        // Goal jobs first: a best-effort job has slots only if every goal
        // job has all it can use.
        let be_slots: u32 = jobs.iter().enumerate().filter(|(_, j)| j.goal.is_none()).map(|(r, _)| p.job_total(r)).sum();
        if be_slots > 0 {
            for (r, j) in jobs.iter().enumerate().filter(|(_, j)| j.goal.is_some()) {
                prop_assert_eq!(p.job_total(r), j.max);
            }
        }
        // Running maps stay where they are when the job keeps at least as
        // many slots as it runs and no node's capacity is short.
        for &(j, n, k) in &running {
            let node_running: u32 = running.iter().filter(|r| r.1 == n).map(|r| r.2).sum();
            if p.job_total(j) >= running_of[j] && node_running <= capacity[n.idx()] {
                prop_assert!(p.get(JobId(j as u32), n) >= k);
            }
        }
    }

    #[test]
    fn constant_capacity_earliest_goal_job_gets_s_fit_equal_s_req(
        slots in 1.0f64..500.0,
        now_s in 0u64..1000,
        jobs in prop::collection::vec((0u64..2000, 0u32..300, 1.0f64..120.0, 0u32..10), 1..20),
        cycle_s in 1u64..60,
    ) {
        let now = Time::from_secs(now_s);
        let rows: Vec<(JobRow, Time)> = jobs.iter().enumerate().map(|(i, &(g, pending, mu, running))| {
            (JobRow {
                job: JobId(i as u32),
                goal: Some(Time::from_secs(g)),
                submitted: Time::ZERO,
                pending,
                running,
                mean_map_s: mu,
                running_left_s: 0.0,
                running_max_left_s: 0.0,
            }, Time::from_secs(g))
        }).collect();
        let fit: Vec<FitJob> = rows.iter().map(|(r, g)| FitJob::from_row(r, *g)).collect();
        let rs = reverse_schedule(now, &fit, &CapacityCurve::constant(slots), Time::from_secs(cycle_s));
        let earliest = rows.iter().map(|(_, g)| *g).filter(|&g| g > now).min();
        let one_goal = rows.iter().map(|(_, g)| *g).filter(|&g| g > now).all(|g| Some(g) == earliest);
        for (i, (r, g)) in rows.iter().enumerate() {
            let req = clamp_estimate(s_req(r, *g, now), r.max_slots());
            let fit = clamp_estimate(rs.raw[i], r.max_slots());
            if *g <= now || Some(*g) == earliest || one_goal {
                prop_assert_eq!(req, fit, "job {} goal {:?} now {:?}", i, g, now);
            }
        }
    }
}

/// A random cluster with a constant capacity rule and jobs that all share
/// one absolute goal (and some best-effort jobs), some maps running.
fn shared_goal_state(
    nodes: u32,
    slots: u32,
    fraction: f64,
    jobs: &[(u32, f64, bool)],
    goal_s: u64,
    launches: usize,
) -> ClusterState {
    let c = Cluster::from_toml_str(
        "c",
        &format!(
            "[[nodes]]\ncount = {nodes}\nracks = 2\nmap_slots = {slots}\nreduce_slots = 1\n\
             [[capacity]]\nkind = \"constant\"\nfraction = {fraction}\n"
        ),
    )
    .unwrap();
    let mut st = ClusterState::new(c.clone());
    for n in 0..nodes {
        let (m, r) = c.taken_at(NodeId(n), Time::ZERO);
        st.set_taken(NodeId(n), m, r);
    }
    for (i, &(maps, map_s, with_goal)) in jobs.iter().enumerate() {
        let mut spec = JobSpec::explicit(
            &format!("j{i}"),
            Time::ZERO,
            &vec![map_s; maps as usize],
            &[],
            1.0,
        );
        if with_goal {
            spec.goal = Some(Time::from_secs(goal_s));
        }
        let j = st.submit(spec);
        st.admit(j).unwrap();
    }
    // Launch a few maps round-robin on nodes with room, then move on.
    let mut k = 0;
    'outer: for (i, _) in jobs.iter().enumerate() {
        for n in 0..nodes {
            if k >= launches {
                break 'outer;
            }
            let node = NodeId(n);
            if st.free_map_slots(node) == 0 {
                continue;
            }
            if let Some((t, _)) =
                st.find_map_task(JobId(i as u32), node, mrsched_model::Locality::OffRack)
            {
                st.launch(node, &Launch::map(JobId(i as u32), t)).unwrap();
                k += 1;
            }
        }
    }
    st.advance_to(Time::from_secs(5));
    st.take_events();
    st
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn constant_capacity_one_goal_same_decisions(
        nodes in 1u32..12,
        slots in 1u32..8,
        fraction in 0.0f64..0.9,
        jobs in prop::collection::vec((1u32..60, 5.0f64..90.0, prop::bool::weighted(0.7)), 1..8),
        goal_s in 6u64..400,
        launches in 0usize..20,
    ) {
        let st = shared_goal_state(nodes, slots, fraction, &jobs, goal_s, launches);
        let mut a = Adaptive::new(AdaptiveOptions::adaptive(), st.cluster());
        let mut r = Adaptive::new(AdaptiveOptions::reverse_adaptive(), st.cluster());
        for j in st.active_jobs() {
            a.on_event(&st, &mrsched_state::StateEvent::JobAdmitted(*j));
            r.on_event(&st, &mrsched_state::StateEvent::JobAdmitted(*j));
        }
        let times = st.cluster().capacity_change_times();
        for n in 0..nodes {
            let n = NodeId(n);
            prop_assert_eq!(
                node_capacity(&st, CapacityView::Now, n, Time::from_secs(10), &times),
                node_capacity(&st, CapacityView::Forecast, n, Time::from_secs(10), &times)
            );
        }
        a.run_cycle(&st);
        r.run_cycle(&st);
        // Same estimates, allocations and predicted completions per job.
        prop_assert_eq!(a.last_cycle(), r.last_cycle());
        prop_assert_eq!(a.matrix(), r.matrix());
    }
}
