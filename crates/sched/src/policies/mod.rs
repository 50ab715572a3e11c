//! One module per policy family. Each exports `info()` (its registry entry)
//! and `presets()`, and builds on the shared machinery of this crate.

pub mod fifo;
pub mod msjo;
