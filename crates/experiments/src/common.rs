//! Helpers experiments share: running a scheduler preset on a workload,
//! writing reports and figures.

use crate::{err, progress, ExpContext, ExpError};
use mrsched_metrics::Report;
use mrsched_model::{Cluster, Workload};
use mrsched_model::{Format, Source};
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

/// Run `workload` on `cluster` under a scheduler configuration given as
/// TOML text, reported as `label`.
pub fn run_toml(
    cluster: &Cluster,
    workload: &Workload,
    label: &str,
    toml: &str,
    seed: u64,
) -> Result<SimOutput, ExpError> {
    let src = Source::new(format!("<{label}>"), toml, Format::Toml);
    let cfg = SchedulerConfig::from_source(&src).map_err(err)?;
    let mut s = cfg.build(cluster).map_err(err)?;
    let opts = SimOptions {
        seed,
        ..Default::default()
    };
    let mut out = simulate(cluster, workload, s.as_mut(), &opts).map_err(err)?;
    out.info.scheduler = label.to_string();
    Ok(out)
}

/// The TOML text of a preset (so experiments can print or extend it).
pub fn preset_toml(name: &str) -> Result<String, ExpError> {
    mrsched_sched::config::presets()
        .into_iter()
        .find(|p| p.name == name)
        .map(|p| p.toml.to_string())
        .ok_or_else(|| ExpError(format!("no preset {name}")))
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

/// Write the markdown report and return the experiment's report.
pub fn finish(
    ctx: &ExpContext,
    name: &str,
    markdown: String,
    figures: Vec<PathBuf>,
    json: serde_json::Value,
) -> Result<crate::ExpReport, ExpError> {
    write_markdown(ctx, name, &markdown)?;
    Ok(crate::ExpReport {
        name: name.into(),
        markdown,
        figures,
        json,
    })
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

/// The report header every experiment shares: how to rerun it.
pub fn rerun_line(ctx: &ExpContext, name: &str) -> String {
    format!(
        "Rerun: `mrsched reproduce {name}`{} (seed {}).",
        if ctx.quick { " (quick mode)" } else { "" },
        ctx.seed
    )
}

/// Format a float with `d` decimals.
pub fn f(x: f64, d: usize) -> String {
    format!("{x:.d$}")
}

/// Run `exp` in quick mode into a fresh temporary directory and check that
/// its report and every figure it lists were written (experiment tests).
/// Returns the report and the directory (for the caller to remove).
pub fn run_quick_checked(exp: &crate::Experiment) -> (crate::ExpReport, PathBuf) {
    let dir = std::env::temp_dir().join(format!("mrsched-{}-{}", exp.name, std::process::id()));
    let ctx = ExpContext {
        out_dir: dir.clone(),
        quick: true,
        seed: 1,
    };
    let r = exp
        .reproduce(&ctx)
        .unwrap_or_else(|e| panic!("{} runs: {e}", exp.name));
    let written = std::fs::read_to_string(dir.join(format!("{}.md", exp.name))).unwrap_or_default();
    assert!(
        written.contains("A quick run") && written == r.markdown,
        "{}: the written report says it is quick and equals the returned one",
        exp.name
    );
    assert!(
        dir.join(format!("{}.md", exp.name)).exists(),
        "{} wrote its report",
        exp.name
    );
    for f in &r.figures {
        assert!(f.exists(), "{}", f.display());
    }
    (r, dir)
}

/// Run `f(i)` for `i < n` on every core ([`mrsched_sim::parallel::map`]),
/// reporting progress in `[p0, p0 + span]`; results in index order, so the
/// output does not depend on the thread count.
pub fn par_map<T: Send>(
    n: usize,
    p0: f64,
    span: f64,
    f: impl Fn(usize) -> Result<T, ExpError> + Sync,
) -> Result<Vec<T>, ExpError> {
    mrsched_sim::parallel::map(n, f, |d| progress(p0 + span * d as f64 / n as f64))
        .into_iter()
        .collect()
}
