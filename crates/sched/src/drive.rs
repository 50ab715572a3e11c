//! Driving a scheduler over a cluster state: the loop both drivers share.
//!
//! The simulator and the live master differ in where time and task ends come
//! from (an event queue or real worker reports), but they must call the
//! scheduler in exactly the same way: submit then `on_submit` then admit or
//! reject; on a heartbeat `on_heartbeat` then `assign` repeatedly, applying
//! each launch to the state before the next call; every [`StateEvent`] to
//! `on_event`; timers through `next_timer` / `on_timer` and their
//! [`Action`]s. This module is that protocol, written once. A driver plugs in
//! what it does on each occasion through [`Hooks`] (queue a simulated end,
//! send a launch to a worker, ...).
//!
//! No I/O and no clock here: the driver advances the state's time itself.

use crate::scheduler::{Action, Admission, Scheduler};
use mrsched_model::{AttemptId, JobId, JobSpec, NodeId, Time};
use mrsched_state::{ClusterState, JobStatus, Launch, LaunchError, StateEvent};
use std::fmt;
use std::sync::Arc;
use std::time::Instant;

/// What a driver does when the shared loop changes the state.
pub trait Hooks {
    /// An attempt was launched: start its work (queue its end, send it to a
    /// worker).
    fn launched(&mut self, st: &ClusterState, attempt: AttemptId);

    /// A state event, seen before the scheduler's `on_event` (the driver's
    /// own bookkeeping: wakes, kills to send, copy profiles).
    fn react(&mut self, _st: &ClusterState, _ev: &StateEvent) {}

    /// A reduce attempt may start its compute phase (copy-compute
    /// splitting's admission): time its end, or tell its worker.
    fn compute_started(&mut self, _st: &ClusterState, _attempt: AttemptId) {}

    /// Explicit-time reduces of `job` must be released at `at`
    /// ([`ClusterState::release_reduces`]).
    fn wakeup(&mut self, _at: Time, _job: JobId) {}

    /// The scheduler killed a running attempt (preemption) on `node`.
    fn killed(&mut self, _st: &ClusterState, _attempt: AttemptId, _node: NodeId) {}

    /// The scheduler evicted `job`'s map outputs on `node`.
    fn evicted(&mut self, _st: &ClusterState, _job: JobId, _node: NodeId) {}

    /// Whether `assign` calls are timed (wall clock).
    fn timing(&self) -> bool {
        false
    }

    /// The wall-clock time of one `assign` call, nanoseconds.
    fn decision(&mut self, _ns: u64) {}
}

/// A launch the state refused: a scheduler bug.
#[derive(Clone, Debug, PartialEq)]
pub struct InvalidLaunch {
    /// The heartbeating node.
    pub node: NodeId,
    /// What the scheduler asked for.
    pub launch: Launch,
    /// Why it was refused.
    pub error: LaunchError,
}

impl fmt::Display for InvalidLaunch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the scheduler asked for an impossible launch on {}: {:?}: {}",
            self.node, self.launch, self.error
        )
    }
}

impl std::error::Error for InvalidLaunch {}

/// The shared driver loop. Holds only a reusable event buffer, so a driver
/// keeps one next to its state and scheduler.
#[derive(Debug, Default)]
pub struct Driver {
    scratch: Vec<StateEvent>,
}

impl Driver {
    /// A driver.
    pub fn new() -> Driver {
        Driver::default()
    }

    /// Prepare a fresh state for `sched` (copy-compute splitting is the
    /// scheduler's choice, applied before any job).
    pub fn init(st: &mut ClusterState, sched: &dyn Scheduler) {
        st.set_copy_compute_splitting(sched.copy_compute_splitting());
    }

    /// Forward the state's pending events: each to the driver's
    /// [`Hooks::react`], then to the scheduler.
    pub fn deliver(&mut self, st: &mut ClusterState, sched: &mut dyn Scheduler, h: &mut dyn Hooks) {
        // Most calls (after a launch, at the end of a step) find nothing.
        if !st.has_events() {
            return;
        }
        let mut buf = std::mem::take(&mut self.scratch);
        while st.has_events() {
            st.swap_events(&mut buf);
            for ev in buf.drain(..) {
                h.react(st, &ev);
                sched.on_event(st, &ev);
            }
        }
        self.scratch = buf;
    }

    /// A job arrives: submit it, ask the scheduler, admit or reject it, and
    /// deliver the events. Returns the job and the decision (a rejection
    /// carries the reason for the submitter).
    pub fn submit(
        &mut self,
        st: &mut ClusterState,
        sched: &mut dyn Scheduler,
        h: &mut dyn Hooks,
        spec: impl Into<Arc<JobSpec>>,
    ) -> (JobId, Admission) {
        let j = st.submit(spec);
        self.decide_submitted(st, sched, h, j)
    }

    /// [`Driver::submit`] for a job whose tasks the driver adds as they
    /// become runnable ([`ClusterState::add_maps`]; a DAG engine's stages):
    /// it stays open until [`ClusterState::close_job`].
    pub fn submit_open(
        &mut self,
        st: &mut ClusterState,
        sched: &mut dyn Scheduler,
        h: &mut dyn Hooks,
        spec: impl Into<Arc<JobSpec>>,
    ) -> (JobId, Admission) {
        let j = st.submit(spec);
        st.hold_open(j)
            .expect("a job just submitted can be held open");
        self.decide_submitted(st, sched, h, j)
    }

    fn decide_submitted(
        &mut self,
        st: &mut ClusterState,
        sched: &mut dyn Scheduler,
        h: &mut dyn Hooks,
        j: JobId,
    ) -> (JobId, Admission) {
        self.deliver(st, sched, h);
        let decision = sched.on_submit(st, j);
        self.decide(st, sched, h, j, &decision);
        (j, decision)
    }

    /// Apply an admission decision already taken (journal replay).
    pub fn decide(
        &mut self,
        st: &mut ClusterState,
        sched: &mut dyn Scheduler,
        h: &mut dyn Hooks,
        j: JobId,
        decision: &Admission,
    ) {
        match decision {
            Admission::Admit => {
                let _ = st.admit(j);
            }
            Admission::Reject(why) => {
                let _ = st.reject(j, why.clone());
            }
        }
        self.deliver(st, sched, h);
    }

    /// Node `n` heartbeats: `on_heartbeat`, then `assign` until it returns
    /// `None` or the node is full, applying each launch before the next call.
    /// Returns how many attempts were launched (each was handed to
    /// [`Hooks::launched`]). A refused launch ends the heartbeat and is
    /// returned as an error (the caller decides whether that is fatal).
    pub fn heartbeat(
        &mut self,
        st: &mut ClusterState,
        sched: &mut dyn Scheduler,
        h: &mut dyn Hooks,
        n: NodeId,
    ) -> Result<u32, InvalidLaunch> {
        let mut launched = 0;
        if !st.slots(n).alive {
            return Ok(launched);
        }
        sched.on_heartbeat(st, n);
        // At most one launch per free slot, plus the final `None`.
        let limit = st.free_map_slots(n) + st.free_reduce_slots(n) + 1;
        for _ in 0..limit {
            if st.free_map_slots(n) == 0 && st.free_reduce_slots(n) == 0 {
                break;
            }
            let launch = if h.timing() {
                let t0 = Instant::now();
                let l = sched.assign(st, n);
                h.decision(t0.elapsed().as_nanos() as u64);
                l
            } else {
                sched.assign(st, n)
            };
            let Some(launch) = launch else { break };
            match st.launch(n, &launch) {
                Ok(a) => {
                    launched += 1;
                    h.launched(st, a);
                    self.deliver(st, sched, h);
                }
                Err(error) => {
                    return Err(InvalidLaunch {
                        node: n,
                        launch,
                        error,
                    })
                }
            }
        }
        Ok(launched)
    }

    /// Apply a scheduler's actions (kills, evictions) and deliver the events.
    pub fn apply(
        &mut self,
        st: &mut ClusterState,
        sched: &mut dyn Scheduler,
        h: &mut dyn Hooks,
        actions: Vec<Action>,
    ) {
        for a in actions {
            match a {
                Action::Kill(id) => {
                    if let Some(node) = st.attempt(id).map(|x| x.node) {
                        if st.kill_attempt(id).is_ok() {
                            self.deliver(st, sched, h);
                            h.killed(st, id, node);
                        }
                    }
                }
                Action::EvictOutputs { job, node } => {
                    if st
                        .get_job(job)
                        .is_some_and(|j| j.status == JobStatus::Running)
                    {
                        st.evict_outputs(job, node);
                        h.evicted(st, job, node);
                    }
                }
            }
        }
    }

    /// The scheduler's timer is due: `on_timer` and its actions.
    pub fn fire_timer(
        &mut self,
        st: &mut ClusterState,
        sched: &mut dyn Scheduler,
        h: &mut dyn Hooks,
    ) {
        let actions = sched.on_timer(st);
        self.apply(st, sched, h, actions);
    }

    /// Work every step leaves: deliver events, hand reducers admitted to
    /// their compute phase and explicit-reduce release times to the driver,
    /// until nothing is left.
    pub fn settle(&mut self, st: &mut ClusterState, sched: &mut dyn Scheduler, h: &mut dyn Hooks) {
        loop {
            self.deliver(st, sched, h);
            if !st.has_compute_started() && !st.has_wakeups() {
                break;
            }
            let started = st.take_compute_started();
            let wakeups = st.take_wakeups();
            if started.is_empty() && wakeups.is_empty() && !st.has_events() {
                break;
            }
            for a in started {
                if st.attempt(a).is_some() {
                    h.compute_started(st, a);
                }
            }
            for (t, j) in wakeups {
                h.wakeup(t, j);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policies::fifo::Fifo;
    use mrsched_model::Cluster;

    #[derive(Default)]
    struct Log {
        launched: Vec<AttemptId>,
        events: Vec<String>,
        computes: Vec<AttemptId>,
        killed: Vec<AttemptId>,
    }

    impl Hooks for Log {
        fn launched(&mut self, _st: &ClusterState, a: AttemptId) {
            self.launched.push(a);
        }
        fn react(&mut self, _st: &ClusterState, ev: &StateEvent) {
            self.events
                .push(format!("{ev:?}").chars().take(12).collect());
        }
        fn compute_started(&mut self, _st: &ClusterState, a: AttemptId) {
            self.computes.push(a);
        }
        fn killed(&mut self, _st: &ClusterState, a: AttemptId, _n: NodeId) {
            self.killed.push(a);
        }
    }

    struct Rejecter;
    impl Scheduler for Rejecter {
        fn name(&self) -> String {
            "rejecter".into()
        }
        fn on_submit(&mut self, _st: &ClusterState, _j: JobId) -> Admission {
            Admission::Reject("no room before the deadline".into())
        }
        fn assign(&mut self, _st: &ClusterState, _n: NodeId) -> Option<Launch> {
            None
        }
    }

    fn cluster() -> Cluster {
        Cluster::from_toml_str(
            "c",
            "[[nodes]]\ncount = 2\nmap_slots = 2\nreduce_slots = 1\n",
        )
        .unwrap()
    }

    #[test]
    fn heartbeat_fills_free_slots_in_order() {
        let mut st = ClusterState::new(cluster());
        let mut sched = Fifo::new();
        Driver::init(&mut st, &sched);
        let mut d = Driver::new();
        let mut log = Log::default();
        let spec = JobSpec::explicit("j", Time::ZERO, &[1.0, 1.0, 1.0], &[1.0], 1.0);
        let (j, adm) = d.submit(&mut st, &mut sched, &mut log, spec);
        assert_eq!(adm, Admission::Admit);
        assert_eq!(st.job(j).status, JobStatus::Running);
        let n = d
            .heartbeat(&mut st, &mut sched, &mut log, NodeId(0))
            .unwrap();
        // Two map slots on node 0: two of the three maps, nothing else.
        assert_eq!(n, 2);
        let got = log.launched.clone();
        assert_eq!(got.len(), 2);
        assert_eq!(st.free_map_slots(NodeId(0)), 0);
        assert_eq!(st.job(j).map_counts.running, 2);
        // Kill one through an action: its task is pending again.
        d.apply(&mut st, &mut sched, &mut log, vec![Action::Kill(got[0])]);
        assert_eq!(log.killed, vec![got[0]]);
        assert_eq!(st.job(j).map_counts.pending, 2);
        assert!(log.events.iter().any(|e| e.starts_with("AttemptEnded")));
    }

    #[test]
    fn rejection_reaches_the_state_with_its_reason() {
        let mut st = ClusterState::new(cluster());
        let mut d = Driver::new();
        let mut log = Log::default();
        let spec = JobSpec::explicit("j", Time::ZERO, &[1.0], &[], 1.0);
        let (j, adm) = d.submit(&mut st, &mut Rejecter, &mut log, spec);
        assert!(matches!(adm, Admission::Reject(_)));
        assert_eq!(st.job(j).status, JobStatus::Rejected);
        assert_eq!(
            st.job(j).reason.as_deref(),
            Some("no room before the deadline")
        );
    }

    #[test]
    fn settle_hands_over_compute_starts() {
        let mut st = ClusterState::new(cluster());
        let mut sched = Fifo::new();
        let mut d = Driver::new();
        let mut log = Log::default();
        // Explicit reduces enter their compute phase at launch.
        let spec = JobSpec::explicit("j", Time::ZERO, &[1.0], &[1.0], 1.0);
        let (j, _) = d.submit(&mut st, &mut sched, &mut log, spec);
        assert_eq!(
            d.heartbeat(&mut st, &mut sched, &mut log, NodeId(0))
                .unwrap(),
            1
        );
        let m = log.launched.clone();
        st.advance_to(Time::from_secs(1));
        st.finish_map(m[0]).unwrap();
        d.settle(&mut st, &mut sched, &mut log);
        assert_eq!(
            d.heartbeat(&mut st, &mut sched, &mut log, NodeId(1))
                .unwrap(),
            1
        );
        let r = log.launched[1..].to_vec();
        assert_eq!(st.attempt(r[0]).unwrap().job, j);
        d.settle(&mut st, &mut sched, &mut log);
        assert_eq!(log.computes, r);
    }
}
