//! Completion-time predictions and their accuracy.
//!
//! Seed 003's abstract claims Reverse-Adaptive increases "the accuracy of the
//! estimations made by the scheduler". The paper's definition is not
//! available; ours (prior work §1.5 [INFERRED]): at every control cycle each
//! scheduler predicts, for every goal job it gives slots to, when the job
//! will complete, from what it believes:
//!
//! * the job's remaining work is `s_pend x μ` plus what its running maps
//!   still need (`max(μ - elapsed, 0)` each);
//! * it keeps the slots the placement gave it, `a_j`, while the capacity the
//!   scheduler sees, A(t), covers what the placement uses in total, `U`; when
//!   A(t) falls below `U`, every job shrinks in proportion:
//!   rate(t) = `a_j x min(1, A(t) / U)`.
//!
//! The Adaptive Scheduler sees a constant A (the capacity now), so it
//! predicts `now + W / a_j`; Reverse-Adaptive integrates the forecast. When
//! the job ends, each prediction is compared with what happened.

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

/// When `work_s` slot-seconds finish at rate `alloc x min(1, A(t) / total)`
/// from `now`; `None` when the job has no slots or the capacity never comes
/// back.
pub fn predict_completion(
    now: Time,
    work_s: f64,
    alloc: u32,
    total: u32,
    cap: &CapacityCurve,
) -> Option<Time> {
    if work_s <= 0.0 {
        return Some(now);
    }
    if alloc == 0 {
        return None;
    }
    let (a, u) = (alloc as f64, total.max(alloc) as f64);
    let mut left = work_s;
    for (start, end, slots) in cap.pieces_from(now.as_secs_f64()) {
        let rate = a * (slots / u).min(1.0);
        if rate <= 0.0 {
            continue;
        }
        let need = left / rate;
        if start + need <= end {
            return Some(Time::from_secs_f64(start + need));
        }
        left -= rate * (end - start);
    }
    None
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
    /// Mean |error| / time left when predicted.
    pub mean_relative_error: f64,
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
        mean_relative_error: preds.iter().map(|p| p.relative_error()).sum::<f64>() / n,
        within_10pct: preds.iter().filter(|p| p.relative_error() <= 0.1).count() as f64 / n,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_capacity_predicts_work_over_slots() {
        let c = CapacityCurve::constant(100.0);
        // 600 slot-s on 10 slots: 60 s.
        let p = predict_completion(Time::from_secs(40), 600.0, 10, 50, &c);
        assert_eq!(p, Some(Time::from_secs(100)));
        assert_eq!(predict_completion(Time::ZERO, 600.0, 0, 50, &c), None);
        assert_eq!(
            predict_completion(Time::from_secs(3), 0.0, 0, 0, &c),
            Some(Time::from_secs(3))
        );
    }

    #[test]
    fn a_drop_below_the_placed_total_slows_every_job() {
        // The placement uses 100 slots; the job has 10 of them. From 30 s the
        // forecast leaves 50 slots: the job runs at 5.
        let c = CapacityCurve::from_steps(vec![(0.0, 100.0), (30.0, 50.0)]);
        // 600 slot-s: 300 done by 30 s, 300 left at 5/s = 60 s -> 90 s.
        let p = predict_completion(Time::ZERO, 600.0, 10, 100, &c);
        assert_eq!(p, Some(Time::from_secs(90)));
        // Capacity gone for good: no prediction.
        let c = CapacityCurve::from_steps(vec![(0.0, 100.0), (30.0, 0.0)]);
        assert_eq!(predict_completion(Time::ZERO, 600.0, 10, 100, &c), None);
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
        // Errors -10 s and 0 s; relative 10/100 and 0/50.
        assert_eq!(a.mean_abs_error_s, 5.0);
        assert_eq!(a.mean_error_s, -5.0);
        assert!((a.mean_relative_error - 0.05).abs() < 1e-12);
        assert_eq!(a.within_10pct, 1.0);
        assert!(accuracy(&[]).is_none());
    }
}
