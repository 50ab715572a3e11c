//! The locality index: which pending map tasks of a job have data on a node
//! or a rack.
//!
//! Like Hadoop's `nonRunningMapCache`, each job keeps, per node and per
//! rack, a stack of its map tasks with a replica there, plus a stack of all
//! its pending maps. The stacks are built once at admission in one flat
//! array per level (compressed rows: node `n`'s stack is
//! `data[start[r]..top[r]]`, `r` its rank among the nodes with tasks), so
//! a job costs a handful of allocations whatever its size, and room for its
//! own pairs plus a few bits per node rather than counters for every node
//! (on 100,000 nodes, most jobs read a few blocks). Entries are not
//! removed when a task launches elsewhere; a lookup pops stale entries off
//! the top as it meets them, so each entry is dropped at most once and
//! lookups cost amortised O(1). Tasks that become pending again (failure,
//! kill, lost output) go on small overflow stacks that are looked at
//! first; once a job's last pending map launches, its stacks are freed
//! (only the overflow stacks are used after that). Lookups mutate the
//! stacks, so the index lives in a `RefCell`: logically it is a read-only
//! view of the pending tasks.

use crate::bits::ones;
use mrsched_model::RackId;
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

/// Per-key counters reused from build to build, zero between builds: a
/// build touches its own keys only, not one counter per node of the
/// cluster (on 100,000 nodes a job of a few maps would otherwise clear
/// and sum 400 KB per level).
#[derive(Clone, Debug, Default)]
pub(crate) struct Scratch(Vec<u32>);

/// First pass of a build: each row's length.
struct Count<'s> {
    /// `count[k]` is row k's length (scratch, zero outside this build).
    count: &'s mut [u32],
    bits: Vec<u64>,
    total: usize,
}

impl<'s> Count<'s> {
    fn new(keys: usize, scratch: &'s mut Scratch) -> Count<'s> {
        if scratch.0.len() < keys {
            scratch.0.resize(keys, 0);
        }
        Count {
            count: &mut scratch.0[..keys],
            bits: vec![0u64; keys.div_ceil(64)],
            total: 0,
        }
    }

    #[inline(always)]
    fn add(&mut self, k: u32) {
        self.count[k as usize] += 1;
        self.bits[k as usize / 64] |= 1 << (k % 64);
        self.total += 1;
    }

    /// The rows' starts, for the second pass: row by row in key order, each
    /// counter becomes its row's fill point.
    fn into_fill(self) -> Fill<'s> {
        let rows: usize = self.bits.iter().map(|w| w.count_ones() as usize).sum();
        let mut start = Vec::with_capacity(rows + 1);
        let mut words = Vec::with_capacity(self.bits.len());
        let mut sum = 0u32;
        for (i, &word) in self.bits.iter().enumerate() {
            words.push(KeyWord {
                live: word,
                present: word,
                base: start.len() as u32,
            });
            for k in ones(word, i * 64) {
                start.push(sum);
                let c = std::mem::replace(&mut self.count[k], sum);
                sum += c;
            }
        }
        start.push(sum);
        Fill {
            fill: self.count,
            words,
            start,
            data: vec![0u32; self.total],
        }
    }
}

/// Second pass of a build: each pair put at its row's fill point.
struct Fill<'s> {
    /// `fill[k]`: where row k's next pair goes (scratch).
    fill: &'s mut [u32],
    words: Vec<KeyWord>,
    start: Vec<u32>,
    data: Vec<u32>,
}

impl Fill<'_> {
    #[inline(always)]
    fn put(&mut self, k: u32, t: u32) {
        let k = k as usize;
        self.data[self.fill[k] as usize] = t;
        self.fill[k] += 1;
    }

    /// The rows, leaving the scratch counters at zero.
    fn finish(self) -> Rows {
        if self.data.is_empty() {
            return Rows::default();
        }
        // Each row's fill point has reached the next row's start: its top.
        let mut top = Vec::with_capacity(self.start.len() - 1);
        for (i, w) in self.words.iter().enumerate() {
            for k in ones(w.present, i * 64) {
                top.push(std::mem::take(&mut self.fill[k]));
            }
        }
        debug_assert_eq!(top[..], self.start[1..]);
        Rows {
            words: self.words,
            top,
            start: self.start,
            data: self.data,
            extra: FxHashMap::default(),
        }
    }
}

/// 64 keys of an index, side by side so a lookup reads one place.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct KeyWord {
    /// Bit i set while key `64w + i`'s row may still hold a pending task:
    /// a compact first test, so skipping a job with no data on a node
    /// touches one word.
    live: u64,
    /// Bit i set when that key had tasks at build time (it has a row).
    present: u64,
    /// Rows of the keys before this word.
    base: u32,
}

impl KeyWord {
    /// Row of the key at `bit` (a set bit of `present`).
    #[inline(always)]
    fn row(&self, bit: u64) -> usize {
        self.base as usize + (self.present & (bit - 1)).count_ones() as usize
    }
}

/// Stacks of task indices keyed by a dense id, in one array. Only keys
/// with tasks have a row, numbered in key order (`KeyWord::row`), so a
/// job's rows take room for its own pairs and three words per 64 keys,
/// not two counters per key.
#[derive(Debug, Default)]
pub(crate) struct Rows {
    words: Vec<KeyWord>,
    /// By row: where it starts in `data`, and its top (one past its last
    /// entry not yet dropped).
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
        let mut scratch = Scratch::default();
        let mut count = Count::new(keys, &mut scratch);
        pairs.iter().for_each(|&(k, _)| count.add(k));
        let mut fill = count.into_fill();
        pairs.iter().for_each(|&(k, t)| fill.put(k, t));
        fill.finish()
    }

    /// Two indexes at once, of `keys.0` and `keys.1` keys, from the pairs
    /// `pairs` lists (twice: count, then fill; pairs arrive in decreasing
    /// task order, so each row fills up to the lowest task on its top),
    /// counting in `scratch`.
    pub(crate) fn build_two(
        keys: (usize, usize),
        pairs: &impl PairsOfTwo,
        scratch: &mut (Scratch, Scratch),
    ) -> (Rows, Rows) {
        let (mut ca, mut cb) = (
            Count::new(keys.0, &mut scratch.0),
            Count::new(keys.1, &mut scratch.1),
        );
        pairs.each(|k, _| ca.add(k), |k, _| cb.add(k));
        let (mut fa, mut fb) = (ca.into_fill(), cb.into_fill());
        pairs.each(|k, t| fa.put(k, t), |k, t| fb.put(k, t));
        (fa.finish(), fb.finish())
    }

    /// The keys whose rows had tasks when built, in increasing order.
    pub(crate) fn keys_with_tasks(&self) -> impl Iterator<Item = u32> + '_ {
        self.words
            .iter()
            .enumerate()
            .flat_map(|(w, word)| ones(word.present, w * 64).map(|k| k as u32))
    }

    /// The top pending task of row `k`, dropping stale entries.
    #[inline]
    pub(crate) fn top_pending(&mut self, k: u32, pending: impl Fn(u32) -> bool) -> Option<u32> {
        self.top_pending_in(k, pending).map(|(t, _)| t)
    }

    /// [`Rows::top_pending`], and the entry below it in its row (the task
    /// a lookup after the next launch from that row will likely return),
    /// stale or not: a hint to fetch ahead, found with the same row.
    #[inline]
    pub(crate) fn top_pending_and_below(
        &mut self,
        k: u32,
        pending: impl Fn(u32) -> bool,
    ) -> Option<(u32, Option<u32>)> {
        let (t, row) = self.top_pending_in(k, pending)?;
        let below = row.and_then(|r| {
            let (lo, top) = (self.start[r], self.top[r]);
            (top >= lo + 2).then(|| self.data[top as usize - 2])
        });
        Some((t, below))
    }

    /// The top pending task of row `k` and the row it came from (none for
    /// an overflow stack).
    #[inline(always)]
    fn top_pending_in(
        &mut self,
        k: u32,
        pending: impl Fn(u32) -> bool,
    ) -> Option<(u32, Option<usize>)> {
        if !self.extra.is_empty() {
            if let Some(stack) = self.extra.get_mut(&k) {
                if let Some(t) = top_pending(stack, &pending) {
                    return Some((t, None));
                }
            }
        }
        let k = k as usize;
        let bit = 1u64 << (k % 64);
        let r = match self.words.get(k / 64) {
            Some(w) if w.live & bit != 0 => w.row(bit),
            _ => return None,
        };
        let lo = self.start[r];
        let mut top = self.top[r];
        while top > lo {
            let t = self.data[top as usize - 1];
            if pending(t) {
                self.top[r] = top;
                return Some((t, Some(r)));
            }
            top -= 1;
        }
        self.top[r] = top;
        // The row is empty for good (re-pended tasks go to `extra`).
        self.words[k / 64].live &= !bit;
        None
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
        (&x.words, &x.start, &x.top, &x.data) == (&y.words, &y.start, &y.top, &y.data)
    }

    #[test]
    fn two_indexes_built_at_once_are_the_indexes_built_apart() {
        let nodes: Vec<(u32, u32)> = (0..200u32)
            .rev()
            .flat_map(|t| [(t * 7 % 130, t), (t * 13 % 130, t)])
            .collect();
        let racks: Vec<(u32, u32)> = (0..200u32).rev().map(|t| (t % 3, t)).collect();
        let mut scratch = Default::default();
        let (a, b) = Rows::build_two((130, 5), &Both(&nodes, &racks), &mut scratch);
        assert!(same(&a, &Rows::build(130, &nodes)));
        assert!(same(&b, &Rows::build(5, &racks)));
        assert_eq!(a.top[..], a.start[1..], "every row full");
        // No pairs at all on one side: an empty index, as apart.
        let (a, b) = Rows::build_two((130, 5), &Both(&nodes, &[]), &mut scratch);
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
    fn the_entry_below_the_top_is_what_the_lookup_after_next_meets() {
        let mut r = parity_rows();
        let all = |_| true;
        assert_eq!(r.top_pending_and_below(2, all), Some((0, Some(1))));
        // Task 0 launched: the next lookup meets the entry named before.
        assert_eq!(r.top_pending_and_below(2, |t| t != 0), Some((1, Some(2))));
        assert_eq!(r.top_pending_and_below(0, all), Some((0, Some(2))));
        // One entry left, an empty row and a key beyond the rows.
        assert_eq!(r.top_pending_and_below(0, |t| t == 2), Some((2, None)));
        assert_eq!(r.top_pending_and_below(1, |_| false), None);
        assert_eq!(r.top_pending_and_below(7, all), None);
        // A task pending again comes from its overflow stack: no row below.
        r.push(2, 0);
        assert_eq!(r.top_pending_and_below(2, all), Some((0, None)));
    }

    /// A job of a few maps on a large cluster keeps rows for its own keys
    /// only, and leaves the shared counters as it found them: the next
    /// build, on other keys, is what a fresh one gives.
    #[test]
    fn few_pairs_on_many_keys_keep_their_own_rows_and_a_clean_scratch() {
        let mut scratch = Default::default();
        let nodes = [(99_999u32, 1u32), (5, 1), (99_999, 0), (64, 0)];
        let racks = [(2_499u32, 1u32), (0, 0)];
        let (mut a, mut b) = Rows::build_two((100_000, 2_500), &Both(&nodes, &racks), &mut scratch);
        assert_eq!((a.start.len(), a.top.len(), a.data.len()), (4, 3, 4));
        assert_eq!(b.start.len(), 3);
        assert!(same(&a, &Rows::build(100_000, &nodes)));
        assert!(same(&b, &Rows::build(2_500, &racks)));
        assert!(scratch.0 .0.iter().all(|&c| c == 0));
        assert!(scratch.1 .0.iter().all(|&c| c == 0));
        let all = |_| true;
        assert_eq!(a.top_pending_and_below(99_999, all), Some((0, Some(1))));
        assert_eq!(a.top_pending(5, all), Some(1));
        assert_eq!(a.top_pending(64, all), Some(0));
        assert_eq!(
            (a.top_pending(6, all), a.top_pending(100_000, all)),
            (None, None)
        );
        assert_eq!(b.top_pending(2_499, all), Some(1));
        // Rows emptied for good read as absent; the others are untouched.
        assert_eq!(a.top_pending(99_999, |t| t == 5), None);
        assert_eq!(a.top_pending(5, all), Some(1));
        let again = [(7u32, 3u32), (99_999, 2)];
        let (c, _) = Rows::build_two((100_000, 2_500), &Both(&again, &[]), &mut scratch);
        assert!(same(&c, &Rows::build(100_000, &again)));
    }

    proptest::proptest! {
        /// Every row holds its key's tasks, lowest on top, whatever the
        /// keys: the compressed rows answer as a list per key does.
        #[test]
        fn rows_hold_each_keys_tasks(
            keys in 1usize..300,
            raw in proptest::collection::vec((0u32..300, 0u32..50), 0..120),
        ) {
            let mut pairs: Vec<(u32, u32)> =
                raw.iter().map(|&(k, t)| (k % keys as u32, t)).collect();
            pairs.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
            pairs.dedup();
            let mut rows = Rows::build(keys, &pairs);
            for k in 0..keys as u32 + 70 {
                let mut want: Vec<u32> = pairs.iter().filter(|p| p.0 == k).map(|p| p.1).collect();
                want.reverse();
                let mut got = Vec::new();
                while let Some(t) = rows.top_pending(k, |t| !got.contains(&t)) {
                    got.push(t);
                }
                proptest::prop_assert_eq!(got, want);
            }
        }
    }

    #[test]
    fn keys_with_tasks_cross_word_boundaries() {
        let pairs = [(130u32, 2u32), (64, 1), (3, 1), (3, 0)];
        let r = Rows::build(200, &pairs);
        assert_eq!(r.keys_with_tasks().collect::<Vec<_>>(), vec![3, 64, 130]);
        assert_eq!(Rows::build(10, &[]).keys_with_tasks().count(), 0);
    }
}
