//! Cyclic piggybacking on the cluster state (seed 000 §2.2, Appendix C).
//!
//! Per dataset, the active scanning jobs are `ClusterState::scanners`, and
//! each job's per-block bit is the status of its map task for that block
//! (done = scanned for that job). From these bits:
//!
//! * [`ClusterView`] turns the remaining work of the planned jobs into
//!   atoms (one per block still needed by some planned job) for the
//!   [`Decomposer`], so the allocation layer sees the subjobs;
//! * [`riders`] gives, for a block a driving job is about to scan, every
//!   other scanning job that still needs it: one physical attempt (the
//!   C-mapper) serves them all, and no job's block is ever scanned twice
//!   because a task that is running or done is not pending.
//!
//! Blocks are visited in index order, but the scan order inside a subjob is
//! left to the assignment layer (locality, delay scheduling), as §2.2 says
//! it should be: "within a subjob, the scanning order of the blocks is
//! essentially immaterial".

use super::metric::JobTerms;
use super::problem::PlanJob;
use super::subjobs::{Decomposer, Need};
use mrsched_model::cost;
use mrsched_model::{Cluster, JobId, JobSpec, Locality, Node, Time};
use mrsched_state::{ClusterState, TaskStatus};
use rustc_hash::FxHashMap;

/// What the allocation layer keeps about a job (computed at admission).
#[derive(Clone, Debug)]
pub struct JobInfo {
    /// Metric terms.
    pub terms: JobTerms,
    /// Minimum slots.
    pub min: u32,
    /// Maximum slots.
    pub max: u32,
    /// Per map task: `(scan, compute)` seconds on a reference node, read
    /// locally (the shared and the per-job part of its work).
    pub costs: Vec<(f64, f64)>,
}

/// A speed-1 node for work estimates (task times are given at speed 1).
pub fn reference_node() -> Node {
    Node {
        name: String::new(),
        rack: mrsched_model::RackId(0),
        group: String::new(),
        slots: mrsched_model::cluster::SlotConfig::Unified { slots: 1 },
        max_reducers: 1,
        speed: 1.0,
        disk_mb: None,
    }
}

impl JobInfo {
    /// Work estimates of `spec` from the cost model: its declared task
    /// times, or its bytes read locally (the scheduler knows what the
    /// workload declares, as FLEX assumes known work estimates).
    pub fn new(cluster: &Cluster, spec: &JobSpec, default_min: u32, reference: &Node) -> JobInfo {
        let costs = spec
            .maps
            .iter()
            .map(|m| {
                let c = cost::map_cost(cluster, spec, &m, reference, Locality::Node);
                (c.scan.as_secs_f64(), c.compute.as_secs_f64())
            })
            .collect();
        JobInfo {
            terms: JobTerms {
                arrival: spec.arrival.as_secs_f64(),
                weight: spec.weight,
                standalone: cost::ideal_time(cluster, spec).as_secs_f64(),
                deadline: spec.deadline.map(|d| d.as_secs_f64()),
            },
            min: spec.min_slots.unwrap_or(default_min),
            max: spec.max_slots.unwrap_or(u32::MAX),
            costs,
        }
    }
}

/// The planned jobs' remaining map work, read from the cluster state.
pub struct ClusterView<'a> {
    /// The state.
    pub st: &'a ClusterState,
    /// Planned jobs (problem job `i` is `jobs[i]`).
    pub jobs: &'a [JobId],
    /// Their cached information, same order.
    pub info: &'a [&'a JobInfo],
}

impl ClusterView<'_> {
    /// Feed every block some planned job still needs to `dec`, and return
    /// the problem's jobs. `local` maps a job id to its index in
    /// `self.jobs` (`u32::MAX`: not planned); it must cover every job id.
    pub fn atoms(&self, dec: &mut Decomposer, local: &[u32]) -> Vec<PlanJob> {
        let st = self.st;
        let now = st.now();
        let overhead = st.cluster().task_overhead.as_secs_f64();
        let mut needs: Vec<Need> = Vec::new();
        let mut readers: Vec<(u32, u32)> = Vec::new();
        // Start of the attempt running each planned job's running maps
        // (driving or riding).
        let mut started: FxHashMap<(JobId, u32), Time> = FxHashMap::default();
        for &j in self.jobs {
            for a in st.running_attempts_of(j) {
                for t in a.tasks().filter(|t| t.job == j) {
                    started.insert((j, t.index), a.start);
                }
            }
        }
        let mut atom = 0u32;
        for d in 0..st.blocks().len() {
            let dataset = mrsched_model::DatasetId(d as u32);
            readers.clear();
            for &j in st.scanners(dataset) {
                let l = local.get(j.idx()).copied().unwrap_or(u32::MAX);
                if l == u32::MAX {
                    continue;
                }
                if let Some(off) = st.job(j).map_for_block(dataset, 0) {
                    readers.push((l, off));
                }
            }
            if readers.is_empty() {
                continue;
            }
            readers.sort_unstable();
            let blocks = st.blocks().dataset(dataset).map_or(0, |b| b.len());
            for b in 0..blocks as u32 {
                needs.clear();
                let mut left = 1.0f64;
                for &(l, off) in &readers {
                    let job = st.job(self.jobs[l as usize]);
                    let t = off + b;
                    let Some(task) = job.maps.get(t as usize) else {
                        continue;
                    };
                    debug_assert_eq!(
                        job.spec.maps.at(t as usize).block.map(|r| r.index),
                        Some(b),
                        "a dataset's maps are contiguous"
                    );
                    if task.status == TaskStatus::Done {
                        continue;
                    }
                    let (scan, compute) = self.info[l as usize].costs[t as usize];
                    needs.push(Need {
                        job: l,
                        scan,
                        compute,
                    });
                    if task.status == TaskStatus::Running {
                        // Part of the block is already read: the running
                        // attempt's elapsed share of the work is done.
                        if let Some(&start) = started.get(&(job.id, t)) {
                            let expected = overhead + scan + compute;
                            let done = (now - start).as_secs_f64() / expected.max(1e-9);
                            left = left.min((1.0 - done).clamp(0.05, 1.0));
                        }
                    }
                }
                if !needs.is_empty() {
                    dec.add(atom, Some(d as u32), &needs, left);
                }
                atom += 1;
            }
        }
        // Data-less maps: nothing to share.
        for (l, &j) in self.jobs.iter().enumerate() {
            let job = st.job(j);
            for (t, m) in job.spec.maps.iter().enumerate() {
                if m.block.is_some() || job.maps[t].status == TaskStatus::Done {
                    continue;
                }
                let (scan, compute) = self.info[l].costs[t];
                dec.add(
                    atom,
                    None,
                    &[Need {
                        job: l as u32,
                        scan,
                        compute,
                    }],
                    1.0,
                );
                atom += 1;
            }
        }
        self.info
            .iter()
            .map(|i| PlanJob {
                terms: i.terms,
                min: i.min,
                max: i.max,
            })
            .collect()
    }
}

/// Every scanning job other than `driver` that still needs the block map
/// `task` of `driver` reads, among those `accept` allows: the riders of one
/// shared attempt. Empty for a data-less map.
pub fn riders(
    st: &ClusterState,
    driver: JobId,
    task: u32,
    mut accept: impl FnMut(JobId) -> bool,
) -> Vec<(JobId, u32)> {
    let Some(block) = st
        .job(driver)
        .spec
        .maps
        .get(task as usize)
        .and_then(|m| m.block)
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for &j in st.scanners(block.dataset) {
        if j == driver || !accept(j) {
            continue;
        }
        let job = st.job(j);
        if let Some(t) = job.map_for_block(block.dataset, block.index) {
            if job.maps[t as usize].status == TaskStatus::Pending {
                out.push((j, t));
            }
        }
    }
    out
}
