//! The RTMR scheduler (seed 004 §IV): admission controller, reservation
//! dispatcher and feedback controller on one EDF (or FIFO) queue.

use super::dispatch::{dispatch_reduce, ReservationTest};
use super::estimate::Estimator;
use super::job::RtJob;
use super::queue::{AdmissionQueue, QueueOrder};
use super::{check_priors, default_slack, Priors};
use crate::assign::first_map;
use crate::config::SchedulerConfig;
use crate::scheduler::{Admission, Scheduler};
use mrsched_model::{Cluster, InputErrors, JobId, NodeId, Time};
use mrsched_state::{ClusterState, JobStatus, Launch, StateEvent, TaskStatus};
use serde::Deserialize;
use std::collections::BTreeMap;

/// The `[rtmr]` options table.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RtmrOptions {
    /// Queue order: `"edf"` (default) or `"fifo"`.
    #[serde(default)]
    pub order: QueueOrder,
    /// Run the feedback controller (Algorithms V-VI).
    #[serde(default = "super::yes")]
    pub feedback: bool,
    /// Algorithm IV's reservation test: `">="` (safe, default) or `">"`
    /// (as printed in the seed).
    #[serde(default)]
    pub reservation_test: ReservationTest,
    /// Feedback threshold epsilon, seconds (default: the mean observed map
    /// time, "a typical map task execution time").
    #[serde(default)]
    pub epsilon_s: Option<f64>,
    /// Heartbeat wait allowed at the start of each stage, seconds (default:
    /// the cluster's heartbeat interval plus jitter).
    #[serde(default)]
    pub dispatch_slack_s: Option<f64>,
    /// Prior of delta.
    #[serde(default = "Priors::default_delta")]
    pub initial_delta: f64,
    /// Prior of c_m^max, seconds per input MB.
    #[serde(default = "Priors::default_s_per_mb")]
    pub initial_map_s_per_mb: f64,
    /// Prior of c_r^max, seconds per partition MB.
    #[serde(default = "Priors::default_s_per_mb")]
    pub initial_reduce_s_per_mb: f64,
}

/// The RTMR scheduler.
#[derive(Debug)]
pub struct Rtmr {
    queue: AdmissionQueue,
    est: Estimator,
    feedback: bool,
    test: ReservationTest,
    epsilon: Option<Time>,
    order: Vec<JobId>,
    admitted: u64,
    rejected: u64,
    feedback_runs: u64,
    misses: u64,
}

impl Rtmr {
    /// RTMR for `cluster` with `opts` (already checked).
    pub fn new(cluster: &Cluster, opts: &RtmrOptions) -> Rtmr {
        let slack = opts
            .dispatch_slack_s
            .map_or_else(|| default_slack(cluster), Time::from_secs_f64);
        Rtmr {
            queue: AdmissionQueue::new(
                cluster.total_map_slots() as usize,
                cluster.total_reduce_slots() as usize,
                opts.order,
                slack,
            ),
            est: Estimator::new(
                opts.initial_delta,
                opts.initial_map_s_per_mb,
                opts.initial_reduce_s_per_mb,
            ),
            feedback: opts.feedback,
            test: opts.reservation_test,
            epsilon: opts.epsilon_s.map(Time::from_secs_f64),
            order: Vec::new(),
            admitted: 0,
            rejected: 0,
            feedback_runs: 0,
            misses: 0,
        }
    }

    /// The admission queue.
    pub fn queue(&self) -> &AdmissionQueue {
        &self.queue
    }

    /// The learned parameters.
    pub fn estimator(&self) -> &Estimator {
        &self.est
    }

    fn job_ended(&mut self, st: &ClusterState, j: JobId) {
        if self.queue.position(j).is_none() {
            return;
        }
        let job = st.job(j);
        let ends = |tasks: &[mrsched_state::Task]| -> Vec<Time> {
            tasks
                .iter()
                .filter(|t| t.status == TaskStatus::Done)
                .map(|t| t.finish)
                .collect()
        };
        let (map_ends, reduce_ends) = (ends(&job.maps), ends(&job.reduces));
        if job.status == JobStatus::Succeeded {
            self.est.learn(job);
        }
        let finish = job.finish.unwrap_or(st.now());
        let deadline = RtJob::from_state(st, j).deadline;
        if finish > deadline || job.status != JobStatus::Succeeded {
            self.misses += 1;
        }
        if self.feedback {
            let eps = self
                .epsilon
                .or_else(|| self.est.typical_map())
                .unwrap_or(Time::ZERO);
            if self
                .queue
                .feedback(j, finish, &map_ends, &reduce_ends, eps, &self.est, st.now())
            {
                self.feedback_runs += 1;
            }
        }
        self.queue.finish(j, map_ends, reduce_ends);
    }
}

impl Scheduler for Rtmr {
    fn name(&self) -> String {
        "rtmr".into()
    }

    fn on_submit(&mut self, st: &ClusterState, j: JobId) -> Admission {
        self.queue
            .refresh_started(|id| st.job(id).first_launch.is_some());
        let job = RtJob::from_state(st, j);
        match self.queue.admit(&job, &self.est, st.now()) {
            Ok(()) => {
                self.admitted += 1;
                Admission::Admit
            }
            Err(r) => {
                self.rejected += 1;
                Admission::Reject(format!(
                    "RTMR {}",
                    r.reason(|x| format!("`{}` ({x})", st.job(x).spec.name))
                ))
            }
        }
    }

    fn on_event(&mut self, st: &ClusterState, ev: &StateEvent) {
        if let StateEvent::JobEnded(j) = ev {
            self.job_ended(st, *j);
        }
    }

    fn assign(&mut self, st: &ClusterState, node: NodeId) -> Option<Launch> {
        self.order.clear();
        self.order.extend(
            self.queue
                .active()
                .map(|r| r.job.id)
                .filter(|j| st.job(*j).is_running()),
        );
        // Algorithm IV lines 4-5: maps in queue order, as Hadoop does
        // (most local map of the first job with one).
        if let Some(l) = first_map(st, node, self.order.iter().copied(), None) {
            return Some(l);
        }
        dispatch_reduce(st, node, &self.order, self.test)
    }

    fn stats(&self) -> BTreeMap<String, f64> {
        BTreeMap::from([
            ("admitted".into(), self.admitted as f64),
            ("rejected".into(), self.rejected as f64),
            ("feedback_runs".into(), self.feedback_runs as f64),
            ("deadline_misses".into(), self.misses as f64),
            ("delta".into(), self.est.delta),
            ("map_s_per_mb".into(), self.est.map_s_per_mb),
            ("reduce_s_per_mb".into(), self.est.reduce_s_per_mb),
        ])
    }
}

/// Build from a configuration.
pub fn build(cfg: &SchedulerConfig, cluster: &Cluster) -> Result<Box<dyn Scheduler>, InputErrors> {
    let o: RtmrOptions = cfg.options()?;
    let mut errs = InputErrors::new();
    check_priors(
        cfg,
        &mut errs,
        &[
            ("initial_delta", Some(o.initial_delta)),
            ("initial_map_s_per_mb", Some(o.initial_map_s_per_mb)),
            ("initial_reduce_s_per_mb", Some(o.initial_reduce_s_per_mb)),
            ("epsilon_s", o.epsilon_s),
            ("dispatch_slack_s", o.dispatch_slack_s),
        ],
    );
    errs.into_result(())?;
    Ok(Box::new(Rtmr::new(cluster, &o)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mrsched_model::JobSpec;

    fn cluster() -> Cluster {
        // 2 nodes with 1 map and 1 reduce slot each.
        Cluster::from_toml_str(
            "c",
            "reduce_slowstart = 1.0\n[[nodes]]\ncount = 2\nmap_slots = 1\nreduce_slots = 1\n",
        )
        .unwrap()
    }

    fn opts(test: ReservationTest) -> RtmrOptions {
        RtmrOptions {
            order: QueueOrder::Edf,
            feedback: true,
            reservation_test: test,
            epsilon_s: None,
            dispatch_slack_s: Some(0.0),
            initial_delta: 1.0,
            initial_map_s_per_mb: 1.0,
            initial_reduce_s_per_mb: 1.0,
        }
    }

    fn spec(name: &str, maps: usize, reduces: usize, deadline_s: u64) -> JobSpec {
        let mut s = JobSpec::explicit(name, Time::ZERO, &vec![10.0; maps], &[], 1.0);
        for m in s.maps.list_mut() {
            m.input_mb = 10.0;
        }
        s.reduces = vec![mrsched_model::ReduceSpec { time: None }; reduces];
        s.cost.map_output_ratio = 0.1;
        s.deadline = Some(Time::from_secs(deadline_s));
        s
    }

    /// L (deadline 900) starts first and finishes its map; H (deadline 500)
    /// arrives later and runs its two maps. L keeps its place ahead of H
    /// (no preemption), so its ready reduce is served whatever H reserves.
    fn started_first(test: ReservationTest) -> Option<Launch> {
        let c = cluster();
        let mut st = ClusterState::new(c.clone());
        let mut s = Rtmr::new(&c, &opts(test));
        let l = st.submit(spec("L", 1, 1, 900));
        assert_eq!(s.on_submit(&st, l), Admission::Admit);
        st.admit(l).unwrap();
        let a = st.launch(NodeId(0), &Launch::map(l, 0)).unwrap();
        st.advance_to(Time::from_secs(10));
        st.finish_map(a).unwrap();
        let h = st.submit(spec("H", 2, 2, 500));
        assert_eq!(s.on_submit(&st, h), Admission::Admit);
        st.admit(h).unwrap();
        st.launch(NodeId(0), &Launch::map(h, 0)).unwrap();
        st.launch(NodeId(1), &Launch::map(h, 1)).unwrap();
        let order: Vec<JobId> = s.queue().active().map(|r| r.job.id).collect();
        assert_eq!(order, vec![l, h]);
        s.assign(&st, NodeId(0))
    }

    #[test]
    fn started_job_ahead_gets_its_reduce() {
        for test in [ReservationTest::AtLeast, ReservationTest::MoreThan] {
            assert_eq!(started_first(test), Some(Launch::reduce(JobId(0), 0)));
        }
    }

    /// H is ahead of L in the queue and still in its map stage with R = 2;
    /// L's maps are done. Ra = 2 free reduce slots.
    fn behind(test: ReservationTest) -> Option<Launch> {
        let c = cluster();
        let mut st = ClusterState::new(c.clone());
        let mut s = Rtmr::new(&c, &opts(test));
        let h = st.submit(spec("H", 2, 2, 500));
        assert_eq!(s.on_submit(&st, h), Admission::Admit);
        st.admit(h).unwrap();
        let l = st.submit(spec("L", 1, 1, 900));
        assert_eq!(s.on_submit(&st, l), Admission::Admit);
        st.admit(l).unwrap();
        // The dispatcher serves maps in queue order: H's two maps first.
        assert_eq!(s.assign(&st, NodeId(0)), Some(Launch::map(h, 0)));
        let a0 = st.launch(NodeId(0), &Launch::map(h, 0)).unwrap();
        assert_eq!(s.assign(&st, NodeId(1)), Some(Launch::map(h, 1)));
        st.launch(NodeId(1), &Launch::map(h, 1)).unwrap();
        st.advance_to(Time::from_secs(10));
        st.finish_map(a0).unwrap();
        assert_eq!(s.assign(&st, NodeId(0)), Some(Launch::map(l, 0)));
        let b = st.launch(NodeId(0), &Launch::map(l, 0)).unwrap();
        st.advance_to(Time::from_secs(20));
        st.finish_map(b).unwrap();
        // Now: H in its map stage (1 map running), L's reduce is ready,
        // both reduce slots free.
        assert_eq!(super::super::dispatch::cluster_free_reduce_slots(&st), 2);
        s.assign(&st, NodeId(0))
    }

    #[test]
    fn reservation_holds_slots_for_the_higher_priority_job() {
        assert_eq!(behind(ReservationTest::AtLeast), None);
        assert_eq!(
            behind(ReservationTest::MoreThan),
            Some(Launch::reduce(JobId(1), 0))
        );
    }

    #[test]
    fn rejection_names_the_reason() {
        let c = cluster();
        let mut st = ClusterState::new(c.clone());
        let mut s = Rtmr::new(&c, &opts(ReservationTest::AtLeast));
        // 4 maps of 10 s on 2 slots = 20 s; 1 reduce of 40 MB x 1 s/MB.
        let j = st.submit(spec("tight", 4, 1, 30));
        match s.on_submit(&st, j) {
            Admission::Reject(r) => assert!(r.contains("estimated finish 60.0 s"), "{r}"),
            Admission::Admit => panic!("admitted"),
        }
    }
}
