//! Where the adaptive family misses goals that FIFO meets: the same seeded
//! workload under every scheduler of the seed-003 comparison, then, job by
//! job, the goals one scheduler misses and FIFO meets, with what the
//! control loop gave those jobs cycle by cycle.
//!
//! Usage: `cargo run --release -p mrsched-experiments --example
//! adaptive_misses -- <setting> [seed ...]` with setting one of `exp1`,
//! `exp2-0.3`, `exp2-0.5`, `exp2-0.7`, `exp3-0.5`, `exp3-0.75`,
//! `exp3-0.875`, `exp3-batch` (seeds default to 1 2 3); with `DETAIL=1` in
//! the environment, one line per such job. The finding is
//! written up in `docs/policies/adaptive.md`.

use mrsched_experiments::adaptive_common::{run_one, workload, CycleRecorder, SCHEDULERS};
use mrsched_experiments::{adaptive_exp2, adaptive_exp3, ExpError};
use mrsched_metrics::Report;
use mrsched_model::{cost, Cluster, JobId, Time, Workload};
use mrsched_sched::policies::adaptive::{Adaptive, AdaptiveOptions, CycleEntry};
use mrsched_sim::{simulate, SimOptions};
use mrsched_workload::catalog;
use std::collections::HashMap;

/// Every control cycle of one run: its time and every job's entry.
type Cycles = Vec<(Time, Vec<CycleEntry>)>;

fn setting(name: &str, seed: u64) -> Result<(Cluster, Workload), ExpError> {
    let alone = catalog::cluster("shared-100").map_err(|e| ExpError(e.to_string()))?;
    let poisson = || workload(seed, 300);
    Ok(match name {
        "exp1" => (alone, poisson()?),
        "exp3-batch" => (
            adaptive_exp3::one_burst()?,
            adaptive_exp3::batch(seed, &alone),
        ),
        _ => {
            if let Some(p) = name.strip_prefix("exp2-") {
                let peak: f64 = p.parse().map_err(|_| ExpError(format!("bad peak {p}")))?;
                (adaptive_exp2::day_cluster(peak)?, poisson()?)
            } else if let Some(s) = name.strip_prefix("exp3-") {
                let share: f64 = s.parse().map_err(|_| ExpError(format!("bad share {s}")))?;
                let c = mrsched_experiments::adaptive_common::shared_with(
                    "bursts",
                    &adaptive_exp3::bursts(share),
                )?;
                (c, poisson()?)
            } else {
                return Err(ExpError(format!("unknown setting {name}")));
            }
        }
    })
}

fn met(r: &Report) -> HashMap<u32, bool> {
    r.jobs
        .iter()
        .filter(|j| j.goal_s.is_some())
        .map(|j| (j.id, j.goal_met == Some(true)))
        .collect()
}

fn main() -> Result<(), ExpError> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args.first().cloned().unwrap_or_else(|| "exp2-0.3".into());
    let seeds: Vec<u64> = if args.len() > 1 {
        args[1..].iter().filter_map(|s| s.parse().ok()).collect()
    } else {
        vec![1, 2, 3]
    };
    let alone = catalog::cluster("shared-100").map_err(|e| ExpError(e.to_string()))?;
    for seed in seeds {
        let (cluster, w) = setting(&name, seed)?;
        let mut reports: Vec<(String, Report, Cycles)> = Vec::new();
        let paper = ["adaptive@paper", "reverse-adaptive@paper"];
        for s in SCHEDULERS.iter().chain(&paper).copied() {
            let opts = match s {
                "adaptive" => Some(AdaptiveOptions::adaptive()),
                "reverse-adaptive" => Some(AdaptiveOptions::reverse_adaptive()),
                "adaptive@paper" => Some(AdaptiveOptions::adaptive().as_in_paper()),
                "reverse-adaptive@paper" => Some(AdaptiveOptions::reverse_adaptive().as_in_paper()),
                _ => None,
            };
            match opts {
                Some(o) => {
                    let mut r = CycleRecorder::new(Adaptive::new(o, &cluster));
                    let sim = SimOptions {
                        seed,
                        ..Default::default()
                    };
                    let out = simulate(&cluster, &w, &mut r, &sim)
                        .map_err(|e| ExpError(e.to_string()))?;
                    reports.push((s.to_string(), out.report(), r.cycles));
                }
                None => {
                    let (out, _) = run_one(&cluster, &w, s, seed)?;
                    reports.push((s.to_string(), out.report(), Vec::new()));
                }
            }
        }
        let counts: Vec<String> = reports
            .iter()
            .map(|(s, r, _)| format!("{s} {}", met(r).values().filter(|&&m| m).count()))
            .collect();
        println!("== {name} seed {seed}: goals met {}", counts.join(", "));
        let fifo = met(&reports[0].1);
        let fifo_job: HashMap<u32, &mrsched_metrics::report::JobRecord> =
            reports[0].1.jobs.iter().map(|j| (j.id, j)).collect();
        let detail = std::env::var("DETAIL").is_ok();
        for (s, r, cycles) in &reports[1..] {
            let mine = met(r);
            let lost: Vec<u32> = mine
                .iter()
                .filter(|(id, &m)| !m && fifo[id])
                .map(|(id, _)| *id)
                .collect();
            let won = mine.iter().filter(|(id, &m)| m && !fifo[id]).count();
            println!(
                "  {s}: misses {} goals FIFO meets, meets {won} FIFO misses",
                lost.len()
            );
            let mut lost = lost;
            lost.sort();
            if !detail {
                continue;
            }
            for id in lost {
                let j = r.jobs.iter().find(|j| j.id == id).expect("job");
                let spec = &w.jobs[id as usize];
                let ideal = cost::ideal_time(&alone, spec).as_secs_f64();
                let map_s = spec.expected_map.map_or(0.0, |t| t.as_secs_f64());
                let goal = j.goal_s.unwrap_or(0.0);
                let fj = fifo_job[&id];
                // What the control loop gave this job, cycle by cycle.
                let (mut n, mut under, mut at_est, mut be_slots, mut surplus_later) =
                    (0, 0, 0, 0u64, 0u64);
                let mut first_alloc_t = None;
                for (t, entries) in cycles {
                    let Some(e) = entries.iter().find(|e| e.job == JobId(id)) else {
                        continue;
                    };
                    n += 1;
                    if e.allocation > 0 && first_alloc_t.is_none() {
                        first_alloc_t = Some(t.as_secs_f64());
                    }
                    if e.allocation < e.max {
                        if e.allocation < e.estimate {
                            under += 1;
                        } else {
                            at_est += 1;
                        }
                        for o in entries {
                            match o.goal {
                                None => be_slots += o.allocation as u64,
                                Some(g) if Some(g) > e.goal => {
                                    surplus_later += o.allocation.saturating_sub(o.estimate) as u64
                                }
                                _ => {}
                            }
                        }
                    }
                }
                println!(
                    "    job {id}: {} maps of {map_s:.0} s, arrival {:.0} s, goal {goal:.0} s ({:.1}x alone {ideal:.0} s); ends {:.0} s (late {:.0} s), FIFO {:.0} s ({:.0} s early); cycles {n}: under estimate {under}, at/above estimate but below max {at_est}; mean per such cycle: best-effort slots {:.0}, surplus of later-goal jobs {:.0}",
                    j.maps,
                    j.arrival_s,
                    (goal - j.arrival_s) / ideal,
                    j.finish_s.unwrap_or(f64::NAN),
                    j.finish_s.unwrap_or(f64::NAN) - goal,
                    fj.finish_s.unwrap_or(f64::NAN),
                    goal - fj.finish_s.unwrap_or(f64::NAN),
                    be_slots as f64 / (under + at_est).max(1) as f64,
                    surplus_later as f64 / (under + at_est).max(1) as f64,
                );
            }
        }
    }
    Ok(())
}
