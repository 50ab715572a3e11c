//! Lazy waking: a whole cluster's idle nodes woken at once without touching
//! each of them.
//!
//! Every job arrival wakes every idle node (the first to beat takes the
//! work). Queuing each node's next heartbeat costs a hash and a heap push
//! per node per arrival, so a 100,000-node cluster spent its time on nodes
//! x arrivals although one beat usually takes the work and the rest are set
//! aside again. A [`Cohort`] stands for the nodes one such wake-up queued:
//! their heartbeats are computed only as simulated time reaches them.
//!
//! It stays exact. A queued heartbeat of node `n` woken at `T` is the first
//! instant of its grid (`phase + k * interval + jitter(k)`, `k >= next_k`)
//! at or after `T`, with the sequence number of its wake-up, which orders
//! equal times. With jitter below the interval, beat times grow with `k`,
//! so a node's beat lies within `reach` (the largest jitter) after its
//! *grid base* `phase + k * interval`, and bases are ordered by phase: the
//! nodes sorted by phase once ([`Grid`]) give the order in which members
//! can come due. Members whose base is at or before `T` (a jitter's width
//! of the cluster) are computed at once; the others are computed when the
//! engine's next event reaches their base ([`Cohort::next_base`]). A
//! cohort's sequence numbers are a block, `base + node`: the same order as
//! waking the nodes one by one in index order.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use mrsched_model::rng::{hash_words_from, unit_from_hash, HASH_START};

/// Every node's heartbeat grid and the nodes in phase order.
pub(crate) struct Grid {
    /// Each node's jitter hash state before the grid index
    /// (`hash_words(&[seed, 0x717E, node, k])` hashes its prefix once).
    jitter_key: Vec<u64>,
    interval: u64,
    jitter: u64,
    /// Largest jitter value (`jitter - 1`, or 0).
    reach: u64,
    /// Phase of each node.
    phase: Vec<u64>,
    /// Nodes by `(phase, index)`.
    by_rank: Vec<u32>,
    /// Rank of each node in that order.
    rank: Vec<u32>,
    /// Phase of the node at each rank.
    phase_by_rank: Vec<u64>,
    /// Cohorts can be used: jitter at most the interval, every phase below it.
    lazy: bool,
}

impl Grid {
    /// The grid of `phase.len()` nodes beating every `interval` with up to
    /// `jitter` of seeded jitter.
    pub(crate) fn new(seed: u64, interval: u64, jitter: u64, phase: Vec<u64>) -> Grid {
        let mut by_rank: Vec<u32> = (0..phase.len() as u32).collect();
        by_rank.sort_by_key(|&n| (phase[n as usize], n));
        let mut rank = vec![0u32; phase.len()];
        for (r, &n) in by_rank.iter().enumerate() {
            rank[n as usize] = r as u32;
        }
        let phase_by_rank = by_rank.iter().map(|&n| phase[n as usize]).collect();
        let lazy = interval > 0 && jitter <= interval && phase.iter().all(|&p| p < interval);
        let jitter_key = (0..phase.len() as u64)
            .map(|n| hash_words_from(HASH_START, &[seed, 0x717E, n]))
            .collect();
        Grid {
            jitter_key,
            interval,
            jitter,
            reach: jitter.saturating_sub(1),
            phase,
            by_rank,
            rank,
            phase_by_rank,
            lazy,
        }
    }

    /// Whether cohorts may be used (beat times then grow with `k`).
    pub(crate) fn lazy(&self) -> bool {
        self.lazy
    }

    /// Number of nodes.
    pub(crate) fn len(&self) -> usize {
        self.phase.len()
    }

    /// Rank of node `n` in phase order.
    #[inline]
    pub(crate) fn rank(&self, n: u32) -> usize {
        self.rank[n as usize] as usize
    }

    /// Node at rank `r`.
    #[inline]
    pub(crate) fn node_at(&self, r: usize) -> u32 {
        self.by_rank[r]
    }

    /// Time of heartbeat `k` of node `n`.
    #[inline]
    pub(crate) fn beat_time(&self, n: u32, k: u64) -> u64 {
        let jitter = if self.jitter > 0 {
            (unit_from_hash(hash_words_from(self.jitter_key[n as usize], &[k]))
                * self.jitter as f64) as u64
        } else {
            0
        };
        self.phase[n as usize] + self.interval * k + jitter
    }

    /// Node `n`'s first heartbeat at or after `now` with index at least
    /// `next_k`: `(k, time)`.
    pub(crate) fn first_beat(&self, n: u32, next_k: u64, now: u64) -> (u64, u64) {
        let phase = self.phase[n as usize];
        let interval = self.interval;
        // A node woken again soon after its last beat: the answer is
        // `next_k` or the one after (beat times grow with k, and the next
        // base is an interval later), no division needed.
        let base = phase + interval * next_k;
        if self.jitter <= interval && base + self.reach >= now {
            let t = self.beat_time(n, next_k);
            if t >= now {
                return (next_k, t);
            }
            return (next_k + 1, self.beat_time(n, next_k + 1));
        }
        let mut k = next_k;
        if now > phase {
            k = k.max(((now - phase) / interval).saturating_sub(1));
            // With jitter below the interval beat times grow with k, and
            // every beat before `now - max jitter` is past: start there
            // (same answer, one hash less).
            if self.jitter <= interval && now > phase + self.reach {
                k = k.max((now - phase - self.reach).div_ceil(interval));
            }
        }
        self.first_beat_from(n, k, now)
    }

    /// Node `n`'s first heartbeat at or after `now` counting up from index
    /// `k`: `(k, time)`.
    pub(crate) fn first_beat_from(&self, n: u32, mut k: u64, now: u64) -> (u64, u64) {
        let mut t = self.beat_time(n, k);
        while t < now {
            k += 1;
            t = self.beat_time(n, k);
        }
        (k, t)
    }
}

pub(crate) use mrsched_state::bits::{bit, ones, set_bit};

/// The nodes one wake-up queued, their heartbeats computed as time reaches
/// them (see the module documentation).
pub(crate) struct Cohort {
    /// When they were woken.
    at: u64,
    /// Sequence number of node 0; node `n` has `base + n`.
    base: u64,
    /// Rank at which the sweep starts (the first base at or after
    /// `at - reach`).
    start: usize,
    /// Grid index of the bases of ranks `start..`; ranks before `start`
    /// have the next one.
    q: u64,
    /// Sweep positions (ranks from `start`, wrapping) already computed.
    cursor: usize,
    /// Members whose heartbeat is still queued, by rank.
    members: Vec<u64>,
    live: usize,
    /// Computed members' heartbeats `(time, sequence, node)`; an entry whose
    /// node left the cohort is skipped.
    due: BinaryHeap<Reverse<(u64, u64, u32)>>,
    /// Sweep position of the first member at or after `cursor`, once found
    /// (`usize::MAX`: none).
    next: Option<usize>,
}

impl Cohort {
    /// Wake the nodes of `members` (rank-ordered bits, not empty) at `at`
    /// with sequence numbers from `base`; `next_k` is every node's next
    /// undelivered grid index, set here for the members computed at once.
    pub(crate) fn new(
        grid: &Grid,
        at: u64,
        base: u64,
        members: Vec<u64>,
        next_k: &mut [u64],
    ) -> Cohort {
        let live = members.iter().map(|w| w.count_ones() as usize).sum();
        // First base that can hold a beat at or after `at`: `at - reach`.
        let (start, q) = if at <= grid.reach {
            (0, 0)
        } else {
            let x = at - grid.reach;
            let (q, rem) = (x / grid.interval, x % grid.interval);
            (grid.phase_by_rank.partition_point(|&p| p < rem), q)
        };
        let mut c = Cohort {
            at,
            base,
            start,
            q,
            cursor: 0,
            members,
            live,
            due: BinaryHeap::new(),
            next: None,
        };
        // Members whose base is at or before `at`: their beat may be late in
        // the jitter, or at the next grid index; compute them now.
        let window = c.first_base_after(grid, 0, at);
        // Sized once: grown push by push, a large cluster's window copied
        // itself a dozen times per wake-up (a tenth of a 100,000-node day).
        let mut due = Vec::with_capacity(window.min(live));
        for (x, y, k_base) in c.rank_spans(grid, 0, window) {
            for_each_rank(&c.members, x, y, |rank| {
                let node = grid.node_at(rank);
                // The first index whose beat can be at or after `at` is this
                // position's; the beat is there or at the next one (or later
                // if the node beat since).
                let (k, t) = grid.first_beat_from(node, next_k[node as usize].max(k_base), at);
                next_k[node as usize] = k;
                due.push(Reverse((t, base + node as u64, node)));
            });
        }
        c.set_cursor(window);
        c.due = BinaryHeap::from(due);
        c
    }

    /// Rank at sweep position `p`.
    #[inline]
    fn rank_at(&self, grid: &Grid, p: usize) -> usize {
        let r = self.start + p;
        if r >= grid.len() {
            r - grid.len()
        } else {
            r
        }
    }

    /// The ranks of sweep positions `a..b` (`a <= b`) as two ranges
    /// `(from, to, k)`, either possibly empty, with the grid index `k` of
    /// their bases: positions wrap from the last rank to rank 0.
    fn rank_spans(&self, grid: &Grid, a: usize, b: usize) -> [(usize, usize, u64); 2] {
        let split = grid.len() - self.start;
        [
            (self.start + a.min(split), self.start + b.min(split), self.q),
            (a.max(split) - split, b.max(split) - split, self.q + 1),
        ]
    }

    /// Grid index of the first base at sweep position `p`.
    #[inline]
    fn k_at(&self, grid: &Grid, p: usize) -> u64 {
        if self.start + p >= grid.len() {
            self.q + 1
        } else {
            self.q
        }
    }

    /// Base (grid time without jitter) at sweep position `p`: never
    /// decreasing in `p`.
    #[inline]
    fn base_at(&self, grid: &Grid, p: usize) -> u64 {
        grid.phase_by_rank[self.rank_at(grid, p)] + self.k_at(grid, p) * grid.interval
    }

    /// First sweep position at or after `from` whose base is after `t`
    /// (bases never decrease along the sweep).
    fn first_base_after(&self, grid: &Grid, from: usize, t: u64) -> usize {
        let (mut lo, mut hi) = (from, grid.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.base_at(grid, mid) <= t {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// First sweep position at or after `p` holding a member.
    fn next_member_from(&self, grid: &Grid, p: usize) -> Option<usize> {
        let n = grid.len();
        let mut p = p;
        while p < n {
            let r = self.rank_at(grid, p);
            // Scan the word holding rank r from r on, up to the end of the
            // ranks (positions wrap at rank n).
            let w = self.members[r / 64] >> (r % 64);
            if w != 0 {
                let step = w.trailing_zeros() as usize;
                let limit = if r < self.start {
                    self.start - r
                } else {
                    n - r
                };
                if step < limit {
                    return Some(p + step);
                }
                p += limit;
                continue;
            }
            let to_word_end = 64 - r % 64;
            let limit = if r < self.start {
                self.start - r
            } else {
                n - r
            };
            p += to_word_end.min(limit);
        }
        None
    }

    /// Members still to come.
    pub(crate) fn live(&self) -> usize {
        self.live
    }

    /// Is node `n` a member with a queued heartbeat?
    #[inline]
    pub(crate) fn contains(&self, grid: &Grid, n: u32) -> bool {
        bit(&self.members, grid.rank(n))
    }

    /// The members, by rank.
    pub(crate) fn members(&self) -> &[u64] {
        &self.members
    }

    /// Sweep position of the next member not yet computed.
    fn next_pos(&mut self, grid: &Grid) -> Option<usize> {
        let p = match self.next {
            Some(p) => p,
            None => {
                let p = self
                    .next_member_from(grid, self.cursor)
                    .unwrap_or(usize::MAX);
                self.next = Some(p);
                p
            }
        };
        (p != usize::MAX).then_some(p)
    }

    /// Base of the next member not yet computed: none of them beats
    /// before it.
    pub(crate) fn next_base(&mut self, grid: &Grid) -> Option<u64> {
        self.next_pos(grid).map(|p| self.base_at(grid, p))
    }

    /// Earliest time any member may beat: a computed beat or the next base.
    pub(crate) fn horizon(&mut self, grid: &Grid) -> u64 {
        let due = self.peek(grid).map_or(u64::MAX, |x| x.0);
        due.min(self.next_base(grid).unwrap_or(u64::MAX))
    }

    /// Move the sweep to position `p`.
    fn set_cursor(&mut self, p: usize) {
        self.cursor = p;
        self.next = None;
    }

    /// Compute the next member not yet computed: its heartbeat
    /// `(time, sequence, node)`, which leaves the cohort (the caller queues
    /// it with the other heartbeats).
    pub(crate) fn sweep_one(&mut self, grid: &Grid, next_k: &mut [u64]) -> Option<(u64, u64, u32)> {
        let p = self.next_pos(grid)?;
        let r = self.rank_at(grid, p);
        let node = grid.node_at(r);
        // Past the window its beat is at this base's grid index: earlier
        // indices end before `at`, and none at or after it was delivered.
        let k = self.k_at(grid, p);
        debug_assert!(next_k[node as usize] <= k);
        let t = grid.beat_time(node, k);
        next_k[node as usize] = k;
        set_bit(&mut self.members, r, false);
        self.live -= 1;
        self.set_cursor(p + 1);
        Some((t, self.base + node as u64, node))
    }

    /// Drop computed entries of nodes that left.
    fn skip_gone(&mut self, grid: &Grid) {
        while let Some(Reverse((_, _, n))) = self.due.peek() {
            if bit(&self.members, grid.rank(*n)) {
                break;
            }
            self.due.pop();
        }
    }

    /// `(time, sequence)` of the earliest computed heartbeat.
    pub(crate) fn peek(&mut self, grid: &Grid) -> Option<(u64, u64)> {
        self.skip_gone(grid);
        self.due.peek().map(|Reverse((t, s, _))| (*t, *s))
    }

    /// Take the earliest computed heartbeat: `(time, sequence, node)`.
    pub(crate) fn pop(&mut self, grid: &Grid) -> Option<(u64, u64, u32)> {
        self.skip_gone(grid);
        let Reverse(e) = self.due.pop()?;
        self.leave(grid, e.2);
        Some(e)
    }

    /// Node `n` leaves the cohort (its entry, if computed, is skipped).
    pub(crate) fn leave(&mut self, grid: &Grid, n: u32) {
        let r = grid.rank(n);
        if bit(&self.members, r) {
            set_bit(&mut self.members, r, false);
            self.live -= 1;
            if self
                .next
                .is_some_and(|p| p != usize::MAX && self.rank_at(grid, p) == r)
            {
                self.next = None;
            }
        }
    }

    /// Member `n`'s queued heartbeat: `(k, time, sequence)`.
    pub(crate) fn beat_of(&self, grid: &Grid, n: u32, next_k: &[u64]) -> (u64, u64, u64) {
        let r = grid.rank(n);
        let p = if r >= self.start {
            r - self.start
        } else {
            r + grid.len() - self.start
        };
        let k = if p < self.cursor {
            next_k[n as usize]
        } else {
            self.k_at(grid, p)
        };
        (k, grid.beat_time(n, k), self.base + n as u64)
    }

    /// The cohort's heartbeats were set aside and come back at `cut`
    /// (`(time, sequence)` of the current event): those at or before it
    /// count as delivered (their nodes sleep; `next_k` moves past them),
    /// the others are queued again as they were.
    pub(crate) fn resume(&mut self, grid: &Grid, cut: (u64, u64), next_k: &mut [u64]) {
        let now = cut.0;
        // Every beat is before `at + interval + reach`: all are past.
        if now >= self.at + grid.interval + grid.reach {
            self.members.iter_mut().for_each(|w| *w = 0);
            self.live = 0;
            self.due.clear();
            self.next = Some(usize::MAX);
            return;
        }
        // Members whose beat ends before `now` (base + reach < now) are past:
        // dropped without computing them (their `next_k` is left behind; a
        // later wake-up at `now` or after finds the same first beat).
        let lo = match now.checked_sub(grid.reach + 1) {
            Some(t) => self.first_base_after(grid, self.cursor, t),
            None => self.cursor,
        };
        for (x, y, _) in self.rank_spans(grid, self.cursor, lo) {
            self.live -= clear_ranks(&mut self.members, x, y);
        }
        // The members with a base up to `now` are computed, a word of ranks
        // at a time. Most of a jitter's width of them beat at or before the
        // cut: they count as delivered at once, without a round through
        // `due`; the others join the computed ones.
        let hi = self.first_base_after(grid, lo, now);
        let mut fresh = Vec::with_capacity((hi - lo).min(self.live));
        let base = self.base;
        for (x, y, k) in self.rank_spans(grid, lo, hi) {
            self.live -= retain_ranks(&mut self.members, x, y, |rank| {
                let node = grid.node_at(rank);
                // Past `lo` its beat is at this base's grid index, as in
                // `sweep_one`.
                debug_assert!(next_k[node as usize] <= k);
                let (t, seq) = (grid.beat_time(node, k), base + node as u64);
                if (t, seq) <= cut {
                    next_k[node as usize] = k + 1;
                    false
                } else {
                    next_k[node as usize] = k;
                    fresh.push(Reverse((t, seq, node)));
                    true
                }
            });
        }
        self.set_cursor(hi);
        self.drop_passed(grid, cut, next_k);
        // Keys are unique: the heap pops the same order however it is built
        // (`extend` rebuilds at once or sifts each, whichever is cheaper).
        self.due.extend(fresh);
    }

    /// Computed beats at or before the cut are past. They are the earliest:
    /// taken one by one while few (an idle spell of a busy cluster), in one
    /// pass over them all when many.
    fn drop_passed(&mut self, grid: &Grid, cut: (u64, u64), next_k: &mut [u64]) {
        let budget = self.due.len() / 8;
        for _ in 0..=budget {
            self.skip_gone(grid);
            match self.due.peek() {
                Some(Reverse((t, s, node))) if (*t, *s) <= cut => {
                    let node = *node;
                    self.due.pop();
                    next_k[node as usize] += 1;
                    self.leave(grid, node);
                }
                _ => return,
            }
        }
        let mut due = std::mem::take(&mut self.due).into_vec();
        let (members, live) = (&mut self.members, &mut self.live);
        due.retain(|Reverse((t, s, node))| {
            let r = grid.rank(*node);
            if !bit(members, r) {
                return false;
            }
            if (*t, *s) <= cut {
                next_k[*node as usize] += 1;
                set_bit(members, r, false);
                *live -= 1;
                return false;
            }
            true
        });
        self.due = BinaryHeap::from(due);
    }
}

/// Bits `lo..hi` of a word set (`lo <= hi <= 64`).
#[inline]
fn span_mask(lo: usize, hi: usize) -> u64 {
    let upto = if hi >= 64 { u64::MAX } else { (1u64 << hi) - 1 };
    upto & !((1u64 << lo) - 1)
}

/// The words holding bits `from..to`, each with the mask of those bits.
#[inline]
fn span_words(from: usize, to: usize) -> impl Iterator<Item = (usize, u64)> {
    (from / 64..to.div_ceil(64)).map(move |w| {
        let lo = from.saturating_sub(w * 64);
        (w, span_mask(lo, (to - w * 64).min(64)))
    })
}

/// Call `f` with every set bit of `bits` in `from..to`, in order.
#[inline]
fn for_each_rank(bits: &[u64], from: usize, to: usize, mut f: impl FnMut(usize)) {
    for (w, mask) in span_words(from, to) {
        ones(bits[w] & mask, w * 64).for_each(&mut f);
    }
}

/// Call `keep` with every set bit of `bits` in `from..to`, in order, and
/// clear those it answers false for; how many were cleared.
#[inline]
fn retain_ranks(
    bits: &mut [u64],
    from: usize,
    to: usize,
    mut keep: impl FnMut(usize) -> bool,
) -> usize {
    let mut cleared = 0;
    for (w, mask) in span_words(from, to) {
        for r in ones(bits[w] & mask, w * 64) {
            if !keep(r) {
                bits[w] &= !(1 << (r % 64));
                cleared += 1;
            }
        }
    }
    cleared
}

/// Clear bits `from..to`; how many were set.
fn clear_ranks(bits: &mut [u64], from: usize, to: usize) -> usize {
    let mut cleared = 0;
    for (w, mask) in span_words(from, to) {
        cleared += (bits[w] & mask).count_ones() as usize;
        bits[w] &= !mask;
    }
    cleared
}

#[cfg(test)]
mod tests {
    use super::*;
    use mrsched_model::rng::hash_words;
    use rand::SeedableRng;

    fn grid(nodes: u32, interval: u64, jitter: u64) -> Grid {
        let phase = (0..nodes as u64)
            .map(|n| (unit_from_hash(hash_words(&[7, 0xBEA7, n])) * interval as f64) as u64)
            .collect();
        Grid::new(7, interval, jitter, phase)
    }

    /// Draining a cohort (computing members as the earliest computed beat
    /// reaches their base) gives every member's first beat at or after the
    /// wake-up, in `(time, sequence)` order: the order of waking them one by
    /// one.
    #[test]
    fn a_cohort_yields_each_members_first_beat_in_order() {
        for (nodes, interval, jitter, at) in [
            (1000, 3_000_000, 500_000, 7_777_777),
            (257, 3_000_000, 0, 3_000_000),
            (130, 1000, 1000, 5),
            (64, 1000, 999, 123_456),
        ] {
            let g = grid(nodes, interval, jitter);
            let mut members = vec![0u64; (nodes as usize).div_ceil(64)];
            let mut expect = Vec::new();
            let mut next_k = vec![0u64; nodes as usize];
            for n in 0..nodes {
                if n % 3 != 1 {
                    set_bit(&mut members, g.rank(n), true);
                    let (_, t) = g.first_beat(n, 0, at);
                    expect.push((t, 1000 + n as u64, n));
                }
            }
            expect.sort();
            let mut c = Cohort::new(&g, at, 1000, members, &mut next_k);
            let mut got = Vec::new();
            loop {
                let top = c.peek(&g).map(|x| x.0).unwrap_or(u64::MAX);
                match c.next_base(&g) {
                    Some(b) if b <= top => {
                        let e = c.sweep_one(&g, &mut next_k).expect("a member");
                        got.push(e);
                    }
                    _ => match c.pop(&g) {
                        Some(e) => got.push(e),
                        None => break,
                    },
                }
            }
            // Swept members leave at once (the engine queues them); each
            // comes no earlier than the cohort's earliest computed beat.
            got.sort();
            assert_eq!(got, expect, "nodes {nodes} jitter {jitter}");
            assert_eq!(c.live(), 0);
            for &(t, _, n) in &expect {
                assert_eq!(g.beat_time(n, next_k[n as usize]), t);
            }
        }
    }

    /// `first_beat` is the first beat at or after `now` with index at least
    /// `next_k`, checked against counting up from `next_k`.
    #[test]
    fn first_beat_is_the_first_at_or_after_now() {
        for (interval, jitter) in [(3_000_000, 500_000), (1000, 1000), (1000, 0), (1000, 1)] {
            let g = grid(50, interval, jitter);
            for n in 0..50u32 {
                for next_k in [0u64, 1, 2, 7, 40] {
                    for now in (0..45 * interval).step_by(interval as usize / 7 + 1) {
                        let mut k = next_k;
                        while g.beat_time(n, k) < now {
                            k += 1;
                        }
                        let want = (k, g.beat_time(n, k));
                        assert_eq!(g.first_beat(n, next_k, now), want, "{n} {next_k} {now}");
                    }
                }
            }
        }
    }

    /// Resuming at a cut drops exactly the beats at or before it, and a
    /// node whose beat was delivered never gets that beat again: a later
    /// wake-up at the cut's time finds a later grid index, even when the
    /// delivered beat fell on the cut's very microsecond.
    #[test]
    fn resume_keeps_the_beats_after_the_cut() {
        let (nodes, interval, jitter, at) = (500u32, 3_000_000, 500_000, 10_000_000);
        let g = grid(nodes, interval, jitter);
        let fresh = |next_k: &mut Vec<u64>| {
            let mut members = vec![u64::MAX; (nodes as usize).div_ceil(64)];
            for r in nodes as usize..members.len() * 64 {
                set_bit(&mut members, r, false);
            }
            *next_k = vec![0u64; nodes as usize];
            Cohort::new(&g, at, 0, members, next_k)
        };
        let mut cuts: Vec<(u64, u64)> = [0, 400_000, 1_500_000, 3_400_000, 9_000_000]
            .iter()
            .map(|d| (at + d, 250))
            .collect();
        // At the exact beat times of nodes below and above the cut's
        // sequence number (250): the first are delivered, the others not;
        // their beats were computed when the cohort was made, or at the
        // resume.
        cuts.extend(
            (0..nodes)
                .step_by(7)
                .map(|n| (g.first_beat(n, 0, at).1, 250)),
        );
        // At exactly the earliest beats computed when the cohort was made:
        // dropped one by one while few are past, in one pass when many.
        let mut made = fresh(&mut Vec::new()).due.into_sorted_vec();
        made.reverse();
        assert!(made.len() > 40, "{} computed", made.len());
        cuts.extend([0, 1, 2, 3, 40].map(|i| (made[i].0 .0, made[i].0 .1)));
        for cut in cuts {
            let mut next_k = Vec::new();
            let mut c = fresh(&mut next_k);
            c.resume(&g, cut, &mut next_k);
            let mut left: Vec<u32> = (0..nodes).filter(|&n| c.contains(&g, n)).collect();
            let mut want: Vec<u32> = (0..nodes)
                .filter(|&n| {
                    let (_, t) = g.first_beat(n, 0, at);
                    (t, n as u64) > cut
                })
                .collect();
            left.sort();
            want.sort();
            assert_eq!(left, want, "cut {cut:?}");
            assert_eq!(c.live(), want.len());
            for n in 0..nodes {
                let first = g.first_beat(n, 0, at);
                if c.contains(&g, n) {
                    // Still queued as it was.
                    assert_eq!(c.beat_of(&g, n, &next_k), (first.0, first.1, n as u64));
                } else {
                    let again = g.first_beat(n, next_k[n as usize], cut.0);
                    assert!(
                        again.0 > first.0,
                        "node {n} cut {cut:?}: beat {first:?} again"
                    );
                }
            }
        }
    }

    /// A few random words and a random span of their bits.
    fn random_span(rng: &mut rand_chacha::ChaCha8Rng) -> (Vec<u64>, usize, usize) {
        use rand::Rng;
        let words = rng.random_range(1..5usize);
        let bits = (0..words).map(|_| rng.random()).collect();
        let from = rng.random_range(0..=words * 64);
        (bits, from, rng.random_range(from..=words * 64))
    }

    /// Clearing a span of ranks clears exactly its set bits and counts
    /// them, across word boundaries.
    #[test]
    fn clearing_a_span_of_ranks_clears_and_counts_exactly_its_bits() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for _ in 0..500 {
            let (bits, from, to) = random_span(&mut rng);
            let mut got = bits.clone();
            let cleared = clear_ranks(&mut got, from, to);
            let mut want = bits;
            let mut count = 0;
            for r in from..to {
                if bit(&want, r) {
                    count += 1;
                    set_bit(&mut want, r, false);
                }
            }
            assert_eq!((&got, cleared), (&want, count), "{from}..{to}");
        }
    }

    /// Visiting and retaining the set bits of a span see exactly its set
    /// bits, in order, and clear exactly those refused.
    #[test]
    fn visiting_a_span_of_ranks_sees_and_keeps_exactly_its_bits() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        for _ in 0..500 {
            let (bits, from, to) = random_span(&mut rng);
            let set: Vec<usize> = (from..to).filter(|&r| bit(&bits, r)).collect();
            let mut seen = Vec::new();
            for_each_rank(&bits, from, to, |r| seen.push(r));
            assert_eq!(seen, set);
            let mut kept = bits.clone();
            let mut visited = Vec::new();
            let cleared = retain_ranks(&mut kept, from, to, |r| {
                visited.push(r);
                r % 3 != 0
            });
            assert_eq!(visited, set);
            let mut want = bits;
            for &r in set.iter().filter(|&&r| r % 3 == 0) {
                set_bit(&mut want, r, false);
            }
            assert_eq!(kept, want);
            assert_eq!(cleared, set.iter().filter(|&&r| r % 3 == 0).count());
        }
    }

    /// The rank spans of positions `a..b` hold the ranks and grid indices
    /// that `rank_at` and `k_at` give position by position, in order.
    #[test]
    fn rank_spans_follow_the_sweep() {
        let (nodes, interval, jitter) = (300u32, 3_000_000, 500_000);
        let g = grid(nodes, interval, jitter);
        for at in [0, 1_000_000, 7_777_777, 9_000_000] {
            let members = vec![0u64; (nodes as usize).div_ceil(64)];
            let mut next_k = vec![0u64; nodes as usize];
            let c = Cohort::new(&g, at, 0, members, &mut next_k);
            for (a, b) in [(0, 300), (0, 0), (17, 17), (5, 250), (250, 300), (0, 1)] {
                let got: Vec<(usize, u64)> = c
                    .rank_spans(&g, a, b)
                    .iter()
                    .flat_map(|&(x, y, k)| (x..y).map(move |r| (r, k)))
                    .collect();
                let want: Vec<(usize, u64)> =
                    (a..b).map(|p| (c.rank_at(&g, p), c.k_at(&g, p))).collect();
                assert_eq!(got, want, "at {at}, positions {a}..{b}");
            }
        }
    }
}
