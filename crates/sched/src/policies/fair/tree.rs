//! The scheduling hierarchy: root -> pools (-> sub-pools ...) -> jobs, with
//! fair shares per slot kind and the order in which a free slot is offered.
//!
//! Shares are computed top-down with the one routine of
//! [`crate::share::fair_shares`] at every level (seed 002 §3, Appendix A):
//! a node's claim is `(demand, min, weight)`, its demand the sum of its
//! children's (capped by its maximum), and its children share what it got.
//! In a FIFO pool the children are filled in FIFO order instead. YARN
//! allocation files use YARN's rule instead ([`ShareRule::Yarn`]): the root
//! shares the whole capacity, children with jobs share their parent's with
//! [`crate::share::yarn_fair_shares`] (no demand cap, minimums kept whole),
//! and a FIFO queue gives its whole share to its first job.
//!
//! The order is kept incrementally so that a heartbeat costs O(depth x log
//! n) plus the jobs it visits, not a sort of every pool and job (the
//! assignment-latency target is 10 us with 1,000 pools and 10,000 jobs):
//! every node keeps, per slot kind, the children that could take a task
//! now, sorted by the comparator of its scheduling mode ([`Ready`]). A
//! change in a job's counts re-keys the job and its ancestors only.
//!
//! Fair comparator (HFS, prior-work.md §6.3): children below their minimum
//! share come first, most below (running / min) first; then the others by
//! running / fair share ("the job farthest below its fair share", seed 002
//! §4.1) or, as an option, by running / weight (HFS 0.21); ties by submit
//! time. FIFO comparator: priority, then submit time.

use super::alloc::{Mode, ShareRule};
use super::ready::Ready;
use crate::job_table::JobTable;
use crate::share::{fair_shares, yarn_fair_shares, Claim, YarnClaim};
use mrsched_model::{JobId, Priority, Time};
use rustc_hash::FxHashMap;

/// Map slots.
pub const MAP: usize = 0;
/// Reduce slots.
pub const RED: usize = 1;

/// No parent (the root).
pub const NONE: u32 = u32::MAX;

/// Order key inside a parent: (class, ratio or priority, tie, node index).
pub type Key = (u64, u64, u64, u32);

/// How fair pools order their children once minimum shares are met.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Order {
    /// running / fair share (seed 002 §4.1).
    #[default]
    FairShare,
    /// running / weight (Hadoop Fair Scheduler 0.21).
    Weight,
}

/// One node of the hierarchy.
#[derive(Clone, Debug)]
pub struct TreeNode {
    /// Parent index (`NONE` for the root).
    pub parent: u32,
    /// The job of a leaf.
    pub job: Option<JobId>,
    /// Pool path (empty for jobs and the root).
    pub name: String,
    /// Scheduling among the children.
    pub mode: Mode,
    /// Minimum shares per kind.
    pub min: [f64; 2],
    /// Maximum slots per kind (infinite when unset).
    pub max: [f64; 2],
    /// Weight.
    pub weight: f64,
    /// Submit time (jobs) for ties and FIFO.
    pub tie: u64,
    /// Priority (jobs).
    pub priority: Priority,
    /// Children (pools and runnable jobs).
    pub children: Vec<u32>,
    /// Running tasks per kind (subtree).
    pub running: [u32; 2],
    /// Launchable tasks per kind (jobs only).
    pub pending: [u32; 2],
    /// Demand per kind at the last share update.
    pub demand: [f64; 2],
    /// Fair share per kind at the last share update.
    pub share: [f64; 2],
    /// Children that could take a task now, in order, per kind.
    pub ready: [Ready; 2],
    /// This node's key in its parent's `ready`, per kind.
    pub key: [Option<Key>; 2],
    /// Where that key sat after its last move, per kind: a hint that
    /// spares the search when no sibling moved past it since.
    pub pos: [u32; 2],
    /// Runnable jobs in the subtree.
    pub jobs: u32,
    /// Running-job limit (pools).
    pub max_jobs: Option<u32>,
    /// Min-share preemption timeout (pools).
    pub min_timeout: Option<Time>,
    /// Fair-share preemption timeout (pools; else the default).
    pub fair_timeout: Option<Time>,
    /// Fair-share preemption threshold (pools; else the default).
    pub threshold: Option<f64>,
}

impl TreeNode {
    fn new(parent: u32) -> TreeNode {
        TreeNode {
            parent,
            job: None,
            name: String::new(),
            mode: Mode::Fair,
            min: [0.0; 2],
            max: [f64::INFINITY; 2],
            weight: 1.0,
            tie: 0,
            priority: Priority::Normal,
            children: Vec::new(),
            running: [0; 2],
            pending: [0; 2],
            demand: [0.0; 2],
            share: [0.0; 2],
            ready: [Ready::default(), Ready::default()],
            key: [None, None],
            pos: [0, 0],
            jobs: 0,
            max_jobs: None,
            min_timeout: None,
            fair_timeout: None,
            threshold: None,
        }
    }

    /// True for a job leaf.
    pub fn is_job(&self) -> bool {
        self.job.is_some()
    }
}

/// Positive floats order like their bit patterns.
fn bits(x: f64) -> u64 {
    if x.is_nan() {
        f64::INFINITY.to_bits()
    } else {
        x.max(0.0).to_bits()
    }
}

/// The hierarchy.
#[derive(Clone, Debug)]
pub struct Tree {
    /// Nodes; index 0 is the root.
    pub nodes: Vec<TreeNode>,
    free: Vec<u32>,
    /// A job's leaf (a sync looks its job up on every task launch and end).
    by_job: JobTable<u32>,
    by_pool: FxHashMap<String, u32>,
    order: Order,
    rule: ShareRule,
    /// Bumped whenever a child joins or leaves an order (`ready`): while
    /// it stays put, a walk visits the same jobs.
    epoch: u64,
}

impl Tree {
    /// A tree with only the root.
    pub fn new(order: Order) -> Tree {
        Tree {
            nodes: vec![TreeNode::new(NONE)],
            free: Vec::new(),
            by_job: JobTable::default(),
            by_pool: FxHashMap::default(),
            order,
            rule: ShareRule::Hfs,
            epoch: 0,
        }
    }

    /// Changes whenever some child joins or leaves an order: two walks in
    /// the same epoch visit the same jobs (maybe in another order).
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Use `rule` to split shares (HFS's by default).
    pub fn with_rule(mut self, rule: ShareRule) -> Tree {
        self.rule = rule;
        self
    }

    /// The node of a job, when it is runnable.
    pub fn job_node(&self, j: JobId) -> Option<u32> {
        self.by_job.get(j).copied()
    }

    /// The node of a pool path.
    pub fn pool(&self, path: &str) -> Option<u32> {
        self.by_pool.get(path).copied()
    }

    /// Every pool node.
    pub fn pools(&self) -> impl Iterator<Item = u32> + '_ {
        self.by_pool.values().copied()
    }

    /// Runnable jobs.
    pub fn job_count(&self) -> usize {
        self.by_job.len()
    }

    fn alloc(&mut self, n: TreeNode) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.nodes[i as usize] = n;
                i
            }
            None => {
                self.nodes.push(n);
                (self.nodes.len() - 1) as u32
            }
        }
    }

    /// Add a pool under `parent`.
    #[allow(clippy::too_many_arguments)]
    pub fn add_pool(
        &mut self,
        parent: u32,
        path: &str,
        mode: Mode,
        min: [f64; 2],
        max: [f64; 2],
        weight: f64,
        max_jobs: Option<u32>,
        min_timeout: Option<Time>,
    ) -> u32 {
        let mut n = TreeNode::new(parent);
        n.name = path.to_string();
        n.mode = mode;
        n.min = min;
        n.max = max;
        n.weight = weight;
        n.max_jobs = max_jobs;
        n.min_timeout = min_timeout;
        let i = self.alloc(n);
        self.nodes[parent as usize].children.push(i);
        self.by_pool.insert(path.to_string(), i);
        i
    }

    /// The ancestors of `i`, itself first, root last.
    pub fn path(&self, i: u32) -> impl Iterator<Item = u32> + '_ {
        let mut cur = i;
        std::iter::from_fn(move || {
            if cur == NONE {
                return None;
            }
            let r = cur;
            cur = self.nodes[cur as usize].parent;
            Some(r)
        })
    }

    /// Whether a job could join `pool` without breaking a running-job limit.
    pub fn has_job_room(&self, pool: u32) -> bool {
        self.path(pool).all(|p| {
            let n = &self.nodes[p as usize];
            n.max_jobs.is_none_or(|m| n.jobs < m)
        })
    }

    /// Add a runnable job leaf under `pool`.
    pub fn add_job(
        &mut self,
        pool: u32,
        j: JobId,
        submitted: Time,
        priority: Priority,
        weight: f64,
    ) -> u32 {
        let mut n = TreeNode::new(pool);
        n.job = Some(j);
        n.tie = submitted.0;
        n.priority = priority;
        n.weight = weight;
        let i = self.alloc(n);
        self.nodes[pool as usize].children.push(i);
        self.by_job.insert(j, i);
        let anc: Vec<u32> = self.path(pool).collect();
        for p in anc {
            self.nodes[p as usize].jobs += 1;
        }
        i
    }

    /// Remove a job leaf (its counts must already be zero, see [`Tree::set_counts`]).
    pub fn remove_job(&mut self, j: JobId) {
        let Some(i) = self.by_job.remove(j) else {
            return;
        };
        self.set_counts(i, [0, 0], [0, 0]);
        let parent = self.nodes[i as usize].parent;
        let p = &mut self.nodes[parent as usize];
        if let Some(pos) = p.children.iter().position(|c| *c == i) {
            p.children.swap_remove(pos);
        }
        let anc: Vec<u32> = self.path(parent).collect();
        for a in anc {
            self.nodes[a as usize].jobs -= 1;
        }
        self.nodes[i as usize] = TreeNode::new(NONE);
        self.free.push(i);
    }

    /// Set a job leaf's running and launchable counts, updating its
    /// ancestors and their places in the order.
    pub fn set_counts(&mut self, i: u32, running: [u32; 2], pending: [u32; 2]) {
        let old = self.nodes[i as usize].running;
        if old == running && self.nodes[i as usize].pending == pending {
            return;
        }
        self.nodes[i as usize].pending = pending;
        // Up the ancestors (no list: this runs at every launch and end).
        let mut a = i;
        while a != NONE {
            let n = &mut self.nodes[a as usize];
            for k in 0..2 {
                n.running[k] = n.running[k] + running[k] - old[k];
            }
            a = n.parent;
        }
        self.rekey_up(i);
    }

    /// Whether node `i` could take a task of kind `k` now.
    fn eligible(&self, i: u32, k: usize) -> bool {
        let n = &self.nodes[i as usize];
        let has = if n.is_job() {
            n.pending[k] > 0
        } else {
            !n.ready[k].is_empty()
        };
        has && (n.running[k] as f64) < n.max[k]
    }

    /// The key of node `i` in its parent for kind `k`.
    fn key_of(&self, i: u32, k: usize) -> Key {
        let n = &self.nodes[i as usize];
        let parent = &self.nodes[n.parent as usize];
        match parent.mode {
            Mode::Fifo => (
                (Priority::VeryHigh as u64).saturating_sub(n.priority as u64),
                n.tie,
                0,
                i,
            ),
            Mode::Fair => {
                let run = n.running[k] as f64;
                let min = n.min[k].min(n.demand[k]);
                if run < min {
                    (0, bits(run / min.max(1.0)), n.tie, i)
                } else {
                    let denom = match self.order {
                        Order::FairShare => n.share[k],
                        Order::Weight => n.weight,
                    };
                    let r = if denom > 0.0 {
                        run / denom
                    } else {
                        f64::INFINITY
                    };
                    (1, bits(r), n.tie, i)
                }
            }
        }
    }

    /// Re-key `i` and its ancestors in their parents' ready sets.
    fn rekey_up(&mut self, mut i: u32) {
        while self.rekey(i) {
            i = self.nodes[i as usize].parent;
        }
    }

    /// Update node `i`'s keys in its parent's order; false for the root.
    fn rekey(&mut self, i: u32) -> bool {
        let parent = self.nodes[i as usize].parent;
        if parent == NONE {
            return false;
        }
        for k in 0..2 {
            let new = self.eligible(i, k).then(|| self.key_of(i, k));
            let old = self.nodes[i as usize].key[k];
            if new != old {
                if new.is_some() != old.is_some() {
                    self.epoch += 1;
                }
                let hint = self.nodes[i as usize].pos[k];
                let at = self.nodes[parent as usize].ready[k].replace(old, new, hint);
                let n = &mut self.nodes[i as usize];
                n.key[k] = new;
                n.pos[k] = at;
            }
        }
        true
    }

    /// Recompute demands and fair shares of every node from the root
    /// capacities `cap`, then rebuild the order.
    pub fn update_shares(&mut self, cap: [f64; 2]) {
        self.demand_rec(0);
        let root = &mut self.nodes[0];
        for (k, c) in cap.iter().enumerate() {
            root.share[k] = match self.rule {
                ShareRule::Hfs => c.min(root.demand[k]).max(0.0),
                ShareRule::Yarn => c.max(0.0),
            };
        }
        let mut claims = Vec::new();
        self.share_rec(0, &mut claims);
        self.rekey_rec(0);
    }

    /// Rebuild every node's order of its children, children before parents
    /// (a pool's eligibility depends on its children). Every key may have
    /// moved, so each order is rebuilt and sorted once rather than moved
    /// key by key.
    fn rekey_rec(&mut self, i: u32) {
        let kids = std::mem::take(&mut self.nodes[i as usize].children);
        for &c in &kids {
            self.rekey_rec(c);
        }
        for k in 0..2 {
            for &c in &kids {
                let key = self.eligible(c, k).then(|| self.key_of(c, k));
                if key.is_some() != self.nodes[c as usize].key[k].is_some() {
                    self.epoch += 1;
                }
                self.nodes[c as usize].key[k] = key;
            }
            let mut ready = std::mem::take(&mut self.nodes[i as usize].ready[k]);
            ready.rebuild(kids.iter().filter_map(|&c| self.nodes[c as usize].key[k]));
            self.nodes[i as usize].ready[k] = ready;
        }
        self.nodes[i as usize].children = kids;
    }

    fn demand_rec(&mut self, i: u32) {
        let n = &self.nodes[i as usize];
        if n.is_job() {
            let d = [
                (n.running[0] + n.pending[0]) as f64,
                (n.running[1] + n.pending[1]) as f64,
            ];
            self.nodes[i as usize].demand = d;
            return;
        }
        let kids = std::mem::take(&mut self.nodes[i as usize].children);
        let mut d = [0.0; 2];
        for &c in &kids {
            self.demand_rec(c);
            for (k, dk) in d.iter_mut().enumerate() {
                *dk += self.nodes[c as usize].demand[k];
            }
        }
        let n = &mut self.nodes[i as usize];
        n.children = kids;
        for (k, dk) in d.iter().enumerate() {
            n.demand[k] = dk.min(n.max[k]);
        }
    }

    fn share_rec(&mut self, i: u32, claims: &mut Vec<Claim>) {
        let kids = std::mem::take(&mut self.nodes[i as usize].children);
        if !kids.is_empty() {
            let mode = self.nodes[i as usize].mode;
            for k in 0..2 {
                let cap = self.nodes[i as usize].share[k];
                match (mode, self.rule) {
                    (Mode::Fair, ShareRule::Yarn) => {
                        let yc: Vec<YarnClaim> = kids
                            .iter()
                            .map(|&c| {
                                let n = &self.nodes[c as usize];
                                YarnClaim {
                                    min: n.min[k],
                                    // YARN: a maximum below the minimum is
                                    // the minimum.
                                    max: n.max[k].max(n.min[k]),
                                    weight: n.weight,
                                    active: n.is_job() || n.jobs > 0,
                                }
                            })
                            .collect();
                        let s = yarn_fair_shares(&yc, cap);
                        for (&c, s) in kids.iter().zip(s) {
                            self.nodes[c as usize].share[k] = s;
                        }
                    }
                    (Mode::Fifo, ShareRule::Yarn) => {
                        // FifoPolicy: the earliest job gets the whole share.
                        let first = kids
                            .iter()
                            .copied()
                            .filter(|&c| {
                                let n = &self.nodes[c as usize];
                                n.is_job() || n.jobs > 0
                            })
                            .min_by_key(|&c| {
                                let n = &self.nodes[c as usize];
                                (std::cmp::Reverse(n.priority), n.tie, c)
                            });
                        for &c in &kids {
                            self.nodes[c as usize].share[k] =
                                if Some(c) == first { cap } else { 0.0 };
                        }
                    }
                    (Mode::Fair, ShareRule::Hfs) => {
                        claims.clear();
                        claims.extend(kids.iter().map(|&c| {
                            let n = &self.nodes[c as usize];
                            Claim {
                                demand: n.demand[k],
                                min: n.min[k],
                                weight: n.weight,
                            }
                        }));
                        let s = fair_shares(claims, cap);
                        for (&c, s) in kids.iter().zip(s) {
                            self.nodes[c as usize].share[k] = s;
                        }
                    }
                    (Mode::Fifo, ShareRule::Hfs) => {
                        let mut order: Vec<u32> = kids.clone();
                        order.sort_by_key(|&c| {
                            let n = &self.nodes[c as usize];
                            (std::cmp::Reverse(n.priority), n.tie, c)
                        });
                        let mut left = cap;
                        for c in order {
                            let n = &mut self.nodes[c as usize];
                            let s = n.demand[k].min(left).max(0.0);
                            n.share[k] = s;
                            left -= s;
                        }
                    }
                }
            }
            for &c in &kids {
                self.share_rec(c, claims);
            }
        }
        self.nodes[i as usize].children = kids;
    }

    /// Visit the job leaves under `i` that could take a task of kind `k`,
    /// in scheduling order, until `f` returns something.
    pub fn walk<R>(&self, i: u32, k: usize, f: &mut impl FnMut(u32) -> Option<R>) -> Option<R> {
        let n = &self.nodes[i as usize];
        if n.is_job() {
            return f(i);
        }
        for key in n.ready[k].iter() {
            if let Some(r) = self.walk(key.3, k, f) {
                return Some(r);
            }
        }
        None
    }

    /// Every job leaf (any order).
    pub fn job_nodes(&self) -> impl Iterator<Item = (JobId, u32)> + '_ {
        self.by_job.iter().map(|(j, i)| (j, *i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(t: &mut Tree, name: &str, min: f64) -> u32 {
        t.add_pool(
            0,
            name,
            Mode::Fair,
            [min, 0.0],
            [f64::INFINITY; 2],
            1.0,
            None,
            None,
        )
    }

    #[test]
    fn figure_3_through_the_tree() {
        // Seed 002 §3.1: four pools with (min, demand) (50, 46), (10, 18),
        // (25, 28), (15, 16) on 100 slots; one job per pool.
        let mut t = Tree::new(Order::FairShare);
        let spec = [(50.0, 46), (10.0, 18), (25.0, 28), (15.0, 16)];
        let mut jobs = Vec::new();
        for (i, (min, d)) in spec.iter().enumerate() {
            let p = pool(&mut t, &format!("p{i}"), *min);
            let j = t.add_job(p, JobId(i as u32), Time(i as u64), Priority::Normal, 1.0);
            t.set_counts(j, [0, 0], [*d, 0]);
            jobs.push(p);
        }
        t.update_shares([100.0, 10.0]);
        let shares: Vec<f64> = jobs
            .iter()
            .map(|p| (t.nodes[*p as usize].share[MAP] * 1e6).round() / 1e6)
            .collect();
        assert_eq!(shares, vec![46.0, 14.0, 25.0, 15.0]);
    }

    #[test]
    fn order_needy_first_then_ratio_and_rekeys_incrementally() {
        let mut t = Tree::new(Order::FairShare);
        let a = pool(&mut t, "a", 0.0);
        let b = pool(&mut t, "b", 5.0);
        let ja = t.add_job(a, JobId(0), Time(0), Priority::Normal, 1.0);
        let jb = t.add_job(b, JobId(1), Time(1), Priority::Normal, 1.0);
        t.set_counts(ja, [0, 0], [100, 0]);
        t.set_counts(jb, [0, 0], [100, 0]);
        t.update_shares([20.0, 0.0]);
        let first = |t: &Tree| t.walk(0, MAP, &mut |i| Some(t.nodes[i as usize].job.unwrap()));
        // b is below its minimum: it comes first until it holds 5.
        for r in 0..5 {
            assert_eq!(first(&t), Some(JobId(1)));
            t.set_counts(jb, [r + 1, 0], [99 - r, 0]);
        }
        // Now both at ratio running/share: a has 0/10 -> first.
        assert_eq!(first(&t), Some(JobId(0)));
        t.set_counts(ja, [6, 0], [94, 0]);
        assert_eq!(first(&t), Some(JobId(1)));
        // Nothing pending in b: only a is offered.
        t.set_counts(jb, [5, 0], [0, 0]);
        assert_eq!(first(&t), Some(JobId(0)));
        t.remove_job(JobId(0));
        assert_eq!(first(&t), None);
        assert_eq!(t.nodes[0].running, [5, 0]);
    }

    #[test]
    fn job_leaves_are_found_counted_and_forgotten_by_id() {
        let mut t = Tree::new(Order::FairShare);
        let a = pool(&mut t, "a", 0.0);
        let j7 = t.add_job(a, JobId(7), Time(0), Priority::Normal, 1.0);
        let j2 = t.add_job(a, JobId(2), Time(1), Priority::Normal, 1.0);
        assert_eq!(
            (t.job_node(JobId(7)), t.job_node(JobId(2))),
            (Some(j7), Some(j2))
        );
        assert_eq!((t.job_node(JobId(3)), t.job_node(JobId(99))), (None, None));
        assert_eq!(t.job_count(), 2);
        t.remove_job(JobId(7));
        t.remove_job(JobId(7));
        t.remove_job(JobId(50));
        assert_eq!((t.job_node(JobId(7)), t.job_count()), (None, 1));
        assert_eq!(t.job_nodes().collect::<Vec<_>>(), vec![(JobId(2), j2)]);
        assert_eq!(t.nodes[a as usize].jobs, 1);
    }

    #[test]
    fn fifo_pool_and_max() {
        let mut t = Tree::new(Order::FairShare);
        let p = t.add_pool(
            0,
            "f",
            Mode::Fifo,
            [0.0; 2],
            [3.0, f64::INFINITY],
            1.0,
            Some(2),
            None,
        );
        let late = t.add_job(p, JobId(0), Time(10), Priority::Normal, 1.0);
        let early = t.add_job(p, JobId(1), Time(5), Priority::Normal, 1.0);
        assert!(!t.has_job_room(p));
        t.set_counts(late, [0, 0], [4, 0]);
        t.set_counts(early, [0, 0], [2, 0]);
        t.update_shares([10.0, 0.0]);
        // FIFO fill: the early job gets its 2, the late one the rest of 3.
        assert_eq!(t.nodes[early as usize].share[MAP], 2.0);
        assert_eq!(t.nodes[late as usize].share[MAP], 1.0);
        let first = |t: &Tree| t.walk(0, MAP, &mut |i| Some(t.nodes[i as usize].job.unwrap()));
        assert_eq!(first(&t), Some(JobId(1)));
        // At its maximum of 3 maps the pool is offered nothing.
        t.set_counts(early, [2, 0], [0, 0]);
        t.set_counts(late, [1, 0], [3, 0]);
        assert_eq!(first(&t), None);
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        /// A node's keys in its parent and its children's orders, per kind.
        type Orders = ([Option<Key>; 2], Vec<Key>, Vec<Key>);

        /// Every node's [`Orders`].
        fn orders(t: &Tree) -> Vec<Orders> {
            t.nodes
                .iter()
                .map(|n| {
                    let ready = |k: usize| n.ready[k].iter().copied().collect::<Vec<_>>();
                    (n.key, ready(MAP), ready(RED))
                })
                .collect()
        }

        proptest! {
            /// Moving one job's counts at a time (a launch, an end, both
            /// kinds at once, maxima reached) leaves every key and order
            /// as rebuilding them all from scratch would.
            #[test]
            fn incremental_rekeys_match_a_rebuild(
                pools in proptest::collection::vec((0u32..3, 0u32..8, prop::bool::ANY), 1..6),
                jobs in proptest::collection::vec(0usize..6, 1..10),
                moves in proptest::collection::vec((0usize..10, 0u32..6, 0u32..4, 0u32..6, 0u32..4, 0u32..12), 1..60),
            ) {
                let mut t = Tree::new(Order::FairShare);
                let mut ids = vec![0u32];
                for (i, &(parent, min, fifo)) in pools.iter().enumerate() {
                    let parent = ids[parent as usize % ids.len()];
                    let mode = if fifo { Mode::Fifo } else { Mode::Fair };
                    let max = [if min == 7 { 3.0 } else { f64::INFINITY }, 5.0];
                    let p = t.add_pool(parent, &format!("p{i}"), mode, [min as f64, 1.0], max, 1.0, None, None);
                    ids.push(p);
                }
                let leaves: Vec<u32> = jobs
                    .iter()
                    .enumerate()
                    .map(|(j, &p)| {
                        let pool = ids[1 + p % (ids.len() - 1)];
                        t.add_job(pool, JobId(j as u32), Time(j as u64), Priority::Normal, 1.0)
                    })
                    .collect();
                t.update_shares([20.0, 8.0]);
                for (j, rm, rr, pm, pr, update) in moves {
                    let i = leaves[j % leaves.len()];
                    t.set_counts(i, [rm, rr], [pm, pr]);
                    if update == 0 {
                        t.update_shares([20.0, 8.0]);
                    }
                    let mut rebuilt = t.clone();
                    rebuilt.rekey_rec(0);
                    prop_assert_eq!(orders(&t), orders(&rebuilt));
                }
            }
        }
    }
}
