//! Completion-time predictions and their accuracy.
//!
//! Seed 003's abstract claims Reverse-Adaptive increases "the accuracy of the
//! estimations made by the scheduler". The paper's definition is not
//! available; ours (prior work §1.5 [INFERRED]): at every control cycle each
//! scheduler predicts when every goal job it gives slots to will complete,
//! from what it believes:
//!
//! * a job's remaining work is `s_pend x μ` plus what its running maps still
//!   need (`max(μ - elapsed, 0)` each);
//! * the jobs that hold slots now share the capacity the scheduler sees,
//!   A(t), in proportion to the slots the placement gave them, each using
//!   no more slots than it has tasks (weighted water-filling); when a job
//!   finishes its share goes to the others. Jobs that have not arrived yet
//!   are unknown to it;
//! * a job with pending maps needs at least one more map time (μ), one
//!   without needs at least its longest running map's remainder.
//!
//! The Adaptive Scheduler sees a constant A (the capacity now);
//! Reverse-Adaptive the forecast. The model is otherwise the same, so the
//! difference between their predictions is the difference between their
//! views of the capacity and their placements. When a job ends, each
//! prediction is compared with what happened.

use super::capacity::CapacityCurve;
use mrsched_model::{JobId, Time};
use rustc_hash::FxHashMap;

/// A prediction and its outcome.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Prediction {
    /// The job.
    pub job: JobId,
    /// When the prediction was made.
    pub at: Time,
    /// Predicted completion.
    pub predicted: Time,
    /// Actual completion.
    pub actual: Time,
}

impl Prediction {
    /// Predicted minus actual completion, seconds (negative: optimistic).
    pub fn error_s(&self) -> f64 {
        self.predicted.as_secs_f64() - self.actual.as_secs_f64()
    }

    /// |error| relative to the time that was left when it was made (at
    /// least one second).
    pub fn relative_error(&self) -> f64 {
        let left = (self.actual.as_secs_f64() - self.at.as_secs_f64()).max(1.0);
        self.error_s().abs() / left
    }
}

/// One job in the forward fluid model.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct FluidJob {
    /// Remaining work, slot-seconds.
    pub work_s: f64,
    /// Slots the placement gave it (its weight in sharing A(t)).
    pub slots: u32,
    /// Most slots it can use (pending + running maps).
    pub max: u32,
    /// It cannot finish sooner than this many seconds from now.
    pub floor_s: f64,
}

/// Predicted completion of every job (see the module doc); `None` for a job
/// without slots, or when the capacity never comes back.
pub fn predict_completions(now: Time, jobs: &[FluidJob], cap: &CapacityCurve) -> Vec<Option<Time>> {
    let t0 = now.as_secs_f64();
    let mut done: Vec<Option<f64>> = jobs
        .iter()
        .map(|j| (j.slots > 0 && j.work_s <= 0.0).then_some(t0))
        .collect();
    let mut work: Vec<f64> = jobs.iter().map(|j| j.work_s).collect();
    // Sharing order: smallest cap per weight first (they saturate first).
    let mut active: Vec<usize> = (0..jobs.len())
        .filter(|&i| jobs[i].slots > 0 && jobs[i].work_s > 0.0)
        .collect();
    active.sort_by(|&a, &b| {
        let ra = jobs[a].max as f64 / jobs[a].slots as f64;
        let rb = jobs[b].max as f64 / jobs[b].slots as f64;
        ra.total_cmp(&rb).then(a.cmp(&b))
    });
    let mut rate = vec![0.0f64; jobs.len()];
    let mut t = t0;
    for (start, end, slots) in cap.pieces_from(t0) {
        t = t.max(start);
        // Within a piece, advance from one job completion to the next.
        while !active.is_empty() && t < end {
            let mut left = slots.max(0.0);
            let mut weight: f64 = active.iter().map(|&i| jobs[i].slots as f64).sum();
            for &i in &active {
                let w = jobs[i].slots as f64;
                let share = if weight > 0.0 { left * w / weight } else { 0.0 };
                let r = share.min(jobs[i].max.max(jobs[i].slots) as f64);
                rate[i] = r;
                left -= r;
                weight -= w;
            }
            let next = active
                .iter()
                .filter(|&&i| rate[i] > 0.0)
                .map(|&i| t + work[i] / rate[i])
                .fold(f64::INFINITY, f64::min);
            if next > end {
                if end.is_finite() {
                    for &i in &active {
                        work[i] -= rate[i] * (end - t);
                    }
                }
                t = end;
                break;
            }
            for &i in &active {
                work[i] -= rate[i] * (next - t);
                if rate[i] > 0.0 && work[i] / rate[i] <= 1e-9 {
                    work[i] = 0.0;
                }
            }
            t = next;
            active.retain(|&i| {
                if work[i] <= 0.0 {
                    done[i] = Some(t);
                    false
                } else {
                    true
                }
            });
        }
        if active.is_empty() {
            break;
        }
    }
    done.iter()
        .zip(jobs)
        .map(|(d, j)| d.map(|d| Time::from_secs_f64(d.max(t0 + j.floor_s))))
        .collect()
}

/// Predictions waiting for their job to end, and those that are resolved.
#[derive(Debug, Default)]
pub struct PredictionLog {
    open: FxHashMap<JobId, Vec<(Time, Time)>>,
    done: Vec<Prediction>,
}

impl PredictionLog {
    /// Record that at `at` job `job` was predicted to complete at `predicted`.
    pub fn record(&mut self, job: JobId, at: Time, predicted: Time) {
        self.open.entry(job).or_default().push((at, predicted));
    }

    /// The job ended: resolve its predictions against `finish` (dropped when
    /// the job did not succeed).
    pub fn ended(&mut self, job: JobId, finish: Option<Time>) {
        let Some(v) = self.open.remove(&job) else {
            return;
        };
        if let Some(actual) = finish {
            self.done
                .extend(v.into_iter().map(|(at, predicted)| Prediction {
                    job,
                    at,
                    predicted,
                    actual,
                }));
        }
    }

    /// Resolved predictions, in the order jobs ended.
    pub fn resolved(&self) -> &[Prediction] {
        &self.done
    }
}

/// Accuracy of a set of predictions.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Accuracy {
    /// Predictions.
    pub count: usize,
    /// Mean |predicted - actual|, seconds.
    pub mean_abs_error_s: f64,
    /// Mean of predicted - actual, seconds (negative: optimistic).
    pub mean_error_s: f64,
    /// Sum of |error| over the sum of the times left when the predictions
    /// were made (a ratio of sums, so that predictions made just before a
    /// job ends do not dominate).
    pub relative_error: f64,
    /// Fraction of predictions within 10% of the time that was left.
    pub within_10pct: f64,
}

/// Accuracy of `preds`; `None` when there are none.
pub fn accuracy(preds: &[Prediction]) -> Option<Accuracy> {
    if preds.is_empty() {
        return None;
    }
    let n = preds.len() as f64;
    Some(Accuracy {
        count: preds.len(),
        mean_abs_error_s: preds.iter().map(|p| p.error_s().abs()).sum::<f64>() / n,
        mean_error_s: preds.iter().map(|p| p.error_s()).sum::<f64>() / n,
        relative_error: preds.iter().map(|p| p.error_s().abs()).sum::<f64>()
            / preds
                .iter()
                .map(|p| (p.actual.as_secs_f64() - p.at.as_secs_f64()).max(1.0))
                .sum::<f64>(),
        within_10pct: preds.iter().filter(|p| p.relative_error() <= 0.1).count() as f64 / n,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(work_s: f64, slots: u32, max: u32) -> FluidJob {
        FluidJob {
            work_s,
            slots,
            max,
            floor_s: 0.0,
        }
    }

    #[test]
    fn one_job_alone_uses_what_it_can() {
        let c = CapacityCurve::constant(100.0);
        // 600 slot-s, 10 slots given, 30 tasks: it may use up to 30 of the
        // 100 slots: 20 s.
        let p = predict_completions(Time::from_secs(40), &[job(600.0, 10, 30)], &c);
        assert_eq!(p, vec![Some(Time::from_secs(60))]);
        // No slots now: no prediction. No work: now.
        let p = predict_completions(Time::ZERO, &[job(600.0, 0, 30), job(0.0, 1, 1)], &c);
        assert_eq!(p, vec![None, Some(Time::ZERO)]);
        // The floor: at least one more map time.
        let mut j = job(600.0, 10, 30);
        j.floor_s = 45.0;
        let p = predict_completions(Time::ZERO, &[j], &c);
        assert_eq!(p, vec![Some(Time::from_secs(45))]);
    }

    #[test]
    fn shares_follow_the_placement_and_are_passed_on() {
        // 30 slots; A has 10 slots (100 slot-s), B 20 (800 slot-s), both may
        // use 30. Rates 10 and 20: A ends at 10 s (B has done 200); then B
        // has all 30: 600 / 30 = 20 s more, 30 s.
        let c = CapacityCurve::constant(30.0);
        let p = predict_completions(Time::ZERO, &[job(100.0, 10, 30), job(800.0, 20, 30)], &c);
        assert_eq!(
            p,
            vec![Some(Time::from_secs(10)), Some(Time::from_secs(30))]
        );
        // A given 5 slots and has 5 tasks, B given 10 of 30: A's share (10)
        // is capped at 5, B gets 25; both end at 20 s.
        let p = predict_completions(Time::ZERO, &[job(100.0, 5, 5), job(500.0, 10, 30)], &c);
        assert_eq!(
            p,
            vec![Some(Time::from_secs(20)), Some(Time::from_secs(20))]
        );
    }

    #[test]
    fn a_foreseen_drop_delays_the_prediction() {
        // 100 slots until 30 s, then 10. One job of 4,000 slot-s, 100 tasks:
        // 3,000 done by 30 s, 1,000 left at 10/s: 130 s. Seen as constant
        // (the capacity now), it would be 40 s.
        let drop = CapacityCurve::from_steps(vec![(0.0, 100.0), (30.0, 10.0)]);
        let p = predict_completions(Time::ZERO, &[job(4000.0, 100, 100)], &drop);
        assert_eq!(p, vec![Some(Time::from_secs(130))]);
        let now = CapacityCurve::constant(100.0);
        let p = predict_completions(Time::ZERO, &[job(4000.0, 100, 100)], &now);
        assert_eq!(p, vec![Some(Time::from_secs(40))]);
        // Capacity gone for good: no prediction.
        let gone = CapacityCurve::from_steps(vec![(0.0, 100.0), (30.0, 0.0)]);
        assert_eq!(
            predict_completions(Time::ZERO, &[job(4000.0, 100, 100)], &gone),
            vec![None]
        );
    }

    #[test]
    fn log_and_accuracy() {
        let mut log = PredictionLog::default();
        log.record(JobId(1), Time::from_secs(0), Time::from_secs(90));
        log.record(JobId(1), Time::from_secs(50), Time::from_secs(100));
        log.record(JobId(2), Time::from_secs(0), Time::from_secs(10));
        log.ended(JobId(1), Some(Time::from_secs(100)));
        log.ended(JobId(2), None);
        let a = accuracy(log.resolved()).unwrap();
        assert_eq!(a.count, 2);
        // Errors -10 s and 0 s, made 100 s and 50 s before the end.
        assert_eq!(a.mean_abs_error_s, 5.0);
        assert_eq!(a.mean_error_s, -5.0);
        assert!((a.relative_error - 10.0 / 150.0).abs() < 1e-12);
        assert_eq!(a.within_10pct, 1.0);
        assert!(accuracy(&[]).is_none());
    }
}
