//! Limits on every numeric input field.
//!
//! Input files are checked against these limits when they are parsed, so a
//! typo such as `reduces = 99999999`, `arrival_s = 1e308` or a dataset of
//! 4294967296 MB is an error naming the file, line and field and stating the
//! limit, not an allocation failure or a run that never ends. The limits are
//! far above any real cluster (100,000 nodes, 100 million tasks, ten years
//! of simulated time); the counts can be raised for one process with
//! [`set`] (the `--max-nodes`, `--max-job-tasks` and `--max-tasks` flags of
//! the command line). `docs/formats.md` lists them all.

use std::sync::RwLock;

/// Seconds in ten years: the simulated horizon.
pub const TEN_YEARS_S: f64 = 10.0 * 365.0 * 86_400.0;

/// The limits in force.
#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    /// Nodes in a cluster (all groups together).
    pub max_nodes: u64,
    /// Map or reduce slots of one node (and `max_reducers`).
    pub max_slots_per_node: u32,
    /// Tasks (maps + reduces) of one job; also blocks of one dataset, since
    /// a job has one map per block.
    pub max_job_tasks: u64,
    /// Tasks of a whole workload; also blocks of all datasets.
    pub max_total_tasks: u64,
    /// Any instant: arrivals, fault and capacity times, seconds.
    pub max_time_s: f64,
    /// Any duration: task times, deadlines, goals, waits, seconds.
    pub max_duration_s: f64,
    /// Heartbeat interval and jitter, seconds.
    pub max_heartbeat_s: f64,
    /// Smallest data rate, MB/s (a slower rate makes every task endless).
    pub min_rate_mb_s: f64,
    /// Largest data rate, MB/s.
    pub max_rate_mb_s: f64,
    /// Smallest and largest node speed factor.
    pub speed_range: (f64, f64),
    /// Largest size of a dataset, block or map input, MB.
    pub max_size_mb: f64,
    /// Smallest block size, MB.
    pub min_block_mb: f64,
    /// Largest cost-model factor (CPU seconds per MB, output ratios) and
    /// shuffle delay factor.
    pub max_factor: f64,
    /// Largest job weight.
    pub max_weight: f64,
    /// Attempts per task.
    pub max_attempts: u32,
    /// Smallest mean time between or to repair random node failures, s.
    pub min_fault_time_s: f64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_nodes: 100_000,
            max_slots_per_node: 10_000,
            max_job_tasks: 10_000_000,
            max_total_tasks: 100_000_000,
            max_time_s: TEN_YEARS_S,
            max_duration_s: TEN_YEARS_S,
            max_heartbeat_s: 3_600.0,
            min_rate_mb_s: 1e-3,
            max_rate_mb_s: 1e9,
            speed_range: (1e-3, 1e6),
            max_size_mb: 1e12,
            min_block_mb: 1e-3,
            max_factor: 1e6,
            max_weight: 1e9,
            max_attempts: 1_000,
            min_fault_time_s: 1.0,
        }
    }
}

static CURRENT: RwLock<Option<Limits>> = RwLock::new(None);

impl Limits {
    /// The limits in force: the defaults unless [`set`] changed them.
    pub fn current() -> Limits {
        CURRENT
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .unwrap_or_default()
    }

    /// `Some(message)` when the seconds `v` are not within `[0, max]`.
    pub fn check_secs(v: f64, max: f64) -> Option<String> {
        if !v.is_finite() || v < 0.0 {
            Some(format!("must be zero or more seconds, got {}", num(v)))
        } else if v > max {
            Some(format!("{} s is beyond the limit of {max} s", num(v)))
        } else {
            None
        }
    }

    /// `Some(message)` when the count `v` is above `max` (`what` names the
    /// thing counted, e.g. "tasks per job").
    pub fn check_count(v: u64, max: u64, what: &str) -> Option<String> {
        (v > max).then(|| format!("{v} is beyond the limit of {max} {what}"))
    }
}

/// A number as people write it: `1e308` rather than 309 digits.
pub fn num(v: f64) -> String {
    let a = v.abs();
    if a != 0.0 && a.is_finite() && !(1e-6..1e15).contains(&a) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// Change the limits for this process (command-line flags). Every parse
/// after the call uses them.
pub fn set(limits: Limits) {
    *CURRENT.write().unwrap_or_else(|p| p.into_inner()) = Some(limits);
}

/// Longest names accepted (job, user, pool, file), in bytes.
pub const MAX_NAME: usize = 200;

/// Whether `s` is an acceptable name of a job, user, pool or file given at
/// run time (the live master, an engine's session options): non-empty, at
/// most [`MAX_NAME`] bytes, no control characters or slashes, no blanks
/// around it.
pub fn valid_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= MAX_NAME
        && !s.chars().any(|c| c.is_control() || c == '/')
        && s.trim() == s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short() {
        assert_eq!(num(1e308), "1e308");
        assert_eq!(num(-1e-9), "-1e-9");
        assert_eq!(num(4294967296.0), "4294967296");
        assert_eq!(num(0.5), "0.5");
        assert_eq!(num(0.0), "0");
    }

    #[test]
    fn messages_state_the_limit() {
        assert_eq!(
            Limits::check_secs(1e308, 10.0).unwrap(),
            "1e308 s is beyond the limit of 10 s"
        );
        assert!(Limits::check_secs(-1.0, 10.0)
            .unwrap()
            .contains("zero or more"));
        assert!(Limits::check_secs(f64::NAN, 10.0).is_some());
        assert_eq!(Limits::check_secs(10.0, 10.0), None);
        assert_eq!(
            Limits::check_count(99_999_999, 10_000_000, "tasks per job").unwrap(),
            "99999999 is beyond the limit of 10000000 tasks per job"
        );
        assert_eq!(Limits::check_count(5, 5, "x"), None);
    }

    #[test]
    fn defaults_fit_any_real_cluster() {
        let l = Limits::default();
        assert!(l.max_nodes >= 100_000);
        assert!(l.max_total_tasks >= 100_000_000);
        // Ten years in microseconds is far from overflowing `Time`.
        assert!(l.max_time_s * 1e6 * 4.0 < u64::MAX as f64);
    }
}
