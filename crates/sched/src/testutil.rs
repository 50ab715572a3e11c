//! Helpers for unit tests: small clusters with hand-placed blocks.

use mrsched_model::{BlockRef, Cluster, DatasetId, JobSpec, MapSpec, NodeId, ReduceSpec, Time};
use mrsched_state::{ClusterState, DatasetBlocks};

/// A cluster from TOML text.
pub fn cluster(text: &str) -> Cluster {
    Cluster::from_toml_str("test", text).expect("valid test cluster")
}

/// A state on `cluster_toml` with dataset 0 whose block `b` has replicas
/// on the nodes `replicas[b]`.
pub fn state_with(cluster_toml: &str, replicas: &[Vec<u32>]) -> ClusterState {
    let mut st = ClusterState::new(cluster(cluster_toml));
    let reps: Vec<Vec<NodeId>> = replicas
        .iter()
        .map(|r| r.iter().copied().map(NodeId).collect())
        .collect();
    st.add_dataset(DatasetBlocks::new("d", vec![64.0; reps.len()], &reps));
    st
}

/// A job reading the first `blocks` blocks of dataset 0 with `reduces`
/// cost-model reduces.
pub fn data_job(blocks: u32, reduces: usize) -> JobSpec {
    let mut j = JobSpec::explicit("j", Time::ZERO, &[], &[], 1.0);
    j.input = vec![DatasetId(0)];
    j.maps = (0..blocks)
        .map(|b| MapSpec {
            block: Some(BlockRef {
                dataset: DatasetId(0),
                index: b,
            }),
            input_mb: 64.0,
            time: None,
        })
        .collect();
    j.reduces = vec![ReduceSpec { time: None }; reduces];
    j.cost.map_output_ratio = 1.0;
    j
}
