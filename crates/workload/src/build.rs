//! Small helpers generators share to assemble resolved workloads.

use mrsched_model::workload::CostParams;
use mrsched_model::{
    BlockRef, BlockSizes, Dataset, DatasetId, JobSpec, MapSpec, MapSpecs, ReduceSpec, Time,
    Workload,
};
use std::sync::Arc;

/// Accumulates datasets and jobs.
#[derive(Default)]
pub struct WorkloadBuilder {
    w: Workload,
}

impl WorkloadBuilder {
    /// An empty workload called `name`.
    pub fn new(name: &str) -> Self {
        WorkloadBuilder {
            w: Workload {
                name: name.to_string(),
                ..Default::default()
            },
        }
    }

    /// Add a dataset of `blocks` blocks of `block_mb` (the last one
    /// `last_mb`), replicated `replication` times.
    pub fn dataset(
        &mut self,
        name: &str,
        sizes_mb: impl Into<BlockSizes>,
        replication: u32,
    ) -> DatasetId {
        self.w.datasets.push(Dataset {
            name: name.to_string(),
            blocks_mb: sizes_mb.into(),
            replication,
        });
        DatasetId(self.w.datasets.len() as u32 - 1)
    }

    /// Find a dataset by name.
    pub fn find(&self, name: &str) -> Option<DatasetId> {
        self.w
            .datasets
            .iter()
            .position(|d| d.name == name)
            .map(|i| DatasetId(i as u32))
    }

    /// A job reading `inputs` with `reduces` cost-model reduces.
    pub fn data_job(
        &mut self,
        name: String,
        arrival: Time,
        inputs: &[DatasetId],
        reduces: usize,
        cost: CostParams,
    ) -> &mut JobSpec {
        let mut j = JobSpec::explicit(&name, arrival, &[], &[], 1.0);
        j.input = inputs.to_vec();
        // One dataset read whole: the maps are its blocks (no list; see
        // `MapSpecs`).
        if let [d] = inputs {
            let sizes = self.w.datasets[d.idx()].blocks_mb.clone();
            j.maps = MapSpecs::blocks(*d, sizes);
        }
        for &d in inputs.iter().filter(|_| inputs.len() > 1) {
            for (b, mb) in self.w.datasets[d.idx()].blocks_mb.iter().enumerate() {
                j.maps.push(MapSpec {
                    block: Some(BlockRef {
                        dataset: d,
                        index: b as u32,
                    }),
                    input_mb: mb,
                    time: None,
                });
            }
        }
        j.reduces = vec![ReduceSpec { time: None }; reduces];
        j.cost = cost;
        self.push(j)
    }

    /// A job with explicit task times and no input data.
    pub fn explicit_job(
        &mut self,
        name: String,
        arrival: Time,
        maps: &[f64],
        reduces: &[f64],
        weight: f64,
    ) -> &mut JobSpec {
        self.push(JobSpec::explicit(&name, arrival, maps, reduces, weight))
    }

    /// Add `j` and lend it back for further settings (it is not shared yet).
    fn push(&mut self, j: JobSpec) -> &mut JobSpec {
        self.w.jobs.push(Arc::new(j));
        Arc::make_mut(self.w.jobs.last_mut().expect("just pushed"))
    }

    /// The workload built so far.
    pub fn build_ref(&self) -> &Workload {
        &self.w
    }

    /// Finish: jobs sorted by arrival (stable).
    pub fn build(mut self) -> Workload {
        self.w.jobs.sort_by_key(|j| j.arrival);
        self.w
    }
}

/// `n` blocks of `block_mb` covering `size_mb` (the last block smaller).
pub fn blocks(size_mb: f64, block_mb: f64) -> BlockSizes {
    let n = (size_mb / block_mb).ceil().max(1.0) as usize;
    let last = size_mb - block_mb * (n as f64 - 1.0);
    let last = if last > 0.0 {
        last
    } else {
        block_mb.min(size_mb.max(1e-6))
    };
    BlockSizes::uniform(n, block_mb, last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_cover_size() {
        assert_eq!(blocks(300.0, 128.0).to_vec(), vec![128.0, 128.0, 44.0]);
        assert_eq!(blocks(256.0, 128.0).to_vec(), vec![128.0, 128.0]);
        assert_eq!(blocks(0.01, 128.0).to_vec(), vec![0.01]);
    }
}
