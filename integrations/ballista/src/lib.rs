//! mrsched's schedulers inside Apache DataFusion Ballista.
//!
//! Ballista runs distributed SQL and DataFrame queries over a scheduler and
//! executors; its scheduler takes a custom task distribution policy. This
//! crate's policy ([`policy::MrschedPolicy`]) makes every binding decision
//! with the same mrsched `Scheduler` implementations and driver loop that
//! the simulator and the live master use, through the engine-neutral
//! [`mrsched_mirror::Mirror`]: FIFO, the Fair Scheduler with pools,
//! weights, minimum shares, running-job limits and delay scheduling, from
//! the same scheduler and allocation files as `mrsched simulate`.
//!
//! * [`options`]: the session options (`mrsched.user`, `mrsched.pool`)
//!   queries carry to the scheduler;
//! * [`graph`]: Ballista's execution graphs as the mirror's views, and
//!   binding one chosen task;
//! * [`policy`]: the distribution policy;
//! * [`observe`]: a sampler of what the engine did (pool vcores, task
//!   placement), the yardstick for every policy, Ballista's own included;
//! * [`service`]: starting the scheduler, its HTTP views and executors.
//!
//! Built against Ballista 55.0.0 and DataFusion 55.2.0 exactly (see
//! `Cargo.toml`): the policy hook is young and part of its binding rules are
//! restated in [`graph`].

#![warn(missing_docs)]

pub mod graph;
pub mod observe;
pub mod options;
pub mod policy;
pub mod service;
