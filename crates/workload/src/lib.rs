//! Workloads: generators for every seed paper's workloads, a SWIM trace
//! reader, and the catalog of built-in clusters and workloads.

#![warn(missing_docs)]

pub mod build;
pub mod catalog;
pub mod facebook;
pub mod goals;
pub mod msjo;
pub mod realtime;
pub mod shared_scans;
pub mod swim;
pub mod synthetic;

pub use build::WorkloadBuilder;
