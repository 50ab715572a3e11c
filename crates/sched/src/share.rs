//! Max-min fair shares with minimum guarantees and weights: the one routine
//! used at every level of a scheduling hierarchy.
//!
//! Seed 002 (Appendix A) describes it as bucket filling in three phases:
//! satisfy every bucket whose minimum covers its demand, fill the others up
//! to their minimum, then pour the rest evenly into the emptiest buckets.
//! The Hadoop Fair Scheduler computes the same thing as the `r` with
//! `sum_i min(d_i, max(m_i, r w_i)) = F` (a "weight-to-slots ratio"). We
//! solve that equation exactly: the left side is piecewise linear in `r`
//! with breakpoints at `m_i / w_i` and `d_i / w_i`, so sorting the breakpoints
//! and solving on the right segment gives the shares without iteration.
//! When the minimums exceed the capacity they are scaled down
//! proportionally first (HFS design doc; prior-work.md §6.3).
//!
//! YARN's Fair Scheduler (`ComputeFairShares`) solves a different equation,
//! and YARN allocation files get [`yarn_fair_shares`]: no demand in the
//! share, a maximum per claim, inactive and zero-weight claims fixed first,
//! and minimums that exceed the capacity kept whole rather than scaled.

/// One entity (pool, job, subjob) competing for capacity.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Claim {
    /// How many slots it could use.
    pub demand: f64,
    /// Its guaranteed minimum.
    pub min: f64,
    /// Its weight (> 0).
    pub weight: f64,
}

impl Claim {
    /// A claim with weight 1 and no minimum.
    pub fn demand(d: f64) -> Claim {
        Claim {
            demand: d,
            min: 0.0,
            weight: 1.0,
        }
    }
}

/// The ratio `r` at which a piecewise-linear total reaches `cap`: the
/// total is `f_lo` at `r = 0` and its slope changes by `events[i].1` at
/// `r = events[i].0`. Both share rules solve their equation with it.
/// Returns `r` if the total reaches `cap` at or before the last breakpoint,
/// and the last breakpoint, the total there and the slope after it.
fn sweep(events: &mut [(f64, f64)], mut f_lo: f64, cap: f64) -> (Option<f64>, f64, f64, f64) {
    events.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (mut lo, mut slope, mut k) = (0.0f64, 0.0f64, 0);
    while k < events.len() {
        let b = events[k].0;
        let f_b = f_lo + slope * (b - lo);
        if f_b >= cap {
            let r = if slope > 0.0 {
                lo + (cap - f_lo) / slope
            } else {
                b
            };
            return (Some(r), lo, f_lo, slope);
        }
        // Apply every event at this breakpoint.
        while k < events.len() && events[k].0 == b {
            slope += events[k].1;
            k += 1;
        }
        lo = b;
        f_lo = f_b;
    }
    (None, lo, f_lo, slope)
}

/// Fair shares of `capacity` among `claims`. The result sums to
/// `min(capacity, total demand)` and gives each claim
/// `min(demand, max(min', r * weight))` for the common ratio `r`, where
/// `min'` is the minimum after scaling (minimums above demand count as
/// demand).
pub fn fair_shares(claims: &[Claim], capacity: f64) -> Vec<f64> {
    let cap = capacity.max(0.0);
    let d: Vec<f64> = claims.iter().map(|c| c.demand.max(0.0)).collect();
    let w: Vec<f64> = claims
        .iter()
        .map(|c| if c.weight > 0.0 { c.weight } else { 0.0 })
        .collect();
    // A minimum never exceeds demand (phase 1 of the paper).
    let m: Vec<f64> = claims
        .iter()
        .zip(&d)
        .map(|(c, d)| c.min.max(0.0).min(*d))
        .collect();
    let total_demand: f64 = d.iter().sum();
    if total_demand <= cap {
        return d;
    }
    let total_min: f64 = m.iter().sum();
    if total_min >= cap {
        // Not even the minimums fit: scale them down proportionally.
        let f = if total_min > 0.0 {
            cap / total_min
        } else {
            0.0
        };
        return m.iter().map(|x| x * f).collect();
    }
    // share_i(r) = min(d_i, max(m_i, r w_i)) is flat at m_i up to m_i / w_i,
    // rises with slope w_i up to d_i / w_i, then is flat at d_i. Sweep the
    // breakpoints in order keeping the total and its slope, and solve on
    // the segment where the total reaches the capacity: O(n log n).
    let mut events: Vec<(f64, f64)> = Vec::with_capacity(2 * d.len());
    let mut f_lo = 0.0f64;
    for i in 0..d.len() {
        f_lo += m[i];
        if w[i] > 0.0 {
            events.push((m[i] / w[i], w[i]));
            events.push((d[i] / w[i], -w[i]));
        }
    }
    let (r, lo, f_lo, slope) = sweep(&mut events, f_lo, cap);
    let mut r = r.unwrap_or(f64::NAN);
    if r.is_nan() && slope > 0.0 {
        r = lo + (cap - f_lo) / slope;
    }
    if r.is_nan() {
        // Zero-weight claims cannot absorb the rest: give them leftovers in
        // proportion to remaining demand (weight 0 = best effort).
        let base: Vec<f64> = d
            .iter()
            .zip(&m)
            .zip(&w)
            .map(|((d, m), w)| if *w > 0.0 { *d } else { *m })
            .collect();
        let used: f64 = base.iter().sum();
        let rest = (cap - used).max(0.0);
        let want: f64 = d.iter().zip(&base).map(|(d, b)| d - b).sum();
        return base
            .iter()
            .zip(&d)
            .map(|(b, d)| {
                if want > 0.0 {
                    b + (d - b) * rest / want
                } else {
                    *b
                }
            })
            .collect();
    }
    d.iter()
        .zip(&m)
        .zip(&w)
        .map(|((d, m), w)| d.min(m.max(r * w)))
        .collect()
}

/// One queue or application as YARN's `ComputeFairShares` sees it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct YarnClaim {
    /// Minimum share (`minResources`).
    pub min: f64,
    /// Maximum share (`maxResources`; infinite when unset).
    pub max: f64,
    /// Weight.
    pub weight: f64,
    /// Whether it has runnable applications (an inactive queue gets 0).
    pub active: bool,
}

impl YarnClaim {
    /// An active claim with weight 1, no minimum and no maximum.
    pub fn new() -> YarnClaim {
        YarnClaim {
            min: 0.0,
            max: f64::INFINITY,
            weight: 1.0,
            active: true,
        }
    }
}

impl Default for YarnClaim {
    fn default() -> Self {
        YarnClaim::new()
    }
}

/// Fair shares of `capacity` as YARN's `ComputeFairShares.computeShares`
/// gives them (Hadoop 2.x/3.x, `fair/policies/ComputeFairShares.java`):
///
/// 1. fixed shares first: a claim with maximum 0 or not active gets 0, one
///    with weight 0 gets its minimum, and these are taken from the capacity;
/// 2. the rest share `min(capacity left, sum of their maxima)` with the
///    common ratio `r` such that the shares `min(max(r w, min), max)` add
///    up to it.
///
/// Unlike [`fair_shares`] there is no demand (YARN caps nothing by demand:
/// an active queue may be given more than it asks for), and when the
/// minimums add up to more than the capacity every claim keeps its whole
/// minimum (`r` = 0): the shares then add up to more than the capacity.
/// YARN finds `r` by 25 steps of binary search on whole megabytes and
/// rounds each share down; we solve for `r` exactly, as [`fair_shares`]
/// does, so the shares agree with YARN's to within its rounding.
pub fn yarn_fair_shares(claims: &[YarnClaim], capacity: f64) -> Vec<f64> {
    let mut out = vec![0.0; claims.len()];
    let mut taken = 0.0f64;
    let mut flex = Vec::with_capacity(claims.len());
    for (i, c) in claims.iter().enumerate() {
        let min = c.min.max(0.0);
        if c.max.is_nan() || c.max <= 0.0 || !c.active {
            out[i] = 0.0;
        } else if c.weight.is_nan() || c.weight <= 0.0 {
            out[i] = min;
            taken += min;
        } else {
            flex.push(i);
        }
    }
    if flex.is_empty() {
        return out;
    }
    let share = |c: &YarnClaim, r: f64| (r * c.weight).max(c.min.max(0.0)).min(c.max);
    let total_max: f64 = flex.iter().map(|&i| claims[i].max).sum();
    let cap = (capacity.max(0.0) - taken).max(0.0).min(total_max);
    // Each share is flat at min(m, M) up to r = m / w, rises with slope w
    // up to r = M / w, then is flat at M: sweep the breakpoints.
    let mut f_lo = 0.0f64;
    let mut events: Vec<(f64, f64)> = Vec::with_capacity(2 * flex.len());
    for &i in &flex {
        let c = &claims[i];
        let m = c.min.max(0.0);
        f_lo += m.min(c.max);
        if c.max > m {
            events.push((m / c.weight, c.weight));
            events.push((c.max / c.weight, -c.weight));
        }
    }
    let r = if f_lo >= cap {
        0.0
    } else {
        sweep(&mut events, f_lo, cap).0.unwrap_or(f64::INFINITY)
    };
    for &i in &flex {
        out[i] = share(&claims[i], r);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(demand: f64, min: f64) -> Claim {
        Claim {
            demand,
            min,
            weight: 1.0,
        }
    }

    #[test]
    fn paper_figure_3_example() {
        // Seed 002 §3.1: 100 slots, four pools (min, demand).
        let s = fair_shares(
            &[c(46.0, 50.0), c(18.0, 10.0), c(28.0, 25.0), c(16.0, 15.0)],
            100.0,
        );
        let rounded: Vec<f64> = s.iter().map(|x| (x * 1e9).round() / 1e9).collect();
        assert_eq!(rounded, vec![46.0, 14.0, 25.0, 15.0]);
    }

    #[test]
    fn plain_max_min() {
        let s = fair_shares(
            &[
                Claim::demand(10.0),
                Claim::demand(50.0),
                Claim::demand(50.0),
            ],
            60.0,
        );
        assert_eq!(s, vec![10.0, 25.0, 25.0]);
    }

    #[test]
    fn weights_split_proportionally() {
        let claims = [
            Claim {
                demand: 100.0,
                min: 0.0,
                weight: 1.0,
            },
            Claim {
                demand: 100.0,
                min: 0.0,
                weight: 3.0,
            },
        ];
        let s = fair_shares(&claims, 40.0);
        assert!(
            (s[0] - 10.0).abs() < 1e-9 && (s[1] - 30.0).abs() < 1e-9,
            "{s:?}"
        );
    }

    #[test]
    fn demand_below_capacity_is_met() {
        assert_eq!(
            fair_shares(&[c(3.0, 0.0), c(4.0, 9.0)], 100.0),
            vec![3.0, 4.0]
        );
    }

    #[test]
    fn minimums_above_capacity_are_scaled() {
        let s = fair_shares(&[c(100.0, 60.0), c(100.0, 60.0), c(100.0, 0.0)], 60.0);
        assert!(
            (s[0] - 30.0).abs() < 1e-9 && (s[1] - 30.0).abs() < 1e-9 && s[2] == 0.0,
            "{s:?}"
        );
    }

    #[test]
    fn degenerate_inputs() {
        assert!(fair_shares(&[], 10.0).is_empty());
        assert_eq!(fair_shares(&[c(5.0, 0.0)], 0.0), vec![0.0]);
        // Weight zero gets only leftovers.
        let s = fair_shares(
            &[
                Claim {
                    demand: 10.0,
                    min: 0.0,
                    weight: 0.0,
                },
                Claim {
                    demand: 5.0,
                    min: 0.0,
                    weight: 1.0,
                },
            ],
            8.0,
        );
        assert!(
            (s[1] - 5.0).abs() < 1e-9 && (s[0] - 3.0).abs() < 1e-9,
            "{s:?}"
        );
    }
}
