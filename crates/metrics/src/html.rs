//! A comparison as one self-contained HTML page (`mrsched compare --html`).
//!
//! The page is meant to be opened from disk or sent by mail, so it carries
//! everything inline: a little CSS, the comparison table and the same SVG
//! figures `--plots` writes (drawn by [`crate::plot`], not a copy of it). It
//! references nothing outside itself: no scripts, fonts or style sheets.
//!
//! The markup comes from `maud` templates, which escape every interpolated
//! string, so scheduler names, labels and file names from the command line
//! cannot inject markup. The SVGs are the one pre-escaped part: plotters
//! escapes the text it draws (legend labels are scheduler names).

use crate::output::{compare_row, COMPARE_COLUMNS};
use crate::plot::{self, PlotError};
use crate::report::Report;
use maud::{html, Markup, PreEscaped, DOCTYPE};

const STYLE: &str = "\
body{font-family:sans-serif;margin:2em auto;max-width:80em;padding:0 1em;color:#222}\
div.wide{overflow-x:auto}\
table{border-collapse:collapse;margin:1em 0}\
th,td{padding:.3em .7em;border-bottom:1px solid #ccc;white-space:nowrap}\
th{text-align:left;background:#f3f3f3}\
td.n{text-align:right;font-variant-numeric:tabular-nums}\
code{background:#f3f3f3;padding:.1em .3em;word-break:break-all}\
figure{margin:1.5em 0}\
figure svg{max-width:100%;height:auto}\
dt{font-weight:bold;float:left;clear:left;width:6em}\
dd{margin-left:7em}";

/// The comparison page of `reports` (runs of one workload on one cluster),
/// one table row per run. `labels[i]` is how run `i` was asked for (a preset
/// name or a scheduler file; the report's own scheduler name is in the
/// table too); `command` is the command line that produced the runs.
pub fn compare_html(
    command: &str,
    labels: &[String],
    reports: &[Report],
) -> Result<String, PlotError> {
    let figures = [
        ("Response time CDF", plot::response_cdf_svg(reports)?),
        ("Slot utilisation", plot::utilization_timeline_svg(reports)?),
        (
            "Intermediate data",
            plot::intermediate_timeline_svg(reports)?,
        ),
    ];
    let first = reports.first();
    let cluster = first.map_or("", |r| r.cluster.as_str());
    let workload = first.map_or("", |r| r.workload.as_str());
    let title = format!("mrsched compare: {workload} on {cluster}");
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                style { (PreEscaped(STYLE)) }
            }
            body {
                h1 { (title) }
                dl {
                    dt { "command" } dd { code { (command) } }
                    dt { "cluster" } dd { (cluster) }
                    dt { "workload" } dd { (workload) }
                    @if let Some(r) = first {
                        dt { "seed" } dd { (r.seed) }
                    }
                    dt { "runs" } dd { (reports.len()) }
                }
                h2 { "Comparison" }
                (table(labels, reports))
                h2 { "Figures" }
                @for (caption, svg) in &figures {
                    figure {
                        (PreEscaped(svg.as_str()))
                        figcaption { (caption) }
                    }
                }
                p { small { "Written by mrsched " (env!("CARGO_PKG_VERSION")) "." } }
            }
        }
    };
    Ok(page.into_string())
}

/// The comparison table: what each run was asked as, then the columns of
/// the text table (`mrsched compare`).
fn table(labels: &[String], reports: &[Report]) -> Markup {
    // A wide table scrolls inside its box instead of running off the page.
    html! {
        div.wide { table {
            thead {
                tr {
                    th { "run" }
                    @for c in COMPARE_COLUMNS {
                        th { (c) }
                    }
                }
            }
            tbody {
                @for (i, r) in reports.iter().enumerate() {
                    tr {
                        td { (labels.get(i).unwrap_or(&r.scheduler)) }
                        @for (k, cell) in compare_row(r, true).iter().enumerate() {
                            @if k == 0 {
                                td { (cell) }
                            } @else {
                                td class="n" { (cell) }
                            }
                        }
                    }
                }
            }
        } }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{JobRecord, LocalityCounts, Sample, Summary};
    use mrsched_state::JobStatus;

    fn job(id: u32, response: f64) -> JobRecord {
        JobRecord {
            id,
            name: format!("j{id}"),
            user: "u".into(),
            pool: "p".into(),
            status: JobStatus::Succeeded,
            admitted: true,
            reason: None,
            arrival_s: id as f64,
            start_s: Some(id as f64),
            finish_s: Some(id as f64 + response),
            response_time_s: Some(response),
            slowdown: None,
            stretch: Some(1.0),
            weight: 1.0,
            weighted_completion_s: Some(id as f64 + response),
            deadline_s: None,
            tardiness_s: None,
            lateness_s: None,
            deadline_met: None,
            goal_s: None,
            goal_met: None,
            maps: 2,
            reduces: 1,
            locality: LocalityCounts::default(),
            attempts: 3,
            failed_attempts: 0,
            killed_attempts: 0,
            killed_work_s: 0.0,
            lost_work_s: 0.0,
        }
    }

    fn report(scheduler: &str, mean: f64) -> Report {
        Report {
            scheduler: scheduler.into(),
            cluster: "tiny".into(),
            workload: "w<&>".into(),
            seed: 7,
            summary: Summary {
                jobs: 2,
                mean_response_time_s: mean,
                ..Summary::default()
            },
            extra: Default::default(),
            jobs: vec![job(0, mean - 1.0), job(1, mean + 1.0)],
            timeline: (0..5)
                .map(|k| Sample {
                    t_s: k as f64,
                    busy_slots: k,
                    available_slots: 4,
                    running_jobs: 1,
                    intermediate_mb: 100.0 * k as f64,
                })
                .collect(),
        }
    }

    #[test]
    fn one_row_per_run_three_figures_and_everything_escaped() {
        let reports = vec![
            report("fifo", 12.25),
            report("fair", 31.5),
            report("<script>alert(1)</script>", 40.0),
        ];
        let labels: Vec<String> = vec![
            "fifo".into(),
            "examples/fair.toml".into(),
            "<script>x</script>".into(),
        ];
        let page = compare_html("mrsched compare -s \"<b>\"", &labels, &reports).unwrap();
        assert!(page.starts_with("<!DOCTYPE html>"), "{}", &page[..40]);
        // A header row and one row per run, each with its numbers.
        assert_eq!(page.matches("<tr>").count(), 1 + reports.len());
        for (l, mean) in [("fifo", "12.2"), ("examples/fair.toml", "31.5")] {
            assert!(page.contains(&format!("<td>{l}</td>")), "row of {l}");
            assert!(
                page.contains(&format!("<td class=\"n\">{mean}</td>")),
                "{mean}"
            );
        }
        for c in COMPARE_COLUMNS {
            assert!(page.contains(&format!("<th>{c}</th>")), "column {c}");
        }
        assert_eq!(page.matches("<svg").count(), 3);
        assert_eq!(page.matches("</svg>").count(), 3);
        // Each figure's legend names every run (SVG text on its own line).
        for name in ["fifo", "fair", "&lt;script&gt;alert(1)&lt;/script&gt;"] {
            let legends = page.lines().filter(|l| l.trim() == name).count();
            assert_eq!(legends, 3, "legend entries of {name}");
        }
        // Names, labels and the command never become markup.
        assert!(!page.contains("<script"), "unescaped script tag");
        assert!(!page.contains("<b>"));
        assert!(page.contains("&lt;script&gt;x&lt;/script&gt;"));
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(page.contains("mrsched compare -s &quot;&lt;b&gt;&quot;"));
        assert!(page.contains("w&lt;&amp;&gt; on tiny"));
        // Self-contained: the only URLs are SVG namespace names.
        let mut rest = page.as_str();
        while let Some(k) = rest.find("http") {
            let url = &rest[k..];
            assert!(
                !(url.starts_with("http://") || url.starts_with("https://"))
                    || url.starts_with("http://www.w3.org/2000/svg")
                    || url.starts_with("http://www.w3.org/1999/xlink"),
                "external reference: {}",
                &url[..url.len().min(60)]
            );
            rest = &rest[k + 4..];
        }
        for attr in ["src=", "href=", "@import", "url("] {
            assert!(!page.contains(attr), "{attr}");
        }
    }

    #[test]
    fn figures_are_the_plot_files_bytes() {
        let reports = vec![report("fifo", 5.0)];
        let page = compare_html("c", &["fifo".into()], &reports).unwrap();
        for svg in [
            plot::response_cdf_svg(&reports).unwrap(),
            plot::utilization_timeline_svg(&reports).unwrap(),
            plot::intermediate_timeline_svg(&reports).unwrap(),
        ] {
            assert!(svg.starts_with("<svg"));
            assert!(page.contains(&svg));
        }
        let path = std::env::temp_dir().join(format!("mrsched-html-{}.svg", std::process::id()));
        plot::utilization_timeline(&path, &reports).unwrap();
        let file = std::fs::read_to_string(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        assert_eq!(file, plot::utilization_timeline_svg(&reports).unwrap());
    }
}
