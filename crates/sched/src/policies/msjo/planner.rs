//! Every MSJO algorithm as a planner: instance in, schedule out.

use super::coge::{coge, middle_order, CogeOptions, Relaxation};
use super::improve::{improve, Improved, LsOptions};
use super::instance::{Instance, Schedule};
use super::listsched::{
    balanced_assignment, dispatch, fixed_sequences, list_schedule, priority_list,
    release_order_assignment, t_mars, Intervals,
};
use super::lp::LpError;
use super::tasklp::{completion_order, task_relaxation, Cuts, Objective, TaskLpOptions};
use serde::Deserialize;

/// The algorithms of seed 001 and its baselines (§4, §5.1.3).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    /// COGE + list scheduling by LP middle finish time (Algorithm 2).
    Mars,
    /// MarS followed by a local search over the list order and the machine
    /// rule (ours, beyond the paper; `improve.rs`).
    MarsLs,
    /// Task-level LP + geometric intervals + Graham (Algorithm 3).
    TMars,
    /// Workload-balanced pre-assignment + per-machine LP order, job weights.
    Mares,
    /// MARES with the task-level objective (task-level baseline).
    HMares,
    /// High unit weight first (job weight / job work).
    Huwf,
    /// High job weight first.
    Hjwf,
    /// Shortest available task first.
    Stf,
    /// High task weight first.
    Htwf,
}

impl Algorithm {
    /// Every algorithm.
    pub const ALL: [Algorithm; 9] = [
        Algorithm::Mars,
        Algorithm::MarsLs,
        Algorithm::TMars,
        Algorithm::Mares,
        Algorithm::HMares,
        Algorithm::Huwf,
        Algorithm::Hjwf,
        Algorithm::Stf,
        Algorithm::Htwf,
    ];

    /// Display name.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Mars => "MarS",
            Algorithm::MarsLs => "MarS+LS",
            Algorithm::TMars => "T-MarS",
            Algorithm::Mares => "MARES",
            Algorithm::HMares => "H-MARES",
            Algorithm::Huwf => "HUWF",
            Algorithm::Hjwf => "HJWF",
            Algorithm::Stf => "STF",
            Algorithm::Htwf => "HTWF",
        }
    }

    /// Whether it solves an LP.
    pub fn uses_lp(self) -> bool {
        matches!(
            self,
            Algorithm::Mars
                | Algorithm::MarsLs
                | Algorithm::TMars
                | Algorithm::Mares
                | Algorithm::HMares
        )
    }
}

/// How MARES and H-MARES assign tasks to machines before their LP (seed
/// 001 §5.1.3: "tasks are evenly allocated in order to balance total
/// processing time of tasks on every processor").
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Assignment {
    /// All tasks by decreasing time, each to the least-loaded machine
    /// (global LPT; [`balanced_assignment`]).
    #[default]
    Lpt,
    /// Jobs in release order, each job's tasks to the least-loaded
    /// machines ([`release_order_assignment`]).
    ReleaseOrder,
}

/// Planner settings.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanOptions {
    /// Which algorithm.
    pub algorithm: Algorithm,
    /// Stop threshold and round limit of every LP.
    pub coge: CogeOptions,
    /// T-MarS interval rule.
    pub intervals: Intervals,
    /// MarS+LS search budget and seed.
    pub ls: LsOptions,
    /// MARES / H-MARES pre-assignment.
    pub assignment: Assignment,
}

impl PlanOptions {
    /// Defaults for `algorithm` (epsilon 0.3, analysed intervals).
    pub fn new(algorithm: Algorithm) -> PlanOptions {
        PlanOptions {
            algorithm,
            coge: CogeOptions::default(),
            intervals: Intervals::Analysed,
            ls: LsOptions::default(),
            assignment: Assignment::default(),
        }
    }
}

/// A plan and the relaxation it came from.
#[derive(Clone, Debug)]
pub struct Planned {
    /// The schedule.
    pub schedule: Schedule,
    /// The LP behind it (LP-based algorithms).
    pub lp: Option<Relaxation>,
    /// The search behind it (MarS+LS).
    pub ls: Option<Improved>,
}

/// Plan `inst` with `opts.algorithm`.
pub fn plan(inst: &Instance, opts: &PlanOptions) -> Result<Planned, LpError> {
    let task_lp = |objective, cuts| {
        task_relaxation(
            inst,
            &TaskLpOptions {
                objective,
                cuts,
                epsilon: opts.coge.epsilon,
                max_rounds: opts.coge.max_rounds,
                block: opts.coge.block,
            },
        )
    };
    let all: Vec<usize> = (0..inst.tasks.len()).collect();
    Ok(match opts.algorithm {
        Algorithm::Mars => {
            let r = coge(inst, &opts.coge)?;
            let order = middle_order(inst, &r.start);
            Planned {
                schedule: list_schedule(inst, &order),
                lp: Some(r),
                ls: None,
            }
        }
        Algorithm::MarsLs => {
            let r = coge(inst, &opts.coge)?;
            let order = middle_order(inst, &r.start);
            let found = improve(inst, &order, &opts.ls);
            Planned {
                schedule: found.schedule.clone(),
                lp: Some(r),
                ls: Some(found),
            }
        }
        Algorithm::TMars => {
            let r = task_lp(Objective::Tasks, Cuts::Parallel)?;
            let c: Vec<f64> = r
                .start
                .iter()
                .zip(&inst.tasks)
                .map(|(s, t)| s + t.p)
                .collect();
            Planned {
                schedule: t_mars(inst, &c, opts.intervals),
                lp: Some(r),
                ls: None,
            }
        }
        Algorithm::Mares | Algorithm::HMares => {
            let assign = match opts.assignment {
                Assignment::Lpt => balanced_assignment(inst),
                Assignment::ReleaseOrder => release_order_assignment(inst),
            };
            let objective = if opts.algorithm == Algorithm::Mares {
                Objective::Jobs
            } else {
                Objective::Tasks
            };
            let r = task_lp(objective, Cuts::PerMachine(assign.clone()))?;
            let c: Vec<f64> = r
                .start
                .iter()
                .zip(&inst.tasks)
                .map(|(s, t)| s + t.p)
                .collect();
            let order = completion_order(inst, &c, &all);
            Planned {
                schedule: fixed_sequences(inst, &assign, &order),
                lp: Some(r),
                ls: None,
            }
        }
        Algorithm::Huwf => {
            let uw: Vec<f64> = inst
                .jobs
                .iter()
                .map(|j| {
                    let work: f64 = j
                        .maps
                        .iter()
                        .chain(&j.reduces)
                        .map(|&t| inst.tasks[t].p)
                        .sum();
                    j.weight / work.max(1e-12)
                })
                .collect();
            plain(priority_list(inst, &|t| uw[inst.tasks[t].job]))
        }
        Algorithm::Hjwf => plain(priority_list(inst, &|t| {
            inst.jobs[inst.tasks[t].job].weight
        })),
        Algorithm::Htwf => plain(priority_list(inst, &|t| inst.tasks[t].weight)),
        Algorithm::Stf => plain(dispatch(inst, &|t| inst.tasks[t].p)),
    })
}

fn plain(schedule: Schedule) -> Planned {
    Planned {
        schedule,
        lp: None,
        ls: None,
    }
}
