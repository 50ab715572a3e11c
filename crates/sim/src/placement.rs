//! Block placement on demand: replicas are chosen when the first job that
//! reads a dataset arrives, and forgotten when the last one has ended.
//!
//! Why: a SWIM day scaled to a large cluster has millions of input blocks,
//! and their replica lists (a node id per replica) placed up front are held
//! the whole day, though a job reads its input only while it runs. At scale
//! 40 that was the largest single allocation of the run.
//!
//! Why it changes nothing: placement draws from one seeded stream, dataset
//! after dataset in workload order, and reads nothing but the cluster's
//! fixed layout. So datasets are placed in that same order, each together
//! with every earlier one not yet placed (read by a job or not): every
//! block gets the replicas it would have got up front. Every dataset is
//! registered at the start with its number of blocks, so what policies see
//! of the block map before a dataset is placed (how many datasets, how many
//! blocks each) is what they saw before.

use mrsched_model::rng::{self, Rng};
use mrsched_model::{Cluster, DatasetId, JobSpec, Workload};
use mrsched_state::{ClusterState, DatasetBlocks};

/// Where the run is in placing the workload's datasets.
pub(crate) struct Placement {
    rng: Rng,
    /// Datasets `0..placed` have been placed.
    placed: usize,
    /// Jobs that read each dataset and have not ended.
    readers: Vec<u32>,
    /// Forget a dataset's replicas once its readers have all ended.
    forget: bool,
}

impl Placement {
    /// Register every dataset of `workload` with `st`, none placed yet.
    /// With `forget`, a dataset's replicas are dropped after its last
    /// reader ends ([`Placement::job_ended`]).
    pub(crate) fn new(
        st: &mut ClusterState,
        workload: &Workload,
        seed: u64,
        forget: bool,
    ) -> Placement {
        for d in &workload.datasets {
            st.add_dataset(DatasetBlocks::from_flat(
                &d.name,
                d.blocks_mb.len(),
                Vec::new(),
                0,
            ));
        }
        let mut readers = vec![0u32; workload.datasets.len()];
        let mut seen = Vec::new();
        for j in &workload.jobs {
            datasets_of(j, &mut seen);
            for d in &seen {
                if let Some(r) = readers.get_mut(d.idx()) {
                    *r += 1;
                }
            }
        }
        Placement {
            rng: rng::stream(seed, "placement"),
            placed: 0,
            readers,
            forget,
        }
    }

    /// Place every dataset `job` reads (and every earlier one) before it is
    /// submitted.
    pub(crate) fn job_arrives(
        &mut self,
        st: &mut ClusterState,
        cluster: &Cluster,
        workload: &Workload,
        job: &JobSpec,
    ) {
        let mut seen = Vec::new();
        datasets_of(job, &mut seen);
        let through = seen.iter().map(|d| d.idx() + 1).max().unwrap_or(0);
        while self.placed < through.min(workload.datasets.len()) {
            let i = self.placed;
            let (reps, r) = mrsched_model::placement::place_dataset_flat(
                cluster,
                &workload.datasets[i],
                None,
                &mut self.rng,
            );
            // A dataset no job reads is placed only to keep the stream in
            // step.
            if !self.forget || self.readers[i] > 0 {
                st.place_dataset(DatasetId(i as u32), reps, r);
            }
            self.placed += 1;
        }
    }

    /// A job ended (its task records released): forget the replicas of the
    /// datasets no job will read any more.
    pub(crate) fn job_ended(&mut self, st: &mut ClusterState, job: &JobSpec) {
        if !self.forget {
            return;
        }
        let mut seen = Vec::new();
        datasets_of(job, &mut seen);
        for d in seen {
            let Some(r) = self.readers.get_mut(d.idx()) else {
                continue;
            };
            *r = r.saturating_sub(1);
            if *r == 0 {
                st.forget_replicas(d);
            }
        }
    }
}

/// The datasets `job` reads, each once, into `out`: its inputs and the
/// datasets of its maps' blocks.
fn datasets_of(job: &JobSpec, out: &mut Vec<DatasetId>) {
    out.clear();
    out.extend_from_slice(&job.input);
    if let Some(d) = job.maps.whole_dataset() {
        out.push(d);
    } else {
        for m in job.maps.iter() {
            if let Some(b) = m.block {
                if out.last() != Some(&b.dataset) {
                    out.push(b.dataset);
                }
            }
        }
    }
    out.sort_unstable();
    out.dedup();
}

#[cfg(test)]
mod tests {
    use super::*;
    use mrsched_model::{BlockRef, Time};
    use mrsched_workload::build::{blocks, WorkloadBuilder};
    use mrsched_workload::catalog;
    use std::sync::Arc;

    /// Three datasets; job 0 reads `a`, job 1 reads `c` and job 2 reads
    /// `c` again (`b` is read by no job).
    fn workload() -> Workload {
        let mut w = WorkloadBuilder::new("w");
        let a = w.dataset("a", blocks(300.0, 128.0), 3);
        let _b = w.dataset("b", blocks(500.0, 128.0), 2);
        let c = w.dataset("c", vec![10.0, 20.0], 3);
        let cost = mrsched_model::workload::CostParams {
            map_cpu_s_per_mb: 0.01,
            map_output_ratio: 1.0,
            reduce_cpu_s_per_mb: 0.01,
            reduce_output_ratio: 1.0,
        };
        w.data_job("j0".into(), Time::from_secs(0), &[a], 0, cost);
        w.data_job("j1".into(), Time::from_secs(1), &[c], 1, cost);
        w.data_job("j2".into(), Time::from_secs(2), &[c], 0, cost);
        w.build()
    }

    fn replicas(st: &ClusterState, d: u32, b: u32) -> Vec<mrsched_model::NodeId> {
        st.blocks()
            .replicas(BlockRef {
                dataset: DatasetId(d),
                index: b,
            })
            .to_vec()
    }

    #[test]
    fn datasets_placed_on_arrival_get_the_replicas_of_an_up_front_placement() {
        let cluster = catalog::cluster("fb-600").unwrap();
        let w = workload();
        // Up front, as a whole: one stream, dataset after dataset.
        let mut rng = rng::stream(9, "placement");
        let up_front: Vec<Vec<_>> = w
            .datasets
            .iter()
            .map(|d| mrsched_model::placement::place_dataset(&cluster, d, None, &mut rng))
            .collect();

        let mut st = ClusterState::new(cluster.clone());
        let mut p = Placement::new(&mut st, &w, 9, true);
        assert_eq!(st.blocks().len(), 3, "every dataset is known at once");
        assert_eq!(st.blocks().dataset(DatasetId(1)).unwrap().len(), 4);
        assert!(replicas(&st, 0, 0).is_empty(), "nothing placed yet");

        // Job 1 reads `c` only: `a` and `b` are placed before it, in order.
        p.job_arrives(&mut st, &cluster, &w, &Arc::clone(&w.jobs[1]));
        for b in 0..3 {
            assert_eq!(replicas(&st, 0, b), up_front[0][b as usize]);
        }
        assert!(replicas(&st, 1, 0).is_empty(), "read by no job: not kept");
        for b in 0..2 {
            assert_eq!(replicas(&st, 2, b), up_front[2][b as usize]);
            assert_eq!(replicas(&st, 2, b).len(), 3);
        }
    }

    #[test]
    fn replicas_are_forgotten_when_the_last_reader_ends_and_only_then() {
        let cluster = catalog::cluster("fb-600").unwrap();
        let w = workload();
        let mut st = ClusterState::new(cluster.clone());
        let mut p = Placement::new(&mut st, &w, 1, true);
        for j in &w.jobs {
            p.job_arrives(&mut st, &cluster, &w, j);
        }
        p.job_ended(&mut st, &w.jobs[1]);
        assert_eq!(replicas(&st, 2, 1).len(), 3, "job 2 still reads `c`");
        p.job_ended(&mut st, &w.jobs[2]);
        assert!(replicas(&st, 2, 1).is_empty());
        assert_eq!(st.blocks().dataset(DatasetId(2)).unwrap().len(), 2);
        assert_eq!(replicas(&st, 0, 0).len(), 3, "job 0 has not ended");

        // Without forgetting, every dataset keeps its replicas.
        let mut st = ClusterState::new(cluster.clone());
        let mut p = Placement::new(&mut st, &w, 1, false);
        for j in &w.jobs {
            p.job_arrives(&mut st, &cluster, &w, j);
            p.job_ended(&mut st, j);
        }
        for d in 0..3 {
            assert_eq!(replicas(&st, d, 0).len(), if d == 1 { 2 } else { 3 });
        }
    }
}
