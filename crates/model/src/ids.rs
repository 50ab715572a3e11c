//! Identifiers and small shared enums.
//!
//! Ids are dense indices (`u32`) into the vectors that hold nodes, racks, jobs
//! and datasets. Dense ids keep the cluster state in flat vectors (fast, and
//! iteration order is deterministic), and the newtypes stop a job index from
//! being used as a node index by mistake.

use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! dense_id {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(
            Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default, Serialize, Deserialize,
        )]
        #[serde(transparent)]
        pub struct $name(pub u32);

        impl $name {
            /// The id as a vector index.
            #[inline]
            pub fn idx(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

dense_id!(
    /// A worker node (TaskTracker).
    NodeId,
    "node"
);
dense_id!(
    /// A rack of nodes.
    RackId,
    "rack"
);
dense_id!(
    /// A job, numbered in submission order.
    JobId,
    "job"
);
dense_id!(
    /// A dataset (a file split into blocks).
    DatasetId,
    "dataset"
);

/// One execution of a task (or, for a shared scan, of several riding tasks).
#[derive(
    Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct AttemptId(pub u64);

impl AttemptId {
    /// Launch serial number (attempts are numbered in launch order).
    #[inline]
    pub fn serial(self) -> u64 {
        self.0 >> 24
    }
}

impl fmt::Display for AttemptId {
    /// Attempts are numbered in launch order (the low 24 bits of the id are
    /// a storage slot, see `mrsched-state`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "attempt{}", self.0 >> 24)
    }
}

/// Map or reduce.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskKind {
    /// A map task: reads one input block (or nothing, for explicit-time jobs).
    Map,
    /// A reduce task: copies its partition of every map's output, then reduces.
    Reduce,
}

/// A task of a job: its kind and index among the job's tasks of that kind.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
pub struct TaskRef {
    /// The owning job.
    pub job: JobId,
    /// Map or reduce.
    pub kind: TaskKind,
    /// Index among the job's maps or reduces.
    pub index: u32,
}

impl fmt::Display for TaskRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let k = match self.kind {
            TaskKind::Map => 'm',
            TaskKind::Reduce => 'r',
        };
        write!(f, "{}/{}{}", self.job, k, self.index)
    }
}

/// A block of a dataset.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
pub struct BlockRef {
    /// The dataset.
    pub dataset: DatasetId,
    /// Index of the block within the dataset.
    pub index: u32,
}

/// How close a map task ran to its input data.
///
/// Ordered from most to least local, so `a < b` means "a is more local".
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Locality {
    /// The block has a replica on the node.
    Node,
    /// A replica is on another node of the same rack.
    Rack,
    /// Every replica is on another rack.
    OffRack,
    /// The task reads no block (explicit-time jobs, reduces): locality does
    /// not apply and the task is excluded from locality fractions.
    NoData,
}

impl Locality {
    /// The delay-scheduling level index: node 0, rack 1, off-rack 2.
    pub fn level(self) -> usize {
        match self {
            Locality::Node | Locality::NoData => 0,
            Locality::Rack => 1,
            Locality::OffRack => 2,
        }
    }
}

/// Hadoop's five job priority levels.
#[derive(
    Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// Runs after every other level.
    VeryLow,
    /// Below normal.
    Low,
    /// The default.
    #[default]
    Normal,
    /// Above normal.
    High,
    /// Runs before every other level.
    VeryHigh,
}

impl Priority {
    /// All levels, lowest first.
    pub const ALL: [Priority; 5] = [
        Priority::VeryLow,
        Priority::Low,
        Priority::Normal,
        Priority::High,
        Priority::VeryHigh,
    ];
}
