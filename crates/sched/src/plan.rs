//! Plans: a task -> machine assignment with an order per machine, computed
//! ahead (MarS, T-MarS, MARES, HUWF ...), and the assignment that follows
//! one.
//!
//! The follower gives a node the first task of its queue once that task can
//! start (pending, and for reduces, released); until then the node waits:
//! planned schedules are non-preemptive and ordered, so running a later task
//! early would break the plan. Tasks whose attempt is lost (failure, node
//! loss) go back to the front of their node's queue, or of the least loaded
//! live node's queue if their node is gone, so that every planned task runs.
//! A plan may name jobs that have not been submitted yet (offline planners
//! that know the job set ahead): a node whose queue head is such a job
//! waits for it.
//!
//! A work-conserving follower (`work_conserving`) never leaves a slot idle
//! while some planned task could run: when its queue head cannot start, a
//! node takes the first task of its own queue that can, else the one with
//! the earliest planned start among the first few of every other queue.
//! Seed 001's Hadoop implementation assigns a task "if a machine is idle"
//! (§6.1); its simulations follow the plan (§5), which stays the default.

use mrsched_model::{JobId, NodeId, TaskKind, Time};
use mrsched_state::{AttemptStatus, ClusterState, JobStatus, Launch, StateEvent, TaskStatus};
use std::collections::VecDeque;

/// One planned task.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PlannedTask {
    /// The job.
    pub job: JobId,
    /// Map or reduce.
    pub kind: TaskKind,
    /// Its index.
    pub index: u32,
    /// Do not start before this time (a planned start, or a release time).
    pub not_before: Time,
}

/// A plan: one ordered queue of tasks per node.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// Queues by node id.
    pub queues: Vec<VecDeque<PlannedTask>>,
}

impl Plan {
    /// An empty plan for `nodes` nodes.
    pub fn new(nodes: usize) -> Plan {
        Plan {
            queues: vec![VecDeque::new(); nodes],
        }
    }

    /// Append a task to a node's queue.
    pub fn push(&mut self, node: NodeId, t: PlannedTask) {
        self.queues[node.idx()].push_back(t);
    }

    /// Number of planned tasks.
    pub fn len(&self) -> usize {
        self.queues.iter().map(|q| q.len()).sum()
    }

    /// True when nothing is planned.
    pub fn is_empty(&self) -> bool {
        self.queues.iter().all(|q| q.is_empty())
    }
}

/// Follows a plan on heartbeats.
#[derive(Clone, Debug, Default)]
pub struct PlanFollower {
    plan: Plan,
    /// Respect `not_before` (a timed plan) or only the order.
    pub timed: bool,
    /// Run another planned task when the queue head cannot start.
    pub work_conserving: bool,
}

/// How many entries of each other node's queue a work-conserving node
/// looks at for a task to take (bounds the cost of an idle heartbeat).
const STEAL_DEPTH: usize = 8;

impl PlanFollower {
    /// Follow `plan`; with `timed`, tasks also wait for their planned start.
    pub fn new(plan: Plan, timed: bool) -> PlanFollower {
        PlanFollower {
            plan,
            timed,
            work_conserving: false,
        }
    }

    /// The plan still to run.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Replace the plan (semi-online planners re-plan on arrivals).
    pub fn replace(&mut self, plan: Plan) {
        self.plan = plan;
    }

    /// The next launch for `node`: its queue head if that can start now;
    /// when it cannot and the follower is work-conserving, another planned
    /// task that can.
    pub fn next(&mut self, st: &ClusterState, node: NodeId) -> Option<Launch> {
        let head = self.next_in_order(st, node);
        if head.is_some() || !self.work_conserving {
            return head;
        }
        self.next_any(st, node)
    }

    /// Whether planned task `t` can start on `node` now, ignoring its
    /// place in the queue and its planned start.
    fn can_start(st: &ClusterState, node: NodeId, t: &PlannedTask) -> bool {
        let Some(job) = st.get_job(t.job) else {
            return false;
        };
        if job.status != JobStatus::Running {
            return false;
        }
        match t.kind {
            TaskKind::Map => {
                job.maps[t.index as usize].status == TaskStatus::Pending
                    && st.free_map_slots(node) > 0
            }
            TaskKind::Reduce => {
                job.reduces_ready
                    && job.reduces[t.index as usize].status == TaskStatus::Pending
                    && st.free_reduce_slots(node) > 0
            }
        }
    }

    /// Work-conserving step: the first startable task of `node`'s own
    /// queue, else the startable task with the earliest planned start among
    /// the first `STEAL_DEPTH` of every other queue (ties: lower node).
    fn next_any(&mut self, st: &ClusterState, node: NodeId) -> Option<Launch> {
        let own = &self.plan.queues[node.idx()];
        let pick = match own.iter().position(|t| Self::can_start(st, node, t)) {
            Some(i) => Some((node.idx(), i)),
            None => self
                .plan
                .queues
                .iter()
                .enumerate()
                .filter(|(n, _)| *n != node.idx())
                .flat_map(|(n, q)| {
                    q.iter()
                        .take(STEAL_DEPTH)
                        .enumerate()
                        .map(move |(i, t)| (n, i, t))
                })
                .filter(|(_, _, t)| Self::can_start(st, node, t))
                .min_by_key(|(n, i, t)| (t.not_before, *n, *i))
                .map(|(n, i, _)| (n, i)),
        };
        let (n, i) = pick?;
        let t = self.plan.queues[n].remove(i)?;
        Some(match t.kind {
            TaskKind::Map => Launch::map(t.job, t.index),
            TaskKind::Reduce => Launch::reduce(t.job, t.index),
        })
    }

    /// The next launch for `node` in plan order, if its queue head can
    /// start now.
    fn next_in_order(&mut self, st: &ClusterState, node: NodeId) -> Option<Launch> {
        let q = self.plan.queues.get_mut(node.idx())?;
        while let Some(head) = q.front().copied() {
            // A planned job that has not arrived (or not been admitted) yet:
            // offline plans know jobs before they are submitted; wait.
            let job = st.get_job(head.job)?;
            if job.status == JobStatus::Submitted {
                return None;
            }
            if job.status != JobStatus::Running {
                q.pop_front();
                continue;
            }
            let (status, free) = match head.kind {
                TaskKind::Map => (
                    job.maps[head.index as usize].status,
                    st.free_map_slots(node),
                ),
                TaskKind::Reduce => (
                    job.reduces[head.index as usize].status,
                    st.free_reduce_slots(node),
                ),
            };
            if status != TaskStatus::Pending {
                // Already running or done (e.g. launched elsewhere): drop it.
                q.pop_front();
                continue;
            }
            if free == 0 || (self.timed && st.now() < head.not_before) {
                return None;
            }
            if head.kind == TaskKind::Reduce && !job.reduces_ready {
                return None;
            }
            q.pop_front();
            return Some(match head.kind {
                TaskKind::Map => Launch::map(head.job, head.index),
                TaskKind::Reduce => Launch::reduce(head.job, head.index),
            });
        }
        None
    }

    /// The earliest `not_before` among queue heads that is still in the
    /// future (a driver wake-up time for timed plans).
    pub fn next_start(&self, now: Time) -> Option<Time> {
        self.plan
            .queues
            .iter()
            .filter_map(|q| q.front())
            .map(|t| t.not_before)
            .filter(|t| *t > now)
            .min()
    }

    /// Put tasks of failed, killed or lost attempts back into the plan.
    pub fn on_event(&mut self, st: &ClusterState, ev: &StateEvent) {
        match ev {
            StateEvent::AttemptEnded(a) if a.status != AttemptStatus::Succeeded => {
                let node = if st.slots(a.node).alive {
                    a.node
                } else {
                    self.least_loaded_alive(st).unwrap_or(a.node)
                };
                for t in a.tasks() {
                    self.plan.queues[node.idx()].push_front(PlannedTask {
                        job: t.job,
                        kind: t.kind,
                        index: t.index,
                        not_before: Time::ZERO,
                    });
                }
            }
            StateEvent::MapOutputLost { job, task } => {
                let node = self.least_loaded_alive(st).unwrap_or(NodeId(0));
                self.plan.queues[node.idx()].push_front(PlannedTask {
                    job: *job,
                    kind: TaskKind::Map,
                    index: *task,
                    not_before: Time::ZERO,
                });
            }
            StateEvent::NodeLost(n) => {
                let moved: Vec<PlannedTask> = self.plan.queues[n.idx()].drain(..).collect();
                if let Some(target) = self.least_loaded_alive(st) {
                    self.plan.queues[target.idx()].extend(moved);
                }
            }
            _ => {}
        }
    }

    fn least_loaded_alive(&self, st: &ClusterState) -> Option<NodeId> {
        (0..self.plan.queues.len())
            .map(|i| NodeId(i as u32))
            .filter(|n| st.slots(*n).alive)
            .min_by_key(|n| (self.plan.queues[n.idx()].len(), *n))
    }
}
