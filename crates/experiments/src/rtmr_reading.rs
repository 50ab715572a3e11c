//! The "Reading the numbers" section of the RTMR reports, written from the
//! run's measurements. Every number the text states is a measured value or
//! one of the paper's published values (Tables V and VI, through
//! `paper`), and every comparative word ("matches", "far fewer", "never
//! missed") is chosen by the small functions at the bottom, so a rerun
//! with other numbers, or a `--quick` run, reads its own results.

use super::{paper, paper_counts_of, Sched};
use mrsched_workload::realtime::{RtBin, RtmrWorkload};

/// One scheduler's results, averaged over the seeds.
#[derive(Clone, Debug, Default)]
pub(super) struct Means {
    /// Accept ratio (0-1).
    pub accept: f64,
    /// Success ratio (0-1).
    pub success: f64,
    /// Lowest success ratio over the seeds.
    pub min_success: f64,
    /// Utilisation (0-1).
    pub util: f64,
    /// First accepted arrival to last end, seconds.
    pub turnaround_s: f64,
    /// Mean share of the relative deadline left at the end.
    pub margin: f64,
    /// Jobs the scheduler saw.
    pub jobs: f64,
    /// Jobs it accepted.
    pub accepted: f64,
    /// Jobs that met their deadline.
    pub on_time: f64,
    /// Feedback controller runs (RTMR only).
    pub feedback_runs: f64,
    /// Pooled (accepted, jobs) per size bin over all seeds.
    pub by_bin: Vec<(u32, u32)>,
    /// The most frequent rejection reason and its mean count per run.
    pub top_reason: Option<(String, f64)>,
}

impl Means {
    fn bin_accept(&self, b: usize) -> Option<f64> {
        let (a, n) = *self.by_bin.get(b)?;
        (n > 0).then(|| a as f64 / n as f64)
    }

    /// Refused share of the pooled jobs of bins `bins`.
    fn refused_in(&self, bins: std::ops::Range<usize>) -> Option<f64> {
        let (a, n) = bins
            .filter_map(|b| self.by_bin.get(b))
            .fold((0u32, 0u32), |(a, n), x| (a + x.0, n + x.1));
        (n > 0).then(|| 1.0 - a as f64 / n as f64)
    }
}

/// What the reading is written from.
pub(super) struct Measured {
    /// Which workload.
    pub which: RtmrWorkload,
    /// Seeds run.
    pub seeds: usize,
    /// Quick mode.
    pub quick: bool,
    /// Means per scheduler, in the order of `SCHEDS`.
    pub means: Vec<(Sched, Means)>,
    /// Share of FIFO's slot time per size bin (FIFO runs every job).
    pub fifo_slot_share: Vec<f64>,
    /// Mean over the history runs of c_m^max / mean map seconds per MB.
    pub map_cost_ratio: f64,
    /// Mean over the history runs of c_r^max / mean reduce seconds per MB.
    pub reduce_cost_ratio: f64,
    /// The cluster's reduce slots.
    pub reduce_slots: u32,
}

impl Measured {
    /// Jobs in the workload (RTMR sees them all), mean over the seeds.
    pub fn rtmr_jobs(&self) -> f64 {
        self.get(Sched::Rtmr).jobs
    }

    fn get(&self, s: Sched) -> &Means {
        &self
            .means
            .iter()
            .find(|(x, _)| *x == s)
            .expect("every scheduler ran")
            .1
    }
}

fn p1(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn p0(x: f64) -> String {
    format!("{:.0}%", 100.0 * x)
}

fn paper_pct(which: RtmrWorkload, s: Sched, metric: usize) -> Option<f64> {
    paper(which, s)[metric].map(|v| v / 100.0)
}

/// The reading, as markdown.
pub(super) fn reading(m: &Measured) -> String {
    let which = m.which;
    let tab = match which {
        RtmrWorkload::I => "Table V",
        RtmrWorkload::II => "Table VI",
    };
    let bins = which.bins();
    let (dc, rt, nf, fifo, dcm) = (
        m.get(Sched::Dc),
        m.get(Sched::Rtmr),
        m.get(Sched::RtmrNoFeedback),
        m.get(Sched::Fifo),
        m.get(Sched::DcMean),
    );
    let seeds = if m.seeds == 1 {
        "in the one seed".to_string()
    } else {
        format!("in all {} seeds", m.seeds)
    };
    let mut matches: Vec<String> = Vec::new();
    let mut differs: Vec<String> = Vec::new();

    // The guarantee.
    if rt.min_success >= 1.0 && nf.min_success >= 1.0 {
        matches.push(format!(
            "The real-time guarantee: every job RTMR admitted met its deadline, {seeds}, with and \
without feedback ({tab}: {}). The same holds in the property test of \
`crates/sim/tests/realtime.rs` over random workloads.",
            pct_or_na(paper_pct(which, Sched::Rtmr, 1))
        ));
    } else {
        differs.push(format!(
            "*RTMR missed deadlines*: its success ratio is {} with feedback and {} without \
(lowest seed {} and {}; {tab}: {}).",
            p1(rt.success),
            p1(nf.success),
            p1(rt.min_success),
            p1(nf.min_success),
            pct_or_na(paper_pct(which, Sched::Rtmr, 1))
        ));
    }

    // Orders of the accept ratios and utilisations.
    let acc_scheds = [Sched::Dc, Sched::Rtmr, Sched::RtmrNoFeedback];
    let acc = order_item(
        "accept ratios",
        &acc_scheds.map(|s| (short(s), m.get(s).accept)),
        &acc_scheds.map(|s| paper_pct(which, s, 0).unwrap_or(0.0)),
    );
    let util_scheds = [Sched::Fifo, Sched::Rtmr, Sched::RtmrNoFeedback, Sched::Dc];
    let mut util = order_item(
        "utilisations",
        &util_scheds.map(|s| (short(s), m.get(s).util)),
        &util_scheds.map(|s| paper_pct(which, s, 2).unwrap_or(0.0)),
    );
    let dc_most = dc.accept >= rt.accept && dc.accept >= nf.accept;
    let dc_least = util_scheds.iter().all(|s| m.get(*s).util >= dc.util);
    if dc_most && dc_least {
        util.1.push_str(&format!(
            " The Deadline Constraint scheduler accepts the most jobs yet uses the cluster least: \
it runs every job at the least map parallelism its estimates say meets the deadline, so its \
accepted jobs take {:.0} s from the first arrival to the last end, {} {:.0} s under RTMR.",
            dc.turnaround_s,
            if dc.turnaround_s > rt.turnaround_s {
                "against"
            } else {
                "no longer than"
            },
            rt.turnaround_s
        ));
        if dc.turnaround_s > rt.turnaround_s {
            util.1.push_str(
                " (\"More jobs are accepted, which prolong the workload's execution\", §V.)",
            );
        }
    }
    for (ok, text) in [acc, util] {
        if ok {
            matches.push(text);
        } else {
            differs.push(text);
        }
    }

    // Feedback.
    let fb_acc = paper_pct(which, Sched::Rtmr, 0).unwrap_or(0.0)
        > paper_pct(which, Sched::RtmrNoFeedback, 0).unwrap_or(0.0);
    let ours_fb = rt.accept > nf.accept && rt.util > nf.util;
    let fired = format!(
        "The controller fired for {} jobs RTMR admitted ({:.1} of {:.1} on average).",
        share_word(rt.feedback_runs, rt.accepted),
        rt.feedback_runs,
        rt.accepted
    );
    let fb_text =
        format!(
        "The feedback controller: RTMR accepts {} jobs with it than without ({} against {}; paper \
{} against {}) and its utilisation is {} ({} against {}). {fired}",
        amount_word(ratio(rt.accept, nf.accept), "more", "fewer", "about as many"),
        p1(rt.accept),
        p1(nf.accept),
        pct_or_na(paper_pct(which, Sched::Rtmr, 0)),
        pct_or_na(paper_pct(which, Sched::RtmrNoFeedback, 0)),
        amount_word(ratio(rt.util, nf.util), "higher", "lower", "about the same"),
        p1(rt.util),
        p1(nf.util),
    );
    if ours_fb == fb_acc {
        matches.push(fb_text);
    } else {
        differs.push(fb_text);
    }

    // The Deadline Constraint scheduler's deadline misses.
    let dc_paper_success = paper_pct(which, Sched::Dc, 1).unwrap_or(1.0);
    let pc = paper_counts_of(which);
    let mut t = if dc.min_success >= 1.0 {
        format!(
            "*The Deadline Constraint scheduler never missed a deadline here* (paper: {} success).",
            p1(dc_paper_success)
        )
    } else {
        format!(
            "*The Deadline Constraint scheduler missed deadlines*: {} success (lowest seed {}; \
paper {}).",
            p1(dc.success),
            p1(dc.min_success),
            p1(dc_paper_success)
        )
    };
    t.push_str(&format!(
        " It runs each job at the parallelism its estimates say just meets the deadline, so it \
misses when the estimates are too low. With the worst-case estimates the seed prescribes for \
both schedulers (the history runs give c_m^max {:.1} times the mean map cost per MB and c_r^max \
{:.1} times the mean reduce cost), its accepted jobs ended with {} of their relative deadline \
left on average",
        m.map_cost_ratio,
        m.reduce_cost_ratio,
        p0(dc.margin)
    ));
    t.push_str(if dc.min_success >= 1.0 {
        ", and its single-instant reduce test never turned into a late job."
    } else {
        "."
    });
    let late_mean = 1.0 - dcm.success;
    if late_mean > 0.0 {
        t.push_str(&format!(
            " The extra row runs it with mean costs and learning off: then {} of its admitted jobs \
are late.",
            p1(late_mean)
        ));
    } else {
        t.push_str(
            " The extra row runs it with mean costs and learning off: even then none is late.",
        );
    }
    t.push_str(
        " The flaw the seed describes is real (the test \
`deadline_constraint_admits_a_job_that_misses_its_deadline` builds it: another job's reduces run \
outside their planned window and take the slots a later job was counted to have)",
    );
    if dc.min_success >= 1.0 && late_mean > 0.0 {
        t.push_str(
            ", but here it takes estimates as tight as the mean costs to show: with the \
worst-case ones the deadlines are loose against the real task times.",
        );
    } else {
        t.push('.');
    }
    t.push_str(&format!(
        " The paper's {} late jobs out of {} accepted (our reading of its percentages) point to \
tighter estimates, or to reduce stages overlapping more than ours; it does not say how its \
implementation estimated costs.",
        pc.dc_accepted - pc.dc_on_time,
        pc.dc_accepted
    ));
    if (dc.success - dc_paper_success).abs() < 0.05 {
        matches.push(t);
    } else {
        differs.push(t);
    }

    // Utilisation levels against the paper's.
    let levels: Vec<(Sched, f64)> = util_scheds
        .iter()
        .map(|s| {
            (
                *s,
                ratio(m.get(*s).util, paper_pct(which, *s, 2).unwrap_or(0.0)),
            )
        })
        .collect();
    let higher: Vec<&str> = levels
        .iter()
        .filter(|(_, r)| *r > 1.05)
        .map(|(s, _)| short(*s))
        .collect();
    let lower: Vec<&str> = levels
        .iter()
        .filter(|(_, r)| *r < 0.95)
        .map(|(s, _)| short(*s))
        .collect();
    let head = if lower.is_empty() && higher.len() == levels.len() {
        "*Our utilisations are higher throughout.*".to_string()
    } else if higher.is_empty() && lower.len() == levels.len() {
        "*Our utilisations are lower throughout.*".to_string()
    } else if higher.is_empty() && lower.is_empty() {
        "*Our utilisations are within 5% of the paper's throughout.*".to_string()
    } else {
        format!(
            "*Our utilisations are higher for {} and lower for {}* (within 5% of the paper's for \
the rest).",
            list_or_none(&higher),
            list_or_none(&lower)
        )
    };
    let p = super::RtmrParams::default();
    let fifo_paper = paper_pct(which, Sched::Fifo, 2).unwrap_or(0.0);
    let rt_paper = paper_pct(which, Sched::Rtmr, 2).unwrap_or(0.0);
    let mut t = format!(
        "{head} FIFO, which shows the workload's volume, reaches {} against the paper's {}. The \
paper gives no task times; our loadgen-like jobs ({:.0}-{:.0} s maps of a block, map output \
{}-{} of the input) set the volume.",
        p1(fifo.util),
        p1(fifo_paper),
        p.map_time_s.0,
        p.map_time_s.1,
        p.output_ratio.0,
        p.output_ratio.1,
    );
    let ours_rel = ratio(rt.util, fifo.util);
    let paper_rel = ratio(rt_paper, fifo_paper);
    t.push_str(&format!(
        " RTMR's utilisation is {} of FIFO's against {} in the paper",
        p0(ours_rel),
        p0(paper_rel)
    ));
    let full = fully_accepted_top(rt, bins.len());
    if ours_rel > paper_rel + 0.05 && !full.is_empty() {
        let share: f64 = full.iter().filter_map(|b| m.fifo_slot_share.get(*b)).sum();
        t.push_str(&format!(
            ": it accepts every job of {} and those carry {} of the slot time (under FIFO).",
            bin_list(&full),
            p0(share)
        ));
    } else {
        t.push('.');
    }
    if higher.is_empty() && lower.is_empty() {
        matches.push(t);
    } else {
        differs.push(t);
    }

    // RTMR's accept ratios against the paper's, and which jobs it refuses.
    let r_rt = ratio(rt.accept, paper_pct(which, Sched::Rtmr, 0).unwrap_or(0.0));
    let r_nf = ratio(
        nf.accept,
        paper_pct(which, Sched::RtmrNoFeedback, 0).unwrap_or(0.0),
    );
    let mut t = format!(
        "*RTMR accepts {} the paper's share with feedback ({} against {}) and {} without ({} \
against {}).*",
        times_word(r_rt),
        p1(rt.accept),
        pct_or_na(paper_pct(which, Sched::Rtmr, 0)),
        times_word(r_nf),
        p1(nf.accept),
        pct_or_na(paper_pct(which, Sched::RtmrNoFeedback, 0)),
    );
    let small = 0..2.min(bins.len());
    let (d_lo, d_hi) = bins[small.clone()]
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), b| {
            (lo.min(b.deadline_s.0), hi.max(b.deadline_s.1))
        });
    let max_maps = bins.iter().map(|b| b.maps.1).max().unwrap_or(0);
    let max_red = bins.iter().map(|b| b.reduces.1).max().unwrap_or(0);
    if let (Some(rf), Some(nrf)) = (rt.refused_in(small.clone()), nf.refused_in(small.clone())) {
        t.push_str(&format!(
            " A new job must queue behind every started job (no preemption), and a job of bins \
{}-{} has only {d_lo:.0}-{d_hi:.0} s to its deadline, which the estimated backlog of the large jobs \
started before it (up to {max_maps} maps and {max_red} reduces) can exceed: RTMR refuses {} of \
those jobs with feedback and {} without.",
            small.start + 1,
            small.end,
            p0(rf),
            p0(nrf)
        ));
        if nrf >= rf + 0.1 {
            t.push_str(&format!(
                " Without feedback an admitted job's vectors keep its worst-case estimate until \
the clamp to the current time overtakes them, and c_r^max is {:.1} times the mean reduce cost \
per MB here; the feedback controller replaces those estimates with actual task ends.",
                m.reduce_cost_ratio
            ));
        }
    }
    if r_rt > 1.05 && r_nf > 1.05 {
        t.push_str(
            " The paper's lower ratios suggest longer tasks or more pessimistic estimates on its \
testbed; it gives neither task times nor a per-size breakdown.",
        );
    }
    if (0.95..=1.05).contains(&r_rt) && (0.95..=1.05).contains(&r_nf) {
        matches.push(t);
    } else {
        differs.push(t);
    }

    // Which jobs are refused.
    let last = bins.len() - 1;
    let mut t = format!(
        "*Which jobs are refused* is not in the paper. RTMR accepts {} of bin 1 and {} of bin {}",
        opt_p0(rt.bin_accept(0)),
        opt_p0(rt.bin_accept(last)),
        last + 1
    );
    let dc_worst = (0..bins.len())
        .filter_map(|b| dc.bin_accept(b).map(|a| (b, a)))
        .min_by(|x, y| x.1.total_cmp(&y.1));
    if let Some((b, a)) = dc_worst {
        let bin: &RtBin = &bins[b];
        t.push_str(&format!(
            "; the Deadline Constraint scheduler accepts {} of bin 1 and least of bin {} ({}, \
{}-{} reduces)",
            opt_p0(dc.bin_accept(0)),
            b + 1,
            p0(a),
            bin.reduces.0,
            bin.reduces.1
        ));
        if let Some((why, n)) = &dc.top_reason {
            t.push_str(&format!(
                ", and its most frequent refusal is \"{why}\" ({n:.1} per run): a job's reduces \
need that many free reduce slots at one instant"
            ));
        }
    }
    t.push('.');
    differs.push(t);

    // The Deadline Constraint scheduler's reduced workload.
    if dc.jobs < rt.jobs {
        differs.push(format!(
            "*The Deadline Constraint scheduler's workload.* It cannot accept jobs with more \
reduces than the cluster's {} reduce slots, so, as in the paper, it runs the workload without \
them ({} of {} jobs remain on average). Over all {} jobs its accept ratio would be {} \
({} of {}).",
            m.reduce_slots,
            count(dc.jobs),
            count(rt.jobs),
            count(rt.jobs),
            p0(ratio(dc.accepted, rt.jobs)),
            count(dc.accepted),
            count(rt.jobs)
        ));
    }

    let mut out = String::from("## Reading the numbers\n\n");
    if m.quick {
        out.push_str(&format!(
            "Quick run ({} seed, {:.0} jobs): the readings below are this run's own; with so few \
jobs the orderings can change from seed to seed.\n\n",
            m.seeds, rt.jobs
        ));
    }
    for (head, items, numbered) in [
        ("What matches the paper.", &matches, false),
        ("What differs, and why.", &differs, true),
    ] {
        if items.is_empty() {
            continue;
        }
        out.push_str(&format!("**{head}**\n\n"));
        for (i, it) in items.iter().enumerate() {
            if numbered {
                out.push_str(&format!("{}. {it}\n", i + 1));
            } else {
                out.push_str(&format!("* {it}\n"));
            }
        }
        out.push('\n');
    }
    out.push_str(&format!(
        "FIFO, which ignores deadlines, finishes {} ({} of {} jobs on average; no figure in the \
paper).\n\n",
        if fifo.on_time >= fifo.jobs {
            "every job on time".to_string()
        } else {
            format!("{} of the jobs on time", p0(ratio(fifo.on_time, fifo.jobs)))
        },
        count(fifo.on_time),
        count(fifo.jobs)
    ));
    out.push_str(&counts_fit(which));
    out
}

/// Whether our reading of the paper's percentages as counts reproduces
/// every printed percentage (rounded to 0.1).
fn counts_fit(which: RtmrWorkload) -> String {
    let pc = paper_counts_of(which);
    let checks = [
        (pc.dc_accepted, pc.dc_jobs, paper(which, Sched::Dc)[0]),
        (pc.dc_on_time, pc.dc_accepted, paper(which, Sched::Dc)[1]),
        (pc.rtmr, pc.jobs, paper(which, Sched::Rtmr)[0]),
        (
            pc.rtmr_no_feedback,
            pc.jobs,
            paper(which, Sched::RtmrNoFeedback)[0],
        ),
    ];
    let misfits = checks
        .iter()
        .filter(|(n, d, p)| !fits(*n, *d, p.unwrap_or(f64::NAN)))
        .count();
    format!(
        "Our reading of the paper's percentages as counts ({} jobs, {} for the Deadline Constraint \
scheduler: {}, {} and {} accepted; {} of {} on time) {}.\n",
        pc.jobs,
        pc.dc_jobs,
        pc.dc_accepted,
        pc.rtmr,
        pc.rtmr_no_feedback,
        pc.dc_on_time,
        pc.dc_accepted,
        if misfits == 0 {
            "fits every printed value exactly".to_string()
        } else {
            format!("misses {misfits} of the {} printed values", checks.len())
        }
    )
}

/// `n / d` as a percentage rounds to the printed `printed` (one decimal).
fn fits(n: u32, d: u32, printed: f64) -> bool {
    d > 0 && (1000.0 * n as f64 / d as f64).round() / 10.0 == printed
}

fn short(s: Sched) -> &'static str {
    match s {
        Sched::Dc => "Deadline Constraint",
        Sched::Rtmr => "RTMR",
        Sched::RtmrNoFeedback => "RTMR without feedback",
        Sched::Fifo => "FIFO",
        Sched::DcMean => "Deadline Constraint (mean costs)",
    }
}

fn pct_or_na(x: Option<f64>) -> String {
    x.map_or("n/a".into(), p1)
}

fn opt_p0(x: Option<f64>) -> String {
    x.map_or("none (no jobs)".into(), p0)
}

fn ratio(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        f64::INFINITY
    } else {
        a / b
    }
}

/// "A", "A and B", "A, B and C".
fn list_or_none(v: &[&str]) -> String {
    match v {
        [] => "none".into(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// A mean count: whole numbers without decimals.
fn count(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    }
}

/// The largest bins (counted from the top) in which `m` accepted every job.
fn fully_accepted_top(m: &Means, nbins: usize) -> Vec<usize> {
    (0..nbins)
        .rev()
        .take_while(|b| m.by_bin.get(*b).is_some_and(|(a, n)| *n > 0 && a == n))
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect()
}

fn bin_list(b: &[usize]) -> String {
    let names: Vec<String> = b.iter().map(|b| (b + 1).to_string()).collect();
    match names.len() {
        1 => format!("bin {}", names[0]),
        _ => format!(
            "bins {} and {}",
            names[..names.len() - 1].join(", "),
            names[names.len() - 1]
        ),
    }
}

/// The order of `ours` (label, value), highest first, written with `>`
/// (or `=` where the values print the same at 0.1%).
fn order_string(v: &[(&str, f64)]) -> (String, String) {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    idx.sort_by(|a, b| v[*b].1.total_cmp(&v[*a].1));
    let mut names = String::new();
    let mut values = String::new();
    for (k, i) in idx.iter().enumerate() {
        if k > 0 {
            let same = p1(v[idx[k - 1]].1) == p1(v[*i].1);
            let sep = if same { " = " } else { " > " };
            names.push_str(sep);
            values.push_str(sep);
        }
        names.push_str(v[*i].0);
        values.push_str(&p1(v[*i].1));
    }
    (names, values)
}

/// Ranks, highest first, of values; ties (equal at 0.1%) share the order of
/// first appearance.
fn ranking(values: &[f64]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..values.len()).collect();
    idx.sort_by(|a, b| values[*b].total_cmp(&values[*a]).then(a.cmp(b)));
    idx
}

/// Whether `ours` orders the schedulers as `paper` does, and the sentence
/// saying so (or how the orders differ).
fn order_item(what: &str, ours: &[(&str, f64)], paper: &[f64]) -> (bool, String) {
    let ours_v: Vec<f64> = ours.iter().map(|x| x.1).collect();
    let same = ranking(&ours_v) == ranking(paper);
    let (names, values) = order_string(ours);
    let paper_pairs: Vec<(&str, f64)> = ours.iter().zip(paper).map(|(o, p)| (o.0, *p)).collect();
    let (pnames, pvalues) = order_string(&paper_pairs);
    let text = if same {
        format!("The order of the {what}: {names} ({values}; paper {pvalues}).")
    } else {
        format!(
            "*The order of the {what} differs from the paper's*: ours {names} ({values}), paper \
{pnames} ({pvalues})."
        )
    };
    (same, text)
}

/// "far more" / "more" / `same` / "fewer" / "far fewer" for a ratio of
/// ours to a reference: within 5% is the same, beyond a factor of 1.5 is
/// far.
fn amount_word(r: f64, more: &str, fewer: &str, same: &str) -> String {
    if r >= 1.5 {
        format!("far {more}")
    } else if r > 1.05 {
        more.to_string()
    } else if r >= 0.95 {
        same.to_string()
    } else if r > 1.0 / 1.5 {
        fewer.to_string()
    } else {
        format!("far {fewer}")
    }
}

/// A ratio in words: "about half", "about twice", "about the same as",
/// else "N times".
fn times_word(r: f64) -> String {
    if (0.95..=1.05).contains(&r) {
        "about the same as".into()
    } else if (0.45..=0.55).contains(&r) {
        "about half".into()
    } else if (1.8..=2.2).contains(&r) {
        "about twice".into()
    } else {
        format!("{r:.1} times")
    }
}

/// How much of `whole` `part` is, in words.
fn share_word(part: f64, whole: f64) -> &'static str {
    let r = ratio(part, whole);
    if r >= 1.0 {
        "every one of the"
    } else if r >= 0.95 {
        "nearly all"
    } else if r >= 0.5 {
        "most"
    } else if r > 0.0 {
        "a minority of the"
    } else {
        "none of the"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_matching_and_differing() {
        let (ok, t) = order_item(
            "accept ratios",
            &[("A", 0.864), ("B", 0.68), ("C", 0.232)],
            &[0.716, 0.568, 0.466],
        );
        assert!(ok);
        assert_eq!(
            t,
            "The order of the accept ratios: A > B > C (86.4% > 68.0% > 23.2%; paper 71.6% > \
56.8% > 46.6%)."
        );
        let (ok, t) = order_item("x", &[("A", 0.2), ("B", 0.5), ("C", 0.1)], &[0.3, 0.2, 0.1]);
        assert!(!ok);
        assert!(t.contains("ours B > A > C (50.0% > 20.0% > 10.0%)"), "{t}");
        assert!(t.contains("paper A > B > C"), "{t}");
        // Equal at print precision is written "=".
        let (names, values) = order_string(&[("A", 0.3001), ("B", 0.3002)]);
        assert_eq!(names, "B = A");
        assert_eq!(values, "30.0% = 30.0%");
    }

    #[test]
    fn amount_thresholds() {
        let w = |r| amount_word(r, "more", "fewer", "as many");
        assert_eq!(w(0.232 / 0.466), "far fewer");
        assert_eq!(w(0.6667), "fewer"); // just above 1/1.5
        assert_eq!(w(0.66), "far fewer");
        assert_eq!(w(0.9), "fewer");
        assert_eq!(w(0.96), "as many");
        assert_eq!(w(1.05), "as many");
        assert_eq!(w(1.2), "more");
        assert_eq!(w(1.5), "far more");
        assert_eq!(w(f64::INFINITY), "far more");
    }

    #[test]
    fn times_and_shares() {
        assert_eq!(times_word(0.540 / 0.247), "about twice");
        assert_eq!(times_word(0.232 / 0.466), "about half");
        assert_eq!(times_word(1.0), "about the same as");
        assert_eq!(times_word(3.0), "3.0 times");
        assert_eq!(times_word(0.7), "0.7 times");
        assert_eq!(share_word(48.1, 48.1), "every one of the");
        assert_eq!(share_word(59.5, 59.8), "nearly all");
        assert_eq!(share_word(30.0, 59.8), "most");
        assert_eq!(share_word(0.0, 59.8), "none of the");
    }

    #[test]
    fn paper_counts_fit_the_printed_percentages() {
        // Table V: 63/88 = 71.59 -> 71.6; Table VI: 9/40 = 22.5.
        assert!(fits(63, 88, 71.6));
        assert!(fits(9, 40, 22.5));
        assert!(!fits(62, 88, 71.6));
        assert!(!fits(1, 0, 0.0));
        for w in [RtmrWorkload::I, RtmrWorkload::II] {
            assert!(counts_fit(w).contains("fits every printed value"), "{w:?}");
        }
    }

    #[test]
    fn largest_fully_accepted_bins() {
        let m = Means {
            by_bin: vec![(3, 5), (10, 10), (4, 5), (6, 6), (6, 6)],
            ..Default::default()
        };
        assert_eq!(fully_accepted_top(&m, 5), vec![3, 4]);
        assert_eq!(bin_list(&[3, 4]), "bins 4 and 5");
        assert_eq!(bin_list(&[4]), "bin 5");
        let none = Means {
            by_bin: vec![(1, 1), (0, 2)],
            ..Default::default()
        };
        assert!(fully_accepted_top(&none, 2).is_empty());
        // 13 of the 15 jobs of bins 1-2 accepted.
        assert!((m.refused_in(0..2).unwrap() - 2.0 / 15.0).abs() < 1e-12);
        assert_eq!(list_or_none(&["A", "B", "C"]), "A, B and C");
        assert_eq!(list_or_none(&["A"]), "A");
        assert_eq!(list_or_none(&[]), "none");
        assert_eq!(count(89.0), "89");
        assert_eq!(count(61.5), "61.5");
    }
}
