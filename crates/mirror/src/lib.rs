//! Driving mrsched's schedulers over another engine: the core of the
//! adapters to DAG engines such as Apache DataFusion Ballista.
//!
//! The engine owns the truth: its executors, its queries (jobs), their
//! stages, the partitions waiting in each running stage and the tasks it
//! runs. The [`Mirror`] keeps a [`ClusterState`] that follows it, so that
//! the very `Scheduler` implementations the simulator and the live master
//! use decide what runs where, through the same [`Driver`]:
//!
//! * an executor is a node with unified slots (its vcores), on the rack its
//!   host maps to ([`Topology`]);
//! * a query is an open job ([`ClusterState::hold_open`]) of its user, in
//!   the pool its session names (else the user's pool);
//! * each pending partition of a running stage is one map task, added when
//!   the stage starts ([`ClusterState::add_maps`]); its "block" lives on
//!   the executors that hold most of its shuffle input, so delay scheduling
//!   prefers them (node, then rack, then any). A stage whose plan collapses
//!   its input into one partition is one task for all its partitions,
//!   since splitting it would give partial results;
//! * an executor offering free slots is a heartbeat: the scheduler's
//!   launches come back as [`Bind`]s for the adapter to hand to the engine.
//!
//! Every call first brings the mirror up to date with a snapshot of the
//! engine ([`Mirror::sync`]): finished and failed tasks end their attempts,
//! stages that were rolled back withdraw their tasks, tasks the engine runs
//! but the mirror never launched (after a restart of the mirror) are
//! adopted, and ended queries close their jobs. The mirror is rebuilt from
//! the engine when executors join, since a cluster state has a fixed node
//! set; the scheduler's own memory (delay timers) starts afresh then.
//!
//! Nothing here knows the engine's types, does I/O or reads a clock: the
//! adapter translates and passes the time, so all of this is tested in the
//! default build.

#![warn(missing_docs)]

mod topology;

pub use topology::{Topology, TopologyError};

use mrsched_model::{
    AttemptId, BlockRef, Cluster, DatasetId, JobId, JobSpec, Locality, MapSpec, Member, NodeId,
    SlotConfig, Time,
};
use mrsched_sched::{Admission, Driver, Hooks, PoolsView, Scheduler, SchedulerConfig};
use mrsched_state::{ClusterState, DatasetBlocks, JobStatus, TaskStatus};
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// An executor as the engine reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecutorView {
    /// The engine's executor id.
    pub id: String,
    /// Host name or address (mapped to a rack by the [`Topology`]).
    pub host: String,
    /// Task slots (vcores).
    pub slots: u32,
}

/// A query the engine runs.
#[derive(Clone, Debug, PartialEq)]
pub struct JobView {
    /// The engine's job id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// The user who submitted it.
    pub user: String,
    /// The pool its session asked for (`None`: the user's pool).
    pub pool: Option<String>,
    /// When the engine queued it (ms since the epoch): jobs new to the
    /// mirror are submitted in this order.
    pub queued_ms: u64,
    /// Its stages (any order).
    pub stages: Vec<StageView>,
}

/// Where a stage is in its life.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StageState {
    /// Its inputs are ready and it runs tasks.
    Running,
    /// Done.
    Succeeded,
    /// Waiting for inputs, resolved but not started, or failed.
    Waiting,
}

/// A stage of a query.
#[derive(Clone, Debug, PartialEq)]
pub struct StageView {
    /// Stage id (unique within the job).
    pub id: usize,
    /// Attempt number: a stage rolled back and run again has a new one.
    pub attempt: usize,
    /// Its state.
    pub state: StageState,
    /// True when its plan collapses every input partition into one: it
    /// must run as one task over all its pending partitions.
    pub collapse: bool,
    /// Partitions waiting for a task, in the engine's order.
    pub pending: Vec<PendingPartition>,
    /// Its tasks so far, by the engine's task id.
    pub tasks: Vec<TaskView>,
}

/// A partition waiting to be run.
#[derive(Clone, Debug, PartialEq)]
pub struct PendingPartition {
    /// The partition.
    pub partition: usize,
    /// Its shuffle input: `(executor id, bytes held there)` (empty for a
    /// stage that reads no shuffle output).
    pub inputs: Vec<(String, u64)>,
}

/// A task of a running stage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskView {
    /// The engine's task id (unique within the stage).
    pub id: usize,
    /// The executor it runs or ran on.
    pub executor: String,
    /// Its state.
    pub state: TaskState,
}

/// Where a task is in its life.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TaskState {
    /// Running.
    Running,
    /// Done.
    Succeeded,
    /// Failed (the engine puts its partitions back in the pending queue).
    Failed,
}

/// What one mirrored task stands for in the engine.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Work {
    /// One partition of a stage.
    Partition(usize),
    /// Every pending partition of a collapse stage, as one task.
    WholeStage,
    /// A task (by the engine's task id) the engine already ran when the
    /// mirror first saw it; never bound by the mirror.
    Adopted(usize),
}

/// A launch the scheduler decided: the adapter binds this work to the
/// offering executor, then reports the engine's task id with
/// [`Mirror::confirm`] (or [`Mirror::refuse`] when it could not).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bind {
    /// The engine's job id.
    pub job: String,
    /// The stage.
    pub stage: usize,
    /// What to run.
    pub work: Work,
    /// The mirror's attempt.
    pub attempt: AttemptId,
    /// How local the task is on this executor.
    pub locality: Locality,
}

/// Counters of what the mirror saw and did, for the metrics endpoint.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MirrorStats {
    /// Offers (executor heartbeats) handled.
    pub offers: u64,
    /// Tasks bound to executors.
    pub binds: u64,
    /// Binds per locality: node, rack, off-rack, no shuffle input.
    pub binds_by_locality: BTreeMap<String, u64>,
    /// Binds the engine could not make (its state moved in between).
    pub refused: u64,
    /// Tasks the engine ran that the mirror adopted (after a rebuild).
    pub adopted: u64,
    /// Tasks withdrawn (stages rolled back).
    pub withdrawn: u64,
    /// Mirror rebuilds (executors joined).
    pub rebuilds: u64,
    /// Rebuilds that forgot ended queries ([`Mirror::forget_ended_after`]).
    pub compactions: u64,
    /// Queries seen.
    pub jobs_seen: u64,
    /// Queries that ended.
    pub jobs_ended: u64,
    /// Sum of the scheduler's decision times per offer, ns.
    pub decision_ns_total: u64,
    /// Longest decision time of one offer, ns.
    pub decision_ns_max: u64,
}

/// Why a scheduler configuration cannot drive an engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported(pub String);

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unsupported {}

/// Policies that can drive an engine whose tasks are discovered stage by
/// stage and cannot be killed one by one, and why the others cannot.
pub fn check_policy(cfg: &SchedulerConfig) -> Result<(), Unsupported> {
    let why = match cfg.policy.as_str() {
        "fair" if cfg.options.get("preemption").and_then(|v| v.as_bool()) == Some(true) => {
            "preemption kills running tasks, and the engine cannot cancel a single task; remove `preemption = true`"
        }
        "fifo" | "fair" => return Ok(()),
        "flex" | "circumflex" | "batch" => {
            "FLEX and CIRCUMFLEX plan with each job's whole work known on arrival, and shared scans need one task to serve several jobs' maps; a query's stages are only known as they start"
        }
        "adaptive" | "reverse-adaptive" => {
            "the Adaptive schedulers need completion-time goals and per-job task profiles, which queries do not carry"
        }
        "rtmr" | "deadline-constraint" | "rtmr-fifo-order" => {
            "admission control must be able to refuse a query on arrival; the engine's distribution policy cannot refuse one"
        }
        _ => "MarS, T-MarS and their baselines plan offline over every job's task times, known before the first arrival",
    };
    Err(Unsupported(format!(
        "policy `{}` cannot drive this engine: {why}; use `fifo` or `fair`",
        cfg.policy
    )))
}

/// One mirrored query.
#[derive(Debug)]
struct JobMirror {
    id: JobId,
    /// What each map task stands for: `(stage, stage attempt, work)`.
    tasks: Vec<(usize, usize, Work)>,
    /// Pending map tasks by `(stage, work)`.
    pending: FxHashMap<(usize, Work), u32>,
    /// Running attempts by `(stage, engine task id, map task)`: one engine
    /// task may carry several map tasks (partitions bound together).
    running: BTreeMap<(usize, usize, u32), AttemptId>,
    /// Attempts bound in this offer, awaiting their engine task id.
    unconfirmed: BTreeSet<AttemptId>,
}

/// The engine's state as the scheduler's [`ClusterState`], and the
/// scheduler that decides over it.
pub struct Mirror {
    config: SchedulerConfig,
    topology: Topology,
    label: String,
    /// Executors ever seen, by node id.
    executors: Vec<ExecutorView>,
    by_executor: FxHashMap<String, NodeId>,
    st: ClusterState,
    sched: Box<dyn Scheduler>,
    driver: Driver,
    jobs: BTreeMap<String, JobMirror>,
    by_job: FxHashMap<JobId, String>,
    datasets: u32,
    stats: MirrorStats,
    problems: Vec<String>,
    /// Problems already reported (configuration warnings and failed
    /// rebuilds recur on every call; they are reported once).
    reported: BTreeSet<String>,
    /// Ended queries the cluster state may hold before a rebuild forgets
    /// them, and the count of ended queries at the last rebuild.
    forget_after: u64,
    ended_at_rebuild: u64,
}

/// Ended queries the mirror keeps before it rebuilds itself without them:
/// a cluster state keeps every job it saw (the simulator reports on all of
/// them), so without this a scheduler's memory grows with every query
/// (measured: about 1.7 KB a query plus 100 bytes a task).
pub const FORGET_ENDED_AFTER: u64 = 10_000;

/// Collects the attempts a heartbeat launched.
#[derive(Default)]
struct Launched(Vec<AttemptId>);

impl Hooks for Launched {
    fn launched(&mut self, _st: &ClusterState, a: AttemptId) {
        self.0.push(a);
    }
}

/// Attempts per task before the mirror would fail a job: the engine decides
/// when a query fails, never the mirror.
const MAX_ATTEMPTS: u32 = 1_000;

/// Each node has this many times its executor's slots, all but the
/// executor's own count taken ([`ClusterState::set_taken`]). An offer sets
/// the free slots to exactly what the engine offers, even while the mirror
/// still counts tasks the executor has finished: the engine applies task
/// updates asynchronously, after the executor that reported them may
/// already have offered their slots again.
const SLACK: u32 = 4;

/// Most slots an executor counts for: more vcores than this are taken as
/// this many (its node, [`SLACK`] times larger, stays within the model's
/// 10,000 slots per node).
pub const MAX_EXECUTOR_SLOTS: u32 = 2_500;

impl Mirror {
    /// A mirror with no executor yet, deciding with `config` (checked with
    /// [`check_policy`]). `label` names the scheduler in pool views.
    pub fn new(
        config: SchedulerConfig,
        topology: Topology,
        label: &str,
    ) -> Result<Mirror, Unsupported> {
        check_policy(&config)?;
        let (st, sched) = Self::build(&config, &[], &topology)?;
        Ok(Mirror {
            config,
            topology,
            label: label.to_string(),
            executors: Vec::new(),
            by_executor: FxHashMap::default(),
            st,
            sched,
            driver: Driver::new(),
            jobs: BTreeMap::new(),
            by_job: FxHashMap::default(),
            datasets: 0,
            stats: MirrorStats::default(),
            problems: Vec::new(),
            reported: BTreeSet::new(),
            forget_after: FORGET_ENDED_AFTER,
            ended_at_rebuild: 0,
        })
    }

    fn build(
        config: &SchedulerConfig,
        executors: &[ExecutorView],
        topology: &Topology,
    ) -> Result<(ClusterState, Box<dyn Scheduler>), Unsupported> {
        let members: Vec<Member> = executors
            .iter()
            .map(|e| Member {
                name: e.id.clone(),
                rack: topology.rack_of(&e.host, &e.id).to_string(),
                slots: SlotConfig::Unified {
                    slots: e.slots * SLACK,
                },
            })
            .collect();
        let cluster = Cluster::of_members(
            "engine",
            &members,
            Time::from_secs_f64(0.05),
            1.0,
            MAX_ATTEMPTS,
        );
        let sched = config
            .build(&cluster)
            .map_err(|e| Unsupported(format!("cannot build the scheduler: {e}")))?;
        let mut st = ClusterState::new(cluster);
        for (i, e) in executors.iter().enumerate() {
            let spare = e.slots * (SLACK - 1);
            st.set_taken(NodeId(i as u32), spare, spare);
        }
        st.take_events();
        Driver::init(&mut st, sched.as_ref());
        Ok((st, sched))
    }

    /// Back to the executor's own size after an offer or an adoption.
    fn restore_size(&mut self, n: NodeId) {
        let spare = self.executors[n.idx()].slots * (SLACK - 1);
        self.st.set_taken(n, spare, spare);
    }

    /// Configuration warnings of the scheduler over the current executors
    /// at their real size (such as minimum shares above capacity). None
    /// before the first executor registers: they depend on the cluster's
    /// size, and [`Mirror::take_problems`] reports them once executors join.
    pub fn warnings(&self) -> Vec<String> {
        if self.executors.is_empty() {
            return Vec::new();
        }
        let members: Vec<Member> = self
            .executors
            .iter()
            .map(|e| Member {
                name: e.id.clone(),
                rack: self.topology.rack_of(&e.host, &e.id).to_string(),
                slots: SlotConfig::Unified { slots: e.slots },
            })
            .collect();
        let cluster = Cluster::of_members("engine", &members, Time(1), 1.0, MAX_ATTEMPTS);
        match self.config.build(&cluster) {
            Ok(s) => s.warnings(),
            Err(e) => vec![e.to_string()],
        }
    }

    /// Problems met since the last call (refused queries, impossible
    /// launches), for the adapter's log.
    pub fn take_problems(&mut self) -> Vec<String> {
        std::mem::take(&mut self.problems)
    }

    /// The mirrored cluster state.
    pub fn state(&self) -> &ClusterState {
        &self.st
    }

    /// Counters.
    pub fn stats(&self) -> &MirrorStats {
        &self.stats
    }

    /// The pools view (`mrsched pools`), with shares brought up to date.
    pub fn pools(&mut self) -> PoolsView {
        self.sched.update_allocation(&self.st);
        PoolsView::build(&self.st, self.sched.as_ref(), &self.label)
    }

    /// Each mirrored job's pool as the scheduler placed it, by job id (for
    /// reports).
    pub fn placed_pools(&self) -> Vec<String> {
        mrsched_sched::pools::placed_pools(&self.st, self.sched.as_ref())
    }

    /// The mirror's job of an engine job.
    pub fn job_id(&self, engine_job: &str) -> Option<JobId> {
        self.jobs.get(engine_job).map(|m| m.id)
    }

    /// Forget ended queries once `n` have ended since the last rebuild (by
    /// default [`FORGET_ENDED_AFTER`]): the mirror is rebuilt from the
    /// engine's live queries, as when executors join, and the metrics
    /// report covers the queries since then.
    pub fn forget_ended_after(&mut self, n: u64) {
        self.forget_after = n.max(1);
    }

    /// Bring the mirror up to date with the engine at time `now`: its live
    /// executors and its running queries (every query the engine no longer
    /// lists has ended).
    pub fn sync(&mut self, now: Time, executors: &[ExecutorView], jobs: &[JobView]) {
        self.st.advance_to(now);
        let clamped: Vec<ExecutorView>;
        let executors = if executors.iter().any(|e| e.slots > MAX_EXECUTOR_SLOTS) {
            clamped = executors
                .iter()
                .map(|e| ExecutorView {
                    slots: e.slots.min(MAX_EXECUTOR_SLOTS),
                    ..e.clone()
                })
                .collect();
            &clamped
        } else {
            executors
        };
        self.sync_executors(executors);
        // Ended queries: what still runs is done, what waits never will be.
        let live: BTreeSet<&str> = jobs.iter().map(|j| j.id.as_str()).collect();
        let ended: Vec<String> = self
            .jobs
            .keys()
            .filter(|k| !live.contains(k.as_str()))
            .cloned()
            .collect();
        for k in ended {
            self.end_job(&k);
        }
        if self.stats.jobs_ended - self.ended_at_rebuild >= self.forget_after {
            // Live queries are mirrored again below, their running tasks
            // adopted; lost executors are forgotten (an executor that
            // returns joins again).
            self.rebuild(&[], true);
            self.stats.compactions += 1;
            self.sync_executors(executors);
        }
        // New queries in the engine's queue order.
        let mut fresh: Vec<&JobView> = jobs
            .iter()
            .filter(|j| !self.jobs.contains_key(&j.id))
            .collect();
        fresh.sort_by(|a, b| (a.queued_ms, &a.id).cmp(&(b.queued_ms, &b.id)));
        for j in fresh {
            self.submit(j);
        }
        for j in jobs {
            self.reconcile(j);
        }
        self.fire_timers();
        self.settle();
    }

    fn settle(&mut self) {
        let mut h = Launched::default();
        self.driver
            .settle(&mut self.st, self.sched.as_mut(), &mut h);
    }

    fn fire_timers(&mut self) {
        let mut h = Launched::default();
        // A timer that does not move forward would loop: fire each once.
        for _ in 0..8 {
            match self.sched.next_timer() {
                Some(t) if t <= self.st.now() => {
                    self.driver
                        .fire_timer(&mut self.st, self.sched.as_mut(), &mut h);
                    if self.sched.next_timer() == Some(t) {
                        break;
                    }
                }
                _ => break,
            }
        }
    }

    fn sync_executors(&mut self, executors: &[ExecutorView]) {
        let changed = executors.iter().any(|e| {
            self.by_executor
                .get(&e.id)
                .is_none_or(|n| self.executors[n.idx()].slots != e.slots)
        });
        if changed {
            let before = self.executors.len();
            self.rebuild(executors, false);
            self.stats.rebuilds += 1;
            if self.executors.len() != before {
                for w in self.warnings() {
                    self.report_once(w);
                }
            }
        }
        let present: BTreeSet<&str> = executors.iter().map(|e| e.id.as_str()).collect();
        for (i, e) in self.executors.iter().enumerate() {
            let n = NodeId(i as u32);
            let alive = self.st.slots(n).alive;
            let here = present.contains(e.id.as_str());
            if alive && !here {
                self.st.node_lost(n);
            } else if !alive && here {
                self.st.node_recovered(n);
            }
        }
        self.settle();
    }

    /// Executors joined (or changed size): a new cluster state and
    /// scheduler over every executor seen (but the lost ones when
    /// `forget_lost`), with the engine's queries mirrored again and their
    /// running tasks adopted.
    fn rebuild(&mut self, executors: &[ExecutorView], forget_lost: bool) {
        let mut all: Vec<ExecutorView> = self
            .executors
            .iter()
            .enumerate()
            .filter(|(i, _)| !forget_lost || self.st.slots(NodeId(*i as u32)).alive)
            .map(|(_, e)| e.clone())
            .collect();
        for e in executors {
            match all.iter_mut().find(|x| x.id == e.id) {
                Some(x) => *x = e.clone(),
                None => all.push(e.clone()),
            }
        }
        let (st, sched) = match Self::build(&self.config, &all, &self.topology) {
            Ok(x) => x,
            Err(e) => {
                self.report_once(e.0);
                return;
            }
        };
        let now = self.st.now();
        self.st = st;
        self.st.advance_to(now);
        self.sched = sched;
        self.driver = Driver::new();
        self.by_executor = all
            .iter()
            .enumerate()
            .map(|(i, e)| (e.id.clone(), NodeId(i as u32)))
            .collect();
        self.executors = all;
        self.jobs.clear();
        self.by_job.clear();
        self.datasets = 0;
        self.ended_at_rebuild = self.stats.jobs_ended;
    }

    /// Keep `problem` for the adapter's log unless it was reported before.
    fn report_once(&mut self, problem: String) {
        if self.reported.insert(problem.clone()) {
            self.problems.push(problem);
        }
    }

    fn submit(&mut self, j: &JobView) {
        let mut spec = JobSpec::explicit(&j.name, self.st.now(), &[], &[], 1.0);
        spec.user = j.user.clone();
        spec.pool = j.pool.clone();
        let mut h = Launched::default();
        let (id, decision) =
            self.driver
                .submit_open(&mut self.st, self.sched.as_mut(), &mut h, spec);
        if let Admission::Reject(why) = decision {
            self.problems.push(format!(
                "query {} was refused by the scheduler: {why}",
                j.id
            ));
        }
        self.stats.jobs_seen += 1;
        self.by_job.insert(id, j.id.clone());
        self.jobs.insert(
            j.id.clone(),
            JobMirror {
                id,
                tasks: Vec::new(),
                pending: FxHashMap::default(),
                running: BTreeMap::new(),
                unconfirmed: BTreeSet::new(),
            },
        );
    }

    fn end_job(&mut self, key: &str) {
        let Some(m) = self.jobs.remove(key) else {
            return;
        };
        self.by_job.remove(&m.id);
        self.stats.jobs_ended += 1;
        let mut running: Vec<AttemptId> = m.running.values().copied().collect();
        running.extend(m.unconfirmed.iter().copied());
        running.sort_unstable();
        for a in running {
            let _ = self.st.finish_map(a);
        }
        let mut pending: Vec<u32> = m.pending.values().copied().collect();
        pending.sort_unstable();
        for t in pending {
            let _ = self.st.withdraw_map(m.id, t);
        }
        let _ = self.st.close_job(m.id);
        self.settle();
    }

    /// Bring one query's tasks in line with the engine's view of it.
    fn reconcile(&mut self, view: &JobView) {
        let Some(m) = self.jobs.get_mut(&view.id) else {
            return;
        };
        let j = m.id;
        if self.st.job(j).status != JobStatus::Running {
            return;
        }
        let stages: FxHashMap<usize, &StageView> = view.stages.iter().map(|s| (s.id, s)).collect();
        // 1. Running attempts: ended, failed, or their stage moved on.
        let known: Vec<((usize, usize, u32), AttemptId)> =
            m.running.iter().map(|(k, v)| (*k, *v)).collect();
        for ((stage, task, t), a) in known {
            let (_, att_stage, work) = m.tasks[t as usize];
            let outcome = match stages.get(&stage) {
                Some(s) if s.state == StageState::Succeeded => Some(TaskState::Succeeded),
                Some(s) if s.state == StageState::Running && s.attempt == att_stage => s
                    .tasks
                    .iter()
                    .find(|x| x.id == task)
                    .map(|x| x.state)
                    .filter(|s| *s != TaskState::Running),
                // Rolled back, failed or gone: the attempt is over.
                _ => Some(TaskState::Failed),
            };
            let lost = self.st.attempt(a).is_none();
            if outcome.is_none() && !lost {
                continue;
            }
            m.running.remove(&(stage, task, t));
            if outcome == Some(TaskState::Succeeded) && !lost {
                let _ = self.st.finish_map(a);
                continue;
            }
            // The task is pending again in the mirror (killed here, or its
            // executor was lost); step 2 keeps it if the engine queued its
            // work again, and withdraws it otherwise.
            if !lost {
                let _ = self.st.kill_attempt(a);
            }
            if self.st.job(j).maps[t as usize].status == TaskStatus::Pending {
                m.pending.insert((stage, work), t);
            }
        }
        // 2. The engine's pending work, per running stage.
        let mut want: BTreeMap<(usize, Work), (usize, Option<&PendingPartition>)> = BTreeMap::new();
        for s in &view.stages {
            if s.state != StageState::Running || s.pending.is_empty() {
                continue;
            }
            if s.collapse {
                want.insert((s.id, Work::WholeStage), (s.attempt, None));
            } else {
                for p in &s.pending {
                    want.insert((s.id, Work::Partition(p.partition)), (s.attempt, Some(p)));
                }
            }
        }
        let mut gone: Vec<((usize, Work), u32)> = m
            .pending
            .iter()
            .filter(|(k, t)| {
                want.get(*k)
                    .is_none_or(|(attempt, _)| m.tasks[**t as usize].1 != *attempt)
            })
            .map(|(k, t)| (*k, *t))
            .collect();
        gone.sort_unstable();
        for (k, t) in gone {
            m.pending.remove(&k);
            if self.st.job(j).maps[t as usize].status == TaskStatus::Pending
                && self.st.withdraw_map(j, t).is_ok()
            {
                self.stats.withdrawn += 1;
            }
        }
        let new: Vec<((usize, Work), usize, Option<&PendingPartition>)> = want
            .into_iter()
            .filter(|(k, _)| !m.pending.contains_key(k))
            .map(|(k, (attempt, p))| (k, attempt, p))
            .collect();
        // 3. Tasks the engine runs that the mirror never launched (after a
        // rebuild): adopt them, launched where they run.
        let mut adopt: Vec<((usize, Work), usize, usize, NodeId)> = Vec::new();
        let known: BTreeSet<(usize, usize)> = m.running.keys().map(|k| (k.0, k.1)).collect();
        for s in &view.stages {
            if s.state != StageState::Running {
                continue;
            }
            for t in &s.tasks {
                if t.state != TaskState::Running || known.contains(&(s.id, t.id)) {
                    continue;
                }
                // A task on a lost executor is the engine's to reset.
                let on = self.by_executor.get(&t.executor).copied();
                if let Some(n) = on.filter(|n| self.st.slots(*n).alive) {
                    adopt.push(((s.id, Work::Adopted(t.id)), s.attempt, t.id, n));
                }
            }
        }
        if new.is_empty() && adopt.is_empty() {
            return;
        }
        // One dataset per batch: a block per new task, on the executors that
        // hold most of its shuffle input.
        let mut replicas: Vec<Vec<NodeId>> = Vec::new();
        let mut specs = Vec::new();
        let dataset = DatasetId(self.datasets);
        let by_executor = &self.by_executor;
        for (_, _, p) in &new {
            let holders = p
                .map(|p| best_holders(&p.inputs, by_executor))
                .unwrap_or_default();
            let block = (!holders.is_empty()).then(|| {
                replicas.push(holders);
                BlockRef {
                    dataset,
                    index: replicas.len() as u32 - 1,
                }
            });
            specs.push(MapSpec {
                block,
                input_mb: 0.0,
                time: None,
            });
        }
        for _ in &adopt {
            specs.push(MapSpec {
                block: None,
                input_mb: 0.0,
                time: None,
            });
        }
        if !replicas.is_empty() {
            let sizes = vec![0.0; replicas.len()];
            let id = self.st.add_dataset(DatasetBlocks::new(
                &format!("{}-inputs-{}", view.id, self.datasets),
                sizes,
                &replicas,
            ));
            debug_assert_eq!(id, dataset);
            self.datasets += 1;
        }
        let Ok(first) = self.st.add_maps(j, specs) else {
            return;
        };
        for (i, (k, attempt, _)) in new.iter().enumerate() {
            let t = first + i as u32;
            m.tasks.push((k.0, *attempt, k.1));
            m.pending.insert(*k, t);
        }
        for (i, (k, attempt, task, n)) in adopt.iter().enumerate() {
            let t = first + (new.len() + i) as u32;
            m.tasks.push((k.0, *attempt, k.1));
            // Room for it whatever the budget says: the engine runs it.
            self.st.set_taken(*n, 0, 0);
            let launched = self.st.launch(*n, &mrsched_state::Launch::map(j, t));
            let spare = self.executors[n.idx()].slots * (SLACK - 1);
            self.st.set_taken(*n, spare, spare);
            match launched {
                Ok(a) => {
                    m.running.insert((k.0, *task, t), a);
                    self.stats.adopted += 1;
                }
                Err(_) => {
                    let _ = self.st.withdraw_map(j, t);
                }
            }
        }
    }

    /// Executor `executor` has `free` slots: ask the scheduler what to run
    /// there. The adapter binds every returned [`Bind`] in the engine.
    pub fn offer(&mut self, now: Time, executor: &str, free: u32) -> Vec<Bind> {
        self.st.advance_to(now);
        let Some(&n) = self.by_executor.get(executor) else {
            return Vec::new();
        };
        if !self.st.slots(n).alive || free == 0 {
            return Vec::new();
        }
        self.stats.offers += 1;
        // The engine's budget is the truth: exactly `free` slots are free
        // for this heartbeat, whatever the mirror still counts as running
        // (see SLACK).
        let slots = self.executors[n.idx()].slots * SLACK;
        let running = self.st.attempts_on(n).count() as u32;
        let free = free.min(self.executors[n.idx()].slots);
        let taken = slots.saturating_sub(running.saturating_add(free));
        self.st.set_taken(n, taken, taken);
        let mut h = Launched::default();
        let t0 = std::time::Instant::now();
        // A refused launch is a scheduler bug; the offer ends there and the
        // error is kept as a warning rather than failing the engine's call.
        if let Err(e) = self
            .driver
            .heartbeat(&mut self.st, self.sched.as_mut(), &mut h, n)
        {
            self.problems.push(e.to_string());
        }
        let ns = t0.elapsed().as_nanos() as u64;
        self.restore_size(n);
        self.stats.decision_ns_total += ns;
        self.stats.decision_ns_max = self.stats.decision_ns_max.max(ns);
        let mut out = Vec::with_capacity(h.0.len());
        for a in h.0 {
            let Some(att) = self.st.attempt(a) else {
                continue;
            };
            let (j, t, locality) = (att.job, att.task, att.locality);
            let Some(key) = self.by_job.get(&j) else {
                continue;
            };
            let m = self.jobs.get_mut(key).expect("mirrored job");
            let (stage, _, work) = m.tasks[t as usize];
            m.pending.remove(&(stage, work));
            m.unconfirmed.insert(a);
            *self
                .stats
                .binds_by_locality
                .entry(locality_name(locality).to_string())
                .or_default() += 1;
            out.push(Bind {
                job: key.clone(),
                stage,
                work,
                attempt: a,
                locality,
            });
        }
        self.settle();
        out
    }

    /// The engine bound `bind` as its task `task` of the stage (several
    /// binds of one stage may share one engine task).
    pub fn confirm(&mut self, bind: &Bind, task: usize) {
        if let Some(m) = self.jobs.get_mut(&bind.job) {
            if m.unconfirmed.remove(&bind.attempt) {
                let Some(t) = self.st.attempt(bind.attempt).map(|a| a.task) else {
                    return;
                };
                m.running.insert((bind.stage, task, t), bind.attempt);
                self.stats.binds += 1;
            }
        }
    }

    /// The engine could not bind `bind` (its state changed since the last
    /// sync): the attempt is undone and the next sync decides the task.
    pub fn refuse(&mut self, bind: &Bind) {
        if let Some(m) = self.jobs.get_mut(&bind.job) {
            if m.unconfirmed.remove(&bind.attempt) {
                if let Some(att) = self.st.attempt(bind.attempt) {
                    let t = att.task;
                    let _ = self.st.kill_attempt(bind.attempt);
                    m.pending.insert((bind.stage, bind.work), t);
                }
                self.stats.refused += 1;
            }
        }
        self.settle();
    }
}

/// The executors holding the most bytes of a partition's input (ties: all
/// of them), as nodes.
fn best_holders(inputs: &[(String, u64)], by_executor: &FxHashMap<String, NodeId>) -> Vec<NodeId> {
    let mut per: BTreeMap<NodeId, u64> = BTreeMap::new();
    for (e, bytes) in inputs {
        if let Some(&n) = by_executor.get(e) {
            *per.entry(n).or_default() += bytes;
        }
    }
    let Some(&max) = per.values().max() else {
        return Vec::new();
    };
    per.into_iter()
        .filter(|(_, b)| *b == max)
        .map(|(n, _)| n)
        .collect()
}

/// A locality level's name in counters.
pub fn locality_name(l: Locality) -> &'static str {
    match l {
        Locality::Node => "node",
        Locality::Rack => "rack",
        Locality::OffRack => "off_rack",
        Locality::NoData => "no_input",
    }
}

#[cfg(test)]
mod tests;
