//! What the engine really did, whatever policy decided it: a sampler over
//! the scheduler's running jobs that records, every few milliseconds, the
//! vcores each pool's tasks hold and, once per task, whether it ran where
//! its shuffle input was. Tests and the benchmark compare policies with it,
//! Ballista's own among them, so the yardstick does not depend on the
//! policy being measured.

use crate::options::user_and_pool;
use ballista_core::serde::protobuf::task_status;
use ballista_scheduler::state::execution_stage::{ExecutionStage, StageOutput, TaskInfo};
use ballista_scheduler::state::SchedulerState;
use datafusion_proto::protobuf::{LogicalPlanNode, PhysicalPlanNode};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One sample: running vcores per pool.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Sample {
    /// Milliseconds since the scheduler started.
    pub ms: u64,
    /// Running vcores per pool.
    pub running: BTreeMap<String, u32>,
    /// Pending partitions per pool (in running stages).
    pub pending: BTreeMap<String, u32>,
}

/// Where tasks ran against where their shuffle input was.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Placement {
    /// Tasks on the executor holding the most bytes of their input.
    pub input_local: u64,
    /// Tasks elsewhere.
    pub input_remote: u64,
    /// Tasks whose input was spread evenly over several executors (one of
    /// which they ran on): not counted either way.
    pub input_tied: u64,
    /// Tasks that read no shuffle output (scans).
    pub no_input: u64,
}

/// Everything observed so far.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Observed {
    /// Samples, oldest first (the last 10,000).
    pub samples: Vec<Sample>,
    /// Task placement.
    pub placement: Placement,
    /// Queries seen running, by job id (the 10,000 seen last).
    pub jobs: BTreeMap<String, JobObserved>,
}

/// One query as the sampler saw it.
#[derive(Clone, Debug, Default, Serialize)]
pub struct JobObserved {
    /// Its name.
    pub name: String,
    /// Its pool.
    pub pool: String,
    /// First sample it was running in (ms since the scheduler started).
    pub seen_ms: u64,
    /// First sample in which one of its tasks had been bound; for a query
    /// that was bound, ran and ended between two samples, the first sample
    /// after it ended (its tasks had been bound by then).
    pub first_task_ms: Option<u64>,
    /// Last sample it was running in.
    pub last_ms: u64,
    /// First sample it was no longer running in.
    pub ended_ms: Option<u64>,
}

type State = SchedulerState<LogicalPlanNode, PhysicalPlanNode>;

/// The sampler.
pub struct Observer {
    state: Arc<State>,
    epoch: Instant,
    seen: Mutex<HashSet<(String, usize, usize, usize)>>,
    out: Mutex<Observed>,
}

const MAX_SAMPLES: usize = 10_000;
const MAX_JOBS: usize = 10_000;

impl Observer {
    /// A sampler over `state`'s running jobs.
    pub fn new(state: Arc<State>) -> Arc<Observer> {
        Arc::new(Observer {
            state,
            epoch: Instant::now(),
            seen: Mutex::new(HashSet::new()),
            out: Mutex::new(Observed::default()),
        })
    }

    /// Sample every `every` until the process ends.
    pub fn spawn(self: &Arc<Self>, every: Duration) {
        let me = self.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            loop {
                tick.tick().await;
                me.sample().await;
            }
        });
    }

    /// What was observed.
    pub fn observed(&self) -> Observed {
        self.out.lock().expect("observer lock").clone()
    }

    /// Take one sample.
    pub async fn sample(&self) {
        let ms = self.epoch.elapsed().as_millis() as u64;
        let jobs = self.state.task_manager.get_running_job_cache();
        let mut sample = Sample {
            ms,
            ..Default::default()
        };
        let mut placement = Placement::default();
        let mut seen_jobs = Vec::new();
        for (id, info) in jobs.iter() {
            let g = info.execution_graph.read().await;
            let (user, pool) = user_and_pool(&g.session_config());
            let pool = pool.unwrap_or(user);
            let mut seen = self.seen.lock().expect("observer lock");
            let mut started = false;
            for (sid, stage) in g.stages() {
                let (attempt, tasks, inputs, pending): (usize, &[TaskInfo], _, u32) = match stage {
                    ExecutionStage::Running(rs) => (
                        rs.stage_attempt_num,
                        &rs.task_infos,
                        &rs.inputs,
                        rs.pending.remaining() as u32,
                    ),
                    ExecutionStage::Successful(s) => {
                        (s.stage_attempt_num, &s.task_infos, &s.inputs, 0)
                    }
                    _ => continue,
                };
                *sample.pending.entry(pool.clone()).or_default() += pending;
                started |= !tasks.is_empty();
                for (tid, t) in tasks.iter().enumerate() {
                    let executor = match &t.task_status {
                        task_status::Status::Running(r) => {
                            *sample.running.entry(pool.clone()).or_default() += t.vcores_consumed;
                            &r.executor_id
                        }
                        task_status::Status::Successful(s) => &s.executor_id,
                        task_status::Status::Failed(_) => continue,
                    };
                    if seen.insert((id.to_string(), *sid, attempt, tid)) {
                        match input_local(inputs, &t.global_input_partition_ids, executor) {
                            None => placement.no_input += 1,
                            Some(Holder::Sole) => placement.input_local += 1,
                            Some(Holder::Tied) => placement.input_tied += 1,
                            Some(Holder::Not) => placement.input_remote += 1,
                        }
                    }
                }
            }
            seen_jobs.push((id.to_string(), g.job_name().to_string(), pool, started));
        }
        // Tasks are remembered only while their query runs.
        {
            let running: HashSet<String> = jobs.keys().map(|j| j.to_string()).collect();
            let mut seen = self.seen.lock().expect("observer lock");
            seen.retain(|k| running.contains(&k.0));
        }
        let mut out = self.out.lock().expect("observer lock");
        out.placement.input_local += placement.input_local;
        out.placement.input_remote += placement.input_remote;
        out.placement.no_input += placement.no_input;
        out.placement.input_tied += placement.input_tied;
        // A short query can be seen waiting, then be bound, run and end
        // within one sampling period: it ended, so its tasks were bound.
        let running: HashSet<&str> = seen_jobs.iter().map(|j| j.0.as_str()).collect();
        for (id, j) in out.jobs.iter_mut() {
            if j.ended_ms.is_none() && !running.contains(id.as_str()) {
                j.ended_ms = Some(ms);
                j.first_task_ms.get_or_insert(ms);
            }
        }
        for (id, name, pool, started) in seen_jobs {
            let j = out.jobs.entry(id).or_insert_with(|| JobObserved {
                name,
                pool,
                seen_ms: ms,
                first_task_ms: None,
                last_ms: ms,
                ended_ms: None,
            });
            j.last_ms = ms;
            if started && j.first_task_ms.is_none() {
                j.first_task_ms = Some(ms);
            }
        }
        if out.jobs.len() > MAX_JOBS {
            let mut by_age: Vec<(u64, String)> = out
                .jobs
                .iter()
                .map(|(k, j)| (j.last_ms, k.clone()))
                .collect();
            by_age.sort();
            for (_, k) in by_age.into_iter().take(out.jobs.len() - MAX_JOBS) {
                out.jobs.remove(&k);
            }
        }
        out.samples.push(sample);
        if out.samples.len() > MAX_SAMPLES {
            let extra = out.samples.len() - MAX_SAMPLES;
            out.samples.drain(..extra);
        }
    }
}

/// Whether an executor holds the most input bytes of a task.
enum Holder {
    /// It alone holds the most.
    Sole,
    /// It is one of several holding the most.
    Tied,
    /// Another executor holds more.
    Not,
}

/// Whether `executor` holds the most input bytes of `partitions` (`None`
/// when they read no shuffle output).
fn input_local(
    inputs: &HashMap<usize, StageOutput>,
    partitions: &[usize],
    executor: &str,
) -> Option<Holder> {
    let mut per: HashMap<&str, u64> = HashMap::new();
    for out in inputs.values() {
        for p in partitions {
            for l in out.partition_locations.get(p).into_iter().flatten() {
                *per.entry(l.executor_meta.id.as_str()).or_default() +=
                    l.partition_stats.num_bytes().unwrap_or(0).max(1);
            }
        }
    }
    let max = per.values().copied().max()?;
    let at_max = per.values().filter(|b| **b == max).count();
    Some(match per.get(executor).copied() == Some(max) {
        false => Holder::Not,
        true if at_max == 1 => Holder::Sole,
        true => Holder::Tied,
    })
}
