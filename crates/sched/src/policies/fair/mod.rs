//! The Fair Scheduler of seed 002 (Zaharia et al., "Job scheduling for
//! multi-user MapReduce clusters"), as the Hadoop Fair Scheduler ran it.
//!
//! Why it looks like this: users share one cluster, and each should get at
//! least what a private cluster of its minimum share would give it, while
//! slots nobody needs go to whoever can use them. So:
//!
//! * jobs live in **pools** (one per user by default, plus the named pools of
//!   the allocation file, nested as deep as wanted), each with minimum
//!   shares for map and reduce slots, a weight, maxima and job limits, and
//!   FIFO or fair scheduling inside ([`alloc`], [`tree`]); the allocation
//!   file may be MR1's, YARN's ([`yarn`]: queues, [`resource`]s,
//!   [`placement`] rules, YARN's share rule) or Spark's ([`spark`]);
//! * **fair shares** are max-min shares with minimum guarantees, computed
//!   with the one routine [`crate::share::fair_shares`] at every level of the
//!   hierarchy (seed 002 §3.1, Appendix A);
//! * a free slot goes to the job farthest below its share, found by walking
//!   the hierarchy in order (pools below their minimum first), with **delay
//!   scheduling** so that small jobs and sticky slots do not ruin locality
//!   (§4.2), per-class waits for **IO-rate biasing** (§4.3.2), and the wait
//!   measured so that waiting never leaves slots idle for long while a job
//!   is below its share (the SPARK-18886 lesson, [`crate::delay`]);
//! * **preemption** kills the most recently launched tasks of pools over
//!   their share when a pool stays starved past its timeouts (§3.2,
//!   [`preempt`]);
//! * **copy-compute splitting** lets nodes run more reducers than reduce
//!   slots with computing limited to the slots and a per-job cap on copying
//!   reducers per node, so that long jobs' reduces stop hoarding slots (§5.2);
//! * **intermediate space** is admitted per node and, when disks fill,
//!   reclaimed from the job that ranks last (§5.4, [`space`]).
//!
//! All state is kept here and updated only from `StateEvent`s and the
//! `&ClusterState` the driver passes, so the same policy runs in the
//! simulator and in the live master.

pub mod alloc;
pub mod placement;
pub mod preempt;
pub mod ready;
pub mod resource;
pub mod space;
pub mod spark;
pub mod tree;
pub mod yarn;

use crate::assign::ccs_copy_cap_ok;
use crate::config::{PolicyInfo, Preset, SchedulerConfig};
use crate::delay::{DelayMode, DelayScheduler, WaitClock};
use crate::scheduler::{Action, Admission, Scheduler};
use alloc::{AllocFormat, AllocSpec, Allocations, Mode, PoolSpec, UserSpec};
use mrsched_model::{
    Cluster, Format, InputErrors, JobId, Locality, NodeId, Priority, Source, TaskKind, Time,
};
use mrsched_state::{ClusterState, Launch, StateEvent};
use preempt::{PreemptConfig, Preemptor};
use rustc_hash::FxHashMap;
use serde::Deserialize;
use space::{Space, Victim};
use std::collections::{BTreeMap, BTreeSet};
use tree::{Order, Tree, MAP, RED};

/// `delay = "..."`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
enum DelayOpt {
    /// No delay scheduling.
    #[default]
    Off,
    /// Wait times T1, T2 (`locality_wait_s`).
    Wait,
    /// Skip counts D1, D2 (`skip_counts`).
    Skip,
}

/// `wait_clock = "..."`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
enum ClockOpt {
    #[default]
    SinceStarved,
    HeartbeatGaps,
}

/// `order = "..."`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
enum OrderOpt {
    #[default]
    FairShare,
    Weight,
}

/// `eviction = "..."`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
enum EvictOpt {
    #[default]
    LatestSubmitted,
    LeastProgress,
}

fn d_update() -> f64 {
    0.5
}
fn d_waits() -> [f64; 2] {
    [15.0, 15.0]
}
fn d_skips() -> [u32; 2] {
    [20, 20]
}
fn d_threshold() -> f64 {
    0.5
}
fn d_interval() -> f64 {
    15.0
}
fn d_reservation() -> f64 {
    10.0
}
fn d_container_mb() -> f64 {
    1024.0
}
fn d_container_vcores() -> f64 {
    1.0
}

/// The `[fair]` options table. See `docs/policies/fair.md`.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct FairOptions {
    // --- the allocation file, inline (native TOML) or as a path ---
    #[serde(default)]
    allocation_file: Option<String>,
    #[serde(default)]
    pools: BTreeMap<String, PoolSpec>,
    #[serde(default)]
    users: BTreeMap<String, UserSpec>,
    #[serde(default)]
    pool_max_jobs_default: Option<u32>,
    #[serde(default)]
    user_max_jobs_default: Option<u32>,
    #[serde(default)]
    default_min_share_preemption_timeout_s: Option<f64>,
    #[serde(default)]
    fair_share_preemption_timeout_s: Option<f64>,
    #[serde(default)]
    default_pool_scheduling_mode: Option<Mode>,
    #[serde(default)]
    declared_pools_only: bool,
    // --- YARN allocation files ---
    #[serde(default = "d_container_mb")]
    container_mb: f64,
    #[serde(default = "d_container_vcores")]
    container_vcores: f64,
    #[serde(default)]
    user_groups: BTreeMap<String, String>,
    // --- sharing ---
    #[serde(default)]
    order: Option<OrderOpt>,
    #[serde(default = "d_update")]
    update_interval_s: f64,
    // --- preemption ---
    #[serde(default)]
    preemption: bool,
    #[serde(default = "d_threshold")]
    fair_share_preemption_threshold: f64,
    #[serde(default = "d_interval")]
    preemption_interval_s: f64,
    #[serde(default = "d_reservation")]
    preemption_reservation_s: f64,
    // --- delay scheduling ---
    #[serde(default)]
    delay: DelayOpt,
    #[serde(default = "d_waits")]
    locality_wait_s: [f64; 2],
    #[serde(default = "d_skips")]
    skip_counts: [u32; 2],
    #[serde(default)]
    wait_clock: ClockOpt,
    #[serde(default)]
    class_locality_wait_s: BTreeMap<String, [f64; 2]>,
    // --- reduces ---
    #[serde(default)]
    copy_compute_splitting: bool,
    #[serde(default)]
    max_reduces_per_node: Option<u32>,
    // --- intermediate space ---
    #[serde(default)]
    eviction: EvictOpt,
}

/// The Fair Scheduler.
pub struct FairScheduler {
    label: String,
    alloc: Allocations,
    declared_pools_only: bool,
    tree: Tree,
    delay: DelayScheduler,
    /// The last map walk that found nothing for a node, if it may stand
    /// for the next ones ([`IdleWalk`]).
    idle_walk: IdleWalk,
    /// Whether `idle_walk` is used (tests turn it off to compare).
    idle_walks_on: bool,
    /// Map walks `idle_walk` stood for.
    idle_walk_hits: u64,
    /// Whether a walk refuses a job with no map that fits the disk without
    /// looking up its map (`Space::fits_none`; tests turn it off to compare).
    space_counts_on: bool,
    /// Jobs a walk refused so.
    space_count_hits: u64,
    class_waits: BTreeMap<String, DelayMode>,
    needs_beats: bool,
    preempt: Preemptor,
    space: Space,
    ccs: bool,
    max_reduces_per_node: Option<u32>,
    update_interval: Time,
    heartbeat: Time,
    // Bookkeeping.
    dirty: Vec<JobId>,
    /// Jobs whose counts changed only by a map launch since their last
    /// sync: their reduce keys are as they were, so a refresh before a
    /// reduce walk (or before no walk) leaves them to the next full one,
    /// which then often syncs a launch and the end after it at once.
    map_launched: Vec<JobId>,
    structure_dirty: bool,
    demand_dirty: bool,
    capacity_dirty: bool,
    capacity: [f64; 2],
    last_update: Option<Time>,
    last_now: Time,
    waiting: BTreeSet<(Time, JobId)>,
    user_jobs: FxHashMap<String, u32>,
    share_updates: u64,
    warnings: Vec<String>,
    /// Each admitted job's pool path (`None`: rejected by the placement
    /// policy), decided once at admission.
    placement: FxHashMap<JobId, Option<String>>,
    user_groups: BTreeMap<String, String>,
    rejections: u64,
}

/// Where jobs rejected by a YARN placement policy run (the model cannot
/// refuse a job): a top-level pool of weight 0, which only gets slots no
/// other pool wants.
pub const REJECTED_POOL: &str = "rejected";

impl FairScheduler {
    fn new(
        label: String,
        o: &FairOptions,
        mut alloc: Allocations,
        cluster: &Cluster,
    ) -> FairScheduler {
        alloc.resolve_resources(
            [o.container_mb, o.container_vcores],
            [
                cluster.total_map_slots() as f64,
                cluster.total_reduce_slots() as f64,
            ],
        );
        // YARN and Spark order needy pools first, then by running / weight.
        let order = match o.order {
            Some(OrderOpt::FairShare) => Order::FairShare,
            Some(OrderOpt::Weight) => Order::Weight,
            None => match alloc.format {
                AllocFormat::Yarn | AllocFormat::Spark => Order::Weight,
                AllocFormat::Mr1 | AllocFormat::Native => Order::FairShare,
            },
        };
        let secs = Time::from_secs_f64;
        let mode = match o.delay {
            DelayOpt::Off => DelayMode::Off,
            DelayOpt::Wait => DelayMode::Wait {
                node: secs(o.locality_wait_s[0]),
                rack: secs(o.locality_wait_s[1]),
            },
            DelayOpt::Skip => DelayMode::Skip {
                node: o.skip_counts[0],
                rack: o.skip_counts[1],
            },
        };
        let clock = match o.wait_clock {
            ClockOpt::SinceStarved => WaitClock::SinceStarved,
            ClockOpt::HeartbeatGaps => WaitClock::HeartbeatGaps,
        };
        let class_waits: BTreeMap<String, DelayMode> = o
            .class_locality_wait_s
            .iter()
            .map(|(c, w)| {
                (
                    c.clone(),
                    DelayMode::Wait {
                        node: secs(w[0]),
                        rack: secs(w[1]),
                    },
                )
            })
            .collect();
        let delay = DelayScheduler::new(mode).with_clock(clock);
        let needs_beats = delay.needs_every_heartbeat()
            || (clock == WaitClock::HeartbeatGaps && !class_waits.is_empty());
        let preempt = Preemptor::new(PreemptConfig {
            enabled: o.preemption,
            default_min_timeout: alloc.default_min_share_timeout,
            fair_timeout: alloc.fair_share_timeout,
            threshold: alloc
                .default_fair_share_threshold
                .unwrap_or(o.fair_share_preemption_threshold),
            interval: secs(o.preemption_interval_s),
            reservation: secs(o.preemption_reservation_s),
        });
        let disks = cluster.nodes.iter().any(|n| n.disk_mb.is_some());
        let victim = match o.eviction {
            EvictOpt::LatestSubmitted => Victim::LatestSubmitted,
            EvictOpt::LeastProgress => Victim::LeastProgress,
        };
        let mut tree = Tree::new(order).with_rule(alloc.share_rule());
        if let Some(m) = alloc.root_mode {
            tree.nodes[0].mode = m;
        }
        tree.nodes[0].max_jobs = alloc.root_max_jobs;
        fn add(tree: &mut Tree, parent: u32, p: &alloc::PoolConf, a: &Allocations) {
            // YARN's getMaxShare: a maximum below the minimum is the minimum.
            let floor = |k: usize| match a.format {
                AllocFormat::Yarn => p.min[k],
                _ => 0.0,
            };
            let i = tree.add_pool(
                parent,
                &p.path,
                p.mode.unwrap_or(a.default_mode),
                p.min,
                [
                    p.max[0].unwrap_or(f64::INFINITY).max(floor(0)),
                    p.max[1].unwrap_or(f64::INFINITY).max(floor(1)),
                ],
                p.weight,
                p.max_running_jobs.or(a.pool_max_jobs_default),
                p.min_share_timeout,
            );
            tree.nodes[i as usize].fair_timeout = p.fair_share_timeout;
            tree.nodes[i as usize].threshold = p.fair_share_threshold;
            for c in &p.children {
                add(tree, i, c, a);
            }
        }
        for p in &alloc.pools {
            add(&mut tree, 0, p, &alloc);
        }
        let mut warnings = alloc.warnings(cluster);
        if o.preemption
            && alloc.fair_share_timeout.is_none()
            && alloc.default_min_share_timeout.is_none()
            && alloc
                .all_pools()
                .iter()
                .all(|p| p.min_share_timeout.is_none() && p.fair_share_timeout.is_none())
        {
            warnings.push(format!(
                "{}: fair: preemption is on but no preemption timeout is set, so nothing is ever preempted",
                alloc.file
            ));
        }
        FairScheduler {
            label,
            alloc,
            declared_pools_only: o.declared_pools_only,
            tree,
            delay,
            idle_walk: IdleWalk::default(),
            idle_walks_on: true,
            idle_walk_hits: 0,
            space_counts_on: true,
            space_count_hits: 0,
            class_waits,
            needs_beats,
            preempt,
            space: Space::new(disks, victim),
            ccs: o.copy_compute_splitting,
            max_reduces_per_node: o.max_reduces_per_node,
            update_interval: secs(o.update_interval_s),
            heartbeat: cluster.heartbeat.interval,
            dirty: Vec::new(),
            map_launched: Vec::new(),
            structure_dirty: true,
            demand_dirty: false,
            capacity_dirty: true,
            capacity: [0.0; 2],
            last_update: None,
            last_now: Time::ZERO,
            waiting: BTreeSet::new(),
            user_jobs: FxHashMap::default(),
            share_updates: 0,
            warnings,
            placement: FxHashMap::default(),
            user_groups: o.user_groups.clone(),
            rejections: 0,
        }
    }

    /// The hierarchy (for tests, benches and reports).
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// Fair share of pool `path` for maps and reduces at the last update.
    pub fn pool_share(&self, path: &str) -> Option<[f64; 2]> {
        self.tree
            .pool(path)
            .map(|p| self.tree.nodes[p as usize].share)
    }

    /// The same scheduler walking the tree at every heartbeat, without
    /// the [`IdleWalk`] shortcut (tests compare the two).
    #[cfg(test)]
    pub(crate) fn without_idle_walks(mut self) -> FairScheduler {
        self.idle_walks_on = false;
        self
    }

    /// The same scheduler looking up the map of every job a walk visits,
    /// even with no map of it fitting the node's disk (tests compare).
    #[cfg(test)]
    pub(crate) fn without_space_counts(mut self) -> FairScheduler {
        self.space_counts_on = false;
        self
    }

    /// Bring counts, capacities and shares up to date.
    pub fn refresh(&mut self, st: &ClusterState) {
        self.refresh_for(st, true);
    }

    /// Bring the tree up to date for a walk: of maps (`maps`), or of
    /// reduces only (or none), which leaves `map_launched` jobs unsynced
    /// while no share update is due (shares read every job's counts).
    fn refresh_for(&mut self, st: &ClusterState, maps: bool) {
        let now = st.now();
        self.last_now = now;
        if self.capacity_dirty {
            self.capacity = capacity(st);
            self.capacity_dirty = false;
            self.structure_dirty = true;
        }
        if !self.dirty.is_empty() {
            let dirty = std::mem::take(&mut self.dirty);
            for j in &dirty {
                self.sync(st, *j);
            }
            self.dirty = dirty;
            self.dirty.clear();
        }
        if maps || self.structure_dirty || self.demand_update_due(now) {
            self.sync_map_launched(st);
        }
        if self.structure_dirty || self.demand_update_due(now) {
            self.update_shares(now);
        }
    }

    /// Whether demands changed and the rate-limited share update is due
    /// at `now`.
    fn demand_update_due(&self, now: Time) -> bool {
        self.demand_dirty
            && self
                .last_update
                .is_none_or(|t| now >= t + self.update_interval)
    }

    /// Recompute every fair share now.
    pub fn update_shares(&mut self, now: Time) {
        self.tree.update_shares(self.capacity);
        self.share_updates += 1;
        self.structure_dirty = false;
        self.demand_dirty = false;
        self.last_update = Some(now);
        if self.preempt.cfg.enabled {
            let pools: Vec<u32> = self.tree.pools().collect();
            for p in pools {
                for k in 0..2 {
                    self.preempt.observe(&self.tree, p, k, now);
                }
            }
        }
    }

    fn sync(&mut self, st: &ClusterState, j: JobId) {
        let Some(i) = self.tree.job_node(j) else {
            return;
        };
        let job = st.job(j);
        let (run, pend) = if job.is_running() {
            (
                [job.map_counts.running, job.reduce_counts.running],
                [job.pending_maps(), job.launchable_reduces()],
            )
        } else {
            ([0, 0], [0, 0])
        };
        self.tree.set_counts(i, run, pend);
        if self.preempt.cfg.enabled {
            let now = st.now();
            let parent = self.tree.nodes[i as usize].parent;
            let anc: Vec<u32> = self.tree.path(parent).collect();
            for p in anc {
                for k in 0..2 {
                    self.preempt.observe(&self.tree, p, k, now);
                }
            }
        }
    }

    /// The pool a job of `user` naming `pool` runs in, `None` when a YARN
    /// placement policy rejects it. Without a policy: the pool it names,
    /// else its user's (Spark: else `default`), or `default` when only the
    /// file's pools are allowed and it names none of them (MR1's
    /// `mapred.fairscheduler.allow.undeclared.pools = false`). YARN queue
    /// names lose their `root.` prefix.
    fn placed(&self, user: &str, pool: Option<&str>) -> Option<String> {
        let yarn = self.alloc.format == AllocFormat::Yarn;
        let norm = |q: &str| -> String {
            if yarn {
                placement::pool_path(q).to_string()
            } else {
                q.to_string()
            }
        };
        if !self.alloc.placement.is_empty() {
            return placement::place(&self.alloc.placement, user, pool, &self.user_groups, |q| {
                self.tree.pool(q).is_some()
            });
        }
        let name = match (pool, self.alloc.format) {
            (Some(p), _) => norm(p),
            (None, AllocFormat::Spark) => "default".to_string(),
            (None, _) => user.to_string(),
        };
        if self.declared_pools_only && self.tree.pool(&name).is_none() {
            Some("default".to_string())
        } else {
            Some(name)
        }
    }

    /// Whether pool `path` has sub-pools (a parent queue).
    fn is_parent_queue(&self, path: &str) -> bool {
        self.tree.pool(path).is_some_and(|p| {
            self.tree.nodes[p as usize]
                .children
                .iter()
                .any(|&c| !self.tree.nodes[c as usize].is_job())
        })
    }

    /// The pool of an admitted job, decided at admission (no allocation:
    /// this runs for every waiting job at each admission).
    fn admitted_pool(&self, j: JobId) -> Option<&str> {
        match self.placement.get(&j)? {
            Some(p) => Some(p),
            None => Some(REJECTED_POOL),
        }
    }

    /// The pool of a job, admitted or not.
    fn pool_name_of(&self, st: &ClusterState, j: JobId) -> String {
        match self.placement.get(&j) {
            Some(Some(p)) => p.clone(),
            Some(None) => REJECTED_POOL.to_string(),
            None => {
                let spec = &st.job(j).spec;
                self.placed(&spec.user, spec.pool.as_deref())
                    .unwrap_or_else(|| REJECTED_POOL.to_string())
            }
        }
    }

    fn pool_for(&mut self, name: &str) -> u32 {
        if let Some(p) = self.tree.pool(name) {
            return p;
        }
        // Pools not in the allocation file are created on first use with
        // the defaults (HFS: one pool per user); under YARN `a.b` is
        // created inside `a` (itself created when missing).
        let mut parent = 0;
        if self.alloc.format == AllocFormat::Yarn {
            // Each missing ancestor, outermost first, at most
            // MAX_POOL_DEPTH levels (as in files): below that the rest of
            // the path is one pool's name.
            for (i, _) in name.match_indices('.').take(alloc::MAX_POOL_DEPTH - 1) {
                let up = &name[..i];
                parent = match self.tree.pool(up) {
                    Some(p) => p,
                    None => self.new_pool(parent, up),
                };
            }
        }
        self.new_pool(parent, name)
    }

    fn new_pool(&mut self, parent: u32, name: &str) -> u32 {
        let weight = if name == REJECTED_POOL { 0.0 } else { 1.0 };
        self.tree.add_pool(
            parent,
            name,
            self.alloc.default_mode,
            [0.0; 2],
            [f64::INFINITY; 2],
            weight,
            self.alloc.pool_max_jobs_default,
            None,
        )
    }

    fn user_room(&self, user: &str) -> bool {
        let limit = self
            .alloc
            .users
            .get(user)
            .copied()
            .or(self.alloc.user_max_jobs_default);
        limit.is_none_or(|m| self.user_jobs.get(user).copied().unwrap_or(0) < m)
    }

    fn try_run(&mut self, st: &ClusterState, j: JobId) -> bool {
        let existing = self.admitted_pool(j).and_then(|n| self.tree.pool(n));
        let pool = match existing {
            Some(p) => p,
            None => {
                let name = self.pool_name_of(st, j);
                self.pool_for(&name)
            }
        };
        let spec = &st.job(j).spec;
        if !(self.user_room(&spec.user) && self.tree.has_job_room(pool)) {
            return false;
        }
        // In fair pools a job's priority is its weight: normal 1, each level
        // doubles (HFS design doc, prior-work.md §6.3).
        let weight = 2f64.powi(spec.priority as i32 - Priority::Normal as i32);
        let job = st.job(j);
        self.tree
            .add_job(pool, j, job.submitted, spec.priority, weight);
        *self.user_jobs.entry(spec.user.clone()).or_default() += 1;
        self.sync(st, j);
        true
    }

    fn admit(&mut self, st: &ClusterState, j: JobId) {
        let job = st.job(j);
        if let Some(m) = job
            .spec
            .class
            .as_ref()
            .and_then(|c| self.class_waits.get(c))
        {
            self.delay.set_job_mode(j, *m);
        }
        self.delay.admit(st, j);
        // Drivers refuse what `on_submit` rejects; a job admitted without
        // asking (tests driving the state directly) and rejected by the
        // placement policy runs in `REJECTED_POOL`.
        let place = self.placed(&job.spec.user, job.spec.pool.as_deref());
        self.placement.insert(j, place);
        // A job runs when its user and its pool (with their ancestors) are
        // below their running-job limits, whatever earlier jobs of the same
        // pool wait for (MR1 `updateRunnability`: a job of another user runs
        // beside a job held by its user's limit, `TestFairScheduler`
        // `testUserMaxJobs`). Jobs freed by an ending job run in submit order.
        if !self.try_run(st, j) {
            self.waiting.insert((job.submitted, j));
        }
        self.structure_dirty = true;
    }

    fn ended(&mut self, st: &ClusterState, j: JobId) {
        let job = st.job(j);
        if self.tree.job_node(j).is_some() {
            self.tree.remove_job(j);
            if let Some(c) = self.user_jobs.get_mut(&job.spec.user) {
                *c = c.saturating_sub(1);
            }
            // Waiting jobs may run now, in submit order.
            let waiting: Vec<(Time, JobId)> = self.waiting.iter().copied().collect();
            for (t, w) in waiting {
                if st.job(w).is_running() && self.try_run(st, w) {
                    self.waiting.remove(&(t, w));
                }
            }
        } else {
            self.waiting.remove(&(job.submitted, j));
        }
        self.delay.forget(j);
        self.placement.remove(&j);
        self.structure_dirty = true;
    }

    /// Job `j` launched a task of kind `k`: its counts changed.
    fn launched(&mut self, j: JobId, k: usize) {
        // With preemption on, `sync` also runs the starvation clocks.
        if k == MAP && !self.preempt.cfg.enabled {
            self.map_launched.push(j);
        } else {
            self.dirty.push(j);
        }
    }

    /// Sync the jobs left by reduce-only refreshes (the order they are
    /// synced in does not matter: each copies its job's current counts).
    fn sync_map_launched(&mut self, st: &ClusterState) {
        if !self.map_launched.is_empty() {
            let jobs = std::mem::take(&mut self.map_launched);
            for j in &jobs {
                self.sync(st, *j);
            }
            self.map_launched = jobs;
            self.map_launched.clear();
        }
    }

    fn assign_map(&mut self, st: &ClusterState, node: NodeId) -> Option<Launch> {
        let now = st.now();
        if self.preempt.cfg.enabled {
            for p in self.preempt.reservations_on(node, MAP, now) {
                let (tree, space) = (&self.tree, &self.space);
                let found = tree.walk(p, MAP, &mut |i| {
                    let j = tree.nodes[i as usize].job?;
                    // A starved pool takes its reserved slot whatever the
                    // locality: it has waited past its timeout already.
                    let (t, loc) = st.find_map_task(j, node, Locality::OffRack)?;
                    space.fits(st, node, j, t).then_some((i, j, t, loc))
                });
                if let Some((i, j, t, loc)) = found {
                    self.preempt.consume(node, p, MAP);
                    let sat = self.satisfied(i);
                    self.delay.launched_at(j, loc, now, sat);
                    self.launched(j, MAP);
                    return Some(Launch::map(j, t));
                }
            }
        }
        // Without preemption (its reservations come first, above).
        if self.idle_walk_stands(st, node) {
            self.idle_walk_hits += 1;
            return None;
        }
        let Self {
            tree,
            delay,
            space,
            idle_walk,
            space_count_hits,
            ..
        } = self;
        let space_counts = self.space_counts_on;
        let mut refused: Option<JobId> = None;
        // The node's disk use, added up once per walk (`Space::fits_with`).
        let mut used: Option<f64> = None;
        // Whether every job visited waits for node-local data with its
        // episode started (`IdleWalk`), and until when; the jobs go in the
        // record's own list, reused from walk to walk.
        let mut idle: Option<Time> =
            (self.idle_walks_on && !self.preempt.cfg.enabled).then_some(Time(u64::MAX));
        idle_walk.jobs.clear();
        let found = tree.walk(0, MAP, &mut |i| {
            let n = &tree.nodes[i as usize];
            let j = n.job?;
            let level = delay.allowed_level(st, j);
            // On a full disk most jobs have no map that fits: any map will
            // do off-rack, so whether the job is refused is a count, not a
            // lookup (`find_map_task` finds a pending map there iff one is).
            let peeked = if space_counts
                && level == Locality::OffRack
                && space.fits_none(st, node, j, &mut used)
            {
                let job = st.job(j);
                let any = job.map_counts.pending > 0 && job.is_running();
                debug_assert_eq!(any, st.find_map_task(j, node, level).is_some());
                if any {
                    *space_count_hits += 1;
                    refused.get_or_insert(j);
                    return None;
                }
                None
            } else {
                // `DelayScheduler::peek`, with the level already read.
                st.find_map_task(j, node, level)
            };
            match peeked {
                Some((t, loc)) => {
                    if !space.fits_with(st, node, j, t, &mut used) {
                        refused.get_or_insert(j);
                        return None;
                    }
                    let satisfied =
                        (n.running[MAP] + 1) as f64 >= n.share[MAP].min(n.demand[MAP]) - 1e-9;
                    delay.launched_at(j, loc, now, satisfied);
                    Some((j, t))
                }
                None => {
                    // The tree mirrors the job's pending maps (no need to
                    // touch the job itself on this hot path).
                    if n.pending[MAP] > 0 {
                        delay.skip_at(j, now);
                        if let Some(until) = &mut idle {
                            match delay.node_only_until(j, now) {
                                Some(u) => {
                                    *until = (*until).min(u);
                                    idle_walk.jobs.push(j);
                                }
                                None => idle = None,
                            }
                        }
                    }
                    None
                }
            }
        });
        let w = &mut self.idle_walk;
        w.until = match (&found, refused, idle) {
            (None, None, Some(until)) if !w.jobs.is_empty() => Some(until),
            _ => None,
        };
        w.tree_epoch = self.tree.epoch();
        w.delay_epoch = self.delay.epoch();
        if let Some(j) = refused {
            let retry = self.heartbeat;
            self.space.refused(st, node, j, retry);
        }
        let (j, t) = found?;
        self.launched(j, MAP);
        Some(Launch::map(j, t))
    }

    /// Whether the last map walk stands for a walk for `node` now: it would
    /// find nothing ([`IdleWalk`]).
    fn idle_walk_stands(&self, st: &ClusterState, node: NodeId) -> bool {
        let w = &self.idle_walk;
        w.until.is_some_and(|until| st.now() < until)
            && w.tree_epoch == self.tree.epoch()
            && w.delay_epoch == self.delay.epoch()
            && !w.jobs.iter().any(|&j| st.may_have_local_map(j, node))
    }

    fn satisfied(&self, i: u32) -> bool {
        let n = &self.tree.nodes[i as usize];
        (n.running[MAP] + 1) as f64 >= n.share[MAP].min(n.demand[MAP]) - 1e-9
    }

    fn reduce_ok(&self, st: &ClusterState, j: JobId, node: NodeId) -> Option<u32> {
        let t = st.next_pending_reduce(j)?;
        if !ccs_copy_cap_ok(st, j, node) {
            return None;
        }
        if let Some(cap) = self.max_reduces_per_node {
            let here = st
                .attempts_on(node)
                .filter(|a| a.job == j && a.kind == TaskKind::Reduce)
                .count() as u32;
            if here >= cap {
                return None;
            }
        }
        Some(t)
    }

    fn assign_reduce(&mut self, st: &ClusterState, node: NodeId) -> Option<Launch> {
        let now = st.now();
        if self.preempt.cfg.enabled {
            for p in self.preempt.reservations_on(node, RED, now) {
                let found = self.tree.walk(p, RED, &mut |i| {
                    let j = self.tree.nodes[i as usize].job?;
                    self.reduce_ok(st, j, node).map(|t| (j, t))
                });
                if let Some((j, t)) = found {
                    self.preempt.consume(node, p, RED);
                    self.launched(j, RED);
                    return Some(Launch::reduce(j, t));
                }
            }
        }
        let (j, t) = self.tree.walk(0, RED, &mut |i| {
            let j = self.tree.nodes[i as usize].job?;
            self.reduce_ok(st, j, node).map(|t| (j, t))
        })?;
        self.launched(j, RED);
        Some(Launch::reduce(j, t))
    }
}

/// A map walk that visited jobs all waiting for node-local data, found
/// none on its node, and changed nothing by skipping them (delay
/// scheduling's `SinceStarved` clock, every episode already started).
/// While the tree's orders and the jobs' delay states stay as they were
/// (the epochs) and before the first of them may go rack-local
/// (`until`), a walk for another node visits the same jobs with the same
/// allowed level, so it finds nothing unless one of them has data there:
/// one bit per job tells, instead of the walk. This is most heartbeats of
/// a cluster whose few pending jobs wait for locality (seed 002 §4).
#[derive(Clone, Debug, Default)]
struct IdleWalk {
    tree_epoch: u64,
    delay_epoch: u64,
    /// `None`: the last walk may stand for none.
    until: Option<Time>,
    jobs: Vec<JobId>,
}

/// Slots the scheduler shares, per kind: live nodes' map slots, and their
/// reducer places (maxReducers under copy-compute splitting), less what
/// other workloads take.
fn capacity(st: &ClusterState) -> [f64; 2] {
    st.live_capacity().map(|c| c as f64)
}

impl Scheduler for FairScheduler {
    fn name(&self) -> String {
        self.label.clone()
    }

    /// A YARN placement policy may refuse a job (`reject`, or no rule that
    /// takes it), and YARN refuses jobs placed in a parent queue
    /// (`QueuePlacementPolicy.assignAppToQueue`, `FairScheduler.addApplication`):
    /// the driver answers the submitter with the reason.
    fn on_submit(&mut self, st: &ClusterState, j: JobId) -> Admission {
        let spec = &st.job(j).spec;
        let named = spec.pool.as_deref().unwrap_or("(none)");
        match self.placed(&spec.user, spec.pool.as_deref()) {
            None => {
                self.rejections += 1;
                Admission::Reject(format!(
                    "the queue placement policy of {} rejects the job (user `{}`, queue `{named}`)",
                    self.alloc.file, spec.user
                ))
            }
            Some(p) if self.alloc.format == AllocFormat::Yarn && self.is_parent_queue(&p) => {
                self.rejections += 1;
                Admission::Reject(format!(
                    "queue `{p}` is a parent queue: jobs go to its leaf queues ({})",
                    self.alloc.file
                ))
            }
            Some(_) => Admission::Admit,
        }
    }

    fn on_event(&mut self, st: &ClusterState, ev: &StateEvent) {
        match ev {
            StateEvent::JobAdmitted(j) => {
                self.space.note_job(st, *j);
                self.admit(st, *j)
            }
            StateEvent::JobEnded(j) => self.ended(st, *j),
            StateEvent::AttemptEnded(a) => {
                for t in a.tasks() {
                    self.dirty.push(t.job);
                }
                self.demand_dirty = true;
            }
            StateEvent::TasksAdded(j) => {
                self.space.note_job(st, *j);
                self.dirty.push(*j);
                self.demand_dirty = true;
            }
            StateEvent::MapsDone(j)
            | StateEvent::ReducesReady(j)
            | StateEvent::MapOutputLost { job: j, .. } => {
                self.dirty.push(*j);
                self.demand_dirty = true;
            }
            StateEvent::NodeLost(n) => {
                self.capacity_dirty = true;
                self.preempt.node_lost(*n);
            }
            StateEvent::NodeRecovered(_) | StateEvent::CapacityChanged(_) => {
                self.capacity_dirty = true;
            }
            _ => return,
        }
        // Starvation clocks must run even when no node heartbeats (a full
        // cluster sleeps in the simulator); otherwise shares are brought up
        // to date lazily, at the next heartbeat.
        if self.preempt.cfg.enabled {
            self.refresh(st);
        }
    }

    fn on_heartbeat(&mut self, st: &ClusterState, _node: NodeId) {
        self.delay.on_heartbeat(st.now());
    }

    /// With nothing pending, a heartbeat only brings the lazy state up to
    /// date (`refresh`): it matters while capacity or the pool structure
    /// changed (shares are recomputed at once), a demand change once the
    /// update interval has passed, and the time it records while disk-space
    /// refusals wait for a timer. Jobs whose counts changed (`dirty`) do not
    /// make it matter: syncing a job copies its current counts into the
    /// tree, so syncing later, at the next heartbeat that refreshes, leaves
    /// the same tree (with preemption on, `on_event` syncs at once, since
    /// starvation clocks read the time). Delay scheduling's heartbeat clock
    /// matters only for `heartbeat_gaps` waits, which take every heartbeat
    /// anyway (`needs_every_heartbeat`).
    fn idle_heartbeats(&self) -> crate::IdleBeats {
        if self.capacity_dirty || self.structure_dirty || self.space.has_pending() {
            return crate::IdleBeats::Always;
        }
        match (self.demand_dirty, self.last_update) {
            (false, _) => crate::IdleBeats::Never,
            (true, None) => crate::IdleBeats::Always,
            (true, Some(t)) => crate::IdleBeats::From(t + self.update_interval),
        }
    }

    /// A heartbeat launches nothing and changes only its clocks when
    /// `refresh` has nothing to do (no job to sync, no share update due)
    /// and `assign` would end at once: no reducer to place, and no map or
    /// the last map walk standing for this node's. Preemption and
    /// disk-space refusals keep every heartbeat (they read the time).
    fn decline_heartbeat(&mut self, st: &ClusterState, node: NodeId) -> bool {
        let now = st.now();
        // What the round's refresh would do first (see `refresh_for`).
        self.sync_map_launched(st);
        let update_due = self.demand_update_due(now);
        if self.preempt.cfg.enabled
            || self.capacity_dirty
            || self.structure_dirty
            || update_due
            || !self.dirty.is_empty()
            || self.space.has_pending()
        {
            return false;
        }
        let free_map = st.free_map_slots(node) > 0;
        let free_reduce = st.free_reduce_slots(node) > 0;
        if free_reduce && st.launchable_reduces_total() > 0 {
            return false;
        }
        let walks = free_map && st.pending_maps_total() > 0;
        if walks && !self.idle_walk_stands(st, node) {
            return false;
        }
        // What the heartbeat would have done: `on_heartbeat`, and while a
        // slot is free one `assign` (its `refresh` records the time, its
        // map walk is the idle walk's).
        self.delay.on_heartbeat(now);
        if free_map || free_reduce {
            self.last_now = now;
        }
        if walks {
            self.idle_walk_hits += 1;
        }
        true
    }

    fn assign(&mut self, st: &ClusterState, node: NodeId) -> Option<Launch> {
        let maps = st.free_map_slots(node) > 0 && st.pending_maps_total() > 0;
        self.refresh_for(st, maps);
        if maps {
            if let Some(l) = self.assign_map(st, node) {
                return Some(l);
            }
        }
        if st.free_reduce_slots(node) > 0 && st.launchable_reduces_total() > 0 {
            if let Some(l) = self.assign_reduce(st, node) {
                return Some(l);
            }
        }
        None
    }

    fn next_timer(&self) -> Option<Time> {
        let space = self.space.has_pending().then_some(self.last_now);
        let pre = if self.preempt.cfg.enabled {
            self.preempt.next_due(&self.tree)
        } else {
            None
        };
        match (space, pre) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn on_timer(&mut self, st: &ClusterState) -> Vec<Action> {
        self.refresh(st);
        let mut out: Vec<Action> = self
            .space
            .take()
            .into_iter()
            .map(|(job, node)| Action::EvictOutputs { job, node })
            .collect();
        if self.preempt.cfg.enabled {
            out.extend(
                self.preempt
                    .round(st, &self.tree, st.now())
                    .into_iter()
                    .map(Action::Kill),
            );
        }
        out
    }

    fn needs_every_heartbeat(&self) -> bool {
        self.needs_beats
    }

    fn copy_compute_splitting(&self) -> bool {
        self.ccs
    }

    fn stats(&self) -> BTreeMap<String, f64> {
        let mut m = BTreeMap::new();
        m.insert("preemption_kills".into(), self.preempt.kills as f64);
        m.insert(
            "reserved_slots_used".into(),
            self.preempt.reservations_used as f64,
        );
        m.insert("evictions".into(), self.space.evictions as f64);
        m.insert("space_refusals".into(), self.space.refusals as f64);
        m.insert("share_updates".into(), self.share_updates as f64);
        if !self.alloc.placement.is_empty() {
            m.insert("placement_rejections".into(), self.rejections as f64);
        }
        m
    }

    fn update_allocation(&mut self, st: &ClusterState) {
        self.refresh(st);
    }

    fn pool_of(&self, st: &ClusterState, j: JobId) -> String {
        self.pool_name_of(st, j)
    }

    fn pool_shares(&self) -> Vec<crate::PoolShare> {
        let mut v: Vec<crate::PoolShare> = self
            .tree
            .pools()
            .map(|p| {
                let n = &self.tree.nodes[p as usize];
                crate::PoolShare {
                    name: n.name.clone(),
                    weight: n.weight,
                    min_share: n.min,
                    fair_share: n.share,
                    demand: n.demand,
                    starved_since: self.preempt.starved_since(p),
                    preemptions: self.preempt.kills_for(p),
                    max_share: None,
                }
            })
            .collect();
        v.sort_by(|a, b| a.name.cmp(&b.name));
        v
    }

    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }
}

/// Build the allocations of a configuration: inline, or from
/// `allocation_file` (relative to the configuration file).
fn allocations(cfg: &SchedulerConfig, o: &FairOptions) -> Result<Allocations, InputErrors> {
    let inline = AllocSpec {
        pools: o.pools.clone(),
        users: o.users.clone(),
        pool_max_jobs_default: o.pool_max_jobs_default,
        user_max_jobs_default: o.user_max_jobs_default,
        default_min_share_preemption_timeout_s: o.default_min_share_preemption_timeout_s,
        fair_share_preemption_timeout_s: o.fair_share_preemption_timeout_s,
        default_pool_scheduling_mode: o.default_pool_scheduling_mode,
    };
    match &o.allocation_file {
        None => inline.resolve(&cfg.source, &format!("{}.", cfg.policy)),
        Some(f) => {
            if !inline.is_empty() {
                return Err(cfg
                    .source
                    .error(
                        "fair.allocation_file",
                        "give pools, users and defaults either inline or in allocation_file, not both",
                    )
                    .into());
            }
            let base = std::path::Path::new(&cfg.source.label)
                .parent()
                .map(|p| p.to_path_buf())
                .unwrap_or_default();
            let path = base.join(f);
            let src = Source::read(&path).map_err(|e| {
                InputErrors::from(
                    cfg.source
                        .error("fair.allocation_file", e.message)
                        .at_line(cfg.source.line_of("fair.allocation_file")),
                )
            })?;
            let src = Source::new(src.label, src.text, Format::from_path(&path));
            Allocations::from_source(&src)
        }
    }
}

fn check(cfg: &SchedulerConfig, o: &FairOptions) -> Result<(), InputErrors> {
    let mut errs = InputErrors::new();
    let field = |f: &str| format!("{}.{f}", cfg.policy);
    let secs_ok = |v: f64| v.is_finite() && v >= 0.0;
    for (name, v) in [
        ("update_interval_s", o.update_interval_s),
        ("preemption_interval_s", o.preemption_interval_s),
        ("preemption_reservation_s", o.preemption_reservation_s),
    ] {
        if !secs_ok(v) {
            errs.push(
                cfg.source
                    .error(field(name), "must be a number of seconds >= 0"),
            );
        }
    }
    if !(o.fair_share_preemption_threshold.is_finite()
        && (0.0..=1.0).contains(&o.fair_share_preemption_threshold))
    {
        errs.push(cfg.source.error(
            field("fair_share_preemption_threshold"),
            "must be a fraction between 0 and 1",
        ));
    }
    if !o.locality_wait_s.iter().all(|v| secs_ok(*v)) {
        errs.push(cfg.source.error(
            field("locality_wait_s"),
            "must be two numbers of seconds >= 0: [node_to_rack, rack_to_any]",
        ));
    }
    for (c, w) in &o.class_locality_wait_s {
        if !w.iter().all(|v| secs_ok(*v)) {
            errs.push(cfg.source.error(
                format!("{}.class_locality_wait_s.{c}", cfg.policy),
                "must be two numbers of seconds >= 0",
            ));
        }
    }
    for (name, v) in [
        ("container_mb", o.container_mb),
        ("container_vcores", o.container_vcores),
    ] {
        if !(v.is_finite() && v > 0.0) {
            errs.push(cfg.source.error(
                field(name),
                "must be a number > 0 (the size of one slot's container)",
            ));
        }
    }
    if o.max_reduces_per_node == Some(0) {
        errs.push(cfg.source.error(
            field("max_reduces_per_node"),
            "must be at least 1 (or left out for no cap)",
        ));
    }
    errs.into_result(())
}

fn build(cfg: &SchedulerConfig, cluster: &Cluster) -> Result<Box<dyn Scheduler>, InputErrors> {
    let o: FairOptions = cfg.options()?;
    check(cfg, &o)?;
    let alloc = allocations(cfg, &o)?;
    Ok(Box::new(FairScheduler::new(
        cfg.label.clone(),
        &o,
        alloc,
        cluster,
    )))
}

/// Build from an options table and an allocation file's text (MR1, YARN or
/// Spark XML; tests, benches).
pub fn from_xml(
    options: &str,
    file: &str,
    xml: &str,
    cluster: &Cluster,
) -> Result<FairScheduler, InputErrors> {
    let alloc = Allocations::from_source(&Source::new(file, xml, Format::Toml))?;
    let (_, o) = options_of(options)?;
    Ok(FairScheduler::new("fair".into(), &o, alloc, cluster))
}

fn options_of(options: &str) -> Result<(SchedulerConfig, FairOptions), InputErrors> {
    // Table headers in `options` are relative to [fair].
    let body: String = options
        .lines()
        .map(|l| {
            let t = l.trim_start();
            if let Some(rest) = t.strip_prefix("[[") {
                format!("[[fair.{rest}\n")
            } else if let Some(rest) = t.strip_prefix('[') {
                format!("[fair.{rest}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let text = format!("policy = \"fair\"\n[fair]\n{body}");
    let cfg = SchedulerConfig::from_source(&Source::new("<fair>", text, Format::Toml))?;
    let o: FairOptions = cfg.options()?;
    check(&cfg, &o)?;
    Ok((cfg, o))
}

/// Build directly from an options table (tests, benches).
pub fn from_toml(options: &str, cluster: &Cluster) -> Result<FairScheduler, InputErrors> {
    let (cfg, o) = options_of(options)?;
    let alloc = allocations(&cfg, &o)?;
    Ok(FairScheduler::new("fair".into(), &o, alloc, cluster))
}

/// Registry entry.
pub fn info() -> PolicyInfo {
    PolicyInfo {
        name: "fair",
        about: "Fair Scheduler (seed 002): pools, min shares, preemption, delay scheduling, copy-compute splitting",
        build,
    }
}

/// Presets.
pub fn presets() -> Vec<Preset> {
    vec![
        Preset {
            name: "fair",
            about: "Fair Scheduler: one pool per user, max-min fair shares, no delay scheduling",
            toml: "policy = \"fair\"\n",
        },
        Preset {
            name: "fair+delay",
            about: "Fair Scheduler with delay scheduling (T1 = T2 = 15 s)",
            toml: "policy = \"fair\"\n[fair]\ndelay = \"wait\"\n",
        },
        Preset {
            name: "fair+ccs",
            about: "Fair Scheduler with copy-compute splitting",
            toml: "policy = \"fair\"\n[fair]\ncopy_compute_splitting = true\n",
        },
        Preset {
            name: "fair+ccs+delay",
            about: "Fair Scheduler with copy-compute splitting and delay scheduling (all of seed 002)",
            toml: "policy = \"fair\"\n[fair]\ncopy_compute_splitting = true\ndelay = \"wait\"\n",
        },
        Preset {
            name: "fair+preemption",
            about: "Fair Scheduler killing tasks for pools below half their fair share for 30 s",
            toml: "policy = \"fair\"\n[fair]\npreemption = true\nfair_share_preemption_timeout_s = 30\ndefault_min_share_preemption_timeout_s = 15\npreemption_interval_s = 5\n",
        },
        Preset {
            name: "fair+hfs-delay",
            about: "Fair Scheduler with delay scheduling timed as HFS does (wait grows per heartbeat, resets on every launch)",
            toml: "policy = \"fair\"\n[fair]\ndelay = \"wait\"\nwait_clock = \"heartbeat_gaps\"\n",
        },
        Preset {
            name: "fair+skip-delay",
            about: "Fair Scheduler with skip-count delay scheduling (D1 = D2 = 20 skips)",
            toml: "policy = \"fair\"\n[fair]\ndelay = \"skip\"\n",
        },
        Preset {
            name: "fair+iobias",
            about: "Fair Scheduler with IO-rate biasing: 10 s waits, none for jobs of class `cpu`",
            toml: "policy = \"fair\"\n[fair]\ndelay = \"wait\"\nlocality_wait_s = [10, 10]\nclass_locality_wait_s = { cpu = [0, 0] }\n",
        },
    ]
}

#[cfg(test)]
mod mr1_cross_check;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod yarn_sched_tests;
