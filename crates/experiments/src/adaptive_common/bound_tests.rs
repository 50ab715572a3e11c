//! The upper bound against simulated runs: never below what a scheduler
//! achieved, never above the number of goal jobs.

use super::*;
use mrsched_model::Time;
use proptest::prelude::*;

/// Three nodes of four map slots, 1 s start-up, 3 s heartbeats, with the
/// other workload taking `fractions[k]` of every node from `times[k]`.
fn cluster(steps: &[(u32, u32)]) -> Cluster {
    let mut text = String::from(
        "heartbeat_interval_s = 3\ntask_overhead_s = 1\n[[nodes]]\ncount = 3\nmap_slots = 4\nreduce_slots = 1\n",
    );
    if !steps.is_empty() {
        let mut t = 0;
        let mut points = vec!["[0, 0.0]".to_string()];
        for &(dt, quarter) in steps {
            t += dt;
            points.push(format!("[{t}, {}]", quarter as f64 / 4.0));
        }
        text.push_str(&format!(
            "[[capacity]]\nkind = \"trace\"\npoints = [{}]\n",
            points.join(", ")
        ));
    }
    Cluster::from_toml_str("small", &text).expect("valid cluster")
}

fn small_workload(seed: u64, jobs: usize, alone: &Cluster) -> Workload {
    goal_mix(
        seed,
        &GoalMixParams {
            jobs,
            mean_interarrival_s: 15.0,
            maps: (1, 30),
            map_time_s: (5.0, 40.0),
            goal_factor: (1.0, 3.0),
            ..Default::default()
        },
        alone,
    )
}

#[test]
fn bound_is_reached_when_goals_are_loose() {
    // One small job at a time with generous goals: every scheduler meets
    // every goal, and the bound says so.
    let c = cluster(&[]);
    let w = goal_mix(
        5,
        &GoalMixParams {
            jobs: 6,
            mean_interarrival_s: 600.0,
            maps: (1, 8),
            map_time_s: (5.0, 10.0),
            goal_factor: (5.0, 6.0),
            best_effort: 0.0,
            ..Default::default()
        },
        &c,
    );
    let b = goal_bound(&c, &w);
    assert_eq!(b.goal_jobs, 6);
    assert_eq!(b.met, 6);
    let (out, _) = run_one(&c, &w, "fifo", 5).unwrap();
    let r = out.report();
    assert_eq!(
        r.jobs.iter().filter(|j| j.goal_met == Some(true)).count(),
        6
    );
}

#[test]
fn tasks_running_past_a_drop_count() {
    // Four slots until 40 s, none after; four jobs of one 50 s map due 60 s
    // after arriving at 0. The maps start before the drop and are not
    // killed, so every goal is met, although the curve leaves only 160 of
    // the 204 slot-seconds the maps take before 60 s: the bound must count
    // the tasks that keep running after the curve falls.
    let c = Cluster::from_toml_str(
        "drop",
        "heartbeat_interval_s = 3\ntask_overhead_s = 1\n[[nodes]]\nmap_slots = 4\n\
         [[capacity]]\nkind = \"trace\"\npoints = [[0, 0.0], [40, 1.0]]\n",
    )
    .unwrap();
    let mut b = mrsched_workload::WorkloadBuilder::new("drop");
    for i in 0..4 {
        let j = b.explicit_job(format!("j{i}"), Time::ZERO, &[50.0], &[], 1.0);
        j.goal = Some(Time::from_secs(60));
    }
    let w = b.build();
    let (out, _) = run_one(&c, &w, "fifo", 1).unwrap();
    let met = out
        .report()
        .jobs
        .iter()
        .filter(|j| j.goal_met == Some(true))
        .count();
    assert_eq!(met, 4);
    assert_eq!(goal_bound(&c, &w).met, 4);
}

#[test]
fn reading_names_the_best_scheduler_and_the_gap() {
    let mut b = BoundMeasures::default();
    let mut fractions = vec![1.0; 8];
    fractions.extend([0.5, 0.0]);
    b.add(&GoalBound {
        goal_jobs: 10,
        hopeless: 1,
        value: 8.5,
        met: 8,
        fractions,
        work: vec![2.0; 10],
        buckets: 3,
        arcs: 5,
    });
    let m = |met| Measures {
        goal_jobs: 10,
        goals_met: met,
        ..Default::default()
    };
    let s = bound_against(
        &b,
        &[
            ("fifo".into(), m(6)),
            ("edf".into(), m(7)),
            ("x".into(), m(7)),
        ],
    );
    assert!(s.contains("more than 80.0% of the goals (8/10)"), "{s}");
    assert!(
        s.contains("`edf`, meets 70.0% (7), 10.0 points (1 goal) below"),
        "{s}"
    );
    assert!(s.contains("2 goal jobs (1 of them because"), "{s}");
    assert!(
        s.contains("leaves 15.0% of the goal jobs' map work undone"),
        "{s}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn bound_is_never_below_any_scheduler(
        seed in 0u64..1_000_000,
        jobs in 2usize..10,
        steps in prop::collection::vec((20u32..200, 0u32..4), 0..5),
    ) {
        let alone = cluster(&[]);
        let c = cluster(&steps);
        let w = small_workload(seed, jobs, &alone);
        let b = goal_bound(&c, &w);
        let goal_jobs = w.jobs.iter().filter(|j| j.goal.is_some()).count();
        prop_assert_eq!(b.goal_jobs, goal_jobs);
        prop_assert!(b.met <= goal_jobs);
        prop_assert!(b.value <= goal_jobs as f64 + 1e-9);
        for s in SCHEDULERS {
            let (out, _) = run_one(&c, &w, s, seed).unwrap();
            let met = out
                .report()
                .jobs
                .iter()
                .filter(|j| j.goal_met == Some(true))
                .count();
            prop_assert!(met <= b.met, "{s} met {met} goals, bound {} ({:?})", b.met, b);
        }
    }
}
