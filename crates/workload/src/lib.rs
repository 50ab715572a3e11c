//! Workloads: generators for every seed paper's workloads, readers of SWIM,
//! Hadoop SLS and Rumen traces, and the catalog of built-in clusters and
//! workloads.

#![warn(missing_docs)]

pub mod build;
pub mod catalog;
pub mod facebook;
pub mod goals;
pub mod jsonstream;
pub mod msjo;
pub mod realtime;
pub mod rumen;
pub mod shared_scans;
pub mod sls;
pub mod swim;
pub mod synthetic;

pub use build::WorkloadBuilder;
