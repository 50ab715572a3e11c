//! The Deadline Constraint scheduler of Kc and Anyanwu (CloudCom 2010), the
//! baseline of seed 004 (§III; reconstruction in prior-work §3).
//!
//! Its model: a job's reduce stage starts after all its maps, and all R
//! reduces run at once for the same time. With worst-case costs (RTMR's
//! learned delta, c_m^max, c_r^max, prior-work §3.3; the copy cost c_d is
//! folded into c_r, whose observed reduce times include the copy):
//!
//! ```text
//! reduce stage       = delta sigma c_r / R            (R reduces at once)
//! latest reduce start  S_r^max = A + D - delta sigma c_r / R
//! minimum map slots    n_m^min = ceil( sigma c_m / (S_r^max - A) )
//! ```
//!
//! The schedulability test on arrival rejects the job if fewer than n_m^min
//! map slots are available now, or fewer than R reduce slots are available
//! at the single instant S_r^max (§III; the flaw RTMR points out: the slots
//! are needed for all of [S_r^max, A + D]). An accepted job runs at its
//! minimum degree of map parallelism: at most n_m^min maps at once. Jobs
//! are served in EDF order, as in the seed's comparison.
//!
//! Choices where the sources are silent (docs/policies/realtime.md):
//! * "available map slots now" = all map slots minus the n_m^min of every
//!   admitted job still in its map stage (slots are held for the job's map
//!   stage, which is what the minimum-parallelism dispatcher uses);
//! * "reduce slots available at S_r^max" = all reduce slots minus the R of
//!   every admitted, unfinished job whose planned reduce window
//!   [S_r^max, A + D) contains that instant;
//! * a job whose n_m^min exceeds its M maps cannot be sped up by more
//!   slots (one map is indivisible) and is rejected by the first test, as
//!   is a job whose reduce stage alone does not fit (S_r^max <= A);
//! * reduces are dispatched in EDF order once the job's maps are done,
//!   without holding them back to S_r^max.

use super::estimate::Estimator;
use super::job::RtJob;
use super::{check_priors, Priors};
use crate::assign::first_map;
use crate::config::SchedulerConfig;
use crate::scheduler::{Admission, Scheduler};
use mrsched_model::{Cluster, InputErrors, JobId, NodeId, Time};
use mrsched_state::{ClusterState, JobStatus, Launch, StateEvent};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};

/// The `[deadline-constraint]` options table.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DcOptions {
    /// Prior of delta (filter ratio f).
    #[serde(default = "Priors::default_delta")]
    pub initial_delta: f64,
    /// Prior of c_m, seconds per input MB.
    #[serde(default = "Priors::default_s_per_mb")]
    pub initial_map_s_per_mb: f64,
    /// Prior of c_r, seconds per partition MB.
    #[serde(default = "Priors::default_s_per_mb")]
    pub initial_reduce_s_per_mb: f64,
    /// Update the parameters after every finished job (as RTMR does); with
    /// `false` the priors are used as given (e.g. mean rather than
    /// worst-case costs, to study estimate errors).
    #[serde(default = "super::yes")]
    pub learn: bool,
}

/// What the schedulability test computed for an admitted job.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct DcPlan {
    /// n_m^min.
    pub min_map_slots: u32,
    /// S_r^max.
    pub latest_reduce_start: Time,
    /// A + D.
    pub deadline: Time,
    /// R.
    pub reduces: u32,
}

/// Why the test failed before looking at the cluster.
#[derive(Clone, Debug, PartialEq)]
pub enum DcInfeasible {
    /// S_r^max <= A: the reduce stage alone does not fit.
    ReduceStageTooLong {
        /// The estimated reduce stage.
        reduce_stage: Time,
    },
    /// n_m^min > M.
    TooFewMaps {
        /// n_m^min.
        needed: u64,
    },
}

/// S_r^max and n_m^min of `job` arriving at `now`.
pub fn dc_plan(job: &RtJob, est: &Estimator, now: Time) -> Result<DcPlan, DcInfeasible> {
    let reduce_stage = est.reduce_task(job);
    let start_by = job.deadline.saturating_sub(reduce_stage);
    if start_by <= now {
        return Err(DcInfeasible::ReduceStageTooLong { reduce_stage });
    }
    let map_work = est.map_s_per_mb * job.input_mb;
    let window = (start_by - now).as_secs_f64();
    let needed = ((map_work / window).ceil() as u64).max(1);
    if needed > job.maps as u64 {
        return Err(DcInfeasible::TooFewMaps { needed });
    }
    Ok(DcPlan {
        min_map_slots: needed as u32,
        latest_reduce_start: start_by,
        deadline: job.deadline,
        reduces: job.reduces,
    })
}

/// The Deadline Constraint scheduler.
#[derive(Debug)]
pub struct DeadlineConstraint {
    est: Estimator,
    learn: bool,
    map_slots: u32,
    reduce_slots: u32,
    plans: BTreeMap<JobId, DcPlan>,
    order: BTreeSet<(Time, Time, JobId)>,
    admitted: u64,
    rejected: u64,
    misses: u64,
}

impl DeadlineConstraint {
    /// The scheduler for `cluster`.
    pub fn new(cluster: &Cluster, o: &DcOptions) -> DeadlineConstraint {
        DeadlineConstraint {
            est: Estimator::new(
                o.initial_delta,
                o.initial_map_s_per_mb,
                o.initial_reduce_s_per_mb,
            ),
            learn: o.learn,
            map_slots: cluster.total_map_slots(),
            reduce_slots: cluster.total_reduce_slots(),
            plans: BTreeMap::new(),
            order: BTreeSet::new(),
            admitted: 0,
            rejected: 0,
            misses: 0,
        }
    }

    /// The plans of admitted, unfinished jobs.
    pub fn plans(&self) -> &BTreeMap<JobId, DcPlan> {
        &self.plans
    }

    fn test(&self, st: &ClusterState, job: &RtJob) -> Result<DcPlan, String> {
        let plan = dc_plan(job, &self.est, st.now()).map_err(|e| match e {
            DcInfeasible::ReduceStageTooLong { reduce_stage } => format!(
                "its reduce stage alone (estimated {:.1} s) does not fit before the deadline",
                reduce_stage.as_secs_f64()
            ),
            DcInfeasible::TooFewMaps { needed } => format!(
                "it would need {needed} maps running at once but has only {}",
                job.maps
            ),
        })?;
        let held: u32 = self
            .plans
            .iter()
            .filter(|(k, _)| !st.job(**k).maps_done())
            .map(|(_, p)| p.min_map_slots)
            .sum();
        let free_maps = self.map_slots.saturating_sub(held);
        if plan.min_map_slots > free_maps {
            return Err(format!(
                "needs {} map slots now (minimum parallelism), {free_maps} are available",
                plan.min_map_slots
            ));
        }
        let s = plan.latest_reduce_start;
        let busy: u32 = self
            .plans
            .values()
            .filter(|p| p.latest_reduce_start <= s && s < p.deadline)
            .map(|p| p.reduces)
            .sum();
        let free_reduces = self.reduce_slots.saturating_sub(busy);
        if plan.reduces > free_reduces {
            return Err(format!(
                "needs {} reduce slots at its latest reduce start {:.1} s, {free_reduces} are available then",
                plan.reduces,
                s.as_secs_f64()
            ));
        }
        Ok(plan)
    }
}

impl Scheduler for DeadlineConstraint {
    fn name(&self) -> String {
        "deadline-constraint".into()
    }

    fn on_submit(&mut self, st: &ClusterState, j: JobId) -> Admission {
        let job = RtJob::from_state(st, j);
        match self.test(st, &job) {
            Ok(plan) => {
                self.plans.insert(j, plan);
                self.order.insert((job.deadline, job.arrival, j));
                self.admitted += 1;
                Admission::Admit
            }
            Err(why) => {
                self.rejected += 1;
                Admission::Reject(format!("Deadline Constraint: {why}"))
            }
        }
    }

    fn on_event(&mut self, st: &ClusterState, ev: &StateEvent) {
        if let StateEvent::JobEnded(j) = ev {
            if let Some(p) = self.plans.remove(j) {
                let job = st.job(*j);
                self.order.remove(&(p.deadline, job.submitted, *j));
                if self.learn && job.status == JobStatus::Succeeded {
                    self.est.learn(job);
                }
                if job.status != JobStatus::Succeeded || job.finish.is_some_and(|f| f > p.deadline)
                {
                    self.misses += 1;
                }
            }
        }
    }

    fn assign(&mut self, st: &ClusterState, node: NodeId) -> Option<Launch> {
        let plans = &self.plans;
        let ids = self.order.iter().map(|k| k.2);
        // Minimum parallelism: a job runs at most n_m^min maps at once.
        let capped = ids.clone().filter(|j| {
            plans
                .get(j)
                .is_some_and(|p| st.job(*j).map_counts.running < p.min_map_slots)
        });
        if let Some(l) = first_map(st, node, capped, None) {
            return Some(l);
        }
        if st.free_reduce_slots(node) == 0 {
            return None;
        }
        // Reduces after all maps (the model's first assumption), EDF order.
        ids.filter(|j| st.job(*j).maps_done())
            .find_map(|j| st.next_pending_reduce(j).map(|t| Launch::reduce(j, t)))
    }

    fn stats(&self) -> BTreeMap<String, f64> {
        BTreeMap::from([
            ("admitted".into(), self.admitted as f64),
            ("rejected".into(), self.rejected as f64),
            ("deadline_misses".into(), self.misses as f64),
            ("delta".into(), self.est.delta),
            ("map_s_per_mb".into(), self.est.map_s_per_mb),
            ("reduce_s_per_mb".into(), self.est.reduce_s_per_mb),
        ])
    }
}

/// Build from a configuration.
pub fn build(cfg: &SchedulerConfig, cluster: &Cluster) -> Result<Box<dyn Scheduler>, InputErrors> {
    let o: DcOptions = cfg.options()?;
    let mut errs = InputErrors::new();
    check_priors(
        cfg,
        &mut errs,
        &[
            ("initial_delta", Some(o.initial_delta)),
            ("initial_map_s_per_mb", Some(o.initial_map_s_per_mb)),
            ("initial_reduce_s_per_mb", Some(o.initial_reduce_s_per_mb)),
        ],
    );
    errs.into_result(())?;
    Ok(Box::new(DeadlineConstraint::new(cluster, &o)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(maps: u32, reduces: u32, deadline: u64) -> RtJob {
        RtJob {
            id: JobId(0),
            arrival: Time::ZERO,
            deadline: Time::from_secs(deadline),
            maps,
            reduces,
            input_mb: maps as f64 * 100.0,
            max_split_mb: 100.0,
        }
    }

    #[test]
    fn plan_hand_worked() {
        // sigma = 1000 MB (10 maps), delta = 0.5, c_m = 0.1 s/MB, c_r = 0.2:
        // reduce stage = 0.5 x 1000 x 0.2 / 4 = 25 s, S_r^max = 200 - 25 =
        // 175; map work = 1000 x 0.1 = 100 s; n_m^min = ceil(100 / 175) = 1.
        let est = Estimator::new(0.5, 0.1, 0.2);
        let p = dc_plan(&job(10, 4, 200), &est, Time::ZERO).unwrap();
        assert_eq!(p.latest_reduce_start, Time::from_secs(175));
        assert_eq!(p.min_map_slots, 1);
        // Deadline 50: S_r^max = 25, n_m^min = ceil(100 / 25) = 4.
        let p = dc_plan(&job(10, 4, 50), &est, Time::ZERO).unwrap();
        assert_eq!(p.min_map_slots, 4);
        // Deadline 30: S_r^max = 5 -> 20 slots for 10 maps: infeasible.
        assert_eq!(
            dc_plan(&job(10, 4, 30), &est, Time::ZERO),
            Err(DcInfeasible::TooFewMaps { needed: 20 })
        );
        // Deadline 20: the reduce stage alone does not fit.
        assert!(matches!(
            dc_plan(&job(10, 4, 20), &est, Time::ZERO),
            Err(DcInfeasible::ReduceStageTooLong { .. })
        ));
    }
}
