//! The FLEX metric menu (seed 000 Appendix A.2).
//!
//! A metric is a per-job penalty `F_j(C_j)` of the job's completion time,
//! combined over jobs by a sum (minisum: average response time, average
//! stretch, number of tardy jobs ...) or a maximum (minimax: makespan,
//! maximum stretch, maximum lateness ...), weighted by the jobs' weights or
//! not. Six kinds x weighted or not x sum or max; the paper counts 16
//! meaningful ones, every combination is accepted here.
//!
//! | kind | `F_j(C)` |
//! |---|---|
//! | response time | `w (C - a_j)` |
//! | stretch | `w (C - a_j) / W_j` (`W_j`: the job's time alone) |
//! | tardy jobs | `w` if `C > a_j + D_j`, else 0 |
//! | tardiness | `w max(0, C - a_j - D_j)` |
//! | lateness | `w (C - a_j - D_j)` (may be negative) |
//! | SLA | `w p_k` for the last step `k` with `C > a_j + x_k D_j` |
//!
//! Deadline metrics need a deadline: a job without one is not counted
//! (its penalty is "none"; for the priority order it never binds). SLA
//! steps are a contract template shared by every job: pseudo-deadlines are
//! multiples `x_k` of the job's own relative deadline, with increasing
//! penalties `p_k` (the paper leaves their source open).

use serde::Deserialize;

/// What a metric measures per job.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MetricKind {
    /// Completion minus arrival.
    ResponseTime,
    /// Response time over the job's time alone on the cluster.
    Stretch,
    /// Whether the job missed its deadline.
    TardyJobs,
    /// How long after its deadline the job completed (0 if on time).
    Tardiness,
    /// Completion minus deadline (negative when early).
    Lateness,
    /// Step costs at increasing pseudo-deadlines.
    Sla,
}

/// How per-job penalties are combined.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Objective {
    /// Minimise the sum (equivalently the average).
    Sum,
    /// Minimise the maximum.
    Max,
}

/// One step of an SLA contract.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SlaStep {
    /// Pseudo-deadline as a multiple of the job's relative deadline.
    pub after: f64,
    /// Penalty once the pseudo-deadline is passed.
    pub penalty: f64,
}

/// What a metric needs to know of a job. Times in seconds.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct JobTerms {
    /// Arrival time.
    pub arrival: f64,
    /// The job's weight (used when the metric is weighted).
    pub weight: f64,
    /// Its time alone on the cluster (stretch denominator), > 0.
    pub standalone: f64,
    /// Relative deadline, if it has one.
    pub deadline: Option<f64>,
}

/// How the priority order is found for a metric (seed 000 §3.2,
/// prior-work.md §2.3).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OrderRule {
    /// (Generalised) Smith's rule: minisum weighted completion time.
    Smith,
    /// Lawler's backward rule (Backwards Dynamic Programming): minimax.
    Lawler,
    /// Several candidate orders, each packed, the best kept (the other
    /// minisum metrics; FLEX's own rule for them is not published).
    Candidates,
}

/// A scheduling metric.
#[derive(Clone, Debug, PartialEq)]
pub struct Metric {
    /// What is measured.
    pub kind: MetricKind,
    /// Sum or maximum.
    pub objective: Objective,
    /// Whether job weights multiply the penalties.
    pub weighted: bool,
    /// SLA steps (used by [`MetricKind::Sla`]), increasing in both fields.
    pub sla: Vec<SlaStep>,
}

impl Metric {
    /// An unweighted metric without SLA steps.
    pub fn new(kind: MetricKind, objective: Objective) -> Metric {
        Metric {
            kind,
            objective,
            weighted: false,
            sla: vec![SlaStep {
                after: 1.0,
                penalty: 1.0,
            }],
        }
    }

    /// Average response time.
    pub fn avg_response_time() -> Metric {
        Metric::new(MetricKind::ResponseTime, Objective::Sum)
    }

    /// Average stretch.
    pub fn avg_stretch() -> Metric {
        Metric::new(MetricKind::Stretch, Objective::Sum)
    }

    /// Maximum stretch.
    pub fn max_stretch() -> Metric {
        Metric::new(MetricKind::Stretch, Objective::Max)
    }

    /// A short name such as `sum-stretch` or `max-weighted-lateness`.
    pub fn name(&self) -> String {
        let kind = match self.kind {
            MetricKind::ResponseTime => "response-time",
            MetricKind::Stretch => "stretch",
            MetricKind::TardyJobs => "tardy-jobs",
            MetricKind::Tardiness => "tardiness",
            MetricKind::Lateness => "lateness",
            MetricKind::Sla => "sla",
        };
        let obj = match self.objective {
            Objective::Sum => "sum",
            Objective::Max => "max",
        };
        if self.weighted {
            format!("{obj}-weighted-{kind}")
        } else {
            format!("{obj}-{kind}")
        }
    }

    /// True for minimax metrics.
    pub fn is_minimax(&self) -> bool {
        self.objective == Objective::Max
    }

    /// Which rule finds the priority order.
    pub fn order_rule(&self) -> OrderRule {
        match (self.objective, self.kind) {
            (Objective::Max, _) => OrderRule::Lawler,
            (Objective::Sum, MetricKind::ResponseTime)
            | (Objective::Sum, MetricKind::Stretch)
            | (Objective::Sum, MetricKind::Lateness) => OrderRule::Smith,
            (Objective::Sum, _) => OrderRule::Candidates,
        }
    }

    fn w(&self, j: &JobTerms) -> f64 {
        if self.weighted {
            j.weight
        } else {
            1.0
        }
    }

    /// Whether the metric needs deadlines.
    pub fn uses_deadlines(&self) -> bool {
        matches!(
            self.kind,
            MetricKind::TardyJobs | MetricKind::Tardiness | MetricKind::Lateness | MetricKind::Sla
        )
    }

    /// `F_j(c)`, or `None` when the job does not count (a deadline metric
    /// and a job without a deadline).
    pub fn penalty(&self, j: &JobTerms, c: f64) -> Option<f64> {
        let w = self.w(j);
        let due = j.deadline.map(|d| j.arrival + d);
        match self.kind {
            MetricKind::ResponseTime => Some(w * (c - j.arrival)),
            MetricKind::Stretch => Some(w * (c - j.arrival) / j.standalone.max(1e-12)),
            MetricKind::TardyJobs => due.map(|d| if c > d + EPS { w } else { 0.0 }),
            MetricKind::Tardiness => due.map(|d| w * (c - d).max(0.0)),
            MetricKind::Lateness => due.map(|d| w * (c - d)),
            MetricKind::Sla => j.deadline.map(|d| {
                let late = c - j.arrival;
                w * self
                    .sla
                    .iter()
                    .rev()
                    .find(|s| late > s.after * d + EPS)
                    .map_or(0.0, |s| s.penalty)
            }),
        }
    }

    /// The penalty as a number for comparisons: jobs that do not count are
    /// minus infinity (they never bind a maximum).
    pub fn penalty_or_neg_inf(&self, j: &JobTerms, c: f64) -> f64 {
        self.penalty(j, c).unwrap_or(f64::NEG_INFINITY)
    }

    /// The Smith weight of a job for the minisum rules that reduce to
    /// weighted completion time: response time `w`, stretch `w / W_j`,
    /// lateness `w` for jobs with a deadline (a sum of lateness differs from
    /// weighted completion time by a constant, seed 000 A.2). For the other
    /// metrics it is the job's (metric) weight, used by candidate orders.
    pub fn smith_weight(&self, j: &JobTerms) -> f64 {
        let w = self.w(j);
        match self.kind {
            MetricKind::Stretch => w / j.standalone.max(1e-12),
            MetricKind::ResponseTime => w,
            _ => {
                if j.deadline.is_some() {
                    w
                } else {
                    0.0
                }
            }
        }
    }

    /// The metric's value for jobs completing at `completions`: the sum or
    /// the maximum of the counted penalties (0 when none counts).
    pub fn evaluate(&self, jobs: &[JobTerms], completions: &[f64]) -> f64 {
        let vals = jobs
            .iter()
            .zip(completions)
            .filter_map(|(j, c)| self.penalty(j, *c));
        match self.objective {
            Objective::Sum => vals.sum(),
            Objective::Max => vals.fold(f64::NEG_INFINITY, f64::max).max(f64::MIN),
        }
    }

    /// The earliest pseudo-deadline relative to the job's deadline (the due
    /// date candidate orders use): 1 for the deadline metrics, the first SLA
    /// step for SLAs.
    pub fn first_due_factor(&self) -> f64 {
        match self.kind {
            MetricKind::Sla => self.sla.first().map_or(1.0, |s| s.after),
            _ => 1.0,
        }
    }
}

/// Tolerance for "after the deadline" (floating-point completion times).
const EPS: f64 = 1e-9;

#[cfg(test)]
mod tests {
    use super::*;

    fn job(deadline: Option<f64>) -> JobTerms {
        JobTerms {
            arrival: 10.0,
            weight: 2.0,
            standalone: 5.0,
            deadline,
        }
    }

    #[test]
    fn penalties_by_hand() {
        let j = job(Some(20.0)); // due at 30
        let m = |k, weighted| Metric {
            weighted,
            ..Metric::new(k, Objective::Sum)
        };
        assert_eq!(
            m(MetricKind::ResponseTime, false).penalty(&j, 25.0),
            Some(15.0)
        );
        assert_eq!(
            m(MetricKind::ResponseTime, true).penalty(&j, 25.0),
            Some(30.0)
        );
        assert_eq!(m(MetricKind::Stretch, false).penalty(&j, 25.0), Some(3.0));
        assert_eq!(m(MetricKind::Stretch, true).penalty(&j, 25.0), Some(6.0));
        assert_eq!(m(MetricKind::TardyJobs, false).penalty(&j, 30.0), Some(0.0));
        assert_eq!(m(MetricKind::TardyJobs, true).penalty(&j, 31.0), Some(2.0));
        assert_eq!(m(MetricKind::Tardiness, false).penalty(&j, 25.0), Some(0.0));
        assert_eq!(m(MetricKind::Tardiness, false).penalty(&j, 34.0), Some(4.0));
        assert_eq!(m(MetricKind::Lateness, false).penalty(&j, 25.0), Some(-5.0));
        let mut sla = m(MetricKind::Sla, false);
        sla.sla = vec![
            SlaStep {
                after: 1.0,
                penalty: 1.0,
            },
            SlaStep {
                after: 2.0,
                penalty: 5.0,
            },
        ];
        assert_eq!(sla.penalty(&j, 29.0), Some(0.0));
        assert_eq!(sla.penalty(&j, 35.0), Some(1.0));
        assert_eq!(sla.penalty(&j, 51.0), Some(5.0));
        // No deadline: not counted.
        assert_eq!(
            m(MetricKind::Tardiness, false).penalty(&job(None), 99.0),
            None
        );
    }

    #[test]
    fn order_rules_follow_the_paper() {
        use MetricKind::*;
        for k in [ResponseTime, Stretch, Lateness] {
            assert_eq!(
                Metric::new(k, Objective::Sum).order_rule(),
                OrderRule::Smith
            );
        }
        for k in [TardyJobs, Tardiness, Sla] {
            assert_eq!(
                Metric::new(k, Objective::Sum).order_rule(),
                OrderRule::Candidates
            );
        }
        for k in [ResponseTime, Stretch, TardyJobs, Tardiness, Lateness, Sla] {
            assert_eq!(
                Metric::new(k, Objective::Max).order_rule(),
                OrderRule::Lawler
            );
        }
        assert_eq!(Metric::max_stretch().name(), "max-stretch");
    }

    #[test]
    fn evaluate_sums_and_maxes_counted_jobs() {
        let jobs = [job(Some(20.0)), job(None)];
        let m = Metric::new(MetricKind::Lateness, Objective::Max);
        assert_eq!(m.evaluate(&jobs, &[25.0, 100.0]), -5.0);
        let m = Metric::avg_response_time();
        assert_eq!(m.evaluate(&jobs, &[25.0, 100.0]), 15.0 + 90.0);
    }
}
