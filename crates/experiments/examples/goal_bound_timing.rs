//! Solve time of the upper bound on goals met (`adaptive::bound`) on the
//! goal-mix workload, 300 to 3,000 jobs, on the three clusters of the goal
//! experiments. Run with
//! `cargo run --release -p mrsched-experiments --example goal_bound_timing`.

use mrsched_sched::policies::adaptive::bound::goal_bound;
use mrsched_workload::catalog;
use mrsched_workload::goals::{goal_mix, GoalMixParams};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let alone = catalog::cluster("shared-100")?;
    println!("cluster | jobs | seed | solve (s) | bound | relaxation | buckets | job-bucket pairs");
    for name in ["shared-100", "shared-100-day", "shared-100-bursts"] {
        let c = catalog::cluster(name)?;
        for jobs in [300usize, 1000, 3000] {
            for seed in 1..=2u64 {
                let p = GoalMixParams {
                    jobs,
                    ..Default::default()
                };
                let w = goal_mix(seed, &p, &alone);
                let t = std::time::Instant::now();
                let b = goal_bound(&c, &w);
                let s = t.elapsed().as_secs_f64();
                println!(
                    "{name} | {jobs} | {seed} | {s:.3} | {}/{} | {:.2} | {} | {}",
                    b.met, b.goal_jobs, b.value, b.buckets, b.arcs
                );
            }
        }
    }
    Ok(())
}
