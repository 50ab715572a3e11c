//! The cluster state machine.
//!
//! [`ClusterState`] is what Hadoop's JobTracker knows: jobs and their tasks,
//! running attempts, per-node slot use, block locations, map outputs, and
//! what each job has observed of its task times. Both drivers (the
//! simulator and the live master) change it only through the methods in the
//! "driver API" section below; schedulers receive `&ClusterState` and can
//! only read it. Every change is also recorded as a [`StateEvent`] that the
//! driver forwards to the scheduler.
//!
//! Invariants kept here (and checked by the property tests):
//! * a node never runs more attempts than its free slots allow at launch;
//! * a task has at most one running attempt, and finishes at most once per
//!   time it is pending;
//! * a job's reduces finish only after all its maps.

use crate::attempt::{Attempt, AttemptStatus, Launch, ReducePhase, Stamp};
use crate::blocks::{BlockMap, DatasetBlocks};
use crate::events::StateEvent;
use crate::index::top_pending;
use crate::job::{Job, JobStatus, Task, TaskStatus};
use crate::node::{NodeSlots, NodeState};
use crate::slab::AttemptSlab;
use mrsched_model::cost;
use mrsched_model::{
    AttemptId, Cluster, DatasetId, JobId, JobSpec, Locality, MapSpec, MapSpecs, NodeId, RackId,
    TaskKind, Time,
};
use rustc_hash::FxHashMap;
use std::cell::Cell;
use std::fmt;
use std::sync::Arc;

/// Why a launch was refused. A scheduler that asks for an impossible launch
/// has a bug; the simulator reports it as an error in strict mode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LaunchError {
    /// The node is down.
    NodeDown(NodeId),
    /// No free slot of that kind on the node.
    NoFreeSlot(NodeId, TaskKind),
    /// The job is not running.
    JobNotRunning(JobId),
    /// The task does not exist or is not pending.
    TaskNotPending(JobId, TaskKind, u32),
    /// Reduces of the job may not start yet.
    ReducesNotReady(JobId),
    /// A rider does not read the driver's block, or repeats a job.
    BadRider(JobId, u32),
}

impl fmt::Display for LaunchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LaunchError::NodeDown(n) => write!(f, "{n} is down"),
            LaunchError::NoFreeSlot(n, k) => write!(f, "{n} has no free {k:?} slot"),
            LaunchError::JobNotRunning(j) => write!(f, "{j} is not running"),
            LaunchError::TaskNotPending(j, k, t) => {
                write!(f, "{j} {k:?} task {t} does not exist or is not pending")
            }
            LaunchError::ReducesNotReady(j) => write!(f, "{j}'s reduces may not start yet"),
            LaunchError::BadRider(j, t) => {
                write!(
                    f,
                    "rider {j} map {t} does not read the driver's block (or repeats a job)"
                )
            }
        }
    }
}

impl std::error::Error for LaunchError {}

/// A driver call that does not fit the state (an attempt that is not
/// running, a job that does not exist). The live master gets these from late
/// or duplicate worker reports and ignores them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateError(pub String);

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StateError {}

/// Slot-time integrals for utilisation.
#[derive(Clone, Debug, Default)]
pub struct Usage {
    /// When integration began (first submission).
    pub since: Option<Time>,
    /// Busy slots now.
    pub busy: u64,
    /// Available slots now (alive, minus other workloads).
    pub available: u64,
    /// Integral of busy slots, slot-microseconds.
    pub busy_integral: u128,
    /// Integral of available slots, slot-microseconds.
    pub available_integral: u128,
}

impl Usage {
    /// Busy / available over the integrated window.
    pub fn utilization(&self) -> f64 {
        if self.available_integral == 0 {
            0.0
        } else {
            self.busy_integral as f64 / self.available_integral as f64
        }
    }
}

/// The JobTracker state shared by the simulator and the live master.
pub struct ClusterState {
    now: Time,
    cluster: Cluster,
    /// Slots of every node, by id: capacities copied out of the cluster
    /// description, with the counts and liveness every heartbeat reads.
    slots: Vec<NodeSlots>,
    /// Rack of every node, by id, copied out of the large node records:
    /// locality lookups and every admitted map's index entries read it.
    rack_of: Vec<RackId>,
    /// Disk limit of every node, MB, by id (copied for the same reason:
    /// a disk-space check reads it at every map launch).
    disk_mb: Vec<Option<f64>>,
    blocks: BlockMap,
    nodes: Vec<NodeState>,
    jobs: Vec<Job>,
    active: Vec<JobId>,
    scanners: Vec<Vec<JobId>>,
    attempts: AttemptSlab,
    events: Vec<StateEvent>,
    compute_started: Vec<AttemptId>,
    wakeups: Vec<(Time, JobId)>,
    pending_maps_total: u64,
    launchable_reduces_total: u64,
    usage: Usage,
    launches: u64,
    copy_compute_splitting: bool,
    /// Per node, a bit per job: set when the job may have a pending map
    /// with data on the node (a superset). It is cleared when the job ends,
    /// and when a node-level lookup finds none there (a `Cell`: lookups
    /// take `&self`); a map pending again sets it anew (`index_map`). It
    /// lets a node-level lookup reject a job without touching the job's
    /// memory, which is what delay scheduling does for most jobs on most
    /// heartbeats. Stored by job word: the word of jobs `64w..64w+63` on
    /// node `n` is at `w * nodes + n`, so new jobs append words and a job's
    /// bits over all nodes are one contiguous stride.
    local_jobs: Vec<Cell<u64>>,
    /// Job word of `local_jobs`' first column (earlier ones all ended).
    local_base: usize,
    /// Where running shared-scan riders are listed in their jobs' running
    /// lists: `(attempt, rider + 1)` to position.
    rider_pos: FxHashMap<(AttemptId, u32), u32>,
    /// The last `find_map_task` answer: a launch of that very task on that
    /// node reuses its locality instead of scanning the replicas again.
    last_found: Cell<Option<(JobId, u32, NodeId, Locality)>>,
    /// Per-node and per-rack counters the locality index builds with,
    /// zero between builds.
    index_scratch: (crate::index::Scratch, crate::index::Scratch),
    /// A bit per node (by index) whose free slots may have changed since
    /// the last drain, when a caller asked to follow them
    /// ([`ClusterState::follow_slot_changes`]). A set, not a list: a node
    /// that changes a thousand times between two reads is read once. Cells,
    /// so that a reader holding a shared borrow (the simulator, waking
    /// nodes while it reacts to a state event) can drain it.
    slot_dirty: Option<Vec<Cell<u64>>>,
    /// A bit per node (by index): it holds intermediate data.
    holding: Vec<u64>,
    /// Intermediate data each node holds, MB, by id: dense, as the
    /// timeline's sum over the holding nodes reads it at every sample
    /// (eight bytes a node, where a node record is a line of its own).
    intermediate: Vec<f64>,
}

impl fmt::Debug for ClusterState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClusterState")
            .field("now", &self.now)
            .field("nodes", &self.nodes.len())
            .field("jobs", &self.jobs.len())
            .field("active", &self.active.len())
            .field("running_attempts", &self.attempts.len())
            .finish()
    }
}

// ---------------------------------------------------------------------------
// Read API (schedulers, metrics).
// ---------------------------------------------------------------------------
impl ClusterState {
    /// Current time.
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// The cluster description.
    #[inline]
    pub fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    /// Block locations.
    pub fn blocks(&self) -> &BlockMap {
        &self.blocks
    }

    /// A node's state.
    #[inline]
    pub fn node(&self, n: NodeId) -> &NodeState {
        &self.nodes[n.idx()]
    }

    /// Node `n`'s slots: liveness, what runs, what other workloads take.
    #[inline]
    pub fn slots(&self, n: NodeId) -> &NodeSlots {
        &self.slots[n.idx()]
    }

    /// All node states, by id.
    pub fn nodes(&self) -> &[NodeState] {
        &self.nodes
    }

    /// A job (every job ever submitted stays, so ids stay valid).
    #[inline]
    pub fn job(&self, j: JobId) -> &Job {
        &self.jobs[j.idx()]
    }

    /// A job, or `None` for an unknown id.
    pub fn get_job(&self, j: JobId) -> Option<&Job> {
        self.jobs.get(j.idx())
    }

    /// Every job ever submitted, by id.
    pub fn jobs(&self) -> &[Job] {
        &self.jobs
    }

    /// Admitted, unfinished jobs in admission order.
    #[inline]
    pub fn active_jobs(&self) -> &[JobId] {
        &self.active
    }

    /// Running jobs that read `dataset`, in admission order (shared scans).
    pub fn scanners(&self, dataset: DatasetId) -> &[JobId] {
        self.scanners
            .get(dataset.idx())
            .map(|v| v.as_slice())
            .unwrap_or(&[])
    }

    /// Hint that attempt `a` will be read soon (the simulator asks for the
    /// attempt of its next event while it handles the current one).
    #[inline]
    pub fn prefetch_attempt(&self, a: AttemptId) {
        self.attempts.prefetch(&a);
    }

    /// Hint that attempt `a`'s task will be read soon: its record and, for
    /// a map, its spec (the attempt itself should be in cache already,
    /// see [`ClusterState::prefetch_attempt`]).
    #[inline]
    pub fn prefetch_task_of(&self, a: AttemptId) {
        let Some(att) = self.attempts.get(&a) else {
            return;
        };
        let Some(j) = self.jobs.get(att.job.idx()) else {
            return;
        };
        let i = att.task as usize;
        match att.kind {
            TaskKind::Map => prefetch_map(j, i),
            TaskKind::Reduce => {
                if let Some(t) = j.reduces.get(i) {
                    mrsched_model::hint::prefetch(t);
                }
            }
        }
    }

    /// A running attempt.
    #[inline]
    pub fn attempt(&self, a: AttemptId) -> Option<&Attempt> {
        self.attempts.get(&a)
    }

    /// Number of running attempts.
    #[inline]
    pub fn running_attempts(&self) -> usize {
        self.attempts.len()
    }

    /// Pending map tasks over all running jobs.
    #[inline]
    pub fn pending_maps_total(&self) -> u64 {
        self.pending_maps_total
    }

    /// Pending reduces that may be launched, over all running jobs.
    #[inline]
    pub fn launchable_reduces_total(&self) -> u64 {
        self.launchable_reduces_total
    }

    /// Attempts launched so far.
    pub fn launches(&self) -> u64 {
        self.launches
    }

    /// Call `f` with every node whose free slots may have changed since
    /// the last drain, once each, in index order, and forget them (nothing
    /// unless [`ClusterState::follow_slot_changes`] was called). Node changes
    /// all go through one place, so a caller that keeps its own view of
    /// free slots (the simulator's sets of nodes with room) follows them
    /// here instead of asking every node.
    pub fn drain_slot_changes(&self, mut f: impl FnMut(NodeId)) {
        for (w, cell) in self.slot_dirty.iter().flatten().enumerate() {
            for n in crate::bits::ones(cell.replace(0), w * 64) {
                f(NodeId(n as u32));
            }
        }
    }

    /// Start following slot changes ([`ClusterState::drain_slot_changes`]).
    pub fn follow_slot_changes(&mut self) {
        let words = self.nodes.len().div_ceil(64);
        self.slot_dirty
            .get_or_insert_with(|| vec![Cell::new(0); words]);
    }

    /// Utilisation integrals.
    pub fn usage(&self) -> &Usage {
        &self.usage
    }

    /// Free map slots on node `n` (unified: free slots).
    #[inline]
    pub fn free_map_slots(&self, n: NodeId) -> u32 {
        let s = &self.slots[n.idx()];
        if !s.alive {
            return 0;
        }
        if s.unified {
            s.total
                .saturating_sub(s.running_maps + s.running_reduces + s.taken_map)
        } else {
            s.map.saturating_sub(s.running_maps + s.taken_map)
        }
    }

    /// Free reduce slots on node `n`: reducers that may still be launched
    /// (with copy-compute splitting, up to maxReducers; unified: free slots).
    #[inline]
    pub fn free_reduce_slots(&self, n: NodeId) -> u32 {
        let s = &self.slots[n.idx()];
        if !s.alive {
            return 0;
        }
        if s.unified {
            s.total
                .saturating_sub(s.running_maps + s.running_reduces + s.taken_reduce)
        } else {
            self.reducer_limit(n)
                .saturating_sub(s.running_reduces + s.taken_reduce)
        }
    }

    /// Reducers node `n` may run at once: maxReducers under copy-compute
    /// splitting, its reduce slots otherwise.
    #[inline]
    pub fn reducer_limit(&self, n: NodeId) -> u32 {
        let c = &self.slots[n.idx()];
        if self.copy_compute_splitting {
            c.max_reducers.max(c.reduce)
        } else {
            c.reduce
        }
    }

    /// Slots of each kind (map, reduce) on the live nodes, less what other
    /// workloads take: a unified node's free slots count for both kinds,
    /// and reduce places are [`Self::reducer_limit`]'s (maxReducers under
    /// copy-compute splitting). What the Fair, Capacity and FLEX
    /// schedulers share out.
    pub fn live_capacity(&self) -> [u64; 2] {
        let mut cap = [0u64; 2];
        for (i, s) in self.slots.iter().enumerate() {
            if !s.alive {
                continue;
            }
            if s.unified {
                let free = s.total.saturating_sub(s.taken_map) as u64;
                cap[0] += free;
                cap[1] += free;
            } else {
                cap[0] += s.map.saturating_sub(s.taken_map) as u64;
                cap[1] += self
                    .reducer_limit(NodeId(i as u32))
                    .saturating_sub(s.taken_reduce) as u64;
            }
        }
        cap
    }

    /// Whether nodes run copy-compute splitting (CPAC).
    pub fn copy_compute_splitting(&self) -> bool {
        self.copy_compute_splitting
    }

    /// Disk limit of node `n`, MB (`disk_mb` in the cluster file).
    #[inline]
    pub fn disk_mb(&self, n: NodeId) -> Option<f64> {
        self.disk_mb[n.idx()]
    }

    /// Reducers that may compute at once on `n` now.
    pub fn compute_limit(&self, n: NodeId) -> u32 {
        let s = &self.slots[n.idx()];
        if s.unified {
            u32::MAX
        } else {
            s.reduce.saturating_sub(s.taken_reduce)
        }
    }

    /// Locality of reading block replicas `replicas` from node `n`.
    #[inline]
    pub fn locality_of(&self, replicas: &[NodeId], n: NodeId) -> Locality {
        if replicas.contains(&n) {
            Locality::Node
        } else {
            let rack = self.rack_of[n.idx()];
            if replicas.iter().any(|r| self.rack_of[r.idx()] == rack) {
                Locality::Rack
            } else {
                Locality::OffRack
            }
        }
    }

    /// Locality of map `task` of `job` on node `n`.
    #[inline]
    pub fn map_locality(&self, job: JobId, task: u32, n: NodeId) -> Locality {
        match self.jobs[job.idx()].spec.maps.at(task as usize).block {
            Some(b) => self.locality_of(self.blocks.replicas(b), n),
            None => Locality::NoData,
        }
    }

    /// The most local pending map of `job` for node `n`, looking no further
    /// than `max_level` (`Node`, `Rack` or `OffRack`). Data-less maps match at
    /// every level. This is the lookup FIFO and delay scheduling share.
    pub fn find_map_task(
        &self,
        job: JobId,
        n: NodeId,
        max_level: Locality,
    ) -> Option<(u32, Locality)> {
        let found = self.find_map_task_uncached(job, n, max_level);
        if let Some((t, loc)) = found {
            // The launch that usually follows reads the task and its spec.
            prefetch_map(&self.jobs[job.idx()], t as usize);
            self.attempts.prefetch_next_slot();
            self.last_found.set(Some((job, t, n, loc)));
        }
        found
    }

    fn find_map_task_uncached(
        &self,
        job: JobId,
        n: NodeId,
        max_level: Locality,
    ) -> Option<(u32, Locality)> {
        if max_level == Locality::Node && !self.may_have_local_map(job, n) {
            return None;
        }
        let j = &self.jobs[job.idx()];
        if j.map_counts.pending == 0 || j.status != JobStatus::Running {
            return None;
        }
        let pending = |t: u32| j.map_is_pending(t);
        let mut idx = j.index.borrow_mut();
        if let Some((t, below)) = idx.nodes.top_pending_and_below(n.0, pending) {
            // The node's next launch from this job usually takes the entry
            // below: ask for it now, so that launch finds it in cache.
            if let Some(next) = below {
                prefetch_map(j, next as usize);
                j.prefetch_pending_bit(next);
            }
            return Some((t, Locality::Node));
        }
        if let Some(t) = top_pending(&mut idx.nodata, pending) {
            return Some((t, Locality::NoData));
        }
        // Neither: no node-level lookup finds one here until a map with
        // data on `n` is pending again (`index_map` sets the bit).
        self.clear_local(job, n);
        if max_level >= Locality::Rack {
            if let Some(t) = idx.rack(self.rack_of[n.idx()], pending) {
                return Some((t, Locality::Rack));
            }
        }
        if max_level >= Locality::OffRack {
            if let Some(t) = top_pending(&mut idx.any, pending) {
                let loc = self.map_locality(job, t, n);
                return Some((t, loc));
            }
        }
        None
    }

    /// False when `job` certainly has no pending map with data on node `n`
    /// (nor a data-less one); true when it may. Touches one bit, not the job.
    #[inline]
    pub fn may_have_local_map(&self, job: JobId, n: NodeId) -> bool {
        self.local_cell(job, n)
            .is_some_and(|(w, bit)| w.get() & bit != 0)
    }

    /// A node-level lookup found no pending map of `job` with data on `n`
    /// and no data-less one: clear its bit until one is pending again.
    fn clear_local(&self, job: JobId, n: NodeId) {
        if let Some((w, bit)) = self.local_cell(job, n) {
            w.set(w.get() & !bit);
        }
    }

    /// The word holding `job`'s bit on node `n`, and the bit; none when the
    /// word was never grown or was dropped with its ended jobs.
    #[inline]
    fn local_cell(&self, job: JobId, n: NodeId) -> Option<(&Cell<u64>, u64)> {
        let (j, nodes) = (job.idx(), self.nodes.len());
        if n.idx() >= nodes {
            return None;
        }
        let w = (j / 64).checked_sub(self.local_base)?;
        let cell = self.local_jobs.get(w * nodes + n.idx())?;
        Some((cell, 1 << (j % 64)))
    }

    /// The words holding `job`'s bits (one per node), grown as needed, and
    /// the job's bit in them; none once every job of its word has ended.
    fn local_words(&mut self, job: JobId) -> Option<(&mut [Cell<u64>], u64)> {
        let (j, nodes) = (job.idx(), self.nodes.len());
        let w = (j / 64).checked_sub(self.local_base)?;
        let end = (w + 1) * nodes;
        if self.local_jobs.len() < end {
            self.local_jobs.resize(end, Cell::new(0));
        }
        Some((&mut self.local_jobs[end - nodes..end], 1 << (j % 64)))
    }

    /// Forget the words of jobs that have all ended, oldest first: memory
    /// then follows the jobs alive (a word per node for every 64 of them),
    /// not the day's.
    fn drop_ended_local_words(&mut self) {
        let nodes = self.nodes.len();
        while let Some(word) = self
            .jobs
            .get(64 * self.local_base..64 * (self.local_base + 1))
        {
            if !word.iter().all(|j| j.status.is_final()) {
                break;
            }
            if self.local_jobs.len() >= nodes {
                self.local_jobs.drain(..nodes);
            }
            self.local_base += 1;
        }
    }

    fn set_local(&mut self, job: JobId, n: NodeId) {
        if let Some((words, bit)) = self.local_words(job) {
            *words[n.idx()].get_mut() |= bit;
        }
    }

    fn set_local_everywhere(&mut self, job: JobId) {
        if let Some((words, bit)) = self.local_words(job) {
            for w in words {
                *w.get_mut() |= bit;
            }
        }
    }

    /// Whether `job` has a pending map with data on node `n` (or a data-less
    /// one).
    pub fn has_local_map(&self, job: JobId, n: NodeId) -> bool {
        self.find_map_task(job, n, Locality::Node).is_some()
    }

    /// The next pending reduce of `job` (lowest index first), if its reduces
    /// may start.
    pub fn next_pending_reduce(&self, job: JobId) -> Option<u32> {
        let j = &self.jobs[job.idx()];
        if !j.reduces_ready || j.reduce_counts.pending == 0 || j.status != JobStatus::Running {
            return None;
        }
        let mut idx = j.index.borrow_mut();
        let stack = &mut idx.reduces;
        top_pending(stack, |t| {
            j.reduces[t as usize].status == TaskStatus::Pending
        })
    }

    /// Reducers of `job` on node `n` still copying (for copy-compute
    /// splitting's per-job cap).
    pub fn copying_reduces_on(&self, job: JobId, n: NodeId) -> u32 {
        self.nodes[n.idx()]
            .attempts
            .iter()
            .filter_map(|a| self.attempts.get(a))
            .filter(|a| {
                a.job == job && a.kind == TaskKind::Reduce && a.phase == ReducePhase::Copying
            })
            .count() as u32
    }

    /// Running attempts of `job`, in launch order.
    pub fn running_attempts_of(&self, job: JobId) -> impl Iterator<Item = &Attempt> {
        let mut ids: Vec<AttemptId> = self.jobs[job.idx()].running_attempt_ids().collect();
        ids.sort_unstable();
        ids.into_iter().filter_map(|a| self.attempts.get(&a))
    }

    /// Running attempts on node `n`, launch order.
    pub fn attempts_on(&self, n: NodeId) -> impl Iterator<Item = &Attempt> {
        self.nodes[n.idx()]
            .attempts
            .iter()
            .filter_map(|a| self.attempts.get(a))
    }

    /// Map outputs held on node `n`: `(job, map task, MB)` for every done
    /// map whose output is stored there (intermediate-space eviction).
    pub fn outputs_on(&self, n: NodeId) -> impl Iterator<Item = (JobId, u32, f64)> + '_ {
        self.nodes[n.idx()]
            .outputs
            .iter()
            .filter_map(move |&(j, t)| {
                let jm = &self.jobs[j.idx()];
                let task = jm.maps.get(t as usize)?;
                (task.status == TaskStatus::Done && task.node == Some(n) && task.holds_output)
                    .then(|| (j, t, output_mb_of(&jm.spec, t)))
            })
    }

    /// The jobs holding map outputs on node `n`, ascending, each once: the
    /// jobs of [`ClusterState::outputs_on`], without a pass over them.
    pub fn holders_on(&self, n: NodeId) -> impl Iterator<Item = JobId> + '_ {
        let holders = &self.nodes[n.idx()].holders;
        debug_assert!(
            holders.iter().map(|h| h.0).eq(self.holders_by_pass(n)),
            "node {n:?}'s holder counts match its outputs"
        );
        holders.iter().map(|&(j, _)| j)
    }

    /// What [`ClusterState::holders_on`] keeps, found the slow way: a pass
    /// over the node's outputs (the check of the counts).
    pub(crate) fn holders_by_pass(&self, n: NodeId) -> Vec<JobId> {
        let mut held: Vec<JobId> = self.outputs_on(n).map(|(j, _, _)| j).collect();
        held.sort_unstable();
        held.dedup();
        held
    }

    /// Intermediate data node `n` holds, MB.
    #[inline]
    pub fn intermediate_on(&self, n: NodeId) -> f64 {
        self.intermediate[n.idx()]
    }

    /// Total intermediate data on all nodes, MB.
    pub fn intermediate_mb(&self) -> f64 {
        // The nodes holding some, in index order: the same sum as over all
        // nodes (adding +0.0 changes nothing but the sign of a zero, which
        // the last step restores), without a pass over 100,000 idle nodes
        // at every timeline sample.
        let mut sum = std::iter::empty::<f64>().sum::<f64>();
        for (w, &word) in self.holding.iter().enumerate() {
            for n in crate::bits::ones(word, w * 64) {
                sum += self.intermediate[n];
            }
        }
        if !self.nodes.is_empty() {
            sum += 0.0;
        }
        sum
    }

    /// Keep node `n`'s bit in `holding` right after its intermediate data
    /// changed.
    #[inline]
    fn note_intermediate(&mut self, n: NodeId) {
        let (w, b) = (n.idx() / 64, n.idx() % 64);
        if self.intermediate[n.idx()] != 0.0 {
            self.holding[w] |= 1 << b;
        } else {
            self.holding[w] &= !(1 << b);
        }
    }

    /// Number of jobs not yet in a final state.
    pub fn unfinished_jobs(&self) -> usize {
        self.jobs.iter().filter(|j| !j.status.is_final()).count()
    }
}

// ---------------------------------------------------------------------------
// Driver API: the only way the state changes.
// ---------------------------------------------------------------------------
impl ClusterState {
    /// An empty cluster at time zero with every node alive.
    pub fn new(cluster: Cluster) -> ClusterState {
        let nodes = (0..cluster.nodes.len())
            .map(|_| NodeState::default())
            .collect();
        let slots = cluster
            .nodes
            .iter()
            .map(|n| NodeSlots {
                alive: true,
                map: n.map_slots(),
                reduce: n.reduce_slots(),
                total: n.total_slots(),
                max_reducers: n.max_reducers,
                unified: n.is_unified(),
                ..NodeSlots::default()
            })
            .collect();
        let rack_of = cluster.nodes.iter().map(|n| n.rack).collect();
        let disk_mb = cluster.nodes.iter().map(|n| n.disk_mb).collect();
        let mut st = ClusterState {
            now: Time::ZERO,
            slots,
            rack_of,
            disk_mb,
            blocks: BlockMap::default(),
            nodes,
            jobs: Vec::new(),
            active: Vec::new(),
            scanners: Vec::new(),
            attempts: AttemptSlab::default(),
            events: Vec::new(),
            slot_dirty: None,
            holding: vec![0; cluster.nodes.len().div_ceil(64)],
            intermediate: vec![0.0; cluster.nodes.len()],
            compute_started: Vec::new(),
            wakeups: Vec::new(),
            pending_maps_total: 0,
            launchable_reduces_total: 0,
            usage: Usage::default(),
            launches: 0,
            copy_compute_splitting: false,
            local_jobs: Vec::new(),
            local_base: 0,
            rider_pos: FxHashMap::default(),
            last_found: Cell::new(None),
            index_scratch: Default::default(),
            cluster,
        };
        st.usage.available = (0..st.nodes.len())
            .map(|i| st.node_usage(NodeId(i as u32)).1)
            .sum();
        st
    }

    /// Let nodes run up to `max_reducers` reducers, of which at most
    /// `reduce_slots` compute at once (copy-compute splitting, seed 002
    /// §5.2). Drivers set it once, from the scheduler, before any job runs.
    pub fn set_copy_compute_splitting(&mut self, on: bool) {
        self.copy_compute_splitting = on;
    }

    /// Drain the events recorded since the last call.
    pub fn take_events(&mut self) -> Vec<StateEvent> {
        std::mem::take(&mut self.events)
    }

    /// Move the events recorded since the last call into `buf` (which must
    /// be empty), reusing both buffers' memory.
    #[inline]
    pub fn swap_events(&mut self, buf: &mut Vec<StateEvent>) {
        debug_assert!(buf.is_empty());
        std::mem::swap(&mut self.events, buf);
    }

    /// True when events wait to be drained.
    #[inline]
    pub fn has_events(&self) -> bool {
        !self.events.is_empty()
    }

    /// Reduce attempts that entered their compute phase since the last call
    /// (the driver times their end).
    #[inline]
    pub fn take_compute_started(&mut self) -> Vec<AttemptId> {
        std::mem::take(&mut self.compute_started)
    }

    /// True when reduce attempts entered their compute phase since the last
    /// [`ClusterState::take_compute_started`].
    #[inline]
    pub fn has_compute_started(&self) -> bool {
        !self.compute_started.is_empty()
    }

    /// True when release times wait to be taken
    /// ([`ClusterState::take_wakeups`]).
    #[inline]
    pub fn has_wakeups(&self) -> bool {
        !self.wakeups.is_empty()
    }

    /// `(time, job)` pairs at which explicit-time reduces must be released
    /// with [`ClusterState::release_reduces`] (map-to-reduce delays).
    #[inline]
    pub fn take_wakeups(&mut self) -> Vec<(Time, JobId)> {
        std::mem::take(&mut self.wakeups)
    }

    /// Advance the clock (never backwards), integrating slot use.
    #[inline]
    pub fn advance_to(&mut self, t: Time) {
        if t <= self.now {
            return;
        }
        if self.usage.since.is_some() {
            let dt = (t - self.now).0 as u128;
            self.usage.busy_integral += self.usage.busy as u128 * dt;
            self.usage.available_integral += self.usage.available as u128 * dt;
        }
        self.now = t;
    }

    /// Register a dataset's blocks and replica locations.
    pub fn add_dataset(&mut self, blocks: DatasetBlocks) -> DatasetId {
        self.scanners.push(Vec::new());
        self.blocks.add(blocks)
    }

    /// Place a registered dataset's blocks: `replicas` block after block,
    /// `per_block` each. A driver may register every dataset up front and
    /// place each only when a job that reads it arrives.
    pub fn place_dataset(&mut self, d: DatasetId, replicas: Vec<NodeId>, per_block: usize) {
        if let Some(b) = self.blocks.dataset_mut(d) {
            b.place(replicas, per_block);
        }
    }

    /// Forget where dataset `d`'s replicas are, once no job will read it
    /// again (the driver knows: it has the workload). Its number of blocks
    /// stays.
    pub fn forget_replicas(&mut self, d: DatasetId) {
        if let Some(b) = self.blocks.dataset_mut(d) {
            b.forget_replicas();
        }
    }

    /// A job arrives. It waits in `Submitted` until admitted or rejected.
    pub fn submit(&mut self, spec: impl Into<Arc<JobSpec>>) -> JobId {
        if self.usage.since.is_none() {
            self.usage.since = Some(self.now);
        }
        let id = JobId(self.jobs.len() as u32);
        self.jobs.push(Job::new(id, spec.into(), self.now));
        self.events.push(StateEvent::JobSubmitted(id));
        id
    }

    /// Admit a submitted job: its tasks become pending.
    pub fn admit(&mut self, j: JobId) -> Result<(), StateError> {
        let now = self.now;
        let job = self.job_mut(j)?;
        if job.status != JobStatus::Submitted {
            return Err(StateError(format!("{j} is not awaiting admission")));
        }
        job.status = JobStatus::Running;
        job.decided = Some(now);
        let maps = job.maps.len() as u32;
        let reduces = job.reduces.len() as u32;
        job.map_counts.pending = maps;
        job.reduce_counts.pending = reduces;
        self.pending_maps_total += maps as u64;
        self.build_index(j);
        for d in self.jobs[j.idx()].spec.input.clone() {
            if let Some(s) = self.scanners.get_mut(d.idx()) {
                s.push(j);
            }
        }
        self.active.push(j);
        self.events.push(StateEvent::JobAdmitted(j));
        self.check_reduce_readiness(j);
        Ok(())
    }

    /// Reject a submitted job with a reason for the submitter.
    pub fn reject(&mut self, j: JobId, reason: impl Into<String>) -> Result<(), StateError> {
        let now = self.now;
        let job = self.job_mut(j)?;
        if job.status != JobStatus::Submitted {
            return Err(StateError(format!("{j} is not awaiting admission")));
        }
        job.status = JobStatus::Rejected;
        job.decided = Some(now);
        job.reason = Some(reason.into());
        self.events.push(StateEvent::JobRejected(j));
        Ok(())
    }

    /// Start an attempt on `node`. Checks everything a scheduler could get
    /// wrong and changes nothing when it refuses.
    pub fn launch(&mut self, node: NodeId, l: &Launch) -> Result<AttemptId, LaunchError> {
        if node.idx() >= self.nodes.len() || !self.slots[node.idx()].alive {
            return Err(LaunchError::NodeDown(node));
        }
        let kind = l.kind();
        let free = match kind {
            TaskKind::Map => self.free_map_slots(node),
            TaskKind::Reduce => self.free_reduce_slots(node),
        };
        if free == 0 {
            return Err(LaunchError::NoFreeSlot(node, kind));
        }
        let (job, task) = match l {
            Launch::Map { job, task, .. } | Launch::Reduce { job, task } => (*job, *task),
        };
        let jb = self
            .jobs
            .get(job.idx())
            .ok_or(LaunchError::JobNotRunning(job))?;
        if jb.status != JobStatus::Running {
            return Err(LaunchError::JobNotRunning(job));
        }
        let tasks = match kind {
            TaskKind::Map => &jb.maps,
            TaskKind::Reduce => &jb.reduces,
        };
        if tasks.get(task as usize).map(|t| t.status) != Some(TaskStatus::Pending) {
            return Err(LaunchError::TaskNotPending(job, kind, task));
        }
        let mut locality = Locality::NoData;
        if let Launch::Map { riders, .. } = l {
            let block = jb.spec.maps.at(task as usize).block;
            for (k, &(rj, rt)) in riders.iter().enumerate() {
                let ok = block.is_some()
                    && rj != job
                    && !riders[..k].iter().any(|(o, _)| *o == rj)
                    && self.jobs.get(rj.idx()).is_some_and(|r| {
                        r.status == JobStatus::Running
                            && r.maps.get(rt as usize).map(|t| t.status)
                                == Some(TaskStatus::Pending)
                            && r.spec.maps.at(rt as usize).block == block
                    });
                if !ok {
                    return Err(LaunchError::BadRider(rj, rt));
                }
            }
            locality = match self.last_found.take() {
                Some((j, t, n, loc)) if (j, t, n) == (job, task, node) => loc,
                _ => self.map_locality(job, task, node),
            };
        } else if !jb.reduces_ready {
            return Err(LaunchError::ReducesNotReady(job));
        }

        // Accepted: apply.
        let id = self.attempts.next_id();
        self.launches += 1;
        let now = self.now;
        // An empty boxed slice allocates nothing.
        let riders: Box<[(JobId, u32)]> = match l {
            Launch::Map { riders, .. } => riders.as_slice().into(),
            Launch::Reduce { .. } => Box::default(),
        };
        let explicit_reduce = kind == TaskKind::Reduce
            && self.jobs[job.idx()].spec.reduces[task as usize]
                .time
                .is_some();
        let attempt = Attempt {
            id,
            kind,
            job,
            task,
            riders,
            node,
            start: now,
            end: Stamp::NONE,
            status: AttemptStatus::Running,
            locality,
            phase: if kind == TaskKind::Map {
                ReducePhase::Computing
            } else {
                ReducePhase::Copying
            },
            compute_start: Stamp::NONE,
        };
        // Position in the driving job's running list (riders' positions are
        // kept in `rider_pos`: shared scans are rare).
        let mut run_pos = 0;
        let riders: &[(JobId, u32)] = match l {
            Launch::Map { riders, .. } => riders,
            Launch::Reduce { .. } => &[],
        };
        for (k, (rj, rt)) in std::iter::once((job, task))
            .chain(riders.iter().copied())
            .enumerate()
        {
            let jm = &mut self.jobs[rj.idx()];
            if jm.first_launch.is_none() {
                jm.first_launch = Some(now);
            }
            let pos = jm.add_running(id, k as u32);
            if k == 0 {
                run_pos = pos;
            } else {
                self.rider_pos.insert((id, k as u32), pos);
            }
            if kind == TaskKind::Map {
                jm.set_map_pending(rt, false);
            }
            let (t, counts) = match kind {
                TaskKind::Map => (&mut jm.maps[rt as usize], &mut jm.map_counts),
                TaskKind::Reduce => (&mut jm.reduces[rt as usize], &mut jm.reduce_counts),
            };
            t.status = TaskStatus::Running;
            t.attempts = t.attempts.saturating_add(1);
            t.node = Some(node);
            counts.pending -= 1;
            counts.running += 1;
            match kind {
                TaskKind::Map => {
                    self.pending_maps_total -= 1;
                    if jm.map_counts.pending == 0 {
                        jm.index.get_mut().release_maps();
                    }
                }
                TaskKind::Reduce => self.launchable_reduces_total -= 1,
            }
        }
        self.change_node(node, |s, c| {
            s.attempts.push(id);
            match kind {
                TaskKind::Map => c.running_maps += 1,
                TaskKind::Reduce => c.running_reduces += 1,
            }
        });
        self.attempts.insert(attempt, run_pos);
        if explicit_reduce {
            // Explicit-time reduces have no copy phase (MSJO model).
            self.enter_wait_compute(id);
        }
        Ok(id)
    }

    /// Keep a job open: it does not finish when its current tasks are done,
    /// because the driver will add more with [`ClusterState::add_maps`]
    /// (the stages of a DAG engine) until [`ClusterState::close_job`].
    pub fn hold_open(&mut self, j: JobId) -> Result<(), StateError> {
        let job = self.job_mut(j)?;
        if job.status.is_final() {
            return Err(StateError(format!("{j} has ended")));
        }
        job.open = true;
        Ok(())
    }

    /// No more tasks will be added to `j`: it finishes once its tasks are
    /// done (at once if they are).
    pub fn close_job(&mut self, j: JobId) -> Result<(), StateError> {
        self.job_mut(j)?.open = false;
        self.check_job_done(j);
        Ok(())
    }

    /// Append map tasks to an open job (see [`ClusterState::hold_open`]);
    /// they are pending at once when the job runs. Returns the index of the
    /// first new task.
    pub fn add_maps(&mut self, j: JobId, maps: Vec<MapSpec>) -> Result<u32, StateError> {
        let job = self.job_mut(j)?;
        if !job.open || job.status.is_final() {
            return Err(StateError(format!("{j} is not open for new tasks")));
        }
        let first = job.maps.len() as u32;
        let added = maps.len() as u32;
        if added == 0 {
            return Ok(first);
        }
        for (i, m) in maps.iter().enumerate() {
            if let Some(b) = m.block.filter(|b| b.index == 0) {
                job.dataset_offsets.push((b.dataset, first + i as u32));
            }
        }
        Arc::make_mut(&mut job.spec).maps.extend(maps);
        job.maps.extend((0..added).map(|_| Task::new()));
        crate::job::grow_bits(&mut job.map_pending, first as usize, job.maps.len());
        if job.status == JobStatus::Running {
            job.map_counts.pending += added;
            self.pending_maps_total += added as u64;
            // The whole job's index is rebuilt: DAG stages are added a few
            // times per job, and lookups skip tasks that are no longer pending.
            self.build_index(j);
            self.events.push(StateEvent::TasksAdded(j));
        }
        Ok(first)
    }

    /// A pending map of an open job that will never run under this index
    /// (its engine took the work back, e.g. a stage was rolled back after an
    /// executor loss; the driver adds a new task if the work comes back).
    /// It counts as done, with no attempt and no output.
    pub fn withdraw_map(&mut self, j: JobId, t: u32) -> Result<(), StateError> {
        let now = self.now;
        let jm = self.job_mut(j)?;
        let pending = jm.status == JobStatus::Running
            && jm
                .maps
                .get(t as usize)
                .is_some_and(|x| x.status == TaskStatus::Pending);
        if !pending {
            return Err(StateError(format!("{j} map {t} is not pending")));
        }
        jm.set_map_pending(t, false);
        let task = &mut jm.maps[t as usize];
        task.status = TaskStatus::Done;
        task.start = now;
        task.finish = now;
        jm.map_counts.pending -= 1;
        jm.map_counts.done += 1;
        self.pending_maps_total -= 1;
        self.map_done(j);
        Ok(())
    }

    /// A map of `j` is done: maybe all its maps, its reduces' readiness,
    /// the job.
    #[inline]
    fn map_done(&mut self, j: JobId) {
        if self.jobs[j.idx()].maps_done() {
            self.jobs[j.idx()].maps_done_at = Some(self.now);
            self.events.push(StateEvent::MapsDone(j));
        }
        self.check_reduce_readiness(j);
        self.check_job_done(j);
    }

    /// A map attempt finished its work: every task it served is done.
    pub fn finish_map(&mut self, a: AttemptId) -> Result<(), StateError> {
        let att = self.running(a, TaskKind::Map)?;
        let (node, start, locality) = (att.node, att.start, att.locality);
        let att = self.end_attempt(a, AttemptStatus::Succeeded);
        let now = self.now;
        let dur = now - start;
        for t in att.tasks() {
            let j = t.job;
            let jm = &mut self.jobs[j.idx()];
            if jm.status != JobStatus::Running {
                continue;
            }
            let has_reduces = !jm.reduces.is_empty();
            let out = if has_reduces {
                output_mb_of(&jm.spec, t.index)
            } else {
                0.0
            };
            let task = &mut jm.maps[t.index as usize];
            task.status = TaskStatus::Done;
            task.node = Some(node);
            task.start = start;
            task.finish = now;
            task.locality = locality;
            debug_assert!(!task.holds_output, "a running map holds no output");
            task.holds_output = out > 0.0;
            jm.map_counts.running -= 1;
            jm.map_counts.done += 1;
            jm.stats.maps += 1;
            jm.stats.map_total += dur;
            jm.stats.map_max = jm.stats.map_max.max(dur);
            if out > 0.0 {
                self.intermediate[node.idx()] += out;
                let ns = &mut self.nodes[node.idx()];
                ns.outputs.push((j, t.index));
                ns.hold(j);
                if ns.outputs.len() >= (2 * ns.outputs_compacted).max(1024) {
                    self.compact_outputs(node);
                }
                self.note_intermediate(node);
            }
            self.map_done(j);
        }
        Ok(())
    }

    /// A reduce attempt finished copying its partition.
    pub fn finish_copy(&mut self, a: AttemptId) -> Result<(), StateError> {
        let att = self.running(a, TaskKind::Reduce)?;
        if att.phase != ReducePhase::Copying {
            return Err(StateError(format!("{a} is not copying")));
        }
        self.enter_wait_compute(a);
        Ok(())
    }

    /// A reduce attempt finished computing: the task is done.
    pub fn finish_reduce(&mut self, a: AttemptId) -> Result<(), StateError> {
        let att = self.running(a, TaskKind::Reduce)?;
        if att.phase != ReducePhase::Computing {
            return Err(StateError(format!("{a} is not computing")));
        }
        let (start, node) = (att.start, att.node);
        let att = self.end_attempt(a, AttemptStatus::Succeeded);
        let now = self.now;
        let jm = &mut self.jobs[att.job.idx()];
        let task = &mut jm.reduces[att.task as usize];
        task.status = TaskStatus::Done;
        task.node = Some(node);
        task.start = start;
        task.finish = now;
        jm.reduce_counts.running -= 1;
        jm.reduce_counts.done += 1;
        jm.stats.reduces += 1;
        let dur = now - start;
        jm.stats.reduce_total += dur;
        jm.stats.reduce_max = jm.stats.reduce_max.max(dur);
        self.check_job_done(att.job);
        Ok(())
    }

    /// An attempt failed. Its tasks are retried until they have failed
    /// `max_attempts` times; then the job fails with `reason`.
    pub fn fail_attempt(&mut self, a: AttemptId, reason: &str) -> Result<(), StateError> {
        let kind = self
            .attempts
            .get(&a)
            .map(|x| x.kind)
            .ok_or_else(|| not_running(a))?;
        let att = self.end_attempt(a, AttemptStatus::Failed);
        let elapsed = self.now - att.start;
        let max = self.cluster.max_attempts as u16;
        let mut doomed = Vec::new();
        for t in att.tasks() {
            let jm = &mut self.jobs[t.job.idx()];
            jm.failed_attempts += 1;
            jm.lost_work += elapsed;
            let task = match kind {
                TaskKind::Map => &mut jm.maps[t.index as usize],
                TaskKind::Reduce => &mut jm.reduces[t.index as usize],
            };
            task.failures += 1;
            let failures = task.failures;
            self.unrun(t.job, kind, t.index);
            if failures >= max {
                doomed.push((
                    t.job,
                    format!(
                        "{} task {} failed {failures} times (last: {reason})",
                        if kind == TaskKind::Map {
                            "map"
                        } else {
                            "reduce"
                        },
                        t.index
                    ),
                ));
            }
        }
        for (j, why) in doomed {
            self.end_job(j, JobStatus::Failed, Some(why));
        }
        Ok(())
    }

    /// Kill a running attempt (preemption): its tasks become pending again
    /// and its work is counted as killed.
    pub fn kill_attempt(&mut self, a: AttemptId) -> Result<(), StateError> {
        let kind = self
            .attempts
            .get(&a)
            .map(|x| x.kind)
            .ok_or_else(|| not_running(a))?;
        let att = self.end_attempt(a, AttemptStatus::Killed);
        let elapsed = self.now - att.start;
        let jm = &mut self.jobs[att.job.idx()];
        jm.killed_work += elapsed;
        jm.killed_attempts += 1;
        for t in att.tasks() {
            self.unrun(t.job, kind, t.index);
        }
        Ok(())
    }

    /// Kill a job (user request): its attempts are killed and it ends.
    pub fn kill_job(&mut self, j: JobId, reason: &str) -> Result<(), StateError> {
        let status = self.job_mut(j)?.status;
        match status {
            JobStatus::Running => {
                self.end_job(j, JobStatus::Killed, Some(reason.to_string()));
                Ok(())
            }
            JobStatus::Submitted => {
                let now = self.now;
                let jm = &mut self.jobs[j.idx()];
                jm.status = JobStatus::Killed;
                jm.reason = Some(reason.to_string());
                jm.finish = Some(now);
                self.events.push(StateEvent::JobEnded(j));
                Ok(())
            }
            _ => Err(StateError(format!("{j} has already ended"))),
        }
    }

    /// Fail a running job for a reason outside its attempts (the live
    /// master: an input block with no replica left): its attempts are
    /// killed and it ends as failed.
    pub fn fail_job(&mut self, j: JobId, reason: &str) -> Result<(), StateError> {
        match self.job_mut(j)?.status {
            JobStatus::Running => {
                self.end_job(j, JobStatus::Failed, Some(reason.to_string()));
                Ok(())
            }
            _ => Err(StateError(format!("{j} is not running"))),
        }
    }

    /// Release explicit-time reduces whose map-to-reduce delays have passed.
    pub fn release_reduces(&mut self, j: JobId) {
        let jm = &self.jobs[j.idx()];
        if jm.status != JobStatus::Running || jm.reduces_ready || !jm.maps_done() {
            return;
        }
        match self.explicit_release_time(j) {
            Some(t) if t <= self.now => self.make_reduces_ready(j),
            Some(t) => self.wakeups.push((t, j)),
            None => self.make_reduces_ready(j),
        }
    }

    /// A node stopped heartbeating: its attempts are lost and re-run; map
    /// outputs it held are re-run for jobs whose reduces still need them.
    pub fn node_lost(&mut self, n: NodeId) {
        if !self.slots[n.idx()].alive {
            return;
        }
        let running: Vec<AttemptId> = self.nodes[n.idx()].attempts.to_vec();
        for a in running {
            let kind = self.attempts.get(&a).expect("listed attempts run").kind;
            let att = self.end_attempt(a, AttemptStatus::Lost);
            let elapsed = self.now - att.start;
            self.jobs[att.job.idx()].lost_work += elapsed;
            for t in att.tasks() {
                self.unrun(t.job, kind, t.index);
            }
        }
        self.change_node(n, |s, c| {
            c.alive = false;
            s.waiting_compute.clear();
        });
        let outputs = std::mem::take(&mut self.nodes[n.idx()].outputs);
        for (j, t) in outputs {
            self.drop_output(j, t, n);
        }
        self.events.push(StateEvent::NodeLost(n));
    }

    /// A lost node is back, empty.
    pub fn node_recovered(&mut self, n: NodeId) {
        if self.slots[n.idx()].alive {
            return;
        }
        self.change_node(n, |s, c| {
            c.alive = true;
            c.running_maps = 0;
            c.running_reduces = 0;
            s.computing_reduces = 0;
        });
        self.intermediate[n.idx()] = 0.0;
        self.note_intermediate(n);
        self.events.push(StateEvent::NodeRecovered(n));
    }

    /// Set the slots other workloads take on node `n`. Running attempts are
    /// never killed; the node simply takes no new work until it has room.
    pub fn set_taken(&mut self, n: NodeId, map: u32, reduce: u32) {
        let c = &self.slots[n.idx()];
        if c.taken_map == map && c.taken_reduce == reduce {
            return;
        }
        self.change_node(n, |_, c| {
            c.taken_map = map;
            c.taken_reduce = reduce;
        });
        self.admit_compute(n);
        self.events.push(StateEvent::CapacityChanged(n));
    }

    /// One finished map's output on node `n` is gone (a reducer could not
    /// fetch it, a worker came back without it, or a reducer that runs
    /// again needs an output dropped earlier while nothing needed it). The
    /// map runs again if its job's reduces still need it, as after a node
    /// loss. Unknown jobs, maps or outputs are ignored (late reports).
    pub fn map_output_lost(&mut self, j: JobId, t: u32, n: NodeId) {
        let known = self
            .jobs
            .get(j.idx())
            .is_some_and(|jm| (t as usize) < jm.maps.len());
        if !known || n.idx() >= self.nodes.len() {
            return;
        }
        self.nodes[n.idx()].outputs.retain(|x| *x != (j, t));
        let task = &self.jobs[j.idx()].maps[t as usize];
        if task.status == TaskStatus::Done && task.node == Some(n) && !task.holds_output {
            // Dropped before (with its node, or evicted) while nothing
            // needed it; a reducer that runs again needs it now.
            self.rerun_if_needed(j, t);
        } else {
            self.drop_output(j, t, n);
        }
    }

    /// Delete `job`'s map outputs on node `n` (intermediate-space eviction);
    /// maps its reduces still need become pending again.
    pub fn evict_outputs(&mut self, j: JobId, n: NodeId) {
        // One pass takes the job's entries out, in list order (on a full
        // disk the list is thousands long, and evictions come often).
        let mut taken: Vec<u32> = Vec::new();
        self.nodes[n.idx()].outputs.retain(|&(oj, t)| {
            if oj == j {
                taken.push(t);
            }
            oj != j
        });
        for t in taken {
            self.drop_output(j, t, n);
        }
    }
}

// ---------------------------------------------------------------------------
// Internals.
// ---------------------------------------------------------------------------
/// The intermediate output of map `t` of a job with spec `spec`, MB (what
/// it holds while [`Task::holds_output`]).
fn output_mb_of(spec: &JobSpec, t: u32) -> f64 {
    cost::map_output_mb(spec, &spec.maps.at(t as usize))
}

/// Hint that map `i` of `job` will be read soon: its record and its spec.
#[inline]
fn prefetch_map(job: &Job, i: usize) {
    if let Some(t) = job.maps.get(i) {
        mrsched_model::hint::prefetch(t);
    }
    job.spec.maps.prefetch(i);
}

fn not_running(a: AttemptId) -> StateError {
    StateError(format!("{a} is not running"))
}

impl ClusterState {
    fn job_mut(&mut self, j: JobId) -> Result<&mut Job, StateError> {
        self.jobs
            .get_mut(j.idx())
            .ok_or_else(|| StateError(format!("no such job {j}")))
    }

    fn running(&self, a: AttemptId, kind: TaskKind) -> Result<&Attempt, StateError> {
        match self.attempts.get(&a) {
            Some(x) if x.kind == kind => Ok(x),
            Some(_) => Err(StateError(format!("{a} is not a {kind:?} attempt"))),
            None => Err(not_running(a)),
        }
    }

    /// Busy slots (running attempts, each kind capped by its slots) and
    /// available slots (alive, minus other workloads) of node `n`.
    #[inline]
    fn node_usage(&self, n: NodeId) -> (u64, u64) {
        let s = &self.slots[n.idx()];
        if !s.alive {
            return (0, 0);
        }
        if s.unified {
            (
                (s.running_maps + s.running_reduces) as u64,
                s.total.saturating_sub(s.taken_map) as u64,
            )
        } else {
            let (m, r) = (s.map, s.reduce);
            (
                (s.running_maps.min(m) + s.running_reduces.min(r)) as u64,
                (m.saturating_sub(s.taken_map) + r.saturating_sub(s.taken_reduce)) as u64,
            )
        }
    }

    /// Apply `f` to node `n`, keeping the utilisation totals right.
    #[inline]
    fn change_node(&mut self, n: NodeId, f: impl FnOnce(&mut NodeState, &mut NodeSlots)) {
        if let Some(dirty) = &self.slot_dirty {
            let w = &dirty[n.idx() / 64];
            w.set(w.get() | 1 << (n.idx() % 64));
        }
        let (b0, a0) = self.node_usage(n);
        f(&mut self.nodes[n.idx()], &mut self.slots[n.idx()]);
        let (b1, a1) = self.node_usage(n);
        self.usage.busy = self.usage.busy + b1 - b0;
        self.usage.available = self.usage.available + a1 - a0;
    }

    /// Remove a running attempt, free its slot, record the event.
    fn end_attempt(&mut self, a: AttemptId, status: AttemptStatus) -> Attempt {
        let (mut att, run_pos) = self
            .attempts
            .remove(&a)
            .expect("end_attempt is called on running attempts only");
        att.status = status;
        att.end = Stamp::at(self.now);
        let (node, kind, phase) = (att.node, att.kind, att.phase);
        let alive = self.slots[node.idx()].alive;
        if alive {
            self.change_node(node, |s, c| {
                if let Some(p) = s.attempts.iter().position(|x| *x == a) {
                    // A handful of ids: shifting them one by one beats a
                    // call to memmove.
                    for i in p + 1..s.attempts.len() {
                        s.attempts.swap(i - 1, i);
                    }
                    s.attempts.pop();
                }
                match kind {
                    TaskKind::Map => c.running_maps -= 1,
                    TaskKind::Reduce => {
                        c.running_reduces -= 1;
                        match phase {
                            ReducePhase::Computing => s.computing_reduces -= 1,
                            ReducePhase::WaitingCompute => {
                                if let Some(p) = s.waiting_compute.iter().position(|x| *x == a) {
                                    s.waiting_compute.remove(p);
                                }
                            }
                            ReducePhase::Copying => {}
                        }
                    }
                }
            });
        }
        for (k, t) in att.tasks().enumerate() {
            let pos = match k {
                0 => run_pos,
                k => self
                    .rider_pos
                    .remove(&(a, k as u32))
                    .expect("riders' positions are kept"),
            };
            // The entry moved into the hole learns where it is now.
            if let Some(moved) = self.jobs[t.job.idx()].remove_running(a, pos) {
                match moved.served {
                    0 => self.attempts.set_run_pos(&moved.attempt, pos),
                    r => {
                        self.rider_pos.insert((moved.attempt, r), pos);
                    }
                }
            }
        }
        if alive && kind == TaskKind::Reduce && phase == ReducePhase::Computing {
            self.admit_compute(node);
        }
        // An empty rider list is cloned without an allocation.
        self.events.push(StateEvent::AttemptEnded(att.clone()));
        att
    }

    /// A running task goes back to pending (its attempt ended badly).
    fn unrun(&mut self, j: JobId, kind: TaskKind, t: u32) {
        let jm = &mut self.jobs[j.idx()];
        if jm.status != JobStatus::Running {
            return;
        }
        let (task, counts) = match kind {
            TaskKind::Map => (&mut jm.maps[t as usize], &mut jm.map_counts),
            TaskKind::Reduce => (&mut jm.reduces[t as usize], &mut jm.reduce_counts),
        };
        if task.status != TaskStatus::Running {
            return;
        }
        task.status = TaskStatus::Pending;
        counts.running -= 1;
        counts.pending += 1;
        match kind {
            TaskKind::Map => {
                jm.set_map_pending(t, true);
                self.pending_maps_total += 1;
                self.index_map(j, t);
            }
            TaskKind::Reduce => {
                if jm.reduces_ready {
                    self.launchable_reduces_total += 1;
                }
                jm.index.borrow_mut().reduces.push(t);
            }
        }
    }

    /// Build job `j`'s locality index at admission.
    fn build_index(&mut self, j: JobId) {
        let jm = &self.jobs[j.idx()];
        let maps = &jm.spec.maps;
        // Tasks are listed last first, so `any` and `nodata` come out with
        // the lowest task on top. A job reading one dataset whole has data
        // for every map.
        let (any, nodata) = if maps.whole_dataset().is_some() {
            ((0..maps.len() as u32).rev().collect(), Vec::new())
        } else {
            let with_data = maps.iter().filter(|m| m.block.is_some()).count();
            let (mut any, mut nodata) = (
                Vec::with_capacity(with_data),
                Vec::with_capacity(maps.len() - with_data),
            );
            for (t, m) in maps.iter().enumerate().rev() {
                match m.block {
                    Some(_) => any.push(t as u32),
                    None => nodata.push(t as u32),
                }
            }
            (any, nodata)
        };
        // The rows are built straight from the replica lists, listed twice
        // (count, then fill) rather than through a list of pairs: a job of
        // millions of maps would need tens of MB for that list.
        let (cluster, blocks) = (&self.cluster, &self.blocks);
        let (nodes, racks) = crate::index::Rows::build_two(
            (cluster.nodes.len(), cluster.racks.len()),
            &ByNodeAndRack {
                maps,
                blocks,
                rack_of: &self.rack_of,
            },
            &mut self.index_scratch,
        );
        let mut idx = jm.index.borrow_mut();
        idx.nodes = nodes;
        idx.racks = racks;
        idx.any = any;
        idx.nodata = nodata;
        idx.reduces = (0..jm.reduces.len() as u32).rev().collect();
        let has_nodata = !idx.nodata.is_empty();
        drop(idx);
        if has_nodata {
            self.set_local_everywhere(j);
        }
        let local: Vec<u32> = self.jobs[j.idx()]
            .index
            .borrow()
            .nodes
            .keys_with_tasks()
            .collect();
        if let Some((words, bit)) = self.local_words(j) {
            for n in local {
                *words[n as usize].get_mut() |= bit;
            }
        }
    }

    /// Map `t` of `j` is pending again: push it on its locality stacks.
    fn index_map(&mut self, j: JobId, t: u32) {
        match self.jobs[j.idx()].spec.maps.at(t as usize).block {
            Some(b) => {
                for k in 0..self.blocks.replicas(b).len() {
                    let n = self.blocks.replicas(b)[k];
                    self.set_local(j, n);
                }
            }
            None => self.set_local_everywhere(j),
        }
        let jm = &self.jobs[j.idx()];
        let mut idx = jm.index.borrow_mut();
        match jm.spec.maps.at(t as usize).block {
            Some(b) => {
                let reps = self.blocks.replicas(b);
                for &n in reps {
                    idx.nodes.push(n.0, t);
                }
                each_rack_once(reps, |n| self.rack_of[n.idx()], |r| idx.racks.push(r.0, t));
                idx.any.push(t);
            }
            None => idx.nodata.push(t),
        }
    }

    fn enter_wait_compute(&mut self, a: AttemptId) {
        let att = self.attempts.get_mut(&a).expect("running");
        att.phase = ReducePhase::WaitingCompute;
        let node = att.node;
        self.nodes[node.idx()].waiting_compute.push_back(a);
        self.admit_compute(node);
    }

    /// Let waiting reducers compute while the node allows (copy-compute
    /// splitting's admission control, CPAC).
    fn admit_compute(&mut self, n: NodeId) {
        let limit = self.compute_limit(n);
        while self.nodes[n.idx()].computing_reduces < limit {
            let Some(a) = self.nodes[n.idx()].waiting_compute.pop_front() else {
                break;
            };
            self.change_node(n, |s, _| s.computing_reduces += 1);
            let att = self
                .attempts
                .get_mut(&a)
                .expect("waiting attempts are running");
            att.phase = ReducePhase::Computing;
            att.compute_start = Stamp::at(self.now);
            self.compute_started.push(a);
        }
    }

    fn make_reduces_ready(&mut self, j: JobId) {
        let jm = &mut self.jobs[j.idx()];
        if jm.reduces_ready || jm.reduces.is_empty() {
            return;
        }
        jm.reduces_ready = true;
        self.launchable_reduces_total += jm.reduce_counts.pending as u64;
        self.events.push(StateEvent::ReducesReady(j));
    }

    /// Latest map end plus its map-to-reduce delay (explicit reduces).
    fn explicit_release_time(&self, j: JobId) -> Option<Time> {
        let jm = &self.jobs[j.idx()];
        let f = jm.spec.shuffle_delay_factor;
        jm.maps
            .iter()
            .map(|t| t.finish + (t.finish - t.start).scale(f))
            .max()
    }

    fn check_reduce_readiness(&mut self, j: JobId) {
        let jm = &self.jobs[j.idx()];
        if jm.status != JobStatus::Running || jm.reduces_ready || jm.reduces.is_empty() {
            return;
        }
        if jm.explicit_reduces {
            if jm.maps_done() {
                self.release_reduces(j);
            }
            return;
        }
        let slowstart = jm
            .spec
            .reduce_slowstart
            .unwrap_or(self.cluster.reduce_slowstart);
        let needed = (slowstart * jm.maps.len() as f64).ceil() as u32;
        if jm.map_counts.done >= needed {
            self.make_reduces_ready(j);
        }
    }

    fn check_job_done(&mut self, j: JobId) {
        let jm = &self.jobs[j.idx()];
        if jm.status == JobStatus::Running
            && !jm.open
            && jm.maps_done()
            && jm.reduce_counts.done as usize == jm.reduces.len()
        {
            self.end_job(j, JobStatus::Succeeded, None);
        }
    }

    /// End a running job: kill what still runs, free its data, record.
    fn end_job(&mut self, j: JobId, status: JobStatus, reason: Option<String>) {
        if self.jobs[j.idx()].status != JobStatus::Running {
            return;
        }
        if let Some((words, bit)) = self.local_words(j) {
            for w in words {
                *w.get_mut() &= !bit;
            }
        }
        let mut running: Vec<AttemptId> = self.jobs[j.idx()].running_attempt_ids().collect();
        running.sort_unstable();
        for a in running {
            if let Some(kind) = self.attempts.get(&a).map(|x| x.kind) {
                let att = self.end_attempt(a, AttemptStatus::Killed);
                let elapsed = self.now - att.start;
                self.jobs[j.idx()].killed_work += elapsed;
                // Other riders of a shared attempt go back to pending.
                for t in att.tasks().filter(|t| t.job != j) {
                    self.unrun(t.job, kind, t.index);
                }
            }
        }
        let now = self.now;
        let jm = &mut self.jobs[j.idx()];
        let launchable = if jm.reduces_ready {
            jm.reduce_counts.pending as u64
        } else {
            0
        };
        self.pending_maps_total -= jm.map_counts.pending as u64;
        self.launchable_reduces_total -= launchable;
        jm.status = status;
        jm.finish = Some(now);
        jm.reason = reason;
        jm.index.borrow_mut().clear();
        // Its intermediate data is deleted (in task order, as before).
        for (i, t) in jm.maps.iter_mut().enumerate() {
            if t.holds_output {
                if let Some(n) = t.node {
                    let mb = output_mb_of(&jm.spec, i as u32);
                    self.nodes[n.idx()].unhold(j);
                    let held = &mut self.intermediate[n.idx()];
                    *held = (*held - mb).max(0.0);
                    if *held == 0.0 {
                        let (w, b) = (n.idx() / 64, n.idx() % 64);
                        self.holding[w] &= !(1 << b);
                    }
                }
                t.holds_output = false;
            }
        }
        self.active.retain(|x| *x != j);
        for d in self.jobs[j.idx()].spec.input.clone() {
            if let Some(s) = self.scanners.get_mut(d.idx()) {
                s.retain(|x| *x != j);
            }
        }
        self.events.push(StateEvent::JobEnded(j));
        self.drop_ended_local_words();
    }

    /// Free the task records of ended job `j`, keeping their totals
    /// ([`Job::released`]): a day-long run holds only its running jobs'
    /// tasks. Nothing reads the records of an ended job but reports; a
    /// driver calls this once every consumer of the job's end has run.
    /// Returns false (and keeps them) while the job has not ended.
    pub fn release_task_records(&mut self, j: JobId) -> bool {
        let Some(jm) = self.jobs.get_mut(j.idx()) else {
            return false;
        };
        if !jm.status.is_final() || !jm.running.is_empty() {
            return false;
        }
        if jm.released.is_none() {
            jm.released = Some(jm.task_totals());
            jm.maps = Vec::new();
            jm.map_pending = Vec::new();
            jm.reduces = Vec::new();
            jm.dataset_offsets = Vec::new();
            jm.running = Vec::new();
        }
        true
    }

    /// Drop node `n`'s stale output entries (jobs ended, outputs lost or
    /// evicted, maps re-run elsewhere): every reader skips them anyway, and
    /// over a day they would hold one entry per map ever run there.
    fn compact_outputs(&mut self, n: NodeId) {
        let jobs = &self.jobs;
        let ns = &mut self.nodes[n.idx()];
        ns.outputs.retain(|&(j, t)| {
            jobs[j.idx()].maps.get(t as usize).is_some_and(|task| {
                task.status == TaskStatus::Done && task.node == Some(n) && task.holds_output
            })
        });
        ns.outputs_compacted = ns.outputs.len();
    }

    /// Map `t` of `j` lost its output on node `n`.
    fn drop_output(&mut self, j: JobId, t: u32, n: NodeId) {
        let jm = &mut self.jobs[j.idx()];
        // Released records: the job ended, its outputs were freed then.
        let Some(task) = jm.maps.get_mut(t as usize) else {
            return;
        };
        if task.status != TaskStatus::Done || task.node != Some(n) || !task.holds_output {
            return;
        }
        task.holds_output = false;
        let mb = output_mb_of(&jm.spec, t);
        let held = &mut self.intermediate[n.idx()];
        *held = (*held - mb).max(0.0);
        self.nodes[n.idx()].unhold(j);
        self.note_intermediate(n);
        self.rerun_if_needed(j, t);
    }

    /// Done map `t` of `j` has no output any more: run it again if the
    /// job's reduces still need it.
    fn rerun_if_needed(&mut self, j: JobId, t: u32) {
        let jm = &mut self.jobs[j.idx()];
        if jm.status != JobStatus::Running || jm.maps[t as usize].status != TaskStatus::Done {
            return;
        }
        // Reduces that have not finished copying still need every output.
        let still_needed = jm.reduce_counts.pending > 0
            || jm.running.iter().any(|e| {
                self.attempts
                    .get(&e.attempt)
                    .is_some_and(|a| a.kind == TaskKind::Reduce && a.phase == ReducePhase::Copying)
            });
        if !still_needed {
            return;
        }
        let task = &mut jm.maps[t as usize];
        task.status = TaskStatus::Pending;
        jm.set_map_pending(t, true);
        jm.map_counts.done -= 1;
        jm.map_counts.pending += 1;
        jm.maps_done_at = None;
        self.pending_maps_total += 1;
        self.index_map(j, t);
        self.events
            .push(StateEvent::MapOutputLost { job: j, task: t });
    }
}

#[cfg(test)]
mod tests;

/// Each map of a job with data, last first, with its block's replicas.
fn replicas_by_task(maps: &MapSpecs, blocks: &BlockMap, mut f: impl FnMut(u32, &[NodeId])) {
    // A job reading one dataset whole: its blocks in order, without a map
    // record and a dataset lookup per map.
    if let Some(d) = maps.whole_dataset().and_then(|d| blocks.dataset(d)) {
        for t in (0..maps.len()).rev() {
            f(t as u32, d.replicas(t as u32));
        }
        return;
    }
    for (t, m) in maps.iter().enumerate().rev() {
        if let Some(b) = m.block {
            f(t as u32, blocks.replicas(b));
        }
    }
}

/// A job's `(node, task)` pairs, each map with each node holding a replica
/// of its block, and its `(rack, task)` pairs, each map once per rack
/// holding one.
struct ByNodeAndRack<'a> {
    maps: &'a MapSpecs,
    blocks: &'a BlockMap,
    rack_of: &'a [RackId],
}

impl crate::index::PairsOfTwo for ByNodeAndRack<'_> {
    fn each(&self, mut by_node: impl FnMut(u32, u32), mut by_rack: impl FnMut(u32, u32)) {
        replicas_by_task(self.maps, self.blocks, |t, reps| {
            for &n in reps {
                by_node(n.0, t);
            }
            each_rack_once(reps, |n| self.rack_of[n.idx()], |r| by_rack(r.0, t));
        });
    }
}

/// The racks of `reps`, each once, in the order of their first replica.
/// Replicas 2 and 3 usually share a rack. Each replica's rack is looked up
/// once, kept on the stack for the usual handful of replicas.
#[inline]
fn each_rack_once(reps: &[NodeId], rack_of: impl Fn(NodeId) -> RackId, mut f: impl FnMut(RackId)) {
    let mut seen = [RackId(0); 8];
    if reps.len() <= seen.len() {
        for (i, &n) in reps.iter().enumerate() {
            let r = rack_of(n);
            if !seen[..i].contains(&r) {
                f(r);
            }
            seen[i] = r;
        }
        return;
    }
    for (i, &n) in reps.iter().enumerate() {
        let r = rack_of(n);
        if !reps[..i].iter().any(|x| rack_of(*x) == r) {
            f(r);
        }
    }
}
