//! FLEX, CIRCUMFLEX and BATCH driven by the simulator: shared scans never
//! scan a block twice for a job, riders are every job still needing the
//! block, and every allocation fits the cluster.

use mrsched_model::{Cluster, JobId, NodeId, Time, Workload};
use mrsched_sched::policies::flex::scheduler::Flex;
use mrsched_sched::policies::flex::settings;
use mrsched_sched::policies::flex::subjobs::Sharing;
use mrsched_sched::{Action, Admission, Scheduler, SchedulerConfig};
use mrsched_sim::{simulate, SimOptions};
use mrsched_state::{ClusterState, JobStatus, Launch, StateEvent, TaskStatus};
use mrsched_workload::WorkloadBuilder;
use proptest::prelude::*;
use std::collections::BTreeMap;

/// Wraps a [`Flex`] and checks every decision against the state.
struct Checked {
    inner: Flex,
    sharing: Sharing,
    violations: Vec<String>,
}

impl Checked {
    fn check_schedule(&mut self, st: &ClusterState) {
        let p = self.inner.problem();
        let s = self.inner.schedule();
        for iv in &s.intervals {
            let total: u32 = iv.alloc.iter().map(|a| a.1).sum();
            if total > p.slots {
                self.violations
                    .push(format!("{}: {total} slots > S = {}", st.now(), p.slots));
            }
            for &(c, n) in &iv.alloc {
                let cell = &p.cells[c as usize];
                if n > cell.max || n < cell.min {
                    self.violations.push(format!(
                        "cell {c} got {n} outside [{}, {}]",
                        cell.min, cell.max
                    ));
                }
                for &q in &p.preds[c as usize] {
                    if s.cell_end[q as usize] > iv.start + 1e-9 {
                        self.violations
                            .push(format!("cell {c} ran before its predecessor {q}"));
                    }
                }
            }
        }
    }
}

impl Scheduler for Checked {
    fn name(&self) -> String {
        self.inner.name()
    }
    fn on_submit(&mut self, st: &ClusterState, job: JobId) -> Admission {
        self.inner.on_submit(st, job)
    }
    fn on_event(&mut self, st: &ClusterState, ev: &StateEvent) {
        self.inner.on_event(st, ev)
    }
    fn on_heartbeat(&mut self, st: &ClusterState, node: NodeId) {
        self.inner.on_heartbeat(st, node);
        self.check_schedule(st);
    }
    fn assign(&mut self, st: &ClusterState, node: NodeId) -> Option<Launch> {
        let l = self.inner.assign(st, node);
        if let Some(Launch::Map { job, task, riders }) = &l {
            let block = st.job(*job).spec.maps.at(*task as usize).block;
            let pending: Vec<(JobId, u32)> = match block {
                Some(b) => st
                    .scanners(b.dataset)
                    .iter()
                    .filter(|&&j| j != *job)
                    .filter_map(|&j| {
                        let t = st.job(j).map_for_block(b.dataset, b.index)?;
                        (st.job(j).maps[t as usize].status == TaskStatus::Pending).then_some((j, t))
                    })
                    .collect(),
                None => Vec::new(),
            };
            match self.sharing {
                Sharing::Cyclic => {
                    if riders != &pending {
                        self.violations.push(format!(
                            "riders {riders:?} are not every job needing the block {pending:?}"
                        ));
                    }
                }
                Sharing::None => {
                    if !riders.is_empty() {
                        self.violations.push("FLEX shared a scan".into());
                    }
                }
                Sharing::Batch => {
                    if riders.iter().any(|r| !pending.contains(r)) {
                        self.violations
                            .push("a batch rider does not need the block".into());
                    }
                }
            }
        }
        l
    }
    fn next_timer(&self) -> Option<Time> {
        self.inner.next_timer()
    }
    fn on_timer(&mut self, st: &ClusterState) -> Vec<Action> {
        let a = self.inner.on_timer(st);
        self.check_schedule(st);
        a
    }
    fn stats(&self) -> BTreeMap<String, f64> {
        self.inner.stats()
    }
}

fn cluster(nodes: u32, slots: u32) -> Cluster {
    Cluster::from_toml_str(
        "c",
        &format!(
            "heartbeat_interval_s = 1\ntask_overhead_s = 0\n[[nodes]]\ncount = {nodes}\nracks = 2\nmap_slots = {slots}\n"
        ),
    )
    .unwrap()
}

/// Map-only jobs scanning shared datasets with explicit 4 s maps.
fn workload(datasets: &[u32], jobs: &[(f64, usize)], f: f64) -> Workload {
    let mut b = WorkloadBuilder::new("shared");
    let ids: Vec<_> = datasets
        .iter()
        .enumerate()
        .map(|(i, &n)| b.dataset(&format!("d{i}"), vec![64.0; n as usize], 2))
        .collect();
    for (i, &(at, d)) in jobs.iter().enumerate() {
        let d = ids[d % ids.len()];
        let cost = b.build_ref().jobs.first().map(|j| j.cost);
        let j = b.data_job(
            format!("j{i}"),
            Time::from_secs_f64(at),
            &[d],
            0,
            cost.unwrap_or(mrsched_model::workload::CostParams {
                map_cpu_s_per_mb: 0.0,
                map_output_ratio: 0.0,
                reduce_cpu_s_per_mb: 0.0,
                reduce_output_ratio: 0.0,
            }),
        );
        for m in j.maps.list_mut() {
            m.time = Some(Time::from_secs(4));
        }
        j.scan_fraction = f;
    }
    b.build()
}

fn run(preset: &str, c: &Cluster, w: &Workload) -> (mrsched_sim::SimOutput, Vec<String>) {
    let cfg = SchedulerConfig::preset(preset).unwrap();
    let s = settings(&cfg, c).unwrap();
    let sharing = s.sharing;
    let mut sched = Checked {
        inner: Flex::new(s),
        sharing,
        violations: Vec::new(),
    };
    let out = simulate(c, w, &mut sched, &SimOptions::default()).unwrap();
    (out, sched.violations)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn shared_scans_never_scan_a_block_twice_for_a_job(
        sizes in prop::collection::vec(2u32..16, 1..4),
        arrivals in prop::collection::vec((0.0f64..60.0, 0usize..4), 1..9),
        f in prop::sample::select(vec![1.0, 0.5]),
    ) {
        let mut arrivals = arrivals;
        arrivals.sort_by(|a, b| a.0.total_cmp(&b.0));
        let c = cluster(3, 2);
        let w = workload(&sizes, &arrivals, f);
        for preset in ["flex", "circumflex", "circumflex-max-stretch", "batch"] {
            let (out, violations) = run(preset, &c, &w);
            prop_assert!(violations.is_empty(), "{}: {:?}", preset, violations);
            for j in out.state.jobs() {
                prop_assert_eq!(j.status, JobStatus::Succeeded);
                for t in &j.maps {
                    // One attempt per task: no block scanned twice for a job.
                    prop_assert_eq!(t.attempts, 1, "{} {}", preset, j.spec.name);
                }
            }
        }
    }
}

#[test]
fn circumflex_shares_work_that_flex_repeats() {
    // Six jobs on one 20-block dataset arriving 10 s apart, 4 slots of 4 s
    // maps: a full scan is 20 s of the cluster.
    let c = cluster(2, 2);
    let jobs: Vec<(f64, usize)> = (0..6).map(|i| (10.0 * i as f64, 0)).collect();
    let w = workload(&[20], &jobs, 1.0);
    let mut busy = BTreeMap::new();
    let mut mean = BTreeMap::new();
    for preset in ["flex", "circumflex", "batch"] {
        let (out, v) = run(preset, &c, &w);
        assert!(v.is_empty(), "{preset}: {v:?}");
        let r = out.report();
        busy.insert(preset, out.state.usage().busy_integral as f64 / 1e6);
        mean.insert(preset, r.summary.mean_response_time_s);
        if preset == "circumflex" {
            assert!(out.info.scheduler_stats["shared_launches"] > 0.0);
        }
    }
    // FLEX scans the dataset six times (6 x 20 x 4 s of slot time).
    // CIRCUMFLEX: each job after the first shares what is left of the scan
    // in progress and scans alone only the ~10 blocks it missed (72 block
    // scans). BATCH: all six arrive in the first 2-minute window and share
    // one scan.
    assert!((busy["flex"] - 480.0).abs() < 1e-6, "{busy:?}");
    assert!(busy["circumflex"] <= 0.65 * busy["flex"], "{busy:?}");
    assert!((busy["batch"] - 80.0).abs() < 1e-6, "{busy:?}");
    assert!(mean["circumflex"] < mean["flex"], "{mean:?}");
}
