//! Rendering reports: a readable table, JSON, CSV.
//!
//! JSON is the complete report (one document on stdout); CSV is one row per
//! job (or per scheduler for comparisons); the table is for people.

use crate::report::{Report, Summary};
use std::fmt::Write as _;

/// Output formats.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    /// Aligned text for a terminal.
    Table,
    /// One JSON document.
    Json,
    /// Comma-separated values.
    Csv,
}

/// Left-aligned first column, right-aligned others (numbers).
pub fn render_table(header: &[&str], rows: &[Vec<String>]) -> String {
    let right: Vec<bool> = (0..header.len()).map(|i| i > 0).collect();
    render_table_aligned(header, rows, &right)
}

/// A table with each column right-aligned or not.
pub fn render_table_aligned(header: &[&str], rows: &[Vec<String>], right: &[bool]) -> String {
    let cols = header.len();
    let mut w: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate().take(cols) {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let mut out = String::new();
    let line = |out: &mut String, cells: &[String]| {
        for (i, c) in cells.iter().enumerate().take(cols) {
            if i > 0 {
                out.push_str("  ");
            }
            let pad = w[i] - c.chars().count();
            if !right.get(i).copied().unwrap_or(false) {
                out.push_str(c);
                out.push_str(&" ".repeat(pad));
            } else {
                out.push_str(&" ".repeat(pad));
                out.push_str(c);
            }
        }
        while out.ends_with(' ') {
            out.pop();
        }
        out.push('\n');
    };
    line(
        &mut out,
        &header.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
    );
    let total: usize = w.iter().sum::<usize>() + 2 * (cols.saturating_sub(1));
    out.push_str(&"-".repeat(total));
    out.push('\n');
    for r in rows {
        line(&mut out, r);
    }
    out
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn s1(x: f64) -> String {
    format!("{x:.1}")
}

/// The pools table `mrsched pools` prints (any driver's pool view): one
/// row per pool, then the scheduler's own numbers.
pub fn pools_table(p: &mrsched_sched::PoolsView) -> String {
    let rows: Vec<Vec<String>> = p
        .pools
        .iter()
        .map(|x| {
            vec![
                x.name.clone(),
                x.jobs.to_string(),
                x.running_maps.to_string(),
                x.running_reduces.to_string(),
                x.pending_maps.to_string(),
                x.pending_reduces.to_string(),
                format!("{}", x.weight),
                format!("{:.1}", x.min_share),
                format!("{:.1}", x.fair_share),
                format!("{:.0}", x.demand),
                format!("{:.1}", x.oldest_wait_s),
                format!("{:.1}", x.starved_s),
                x.preemptions.to_string(),
                x.max_share.map_or("-".to_string(), |m| format!("{m:.0}")),
            ]
        })
        .collect();
    let mut out = format!("scheduler {}\n", p.scheduler);
    out.push_str(&render_table_aligned(
        &[
            "pool",
            "jobs",
            "run_maps",
            "run_reduces",
            "pend_maps",
            "pend_reduces",
            "weight",
            "min_share",
            "fair_share",
            "demand",
            "oldest_wait_s",
            "starved_s",
            "preempted",
            "max_share",
        ],
        &rows,
        &[
            false, true, true, true, true, true, true, true, true, true, true, true, true, true,
        ],
    ));
    for (k, v) in &p.stats {
        out.push_str(&format!("{k} = {v}\n"));
    }
    out
}

/// A human summary of one run.
pub fn summary_text(r: &Report) -> String {
    let s = &r.summary;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} on {} / {} (seed {})",
        r.scheduler, r.cluster, r.workload, r.seed
    );
    let mut rows: Vec<(String, String)> = vec![(
        "jobs".into(),
        format!(
            "{} ({} admitted, {} rejected, {} succeeded, {} failed)",
            s.jobs, s.admitted, s.rejected, s.succeeded, s.failed
        ),
    )];
    // Why jobs were refused, for the first few (every reason is in the
    // per-job CSV and JSON output).
    let refused: Vec<&crate::report::JobRecord> = r.jobs.iter().filter(|j| !j.admitted).collect();
    for j in refused.iter().take(3) {
        rows.push((
            "rejected".into(),
            format!(
                "`{}`: {}",
                j.name,
                j.reason.as_deref().unwrap_or("(no reason given)")
            ),
        ));
    }
    if refused.len() > 3 {
        rows.push((
            "rejected".into(),
            format!(
                "... and {} more (--format csv lists every job)",
                refused.len() - 3
            ),
        ));
    }
    rows.extend([
        (
            "response time".into(),
            format!(
                "mean {} s, median {} s, p95 {} s, max {} s",
                s1(s.mean_response_time_s),
                s1(s.median_response_time_s),
                s1(s.p95_response_time_s),
                s1(s.max_response_time_s)
            ),
        ),
        ("makespan".into(), format!("{} s", s1(s.makespan_s))),
        (
            "stretch".into(),
            format!("mean {:.2}, max {:.2}", s.mean_stretch, s.max_stretch),
        ),
    ]);
    if let (Some(m), Some(x)) = (s.mean_slowdown, s.max_slowdown) {
        rows.push(("slowdown".into(), format!("mean {m:.2}, max {x:.2}")));
    }
    rows.push((
        "weighted completion".into(),
        format!("{:.1} s", s.total_weighted_completion_s),
    ));
    if s.with_deadline > 0 {
        rows.push((
            "deadlines".into(),
            format!(
                "{} of {} met (total tardiness {} s)",
                s.deadlines_met,
                s.with_deadline,
                s1(s.total_tardiness_s)
            ),
        ));
    }
    if s.with_goal > 0 {
        rows.push((
            "goals".into(),
            format!("{} of {} met", s.goals_met, s.with_goal),
        ));
    }
    rows.push((
        "locality".into(),
        if s.locality.maps_with_data == 0 {
            "n/a (no map reads a block)".into()
        } else {
            format!(
                "node {}, rack {}, off-rack {} of {} maps",
                pct(s.locality.node),
                pct(s.locality.rack),
                pct(s.locality.off_rack),
                s.locality.maps_with_data
            )
        },
    ));
    rows.push(("utilization".into(), pct(s.utilization)));
    rows.push((
        "attempts".into(),
        format!(
            "{} (killed work {} s, failed/lost work {} s)",
            s.attempts,
            s1(s.killed_work_s),
            s1(s.lost_work_s)
        ),
    ));
    rows.push((
        "max intermediate data".into(),
        format!("{:.0} MB", s.max_intermediate_mb),
    ));
    if let Some(d) = &s.decision_time {
        rows.push((
            "decision time".into(),
            format!(
                "p50 {:.2} us, p99 {:.2} us over {} calls",
                d.p50_us, d.p99_us, d.calls
            ),
        ));
    }
    for (k, v) in &r.extra {
        rows.push((k.clone(), v.to_string()));
    }
    let w = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    for (k, v) in rows {
        let _ = writeln!(o, "  {k:<w$}  {v}");
    }
    o
}

/// Header of the comparison table and CSV.
pub const COMPARE_COLUMNS: [&str; 10] = [
    "scheduler",
    "mean_resp_s",
    "median_resp_s",
    "p95_resp_s",
    "makespan_s",
    "mean_stretch",
    "node_local",
    "utilization",
    "deadlines_met",
    "killed_work_s",
];

/// One run's cells of the comparison (the columns of [`COMPARE_COLUMNS`]),
/// rounded for people when `pretty`.
pub(crate) fn compare_row(r: &Report, pretty: bool) -> Vec<String> {
    let s: &Summary = &r.summary;
    let f = |x: f64| if pretty { s1(x) } else { format!("{x}") };
    let p = |x: f64| if pretty { pct(x) } else { format!("{x}") };
    vec![
        r.scheduler.clone(),
        f(s.mean_response_time_s),
        f(s.median_response_time_s),
        f(s.p95_response_time_s),
        f(s.makespan_s),
        if pretty {
            format!("{:.2}", s.mean_stretch)
        } else {
            format!("{}", s.mean_stretch)
        },
        p(s.locality.node),
        p(s.utilization),
        if s.with_deadline > 0 {
            format!("{}/{}", s.deadlines_met, s.with_deadline)
        } else {
            "-".into()
        },
        f(s.killed_work_s),
    ]
}

/// The comparison table of several runs (same workload).
pub fn compare_table(reports: &[Report]) -> String {
    let rows: Vec<Vec<String>> = reports.iter().map(|r| compare_row(r, true)).collect();
    let mut o = String::new();
    if let Some(r) = reports.first() {
        let _ = writeln!(o, "{} / {} (seed {})", r.cluster, r.workload, r.seed);
    }
    o.push_str(&render_table(&COMPARE_COLUMNS, &rows));
    o
}

/// The comparison as CSV.
pub fn compare_csv(reports: &[Report]) -> String {
    let mut o = COMPARE_COLUMNS.join(",");
    o.push('\n');
    for r in reports {
        o.push_str(&csv_row(&compare_row(r, false)));
    }
    o
}

/// One run of a comparison as JSON: [`compare_json`] takes these. Made
/// apart so that each run is rendered on its own thread as it ends: a
/// day-long comparison's six reports are tens of megabytes of JSON, and
/// rendering them together after the runs was a serial half-second.
/// Object keys are sorted at every level, as in a `serde_json::Value`.
pub fn compare_run_json(r: &Report) -> serde_json::Result<String> {
    let mut s = serde_json::to_string_pretty(&serde_json::to_value(r)?)?;
    // Kept until every run has ended: without the spare capacity its
    // growth left (up to as much again).
    s.shrink_to_fit();
    Ok(s)
}

/// The comparison as one JSON document (with a final newline): the
/// cluster, workload and seed, and under `runs` the runs rendered by
/// [`compare_run_json`], in order. The same bytes as pretty-printing
/// `{"cluster", "runs", "seed", "workload"}` as a `serde_json::Value`.
pub fn compare_json(cluster: &str, workload: &str, seed: u64, runs: &[String]) -> String {
    let mut o = Vec::new();
    write_compare_json(
        &mut o,
        cluster,
        workload,
        seed,
        runs.iter().map(String::as_str),
    )
    .expect("writing to memory");
    String::from_utf8(o).expect("JSON is UTF-8")
}

/// [`compare_json`] written straight to `w`, each run as it comes: a
/// day-long comparison of many jobs is hundreds of megabytes of JSON, and
/// the document whole in memory beside its runs doubled what `compare`
/// held at its end.
pub fn write_compare_json(
    w: &mut impl std::io::Write,
    cluster: &str,
    workload: &str,
    seed: u64,
    runs: impl IntoIterator<Item = impl AsRef<str>>,
) -> std::io::Result<()> {
    // Strings render the same at any depth (a newline in one is escaped),
    // so a run nests by indenting each of its lines but the first.
    let quoted = |s: &str| serde_json::Value::from(s).to_string();
    write!(w, "{{\n  \"cluster\": {},\n  \"runs\": [", quoted(cluster))?;
    let mut any = false;
    for run in runs {
        w.write_all(if any { ",\n    " } else { "\n    " }.as_bytes())?;
        any = true;
        for (i, line) in run.as_ref().split('\n').enumerate() {
            if i > 0 {
                w.write_all(b"\n    ")?;
            }
            w.write_all(line.as_bytes())?;
        }
    }
    if any {
        w.write_all(b"\n  ")?;
    }
    write!(
        w,
        "],\n  \"seed\": {seed},\n  \"workload\": {}\n}}\n",
        quoted(workload)
    )
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn csv_row(cells: &[String]) -> String {
    let mut o = cells
        .iter()
        .map(|c| csv_field(c))
        .collect::<Vec<_>>()
        .join(",");
    o.push('\n');
    o
}

/// Per-job CSV of one run.
pub fn jobs_csv(r: &Report) -> String {
    let head = [
        "id",
        "name",
        "user",
        "pool",
        "status",
        "admitted",
        "arrival_s",
        "start_s",
        "finish_s",
        "response_time_s",
        "slowdown",
        "stretch",
        "weight",
        "weighted_completion_s",
        "deadline_s",
        "tardiness_s",
        "deadline_met",
        "goal_s",
        "goal_met",
        "maps",
        "reduces",
        "node_local",
        "rack_local",
        "off_rack",
        "attempts",
        "killed_work_s",
        "lost_work_s",
    ];
    let mut o = head.join(",");
    o.push('\n');
    let opt = |x: Option<f64>| x.map(|v| format!("{v}")).unwrap_or_default();
    let optb = |x: Option<bool>| x.map(|v| v.to_string()).unwrap_or_default();
    for j in &r.jobs {
        let status = serde_json::to_value(j.status)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default();
        o.push_str(&csv_row(&[
            j.id.to_string(),
            j.name.clone(),
            j.user.clone(),
            j.pool.clone(),
            status,
            j.admitted.to_string(),
            format!("{}", j.arrival_s),
            opt(j.start_s),
            opt(j.finish_s),
            opt(j.response_time_s),
            opt(j.slowdown),
            opt(j.stretch),
            format!("{}", j.weight),
            opt(j.weighted_completion_s),
            opt(j.deadline_s),
            opt(j.tardiness_s),
            optb(j.deadline_met),
            opt(j.goal_s),
            optb(j.goal_met),
            j.maps.to_string(),
            j.reduces.to_string(),
            j.locality.node.to_string(),
            j.locality.rack.to_string(),
            j.locality.off_rack.to_string(),
            j.attempts.to_string(),
            format!("{}", j.killed_work_s),
            format!("{}", j.lost_work_s),
        ]));
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_aligns() {
        let t = render_table(&["a", "bb"], &[vec!["xyz".into(), "1".into()]]);
        assert_eq!(t, "a    bb\n-------\nxyz   1\n");
    }

    #[test]
    fn a_comparison_in_json_is_the_value_tree_pretty_printed() {
        use serde_json::json;
        let runs = [
            json!({"b": [1, 2.5, {"z": null, "a": "x\ny \"q\""}], "a": {}, "c": []}),
            json!({"jobs": [{"id": 0, "extra": {"k": [[]]}}], "name": "fair+delay"}),
            json!([]),
        ];
        for n in 0..=runs.len() {
            for (cluster, workload) in [("dc3000", "FB-2009"), ("a \"b\"\n", "c\\d")] {
                let whole = json!({
                    "cluster": cluster,
                    "workload": workload,
                    "seed": 18446744073709551615u64,
                    "runs": &runs[..n],
                });
                let want = serde_json::to_string_pretty(&whole).unwrap() + "\n";
                let parts: Vec<String> = runs[..n]
                    .iter()
                    .map(|r| serde_json::to_string_pretty(r).unwrap())
                    .collect();
                let got = compare_json(cluster, workload, u64::MAX, &parts);
                assert_eq!(got, want, "{n} runs");
            }
        }
    }

    #[test]
    fn csv_quotes() {
        assert_eq!(
            csv_row(&["a,b".into(), "c\"d".into()]),
            "\"a,b\",\"c\"\"d\"\n"
        );
    }
}
