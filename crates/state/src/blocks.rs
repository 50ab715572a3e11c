//! Where block replicas are: the master's view of the block store.

use mrsched_model::{BlockRef, DatasetId, NodeId};
use serde::{Deserialize, Serialize};

/// Replica locations of one dataset's blocks, stored flat.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct DatasetBlocks {
    /// Dataset name.
    pub name: String,
    /// Size of each block, MB.
    pub sizes_mb: Vec<f64>,
    /// All replicas, block after block.
    replicas: Vec<NodeId>,
    /// `replicas[start[b]..start[b + 1]]` are block b's replicas.
    start: Vec<u32>,
}

impl DatasetBlocks {
    /// Build from per-block replica lists.
    pub fn new(name: &str, sizes_mb: Vec<f64>, replicas: &[Vec<NodeId>]) -> DatasetBlocks {
        let mut flat = Vec::with_capacity(replicas.iter().map(|r| r.len()).sum());
        let mut start = Vec::with_capacity(replicas.len() + 1);
        start.push(0);
        for r in replicas {
            flat.extend_from_slice(r);
            start.push(flat.len() as u32);
        }
        DatasetBlocks {
            name: name.to_string(),
            sizes_mb,
            replicas: flat,
            start,
        }
    }

    /// Build from replicas stored block after block, `per_block` each.
    pub fn from_flat(
        name: &str,
        sizes_mb: Vec<f64>,
        replicas: Vec<NodeId>,
        per_block: usize,
    ) -> DatasetBlocks {
        let start = (0..=sizes_mb.len())
            .map(|b| (b * per_block) as u32)
            .collect();
        DatasetBlocks {
            name: name.to_string(),
            sizes_mb,
            replicas,
            start,
        }
    }

    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.sizes_mb.len()
    }

    /// True when the dataset has no blocks.
    pub fn is_empty(&self) -> bool {
        self.sizes_mb.is_empty()
    }

    /// Replica nodes of block `b`.
    pub fn replicas(&self, b: u32) -> &[NodeId] {
        let b = b as usize;
        if b + 1 >= self.start.len() {
            return &[];
        }
        &self.replicas[self.start[b] as usize..self.start[b + 1] as usize]
    }
}

/// Every dataset's replica locations.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct BlockMap {
    datasets: Vec<DatasetBlocks>,
}

impl BlockMap {
    /// Add a dataset; returns its id.
    pub fn add(&mut self, d: DatasetBlocks) -> DatasetId {
        self.datasets.push(d);
        DatasetId(self.datasets.len() as u32 - 1)
    }
    /// A dataset.
    pub fn dataset(&self, d: DatasetId) -> Option<&DatasetBlocks> {
        self.datasets.get(d.idx())
    }
    /// Replica nodes of a block (empty when unknown).
    pub fn replicas(&self, b: BlockRef) -> &[NodeId] {
        self.datasets
            .get(b.dataset.idx())
            .map(|d| d.replicas(b.index))
            .unwrap_or(&[])
    }
    /// Number of datasets.
    pub fn len(&self) -> usize {
        self.datasets.len()
    }
    /// True when no dataset is known.
    pub fn is_empty(&self) -> bool {
        self.datasets.is_empty()
    }
    /// Find a dataset by name.
    pub fn find(&self, name: &str) -> Option<DatasetId> {
        self.datasets
            .iter()
            .position(|d| d.name == name)
            .map(|i| DatasetId(i as u32))
    }
}
