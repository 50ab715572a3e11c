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
//! Measured (default release profile, otherwise idle 2-core machine;
//! fastest of divan's three samples, three invocations): FB-2009 day
//! 0.323-0.325 s (met); synthetic 1M tasks 0.263-0.264 s = 7.4 M task
//! events/s (met). With a cargo build running on the other core the same
//! code measured 0.43-0.47 s (4.1-4.5 M). See docs/architecture.md,
//! Performance.
//!
//! At datacenter scale (the same trace with bytes x 40 on a 3000-node
//! cluster, 8.19M tasks) the goals are FIFO under 4 s, the Fair presets
//! under 6-10 s and peak RSS under 400 MB; measured with the CLI as a user
//! runs it (docs/architecture.md, "At datacenter scale"): FIFO 6.6-6.9 s,
//! 1.16 GB, not met yet.
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

/// Print one timed run of each workload with its event rate (the figures
/// reported in docs/architecture.md).
fn report_once() {
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

#[divan::bench(sample_count = 3)]
fn swim_fb2009_day_fifo(b: divan::Bencher) {
    let c = catalog::cluster("fb-600").expect("built-in");
    let Some(w) = fb2009_day() else { return };
    b.bench_local(|| simulate(&c, &w, &mut Fifo::new(), &SimOptions::default()).expect("runs"));
}
