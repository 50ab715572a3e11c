//! A deterministic discrete-event simulator of a MapReduce cluster that
//! drives any [`mrsched_sched::Scheduler`].
//!
//! The simulator owns a [`mrsched_state::ClusterState`] and moves it through
//! virtual time: job arrivals, node heartbeats (with seeded jitter and
//! out-of-band heartbeats on completion), map attempts costed by bytes and
//! locality or by explicit times, reduce copy phases that overlap the map
//! phase and compute phases admitted per node, node failures and recoveries,
//! attempt failures, and the capacity other workloads take over time. The
//! same inputs and seed give the same output byte for byte.

#![warn(missing_docs)]

mod cohort;
pub mod copy;
mod engine;
pub mod parallel;
mod placement;
pub mod queue;
pub mod standalone;

pub use engine::{simulate, simulate_with_progress, Progress, SimError, SimOptions, SimOutput};

use mrsched_metrics::Report;

impl SimOutput {
    /// The metrics report of this run.
    pub fn report(&self) -> Report {
        Report::build(&self.state, &self.info)
    }
}
