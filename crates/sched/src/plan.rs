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
}

impl PlanFollower {
    /// Follow `plan`; with `timed`, tasks also wait for their planned start.
    pub fn new(plan: Plan, timed: bool) -> PlanFollower {
        PlanFollower { plan, timed }
    }

    /// The plan still to run.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Replace the plan (semi-online planners re-plan on arrivals).
    pub fn replace(&mut self, plan: Plan) {
        self.plan = plan;
    }

    /// The next launch for `node`, if its queue head can start now.
    pub fn next(&mut self, st: &ClusterState, node: NodeId) -> Option<Launch> {
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
                let node = if st.node(a.node).alive {
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
            .filter(|n| st.node(*n).alive)
            .min_by_key(|n| (self.plan.queues[n.idx()].len(), *n))
    }
}
