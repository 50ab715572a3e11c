//! The FLEX / CIRCUMFLEX / BATCH scheduler on a cluster.
//!
//! Allocation layer (seed 000 Appendix A.1, A.4): at every re-solve (each
//! arrival, each job end, each epoch, each batch release) the planned jobs'
//! remaining map work is read from the state ([`ClusterView`]), cut into
//! subjobs ([`Decomposer`]), ordered and packed ([`solve`]); the first
//! interval's allocation gives each subjob a slot target.
//!
//! Assignment layer: a free map slot goes to the subjob furthest below its
//! target (`assign::by_deficit`), then to the other subjobs in priority
//! order (a Hadoop assignment layer is work-conserving), with delay
//! scheduling (`delay::DelayScheduler`) through `assign::first_map`. A
//! subjob is represented by one of its jobs (the one with the fewest maps
//! left, whose remaining blocks are exactly the subjob's when its
//! predecessors are done); the launch is a map of that job, and under
//! cyclic piggybacking every other scanner that still needs the block rides
//! on the same attempt (under BATCH, every other job of the batch).
//!
//! Reduces are outside the paper's model ("we are not concerned with
//! those"): reduce slots go to jobs whose maps are done first, then in the
//! order of planned map completion.

use super::batch::BatchWindows;
use super::metric::Metric;
use super::order::{dispatch, solve};
use super::packing::pack;
use super::piggyback::{reference_node, riders, ClusterView, JobInfo};
use super::problem::{Problem, Schedule};
use super::subjobs::{Decomposer, Sharing};
use crate::assign::{by_deficit, first_map, first_reduce};
use crate::delay::{DelayMode, DelayScheduler};
use crate::scheduler::{Action, Admission, Scheduler};
use mrsched_model::{JobId, Node, NodeId, Time};
use mrsched_state::{ClusterState, Launch, StateEvent};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::{BTreeMap, BTreeSet};

/// Settings of a [`Flex`] scheduler.
#[derive(Clone, Debug)]
pub struct FlexSettings {
    /// Name for reports.
    pub name: String,
    /// FLEX, CIRCUMFLEX or BATCH.
    pub sharing: Sharing,
    /// The metric optimised.
    pub metric: Metric,
    /// Re-solve period (epoch length), if any.
    pub epoch: Option<Time>,
    /// Re-solve at every arrival (seed 000 §4).
    pub resolve_on_arrival: bool,
    /// Delay scheduling.
    pub delay: DelayMode,
    /// BATCH window.
    pub batch_window: Time,
    /// Minimum slots of jobs that do not give `min_slots`.
    pub default_min_slots: u32,
}

/// Counters for reports.
#[derive(Clone, Debug, Default)]
struct Counters {
    resolves: u64,
    fallback_orders: u64,
    map_launches: u64,
    shared_launches: u64,
    riders: u64,
    max_cells: BTreeMap<u32, u32>,
    max_batch: BTreeMap<u32, u32>,
}

/// A batch of BATCH: its jobs and release time.
#[derive(Clone, Debug)]
struct Batch {
    release: Time,
    jobs: Vec<JobId>,
    dataset: u32,
}

/// The FLEX / CIRCUMFLEX / BATCH scheduler.
pub struct Flex {
    s: FlexSettings,
    reference: Node,
    delay: DelayScheduler,
    info: FxHashMap<JobId, JobInfo>,
    dirty: bool,
    last_solve: Option<Time>,
    // BATCH.
    batch_key: FxHashMap<(Vec<u32>, i64), u32>,
    batches: Vec<Batch>,
    batch_of: FxHashMap<JobId, u32>,
    held: BTreeSet<(Time, JobId)>,
    // The current allocation.
    targets: Vec<(JobId, f64)>,
    priority: Vec<JobId>,
    reduce_order: Vec<JobId>,
    local: Vec<u32>,
    schedule: Schedule,
    problem: Problem,
    c: Counters,
}

impl Flex {
    /// A scheduler with these settings.
    pub fn new(s: FlexSettings) -> Flex {
        Flex {
            delay: DelayScheduler::new(s.delay),
            s,
            reference: reference_node(),
            info: FxHashMap::default(),
            dirty: false,
            last_solve: None,
            batch_key: FxHashMap::default(),
            batches: Vec::new(),
            batch_of: FxHashMap::default(),
            held: BTreeSet::new(),
            targets: Vec::new(),
            priority: Vec::new(),
            reduce_order: Vec::new(),
            local: Vec::new(),
            schedule: Schedule::default(),
            problem: Problem::default(),
            c: Counters::default(),
        }
    }

    /// The settings.
    pub fn settings(&self) -> &FlexSettings {
        &self.s
    }

    /// The current slot targets: `(representative job, slots)`.
    pub fn targets(&self) -> &[(JobId, f64)] {
        &self.targets
    }

    /// The current schedule (the last re-solve).
    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// The problem of the last re-solve (its jobs are the planned jobs in
    /// admission order).
    pub fn problem(&self) -> &Problem {
        &self.problem
    }

    /// Map slots available now: alive nodes' map slots not taken by other
    /// workloads.
    fn slots(st: &ClusterState) -> u32 {
        st.live_capacity()[0] as u32
    }

    fn released(&self, j: JobId) -> bool {
        self.s.sharing != Sharing::Batch
            || self
                .batch_of
                .get(&j)
                .is_none_or(|&b| !self.held.contains(&(self.batches[b as usize].release, j)))
    }

    /// Recompute the allocation: subjobs, priority order, packing, targets.
    pub fn resolve(&mut self, st: &ClusterState) {
        self.dirty = false;
        self.last_solve = Some(st.now());
        self.c.resolves += 1;
        let planned: Vec<JobId> = st
            .active_jobs()
            .iter()
            .copied()
            .filter(|&j| {
                let jb = st.job(j);
                jb.map_counts.pending + jb.map_counts.running > 0
                    && self.released(j)
                    && self.info.contains_key(&j)
            })
            .collect();
        self.local.clear();
        self.local.resize(st.jobs().len(), u32::MAX);
        for (i, j) in planned.iter().enumerate() {
            self.local[j.idx()] = i as u32;
        }
        let info: Vec<&JobInfo> = planned.iter().map(|j| &self.info[j]).collect();
        let overhead = st.cluster().task_overhead.as_secs_f64();
        let mut dec = Decomposer::new(self.s.sharing, overhead, true);
        if self.s.sharing == Sharing::Batch {
            let b: Vec<u32> = planned
                .iter()
                .map(|j| self.batch_of.get(j).copied().unwrap_or(u32::MAX - j.0))
                .collect();
            dec = dec.with_batches(b);
        }
        let view = ClusterView {
            st,
            jobs: &planned,
            info: &info,
        };
        let jobs = view.atoms(&mut dec, &self.local);
        let p = dec
            .finish(st.now().as_secs_f64(), Flex::slots(st), jobs)
            .problem;
        let schedule = match solve(&p, &self.s.metric) {
            Ok(s) => s,
            Err(_) => {
                // Only reachable when lost map outputs break the nesting of
                // single-dataset scans (jobs reading several datasets are
                // refused at admission under minisum metrics): order by
                // p / w among available subjobs.
                self.c.fallback_orders += 1;
                let w = super::order::cell_weights(&p, &self.s.metric);
                let order = dispatch(&p, |c, _| {
                    let wc = w[c as usize];
                    if wc > 0.0 {
                        p.cells[c as usize].work / wc
                    } else {
                        f64::INFINITY
                    }
                });
                pack(&p, &order)
            }
        };
        // Representative of each cell: its job with the fewest maps left.
        let left = |j: JobId| {
            let c = st.job(j).map_counts;
            c.pending + c.running
        };
        let rep: Vec<JobId> = p
            .cells
            .iter()
            .map(|c| {
                c.members
                    .iter()
                    .map(|&l| planned[l as usize])
                    .min_by_key(|&j| (left(j), j))
                    .expect("a cell serves some job")
            })
            .collect();
        self.targets.clear();
        for &(c, slots) in schedule.first_allocation() {
            let r = rep[c as usize];
            match self.targets.iter_mut().find(|t| t.0 == r) {
                Some(t) => t.1 += slots as f64,
                None => self.targets.push((r, slots as f64)),
            }
        }
        self.priority.clear();
        let mut seen = FxHashSet::default();
        for &c in &schedule.order {
            let r = rep[c as usize];
            if seen.insert(r) {
                self.priority.push(r);
            }
        }
        // Reduces: jobs with maps done first, then planned completion order.
        let mut by_end: Vec<(f64, JobId)> = planned
            .iter()
            .enumerate()
            .map(|(i, &j)| (schedule.job_end[i], j))
            .collect();
        by_end.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        self.reduce_order = st
            .active_jobs()
            .iter()
            .copied()
            .filter(|j| self.local[j.idx()] == u32::MAX && self.released(*j))
            .chain(by_end.into_iter().map(|x| x.1))
            .collect();
        // Statistics: concurrent subjobs per dataset.
        if self.s.sharing == Sharing::Cyclic {
            let mut per: BTreeMap<u32, u32> = BTreeMap::new();
            for c in &p.cells {
                if let Some(d) = c.dataset {
                    *per.entry(d).or_default() += 1;
                }
            }
            for (d, n) in per {
                let m = self.c.max_cells.entry(d).or_default();
                *m = (*m).max(n);
            }
        }
        self.schedule = schedule;
        self.problem = p;
    }

    /// Put a newly admitted job into its batch (BATCH).
    fn enqueue(&mut self, st: &ClusterState, j: JobId) {
        let spec = &st.job(j).spec;
        let inputs: Vec<u32> = spec.input.iter().map(|d| d.0).collect();
        let Some(&first) = inputs.first() else {
            // No data to share: released at once, so planned now (nothing
            // else may ever make the plan stale again).
            self.dirty = true;
            return;
        };
        let w = BatchWindows {
            window: self.s.batch_window.as_secs_f64(),
            datasets: st.blocks().len().max(1) as u32,
        };
        let (k, release) = w.release(first, st.now().as_secs_f64());
        let release = Time::from_secs_f64(release).max(st.now() + Time(1));
        let next = self.batches.len() as u32;
        let b = *self.batch_key.entry((inputs, k)).or_insert(next);
        if b == next {
            self.batches.push(Batch {
                release,
                jobs: Vec::new(),
                dataset: first,
            });
        }
        let batch = &mut self.batches[b as usize];
        batch.jobs.push(j);
        let (release, size, dataset) = (batch.release, batch.jobs.len() as u32, batch.dataset);
        let m = self.c.max_batch.entry(dataset).or_default();
        *m = (*m).max(size);
        self.batch_of.insert(j, b);
        self.held.insert((release, j));
    }

    fn same_batch(&self, a: JobId, b: JobId) -> bool {
        match (self.batch_of.get(&a), self.batch_of.get(&b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        }
    }
}

impl Scheduler for Flex {
    fn name(&self) -> String {
        self.s.name.clone()
    }

    fn on_submit(&mut self, st: &ClusterState, job: JobId) -> Admission {
        let inputs = st.job(job).spec.input.len();
        if self.s.sharing == Sharing::Cyclic && inputs > 1 && !self.s.metric.is_minimax() {
            return Admission::Reject(format!(
                "CIRCUMFLEX with the minisum metric `{}` cannot schedule a job reading {inputs} \
                 datasets: overlapping inputs (semi-shared scans) need a minimax metric \
                 (set `objective = \"max\"`, seed 000 §3.3)",
                self.s.metric.name()
            ));
        }
        Admission::Admit
    }

    fn on_event(&mut self, st: &ClusterState, ev: &StateEvent) {
        match ev {
            StateEvent::JobAdmitted(j) => {
                self.delay.admit(st, *j);
                let info = JobInfo::new(
                    st.cluster(),
                    &st.job(*j).spec,
                    self.s.default_min_slots,
                    &self.reference,
                );
                self.info.insert(*j, info);
                if self.s.sharing == Sharing::Batch {
                    self.enqueue(st, *j);
                } else if self.s.resolve_on_arrival {
                    self.dirty = true;
                }
            }
            StateEvent::JobEnded(j) => {
                self.info.remove(j);
                self.delay.forget(*j);
                if let Some(b) = self.batch_of.remove(j) {
                    self.held.remove(&(self.batches[b as usize].release, *j));
                }
                self.dirty = true;
            }
            StateEvent::MapsDone(_)
            | StateEvent::NodeLost(_)
            | StateEvent::NodeRecovered(_)
            | StateEvent::CapacityChanged(_)
            | StateEvent::MapOutputLost { .. } => self.dirty = true,
            _ => {}
        }
    }

    fn on_heartbeat(&mut self, st: &ClusterState, _node: NodeId) {
        self.delay.on_heartbeat(st.now());
        if self.dirty {
            self.resolve(st);
        }
    }

    fn assign(&mut self, st: &ClusterState, node: NodeId) -> Option<Launch> {
        if self.dirty {
            self.resolve(st);
        }
        if st.free_map_slots(node) > 0 {
            let mut order = by_deficit(&self.targets, |j| st.job(j).map_counts.running);
            order.extend(
                self.priority
                    .iter()
                    .copied()
                    .filter(|j| !self.targets.iter().any(|t| t.0 == *j)),
            );
            if let Some(Launch::Map { job, task, .. }) =
                first_map(st, node, order, Some(&mut self.delay))
            {
                let rs = match self.s.sharing {
                    Sharing::None => Vec::new(),
                    Sharing::Cyclic => riders(st, job, task, |_| true),
                    Sharing::Batch => riders(st, job, task, |r| self.same_batch(job, r)),
                };
                self.c.map_launches += 1;
                if !rs.is_empty() {
                    self.c.shared_launches += 1;
                    self.c.riders += rs.len() as u64;
                }
                return Some(Launch::Map {
                    job,
                    task,
                    riders: rs,
                });
            }
        }
        first_reduce(st, node, self.reduce_order.iter().copied())
    }

    fn next_timer(&self) -> Option<Time> {
        let epoch = match (self.s.epoch, self.last_solve) {
            (Some(e), Some(t)) if !self.info.is_empty() => Some(t + e),
            _ => None,
        };
        let release = self.held.first().map(|x| x.0);
        match (epoch, release) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn on_timer(&mut self, st: &ClusterState) -> Vec<Action> {
        let now = st.now();
        while let Some(&(t, j)) = self.held.first() {
            if t > now {
                break;
            }
            self.held.remove(&(t, j));
            self.dirty = true;
        }
        if let (Some(e), Some(t)) = (self.s.epoch, self.last_solve) {
            if t + e <= now {
                self.dirty = true;
            }
        }
        if self.dirty || self.last_solve.is_none() {
            self.resolve(st);
        }
        Vec::new()
    }

    fn stats(&self) -> BTreeMap<String, f64> {
        let mut m = BTreeMap::new();
        m.insert("resolves".into(), self.c.resolves as f64);
        m.insert("map_launches".into(), self.c.map_launches as f64);
        m.insert("shared_launches".into(), self.c.shared_launches as f64);
        m.insert("riders".into(), self.c.riders as f64);
        if self.c.fallback_orders > 0 {
            m.insert("fallback_orders".into(), self.c.fallback_orders as f64);
        }
        let avg = |v: &BTreeMap<u32, u32>| {
            v.values().map(|&x| x as f64).sum::<f64>() / v.len().max(1) as f64
        };
        if self.s.sharing == Sharing::Cyclic {
            m.insert("max_concurrent_subjobs_avg".into(), avg(&self.c.max_cells));
        }
        if self.s.sharing == Sharing::Batch {
            m.insert("max_batch_avg".into(), avg(&self.c.max_batch));
        }
        m
    }
}
