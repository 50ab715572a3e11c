//! The pools page's chart: each pool's running slots over the last hour,
//! drawn on the master as SVG by the same line chart as the simulator's
//! figures (`mrsched_metrics::plot`), so the page needs no chart library
//! and shows the chart before any script runs.

use crate::proto::PoolHistory;
use mrsched_metrics::plot::{line_chart_svg, LegendAt, Series};

/// The chart as an SVG document; x is minutes before `now_s`.
pub fn running_slots(h: &PoolHistory, now_s: f64) -> Result<String, String> {
    let series: Vec<Series> = h
        .pools
        .iter()
        .map(|(name, v)| Series {
            label: name.clone(),
            points: h
                .t_s
                .iter()
                .zip(v)
                .map(|(t, n)| ((t - now_s) / 60.0, *n as f64))
                .collect(),
        })
        .collect();
    line_chart_svg(
        "Running slots per pool",
        "minutes ago",
        "running slots",
        &series,
        LegendAt::UpperLeft,
        1.3,
    )
    .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_and_a_legend_entry_per_pool() {
        let mut h = PoolHistory {
            t_s: vec![100.0, 102.0, 104.0],
            ..Default::default()
        };
        h.pools.insert("etl".into(), vec![1, 4, 2]);
        h.pools.insert("a<b>".into(), vec![0, 0, 3]);
        let svg = running_slots(&h, 105.0).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..40]);
        // A line and a legend swatch per pool, in the pool's colour.
        for c in ["#1F77B4", "#FF7F0E"] {
            let lines = format!("stroke=\"{c}\" stroke-width=\"2\"");
            assert_eq!(svg.matches(&lines).count(), 2, "{c}: {svg}");
        }
        assert!(svg.contains("\netl\n"));
        // Pool names are escaped in the SVG text.
        assert!(svg.contains("\na&lt;b&gt;\n"), "{svg}");
        assert!(!svg.contains("a<b>"));
        // An empty history still draws the axes.
        let svg = running_slots(&PoolHistory::default(), 5.0).unwrap();
        assert!(svg.contains("running slots"));
    }
}
