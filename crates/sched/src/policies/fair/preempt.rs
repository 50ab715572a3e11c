//! Preemption: killing tasks so that starved pools get their shares
//! (seed 002 §3.2; prior-work.md §6.4).
//!
//! * **Starvation.** A pool is min-share starved while it runs at least one
//!   task fewer than `min(min share, demand)` (after scaling: never more
//!   than its fair share), and fair-share starved while it runs at least one
//!   task fewer than `threshold x min(fair share, demand)`, threshold 0.5 by
//!   default ("below half its fair share", the HFS rule). Starvation is timed
//!   from the moment it began, on every change of the pool's running count
//!   or of its targets.
//! * **Timeouts.** When a pool has been min-share starved for its
//!   min-share timeout, it may kill enough tasks to reach its minimum; when
//!   fair-share starved for the fair-share timeout, enough to reach its full
//!   fair share (HFS: `max` of the two counts).
//! * **Victims.** Running tasks of other pools, most recently launched
//!   first (least work lost, seed 002 §3.2), taken only while every node on
//!   the victim's path up to the common ancestor with the starved pool (its
//!   job, its pool, their parents) keeps at least `floor(fair share)` tasks
//!   after the kill: no pool or job is pushed below its own share.
//! * **Guards from later systems** (anchors.md §4): a kill reserves the
//!   freed slot for the starved pool for `reservation` (YARN-5829: freed
//!   resources were grabbed back by other apps, so the preemptor stayed
//!   starved); kills still waiting for their slot to be used count against
//!   the next round, so one starvation is not paid twice; and a pool is
//!   re-examined only `interval` after its last round (a starvation delay
//!   against jumpy detection, YARN-6163). A pool never loses tasks to a pool
//!   that is not below its target, and a victim never drops below its own
//!   share, so two pools cannot take tasks back and forth.

use super::tree::{Tree, NONE};
use mrsched_model::{AttemptId, NodeId, TaskKind, Time};
use mrsched_state::ClusterState;
use rustc_hash::{FxHashMap, FxHashSet};

/// Preemption settings.
#[derive(Clone, Debug)]
pub struct PreemptConfig {
    /// Preemption on at all.
    pub enabled: bool,
    /// Min-share timeout of pools without their own.
    pub default_min_timeout: Option<Time>,
    /// Fair-share timeout.
    pub fair_timeout: Option<Time>,
    /// Fraction of the fair share below which a pool is starved.
    pub threshold: f64,
    /// Time between two rounds for one pool.
    pub interval: Time,
    /// How long a freed slot is kept for the starved pool.
    pub reservation: Time,
}

#[derive(Clone, Debug, Default)]
struct Starve {
    min_since: Option<Time>,
    fair_since: Option<Time>,
    not_before: Time,
}

/// A slot freed by a kill, kept for the starved pool.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Reservation {
    /// The starved pool (tree node).
    pub pool: u32,
    /// Slot kind.
    pub kind: usize,
    /// Kept until then.
    pub until: Time,
}

/// Starvation tracking and victim choice.
#[derive(Clone, Debug)]
pub struct Preemptor {
    /// Settings.
    pub cfg: PreemptConfig,
    starve: FxHashMap<(u32, usize), Starve>,
    reservations: FxHashMap<NodeId, Vec<Reservation>>,
    outstanding: FxHashMap<(u32, usize), u32>,
    /// Attempts killed so far.
    pub kills: u64,
    /// Reserved slots used by their pool.
    pub reservations_used: u64,
    /// Attempts killed for each starved pool (tree node), for pool views.
    kills_for: FxHashMap<u32, u64>,
}

fn floor_share(s: f64) -> f64 {
    (s + 1e-9).floor()
}

impl Preemptor {
    /// A preemptor.
    pub fn new(cfg: PreemptConfig) -> Preemptor {
        Preemptor {
            cfg,
            starve: FxHashMap::default(),
            reservations: FxHashMap::default(),
            outstanding: FxHashMap::default(),
            kills: 0,
            reservations_used: 0,
            kills_for: FxHashMap::default(),
        }
    }

    fn min_timeout(&self, tree: &Tree, p: u32) -> Option<Time> {
        tree.nodes[p as usize]
            .min_timeout
            .or(self.cfg.default_min_timeout)
    }

    /// The pool's own fair-share timeout (YARN files), else the default.
    fn fair_timeout(&self, tree: &Tree, p: u32) -> Option<Time> {
        tree.nodes[p as usize]
            .fair_timeout
            .or(self.cfg.fair_timeout)
    }

    /// Targets of pool `p` for kind `k`: (min-share target, fair-share
    /// target, full fair-share target).
    fn targets(tree: &Tree, p: u32, k: usize, threshold: f64) -> (f64, f64, f64) {
        let n = &tree.nodes[p as usize];
        let min = n.min[k].min(n.demand[k]).min(n.share[k]);
        let fair = n.share[k].min(n.demand[k]);
        (min, n.threshold.unwrap_or(threshold) * fair, fair)
    }

    /// Update pool `p`'s starvation clocks for kind `k` at `now`.
    pub fn observe(&mut self, tree: &Tree, p: u32, k: usize, now: Time) {
        if !self.cfg.enabled || tree.nodes[p as usize].is_job() || p == 0 {
            return;
        }
        let (min_t, fair_t, _) = Self::targets(tree, p, k, self.cfg.threshold);
        let run = tree.nodes[p as usize].running[k] as f64;
        let min_on = self.min_timeout(tree, p).is_some() && run + 1.0 <= min_t + 1e-9;
        let fair_on = self.fair_timeout(tree, p).is_some() && run + 1.0 <= fair_t + 1e-9;
        if !min_on && !fair_on {
            self.starve.remove(&(p, k));
            return;
        }
        let s = self.starve.entry((p, k)).or_default();
        if min_on {
            s.min_since.get_or_insert(now);
        } else {
            s.min_since = None;
        }
        if fair_on {
            s.fair_since.get_or_insert(now);
        } else {
            s.fair_since = None;
        }
    }

    /// Since when pool `p` has been starved (below its min-share or
    /// fair-share target, for either slot kind), if it is.
    pub fn starved_since(&self, p: u32) -> Option<Time> {
        (0..2)
            .filter_map(|k| self.starve.get(&(p, k)))
            .flat_map(|s| [s.min_since, s.fair_since])
            .flatten()
            .min()
    }

    /// Attempts killed so far so that pool `p` gets its share.
    pub fn kills_for(&self, p: u32) -> u64 {
        self.kills_for.get(&p).copied().unwrap_or(0)
    }

    /// Forget a pool's clocks (it lost its last job).
    pub fn forget_pool(&mut self, p: u32) {
        for k in 0..2 {
            self.starve.remove(&(p, k));
        }
    }

    fn due(&self, tree: &Tree, p: u32, k: usize, s: &Starve) -> Option<Time> {
        let a = s
            .min_since
            .zip(self.min_timeout(tree, p))
            .map(|(t, d)| t + d);
        let b = s
            .fair_since
            .zip(self.fair_timeout(tree, p))
            .map(|(t, d)| t + d);
        let _ = k;
        let due = match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }?;
        Some(due.max(s.not_before))
    }

    /// When the next round is due, if any pool is starved.
    pub fn next_due(&self, tree: &Tree) -> Option<Time> {
        self.starve
            .iter()
            .filter_map(|(&(p, k), s)| self.due(tree, p, k, s))
            .min()
    }

    /// Kills for every pool whose timeout has passed at `now`.
    pub fn round(&mut self, st: &ClusterState, tree: &Tree, now: Time) -> Vec<AttemptId> {
        let mut due: Vec<(u32, usize)> = self
            .starve
            .iter()
            .filter(|(&(p, k), s)| self.due(tree, p, k, s).is_some_and(|d| d <= now))
            .map(|(&pk, _)| pk)
            .collect();
        due.sort_unstable();
        let mut out = Vec::new();
        let mut killed: FxHashSet<AttemptId> = FxHashSet::default();
        // Kills per tree node over the whole round, so that two starved
        // pools do not both take a victim pool's margin.
        let mut kills: [FxHashMap<u32, u32>; 2] = Default::default();
        for (p, k) in due {
            let Some(s) = self.starve.get(&(p, k)).cloned() else {
                continue;
            };
            let (min_t, _, fair_full) = Self::targets(tree, p, k, self.cfg.threshold);
            let run = tree.nodes[p as usize].running[k] as f64;
            let min_over = s
                .min_since
                .zip(self.min_timeout(tree, p))
                .is_some_and(|(t, d)| t + d <= now);
            let fair_over = s
                .fair_since
                .zip(self.fair_timeout(tree, p))
                .is_some_and(|(t, d)| t + d <= now);
            let mut need = 0.0f64;
            if min_over {
                need = need.max(min_t - run);
            }
            if fair_over {
                need = need.max(fair_full - run);
            }
            let outstanding = self.outstanding.get(&(p, k)).copied().unwrap_or(0) as f64;
            let need = (need + 1e-9).floor() - outstanding;
            if need >= 1.0 {
                let victims = self.victims(st, tree, p, k, need as usize, &killed, &mut kills[k]);
                for (a, node) in victims {
                    killed.insert(a);
                    out.push(a);
                    self.kills += 1;
                    *self.kills_for.entry(p).or_default() += 1;
                    *self.outstanding.entry((p, k)).or_default() += 1;
                    self.reservations
                        .entry(node)
                        .or_default()
                        .push(Reservation {
                            pool: p,
                            kind: k,
                            until: now + self.cfg.reservation,
                        });
                }
            }
            if let Some(s) = self.starve.get_mut(&(p, k)) {
                s.not_before = now + self.cfg.interval;
            }
        }
        out
    }

    /// Up to `need` victims of kind `k` for starved pool `p`: most recently
    /// launched first, never pushing a job or pool below its share.
    #[allow(clippy::too_many_arguments)]
    fn victims(
        &self,
        st: &ClusterState,
        tree: &Tree,
        p: u32,
        k: usize,
        need: usize,
        taken: &FxHashSet<AttemptId>,
        kills: &mut FxHashMap<u32, u32>,
    ) -> Vec<(AttemptId, NodeId)> {
        let kind = if k == 0 {
            TaskKind::Map
        } else {
            TaskKind::Reduce
        };
        let protected: FxHashSet<u32> = tree.path(p).collect();
        let mut cand: Vec<(Time, AttemptId, NodeId, u32)> = Vec::new();
        for (j, i) in tree.job_nodes() {
            if tree.nodes[i as usize].running[k] == 0 || protected.contains(&i) {
                continue;
            }
            // Jobs inside the starved pool are not victims of it.
            if tree.path(i).any(|a| a == p) {
                continue;
            }
            for a in st.running_attempts_of(j) {
                if a.kind == kind && !taken.contains(&a.id) {
                    cand.push((a.start, a.id, a.node, i));
                }
            }
        }
        cand.sort_unstable_by(|x, y| y.0.cmp(&x.0).then(y.1.cmp(&x.1)));
        let mut out = Vec::new();
        for (_, a, node, i) in cand {
            if out.len() >= need {
                break;
            }
            let path: Vec<u32> = tree
                .path(i)
                .take_while(|x| !protected.contains(x) && *x != NONE)
                .collect();
            let ok = path.iter().all(|&x| {
                let n = &tree.nodes[x as usize];
                let left = n.running[k] as f64 - kills.get(&x).copied().unwrap_or(0) as f64 - 1.0;
                left >= floor_share(n.share[k])
            });
            if ok {
                for x in path {
                    *kills.entry(x).or_default() += 1;
                }
                out.push((a, node));
            }
        }
        out
    }

    /// Reservations on `node` for kind `k` still valid at `now` (expired
    /// ones are dropped).
    pub fn reservations_on(&mut self, node: NodeId, k: usize, now: Time) -> Vec<u32> {
        let Some(v) = self.reservations.get_mut(&node) else {
            return Vec::new();
        };
        let mut expired = Vec::new();
        v.retain(|r| {
            if r.until < now {
                expired.push((r.pool, r.kind));
                false
            } else {
                true
            }
        });
        if v.is_empty() {
            self.reservations.remove(&node);
        }
        for pk in expired {
            self.release(pk);
        }
        self.reservations
            .get(&node)
            .map(|v| v.iter().filter(|r| r.kind == k).map(|r| r.pool).collect())
            .unwrap_or_default()
    }

    fn release(&mut self, pk: (u32, usize)) {
        if let Some(c) = self.outstanding.get_mut(&pk) {
            *c = c.saturating_sub(1);
            if *c == 0 {
                self.outstanding.remove(&pk);
            }
        }
    }

    /// Pool `p` used a reserved slot of kind `k` on `node`.
    pub fn consume(&mut self, node: NodeId, p: u32, k: usize) {
        let mut used = false;
        if let Some(v) = self.reservations.get_mut(&node) {
            if let Some(pos) = v.iter().position(|r| r.pool == p && r.kind == k) {
                v.remove(pos);
                used = true;
            }
            if v.is_empty() {
                self.reservations.remove(&node);
            }
        }
        if used {
            self.reservations_used += 1;
            self.release((p, k));
        }
    }

    /// Drop the reservations on a lost node.
    pub fn node_lost(&mut self, node: NodeId) {
        if let Some(v) = self.reservations.remove(&node) {
            for r in v {
                self.release((r.pool, r.kind));
            }
        }
    }
}
