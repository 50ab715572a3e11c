//! Tests of the FLEX family on the cluster state.
