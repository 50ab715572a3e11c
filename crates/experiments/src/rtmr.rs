//! Seed 004 §V, Tables V and VI: the Deadline Constraint scheduler, RTMR,
//! RTMR without feedback and Hadoop FIFO on workloads I and II, on the
//! heterogeneous 30-node cluster of Table I.
//!
//! For every seed: a history run (FIFO on another draw of the same
//! workload) gives the learned parameters delta, c_m^max and c_r^max that
//! the real-time schedulers start from ("RTMR scheduler uses historical job
//! execution data", §IV.A); then the four schedulers run the seed's
//! workload (the Deadline Constraint scheduler without the jobs that have
//! more reduces than the cluster's 30 reduce slots, as in the paper) and the
//! three metrics of §V are computed by `mrsched_metrics::realtime`.

use crate::common::{figure_path, md_table, par_map, run_config, write_markdown};
use crate::{err, ExpContext, ExpError, ExpReport, Experiment};
use mrsched_metrics::plot::{line_chart, Series};
use mrsched_metrics::realtime::{realtime_summary, RealTimeSummary, UtilBasis};
use mrsched_model::{Cluster, Format, Source, Workload};
use mrsched_sched::policies::realtime::estimate::Estimator;
use mrsched_sched::SchedulerConfig;
use mrsched_state::{ClusterState, JobStatus};
use mrsched_workload::catalog;
use mrsched_workload::facebook::BLOCK_MB;
use mrsched_workload::realtime::{rtmr_workload, without_reduces_above, RtmrParams, RtmrWorkload};

#[path = "rtmr_reading.rs"]
mod reading;

/// The history run of seed `s` draws its workload with seed `s + HISTORY_SEED_OFFSET`.
const HISTORY_SEED_OFFSET: u64 = 10_000;

/// Jobs a `--quick` run keeps.
const QUICK_JOBS: usize = 30;

/// Registry entry for workload I (Table V).
pub const WORKLOAD_1: Experiment = Experiment {
    name: "rtmr-workload-1",
    about: "seed 004 Table V: DC vs RTMR vs RTMR w/o feedback vs FIFO, workload I (88 jobs, 1-200 maps)",
    run: run_1,
};

/// Registry entry for workload II (Table VI).
pub const WORKLOAD_2: Experiment = Experiment {
    name: "rtmr-workload-2",
    about: "seed 004 Table VI: DC vs RTMR vs RTMR w/o feedback vs FIFO, workload II (89 jobs, up to 300 maps, 70 reduces)",
    run: run_2,
};

fn run_1(ctx: &ExpContext) -> Result<ExpReport, ExpError> {
    run(ctx, RtmrWorkload::I)
}

fn run_2(ctx: &ExpContext) -> Result<ExpReport, ExpError> {
    run(ctx, RtmrWorkload::II)
}

/// The four schedulers of the tables.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Sched {
    Dc,
    Rtmr,
    RtmrNoFeedback,
    Fifo,
    /// Not in the paper: the Deadline Constraint scheduler with mean rather
    /// than worst-case costs, to show what estimate errors do to it.
    DcMean,
}

const SCHEDS: [Sched; 5] = [
    Sched::Dc,
    Sched::Rtmr,
    Sched::RtmrNoFeedback,
    Sched::Fifo,
    Sched::DcMean,
];

impl Sched {
    fn label(self) -> &'static str {
        match self {
            Sched::Dc => "Deadline Constraint",
            Sched::Rtmr => "RTMR",
            Sched::RtmrNoFeedback => "RTMR w/o Feedback",
            Sched::Fifo => "Hadoop FIFO",
            Sched::DcMean => "Deadline Constraint, mean costs (extra)",
        }
    }

    fn key(self) -> &'static str {
        match self {
            Sched::Dc => "deadline_constraint",
            Sched::Rtmr => "rtmr",
            Sched::RtmrNoFeedback => "rtmr_no_feedback",
            Sched::Fifo => "fifo",
            Sched::DcMean => "deadline_constraint_mean_costs",
        }
    }

    fn dc(self) -> bool {
        matches!(self, Sched::Dc | Sched::DcMean)
    }

    /// The configuration, with the learned priors for the real-time ones.
    fn config(self, h: &History) -> Result<SchedulerConfig, ExpError> {
        let est = &h.est;
        let priors = format!(
            "initial_delta = {}\ninitial_map_s_per_mb = {}\ninitial_reduce_s_per_mb = {}\n",
            est.delta, est.map_s_per_mb, est.reduce_s_per_mb
        );
        let text = match self {
            Sched::Dc => {
                format!("policy = \"deadline-constraint\"\n[deadline-constraint]\n{priors}")
            }
            Sched::DcMean => format!(
                "policy = \"deadline-constraint\"\n[deadline-constraint]\nlearn = false\n\
initial_delta = {}\ninitial_map_s_per_mb = {}\ninitial_reduce_s_per_mb = {}\n",
                h.mean_delta, h.mean_map_s_per_mb, h.mean_reduce_s_per_mb
            ),
            Sched::Rtmr => format!("policy = \"rtmr\"\n[rtmr]\n{priors}"),
            Sched::RtmrNoFeedback => {
                format!("policy = \"rtmr\"\n[rtmr]\nfeedback = false\n{priors}")
            }
            Sched::Fifo => "policy = \"fifo\"\n".to_string(),
        };
        let mut cfg = SchedulerConfig::from_source(&Source::new(self.key(), &text, Format::Toml))
            .map_err(err)?;
        cfg.label = self.label().to_string();
        Ok(cfg)
    }
}

/// The paper's Tables V and VI: (accept, success, utilisation) in %, `None`
/// for "n/a".
fn paper(which: RtmrWorkload, s: Sched) -> [Option<f64>; 3] {
    match (which, s) {
        (RtmrWorkload::I, Sched::Dc) => [Some(71.6), Some(85.7), Some(5.7)],
        (RtmrWorkload::I, Sched::Rtmr) => [Some(56.8), Some(100.0), Some(15.5)],
        (RtmrWorkload::I, Sched::RtmrNoFeedback) => [Some(46.6), Some(100.0), Some(11.6)],
        (RtmrWorkload::I, Sched::Fifo) => [None, None, Some(21.3)],
        (RtmrWorkload::II, Sched::Dc) => [Some(49.4), Some(22.5), Some(0.7)],
        (RtmrWorkload::II, Sched::Rtmr) => [Some(24.7), Some(100.0), Some(64.6)],
        (RtmrWorkload::II, Sched::RtmrNoFeedback) => [Some(15.7), Some(100.0), Some(49.8)],
        (RtmrWorkload::II, Sched::Fifo) => [None, None, Some(69.7)],
        (_, Sched::DcMean) => [None, None, None],
    }
}

/// Our reading of the paper's percentages as job counts: Table II gives
/// 88 jobs for workload I, Table IV 89 for workload II; the Deadline
/// Constraint scheduler's 49.4% and 22.5% of Table VI read as 40 of 81 jobs
/// and 9 of 40 (`reading::counts_fit` checks every count against the
/// printed percentage).
#[derive(Copy, Clone, Debug)]
struct PaperCounts {
    jobs: u32,
    dc_jobs: u32,
    dc_accepted: u32,
    dc_on_time: u32,
    rtmr: u32,
    rtmr_no_feedback: u32,
}

/// Table V read as counts.
const PAPER_COUNTS_I: PaperCounts = PaperCounts {
    jobs: 88,
    dc_jobs: 88,
    dc_accepted: 63,
    dc_on_time: 54,
    rtmr: 50,
    rtmr_no_feedback: 41,
};

/// Table VI read as counts.
const PAPER_COUNTS_II: PaperCounts = PaperCounts {
    jobs: 89,
    dc_jobs: 81,
    dc_accepted: 40,
    dc_on_time: 9,
    rtmr: 22,
    rtmr_no_feedback: 14,
};

fn paper_counts_of(which: RtmrWorkload) -> PaperCounts {
    match which {
        RtmrWorkload::I => PAPER_COUNTS_I,
        RtmrWorkload::II => PAPER_COUNTS_II,
    }
}

/// The paper's ratios as job counts, for the counts table.
fn paper_counts(which: RtmrWorkload, s: Sched) -> String {
    let c = paper_counts_of(which);
    match s {
        // Workload I's row spells out what the two counts are.
        Sched::Dc if which == RtmrWorkload::I => format!(
            "{}/{} accepted, {} on time",
            c.dc_accepted, c.dc_jobs, c.dc_on_time
        ),
        Sched::Dc => format!("{}/{}, {}", c.dc_accepted, c.dc_jobs, c.dc_on_time),
        Sched::Rtmr => format!("{}/{}, {}", c.rtmr, c.jobs, c.rtmr),
        Sched::RtmrNoFeedback => {
            format!("{}/{}, {}", c.rtmr_no_feedback, c.jobs, c.rtmr_no_feedback)
        }
        Sched::Fifo => "all".into(),
        Sched::DcMean => "not in the paper".into(),
    }
}

/// One run's results.
struct Outcome {
    sum: RealTimeSummary,
    /// FIFO: jobs that met their deadline anyway.
    on_time: u32,
    feedback_runs: f64,
    /// Rejections by reason category.
    reasons: Vec<(String, u32)>,
    /// (accepted, jobs) per size bin.
    by_bin: Vec<(u32, u32)>,
    /// Mean share of the relative deadline left when accepted jobs ended.
    margin: f64,
    /// Map + reduce slot seconds of the accepted jobs per size bin.
    bin_slot_s: Vec<f64>,
}

fn reason_kind(r: &str) -> &'static str {
    if r.contains("miss its deadline") {
        "would make a queued job late"
    } else if r.contains("estimated finish") {
        "own deadline"
    } else if r.contains("map slots now") {
        "map slots at arrival"
    } else if r.contains("reduce slots at") {
        "reduce slots at S_r^max"
    } else if r.contains("maps running at once") {
        "needs more parallel maps than it has"
    } else if r.contains("reduce stage alone") {
        "reduce stage alone too long"
    } else {
        "other"
    }
}

fn outcome(
    st: &ClusterState,
    basis: UtilBasis,
    stats: &std::collections::BTreeMap<String, f64>,
) -> Outcome {
    let sum = realtime_summary(st, basis);
    let on_time = st
        .jobs()
        .iter()
        .filter(|j| mrsched_metrics::realtime::met_deadline(j))
        .count() as u32;
    let mut reasons: Vec<(String, u32)> = Vec::new();
    for j in st.jobs().iter().filter(|j| j.status == JobStatus::Rejected) {
        let k = reason_kind(j.reason.as_deref().unwrap_or("")).to_string();
        match reasons.iter_mut().find(|(x, _)| *x == k) {
            Some(e) => e.1 += 1,
            None => reasons.push((k, 1)),
        }
    }
    let mut by_bin = vec![(0u32, 0u32); 6];
    let mut bin_slot_s = vec![0.0; 6];
    for j in st.jobs() {
        let bin = j
            .spec
            .class
            .as_deref()
            .and_then(|c| c.strip_prefix("bin"))
            .and_then(|b| b.parse::<usize>().ok());
        if let Some(e) = bin.and_then(|b| by_bin.get_mut(b - 1)) {
            e.1 += 1;
            if j.status != JobStatus::Rejected {
                e.0 += 1;
            }
        }
        if let Some(e) = bin.and_then(|b| bin_slot_s.get_mut(b - 1)) {
            *e += j
                .maps
                .iter()
                .chain(&j.reduces)
                .map(|t| (t.finish - t.start).as_secs_f64())
                .sum::<f64>();
        }
    }
    let margins: Vec<f64> = st
        .jobs()
        .iter()
        .filter(|j| j.status != JobStatus::Rejected)
        .filter_map(|j| {
            let d = j.spec.deadline?.as_secs_f64();
            let f = (j.finish? - j.submitted).as_secs_f64();
            Some((d - f) / d)
        })
        .collect();
    Outcome {
        sum,
        on_time,
        feedback_runs: stats.get("feedback_runs").copied().unwrap_or(0.0),
        reasons,
        by_bin,
        margin: mean_sd(&margins).0,
        bin_slot_s,
    }
}

/// What a history run taught: the learned maxima, plus the mean map time
/// and the mean reduce seconds per partition MB (to show how pessimistic
/// the maxima are).
struct History {
    est: Estimator,
    mean_map_s: f64,
    mean_delta: f64,
    mean_map_s_per_mb: f64,
    mean_reduce_s_per_mb: f64,
}

fn learn_history(cluster: &Cluster, history: &Workload, seed: u64) -> Result<History, ExpError> {
    let fifo = Sched::Fifo.config(&History {
        est: Estimator::new(0.0, 0.0, 0.0),
        mean_map_s: 0.0,
        mean_delta: 0.0,
        mean_map_s_per_mb: 0.0,
        mean_reduce_s_per_mb: 0.0,
    })?;
    let out = run_config(cluster, history, &fifo, seed)?;
    let mut est = Estimator::new(0.0, 0.0, 0.0);
    est.learn_all(out.state.jobs());
    let (mut map_per_mb, mut red_per_mb, mut deltas) = (Vec::new(), Vec::new(), Vec::new());
    for j in out.state.jobs() {
        for (t, m) in j.maps.iter().zip(&j.spec.maps) {
            map_per_mb.push((t.finish - t.start).as_secs_f64() / m.input_mb);
        }
        let part = mrsched_model::cost::partition_mb(&j.spec);
        if part > 0.0 {
            deltas.push(j.spec.cost.map_output_ratio);
            for t in &j.reduces {
                red_per_mb.push((t.finish - t.start).as_secs_f64() / part);
            }
        }
    }
    Ok(History {
        mean_map_s: est.typical_map().map_or(0.0, |t| t.as_secs_f64()),
        mean_delta: mean_sd(&deltas).0,
        mean_map_s_per_mb: mean_sd(&map_per_mb).0,
        mean_reduce_s_per_mb: mean_sd(&red_per_mb).0,
        est,
    })
}

fn mean_sd(v: &[f64]) -> (f64, f64) {
    let n = v.len().max(1) as f64;
    let m = v.iter().sum::<f64>() / n;
    let var = if v.len() > 1 {
        v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() as f64 - 1.0)
    } else {
        0.0
    };
    (m, var.sqrt())
}

fn cell(v: &[f64]) -> String {
    let (m, sd) = mean_sd(v);
    let lo = v.iter().cloned().fold(f64::MAX, f64::min);
    let hi = v.iter().cloned().fold(f64::MIN, f64::max);
    if v.len() > 1 {
        format!(
            "{:.1}% ± {:.1} ({:.1}-{:.1})",
            100.0 * m,
            100.0 * sd,
            100.0 * lo,
            100.0 * hi
        )
    } else {
        format!("{:.1}%", 100.0 * m)
    }
}

fn pct(x: Option<f64>) -> String {
    x.map_or("n/a".into(), |v| format!("{v:.1}%"))
}

fn run(ctx: &ExpContext, which: RtmrWorkload) -> Result<ExpReport, ExpError> {
    let cluster = catalog::cluster("rtmr-30").map_err(err)?;
    let reduce_slots = cluster.total_reduce_slots() as usize;
    let params = RtmrParams {
        jobs: ctx.quick.then_some(QUICK_JOBS),
        ..Default::default()
    };
    let seeds: Vec<u64> = if ctx.quick {
        vec![ctx.seed]
    } else {
        (0..10).map(|i| ctx.seed + i).collect()
    };
    let name = which.name();
    // results[sched][seed]
    let mut results: Vec<Vec<Outcome>> = SCHEDS.iter().map(|_| Vec::new()).collect();
    let mut priors = Vec::new();
    let mut dc_jobs = Vec::new();
    // Each seed (its history, then every scheduler) on its own core,
    // gathered in seed order.
    let per_seed = par_map(seeds.len(), 0.0, 1.0, |i| {
        let seed = seeds[i];
        let history = rtmr_workload(seed + HISTORY_SEED_OFFSET, which, &params);
        let hist = learn_history(&cluster, &history, seed + HISTORY_SEED_OFFSET)?;
        let w = rtmr_workload(seed, which, &params);
        let w_dc = without_reduces_above(&w, reduce_slots);
        let mut outcomes = Vec::new();
        for s in SCHEDS.iter() {
            let wl = if s.dc() { &w_dc } else { &w };
            let out = run_config(&cluster, wl, &s.config(&hist)?, seed)?;
            let basis = if *s == Sched::Fifo {
                UtilBasis::AllJobs
            } else {
                UtilBasis::SuccessfulJobs
            };
            outcomes.push(outcome(&out.state, basis, &out.info.scheduler_stats));
        }
        Ok((outcomes, hist, w_dc.jobs.len()))
    })?;
    for (outcomes, hist, dc) in per_seed {
        dc_jobs.push(dc);
        for (k, o) in outcomes.into_iter().enumerate() {
            results[k].push(o);
        }
        priors.push(hist);
    }

    // Table: ours beside the paper's.
    let mut rows = Vec::new();
    for (k, s) in SCHEDS.iter().enumerate() {
        let r = &results[k];
        let acc: Vec<f64> = r.iter().map(|o| o.sum.accept_ratio).collect();
        let suc: Vec<f64> = r.iter().map(|o| o.sum.success_ratio).collect();
        let util: Vec<f64> = r.iter().map(|o| o.sum.utilization).collect();
        let p = paper(which, *s);
        let fifo = *s == Sched::Fifo;
        rows.push(vec![
            s.label().to_string(),
            if fifo {
                "n/a (accepts all)".into()
            } else {
                cell(&acc)
            },
            pct(p[0]),
            if fifo { "n/a".into() } else { cell(&suc) },
            pct(p[1]),
            cell(&util),
            pct(p[2]),
        ]);
    }
    let table = md_table(
        &[
            "scheduler",
            "accept ratio (ours)",
            "paper",
            "success ratio (ours)",
            "paper",
            "utilisation (ours)",
            "paper",
        ],
        &rows,
    );

    // Counts per scheduler (means over seeds) beside the paper's counts.
    let mut crow = Vec::new();
    for (k, s) in SCHEDS.iter().enumerate() {
        let r = &results[k];
        let n = r.len().max(1) as f64;
        let m = |f: &dyn Fn(&Outcome) -> f64| r.iter().map(f).sum::<f64>() / n;
        let mut reasons: Vec<(String, f64)> = Vec::new();
        for o in r {
            for (why, c) in &o.reasons {
                match reasons.iter_mut().find(|(x, _)| x == why) {
                    Some(e) => e.1 += *c as f64 / n,
                    None => reasons.push((why.clone(), *c as f64 / n)),
                }
            }
        }
        reasons.sort_by(|a, b| b.1.total_cmp(&a.1));
        crow.push(vec![
            s.label().to_string(),
            format!("{:.1}", m(&|o| o.sum.jobs as f64)),
            format!("{:.1}", m(&|o| o.sum.accepted as f64)),
            format!("{:.1}", m(&|o| o.on_time as f64)),
            format!("{:.0} s", m(&|o| o.sum.turnaround_s)),
            format!("{:.0}%", 100.0 * m(&|o| o.margin)),
            if *s == Sched::Rtmr {
                format!("{:.1}", m(&|o| o.feedback_runs))
            } else {
                "-".into()
            },
            if reasons.is_empty() {
                "-".into()
            } else {
                reasons
                    .iter()
                    .map(|(w, c)| format!("{w}: {c:.1}"))
                    .collect::<Vec<_>>()
                    .join("; ")
            },
            paper_counts(which, *s).to_string(),
        ]);
    }
    let counts = md_table(
        &[
            "scheduler",
            "jobs",
            "accepted",
            "on time",
            "turnaround",
            "deadline left at the end",
            "feedback runs",
            "rejections by reason (mean per run)",
            "paper (our reading)",
        ],
        &crow,
    );

    let prior_rows: Vec<Vec<String>> = seeds
        .iter()
        .zip(&priors)
        .map(|(s, h)| {
            let e = &h.est;
            vec![
                s.to_string(),
                format!("{:.3}", e.delta),
                format!("{:.4}", e.map_s_per_mb),
                format!("{:.1} s", e.map_s_per_mb * BLOCK_MB),
                format!("{:.1} s", h.mean_map_s),
                format!("{:.4}", e.reduce_s_per_mb),
                format!("{:.4}", h.mean_reduce_s_per_mb),
            ]
        })
        .collect();
    let one_map = format!("= one {BLOCK_MB:.0} MB map");
    let prior_table = md_table(
        &[
            "seed",
            "delta",
            "c_m^max (s/MB)",
            &one_map,
            "mean map time",
            "c_r^max (s/MB)",
            "mean reduce s/MB",
        ],
        &prior_rows,
    );

    // Accept ratio by size bin.
    let nbins = which.bins().len();
    let mut bin_rows = Vec::new();
    for (k, s) in SCHEDS
        .iter()
        .enumerate()
        .filter(|(_, s)| **s != Sched::Fifo)
    {
        let mut row = vec![s.label().to_string()];
        for b in 0..nbins {
            let (a, n) = results[k].iter().fold((0u32, 0u32), |(a, n), o| {
                (a + o.by_bin[b].0, n + o.by_bin[b].1)
            });
            row.push(if n == 0 {
                "-".into()
            } else {
                format!("{:.0}%", 100.0 * a as f64 / n as f64)
            });
        }
        bin_rows.push(row);
    }
    let bin_header: Vec<String> = std::iter::once("scheduler".to_string())
        .chain(which.bins().iter().enumerate().map(|(b, bin)| {
            format!(
                "bin {} ({}-{} maps, {}-{} reduces, {:.0}-{:.0} s)",
                b + 1,
                bin.maps.0,
                bin.maps.1,
                bin.reduces.0,
                bin.reduces.1,
                bin.deadline_s.0,
                bin.deadline_s.1
            )
        }))
        .collect();
    let bin_header: Vec<&str> = bin_header.iter().map(|s| s.as_str()).collect();
    let bin_table = md_table(&bin_header, &bin_rows);

    // Figures: utilisation and accept ratio per seed.
    let xs: Vec<f64> = (0..seeds.len()).map(|i| i as f64).collect();
    let series = |f: &dyn Fn(&Outcome) -> f64, only_rt: bool| -> Vec<Series> {
        SCHEDS
            .iter()
            .enumerate()
            .filter(|(_, s)| !(only_rt && **s == Sched::Fifo))
            .map(|(k, s)| Series {
                label: s.label().to_string(),
                points: xs
                    .iter()
                    .zip(&results[k])
                    .map(|(x, o)| (*x, 100.0 * f(o)))
                    .collect(),
            })
            .collect()
    };
    let fig_util = figure_path(ctx, &format!("{name}-utilisation.svg"))?;
    line_chart(
        &fig_util,
        &format!("Cluster utilisation per seed, {name}"),
        "seed index",
        "utilisation (%)",
        &series(&|o| o.sum.utilization, false),
    )
    .map_err(err)?;
    let fig_acc = figure_path(ctx, &format!("{name}-accept.svg"))?;
    line_chart(
        &fig_acc,
        &format!("Accept ratio per seed, {name}"),
        "seed index",
        "accepted jobs (%)",
        &series(&|o| o.sum.accept_ratio, true),
    )
    .map_err(err)?;

    let json_runs: Vec<serde_json::Value> = SCHEDS
        .iter()
        .enumerate()
        .flat_map(|(k, s)| {
            seeds.iter().zip(&results[k]).map(move |(seed, o)| {
                serde_json::json!({
                    "scheduler": s.key(), "seed": seed, "summary": o.sum,
                    "on_time": o.on_time, "feedback_runs": o.feedback_runs,
                })
            })
        })
        .collect();
    let measured = measured(which, &seeds, ctx.quick, &results, &priors, &cluster);
    let markdown = report_text(
        ctx,
        which,
        &seeds,
        [&table, &counts, &bin_table, &prior_table],
        &dc_jobs,
        &cluster,
        &measured,
    );
    write_markdown(ctx, name, &markdown)?;
    Ok(ExpReport {
        name: name.to_string(),
        markdown,
        figures: vec![fig_util, fig_acc],
        json: serde_json::json!({ "runs": json_runs, "seeds": seeds }),
    })
}

/// The means the reading is written from.
fn measured(
    which: RtmrWorkload,
    seeds: &[u64],
    quick: bool,
    results: &[Vec<Outcome>],
    priors: &[History],
    cluster: &Cluster,
) -> reading::Measured {
    let means = SCHEDS
        .iter()
        .zip(results)
        .map(|(s, r)| {
            let n = r.len().max(1) as f64;
            let m = |f: &dyn Fn(&Outcome) -> f64| r.iter().map(f).sum::<f64>() / n;
            let mut by_bin = vec![(0u32, 0u32); which.bins().len()];
            for o in r {
                for (b, e) in by_bin.iter_mut().enumerate() {
                    let (a, k) = o.by_bin.get(b).copied().unwrap_or((0, 0));
                    e.0 += a;
                    e.1 += k;
                }
            }
            let mut reasons: Vec<(String, f64)> = Vec::new();
            for o in r {
                for (why, c) in &o.reasons {
                    match reasons.iter_mut().find(|(x, _)| x == why) {
                        Some(e) => e.1 += *c as f64 / n,
                        None => reasons.push((why.clone(), *c as f64 / n)),
                    }
                }
            }
            let top_reason = reasons.into_iter().max_by(|a, b| a.1.total_cmp(&b.1));
            let means = reading::Means {
                accept: m(&|o| o.sum.accept_ratio),
                success: m(&|o| o.sum.success_ratio),
                min_success: r
                    .iter()
                    .map(|o| o.sum.success_ratio)
                    .fold(f64::INFINITY, f64::min),
                util: m(&|o| o.sum.utilization),
                turnaround_s: m(&|o| o.sum.turnaround_s),
                margin: m(&|o| o.margin),
                jobs: m(&|o| o.sum.jobs as f64),
                accepted: m(&|o| o.sum.accepted as f64),
                on_time: m(&|o| o.on_time as f64),
                feedback_runs: m(&|o| o.feedback_runs),
                by_bin,
                top_reason,
            };
            (*s, means)
        })
        .collect();
    let fifo = SCHEDS.iter().position(|s| *s == Sched::Fifo).unwrap_or(0);
    let mut slot = vec![0.0; which.bins().len()];
    for o in &results[fifo] {
        for (b, e) in slot.iter_mut().enumerate() {
            *e += o.bin_slot_s.get(b).copied().unwrap_or(0.0);
        }
    }
    let total: f64 = slot.iter().sum();
    let fifo_slot_share = slot
        .iter()
        .map(|x| if total > 0.0 { x / total } else { 0.0 })
        .collect();
    let ratio_mean = |f: &dyn Fn(&History) -> f64| {
        mean_sd(
            &priors
                .iter()
                .map(f)
                .filter(|x| x.is_finite())
                .collect::<Vec<_>>(),
        )
        .0
    };
    reading::Measured {
        which,
        seeds: seeds.len(),
        quick,
        means,
        fifo_slot_share,
        map_cost_ratio: ratio_mean(&|h| h.est.map_s_per_mb / h.mean_map_s_per_mb),
        reduce_cost_ratio: ratio_mean(&|h| h.est.reduce_s_per_mb / h.mean_reduce_s_per_mb),
        reduce_slots: cluster.total_reduce_slots(),
    }
}

fn report_text(
    ctx: &ExpContext,
    which: RtmrWorkload,
    seeds: &[u64],
    [table, counts, bins, priors]: [&str; 4],
    dc_jobs: &[usize],
    cluster: &Cluster,
    measured: &reading::Measured,
) -> String {
    let name = which.name();
    let (title, tab) = match which {
        RtmrWorkload::I => ("workload I", "Table V"),
        RtmrWorkload::II => ("workload II", "Table VI"),
    };
    let dc_note = dc_note(
        which,
        dc_jobs,
        measured.rtmr_jobs(),
        cluster.total_reduce_slots(),
    );
    format!(
        "# RTMR and the Deadline Constraint scheduler on {title} (seed 004, {tab})\n\n\
Rerun: `mrsched reproduce {name}`{quick} (base seed {seed}; {n} seed(s): workload draw, \
block placement and heartbeat phases all change with the seed).\n\n\
Setup: {setup}; the `{name}` workload (see \
`mrsched_workload::realtime`); RTMR with EDF order, the `>=` reservation test and the feedback \
threshold epsilon = the mean observed map time. The real-time schedulers start from parameters \
learned on a history run (FIFO on another draw of the same workload, seed + {HISTORY_SEED_OFFSET}); they keep \
learning after every job.\n\n\
Metrics as in §V: accept ratio = accepted / jobs in the workload; success ratio = jobs finished \
by their deadline / accepted; utilisation = map + reduce slot time of the successful jobs' \
tasks / ({slots} slots x turnaround of the accepted jobs, first accepted arrival to last end); \
FIFO's utilisation counts all jobs. Cells are mean ± standard deviation over the seeds (range in \
parentheses).\n\n{table}\n\
Counts (means over the seeds) beside our reading of the paper's percentages as counts; \
\"deadline left at the end\" is the mean share of an accepted job's relative deadline still left when \
it ended (negative when late):\n\n{counts}\n\
{dc_note}\
Accept ratio by job size (all seeds pooled):\n\n{bins}\n\
Learned parameters the real-time schedulers started from (history runs):\n\n{priors}\n\
![utilisation per seed]({name}-utilisation.svg)\n\n\
![accept ratio per seed]({name}-accept.svg)\n\n\
{discussion}\n",
        quick = if ctx.quick {
            format!(
                " (quick mode: {} seed(s), first {QUICK_JOBS} jobs)",
                seeds.len()
            )
        } else {
            String::new()
        },
        slots = cluster.total_slots(),
        setup = cluster_setup(cluster),
        seed = ctx.seed,
        n = seeds.len(),
        discussion = reading::reading(measured),
    )
}

/// The cluster as the setup paragraph describes it, from the cluster
/// object: its node groups with their slots and speeds, racks, heartbeats
/// and reduce slow-start.
fn cluster_setup(cluster: &Cluster) -> String {
    // (group, count, map slots, reduce slots, speed) in first-seen order.
    let mut groups: Vec<(String, u32, u32, u32, f64)> = Vec::new();
    for n in &cluster.nodes {
        let key = (n.map_slots(), n.reduce_slots(), n.speed);
        match groups
            .iter_mut()
            .find(|g| g.0 == n.group && (g.2, g.3, g.4) == key)
        {
            Some(g) => g.1 += 1,
            None => groups.push((n.group.clone(), 1, key.0, key.1, key.2)),
        }
    }
    let groups: Vec<String> = groups
        .iter()
        .map(|(g, c, m, r, speed)| {
            let mut t = format!("{c} {g} nodes with {m} map + {r} reduce slots");
            if *speed < 1.0 {
                t.push_str(&format!(" and {:.0}% slower cores", 100.0 * (1.0 - speed)));
            } else if *speed > 1.0 {
                t.push_str(&format!(" and {:.0}% faster cores", 100.0 * (speed - 1.0)));
            }
            t
        })
        .collect();
    let racks = match cluster.racks.len() {
        1 => "one rack".to_string(),
        n => format!("{n} racks"),
    };
    let hb = &cluster.heartbeat;
    format!(
        "the `{}` cluster (Table I: {}; {racks}; {} s heartbeats{}; reduce slow-start {:.1})",
        cluster.name,
        groups.join(", "),
        hb.interval.as_secs_f64(),
        if hb.on_completion {
            " with out-of-band heartbeats on task completion"
        } else {
            ""
        },
        cluster.reduce_slowstart
    )
}

/// The note on the Deadline Constraint scheduler's smaller workload, when
/// it has one: how many jobs remain in ours, how many the paper's counts
/// imply were removed, and how many the workload's reduce intervals make
/// likely (reduce counts are drawn uniformly from each bin's interval).
fn dc_note(which: RtmrWorkload, dc_jobs: &[usize], jobs: f64, reduce_slots: u32) -> String {
    let total = jobs;
    let remain = dc_jobs.iter().sum::<usize>() as f64 / dc_jobs.len().max(1) as f64;
    if remain >= total {
        return String::new();
    }
    let over: Vec<_> = which
        .bins()
        .iter()
        .filter(|b| b.reduces.1 > reduce_slots)
        .collect();
    let expected: f64 = over
        .iter()
        .map(|b| {
            let n = (b.reduces.1 - b.reduces.0 + 1) as f64;
            let above = (b.reduces.1 - b.reduces.0.max(reduce_slots + 1) + 1) as f64;
            b.jobs as f64 * above / n
        })
        .sum();
    let intervals: Vec<String> = over
        .iter()
        .map(|b| format!("[{},{}]", b.reduces.0, b.reduces.1))
        .collect();
    let pc = paper_counts_of(which);
    let tab = match which {
        RtmrWorkload::I => "Table III",
        RtmrWorkload::II => "Table IV",
    };
    format!(
        "The Deadline Constraint scheduler runs the workload without its jobs of more than \
{reduce_slots} reduces (it can never accept them); {remain:.1} of {total:.0} jobs remain on \
average here. The paper's {} and {} read as {} of {} jobs and {} of {}, so only {} of its jobs \
had more than {reduce_slots} reduces, although {tab}'s intervals ({} reduces) make about \
{expected:.0} of its {} jobs likely to have more ({:.1} of {total:.0} in our draws).\n\n",
        pct(paper(which, Sched::Dc)[0]),
        pct(paper(which, Sched::Dc)[1]),
        pc.dc_accepted,
        pc.dc_jobs,
        pc.dc_on_time,
        pc.dc_accepted,
        pc.jobs - pc.dc_jobs,
        intervals.join(" and "),
        which.bins().iter().map(|b| b.jobs).sum::<u32>(),
        total - remain,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setup_and_dc_note_come_from_the_cluster_and_workload() {
        let cluster = catalog::cluster("rtmr-30").unwrap();
        let t = cluster_setup(&cluster);
        assert!(
            t.contains(
                "20 type1 nodes with 4 map + 1 reduce slots, 10 type2 nodes with 2 map + 1 \
reduce slots and 20% slower cores; one rack; 3 s heartbeats with out-of-band"
            ),
            "{t}"
        );
        // Workload I has no job above 30 reduces: no note.
        assert_eq!(dc_note(RtmrWorkload::I, &[88], 88.0, 30), "");
        // Workload II: Table IV's [25,50] bin of 18 jobs has 20 of 26
        // values above 30, the [35,70] bin of 13 all: 13.8 + 13 = 27.
        let n = dc_note(RtmrWorkload::II, &[60, 63], 89.0, 30);
        assert!(n.contains("61.5 of 89 jobs remain"), "{n}");
        assert!(n.contains("only 8 of its jobs"), "{n}");
        assert!(n.contains("make about 27 of its 89 jobs"), "{n}");
        assert!(n.contains("(27.5 of 89 in our draws)"), "{n}");
    }

    #[test]
    fn quick_runs_write_reports() {
        for (e, which) in [
            (WORKLOAD_1, "rtmr-workload-1"),
            (WORKLOAD_2, "rtmr-workload-2"),
        ] {
            let dir = std::env::temp_dir().join(format!("mrsched-{which}-{}", std::process::id()));
            let ctx = ExpContext {
                out_dir: dir.clone(),
                quick: true,
                seed: 1,
            };
            let r = (e.run)(&ctx).unwrap();
            assert!(dir.join(format!("{which}.md")).exists());
            assert_eq!(r.figures.len(), 2);
            assert!(r.figures.iter().all(|f| f.exists()));
            let runs = r.json["runs"].as_array().unwrap();
            assert_eq!(runs.len(), SCHEDS.len());
            for run in runs {
                let s = &run["summary"];
                let acc = s["accept_ratio"].as_f64().unwrap();
                assert!((0.0..=1.0).contains(&acc));
                if run["scheduler"] == "rtmr" || run["scheduler"] == "rtmr_no_feedback" {
                    // RTMR's guarantee holds in the simulator too.
                    assert_eq!(s["success_ratio"].as_f64().unwrap(), 1.0, "{run}");
                }
                if run["scheduler"] == "fifo" {
                    assert_eq!(acc, 1.0);
                }
            }
            // The reading is this quick run's own: it says so, and the
            // accept ratios it orders are the ones in the table above it.
            let (tables, reading) = r.markdown.split_once("## Reading the numbers").unwrap();
            assert!(reading.contains("Quick run (1 seed, 30 jobs)"), "{reading}");
            assert!(reading.contains("in the one seed") || reading.contains("RTMR missed"));
            for key in ["rtmr", "rtmr_no_feedback", "deadline_constraint"] {
                let run = runs.iter().find(|x| x["scheduler"] == key).unwrap();
                let acc = run["summary"]["accept_ratio"].as_f64().unwrap();
                let stated = format!("{:.1}%", 100.0 * acc);
                assert!(tables.contains(&format!("| {stated} |")), "{key} {stated}");
                assert!(reading.contains(&stated), "{key} {stated}: {reading}");
            }
            std::fs::remove_dir_all(&dir).ok();
        }
    }
}
