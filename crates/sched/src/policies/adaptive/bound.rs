//! An upper bound on the number of completion-time goals any scheduler can
//! meet on a workload, knowing every arrival and the capacity left to
//! MapReduce over time. The goal experiments print it beside the
//! schedulers, as the MSJO reproductions print the LP lower bound, so the
//! distance to the best possible is visible.
//!
//! # The relaxation
//!
//! Time is cut into buckets at every arrival and goal of a goal job and at
//! every change of the capacity curve (below). Job `j` (arrival `a_j`,
//! absolute goal `g_j`, `n_j` maps, map work `W_j` slot-seconds) may put
//! `y[j,b]` slot-seconds into each bucket `b` inside `[a_j, g_j]`:
//!
//! ```text
//! maximise   sum_j x_j                    (x_j in [0, 1]: share of j's work done by g_j)
//! subject to sum_b y[j,b] = x_j W_j
//!            sum_j y[j,b] <= c_b len_b     (slots left to MapReduce in b)
//!            y[j,b]       <= min(n_j, c_b) len_b   (a job runs at most n_j tasks at once)
//!            x_j = 0  when a_j + its longest map > g_j
//! ```
//!
//! Any schedule of the simulator gives a feasible point with `x_j = 1` for
//! every goal met, so the optimum is at least the number of goals met and
//! its floor bounds every scheduler. The simulator's schedules fit because:
//!
//! * `W_j` counts each map once at its shortest possible attempt (task
//!   start-up + its time on the fastest node at the best locality); failed,
//!   killed and speculative attempts only take more slot time. Schedulers
//!   that run one map per attempt are covered (every policy but shared
//!   scans, whose attempts serve several maps; the goal experiments run
//!   none of those).
//! * A map runs whole between its job's arrival and its end, so its job's
//!   longest map must fit in `[a_j, g_j]`; splitting work across buckets,
//!   ignoring heartbeats, node boundaries, best-effort jobs and reduces only
//!   widens the feasible set.
//! * **Capacity.** The simulator never kills a running task when the other
//!   workload takes slots back: new tasks wait, running ones finish. So busy
//!   slots may exceed the curve for a while after it falls. On a node, the
//!   tasks running at `t` were all running when the last of them was
//!   launched, at some `s > t - D` (`D` the longest attempt anywhere), and a
//!   launch needs a free slot, so they number at most the node's free slots
//!   at `s`. `c(t)` is therefore the sum over nodes of the largest number of
//!   free map slots in `(t - D, t]` (per node, then summed: node curves may
//!   differ). Where the curve is flat this is the curve itself.
//!
//! Cuts on the number of waves (`ceil(n_j / slots)` task lengths) would be
//! valid only for a known slot count, which a shared cluster does not give a
//! job, so none is added.
//!
//! # Solving it exactly without an LP solver
//!
//! With `f_j = x_j W_j` the problem is a flow: source -> job (capacity
//! `W_j`) -> bucket (`min(n_j, c_b) len_b`) -> sink (`c_b len_b`), maximising
//! `sum_j f_j / W_j`. The vectors `(f_j)` of feasible flows form a
//! polymatroid (the rank of a set of jobs is its max flow, a submodular
//! function), and a linear objective with non-negative weights is maximised
//! over a polymatroid by the greedy algorithm (Edmonds): take jobs by
//! decreasing weight `1 / W_j`, i.e. smallest work first, and give each the
//! most flow it can get without taking any from the jobs before it. Each
//! step is a max flow from one job in the residual network (augmenting
//! paths). This stays well under a second for the experiments' 300 jobs,
//! where a simplex over the same LP (thousands of `y[j,b]`) would take far
//! longer; a test checks the two agree on small instances. Times are the
//! simulator's integer microseconds and capacities whole slots, so the flow
//! is computed exactly in integer slot-microseconds (no tolerance: a job is
//! served whole or it is not).

use mrsched_model::{cost, Cluster, JobSpec, Locality, NodeId, Time, Workload};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// The bound on one workload.
#[derive(Clone, Debug, PartialEq)]
pub struct GoalBound {
    /// Jobs with a goal.
    pub goal_jobs: usize,
    /// Goal jobs that cannot meet their goal whatever the scheduler: their
    /// longest map does not fit between arrival and goal.
    pub hopeless: usize,
    /// The relaxation's optimum, `sum_j x_j` (fractional).
    pub value: f64,
    /// Its floor: no scheduler meets more goals.
    pub met: usize,
    /// `x_j` of every goal job, in workload order.
    pub fractions: Vec<f64>,
    /// `W_j` of every goal job (slot-seconds of map work), in workload
    /// order.
    pub work: Vec<f64>,
    /// Time buckets of the relaxation.
    pub buckets: usize,
    /// Job-bucket pairs (`y[j,b]` variables).
    pub arcs: usize,
}

impl GoalBound {
    /// The bound as a fraction of the goal jobs (1 without goal jobs).
    pub fn met_fraction(&self) -> f64 {
        if self.goal_jobs == 0 {
            1.0
        } else {
            self.met as f64 / self.goal_jobs as f64
        }
    }
}

/// Shortest and longest attempt of one map on `cluster` (one map per
/// attempt; start-up included).
fn attempt_range(cluster: &Cluster, job: &JobSpec, i: usize) -> (Time, Time) {
    let map = job.maps.at(i);
    let (mut lo, mut hi) = (Time::MAX, Time::ZERO);
    let nodes = [fastest(cluster), slowest(cluster)];
    for n in nodes.into_iter().flatten() {
        for loc in [
            Locality::Node,
            Locality::Rack,
            Locality::OffRack,
            Locality::NoData,
        ] {
            let c = cost::map_cost(cluster, job, &map, cluster.node(n), loc);
            let d = cost::shared_map_time(cluster, &[c]);
            lo = lo.min(d);
            hi = hi.max(d);
        }
    }
    (lo.min(hi), hi)
}

fn by_speed(cluster: &Cluster, fast: bool) -> Option<NodeId> {
    (0..cluster.nodes.len())
        .map(|i| NodeId(i as u32))
        .max_by(|&a, &b| {
            let (sa, sb) = (cluster.node(a).speed, cluster.node(b).speed);
            if fast {
                sa.total_cmp(&sb)
            } else {
                sb.total_cmp(&sa)
            }
        })
}

fn fastest(cluster: &Cluster) -> Option<NodeId> {
    by_speed(cluster, true)
}

fn slowest(cluster: &Cluster) -> Option<NodeId> {
    by_speed(cluster, false)
}

/// The capacity `c(t)` of the relaxation as steps `(from, slots)`: per node
/// the most free map slots in `(t - d_max, t]`, summed over nodes (see the
/// module doc).
pub fn running_capacity(cluster: &Cluster, d_max: Time) -> Vec<(Time, u64)> {
    let mut t = cluster.capacity_change_times();
    if t.first() != Some(&Time::ZERO) {
        t.insert(0, Time::ZERO);
    }
    // Nodes with the same free-slot curve are counted once.
    let mut groups: FxHashMap<Vec<u32>, u64> = FxHashMap::default();
    for i in 0..cluster.nodes.len() {
        let n = NodeId(i as u32);
        let slots = cluster.node(n).map_slots();
        let free: Vec<u32> = t
            .iter()
            .map(|&at| slots.saturating_sub(cluster.taken_at(n, at).0))
            .collect();
        *groups.entry(free).or_default() += 1;
    }
    let mut points: Vec<Time> = t
        .iter()
        .flat_map(|&x| [x, x.saturating_add(d_max)])
        .collect();
    points.sort_unstable();
    points.dedup();
    let mut steps: Vec<(Time, u64)> = Vec::with_capacity(points.len());
    for &p in &points {
        // Pieces [t_k, t_k+1) meeting the window (p - d_max, p].
        let hi = t.partition_point(|&x| x <= p).saturating_sub(1);
        let lo = (0..=hi)
            .find(|&k| {
                t.get(k + 1)
                    .is_none_or(|&next| next.saturating_add(d_max) > p)
            })
            .unwrap_or(hi);
        let total: u64 = groups
            .iter()
            .map(|(free, count)| count * free[lo..=hi].iter().copied().max().unwrap_or(0) as u64)
            .sum();
        steps.push((p, total));
    }
    steps.dedup_by(|b, a| b.1 == a.1);
    steps
}

/// One goal job of the relaxation; times in microseconds, work in
/// slot-microseconds.
struct BoundJob {
    arrival: u64,
    goal: u64,
    tasks: u64,
    work: u64,
}

/// The flow network: jobs, buckets, and an arc per job and bucket of its
/// window.
struct Network {
    /// Bucket `b` is `[edges[b], edges[b + 1])`, microseconds.
    edges: Vec<u64>,
    /// Slots of each bucket.
    slots: Vec<u64>,
    /// `(first bucket, arc capacities)` per job.
    arcs: Vec<(usize, Vec<u64>)>,
}

impl Network {
    fn new(jobs: &[BoundJob], capacity: &[(u64, u64)]) -> Network {
        let (lo, hi) = jobs
            .iter()
            .fold((u64::MAX, 0), |(l, h), j| (l.min(j.arrival), h.max(j.goal)));
        let mut edges: Vec<u64> = jobs.iter().flat_map(|j| [j.arrival, j.goal]).collect();
        edges.extend(capacity.iter().map(|s| s.0).filter(|&t| t > lo && t < hi));
        edges.sort_unstable();
        edges.dedup();
        let at = |t: u64| {
            let i = capacity.partition_point(|s| s.0 <= t).saturating_sub(1);
            capacity.get(i).map_or(0, |s| s.1)
        };
        let slots: Vec<u64> = edges.iter().map(|&t| at(t)).collect();
        let arcs = jobs
            .iter()
            .map(|j| {
                let first = edges.partition_point(|&t| t < j.arrival);
                let last = edges.partition_point(|&t| t < j.goal);
                let caps = (first..last)
                    .map(|b| {
                        j.tasks
                            .min(slots[b])
                            .saturating_mul(edges[b + 1] - edges[b])
                    })
                    .collect();
                (first, caps)
            })
            .collect();
        Network { edges, slots, arcs }
    }

    fn buckets(&self) -> usize {
        self.edges.len().saturating_sub(1)
    }

    /// Slot-microseconds of bucket `b`.
    fn room(&self, b: usize) -> u64 {
        self.slots[b].saturating_mul(self.edges[b + 1] - self.edges[b])
    }
}

/// The greedy max-weight flow of the module doc: `f_j` per job.
fn greedy_flow(jobs: &[BoundJob], net: &Network) -> Vec<u64> {
    let nb = net.buckets();
    let mut sink: Vec<u64> = (0..nb).map(|b| net.room(b)).collect();
    // flow[j][k]: on the arc of job j to bucket first_j + k.
    let mut flow: Vec<Vec<u64>> = net.arcs.iter().map(|a| vec![0; a.1.len()]).collect();
    // Jobs that may have flow into each bucket (for reverse arcs).
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); nb];
    for (j, (first, caps)) in net.arcs.iter().enumerate() {
        for k in 0..caps.len() {
            users[first + k].push(j);
        }
    }
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&a| (jobs[a].work, a));
    let mut got = vec![0u64; jobs.len()];
    // BFS state: how each job and bucket was reached.
    let mut job_from: Vec<Option<usize>> = vec![None; jobs.len()];
    let mut bucket_from: Vec<Option<usize>> = vec![None; nb];
    for &j in &order {
        let (first, caps) = &net.arcs[j];
        // Direct fill first: most of the flow needs no rerouting.
        for k in 0..caps.len() {
            let want = jobs[j].work - got[j];
            if want == 0 {
                break;
            }
            let d = want.min(caps[k] - flow[j][k]).min(sink[first + k]);
            flow[j][k] += d;
            sink[first + k] -= d;
            got[j] += d;
        }
        // Then augmenting paths job -> bucket (-> job -> bucket)* -> sink.
        while got[j] < jobs[j].work {
            job_from.iter_mut().for_each(|v| *v = None);
            bucket_from.iter_mut().for_each(|v| *v = None);
            job_from[j] = Some(usize::MAX);
            let mut queue = VecDeque::from([j]);
            let mut end = None;
            'bfs: while let Some(u) = queue.pop_front() {
                let (f, c) = &net.arcs[u];
                for k in 0..c.len() {
                    let b = f + k;
                    if bucket_from[b].is_some() || c[k] == flow[u][k] {
                        continue;
                    }
                    bucket_from[b] = Some(u);
                    if sink[b] > 0 {
                        end = Some(b);
                        break 'bfs;
                    }
                    for &v in &users[b] {
                        if job_from[v].is_none() && flow[v][b - net.arcs[v].0] > 0 {
                            job_from[v] = Some(b);
                            queue.push_back(v);
                        }
                    }
                }
            }
            let Some(end) = end else { break };
            // Bottleneck, walking back from the sink.
            let mut d = (jobs[j].work - got[j]).min(sink[end]);
            let mut b = end;
            loop {
                let u = bucket_from[b].expect("reached");
                let k = b - net.arcs[u].0;
                d = d.min(net.arcs[u].1[k] - flow[u][k]);
                if u == j {
                    break;
                }
                let prev = job_from[u].expect("reached");
                d = d.min(flow[u][prev - net.arcs[u].0]);
                b = prev;
            }
            let mut b = end;
            sink[end] -= d;
            loop {
                let u = bucket_from[b].expect("reached");
                let k = b - net.arcs[u].0;
                flow[u][k] += d;
                if u == j {
                    break;
                }
                let prev = job_from[u].expect("reached");
                flow[u][prev - net.arcs[u].0] -= d;
                b = prev;
            }
            got[j] += d;
        }
    }
    got
}

/// Goal jobs of `workload`: their work `W_j`, and the job with its window
/// or `None` when it cannot meet its goal; and the longest attempt of any
/// map.
fn goal_jobs(cluster: &Cluster, workload: &Workload) -> (Vec<(u64, Option<BoundJob>)>, Time) {
    let mut d_max = Time::ZERO;
    let mut out = Vec::new();
    for job in &workload.jobs {
        let (mut work, mut longest_min) = (0u64, Time::ZERO);
        for i in 0..job.maps.len() {
            let (lo, hi) = attempt_range(cluster, job, i);
            work = work.saturating_add(lo.0);
            longest_min = longest_min.max(lo);
            d_max = d_max.max(hi);
        }
        let Some(goal) = job.abs_goal() else {
            continue;
        };
        let fits = job.arrival.saturating_add(longest_min) <= goal;
        out.push((
            work,
            fits.then_some(BoundJob {
                arrival: job.arrival.0,
                goal: goal.0,
                tasks: job.maps.len() as u64,
                work,
            }),
        ));
    }
    (out, d_max)
}

/// The bound for `workload` on `cluster` (see the module doc).
pub fn goal_bound(cluster: &Cluster, workload: &Workload) -> GoalBound {
    let (all, d_max) = goal_jobs(cluster, workload);
    let (work, all): (Vec<u64>, Vec<Option<BoundJob>>) = all.into_iter().unzip();
    let goal_jobs = all.len();
    let hopeless = all.iter().filter(|j| j.is_none()).count();
    // Jobs without maps meet their goal at arrival: x_j = 1 outside the flow.
    let mut fractions: Vec<f64> = all
        .iter()
        .map(|j| match j {
            Some(j) if j.work == 0 => 1.0,
            _ => 0.0,
        })
        .collect();
    let (idx, jobs): (Vec<usize>, Vec<BoundJob>) = all
        .into_iter()
        .enumerate()
        .filter_map(|(i, j)| j.filter(|j| j.work > 0).map(|j| (i, j)))
        .unzip();
    let (mut buckets, mut arcs) = (0, 0);
    if !jobs.is_empty() {
        let capacity: Vec<(u64, u64)> = running_capacity(cluster, d_max)
            .into_iter()
            .map(|(t, s)| (t.0, s))
            .collect();
        let net = Network::new(&jobs, &capacity);
        buckets = net.buckets();
        arcs = net.arcs.iter().map(|a| a.1.len()).sum();
        for (k, f) in greedy_flow(&jobs, &net).into_iter().enumerate() {
            fractions[idx[k]] = if f == jobs[k].work {
                1.0
            } else {
                f as f64 / jobs[k].work as f64
            };
        }
    }
    // Whole jobs are counted exactly; the partial ones add less than one
    // each, and the count rounds their sum generously (floating-point error
    // may only raise the bound).
    let whole = fractions.iter().filter(|&&x| x == 1.0).count();
    let partial: f64 = fractions.iter().filter(|&&x| x < 1.0).sum();
    let value = whole as f64 + partial;
    GoalBound {
        goal_jobs,
        hopeless,
        value,
        met: (whole + (partial + 1e-9 * goal_jobs as f64).floor() as usize).min(goal_jobs),
        fractions,
        work: work.iter().map(|&w| Time(w).as_secs_f64()).collect(),
        buckets,
        arcs,
    }
}

#[cfg(test)]
mod tests;
