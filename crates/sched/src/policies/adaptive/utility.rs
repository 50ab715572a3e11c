//! The Job Utility Calculator: how well a number of slots serves a job.
//!
//! Adaptive Scheduler (prior work §1.2, shape recalled): with `e` the
//! estimate of the slots a job needs (s_req, or s_fit for Reverse-Adaptive)
//! and `m` the most slots it can use,
//!
//! ```text
//! u(s) = ln(s) / ln(e) - 1        if s <  e    (-1 at s = 1, -inf at s = 0)
//! u(s) = (s - e) / (m - e)        if s >= e    ( 0 at s = e,  1 at s = m)
//! ```
//!
//! so a job below its estimate is unhappy (negative utility) and one above it
//! is content in proportion to the extra it receives. The placement raises
//! the lowest utility first (max-min).

/// Utility of `s` slots for a job whose estimate is `estimate` and which can
/// use at most `max` slots at once.
///
/// Guards (prior work §1.2 [INFERRED]; the estimate itself is clamped to
/// `[1, max]` by [`clamp_estimate`]):
/// * `s = 0` with work to do is `-inf`: worse than any job that runs;
/// * `estimate <= 1`: the lower branch is empty (no `ln 1 = 0` division),
///   so one slot is worth 0;
/// * `max <= estimate`: the upper branch is 0 (no `0 / 0`);
/// * a job with nothing to run (`max = 0`) has utility 0 whatever it gets.
pub fn utility(s: u32, estimate: u32, max: u32) -> f64 {
    if max == 0 {
        return 0.0;
    }
    if s == 0 {
        return f64::NEG_INFINITY;
    }
    if s < estimate {
        // Here 1 <= s < estimate, so estimate >= 2 and ln(estimate) > 0.
        (s as f64).ln() / (estimate as f64).ln() - 1.0
    } else if max <= estimate {
        0.0
    } else {
        (s - estimate) as f64 / (max - estimate) as f64
    }
}

/// An estimator's raw demand (slots, possibly fractional or huge) as the
/// estimate the utility uses: rounded up, at least 1 and at most `max`
/// (prior work §1.2 [INFERRED]: "clamp s_req to [1, s_pend]"); 0 for a job
/// with nothing left to run.
pub fn clamp_estimate(raw: f64, max: u32) -> u32 {
    if max == 0 {
        return 0;
    }
    let up = ceil_tol(raw);
    if up.is_nan() || up >= max as f64 {
        max
    } else if up <= 1.0 {
        1
    } else {
        up as u32
    }
}

/// Round up, ignoring floating-point noise just above an integer (so that
/// `12.000000000001` slots is 12, not 13).
pub fn ceil_tol(v: f64) -> f64 {
    (v - 1e-9 * v.abs().max(1.0)).ceil()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_below_and_above_the_estimate() {
        // e = 8, m = 24.
        assert_eq!(utility(0, 8, 24), f64::NEG_INFINITY);
        assert_eq!(utility(1, 8, 24), -1.0);
        // ln 2 / ln 8 - 1 = 1/3 - 1.
        assert!((utility(2, 8, 24) + 2.0 / 3.0).abs() < 1e-12);
        assert!((utility(4, 8, 24) + 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(utility(8, 8, 24), 0.0);
        assert_eq!(utility(16, 8, 24), 0.5);
        assert_eq!(utility(24, 8, 24), 1.0);
        // Strictly increasing in s.
        for s in 0..24 {
            assert!(utility(s, 8, 24) < utility(s + 1, 8, 24), "s = {s}");
        }
    }

    #[test]
    fn guards() {
        // Estimate 1: one slot is worth 0 (no division by ln 1).
        assert_eq!(utility(1, 1, 10), 0.0);
        assert!((utility(4, 1, 10) - 1.0 / 3.0).abs() < 1e-12);
        // Estimate = max: 0 from the estimate up (no 0/0).
        assert_eq!(utility(5, 5, 5), 0.0);
        assert_eq!(utility(1, 5, 5), -1.0);
        // Nothing to run.
        assert_eq!(utility(0, 0, 0), 0.0);
        // Estimates are clamped to [1, max] and rounded up, noise ignored.
        assert_eq!(clamp_estimate(0.0, 10), 1);
        assert_eq!(clamp_estimate(0.2, 10), 1);
        assert_eq!(clamp_estimate(3.2, 10), 4);
        assert_eq!(clamp_estimate(12.000000000001, 100), 12);
        assert_eq!(clamp_estimate(1e30, 10), 10);
        assert_eq!(clamp_estimate(f64::INFINITY, 10), 10);
        assert_eq!(clamp_estimate(f64::NAN, 10), 10);
        assert_eq!(clamp_estimate(5.0, 0), 0);
    }
}
