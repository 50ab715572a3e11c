//! The MSJO instance (seed 001 §3.1): identical machines that run one task
//! at a time, jobs with release times and weights, map and reduce tasks
//! with known processing times, and map -> reduce delays d_uv.
//!
//! An instance is built from a workload (offline planning, the lower
//! bound) or from the live cluster state (re-planning what is left).
//! Times are seconds as `f64`.

use mrsched_model::{Cluster, JobId, JobSpec, NodeId, TaskKind, Time, Workload};
use mrsched_state::{ClusterState, JobStatus, TaskStatus};
use std::sync::Arc;

/// One task.
#[derive(Clone, Debug, PartialEq)]
pub struct Task {
    /// Index of its job in [`Instance::jobs`].
    pub job: usize,
    /// Map or reduce.
    pub kind: TaskKind,
    /// Its index within the job (map or reduce index).
    pub index: u32,
    /// Processing time p_u, s.
    pub p: f64,
    /// Earliest start (the job's release time r_j, or now when re-planning).
    pub release: f64,
    /// Task weight w_u (task-level objectives).
    pub weight: f64,
    /// For maps: the delay d_uv before any reduce of the job may start after
    /// this map ends (`shuffle_delay_factor` x p_u). 0 for reduces.
    pub delay: f64,
}

/// One job.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    /// Its id in the cluster state.
    pub id: JobId,
    /// Release time r_j, s.
    pub release: f64,
    /// Weight w_j.
    pub weight: f64,
    /// Its pending map tasks (indices into [`Instance::tasks`]).
    pub maps: Vec<usize>,
    /// Its pending reduce tasks.
    pub reduces: Vec<usize>,
    /// Reduces may not start before this (maps already done or running plus
    /// their delays; 0 offline).
    pub reduce_ready: f64,
    /// The job cannot complete before this (tasks already running; 0
    /// offline).
    pub done_at_least: f64,
}

/// An MSJO instance.
#[derive(Clone, Debug, PartialEq)]
pub struct Instance {
    /// Number of machines |M|.
    pub machines: usize,
    /// When each machine is free (all 0 offline; running tasks' expected
    /// ends when re-planning).
    pub machine_free: Vec<f64>,
    /// Tasks.
    pub tasks: Vec<Task>,
    /// Jobs.
    pub jobs: Vec<Job>,
}

/// The machines of a cluster: one per unified slot (map plus reduce slots
/// for a Hadoop MR1 node, a relaxation), each naming its node.
pub fn machines_of(cluster: &Cluster) -> Vec<NodeId> {
    let mut v = Vec::new();
    for (i, n) in cluster.nodes.iter().enumerate() {
        for _ in 0..n.total_slots() {
            v.push(NodeId(i as u32));
        }
    }
    v
}

/// Processing time of an explicit task on this cluster: the task overhead
/// plus its time on the fastest node (so the instance relaxes, never
/// tightens, a cluster of mixed speeds). `None` for cost-model tasks.
fn ptime(cluster: &Cluster, t: Option<Time>) -> Option<f64> {
    let speed = cluster
        .nodes
        .iter()
        .map(|n| n.speed)
        .fold(f64::MIN_POSITIVE, f64::max);
    t.map(|t| cluster.task_overhead.as_secs_f64() + t.as_secs_f64() / speed)
}

impl Instance {
    /// An empty instance on `machines` machines.
    pub fn new(machines: usize) -> Instance {
        Instance {
            machines,
            machine_free: vec![0.0; machines],
            tasks: Vec::new(),
            jobs: Vec::new(),
        }
    }

    /// Add a job with explicit map and reduce times (tests, generators).
    pub fn add_job(
        &mut self,
        release: f64,
        weight: f64,
        maps: &[f64],
        reduces: &[f64],
        delay_factor: f64,
    ) -> usize {
        let j = self.jobs.len();
        let mut job = Job {
            id: JobId(j as u32),
            release,
            weight,
            maps: Vec::new(),
            reduces: Vec::new(),
            reduce_ready: 0.0,
            done_at_least: 0.0,
        };
        for (i, &p) in maps.iter().enumerate() {
            job.maps.push(self.tasks.len());
            self.tasks.push(Task {
                job: j,
                kind: TaskKind::Map,
                index: i as u32,
                p,
                release,
                weight,
                delay: delay_factor * p,
            });
        }
        for (i, &p) in reduces.iter().enumerate() {
            job.reduces.push(self.tasks.len());
            self.tasks.push(Task {
                job: j,
                kind: TaskKind::Reduce,
                index: i as u32,
                p,
                release,
                weight,
                delay: 0.0,
            });
        }
        self.jobs.push(job);
        j
    }

    /// The instance of a whole workload on a cluster, or `None` when a task
    /// has no explicit time (the MSJO model needs them all). Job `i` of the
    /// workload is `JobId(i)`.
    pub fn from_workload(workload: &Workload, cluster: &Cluster) -> Option<Instance> {
        Instance::from_jobs(&workload.jobs, cluster)
    }

    /// [`Instance::from_workload`] for a job list.
    pub fn from_jobs(jobs: &[Arc<JobSpec>], cluster: &Cluster) -> Option<Instance> {
        let mut inst = Instance::new(machines_of(cluster).len());
        for (i, spec) in jobs.iter().enumerate() {
            let maps: Option<Vec<f64>> = spec.maps.iter().map(|m| ptime(cluster, m.time)).collect();
            let reds: Option<Vec<f64>> = spec
                .reduces
                .iter()
                .map(|r| ptime(cluster, r.time))
                .collect();
            let j = inst.add_job(
                spec.arrival.as_secs_f64(),
                spec.weight,
                &maps?,
                &reds?,
                spec.shuffle_delay_factor,
            );
            inst.jobs[j].id = JobId(i as u32);
            inst.set_task_weights(j, spec);
        }
        Some(inst)
    }

    fn set_task_weights(&mut self, j: usize, spec: &JobSpec) {
        let ids: Vec<usize> = self.jobs[j]
            .maps
            .iter()
            .chain(&self.jobs[j].reduces)
            .copied()
            .collect();
        for t in ids {
            let task = &mut self.tasks[t];
            task.weight = spec.task_weight(task.kind, task.index as usize);
        }
    }

    /// What is left to plan at `st.now()`: pending tasks of the running jobs
    /// in `jobs` (or of every running job), with machines busy until their
    /// running tasks' expected ends, and reduces held back by maps already
    /// done or running. `times` gives the planning time of a task (true or
    /// predicted); `None` when a task has no explicit time.
    pub fn from_state(
        st: &ClusterState,
        jobs: &[JobId],
        times: &dyn Fn(JobId, TaskKind, u32) -> Option<f64>,
    ) -> Option<Instance> {
        let now = st.now().as_secs_f64();
        let machines = machines_of(st.cluster());
        let mut inst = Instance::new(machines.len());
        // Machines: a slot of a node running k tasks is busy until the
        // expected end of one of them; dead nodes' slots never free.
        let mut slot = 0usize;
        for (n, node) in st.cluster().nodes.iter().enumerate() {
            let nid = NodeId(n as u32);
            let mut ends: Vec<f64> = st
                .attempts_on(nid)
                .map(|a| {
                    let p = times(a.job, a.kind, a.task).unwrap_or(0.0);
                    (a.start.as_secs_f64() + p).max(now)
                })
                .collect();
            ends.sort_by(|a, b| a.total_cmp(b));
            for k in 0..node.total_slots() as usize {
                inst.machine_free[slot] = if !st.slots(nid).alive {
                    f64::INFINITY
                } else {
                    ends.get(k).copied().unwrap_or(now)
                };
                slot += 1;
            }
        }
        for &jid in jobs {
            let job = st.job(jid);
            if job.status != JobStatus::Running {
                continue;
            }
            let spec = &job.spec;
            let j = inst.jobs.len();
            let release = spec.arrival.as_secs_f64().max(now);
            let mut ij = Job {
                id: jid,
                release,
                weight: spec.weight,
                maps: Vec::new(),
                reduces: Vec::new(),
                reduce_ready: 0.0,
                done_at_least: 0.0,
            };
            // Start of the running attempt of each running task.
            let mut started = [vec![None; job.maps.len()], vec![None; job.reduces.len()]];
            for a in st.running_attempts_of(jid) {
                for t in a.tasks().filter(|t| t.job == jid) {
                    let k = usize::from(t.kind == TaskKind::Reduce);
                    started[k][t.index as usize] = Some(a.start.as_secs_f64());
                }
            }
            for (i, t) in job.maps.iter().enumerate() {
                let p = times(jid, TaskKind::Map, i as u32)?;
                let d = spec.shuffle_delay_factor * p;
                match t.status {
                    TaskStatus::Done => {
                        let actual = (t.finish - t.start).as_secs_f64();
                        let end = t.finish.as_secs_f64() + spec.shuffle_delay_factor * actual;
                        ij.reduce_ready = ij.reduce_ready.max(end);
                        ij.done_at_least = ij.done_at_least.max(t.finish.as_secs_f64());
                    }
                    TaskStatus::Running => {
                        let start = started[0][i].unwrap_or(now);
                        let end = (start + p).max(now);
                        ij.reduce_ready = ij.reduce_ready.max(end + d);
                        ij.done_at_least = ij.done_at_least.max(end);
                    }
                    TaskStatus::Pending => {
                        ij.maps.push(inst.tasks.len());
                        inst.tasks.push(Task {
                            job: j,
                            kind: TaskKind::Map,
                            index: i as u32,
                            p,
                            release,
                            weight: spec.task_weight(TaskKind::Map, i),
                            delay: d,
                        });
                    }
                }
            }
            for (i, t) in job.reduces.iter().enumerate() {
                let p = times(jid, TaskKind::Reduce, i as u32)?;
                match t.status {
                    TaskStatus::Done => {
                        ij.done_at_least = ij.done_at_least.max(t.finish.as_secs_f64());
                    }
                    TaskStatus::Running => {
                        let start = started[1][i].unwrap_or(now);
                        ij.done_at_least = ij.done_at_least.max((start + p).max(now));
                    }
                    TaskStatus::Pending => {
                        ij.reduces.push(inst.tasks.len());
                        inst.tasks.push(Task {
                            job: j,
                            kind: TaskKind::Reduce,
                            index: i as u32,
                            p,
                            release,
                            weight: spec.task_weight(TaskKind::Reduce, i),
                            delay: 0.0,
                        });
                    }
                }
            }
            if ij.maps.is_empty() && ij.reduces.is_empty() {
                continue;
            }
            inst.jobs.push(ij);
        }
        Some(inst)
    }

    /// Predecessors' constraint of a reduce: every map of its job.
    pub fn is_map(&self, t: usize) -> bool {
        self.tasks[t].kind == TaskKind::Map
    }

    /// Total processing time.
    pub fn total_work(&self) -> f64 {
        self.tasks.iter().map(|t| t.p).sum()
    }
}

/// A schedule: a start time and a machine per task.
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    /// Start time of each task, s.
    pub start: Vec<f64>,
    /// Machine of each task (index into the instance's machines).
    pub machine: Vec<usize>,
}

impl Schedule {
    /// Completion time of each job (its last task's end, at least
    /// `done_at_least`).
    pub fn job_completions(&self, inst: &Instance) -> Vec<f64> {
        inst.jobs
            .iter()
            .map(|j| {
                j.maps
                    .iter()
                    .chain(&j.reduces)
                    .map(|&t| self.start[t] + inst.tasks[t].p)
                    .fold(j.done_at_least, f64::max)
            })
            .collect()
    }

    /// Total weighted job completion time, sum w_j C_j.
    pub fn twjct(&self, inst: &Instance) -> f64 {
        self.job_completions(inst)
            .iter()
            .zip(&inst.jobs)
            .map(|(c, j)| j.weight * c)
            .sum()
    }

    /// Total weighted task completion time, sum w_u C_u.
    pub fn twtct(&self, inst: &Instance) -> f64 {
        inst.tasks
            .iter()
            .enumerate()
            .map(|(i, t)| t.weight * (self.start[i] + t.p))
            .sum()
    }

    /// Check feasibility: release times, map -> reduce delays, machines'
    /// free times, one task per machine at a time. Returns the first
    /// violation found.
    pub fn check(&self, inst: &Instance) -> Result<(), String> {
        const EPS: f64 = 1e-6;
        let n = inst.tasks.len();
        if self.start.len() != n || self.machine.len() != n {
            return Err("schedule size differs from the instance".into());
        }
        for (i, t) in inst.tasks.iter().enumerate() {
            if !self.start[i].is_finite() || self.start[i] + EPS < t.release {
                return Err(format!(
                    "task {i} starts at {} before its release {}",
                    self.start[i], t.release
                ));
            }
            let m = self.machine[i];
            if m >= inst.machines {
                return Err(format!("task {i} on machine {m} of {}", inst.machines));
            }
            if self.start[i] + EPS < inst.machine_free[m] {
                return Err(format!("task {i} starts before machine {m} is free"));
            }
        }
        for j in &inst.jobs {
            let ready = j
                .maps
                .iter()
                .map(|&u| self.start[u] + inst.tasks[u].p + inst.tasks[u].delay)
                .fold(j.reduce_ready, f64::max);
            for &v in &j.reduces {
                if self.start[v] + EPS < ready {
                    return Err(format!(
                        "reduce {v} starts at {} before its maps and delays allow ({ready})",
                        self.start[v]
                    ));
                }
            }
        }
        let mut by_machine: Vec<Vec<usize>> = vec![Vec::new(); inst.machines];
        for i in 0..n {
            by_machine[self.machine[i]].push(i);
        }
        for (m, ts) in by_machine.iter_mut().enumerate() {
            ts.sort_by(|&a, &b| self.start[a].total_cmp(&self.start[b]));
            for w in ts.windows(2) {
                let end = self.start[w[0]] + inst.tasks[w[0]].p;
                if self.start[w[1]] + EPS < end {
                    return Err(format!(
                        "tasks {} and {} overlap on machine {m}",
                        w[0], w[1]
                    ));
                }
            }
        }
        Ok(())
    }
}
