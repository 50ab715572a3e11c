//! Tests of the FLEX family on the cluster state, and property tests of
//! the packing.

use super::metric::{JobTerms, Metric, MetricKind, Objective};
use super::order::{backwards_dp, cell_weights, generalized_smith, solve};
use super::packing::pack;
use super::piggyback::{reference_node, riders, ClusterView, JobInfo};
use super::problem::{PlanJob, Problem};
use super::scheduler::Flex;
use super::subjobs::{Decomposer, Sharing};
use crate::config::SchedulerConfig;
use crate::scheduler::{Admission, Scheduler};
use mrsched_model::{
    BlockRef, Cluster, DatasetId, Format, JobId, JobSpec, MapSpec, NodeId, Source, Time,
};
use mrsched_state::{ClusterState, DatasetBlocks, Launch};
use proptest::prelude::*;

fn cluster(slots: u32) -> Cluster {
    Cluster::from_toml_str("c", &format!("[[nodes]]\nmap_slots = {slots}\n")).unwrap()
}

fn scan_job(datasets: &[(u32, u32)], arrival: Time) -> JobSpec {
    let mut j = JobSpec::explicit("j", arrival, &[], &[], 1.0);
    for &(d, blocks) in datasets {
        j.input.push(DatasetId(d));
        for b in 0..blocks {
            j.maps.push(MapSpec {
                block: Some(BlockRef {
                    dataset: DatasetId(d),
                    index: b,
                }),
                input_mb: 64.0,
                time: Some(Time::from_secs(10)),
            });
        }
    }
    j
}

fn state_with(datasets: &[u32], slots: u32) -> ClusterState {
    let mut st = ClusterState::new(cluster(slots));
    for (i, &n) in datasets.iter().enumerate() {
        st.add_dataset(DatasetBlocks::new(
            &format!("d{i}"),
            vec![64.0; n as usize],
            &vec![vec![NodeId(0)]; n as usize],
        ));
    }
    st
}

fn admit(st: &mut ClusterState, spec: JobSpec) -> JobId {
    let j = st.submit(spec);
    st.admit(j).unwrap();
    j
}

/// Scan block `b` of dataset 0 once for every job that still needs it.
fn scan(st: &mut ClusterState, driver: JobId, b: u32) {
    let rs = riders(st, driver, b, |_| true);
    let a = st
        .launch(
            NodeId(0),
            &Launch::Map {
                job: driver,
                task: b,
                riders: rs,
            },
        )
        .unwrap();
    st.finish_map(a).unwrap();
}

/// The paper's Figure 3 on a cluster state: three red jobs part-way
/// through a 12-block dataset when the fourth arrives.
fn figure3_state() -> (ClusterState, Vec<JobId>) {
    let mut st = state_with(&[12], 4);
    let j1 = admit(&mut st, scan_job(&[(0, 12)], Time::ZERO));
    for b in 0..3 {
        scan(&mut st, j1, b);
    }
    let j2 = admit(&mut st, scan_job(&[(0, 12)], Time::ZERO));
    for b in 3..6 {
        scan(&mut st, j1, b);
    }
    let j3 = admit(&mut st, scan_job(&[(0, 12)], Time::ZERO));
    for b in 6..8 {
        scan(&mut st, j1, b);
    }
    let j4 = admit(&mut st, scan_job(&[(0, 12)], Time::ZERO));
    (st, vec![j1, j2, j3, j4])
}

#[test]
fn figure3_subjobs_from_block_bits() {
    let (st, jobs) = figure3_state();
    // Each block was scanned once for every job that needed it.
    assert_eq!(st.job(jobs[0]).map_counts.done, 8);
    assert_eq!(st.job(jobs[1]).map_counts.done, 5);
    assert_eq!(st.job(jobs[2]).map_counts.done, 2);
    assert_eq!(st.job(jobs[3]).map_counts.done, 0);
    let r = reference_node();
    let info: Vec<JobInfo> = jobs
        .iter()
        .map(|&j| JobInfo::new(st.cluster(), &st.job(j).spec, 0, &r))
        .collect();
    let info_refs: Vec<&JobInfo> = info.iter().collect();
    let mut local = vec![u32::MAX; st.jobs().len()];
    for (i, j) in jobs.iter().enumerate() {
        local[j.idx()] = i as u32;
    }
    let view = ClusterView {
        st: &st,
        jobs: &jobs,
        info: &info_refs,
    };
    let mut dec = Decomposer::new(Sharing::Cyclic, 0.0, true);
    let pj = view.atoms(&mut dec, &local);
    let p = dec.finish(0.0, 4, pj).problem;
    // Subjob (d,k) serves K_d - k + 1 jobs: chain (d,1) < ... < (d,4).
    assert!(p.is_chains());
    let chain = &p.chains()[0];
    let sizes: Vec<usize> = chain
        .iter()
        .map(|&c| p.cells[c as usize].members.len())
        .collect();
    assert_eq!(sizes, vec![4, 3, 2, 1]);
    let blocks: Vec<u32> = chain.iter().map(|&c| p.cells[c as usize].blocks).collect();
    assert_eq!(blocks, vec![4, 3, 3, 2]);
    // Explicit 10 s maps with f = 1: one scan per block, whoever rides.
    let work: Vec<f64> = chain.iter().map(|&c| p.cells[c as usize].work).collect();
    assert_eq!(work, vec![40.0, 30.0, 30.0, 20.0]);
}

#[test]
fn circumflex_targets_the_head_subjob_and_launches_with_riders() {
    let (st, jobs) = figure3_state();
    let cfg = SchedulerConfig::preset("circumflex").unwrap();
    let mut f = Flex::new(super::settings(&cfg, st.cluster()).unwrap());
    for &j in &jobs {
        f.on_event(&st, &mrsched_state::StateEvent::JobAdmitted(j));
    }
    f.resolve(&st);
    // The head subjob (blocks 8-11, needed by all four) gets all 4 slots;
    // its representative is the oldest job.
    assert_eq!(f.targets(), &[(jobs[0], 4.0)]);
    let l = f.assign(&st, NodeId(0)).unwrap();
    let Launch::Map { job, task, riders } = l else {
        panic!("a map")
    };
    assert_eq!(job, jobs[0]);
    assert!((8..12).contains(&task));
    let rj: Vec<JobId> = riders.iter().map(|r| r.0).collect();
    assert_eq!(rj, jobs[1..].to_vec());
    assert!(riders.iter().all(|r| r.1 == task));
}

#[test]
fn flex_scans_alone_and_batch_holds_until_the_window_ends() {
    let (mut st, jobs) = figure3_state();
    let cfg = SchedulerConfig::preset("flex").unwrap();
    let mut f = Flex::new(super::settings(&cfg, st.cluster()).unwrap());
    for &j in &jobs {
        f.on_event(&st, &mrsched_state::StateEvent::JobAdmitted(j));
    }
    f.resolve(&st);
    let Some(Launch::Map { riders, .. }) = f.assign(&st, NodeId(0)) else {
        panic!("FLEX launches a map")
    };
    assert!(riders.is_empty());

    // BATCH: the four jobs arrived at 0 in dataset 0's first window, which
    // ends at 120 s; nothing runs before.
    let cfg = SchedulerConfig::preset("batch").unwrap();
    let mut f = Flex::new(super::settings(&cfg, st.cluster()).unwrap());
    for &j in &jobs {
        f.on_event(&st, &mrsched_state::StateEvent::JobAdmitted(j));
    }
    assert_eq!(f.next_timer(), Some(Time::from_secs(120)));
    f.resolve(&st);
    assert_eq!(f.assign(&st, NodeId(0)), None);
    st.advance_to(Time::from_secs(120));
    f.on_timer(&st);
    let Some(Launch::Map { job, task, riders }) = f.assign(&st, NodeId(0)) else {
        panic!("the released batch launches a map")
    };
    // Every other member of the batch that still needs the block rides.
    let want = riders_of(&st, job, task);
    assert_eq!(riders, want);
}

/// Every other job that still has the block of `job`'s map `task` pending.
fn riders_of(st: &ClusterState, job: JobId, task: u32) -> Vec<(JobId, u32)> {
    let b = st.job(job).spec.maps.at(task as usize).block.unwrap();
    st.active_jobs()
        .iter()
        .filter(|&&j| j != job)
        .filter_map(|&j| {
            let t = st.job(j).map_for_block(b.dataset, b.index)?;
            (st.job(j).maps[t as usize].status == mrsched_state::TaskStatus::Pending)
                .then_some((j, t))
        })
        .collect()
}

#[test]
fn minisum_circumflex_refuses_semi_shared_jobs() {
    let mut st = state_with(&[4, 4], 4);
    let j = st.submit(scan_job(&[(0, 4), (1, 4)], Time::ZERO));
    let cfg = SchedulerConfig::preset("circumflex").unwrap();
    let mut f = Flex::new(super::settings(&cfg, st.cluster()).unwrap());
    match f.on_submit(&st, j) {
        Admission::Reject(why) => assert!(why.contains("objective = \"max\""), "{why}"),
        Admission::Admit => panic!("minisum semi-shared must be refused"),
    }
    let cfg = SchedulerConfig::preset("circumflex-max-stretch").unwrap();
    let mut f = Flex::new(super::settings(&cfg, st.cluster()).unwrap());
    assert_eq!(f.on_submit(&st, j), Admission::Admit);
}

#[test]
fn semi_shared_scans_follow_figure4_with_a_minimax_metric() {
    // Datasets: abc, ab, ac, bc, b, c (two blocks each); job A reads
    // abc+ab+ac, B reads abc+ab+bc+b, C reads abc+ac+bc+c.
    let mut st = state_with(&[2, 2, 2, 2, 2, 2], 4);
    let a = admit(&mut st, scan_job(&[(0, 2), (1, 2), (2, 2)], Time::ZERO));
    let b = admit(
        &mut st,
        scan_job(&[(0, 2), (1, 2), (3, 2), (4, 2)], Time::ZERO),
    );
    let c = admit(
        &mut st,
        scan_job(&[(0, 2), (2, 2), (3, 2), (5, 2)], Time::ZERO),
    );
    let cfg = SchedulerConfig::preset("circumflex-max-stretch").unwrap();
    let mut f = Flex::new(super::settings(&cfg, st.cluster()).unwrap());
    for j in [a, b, c] {
        f.on_event(&st, &mrsched_state::StateEvent::JobAdmitted(j));
    }
    f.resolve(&st);
    // The three-way intersection comes first: the first interval serves
    // only it, with every job riding.
    let s = f.schedule();
    assert_eq!(s.first_allocation().len(), 1);
    let (c, slots) = s.first_allocation()[0];
    assert_eq!(f.problem().cells[c as usize].members.len(), 3);
    assert_eq!(slots, 2, "two blocks in the three-way intersection");
    let l = f.assign(&st, NodeId(0)).unwrap();
    let Launch::Map { job, task, riders } = l else {
        panic!("a map")
    };
    // The driver is job A (fewest maps left) and every job needing the
    // block rides.
    assert_eq!(job, a);
    assert_eq!(riders, riders_of(&st, job, task));
}

#[test]
fn options_are_checked_with_locations() {
    let c = cluster(4);
    let bad = "policy = \"flex\"\n[flex]\nsharing = \"cyclic\"\nepoch_s = -1\nsla = [[2.0, 1.0], [1.0, 0.5]]\n";
    let cfg = SchedulerConfig::from_source(&Source::new("s.toml", bad, Format::Toml)).unwrap();
    let e = super::settings(&cfg, &c).unwrap_err().to_string();
    assert!(e.contains("s.toml:4: flex.epoch_s"), "{e}");
    assert!(e.contains("flex.sla"), "{e}");
    assert!(e.contains("only used with `metric = \"sla\"`"), "{e}");
    let typo = "policy = \"flex\"\n[flex]\nsharing = \"cyclc\"\n";
    let cfg = SchedulerConfig::from_source(&Source::new("t.toml", typo, Format::Toml)).unwrap();
    let e = super::settings(&cfg, &c).unwrap_err().to_string();
    assert!(e.contains("t.toml") && e.contains("sharing"), "{e}");
    let unknown = "policy = \"flex\"\n[flex]\nmetrik = \"stretch\"\n";
    let cfg = SchedulerConfig::from_source(&Source::new("u.toml", unknown, Format::Toml)).unwrap();
    assert!(super::settings(&cfg, &c).is_err());
}

// ---------------------------------------------------------------------------
// Packing: brute force and properties.
// ---------------------------------------------------------------------------

fn pj(arrival: f64, weight: f64, min: u32, max: u32, deadline: Option<f64>) -> PlanJob {
    PlanJob {
        terms: JobTerms {
            arrival,
            weight,
            standalone: 1.0 + weight,
            deadline,
        },
        min,
        max,
    }
}

/// One chain element: (work, weight, min, max, deadline).
type CellSpec = (f64, f64, u32, u32, f64);

/// Cyclic-piggybacking-shaped chains (cell k of a chain serves its jobs
/// k..), plus optional cross edges making a general DAG.
#[derive(Debug, Clone)]
struct Spec {
    slots: u32,
    chains: Vec<Vec<CellSpec>>,
    cross: Vec<(usize, usize)>,
}

fn build(spec: &Spec) -> Problem {
    let mut jobs = Vec::new();
    let mut cells = Vec::new();
    let mut edges = Vec::new();
    for chain in &spec.chains {
        let first = jobs.len() as u32;
        for &(_, w, min, max, due) in chain {
            jobs.push(pj(0.0, w, min, max, Some(due)));
        }
        let first_cell = cells.len();
        for (k, &(work, ..)) in chain.iter().enumerate() {
            cells.push((
                work,
                (first + k as u32..first + chain.len() as u32).collect(),
            ));
            if k > 0 {
                edges.push((first_cell + k - 1, first_cell + k));
            }
        }
    }
    let n = cells.len();
    let mut p = Problem::independent(0.0, spec.slots, jobs, cells);
    for &(a, b) in &edges {
        p.add_edge(a, b);
    }
    for &(a, b) in &spec.cross {
        let (a, b) = (a % n, b % n);
        if a < b && !p.succs[a].contains(&(b as u32)) {
            p.add_edge(a, b);
        }
    }
    p
}

fn spec_strategy(dag: bool) -> impl Strategy<Value = Spec> {
    let cell = (0.5f64..20.0, 0.5f64..4.0, 0u32..4, 1u32..12, 1.0f64..30.0);
    (
        1u32..12,
        prop::collection::vec(prop::collection::vec(cell, 1..4), 1..4),
        prop::collection::vec((0usize..12, 0usize..12), if dag { 0..3 } else { 0..1 }),
    )
        .prop_map(move |(slots, chains, cross)| Spec {
            slots,
            chains,
            cross: if dag { cross } else { Vec::new() },
        })
}

/// Every topological order of a small problem (brute-force references).
pub(super) fn topo_orders(p: &Problem) -> Vec<Vec<u32>> {
    fn rec(p: &Problem, cur: &mut Vec<u32>, used: &mut Vec<bool>, out: &mut Vec<Vec<u32>>) {
        if cur.len() == p.cells.len() {
            out.push(cur.clone());
            return;
        }
        for c in 0..p.cells.len() {
            if !used[c] && p.preds[c].iter().all(|&q| used[q as usize]) {
                used[c] = true;
                cur.push(c as u32);
                rec(p, cur, used, out);
                cur.pop();
                used[c] = false;
            }
        }
    }
    let mut out = Vec::new();
    rec(
        p,
        &mut Vec::new(),
        &mut vec![false; p.cells.len()],
        &mut out,
    );
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Allocations never exceed S, stay within each cell's [min, max] (the
    /// minima were normalised), only ready cells run, and every cell
    /// receives exactly its work.
    #[test]
    fn packing_respects_slots_bounds_and_precedence(spec in spec_strategy(true), seed in 0u64..1000) {
        let p = build(&spec);
        prop_assert!(p.check().is_ok());
        let orders = [
            backwards_dp(&p, &Metric::max_stretch()),
            super::order::dispatch(&p, |c, _| ((c as u64 * 7919 + seed) % 101) as f64),
        ];
        for order in orders {
            let s = pack(&p, &order);
            let mut got = vec![0.0; p.cells.len()];
            for iv in &s.intervals {
                prop_assert!(iv.end >= iv.start);
                let total: u32 = iv.alloc.iter().map(|a| a.1).sum();
                prop_assert!(total <= p.slots);
                for &(c, n) in &iv.alloc {
                    let cell = &p.cells[c as usize];
                    prop_assert!(n <= cell.max, "cell {} got {} > max {}", c, n, cell.max);
                    if p.is_chains() {
                        prop_assert!(n >= cell.min, "cell {} got {} < min {}", c, n, cell.min);
                    }
                    for &q in &p.preds[c as usize] {
                        prop_assert!(s.cell_end[q as usize] <= iv.start + 1e-9,
                            "cell {} ran before its predecessor {} ended", c, q);
                    }
                    got[c as usize] += n as f64 * (iv.end - iv.start);
                }
            }
            for (c, cell) in p.cells.iter().enumerate() {
                prop_assert!((got[c] - cell.work).abs() <= 1e-6 * cell.work.max(1.0),
                    "cell {} got {} of {}", c, got[c], cell.work);
                for &q in &p.preds[c] {
                    prop_assert!(s.cell_end[q as usize] <= s.cell_end[c] + 1e-9);
                }
            }
        }
    }

    /// Without minima and maxima below S, packing any order reproduces the
    /// single machine of speed S, so the best packed order (brute force)
    /// equals GSR (minisum) and BDP (minimax) followed by RLMP.
    #[test]
    fn packed_orders_brute_force(spec in spec_strategy(false)) {
        let mut spec = spec;
        for ch in &mut spec.chains {
            for c in ch.iter_mut() {
                c.2 = 0;
                c.3 = 1000;
            }
        }
        let p = build(&spec);
        let terms = p.terms();
        let orders = topo_orders(&p);
        for m in [Metric::avg_response_time(), Metric::avg_stretch(),
                  Metric::max_stretch(), Metric::new(MetricKind::Lateness, Objective::Max)] {
            let best = orders.iter()
                .map(|o| m.evaluate(&terms, &pack(&p, o).job_end))
                .fold(f64::INFINITY, f64::min);
            let ours = m.evaluate(&terms, &solve(&p, &m).unwrap().job_end);
            prop_assert!((ours - best).abs() <= 1e-6 * best.abs().max(1.0),
                "{}: ours {} brute force {}", m.name(), ours, best);
        }
        let w = cell_weights(&p, &Metric::avg_response_time());
        let s = pack(&p, &generalized_smith(&p, &w));
        let mut t = 0.0;
        for &c in &s.order {
            t += p.cells[c as usize].work / p.slots as f64;
            prop_assert!((s.cell_end[c as usize] - t).abs() < 1e-6 * t.max(1.0));
        }
    }
}
