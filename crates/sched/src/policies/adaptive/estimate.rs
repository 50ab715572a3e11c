//! The Workload Estimator: how many map tasks a job should run at once.
//!
//! * **s_req** (Adaptive Scheduler, prior work §1.2 [RECALLED]): the job's
//!   pending work spread evenly until its goal, as if it ran alone on
//!   constant resources: `s_req = ceil(s_pend x μ / (T_goal - now))`.
//! * **s_fit** (Reverse-Adaptive, seed 003 §III-A/B; the algorithm is the
//!   reconstruction of prior work §1.3 [INFERRED]): reverse scheduling. Time
//!   is cut into periods whose ends are consecutive goals; from the latest
//!   goal back towards now each period receives as much of the pending work
//!   of the jobs that may still run in it as the capacity the forecast leaves
//!   allows (A(t) = slots - f(t), integrated over the period); what does not
//!   fit is pushed to the period before. The work that ends up in the first
//!   period (plus anything that fits nowhere) is what must run now.
//!
//! Both return a raw number of slots; [`super::utility::clamp_estimate`]
//! turns it into the estimate the utility uses (at least 1, at most what
//! the job can use).

use super::capacity::CapacityCurve;
use super::status::JobRow;
use mrsched_model::Time;
use serde::Deserialize;

/// Which estimate feeds the utility function.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Estimator {
    /// s_req: even pace to the goal, constant resources (Adaptive).
    #[default]
    Req,
    /// s_fit: reverse scheduling over the forecast (Reverse-Adaptive).
    Fit,
}

/// Raw s_req of a job with `goal`: `s_pend x μ / (goal - now)` slots;
/// infinite (the clamp makes it every slot the job can use) once the goal
/// has passed (guard, prior work §1.2 [INFERRED]).
pub fn s_req(row: &JobRow, goal: Time, now: Time) -> f64 {
    if goal <= now {
        return f64::INFINITY;
    }
    row.pending_work_s() / (goal - now).as_secs_f64()
}

/// One goal job as reverse scheduling sees it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct FitJob {
    /// Absolute goal.
    pub goal: Time,
    /// s_pend: map tasks not started.
    pub pending: u32,
    /// μ, seconds.
    pub mean_map_s: f64,
}

impl FitJob {
    /// From a status row (the caller checked it has a goal).
    pub fn from_row(row: &JobRow, goal: Time) -> FitJob {
        FitJob {
            goal,
            pending: row.pending,
            mean_map_s: row.mean_map_s,
        }
    }
}

/// The outcome of reverse scheduling.
#[derive(Clone, Debug, PartialEq)]
pub struct ReverseSchedule {
    /// Period boundaries in seconds, ascending: `bounds[0]` is now and
    /// period `k` is `(bounds[k], bounds[k + 1]]`. Every boundary after the
    /// first is a goal (or now + one cycle when every goal has passed).
    pub bounds: Vec<f64>,
    /// For each job, the slot-seconds placed in each period `(k, work)`,
    /// latest period first (the order they were decided in).
    pub placed: Vec<Vec<(usize, f64)>>,
    /// For each job, pending work that fits in no period (its goal cannot
    /// be met), slot-seconds.
    pub left: Vec<f64>,
    /// For each job, raw s_fit: slots it should run during the next cycle.
    pub raw: Vec<f64>,
}

impl ReverseSchedule {
    /// Work of job `j` placed in period `k`.
    pub fn work_in(&self, j: usize, k: usize) -> f64 {
        self.placed[j]
            .iter()
            .filter(|(p, _)| *p == k)
            .map(|(_, w)| w)
            .sum()
    }
}

/// Split `total` among claimants with caps `caps` so that everyone gets the
/// same amount unless capped (water-filling). This is the fairness criterion
/// of a shared period: seed 003 asks for "the same utility"; an equal rate
/// for every job present in the period is our reading (prior work §1.3).
pub fn water_fill(total: f64, caps: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..caps.len()).collect();
    order.sort_by(|&a, &b| caps[a].total_cmp(&caps[b]).then(a.cmp(&b)));
    let mut out = vec![0.0; caps.len()];
    let mut remaining = total.max(0.0);
    for (i, &j) in order.iter().enumerate() {
        let fair = remaining / (caps.len() - i) as f64;
        let give = caps[j].max(0.0).min(fair);
        out[j] = give;
        remaining -= give;
    }
    out
}

/// Reverse scheduling (s_fit) of `jobs` at `now` over the capacity curve
/// `cap` (total map slots MapReduce may use over time).
///
/// Choices (prior work §1.3 [INFERRED]; written down in
/// docs/policies/adaptive.md):
/// * a job may run in every period that ends no later than its goal, and
///   inside a period it cannot use more than `s_pend x length` slot-seconds;
/// * a job whose goal has passed runs in the first period (and its s_fit is
///   infinite, the same guard as s_req);
/// * the first period's work becomes a rate now in proportion to the
///   capacity of the next cycle: `s_fit = W_first x A(next cycle) / ∫A over
///   the first period`. With constant capacity this is `W_first / length`,
///   the period's average; when capacity will drop inside the period it asks
///   for more now, while the slots are there.
pub fn reverse_schedule(
    now: Time,
    jobs: &[FitJob],
    cap: &CapacityCurve,
    cycle: Time,
) -> ReverseSchedule {
    let t0 = now.as_secs_f64();
    let goals: Vec<f64> = jobs.iter().map(|j| j.goal.as_secs_f64()).collect();
    let mut ends: Vec<f64> = goals.iter().copied().filter(|&g| g > t0).collect();
    ends.sort_by(f64::total_cmp);
    ends.dedup();
    if ends.is_empty() {
        ends.push(t0 + cycle.as_secs_f64().max(1e-6));
    }
    let mut bounds = Vec::with_capacity(ends.len() + 1);
    bounds.push(t0);
    bounds.extend(ends);
    let periods = bounds.len() - 1;

    let mut work: Vec<f64> = jobs
        .iter()
        .map(|j| j.pending as f64 * j.mean_map_s)
        .collect();
    let mut placed: Vec<Vec<(usize, f64)>> = vec![Vec::new(); jobs.len()];
    // Jobs by goal, latest first: they join the active set as the pass
    // walks back past their goal.
    let mut by_goal: Vec<usize> = (0..jobs.len()).collect();
    by_goal.sort_by(|&a, &b| goals[b].total_cmp(&goals[a]).then(a.cmp(&b)));
    let mut joined = 0;
    let mut active: Vec<usize> = Vec::new();
    let mut caps = Vec::new();
    for k in (0..periods).rev() {
        let (lo, hi) = (bounds[k], bounds[k + 1]);
        while joined < by_goal.len() {
            let j = by_goal[joined];
            let late_and_first = k == 0;
            if goals[j] >= hi || late_and_first {
                active.push(j);
                joined += 1;
            } else {
                break;
            }
        }
        active.retain(|&j| work[j] > 0.0);
        if active.is_empty() {
            continue;
        }
        let len = hi - lo;
        caps.clear();
        caps.extend(
            active
                .iter()
                .map(|&j| work[j].min(jobs[j].pending as f64 * len)),
        );
        let shares = water_fill(cap.integral(lo, hi), &caps);
        for (&j, &s) in active.iter().zip(&shares) {
            if s > 0.0 {
                work[j] -= s;
                placed[j].push((k, s));
            }
        }
    }

    // The first period's work as a rate over the next cycle.
    let first_end = bounds[1];
    let window = (first_end - t0).min(cycle.as_secs_f64()).max(1e-9);
    let first_cap = cap.integral(t0, first_end);
    let next_rate = cap.integral(t0, t0 + window) / window;
    // Slots now per slot-second of first-period work: next-cycle capacity
    // over the period's (1 / length when capacity is constant, and when the
    // forecast leaves nothing at all in the period).
    let per_work = if first_cap > 0.0 {
        next_rate / first_cap
    } else {
        1.0 / (first_end - t0)
    };
    let raw = (0..jobs.len())
        .map(|j| {
            if goals[j] <= t0 {
                return f64::INFINITY;
            }
            let first: f64 = placed[j]
                .iter()
                .filter(|(k, _)| *k == 0)
                .map(|(_, w)| w)
                .sum();
            let now_work = first + work[j];
            if now_work <= 0.0 {
                0.0
            } else {
                now_work * per_work
            }
        })
        .collect();
    ReverseSchedule {
        bounds,
        placed,
        left: work,
        raw,
    }
}

#[cfg(test)]
mod tests {
    use super::super::utility::clamp_estimate;
    use super::*;

    fn row(pending: u32, running: u32, mu: f64) -> JobRow {
        JobRow {
            job: mrsched_model::JobId(0),
            goal: None,
            submitted: Time::ZERO,
            pending,
            running,
            mean_map_s: mu,
            running_left_s: 0.0,
            running_max_left_s: 0.0,
        }
    }

    fn fit(goal_s: u64, pending: u32, mu: f64) -> FitJob {
        FitJob {
            goal: Time::from_secs(goal_s),
            pending,
            mean_map_s: mu,
        }
    }

    #[test]
    fn s_req_by_hand() {
        // 100 pending maps of 30 s, goal 600 s away: 3000 slot-s / 600 s = 5.
        let r = row(100, 4, 30.0);
        let now = Time::from_secs(1000);
        let raw = s_req(&r, Time::from_secs(1600), now);
        assert!((raw - 5.0).abs() < 1e-12);
        assert_eq!(clamp_estimate(raw, r.max_slots()), 5);
        // 10 maps of 7 s in 20 s: 3.5 -> 4.
        let r = row(10, 0, 7.0);
        assert_eq!(
            clamp_estimate(s_req(&r, Time::from_secs(20), Time::ZERO), 10),
            4
        );
        // A loose goal still asks for one slot.
        assert_eq!(
            clamp_estimate(s_req(&r, Time::from_secs(100_000), Time::ZERO), 10),
            1
        );
        // A tight goal asks for every pending map, not more.
        assert_eq!(
            clamp_estimate(s_req(&r, Time::from_secs(1), Time::ZERO), 10),
            10
        );
        // Goal passed: everything it can use (pending + running).
        let r = row(10, 3, 7.0);
        let late = s_req(&r, Time::from_secs(5), Time::from_secs(5));
        assert_eq!(clamp_estimate(late, r.max_slots()), 13);
    }

    #[test]
    fn water_filling_gives_equal_shares_unless_capped() {
        assert_eq!(water_fill(32.0, &[4.0, 40.0]), vec![4.0, 28.0]);
        assert_eq!(water_fill(30.0, &[20.0, 20.0]), vec![15.0, 15.0]);
        assert_eq!(water_fill(100.0, &[10.0, 20.0]), vec![10.0, 20.0]);
        assert_eq!(water_fill(28.0, &[10.0, 22.0]), vec![10.0, 18.0]);
        assert!(water_fill(5.0, &[]).is_empty());
    }

    /// Seed 003 Figure 3, worked by hand. Three jobs, map tasks of 1 s, a
    /// cluster of 4 map slots, goals J1 = 7 s, J2 = 15 s, J3 = 20 s; J1 has
    /// 10 pending maps, J2 40, J3 24 (work in slot-seconds: 10, 40, 24).
    ///
    /// (a) Period (15, 20]: only J3 may run. Capacity 4 x 5 = 20 slot-s;
    ///     J3 may use min(24, 24 x 5) = 24. J3 gets 20 ("most of its
    ///     tasks"), 4 are pushed back.
    /// (b) Period (7, 15]: J2 and the rest of J3. Capacity 4 x 8 = 32.
    ///     Caps: J3 min(4, 24 x 8) = 4, J2 min(40, 40 x 8) = 40. Equal
    ///     shares of 16 each, J3 capped at 4, so J3 gets 4 (all its rest)
    ///     and J2 gets 28; 12 of J2 do not fit and go back.
    /// (c) Period (0, 7]: J1 and the rest of J2. Capacity 4 x 7 = 28.
    ///     Caps: J1 10, J2 12; they fit (22 <= 28): J1 10, J2 12.
    ///
    /// s_fit, with constant capacity = first-period work / 7 s:
    /// J1 ceil(10 / 7) = 2, J2 ceil(12 / 7) = 2, J3 0 -> clamped to 1.
    /// For comparison s_req: J1 ceil(10 / 7) = 2 (the same: all its work is
    /// in the first period), J2 ceil(40 / 15) = 3, J3 ceil(24 / 20) = 2.
    #[test]
    fn figure_3_reverse_scheduling_by_hand() {
        let jobs = [fit(7, 10, 1.0), fit(15, 40, 1.0), fit(20, 24, 1.0)];
        let cap = CapacityCurve::constant(4.0);
        let rs = reverse_schedule(Time::ZERO, &jobs, &cap, Time::from_secs(10));
        assert_eq!(rs.bounds, vec![0.0, 7.0, 15.0, 20.0]);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        // (a)
        assert!(close(rs.work_in(2, 2), 20.0));
        // (b)
        assert!(close(rs.work_in(2, 1), 4.0));
        assert!(close(rs.work_in(1, 1), 28.0));
        // (c)
        assert!(close(rs.work_in(0, 0), 10.0));
        assert!(close(rs.work_in(1, 0), 12.0));
        assert!(close(rs.work_in(2, 0), 0.0));
        assert!(rs.left.iter().all(|&l| close(l, 0.0)));
        // Decided latest period first.
        assert_eq!(rs.placed[1].iter().map(|p| p.0).collect::<Vec<_>>(), [1, 0]);
        let est: Vec<u32> = rs
            .raw
            .iter()
            .zip(&jobs)
            .map(|(&r, j)| clamp_estimate(r, j.pending))
            .collect();
        assert_eq!(est, vec![2, 2, 1]);
    }

    /// The same jobs when the other workload will take half the cluster in
    /// (15, 20] (2 slots left there).
    ///
    /// (a) (15, 20]: capacity 10; J3 gets 10, 14 go back.
    /// (b) (7, 15]: capacity 32; caps J3 14, J2 40: shares 16 / 16, J3
    ///     capped at 14, J2 gets 18; 22 of J2 go back.
    /// (c) (0, 7]: capacity 28; caps J1 10, J2 22: equal shares 14, J1
    ///     capped at 10, J2 gets 18 and 4 of J2 fit nowhere.
    ///
    /// s_fit: J1 ceil(10 / 7) = 2; J2 ceil((18 + 4) / 7) = ceil(3.14) = 4
    /// (up from 2: the drop is foreseen); J3 still 1 (nothing of it now).
    #[test]
    fn figure_3_with_a_foreseen_drop() {
        let jobs = [fit(7, 10, 1.0), fit(15, 40, 1.0), fit(20, 24, 1.0)];
        let cap = CapacityCurve::from_steps(vec![(0.0, 4.0), (15.0, 2.0)]);
        let rs = reverse_schedule(Time::ZERO, &jobs, &cap, Time::from_secs(10));
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(close(rs.work_in(2, 2), 10.0));
        assert!(close(rs.work_in(2, 1), 14.0));
        assert!(close(rs.work_in(1, 1), 18.0));
        assert!(close(rs.work_in(0, 0), 10.0));
        assert!(close(rs.work_in(1, 0), 18.0));
        assert!(close(rs.left[1], 4.0));
        let est: Vec<u32> = rs
            .raw
            .iter()
            .zip(&jobs)
            .map(|(&r, j)| clamp_estimate(r, j.pending))
            .collect();
        assert_eq!(est, vec![2, 4, 1]);
    }

    /// A drop inside the first period: one job, 60 maps of 1 s, goal 10 s;
    /// 10 slots until 5 s, then 2. Capacity over (0, 10] is 50 + 10 = 60,
    /// so the work just fits, but only if it runs while the slots are there:
    /// s_fit = 60 x (next cycle's mean capacity 10 over the 5 s cycle) / 60
    /// = 10, while s_req = 60 / 10 = 6.
    #[test]
    fn a_drop_inside_the_first_period_front_loads() {
        let jobs = [fit(10, 60, 1.0)];
        let cap = CapacityCurve::from_steps(vec![(0.0, 10.0), (5.0, 2.0)]);
        let rs = reverse_schedule(Time::ZERO, &jobs, &cap, Time::from_secs(5));
        assert_eq!(clamp_estimate(rs.raw[0], 60), 10);
        let r = row(60, 0, 1.0);
        assert_eq!(
            clamp_estimate(s_req(&r, Time::from_secs(10), Time::ZERO), 60),
            6
        );
    }

    #[test]
    fn late_jobs_demand_everything_and_share_the_first_period() {
        // J0's goal has passed; J1 has goal 10 s; capacity 2 slots.
        let jobs = [fit(3, 8, 1.0), fit(10, 10, 1.0)];
        let cap = CapacityCurve::constant(2.0);
        let rs = reverse_schedule(Time::from_secs(5), &jobs, &cap, Time::from_secs(10));
        assert_eq!(rs.bounds, vec![5.0, 10.0]);
        assert_eq!(rs.raw[0], f64::INFINITY);
        // Capacity 10 in (5, 10]: 5 each; J1 has 5 left that fit nowhere,
        // so it asks for all 10 over the 5 s period: 2 slots.
        assert!((rs.work_in(1, 0) - 5.0).abs() < 1e-9);
        assert!((rs.left[1] - 5.0).abs() < 1e-9);
        assert_eq!(clamp_estimate(rs.raw[1], 10), 2);
        // Only late jobs: one period of one cycle.
        let rs = reverse_schedule(Time::from_secs(5), &jobs[..1], &cap, Time::from_secs(10));
        assert_eq!(rs.bounds, vec![5.0, 15.0]);
    }
}
