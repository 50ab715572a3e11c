//! mrsched's vocabulary: ids, virtual time, the cluster and workload file
//! formats with their validation, the task cost model, seeded randomness and
//! HDFS-style replica placement.
//!
//! Everything above this crate (cluster state, schedulers, simulator, live
//! runtime) speaks in these types. Nothing here does I/O beyond reading an
//! input file, and nothing panics on user input: files are checked into
//! [`InputErrors`] that name the file, line and field.

#![warn(missing_docs)]

pub mod block_sizes;
pub mod cluster;
pub mod cost;
pub mod error;
pub mod estimate;
pub mod hint;
pub mod ids;
pub mod limits;
pub mod maps;
pub mod placement;
pub mod rng;
pub mod source;
pub mod time;
pub mod workload;

pub use block_sizes::BlockSizes;
pub use cluster::{Cluster, ClusterSpec, Member, Node, SlotConfig};
pub use error::{InputError, InputErrors};
pub use estimate::{estimate, Estimate};
pub use ids::{
    AttemptId, BlockRef, DatasetId, JobId, Locality, NodeId, Priority, RackId, TaskKind, TaskRef,
};
pub use limits::Limits;
pub use maps::MapSpecs;
pub use source::{Format, Source};
pub use time::Time;
pub use workload::{Dataset, JobSpec, MapSpec, ReduceSpec, Workload, WorkloadSpec};
