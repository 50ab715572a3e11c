//! What the three seed-003 experiments share: running FIFO, the Adaptive
//! Scheduler and Reverse-Adaptive on one cluster and workload, and the
//! measures the paper's abstract names: goals met, distance to goal,
//! accuracy of the completion-time estimates, fairness.
//!
//! The paper's set-ups and numbers are not available (prior work §1.5
//! [NOT FOUND]); every set-up here is ours and the reports say so.

use crate::common::{figure_path, md_table};
use crate::{err, ExpContext, ExpError};
use mrsched_metrics::plot::{line_chart, Series};
use mrsched_metrics::report::quantile;
use mrsched_metrics::Report;
use mrsched_model::{Cluster, Workload};
use mrsched_sched::policies::adaptive::bound::{goal_bound, GoalBound};
use mrsched_sched::policies::adaptive::capacity::CapacityCurve;
use mrsched_sched::policies::adaptive::predict::{accuracy, Prediction};
use mrsched_sched::policies::adaptive::{Adaptive, AdaptiveOptions};
use mrsched_sched::policies::edf::Edf;
use mrsched_sched::policies::fifo::Fifo;
use mrsched_sim::{simulate, SimOptions, SimOutput};
use mrsched_workload::catalog;
use mrsched_workload::goals::{goal_mix, GoalMixParams};

/// The schedulers compared, by preset name. `edf` (earliest goal first) is
/// our baseline, not in the paper.
pub const SCHEDULERS: [&str; 4] = ["fifo", "adaptive", "reverse-adaptive", "edf"];

/// How a scheduler is named in tables and figures: `edf` is marked as ours.
pub fn label(name: &str) -> String {
    if name == "edf" {
        "edf (ours)".into()
    } else {
        name.to_string()
    }
}

/// Run `workload` on `cluster` under `which` (a name of [`SCHEDULERS`], or
/// `adaptive@paper` / `reverse-adaptive@paper`: the placement as the paper
/// has it, surplus by utility and no backfill); returns the run and, for the
/// adaptive family, its resolved predictions.
pub fn run_one(
    cluster: &Cluster,
    workload: &Workload,
    which: &str,
    seed: u64,
) -> Result<(SimOutput, Vec<Prediction>), ExpError> {
    let opts = SimOptions {
        seed,
        ..Default::default()
    };
    let adaptive = match which {
        "fifo" | "edf" => None,
        "adaptive" => Some(AdaptiveOptions::adaptive()),
        "reverse-adaptive" => Some(AdaptiveOptions::reverse_adaptive()),
        "adaptive@paper" => Some(AdaptiveOptions::adaptive().as_in_paper()),
        "reverse-adaptive@paper" => Some(AdaptiveOptions::reverse_adaptive().as_in_paper()),
        other => return Err(ExpError(format!("unknown scheduler {other}"))),
    };
    match adaptive {
        None if which == "edf" => {
            let mut s = Edf::new();
            let out = simulate(cluster, workload, &mut s, &opts).map_err(err)?;
            Ok((out, Vec::new()))
        }
        None => {
            let mut s = Fifo::new();
            let out = simulate(cluster, workload, &mut s, &opts).map_err(err)?;
            Ok((out, Vec::new()))
        }
        Some(o) => {
            let mut s = Adaptive::new(o, cluster);
            let out = simulate(cluster, workload, &mut s, &opts).map_err(err)?;
            Ok((out, s.predictions().to_vec()))
        }
    }
}

/// Measures of one scheduler over one or more runs.
#[derive(Clone, Debug, Default)]
pub struct Measures {
    /// Jobs with a goal.
    pub goal_jobs: usize,
    /// Of which met it.
    pub goals_met: usize,
    /// Completion minus goal of every goal job, seconds.
    pub distances: Vec<f64>,
    /// Normalised slowdown of every succeeded goal job: response time /
    /// time alone (the report's stretch).
    pub slowdowns: Vec<f64>,
    /// The same for best-effort jobs.
    pub best_effort_slowdowns: Vec<f64>,
    /// Resolved completion-time predictions.
    pub predictions: Vec<Prediction>,
    /// Utilisation of each run.
    pub utilization: Vec<f64>,
}

impl Measures {
    /// Add one run.
    pub fn add(&mut self, r: &Report, preds: &[Prediction]) {
        for j in &r.jobs {
            if let Some(g) = j.goal_s {
                self.goal_jobs += 1;
                if j.goal_met == Some(true) {
                    self.goals_met += 1;
                }
                if let Some(f) = j.finish_s {
                    self.distances.push(f - g);
                }
            }
            if let Some(s) = j.stretch {
                if j.goal_s.is_some() {
                    self.slowdowns.push(s);
                } else {
                    self.best_effort_slowdowns.push(s);
                }
            }
        }
        self.predictions.extend_from_slice(preds);
        self.utilization.push(r.summary.utilization);
    }

    /// Fraction of goals met.
    pub fn met(&self) -> f64 {
        self.goals_met as f64 / self.goal_jobs.max(1) as f64
    }

    /// Mean, median and 95th percentile of the distance to goal.
    pub fn distance(&self) -> (f64, f64, f64) {
        let mut v = self.distances.clone();
        v.sort_by(f64::total_cmp);
        (
            crate::common::mean(&v),
            quantile(&v, 0.5),
            quantile(&v, 0.95),
        )
    }

    /// Coefficient of variation of normalised slowdowns and Jain's index
    /// `(sum x)^2 / (n sum x^2)` (1 = every job slowed down alike).
    pub fn fairness(&self) -> (f64, f64) {
        let v = &self.slowdowns;
        if v.is_empty() {
            return (0.0, 1.0);
        }
        let n = v.len() as f64;
        let m = v.iter().sum::<f64>() / n;
        let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n;
        let sq = v.iter().map(|x| x * x).sum::<f64>();
        (var.sqrt() / m, (m * n) * (m * n) / (n * sq))
    }

    /// As JSON.
    pub fn json(&self) -> serde_json::Value {
        let (dm, dmed, d95) = self.distance();
        let (cv, jain) = self.fairness();
        let acc = accuracy(&self.predictions);
        serde_json::json!({
            "goal_jobs": self.goal_jobs,
            "goals_met": self.goals_met,
            "goals_met_fraction": self.met(),
            "distance_to_goal_s": { "mean": dm, "median": dmed, "p95": d95 },
            "prediction": acc.map(|a| serde_json::json!({
                "count": a.count,
                "mean_abs_error_s": a.mean_abs_error_s,
                "mean_error_s": a.mean_error_s,
                "relative_error": a.relative_error,
                "within_10pct": a.within_10pct,
            })),
            "goal_job_slowdown": { "mean": crate::common::mean(&self.slowdowns), "cv": cv, "jain": jain },
            "best_effort_slowdown_mean": crate::common::mean(&self.best_effort_slowdowns),
            "utilization": crate::common::mean(&self.utilization),
        })
    }
}

/// The upper bound on goals met (`adaptive::bound`) summed over runs.
#[derive(Clone, Debug, Default)]
pub struct BoundMeasures {
    /// Jobs with a goal.
    pub goal_jobs: usize,
    /// Goals no scheduler can exceed (sum of each run's bound).
    pub met: usize,
    /// Sum of the relaxation's fractional optima.
    pub value: f64,
    /// Goal jobs whose longest map does not fit before their goal.
    pub hopeless: usize,
    /// Goal jobs the relaxation serves only in part or not at all.
    pub given_up: usize,
    /// Map work of the goal jobs and the part of it left undone by their
    /// goals in the relaxation, slot-seconds.
    pub work: (f64, f64),
    /// Time buckets and job-bucket pairs, largest run.
    pub size: (usize, usize),
    /// Solve time of each run, seconds.
    pub solve_s: Vec<f64>,
}

impl BoundMeasures {
    /// Compute and add the bound of one run.
    pub fn add_run(&mut self, cluster: &Cluster, workload: &Workload) {
        let t = std::time::Instant::now();
        let b = goal_bound(cluster, workload);
        self.solve_s.push(t.elapsed().as_secs_f64());
        self.add(&b);
    }

    /// Add one run's bound.
    pub fn add(&mut self, b: &GoalBound) {
        self.goal_jobs += b.goal_jobs;
        self.met += b.met;
        self.value += b.value;
        self.hopeless += b.hopeless;
        for (x, w) in b.fractions.iter().zip(&b.work) {
            if *x < 1.0 - 1e-9 {
                self.given_up += 1;
            }
            self.work.0 += w;
            self.work.1 += (1.0 - x) * w;
        }
        self.size = (self.size.0.max(b.buckets), self.size.1.max(b.arcs));
    }

    /// The bound as a fraction of goal jobs.
    pub fn met_fraction(&self) -> f64 {
        self.met as f64 / self.goal_jobs.max(1) as f64
    }

    /// Share of the goal jobs' map work the relaxation leaves undone.
    pub fn undone_share(&self) -> f64 {
        self.work.1 / self.work.0.max(1e-9)
    }

    /// As JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "goal_jobs": self.goal_jobs,
            "goals_met": self.met,
            "goals_met_fraction": self.met_fraction(),
            "relaxation_value": self.value,
            "hopeless": self.hopeless,
            "given_up": self.given_up,
            "undone_work_fraction": self.undone_share(),
            "buckets": self.size.0,
            "job_bucket_pairs": self.size.1,
            "solve_s": self.solve_s,
        })
    }

    /// A table row of `columns` cells: `setting` if any, the label, goals
    /// met, then `-`.
    pub fn row(&self, setting: Option<&str>, columns: usize) -> Vec<String> {
        let mut r: Vec<String> = setting.into_iter().map(String::from).collect();
        r.push(BOUND_LABEL.to_string());
        r.push(format!(
            "{:.1}% ({}/{})",
            100.0 * self.met_fraction(),
            self.met,
            self.goal_jobs
        ));
        r.resize(columns, "-".into());
        r
    }
}

/// How the bound is labelled in tables and charts.
pub const BOUND_LABEL: &str = "upper bound (ours)";

/// Every scheduler's measures on one setting, plus the reports of the
/// first seed (for timelines).
pub struct Comparison {
    /// `(scheduler, measures)` in [`SCHEDULERS`] order.
    pub measures: Vec<(String, Measures)>,
    /// First seed's report per scheduler.
    pub first: Vec<Report>,
    /// The upper bound on goals met over the same runs.
    pub bound: BoundMeasures,
}

/// The workload of an experiment: `jobs` goal-mix jobs (goals refer to the
/// cluster alone, `shared-100`).
pub fn workload(seed: u64, jobs: usize) -> Result<Workload, ExpError> {
    let alone = catalog::cluster("shared-100").map_err(err)?;
    Ok(goal_mix(
        seed,
        &GoalMixParams {
            jobs,
            ..Default::default()
        },
        &alone,
    ))
}

/// One run's report and its resolved predictions.
pub type Run = (Report, Vec<Prediction>);

/// Every scheduler of [`SCHEDULERS`] on each of `workloads` (run with the
/// seed beside it), all on every core: per workload, per scheduler, the
/// report (named after its scheduler) and the predictions. Callers add
/// them up in this order, that of a loop over workloads and schedulers
/// (sums of floats depend on it).
pub fn run_every(
    cluster: &Cluster,
    workloads: &[Workload],
    seeds: &[u64],
) -> Result<Vec<Vec<Run>>, ExpError> {
    let n = SCHEDULERS.len();
    let runs = mrsched_sim::parallel::map(
        workloads.len() * n,
        |u| -> Result<_, ExpError> {
            let s = SCHEDULERS[u % n];
            let (out, preds) = run_one(cluster, &workloads[u / n], s, seeds[u / n])?;
            let mut r = out.report();
            r.scheduler = s.to_string();
            Ok((r, preds))
        },
        |_| {},
    );
    let mut runs = runs.into_iter();
    (0..workloads.len())
        .map(|_| runs.by_ref().take(n).collect())
        .collect()
}

/// Run every scheduler on `cluster` with the goal-mix workload, for each
/// seed.
pub fn compare(cluster: &Cluster, jobs: usize, seeds: &[u64]) -> Result<Comparison, ExpError> {
    let mut measures: Vec<(String, Measures)> = SCHEDULERS
        .iter()
        .map(|s| (s.to_string(), Measures::default()))
        .collect();
    let mut first = Vec::new();
    let mut bound = BoundMeasures::default();
    let workloads = seeds
        .iter()
        .map(|&seed| workload(seed, jobs))
        .collect::<Result<Vec<_>, _>>()?;
    for (k, (w, runs)) in workloads
        .iter()
        .zip(run_every(cluster, &workloads, seeds)?)
        .enumerate()
    {
        bound.add_run(cluster, w);
        for (m, (r, preds)) in measures.iter_mut().zip(runs) {
            m.1.add(&r, &preds);
            if k == 0 {
                first.push(r);
            }
        }
    }
    Ok(Comparison {
        measures,
        first,
        bound,
    })
}

fn fmt_s(v: f64) -> String {
    format!("{v:.0}")
}

/// The comparison table (markdown).
pub fn table(c: &Comparison) -> String {
    let rows: Vec<Vec<String>> = c
        .measures
        .iter()
        .map(|(name, m)| {
            let (dm, dmed, d95) = m.distance();
            let (cv, jain) = m.fairness();
            let acc = accuracy(&m.predictions);
            vec![
                label(name),
                format!("{:.1}% ({}/{})", 100.0 * m.met(), m.goals_met, m.goal_jobs),
                fmt_s(dm),
                fmt_s(dmed),
                fmt_s(d95),
                acc.map_or("-".into(), |a| format!("{:.0}", a.mean_abs_error_s)),
                acc.map_or("-".into(), |a| format!("{:+.0}", a.mean_error_s)),
                acc.map_or("-".into(), |a| format!("{:.0}%", 100.0 * a.relative_error)),
                format!("{:.2}", crate::common::mean(&m.slowdowns)),
                format!("{cv:.2}"),
                format!("{jain:.3}"),
                format!("{:.2}", crate::common::mean(&m.best_effort_slowdowns)),
                format!("{:.1}%", 100.0 * crate::common::mean(&m.utilization)),
            ]
        })
        .collect();
    let mut rows = rows;
    rows.push(c.bound.row(None, 13));
    md_table(
        &[
            "scheduler",
            "goals met",
            "distance to goal: mean (s)",
            "median (s)",
            "p95 (s)",
            "prediction abs. error (s)",
            "prediction bias (s)",
            "abs. error / time left",
            "goal jobs: mean slowdown",
            "slowdown CV",
            "Jain (slowdown)",
            "best effort: mean slowdown",
            "utilisation",
        ],
        &rows,
    )
}

/// Cumulative distribution of the distance to goal, one line per
/// scheduler; returns the file name.
pub fn distance_cdf(
    ctx: &ExpContext,
    file: &str,
    title: &str,
    c: &Comparison,
) -> Result<String, ExpError> {
    let series: Vec<Series> = c
        .measures
        .iter()
        .map(|(name, m)| {
            let mut v = m.distances.clone();
            v.sort_by(f64::total_cmp);
            let n = v.len().max(1) as f64;
            Series {
                label: label(name),
                points: v
                    .iter()
                    .enumerate()
                    .map(|(i, x)| (*x, (i + 1) as f64 / n))
                    .collect(),
            }
        })
        .collect();
    let p = figure_path(ctx, file)?;
    line_chart(
        &p,
        title,
        "completion - goal (s); left of 0 = goal met",
        "fraction of goal jobs",
        &series,
    )
    .map_err(err)?;
    Ok(file.to_string())
}

/// Map slots left to MapReduce (the forecast of `cluster`) and busy slots
/// over time under each scheduler (first seed; the jobs are map-only);
/// returns the file name.
pub fn capacity_timeline(
    ctx: &ExpContext,
    file: &str,
    title: &str,
    c: &Comparison,
    cluster: &Cluster,
) -> Result<String, ExpError> {
    let mut series = Vec::new();
    if let Some(r) = c.first.first() {
        let curve = CapacityCurve::forecast(cluster);
        series.push(Series {
            label: "map slots left to MapReduce".into(),
            points: r
                .timeline
                .iter()
                .map(|s| (s.t_s, curve.at(s.t_s)))
                .collect(),
        });
    }
    for r in &c.first {
        series.push(Series {
            label: format!("busy, {}", label(&r.scheduler)),
            points: r
                .timeline
                .iter()
                .map(|s| (s.t_s, s.busy_slots as f64))
                .collect(),
        });
    }
    let p = figure_path(ctx, file)?;
    line_chart(&p, title, "time (s)", "slots", &series).map_err(err)?;
    Ok(file.to_string())
}

/// Measures of every scheduler as JSON.
pub fn comparison_json(c: &Comparison) -> serde_json::Value {
    serde_json::Value::Object(
        c.measures
            .iter()
            .map(|(n, m)| (n.clone(), m.json()))
            .collect(),
    )
}

/// The paragraph every report starts with: set-up and how to rerun.
pub fn setup_text(
    name: &str,
    ctx: &ExpContext,
    cluster_text: &str,
    jobs: usize,
    seeds: &[u64],
) -> String {
    format!(
        "Rerun: `mrsched reproduce {name}` (base seed {seed}{quick}; {n} seed(s): {seeds:?}).\n\n\
**The set-up is ours.** The paper (seed 003, Polo et al., CCGrid 2014) evaluates FIFO, the Adaptive \
Scheduler and Reverse-Adaptive by simulation, but its cluster, workload, f(t) and numbers are not \
available (the copy we have is garbled and prior work could not recover them), so there are no paper \
numbers to put beside ours; the abstract only claims that Reverse-Adaptive improves the accuracy of \
the estimates and the goals met, without hurting fairness.\n\n\
* Cluster: {cluster_text}\n\
* Workload (`goal-mix`, `crates/workload/src/goals.rs`): {jobs} map-only jobs per seed, Poisson \
arrivals every 60 s on average, 50-1,000 maps per job (log-uniform), a mean map time per job uniform in \
30-120 s with every map within ±25% of it, the mean (plus the 1 s task start-up) given as the job's \
profile (`expected_map_s`); this keeps about 40% of the 800 slots busy; \
80% of jobs have a goal of 2-4x (uniform) their time alone on the 800-slot cluster with nothing else \
running (the longest map or the map work over 800 slots, whichever is larger), 20% are best effort.\n\
* Schedulers: `fifo`, `adaptive` (s_req, capacity now), `reverse-adaptive` (s_fit over the \
forecast, capacity of the next cycle from the forecast), and `edf` (earliest goal first, \
work-conserving: **our baseline, not in the paper**); control cycle T = 10 s; heartbeats every \
3 s. The adaptive placement gives every goal job its estimate by max-min utility, the surplus by goal \
(earliest first), jobs that can no longer meet their goal after those that can, and backfills slots \
left unused between cycles (**our changes**, measured and explained in `docs/policies/adaptive.md`, \
\"Why FIFO met goals the adaptive family missed\").\n\
* Measures: goals met; distance to goal = completion - goal over goal jobs (negative = early); \
prediction error = predicted - actual completion over every prediction the scheduler made at its \
control cycles (FIFO makes none; the model is in `docs/policies/adaptive.md`), also relative to the \
time that was left; fairness between goal jobs = their normalised slowdowns (response time / time \
alone): coefficient of variation and Jain's index `(sum x)^2 / (n sum x^2)` (1 = every job slowed \
down alike); best-effort jobs run on leftover capacity by design, so their slowdown is shown apart; \
utilisation = busy / available slot-time.\n",
        seed = ctx.seed,
        quick = if ctx.quick { ", quick mode" } else { "" },
        n = seeds.len(),
    )
}

/// Seeds of an experiment.
pub fn seeds(ctx: &ExpContext) -> Vec<u64> {
    if ctx.quick {
        vec![ctx.seed]
    } else {
        (0..3).map(|i| ctx.seed + i).collect()
    }
}

/// Jobs per seed.
pub fn jobs(ctx: &ExpContext) -> usize {
    if ctx.quick {
        40
    } else {
        300
    }
}

/// `shared-100` with one extra `[[capacity]]` rule (TOML body).
pub fn shared_with(name: &str, rule: &str) -> Result<Cluster, ExpError> {
    let text = format!(
        "{}[[capacity]]\n{rule}",
        catalog::SHARED_100.replace("name = \"shared-100\"", &format!("name = \"{name}\""))
    );
    Cluster::from_toml_str(name, &text).map_err(err)
}

/// One setting of a sweep.
pub struct SweepPoint {
    /// Label in tables.
    pub label: String,
    /// Position on the x axis.
    pub x: f64,
    /// The measures.
    pub comparison: Comparison,
}

/// Goals met, distance to goal, prediction error and fairness per setting
/// and scheduler (markdown).
pub fn sweep_table(setting: &str, points: &[SweepPoint]) -> String {
    let mut rows = Vec::new();
    for p in points {
        for (name, m) in &p.comparison.measures {
            let (dm, dmed, _) = m.distance();
            let (_, jain) = m.fairness();
            let acc = accuracy(&m.predictions);
            rows.push(vec![
                p.label.clone(),
                label(name),
                format!("{:.1}%", 100.0 * m.met()),
                fmt_s(dm),
                fmt_s(dmed),
                acc.map_or("-".into(), |a| format!("{:.0}", a.mean_abs_error_s)),
                acc.map_or("-".into(), |a| format!("{:+.0}", a.mean_error_s)),
                format!("{jain:.3}"),
            ]);
        }
        rows.push(p.comparison.bound.row(Some(&p.label), 8));
    }
    md_table(
        &[
            setting,
            "scheduler",
            "goals met",
            "distance: mean (s)",
            "median (s)",
            "prediction abs. error (s)",
            "bias (s)",
            "Jain (goal jobs' slowdown)",
        ],
        &rows,
    )
}

/// Goals met against the sweep's x, one line per scheduler; returns the
/// file name.
pub fn sweep_chart(
    ctx: &ExpContext,
    file: &str,
    title: &str,
    x_label: &str,
    points: &[SweepPoint],
) -> Result<String, ExpError> {
    let mut series: Vec<Series> = SCHEDULERS
        .iter()
        .enumerate()
        .map(|(i, s)| Series {
            label: label(s),
            points: points
                .iter()
                .map(|p| (p.x, 100.0 * p.comparison.measures[i].1.met()))
                .collect(),
        })
        .collect();
    series.push(Series {
        label: BOUND_LABEL.into(),
        points: points
            .iter()
            .map(|p| (p.x, 100.0 * p.comparison.bound.met_fraction()))
            .collect(),
    });
    let p = figure_path(ctx, file)?;
    line_chart(&p, title, x_label, "% of goals met", &series).map_err(err)?;
    Ok(file.to_string())
}

/// A sweep as JSON.
pub fn sweep_json(points: &[SweepPoint]) -> serde_json::Value {
    serde_json::Value::Array(
        points
            .iter()
            .map(|p| serde_json::json!({ "setting": p.label, "x": p.x, "schedulers": comparison_json(&p.comparison), "upper_bound": p.comparison.bound.json() }))
            .collect(),
    )
}

/// The headline numbers of one scheduler, for readings.
#[derive(Copy, Clone, Debug)]
pub struct Headline {
    /// Goals met, %.
    pub met: f64,
    /// Mean distance to goal, s.
    pub distance: f64,
    /// Mean absolute prediction error, s (NaN without predictions).
    pub mae: f64,
    /// Mean prediction error, s.
    pub bias: f64,
    /// Jain's index of goal jobs' slowdowns.
    pub jain: f64,
    /// Mean slowdown of best-effort jobs.
    pub best_effort: f64,
}

/// [`Headline`]s in [`SCHEDULERS`] order.
pub fn headlines(c: &Comparison) -> Vec<Headline> {
    c.measures
        .iter()
        .map(|(_, m)| {
            let acc = accuracy(&m.predictions);
            Headline {
                met: 100.0 * m.met(),
                distance: m.distance().0,
                mae: acc.map_or(f64::NAN, |a| a.mean_abs_error_s),
                bias: acc.map_or(f64::NAN, |a| a.mean_error_s),
                jain: m.fairness().1,
                best_effort: crate::common::mean(&m.best_effort_slowdowns),
            }
        })
        .collect()
}

/// `"more"`, `"fewer"` or `"as many"`: how `a` goals met compare with `b`
/// (percentages; within 0.05 points is level).
pub fn more_or_fewer(a: f64, b: f64) -> &'static str {
    if a > b + 0.05 {
        "more"
    } else if a < b - 0.05 {
        "fewer"
    } else {
        "as many"
    }
}

/// Settings (labels) where `f(headlines)` holds, joined with ", ", or
/// "none".
fn settings_where(points: &[SweepPoint], f: impl Fn(&[Headline]) -> bool) -> String {
    let v: Vec<&str> = points
        .iter()
        .filter(|p| f(&headlines(&p.comparison)))
        .map(|p| p.label.as_str())
        .collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

/// One line per sweep setting (goals met and prediction errors of each
/// scheduler), a sentence comparing Reverse-Adaptive with the Adaptive
/// Scheduler on goals met over the settings, and one comparing both with
/// FIFO and with EDF (our baseline).
pub fn sweep_reading(points: &[SweepPoint]) -> (String, String, String) {
    let mut lines = String::new();
    let (mut ahead, mut behind, mut gap) = (0, 0, 0.0f64);
    for p in points {
        let h = headlines(&p.comparison);
        if h[2].met > h[1].met + 0.05 {
            ahead += 1;
        } else if h[2].met < h[1].met - 0.05 {
            behind += 1;
        }
        gap = gap.max((h[2].met - h[1].met).abs());
        lines.push_str(&format!(
            "* {}: goals met FIFO {:.1}%, Adaptive {:.1}%, Reverse-Adaptive {:.1}%, EDF (ours) {:.1}%; mean abs. prediction error Adaptive {:.0} s, Reverse-Adaptive {:.0} s.\n",
            p.label, h[0].met, h[1].met, h[2].met, h[3].met, h[1].mae, h[2].mae
        ));
    }
    let n = points.len();
    let compare = format!(
        "Reverse-Adaptive and the Adaptive Scheduler meet goals within {gap:.1} points of each other in every \
setting (Reverse-Adaptive ahead in {ahead}, behind in {behind}, level in {level} of the {n})",
        level = n - ahead - behind
    );
    let below_fifo = settings_where(points, |h| h[1].met.min(h[2].met) < h[0].met - 0.05);
    let behind_edf = settings_where(points, |h| h[1].met.max(h[2].met) < h[3].met - 0.05);
    let ahead_edf = settings_where(points, |h| h[2].met > h[3].met + 0.05);
    let edf = format!(
        "Settings where the Adaptive Scheduler or Reverse-Adaptive meets fewer goals than FIFO: {below_fifo}. \
Against EDF (earliest goal first, our baseline, not in the paper): both adaptive schedulers behind it in: \
{behind_edf}; Reverse-Adaptive ahead of it in: {ahead_edf}. The adaptive placement first gives every goal \
job its estimate (max-min utility) and only the surplus by goal, so where slots suffice for every estimate \
the job due first gets less than EDF would give it while later-due jobs hold slots paced to their goals, \
and an estimate that proves optimistic (a last wave of maps, a job that arrives later) costs a goal EDF \
would have met. Where slots are short, EDF keeps serving the earliest goal even when that job can no \
longer meet it, while the adaptive family serves the jobs that still can first."
    );
    (lines, compare, edf)
}

/// One sentence: the bound against the best scheduler of `c`.
pub fn bound_sentence(c: &Comparison) -> String {
    bound_against(&c.bound, &c.measures)
}

/// One sentence: `b` against the scheduler of `measures` that meets the
/// most goals (the first of equals).
pub fn bound_against(b: &BoundMeasures, measures: &[(String, Measures)]) -> String {
    let Some((name, m)) = measures.iter().rev().max_by_key(|(_, m)| m.goals_met) else {
        return String::new();
    };
    let gap = b.met.saturating_sub(m.goals_met);
    format!(
        "no scheduler can meet more than {:.1}% of the goals ({}/{}); the best here, `{name}`, meets {:.1}% ({}), \
{:.1} points ({gap} goal{}) below the bound; the relaxation gives up, in whole or in part, {} goal job{}{} \
and leaves {:.1}% of the goal jobs' map work undone",
        100.0 * b.met_fraction(),
        b.met,
        b.goal_jobs,
        100.0 * m.met(),
        m.goals_met,
        100.0 * (b.met_fraction() - m.met()),
        plural(gap),
        b.given_up,
        plural(b.given_up),
        if b.hopeless > 0 {
            format!(
                " ({} of them because their longest map cannot fit)",
                b.hopeless
            )
        } else {
            String::new()
        },
        100.0 * b.undone_share(),
    )
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// What the bound is, in one paragraph, followed by one line per setting
/// with the distance from the best scheduler to the bound.
pub fn bound_reading(points: &[SweepPoint]) -> String {
    let mut s = String::from(BOUND_TEXT);
    s.push_str("\n\n");
    for p in points {
        s.push_str(&format!(
            "* {}: {}.\n",
            p.label,
            bound_sentence(&p.comparison)
        ));
    }
    s
}

/// What the row `upper bound (ours)` is.
pub const BOUND_TEXT: &str = "The row `upper bound (ours)` is an offline relaxation that knows every \
arrival and the capacity curve (`crates/sched/src/policies/adaptive/bound.rs`, described in \
`docs/policies/adaptive.md`): each goal job's map work may go anywhere between its arrival and its goal, \
split at will, at most one slot per map at once, within the slots left to MapReduce (counting tasks that \
keep running after the curve falls); a job whose longest map does not fit before its goal is lost. Its \
optimum, rounded down, bounds the goals any scheduler can meet. It lets best-effort jobs wait past every \
goal and gives up the goal jobs with the most work first (serving the least work first is optimal for \
it), two things the schedulers here do not do: FIFO serves best-effort jobs in their turn, the adaptive \
family on the slots no goal job asks for, and none of them abandons a job.";

#[cfg(test)]
mod bound_tests;

/// An adaptive scheduler that keeps every control cycle it ran (time and
/// per-job entries), for experiments that look inside the decisions; it
/// delegates everything else, so the run is the scheduler's own.
pub struct CycleRecorder {
    /// The scheduler.
    pub inner: mrsched_sched::policies::adaptive::Adaptive,
    /// Each control cycle: when, and what it decided per job.
    pub cycles: Vec<(
        mrsched_model::Time,
        Vec<mrsched_sched::policies::adaptive::CycleEntry>,
    )>,
}

impl CycleRecorder {
    /// Record `inner`'s cycles.
    pub fn new(inner: mrsched_sched::policies::adaptive::Adaptive) -> CycleRecorder {
        CycleRecorder {
            inner,
            cycles: Vec::new(),
        }
    }
}

impl mrsched_sched::Scheduler for CycleRecorder {
    fn name(&self) -> String {
        self.inner.name()
    }
    fn on_event(&mut self, st: &mrsched_state::ClusterState, ev: &mrsched_state::StateEvent) {
        self.inner.on_event(st, ev)
    }
    fn assign(
        &mut self,
        st: &mrsched_state::ClusterState,
        node: mrsched_model::NodeId,
    ) -> Option<mrsched_state::Launch> {
        self.inner.assign(st, node)
    }
    fn next_timer(&self) -> Option<mrsched_model::Time> {
        self.inner.next_timer()
    }
    fn on_timer(&mut self, st: &mrsched_state::ClusterState) -> Vec<mrsched_sched::Action> {
        let before = self.inner.cycles();
        let a = self.inner.on_timer(st);
        if self.inner.cycles() > before {
            self.cycles
                .push((st.now(), self.inner.last_cycle().to_vec()));
        }
        a
    }
}
