//! The scheduler core: the [`Scheduler`] trait every policy implements and
//! the machinery policies share.
//!
//! * [`scheduler`]: the trait (allocation on events and timers, assignment on
//!   heartbeats, admission, actions such as kills);
//! * [`share`]: max-min fair shares with minimums and weights, the one
//!   routine used at every level of a hierarchy;
//! * [`delay`]: delay scheduling for locality (wait times and skip counts);
//! * [`assign`]: serving jobs in a policy's order;
//! * [`drive`]: the driver loop the simulator and the live master share
//!   (submission, heartbeats, actions, event delivery);
//! * [`plan`]: following a precomputed task -> machine plan;
//! * [`pools`]: the pool view every driver shows (`mrsched pools`);
//! * [`config`]: configuration files, presets and the policy registry;
//! * [`policies`]: one module per policy family.
//!
//! This crate does no I/O and knows nothing of time sources or threads, so
//! the same policies run under the simulator, the live master, or another
//! engine's adapter.

#![warn(missing_docs)]

pub mod assign;
pub mod config;
pub mod delay;
pub mod drive;
mod job_table;
pub mod plan;
pub mod policies;
pub mod pools;
pub mod scheduler;
pub mod share;
#[cfg(test)]
mod testutil;
mod xml;

pub use config::{PolicyInfo, Preset, SchedulerConfig};
pub use drive::{Driver, Hooks, InvalidLaunch};
pub use pools::{PoolView, PoolsView};
pub use scheduler::{Action, Admission, IdleBeats, PoolShare, Scheduler};
