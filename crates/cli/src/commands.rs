//! The subcommands.

use crate::args::*;
use crate::progress;
use mrsched_metrics::output::{
    compare_csv, compare_run_json, compare_table, jobs_csv, render_table_aligned, summary_text,
    write_compare_json,
};
use mrsched_metrics::{html, plot, Report};
use mrsched_model::{Cluster, Estimate, Format as DocFormat, InputErrors, Source, Workload};
use mrsched_sched::policies::capacity::conf::CapacityConf;
use mrsched_sched::policies::fair::alloc::Allocations;
use mrsched_sched::{config, SchedulerConfig};
use mrsched_sim::{simulate_with_progress, standalone::standalone_times, SimOptions};
use mrsched_workload::catalog;
use mrsched_workload::jsonstream::{self, TraceFormat};
use mrsched_workload::swim::{SwimMode, SwimOptions};
use std::path::Path;

/// A command failure: message and exit code.
pub struct CliError {
    /// What went wrong (may span lines).
    pub message: String,
    /// 1 for failed runs, 2 for bad input.
    pub code: i32,
}

impl From<InputErrors> for CliError {
    fn from(e: InputErrors) -> Self {
        CliError {
            message: e.to_string(),
            code: 2,
        }
    }
}

fn fail(msg: impl std::fmt::Display) -> CliError {
    CliError {
        message: msg.to_string(),
        code: 1,
    }
}

fn usage(msg: impl std::fmt::Display) -> CliError {
    CliError {
        message: msg.to_string(),
        code: 2,
    }
}

type Result<T> = std::result::Result<T, CliError>;

/// Presets `compare` runs when none are named, in this order (those that
/// exist in this build).
const DEFAULT_COMPARE: [&str; 6] = [
    "fifo",
    "fair",
    "fair+ccs",
    "fifo+ccs",
    "fair+ccs+delay",
    "fair+delay",
];

/// Run a parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Simulate(a) => simulate(a),
        Command::Compare(a) => compare(a),
        Command::Reproduce(a) => reproduce(a),
        Command::List(a) => list(a),
        Command::Validate(a) => validate(a),
        Command::Generate(a) => generate(a),
        Command::Live(c) => crate::live::run(c),
    }
}

fn swim_options(r: &RunArgs) -> SwimOptions {
    SwimOptions {
        mode: match r.swim_mode {
            SwimModeArg::Bytes => SwimMode::Bytes,
            SwimModeArg::Bins => SwimMode::Bins,
        },
        scale: r.swim_scale,
        max_jobs: r.swim_jobs,
        seed: r.seed,
        ..Default::default()
    }
}

/// Cluster and workload of a run, checked against each other, and the
/// run's estimate (which the check computes).
fn inputs(r: &RunArgs) -> Result<(Cluster, Workload, Estimate)> {
    if !(r.swim_scale.is_finite() && r.swim_scale > 0.0) {
        return Err(usage("--swim-scale must be a positive number"));
    }
    if !(r.max_events.is_finite() && r.max_events > 0.0) {
        return Err(usage("--max-events must be a positive number"));
    }
    r.limits.apply();
    let cluster = catalog::cluster(&r.cluster);
    let workload = catalog::workload(&r.workload, r.seed, &swim_options(r));
    let (cluster, workload) = match (cluster, workload) {
        (Ok(c), Ok(w)) => (c, w),
        (Err(mut a), Err(b)) => {
            a.0.extend(b.0);
            return Err(a.into());
        }
        (Err(a), _) | (_, Err(a)) => return Err(a.into()),
    };
    let est = workload.check_against(&cluster, &r.workload)?;
    Ok((cluster, workload, est))
}

/// Print the size of the run on stderr (stdout stays one document) and
/// refuse it when its estimated events are beyond the budget. A scheduler
/// that needs every heartbeat (`cfgs`, any of them) makes every node's
/// heartbeats count; otherwise idle nodes sleep and only waking them does.
fn check_budget(
    r: &RunArgs,
    cluster: &Cluster,
    workload: &Workload,
    mut est: Estimate,
    cfgs: &[&SchedulerConfig],
) -> Result<()> {
    let every = cfgs
        .iter()
        .any(|c| c.build(cluster).is_ok_and(|s| s.needs_every_heartbeat()));
    if every {
        est.events = est.every_heartbeat_events;
    }
    eprintln!(
        "estimate: workload `{}` on cluster `{}`: {est}",
        workload.name, cluster.name
    );
    if est.events > r.max_events && !r.force {
        let longest = match &est.longest_task {
            Some((job, kind, t)) => {
                format!("; the longest task is a {kind} of job `{job}`, about {t:.0} s")
            }
            None => String::new(),
        };
        return Err(usage(format!(
            "the run is estimated at {:.2e} events, beyond the budget of {:.2e} (--max-events): cluster `{}` has {} nodes beating every {}{}, over about {:.0} simulated seconds (a timeline sample every 10 s), {} jobs and {} tasks{longest}. Raise --max-events or pass --force to run anyway",
            est.events,
            r.max_events,
            cluster.name,
            est.nodes,
            cluster.heartbeat.interval,
            if every {
                " (the scheduler needs every heartbeat)"
            } else {
                " (idle nodes sleep; each job wakes them)"
            },
            est.horizon_s,
            est.jobs,
            est.tasks
        )));
    }
    Ok(())
}

/// One simulation with progress bar, slowdowns when asked.
fn run_one(
    r: &RunArgs,
    cluster: &Cluster,
    workload: &Workload,
    cfg: &SchedulerConfig,
    lines: Option<&indicatif::MultiProgress>,
) -> Result<Report> {
    let mut sched = cfg.build(cluster)?;
    for w in sched.warnings() {
        eprintln!("warning: {w}");
    }
    let opts = SimOptions {
        seed: r.seed,
        timing: r.timing,
        // Only the report reads the run's state afterwards.
        release_ended_jobs: true,
        ..Default::default()
    };
    let mut line = progress::RunProgress::new(&cfg.label, r.format != Format::Json, lines);
    let out = simulate_with_progress(cluster, workload, sched.as_mut(), &opts, &mut |p| {
        line.update(p)
    })
    .map_err(fail)?;
    line.finish();
    let mut info = out.info;
    info.scheduler = cfg.label.clone();
    if r.slowdown {
        let mut make = || cfg.build(cluster).expect("built once already");
        let alone = standalone_times(
            cluster,
            workload,
            &mut make,
            &SimOptions {
                timing: false,
                ..opts.clone()
            },
        )
        .map_err(fail)?;
        info.standalone = Some(alone);
    }
    let mut report = Report::build(&out.state, &info);
    // Lower bound everywhere (seed 001 §5.1.2): the LP bound and the TWJCT
    // ratio, for any scheduler, when every task time is explicit.
    if let Some(Ok(lb)) = mrsched_sched::policies::msjo::lower_bound(workload, cluster) {
        let twjct = report.summary.total_weighted_completion_s;
        report
            .extra
            .insert("lp_lower_bound_s".into(), serde_json::json!(lb.objective));
        report.extra.insert(
            "twjct_over_lower_bound".into(),
            serde_json::json!(twjct / lb.objective),
        );
    }
    Ok(report)
}

/// Write to stdout; a closed pipe (`| head`) ends the program quietly.
fn out(s: &str) {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    if o.write_all(s.as_bytes()).and_then(|_| o.flush()).is_err() {
        std::process::exit(0);
    }
}

fn print_json<T: serde::Serialize>(v: &T) -> Result<()> {
    let s = serde_json::to_string_pretty(v).map_err(fail)?;
    out(&s);
    out("\n");
    Ok(())
}

fn simulate(a: SimulateArgs) -> Result<()> {
    let cfg = SchedulerConfig::resolve(&a.scheduler);
    let inputs = inputs(&a.run);
    let (cfg, (cluster, workload, est)) = match (cfg, inputs) {
        (Ok(c), Ok(i)) => (c, i),
        (Err(e), Err(mut f)) => {
            f.message = format!("{}\n{}", e, f.message);
            return Err(f);
        }
        (Err(e), _) => return Err(e.into()),
        (_, Err(f)) => return Err(f),
    };
    check_budget(&a.run, &cluster, &workload, est, &[&cfg])?;
    let report = run_one(&a.run, &cluster, &workload, &cfg, None)?;
    if let Some(p) = &a.plot {
        plot_timeline(p, &report)?;
    }
    match a.run.format {
        Format::Table => out(&summary_text(&report)),
        Format::Json => print_json(&report)?,
        Format::Csv => out(&jobs_csv(&report)),
    }
    Ok(())
}

fn plot_timeline(p: &Path, report: &Report) -> Result<()> {
    let pts = |f: &dyn Fn(&mrsched_metrics::Sample) -> f64| -> Vec<(f64, f64)> {
        report.timeline.iter().map(|s| (s.t_s, f(s))).collect()
    };
    let max_mb = report
        .timeline
        .iter()
        .map(|s| s.intermediate_mb)
        .fold(0.0, f64::max)
        .max(1.0);
    plot::line_chart(
        p,
        &format!(
            "{} on {}: {}",
            report.scheduler, report.cluster, report.workload
        ),
        "time (s)",
        "fraction",
        &[
            plot::Series {
                label: "busy / available slots".into(),
                points: pts(&|s| {
                    if s.available_slots == 0 {
                        0.0
                    } else {
                        s.busy_slots as f64 / s.available_slots as f64
                    }
                }),
            },
            plot::Series {
                label: format!("intermediate data / {:.0} MB", max_mb),
                points: pts(&|s| s.intermediate_mb / max_mb),
            },
        ],
    )
    .map_err(fail)
}

fn compare(a: CompareArgs) -> Result<()> {
    let names: Vec<String> = if a.schedulers.is_empty() {
        let presets = config::presets();
        DEFAULT_COMPARE
            .iter()
            .filter(|n| presets.iter().any(|p| p.name == **n))
            .map(|s| s.to_string())
            .collect()
    } else {
        a.schedulers.clone()
    };
    let mut errs = InputErrors::new();
    let mut cfgs = Vec::new();
    for n in &names {
        match SchedulerConfig::resolve(n.trim()) {
            Ok(c) => cfgs.push(c),
            Err(e) => errs.0.extend(e.0),
        }
    }
    errs.into_result(())?;
    if let Some(p) = &a.html {
        // Refuse a page that cannot be written before the runs, not after.
        let dir = p.parent().filter(|d| !d.as_os_str().is_empty());
        if dir.is_some_and(|d| !d.is_dir()) || p.is_dir() {
            return Err(usage(format!(
                "--html {}: not a file in an existing directory",
                p.display()
            )));
        }
    }
    mrsched_sim::parallel::set_thread_limit(a.threads);
    let (cluster, workload, est) = inputs(&a.run)?;
    check_budget(
        &a.run,
        &cluster,
        &workload,
        est,
        &cfgs.iter().collect::<Vec<_>>(),
    )?;
    // Runs are independent: one per core, reports in the order asked.
    // Each run's JSON is rendered on its thread as it ends
    // (`compare_run_json`), not all at once after the last.
    // A report rendered to JSON is freed on its thread unless the plots
    // or the page need it.
    let lines = indicatif::MultiProgress::new();
    let json = a.run.format == Format::Json;
    let keep_reports = !json || a.plots.is_some() || a.html.is_some();
    let (reports, runs_json): (Vec<Option<Report>>, Vec<Option<String>>) =
        mrsched_sim::parallel::map(
            cfgs.len(),
            |i| {
                let r = run_one(&a.run, &cluster, &workload, &cfgs[i], Some(&lines))?;
                let j = json
                    .then(|| compare_run_json(&r))
                    .transpose()
                    .map_err(fail)?;
                Ok((keep_reports.then_some(r), j))
            },
            |_| {},
        )
        .into_iter()
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .unzip();
    let reports: Vec<Report> = reports.into_iter().flatten().collect();
    if let Some(dir) = &a.plots {
        std::fs::create_dir_all(dir).map_err(fail)?;
        plot::response_cdf(&dir.join("response-cdf.svg"), &reports).map_err(fail)?;
        plot::utilization_timeline(&dir.join("utilization.svg"), &reports).map_err(fail)?;
        plot::intermediate_timeline(&dir.join("intermediate.svg"), &reports).map_err(fail)?;
    }
    if let Some(p) = &a.html {
        let labels: Vec<String> = names.iter().map(|n| n.trim().to_string()).collect();
        let page = html::compare_html(&command_line(), &labels, &reports).map_err(fail)?;
        std::fs::write(p, page).map_err(|e| fail(format!("{}: {e}", p.display())))?;
    }
    match a.run.format {
        Format::Table => {
            out(&compare_table(&reports));
            if let Some(dir) = &a.plots {
                out(&format!("figures: {}\n", dir.display()));
            }
            if let Some(p) = &a.html {
                out(&format!("report: {}\n", p.display()));
            }
        }
        Format::Json => {
            // Written run by run, each freed once out: not the whole
            // document in memory beside its runs.
            drop(reports);
            let runs = runs_json.into_iter().flatten();
            use std::io::Write;
            let mut o = std::io::BufWriter::new(std::io::stdout().lock());
            // A closed pipe ends the program quietly, as `out` does.
            if write_compare_json(&mut o, &cluster.name, &workload.name, a.run.seed, runs)
                .and_then(|_| o.flush())
                .is_err()
            {
                std::process::exit(0);
            }
        }
        Format::Csv => out(&compare_csv(&reports)),
    }
    Ok(())
}

/// This process's command line as a shell would take it back: arguments
/// with spaces or quotes in single quotes.
fn command_line() -> String {
    let mut args = std::env::args_os().map(|a| a.to_string_lossy().into_owned());
    let exe = args
        .next()
        .and_then(|a| {
            Path::new(&a)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "mrsched".into());
    let quoted = args.map(|a| {
        let plain = !a.is_empty()
            && a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./,=+:@%".contains(c));
        if plain {
            a
        } else {
            format!("'{}'", a.replace('\'', "'\\''"))
        }
    });
    std::iter::once(exe)
        .chain(quoted)
        .collect::<Vec<_>>()
        .join(" ")
}

fn reproduce(a: ReproduceArgs) -> Result<()> {
    if a.names.is_empty() {
        return list(ListArgs {
            what: Some(ListWhat::Experiments),
            format: a.format,
        });
    }
    let mut exps = Vec::new();
    for name in &a.names {
        if name == "all" {
            exps.extend(mrsched_experiments::experiments());
            continue;
        }
        match mrsched_experiments::find(name) {
            Some(e) => exps.push(e),
            None => {
                return Err(usage(format!(
                    "no experiment `{name}` (known: {})",
                    mrsched_experiments::experiments()
                        .iter()
                        .map(|e| e.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                )))
            }
        }
    }
    mrsched_sim::parallel::set_thread_limit(a.threads);
    let ctx = mrsched_experiments::ExpContext {
        out_dir: a.out.clone(),
        quick: a.quick,
        seed: a.seed,
    };
    let mut results = Vec::new();
    for e in exps {
        let pb = progress::bar(e.name);
        pb.tick();
        let bar = pb.clone();
        mrsched_experiments::set_progress(Some(Box::new(move |f| {
            bar.set_position((f * 1000.0) as u64)
        })));
        let r = e.reproduce(&ctx);
        mrsched_experiments::set_progress(None);
        let r = r.map_err(fail)?;
        pb.finish_and_clear();
        results.push(r);
    }
    match a.format {
        Format::Json => print_json(&serde_json::json!(results
            .iter()
            .map(|r| serde_json::json!({
                "name": r.name,
                "report": a.out.join(format!("{}.md", r.name)),
                "figures": r.figures,
                "results": r.json,
            }))
            .collect::<Vec<_>>()))?,
        _ => {
            for r in &results {
                out(&format!(
                    "{}\nreport: {}\n",
                    r.markdown,
                    a.out.join(format!("{}.md", r.name)).display()
                ));
            }
        }
    }
    Ok(())
}

fn list(a: ListArgs) -> Result<()> {
    let mut tables: Vec<(&str, Vec<(String, String)>)> = Vec::new();
    let want = |w: ListWhat| a.what.is_none() || a.what == Some(w);
    if want(ListWhat::Clusters) {
        tables.push((
            "clusters",
            catalog::clusters()
                .iter()
                .map(|c| (c.name.to_string(), c.about.to_string()))
                .collect(),
        ));
    }
    if want(ListWhat::Workloads) {
        tables.push((
            "workloads",
            catalog::workloads()
                .iter()
                .map(|w| (w.name.to_string(), w.about.to_string()))
                .collect(),
        ));
    }
    if want(ListWhat::Schedulers) {
        let mut v: Vec<(String, String)> = config::presets()
            .iter()
            .map(|p| (p.name.to_string(), p.about.to_string()))
            .collect();
        v.extend(
            config::policies()
                .iter()
                .map(|p| (format!("policy = \"{}\"", p.name), p.about.to_string())),
        );
        tables.push(("schedulers", v));
    }
    if want(ListWhat::Experiments) {
        tables.push((
            "experiments",
            mrsched_experiments::experiments()
                .iter()
                .map(|e| (e.name.to_string(), e.about.to_string()))
                .collect(),
        ));
    }
    match a.format {
        Format::Json => {
            let mut m = serde_json::Map::new();
            for (k, rows) in &tables {
                m.insert(
                    k.to_string(),
                    serde_json::json!(rows
                        .iter()
                        .map(|(n, d)| serde_json::json!({"name": n, "about": d}))
                        .collect::<Vec<_>>()),
                );
            }
            print_json(&m)
        }
        Format::Csv => {
            let mut o = String::from("kind,name,about\n");
            for (k, rows) in &tables {
                for (n, d) in rows {
                    o.push_str(&format!(
                        "{k},\"{}\",\"{}\"\n",
                        n.replace('"', "\"\""),
                        d.replace('"', "\"\"")
                    ));
                }
            }
            out(&o);
            Ok(())
        }
        Format::Table => {
            for (i, (k, rows)) in tables.iter().enumerate() {
                if i > 0 {
                    out("\n");
                }
                let rows: Vec<Vec<String>> = rows
                    .iter()
                    .map(|(n, d)| vec![n.clone(), d.clone()])
                    .collect();
                out(&render_table_aligned(&[k, "what"], &rows, &[false, false]));
            }
            Ok(())
        }
    }
}

fn guess_kind(path: &Path, src: &Source) -> Option<FileKind> {
    if path.extension().and_then(|e| e.to_str()) == Some("tsv") {
        return Some(FileKind::Swim);
    }
    match jsonstream::detect(&src.text) {
        Some(TraceFormat::Sls) => return Some(FileKind::Sls),
        Some(TraceFormat::Rumen) => return Some(FileKind::Rumen),
        None => {}
    }
    if CapacityConf::looks_like(&src.text) {
        return Some(FileKind::Capacity);
    }
    if Allocations::is_xml(src) {
        return Some(FileKind::Allocation);
    }
    let keys: Vec<String> = match src.format {
        DocFormat::Toml => toml::from_str::<toml::Table>(&src.text)
            .ok()?
            .keys()
            .cloned()
            .collect(),
        DocFormat::Json => match serde_json::from_str::<serde_json::Value>(&src.text).ok()? {
            serde_json::Value::Object(m) => m.keys().cloned().collect(),
            _ => return None,
        },
    };
    let has = |k: &str| keys.iter().any(|x| x == k);
    if has("policy") {
        Some(FileKind::Scheduler)
    } else if has("nodes") {
        Some(FileKind::Cluster)
    } else if has("jobs") || has("datasets") {
        Some(FileKind::Workload)
    } else if has("program") {
        Some(FileKind::Job)
    } else if has("pools") {
        Some(FileKind::Allocation)
    } else {
        None
    }
}

/// One line about a job trace: jobs, tasks and the span of arrivals.
fn trace_summary(what: &str, w: &Workload) -> String {
    let span = match (w.jobs.first(), w.jobs.last()) {
        (Some(a), Some(b)) => b.arrival.saturating_sub(a.arrival).as_secs_f64(),
        _ => 0.0,
    };
    format!(
        "{what}: {} jobs, {} tasks, arrivals over {} s",
        w.jobs.len(),
        w.task_count(),
        mrsched_model::limits::num(span)
    )
}

fn validate(a: ValidateArgs) -> Result<()> {
    a.limits.apply();
    let mut errs = InputErrors::new();
    let mut clusters = Vec::new();
    let mut workloads = Vec::new();
    for f in &a.files {
        let src = match Source::read(f) {
            Ok(s) => s,
            Err(e) => {
                errs.push(e);
                continue;
            }
        };
        let kind = a.kind.or_else(|| guess_kind(f, &src));
        let res: std::result::Result<String, InputErrors> = match kind {
            Some(FileKind::Cluster) => Cluster::from_source(&src).map(|c| {
                clusters.push(c.clone());
                format!(
                    "cluster `{}`: {} nodes on {} racks, {} map + {} reduce slots",
                    c.name,
                    c.nodes.len(),
                    c.racks.len(),
                    c.total_map_slots(),
                    c.total_reduce_slots()
                )
            }),
            Some(FileKind::Workload) => Workload::from_source(&src).map(|w| {
                workloads.push((src.label.clone(), w.clone()));
                format!(
                    "workload `{}`: {} datasets, {} jobs, {} tasks",
                    w.name,
                    w.datasets.len(),
                    w.jobs.len(),
                    w.task_count()
                )
            }),
            Some(FileKind::Scheduler) => SchedulerConfig::from_source(&src).and_then(|c| {
                let probe = Cluster::from_toml_str(
                    "probe",
                    "[[nodes]]\nmap_slots = 1\nreduce_slots = 1\n",
                )?;
                c.build(&probe)?;
                Ok(format!("scheduler `{}` (policy {})", c.label, c.policy))
            }),
            Some(FileKind::Swim) => mrsched_workload::swim::read(&src, &SwimOptions::default())
                .map(|w| {
                    workloads.push((src.label.clone(), w.clone()));
                    format!(
                        "SWIM trace: {} jobs, {} tasks (bytes mode)",
                        w.jobs.len(),
                        w.task_count()
                    )
                }),
            Some(FileKind::Sls) => mrsched_workload::sls::read(&src).map(|w| {
                workloads.push((src.label.clone(), w.clone()));
                trace_summary("SLS job trace", &w)
            }),
            Some(FileKind::Rumen) => mrsched_workload::rumen::read(&src).map(|w| {
                workloads.push((src.label.clone(), w.clone()));
                trace_summary("Rumen job trace", &w)
            }),
            Some(FileKind::Allocation) => Allocations::from_source(&src).map(|a| {
                use mrsched_sched::policies::fair::alloc::AllocFormat;
                let (what, pools) = match a.format {
                    AllocFormat::Mr1 => ("MR1 fair-scheduler.xml", "pools"),
                    AllocFormat::Native => ("allocation file", "pools"),
                    AllocFormat::Yarn => ("YARN Fair Scheduler allocation file", "queues"),
                    AllocFormat::Spark => ("Spark fairscheduler.xml", "pools"),
                };
                let rules = if a.placement.is_empty() {
                    String::new()
                } else {
                    format!(", {} placement rules", a.placement.len())
                };
                format!(
                    "{what}: {} {pools}, {} users{rules}",
                    a.all_pools().len(),
                    a.users.len()
                )
            }),
            Some(FileKind::Capacity) => {
                mrsched_sched::policies::capacity::conf::parse(&src.label, &src.text).map(|c| {
                    for w in &c.warnings {
                        eprintln!("warning: {w}");
                    }
                    let leaves = c.queues.iter().filter(|q| q.is_leaf()).count();
                    format!(
                        "capacity-scheduler file: {} queues ({leaves} leaves), {} user mappings",
                        c.queues.len() - 1,
                        c.mappings.len()
                    )
                })
            }
            Some(FileKind::Job) => mrsched_runtime::jobfile::JobFile::parse(&src)
                .map(|j| format!("job file: job `{}`", j.display_name())),
            // A document that does not parse says where; one that does but
            // has none of the known tables asks for --as.
            None => match src.parse::<serde_json::Value>() {
                Err(e) => Err(e.into()),
                Ok(_) => Err(mrsched_model::InputError::file(
                    &src.label,
                    "cannot tell what this file is (no `nodes`, `jobs`, `policy`, `program` or `pools`); use --as",
                )
                .into()),
            },
        };
        match res {
            Ok(msg) => out(&format!("ok: {}: {msg}\n", f.display())),
            Err(e) => errs.0.extend(e.0),
        }
    }
    // With one cluster, every workload is checked against it and sized.
    if let [cluster] = clusters.as_slice() {
        for (label, w) in &workloads {
            match w.check_against(cluster, label) {
                Ok(est) => out(&format!(
                    "estimate: {label} on cluster `{}`: {est}\n",
                    cluster.name
                )),
                Err(e) => errs.0.extend(e.0),
            }
        }
    }
    errs.into_result(()).map_err(CliError::from)
}

fn generate(a: GenerateArgs) -> Result<()> {
    let swim = SwimOptions {
        mode: match a.swim_mode {
            SwimModeArg::Bytes => SwimMode::Bytes,
            SwimModeArg::Bins => SwimMode::Bins,
        },
        seed: a.seed,
        ..Default::default()
    };
    let w = catalog::workload(&a.workload, a.seed, &swim)?;
    let spec = w.to_spec();
    let json = a
        .output
        .as_ref()
        .is_some_and(|p| p.extension().and_then(|e| e.to_str()) == Some("json"));
    let text = if json {
        serde_json::to_string_pretty(&spec).map_err(fail)?
    } else {
        let header = format!(
            "# Generated by `mrsched generate {} --seed {}`: {} jobs.\n",
            a.workload,
            a.seed,
            spec.jobs.len()
        );
        header + &toml::to_string(&spec).map_err(fail)?
    };
    match &a.output {
        Some(p) => std::fs::write(p, text).map_err(fail)?,
        None => out(&text),
    }
    Ok(())
}
