//! SVG figures of runs: response-time distributions and timelines.
//!
//! SVG needs no fonts at build or run time (crates.md §4), which keeps the
//! build lean and the output byte-identical across machines.
//!
//! Every chart is drawn into a String first (`*_svg`); the functions taking
//! a path write that String, so a file under `--plots` and an SVG inlined in
//! an HTML report ([`crate::html`]) are the same bytes from the same code.

use crate::report::Report;
use plotters::prelude::*;
use std::path::Path;

/// Colours for series, in order.
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

/// A plotting error (the file could not be written).
#[derive(Debug)]
pub struct PlotError(pub String);

impl std::fmt::Display for PlotError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PlotError {}

fn err<E: std::fmt::Display>(e: E) -> PlotError {
    PlotError(e.to_string())
}

/// Write a drawn chart to `path`.
fn write(path: &Path, svg: Result<String, PlotError>) -> Result<(), PlotError> {
    std::fs::write(path, svg?).map_err(|e| PlotError(format!("{}: {e}", path.display())))
}

/// One named series of (x, y) points.
pub struct Series {
    /// Legend label.
    pub label: String,
    /// Points.
    pub points: Vec<(f64, f64)>,
}

/// Where a chart's legend goes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LegendAt {
    /// Lower right corner (the default).
    LowerRight,
    /// Upper left corner.
    UpperLeft,
    /// Upper right corner.
    UpperRight,
    /// Middle of the right edge.
    MiddleRight,
    /// Lower left corner.
    LowerLeft,
}

/// A line chart of several series, legend in the lower right corner.
pub fn line_chart(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
) -> Result<(), PlotError> {
    line_chart_spread(path, title, x_label, y_label, series, &[])
}

/// A line chart of several series with the legend where it hides no data:
/// at `legend`, the y axis reaching `headroom` times the largest value
/// (more than 1.05 leaves an empty band for an upper legend).
pub fn line_chart_legend(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    legend: LegendAt,
    headroom: f64,
) -> Result<(), PlotError> {
    write(
        path,
        draw_lines(title, x_label, y_label, series, &[], legend, headroom),
    )
}

/// [`line_chart_legend`] as an SVG document in a string (for a page that
/// inlines it).
pub fn line_chart_svg(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    legend: LegendAt,
    headroom: f64,
) -> Result<String, PlotError> {
    draw_lines(title, x_label, y_label, series, &[], legend, headroom)
}

/// A line chart of means with the spread around each point: `spread[i]`
/// holds `(x, low, high)` bars for `series[i]` (e.g. min and max over
/// seeds), drawn as vertical bars in the series' colour.
pub fn line_chart_spread(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    spread: &[Vec<(f64, f64, f64)>],
) -> Result<(), PlotError> {
    write(
        path,
        draw_lines(
            title,
            x_label,
            y_label,
            series,
            spread,
            LegendAt::LowerRight,
            1.05,
        ),
    )
}

#[allow(clippy::too_many_arguments)]
fn draw_lines(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    spread: &[Vec<(f64, f64, f64)>],
    legend: LegendAt,
    headroom: f64,
) -> Result<String, PlotError> {
    let mut svg = String::new();
    let root = SVGBackend::with_string(&mut svg, (800, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let pts = series.iter().flat_map(|s| s.points.iter().copied());
    let bars = spread
        .iter()
        .flatten()
        .flat_map(|&(x, lo, hi)| [(x, lo), (x, hi)]);
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for (x, y) in pts.chain(bars) {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if x0 > x1 {
        (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
    }
    if x1 - x0 < 1e-9 {
        x1 = x0 + 1.0;
    }
    y0 = y0.min(0.0);
    if y1 - y0 < 1e-9 {
        y1 = y0 + 1.0;
    }
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(x0..x1, y0..(y0 + (y1 - y0) * headroom.max(1.0)))
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .draw()
        .map_err(err)?;
    for (i, s) in series.iter().enumerate() {
        let c = PALETTE[i % PALETTE.len()];
        chart
            .draw_series(LineSeries::new(s.points.iter().copied(), c.stroke_width(2)))
            .map_err(err)?
            .label(s.label.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2)));
        if let Some(bars) = spread.get(i) {
            // Bars of neighbouring series at one x are nudged apart so that
            // they do not hide each other.
            let nudge = (x1 - x0) * 0.004 * (i as f64 - (series.len() as f64 - 1.0) / 2.0);
            chart
                .draw_series(bars.iter().map(|&(x, lo, hi)| {
                    PathElement::new(vec![(x + nudge, lo), (x + nudge, hi)], c.stroke_width(1))
                }))
                .map_err(err)?;
        }
    }
    chart
        .configure_series_labels()
        .border_style(BLACK)
        .background_style(WHITE.mix(0.8))
        .position(match legend {
            LegendAt::LowerRight => SeriesLabelPosition::LowerRight,
            LegendAt::UpperLeft => SeriesLabelPosition::UpperLeft,
            LegendAt::UpperRight => SeriesLabelPosition::UpperRight,
            LegendAt::MiddleRight => SeriesLabelPosition::MiddleRight,
            LegendAt::LowerLeft => SeriesLabelPosition::LowerLeft,
        })
        .draw()
        .map_err(err)?;
    root.present().map_err(err)?;
    drop(chart);
    drop(root);
    Ok(svg)
}

/// Cumulative distribution of response times, one line per run. Written to `path`.
pub fn response_cdf(path: &Path, reports: &[Report]) -> Result<(), PlotError> {
    write(path, response_cdf_svg(reports))
}

/// Cumulative distribution of response times, one line per run. The SVG document.
pub fn response_cdf_svg(reports: &[Report]) -> Result<String, PlotError> {
    let series: Vec<Series> = reports
        .iter()
        .map(|r| {
            let mut v: Vec<f64> = r.jobs.iter().filter_map(|j| j.response_time_s).collect();
            v.sort_by(|a, b| a.total_cmp(b));
            let n = v.len().max(1) as f64;
            Series {
                label: r.scheduler.clone(),
                points: v
                    .iter()
                    .enumerate()
                    .map(|(i, x)| (*x, (i + 1) as f64 / n))
                    .collect(),
            }
        })
        .collect();
    let title = reports
        .first()
        .map(|r| format!("Response time CDF: {}", r.workload))
        .unwrap_or_default();
    draw_lines(
        &title,
        "response time (s)",
        "fraction of jobs",
        &series,
        &[],
        LegendAt::LowerRight,
        1.05,
    )
}

/// Slot utilisation over time, one line per run. Written to `path`.
pub fn utilization_timeline(path: &Path, reports: &[Report]) -> Result<(), PlotError> {
    write(path, utilization_timeline_svg(reports))
}

/// Slot utilisation over time, one line per run. The SVG document.
pub fn utilization_timeline_svg(reports: &[Report]) -> Result<String, PlotError> {
    let series: Vec<Series> = reports
        .iter()
        .map(|r| Series {
            label: r.scheduler.clone(),
            points: r
                .timeline
                .iter()
                .map(|s| {
                    let u = if s.available_slots > 0 {
                        s.busy_slots as f64 / s.available_slots as f64
                    } else {
                        0.0
                    };
                    (s.t_s, u)
                })
                .collect(),
        })
        .collect();
    draw_lines(
        "Slot utilisation",
        "time (s)",
        "busy / available",
        &series,
        &[],
        LegendAt::LowerRight,
        1.05,
    )
}

/// Intermediate data over time, one line per run. Written to `path`.
pub fn intermediate_timeline(path: &Path, reports: &[Report]) -> Result<(), PlotError> {
    write(path, intermediate_timeline_svg(reports))
}

/// Intermediate data over time, one line per run. The SVG document.
pub fn intermediate_timeline_svg(reports: &[Report]) -> Result<String, PlotError> {
    let series: Vec<Series> = reports
        .iter()
        .map(|r| Series {
            label: r.scheduler.clone(),
            points: r
                .timeline
                .iter()
                .map(|s| (s.t_s, s.intermediate_mb / 1024.0))
                .collect(),
        })
        .collect();
    draw_lines(
        "Intermediate data",
        "time (s)",
        "GB on all nodes",
        &series,
        &[],
        LegendAt::LowerRight,
        1.05,
    )
}

/// A grouped bar chart: one group per category, one bar per series.
pub fn bar_chart(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    categories: &[String],
    series: &[Series],
) -> Result<(), PlotError> {
    write(path, draw_bars(title, x_label, y_label, categories, series))
}

fn draw_bars(
    title: &str,
    x_label: &str,
    y_label: &str,
    categories: &[String],
    series: &[Series],
) -> Result<String, PlotError> {
    let mut svg = String::new();
    let root = SVGBackend::with_string(&mut svg, (800, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let n = categories.len().max(1);
    let ymax = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(0.0f64, f64::max)
        .max(1e-9);
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..n as f64, 0f64..ymax * 1.1)
        .map_err(err)?;
    let cats = categories.to_vec();
    let fmt = move |x: &f64| {
        let i = x.floor() as usize;
        if (x - i as f64 - 0.5).abs() < 0.26 {
            cats.get(i).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .x_labels(4 * n)
        .x_label_formatter(&fmt)
        .disable_x_mesh()
        .draw()
        .map_err(err)?;
    let k = series.len().max(1) as f64;
    let width = 0.8 / k;
    for (si, s) in series.iter().enumerate() {
        let c = PALETTE[si % PALETTE.len()];
        chart
            .draw_series(s.points.iter().map(|&(x, y)| {
                let x0 = x.floor() + 0.1 + si as f64 * width;
                Rectangle::new([(x0, 0.0), (x0 + width * 0.95, y)], c.filled())
            }))
            .map_err(err)?
            .label(s.label.clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], c.filled()));
    }
    chart
        .configure_series_labels()
        .border_style(BLACK)
        .background_style(WHITE.mix(0.8))
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(err)?;
    root.present().map_err(err)?;
    drop(chart);
    drop(root);
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn svg(name: &str, spread: &[Vec<(f64, f64, f64)>]) -> String {
        let path =
            std::env::temp_dir().join(format!("mrsched-plot-{}-{name}.svg", std::process::id()));
        let series = vec![
            Series {
                label: "a".into(),
                points: vec![(1.0, 1.0), (2.0, 1.5)],
            },
            Series {
                label: "b".into(),
                points: vec![(1.0, 2.0), (2.0, 2.5)],
            },
        ];
        line_chart_spread(&path, "t", "x", "y", &series, spread).expect("written");
        let text = std::fs::read_to_string(&path).expect("readable");
        let _ = std::fs::remove_file(&path);
        text
    }

    #[test]
    fn spread_bars_are_drawn_and_fit_the_axis() {
        let plain = svg("plain", &[]);
        let bars = vec![
            vec![(1.0, 0.8, 1.2), (2.0, 1.4, 1.6)],
            vec![(1.0, 1.9, 7.0)],
        ];
        let with = svg("spread", &bars);
        // Bars are 1-pixel lines in their series' colour.
        let bars_of = |s: &str, c: &str| {
            s.matches(&format!("stroke=\"{c}\" stroke-width=\"1\""))
                .count()
        };
        assert_eq!(bars_of(&with, "#1F77B4"), 2, "series a: two bars");
        assert_eq!(bars_of(&with, "#FF7F0E"), 1, "series b: one bar");
        assert_eq!(bars_of(&plain, "#1F77B4") + bars_of(&plain, "#FF7F0E"), 0);
        // The axis grows to the highest bar (7.0), beyond every mean.
        // Tick labels are the text lines of the SVG.
        let ticks = |s: &str| s.lines().any(|l| l.trim() == "7.0");
        assert!(ticks(&with), "y axis reaches 7");
        assert!(!ticks(&plain), "without bars it stops near 2.5");
    }
}
