//! The locality index: which pending map tasks of a job have data on a node
//! or a rack.
//!
//! Like Hadoop's `nonRunningMapCache`, each job keeps, per node and per
//! rack, a stack of its map tasks with a replica there, plus a stack of all
//! its pending maps. The stacks are built once at admission in one flat
//! array per level (compressed rows: node `n`'s stack is
//! `data[start[n]..top[n]]`), so a job costs a handful of allocations
//! whatever its size. Entries are not removed when a task launches
//! elsewhere; a lookup pops stale entries off the top as it meets them, so
//! each entry is dropped at most once and lookups cost amortised O(1). Tasks
//! that become pending again (failure, kill, lost output) go on small
//! overflow stacks that are looked at first; once a job's last pending map
//! launches, its stacks are freed (only the overflow stacks are used after
//! that). Lookups mutate the stacks, so the index lives in a `RefCell`:
//! logically it is a read-only view of the pending tasks.

use mrsched_model::{NodeId, RackId};
use rustc_hash::FxHashMap;

/// Lists the pairs of two indexes of one job at once (its node rows and
/// its rack rows), each in decreasing task order: both come from the same
/// replica lists, which are then read once per pass rather than twice. A
/// trait with a generic method rather than a visitor behind a pointer: the
/// pairs of a job with millions of maps cost one inlined loop.
pub(crate) trait PairsOfTwo {
    /// Hand every pair of the first index to `a` and of the second to `b`;
    /// the same pairs every time.
    fn each(&self, a: impl FnMut(u32, u32), b: impl FnMut(u32, u32));
}

/// First pass of a build: each row's length.
struct Count {
    keys: usize,
    /// `count[k + 1]` is row k's length.
    count: Vec<u32>,
    bits: Vec<u64>,
    total: usize,
}

impl Count {
    fn new(keys: usize) -> Count {
        Count {
            keys,
            count: vec![0u32; keys + 1],
            bits: vec![0u64; keys.div_ceil(64)],
            total: 0,
        }
    }

    #[inline(always)]
    fn add(&mut self, k: u32) {
        self.count[k as usize + 1] += 1;
        self.bits[k as usize / 64] |= 1 << (k % 64);
        self.total += 1;
    }

    /// The rows' starts, for the second pass.
    fn into_fill(self) -> Fill {
        if self.total == 0 {
            return Fill::default();
        }
        // Running sums (`count[0]` is 0): row k starts after rows 0..k.
        let mut start = self.count;
        let mut sum = 0u32;
        for c in start.iter_mut() {
            sum += *c;
            *c = sum;
        }
        Fill {
            fill: start[..self.keys].to_vec(),
            start,
            bits: self.bits,
            data: vec![0u32; self.total],
        }
    }
}

/// Second pass of a build: each pair put at its row's fill point.
#[derive(Default)]
struct Fill {
    bits: Vec<u64>,
    start: Vec<u32>,
    fill: Vec<u32>,
    data: Vec<u32>,
}

impl Fill {
    #[inline(always)]
    fn put(&mut self, k: u32, t: u32) {
        let k = k as usize;
        self.data[self.fill[k] as usize] = t;
        self.fill[k] += 1;
    }

    fn finish(self) -> Rows {
        if self.data.is_empty() {
            return Rows::default();
        }
        // Each row's fill point has reached the next row's start: its top.
        debug_assert_eq!(self.fill[..], self.start[1..]);
        Rows {
            bits: self.bits,
            top: self.fill,
            start: self.start,
            data: self.data,
            extra: FxHashMap::default(),
        }
    }
}

/// Stacks of task indices keyed by a dense id, in one array.
#[derive(Debug, Default)]
pub(crate) struct Rows {
    /// Bit k set when row k was non-empty at build time: a compact first
    /// test, so skipping a job with no data on a node touches one word.
    bits: Vec<u64>,
    start: Vec<u32>,
    top: Vec<u32>,
    data: Vec<u32>,
    extra: FxHashMap<u32, Vec<u32>>,
}

impl Rows {
    /// Build from `(key, task)` pairs in decreasing task order; `keys` is
    /// the number of keys. Within a key, tasks come out lowest first.
    #[cfg(test)]
    pub(crate) fn build(keys: usize, pairs: &[(u32, u32)]) -> Rows {
        let mut count = Count::new(keys);
        pairs.iter().for_each(|&(k, _)| count.add(k));
        let mut fill = count.into_fill();
        pairs.iter().for_each(|&(k, t)| fill.put(k, t));
        fill.finish()
    }

    /// Two indexes at once, of `keys.0` and `keys.1` keys, from the pairs
    /// `pairs` lists (twice: count, then fill; pairs arrive in decreasing
    /// task order, so each row fills up to the lowest task on its top).
    pub(crate) fn build_two(keys: (usize, usize), pairs: &impl PairsOfTwo) -> (Rows, Rows) {
        let (mut ca, mut cb) = (Count::new(keys.0), Count::new(keys.1));
        pairs.each(|k, _| ca.add(k), |k, _| cb.add(k));
        let (mut fa, mut fb) = (ca.into_fill(), cb.into_fill());
        pairs.each(|k, t| fa.put(k, t), |k, t| fb.put(k, t));
        (fa.finish(), fb.finish())
    }

    /// The keys whose rows had tasks when built, in increasing order.
    pub(crate) fn keys_with_tasks(&self) -> impl Iterator<Item = u32> + '_ {
        self.bits.iter().enumerate().flat_map(|(w, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let b = rest.trailing_zeros();
                    rest &= rest - 1;
                    w as u32 * 64 + b
                })
            })
        })
    }

    /// The top pending task of row `k`, dropping stale entries.
    #[inline]
    pub(crate) fn top_pending(&mut self, k: u32, pending: impl Fn(u32) -> bool) -> Option<u32> {
        if !self.extra.is_empty() {
            if let Some(stack) = self.extra.get_mut(&k) {
                if let Some(t) = top_pending(stack, &pending) {
                    return Some(t);
                }
            }
        }
        let k = k as usize;
        if self
            .bits
            .get(k / 64)
            .is_none_or(|w| w & (1 << (k % 64)) == 0)
        {
            return None;
        }
        let lo = self.start[k];
        let mut top = self.top[k];
        while top > lo {
            let t = self.data[top as usize - 1];
            if pending(t) {
                self.top[k] = top;
                return Some(t);
            }
            top -= 1;
        }
        self.top[k] = top;
        // The row is empty for good (re-pended tasks go to `extra`).
        self.bits[k / 64] &= !(1 << (k % 64));
        None
    }

    /// The entry below the top of row `k` (the task a lookup after the
    /// next launch from that row will likely return), if any; stale or not.
    #[inline]
    pub(crate) fn below_top(&self, k: u32) -> Option<u32> {
        let (lo, top) = (*self.start.get(k as usize)?, *self.top.get(k as usize)?);
        (top >= lo + 2).then(|| self.data[top as usize - 2])
    }

    /// Push a task that is pending again.
    pub(crate) fn push(&mut self, k: u32, t: u32) {
        self.extra.entry(k).or_default().push(t);
    }
}

/// Per-job pending-task lookups.
#[derive(Debug, Default)]
pub struct LocalityIndex {
    pub(crate) nodes: Rows,
    pub(crate) racks: Rows,
    /// Every pending task with data.
    pub(crate) any: Vec<u32>,
    /// Pending tasks that read no block.
    pub(crate) nodata: Vec<u32>,
    /// Pending reduces (lowest index on top).
    pub(crate) reduces: Vec<u32>,
}

impl LocalityIndex {
    /// Forget everything (the job ended).
    pub(crate) fn clear(&mut self) {
        *self = LocalityIndex::default();
    }

    /// Drop the map stacks: the job's last pending map launched. Lookups
    /// stop at a job's pending count, and a map pending again goes on the
    /// overflow stacks, which are looked at first anyway: every entry
    /// dropped here was stale for good. A big job's stacks (tens of MB)
    /// are freed as its map phase ends rather than with the job.
    pub(crate) fn release_maps(&mut self) {
        self.nodes = Rows::default();
        self.racks = Rows::default();
        self.any = Vec::new();
        self.nodata = Vec::new();
    }

    /// Node-local pending task on `n`.
    #[inline]
    pub(crate) fn node(&mut self, n: NodeId, pending: impl Fn(u32) -> bool) -> Option<u32> {
        self.nodes.top_pending(n.0, pending)
    }

    /// Rack-local pending task on `r`.
    #[inline]
    pub(crate) fn rack(&mut self, r: RackId, pending: impl Fn(u32) -> bool) -> Option<u32> {
        self.racks.top_pending(r.0, pending)
    }
}

/// Pop stale entries off `stack` and return its top pending task.
#[inline]
pub(crate) fn top_pending(stack: &mut Vec<u32>, is_pending: impl Fn(u32) -> bool) -> Option<u32> {
    while let Some(&t) = stack.last() {
        if is_pending(t) {
            return Some(t);
        }
        stack.pop();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tasks 0..4; task t on keys t % 2 and 2.
    fn parity_rows() -> Rows {
        let pairs: Vec<(u32, u32)> = (0..4).rev().flat_map(|t| [(t % 2, t), (2, t)]).collect();
        Rows::build(3, &pairs)
    }

    /// Two lists of pairs handed out together.
    struct Both<'a>(&'a [(u32, u32)], &'a [(u32, u32)]);

    impl PairsOfTwo for Both<'_> {
        fn each(&self, mut a: impl FnMut(u32, u32), mut b: impl FnMut(u32, u32)) {
            self.0.iter().for_each(|&(k, t)| a(k, t));
            self.1.iter().for_each(|&(k, t)| b(k, t));
        }
    }

    fn same(x: &Rows, y: &Rows) -> bool {
        (&x.bits, &x.start, &x.top, &x.data) == (&y.bits, &y.start, &y.top, &y.data)
    }

    #[test]
    fn two_indexes_built_at_once_are_the_indexes_built_apart() {
        let nodes: Vec<(u32, u32)> = (0..200u32)
            .rev()
            .flat_map(|t| [(t * 7 % 130, t), (t * 13 % 130, t)])
            .collect();
        let racks: Vec<(u32, u32)> = (0..200u32).rev().map(|t| (t % 3, t)).collect();
        let (a, b) = Rows::build_two((130, 5), &Both(&nodes, &racks));
        assert!(same(&a, &Rows::build(130, &nodes)));
        assert!(same(&b, &Rows::build(5, &racks)));
        assert_eq!(a.top[..], a.start[1..], "every row full");
        // No pairs at all on one side: an empty index, as apart.
        let (a, b) = Rows::build_two((130, 5), &Both(&nodes, &[]));
        assert!(same(&a, &Rows::build(130, &nodes)));
        assert!(b.data.is_empty() && b.start.is_empty());
    }

    #[test]
    fn rows_serve_lowest_first_and_skip_stale() {
        let mut r = parity_rows();
        let all = |_| true;
        assert_eq!(r.top_pending(0, all), Some(0));
        assert_eq!(r.top_pending(1, all), Some(1));
        assert_eq!(r.top_pending(2, all), Some(0));
        // Task 0 and 2 launched elsewhere.
        let pend = |t: u32| t != 0 && t != 2;
        assert_eq!(r.top_pending(0, pend), None);
        assert_eq!(r.top_pending(2, pend), Some(1));
        // Task 2 pending again.
        r.push(0, 2);
        assert_eq!(r.top_pending(0, |t| t == 2), Some(2));
        assert_eq!(r.top_pending(7, all), None);
    }

    #[test]
    fn below_top_is_what_the_lookup_after_next_meets() {
        let mut r = parity_rows();
        let all = |_| true;
        assert_eq!(r.top_pending(2, all), Some(0));
        assert_eq!(r.below_top(2), Some(1));
        // Task 0 launched: the next lookup meets the entry named before.
        assert_eq!(r.top_pending(2, |t| t != 0), Some(1));
        assert_eq!(r.below_top(2), Some(2));
        assert_eq!(r.top_pending(0, all), Some(0));
        assert_eq!(r.below_top(0), Some(2));
        // One entry left, an empty row and a key beyond the rows.
        assert_eq!(r.top_pending(0, |t| t == 2), Some(2));
        assert_eq!(r.below_top(0), None);
        assert_eq!(r.below_top(7), None);
    }

    #[test]
    fn keys_with_tasks_cross_word_boundaries() {
        let pairs = [(130u32, 2u32), (64, 1), (3, 1), (3, 0)];
        let r = Rows::build(200, &pairs);
        assert_eq!(r.keys_with_tasks().collect::<Vec<_>>(), vec![3, 64, 130]);
        assert_eq!(Rows::build(10, &[]).keys_with_tasks().count(), 0);
    }
}
