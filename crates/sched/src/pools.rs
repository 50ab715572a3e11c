//! Pool views: what `mrsched pools` shows, built the same way by every
//! driver (the live master, the Ballista adapter) from the cluster state and
//! the scheduler's own allocation ([`Scheduler::pool_shares`]).

use crate::scheduler::{PoolShare, Scheduler};
use mrsched_state::ClusterState;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A pool as users see it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PoolView {
    /// Name (a path such as `etl.nightly` for nested pools).
    pub name: String,
    /// Running jobs.
    pub jobs: u32,
    /// Running map attempts.
    pub running_maps: u32,
    /// Running reduce attempts.
    pub running_reduces: u32,
    /// Pending maps.
    pub pending_maps: u32,
    /// Pending reduces.
    pub pending_reduces: u32,
    /// Weight (policies with pools; 1 otherwise).
    #[serde(default = "one")]
    pub weight: f64,
    /// Minimum share, map slots (policies with pools).
    #[serde(default)]
    pub min_share: f64,
    /// Fair share at the scheduler's last share update, map slots
    /// (policies with pools).
    #[serde(default)]
    pub fair_share: f64,
    /// Demand at the last share update, map slots: running plus
    /// launchable maps (policies with pools).
    #[serde(default)]
    pub demand: f64,
    /// Age of the pool's oldest waiting task, seconds: the time since the
    /// earliest-submitted of its jobs with a pending map was submitted (a
    /// map never launched has waited since then); 0 when nothing waits.
    #[serde(default)]
    pub oldest_wait_s: f64,
    /// How long the pool has been starved (below its min-share or
    /// fair-share target, the preemption clocks), seconds; 0 when it is not
    /// or the policy does not preempt.
    #[serde(default)]
    pub starved_s: f64,
    /// Attempts the policy has killed so that this pool gets its share.
    #[serde(default)]
    pub preemptions: u64,
    /// Most map slots the pool may hold (the Capacity Scheduler's
    /// maximum-capacity), when the policy caps pools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_share: Option<f64>,
}

fn one() -> f64 {
    1.0
}

/// What `mrsched pools` prints.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PoolsView {
    /// Scheduler label.
    pub scheduler: String,
    /// Pools with running jobs or a configured share, by name.
    pub pools: Vec<PoolView>,
    /// The scheduler's own numbers (`Scheduler::stats`).
    pub stats: BTreeMap<String, f64>,
}

impl PoolsView {
    /// The pools of the admitted, unfinished jobs of `st`, with the
    /// scheduler's shares for every pool it knows.
    pub fn build(st: &ClusterState, sched: &dyn Scheduler, label: &str) -> PoolsView {
        let mut pools: BTreeMap<String, PoolView> = BTreeMap::new();
        let blank = |name: String| PoolView {
            name,
            jobs: 0,
            running_maps: 0,
            running_reduces: 0,
            pending_maps: 0,
            pending_reduces: 0,
            weight: 1.0,
            min_share: 0.0,
            fair_share: 0.0,
            demand: 0.0,
            oldest_wait_s: 0.0,
            starved_s: 0.0,
            preemptions: 0,
            max_share: None,
        };
        let now = st.now();
        for &j in st.active_jobs() {
            let job = st.job(j);
            let name = sched.pool_of(st, j);
            let p = pools.entry(name.clone()).or_insert_with(|| blank(name));
            p.jobs += 1;
            p.running_maps += job.map_counts.running;
            p.running_reduces += job.reduce_counts.running;
            p.pending_maps += job.map_counts.pending;
            p.pending_reduces += job.reduce_counts.pending;
            if job.map_counts.pending > 0 {
                let waited = now.saturating_sub(job.submitted).as_secs_f64();
                p.oldest_wait_s = p.oldest_wait_s.max(waited);
            }
        }
        for PoolShare {
            name,
            weight,
            min_share,
            fair_share,
            demand,
            starved_since,
            preemptions,
            max_share,
        } in sched.pool_shares()
        {
            let p = pools.entry(name.clone()).or_insert_with(|| blank(name));
            p.weight = weight;
            p.min_share = min_share[0];
            p.fair_share = fair_share[0];
            p.demand = demand[0];
            p.starved_s = starved_since.map_or(0.0, |t| now.saturating_sub(t).as_secs_f64());
            p.preemptions = preemptions;
            p.max_share = max_share.map(|m| m[0]);
        }
        PoolsView {
            scheduler: label.to_string(),
            pools: pools.into_values().collect(),
            stats: sched.stats(),
        }
    }
}

/// Each job's pool as `sched` placed it, by job id, for reports: a YARN
/// placement policy or a Capacity Scheduler queue mapping may put a job
/// elsewhere than the pool it names. A job refused on submission keeps
/// the pool it named.
pub fn placed_pools(st: &ClusterState, sched: &dyn Scheduler) -> Vec<String> {
    st.jobs()
        .iter()
        .map(|job| match job.status {
            mrsched_state::JobStatus::Rejected => job.spec.pool_name().to_string(),
            _ => sched.pool_of(st, job.id),
        })
        .collect()
}
