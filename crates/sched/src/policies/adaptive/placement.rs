//! The Placement Algorithm: a placement matrix for the next control cycle.
//!
//! Seed 003 §III-C: the placement control loop runs every T seconds and
//! outputs a matrix P (jobs x TaskTrackers: how many tasks of job j may run
//! on node n) that holds until the next cycle; the Task Scheduler enforces
//! it. The placement is judged by the jobs' utilities and aims at max-min
//! (lexicographic) utility (prior work §1.2 [RECALLED], details
//! [INFERRED]):
//!
//! 1. P starts with every running map where it runs (running tasks are never
//!    killed, so they are part of any placement);
//! 2. repeatedly, the goal job with the lowest utility under the tentative
//!    placement (ties: earliest goal, then job id) gets one more task, on the
//!    node with the most spare capacity (ties: lowest node id), until no goal
//!    job can use another slot or no node has room;
//! 3. what is left goes to best-effort jobs (no goal) the same way, fewest
//!    slots first (ties: earliest submitted): they run on leftover capacity.
//!
//! Because P is rebuilt from the running tasks at every cycle, "taking a not
//! yet started slot from the highest-utility job" (prior work §1.2) needs no
//! separate step: slots that were allocated but not started are free to be
//! given again. For unit slots the greedy is exactly max-min: each step
//! raises the lowest utility, and every utility increases with s.

use super::utility::utility;
use mrsched_model::{JobId, NodeId, Time};
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// One job as the placement sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct PlaceJob {
    /// The job.
    pub job: JobId,
    /// Absolute goal; `None` for best effort.
    pub goal: Option<Time>,
    /// Submission time (orders best-effort jobs).
    pub submitted: Time,
    /// Clamped estimate (s_req or s_fit) for goal jobs.
    pub estimate: u32,
    /// Most slots it can use (running + pending maps).
    pub max: u32,
}

/// One node as the placement sees it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PlaceNode {
    /// Map slots MapReduce may use in the next cycle (the capacity view).
    pub capacity: u32,
    /// Slots in use now: running maps (plus, on unified nodes, running
    /// reduces).
    pub used: u32,
}

impl PlaceNode {
    /// Slots the placement may still hand out on this node.
    pub fn spare(&self) -> u32 {
        self.capacity.saturating_sub(self.used)
    }
}

/// How many tasks of each job may run on each node until the next cycle.
/// Stored by node (each node holds at most its slots' worth of entries),
/// every node's entries in the order the task scheduler serves them:
/// goal jobs by goal, then best-effort jobs by submission.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlacementMatrix {
    jobs: Vec<JobId>,
    per_node: Vec<Vec<(JobId, u32)>>,
    per_job: Vec<u32>,
    new: Vec<u32>,
}

impl PlacementMatrix {
    /// An empty matrix for `nodes` nodes.
    pub fn empty(nodes: usize) -> PlacementMatrix {
        PlacementMatrix {
            jobs: Vec::new(),
            per_node: vec![Vec::new(); nodes],
            per_job: Vec::new(),
            new: vec![0; nodes],
        }
    }

    /// The jobs (rows), in the order given to [`place`].
    pub fn jobs(&self) -> &[JobId] {
        &self.jobs
    }

    /// Number of nodes (columns).
    pub fn nodes(&self) -> usize {
        self.per_node.len()
    }

    /// P[j][n].
    pub fn get(&self, job: JobId, n: NodeId) -> u32 {
        self.per_node[n.idx()]
            .iter()
            .find(|e| e.0 == job)
            .map_or(0, |e| e.1)
    }

    /// The non-zero entries of node `n`, in service order.
    pub fn on_node(&self, n: NodeId) -> &[(JobId, u32)] {
        &self.per_node[n.idx()]
    }

    /// Tasks node `n` may run in total.
    pub fn node_total(&self, n: NodeId) -> u32 {
        self.per_node[n.idx()].iter().map(|e| e.1).sum()
    }

    /// Tasks beyond the running ones this placement put on node `n`.
    pub fn node_new(&self, n: NodeId) -> u32 {
        self.new[n.idx()]
    }

    /// Tasks job `row` (index into [`PlacementMatrix::jobs`]) may run in
    /// total: its allocation.
    pub fn job_total(&self, row: usize) -> u32 {
        self.per_job[row]
    }

    fn add(&mut self, job: JobId, n: NodeId, k: u32) {
        let v = &mut self.per_node[n.idx()];
        match v.iter_mut().find(|e| e.0 == job) {
            Some(e) => e.1 += k,
            None => v.push((job, k)),
        }
    }
}

/// `f64` ordered totally, for heaps.
#[derive(Copy, Clone, Debug, PartialEq)]
struct Key(f64);
impl Eq for Key {}
impl PartialOrd for Key {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Key {
    fn cmp(&self, o: &Self) -> Ordering {
        self.0.total_cmp(&o.0)
    }
}

/// Build the placement matrix.
///
/// `running` lists `(row, node, maps)`: maps of job `jobs[row]` running on a
/// node; they are in the matrix whatever the capacity (never killed). New
/// tasks go only where `nodes[n].spare() > 0`, so for every node
/// `node_new(n) <= capacity - used` (saturating): the placement never asks a
/// node for more than its capacity.
pub fn place(
    jobs: &[PlaceJob],
    nodes: &[PlaceNode],
    running: &[(usize, NodeId, u32)],
) -> PlacementMatrix {
    let mut p = PlacementMatrix::empty(nodes.len());
    p.jobs = jobs.iter().map(|j| j.job).collect();
    p.per_job = vec![0; jobs.len()];
    for &(row, n, k) in running {
        if k > 0 {
            p.add(jobs[row].job, n, k);
            p.per_job[row] += k;
        }
    }
    // Nodes by spare capacity, most first, lowest id on ties.
    let mut node_heap: BinaryHeap<(u32, Reverse<u32>)> = nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.spare() > 0)
        .map(|(i, n)| (n.spare(), Reverse(i as u32)))
        .collect();
    let mut take_node = |p: &mut PlacementMatrix, job: JobId| -> bool {
        let Some((spare, Reverse(i))) = node_heap.pop() else {
            return false;
        };
        let n = NodeId(i);
        p.add(job, n, 1);
        p.new[n.idx()] += 1;
        if spare > 1 {
            node_heap.push((spare - 1, Reverse(i)));
        }
        true
    };

    // Goal jobs: lowest utility first (ties: earliest goal, then id).
    type GoalKey = Reverse<(Key, Time, JobId, usize)>;
    let goal_key = |row: usize, s: u32| -> GoalKey {
        let j = &jobs[row];
        let u = utility(s, j.estimate, j.max);
        Reverse((Key(u), j.goal.unwrap_or(Time::MAX), j.job, row))
    };
    let mut heap: BinaryHeap<GoalKey> = jobs
        .iter()
        .enumerate()
        .filter(|(r, j)| j.goal.is_some() && p.per_job[*r] < j.max)
        .map(|(r, _)| goal_key(r, p.per_job[r]))
        .collect();
    while let Some(Reverse((_, _, job, row))) = heap.pop() {
        if !take_node(&mut p, job) {
            break;
        }
        p.per_job[row] += 1;
        if p.per_job[row] < jobs[row].max {
            heap.push(goal_key(row, p.per_job[row]));
        }
    }

    // Best effort: fewest slots first (ties: earliest submitted, then id).
    let mut be: BinaryHeap<Reverse<(u32, Time, JobId, usize)>> = jobs
        .iter()
        .enumerate()
        .filter(|(r, j)| j.goal.is_none() && p.per_job[*r] < j.max)
        .map(|(r, j)| Reverse((p.per_job[r], j.submitted, j.job, r)))
        .collect();
    while let Some(Reverse((s, sub, job, row))) = be.pop() {
        if !take_node(&mut p, job) {
            break;
        }
        p.per_job[row] = s + 1;
        if s + 1 < jobs[row].max {
            be.push(Reverse((s + 1, sub, job, row)));
        }
    }

    // Service order on every node: goal jobs by goal, then best effort by
    // submission.
    let rank: rustc_hash::FxHashMap<JobId, (Time, Time)> = jobs
        .iter()
        .map(|j| (j.job, (j.goal.unwrap_or(Time::MAX), j.submitted)))
        .collect();
    for v in &mut p.per_node {
        v.sort_by_key(|e| (rank[&e.0], e.0));
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn goal_job(id: u32, goal_s: u64, estimate: u32, max: u32) -> PlaceJob {
        PlaceJob {
            job: JobId(id),
            goal: Some(Time::from_secs(goal_s)),
            submitted: Time::ZERO,
            estimate,
            max,
        }
    }

    fn nodes(caps: &[u32]) -> Vec<PlaceNode> {
        caps.iter()
            .map(|&c| PlaceNode {
                capacity: c,
                used: 0,
            })
            .collect()
    }

    #[test]
    fn max_min_utility_by_hand() {
        // Two nodes of 4 slots. J0: estimate 4, max 10; J1: estimate 2,
        // max 3. Utilities start at -inf for both; the greedy gives:
        // J0 (goal earlier) 1 -> u=-1, J1 1 -> u=-1 (ln1/ln2-1), J0 2 ->
        // -0.5, J1 2 -> 0, J0 3 -> -0.21, J0 4 -> 0, then J0 (0, goal
        // earlier) 5 -> 1/6, J1 3 -> 1 (its max): all 8 slots are out.
        let jobs = [goal_job(0, 10, 4, 10), goal_job(1, 20, 2, 3)];
        let p = place(&jobs, &nodes(&[4, 4]), &[]);
        assert_eq!(p.job_total(0), 5);
        assert_eq!(p.job_total(1), 3);
        assert_eq!(p.node_total(NodeId(0)) + p.node_total(NodeId(1)), 8);
        // Spread by most spare capacity: 4 on each node.
        assert_eq!(p.node_total(NodeId(0)), 4);
        assert_eq!(p.node_total(NodeId(1)), 4);
        // J0 comes first on every node.
        assert_eq!(p.on_node(NodeId(0))[0].0, JobId(0));
    }

    #[test]
    fn capacity_is_respected_and_running_tasks_stay() {
        // Node 0 has capacity 2 but runs 3 maps of J0 (capacity dropped):
        // they stay, nothing new goes there. Node 1 has 3 free slots.
        let jobs = [goal_job(0, 10, 8, 20), goal_job(1, 10, 8, 20)];
        let ns = [
            PlaceNode {
                capacity: 2,
                used: 3,
            },
            PlaceNode {
                capacity: 3,
                used: 0,
            },
        ];
        let p = place(&jobs, &ns, &[(0, NodeId(0), 3)]);
        assert_eq!(p.get(JobId(0), NodeId(0)), 3);
        assert_eq!(p.node_new(NodeId(0)), 0);
        assert_eq!(p.node_total(NodeId(1)), 3);
        // J1 had nothing: it gets all three new slots before J0 (3 running)
        // rises further (ln 3 / ln 8 - 1 = -0.47 for both at 3).
        assert_eq!(p.get(JobId(1), NodeId(1)), 3);
    }

    #[test]
    fn best_effort_gets_only_the_leftover() {
        let mut be = goal_job(2, 0, 0, 10);
        be.goal = None;
        let jobs = [goal_job(0, 10, 2, 3), be.clone()];
        let p = place(&jobs, &nodes(&[4]), &[]);
        assert_eq!(p.job_total(0), 3);
        assert_eq!(p.job_total(1), 1);
        // No leftover: nothing for best effort.
        let jobs = [goal_job(0, 10, 2, 9), be];
        let p = place(&jobs, &nodes(&[4]), &[]);
        assert_eq!(p.job_total(0), 4);
        assert_eq!(p.job_total(1), 0);
    }
}
