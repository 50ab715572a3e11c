//! Completion-time LPs: T-MarS's task-level relaxation (seed 001 §4.4,
//! (11)-(13)) and the MARES relaxation with tasks pre-assigned to machines
//! (prior-work §4.1: the single-machine polyhedron of each processor plus
//! precedence).
//!
//! Variables are task completion times C_u >= r_u + p_u; map -> reduce
//! precedence goes through one variable per job (`E_j >= C_u + d_u` for
//! maps, `C_v >= E_j + p_v` for reduces). Cuts are separated by sorting the
//! LP completion times and checking every prefix B:
//! * parallel machines, Eq. (13): `sum_B p_u C_u >= (p(B))^2 / (2|M|) + p^2(B) / 2`;
//! * per machine (MARES): `sum_B p_u C_u >= ((p(B))^2 + p^2(B)) / 2` over the
//!   tasks of one machine (Queyranne's single-machine inequalities, for
//!   which prefix separation is exact).
//!
//! On a re-plan with busy machines both start from the machines' free
//! times (see [`Capacity`]): Eq. (13) becomes `sum_B p C >= W(p(B)) +
//! p^2(B) / 2`, and machine i's cut gains `f_i p(B)` (its tasks start at
//! f_i or later); completions are at least the earliest free time (any
//! machine) or the assigned machine's free time, plus p.
//!
//! Rounds stop when no prefix is violated, when the LP value is within
//! `1 - epsilon` of a no-violation solution (violated prefixes' suffixes
//! shifted as in COGE, then precedence restored forward), or after
//! `max_rounds` solves.

use super::capacity::Capacity;
use super::classes::{violated_prefixes, Classes};
use super::coge::Relaxation;
use super::instance::Instance;
use super::lp::{default_backend, Cmp, CutPool, LpBackend, LpError, Var};

/// Objective of a completion-time LP.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Objective {
    /// Total weighted task completion time (T-MarS, H-MARES).
    Tasks,
    /// Total weighted job completion time (MARES at job level).
    Jobs,
}

/// Which cuts.
#[derive(Clone, Debug, PartialEq)]
pub enum Cuts {
    /// Eq. (13) over all machines.
    Parallel,
    /// Single-machine cuts per machine of this assignment.
    PerMachine(Vec<usize>),
}

/// Settings of a completion-time LP.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskLpOptions {
    /// What to minimise.
    pub objective: Objective,
    /// Which cuts.
    pub cuts: Cuts,
    /// Stop threshold (0.3 for MARES in seed 001 §5.1.3).
    pub epsilon: f64,
    /// Most LP solves.
    pub max_rounds: usize,
    /// Terms per block of the cut chains.
    pub block: usize,
}

/// A group's order and its violated prefixes `(position, rhs)`.
type Violated = (Vec<usize>, Vec<(usize, f64)>);

/// Tasks sorted by a completion vector (ties: maps first, then index).
pub fn completion_order(inst: &Instance, c: &[f64], subset: &[usize]) -> Vec<usize> {
    let mut v = subset.to_vec();
    v.sort_by(|&a, &b| {
        c[a].total_cmp(&c[b])
            .then((inst.tasks[a].kind as u8).cmp(&(inst.tasks[b].kind as u8)))
            .then(a.cmp(&b))
    });
    v
}

/// The cut of a group of tasks: over all machines, or over one machine
/// free at the given time.
#[derive(Clone, Debug, PartialEq)]
pub enum Bound {
    /// Eq. (13) over these machines.
    Parallel(Capacity),
    /// Single-machine cuts for a machine free at this time.
    Machine(f64),
}

impl Bound {
    fn rhs(&self, sp: f64, sp2: f64) -> f64 {
        match self {
            Bound::Parallel(cap) => cap.completion_rhs(sp, sp2),
            Bound::Machine(f) => f * sp + (sp * sp + sp2) / 2.0,
        }
    }
}

/// Violated prefixes of `order` under completion times `c`.
pub fn violations(inst: &Instance, order: &[usize], c: &[f64], bound: &Bound) -> Vec<(usize, f64)> {
    violated_prefixes(
        order.iter().map(|&t| (1.0, inst.tasks[t].p, c[t])),
        |sp, sp2| bound.rhs(sp, sp2),
    )
}

/// The groups cuts are separated over, as classes: all of them, or each
/// machine's (classes never span machines then).
fn groups(inst: &Instance, cls: &Classes, cuts: &Cuts) -> Vec<(Vec<usize>, Bound)> {
    match cuts {
        Cuts::Parallel => vec![(
            (0..cls.len()).collect(),
            Bound::Parallel(Capacity::of(inst)),
        )],
        Cuts::PerMachine(assign) => {
            let mut g: Vec<Vec<usize>> = vec![Vec::new(); inst.machines];
            for k in 0..cls.len() {
                g[assign[cls.rep(k)]].push(k);
            }
            g.into_iter()
                .enumerate()
                .filter(|(_, v)| !v.is_empty())
                .map(|(m, v)| {
                    let f = inst.machine_free[m];
                    (v, Bound::Machine(if f.is_finite() { f } else { 0.0 }))
                })
                .collect()
        }
    }
}

fn objective_of(inst: &Instance, objective: Objective, c: &[f64]) -> f64 {
    match objective {
        Objective::Tasks => inst.tasks.iter().zip(c).map(|(t, c)| t.weight * c).sum(),
        Objective::Jobs => job_completions(inst, c)
            .iter()
            .zip(&inst.jobs)
            .map(|(c, j)| j.weight * c)
            .sum(),
    }
}

fn job_completions(inst: &Instance, c: &[f64]) -> Vec<f64> {
    inst.jobs
        .iter()
        .map(|j| {
            j.maps
                .iter()
                .chain(&j.reduces)
                .map(|&t| c[t])
                .fold(j.done_at_least, f64::max)
        })
        .collect()
}

/// Solve a completion-time relaxation, over task classes (exact, see
/// [`Classes`]; per-machine cuts keep machines apart).
pub fn task_relaxation(inst: &Instance, opts: &TaskLpOptions) -> Result<Relaxation, LpError> {
    let cls = Classes::new(
        inst,
        match &opts.cuts {
            Cuts::Parallel => None,
            Cuts::PerMachine(assign) => Some(assign.as_slice()),
        },
    );
    let mut lp: Box<dyn LpBackend> = default_backend();
    let tasks_obj = opts.objective == Objective::Tasks;
    let earliest = Capacity::of(inst).earliest();
    let c: Vec<Var> = (0..cls.len())
        .map(|k| {
            let t = &inst.tasks[cls.rep(k)];
            let free = match &opts.cuts {
                Cuts::Parallel => earliest,
                // A machine that never frees (every node dead) bounds nothing.
                Cuts::PerMachine(assign) => Some(inst.machine_free[assign[cls.rep(k)]])
                    .filter(|f| f.is_finite())
                    .unwrap_or(earliest),
            };
            let obj = if tasks_obj {
                cls.size(k) * t.weight
            } else {
                0.0
            };
            lp.add_var(obj, t.release.max(free) + t.p, f64::INFINITY)
        })
        .collect();
    for job in &inst.jobs {
        if !job.reduces.is_empty() {
            let e = lp.add_var(0.0, job.reduce_ready, f64::INFINITY);
            for k in cls.of(&job.maps) {
                let delay = inst.tasks[cls.rep(k)].delay;
                lp.add_row(&[(e, 1.0), (c[k], -1.0)], Cmp::Ge, delay);
            }
            for k in cls.of(&job.reduces) {
                let p = inst.tasks[cls.rep(k)].p;
                lp.add_row(&[(c[k], 1.0), (e, -1.0)], Cmp::Ge, p);
            }
        }
        if !tasks_obj {
            let cj = lp.add_var(job.weight, job.done_at_least, f64::INFINITY);
            let last = if job.reduces.is_empty() {
                &job.maps
            } else {
                &job.reduces
            };
            for k in cls.of(last) {
                lp.add_row(&[(cj, 1.0), (c[k], -1.0)], Cmp::Ge, 0.0);
            }
        }
    }
    let pool = CutPool { block: opts.block };
    let groups = groups(inst, &cls, &opts.cuts);
    let mut out = Relaxation {
        start: Vec::new(),
        completion: Vec::new(),
        objective: 0.0,
        nv_objective: 0.0,
        rounds: 0,
        cuts: 0,
        violated: 0,
        iterations: 0,
    };
    if inst.tasks.is_empty() {
        return Ok(out);
    }
    loop {
        let obj = lp.solve()?;
        out.rounds += 1;
        out.iterations += lp.iterations();
        let c_class: Vec<f64> = c.iter().map(|&v| lp.value(v)).collect();
        let cv: Vec<f64> = cls.of_task.iter().map(|&k| c_class[k]).collect();
        let mut nv = cv.clone();
        // (group's class order, its violated prefixes)
        let mut found: Vec<Violated> = Vec::new();
        for (members, pm) in &groups {
            let class_order = cls.sorted(inst, members, |t| cv[t]);
            let viol =
                cls.violated_prefixes(inst, &class_order, &c_class, |sp, sp2| pm.rhs(sp, sp2));
            let order = cls.expand(&class_order);
            // No-violation solution: shift suffixes of this group's order.
            let (mut sp, mut sp2, mut spc, mut shift) = (0.0, 0.0, 0.0, 0.0);
            for &t in &order {
                let p = inst.tasks[t].p;
                nv[t] = cv[t] + shift;
                sp += p;
                sp2 += p * p;
                spc += p * nv[t];
                let r = pm.rhs(sp, sp2);
                if spc < r && p > 0.0 {
                    let off = (r - spc) / p;
                    shift += off;
                    nv[t] += off;
                    spc = r;
                }
            }
            if !viol.is_empty() {
                found.push((class_order, viol));
            }
        }
        // Restore precedence in the no-violation solution (forward pass).
        for job in &inst.jobs {
            let ready = job
                .maps
                .iter()
                .map(|&u| nv[u] + inst.tasks[u].delay)
                .fold(job.reduce_ready, f64::max);
            for &v in &job.reduces {
                nv[v] = nv[v].max(ready + inst.tasks[v].p);
            }
        }
        out.objective = obj;
        out.nv_objective = objective_of(inst, opts.objective, &nv);
        out.violated = found.iter().map(|f| f.1.len()).sum();
        out.start = cv.iter().zip(&inst.tasks).map(|(c, t)| c - t.p).collect();
        out.completion = job_completions(inst, &cv);
        if found.is_empty()
            || obj >= (1.0 - opts.epsilon) * out.nv_objective
            || out.rounds >= opts.max_rounds
        {
            return Ok(out);
        }
        for (order, viol) in &found {
            let terms = cls.cut_terms(inst, order, &c);
            pool.add(lp.as_mut(), &terms, viol);
            out.cuts += viol.len();
        }
    }
}
