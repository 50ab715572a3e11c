//! The Adaptive / Reverse-Adaptive schedulers in whole simulated runs.
//!
//! * Every launch is one the placement matrix in force allowed (or, when
//!   work-conserving, a backfill of a slot no entry could use), and every
//!   job finishes (goal jobs and best-effort jobs, any capacity shape).
//! * With constant capacity, when the goal jobs share one goal instant, the
//!   two schedulers make the same decisions at every cycle, so the runs are
//!   identical (docs/policies/adaptive.md, "Constant capacity").
//! * Before a foreseen drop of capacity, Reverse-Adaptive meets a goal that
//!   the Adaptive Scheduler misses.

use mrsched_model::{Cluster, JobId, JobSpec, Locality, NodeId, TaskKind, Time, Workload};
use mrsched_sched::policies::adaptive::{Adaptive, AdaptiveOptions};
use mrsched_sched::Scheduler;
use mrsched_sim::{simulate, SimOptions};
use mrsched_state::{ClusterState, JobStatus, Launch, StateEvent};
use proptest::prelude::*;

/// Wraps the scheduler and checks every launch against the matrix: a map
/// beyond a job's entry on the node is a violation unless the scheduler is
/// work-conserving and no entry of the node could launch (a backfill).
struct Enforced {
    inner: Adaptive,
    violations: Vec<String>,
    launches: u64,
    backfills: u64,
}

impl Scheduler for Enforced {
    fn name(&self) -> String {
        self.inner.name()
    }
    fn on_event(&mut self, st: &ClusterState, ev: &StateEvent) {
        self.inner.on_event(st, ev)
    }
    fn assign(&mut self, st: &ClusterState, node: NodeId) -> Option<Launch> {
        let runs = |j: JobId| {
            st.attempts_on(node)
                .filter(|a| a.kind == TaskKind::Map && a.job == j)
                .count() as u32
        };
        let entry_could_launch = self
            .inner
            .matrix()
            .on_node(node)
            .iter()
            .any(|&(j, allowed)| {
                runs(j) < allowed && st.find_map_task(j, node, Locality::OffRack).is_some()
            });
        let l = self.inner.assign(st, node);
        if let Some(Launch::Map { job, .. }) = &l {
            self.launches += 1;
            let running = runs(*job);
            let allowed = self.inner.matrix().get(*job, node);
            let backfill = self.inner.options().work_conserving && !entry_could_launch;
            if running >= allowed && backfill {
                self.backfills += 1;
            } else if running >= allowed {
                self.violations.push(format!(
                    "at {} {job} launched a map on {node}: {running} running, {allowed} allowed",
                    st.now()
                ));
            }
        }
        l
    }
    fn next_timer(&self) -> Option<Time> {
        self.inner.next_timer()
    }
    fn on_timer(&mut self, st: &ClusterState) -> Vec<mrsched_sched::Action> {
        self.inner.on_timer(st)
    }
    fn stats(&self) -> std::collections::BTreeMap<String, f64> {
        self.inner.stats()
    }
}

fn cluster(nodes: u32, slots: u32, capacity: &str) -> Cluster {
    Cluster::from_toml_str(
        "c",
        &format!(
            "heartbeat_interval_s = 3\n[[nodes]]\ncount = {nodes}\nracks = 2\nmap_slots = {slots}\nreduce_slots = 1\n{capacity}"
        ),
    )
    .expect("valid cluster")
}

/// `(arrival_s, maps, map_s, goal_s relative)` jobs, map-only.
fn workload(jobs: &[(f64, u32, f64, Option<f64>)]) -> Workload {
    let mut w = Workload {
        name: "w".into(),
        ..Default::default()
    };
    for (i, &(arr, maps, map_s, goal)) in jobs.iter().enumerate() {
        let mut j = JobSpec::explicit(
            &format!("j{i}"),
            Time::from_secs_f64(arr),
            &vec![map_s; maps as usize],
            &[],
            1.0,
        );
        j.goal = goal.map(Time::from_secs_f64);
        j.expected_map = Some(Time::from_secs_f64(map_s));
        w.jobs.push(j.into());
    }
    w.jobs.sort_by_key(|j| j.arrival);
    w
}

fn run(c: &Cluster, w: &Workload, opts: AdaptiveOptions) -> (mrsched_sim::SimOutput, Enforced) {
    let mut s = Enforced {
        inner: Adaptive::new(opts, c),
        violations: Vec::new(),
        launches: 0,
        backfills: 0,
    };
    let out = simulate(c, w, &mut s, &SimOptions::default()).expect("simulation runs");
    (out, s)
}

fn capacity_rule() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        (0.0f64..0.6).prop_map(|f| format!("[[capacity]]\nkind = \"constant\"\nfraction = {f}\n")),
        (0.0f64..0.3, 0.3f64..0.6, 100.0f64..600.0).prop_map(|(lo, hi, p)| format!(
            "[[capacity]]\nkind = \"sine\"\nmin_fraction = {lo}\nmax_fraction = {hi}\nperiod_s = {p}\nstep_s = 10\n"
        )),
        (0.2f64..0.6, 50.0f64..200.0).prop_map(|(f, every)| format!(
            "[[capacity]]\nkind = \"bursts\"\nfraction = {f}\nevery_s = {every}\nduration_s = {}\n",
            every / 2.0
        )),
    ]
}

fn jobs() -> impl Strategy<Value = Vec<(f64, u32, f64, Option<f64>)>> {
    prop::collection::vec(
        (
            0.0f64..200.0,
            1u32..40,
            2.0f64..30.0,
            prop::option::weighted(0.7, 10.0f64..300.0),
        ),
        1..10,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn launches_follow_the_matrix_and_every_job_ends(
        nodes in 1u32..6,
        slots in 2u32..6,
        cap in capacity_rule(),
        jobs in jobs(),
        reverse in prop::bool::ANY,
    ) {
        let c = cluster(nodes, slots, &cap);
        let w = workload(&jobs);
        let opts = if reverse { AdaptiveOptions::reverse_adaptive() } else { AdaptiveOptions::adaptive() };
        let (out, s) = run(&c, &w, opts);
        prop_assert!(s.violations.is_empty(), "{:?}", s.violations);
        prop_assert!(s.launches > 0);
        for j in out.state.jobs() {
            prop_assert_eq!(j.status, JobStatus::Succeeded);
        }
    }

    #[test]
    fn constant_capacity_and_one_goal_instant_give_identical_runs(
        nodes in 1u32..6,
        slots in 2u32..6,
        fraction in 0.0f64..0.6,
        jobs in jobs(),
        goal_at in 100.0f64..800.0,
    ) {
        let c = cluster(nodes, slots, &format!("[[capacity]]\nkind = \"constant\"\nfraction = {fraction}\n"));
        // Every goal job's goal is the same instant `goal_at` (or has passed
        // on arrival, a goal of 1 s); the others are best effort.
        let jobs: Vec<_> = jobs
            .into_iter()
            .map(|(arr, m, s, g)| (arr, m, s, g.map(|_| (goal_at - arr).max(1.0))))
            .collect();
        let w = workload(&jobs);
        let (a, sa) = run(&c, &w, AdaptiveOptions::adaptive());
        let (r, sr) = run(&c, &w, AdaptiveOptions::reverse_adaptive());
        prop_assert!(sa.violations.is_empty() && sr.violations.is_empty());
        for (ja, jr) in a.state.jobs().iter().zip(r.state.jobs()) {
            prop_assert_eq!(ja.finish, jr.finish, "{}", ja.id);
            for (ta, tr) in ja.maps.iter().zip(&jr.maps) {
                prop_assert_eq!((ta.start, ta.finish, ta.node), (tr.start, tr.finish, tr.node));
            }
        }
        prop_assert_eq!(sa.inner.predictions(), sr.inner.predictions());
        prop_assert_eq!(sa.inner.cycles(), sr.inner.cycles());
    }
}

/// 10 nodes of 10 map slots. The other workload takes 9 slots of every node
/// from 100 s to 600 s (10 slots left in all). Job A: 400 maps of 10 s due
/// at 250 s; job L: 3,000 maps of 10 s due at 1,000 s.
///
/// The Adaptive Scheduler sees 100 slots and spreads the spare ones by
/// utility: A gets about 22, L about 78, and A is well ahead of its even pace
/// (s_req ~16) until the drop leaves it ~180 maps for 10 slots: it ends near
/// 280 s. Reverse-Adaptive knows L fits after 250 s (s_fit = 1) and that
/// A's work must run while the 100 slots are there (s_fit ~35 of the next
/// cycle's capacity): A ends before the drop.
///
/// This is the estimators' difference, so both run with the paper's
/// placement (surplus by utility, no backfill). With the default placement
/// the surplus goes to A, due first, and both meet its goal.
#[test]
fn reverse_adaptive_meets_a_goal_adaptive_misses_before_a_drop() {
    let c = cluster(
        10,
        10,
        "[[capacity]]\nkind = \"trace\"\npoints = [[0, 0.0], [100, 0.9], [600, 0.0]]\n",
    );
    let w = workload(&[
        (0.0, 400, 10.0, Some(250.0)),
        (0.0, 3000, 10.0, Some(1000.0)),
    ]);
    let (a, sa) = run(&c, &w, AdaptiveOptions::adaptive().as_in_paper());
    let (r, sr) = run(&c, &w, AdaptiveOptions::reverse_adaptive().as_in_paper());
    assert!(sa.violations.is_empty() && sr.violations.is_empty());
    assert_eq!((sa.backfills, sr.backfills), (0, 0));
    let finish = |o: &mrsched_sim::SimOutput, j: u32| o.state.job(JobId(j)).finish.unwrap();
    let goal = Time::from_secs(250);
    for opts in [
        AdaptiveOptions::adaptive(),
        AdaptiveOptions::reverse_adaptive(),
    ] {
        let (o, s) = run(&c, &w, opts);
        assert!(s.violations.is_empty());
        assert!(
            finish(&o, 0) <= goal,
            "{}: A ends at {}",
            s.inner.name(),
            finish(&o, 0)
        );
        assert!(finish(&o, 1) <= Time::from_secs(1000));
    }
    assert!(
        finish(&a, 0) > goal,
        "adaptive: A ends at {}",
        finish(&a, 0)
    );
    assert!(
        finish(&r, 0) <= goal,
        "reverse-adaptive: A ends at {}",
        finish(&r, 0)
    );
    // L meets its goal under both.
    assert!(finish(&a, 1) <= Time::from_secs(1000));
    assert!(finish(&r, 1) <= Time::from_secs(1000));
    // Reverse-Adaptive's predictions of A were closer to what happened.
    let err = |s: &Enforced| {
        let p: Vec<f64> = s
            .inner
            .predictions()
            .iter()
            .filter(|p| p.job == JobId(0))
            .map(|p| p.error_s().abs())
            .collect();
        p.iter().sum::<f64>() / p.len() as f64
    };
    assert!(err(&sr) < err(&sa), "{} vs {}", err(&sr), err(&sa));
}

/// EDF (the baseline of the adaptive experiments) on one slot: goal jobs by
/// absolute goal (arrival + goal), equal goals by arrival then id, jobs
/// without a goal last by arrival; one job after the other without a gap.
#[test]
fn edf_serves_earliest_goal_first_best_effort_last() {
    let c = cluster(1, 1, "");
    // (arrival, maps, map_s, goal): j0 best effort, j1 due at 500 s, j2
    // and j3 due at 100 s (j3 arrives later, relative goal shorter), j4
    // best effort.
    let w = workload(&[
        (0.0, 1, 10.0, None),
        (0.0, 1, 10.0, Some(500.0)),
        (0.0, 1, 10.0, Some(100.0)),
        (1.0, 1, 10.0, Some(99.0)),
        (2.0, 1, 10.0, None),
    ]);
    let mut s = mrsched_sched::policies::edf::Edf::new();
    let out = simulate(&c, &w, &mut s, &SimOptions::default()).expect("simulation runs");
    let start = |j: u32| out.state.job(JobId(j)).maps[0].start;
    let mut order: Vec<u32> = (0..5).collect();
    order.sort_by_key(|&j| start(j));
    assert_eq!(order, vec![2, 3, 1, 0, 4]);
    // Work-conserving: each map starts when the one before it ends.
    for k in 1..order.len() {
        let prev = out.state.job(JobId(order[k - 1])).maps[0].finish;
        assert_eq!(start(order[k]), prev, "job {} waited", order[k]);
    }
}
