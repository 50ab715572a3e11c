//! Paper reproductions behind `mrsched reproduce NAME`.
//!
//! Each experiment builds its clusters and workloads, runs the simulator
//! (several schedulers, seeds, settings), and writes a markdown report with
//! the paper's numbers beside ours and SVG figures into an output directory
//! (`docs/reproductions/` in the repository). A `quick` flag shrinks every
//! experiment (fewer seeds, smaller sweeps) for tests and CI.

#![warn(missing_docs)]

pub mod adaptive_common;
pub mod adaptive_exp1;
pub mod adaptive_exp2;
pub mod adaptive_exp3;
pub mod circumflex;
pub mod common;
pub mod fair_batch_2jobs;
pub mod fair_batch_sim;
pub mod fair_fig3;
pub mod fair_io_biasing;
pub mod fair_macro;
pub mod fair_small_jobs;
pub mod fair_sticky_slots;
pub mod fifo_locality;
pub mod mars;
pub mod rtmr;

use std::path::PathBuf;
use std::sync::Mutex;

/// A progress callback: the fraction of the running experiment done.
pub type ProgressFn = Box<dyn Fn(f64) + Send>;

static PROGRESS: Mutex<Option<ProgressFn>> = Mutex::new(None);

/// Install (or remove) the callback long experiments report progress to
/// (the CLI's progress bar). Without one, progress goes nowhere.
pub fn set_progress(f: Option<ProgressFn>) {
    if let Ok(mut p) = PROGRESS.lock() {
        *p = f;
    }
}

/// Report that `fraction` (0 to 1) of the running experiment is done.
pub fn progress(fraction: f64) {
    if let Ok(p) = PROGRESS.lock() {
        if let Some(f) = p.as_ref() {
            f(fraction.clamp(0.0, 1.0));
        }
    }
}

/// How to run an experiment.
#[derive(Clone, Debug)]
pub struct ExpContext {
    /// Where the report and figures go.
    pub out_dir: PathBuf,
    /// Smaller, faster version (tests, CI).
    pub quick: bool,
    /// Base seed.
    pub seed: u64,
}

/// What an experiment produced.
#[derive(Clone, Debug)]
pub struct ExpReport {
    /// Experiment name.
    pub name: String,
    /// The markdown report (also written to `<out_dir>/<name>.md`).
    pub markdown: String,
    /// Figures written.
    pub figures: Vec<PathBuf>,
    /// Machine-readable results.
    pub json: serde_json::Value,
}

/// An experiment failed (bad setup, a simulation error, an unwritable file).
#[derive(Debug)]
pub struct ExpError(pub String);

impl std::fmt::Display for ExpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ExpError {}

/// Turn any displayable error into an [`ExpError`].
pub fn err<E: std::fmt::Display>(e: E) -> ExpError {
    ExpError(e.to_string())
}

/// A registered experiment.
#[derive(Clone, Copy)]
pub struct Experiment {
    /// Name used by `mrsched reproduce NAME`.
    pub name: &'static str,
    /// The paper and figure it reproduces.
    pub about: &'static str,
    /// Run it.
    pub run: fn(&ExpContext) -> Result<ExpReport, ExpError>,
}

/// Every experiment.
pub fn experiments() -> Vec<Experiment> {
    vec![
        fifo_locality::EXPERIMENT,
        fair_fig3::EXPERIMENT,
        fair_batch_2jobs::EXPERIMENT,
        fair_sticky_slots::EXPERIMENT,
        fair_small_jobs::EXPERIMENT,
        fair_macro::EXPERIMENT,
        fair_batch_sim::EXPERIMENT,
        fair_io_biasing::EXPERIMENT,
        rtmr::WORKLOAD_1,
        rtmr::WORKLOAD_2,
        adaptive_exp1::EXPERIMENT,
        adaptive_exp2::EXPERIMENT,
        adaptive_exp3::EXPERIMENT,
        circumflex::EXPERIMENT,
        mars::FIG5_6,
        mars::FIG7,
        mars::FIG8,
        mars::FIG9,
        mars::FIG10,
        mars::FIG11,
        mars::FIG12,
        mars::FIG14,
        mars::FIG15,
        mars::FIG16,
        mars::FIG17,
    ]
}

/// Find an experiment by name.
pub fn find(name: &str) -> Option<Experiment> {
    experiments().into_iter().find(|e| e.name == name)
}
