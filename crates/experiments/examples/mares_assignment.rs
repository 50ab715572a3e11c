//! Which reading of MARES's "workload-based assignment" (seed 001 §5.1.3)
//! the Figure 7 workloads favour: global LPT (`assignment = "lpt"`) or job
//! by job in release order (`"release-order"`), against MarS, HUWF and
//! HJWF, as TWJCT / LP bound (the bound is MarS's offline COGE objective,
//! as in the mars-fig7..12 reports). Run with
//! `cargo run --release -p mrsched-experiments --example mares_assignment -- [jobs ...]`
//! (default 10 50 100; seeds 1-3; `--uniform-times` for Figure 9's scenario).

use mrsched_experiments::common::run_config;
use mrsched_model::{Format, Source};
use mrsched_sched::SchedulerConfig;
use mrsched_workload::catalog;
use mrsched_workload::msjo::{msjo, MsjoParams, Times};

const ALGOS: [(&str, &str); 5] = [
    ("MarS", "algorithm = \"mars\""),
    ("MARES lpt", "algorithm = \"mares\"\nassignment = \"lpt\""),
    (
        "MARES release-order",
        "algorithm = \"mares\"\nassignment = \"release-order\"",
    ),
    ("HUWF", "algorithm = \"huwf\""),
    ("HJWF", "algorithm = \"hjwf\""),
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let uniform = args.iter().any(|a| a == "--uniform-times");
    let mut sizes: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    if sizes.is_empty() {
        sizes = vec![10, 50, 100];
    }
    let cluster = catalog::cluster("unified-50")?;
    let names: Vec<&str> = ALGOS.iter().map(|a| a.0).collect();
    println!("| jobs | seed | {} |", names.join(" | "));
    println!("|---|---|{}", "---|".repeat(names.len()));
    let mut sums = vec![0.0; ALGOS.len()];
    let mut n = 0.0;
    for &jobs in &sizes {
        for seed in 1..=3u64 {
            let mut p = MsjoParams {
                jobs,
                ..Default::default()
            };
            if uniform {
                p.times = Times::Uniform;
            }
            let w = msjo(seed, &p);
            let mut bound = None;
            let mut row = Vec::new();
            for (label, body) in ALGOS {
                let toml = format!("policy = \"msjo\"\nname = \"{label}\"\n[msjo]\n{body}\n");
                let cfg = SchedulerConfig::from_source(&Source::new("s", &toml, Format::Toml))?;
                let out = run_config(&cluster, &w, &cfg, seed)?;
                if bound.is_none() {
                    bound = out.info.scheduler_stats.get("lp_objective").copied();
                }
                row.push(out.report().summary.total_weighted_completion_s);
            }
            let b = bound.ok_or("MarS reported no LP objective")?;
            let ratios: Vec<f64> = row.iter().map(|t| t / b).collect();
            for (s, r) in sums.iter_mut().zip(&ratios) {
                *s += r;
            }
            n += 1.0;
            let cells: Vec<String> = ratios.iter().map(|r| format!("{r:.3}")).collect();
            println!("| {jobs} | {seed} | {} |", cells.join(" | "));
        }
    }
    let means: Vec<String> = sums.iter().map(|s| format!("{:.3}", s / n)).collect();
    println!("| mean | | {} |", means.join(" | "));
    Ok(())
}
