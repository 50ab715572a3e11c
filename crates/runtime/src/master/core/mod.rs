//! The master's state and logic, free of networking: what each request
//! does to the cluster state, the scheduler and the journal.
//!
//! The cluster state and the scheduler are driven through the shared
//! [`Driver`] exactly as the simulator drives them; [`Book`] is the
//! master's [`Hooks`]: it turns launches, kills and compute admissions into
//! messages for workers (their *outbox*, sent with the next heartbeat reply)
//! and keeps what the state does not (programs, block ids, where each map
//! output lives, the block store's namespace).

use crate::jobfile::JobFile;
use crate::journal::{Journal, JournalError, Record};
use crate::program::Program;
use crate::proto::*;
use mrsched_metrics::{LatencyHistogram, Report as RunReport, RunInfo, Sample};
use mrsched_model::cluster::Member;
use mrsched_model::workload::CostParams;
use mrsched_model::{
    AttemptId, BlockRef, Cluster, DatasetId, Format, JobId, JobSpec, MapSpec, NodeId, ReduceSpec,
    SlotConfig, Source, TaskKind, Time,
};
use mrsched_sched::{Admission, Driver, Hooks, Scheduler, SchedulerConfig};
use mrsched_state::{
    Attempt, AttemptStatus, ClusterState, DatasetBlocks, JobStatus, Launch, StateEvent, TaskStatus,
};
use std::collections::BTreeMap;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

mod dfs;
pub mod idempotency;
mod jobsets;
mod liveness;
mod maponly;
mod quota;
mod replay;
pub mod replication;
mod users;
mod views;
mod workers;

pub use liveness::{ProbeOutcome, CONNECT_FAILURES_TO_CONVICT};

/// A user of the API.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    /// Name.
    pub name: String,
    /// May act on every user's jobs and files.
    pub admin: bool,
}

/// Master settings.
#[derive(Clone, Debug)]
pub struct MasterSettings {
    /// Workers the cluster waits for before it forms.
    pub workers: u32,
    /// The scheduler.
    pub scheduler: SchedulerConfig,
    /// Heartbeat interval workers use.
    pub heartbeat: Duration,
    /// A worker silent this long is lost.
    pub worker_timeout: Duration,
    /// Replicas per block (capped by the number of workers).
    pub replication: u32,
    /// Map output buffer per attempt, bytes.
    pub sort_buffer: u64,
    /// Attempts per task before its job fails.
    pub max_attempts: u32,
    /// Default reduce slow-start.
    pub reduce_slowstart: f64,
    /// Placement seed.
    pub seed: u64,
    /// Pool each worker's map and reduce slots into `map + reduce` unified
    /// slots that run either kind of task (Hadoop 2 containers; the
    /// machines of the MSJO model, which run one task of any kind at a
    /// time).
    pub unified_slots: bool,
    /// Resource bounds of the API.
    pub limits: crate::master::limits::Limits,
    /// Re-replication throttle.
    pub rereplication: replication::ReplicationSettings,
}

impl Default for MasterSettings {
    /// `mrsched master`'s defaults, for one worker: FIFO, 1 s heartbeats, a
    /// worker lost after 3 s of silence, 3 replicas, a 64 MB sort buffer, 4
    /// attempts, reduces after 5% of the maps.
    fn default() -> Self {
        MasterSettings {
            workers: 1,
            scheduler: SchedulerConfig::resolve("fifo").expect("a built-in preset"),
            heartbeat: Duration::from_secs(1),
            worker_timeout: Duration::from_secs(3),
            replication: 3,
            sort_buffer: 64 << 20,
            max_attempts: 4,
            reduce_slowstart: 0.05,
            seed: 1,
            unified_slots: false,
            limits: Default::default(),
            rereplication: Default::default(),
        }
    }
}

/// Builds a scheduler for a formed cluster in place of
/// [`MasterSettings::scheduler`] (embedding a policy that is not in the
/// registry, e.g. in tests).
pub type SchedulerFactory = std::sync::Arc<dyn Fn(&Cluster) -> Box<dyn Scheduler> + Send + Sync>;

/// An API error: HTTP status and message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    /// HTTP status code.
    pub status: u16,
    /// Message for the user.
    pub message: String,
}

impl ApiError {
    /// A 400.
    pub fn bad(m: impl Into<String>) -> ApiError {
        ApiError {
            status: 400,
            message: m.into(),
        }
    }
    /// A 403.
    pub fn forbidden(m: impl Into<String>) -> ApiError {
        ApiError {
            status: 403,
            message: m.into(),
        }
    }
    /// A 404.
    pub fn not_found(m: impl Into<String>) -> ApiError {
        ApiError {
            status: 404,
            message: m.into(),
        }
    }
    /// A 409.
    pub fn conflict(m: impl Into<String>) -> ApiError {
        ApiError {
            status: 409,
            message: m.into(),
        }
    }
    /// A 503.
    pub fn unavailable(m: impl Into<String>) -> ApiError {
        ApiError {
            status: 503,
            message: m.into(),
        }
    }
    /// A 500.
    pub fn internal(m: impl Into<String>) -> ApiError {
        ApiError {
            status: 500,
            message: m.into(),
        }
    }
}

impl From<JournalError> for ApiError {
    fn from(e: JournalError) -> Self {
        ApiError::internal(e.to_string())
    }
}

/// A worker as the master knows it.
#[derive(Clone, Debug)]
pub struct NodeInfo {
    /// Name.
    pub name: String,
    /// Rack.
    pub rack: String,
    /// Data-server URL.
    pub addr: String,
    /// Current session (0: none; the worker must register).
    pub session: u64,
    /// Last heartbeat.
    pub last_seen: Instant,
    /// Map slots.
    pub map_slots: u32,
    /// Reduce slots.
    pub reduce_slots: u32,
}

/// Messages waiting for a worker's next heartbeat.
#[derive(Clone, Debug, Default)]
pub struct Outbox {
    launches: Vec<TaskLaunch>,
    kills: Vec<String>,
    computes: Vec<String>,
    delete_jobs: Vec<u32>,
    delete_blocks: Vec<u64>,
    copies: Vec<BlockCopy>,
}

/// What the master keeps about a job besides the cluster state.
#[derive(Clone, Debug)]
pub struct JobMeta {
    /// Owner.
    pub user: String,
    /// Name.
    pub name: String,
    /// Program.
    pub program: Program,
    /// Output file.
    pub output: String,
    /// Reduce count.
    pub reduces: u32,
    /// Each map's block: `(block id, replica nodes)`.
    pub blocks: Vec<(u64, Vec<u32>)>,
    /// Each finished map's output: `(attempt key, node)`.
    pub map_out: Vec<Option<(String, u32)>>,
    /// Each finished reduce's output block: `(id, bytes, replicas)`; for a
    /// map-only job, each finished map's.
    pub reduce_out: Vec<Option<(u64, u64, Vec<u32>)>>,
    /// Maps that read locally / remotely.
    pub reads: [u32; 2],
    /// Its ended attempts, in the order they ended (the job page).
    pub ended: Vec<Attempt>,
}

/// A block of a file.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockMeta {
    /// Id.
    pub id: u64,
    /// Bytes.
    pub bytes: u64,
    /// Replica nodes.
    pub replicas: Vec<u32>,
}

/// A file of the block store.
#[derive(Clone, Debug)]
pub struct FileMeta {
    /// Owner.
    pub owner: String,
    /// Blocks in order.
    pub blocks: Vec<BlockMeta>,
    /// Its dataset in the cluster state, once a job read it.
    pub dataset: Option<DatasetId>,
    /// Job still writing it (the name is reserved).
    pub writer: Option<u32>,
    /// Replicas each block should have (re-replication restores them).
    pub replication: u32,
}

/// The master's driver hooks and bookkeeping.
pub struct Book {
    /// Master generation (restarts); part of attempt keys and block ids.
    pub gen: u64,
    /// Workers by node id.
    pub nodes: Vec<NodeInfo>,
    out: Vec<Outbox>,
    /// Jobs by id.
    pub jobs: Vec<JobMeta>,
    /// The block store's namespace.
    pub files: BTreeMap<String, FileMeta>,
    /// Output block of each running reduce attempt.
    reduce_blocks: BTreeMap<AttemptId, u64>,
    /// Output blocks of each running map attempt of map-only jobs: `(job,
    /// block, nodes to hold it)`.
    map_blocks: BTreeMap<AttemptId, Vec<(u32, u64, Vec<u32>)>>,
    replaying: bool,
    next_block: u64,
    rng: mrsched_model::rng::Rng,
    settings: MasterSettings,
    /// Scheduling time per heartbeat (`on_heartbeat` plus every `assign`
    /// and launch), nanoseconds.
    pub heartbeat_ns: LatencyHistogram,
    /// Whole heartbeat handling (reports, scheduling, journal commit),
    /// nanoseconds.
    pub heartbeat_total_ns: LatencyHistogram,
    /// Time of each `assign` call, nanoseconds.
    pub decisions: LatencyHistogram,
    /// Timeline.
    pub samples: Vec<Sample>,
    /// Running slots per pool over the last hour (the web UI's chart).
    pub pool_history: views::PoolHistoryLog,
    wakeups: Vec<(Time, JobId)>,
    /// Launches the state refused (scheduler bugs), with reasons.
    pub refused: Vec<String>,
    /// Journal records produced inside driver hooks, written at the next
    /// commit.
    records: Vec<Record>,
    /// Counters and latencies of `GET /metrics`.
    pub metrics: crate::master::metrics::Instruments,
    /// Re-replication: copies in flight and counters.
    pub repl: replication::Replicator,
    /// The next commit must wait for the disk even if lazy: a job ended or
    /// entered the cluster, which no crash may undo once others saw it.
    durable: bool,
}

impl Book {
    fn key(&self, a: AttemptId) -> String {
        format!("{}-{}", self.gen, a.0)
    }

    fn attempt_of(&self, key: &str) -> Option<AttemptId> {
        let (g, a) = key.split_once('-')?;
        if g.parse::<u64>().ok()? != self.gen {
            return None;
        }
        a.parse().ok().map(AttemptId)
    }

    fn new_block(&mut self) -> u64 {
        self.next_block += 1;
        (self.gen << 40) | self.next_block
    }

    /// Replica nodes for a new block: HDFS placement (the first near the
    /// writer), restricted to live workers.
    fn place(&mut self, st: &ClusterState, writer: Option<NodeId>, n: u32) -> Vec<u32> {
        let alive: Vec<u32> = (0..self.nodes.len() as u32)
            .filter(|&i| st.slots(NodeId(i)).alive)
            .collect();
        let want = (n as usize).min(alive.len());
        let mut out: Vec<u32> =
            mrsched_model::placement::place_block(st.cluster(), n as usize, writer, &mut self.rng)
                .into_iter()
                .map(|x| x.0)
                .filter(|x| alive.contains(x))
                .collect();
        for a in alive {
            if out.len() >= want {
                break;
            }
            if !out.contains(&a) {
                out.push(a);
            }
        }
        out
    }

    /// Data-server URLs of `replicas`, best first for a reader on `node`:
    /// itself, its rack, the rest; dead workers last.
    fn sources(&self, st: &ClusterState, node: NodeId, replicas: &[u32]) -> Vec<String> {
        let rack = st.cluster().rack_of(node);
        let mut v: Vec<(u8, u32)> = replicas
            .iter()
            .map(|&r| {
                let rn = NodeId(r);
                let rank = if !st.slots(rn).alive {
                    3
                } else if rn == node {
                    0
                } else if st.cluster().rack_of(rn) == rack {
                    1
                } else {
                    2
                };
                (rank, r)
            })
            .collect();
        v.sort();
        v.into_iter()
            .filter_map(|(_, r)| self.nodes.get(r as usize).map(|n| n.addr.clone()))
            .filter(|a| !a.is_empty())
            .collect()
    }

    fn job_ended(&mut self, st: &ClusterState, j: JobId) {
        let status = st.job(j).status;
        let meta = &self.jobs[j.idx()];
        let output = meta.output.clone();
        if status == JobStatus::Succeeded {
            let blocks = meta
                .reduce_out
                .iter()
                .map(|r| {
                    let (id, bytes, replicas) = r.clone().unwrap_or((0, 0, Vec::new()));
                    BlockMeta {
                        id,
                        bytes,
                        replicas,
                    }
                })
                .collect();
            self.files.insert(
                output,
                FileMeta {
                    owner: meta.user.clone(),
                    blocks,
                    dataset: None,
                    writer: None,
                    replication: self
                        .settings
                        .replication
                        .min(self.nodes.len() as u32)
                        .max(1),
                },
            );
            self.repl.dirty = true;
        } else {
            if self
                .files
                .get(&output)
                .is_some_and(|f| f.writer == Some(j.0))
            {
                self.files.remove(&output);
            }
            let dead: Vec<(u64, Vec<u32>)> = meta
                .reduce_out
                .iter()
                .flatten()
                .map(|(id, _, r)| (*id, r.clone()))
                .collect();
            for (id, reps) in dead {
                for r in reps {
                    if let Some(o) = self.out.get_mut(r as usize) {
                        o.delete_blocks.push(id);
                    }
                }
            }
        }
        for o in &mut self.out {
            o.delete_jobs.push(j.0);
        }
    }
}

impl Hooks for Book {
    fn launched(&mut self, st: &ClusterState, a: AttemptId) {
        if self.replaying {
            return;
        }
        let att = st.attempt(a).expect("just launched").clone();
        let key = self.key(a);
        let jobs: Vec<TaskJob> = att
            .tasks()
            .map(|t| {
                let m = &self.jobs[t.job.idx()];
                TaskJob {
                    job: t.job.0,
                    task: t.index,
                    program: m.program.clone(),
                    reduces: m.reduces,
                }
            })
            .collect();
        let map_only = match att.kind {
            TaskKind::Map => self.map_only_launch(st, &att),
            TaskKind::Reduce => Vec::new(),
        };
        let (block, reduce) = match att.kind {
            TaskKind::Map => {
                let (id, reps) = self.jobs[att.job.idx()].blocks[att.task as usize].clone();
                let sources = self.sources(st, att.node, &reps);
                (Some(BlockSource { id, sources }), None)
            }
            TaskKind::Reduce => {
                let id = self.new_block();
                self.reduce_blocks.insert(a, id);
                let reps = self.place(st, Some(att.node), self.settings.replication);
                let replicas = reps
                    .into_iter()
                    .filter(|&r| r != att.node.0)
                    .map(|r| (r, self.nodes[r as usize].addr.clone()))
                    .collect();
                (
                    None,
                    Some(ReduceTask {
                        partition: att.task,
                        output_block: id,
                        replicas,
                    }),
                )
            }
        };
        let launch = TaskLaunch {
            key,
            jobs,
            block,
            reduce,
            sort_buffer: self.settings.sort_buffer,
            map_only,
        };
        self.out[att.node.idx()].launches.push(launch);
    }

    fn react(&mut self, st: &ClusterState, ev: &StateEvent) {
        match ev {
            StateEvent::AttemptEnded(att) => {
                self.metrics.attempt_ended(att);
                self.reduce_blocks.remove(&att.id);
                self.map_only_ended(att);
                if let Some(m) = self.jobs.get_mut(att.job.idx()) {
                    let mut a = att.clone();
                    a.riders = Box::default();
                    m.ended.push(a);
                }
                // Preemption, a user kill or a job's end: stop it on its
                // worker. (Failed attempts were reported by the worker; lost
                // ones died with it.)
                if att.status == AttemptStatus::Killed && !self.replaying {
                    let key = self.key(att.id);
                    if let Some(o) = self.out.get_mut(att.node.idx()) {
                        o.kills.push(key);
                    }
                }
            }
            StateEvent::JobEnded(j) => {
                self.durable |= !self.replaying;
                self.job_ended(st, *j)
            }
            _ => {}
        }
    }

    fn compute_started(&mut self, st: &ClusterState, a: AttemptId) {
        if self.replaying {
            return;
        }
        if let Some(att) = st.attempt(a) {
            let key = self.key(a);
            self.out[att.node.idx()].computes.push(key);
        }
    }

    fn wakeup(&mut self, at: Time, job: JobId) {
        self.wakeups.push((at, job));
    }

    fn evicted(&mut self, st: &ClusterState, job: JobId, node: NodeId) {
        if !self.replaying {
            self.records.push(Record::Evicted {
                t: st.now().0,
                job: job.0,
                node: node.0,
            });
        }
        if let Some(o) = self.out.get_mut(node.idx()) {
            o.delete_jobs.push(job.0);
        }
        for t in self.jobs[job.idx()].map_out.iter_mut() {
            if t.as_ref().is_some_and(|(_, n)| *n == node.0) {
                *t = None;
            }
        }
    }

    fn timing(&self) -> bool {
        !self.replaying
    }

    fn decision(&mut self, ns: u64) {
        self.decisions.record(ns);
        self.metrics.assign(ns);
    }
}

/// The formed cluster: state, scheduler and the shared driver loop.
pub struct Formed {
    /// The JobTracker state.
    pub st: ClusterState,
    /// The policy.
    pub sched: Box<dyn Scheduler>,
    driver: Driver,
}

/// The master.
pub struct Core {
    factory: Option<SchedulerFactory>,
    epoch_us: u64,
    journal: Journal,
    /// The cluster, once formed.
    pub formed: Option<Formed>,
    /// Driver hooks and bookkeeping.
    pub b: Book,
    regs: Vec<NodeInfo>,
    next_session: u64,
    last_sample: Option<Instant>,
    /// Jobs of a job set waiting for their release times.
    held: std::collections::VecDeque<jobsets::Held>,
    /// Records the last replay could not apply, with why.
    replay_errors: Vec<String>,
    /// Jobs by `(user, idempotency key)` of their submission.
    keys: std::collections::HashMap<(String, String), u32>,
    /// The failure detector.
    live: liveness::Liveness,
}

fn now_unix_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_micros() as u64)
        .unwrap_or(0)
}

fn status_name(s: JobStatus) -> &'static str {
    match s {
        JobStatus::Submitted => "submitted",
        JobStatus::Rejected => "rejected",
        JobStatus::Running => "running",
        JobStatus::Succeeded => "succeeded",
        JobStatus::Failed => "failed",
        JobStatus::Killed => "killed",
    }
}

/// The cluster description of the registered workers.
pub fn live_cluster(nodes: &[NodeInfo], s: &MasterSettings) -> Cluster {
    let members: Vec<Member> = nodes
        .iter()
        .map(|n| Member {
            name: n.name.clone(),
            rack: n.rack.clone(),
            slots: if s.unified_slots {
                SlotConfig::Unified {
                    slots: n.map_slots + n.reduce_slots,
                }
            } else {
                SlotConfig::Split {
                    map: n.map_slots,
                    reduce: n.reduce_slots,
                }
            },
        })
        .collect();
    Cluster::of_members(
        "live",
        &members,
        Time::from_secs_f64(s.heartbeat.as_secs_f64()),
        s.reduce_slowstart,
        s.max_attempts,
    )
}

impl Core {
    /// Open the master in `journal`, replaying what it holds.
    pub fn open(
        mut journal: Journal,
        settings: MasterSettings,
        factory: Option<SchedulerFactory>,
    ) -> Result<Core, ApiError> {
        let epoch_us = match journal.meta("epoch_unix_us")? {
            Some(e) => e,
            None => {
                let e = now_unix_us();
                journal.set_meta("epoch_unix_us", e)?;
                e
            }
        };
        let gen = journal.meta("generation")?.unwrap_or(0) + 1;
        journal.set_meta("generation", gen)?;
        let records = journal.records()?;
        let metrics = crate::master::metrics::Instruments::new();
        let commits = metrics.clone();
        journal.observe_commits(Box::new(move |durable, d| {
            commits.journal_commit(durable, d)
        }));
        let mut core = Core {
            factory,
            epoch_us,
            journal,
            formed: None,
            b: Book {
                gen,
                nodes: Vec::new(),
                out: Vec::new(),
                jobs: Vec::new(),
                files: BTreeMap::new(),
                reduce_blocks: BTreeMap::new(),
                map_blocks: BTreeMap::new(),
                replaying: true,
                next_block: 0,
                rng: mrsched_model::rng::stream(settings.seed ^ gen, "live-placement"),
                settings,
                heartbeat_ns: LatencyHistogram::new(),
                heartbeat_total_ns: LatencyHistogram::new(),
                decisions: LatencyHistogram::new(),
                samples: Vec::new(),
                pool_history: views::PoolHistoryLog::default(),
                wakeups: Vec::new(),
                refused: Vec::new(),
                records: Vec::new(),
                metrics,
                repl: Default::default(),
                durable: false,
            },
            regs: Vec::new(),
            next_session: gen << 32,
            last_sample: None,
            held: Default::default(),
            replay_errors: Vec::new(),
            keys: Default::default(),
            live: Default::default(),
        };
        core.replay(records)?;
        core.b.replaying = false;
        Ok(core)
    }

    /// The cluster clock.
    pub fn now(&self) -> Time {
        Time(now_unix_us().saturating_sub(self.epoch_us))
    }

    fn session(&mut self) -> u64 {
        self.next_session += 1;
        self.next_session
    }

    /// Build the state and scheduler for `nodes`.
    fn form(&mut self, nodes: Vec<NodeInfo>) -> Result<(), ApiError> {
        let cluster = live_cluster(&nodes, &self.b.settings);
        let sched = match &self.factory {
            Some(f) => f(&cluster),
            None => self
                .b
                .settings
                .scheduler
                .build(&cluster)
                .map_err(|e| ApiError::internal(format!("cannot build the scheduler: {e}")))?,
        };
        // Configuration warnings (e.g. min shares above capacity) go to the
        // master's log, as `simulate` prints them.
        for w in sched.warnings() {
            eprintln!("warning: {w}");
        }
        let mut st = ClusterState::new(cluster);
        Driver::init(&mut st, sched.as_ref());
        self.b.out = vec![Outbox::default(); nodes.len()];
        self.b.nodes = nodes;
        self.formed = Some(Formed {
            st,
            sched,
            driver: Driver::new(),
        });
        Ok(())
    }

    fn formed_mut(&mut self) -> Result<&mut Formed, ApiError> {
        self.formed.as_mut().ok_or_else(not_formed)
    }

    fn advance(&mut self, t: Time) {
        if let Some(f) = self.formed.as_mut() {
            f.st.advance_to(t);
        }
    }

    /// Deliver events and hand over compute admissions.
    fn settle(&mut self) {
        if let Some(f) = self.formed.as_mut() {
            f.driver.settle(&mut f.st, f.sched.as_mut(), &mut self.b);
        }
        // Records made inside driver hooks (evictions) go to the journal
        // now, in their place among the records pushed directly.
        for r in self.b.records.drain(..) {
            self.journal.push(r);
        }
    }

    /// Commit the journal durably (answers to users, membership).
    fn commit(&mut self) -> Result<(), ApiError> {
        self.b.durable = false;
        for r in self.b.records.drain(..) {
            self.journal.push(r);
        }
        Ok(self.journal.commit()?)
    }

    /// Commit without waiting for the disk (heartbeats, ticks); the tick
    /// syncs every second.
    fn commit_lazy(&mut self) -> Result<(), ApiError> {
        if std::mem::take(&mut self.b.durable) {
            return self.commit();
        }
        for r in self.b.records.drain(..) {
            self.journal.push(r);
        }
        Ok(self.journal.commit_lazy()?)
    }

    /// Make every journaled record durable (at shutdown).
    pub fn sync(&mut self) -> Result<(), ApiError> {
        self.commit_lazy()?;
        Ok(self.journal.sync()?)
    }

    /// Cluster readiness.
    pub fn health(&self) -> Health {
        let (workers, ready) = match &self.formed {
            Some(f) => (
                (0..self.b.nodes.len())
                    .filter(|&i| f.st.slots(NodeId(i as u32)).alive && self.b.nodes[i].session != 0)
                    .count() as u32,
                true,
            ),
            None => (self.regs.len() as u32, false),
        };
        Health {
            workers,
            expected: self.b.settings.workers,
            ready,
        }
    }

    /// Heartbeat interval for workers.
    pub fn heartbeat_ms(&self) -> u64 {
        self.b.settings.heartbeat.as_millis().max(1) as u64
    }
}

fn not_formed() -> ApiError {
    ApiError::unavailable("the cluster has not formed yet")
}

#[cfg(test)]
pub(crate) mod fixtures;
#[cfg(test)]
mod liveness_tests;
#[cfg(test)]
mod tests;

#[cfg(test)]
mod restart_tests;
