//! The Adaptive Scheduler and Reverse-Adaptive (seed 003: Polo et al.,
//! "Adaptive MapReduce scheduling in shared environments", CCGrid 2014).
//!
//! Why this family exists: MapReduce often shares its machines with another
//! workload (a transactional data-store) whose demand over time, f(t), is
//! known in advance. Jobs carry completion-time goals (soft deadlines). The
//! Adaptive Scheduler meets goals by estimating how many tasks each job must
//! run at once (s_req) and placing tasks to maximise the lowest job utility
//! every control cycle, but it assumes the capacity it sees now will stay.
//! Reverse-Adaptive estimates instead s_fit by scheduling the pending work
//! backwards from the goals over the forecast capacity, so that work which
//! will not fit later, when the other workload takes the slots back, is
//! asked for now.
//!
//! One control loop serves both (seed 003 §III-C, Figure 1):
//!
//! * Job Status Updater ([`status`]): pending maps, running maps, mean
//!   observed map length μ;
//! * Workload Estimator ([`estimate`]): s_req or s_fit;
//! * Job Utility Calculator ([`utility`]): u(s) from the estimate;
//! * Placement Algorithm ([`placement`]): every `cycle_s` seconds a
//!   placement matrix (jobs x nodes) that maximises the lowest utility
//!   within each node's capacity ([`capacity`]);
//! * Task Scheduler ([`Adaptive::assign`]): enforces the matrix on
//!   heartbeats until the next cycle.
//!
//! The two schedulers differ only in two options: the estimator
//! (`estimator = "req" | "fit"`) and the capacity view (`capacity = "now" |
//! "forecast"`). The presets `adaptive` and `reverse-adaptive` set both.
//! Every choice where the paper is silent is listed in
//! `docs/policies/adaptive.md`.

pub mod bound;
pub mod capacity;
pub mod estimate;
pub mod placement;
pub mod predict;
pub mod status;
pub mod utility;

use crate::assign::{first_map, first_reduce};
use crate::config::{PolicyInfo, Preset, SchedulerConfig};
use crate::scheduler::Scheduler;
use capacity::{node_capacity, CapacityCurve, CapacityView};
use estimate::{reverse_schedule, s_req, Estimator, FitJob};
use mrsched_model::{Cluster, InputErrors, JobId, Locality, NodeId, TaskKind, Time};
use mrsched_state::{ClusterState, JobStatus, Launch, StateEvent};
use placement::{place, PlaceJob, PlacementMatrix, Surplus};
use predict::{accuracy, predict_completions, FluidJob, Prediction, PredictionLog};
use rustc_hash::FxHashMap;
use serde::Deserialize;
use status::{JobRow, StatusUpdater};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use utility::clamp_estimate;

fn default_cycle() -> f64 {
    // Control-cycle period T: not given by the paper (prior work §1.2
    // [NOT FOUND]); 10 s, a few heartbeats.
    10.0
}

/// Options of the `[adaptive]` table.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdaptiveOptions {
    /// `"req"` (s_req, Adaptive) or `"fit"` (s_fit, Reverse-Adaptive).
    #[serde(default)]
    pub estimator: Estimator,
    /// `"now"` (Adaptive) or `"forecast"` (Reverse-Adaptive).
    #[serde(default)]
    pub capacity: CapacityView,
    /// Control-cycle period T, seconds.
    #[serde(default = "default_cycle")]
    pub cycle_s: f64,
    /// How slots beyond every goal job's estimate are split: `"urgency"`
    /// (earliest goal first) or `"utility"` (the paper's upper branch).
    #[serde(default)]
    pub surplus: Surplus,
    /// A free map slot that the placement matrix leaves unused goes to the
    /// first job in service order with a pending map (never idle).
    #[serde(default = "default_work_conserving")]
    pub work_conserving: bool,
}

fn default_work_conserving() -> bool {
    true
}

impl Default for AdaptiveOptions {
    fn default() -> Self {
        AdaptiveOptions {
            estimator: Estimator::Req,
            capacity: CapacityView::Now,
            cycle_s: default_cycle(),
            surplus: Surplus::default(),
            work_conserving: default_work_conserving(),
        }
    }
}

impl AdaptiveOptions {
    /// The Adaptive Scheduler: s_req, capacity now.
    pub fn adaptive() -> AdaptiveOptions {
        AdaptiveOptions::default()
    }

    /// Reverse-Adaptive: s_fit, forecast capacity.
    pub fn reverse_adaptive() -> AdaptiveOptions {
        AdaptiveOptions {
            estimator: Estimator::Fit,
            capacity: CapacityView::Forecast,
            ..AdaptiveOptions::default()
        }
    }

    /// These options with the paper's placement as reconstructed: surplus
    /// by utility, slots the matrix leaves unused stay idle until the next
    /// cycle (for ablations and the before/after measurement).
    pub fn as_in_paper(self) -> AdaptiveOptions {
        AdaptiveOptions {
            surplus: Surplus::Utility,
            work_conserving: false,
            ..self
        }
    }
}

/// One job's numbers at the last control cycle.
#[derive(Clone, Debug, PartialEq)]
pub struct CycleEntry {
    /// The job.
    pub job: JobId,
    /// Absolute goal (`None`: best effort).
    pub goal: Option<Time>,
    /// Clamped estimate (s_req or s_fit); 0 for best-effort jobs.
    pub estimate: u32,
    /// Slots the placement gave it (running maps included).
    pub allocation: u32,
    /// Most slots it could use.
    pub max: u32,
    /// Predicted completion (goal jobs with slots).
    pub predicted: Option<Time>,
}

/// The Adaptive / Reverse-Adaptive scheduler.
pub struct Adaptive {
    opts: AdaptiveOptions,
    cycle: Time,
    status: StatusUpdater,
    forecast: Arc<CapacityCurve>,
    all_map_slots: u64,
    change_times: Vec<Time>,
    matrix: PlacementMatrix,
    last: Vec<CycleEntry>,
    service: BTreeSet<(Time, Time, JobId)>,
    next_cycle: Option<Time>,
    predictions: PredictionLog,
    cycles: u64,
}

impl Adaptive {
    /// A scheduler for `cluster` (its forecast f(t) is read once here).
    pub fn new(opts: AdaptiveOptions, cluster: &Cluster) -> Adaptive {
        let cycle = Time::from_secs_f64(opts.cycle_s).max(Time(1));
        Adaptive {
            opts,
            cycle,
            status: StatusUpdater::default(),
            forecast: Arc::new(CapacityCurve::forecast(cluster)),
            all_map_slots: cluster.nodes.iter().map(|n| n.map_slots() as u64).sum(),
            change_times: cluster.capacity_change_times(),
            matrix: PlacementMatrix::empty(cluster.nodes.len()),
            last: Vec::new(),
            service: BTreeSet::new(),
            next_cycle: None,
            predictions: PredictionLog::default(),
            cycles: 0,
        }
    }

    /// The options it runs with.
    pub fn options(&self) -> &AdaptiveOptions {
        &self.opts
    }

    /// The placement matrix in force.
    pub fn matrix(&self) -> &PlacementMatrix {
        &self.matrix
    }

    /// Every job's estimate and allocation at the last cycle.
    pub fn last_cycle(&self) -> &[CycleEntry] {
        &self.last
    }

    /// Completion-time predictions of jobs that succeeded, with outcomes.
    pub fn predictions(&self) -> &[Prediction] {
        self.predictions.resolved()
    }

    /// Control cycles run so far.
    pub fn cycles(&self) -> u64 {
        self.cycles
    }

    /// The total capacity this scheduler plans with from now on.
    fn capacity_curve(&self, st: &ClusterState, capacity: &[u32]) -> Arc<CapacityCurve> {
        match self.opts.capacity {
            CapacityView::Now => Arc::new(CapacityCurve::constant(
                capacity.iter().map(|&c| c as f64).sum(),
            )),
            CapacityView::Forecast => {
                // Node losses are not forecast: the curve is scaled by the
                // share of map slots on live nodes (our choice).
                let alive: u64 = (0..st.nodes().len())
                    .filter(|&i| st.slots(NodeId(i as u32)).alive)
                    .map(|i| st.cluster().nodes[i].map_slots() as u64)
                    .sum();
                if alive == self.all_map_slots {
                    Arc::clone(&self.forecast)
                } else {
                    Arc::new(
                        self.forecast
                            .scaled(alive as f64 / self.all_map_slots.max(1) as f64),
                    )
                }
            }
        }
    }

    /// One control cycle: status, estimates, placement, predictions.
    pub fn run_cycle(&mut self, st: &ClusterState) {
        let now = st.now();
        self.cycles += 1;
        let rows: Vec<JobRow> = st
            .active_jobs()
            .iter()
            .map(|&j| self.status.row(st, j))
            .collect();
        let row_of: FxHashMap<JobId, usize> =
            rows.iter().enumerate().map(|(i, r)| (r.job, i)).collect();

        // Capacity of every node for the next cycle, and what runs there.
        let mut capacity = Vec::with_capacity(st.nodes().len());
        let mut running: Vec<(usize, NodeId, u32)> = Vec::new();
        for i in 0..st.nodes().len() {
            let n = NodeId(i as u32);
            let mut c = node_capacity(st, self.opts.capacity, n, self.cycle, &self.change_times);
            if st.cluster().node(n).is_unified() {
                // Unified slots also run reduces: those they hold are not
                // free for maps.
                c = c.saturating_sub(st.slots(n).running_reduces);
            }
            capacity.push(c);
            let start = running.len();
            for a in st.attempts_on(n).filter(|a| a.kind == TaskKind::Map) {
                if let Some(&r) = row_of.get(&a.job) {
                    match running[start..].iter_mut().find(|e| e.0 == r) {
                        Some(e) => e.2 += 1,
                        None => running.push((r, n, 1)),
                    }
                }
            }
        }
        let curve = self.capacity_curve(st, &capacity);

        // Estimates (the only place the two schedulers' estimators differ).
        let mut estimates = vec![0u32; rows.len()];
        let mut hopeless = vec![false; rows.len()];
        let goal_rows: Vec<(usize, Time)> = rows
            .iter()
            .enumerate()
            .filter_map(|(i, r)| r.goal.map(|g| (i, g)))
            .collect();
        match self.opts.estimator {
            Estimator::Req => {
                for &(i, g) in &goal_rows {
                    let raw = s_req(&rows[i], g, now);
                    hopeless[i] = raw > rows[i].max_slots() as f64;
                    estimates[i] = clamp_estimate(raw, rows[i].max_slots());
                }
            }
            Estimator::Fit => {
                let fit: Vec<FitJob> = goal_rows
                    .iter()
                    .map(|&(i, g)| FitJob::from_row(&rows[i], g))
                    .collect();
                let rs = reverse_schedule(now, &fit, &curve, self.cycle);
                for (k, &(i, g)) in goal_rows.iter().enumerate() {
                    hopeless[i] = g <= now || rs.raw[k] > rows[i].max_slots() as f64;
                    estimates[i] = clamp_estimate(rs.raw[k], rows[i].max_slots());
                }
            }
        }

        let jobs: Vec<PlaceJob> = rows
            .iter()
            .zip(&estimates)
            .zip(&hopeless)
            .map(|((r, &e), &h)| PlaceJob {
                job: r.job,
                goal: r.goal,
                submitted: r.submitted,
                estimate: e,
                max: r.max_slots(),
                hopeless: h,
            })
            .collect();
        self.matrix = place(&jobs, &capacity, &running, self.opts.surplus);

        // Predictions (of goal jobs that hold slots; every job with slots
        // takes part in the sharing).
        let fluid: Vec<FluidJob> = rows
            .iter()
            .enumerate()
            .map(|(i, r)| FluidJob {
                work_s: r.remaining_work_s(),
                slots: self.matrix.job_total(i),
                max: r.max_slots(),
                floor_s: r.floor_s(),
            })
            .collect();
        let mut predicted = predict_completions(now, &fluid, &curve);
        for (i, r) in rows.iter().enumerate() {
            match (r.goal, predicted[i]) {
                (Some(_), Some(p)) => self.predictions.record(r.job, now, p),
                _ => predicted[i] = None,
            }
        }

        self.last = jobs
            .iter()
            .enumerate()
            .map(|(i, j)| CycleEntry {
                job: j.job,
                goal: j.goal,
                estimate: j.estimate,
                allocation: self.matrix.job_total(i),
                max: j.max,
                predicted: predicted[i],
            })
            .collect();
    }

    /// Service order of a job: goal jobs by goal, best effort last, then by
    /// submission.
    fn service_key(st: &ClusterState, j: JobId) -> (Time, Time, JobId) {
        let job = st.job(j);
        (job.spec.abs_goal().unwrap_or(Time::MAX), job.submitted, j)
    }

    /// Active jobs in service order.
    fn service_order(&self) -> impl Iterator<Item = JobId> + '_ {
        self.service.iter().map(|k| k.2)
    }
}

impl Scheduler for Adaptive {
    fn name(&self) -> String {
        match (self.opts.estimator, self.opts.capacity) {
            (Estimator::Req, CapacityView::Now) => "adaptive".into(),
            (Estimator::Fit, CapacityView::Forecast) => "reverse-adaptive".into(),
            (e, c) => format!("adaptive({e:?}, {c:?})").to_lowercase(),
        }
    }

    fn on_event(&mut self, st: &ClusterState, ev: &StateEvent) {
        match ev {
            StateEvent::JobAdmitted(j) => {
                self.status.admitted(st, *j);
                self.service.insert(Adaptive::service_key(st, *j));
                if self.next_cycle.is_none() {
                    self.next_cycle = Some(st.now());
                }
            }
            StateEvent::JobEnded(j) => {
                self.status.ended(*j);
                self.service.remove(&Adaptive::service_key(st, *j));
                let job = st.job(*j);
                let finish = job.finish.filter(|_| job.status == JobStatus::Succeeded);
                self.predictions.ended(*j, finish);
            }
            _ => {}
        }
    }

    fn assign(&mut self, st: &ClusterState, node: NodeId) -> Option<Launch> {
        if st.free_map_slots(node) > 0 {
            let entries = self.matrix.on_node(node);
            if !entries.is_empty() {
                let mut here: Vec<(JobId, u32)> = Vec::new();
                for a in st.attempts_on(node).filter(|a| a.kind == TaskKind::Map) {
                    match here.iter_mut().find(|e| e.0 == a.job) {
                        Some(e) => e.1 += 1,
                        None => here.push((a.job, 1)),
                    }
                }
                for &(j, allowed) in entries {
                    let runs = here.iter().find(|e| e.0 == j).map_or(0, |e| e.1);
                    if runs >= allowed {
                        continue;
                    }
                    if let Some((t, _)) = st.find_map_task(j, node, Locality::OffRack) {
                        return Some(Launch::map(j, t));
                    }
                }
            }
            // Never idle: a slot the matrix leaves unused (a job ran out of
            // maps or ended since the cycle, a job arrived after it) goes to
            // the first job in service order with a pending map; the next
            // cycle counts it in that job's allocation (ours).
            if self.opts.work_conserving {
                if let Some(l) = first_map(st, node, self.service_order(), None) {
                    return Some(l);
                }
            }
        }
        // Reduces are served in goal order, best effort last (ours: the
        // estimators and the matrix cover map tasks, as s_req does).
        first_reduce(st, node, self.service_order())
    }

    fn next_timer(&self) -> Option<Time> {
        self.next_cycle
    }

    fn on_timer(&mut self, st: &ClusterState) -> Vec<crate::Action> {
        let now = st.now();
        if self.next_cycle.is_some_and(|t| t <= now) {
            self.run_cycle(st);
            self.next_cycle = (!st.active_jobs().is_empty()).then(|| now + self.cycle);
        }
        Vec::new()
    }

    fn stats(&self) -> BTreeMap<String, f64> {
        let mut m = BTreeMap::new();
        m.insert("cycles".into(), self.cycles as f64);
        if let Some(a) = accuracy(self.predictions.resolved()) {
            m.insert("predictions".into(), a.count as f64);
            m.insert("prediction_mean_abs_error_s".into(), a.mean_abs_error_s);
            m.insert("prediction_mean_error_s".into(), a.mean_error_s);
            m.insert("prediction_relative_error".into(), a.relative_error);
            m.insert("prediction_within_10pct".into(), a.within_10pct);
        }
        m
    }
}

fn build(cfg: &SchedulerConfig, cluster: &Cluster) -> Result<Box<dyn Scheduler>, InputErrors> {
    let opts: AdaptiveOptions = cfg.options()?;
    if !(opts.cycle_s.is_finite() && opts.cycle_s > 0.0) {
        return Err(cfg
            .source
            .error(
                "adaptive.cycle_s",
                format!("must be a positive number of seconds, got {}", opts.cycle_s),
            )
            .into());
    }
    Ok(Box::new(Adaptive::new(opts, cluster)))
}

/// Registry entry.
pub fn info() -> PolicyInfo {
    PolicyInfo {
        name: "adaptive",
        about: "Adaptive Scheduler / Reverse-Adaptive (seed 003): completion-time goals, utility-driven placement every T s",
        build,
    }
}

/// Presets.
pub fn presets() -> Vec<Preset> {
    vec![
        Preset {
            name: "adaptive",
            about: "Adaptive Scheduler: s_req, capacity available now (seed 003 baseline)",
            toml: "policy = \"adaptive\"\n[adaptive]\nestimator = \"req\"\ncapacity = \"now\"\ncycle_s = 10\nsurplus = \"urgency\"\nwork_conserving = true\n",
        },
        Preset {
            name: "reverse-adaptive",
            about: "Reverse-Adaptive: s_fit by reverse scheduling over the forecast f(t) (seed 003)",
            toml: "policy = \"adaptive\"\n[adaptive]\nestimator = \"fit\"\ncapacity = \"forecast\"\ncycle_s = 10\nsurplus = \"urgency\"\nwork_conserving = true\n",
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use mrsched_model::{Format, Source};

    fn cluster() -> Cluster {
        Cluster::from_toml_str("c", "[[nodes]]\nmap_slots = 2\n").unwrap()
    }

    fn build_text(text: &str) -> Result<Box<dyn Scheduler>, InputErrors> {
        let cfg = SchedulerConfig::from_source(&Source::new("s.toml", text, Format::Toml))?;
        cfg.build(&cluster())
    }

    #[test]
    fn presets_are_the_two_schedulers() {
        let c = cluster();
        for (preset, name) in [
            ("adaptive", "adaptive"),
            ("reverse-adaptive", "reverse-adaptive"),
        ] {
            let s = SchedulerConfig::preset(preset).unwrap().build(&c).unwrap();
            assert_eq!(s.name(), name);
        }
        let mixed = build_text("policy = \"adaptive\"\n[adaptive]\nestimator = \"fit\"\n").unwrap();
        assert_eq!(mixed.name(), "adaptive(fit, now)");
        // The presets spell out the placement options, which are the
        // defaults; `as_in_paper` is the reconstruction of seed 003.
        for (preset, opts) in [
            ("adaptive", AdaptiveOptions::adaptive()),
            ("reverse-adaptive", AdaptiveOptions::reverse_adaptive()),
        ] {
            let cfg = SchedulerConfig::preset(preset).unwrap();
            assert_eq!(cfg.options::<AdaptiveOptions>().unwrap(), opts);
        }
        let paper = AdaptiveOptions::adaptive().as_in_paper();
        assert_eq!(
            (paper.surplus, paper.work_conserving),
            (Surplus::Utility, false)
        );
    }

    #[test]
    fn option_errors_name_the_line_and_field() {
        let e = build_text("policy = \"adaptive\"\n[adaptive]\nestimator = \"fitt\"\n")
            .err()
            .unwrap()
            .to_string();
        assert!(e.starts_with("s.toml:3: adaptive.estimator"), "{e}");
        let e = build_text("policy = \"adaptive\"\n[adaptive]\ncycle_s = 0\n")
            .err()
            .unwrap()
            .to_string();
        assert!(e.starts_with("s.toml:3: adaptive.cycle_s"), "{e}");
        assert!(e.contains("positive"), "{e}");
        let e = build_text("policy = \"adaptive\"\n[adaptive]\nsurplus = \"fifo\"\n")
            .err()
            .unwrap()
            .to_string();
        assert!(e.starts_with("s.toml:3: adaptive.surplus"), "{e}");
        let e = build_text("policy = \"adaptive\"\n[adaptive]\ncycle = 5\n")
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("cycle"), "{e}");
    }
}
