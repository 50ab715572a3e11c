//! The pools page's chart: each pool's running slots over the last hour,
//! drawn on the server as SVG (plotters), so the page needs no chart
//! library and shows the chart even before its script runs.

use crate::proto::PoolHistory;
use plotters::prelude::*;

const COLOURS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

/// The chart as an SVG document; x is minutes before `now_s`.
pub fn running_slots(h: &PoolHistory, now_s: f64) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (760, 280)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let span = h
            .t_s
            .first()
            .map_or(1.0, |t0| ((now_s - t0) / 60.0).clamp(1.0, 60.0));
        let top = h
            .pools
            .values()
            .flat_map(|v| v.iter().copied())
            .max()
            .unwrap_or(0)
            .max(1) as f64;
        let mut chart = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(32)
            .y_label_area_size(44)
            .build_cartesian_2d(-span..0.0, 0.0..top * 1.1)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .light_line_style(WHITE)
            .x_desc("minutes ago")
            .y_desc("running slots")
            .draw()
            .map_err(|e| e.to_string())?;
        for (i, (name, v)) in h.pools.iter().enumerate() {
            let c = COLOURS[i % COLOURS.len()];
            let points = h
                .t_s
                .iter()
                .zip(v)
                .map(|(t, n)| ((t - now_s) / 60.0, *n as f64));
            chart
                .draw_series(LineSeries::new(points, c.stroke_width(2)))
                .map_err(|e| e.to_string())?
                .label(name.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2))
                });
        }
        if !h.pools.is_empty() {
            chart
                .configure_series_labels()
                .border_style(BLACK)
                .background_style(WHITE.mix(0.85))
                .position(SeriesLabelPosition::UpperLeft)
                .draw()
                .map_err(|e| e.to_string())?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
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
