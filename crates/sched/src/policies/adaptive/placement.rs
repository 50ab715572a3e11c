//! The Placement Algorithm: a placement matrix for the next control cycle.
//!
//! Seed 003 §III-C: the placement control loop runs every T seconds and
//! outputs a matrix P (jobs x TaskTrackers: how many tasks of job j may run
//! on node n) that holds until the next cycle; the Task Scheduler enforces
//! it. The placement is judged by the jobs' utilities and aims at max-min
//! (lexicographic) utility (prior work §1.2 [RECALLED], details
//! [INFERRED]):
//!
//! 1. **How many slots each job gets.** Every slot MapReduce may use in the
//!    next cycle (the capacity view, summed over nodes) is handed out one at
//!    a time: to the goal job with the lowest utility under the tentative
//!    allocation (ties: earliest goal, then job id). Every utility increases
//!    with s, so for unit slots this greedy is exactly max-min. With
//!    [`Surplus::Utility`] (the paper's upper branch) this goes on until no
//!    goal job can use another slot. With [`Surplus::Urgency`] (the default)
//!    it stops at each job's estimate (utility 0), and the surplus, the slots
//!    no goal job needs to reach its estimate, goes to goal jobs by goal,
//!    earliest first, each up to all it can use: the estimates are lower
//!    bounds (fluid work, no heartbeat, cycle or last-wave delay), so a job
//!    paced at its estimate ends on its goal or just after it, and measured
//!    on the goal-mix runs the misses FIFO avoids were such jobs while
//!    later-goal jobs held surplus (`docs/policies/adaptive.md`, "Why FIFO
//!    met goals the adaptive family missed"). What is left goes to
//!    best-effort jobs, fewest slots first (ties: earliest submitted).
//! 2. **Where.** Each job first keeps its running maps where they run, as far
//!    as its allocation and the node's capacity allow (jobs in service order:
//!    goal jobs by goal, best effort last); the rest of its allocation goes
//!    one task at a time to the node with the most capacity left (ties:
//!    lowest node id).
//!
//! Running tasks are never killed: where a job runs more maps than P allows
//! (its allocation shrank, or the node's capacity dropped), those maps run to
//! the end and are not replaced. This is also how a slot that a job holds but
//! another needs more changes hands ("take a not yet started slot from the
//! highest-utility job", prior work §1.2): at the next task end, not by
//! preemption.

use super::utility::utility;
use mrsched_model::{JobId, NodeId, Time};
use serde::Deserialize;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// How the slots beyond every goal job's estimate (the surplus) are split.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Surplus {
    /// Earliest goal first, each job up to all it can use (ours; the
    /// utility still decides everything below the estimates).
    #[default]
    Urgency,
    /// By the utility's upper branch `(s - e) / (m - e)`: every job the same
    /// share of its headroom (seed 003 as reconstructed, prior work §1.2).
    Utility,
}

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
    /// A goal job that cannot meet its goal any more even with every slot
    /// it can use (goal passed, or the raw estimate above `max`).
    pub hopeless: bool,
}

/// How many tasks of each job may run on each node until the next cycle.
/// Stored by node (each node holds at most its capacity's worth of entries),
/// every node's entries in the order the task scheduler serves them: goal
/// jobs by goal, then best-effort jobs by submission.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlacementMatrix {
    jobs: Vec<JobId>,
    per_node: Vec<Vec<(JobId, u32)>>,
    per_job: Vec<u32>,
}

impl PlacementMatrix {
    /// An empty matrix for `nodes` nodes.
    pub fn empty(nodes: usize) -> PlacementMatrix {
        PlacementMatrix {
            jobs: Vec::new(),
            per_node: vec![Vec::new(); nodes],
            per_job: Vec::new(),
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

/// Step 1: every job's allocation (see the module doc).
pub fn allocate(jobs: &[PlaceJob], total: u64, surplus: Surplus) -> Vec<u32> {
    let mut alloc = vec![0u32; jobs.len()];
    let mut left = total;
    type GoalKey = Reverse<(Key, Time, JobId, usize)>;
    let goal_key = |row: usize, s: u32| -> GoalKey {
        let j = &jobs[row];
        Reverse((
            Key(utility(s, j.estimate, j.max)),
            j.goal.unwrap_or(Time::MAX),
            j.job,
            row,
        ))
    };
    let mut heap: BinaryHeap<GoalKey> = jobs
        .iter()
        .enumerate()
        .filter(|(_, j)| j.goal.is_some() && j.max > 0)
        .filter(|(_, j)| surplus == Surplus::Utility || !j.hopeless)
        .map(|(r, _)| goal_key(r, 0))
        .collect();
    // Max-min utility; with the urgency surplus only up to the estimates.
    let cap = |row: usize| match surplus {
        Surplus::Utility => jobs[row].max,
        Surplus::Urgency => jobs[row].estimate.clamp(1, jobs[row].max.max(1)),
    };
    while left > 0 {
        let Some(Reverse((_, _, _, row))) = heap.pop() else {
            break;
        };
        alloc[row] += 1;
        left -= 1;
        if alloc[row] < cap(row) {
            heap.push(goal_key(row, alloc[row]));
        }
    }
    if surplus == Surplus::Urgency {
        // The surplus by goal, earliest first (ties: job id): finishing the
        // most urgent job early absorbs its estimate's optimism and frees
        // its slots for the jobs due after it (ours; the paper is silent).
        // Jobs that can no longer meet their goal come after those that
        // can, still by goal (ours: they would take slots from jobs that
        // can still make it; once late, ending early only cuts lateness).
        let mut by_goal: Vec<usize> = (0..jobs.len())
            .filter(|&r| jobs[r].goal.is_some() && jobs[r].max > 0)
            .collect();
        by_goal.sort_by_key(|&r| (jobs[r].hopeless, jobs[r].goal, jobs[r].job));
        for r in by_goal {
            let k = (jobs[r].max - alloc[r]).min(left.min(u32::MAX as u64) as u32);
            alloc[r] += k;
            left -= k as u64;
        }
    }
    let mut be: BinaryHeap<Reverse<(u32, Time, JobId, usize)>> = jobs
        .iter()
        .enumerate()
        .filter(|(_, j)| j.goal.is_none() && j.max > 0)
        .map(|(r, j)| Reverse((0, j.submitted, j.job, r)))
        .collect();
    while left > 0 {
        let Some(Reverse((s, sub, job, row))) = be.pop() else {
            break;
        };
        alloc[row] = s + 1;
        left -= 1;
        if s + 1 < jobs[row].max {
            be.push(Reverse((s + 1, sub, job, row)));
        }
    }
    alloc
}

/// Build the placement matrix over nodes of `capacity[n]` map slots (the
/// capacity view for the next cycle). `running` lists `(row, node, maps)`:
/// maps of job `jobs[row]` running on a node, kept in place when possible.
/// For every node `node_total(n) <= capacity[n]`: the placement never asks
/// a node for more than its capacity.
pub fn place(
    jobs: &[PlaceJob],
    capacity: &[u32],
    running: &[(usize, NodeId, u32)],
    surplus: Surplus,
) -> PlacementMatrix {
    let mut p = PlacementMatrix::empty(capacity.len());
    p.jobs = jobs.iter().map(|j| j.job).collect();
    let total: u64 = capacity.iter().map(|&c| c as u64).sum();
    p.per_job = allocate(jobs, total, surplus);

    // Service order: goal jobs by goal, then best effort by submission.
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&r| {
        let j = &jobs[r];
        (j.goal.unwrap_or(Time::MAX), j.submitted, j.job)
    });
    let mut left_cap: Vec<u32> = capacity.to_vec();
    let mut left_job: Vec<u32> = p.per_job.clone();
    // Keep running maps in place first.
    let mut by_row: Vec<Vec<(NodeId, u32)>> = vec![Vec::new(); jobs.len()];
    for &(row, n, k) in running {
        by_row[row].push((n, k));
    }
    for &r in &order {
        for &(n, k) in &by_row[r] {
            let keep = k.min(left_job[r]).min(left_cap[n.idx()]);
            if keep > 0 {
                p.add(jobs[r].job, n, keep);
                left_job[r] -= keep;
                left_cap[n.idx()] -= keep;
            }
        }
    }
    // The rest one task at a time on the node with the most capacity left.
    let mut heap: BinaryHeap<(u32, Reverse<u32>)> = left_cap
        .iter()
        .enumerate()
        .filter(|(_, &c)| c > 0)
        .map(|(i, &c)| (c, Reverse(i as u32)))
        .collect();
    for &r in &order {
        while left_job[r] > 0 {
            let Some((c, Reverse(i))) = heap.pop() else {
                break;
            };
            p.add(jobs[r].job, NodeId(i), 1);
            left_job[r] -= 1;
            if c > 1 {
                heap.push((c - 1, Reverse(i)));
            }
        }
    }
    let rank: rustc_hash::FxHashMap<JobId, usize> = order
        .iter()
        .enumerate()
        .map(|(k, &r)| (jobs[r].job, k))
        .collect();
    for v in &mut p.per_node {
        v.sort_by_key(|e| rank[&e.0]);
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
            hopeless: false,
        }
    }

    #[test]
    fn max_min_utility_by_hand() {
        // Two nodes of 4 slots. J0: estimate 4, max 10; J1: estimate 2,
        // max 3. Utilities start at -inf for both; the greedy gives:
        // J0 (goal earlier) 1 -> u=-1, J1 1 -> u=-1 (ln1/ln2-1), J0 2 ->
        // -0.5, J1 2 -> 0, J0 3 -> -0.21, J0 4 -> 0, then J0 (0, goal
        // earlier) 5 -> 1/6, J1 3 -> 1 (its max): all 8 slots are out.
        let jobs = [goal_job(0, 10, 4, 10), goal_job(1, 20, 2, 3)];
        let p = place(&jobs, &[4, 4], &[], Surplus::Utility);
        assert_eq!(p.job_total(0), 5);
        assert_eq!(p.job_total(1), 3);
        // J0 first, one task at a time on the node with most room: 3 + 2;
        // then J1 fills the rest: 1 + 2.
        assert_eq!(p.get(JobId(0), NodeId(0)), 3);
        assert_eq!(p.get(JobId(0), NodeId(1)), 2);
        assert_eq!(p.node_total(NodeId(0)), 4);
        assert_eq!(p.node_total(NodeId(1)), 4);
        assert_eq!(p.on_node(NodeId(1))[0].0, JobId(0));
    }

    #[test]
    fn capacity_bounds_the_matrix_and_running_maps_stay_when_they_fit() {
        // Node 0 has capacity 2 but runs 3 maps of J0 (the capacity
        // dropped); node 1 has capacity 3. J0 and J1 alike (estimate 8,
        // max 20): 5 slots in all, J0 3 and J1 2 (J0 first on ties... at
        // u(2) J0 and J1 tie, J0 wins, J1 then gets its second, J0 its
        // third).
        let jobs = [goal_job(0, 10, 8, 20), goal_job(1, 10, 8, 20)];
        let p = place(&jobs, &[2, 3], &[(0, NodeId(0), 3)], Surplus::Utility);
        assert_eq!(p.job_total(0), 3);
        assert_eq!(p.job_total(1), 2);
        // J0 keeps 2 of its 3 maps on node 0 (its capacity): the third
        // runs to its end and is not replaced.
        assert_eq!(p.get(JobId(0), NodeId(0)), 2);
        assert_eq!(p.get(JobId(0), NodeId(1)), 1);
        assert_eq!(p.get(JobId(1), NodeId(1)), 2);
        assert_eq!(p.node_total(NodeId(0)), 2);
        assert_eq!(p.node_total(NodeId(1)), 3);
    }

    #[test]
    fn a_newcomer_gets_slots_in_a_full_cluster() {
        // J0 runs on all 4 slots; J1 arrives with a tighter estimate.
        let jobs = [goal_job(0, 100, 2, 50), goal_job(1, 50, 4, 10)];
        let p = place(&jobs, &[4], &[(0, NodeId(0), 4)], Surplus::Utility);
        // Max-min: J1 (goal earlier) 1 -> -1, J0 1 -> -1 (ln 1 / ln 2 - 1),
        // J1 2 -> -0.5, J0 2 -> 0: the four slots are out. J0's two maps
        // beyond its allocation end and are not replaced.
        assert_eq!(p.job_total(1), 2);
        assert_eq!(p.job_total(0), 2);
    }

    #[test]
    fn urgency_surplus_goes_to_the_earliest_goal() {
        // The hand example of `max_min_utility_by_hand` with the urgency
        // surplus: both jobs first reach their estimates (J0 4, J1 2), then
        // the 2 slots left go to J0, due first (it can use 10).
        let jobs = [goal_job(0, 10, 4, 10), goal_job(1, 20, 2, 3)];
        let p = place(&jobs, &[4, 4], &[], Surplus::Urgency);
        assert_eq!(p.job_total(0), 6);
        assert_eq!(p.job_total(1), 2);
        // Reversed goals: J1 is due first and takes 1 more (its max 3), the
        // last slot goes to J0.
        let jobs = [goal_job(0, 20, 4, 10), goal_job(1, 10, 2, 3)];
        let p = place(&jobs, &[4, 4], &[], Surplus::Urgency);
        assert_eq!(p.job_total(1), 3);
        assert_eq!(p.job_total(0), 5);
    }

    #[test]
    fn hopeless_jobs_come_after_those_that_can_still_make_it() {
        // 6 slots. J0 is due first but cannot make it any more (hopeless,
        // estimate = max = 8); J1 needs 3 of its 5. With the urgency
        // surplus J1 gets its estimate before J0 gets anything, then its
        // max, then J0 the rest. By utility alone max-min gives J0, whose
        // estimate is all it can use, 4 (u = ln 4 / ln 8 - 1 = -1/3) and
        // leaves J1 below its estimate with 2 (u = ln 2 / ln 3 - 1 = -0.37).
        let mut late = goal_job(0, 10, 8, 8);
        late.hopeless = true;
        let jobs = [late, goal_job(1, 20, 3, 5)];
        let p = place(&jobs, &[6], &[], Surplus::Urgency);
        assert_eq!(p.job_total(1), 5);
        assert_eq!(p.job_total(0), 1);
        let p = place(&jobs, &[6], &[], Surplus::Utility);
        assert_eq!(p.job_total(1), 2);
        assert_eq!(p.job_total(0), 4);
    }

    #[test]
    fn best_effort_gets_only_the_leftover() {
        let mut be = goal_job(2, 0, 0, 10);
        be.goal = None;
        let jobs = [goal_job(0, 10, 2, 3), be.clone()];
        let p = place(&jobs, &[4], &[], Surplus::Utility);
        assert_eq!(p.job_total(0), 3);
        assert_eq!(p.job_total(1), 1);
        // No leftover: nothing for best effort.
        let jobs = [goal_job(0, 10, 2, 9), be];
        let p = place(&jobs, &[4], &[], Surplus::Utility);
        assert_eq!(p.job_total(0), 4);
        assert_eq!(p.job_total(1), 0);
    }
}
