//! Simulator throughput (task events per second), single-threaded.
//!
//! Targets (release build, one core):
//! * the SWIM FB-2009 day (`FB-2009_samples_24_times_1hr_0.tsv`, 5,894 jobs,
//!   206k maps) on the 600-node cluster under FIFO in under 2 s;
//! * at least 5M task events per second on a synthetic 1M-task workload.
//!
//! A task event is an attempt launch or an attempt end. The FB-2009 bench
//! reads the trace from `../shared/data/swim/` when it is there (it is not
//! part of the repository) and is skipped otherwise.
//!
//! Measured (default release profile, 2-core virtual machine whose speed
//! varies by up to 50% within an hour; fastest of divan's three samples):
//! FB-2009 day 0.082 s (met); synthetic 1M tasks 0.244 s = 8.0 M task
//! events/s (met). See docs/architecture.md, Performance.
//!
//! At datacenter scale (the same trace with bytes x 40 on a 3000-node
//! cluster, 8.19M tasks) the goals are FIFO under 4 s, fair+delay under
//! 6 s, the other default presets under 10 s and peak RSS under 400 MB
//! (the whole process, as a user runs it: docs/architecture.md, "At
//! datacenter scale"). `MRSCHED_BENCH_DC=1` adds one timed run of each
//! default preset on it and of FIFO at scales 10, 20, 40 and 80 (task
//! events/s, and the process's peak RSS so far, which grows with the
//! scale), and of FIFO over the unscaled day on 3000 to 100,000 nodes (a
//! 100,000-node cluster with a day of light load must run in time and
//! memory that follow the work, not nodes x time); `dc3000_scale40_fifo`
//! times FIFO on the proxy, `dc3000_second_day_fifo` on another day of
//! its size (sample 1 with bytes x 32: 6,638 jobs, 8.17M tasks), which
//! `MRSCHED_BENCH_DC=1` also runs under each default preset.
//!
//! Run: `cargo bench -p mrsched-sim --bench throughput`.

use mrsched_model::{Source, Workload};
use mrsched_sched::policies::fifo::Fifo;
use mrsched_sim::{simulate, SimOptions};
use mrsched_workload::catalog;
use mrsched_workload::swim::{self, SwimOptions};
use mrsched_workload::synthetic::{synthetic, SyntheticParams};
use std::path::Path;
use std::time::Instant;

fn main() {
    report_once();
    divan::main();
}

/// The 1M-task synthetic workload: 1,000 jobs of 1-2,000 maps (uniform,
/// mean ~1,000) with 5-25% reduces, arriving every 20 s on 600 nodes.
fn million_tasks() -> Workload {
    // MRSCHED_BENCH_JOBS=N shrinks it (for profiling under valgrind).
    let jobs = std::env::var("MRSCHED_BENCH_JOBS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    synthetic(
        7,
        &SyntheticParams {
            jobs,
            mean_interarrival_s: 20.0,
            max_maps: 2000,
            size_exponent: 0.0,
            reduce_fraction: (0.0, 0.0),
            ..Default::default()
        },
    )
}

fn fb2009_day() -> Option<Workload> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/swim/FB-2009_samples_24_times_1hr_0.tsv");
    let src = Source::read(&p).ok()?;
    swim::read(&src, &SwimOptions::default()).ok()
}

/// The 3000-node cluster of the datacenter-scale proxy
/// (`examples/dc3000.toml`).
fn dc3000() -> mrsched_model::Cluster {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/dc3000.toml");
    catalog::cluster(p.to_str().expect("UTF-8 path")).expect("valid cluster")
}

/// `examples/dc3000.toml` grown to `nodes` nodes (40 to a rack).
fn dc_nodes(nodes: usize) -> mrsched_model::Cluster {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/dc3000.toml");
    let text = std::fs::read_to_string(&p).expect("example cluster");
    let text = text
        .replace("count = 3000", &format!("count = {nodes}"))
        .replace("racks = 75", &format!("racks = {}", nodes / 40));
    mrsched_model::Cluster::from_toml_str("dc.toml", &text).expect("valid cluster")
}

/// The FB-2009 day with every byte count multiplied by `scale`.
fn fb2009_day_scaled(scale: f64) -> Option<Workload> {
    fb2009_sample_scaled(0, scale)
}

/// Day sample `sample` (0 or 1) of FB-2009 with every byte count
/// multiplied by `scale`.
fn fb2009_sample_scaled(sample: u32, scale: f64) -> Option<Workload> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
        "../../../shared/data/swim/FB-2009_samples_24_times_1hr_{sample}.tsv"
    ));
    let src = Source::read(&p).ok()?;
    let opts = SwimOptions {
        scale,
        ..SwimOptions::default()
    };
    swim::read(&src, &opts).ok()
}

/// Peak resident memory of this process so far, MB (Linux).
fn peak_rss_mb() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: f64 = s
        .lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some(kb / 1024.0)
}

/// The six default presets (those `compare` runs when none are named).
const PRESETS: [&str; 6] = [
    "fifo",
    "fair",
    "fair+delay",
    "fair+ccs",
    "fifo+ccs",
    "fair+ccs+delay",
];

/// One timed run of each default preset on the proxy, then FIFO over the
/// scale series (smallest first, so the peak RSS so far is the run's own).
fn report_datacenter() {
    let c = dc3000();
    let opts = SimOptions {
        release_ended_jobs: true,
        ..SimOptions::default()
    };
    let run = |label: &str, w: &Workload, preset: &str| {
        let cfg = mrsched_sched::SchedulerConfig::resolve(preset).expect("a preset");
        let mut s = cfg.build(&c).expect("builds");
        let t0 = Instant::now();
        let o = simulate(&c, w, s.as_mut(), &opts).expect("runs");
        let dt = t0.elapsed().as_secs_f64();
        eprintln!(
            "{label} {preset}: {} tasks in {dt:.2} s = {:.2} M task events/s, {} events, peak RSS so far {:.0} MB",
            w.task_count(),
            o.task_events as f64 / dt / 1e6,
            o.info.events,
            peak_rss_mb().unwrap_or(f64::NAN)
        );
    };
    for scale in [10.0, 20.0, 40.0, 80.0] {
        let Some(w) = fb2009_day_scaled(scale) else {
            eprintln!("FB-2009 trace not found next to the repository: skipped");
            return;
        };
        run(&format!("dc3000 x{scale}"), &w, "fifo");
    }
    // The unscaled day on ever larger clusters: idle nodes sleep, and a
    // wake-up computes a jitter's width of them.
    let day = fb2009_day().expect("read above");
    for nodes in [3000, 10_000, 30_000, 100_000] {
        let c = dc_nodes(nodes);
        let mut s = Fifo::new();
        let t0 = Instant::now();
        let o = simulate(&c, &day, &mut s, &opts).expect("runs");
        let dt = t0.elapsed().as_secs_f64();
        eprintln!(
            "FB-2009 day on {nodes} nodes fifo: {} tasks in {dt:.2} s, {} events, peak RSS so far {:.0} MB",
            day.task_count(),
            o.info.events,
            peak_rss_mb().unwrap_or(f64::NAN)
        );
    }
    let w = fb2009_day_scaled(40.0).expect("read above");
    // FIFO at scale 40 ran in the series above.
    for preset in PRESETS.iter().filter(|p| **p != "fifo") {
        run("dc3000 x40", &w, preset);
    }
    // Another day of the same size (the goals hold for any such day, not
    // one trace): sample 1 scaled by 32 is 6,638 jobs and 8.17M tasks.
    if let Some(w) = fb2009_sample_scaled(1, 32.0) {
        for preset in PRESETS {
            run("dc3000 sample 1 x32", &w, preset);
        }
    }
}

/// Print one timed run of each workload with its event rate (the figures
/// reported in docs/architecture.md).
fn report_once() {
    if std::env::var_os("MRSCHED_BENCH_DC").is_some() {
        report_datacenter();
    }
    let c = catalog::cluster("fb-600").expect("built-in");
    let mut runs = vec![("synthetic-1M", million_tasks())];
    // MRSCHED_BENCH_ONLY=synthetic skips the trace (for profiling).
    let only_synthetic = std::env::var("MRSCHED_BENCH_ONLY").is_ok_and(|v| v == "synthetic");
    if only_synthetic {
    } else if let Some(w) = fb2009_day() {
        runs.push(("swim-fb2009-day", w));
    } else {
        eprintln!("FB-2009 trace not found next to the repository: skipped");
    }
    for (name, w) in runs {
        let t0 = Instant::now();
        let o = simulate(&c, &w, &mut Fifo::new(), &SimOptions::default()).expect("runs");
        let dt = t0.elapsed().as_secs_f64();
        eprintln!(
            "{name}: {} tasks, {} task events, {} events in {:.3} s = {:.2} M task events/s",
            w.task_count(),
            o.task_events,
            o.info.events,
            dt,
            o.task_events as f64 / dt / 1e6
        );
    }
}

#[divan::bench(sample_count = 3)]
fn synthetic_1m_fifo(b: divan::Bencher) {
    let c = catalog::cluster("fb-600").expect("built-in");
    let w = million_tasks();
    b.bench_local(|| simulate(&c, &w, &mut Fifo::new(), &SimOptions::default()).expect("runs"));
}

/// FIFO on the datacenter-scale proxy (8.19M tasks), when the trace is
/// there.
#[divan::bench(sample_count = 1, sample_size = 1)]
fn dc3000_scale40_fifo(b: divan::Bencher) {
    dc3000_fifo(b, fb2009_day_scaled(40.0));
}

/// FIFO on another day of the proxy's size (sample 1 scaled by 32, 8.17M
/// tasks), when the trace is there.
#[divan::bench(sample_count = 1, sample_size = 1)]
fn dc3000_second_day_fifo(b: divan::Bencher) {
    dc3000_fifo(b, fb2009_sample_scaled(1, 32.0));
}

/// FIFO over `w` on the 3000-node cluster, as `simulate` runs it (ended
/// jobs released); nothing when the trace was not found.
fn dc3000_fifo(b: divan::Bencher, w: Option<Workload>) {
    let Some(w) = w else { return };
    let c = dc3000();
    let opts = SimOptions {
        release_ended_jobs: true,
        ..SimOptions::default()
    };
    b.bench_local(|| simulate(&c, &w, &mut Fifo::new(), &opts).expect("runs"));
}

#[divan::bench(sample_count = 3)]
fn swim_fb2009_day_fifo(b: divan::Bencher) {
    let c = catalog::cluster("fb-600").expect("built-in");
    let Some(w) = fb2009_day() else { return };
    b.bench_local(|| simulate(&c, &w, &mut Fifo::new(), &SimOptions::default()).expect("runs"));
}
