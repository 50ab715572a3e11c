//! Where block replicas are: the master's view of the block store.

use mrsched_model::{BlockRef, DatasetId, NodeId};
use serde::{Deserialize, Serialize};

/// Replica locations of one dataset's blocks, stored flat.
///
/// Block sizes are not kept (the workload has them); a dataset placed with
/// the same number of replicas per block, as the simulator places them,
/// needs no offsets either: over a day-long trace that is a third less
/// memory per block and one memory access less per replica lookup.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct DatasetBlocks {
    /// Dataset name.
    pub name: String,
    /// Number of blocks.
    blocks: usize,
    /// All replicas, block after block.
    replicas: Vec<NodeId>,
    /// Where each block's replicas are.
    layout: Layout,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
enum Layout {
    /// Block b's replicas are `replicas[b * k..(b + 1) * k]`.
    PerBlock(usize),
    /// `replicas[start[b]..start[b + 1]]` are block b's replicas.
    Offsets(Vec<u32>),
}

impl Default for Layout {
    fn default() -> Self {
        Layout::PerBlock(0)
    }
}

impl DatasetBlocks {
    /// Build from per-block replica lists (one list per block; the sizes
    /// give the number of blocks).
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
            blocks: sizes_mb.len(),
            replicas: flat,
            layout: Layout::Offsets(start),
        }
    }

    /// Build from replicas stored block after block, `per_block` each, for
    /// `blocks` blocks.
    pub fn from_flat(
        name: &str,
        blocks: usize,
        replicas: Vec<NodeId>,
        per_block: usize,
    ) -> DatasetBlocks {
        debug_assert_eq!(replicas.len(), blocks * per_block);
        DatasetBlocks {
            name: name.to_string(),
            blocks,
            replicas,
            layout: Layout::PerBlock(per_block),
        }
    }

    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.blocks
    }

    /// True when the dataset has no blocks.
    pub fn is_empty(&self) -> bool {
        self.blocks == 0
    }

    /// Give the blocks replicas stored block after block, `per_block`
    /// each (a dataset registered before it was placed).
    pub fn place(&mut self, replicas: Vec<NodeId>, per_block: usize) {
        debug_assert_eq!(replicas.len(), self.blocks * per_block);
        self.replicas = replicas;
        self.layout = Layout::PerBlock(per_block);
    }

    /// Forget where the replicas are, keeping the number of blocks: for a
    /// dataset no job will read again, whose replica lists over a day would
    /// otherwise all be held to the end. Every block then has none.
    pub fn forget_replicas(&mut self) {
        self.replicas = Vec::new();
        self.layout = Layout::PerBlock(0);
    }

    /// Replica nodes of block `b`.
    #[inline]
    pub fn replicas(&self, b: u32) -> &[NodeId] {
        let b = b as usize;
        if b >= self.blocks {
            return &[];
        }
        match &self.layout {
            Layout::PerBlock(k) => &self.replicas[b * k..(b + 1) * k],
            Layout::Offsets(start) => &self.replicas[start[b] as usize..start[b + 1] as usize],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_layouts_find_each_blocks_replicas() {
        let n = |i: u32| NodeId(i);
        let flat = DatasetBlocks::from_flat("f", 3, vec![n(0), n(1), n(2), n(3), n(4), n(5)], 2);
        assert_eq!(flat.len(), 3);
        assert_eq!(flat.replicas(1), &[n(2), n(3)]);
        assert_eq!(flat.replicas(2), &[n(4), n(5)]);
        assert!(flat.replicas(3).is_empty());
        let lists = DatasetBlocks::new("l", vec![1.0; 3], &[vec![n(0)], vec![], vec![n(1), n(2)]]);
        assert_eq!(lists.len(), 3);
        assert_eq!(lists.replicas(0), &[n(0)]);
        assert!(lists.replicas(1).is_empty());
        assert_eq!(lists.replicas(2), &[n(1), n(2)]);
        assert!(lists.replicas(7).is_empty());
        assert!(DatasetBlocks::default().replicas(0).is_empty());
    }

    #[test]
    fn a_dataset_is_placed_after_it_is_registered_and_forgotten_after_use() {
        let n = |i: u32| NodeId(i);
        let mut d = DatasetBlocks::from_flat("later", 2, Vec::new(), 0);
        assert_eq!(d.len(), 2);
        assert!(d.replicas(0).is_empty());
        d.place(vec![n(4), n(5), n(6), n(7)], 2);
        assert_eq!(d.replicas(1), &[n(6), n(7)]);
        d.forget_replicas();
        assert_eq!(d.len(), 2, "the number of blocks stays");
        assert!(d.replicas(0).is_empty() && d.replicas(1).is_empty());
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
    /// A dataset, to place or forget its replicas.
    pub fn dataset_mut(&mut self, d: DatasetId) -> Option<&mut DatasetBlocks> {
        self.datasets.get_mut(d.idx())
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
