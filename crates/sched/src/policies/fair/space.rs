//! Intermediate space (seed 002 §5.4): map outputs stay on their node's
//! disk until their job ends, and a node's disk (`disk_mb` in the cluster
//! file) can fill.
//!
//! * **Admission** (Hadoop's safeguard): a map is not launched on a node
//!   whose held outputs, plus the expected outputs of the maps running
//!   there, plus this map's output would exceed its disk.
//! * **Eviction.** Two jobs can then deadlock: the disk fills before either
//!   finishes. When a job is refused for space on a node, the outputs there
//!   of one job that ranks *below* it are deleted (`Action::EvictOutputs`);
//!   the victim's maps run again later. The rank is fixed by a heuristic
//!   that lets some job progress monotonically, as the paper requires:
//!   earliest submitted first (the victim is the latest submitted), or most
//!   progress first (the victim has the least progress, ties to the latest
//!   submitted). A job never evicts one ranked above it, so the top-ranked
//!   job always gets space and finishes. Evicting the job using the most
//!   space is *not* offered: the paper shows it can livelock (new jobs keep
//!   evicting old ones just before they finish).

use mrsched_model::{cost, JobId, NodeId, TaskKind, Time};
use mrsched_state::ClusterState;
use rustc_hash::FxHashMap;

/// Victim heuristic.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Victim {
    /// Evict the job submitted latest.
    #[default]
    LatestSubmitted,
    /// Evict the job with the least progress (fraction of tasks done).
    LeastProgress,
}

/// Intermediate-space accounting and eviction.
#[derive(Clone, Debug)]
pub struct Space {
    /// Any node has a disk limit.
    pub enabled: bool,
    victim: Victim,
    pending: Vec<(JobId, NodeId)>,
    /// The largest output of any map of any job admitted, MB: with the
    /// number of maps running on a node it bounds their outputs, so most
    /// checks need not add them up.
    max_out: f64,
    /// Per job (by index), the smallest output of any of its maps, MB
    /// (`-inf` until noted): a node without room for it has room for
    /// none of the job's maps ([`Space::fits_none`]).
    min_out: Vec<f64>,
    /// Earliest time a node is examined again for a victim.
    next_look: FxHashMap<NodeId, Time>,
    /// Map launches refused for space.
    pub refusals: u64,
    /// Evictions asked for.
    pub evictions: u64,
}

fn progress(st: &ClusterState, j: JobId) -> f64 {
    let job = st.job(j);
    let total = (job.maps.len() + job.reduces.len()).max(1) as f64;
    (job.map_counts.done + job.reduce_counts.done) as f64 / total
}

impl Space {
    /// Space management for a cluster (off when no node has a disk limit).
    pub fn new(st_disks: bool, victim: Victim) -> Space {
        Space {
            enabled: st_disks,
            victim,
            pending: Vec::new(),
            max_out: 0.0,
            min_out: Vec::new(),
            next_look: FxHashMap::default(),
            refusals: 0,
            evictions: 0,
        }
    }

    /// Note the map outputs of job `j` (admitted, or given more maps).
    pub fn note_job(&mut self, st: &ClusterState, j: JobId) {
        let spec = &st.job(j).spec;
        if self.enabled && !spec.reduces.is_empty() {
            let mut min = f64::INFINITY;
            for m in spec.maps.iter() {
                let out = cost::map_output_mb(spec, &m);
                self.max_out = self.max_out.max(out);
                min = min.min(out);
            }
            if self.min_out.len() <= j.idx() {
                self.min_out.resize(j.idx() + 1, f64::NEG_INFINITY);
            }
            self.min_out[j.idx()] = min;
        }
    }

    /// Whether map `task` of `job` fits on `node`'s disk.
    pub fn fits(&self, st: &ClusterState, node: NodeId, job: JobId, task: u32) -> bool {
        self.fits_with(st, node, job, task, &mut None)
    }

    /// [`Space::fits`] within one walk over the jobs for `node`: `used`
    /// keeps the node's held outputs plus its running maps' outputs, the
    /// same for every job of the walk, once added up.
    pub fn fits_with(
        &self,
        st: &ClusterState,
        node: NodeId,
        job: JobId,
        task: u32,
        used: &mut Option<f64>,
    ) -> bool {
        let Some(cap) = self.disk_of(st, node) else {
            return true;
        };
        let spec = &st.job(job).spec;
        if spec.reduces.is_empty() {
            return true;
        }
        let out = cost::map_output_mb(spec, &spec.maps.at(task as usize));
        self.room_for(st, node, cap, out, used)
    }

    /// Whether no map of `job` fits on `node`'s disk, whichever is
    /// pending: not even its smallest output ([`Space::fits_with`] is
    /// monotone in the output, so this is its answer for every map).
    /// Lets a walk refuse a job without looking up which map it would run.
    pub fn fits_none(
        &self,
        st: &ClusterState,
        node: NodeId,
        job: JobId,
        used: &mut Option<f64>,
    ) -> bool {
        let Some(cap) = self.disk_of(st, node) else {
            return false;
        };
        // Only jobs with reduces (map-only ones store nothing) and maps
        // have a finite minimum (`note_job`).
        match self.min_out.get(job.idx()) {
            Some(&min) if min.is_finite() => !self.room_for(st, node, cap, min, used),
            _ => false,
        }
    }

    /// `node`'s disk, MB, when space is managed and it has a limit.
    fn disk_of(&self, st: &ClusterState, node: NodeId) -> Option<f64> {
        self.enabled.then(|| st.disk_mb(node)).flatten()
    }

    /// Whether an output of `out` MB fits on `node` (disk `cap`).
    fn room_for(
        &self,
        st: &ClusterState,
        node: NodeId,
        cap: f64,
        out: f64,
        used: &mut Option<f64>,
    ) -> bool {
        // The Fair Scheduler launches one task per map attempt, each of a
        // noted job: the running maps' outputs are at most `max_out` each.
        // Without the tolerance, so the exact sum below could not differ.
        let held = st.intermediate_on(node);
        if held + out + st.slots(node).running_maps as f64 * self.max_out <= cap {
            return true;
        }
        let used = *used.get_or_insert_with(|| {
            let running: f64 = st
                .attempts_on(node)
                .filter(|a| a.kind == TaskKind::Map)
                .flat_map(|a| a.tasks())
                .map(|t| {
                    let s = &st.job(t.job).spec;
                    if s.reduces.is_empty() {
                        0.0
                    } else {
                        cost::map_output_mb(s, &s.maps.at(t.index as usize))
                    }
                })
                .sum();
            held + running
        });
        used + out <= cap + 1e-6
    }

    /// Rank key: lower is more favoured.
    fn rank(&self, st: &ClusterState, j: JobId) -> (f64, mrsched_model::Time, JobId) {
        let job = st.job(j);
        match self.victim {
            Victim::LatestSubmitted => (0.0, job.submitted, j),
            Victim::LeastProgress => (-progress(st, j), job.submitted, j),
        }
    }

    /// `job` was refused for space on `node`: pick a victim ranked below it
    /// that holds outputs there.
    pub fn refused(&mut self, st: &ClusterState, node: NodeId, job: JobId, retry: Time) {
        self.refusals += 1;
        let now = st.now();
        if self.next_look.get(&node).is_some_and(|t| *t > now)
            || self.pending.iter().any(|(_, n)| *n == node)
        {
            return;
        }
        self.next_look.insert(node, now + retry);
        let me = self.rank(st, job);
        // The distinct holders, ascending (on a full disk, tens of jobs
        // behind thousands of outputs).
        let victim = st
            .holders_on(node)
            .filter(|&j| j != job && st.job(j).is_running())
            .map(|j| (self.rank(st, j), j))
            .filter(|(r, _)| r.partial_cmp(&me) == Some(std::cmp::Ordering::Greater))
            .max_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal));
        if let Some((_, v)) = victim {
            self.pending.push((v, node));
        }
    }

    /// Whether evictions wait for `take`.
    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// The evictions to carry out now.
    pub fn take(&mut self) -> Vec<(JobId, NodeId)> {
        self.evictions += self.pending.len() as u64;
        std::mem::take(&mut self.pending)
    }
}
