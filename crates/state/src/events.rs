//! What happened: the events the cluster state emits for schedulers.
//!
//! Every mutation of [`crate::ClusterState`] records what it changed here.
//! Drivers drain the events after each step and hand them to the
//! scheduler's `on_event`, so that a policy learns about completions,
//! failures, lost nodes and capacity changes the same way under the simulator
//! and the live master.

use crate::attempt::Attempt;
use mrsched_model::{JobId, NodeId};
use serde::{Deserialize, Serialize};

/// A change in the cluster state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum StateEvent {
    /// A job was submitted and awaits admission.
    JobSubmitted(JobId),
    /// A job was admitted and may run.
    JobAdmitted(JobId),
    /// A job was rejected on arrival.
    JobRejected(JobId),
    /// A job ended (succeeded, failed or killed: see its status).
    JobEnded(JobId),
    /// An attempt ended (see its status); the attempt is a snapshot.
    AttemptEnded(Attempt),
    /// All of a job's maps are done (again, after lost outputs were re-run).
    MapsDone(JobId),
    /// A job's reduces may now be launched.
    ReducesReady(JobId),
    /// Map tasks were added to a running open job (a DAG engine's next
    /// stage became runnable); they are pending.
    TasksAdded(JobId),
    /// A finished map's output was lost (node failure or eviction) and the
    /// map is pending again.
    MapOutputLost {
        /// The job.
        job: JobId,
        /// The map task.
        task: u32,
    },
    /// A node stopped heartbeating.
    NodeLost(NodeId),
    /// A node is back.
    NodeRecovered(NodeId),
    /// The capacity other workloads take on a node changed.
    CapacityChanged(NodeId),
}
