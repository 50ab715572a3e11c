//! One CIRCUMFLEX re-solve with 200 active jobs over 20 datasets.
//!
//! Target: under 1 ms for the whole re-solve (reading the per-block bits of
//! 20 datasets of 100 blocks from the cluster state, building the subjobs,
//! GSR or BDP, RLMP, targets). Each dataset has 10 scanning jobs that
//! arrived one after the other while its scan went round (8 blocks apart),
//! so each dataset has 10 chained subjobs.
//!
//! Run: `cargo bench -p mrsched-sched --bench circumflex`.

use mrsched_model::{BlockRef, Cluster, DatasetId, JobId, JobSpec, MapSpec, NodeId, Time};
use mrsched_sched::policies::flex::order::solve;
use mrsched_sched::policies::flex::piggyback::riders;
use mrsched_sched::policies::flex::scheduler::Flex;
use mrsched_sched::policies::flex::settings;
use mrsched_sched::{Scheduler, SchedulerConfig};
use mrsched_state::{ClusterState, DatasetBlocks, Launch, StateEvent};

const DATASETS: u32 = 20;
const BLOCKS: u32 = 100;
const JOBS_PER_DATASET: u32 = 10;

fn main() {
    divan::main();
}

fn job(d: u32) -> JobSpec {
    let mut j = JobSpec::explicit("j", Time::ZERO, &[], &[], 1.0);
    j.input = vec![DatasetId(d)];
    j.maps = (0..BLOCKS)
        .map(|b| MapSpec {
            block: Some(BlockRef {
                dataset: DatasetId(d),
                index: b,
            }),
            input_mb: 64.0,
            time: Some(Time::from_secs(10)),
        })
        .collect();
    j
}

/// 200 jobs part-way through cyclic scans of 20 datasets.
fn state() -> (ClusterState, Vec<JobId>) {
    let c = Cluster::from_toml_str("c", "[[nodes]]\ncount = 25\nmap_slots = 4\n").unwrap();
    let mut st = ClusterState::new(c);
    for d in 0..DATASETS {
        let reps: Vec<Vec<NodeId>> = (0..BLOCKS)
            .map(|b| vec![NodeId((b + d) % 25), NodeId((b + d + 7) % 25)])
            .collect();
        st.add_dataset(DatasetBlocks::new(
            &format!("d{d}"),
            vec![64.0; BLOCKS as usize],
            &reps,
        ));
    }
    let mut jobs = Vec::new();
    for d in 0..DATASETS {
        let mut pos = 0u32;
        let mut first = None;
        for _ in 0..JOBS_PER_DATASET {
            let j = st.submit(job(d));
            st.admit(j).unwrap();
            jobs.push(j);
            let driver = *first.get_or_insert(j);
            for _ in 0..8 {
                let b = pos % BLOCKS;
                pos += 1;
                let rs = riders(&st, driver, b, |_| true);
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
        }
    }
    (st, jobs)
}

fn scheduler(st: &ClusterState, jobs: &[JobId], preset: &str) -> Flex {
    let cfg = SchedulerConfig::preset(preset).unwrap();
    let mut f = Flex::new(settings(&cfg, st.cluster()).unwrap());
    for &j in jobs {
        f.on_event(st, &StateEvent::JobAdmitted(j));
    }
    f
}

#[divan::bench(args = ["circumflex", "circumflex-max-stretch", "flex", "batch"])]
fn resolve(bencher: divan::Bencher, preset: &str) {
    let (st, jobs) = state();
    let mut f = scheduler(&st, &jobs, preset);
    if preset == "batch" {
        // Release every batch.
        let mut st = st;
        st.advance_to(Time::from_secs(1000));
        f.on_timer(&st);
        bencher.bench_local(|| f.resolve(&st));
        return;
    }
    f.resolve(&st);
    assert_eq!(
        f.problem().cells.len(),
        (DATASETS * JOBS_PER_DATASET) as usize
    );
    bencher.bench_local(|| f.resolve(&st));
}

/// Ordering and packing alone (the problem already built).
#[divan::bench(args = ["circumflex", "circumflex-max-stretch"])]
fn order_and_pack(bencher: divan::Bencher, preset: &str) {
    let (st, jobs) = state();
    let mut f = scheduler(&st, &jobs, preset);
    f.resolve(&st);
    let p = f.problem().clone();
    let metric = f.settings().metric.clone();
    bencher.bench_local(|| solve(&p, &metric).unwrap());
}
