//! MSJO planner benchmarks (seed 001).
//!
//! Targets: LP + COGE for 100 jobs x 40 tasks under 1 s; T-MarS for 1000
//! tasks under 1 s. Measured (idle 2-core machine, fastest-slowest of 3):
//! COGE 100 x 40 uniform times 1.93-1.95 s with microlp, 0.16 s with
//! HiGHS (random times, HiGHS: 8.5-8.9 s); T-MarS 1000 tasks 14-17 ms
//! (uniform) and 1.28-1.29 s (random) with microlp, 6 ms and 0.32-0.33 s
//! with HiGHS. All figures are in docs/policies/msjo.md, Performance.
//!
//! `cargo bench -p mrsched-sched --bench msjo` (microlp);
//! `cargo bench -p mrsched-sched --features highs --bench msjo` (HiGHS).

use mrsched_model::rng;
use mrsched_sched::policies::msjo::coge::{coge, CogeOptions};
use mrsched_sched::policies::msjo::instance::Instance;
use mrsched_sched::policies::msjo::planner::{plan, Algorithm, PlanOptions};
use rand::Rng as _;

fn main() {
    divan::main();
}

/// `jobs` jobs of `maps` maps and `reduces` reduces, Bernoulli(p) arrivals
/// per second, weights N(30,10), 50 machines. Times are seed 001's uniform
/// scenario (maps 10 s, reduces 15 s) or its random one (N(10,5) and
/// N(15,5), clipped at 1).
fn instance(jobs: usize, maps: usize, reduces: usize, random_times: bool) -> Instance {
    let mut r = rng::stream(7, "bench:msjo");
    let mut normal = |mean: f64, sd: f64| -> f64 {
        // Box-Muller, clipped at 1.
        let (u, v): (f64, f64) = (r.random::<f64>().max(1e-12), r.random());
        (mean + sd * (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()).max(1.0)
    };
    let mut inst = Instance::new(50);
    let mut t = 0.0;
    let mut arrivals = rng::stream(8, "bench:arrivals");
    for _ in 0..jobs {
        while arrivals.random::<f64>() >= 0.5 {
            t += 1.0;
        }
        let m: Vec<f64> = (0..maps)
            .map(|_| {
                if random_times {
                    normal(10.0, 5.0)
                } else {
                    10.0
                }
            })
            .collect();
        let rd: Vec<f64> = (0..reduces)
            .map(|_| {
                if random_times {
                    normal(15.0, 5.0)
                } else {
                    15.0
                }
            })
            .collect();
        let w = normal(30.0, 10.0);
        inst.add_job(t, w, &m, &rd, 0.2);
        t += 1.0;
    }
    inst
}

/// The target: LP + COGE for 100 jobs x 40 tasks (uniform scenario).
#[divan::bench(sample_count = 3, sample_size = 1, args = [20, 50, 100])]
fn coge_uniform_jobs_x40(bencher: divan::Bencher, jobs: usize) {
    let inst = instance(jobs, 30, 10, false);
    bencher.bench(|| coge(&inst, &CogeOptions::default()).expect("solves"));
}

/// Job counts of the random-time COGE bench: 100 jobs only with HiGHS
/// (microlp needs minutes there).
#[cfg(feature = "highs")]
const RANDOM_JOBS: [usize; 4] = [10, 20, 40, 100];
#[cfg(not(feature = "highs"))]
const RANDOM_JOBS: [usize; 3] = [10, 20, 40];

/// Random times: every task its own LP variable.
#[divan::bench(sample_count = 3, sample_size = 1, args = RANDOM_JOBS)]
fn coge_random_jobs_x40(bencher: divan::Bencher, jobs: usize) {
    let inst = instance(jobs, 30, 10, true);
    bencher.bench(|| coge(&inst, &CogeOptions::default()).expect("solves"));
}

/// The target: T-MarS (task LP + intervals) for 1000 tasks.
#[divan::bench(sample_count = 3, sample_size = 1, args = [100, 1000])]
fn t_mars_uniform_tasks(bencher: divan::Bencher, tasks: usize) {
    let inst = instance(tasks / 40, 30, 10, false);
    let opts = PlanOptions::new(Algorithm::TMars);
    bencher.bench(|| plan(&inst, &opts).expect("solves"));
}

/// T-MarS with random times.
#[divan::bench(sample_count = 3, sample_size = 1, args = [100, 1000])]
fn t_mars_random_tasks(bencher: divan::Bencher, tasks: usize) {
    let inst = instance(tasks / 40, 30, 10, true);
    let opts = PlanOptions::new(Algorithm::TMars);
    bencher.bench(|| plan(&inst, &opts).expect("solves"));
}
