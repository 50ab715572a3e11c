//! Local search after MarS's list schedule (`mars+ls`; ours, beyond seed
//! 001).
//!
//! Why: MarS lists tasks by the middle finish times of an LP that COGE
//! stops early (epsilon 0.3), and list scheduling that order leaves room a
//! few cheap moves recover: a job whose tasks are spread over the list
//! finishes with its last one, so pulling a job's tail forward, or moving a
//! whole job ahead of lighter ones, often lowers the total weighted job
//! completion time (TWJCT).
//!
//! The search keeps MarS's evaluator (list scheduling under the same
//! release times, map -> reduce delays and machine free times) and changes
//! only the order and the machine rule ([`Placement`]), so every candidate
//! is a feasible schedule the plan follower runs as it does MarS's. It
//! starts from MarS's own schedule and accepts strict improvements only, so
//! it never returns a worse TWJCT. The budget is a number of evaluations,
//! not wall-clock time, and the moves come from a seeded generator: a plan
//! depends only on the instance, the LP order, the budget and the seed.

use super::instance::{Instance, Schedule};
use super::listsched::{list_schedule_placed, Placement};
use mrsched_model::rng::stream;
use rand::Rng as _;

/// Search settings.
#[derive(Clone, Debug, PartialEq)]
pub struct LsOptions {
    /// Most list-schedule evaluations (MarS's own included).
    pub evaluations: usize,
    /// Seed of the move choices.
    pub seed: u64,
}

impl Default for LsOptions {
    fn default() -> LsOptions {
        LsOptions {
            evaluations: DEFAULT_EVALUATIONS,
            seed: 1,
        }
    }
}

/// Default evaluation budget: 0.45 s of search on a 20-job random
/// instance (about 900 tasks, 50 machines) and 2.4 s on a 100-job one
/// (about 4,600 tasks) in a release build on the loaded 2-core machine
/// (mars-fig7's goal section); most of the gain comes in the first 1,000.
pub const DEFAULT_EVALUATIONS: usize = 2_000;

/// What the search returns.
#[derive(Clone, Debug)]
pub struct Improved {
    /// The best schedule found.
    pub schedule: Schedule,
    /// Its task order.
    pub order: Vec<usize>,
    /// Its machine rule.
    pub placement: Placement,
    /// TWJCT of MarS's list schedule (the start).
    pub initial: f64,
    /// TWJCT of [`Improved::schedule`] (never above `initial`).
    pub value: f64,
    /// Budget spent: list schedules evaluated, plus moves that left the
    /// order unchanged (not evaluated).
    pub evaluations: usize,
    /// Moves accepted.
    pub accepted: usize,
}

/// TWJCT of a schedule, computed in one pass over the tasks.
fn twjct(inst: &Instance, sch: &Schedule, done: &mut [f64]) -> f64 {
    for (d, j) in done.iter_mut().zip(&inst.jobs) {
        *d = j.done_at_least;
    }
    for (t, task) in inst.tasks.iter().enumerate() {
        let end = sch.start[t] + task.p;
        if end > done[task.job] {
            done[task.job] = end;
        }
    }
    done.iter().zip(&inst.jobs).map(|(c, j)| j.weight * c).sum()
}

/// Improve MarS's list schedule of `order` (an order of every task of
/// `inst`, as [`super::listsched::list_schedule`] takes).
pub fn improve(inst: &Instance, order: &[usize], opts: &LsOptions) -> Improved {
    let mut done = vec![0.0; inst.jobs.len()];
    let mut best = Improved {
        schedule: list_schedule_placed(inst, order, Placement::EarliestFree),
        order: order.to_vec(),
        placement: Placement::EarliestFree,
        initial: 0.0,
        value: 0.0,
        evaluations: 1,
        accepted: 0,
    };
    best.initial = twjct(inst, &best.schedule, &mut done);
    best.value = best.initial;
    let n = order.len();
    if n < 2 || inst.machines == 0 {
        return best;
    }
    let better = |v: f64, b: f64| v < b - 1e-9 * b.abs().max(1.0);
    if opts.evaluations > best.evaluations {
        let sch = list_schedule_placed(inst, order, Placement::BestFit);
        best.evaluations += 1;
        let v = twjct(inst, &sch, &mut done);
        if better(v, best.value) {
            best.schedule = sch;
            best.placement = Placement::BestFit;
            best.value = v;
            best.accepted += 1;
        }
    }
    let jobs: Vec<usize> = (0..inst.jobs.len())
        .filter(|&j| !inst.jobs[j].maps.is_empty() || !inst.jobs[j].reduces.is_empty())
        .collect();
    let mut rng = stream(opts.seed, "mars-ls");
    let mut pos = vec![0usize; inst.tasks.len()];
    let mut key = vec![0.0f64; inst.tasks.len()];
    let levels = (usize::BITS - n.leading_zeros()) as i32;
    while best.evaluations < opts.evaluations {
        for (i, &t) in best.order.iter().enumerate() {
            pos[t] = i;
            key[t] = i as f64;
        }
        // A distance on a geometric scale: as likely to cross a few tasks
        // as half the list.
        let d = ((n as f64) * 0.5f64.powi(rng.random_range(1..=levels))).ceil();
        let kind = rng.random_range(0..8u32);
        let job = jobs[rng.random_range(0..jobs.len())];
        let tasks: Vec<usize> = inst.jobs[job]
            .maps
            .iter()
            .chain(&inst.jobs[job].reduces)
            .copied()
            .collect();
        match kind {
            // Move the whole job earlier (ahead of the task at its new
            // place) or later.
            0..=2 => {
                for &t in &tasks {
                    key[t] = pos[t] as f64 - d - 0.5;
                }
            }
            3 => {
                for &t in &tasks {
                    key[t] = pos[t] as f64 + d + 0.5;
                }
            }
            // Pull the job's tail up behind one of its tasks: everything
            // of the job after the pivot follows it directly.
            4 | 5 => {
                let pivot = pos[tasks[rng.random_range(0..tasks.len())]] as f64;
                for &t in &tasks {
                    if key[t] > pivot {
                        key[t] = pivot + 0.5 * (1.0 + key[t] / (n as f64 + 1.0));
                    }
                }
            }
            // One task earlier or later.
            _ => {
                let t = tasks[rng.random_range(0..tasks.len())];
                let sign = if kind == 6 { -1.0 } else { 1.0 };
                key[t] = pos[t] as f64 + sign * (d + 0.5);
            }
        }
        let mut cand = best.order.clone();
        cand.sort_by(|&a, &b| key[a].total_cmp(&key[b]));
        if cand == best.order {
            // Nothing moved (a job alone, or already in place): no
            // evaluation spent, but the budget still bounds the loop.
            best.evaluations += 1;
            continue;
        }
        let sch = list_schedule_placed(inst, &cand, best.placement);
        best.evaluations += 1;
        let v = twjct(inst, &sch, &mut done);
        if better(v, best.value) {
            best.schedule = sch;
            best.order = cand;
            best.value = v;
            best.accepted += 1;
        }
    }
    best
}
