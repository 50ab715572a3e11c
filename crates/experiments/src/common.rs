//! Helpers experiments share: running a scheduler preset on a workload,
//! writing reports and figures.

use crate::{err, ExpContext, ExpError};
use mrsched_metrics::Report;
use mrsched_model::{Cluster, Workload};
use mrsched_sched::SchedulerConfig;
use mrsched_sim::{simulate, SimOptions, SimOutput};
use std::path::PathBuf;

/// Run `workload` on `cluster` under the scheduler preset or file `sched`.
pub fn run(
    cluster: &Cluster,
    workload: &Workload,
    sched: &str,
    seed: u64,
) -> Result<SimOutput, ExpError> {
    let cfg = SchedulerConfig::resolve(sched).map_err(err)?;
    run_config(cluster, workload, &cfg, seed)
}

/// Run `workload` on `cluster` under a scheduler configuration (e.g. one an
/// experiment wrote with measured options).
pub fn run_config(
    cluster: &Cluster,
    workload: &Workload,
    cfg: &SchedulerConfig,
    seed: u64,
) -> Result<SimOutput, ExpError> {
    let mut s = cfg.build(cluster).map_err(err)?;
    let opts = SimOptions {
        seed,
        ..Default::default()
    };
    let mut out = simulate(cluster, workload, s.as_mut(), &opts).map_err(err)?;
    out.info.scheduler = cfg.label.clone();
    Ok(out)
}

/// Run and report.
pub fn run_report(
    cluster: &Cluster,
    workload: &Workload,
    sched: &str,
    seed: u64,
) -> Result<Report, ExpError> {
    Ok(run(cluster, workload, sched, seed)?.report())
}

/// Write the markdown report; returns its path.
pub fn write_markdown(ctx: &ExpContext, name: &str, text: &str) -> Result<PathBuf, ExpError> {
    std::fs::create_dir_all(&ctx.out_dir).map_err(err)?;
    let p = ctx.out_dir.join(format!("{name}.md"));
    std::fs::write(&p, text).map_err(err)?;
    Ok(p)
}

/// Path of a figure in the output directory (created if needed).
pub fn figure_path(ctx: &ExpContext, file: &str) -> Result<PathBuf, ExpError> {
    std::fs::create_dir_all(&ctx.out_dir).map_err(err)?;
    Ok(ctx.out_dir.join(file))
}

/// Mean of a slice (0 when empty).
pub fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// A markdown table.
pub fn md_table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut s = format!("| {} |\n|", header.join(" | "));
    for _ in header {
        s.push_str("---|");
    }
    s.push('\n');
    for r in rows {
        s.push_str(&format!("| {} |\n", r.join(" | ")));
    }
    s
}
