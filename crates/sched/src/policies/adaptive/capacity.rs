//! The capacity left to MapReduce: what each scheduler believes it is.
//!
//! Seed 003 §III: each node runs a TaskTracker next to a data-store whose
//! demand over time is known in advance as f(t). The two schedulers differ in
//! how much of that they look at:
//!
//! * the Adaptive Scheduler sees only the capacity available **now**
//!   ([`CapacityView::Now`]): per node the map slots not taken at this
//!   instant, and a constant total for the future;
//! * Reverse-Adaptive uses the **forecast** ([`CapacityView::Forecast`]):
//!   per node the slots free during the whole next cycle, and the total
//!   A(t) = slots - f(t) over time for reverse scheduling and predictions.
//!
//! [`CapacityCurve`] is the total as a step function of time (slots, with
//! prefix integrals for slot-second queries).

use mrsched_model::{Cluster, NodeId, Time};
use mrsched_state::ClusterState;
use serde::Deserialize;

/// Which capacity a scheduler plans with.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum CapacityView {
    /// The capacity available now, assumed to stay (Adaptive Scheduler).
    #[default]
    Now,
    /// The forecast f(t) (Reverse-Adaptive).
    Forecast,
}

/// Total map slots available to MapReduce over time: a step function.
/// Before the first step and after the last the first and last values hold.
#[derive(Clone, Debug, PartialEq)]
pub struct CapacityCurve {
    /// `(from_s, slots)` in increasing time.
    steps: Vec<(f64, f64)>,
    /// `prefix[i]` = integral of the curve from `steps[0].0` to `steps[i].0`.
    prefix: Vec<f64>,
}

impl CapacityCurve {
    /// The same number of slots at all times.
    pub fn constant(slots: f64) -> CapacityCurve {
        CapacityCurve::from_steps(vec![(0.0, slots)])
    }

    /// A curve from `(from_s, slots)` steps in increasing time (at least
    /// one); equal consecutive values are merged.
    pub fn from_steps(mut steps: Vec<(f64, f64)>) -> CapacityCurve {
        if steps.is_empty() {
            steps.push((0.0, 0.0));
        }
        steps.dedup_by(|b, a| b.1 == a.1);
        let mut prefix = Vec::with_capacity(steps.len());
        let mut acc = 0.0;
        for i in 0..steps.len() {
            if i > 0 {
                acc += steps[i - 1].1 * (steps[i].0 - steps[i - 1].0);
            }
            prefix.push(acc);
        }
        CapacityCurve { steps, prefix }
    }

    /// The forecast of a cluster: at every instant capacity may change, the
    /// map slots of every node minus those f(t) takes (all nodes alive).
    pub fn forecast(cluster: &Cluster) -> CapacityCurve {
        let mut times = cluster.capacity_change_times();
        if times.first() != Some(&Time::ZERO) {
            times.insert(0, Time::ZERO);
        }
        let steps = times
            .iter()
            .map(|&t| {
                let slots: u64 = (0..cluster.nodes.len())
                    .map(|i| {
                        let n = NodeId(i as u32);
                        cluster
                            .node(n)
                            .map_slots()
                            .saturating_sub(cluster.taken_at(n, t).0) as u64
                    })
                    .sum();
                (t.as_secs_f64(), slots as f64)
            })
            .collect();
        CapacityCurve::from_steps(steps)
    }

    /// The same curve multiplied by `factor` (dead nodes).
    pub fn scaled(&self, factor: f64) -> CapacityCurve {
        CapacityCurve::from_steps(self.steps.iter().map(|&(t, v)| (t, v * factor)).collect())
    }

    /// The steps `(from_s, slots)`.
    pub fn steps(&self) -> &[(f64, f64)] {
        &self.steps
    }

    fn index(&self, t: f64) -> usize {
        self.steps.partition_point(|s| s.0 <= t).saturating_sub(1)
    }

    /// Slots available at `t` seconds.
    pub fn at(&self, t: f64) -> f64 {
        self.steps[self.index(t)].1
    }

    /// Integral from the first step to `t` (slot-seconds); before the first
    /// step the first value extends backwards.
    fn cumulative(&self, t: f64) -> f64 {
        let i = self.index(t);
        self.prefix[i] + self.steps[i].1 * (t - self.steps[i].0)
    }

    /// Slot-seconds available over `[a, b]` (0 when `b <= a`).
    pub fn integral(&self, a: f64, b: f64) -> f64 {
        if b <= a {
            0.0
        } else {
            (self.cumulative(b) - self.cumulative(a)).max(0.0)
        }
    }

    /// The pieces of the curve from `from` on: `(start, end, slots)`, the
    /// last with `end = +inf`.
    pub fn pieces_from(&self, from: f64) -> impl Iterator<Item = (f64, f64, f64)> + '_ {
        let i0 = self.index(from);
        (i0..self.steps.len()).map(move |i| {
            let start = if i == i0 { from } else { self.steps[i].0 };
            let end = self.steps.get(i + 1).map_or(f64::INFINITY, |s| s.0);
            (start, end, self.steps[i].1)
        })
    }
}

/// Map slots MapReduce may use on node `n` during the cycle
/// `[now, now + cycle)`, as a scheduler with `view` sees them.
///
/// `Now` is the node's free capacity at this instant (what the data-store
/// leaves now); `Forecast` is the smallest the forecast leaves at any time of
/// the cycle (seed 003: "resource availability awareness ... to decide task
/// placement"; choosing the minimum over the cycle is ours, so that no task is
/// placed on slots the data-store will reclaim before the next cycle).
/// `change_times` are the cluster's capacity change instants, sorted.
pub fn node_capacity(
    st: &ClusterState,
    view: CapacityView,
    n: NodeId,
    cycle: Time,
    change_times: &[Time],
) -> u32 {
    if !st.slots(n).alive {
        return 0;
    }
    let slots = st.cluster().node(n).map_slots();
    match view {
        CapacityView::Now => slots.saturating_sub(st.slots(n).taken_map),
        CapacityView::Forecast => {
            let now = st.now();
            let end = now.saturating_add(cycle);
            let mut taken = st.cluster().taken_at(n, now).0;
            let from = change_times.partition_point(|&t| t <= now);
            for &t in change_times[from..].iter().take_while(|&&t| t < end) {
                taken = taken.max(st.cluster().taken_at(n, t).0);
            }
            slots.saturating_sub(taken)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integrals_of_a_step_function() {
        // 10 slots until 5 s, 4 slots from 5 s to 8 s, 6 after.
        let c = CapacityCurve::from_steps(vec![(0.0, 10.0), (5.0, 4.0), (8.0, 6.0)]);
        assert_eq!(c.at(4.9), 10.0);
        assert_eq!(c.at(5.0), 4.0);
        assert_eq!(c.integral(0.0, 5.0), 50.0);
        // 3 s at 10 + 3 s at 4 + 2 s at 6 = 30 + 12 + 12.
        assert!((c.integral(2.0, 10.0) - 54.0).abs() < 1e-9);
        assert_eq!(c.integral(3.0, 3.0), 0.0);
        let pieces: Vec<_> = c.pieces_from(6.0).collect();
        assert_eq!(pieces[0], (6.0, 8.0, 4.0));
        assert_eq!(pieces[1], (8.0, f64::INFINITY, 6.0));
    }

    #[test]
    fn forecast_of_a_cluster_sums_free_map_slots() {
        let c = Cluster::from_toml_str(
            "c",
            r#"
[[nodes]]
count = 2
map_slots = 10
reduce_slots = 2
[[capacity]]
kind = "trace"
points = [[0, 0.0], [100, 0.5], [200, 0.2]]
"#,
        )
        .unwrap();
        let f = CapacityCurve::forecast(&c);
        assert_eq!(f.at(50.0), 20.0);
        assert_eq!(f.at(150.0), 10.0);
        assert_eq!(f.at(250.0), 16.0);
        assert_eq!(f.integral(0.0, 200.0), 20.0 * 100.0 + 10.0 * 100.0);
    }

    #[test]
    fn node_views_now_and_over_the_cycle() {
        let c = Cluster::from_toml_str(
            "c",
            r#"
[[nodes]]
map_slots = 10
[[capacity]]
kind = "trace"
points = [[0, 0.0], [15, 0.6], [30, 0.0]]
"#,
        )
        .unwrap();
        let times = c.capacity_change_times();
        let mut st = ClusterState::new(c);
        st.advance_to(Time::from_secs(10));
        let n = NodeId(0);
        let cycle = Time::from_secs(10);
        // Now: nothing taken. Forecast over [10, 20): 6 slots from 15 s.
        assert_eq!(node_capacity(&st, CapacityView::Now, n, cycle, &times), 10);
        assert_eq!(
            node_capacity(&st, CapacityView::Forecast, n, cycle, &times),
            4
        );
        // A cycle ending exactly at the drop does not see it.
        assert_eq!(
            node_capacity(&st, CapacityView::Forecast, n, Time::from_secs(5), &times),
            10
        );
    }
}
