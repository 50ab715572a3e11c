//! Turning an order or a priority into a schedule: MarS's list scheduling
//! (Algorithm 2), the priority-list baselines (HUWF, HJWF, HTWF), greedy
//! dispatch (STF), fixed per-machine sequences (MARES, H-MARES) and Graham
//! list scheduling inside T-MarS's intervals (Algorithm 3).
//!
//! Every function respects release times, map -> reduce delays and
//! machines' free times, and runs one task per machine at a time.

use super::instance::{Instance, Schedule};
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Tracks when reduces may start: the latest `S + p + d` of the job's
/// scheduled maps, and how many maps are still unscheduled.
struct Ready {
    maps_left: Vec<usize>,
    reduce_at: Vec<f64>,
}

impl Ready {
    fn new(inst: &Instance) -> Ready {
        Ready {
            maps_left: inst.jobs.iter().map(|j| j.maps.len()).collect(),
            reduce_at: inst.jobs.iter().map(|j| j.reduce_ready).collect(),
        }
    }

    /// Earliest start of task `t`, if its predecessors are all scheduled.
    fn earliest(&self, inst: &Instance, t: usize) -> Option<f64> {
        let task = &inst.tasks[t];
        if inst.is_map(t) {
            Some(task.release)
        } else if self.maps_left[task.job] == 0 {
            Some(task.release.max(self.reduce_at[task.job]))
        } else {
            None
        }
    }

    /// Record a scheduled task; returns true when it was its job's last map.
    fn scheduled(&mut self, inst: &Instance, t: usize, start: f64) -> bool {
        let task = &inst.tasks[t];
        if inst.is_map(t) {
            let j = task.job;
            self.reduce_at[j] = self.reduce_at[j].max(start + task.p + task.delay);
            self.maps_left[j] -= 1;
            self.maps_left[j] == 0
        } else {
            false
        }
    }
}

fn argmin(e: &[f64]) -> usize {
    let mut best = 0;
    for (i, v) in e.iter().enumerate() {
        if *v < e[best] {
            best = i;
        }
    }
    best
}

/// Which machine a list schedule gives the next task.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Placement {
    /// The machine idle earliest (Algorithm 2).
    EarliestFree,
    /// The machine freed last among those free by the task's earliest
    /// start (it starts then either way), else the one idle earliest: a
    /// reduce waiting for its maps' delays no longer takes the machine the
    /// next task could have used at once (`mars+ls` only).
    BestFit,
}

impl Placement {
    /// The machine for a task that may start at `earliest`, given the
    /// machines' free times `e` (ties: lower index).
    fn pick(self, e: &[f64], earliest: f64) -> usize {
        match self {
            Placement::EarliestFree => argmin(e),
            Placement::BestFit => {
                let mut best: Option<usize> = None;
                for (m, &f) in e.iter().enumerate() {
                    if f <= earliest && best.is_none_or(|b| f > e[b]) {
                        best = Some(m);
                    }
                }
                best.unwrap_or_else(|| argmin(e))
            }
        }
    }
}

/// MarS (Algorithm 2): tasks in `order` (non-descending LP middle finish
/// time), each on the machine idle earliest, starting at
/// `max(S_earliest, e_m*)`. A reduce met before all its job's maps waits
/// until the last of them is placed (never happens with an LP order).
pub fn list_schedule(inst: &Instance, order: &[usize]) -> Schedule {
    list_schedule_placed(inst, order, Placement::EarliestFree)
}

/// [`list_schedule`] with a choice of machine rule.
pub fn list_schedule_placed(inst: &Instance, order: &[usize], placement: Placement) -> Schedule {
    let n = inst.tasks.len();
    let mut sch = Schedule {
        start: vec![0.0; n],
        machine: vec![0; n],
    };
    let mut e = inst.machine_free.clone();
    let mut ready = Ready::new(inst);
    let mut held: Vec<Vec<usize>> = vec![Vec::new(); inst.jobs.len()];
    let place = |t: usize, ready: &mut Ready, sch: &mut Schedule, e: &mut Vec<f64>| -> bool {
        let earliest = ready.earliest(inst, t).expect("predecessors placed");
        let m = placement.pick(e, earliest);
        let s = earliest.max(e[m]);
        sch.start[t] = s;
        sch.machine[t] = m;
        e[m] = s + inst.tasks[t].p;
        ready.scheduled(inst, t, s)
    };
    for &t in order {
        if ready.earliest(inst, t).is_none() {
            held[inst.tasks[t].job].push(t);
            continue;
        }
        if place(t, &mut ready, &mut sch, &mut e) {
            let j = inst.tasks[t].job;
            for r in std::mem::take(&mut held[j]) {
                place(r, &mut ready, &mut sch, &mut e);
            }
        }
    }
    sch
}

#[derive(PartialEq)]
struct Key(f64, f64, usize);

impl Eq for Key {}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Key {
    // Max-heap on priority, then earlier tie value, then lower index.
    fn cmp(&self, o: &Self) -> Ordering {
        self.0
            .total_cmp(&o.0)
            .then(o.1.total_cmp(&self.1))
            .then(o.2.cmp(&self.2))
    }
}

/// The HUWF / HJWF / HTWF rule (seed 001 §5.1.3): an available list of
/// tasks with no unscheduled predecessor; each step takes the one with the
/// highest `priority` (ties: earlier release, lower index) and puts it on
/// the machine where it can start earliest.
pub fn priority_list(inst: &Instance, priority: &dyn Fn(usize) -> f64) -> Schedule {
    let n = inst.tasks.len();
    let mut sch = Schedule {
        start: vec![0.0; n],
        machine: vec![0; n],
    };
    let mut e = inst.machine_free.clone();
    let mut ready = Ready::new(inst);
    let mut heap = BinaryHeap::new();
    let push = |heap: &mut BinaryHeap<Key>, t: usize| {
        heap.push(Key(priority(t), inst.tasks[t].release, t));
    };
    for j in &inst.jobs {
        for &u in &j.maps {
            push(&mut heap, u);
        }
        if j.maps.is_empty() {
            for &v in &j.reduces {
                push(&mut heap, v);
            }
        }
    }
    while let Some(Key(_, _, t)) = heap.pop() {
        let earliest = ready.earliest(inst, t).expect("available");
        let m = argmin(&e);
        let s = earliest.max(e[m]);
        sch.start[t] = s;
        sch.machine[t] = m;
        e[m] = s + inst.tasks[t].p;
        if ready.scheduled(inst, t, s) {
            for &v in &inst.jobs[inst.tasks[t].job].reduces {
                push(&mut heap, v);
            }
        }
    }
    sch
}

/// Greedy dispatch (STF): whenever a machine is idle, it takes the
/// available task (released, predecessors finished plus delays) with the
/// smallest `key` (ties: lower index).
pub fn dispatch(inst: &Instance, key: &dyn Fn(usize) -> f64) -> Schedule {
    let n = inst.tasks.len();
    let mut sch = Schedule {
        start: vec![0.0; n],
        machine: vec![0; n],
    };
    let mut e = inst.machine_free.clone();
    let mut ready = Ready::new(inst);
    // Tasks whose predecessors are placed, by ready time (min-heap).
    let mut future: BinaryHeap<Key> = BinaryHeap::new();
    // Ready tasks by key (min-heap through negation).
    let mut avail: BinaryHeap<Key> = BinaryHeap::new();
    for j in &inst.jobs {
        for &u in &j.maps {
            future.push(Key(-inst.tasks[u].release, 0.0, u));
        }
        if j.maps.is_empty() {
            for &v in &j.reduces {
                let r = ready.earliest(inst, v).unwrap_or(0.0);
                future.push(Key(-r, 0.0, v));
            }
        }
    }
    let mut left = n;
    while left > 0 {
        let m = argmin(&e);
        let mut t_now = e[m];
        loop {
            while future.peek().is_some_and(|k| -k.0 <= t_now + 1e-12) {
                let Key(_, _, t) = future.pop().expect("peeked");
                avail.push(Key(-key(t), 0.0, t));
            }
            if !avail.is_empty() {
                break;
            }
            match future.peek() {
                Some(k) => t_now = -k.0,
                None => break,
            }
        }
        let Some(Key(_, _, t)) = avail.pop() else {
            break;
        };
        let s = t_now.max(ready.earliest(inst, t).unwrap_or(t_now));
        sch.start[t] = s;
        sch.machine[t] = m;
        e[m] = s + inst.tasks[t].p;
        left -= 1;
        if ready.scheduled(inst, t, s) {
            let j = inst.tasks[t].job;
            for &v in &inst.jobs[j].reduces {
                let r = ready.earliest(inst, v).expect("maps placed");
                future.push(Key(-r, 0.0, v));
            }
        }
    }
    sch
}

/// Workload-based assignment (MARES in seed 001 §5.1.3): tasks by
/// decreasing processing time, each to the machine with the least total
/// work so far (ties: lower index), balancing every machine's total.
pub fn balanced_assignment(inst: &Instance) -> Vec<usize> {
    let mut load = initial_load(inst);
    let mut assign = vec![0; inst.tasks.len()];
    place_longest_first(
        inst,
        (0..inst.tasks.len()).collect(),
        &mut load,
        &mut assign,
    );
    assign
}

/// Workload-based assignment job by job (a reading of MARES in seed 001
/// §5.1.3): jobs in release order (ties: index), each job's tasks by
/// decreasing processing time to the machine with the least total work so
/// far (ties: lower index). Every machine's total is as balanced as with
/// [`balanced_assignment`], and so is its share of each period's work:
/// a global LPT order ignores release times, so one machine may get
/// mostly early jobs' tasks and another mostly late jobs'.
pub fn release_order_assignment(inst: &Instance) -> Vec<usize> {
    let mut jobs: Vec<usize> = (0..inst.jobs.len()).collect();
    jobs.sort_by(|&a, &b| {
        inst.jobs[a]
            .release
            .total_cmp(&inst.jobs[b].release)
            .then(a.cmp(&b))
    });
    let mut load = initial_load(inst);
    let mut assign = vec![0; inst.tasks.len()];
    for j in jobs {
        let job = &inst.jobs[j];
        let tasks = job.maps.iter().chain(&job.reduces).copied().collect();
        place_longest_first(inst, tasks, &mut load, &mut assign);
    }
    assign
}

/// Each machine's work before any assignment: its free time (infinite for
/// a machine that never frees, so it takes nothing).
fn initial_load(inst: &Instance) -> Vec<f64> {
    inst.machine_free
        .iter()
        .map(|f| if f.is_finite() { *f } else { f64::INFINITY })
        .collect()
}

/// LPT: `tasks` by decreasing processing time (ties: index), each to the
/// machine with the least `load` so far (ties: lower index).
fn place_longest_first(
    inst: &Instance,
    mut tasks: Vec<usize>,
    load: &mut [f64],
    assign: &mut [usize],
) {
    tasks.sort_by(|&a, &b| inst.tasks[b].p.total_cmp(&inst.tasks[a].p).then(a.cmp(&b)));
    for t in tasks {
        let m = argmin(load);
        assign[t] = m;
        load[m] += inst.tasks[t].p;
    }
}

/// Fixed assignment, each machine's tasks in `order` (LP completion order,
/// consistent with precedence): every task starts when its machine is free
/// and its predecessors are done (H-MARES: "the only reason for a task to
/// wait is if some of its predecessors have not been completed").
pub fn fixed_sequences(inst: &Instance, assign: &[usize], order: &[usize]) -> Schedule {
    let n = inst.tasks.len();
    let mut sch = Schedule {
        start: vec![0.0; n],
        machine: assign.to_vec(),
    };
    let mut e = inst.machine_free.clone();
    let mut ready = Ready::new(inst);
    let mut held: Vec<Vec<usize>> = vec![Vec::new(); inst.jobs.len()];
    let place = |t: usize, ready: &mut Ready, sch: &mut Schedule, e: &mut Vec<f64>| -> bool {
        let m = assign[t];
        let s = ready.earliest(inst, t).expect("placed").max(e[m]);
        sch.start[t] = s;
        e[m] = s + inst.tasks[t].p;
        ready.scheduled(inst, t, s)
    };
    for &t in order {
        if ready.earliest(inst, t).is_none() {
            held[inst.tasks[t].job].push(t);
            continue;
        }
        if place(t, &mut ready, &mut sch, &mut e) {
            for r in std::mem::take(&mut held[inst.tasks[t].job]) {
                place(r, &mut ready, &mut sch, &mut e);
            }
        }
    }
    sch
}

/// How T-MarS places each interval's tasks.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Intervals {
    /// Algorithm 3 as analysed: the tasks of B_n start no earlier than
    /// tau_{n-1} = 1 + sum_{k<n} (t_k + a_k) (the 7-approximation).
    Analysed,
    /// The same interval order and Graham rule without the interval floors
    /// (no forced idle time between intervals).
    Packed,
}

/// T-MarS (Algorithm 3): tasks are grouped by LP completion time into the
/// geometric intervals (t_{n-1}, t_n], t_n = 2^{n-1} (t_0 = 1, B_1 holds
/// C^LP <= 1), and each group is Graham list scheduled (list = LP
/// completion order; an idle machine takes the first available task).
pub fn t_mars(inst: &Instance, lp_completion: &[f64], mode: Intervals) -> Schedule {
    let n = inst.tasks.len();
    let mut sch = Schedule {
        start: vec![0.0; n],
        machine: vec![0; n],
    };
    let interval = |c: f64| -> usize {
        if c <= 1.0 {
            1
        } else {
            (c.log2().ceil() as usize + 1).max(1)
        }
    };
    let mut groups: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for (t, c) in lp_completion.iter().enumerate().take(n) {
        groups.entry(interval(*c)).or_default().push(t);
    }
    let mut e = inst.machine_free.clone();
    let mut ready = Ready::new(inst);
    let mut floor_sum = 0.0; // sum_{k<n} (t_k + a_k)
    let mut prev_n = 0usize;
    for (&ni, tasks) in groups.iter_mut() {
        // Empty intervals between groups still count in tau (a_k = 0).
        for k in (prev_n + 1)..ni {
            floor_sum += 2f64.powi(k as i32 - 1);
        }
        let tau_prev = 1.0 + floor_sum;
        let floor = match mode {
            Intervals::Analysed => tau_prev,
            Intervals::Packed => f64::NEG_INFINITY,
        };
        tasks.sort_by(|&a, &b| {
            lp_completion[a]
                .total_cmp(&lp_completion[b])
                .then((inst.tasks[a].kind as u8).cmp(&(inst.tasks[b].kind as u8)))
                .then(a.cmp(&b))
        });
        graham(inst, tasks, floor, &mut e, &mut ready, &mut sch);
        let a_n: f64 = tasks.iter().map(|&t| inst.tasks[t].p).sum::<f64>() / inst.machines as f64;
        floor_sum += 2f64.powi(ni as i32 - 1) + a_n;
        prev_n = ni;
    }
    sch
}

/// Graham list scheduling of `list` after `floor`: the machine idle
/// earliest takes the first task of the list that is available then
/// (released, predecessors done plus delays); if none is, time moves to
/// the earliest moment one becomes available.
fn graham(
    inst: &Instance,
    list: &[usize],
    floor: f64,
    e: &mut [f64],
    ready: &mut Ready,
    sch: &mut Schedule,
) {
    let mut left: Vec<usize> = list.to_vec();
    while !left.is_empty() {
        let m = argmin(e);
        let now = e[m].max(floor);
        // First available task at `now`, else the one available soonest.
        let mut pick: Option<(usize, f64)> = None;
        let mut soonest: Option<(usize, f64)> = None;
        for (pos, &t) in left.iter().enumerate() {
            if let Some(r) = ready.earliest(inst, t) {
                if r <= now + 1e-12 {
                    pick = Some((pos, now));
                    break;
                }
                if soonest.is_none_or(|(_, s)| r < s) {
                    soonest = Some((pos, r));
                }
            }
        }
        let (pos, s) = match pick.or(soonest) {
            Some(x) => x,
            // A reduce whose maps are in a later group: cannot happen with
            // an LP order; place the rest by their own readiness.
            None => (0, now),
        };
        let t = left.remove(pos);
        let s = s.max(ready.earliest(inst, t).unwrap_or(s));
        sch.start[t] = s;
        sch.machine[t] = m;
        e[m] = s + inst.tasks[t].p;
        ready.scheduled(inst, t, s);
    }
}
