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
//! Rounds stop when no prefix is violated, when the LP value is within
//! `1 - epsilon` of a no-violation solution (violated prefixes' suffixes
//! shifted as in COGE, then precedence restored forward), or after
//! `max_rounds` solves.

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

fn rhs(parallel_m: Option<usize>, sp: f64, sp2: f64) -> f64 {
    match parallel_m {
        Some(m) => sp * sp / (2.0 * m as f64) + sp2 / 2.0,
        None => (sp * sp + sp2) / 2.0,
    }
}

/// Violated prefixes of `order` under completion times `c`.
pub fn violations(
    inst: &Instance,
    order: &[usize],
    c: &[f64],
    parallel_m: Option<usize>,
) -> Vec<(usize, f64)> {
    let (mut sp, mut sp2, mut spc) = (0.0, 0.0, 0.0);
    let mut out = Vec::new();
    for (pos, &t) in order.iter().enumerate() {
        let p = inst.tasks[t].p;
        sp += p;
        sp2 += p * p;
        spc += p * c[t];
        let r = rhs(parallel_m, sp, sp2);
        if spc < r - 1e-7 * r.abs().max(1.0) {
            out.push((pos, r));
        }
    }
    out
}

/// The groups cuts are separated over: all tasks, or each machine's.
fn groups(inst: &Instance, cuts: &Cuts) -> Vec<(Vec<usize>, Option<usize>)> {
    match cuts {
        Cuts::Parallel => vec![((0..inst.tasks.len()).collect(), Some(inst.machines))],
        Cuts::PerMachine(assign) => {
            let mut g: Vec<Vec<usize>> = vec![Vec::new(); inst.machines];
            for (t, &m) in assign.iter().enumerate() {
                g[m].push(t);
            }
            g.into_iter()
                .filter(|v| !v.is_empty())
                .map(|v| (v, None))
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

/// Solve a completion-time relaxation.
pub fn task_relaxation(inst: &Instance, opts: &TaskLpOptions) -> Result<Relaxation, LpError> {
    let mut lp: Box<dyn LpBackend> = default_backend();
    let tasks_obj = opts.objective == Objective::Tasks;
    let c: Vec<Var> = inst
        .tasks
        .iter()
        .map(|t| {
            let obj = if tasks_obj { t.weight } else { 0.0 };
            lp.add_var(obj, t.release + t.p, f64::INFINITY)
        })
        .collect();
    for job in &inst.jobs {
        if !job.reduces.is_empty() {
            let e = lp.add_var(0.0, job.reduce_ready, f64::INFINITY);
            for &u in &job.maps {
                lp.add_row(&[(e, 1.0), (c[u], -1.0)], Cmp::Ge, inst.tasks[u].delay);
            }
            for &v in &job.reduces {
                lp.add_row(&[(c[v], 1.0), (e, -1.0)], Cmp::Ge, inst.tasks[v].p);
            }
        }
        if !tasks_obj {
            let cj = lp.add_var(job.weight, job.done_at_least, f64::INFINITY);
            let last = if job.reduces.is_empty() {
                &job.maps
            } else {
                &job.reduces
            };
            for &t in last {
                lp.add_row(&[(cj, 1.0), (c[t], -1.0)], Cmp::Ge, 0.0);
            }
        }
    }
    let pool = CutPool { block: opts.block };
    let groups = groups(inst, &opts.cuts);
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
        let cv: Vec<f64> = c.iter().map(|&v| lp.value(v)).collect();
        let mut nv = cv.clone();
        // (group order, its violated prefixes)
        let mut found: Vec<Violated> = Vec::new();
        for (members, pm) in &groups {
            let order = completion_order(inst, &cv, members);
            let viol = violations(inst, &order, &cv, *pm);
            // No-violation solution: shift suffixes of this group's order.
            let (mut sp, mut sp2, mut spc, mut shift) = (0.0, 0.0, 0.0, 0.0);
            for &t in &order {
                let p = inst.tasks[t].p;
                nv[t] = cv[t] + shift;
                sp += p;
                sp2 += p * p;
                spc += p * nv[t];
                let r = rhs(*pm, sp, sp2);
                if spc < r && p > 0.0 {
                    let off = (r - spc) / p;
                    shift += off;
                    nv[t] += off;
                    spc = r;
                }
            }
            if !viol.is_empty() {
                found.push((order, viol));
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
            let terms: Vec<(Var, f64)> = order.iter().map(|&t| (c[t], inst.tasks[t].p)).collect();
            pool.add(lp.as_mut(), &terms, viol);
            out.cuts += viol.len();
        }
    }
}
