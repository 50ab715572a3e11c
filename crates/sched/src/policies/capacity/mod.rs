//! YARN's Capacity Scheduler, read from the `capacity-scheduler.xml`
//! operators run today, so that they can compare it with the Fair
//! Scheduler on their own traces (it is the default scheduler of most
//! Hadoop clusters).
//!
//! Why it looks like this: each organisation is promised a percentage of
//! the cluster (its queue's capacity), may borrow what others leave idle up
//! to a ceiling (maximum-capacity), and inside a queue jobs run first come,
//! first served, with per-user limits so that one user cannot take a whole
//! queue. So:
//!
//! * queues form a tree ([`conf`]); a free slot is offered from the root
//!   down, children by lowest used capacity (used / guaranteed) first, as
//!   YARN's `ParentQueue` sorts them, and never to a queue (or any of its
//!   ancestors) already at its maximum-capacity;
//! * a leaf serves its jobs by priority then submit time (YARN's default
//!   `fifo` ordering policy), skipping jobs whose user is at the user limit
//!   (YARN's `LeafQueue.computeUserLimit`, [`user_limit`]);
//! * capacities apply to map and reduce slots separately: every number
//!   above exists once per slot kind;
//! * there is no preemption (YARN's default) and no waiting for locality:
//!   a job's most local map is taken at once.
//!
//! The policy keeps no state between heartbeats beyond its queues' job
//! lists; usage is counted from the cluster state at each assignment, so
//! the same code runs in the simulator and in the live master.

pub mod conf;

use crate::assign::ccs_copy_cap_ok;
use crate::config::{PolicyInfo, Preset, SchedulerConfig};
use crate::scheduler::{Admission, PoolShare, Scheduler};
use conf::CapacityConf;
use mrsched_model::{
    Cluster, InputErrors, JobId, JobSpec, Locality, NodeId, Priority, Source, Time,
};
use mrsched_state::{ClusterState, Launch, StateEvent};
use rustc_hash::FxHashMap;
use serde::Deserialize;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};

const MAP: usize = 0;
const RED: usize = 1;

/// The `[capacity]` options table.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct CapacityOptions {
    /// A `capacity-scheduler.xml`, relative to the configuration file.
    #[serde(default)]
    allocation_file: Option<String>,
}

/// A job in its leaf's FIFO order, with its user's index (the job id is
/// unique, so the user never decides the order).
type JobKey = (Reverse<Priority>, Time, JobId, u32);

/// The Capacity Scheduler.
pub struct CapacityScheduler {
    label: String,
    conf: CapacityConf,
    /// Per queue (leaves only hold any): admitted, unfinished jobs in FIFO
    /// order.
    order: Vec<BTreeSet<JobKey>>,
    /// Queue and user index of every job placed.
    placed: FxHashMap<JobId, (usize, u32)>,
    users: FxHashMap<String, u32>,
    /// Admitted, unfinished jobs per queue and in total.
    apps: Vec<u32>,
    total_apps: u32,
    /// Slots of each kind the cluster has now.
    cap: [f64; 2],
    cap_dirty: bool,
    rejected: u64,
    /// Per queue, running plus launchable tasks per kind at the last
    /// assignment or `update_allocation` (for pool views).
    shown: Vec<[f64; 2]>,
    warnings: Vec<String>,
    /// Buffers of the last usage count, reused.
    scratch: Usage,
}

/// One user of a leaf: its index, slots held and whether it has pending
/// work, per kind.
#[derive(Clone, Copy)]
struct UserUse {
    uid: u32,
    used: [u32; 2],
    work: [bool; 2],
}

/// Slots in use per queue and per (leaf, user), and users with work, for
/// one assignment.
#[derive(Default)]
struct Usage {
    queue: Vec<[u32; 2]>,
    /// Per queue (leaves only), its users (a handful: searched linearly).
    users: Vec<Vec<UserUse>>,
    /// Users with pending work of each kind, per queue (YARN's active users).
    active: Vec<[u32; 2]>,
    /// Running plus launchable tasks per queue (for pool views).
    demand: Vec<[u32; 2]>,
}

impl Usage {
    fn user(&self, q: usize, uid: u32) -> [u32; 2] {
        self.users[q]
            .iter()
            .find(|x| x.uid == uid)
            .map_or([0; 2], |x| x.used)
    }
}

/// YARN's user limit for one slot kind, in slots (`LeafQueue` /
/// `UsersManager.computeUserLimit`):
/// `queue = max(ceil(guaranteed), 1)`;
/// `current = queue` while the queue uses less, else `used + 1`;
/// `limit = min(max(ceil(current / active), ceil(current * mulp / 100)),
/// floor(queue * user-limit-factor))`. Simplification: the result is at
/// least one slot so that a tiny factor cannot starve a user outright
/// (YARN gets the same effect from comparing `used > limit`).
pub fn user_limit(
    guaranteed: f64,
    queue_used: u32,
    active_users: u32,
    min_user_limit_percent: f64,
    user_limit_factor: f64,
) -> u32 {
    let queue = (guaranteed - 1e-9).ceil().max(1.0);
    let used = queue_used as f64;
    let current = if used < queue { queue } else { used + 1.0 };
    let active = active_users.max(1) as f64;
    let by_users = (current / active - 1e-9)
        .ceil()
        .max((current * min_user_limit_percent / 100.0 - 1e-9).ceil());
    let by_factor = if user_limit_factor < 0.0 {
        f64::INFINITY
    } else {
        (queue * user_limit_factor + 1e-9).floor()
    };
    by_users.min(by_factor).max(1.0) as u32
}

impl CapacityScheduler {
    /// A Capacity Scheduler over `conf`, warnings checked against
    /// `cluster`.
    pub fn new(label: String, conf: CapacityConf, cluster: &Cluster) -> CapacityScheduler {
        let n = conf.queues.len();
        let mut warnings = conf.warnings.clone();
        let slots = [
            cluster.total_map_slots() as f64,
            cluster.total_reduce_slots() as f64,
        ];
        for q in conf.queues.iter().filter(|q| q.is_leaf() && q.running) {
            for (k, what) in [(MAP, "map"), (RED, "reduce")] {
                if slots[k] > 0.0 && (q.abs_max_capacity * slots[k] + 1e-9).floor() < 1.0 {
                    warnings.push(format!(
                        "{}: queue `{}`: its maximum-capacity ({:.2}% of the cluster) is less than one of the {} {what} slots: its jobs never get a {what} slot",
                        conf.file,
                        q.path,
                        q.abs_max_capacity * 100.0,
                        slots[k]
                    ));
                }
            }
        }
        CapacityScheduler {
            label,
            order: vec![BTreeSet::new(); n],
            placed: FxHashMap::default(),
            users: FxHashMap::default(),
            apps: vec![0; n],
            total_apps: 0,
            cap: slots,
            cap_dirty: true,
            rejected: 0,
            shown: vec![[0.0; 2]; n],
            warnings,
            conf,
            scratch: Usage::default(),
        }
    }

    /// The queues as read.
    pub fn conf(&self) -> &CapacityConf {
        &self.conf
    }

    /// The leaf a job goes to, or why it cannot run. The job's `pool` names
    /// a queue; `queue-mappings` place a user's jobs that name none (or name
    /// `default`, or any queue when overriding is on); a job naming no
    /// queue and matching no mapping goes to `default`.
    pub fn place(&self, spec: &JobSpec) -> Result<usize, String> {
        let named = spec
            .pool
            .as_deref()
            .map(str::trim)
            .filter(|p| !p.is_empty());
        let mapped = || {
            self.conf.mappings.iter().find_map(|m| {
                if m.user.as_deref().is_some_and(|u| u != spec.user) {
                    return None;
                }
                match m.queue {
                    Some(q) => Some(q),
                    // u:...:%user applies when a leaf is named as the user.
                    None => self
                        .conf
                        .find(&spec.user)
                        .ok()
                        .filter(|&q| self.conf.queues[q].is_leaf()),
                }
            })
        };
        let q = match named {
            Some(n) if n != "default" && !self.conf.mappings_override => self.conf.find(n)?,
            _ => match mapped() {
                Some(q) => q,
                None => self.conf.find(named.unwrap_or("default")).map_err(|_| {
                    if named.is_some() {
                        "queue `default` does not exist".to_string()
                    } else {
                        "the job names no queue and there is no `default` queue".to_string()
                    }
                })?,
            },
        };
        let qc = &self.conf.queues[q];
        if !qc.is_leaf() {
            return Err(format!(
                "queue `{}` is a parent queue; jobs go to leaf queues",
                qc.path
            ));
        }
        if !qc.running {
            return Err(format!("queue `{}` is STOPPED", qc.path));
        }
        if self.apps[q] >= qc.max_applications {
            return Err(format!(
                "queue `{}` already has {} jobs (maximum-applications {})",
                qc.path, self.apps[q], qc.max_applications
            ));
        }
        if self.total_apps >= self.conf.max_applications {
            return Err(format!(
                "the cluster already has {} jobs (maximum-applications {})",
                self.total_apps, self.conf.max_applications
            ));
        }
        Ok(q)
    }

    fn key(st: &ClusterState, j: JobId, uid: u32) -> JobKey {
        let job = st.job(j);
        (Reverse(job.spec.priority), job.submitted, j, uid)
    }

    fn refresh_capacity(&mut self, st: &ClusterState) {
        if self.cap_dirty {
            self.cap = capacity(st);
            self.cap_dirty = false;
        }
    }

    /// Guaranteed slots of queue `q` of kind `k`.
    fn guaranteed(&self, q: usize, k: usize) -> f64 {
        self.conf.queues[q].abs_capacity * self.cap[k]
    }

    /// Most slots of kind `k` queue `q` may hold (maximum-capacity,
    /// rounded down as YARN normalises it).
    fn max_slots(&self, q: usize, k: usize) -> u32 {
        (self.conf.queues[q].abs_max_capacity * self.cap[k] + 1e-9).floor() as u32
    }

    /// Count usage into `u` (its buffers reused).
    fn count(&self, st: &ClusterState, u: &mut Usage) {
        let n = self.conf.queues.len();
        for v in [&mut u.queue, &mut u.active, &mut u.demand] {
            v.clear();
            v.resize(n, [0; 2]);
        }
        u.users.resize_with(n, Vec::new);
        for (q, jobs) in self.order.iter().enumerate() {
            let users = &mut u.users[q];
            users.clear();
            for &(_, _, j, uid) in jobs {
                let job = st.job(j);
                let run = [job.map_counts.running, job.reduce_counts.running];
                let pend = [job.pending_maps(), job.launchable_reduces()];
                let i = match users.iter().position(|x| x.uid == uid) {
                    Some(i) => i,
                    None => {
                        users.push(UserUse {
                            uid,
                            used: [0; 2],
                            work: [false; 2],
                        });
                        users.len() - 1
                    }
                };
                for k in [MAP, RED] {
                    u.queue[q][k] += run[k];
                    u.demand[q][k] += run[k] + pend[k];
                    users[i].used[k] += run[k];
                    users[i].work[k] |= pend[k] > 0;
                }
            }
            for x in users.iter() {
                u.active[q][MAP] += x.work[MAP] as u32;
                u.active[q][RED] += x.work[RED] as u32;
            }
        }
        // Children come after their parent (breadth first): add upwards.
        for q in (1..n).rev() {
            if let Some(p) = self.conf.queues[q].parent {
                let (c, d) = (u.queue[q], u.demand[q]);
                u.queue[p][MAP] += c[MAP];
                u.queue[p][RED] += c[RED];
                u.demand[p][MAP] += d[MAP];
                u.demand[p][RED] += d[RED];
            }
        }
    }

    /// Keep the usage for pool views (drivers may show pools without
    /// calling `update_allocation`).
    fn show(&mut self, u: &Usage) {
        for (shown, demand) in self.shown.iter_mut().zip(&u.demand) {
            *shown = [demand[MAP] as f64, demand[RED] as f64];
        }
    }

    /// Used capacity of `q` for ordering siblings: used / guaranteed.
    fn used_capacity(&self, q: usize, k: usize, u: &Usage) -> f64 {
        let g = self.guaranteed(q, k);
        let used = u.queue[q][k] as f64;
        if g > 0.0 {
            used / g
        } else if used > 0.0 {
            f64::INFINITY
        } else {
            0.0
        }
    }

    fn offer(
        &self,
        st: &ClusterState,
        node: NodeId,
        k: usize,
        q: usize,
        u: &Usage,
    ) -> Option<Launch> {
        if u.queue[q][k] + 1 > self.max_slots(q, k) {
            return None;
        }
        let qc = &self.conf.queues[q];
        if qc.is_leaf() {
            return self.offer_leaf(st, node, k, q, u);
        }
        let mut kids: Vec<(f64, usize)> = qc
            .children
            .iter()
            .map(|&c| (self.used_capacity(c, k, u), c))
            .collect();
        // Ties keep the order the parent lists its children in.
        kids.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        kids.into_iter()
            .find_map(|(_, c)| self.offer(st, node, k, c, u))
    }

    fn offer_leaf(
        &self,
        st: &ClusterState,
        node: NodeId,
        k: usize,
        q: usize,
        u: &Usage,
    ) -> Option<Launch> {
        let qc = &self.conf.queues[q];
        // Whether each user seen is below its limit.
        let mut limits: Vec<(u32, bool)> = Vec::new();
        for &(_, _, j, uid) in &self.order[q] {
            let job = st.job(j);
            let has = if k == MAP {
                job.pending_maps() > 0
            } else {
                job.launchable_reduces() > 0
            };
            if !has {
                continue;
            }
            let ok = match limits.iter().find(|x| x.0 == uid) {
                Some(x) => x.1,
                None => {
                    let used = u.user(q, uid)[k];
                    let limit = user_limit(
                        self.guaranteed(q, k),
                        u.queue[q][k],
                        u.active[q][k],
                        qc.min_user_limit_percent,
                        qc.user_limit_factor,
                    );
                    limits.push((uid, used < limit));
                    used < limit
                }
            };
            if !ok {
                continue;
            }
            let launch = if k == MAP {
                st.find_map_task(j, node, Locality::OffRack)
                    .map(|(t, _)| Launch::map(j, t))
            } else {
                st.next_pending_reduce(j)
                    .filter(|_| ccs_copy_cap_ok(st, j, node))
                    .map(|t| Launch::reduce(j, t))
            };
            if launch.is_some() {
                return launch;
            }
        }
        None
    }
}

/// Slots of each kind on the live nodes, less what other workloads take
/// (unified slots count for both kinds).
fn capacity(st: &ClusterState) -> [f64; 2] {
    st.live_capacity().map(|c| c as f64)
}

impl Scheduler for CapacityScheduler {
    fn name(&self) -> String {
        self.label.clone()
    }

    fn on_submit(&mut self, st: &ClusterState, job: JobId) -> Admission {
        let spec = &st.job(job).spec;
        match self.place(spec) {
            Ok(q) => {
                let next = self.users.len() as u32;
                let uid = *self.users.entry(spec.user.clone()).or_insert(next);
                self.placed.insert(job, (q, uid));
                Admission::Admit
            }
            Err(why) => {
                self.rejected += 1;
                Admission::Reject(format!("capacity: {why}"))
            }
        }
    }

    fn on_event(&mut self, st: &ClusterState, ev: &StateEvent) {
        match ev {
            StateEvent::JobAdmitted(j) => {
                if let Some(&(q, uid)) = self.placed.get(j) {
                    self.order[q].insert(Self::key(st, *j, uid));
                    self.apps[q] += 1;
                    self.total_apps += 1;
                }
            }
            StateEvent::JobEnded(j) => {
                if let Some(&(q, uid)) = self.placed.get(j) {
                    if self.order[q].remove(&Self::key(st, *j, uid)) {
                        self.apps[q] -= 1;
                        self.total_apps -= 1;
                    }
                }
            }
            // Node changes are rare: the guarantees `mrsched pools` shows
            // follow them at once. Capacity changes may come for every node
            // at one instant: counted once, at the next use.
            StateEvent::NodeLost(_) | StateEvent::NodeRecovered(_) => {
                self.cap_dirty = true;
                self.refresh_capacity(st);
            }
            StateEvent::CapacityChanged(_) => self.cap_dirty = true,
            _ => {}
        }
    }

    fn assign(&mut self, st: &ClusterState, node: NodeId) -> Option<Launch> {
        let maps = st.free_map_slots(node) > 0 && st.pending_maps_total() > 0;
        let reduces = st.free_reduce_slots(node) > 0 && st.launchable_reduces_total() > 0;
        if !maps && !reduces {
            return None;
        }
        self.refresh_capacity(st);
        let mut u = std::mem::take(&mut self.scratch);
        self.count(st, &mut u);
        self.show(&u);
        let map = if maps {
            self.offer(st, node, MAP, 0, &u)
        } else {
            None
        };
        let launch = map.or_else(|| {
            if reduces {
                self.offer(st, node, RED, 0, &u)
            } else {
                None
            }
        });
        self.scratch = u;
        launch
    }

    /// Nothing is kept between heartbeats: with nothing pending a
    /// heartbeat launches nothing and changes nothing.
    fn idle_heartbeats(&self) -> crate::IdleBeats {
        crate::IdleBeats::Never
    }

    fn stats(&self) -> BTreeMap<String, f64> {
        BTreeMap::from([("rejected_jobs".to_string(), self.rejected as f64)])
    }

    fn update_allocation(&mut self, st: &ClusterState) {
        self.cap_dirty = true;
        self.refresh_capacity(st);
        let mut u = std::mem::take(&mut self.scratch);
        self.count(st, &mut u);
        self.show(&u);
        self.scratch = u;
    }

    fn pool_of(&self, st: &ClusterState, j: JobId) -> String {
        match self.placed.get(&j) {
            Some(&(q, _)) => self.conf.queues[q].path.clone(),
            None => st.job(j).spec.pool_name().to_string(),
        }
    }

    /// Every queue but root: its guarantee as the minimum share (and as
    /// the fair share: the Capacity Scheduler has no other target), its
    /// maximum-capacity as the maximum.
    fn pool_shares(&self) -> Vec<PoolShare> {
        (1..self.conf.queues.len())
            .map(|q| {
                let g = [self.guaranteed(q, MAP), self.guaranteed(q, RED)];
                PoolShare {
                    name: self.conf.queues[q].path.clone(),
                    weight: 1.0,
                    min_share: g,
                    fair_share: g,
                    demand: self.shown[q],
                    starved_since: None,
                    preemptions: 0,
                    max_share: Some([self.max_slots(q, MAP) as f64, self.max_slots(q, RED) as f64]),
                }
            })
            .collect()
    }

    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }
}

/// Read the configuration's queues: `allocation_file` (relative to the
/// configuration file), or one `default` queue at 100%.
fn queues(cfg: &SchedulerConfig, o: &CapacityOptions) -> Result<CapacityConf, InputErrors> {
    let Some(f) = &o.allocation_file else {
        return Ok(CapacityConf::single_default());
    };
    let base = std::path::Path::new(&cfg.source.label)
        .parent()
        .map(|p| p.to_path_buf())
        .unwrap_or_default();
    let path = base.join(f);
    let src = Source::read(&path).map_err(|e| {
        InputErrors::from(
            cfg.source
                .error("capacity.allocation_file", e.message)
                .at_line(cfg.source.line_of("capacity.allocation_file")),
        )
    })?;
    conf::parse(&src.label, &src.text)
}

fn build(cfg: &SchedulerConfig, cluster: &Cluster) -> Result<Box<dyn Scheduler>, InputErrors> {
    let o: CapacityOptions = cfg.options()?;
    let c = queues(cfg, &o)?;
    Ok(Box::new(CapacityScheduler::new(
        cfg.label.clone(),
        c,
        cluster,
    )))
}

/// Registry entry.
pub fn info() -> PolicyInfo {
    PolicyInfo {
        name: "capacity",
        about: "YARN Capacity Scheduler: capacity-scheduler.xml queues, elastic up to maximum-capacity, user limits, FIFO leaves",
        build,
    }
}

/// Presets.
pub fn presets() -> Vec<Preset> {
    vec![Preset {
        name: "capacity",
        about: "YARN Capacity Scheduler with one `default` queue at 100% (give a capacity-scheduler.xml for more)",
        toml: "policy = \"capacity\"\n",
    }]
}

#[cfg(test)]
mod tests;
