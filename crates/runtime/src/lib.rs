//! The live cluster: a master and worker processes that run real MapReduce
//! jobs under the same schedulers as the simulator.
//!
//! * [`master`]: the master process. It owns a `ClusterState` and a
//!   `Box<dyn Scheduler>` and drives them from real heartbeats through the
//!   same driver loop as the simulator (`mrsched_sched::drive`); it keeps
//!   the block store's namespace and journals jobs and finished work
//!   ([`journal`]) so that it resumes after a restart.
//! * [`worker`]: the worker process: heartbeats, runs map and reduce
//!   attempts ([`program`], [`sortio`]), stores blocks, serves map output
//!   partitions for the shuffle.
//! * [`client`]: the user API client (`mrsched submit`, `jobs`, `dfs` ...).
//! * [`local`]: `mrsched local`, a master and N workers on loopback.
//! * [`proto`]: the HTTP/JSON messages; [`jobfile`]: job files.
//! * [`maponly`]: map-only jobs (`reduces = 0`): each map's output is a
//!   block of the output file.
//! * [`blockstore`]: checksummed block replicas and map output partitions.
//! * [`tls`]: TLS for every connection beyond loopback.
//!
//! See `docs/live.md`.

#![warn(missing_docs)]

pub mod blockstore;
pub mod client;
pub mod jobfile;
pub mod journal;
pub mod local;
pub mod maponly;
pub mod master;
pub mod program;
pub mod proto;
pub mod sortio;
pub mod tls;
pub mod worker;
