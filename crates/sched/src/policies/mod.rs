//! One module per policy family. Each exports `info()` (its registry entry)
//! and `presets()`, and builds on the shared machinery of this crate.

pub mod adaptive;
pub mod capacity;
pub mod edf;
pub mod fair;
pub mod fifo;
pub mod flex;
pub mod msjo;
pub mod realtime;
