//! The LP relaxation of MSJO and COGE, the constraint generation algorithm
//! (seed 001 §4.1-4.2, Algorithm 1).
//!
//! CND-LPP starts with the precedence constraints (1)-(3), kept sparse:
//! one auxiliary variable E_j per job for the end of its map phase plus
//! delays (`E_j >= S_u + p_u + d_u` for every map u, `S_v >= E_j` for every
//! reduce v), which is exact because d_uv depends on the map only
//! (`shuffle_delay_factor x p_u`). Each round solves the LP, sorts the tasks
//! by LP middle finish time M_u = S_u + p_u / 2 (permutation pi), adds every
//! violated performance-guarantee constraint
//! `PGC(pi, i): sum_{k<i} p_pi(k) S_pi(k) >= R(pi, i)` with
//! `R(pi, i) = (sum_{k<i} p)^2 / (2|M|) - (sum_{k<i} p^2) / 2`, builds the
//! no-violation solution S^NV with ViolationOffset, and stops when no PGC is
//! violated or `sum w C^LP >= (1 - epsilon) sum w C^NV`.
//!
//! On a re-plan (SO-MarS, §5.3) machines may still be busy: R(pi, i) is
//! then the water-filling bound of [`Capacity`] (the PGC with each machine
//! starting at its free time, still a valid lower bound), and every start
//! is at least the earliest free time.

use super::capacity::Capacity;
use super::classes::{violated_prefixes, Classes};
use super::instance::Instance;
use super::lp::{default_backend, Cmp, CutPool, LpBackend, LpError, Var};

/// COGE settings.
#[derive(Clone, Debug, PartialEq)]
pub struct CogeOptions {
    /// Stop threshold epsilon (0.3 in seed 001 §5.1.3).
    pub epsilon: f64,
    /// Give up after this many LP solves (the paper reports fewer than 10).
    pub max_rounds: usize,
    /// Terms per block of the sparse cut chains ([`CutPool`]).
    pub block: usize,
}

impl Default for CogeOptions {
    fn default() -> Self {
        CogeOptions {
            epsilon: 0.3,
            max_rounds: 30,
            block: 12,
        }
    }
}

/// A solved relaxation.
#[derive(Clone, Debug, PartialEq)]
pub struct Relaxation {
    /// LP start time of each task (job-level LP) or LP completion time
    /// minus p (task-level LP).
    pub start: Vec<f64>,
    /// LP completion time of each job.
    pub completion: Vec<f64>,
    /// The LP objective: a lower bound on the optimum.
    pub objective: f64,
    /// Objective of the last no-violation solution (COGE only).
    pub nv_objective: f64,
    /// LP solves.
    pub rounds: usize,
    /// Cuts added.
    pub cuts: usize,
    /// Cuts the returned solution still violates (0 when converged).
    pub violated: usize,
    /// Simplex iterations over all solves.
    pub iterations: u64,
}

/// Order of tasks by LP middle finish time `start + p / 2`, ties by map
/// first then index (a reduce never precedes a map of its job).
pub fn middle_order(inst: &Instance, start: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..inst.tasks.len()).collect();
    let key = |t: usize| start[t] + inst.tasks[t].p / 2.0;
    order.sort_by(|&a, &b| {
        key(a)
            .total_cmp(&key(b))
            .then((inst.tasks[a].kind as u8).cmp(&(inst.tasks[b].kind as u8)))
            .then(a.cmp(&b))
    });
    order
}

/// The PGCs of `order` that `start` violates: `(prefix last position,
/// R)`: PGC(pi, i) with i - 1 = position + 1 tasks in the prefix. R is
/// `(sum p)^2 / (2|M|) - (sum p^2) / 2` when every machine is free at 0,
/// and [`Capacity::start_rhs`] in general.
pub fn pgc_violations(inst: &Instance, order: &[usize], start: &[f64]) -> Vec<(usize, f64)> {
    let cap = Capacity::of(inst);
    violated_prefixes(
        order.iter().map(|&t| (1.0, inst.tasks[t].p, start[t])),
        |sp, sp2| cap.start_rhs(sp, sp2),
    )
}

/// ViolationOffset applied along `order`: the no-violation start times.
/// When PGC(pi, i) is violated, the last task of its prefix and every task
/// after it move later by `(R - sum p S^NV) / p_pi(i-1)`, which satisfies
/// it exactly and keeps earlier PGCs and the precedence constraints (a
/// suffix of the middle-time order moves together). Seed 001's pseudo-code
/// computes the offset from S^LP; we use the current S^NV, since offsets
/// from S^LP would count earlier shifts again (§4.2 text: "how much S^NV
/// should increase").
pub fn no_violation(inst: &Instance, order: &[usize], start: &[f64]) -> Vec<f64> {
    let cap = Capacity::of(inst);
    let mut nv = start.to_vec();
    let (mut sp, mut sp2, mut sps, mut shift) = (0.0, 0.0, 0.0, 0.0);
    for &t in order {
        let p = inst.tasks[t].p;
        nv[t] = start[t] + shift;
        sp += p;
        sp2 += p * p;
        sps += p * nv[t];
        let r = cap.start_rhs(sp, sp2);
        if sps < r && p > 0.0 {
            let off = (r - sps) / p;
            shift += off;
            nv[t] += off;
            sps = r;
        }
    }
    nv
}

/// Job completion times implied by start times (and at least `floor`).
fn completions(inst: &Instance, start: &[f64], floor: &[f64]) -> Vec<f64> {
    inst.jobs
        .iter()
        .enumerate()
        .map(|(j, job)| {
            let last = if job.reduces.is_empty() {
                &job.maps
            } else {
                &job.reduces
            };
            last.iter()
                .map(|&t| start[t] + inst.tasks[t].p)
                .fold(floor[j].max(job.done_at_least), f64::max)
        })
        .collect()
}

fn weighted(inst: &Instance, c: &[f64]) -> f64 {
    inst.jobs.iter().zip(c).map(|(j, c)| j.weight * c).sum()
}

/// The precedence part of CND-LPP over task classes ([`Classes`]): one
/// start variable per class, per-job C_j and E_j.
struct JobLp {
    lp: Box<dyn LpBackend>,
    s: Vec<Var>,
    c: Vec<Var>,
}

fn build_job_lp(inst: &Instance, cls: &Classes, cap: &Capacity) -> JobLp {
    let mut lp = default_backend();
    // No task starts before some machine is free (SO-MarS re-plans).
    let s: Vec<Var> = (0..cls.len())
        .map(|k| {
            let lo = inst.tasks[cls.rep(k)].release.max(cap.earliest());
            lp.add_var(0.0, lo, f64::INFINITY)
        })
        .collect();
    let mut c = Vec::with_capacity(inst.jobs.len());
    for job in &inst.jobs {
        let cj = lp.add_var(job.weight, job.done_at_least, f64::INFINITY);
        if job.reduces.is_empty() {
            for k in cls.of(&job.maps) {
                let p = inst.tasks[cls.rep(k)].p;
                lp.add_row(&[(cj, 1.0), (s[k], -1.0)], Cmp::Ge, p);
            }
        } else {
            let e = lp.add_var(0.0, job.reduce_ready, f64::INFINITY);
            for k in cls.of(&job.maps) {
                let t = &inst.tasks[cls.rep(k)];
                lp.add_row(&[(e, 1.0), (s[k], -1.0)], Cmp::Ge, t.p + t.delay);
            }
            for k in cls.of(&job.reduces) {
                let p = inst.tasks[cls.rep(k)].p;
                lp.add_row(&[(s[k], 1.0), (e, -1.0)], Cmp::Ge, 0.0);
                lp.add_row(&[(cj, 1.0), (s[k], -1.0)], Cmp::Ge, p);
            }
        }
        c.push(cj);
    }
    JobLp { lp, s, c }
}

/// COGE (Algorithm 1): the relaxed solution MarS schedules from, and the
/// LP lower bound `sum w_j C_j^LP`. The LP runs over task classes (exact,
/// see [`Classes`]), so PGCs are separated at class boundaries of pi and
/// ViolationOffset runs over the tasks of pi.
pub fn coge(inst: &Instance, opts: &CogeOptions) -> Result<Relaxation, LpError> {
    let cls = Classes::new(inst, None);
    let cap = Capacity::of(inst);
    let mut m = build_job_lp(inst, &cls, &cap);
    let pool = CutPool { block: opts.block };
    let all: Vec<usize> = (0..cls.len()).collect();
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
        let obj = m.lp.solve()?;
        out.rounds += 1;
        out.iterations += m.lp.iterations();
        let s_class: Vec<f64> = m.s.iter().map(|&v| m.lp.value(v)).collect();
        let start: Vec<f64> = cls.of_task.iter().map(|&k| s_class[k]).collect();
        let c_lp: Vec<f64> = m.c.iter().map(|&v| m.lp.value(v)).collect();
        let order = cls.sorted(inst, &all, |t| start[t] + inst.tasks[t].p / 2.0);
        let viol = cls.violated_prefixes(inst, &order, &s_class, |sp, sp2| cap.start_rhs(sp, sp2));
        let nv = no_violation(inst, &cls.expand(&order), &start);
        let c_nv = completions(inst, &nv, &c_lp);
        out.objective = obj;
        out.nv_objective = weighted(inst, &c_nv);
        out.violated = viol.len();
        out.start = start;
        out.completion = c_lp;
        if viol.is_empty()
            || obj >= (1.0 - opts.epsilon) * out.nv_objective
            || out.rounds >= opts.max_rounds
        {
            return Ok(out);
        }
        let terms = cls.cut_terms(inst, &order, &m.s);
        pool.add(m.lp.as_mut(), &terms, &viol);
        out.cuts += viol.len();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_jobs() -> Instance {
        // Seed 001 Fig. 1: 3 machines; job 1 has 4 maps of 75 s and 2
        // reduces of 100 s, job 2 one map and one reduce.
        let mut inst = Instance::new(3);
        inst.add_job(0.0, 1.0, &[75.0; 4], &[100.0; 2], 0.0);
        inst.add_job(0.0, 1.0, &[75.0], &[100.0], 0.0);
        inst
    }

    #[test]
    fn precedence_only_lp_is_the_critical_path() {
        let inst = two_jobs();
        let r = coge(
            &inst,
            &CogeOptions {
                max_rounds: 1,
                ..Default::default()
            },
        )
        .unwrap();
        // Each job alone: 75 + 100 = 175.
        assert!((r.objective - 350.0).abs() < 1e-6, "{}", r.objective);
    }

    #[test]
    fn epsilon_zero_satisfies_every_pgc_on_exit() {
        let inst = two_jobs();
        let r = coge(
            &inst,
            &CogeOptions {
                epsilon: 0.0,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(r.violated, 0);
        let order = middle_order(&inst, &r.start);
        assert!(pgc_violations(&inst, &order, &r.start).is_empty());
        assert!(r.objective >= 350.0 - 1e-6);
    }

    #[test]
    fn no_violation_solution_satisfies_all_pgcs() {
        let inst = two_jobs();
        let start = vec![0.0; inst.tasks.len()];
        let order = middle_order(&inst, &start);
        assert!(!pgc_violations(&inst, &order, &start).is_empty());
        let nv = no_violation(&inst, &order, &start);
        assert!(pgc_violations(&inst, &order, &nv).is_empty());
        assert!(nv.iter().zip(&start).all(|(a, b)| a >= b));
    }
}
