//! One RTMR admission decision (seed 004 Algorithm I) with 1,000 admitted
//! jobs waiting in the queue.
//!
//! The new job has the earliest deadline, so it goes to the head of the
//! waiting jobs and every one of the 1,000 successors is re-estimated
//! (Cal_mT and Cal_rT after its new predecessor): the worst case. The
//! queued jobs have workload I's sizes (1-200 maps, 1-30 reduces); the
//! clusters are seed 004's (100 map and 30 reduce slots) and a 600-node
//! one (3,000 map and 1,800 reduce slots). `evaluate` decides without
//! changing the queue, so every iteration measures the same decision.
//!
//! Target: under 10 ms per decision on the 30-node cluster (a job arrives
//! every 14 s in seed 004's workloads). Measured figures are in
//! docs/policies/realtime.md.
//!
//! Run: `cargo bench -p mrsched-sched --bench admission`.

use mrsched_model::{JobId, Time};
use mrsched_sched::policies::realtime::estimate::Estimator;
use mrsched_sched::policies::realtime::job::RtJob;
use mrsched_sched::policies::realtime::queue::{AdmissionQueue, QueueOrder};

fn main() {
    divan::main();
}

const SIZES: [(u32, u32); 6] = [(1, 3), (2, 3), (10, 7), (50, 15), (100, 25), (200, 30)];

fn job(i: u32, maps: u32, reduces: u32, deadline_s: u64) -> RtJob {
    RtJob {
        id: JobId(i),
        arrival: Time::ZERO,
        deadline: Time::from_secs(deadline_s),
        maps,
        reduces,
        input_mb: maps as f64 * 128.0,
        max_split_mb: 128.0,
    }
}

/// A queue of 1,000 waiting jobs (deadlines far enough that all fit).
fn queue(map_slots: usize, reduce_slots: usize) -> (AdmissionQueue, Estimator) {
    let est = Estimator::new(1.0, 0.16, 0.2);
    let mut q = AdmissionQueue::new(map_slots, reduce_slots, QueueOrder::Edf, Time::from_secs(3));
    for i in 0..1000u32 {
        let (m, r) = SIZES[(i as usize * 7) % SIZES.len()];
        q.admit(&job(i, m, r, 10_000_000 + i as u64), &est, Time::ZERO)
            .expect("fits");
    }
    assert_eq!(q.records().len(), 1000);
    (q, est)
}

#[divan::bench(args = [(100, 30), (3000, 1800)], sample_count = 20)]
fn admit_at_head_of_1000(b: divan::Bencher, (l, q): (usize, usize)) {
    let (queue, est) = queue(l, q);
    let new = job(5000, 50, 15, 5_000);
    b.bench_local(|| {
        let plan = queue.evaluate(&new, &est, Time::ZERO).expect("admitted");
        assert_eq!(plan.position(), 0);
        plan
    });
}

#[divan::bench(args = [(100, 30), (3000, 1800)], sample_count = 20)]
fn admit_at_tail_of_1000(b: divan::Bencher, (l, q): (usize, usize)) {
    let (queue, est) = queue(l, q);
    let new = job(5000, 50, 15, 20_000_000);
    b.bench_local(|| queue.evaluate(&new, &est, Time::ZERO).expect("admitted"));
}
