//! The `msjo` policy: plans with one of the MSJO algorithms and follows the
//! plan on heartbeats.

use super::coge::CogeOptions;
use super::improve::{LsOptions, DEFAULT_EVALUATIONS};
use super::instance::{machines_of, Instance, Schedule};
use super::listsched::Intervals;
use super::planner::{plan, Algorithm, Assignment, PlanOptions};
use crate::config::{PolicyInfo, Preset, SchedulerConfig};
use crate::plan::{Plan, PlanFollower, PlannedTask};
use crate::scheduler::{Admission, Scheduler};
use mrsched_model::rng::{hash_words, unit_from_hash};
use mrsched_model::{Cluster, InputErrors, JobId, JobSpec, NodeId, TaskKind, Time};
use mrsched_state::{ClusterState, Launch, StateEvent};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Options of the `msjo` policy (its `[msjo]` table).
#[derive(Deserialize, Clone, Debug)]
#[serde(deny_unknown_fields)]
pub struct MsjoOptions {
    /// mars, mars-ls, t-mars, mares, h-mares, huwf, hjwf, stf, htwf.
    pub algorithm: Algorithm,
    /// Stop threshold of every LP (seed 001 uses 0.3).
    #[serde(default = "default_epsilon")]
    pub epsilon: f64,
    /// Most LP solves per plan.
    #[serde(default = "default_rounds")]
    pub max_rounds: usize,
    /// SO-MarS batch interval, seconds (none: one offline plan when the job
    /// set is announced, else a new plan at every arrival).
    #[serde(default)]
    pub batch_interval_s: Option<f64>,
    /// Largest relative error of planning times: each task is planned with
    /// p x (1 + U(-e, e)) (at least 1% of p) and runs for its true p.
    #[serde(default)]
    pub prediction_error: f64,
    /// Seed of the prediction errors and of MarS+LS's moves.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// MarS+LS: most list schedules the local search evaluates per plan
    /// (0 or 1: MarS's own schedule only).
    #[serde(default = "default_ls_evaluations")]
    pub ls_evaluations: usize,
    /// T-MarS intervals: `analysed` (Algorithm 3) or `packed`.
    #[serde(default)]
    pub intervals: IntervalsOpt,
    /// How nodes follow the plan: `planned` (each node waits for its next
    /// planned task, as the paper's simulations, §5) or `work-conserving`
    /// (an idle node runs another planned task that can start, as its
    /// Hadoop implementation, §6.1).
    #[serde(default)]
    pub follower: FollowerOpt,
    /// MARES / H-MARES pre-assignment: `lpt` (all tasks by decreasing
    /// time) or `release-order` (job by job in release order).
    #[serde(default)]
    pub assignment: Assignment,
}

/// `follower` option values.
#[derive(Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum FollowerOpt {
    /// Each node runs its own queue in order.
    #[default]
    Planned,
    /// Never idle while a planned task could run.
    WorkConserving,
}

/// `intervals` option values.
#[derive(Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum IntervalsOpt {
    /// Algorithm 3 with interval floors.
    #[default]
    Analysed,
    /// No floors.
    Packed,
}

fn default_epsilon() -> f64 {
    0.3
}
fn default_rounds() -> usize {
    CogeOptions::default().max_rounds
}
fn default_seed() -> u64 {
    1
}
fn default_ls_evaluations() -> usize {
    DEFAULT_EVALUATIONS
}

impl MsjoOptions {
    /// Defaults for `algorithm`.
    pub fn new(algorithm: Algorithm) -> MsjoOptions {
        MsjoOptions {
            algorithm,
            epsilon: default_epsilon(),
            max_rounds: default_rounds(),
            batch_interval_s: None,
            prediction_error: 0.0,
            seed: default_seed(),
            ls_evaluations: default_ls_evaluations(),
            intervals: IntervalsOpt::Analysed,
            follower: FollowerOpt::Planned,
            assignment: Assignment::default(),
        }
    }
}

/// The MSJO planning policy.
pub struct Msjo {
    opts: MsjoOptions,
    plan_opts: PlanOptions,
    machines: Vec<NodeId>,
    follower: PlanFollower,
    /// Planned offline from the announced job set.
    offline: bool,
    /// Ids of the announced jobs.
    announced: std::ops::Range<u32>,
    /// Arrivals not yet planned.
    unplanned: bool,
    next_batch: Option<Time>,
    stats: BTreeMap<String, f64>,
}

impl Msjo {
    /// A policy for `cluster` with `opts`.
    pub fn new(cluster: &Cluster, opts: MsjoOptions) -> Msjo {
        let mut plan_opts = PlanOptions::new(opts.algorithm);
        plan_opts.coge.epsilon = opts.epsilon;
        plan_opts.coge.max_rounds = opts.max_rounds.max(1);
        plan_opts.ls = LsOptions {
            evaluations: opts.ls_evaluations,
            seed: opts.seed,
        };
        plan_opts.assignment = opts.assignment;
        plan_opts.intervals = match opts.intervals {
            IntervalsOpt::Analysed => Intervals::Analysed,
            IntervalsOpt::Packed => Intervals::Packed,
        };
        // Analysed T-MarS keeps its interval floors; every other plan only
        // fixes each node's order.
        let timed =
            opts.algorithm == Algorithm::TMars && plan_opts.intervals == Intervals::Analysed;
        let machines = machines_of(cluster);
        let mut follower = PlanFollower::new(Plan::new(cluster.nodes.len()), timed);
        follower.work_conserving = opts.follower == FollowerOpt::WorkConserving;
        Msjo {
            follower,
            opts,
            plan_opts,
            machines,
            offline: false,
            announced: 0..0,
            unplanned: false,
            next_batch: None,
            stats: BTreeMap::new(),
        }
    }

    /// Planning time of a task: its explicit time, with the prediction
    /// error drawn from a hash of (seed, job, kind, index) so every plan
    /// sees the same error for a task.
    fn planned_time(
        &self,
        cluster: &Cluster,
        spec: &JobSpec,
        job: JobId,
        kind: TaskKind,
        i: u32,
    ) -> Option<f64> {
        let t = match kind {
            TaskKind::Map => spec.maps.get(i as usize)?.time?,
            TaskKind::Reduce => spec.reduces.get(i as usize)?.time?,
        };
        let speed = cluster
            .nodes
            .iter()
            .map(|n| n.speed)
            .fold(f64::MIN_POSITIVE, f64::max);
        let p = cluster.task_overhead.as_secs_f64() + t.as_secs_f64() / speed;
        let e = self.opts.prediction_error;
        if e <= 0.0 {
            return Some(p);
        }
        let u = unit_from_hash(hash_words(&[
            self.opts.seed,
            0x5EED,
            job.0 as u64,
            kind as u64,
            i as u64,
        ]));
        Some((p * (1.0 + e * (2.0 * u - 1.0))).max(0.01 * p))
    }

    /// The instance of an announced job set whose jobs will get the ids
    /// `first`, `first + 1`, ... (0 in the simulator; the next free id on
    /// a live master).
    fn noisy_instance(
        &self,
        cluster: &Cluster,
        jobs: &[Arc<JobSpec>],
        first: u32,
    ) -> Option<Instance> {
        let mut inst = Instance::from_jobs(jobs, cluster)?;
        for j in inst.jobs.iter_mut() {
            j.id = JobId(j.id.0 + first);
        }
        for t in inst.tasks.iter_mut() {
            let job = inst.jobs[t.job].id;
            let spec = &jobs[t.job];
            t.p = self.planned_time(cluster, spec, job, t.kind, t.index)?;
            if t.kind == TaskKind::Map {
                t.delay = spec.shuffle_delay_factor * t.p;
            }
        }
        Some(inst)
    }

    /// Plan `inst` and install it.
    fn install(&mut self, inst: &Instance) {
        let planned = match plan(inst, &self.plan_opts) {
            Ok(p) => p,
            Err(_) => {
                // An LP failure must not stall the cluster: fall back to
                // the LP-free list rule of the same family.
                *self.stats.entry("lp_failures".into()).or_default() += 1.0;
                let mut o = self.plan_opts.clone();
                o.algorithm = Algorithm::Huwf;
                match plan(inst, &o) {
                    Ok(p) => p,
                    Err(_) => return,
                }
            }
        };
        *self.stats.entry("plans".into()).or_default() += 1.0;
        self.stats
            .insert("plan_twjct_s".into(), planned.schedule.twjct(inst));
        self.stats
            .insert("plan_twtct_s".into(), planned.schedule.twtct(inst));
        if let Some(r) = &planned.lp {
            self.stats.insert("lp_objective".into(), r.objective);
            self.stats.insert("lp_rounds".into(), r.rounds as f64);
            *self.stats.entry("lp_cuts".into()).or_default() += r.cuts as f64;
            self.stats.insert("lp_violated".into(), r.violated as f64);
        }
        if let Some(ls) = &planned.ls {
            *self.stats.entry("ls_evaluations".into()).or_default() += ls.evaluations as f64;
            *self.stats.entry("ls_accepted".into()).or_default() += ls.accepted as f64;
            self.stats.insert("ls_initial_twjct_s".into(), ls.initial);
        }
        self.follower
            .replace(to_plan(inst, &planned.schedule, &self.machines));
    }

    fn replan(&mut self, st: &ClusterState) {
        let jobs: Vec<JobId> = st.active_jobs().to_vec();
        let cluster = st.cluster();
        let times =
            |j: JobId, k: TaskKind, i: u32| self.planned_time(cluster, &st.job(j).spec, j, k, i);
        if let Some(inst) = Instance::from_state(st, &jobs, &times) {
            self.install(&inst);
        }
        self.unplanned = false;
    }
}

/// Per-node queues from a schedule: each machine's tasks by planned start,
/// a node's machines merged by start time.
pub fn to_plan(inst: &Instance, sch: &Schedule, machines: &[NodeId]) -> Plan {
    let nodes = machines.iter().map(|n| n.idx() + 1).max().unwrap_or(0);
    let mut plan = Plan::new(nodes);
    let mut order: Vec<usize> = (0..inst.tasks.len()).collect();
    order.sort_by(|&a, &b| sch.start[a].total_cmp(&sch.start[b]).then(a.cmp(&b)));
    for t in order {
        let task = &inst.tasks[t];
        let node = machines[sch.machine[t]];
        plan.push(
            node,
            PlannedTask {
                job: inst.jobs[task.job].id,
                kind: task.kind,
                index: task.index,
                not_before: Time::from_secs_f64(sch.start[t].max(0.0)),
            },
        );
    }
    plan
}

impl Scheduler for Msjo {
    fn name(&self) -> String {
        self.opts.algorithm.name().to_lowercase()
    }

    fn on_submit(&mut self, st: &ClusterState, job: JobId) -> Admission {
        // Seed 001 §3: every task's processing time is known to the planner.
        // A job without explicit times could never be planned (it would
        // wait for ever); it is refused with the reason instead.
        let spec = &st.job(job).spec;
        let maps = spec.maps.iter().filter(|m| m.time.is_none()).count();
        let reduces = spec.reduces.iter().filter(|r| r.time.is_none()).count();
        if maps + reduces == 0 {
            return Admission::Admit;
        }
        Admission::Reject(format!(
            "{} plans with every task's time known: {maps} map(s) and {reduces} reduce(s) of this job have none (give map_time_s or map_times_s, and reduce_time_s or reduce_times_s)",
            self.name()
        ))
    }

    fn on_announce(&mut self, st: &ClusterState, jobs: &[Arc<JobSpec>]) {
        if self.opts.batch_interval_s.is_some() {
            return;
        }
        let first = st.jobs().len() as u32;
        if let Some(inst) = self.noisy_instance(st.cluster(), jobs, first) {
            self.install(&inst);
            self.offline = true;
            self.announced = first..first + jobs.len() as u32;
        }
    }

    fn on_event(&mut self, st: &ClusterState, ev: &StateEvent) {
        self.follower.on_event(st, ev);
        if let StateEvent::JobAdmitted(j) = ev {
            if self.offline && self.announced.contains(&j.0) {
                return;
            }
            // A job outside the announced set (a live master takes more
            // jobs after a set): plan online from here on.
            self.offline = false;
            match self.opts.batch_interval_s {
                Some(b) => {
                    if !self.unplanned {
                        self.unplanned = true;
                        // The end of the batch interval this arrival is in.
                        let b = Time::from_secs_f64(b.max(1e-3));
                        let k = st.now().0 / b.0 + 1;
                        self.next_batch = Some(Time(k * b.0));
                    }
                }
                None => self.replan(st),
            }
        }
    }

    fn assign(&mut self, st: &ClusterState, node: NodeId) -> Option<Launch> {
        self.follower.next(st, node)
    }

    fn next_timer(&self) -> Option<Time> {
        let batch = if self.unplanned {
            self.next_batch
        } else {
            None
        };
        let timed = if self.follower.timed {
            self.follower.next_start(Time::ZERO)
        } else {
            None
        };
        match (batch, timed) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn on_timer(&mut self, st: &ClusterState) -> Vec<crate::scheduler::Action> {
        if self.unplanned && self.next_batch.is_some_and(|t| t <= st.now()) {
            self.replan(st);
            self.next_batch = None;
        }
        Vec::new()
    }

    fn stats(&self) -> BTreeMap<String, f64> {
        self.stats.clone()
    }
}

fn build(cfg: &SchedulerConfig, cluster: &Cluster) -> Result<Box<dyn Scheduler>, InputErrors> {
    let o: MsjoOptions = cfg.options()?;
    let bad = |field: &str, msg: &str| -> InputErrors {
        cfg.source.error(format!("msjo.{field}"), msg).into()
    };
    if !(o.epsilon.is_finite() && (0.0..1.0).contains(&o.epsilon)) {
        return Err(bad("epsilon", "must be in [0, 1)"));
    }
    if !(o.prediction_error.is_finite() && o.prediction_error >= 0.0) {
        return Err(bad("prediction_error", "must be a non-negative fraction"));
    }
    if o.batch_interval_s
        .is_some_and(|b| !(b.is_finite() && b > 0.0))
    {
        return Err(bad(
            "batch_interval_s",
            "must be a positive number of seconds",
        ));
    }
    if o.max_rounds == 0 {
        return Err(bad("max_rounds", "must be at least 1"));
    }
    Ok(Box::new(Msjo::new(cluster, o)))
}

/// Registry entry.
pub fn info() -> PolicyInfo {
    PolicyInfo {
        name: "msjo",
        about:
            "seed 001 MSJO planners: MarS, MarS+LS (ours), T-MarS, MARES, H-MARES, HUWF, HJWF, STF, HTWF, SO-MarS",
        build,
    }
}

/// Presets.
pub fn presets() -> Vec<Preset> {
    vec![
        Preset {
            name: "mars",
            about: "MarS: COGE LP (epsilon 0.3) + list scheduling by LP middle finish time",
            toml: "policy = \"msjo\"\n[msjo]\nalgorithm = \"mars\"\n",
        },
        Preset {
            name: "mars+ls",
            about: "ours, beyond the paper: MarS + local search over its list order and machine rule (2,000 list schedules)",
            toml: "policy = \"msjo\"\n[msjo]\nalgorithm = \"mars-ls\"\n",
        },
        Preset {
            name: "t-mars",
            about: "T-MarS: task-level LP, geometric intervals, Graham (Algorithm 3)",
            toml: "policy = \"msjo\"\n[msjo]\nalgorithm = \"t-mars\"\n",
        },
        Preset {
            name: "t-mars-packed",
            about: "T-MarS without the interval floors",
            toml: "policy = \"msjo\"\n[msjo]\nalgorithm = \"t-mars\"\nintervals = \"packed\"\n",
        },
        Preset {
            name: "mares",
            about: "MARES: balanced pre-assignment + per-machine LP order (job weights)",
            toml: "policy = \"msjo\"\n[msjo]\nalgorithm = \"mares\"\n",
        },
        Preset {
            name: "h-mares",
            about: "H-MARES: MARES with task weights (task-level baseline)",
            toml: "policy = \"msjo\"\n[msjo]\nalgorithm = \"h-mares\"\n",
        },
        Preset {
            name: "huwf",
            about: "high unit weight (job weight / work) first",
            toml: "policy = \"msjo\"\n[msjo]\nalgorithm = \"huwf\"\n",
        },
        Preset {
            name: "hjwf",
            about: "high job weight first",
            toml: "policy = \"msjo\"\n[msjo]\nalgorithm = \"hjwf\"\n",
        },
        Preset {
            name: "stf",
            about: "shortest available task first",
            toml: "policy = \"msjo\"\n[msjo]\nalgorithm = \"stf\"\n",
        },
        Preset {
            name: "htwf",
            about: "high task weight first",
            toml: "policy = \"msjo\"\n[msjo]\nalgorithm = \"htwf\"\n",
        },
        Preset {
            name: "so-mars",
            about: "semi-online MarS: plan every 50 s what has arrived",
            toml: "policy = \"msjo\"\n[msjo]\nalgorithm = \"mars\"\nbatch_interval_s = 50\n",
        },
    ]
}
