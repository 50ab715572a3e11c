//! Metrics with one definition for every driver: per-job records and a run
//! summary computed from the final cluster state ([`report`]), output as a
//! table, JSON or CSV ([`output`]), SVG figures ([`plot`]) and a
//! self-contained HTML comparison page ([`html`]), plus a compact
//! latency histogram for scheduler decision times ([`latency`]), and seed
//! 004's accept / success / utilisation ratios ([`realtime`]).

#![warn(missing_docs)]

pub mod html;
pub mod latency;
pub mod output;
pub mod plot;
pub mod realtime;
pub mod report;

pub use latency::LatencyHistogram;
pub use output::OutputFormat;
pub use report::{JobRecord, Report, RunInfo, Sample, Summary};
