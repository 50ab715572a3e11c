//! MSJO planner benchmarks (seed 001).
//!
//! Targets: LP + COGE for 100 jobs x 40 tasks under 1 s; T-MarS
//! for 1000 tasks under 1 s. Measured figures are in docs/policies/msjo.md.
//!
//! `cargo bench -p mrsched-sched --bench msjo`
//!
//! The COGE bench stops at 20 jobs: at 100 jobs one run takes minutes with
//! microlp (see docs/policies/msjo.md, Performance).

use mrsched_model::rng;
use mrsched_sched::policies::msjo::coge::{coge, CogeOptions};
use mrsched_sched::policies::msjo::instance::Instance;
use mrsched_sched::policies::msjo::planner::{plan, Algorithm, PlanOptions};
use rand::Rng as _;

fn main() {
    divan::main();
}

/// `jobs` jobs of `maps` maps (N(10,5) s) and `reduces` reduces (N(15,5)
/// s), Bernoulli(p) arrivals per second, weights N(30,10), 50 machines.
fn instance(jobs: usize, maps: usize, reduces: usize, p: f64, machines: usize) -> Instance {
    let mut r = rng::stream(7, "bench:msjo");
    let mut normal = |mean: f64, sd: f64| -> f64 {
        // Box-Muller, clipped at 1.
        let (u, v): (f64, f64) = (r.random::<f64>().max(1e-12), r.random());
        (mean + sd * (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()).max(1.0)
    };
    let mut inst = Instance::new(machines);
    let mut t = 0.0;
    let mut arrivals = rng::stream(8, "bench:arrivals");
    for _ in 0..jobs {
        while arrivals.random::<f64>() >= p {
            t += 1.0;
        }
        let m: Vec<f64> = (0..maps).map(|_| normal(10.0, 5.0)).collect();
        let rd: Vec<f64> = (0..reduces).map(|_| normal(15.0, 5.0)).collect();
        let w = normal(30.0, 10.0);
        inst.add_job(t, w, &m, &rd, 0.2);
        t += 1.0;
    }
    inst
}

#[divan::bench(sample_count = 3, sample_size = 1, args = [10, 20])]
fn coge_jobs_x40(bencher: divan::Bencher, jobs: usize) {
    let inst = instance(jobs, 30, 10, 0.5, 50);
    bencher.bench(|| coge(&inst, &CogeOptions::default()).expect("solves"));
}

#[divan::bench(sample_count = 3, sample_size = 1, args = [100, 1000])]
fn t_mars_tasks(bencher: divan::Bencher, tasks: usize) {
    let inst = instance(tasks / 40, 30, 10, 0.5, 50);
    let opts = PlanOptions::new(Algorithm::TMars);
    bencher.bench(|| plan(&inst, &opts).expect("solves"));
}
