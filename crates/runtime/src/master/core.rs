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
use mrsched_model::cluster::{Faults, Heartbeat as HeartbeatCfg, Rack, Rates};
use mrsched_model::workload::CostParams;
use mrsched_model::{
    AttemptId, BlockRef, Cluster, DatasetId, Format, JobId, JobSpec, MapSpec, Node, NodeId, RackId,
    ReduceSpec, SlotConfig, Source, TaskKind, Time,
};
use mrsched_sched::{Admission, Driver, Hooks, Scheduler, SchedulerConfig};
use mrsched_state::{
    AttemptStatus, ClusterState, DatasetBlocks, JobStatus, Launch, StateEvent, TaskStatus,
};
use std::collections::BTreeMap;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

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
    /// Each finished reduce's output block: `(id, bytes, replicas)`.
    pub reduce_out: Vec<Option<(u64, u64, Vec<u32>)>>,
    /// Maps that read locally / remotely.
    pub reads: [u32; 2],
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
    replaying: bool,
    next_block: u64,
    rng: mrsched_model::rng::Rng,
    settings: MasterSettings,
    /// Scheduling time per heartbeat (`on_heartbeat` plus every `assign`
    /// and launch), nanoseconds.
    pub heartbeat_ns: LatencyHistogram,
    /// Time of each `assign` call, nanoseconds.
    pub decisions: LatencyHistogram,
    /// Timeline.
    pub samples: Vec<Sample>,
    wakeups: Vec<(Time, JobId)>,
    /// Launches the state refused (scheduler bugs), with reasons.
    pub refused: Vec<String>,
    /// Journal records produced inside driver hooks, written at the next
    /// commit.
    records: Vec<Record>,
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
            .filter(|&i| st.node(NodeId(i)).alive)
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
                let rank = if !st.node(rn).alive {
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
                },
            );
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
        };
        self.out[att.node.idx()].launches.push(launch);
    }

    fn react(&mut self, st: &ClusterState, ev: &StateEvent) {
        match ev {
            StateEvent::AttemptEnded(att) => {
                self.reduce_blocks.remove(&att.id);
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
            StateEvent::JobEnded(j) => self.job_ended(st, *j),
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
    let mut racks: Vec<Rack> = Vec::new();
    let mut out = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        let r = match racks.iter().position(|r| r.name == n.rack) {
            Some(r) => r,
            None => {
                racks.push(Rack {
                    name: n.rack.clone(),
                    nodes: Vec::new(),
                });
                racks.len() - 1
            }
        };
        racks[r].nodes.push(NodeId(i as u32));
        out.push(Node {
            name: n.name.clone(),
            rack: RackId(r as u32),
            group: "workers".into(),
            slots: SlotConfig::Split {
                map: n.map_slots,
                reduce: n.reduce_slots,
            },
            max_reducers: 3 * n.reduce_slots,
            speed: 1.0,
            disk_mb: None,
        });
    }
    Cluster {
        name: "live".into(),
        nodes: out,
        racks,
        rates: Rates::default(),
        heartbeat: HeartbeatCfg {
            interval: Time::from_secs_f64(s.heartbeat.as_secs_f64()).max(Time(1)),
            jitter: Time::ZERO,
            on_completion: true,
        },
        reduce_slowstart: s.reduce_slowstart,
        max_attempts: s.max_attempts,
        task_overhead: Time::ZERO,
        capacity: Vec::new(),
        faults: Faults::default(),
    }
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
                replaying: true,
                next_block: 0,
                rng: mrsched_model::rng::stream(settings.seed ^ gen, "live-placement"),
                settings,
                heartbeat_ns: LatencyHistogram::new(),
                decisions: LatencyHistogram::new(),
                samples: Vec::new(),
                wakeups: Vec::new(),
                refused: Vec::new(),
                records: Vec::new(),
            },
            regs: Vec::new(),
            next_session: gen << 32,
            last_sample: None,
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

    fn replay(&mut self, records: Vec<Record>) -> Result<(), ApiError> {
        let mut pending_nodes = Vec::new();
        for r in records {
            if let Record::Node {
                name,
                rack,
                map_slots,
                reduce_slots,
            } = &r
            {
                pending_nodes.push(NodeInfo {
                    name: name.clone(),
                    rack: rack.clone(),
                    addr: String::new(),
                    session: 0,
                    last_seen: Instant::now(),
                    map_slots: *map_slots,
                    reduce_slots: *reduce_slots,
                });
                continue;
            }
            if self.formed.is_none() && !pending_nodes.is_empty() {
                self.form(std::mem::take(&mut pending_nodes))?;
            }
            if let Err(e) = self.replay_one(r) {
                eprintln!("mrsched master: journal replay: {}", e.message);
            }
        }
        if self.formed.is_none() && !pending_nodes.is_empty() {
            self.form(pending_nodes)?;
        }
        Ok(())
    }

    fn replay_one(&mut self, r: Record) -> Result<(), ApiError> {
        match r {
            Record::Node { .. } => {}
            Record::File {
                name,
                owner,
                blocks,
            } => {
                self.b.files.insert(
                    name,
                    FileMeta {
                        owner,
                        blocks: blocks
                            .into_iter()
                            .map(|(id, bytes, replicas)| BlockMeta {
                                id,
                                bytes,
                                replicas,
                            })
                            .collect(),
                        dataset: None,
                        writer: None,
                    },
                );
            }
            Record::FileRemoved { name } => {
                self.b.files.remove(&name);
            }
            Record::Submit {
                t,
                user,
                label,
                text,
                json,
                datasets,
                rejected,
            } => {
                self.advance(Time(t));
                let u = User {
                    name: user,
                    admin: true,
                };
                let decision = match rejected {
                    None => Admission::Admit,
                    Some(r) => Admission::Reject(r),
                };
                self.submit_inner(&u, &label, &text, json, Some((decision, datasets)))?;
            }
            Record::MapDone {
                t,
                node,
                tasks,
                key,
            } => {
                self.advance(Time(t));
                let f = self.formed_mut()?;
                let (j, task) = tasks[0];
                let riders = tasks[1..].iter().map(|&(j, t)| (JobId(j), t)).collect();
                let l = Launch::Map {
                    job: JobId(j),
                    task,
                    riders,
                };
                let a =
                    f.st.launch(NodeId(node), &l)
                        .map_err(|e| ApiError::internal(e.to_string()))?;
                f.st.finish_map(a)
                    .map_err(|e| ApiError::internal(e.to_string()))?;
                for (j, t) in tasks {
                    self.b.jobs[j as usize].map_out[t as usize] = Some((key.clone(), node));
                }
            }
            Record::ReduceDone {
                t,
                node,
                job,
                task,
                block,
                bytes,
                replicas,
            } => {
                self.advance(Time(t));
                self.b.jobs[job as usize].reduce_out[task as usize] =
                    Some((block, bytes, replicas));
                let f = self.formed.as_mut().ok_or_else(not_formed)?;
                let a =
                    f.st.launch(NodeId(node), &Launch::reduce(JobId(job), task))
                        .map_err(|e| ApiError::internal(e.to_string()))?;
                f.st.finish_copy(a)
                    .map_err(|e| ApiError::internal(e.to_string()))?;
                f.st.take_compute_started();
                f.st.finish_reduce(a)
                    .map_err(|e| ApiError::internal(e.to_string()))?;
            }
            Record::Failed {
                t,
                node,
                map,
                tasks,
                reason,
            } => {
                self.advance(Time(t));
                let f = self.formed.as_mut().ok_or_else(not_formed)?;
                let (j, task) = tasks[0];
                let l = if map {
                    Launch::Map {
                        job: JobId(j),
                        task,
                        riders: tasks[1..].iter().map(|&(j, t)| (JobId(j), t)).collect(),
                    }
                } else {
                    Launch::reduce(JobId(j), task)
                };
                let a =
                    f.st.launch(NodeId(node), &l)
                        .map_err(|e| ApiError::internal(e.to_string()))?;
                f.st.fail_attempt(a, &reason)
                    .map_err(|e| ApiError::internal(e.to_string()))?;
            }
            Record::NodeLost { t, node } => {
                self.advance(Time(t));
                self.formed_mut()?.st.node_lost(NodeId(node));
                self.forget_outputs_on(node);
            }
            Record::NodeBack { t, node } => {
                self.advance(Time(t));
                self.formed_mut()?.st.node_recovered(NodeId(node));
            }
            Record::OutputLost { t, job, task, node } => {
                self.advance(Time(t));
                self.formed_mut()?
                    .st
                    .map_output_lost(JobId(job), task, NodeId(node));
                self.b.jobs[job as usize].map_out[task as usize] = None;
            }
            Record::Evicted { t, job, node } => {
                self.advance(Time(t));
                let f = self.formed.as_mut().ok_or_else(not_formed)?;
                f.st.evict_outputs(JobId(job), NodeId(node));
                for o in self.b.jobs[job as usize].map_out.iter_mut() {
                    if o.as_ref().is_some_and(|(_, n)| *n == node) {
                        *o = None;
                    }
                }
            }
            Record::Killed { t, job, reason } => {
                self.advance(Time(t));
                let _ = self.formed_mut()?.st.kill_job(JobId(job), &reason);
            }
        }
        self.settle();
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
    }

    fn commit(&mut self) -> Result<(), ApiError> {
        for r in self.b.records.drain(..) {
            self.journal.push(r);
        }
        Ok(self.journal.commit()?)
    }

    /// Cluster readiness.
    pub fn health(&self) -> Health {
        let (workers, ready) = match &self.formed {
            Some(f) => (
                (0..self.b.nodes.len())
                    .filter(|&i| f.st.node(NodeId(i as u32)).alive && self.b.nodes[i].session != 0)
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

    // -----------------------------------------------------------------
    // Worker API.
    // -----------------------------------------------------------------

    /// A worker registers (first time, after a restart of either side, or
    /// after it was declared lost).
    pub fn register(&mut self, reg: Register) -> Result<Registered, ApiError> {
        let session = self.session();
        let heartbeat_ms = self.heartbeat_ms();
        let info = NodeInfo {
            name: reg.name.clone(),
            rack: reg.rack.clone(),
            addr: reg.addr.clone(),
            session,
            last_seen: Instant::now(),
            map_slots: reg.map_slots,
            reduce_slots: reg.reduce_slots,
        };
        if reg.map_slots == 0 {
            return Err(ApiError::bad("a worker needs at least one map slot"));
        }
        if self.formed.is_none() {
            let idx = match self.regs.iter().position(|n| n.name == reg.name) {
                Some(i) => {
                    self.regs[i] = info;
                    i
                }
                None => {
                    self.regs.push(info);
                    self.regs.len() - 1
                }
            };
            if self.regs.len() as u32 >= self.b.settings.workers {
                let nodes = std::mem::take(&mut self.regs);
                for n in &nodes {
                    self.journal.push(Record::Node {
                        name: n.name.clone(),
                        rack: n.rack.clone(),
                        map_slots: n.map_slots,
                        reduce_slots: n.reduce_slots,
                    });
                }
                self.form(nodes)?;
                self.commit()?;
            }
            return Ok(Registered {
                node: idx as u32,
                session,
                heartbeat_ms,
            });
        }
        let now = self.now();
        let Some(n) = self.b.nodes.iter().position(|x| x.name == reg.name) else {
            let names: Vec<&str> = self.b.nodes.iter().map(|n| n.name.as_str()).collect();
            return Err(ApiError::conflict(format!(
                "the cluster formed with workers {}; `{}` is not one of them (start the master with a new --dir to form a larger cluster)",
                names.join(", "),
                reg.name
            )));
        };
        let node = NodeId(n as u32);
        self.advance(now);
        {
            let old = &mut self.b.nodes[n];
            old.addr = reg.addr.clone();
            old.session = session;
            old.last_seen = Instant::now();
        }
        let out = &mut self.b.out[n];
        out.launches.clear();
        out.kills.clear();
        out.computes.clear();
        let f = self.formed.as_mut().expect("formed");
        let busy = f.st.attempts_on(node).next().is_some();
        if !f.st.node(node).alive {
            f.st.node_recovered(node);
            self.journal.push(Record::NodeBack {
                t: now.0,
                node: n as u32,
            });
        } else if busy {
            // It came back without its running attempts: they are lost.
            f.st.node_lost(node);
            f.st.node_recovered(node);
            self.journal.push(Record::NodeLost {
                t: now.0,
                node: n as u32,
            });
            self.journal.push(Record::NodeBack {
                t: now.0,
                node: n as u32,
            });
            for m in &mut self.b.jobs {
                for o in m.map_out.iter_mut() {
                    if o.as_ref().is_some_and(|(_, x)| *x == n as u32) {
                        *o = None;
                    }
                }
            }
        } else {
            // Same node, new session (the master restarted): check that the
            // map outputs the journal says it holds are still there.
            let held: std::collections::HashSet<(u32, &str)> =
                reg.outputs.iter().map(|(j, k)| (*j, k.as_str())).collect();
            for (j, m) in self.b.jobs.iter_mut().enumerate() {
                if f.st.job(JobId(j as u32)).status != JobStatus::Running {
                    continue;
                }
                for (t, o) in m.map_out.iter_mut().enumerate() {
                    let missing = matches!(o, Some((k, x)) if *x == n as u32 && !held.contains(&(j as u32, k.as_str())));
                    if missing {
                        *o = None;
                        f.st.map_output_lost(JobId(j as u32), t as u32, node);
                        self.journal.push(Record::OutputLost {
                            t: now.0,
                            job: j as u32,
                            task: t as u32,
                            node: n as u32,
                        });
                    }
                }
            }
        }
        self.settle();
        self.commit()?;
        Ok(Registered {
            node: n as u32,
            session,
            heartbeat_ms,
        })
    }

    /// A heartbeat: apply reports, schedule the node, answer with its
    /// messages.
    pub fn heartbeat(&mut self, hb: Heartbeat) -> Result<HeartbeatReply, ApiError> {
        let rereg = HeartbeatReply {
            reregister: true,
            ..Default::default()
        };
        if self.formed.is_none() {
            let known = self.regs.iter().any(|r| r.session == hb.session);
            return Ok(if known {
                HeartbeatReply::default()
            } else {
                rereg
            });
        }
        let n = hb.node as usize;
        let valid = self.b.nodes.get(n).is_some_and(|x| x.session == hb.session)
            && self
                .formed
                .as_ref()
                .expect("formed")
                .st
                .node(NodeId(hb.node))
                .alive;
        if !valid {
            return Ok(rereg);
        }
        let now = self.now();
        self.advance(now);
        self.b.nodes[n].last_seen = Instant::now();
        for r in hb.reports {
            self.apply_report(NodeId(hb.node), r, now);
            self.settle();
        }
        let t0 = Instant::now();
        let f = self.formed.as_mut().expect("formed");
        if let Err(e) =
            f.driver
                .heartbeat(&mut f.st, f.sched.as_mut(), &mut self.b, NodeId(hb.node))
        {
            self.b.refused.push(e.to_string());
            eprintln!("mrsched master: {e}");
        }
        self.b.heartbeat_ns.record(t0.elapsed().as_nanos() as u64);
        self.settle();
        self.commit()?;
        let o = std::mem::take(&mut self.b.out[n]);
        Ok(HeartbeatReply {
            reregister: false,
            launches: o.launches,
            kills: o.kills,
            computes: o.computes,
            delete_jobs: o.delete_jobs,
            delete_blocks: o.delete_blocks,
        })
    }

    fn apply_report(&mut self, node: NodeId, r: Report, now: Time) {
        let f = self.formed.as_mut().expect("formed");
        let running = |key: &str, b: &Book, st: &ClusterState| {
            b.attempt_of(key)
                .filter(|a| st.attempt(*a).is_some_and(|x| x.node == node))
        };
        match r {
            Report::MapDone { key, read, .. } => {
                let Some(a) = running(&key, &self.b, &f.st) else {
                    return;
                };
                let att = f.st.attempt(a).expect("running").clone();
                if att.kind != TaskKind::Map {
                    return;
                }
                let tasks: Vec<(u32, u32)> = att.tasks().map(|t| (t.job.0, t.index)).collect();
                for &(j, t) in &tasks {
                    self.b.jobs[j as usize].map_out[t as usize] = Some((key.clone(), node.0));
                }
                if f.st.finish_map(a).is_ok() {
                    let m = &mut self.b.jobs[att.job.idx()];
                    m.reads[(read == ReadFrom::Remote) as usize] += 1;
                    self.journal.push(Record::MapDone {
                        t: now.0,
                        node: node.0,
                        tasks,
                        key,
                    });
                }
            }
            Report::CopyDone { key } => {
                if let Some(a) = running(&key, &self.b, &f.st) {
                    let _ = f.st.finish_copy(a);
                }
            }
            Report::ReduceDone {
                key,
                bytes,
                replicas,
            } => {
                let Some(a) = running(&key, &self.b, &f.st) else {
                    return;
                };
                let att = f.st.attempt(a).expect("running").clone();
                let Some(&block) = self.b.reduce_blocks.get(&a) else {
                    return;
                };
                if att.kind != TaskKind::Reduce {
                    return;
                }
                let mut reps = vec![node.0];
                reps.extend(replicas.into_iter().filter(|r| *r != node.0));
                self.b.jobs[att.job.idx()].reduce_out[att.task as usize] =
                    Some((block, bytes, reps.clone()));
                if f.st.finish_reduce(a).is_ok() {
                    self.journal.push(Record::ReduceDone {
                        t: now.0,
                        node: node.0,
                        job: att.job.0,
                        task: att.task,
                        block,
                        bytes,
                        replicas: reps,
                    });
                } else {
                    self.b.jobs[att.job.idx()].reduce_out[att.task as usize] = None;
                }
            }
            Report::Failed { key, error } => {
                let Some(a) = running(&key, &self.b, &f.st) else {
                    return;
                };
                let att = f.st.attempt(a).expect("running").clone();
                let tasks: Vec<(u32, u32)> = att.tasks().map(|t| (t.job.0, t.index)).collect();
                if f.st.fail_attempt(a, &error).is_ok() {
                    self.journal.push(Record::Failed {
                        t: now.0,
                        node: node.0,
                        map: att.kind == TaskKind::Map,
                        tasks,
                        reason: error,
                    });
                }
            }
            Report::FetchFailed { job, map, key } => {
                let Some(m) = self.b.jobs.get_mut(job as usize) else {
                    return;
                };
                let Some(Some((k, holder))) = m.map_out.get(map as usize).cloned() else {
                    return;
                };
                if k != key {
                    return;
                }
                m.map_out[map as usize] = None;
                f.st.map_output_lost(JobId(job), map, NodeId(holder));
                self.journal.push(Record::OutputLost {
                    t: now.0,
                    job,
                    task: map,
                    node: holder,
                });
            }
        }
    }

    /// Where a job's finished map outputs are, for its reducers. A done map
    /// whose output is nowhere (its worker was lost while no reducer needed
    /// it, and a reducer runs again) is sent to run again.
    pub fn map_outputs(&mut self, job: u32) -> Result<MapOutputs, ApiError> {
        let now = self.now();
        self.advance(now);
        let f = self.formed.as_mut().ok_or_else(not_formed)?;
        let j =
            f.st.get_job(JobId(job))
                .ok_or_else(|| ApiError::not_found(format!("no job {job}")))?;
        let m = &self.b.jobs[job as usize];
        let mut done = Vec::new();
        let mut missing = Vec::new();
        for (i, t) in j.maps.iter().enumerate() {
            if t.status != TaskStatus::Done {
                continue;
            }
            match &m.map_out[i] {
                Some((k, n)) if f.st.node(NodeId(*n)).alive => {
                    done.push((i as u32, k.clone(), self.b.nodes[*n as usize].addr.clone()))
                }
                _ => missing.extend(t.node.map(|n| (i as u32, n))),
            }
        }
        let out = MapOutputs {
            total: j.maps.len() as u32,
            done,
            ended: j.status != JobStatus::Running,
        };
        if !missing.is_empty() && !out.ended {
            for (t, n) in missing {
                f.st.map_output_lost(JobId(job), t, n);
                self.b.jobs[job as usize].map_out[t as usize] = None;
                self.journal.push(Record::OutputLost {
                    t: now.0,
                    job,
                    task: t,
                    node: n.0,
                });
            }
            self.settle();
            self.commit()?;
        }
        Ok(out)
    }

    fn forget_outputs_on(&mut self, node: u32) {
        for m in &mut self.b.jobs {
            for o in m.map_out.iter_mut() {
                if o.as_ref().is_some_and(|(_, x)| *x == node) {
                    *o = None;
                }
            }
        }
    }

    /// Periodic work: the clock, scheduler timers, lost workers, samples.
    pub fn tick(&mut self) -> Result<(), ApiError> {
        if self.formed.is_none() {
            return Ok(());
        }
        let now = self.now();
        self.advance(now);
        let timeout = self.b.settings.worker_timeout;
        let mut lost = Vec::new();
        let f = self.formed.as_mut().expect("formed");
        for (i, n) in self.b.nodes.iter_mut().enumerate() {
            let id = NodeId(i as u32);
            if f.st.node(id).alive && n.last_seen.elapsed() > timeout {
                f.st.node_lost(id);
                n.session = 0;
                self.journal.push(Record::NodeLost {
                    t: now.0,
                    node: i as u32,
                });
                lost.push(i as u32);
                eprintln!(
                    "mrsched master: worker {} lost (no heartbeat for {:.1} s)",
                    n.name,
                    timeout.as_secs_f64()
                );
            }
        }
        for n in lost {
            self.forget_outputs_on(n);
        }
        let f = self.formed.as_mut().expect("formed");
        let due: Vec<JobId> = self
            .b
            .wakeups
            .iter()
            .filter(|(t, _)| *t <= now)
            .map(|x| x.1)
            .collect();
        self.b.wakeups.retain(|(t, _)| *t > now);
        for j in due {
            f.st.release_reduces(j);
        }
        if f.sched.next_timer().is_some_and(|t| t <= now) {
            f.driver
                .fire_timer(&mut f.st, f.sched.as_mut(), &mut self.b);
        }
        if self
            .last_sample
            .is_none_or(|s| s.elapsed() >= Duration::from_secs(1))
        {
            self.last_sample = Some(Instant::now());
            let u = f.st.usage();
            self.b.samples.push(Sample {
                t_s: now.as_secs_f64(),
                busy_slots: u.busy,
                available_slots: u.available,
                running_jobs: f.st.active_jobs().len() as u32,
                intermediate_mb: f.st.intermediate_mb(),
            });
        }
        self.settle();
        self.commit()
    }

    // -----------------------------------------------------------------
    // User API.
    // -----------------------------------------------------------------

    /// Submit a job file.
    pub fn submit(
        &mut self,
        user: &User,
        label: &str,
        text: &str,
        json: bool,
    ) -> Result<Submitted, ApiError> {
        let r = self.submit_inner(user, label, text, json, None);
        self.commit()?;
        r
    }

    fn submit_inner(
        &mut self,
        user: &User,
        label: &str,
        text: &str,
        json: bool,
        replay: Option<(Admission, Vec<(String, DatasetBlocks)>)>,
    ) -> Result<Submitted, ApiError> {
        let Some(f) = self.formed.as_mut() else {
            return Err(ApiError::unavailable(format!(
                "the cluster has not formed yet ({} of {} workers registered)",
                self.regs.len(),
                self.b.settings.workers
            )));
        };
        let format = if json { Format::Json } else { Format::Toml };
        let src = Source::new(label, text, format);
        let jf = JobFile::parse(&src).map_err(|e| ApiError::bad(e.to_string()))?;
        let owner = match &jf.user {
            Some(u) if *u != user.name && !user.admin => {
                return Err(ApiError::forbidden(format!(
                    "{label}: user: `{}` may not submit jobs as `{u}`",
                    user.name
                )))
            }
            Some(u) => u.clone(),
            None => user.name.clone(),
        };
        let inputs: Vec<String> = jf.input.names().iter().map(|s| s.to_string()).collect();
        for i in &inputs {
            match self.b.files.get(i) {
                Some(fm) if fm.writer.is_none() => {}
                Some(_) => {
                    return Err(ApiError::bad(
                        src.error("input", format!("`{i}` is still being written by a job"))
                            .to_string(),
                    ))
                }
                None => {
                    return Err(ApiError::bad(
                        src.error(
                            "input",
                            format!("no file `{i}` in the block store (see `mrsched dfs ls`)"),
                        )
                        .to_string(),
                    ))
                }
            }
        }
        if self.b.files.contains_key(&jf.output) && replay.is_none() {
            return Err(ApiError::bad(
                src.error(
                    "output",
                    format!(
                        "`{}` already exists (remove it with `mrsched dfs rm`)",
                        jf.output
                    ),
                )
                .to_string(),
            ));
        }
        // Checked: from here on the job is created whole.
        let mut new_datasets = Vec::new();
        let replayed_datasets = replay.as_ref().map(|r| r.1.clone());
        let mut input_ids = Vec::new();
        let mut maps = Vec::new();
        let mut blocks = Vec::new();
        for i in &inputs {
            let fm = self.b.files.get_mut(i).expect("checked");
            let ds = match fm.dataset {
                Some(d) => d,
                None => {
                    let db = match replayed_datasets
                        .as_ref()
                        .and_then(|v| v.iter().find(|(n, _)| n == i))
                    {
                        Some((_, db)) => db.clone(),
                        None => {
                            let reps: Vec<Vec<NodeId>> = fm
                                .blocks
                                .iter()
                                .map(|b| b.replicas.iter().map(|&r| NodeId(r)).collect())
                                .collect();
                            let sizes = fm
                                .blocks
                                .iter()
                                .map(|b| b.bytes as f64 / 1_048_576.0)
                                .collect();
                            DatasetBlocks::new(i, sizes, &reps)
                        }
                    };
                    new_datasets.push((i.clone(), db.clone()));
                    let d = f.st.add_dataset(db);
                    fm.dataset = Some(d);
                    d
                }
            };
            input_ids.push(ds);
            for (bi, b) in fm.blocks.iter().enumerate() {
                maps.push(MapSpec {
                    block: Some(BlockRef {
                        dataset: ds,
                        index: bi as u32,
                    }),
                    input_mb: b.bytes as f64 / 1_048_576.0,
                    time: None,
                });
                blocks.push((b.id, b.replicas.clone()));
            }
        }
        let secs = |s: Option<f64>| s.map(Time::from_secs_f64);
        let spec = JobSpec {
            name: jf.display_name(),
            user: owner.clone(),
            pool: jf.pool.clone(),
            priority: jf.priority,
            weight: jf.weight,
            arrival: f.st.now(),
            input: input_ids,
            maps,
            reduces: vec![ReduceSpec { time: None }; jf.reduces as usize],
            cost: CostParams {
                map_cpu_s_per_mb: 0.05,
                map_output_ratio: 1.0,
                reduce_cpu_s_per_mb: 0.05,
                reduce_output_ratio: 1.0,
            },
            deadline: secs(jf.deadline_s),
            goal: secs(jf.goal_s),
            expected_map: None,
            min_slots: jf.min_slots,
            max_slots: jf.max_slots,
            shuffle_delay_factor: 0.0,
            locality_wait: None,
            class: jf.class.clone(),
            scan_fraction: 0.0,
            reduce_slowstart: jf.reduce_slowstart,
        };
        let nmaps = spec.maps.len();
        self.b.jobs.push(JobMeta {
            user: owner.clone(),
            name: spec.name.clone(),
            program: jf.program.clone(),
            output: jf.output.clone(),
            reduces: jf.reduces,
            blocks,
            map_out: vec![None; nmaps],
            reduce_out: vec![None; jf.reduces as usize],
            reads: [0, 0],
        });
        let (j, decision) = match replay {
            None => f
                .driver
                .submit(&mut f.st, f.sched.as_mut(), &mut self.b, spec),
            Some((recorded, _)) => {
                let j = f.st.submit(spec);
                f.driver.deliver(&mut f.st, f.sched.as_mut(), &mut self.b);
                // The scheduler sees the arrival; the journal's decision stands.
                let _ = f.sched.on_submit(&f.st, j);
                f.driver
                    .decide(&mut f.st, f.sched.as_mut(), &mut self.b, j, &recorded);
                (j, recorded)
            }
        };
        debug_assert_eq!(j.idx() + 1, self.b.jobs.len());
        if decision == Admission::Admit {
            self.b.files.insert(
                jf.output.clone(),
                FileMeta {
                    owner: owner.clone(),
                    blocks: Vec::new(),
                    dataset: None,
                    writer: Some(j.0),
                },
            );
        }
        let rejected = match &decision {
            Admission::Admit => None,
            Admission::Reject(r) => Some(r.clone()),
        };
        self.journal.push(Record::Submit {
            t: f.st.now().0,
            user: owner,
            label: label.to_string(),
            text: text.to_string(),
            json,
            datasets: new_datasets,
            rejected: rejected.clone(),
        });
        self.settle();
        Ok(Submitted {
            id: j.0,
            status: if rejected.is_some() {
                "rejected".into()
            } else {
                "running".into()
            },
            reason: rejected,
        })
    }

    /// A job's view.
    pub fn job_view(&self, id: u32) -> Result<JobView, ApiError> {
        let f = self.formed.as_ref().ok_or_else(not_formed)?;
        let j =
            f.st.get_job(JobId(id))
                .ok_or_else(|| ApiError::not_found(format!("no job {id} (see `mrsched jobs`)")))?;
        let m = &self.b.jobs[id as usize];
        let mut loc = [0u32; 3];
        for t in j.maps.iter().filter(|t| t.status == TaskStatus::Done) {
            let l = t.locality.level().min(2);
            loc[l] += 1;
        }
        Ok(JobView {
            id,
            name: m.name.clone(),
            user: m.user.clone(),
            pool: j.spec.pool_name().to_string(),
            program: m.program.kind().to_string(),
            status: status_name(j.status).to_string(),
            reason: j.reason.clone(),
            maps_done: j.map_counts.done,
            maps: j.maps.len() as u32,
            maps_running: j.map_counts.running,
            reduces_done: j.reduce_counts.done,
            reduces: j.reduces.len() as u32,
            reduces_running: j.reduce_counts.running,
            submitted_s: j.submitted.as_secs_f64(),
            finished_s: j.finish.map(|t| t.as_secs_f64()),
            output: m.output.clone(),
            locality: loc,
            reads: m.reads,
        })
    }

    /// Every job.
    pub fn jobs(&self) -> Result<Vec<JobView>, ApiError> {
        (0..self.b.jobs.len() as u32)
            .map(|i| self.job_view(i))
            .collect()
    }

    /// A user kills a job.
    pub fn kill(&mut self, user: &User, id: u32) -> Result<JobView, ApiError> {
        let now = self.now();
        let owner = self
            .b
            .jobs
            .get(id as usize)
            .map(|m| m.user.clone())
            .ok_or_else(|| ApiError::not_found(format!("no job {id} (see `mrsched jobs`)")))?;
        if owner != user.name && !user.admin {
            return Err(ApiError::forbidden(format!(
                "job {id} belongs to `{owner}`; `{}` may not kill it",
                user.name
            )));
        }
        self.advance(now);
        let reason = format!("killed by {}", user.name);
        let f = self.formed_mut()?;
        f.st.kill_job(JobId(id), &reason)
            .map_err(|e| ApiError::conflict(e.to_string()))?;
        self.journal.push(Record::Killed {
            t: now.0,
            job: id,
            reason,
        });
        self.settle();
        self.commit()?;
        self.job_view(id)
    }

    /// Pools with their running work.
    pub fn pools(&self) -> Result<PoolsView, ApiError> {
        let f = self.formed.as_ref().ok_or_else(not_formed)?;
        let mut pools: BTreeMap<String, PoolView> = BTreeMap::new();
        for &j in f.st.active_jobs() {
            let job = f.st.job(j);
            let name = job.spec.pool_name().to_string();
            let p = pools.entry(name.clone()).or_insert_with(|| PoolView {
                name,
                jobs: 0,
                running_maps: 0,
                running_reduces: 0,
                pending_maps: 0,
                pending_reduces: 0,
            });
            p.jobs += 1;
            p.running_maps += job.map_counts.running;
            p.running_reduces += job.reduce_counts.running;
            p.pending_maps += job.map_counts.pending;
            p.pending_reduces += job.reduce_counts.pending;
        }
        Ok(PoolsView {
            scheduler: self.b.settings.scheduler.label.clone(),
            pools: pools.into_values().collect(),
            stats: f.sched.stats(),
        })
    }

    /// The run's metrics, as the simulator reports them.
    pub fn report(&self) -> Result<RunReport, ApiError> {
        let f = self.formed.as_ref().ok_or_else(not_formed)?;
        let mut stats = f.sched.stats();
        stats.insert("heartbeats".into(), self.b.heartbeat_ns.count() as f64);
        stats.insert(
            "heartbeat_sched_mean_us".into(),
            self.b.heartbeat_ns.mean_ns() / 1e3,
        );
        stats.insert(
            "heartbeat_sched_p99_us".into(),
            self.b.heartbeat_ns.quantile_ns(0.99) as f64 / 1e3,
        );
        stats.insert("refused_launches".into(), self.b.refused.len() as f64);
        let info = RunInfo {
            scheduler: self.b.settings.scheduler.label.clone(),
            cluster: "live".into(),
            workload: "live".into(),
            seed: self.b.settings.seed,
            samples: self.b.samples.clone(),
            decisions: Some(self.b.decisions.clone()),
            events: 0,
            standalone: None,
            scheduler_stats: stats,
        };
        Ok(RunReport::build(&f.st, &info))
    }

    // -----------------------------------------------------------------
    // Block store.
    // -----------------------------------------------------------------

    /// Check that `name` may be created.
    pub fn check_new_file(&self, name: &str) -> Result<(), ApiError> {
        if !crate::jobfile::valid_name(name) {
            return Err(ApiError::bad(format!(
                "`{name}` is not a valid file name (1-200 characters, no `/` or control characters)"
            )));
        }
        if self.formed.is_none() {
            return Err(ApiError::unavailable(format!(
                "the cluster has not formed yet ({} of {} workers registered)",
                self.regs.len(),
                self.b.settings.workers
            )));
        }
        if self.b.files.contains_key(name) {
            return Err(ApiError::conflict(format!(
                "`{name}` already exists (remove it with `mrsched dfs rm {name}`)"
            )));
        }
        Ok(())
    }

    /// A new block id and its replica holders `(node, URL)`.
    pub fn new_block(&mut self, replication: u32) -> Result<(u64, Vec<(u32, String)>), ApiError> {
        let f = self.formed.as_ref().ok_or_else(not_formed)?;
        let reps = self.b.place(&f.st, None, replication.max(1));
        if reps.is_empty() {
            return Err(ApiError::unavailable("no live worker to store blocks on"));
        }
        let id = self.b.new_block();
        Ok((
            id,
            reps.into_iter()
                .map(|r| (r, self.b.nodes[r as usize].addr.clone()))
                .collect(),
        ))
    }

    /// Commit an uploaded file.
    pub fn commit_file(
        &mut self,
        user: &User,
        name: &str,
        blocks: Vec<BlockMeta>,
    ) -> Result<(), ApiError> {
        self.check_new_file(name)?;
        self.journal.push(Record::File {
            name: name.to_string(),
            owner: user.name.clone(),
            blocks: blocks
                .iter()
                .map(|b| (b.id, b.bytes, b.replicas.clone()))
                .collect(),
        });
        self.commit()?;
        self.b.files.insert(
            name.to_string(),
            FileMeta {
                owner: user.name.clone(),
                blocks,
                dataset: None,
                writer: None,
            },
        );
        Ok(())
    }

    /// Forget blocks of an abandoned upload.
    pub fn drop_blocks(&mut self, blocks: &[BlockMeta]) {
        for b in blocks {
            for &r in &b.replicas {
                if let Some(o) = self.b.out.get_mut(r as usize) {
                    o.delete_blocks.push(b.id);
                }
            }
        }
    }

    /// A file's view.
    pub fn file_view(&self, name: &str) -> Result<FileView, ApiError> {
        let fm = self.b.files.get(name).ok_or_else(|| {
            ApiError::not_found(format!("no file `{name}` (see `mrsched dfs ls`)"))
        })?;
        if let Some(j) = fm.writer {
            return Err(ApiError::conflict(format!(
                "`{name}` is being written by job {j}"
            )));
        }
        Ok(FileView {
            name: name.to_string(),
            bytes: fm.blocks.iter().map(|b| b.bytes).sum(),
            blocks: fm
                .blocks
                .iter()
                .map(|b| {
                    (
                        b.id,
                        b.bytes,
                        b.replicas
                            .iter()
                            .filter_map(|&r| self.b.nodes.get(r as usize).map(|n| n.name.clone()))
                            .collect(),
                    )
                })
                .collect(),
        })
    }

    /// Every committed file.
    pub fn files(&self) -> Vec<FileView> {
        self.b
            .files
            .iter()
            .filter(|(_, f)| f.writer.is_none())
            .filter_map(|(n, _)| self.file_view(n).ok())
            .collect()
    }

    /// URLs of live holders of block `id`, best first.
    pub fn block_sources(&self, id: u64) -> Result<Vec<String>, ApiError> {
        let f = self.formed.as_ref().ok_or_else(not_formed)?;
        let b = self
            .b
            .files
            .values()
            .flat_map(|f| f.blocks.iter())
            .find(|b| b.id == id)
            .ok_or_else(|| ApiError::not_found(format!("no block {id}")))?;
        let mut v: Vec<(bool, String)> = b
            .replicas
            .iter()
            .filter_map(|&r| {
                self.b
                    .nodes
                    .get(r as usize)
                    .map(|n| (!f.st.node(NodeId(r)).alive, n.addr.clone()))
            })
            .collect();
        v.sort();
        Ok(v.into_iter().map(|x| x.1).collect())
    }

    /// Remove a file.
    pub fn remove_file(&mut self, user: &User, name: &str) -> Result<(), ApiError> {
        let f = self.formed.as_ref().ok_or_else(not_formed)?;
        let fm = self.b.files.get(name).ok_or_else(|| {
            ApiError::not_found(format!("no file `{name}` (see `mrsched dfs ls`)"))
        })?;
        if fm.owner != user.name && !user.admin {
            return Err(ApiError::forbidden(format!(
                "`{name}` belongs to `{}`; `{}` may not remove it",
                fm.owner, user.name
            )));
        }
        if let Some(j) = fm.writer {
            return Err(ApiError::conflict(format!(
                "`{name}` is being written by job {j}"
            )));
        }
        if let Some(d) = fm.dataset {
            if let Some(&j) = f.st.scanners(d).first() {
                return Err(ApiError::conflict(format!(
                    "`{name}` is read by running job {}",
                    j.0
                )));
            }
        }
        let blocks = fm.blocks.clone();
        self.journal.push(Record::FileRemoved {
            name: name.to_string(),
        });
        self.commit()?;
        self.b.files.remove(name);
        self.drop_blocks(&blocks);
        Ok(())
    }
}

fn not_formed() -> ApiError {
    ApiError::unavailable("the cluster has not formed yet")
}
