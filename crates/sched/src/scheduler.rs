//! The scheduler interface.
//!
//! CIRCUMFLEX's Appendix A names the two layers every Hadoop scheduler has,
//! and this trait keeps them apart:
//!
//! * the **allocation layer** decides how many slots each job (pool, subjob)
//!   should hold, or in which order jobs are served. A policy computes it in
//!   `on_event` / `on_timer` (fair shares, FLEX epochs, Adaptive placement
//!   matrices, RTMR's EDF queue, MarS plans);
//! * the **assignment layer** answers heartbeats: `assign` picks one concrete
//!   task for a free slot of a node (delay scheduling, copy-compute
//!   splitting, reservations, plan following).
//!
//! Plus two hooks the papers need: admission on arrival (`on_submit`) and
//! timers (`next_timer` / `on_timer`: epochs, control cycles, preemption
//! checks) that may return [`Action`]s such as kills.
//!
//! A scheduler never mutates the cluster state and never knows whether it
//! runs in the simulator or in the live master: both drivers call these
//! methods in the same way.

use mrsched_model::{AttemptId, JobId, JobSpec, NodeId, Time};
use mrsched_state::{ClusterState, Launch, StateEvent};
use std::collections::BTreeMap;
use std::sync::Arc;

/// When heartbeats with nothing to launch matter to a scheduler
/// ([`Scheduler::idle_heartbeats`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IdleBeats {
    /// Every one may change it.
    Always,
    /// Those at or after this time may (lazy work falls due then).
    From(Time),
    /// None does.
    Never,
}

/// Admission decision for a submitted job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Admission {
    /// Run it.
    Admit,
    /// Refuse it; the reason goes back to the submitter.
    Reject(String),
}

/// Something a scheduler asks the driver to do outside heartbeats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Kill a running attempt (preemption); its task becomes pending again.
    Kill(AttemptId),
    /// Delete a job's map outputs on a node (intermediate-space eviction).
    EvictOutputs {
        /// The victim job.
        job: JobId,
        /// The node whose disk is full.
        node: NodeId,
    },
}

/// One pool's allocation as a policy with pools computed it, for the pool
/// views of drivers (`mrsched pools`). Per slot kind: `[map, reduce]`.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PoolShare {
    /// Pool path (`parent.child` for nested pools, as the allocation file
    /// and jobs name them).
    pub name: String,
    /// Weight.
    pub weight: f64,
    /// Minimum share, slots.
    pub min_share: [f64; 2],
    /// Fair share at the last share update, slots.
    pub fair_share: [f64; 2],
    /// Demand at the last share update (running + launchable), slots.
    pub demand: [f64; 2],
    /// Since when the pool has been below its min-share or fair-share
    /// target (the preemption clocks), if it is and the policy preempts.
    pub starved_since: Option<Time>,
    /// Attempts the policy has killed so that this pool gets its share.
    pub preemptions: u64,
    /// Most slots the pool may hold (the Capacity Scheduler's
    /// maximum-capacity), if the policy caps pools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_share: Option<[f64; 2]>,
}

/// A scheduling policy.
///
/// Drivers call, in this order of time:
/// `on_submit` once per job; `on_event` for every state change;
/// `on_heartbeat` then `assign` repeatedly (until it returns `None` or the
/// node has no free slot) when a node heartbeats; `on_timer` when the
/// instant from `next_timer` is reached.
pub trait Scheduler: Send {
    /// Short name for reports.
    fn name(&self) -> String;

    /// The whole job set, announced before the first arrival by a driver
    /// that knows it (the simulator; seed 001 §6.1's job set generator hands
    /// the set with release times and weights to the scheduler first).
    /// `jobs[i]` will be submitted as `JobId(i)` at `jobs[i].arrival`.
    /// Offline planners (MarS) use it; the default ignores it, and a policy
    /// must still work when it is never called (the live master).
    fn on_announce(&mut self, _st: &ClusterState, _jobs: &[Arc<JobSpec>]) {}

    /// A job was submitted (it is in `Submitted` state): admit or reject.
    fn on_submit(&mut self, _st: &ClusterState, _job: JobId) -> Admission {
        Admission::Admit
    }

    /// The cluster state changed (task ends, job ends, node loss ...).
    fn on_event(&mut self, _st: &ClusterState, _ev: &StateEvent) {}

    /// A node heartbeats; called before the `assign` calls of that heartbeat.
    fn on_heartbeat(&mut self, _st: &ClusterState, _node: NodeId) {}

    /// Choose one task for a free slot of `node`, or `None` to leave the
    /// rest of its slots idle until its next heartbeat. The driver applies
    /// each launch before calling again, so the state is always current.
    fn assign(&mut self, st: &ClusterState, node: NodeId) -> Option<Launch>;

    /// When the scheduler next wants `on_timer` (epochs, control cycles,
    /// preemption checks), if ever.
    fn next_timer(&self) -> Option<Time> {
        None
    }

    /// The timer fired: recompute allocations, return kills and evictions.
    fn on_timer(&mut self, _st: &ClusterState) -> Vec<Action> {
        Vec::new()
    }

    /// Whether heartbeats of nodes with nothing to do must still be
    /// delivered (the simulator skips them otherwise; they change nothing for
    /// policies that only act on free slots).
    fn needs_every_heartbeat(&self) -> bool {
        false
    }

    /// Whether a heartbeat could change this scheduler while nothing is
    /// pending anywhere (no map pending, no reduce launchable), if nothing
    /// else happens first. On a day-long trace such heartbeats are most of
    /// the events (each arrival wakes every idle node, the first to beat
    /// takes the work): the simulator sets them aside while the answer is
    /// [`IdleBeats::Never`] and does not deliver one due before
    /// [`IdleBeats::From`]. The default, [`IdleBeats::Always`], has them all
    /// delivered; a policy that answers otherwise must be unchanged by the
    /// heartbeats it is spared (the golden-output tests check it).
    fn idle_heartbeats(&self) -> IdleBeats {
        IdleBeats::Always
    }

    /// Take a heartbeat of the live node `node` that would launch nothing,
    /// without the full round: when a heartbeat now (`on_heartbeat`, then
    /// `assign` while the node has a free slot) would launch nothing and
    /// leave the scheduler as this call leaves it, apply what that
    /// heartbeat would have changed (its clocks and counters) and return
    /// true; otherwise change nothing and return false. The simulator then
    /// skips the round and the work around it: under delay scheduling most
    /// heartbeats of a day-long trace are nodes declined while a job waits
    /// for its data's nodes. Answer true only while `next_timer` is `None`,
    /// since the simulator does not ask for it after such a heartbeat. The
    /// default declines nothing.
    fn decline_heartbeat(&mut self, _st: &ClusterState, _node: NodeId) -> bool {
        false
    }

    /// Whether nodes should run copy-compute splitting (more reducers than
    /// reduce slots, computing limited to the reduce slots); drivers apply it
    /// before the first job (seed 002 §5.2).
    fn copy_compute_splitting(&self) -> bool {
        false
    }

    /// Policy-specific measurements for reports (e.g. admission counts).
    fn stats(&self) -> BTreeMap<String, f64> {
        BTreeMap::new()
    }

    /// Bring the allocation up to date with the state now. Policies that
    /// recompute lazily (at the next assignment) do it here; drivers call
    /// it before showing allocations ([`Scheduler::pool_shares`]).
    fn update_allocation(&mut self, _st: &ClusterState) {}

    /// The pool job `j` runs in: the pool its spec names unless the policy
    /// placed it elsewhere (the Fair Scheduler with `declared_pools_only`).
    fn pool_of(&self, st: &ClusterState, j: JobId) -> String {
        st.job(j).spec.pool_name().to_string()
    }

    /// Pools and their shares (policies with pools, such as the Fair
    /// Scheduler) as of the last allocation; empty for the others.
    fn pool_shares(&self) -> Vec<PoolShare> {
        Vec::new()
    }

    /// Problems in the configuration that do not stop the policy (such as
    /// minimum shares above the cluster's capacity), each naming the file,
    /// line and field. Drivers show them once, after building the policy.
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }
}
