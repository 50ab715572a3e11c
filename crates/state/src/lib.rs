//! The JobTracker state machine shared by the simulator and the live master.
//!
//! Drivers (the discrete-event simulator, the live master) change a
//! [`ClusterState`] through a narrow API: submit, admit/reject, launch,
//! finish a map / a copy / a reduce, fail, kill, lose and recover nodes,
//! change the capacity other workloads take. Schedulers only ever see
//! `&ClusterState`. Each change is also recorded as a [`StateEvent`] that the
//! driver forwards to the scheduler, so a policy observes the cluster the
//! same way whichever driver runs it.

#![warn(missing_docs)]

pub mod attempt;
pub mod bits;
pub mod blocks;
mod cluster_state;
pub mod events;
mod index;
pub mod job;
pub mod node;
mod slab;

pub use attempt::{Attempt, AttemptStatus, Launch, ReducePhase, Stamp};
pub use blocks::{BlockMap, DatasetBlocks};
pub use cluster_state::{ClusterState, LaunchError, StateError, Usage};
pub use events::StateEvent;
pub use job::{Counts, Job, JobStatus, Task, TaskStats, TaskStatus, TaskTotals};
pub use node::{NodeSlots, NodeState};
