//! The live cluster: a master and worker processes that run real MapReduce
//! jobs under the same schedulers as the simulator.

#![warn(missing_docs)]

pub mod jobfile;
pub mod journal;
pub mod master;
pub mod program;
pub mod proto;
pub mod sortio;
