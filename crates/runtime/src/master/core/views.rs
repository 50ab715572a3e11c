//! Read-only views for operators (the web UI and its JSON routes): a job's
//! attempts, the workers, the pools' running slots over the last hour.
//!
//! The cluster state forgets an attempt when it ends, so the master keeps
//! each job's ended attempts itself ([`JobMeta::ended`], filled from the
//! state's `AttemptEnded` events, also while the journal replays). The pool
//! history is sampled by the master's tick, a point every
//! [`POOL_SAMPLE`], and keeps the last hour.

use super::*;
use crate::proto::{AttemptView, PoolHistory, WorkerView};
use mrsched_model::Locality;
use std::collections::VecDeque;

/// Time between two points of the pool history.
pub const POOL_SAMPLE: Duration = Duration::from_secs(2);

/// How much pool history is kept.
pub const POOL_WINDOW: Duration = Duration::from_secs(3600);

/// The pools' running slots over the last hour: one point per sample,
/// each `(time, pool, running slots)` for the pools with work at that time.
#[derive(Clone, Debug, Default)]
pub struct PoolHistoryLog {
    points: VecDeque<(f64, Vec<(String, u32)>)>,
    last: Option<Instant>,
}

impl PoolHistoryLog {
    /// Add a point at `t_s` unless the last one is younger than
    /// [`POOL_SAMPLE`]; drop points older than [`POOL_WINDOW`].
    fn record(&mut self, t_s: f64, running: Vec<(String, u32)>) {
        if self.last.is_some_and(|l| l.elapsed() < POOL_SAMPLE) {
            return;
        }
        self.last = Some(Instant::now());
        self.points.push_back((t_s, running));
        let oldest = t_s - POOL_WINDOW.as_secs_f64();
        while self.points.front().is_some_and(|p| p.0 < oldest) {
            self.points.pop_front();
        }
    }

    /// The history as series: a pool missing from a point ran nothing then.
    pub fn view(&self) -> PoolHistory {
        let mut h = PoolHistory::default();
        for (i, (t, pools)) in self.points.iter().enumerate() {
            h.t_s.push(*t);
            for (name, n) in pools {
                let s = h.pools.entry(name.clone()).or_default();
                s.resize(i, 0);
                s.push(*n);
            }
        }
        let len = h.t_s.len();
        for s in h.pools.values_mut() {
            s.resize(len, 0);
        }
        h
    }
}

fn locality_name(l: Locality) -> &'static str {
    match l {
        Locality::Node => "node",
        Locality::Rack => "rack",
        Locality::OffRack => "off-rack",
        Locality::NoData => "-",
    }
}

fn attempt_state(s: AttemptStatus) -> &'static str {
    match s {
        AttemptStatus::Running => "running",
        AttemptStatus::Succeeded => "succeeded",
        AttemptStatus::Failed => "failed",
        AttemptStatus::Killed => "killed",
        AttemptStatus::Lost => "lost",
    }
}

impl Core {
    /// Record the pools' running slots (called by the tick).
    pub(super) fn sample_pools(&mut self, now: Time) {
        let Some(f) = self.formed.as_ref() else {
            return;
        };
        let mut running: BTreeMap<String, u32> = BTreeMap::new();
        for &j in f.st.active_jobs() {
            let job = f.st.job(j);
            let n = job.map_counts.running + job.reduce_counts.running;
            *running.entry(f.sched.pool_of(&f.st, j)).or_default() += n;
        }
        self.b
            .pool_history
            .record(now.as_secs_f64(), running.into_iter().collect());
    }

    /// The pools' running slots over the last hour.
    pub fn pool_history(&self) -> PoolHistory {
        self.b.pool_history.view()
    }

    /// A job's attempts: ended ones in the order they ended, then the
    /// running ones in launch order.
    pub fn attempts(&self, id: u32) -> Result<Vec<AttemptView>, ApiError> {
        let f = self.formed.as_ref().ok_or_else(not_formed)?;
        let meta = self
            .b
            .jobs
            .get(id as usize)
            .ok_or_else(|| ApiError::not_found(format!("no job {id} (see `mrsched jobs`)")))?;
        let mut running: Vec<&Attempt> = f.st.running_attempts_of(JobId(id)).collect();
        running.sort_by_key(|a| a.id);
        let node_name = |n: NodeId| {
            self.b
                .nodes
                .get(n.idx())
                .map_or_else(|| format!("node {}", n.0), |x| x.name.clone())
        };
        Ok(meta
            .ended
            .iter()
            .chain(running)
            .map(|a| AttemptView {
                id: a.id.0,
                kind: match a.kind {
                    TaskKind::Map => "map",
                    TaskKind::Reduce => "reduce",
                }
                .to_string(),
                task: a.task,
                node: node_name(a.node),
                locality: locality_name(a.locality).to_string(),
                state: attempt_state(a.status).to_string(),
                start_s: a.start.as_secs_f64(),
                end_s: a.end.get().map(|t| t.as_secs_f64()),
            })
            .collect())
    }

    /// The workers: alive or lost, slots in use, blocks held, last
    /// heartbeat.
    pub fn workers(&self) -> Vec<WorkerView> {
        let mut blocks = vec![0u32; self.b.nodes.len()];
        for f in self.b.files.values().filter(|f| f.writer.is_none()) {
            for b in &f.blocks {
                for &r in &b.replicas {
                    if let Some(c) = blocks.get_mut(r as usize) {
                        *c += 1;
                    }
                }
            }
        }
        let nodes: &[NodeInfo] = match &self.formed {
            Some(_) => &self.b.nodes,
            None => &self.regs,
        };
        nodes
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let id = NodeId(i as u32);
                let (alive, maps, reduces) = match &self.formed {
                    Some(f) => (
                        f.st.slots(id).alive && n.session != 0,
                        [
                            n.map_slots - f.st.free_map_slots(id).min(n.map_slots),
                            n.map_slots,
                        ],
                        [
                            n.reduce_slots - f.st.free_reduce_slots(id).min(n.reduce_slots),
                            n.reduce_slots,
                        ],
                    ),
                    None => (true, [0, n.map_slots], [0, n.reduce_slots]),
                };
                WorkerView {
                    name: n.name.clone(),
                    rack: n.rack.clone(),
                    alive,
                    maps,
                    reduces,
                    blocks: blocks.get(i).copied().unwrap_or(0),
                    heartbeat_age_s: n.last_seen.elapsed().as_secs_f64(),
                    suspected: self.formed.is_some() && self.is_suspected(i as u32),
                    lost_reason: self.lost_reason(i as u32),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_history_fills_gaps_with_zero_and_keeps_an_hour() {
        let mut h = PoolHistoryLog::default();
        h.record(0.0, vec![("a".into(), 3)]);
        h.last = None;
        h.record(2.0, vec![("a".into(), 1), ("b".into(), 4)]);
        h.last = None;
        h.record(4.0, vec![("b".into(), 2)]);
        // Too soon after the last point: not recorded.
        h.record(5.0, vec![("c".into(), 9)]);
        let v = h.view();
        assert_eq!(v.t_s, vec![0.0, 2.0, 4.0]);
        assert_eq!(v.pools["a"], vec![3, 1, 0]);
        assert_eq!(v.pools["b"], vec![0, 4, 2]);
        assert!(!v.pools.contains_key("c"));
        h.last = None;
        h.record(3602.5, vec![]);
        let v = h.view();
        assert_eq!(v.t_s, vec![4.0, 3602.5], "points older than an hour go");
        assert_eq!(v.pools["b"], vec![2, 0]);
        assert!(!v.pools.contains_key("a"));
    }
}
