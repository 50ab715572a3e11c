//! The Job Status Updater: what the estimators know of each job.
//!
//! Seed 003 §III-C: on every task completion the TaskTracker notifies the Job
//! Status Updater, which updates the job's pending tasks and keeps the mean
//! observed task length μ_j. The cluster state already keeps exactly these
//! counters at every completion (`Job::map_counts`, `Job::stats`), so the
//! updater is a view of it taken at each control cycle, plus the job's
//! profile for the time before any map has finished.

use mrsched_model::cost;
use mrsched_model::{Cluster, JobId, JobSpec, Locality, Node, RackId, SlotConfig, TaskKind, Time};
use mrsched_state::ClusterState;
use rustc_hash::FxHashMap;

/// One job as the estimators see it at a control cycle.
#[derive(Clone, Debug, PartialEq)]
pub struct JobRow {
    /// The job.
    pub job: JobId,
    /// Absolute completion-time goal; `None` for best-effort jobs.
    pub goal: Option<Time>,
    /// Submission time (orders best-effort jobs).
    pub submitted: Time,
    /// s_pend: map tasks not yet started.
    pub pending: u32,
    /// Map tasks running now.
    pub running: u32,
    /// μ: mean observed map length, seconds (the profile's until one ends).
    pub mean_map_s: f64,
    /// Expected time left of the running maps, seconds in total
    /// (`max(μ - elapsed, 0)` each); used by predictions only.
    pub running_left_s: f64,
    /// The longest of those, seconds.
    pub running_max_left_s: f64,
}

impl JobRow {
    /// The most map slots the job can use in the next cycle: its running
    /// maps plus every pending one. This is the `s_pend` of the utility's
    /// upper branch (prior work §1.2) counted with the tasks already running,
    /// because allocations count running tasks too.
    pub fn max_slots(&self) -> u32 {
        self.pending + self.running
    }

    /// Pending work, slot-seconds: `s_pend x μ`.
    pub fn pending_work_s(&self) -> f64 {
        self.pending as f64 * self.mean_map_s
    }

    /// Remaining work, slot-seconds: pending work plus what the running
    /// maps still need.
    pub fn remaining_work_s(&self) -> f64 {
        self.pending_work_s() + self.running_left_s
    }

    /// The job cannot end sooner than this many seconds from now: one more
    /// map time if a map is pending, else its longest running map's rest.
    pub fn floor_s(&self) -> f64 {
        if self.pending > 0 {
            self.mean_map_s
        } else {
            self.running_max_left_s
        }
    }
}

/// Keeps each job's profile and builds [`JobRow`]s.
#[derive(Debug, Default)]
pub struct StatusUpdater {
    profile: FxHashMap<JobId, f64>,
}

impl StatusUpdater {
    /// A job was admitted: remember its profile's map time.
    pub fn admitted(&mut self, st: &ClusterState, j: JobId) {
        let mu = profile_map_s(st.cluster(), &st.job(j).spec);
        self.profile.insert(j, mu);
    }

    /// A job ended.
    pub fn ended(&mut self, j: JobId) {
        self.profile.remove(&j);
    }

    /// The job as the estimators see it now.
    pub fn row(&self, st: &ClusterState, j: JobId) -> JobRow {
        let job = st.job(j);
        let mu = match job.stats.mean_map() {
            Some(m) => m.as_secs_f64(),
            None => self
                .profile
                .get(&j)
                .copied()
                .unwrap_or_else(|| profile_map_s(st.cluster(), &job.spec)),
        };
        let now = st.now();
        let (mut running_left_s, mut running_max_left_s) = (0.0, 0.0f64);
        for a in st
            .running_attempts_of(j)
            .filter(|a| a.kind == TaskKind::Map)
        {
            let left = (mu - a.elapsed(now).as_secs_f64()).max(0.0);
            running_left_s += left;
            running_max_left_s = running_max_left_s.max(left);
        }
        JobRow {
            job: j,
            goal: job.spec.abs_goal(),
            submitted: job.submitted,
            pending: job.map_counts.pending,
            running: job.map_counts.running,
            mean_map_s: mu,
            running_left_s,
            running_max_left_s,
        }
    }
}

/// The job profile's map time, seconds: `expected_map_s` when the workload
/// gives it; otherwise the mean over the job's maps of a node-local attempt
/// on a speed-1 node by the cost model (the profile a job's declared input
/// and cost parameters imply; our choice, seed 003 only says a profile is
/// submitted with the job).
pub fn profile_map_s(cluster: &Cluster, spec: &JobSpec) -> f64 {
    if let Some(e) = spec.expected_map {
        return e.as_secs_f64();
    }
    if spec.maps.is_empty() {
        return 0.0;
    }
    let reference = Node {
        name: String::new(),
        rack: RackId(0),
        group: String::new(),
        slots: SlotConfig::Unified { slots: 1 },
        max_reducers: 1,
        speed: 1.0,
        disk_mb: None,
    };
    let total: f64 = spec
        .maps
        .iter()
        .map(|m| {
            let c = cost::map_cost(cluster, spec, &m, &reference, Locality::Node);
            (cluster.task_overhead + c.scan + c.compute).as_secs_f64()
        })
        .sum();
    total / spec.maps.len() as f64
}
