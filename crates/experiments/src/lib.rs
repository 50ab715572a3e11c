//! Paper reproductions behind `mrsched reproduce NAME`.
//!
//! Each experiment builds its clusters and workloads, runs the simulator
//! (several schedulers, seeds, settings), and writes a markdown report with
//! the paper's numbers beside ours and SVG figures into an output directory
//! (`docs/reproductions/` in the repository). A `quick` flag shrinks every
//! experiment (fewer seeds, smaller sweeps) for tests and CI.

#![warn(missing_docs)]

pub mod common;
pub mod fifo_locality;
pub mod mars;

use std::path::PathBuf;

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
