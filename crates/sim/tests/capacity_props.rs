//! Property tests of the Capacity Scheduler over random queue trees,
//! clusters and workloads, run through the simulator.
//!
//! A checking wrapper sees the state at every event and assignment and
//! asserts: slots are never oversubscribed; no queue (leaf or parent) ever
//! holds more slots of a kind than its maximum-capacity allows; and at the
//! end every job succeeded with each task succeeding exactly once.

use mrsched_model::{Cluster, JobId, NodeId, TaskKind, Workload, WorkloadSpec};
use mrsched_sched::policies::capacity::conf::{self, CapacityConf};
use mrsched_sched::policies::capacity::CapacityScheduler;
use mrsched_sched::{Admission, Scheduler};
use mrsched_sim::{simulate, SimOptions};
use mrsched_state::{AttemptStatus, ClusterState, JobStatus, Launch, StateEvent};
use proptest::prelude::*;
use std::collections::HashMap;

struct Checker {
    inner: CapacityScheduler,
    conf: CapacityConf,
    successes: HashMap<(JobId, TaskKind, u32), u32>,
    violations: Vec<String>,
}

impl Checker {
    fn check(&mut self, st: &ClusterState) {
        let mut cap = [0u32; 2];
        for (i, node) in st.cluster().nodes.iter().enumerate() {
            let n = NodeId(i as u32);
            let s = st.slots(n);
            if node.is_unified() {
                cap[0] += node.total_slots();
                cap[1] += node.total_slots();
                if s.running_maps + s.running_reduces > node.total_slots() {
                    self.violations.push(format!("{n} oversubscribed"));
                }
            } else {
                cap[0] += node.map_slots();
                cap[1] += st.reducer_limit(n);
                if s.running_maps > node.map_slots() || s.running_reduces > st.reducer_limit(n) {
                    self.violations.push(format!("{n} oversubscribed"));
                }
            }
        }
        let mut used: HashMap<String, [u32; 2]> = HashMap::new();
        for &j in st.active_jobs() {
            let job = st.job(j);
            let leaf = self.inner.pool_of(st, j);
            // The leaf and every ancestor hold the job's slots.
            let mut path = leaf.as_str();
            loop {
                let e = used.entry(path.to_string()).or_default();
                e[0] += job.map_counts.running;
                e[1] += job.reduce_counts.running;
                match path.rsplit_once('.') {
                    Some((p, _)) => path = p,
                    None => break,
                }
            }
        }
        for q in &self.conf.queues {
            let u = used.get(&q.path).copied().unwrap_or_default();
            for k in 0..2 {
                let max = (q.abs_max_capacity * cap[k] as f64 + 1e-9).floor() as u32;
                if u[k] > max {
                    self.violations.push(format!(
                        "{} holds {} slots of kind {k}, maximum {max}",
                        q.path, u[k]
                    ));
                }
            }
        }
    }
}

impl Scheduler for Checker {
    fn name(&self) -> String {
        self.inner.name()
    }
    fn on_submit(&mut self, st: &ClusterState, job: JobId) -> Admission {
        self.inner.on_submit(st, job)
    }
    fn on_event(&mut self, st: &ClusterState, ev: &StateEvent) {
        self.check(st);
        if let StateEvent::AttemptEnded(a) = ev {
            if a.status == AttemptStatus::Succeeded {
                for t in a.tasks() {
                    *self.successes.entry((t.job, t.kind, t.index)).or_default() += 1;
                }
            }
        }
        self.inner.on_event(st, ev)
    }
    fn assign(&mut self, st: &ClusterState, node: NodeId) -> Option<Launch> {
        self.check(st);
        self.inner.assign(st, node)
    }
    fn pool_of(&self, st: &ClusterState, j: JobId) -> String {
        self.inner.pool_of(st, j)
    }
}

/// A queue tree: root.a (optionally with a1, a2), root.b, root.default,
/// random capacities summing to 100, random maxima of at least 50% (so
/// every queue has a slot on the smallest cluster), random user limits.
fn conf_strategy() -> impl Strategy<Value = String> {
    (
        10u32..60,
        10u32..30,
        prop::bool::ANY,
        20u32..80,
        prop::collection::vec(prop_oneof![Just(-1i32), 50i32..=100], 3),
        prop::collection::vec((prop_oneof![Just(1.0f64), Just(2.0), Just(10.0)], 20u32..=100), 5),
    )
        .prop_map(|(a, b, nested, a1, maxes, users)| {
            let d = 100 - a - b;
            let mut p = vec![
                ("root.queues".to_string(), "a,b,default".to_string()),
                ("root.a.capacity".into(), a.to_string()),
                ("root.b.capacity".into(), b.to_string()),
                ("root.default.capacity".into(), d.to_string()),
            ];
            for (q, (m, cap)) in ["a", "b", "default"].iter().zip(maxes.iter().zip([a, b, d])) {
                let m = if *m >= 0 { (*m as u32).max(cap) as i32 } else { -1 };
                p.push((format!("root.{q}.maximum-capacity"), m.to_string()));
            }
            let mut leaves = vec!["root.b", "root.default"];
            if nested {
                p.push(("root.a.queues".into(), "a1,a2".into()));
                p.push(("root.a.a1.capacity".into(), a1.to_string()));
                p.push(("root.a.a2.capacity".into(), (100 - a1).to_string()));
                leaves.extend(["root.a.a1", "root.a.a2"]);
            } else {
                leaves.push("root.a");
            }
            for (leaf, (f, pct)) in leaves.iter().zip(&users) {
                p.push((format!("{leaf}.user-limit-factor"), f.to_string()));
                p.push((format!("{leaf}.minimum-user-limit-percent"), pct.to_string()));
            }
            let mut s = String::from("<configuration>\n");
            for (k, v) in p {
                s += &format!("<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>\n");
            }
            s + "</configuration>\n"
        })
}

fn cluster_strategy() -> impl Strategy<Value = Cluster> {
    (
        2u32..8,
        prop_oneof![
            (1u32..4, 1u32..3).prop_map(|(m, r)| format!("map_slots = {m}\nreduce_slots = {r}\n")),
            (1u32..3).prop_map(|s| format!("slots = {s}\n")),
        ],
    )
        .prop_map(|(nodes, slots)| {
            let text = format!(
                "heartbeat_interval_s = 2\nheartbeat_jitter_s = 0.5\nreduce_slowstart = 0.5\ntask_overhead_s = 0.5\n[[nodes]]\ncount = {nodes}\nracks = 2\n{slots}"
            );
            Cluster::from_toml_str("prop-cluster", &text).expect("generated clusters are valid")
        })
}

/// Jobs naming a random leaf (by short name or path) or none (`default`),
/// for three users.
fn workload_strategy(nested: bool) -> impl Strategy<Value = String> {
    let queues: Vec<&'static str> = if nested {
        vec!["a1", "root.a.a2", "b", "default", ""]
    } else {
        vec!["a", "root.b", "default", ""]
    };
    let n = queues.len();
    prop::collection::vec((0u32..100, 0..n, 1u32..12, 0u32..4, 1u32..20), 1..14).prop_map(
        move |jobs| {
            let mut t = String::from("name = \"prop\"\n");
            for (i, (arr, q, maps, reduces, secs)) in jobs.iter().enumerate() {
                t += &format!(
                    "[[jobs]]\nname = \"j{i}\"\narrival_s = {arr}\nuser = \"u{}\"\nmaps = {maps}\nmap_time_s = {secs}\nreduces = {reduces}\n",
                    i % 3
                );
                if *reduces > 0 {
                    t += &format!("reduce_time_s = {}\nshuffle_delay_factor = 0.2\n", secs + 1);
                }
                if !queues[*q].is_empty() {
                    t += &format!("pool = \"{}\"\n", queues[*q]);
                }
            }
            t
        },
    )
}

fn case() -> impl Strategy<Value = (String, Cluster, String, u64)> {
    conf_strategy().prop_flat_map(|xml| {
        let nested = xml.contains("root.a.queues");
        (
            Just(xml),
            cluster_strategy(),
            workload_strategy(nested),
            0u64..1000,
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn capacity_invariants_hold_and_every_task_succeeds_once((xml, cluster, text, seed) in case()) {
        let conf = conf::parse("cs.xml", &xml).expect("generated files are valid");
        let src = mrsched_model::Source::new("prop.toml", text, mrsched_model::Format::Toml);
        let spec: WorkloadSpec = src.parse().expect("generated workloads parse");
        let w = Workload::from_spec(&spec, &src).expect("generated workloads are valid");
        let mut chk = Checker {
            inner: CapacityScheduler::new("capacity".into(), conf.clone(), &cluster),
            conf,
            successes: HashMap::new(),
            violations: Vec::new(),
        };
        let opts = SimOptions { seed, ..Default::default() };
        let out = simulate(&cluster, &w, &mut chk, &opts).expect("simulation runs");
        prop_assert!(chk.violations.is_empty(), "{:?}", &chk.violations[..chk.violations.len().min(5)]);
        for job in out.state.jobs() {
            prop_assert_eq!(job.status, JobStatus::Succeeded, "{} {:?}", job.id, job.reason);
            for (kind, n) in [(TaskKind::Map, job.maps.len()), (TaskKind::Reduce, job.reduces.len())] {
                for i in 0..n {
                    let c = chk.successes.get(&(job.id, kind, i as u32)).copied().unwrap_or(0);
                    prop_assert_eq!(c, 1, "{} {:?} {} succeeded {} times", job.id, kind, i, c);
                }
            }
        }
        prop_assert_eq!(out.state.running_attempts(), 0);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Nodes fail and come back (the capacity the queues share shrinks and
    /// grows) and attempts fail: every job still succeeds and no slot is
    /// oversubscribed. (Maxima are not checked: running attempts stay when
    /// capacity shrinks, as in YARN without preemption.)
    #[test]
    fn no_job_is_lost_when_nodes_fail_and_recover((xml, cluster, text, seed) in case(), p in 0.0f64..0.2) {
        let mut cluster = cluster;
        cluster.faults.mtbf = Some(mrsched_model::Time::from_secs(300));
        cluster.faults.mttr = mrsched_model::Time::from_secs(60);
        cluster.faults.task_failure_prob = p;
        cluster.max_attempts = 50;
        let conf = conf::parse("cs.xml", &xml).expect("generated files are valid");
        let src = mrsched_model::Source::new("prop.toml", text, mrsched_model::Format::Toml);
        let spec: WorkloadSpec = src.parse().expect("generated workloads parse");
        let w = Workload::from_spec(&spec, &src).expect("generated workloads are valid");
        let mut s = CapacityScheduler::new("capacity".into(), conf, &cluster);
        let opts = SimOptions { seed, ..Default::default() };
        let out = simulate(&cluster, &w, &mut s, &opts).expect("simulation runs");
        for job in out.state.jobs() {
            prop_assert_eq!(job.status, JobStatus::Succeeded, "{} {:?}", job.id, job.reason);
        }
    }
}
