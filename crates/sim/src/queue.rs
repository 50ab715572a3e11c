//! The event queue: a 4-ary min-heap keyed by `(time, sequence)`.
//!
//! The heap holds one event per running attempt and per awake node, and
//! every task costs a push and a pop, so its constant factor matters:
//! * keys are 16 bytes (`time << 64 | seq`) in one array, and each event
//!   (a few words, `Copy`) sits at the same index of a second array and
//!   moves with its key. Sifting compares keys only; the earliest event is
//!   at index 0 of both, in cache, when the engine peeks at it to fetch
//!   ahead what it will read (a slab of payloads addressed from the key
//!   cost a cache miss on every peek);
//! * a 4-ary heap halves the depth of a binary heap, and a node's four
//!   children are compared without branches (the minimum of random keys is
//!   unpredictable, and mispredictions were most of a pop's cost);
//! * a pop carries the hole left by the root down to a leaf along the
//!   smallest children, then lets the last key rise from there (Floyd): the
//!   last key is among the largest, so it rarely rises far, and no level
//!   compares against it on the way down.
//!
//! The sequence number makes keys unique, so the order of equal-time events
//! is their insertion order and a run is deterministic.

/// `(time, sequence)` of a key.
#[inline(always)]
fn order_of(key: u128) -> (u64, u64) {
    ((key >> 64) as u64, key as u64)
}

/// The key of `(t, seq)`.
#[inline(always)]
fn key_of(t: u64, seq: u64) -> u128 {
    ((t as u128) << 64) | seq as u128
}

/// Min-heap of `(time_us, seq)` keys with payloads.
pub struct EventQueue<T> {
    keys: Vec<u128>,
    /// `vals[i]` is the event of `keys[i]`.
    vals: Vec<T>,
    seq: u64,
}

impl<T> Default for EventQueue<T> {
    fn default() -> Self {
        EventQueue {
            keys: Vec::new(),
            vals: Vec::new(),
            seq: 0,
        }
    }
}

/// Index (0-3) and value of the smallest of four keys, without branches.
#[inline(always)]
fn min4(k: &[u128]) -> (usize, u128) {
    let (a, b, c, d) = (k[0], k[1], k[2], k[3]);
    let lo = (b < a) as usize;
    let m01 = if b < a { b } else { a };
    let hi = 2 + (d < c) as usize;
    let m23 = if d < c { d } else { c };
    let right = m23 < m01;
    (if right { hi } else { lo }, if right { m23 } else { m01 })
}

impl<T: Copy> EventQueue<T> {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of queued events.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Queue `v` at time `t` (microseconds); after every event already
    /// queued for `t`.
    pub fn push(&mut self, t: u64, v: T) {
        self.seq += 1;
        self.push_seq(t, self.seq, v);
    }

    /// Queue `v` at time `t` with sequence number `seq`, which orders it
    /// among events of the same time. The caller keeps sequence numbers
    /// unique (two queues sharing one counter merge into one order).
    pub fn push_seq(&mut self, t: u64, seq: u64, v: T) {
        let key = key_of(t, seq);
        // Sift up with a hole: parents move down, the new entry is written
        // once.
        let mut i = self.keys.len();
        self.keys.push(key);
        self.vals.push(v);
        while i > 0 {
            let p = (i - 1) / 4;
            let pk = self.keys[p];
            if pk <= key {
                break;
            }
            self.keys[i] = pk;
            self.vals[i] = self.vals[p];
            i = p;
        }
        self.keys[i] = key;
        self.vals[i] = v;
    }

    /// The earliest event's payload.
    #[inline]
    pub fn peek_value(&self) -> Option<&T> {
        self.vals.first()
    }

    /// The `(time, sequence)` of the earliest event.
    pub fn peek_order(&self) -> Option<(u64, u64)> {
        self.keys.first().map(|&k| order_of(k))
    }

    /// Move every event to `out`, in no particular order, as
    /// `(time, sequence, v)`.
    pub fn drain_into(&mut self, out: &mut Vec<(u64, u64, T)>) {
        for (k, v) in self.keys.drain(..).zip(self.vals.drain(..)) {
            let (t, seq) = order_of(k);
            out.push((t, seq, v));
        }
    }

    /// Remove every event at or before `cut` (a `(time, sequence)`),
    /// handing each to `f` as `(time, sequence, v)`, in no particular order.
    /// A few are popped one by one; once they are more than a sixteenth of
    /// the queue, the rest go in one pass over the keys and the heap is
    /// rebuilt (Floyd), cheaper than a pop each. Keys are unique, so later
    /// pops come out in the same order either way.
    pub fn pop_through(&mut self, cut: (u64, u64), mut f: impl FnMut(u64, u64, T)) {
        for _ in 0..self.keys.len() / 16 + 1 {
            match self.peek_order() {
                Some(o) if o <= cut => {
                    let (t, seq, v) = self.pop_with_seq().expect("peeked");
                    f(t, seq, v);
                }
                _ => return,
            }
        }
        let cut = key_of(cut.0, cut.1);
        let mut kept = 0;
        for i in 0..self.keys.len() {
            let (k, v) = (self.keys[i], self.vals[i]);
            if k <= cut {
                let (t, seq) = order_of(k);
                f(t, seq, v);
            } else {
                self.keys[kept] = k;
                self.vals[kept] = v;
                kept += 1;
            }
        }
        self.keys.truncate(kept);
        self.vals.truncate(kept);
        for i in (0..kept.div_ceil(4)).rev() {
            self.sift_down(i);
        }
    }

    /// Move the entry at `i` down to its place below.
    fn sift_down(&mut self, mut i: usize) {
        let (keys, vals) = (&mut self.keys[..], &mut self.vals[..]);
        let n = keys.len();
        let (key, val) = (keys[i], vals[i]);
        loop {
            let c = 4 * i + 1;
            if c >= n {
                break;
            }
            let end = (c + 4).min(n);
            let mut m = c;
            for j in c + 1..end {
                if keys[j] < keys[m] {
                    m = j;
                }
            }
            if keys[m] >= key {
                break;
            }
            keys[i] = keys[m];
            vals[i] = vals[m];
            i = m;
        }
        keys[i] = key;
        vals[i] = val;
    }

    /// The earliest event and its time.
    pub fn pop(&mut self) -> Option<(u64, T)> {
        self.pop_with_seq().map(|(t, _, v)| (t, v))
    }

    /// The earliest event, its time and its sequence number.
    pub fn pop_with_seq(&mut self) -> Option<(u64, u64, T)> {
        let (top, top_val) = (*self.keys.first()?, self.vals[0]);
        let last = self.keys.pop().expect("not empty");
        let last_val = self.vals.pop().expect("not empty");
        let n = self.keys.len();
        if n > 0 {
            // Carry the root's hole down to a leaf along the smallest children.
            let (keys, vals) = (&mut self.keys[..], &mut self.vals[..]);
            let mut i = 0;
            loop {
                let c = 4 * i + 1;
                let m = if c + 4 <= n {
                    let (j, mk) = min4(&keys[c..c + 4]);
                    keys[i] = mk;
                    c + j
                } else if c < n {
                    let mut m = c;
                    for j in c + 1..n {
                        if keys[j] < keys[m] {
                            m = j;
                        }
                    }
                    keys[i] = keys[m];
                    m
                } else {
                    break;
                };
                vals[i] = vals[m];
                i = m;
            }
            // Put the last entry in the hole and let it rise to its place.
            while i > 0 {
                let p = (i - 1) / 4;
                if keys[p] <= last {
                    break;
                }
                keys[i] = keys[p];
                vals[i] = vals[p];
                i = p;
            }
            keys[i] = last;
            vals[i] = last_val;
        }
        let (t, seq) = order_of(top);
        Some((t, seq, top_val))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn pops_in_time_then_insertion_order() {
        let mut q = EventQueue::new();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let mut expect = Vec::new();
        for i in 0..2000u32 {
            let t = rng.random_range(0..100u64);
            q.push(t, i);
            expect.push((t, i));
        }
        expect.sort_by_key(|&(t, i)| (t, i));
        let mut got = Vec::new();
        while let Some(x) = q.pop() {
            got.push(x);
            // Interleave pushes of later events.
            if got.len() % 7 == 0 && got.len() < 1000 {
                let t = got.last().unwrap().0 + 200;
                let i = 10_000 + got.len() as u32;
                q.push(t, i);
                expect.push((t, i));
                expect.sort_by_key(|&(t, i)| (t, i));
            }
        }
        assert_eq!(got, expect);
    }

    #[test]
    fn peek_value_is_the_event_pop_returns_next() {
        let mut q = EventQueue::new();
        assert_eq!(q.peek_value(), None);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        for i in 0..500u32 {
            q.push(rng.random_range(0..50u64), i);
        }
        while let Some(&v) = q.peek_value() {
            assert_eq!(q.pop().map(|(_, x)| x), Some(v));
        }
        assert!(q.is_empty());
    }

    #[test]
    fn shared_sequence_numbers_merge_two_queues_into_one_order() {
        let (mut a, mut b) = (EventQueue::new(), EventQueue::new());
        // Same times; the shared counter decides, whichever queue holds it.
        a.push_seq(5, 1, "a1");
        b.push_seq(5, 2, "b2");
        a.push_seq(5, 3, "a3");
        b.push_seq(4, 4, "b4");
        let mut got = Vec::new();
        loop {
            let from_a = match (a.peek_order(), b.peek_order()) {
                (Some(x), Some(y)) => x < y,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            let q = if from_a { &mut a } else { &mut b };
            got.push(q.pop_with_seq().unwrap());
        }
        assert_eq!(
            got,
            vec![(4, 4, "b4"), (5, 1, "a1"), (5, 2, "b2"), (5, 3, "a3")]
        );
        b.push_seq(9, 7, "x");
        b.push_seq(8, 6, "y");
        let mut out = Vec::new();
        b.drain_into(&mut out);
        out.sort();
        assert_eq!(out, vec![(8, 6, "y"), (9, 7, "x")]);
        assert!(b.is_empty() && b.pop().is_none());
        b.push_seq(1, 8, "z");
        assert_eq!(b.pop_with_seq(), Some((1, 8, "z")));
    }

    /// What `pop_through(cut)` hands out, sorted.
    fn taken_through<T: Ord + Copy>(q: &mut EventQueue<T>, cut: (u64, u64)) -> Vec<(u64, u64, T)> {
        let mut taken = Vec::new();
        q.pop_through(cut, |t, s, v| taken.push((t, s, v)));
        taken.sort();
        taken
    }

    /// Removing every event up to a cut, one by one or in one pass, leaves
    /// a queue that pops the rest in the same order as a sorted reference.
    #[test]
    fn pop_through_takes_exactly_the_events_up_to_the_cut() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for round in 0..200u64 {
            let mut q = EventQueue::new();
            let mut reference = std::collections::BTreeSet::new();
            let n = rng.random_range(0..400u64);
            for i in 0..n {
                let t = rng.random_range(0..50u64);
                q.push_seq(t, round * 1000 + i + 1, i);
                reference.insert((t, round * 1000 + i + 1, i));
            }
            let cut = (
                rng.random_range(0..60u64),
                rng.random_range(0..(round + 1) * 1000),
            );
            let want: Vec<_> = reference
                .iter()
                .copied()
                .filter(|&(t, s, _)| (t, s) <= cut)
                .collect();
            assert_eq!(taken_through(&mut q, cut), want);
            let mut rest = Vec::new();
            while let Some(x) = q.pop_with_seq() {
                rest.push(x);
            }
            let want: Vec<_> = reference
                .iter()
                .copied()
                .filter(|&(t, s, _)| (t, s) > cut)
                .collect();
            assert_eq!(rest, want);
        }
    }

    /// A simulation-like mix: after each pop, events at the same instant
    /// and at random later times (spread over many powers of two), checked
    /// against a sorted reference.
    #[test]
    fn matches_a_sorted_reference_under_interleaving() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let mut q = EventQueue::new();
        let mut reference = std::collections::BTreeSet::new();
        let mut next = 0u32;
        let mut push = |q: &mut EventQueue<u32>, r: &mut std::collections::BTreeSet<_>, t| {
            q.push(t, next);
            r.insert((t, next));
            next += 1;
        };
        for _ in 0..50 {
            let t = rng.random_range(0..1u64 << 30);
            push(&mut q, &mut reference, t);
        }
        let mut pops = 0;
        while let Some((t, v)) = q.pop() {
            let want = reference.pop_first().expect("same length");
            assert_eq!((t, v), want);
            assert_eq!(q.len(), reference.len());
            pops += 1;
            if pops < 20_000 {
                for _ in 0..rng.random_range(0..3) {
                    let dt = match rng.random_range(0..4) {
                        0 => 0,
                        1 => rng.random_range(0..16),
                        2 => rng.random_range(0..1u64 << 20),
                        _ => rng.random_range(0..1u64 << 40),
                    };
                    push(&mut q, &mut reference, t + dt);
                }
            }
        }
        assert!(reference.is_empty() && q.is_empty());
        assert!(pops > 20_000);
    }

    /// Every operation after every other, against a sorted reference:
    /// pushes, pops, cuts and drains in random order, with the length and
    /// both peeks checked after each.
    #[test]
    fn any_sequence_of_operations_matches_a_sorted_reference() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(23);
        for _ in 0..100 {
            let mut q = EventQueue::new();
            let mut reference = std::collections::BTreeSet::new();
            let mut seq = 0u64;
            let mut now = (0u64, 0u64);
            for _ in 0..600 {
                match rng.random_range(0..10) {
                    0..=3 => {
                        seq += 1;
                        let t = now.0 + rng.random_range(0..40u64);
                        q.push_seq(t, seq, seq);
                        reference.insert((t, seq, seq));
                    }
                    4..=6 => {
                        let got = q.pop_with_seq();
                        assert_eq!(got, reference.pop_first());
                        if let Some((t, s, _)) = got {
                            now = (t, s);
                        }
                    }
                    7 => {
                        let cut = (now.0 + rng.random_range(0..10u64), seq);
                        let want: Vec<_> = reference
                            .iter()
                            .copied()
                            .take_while(|&(t, s, _)| (t, s) <= cut)
                            .collect();
                        reference.retain(|&(t, s, _)| (t, s) > cut);
                        assert_eq!(taken_through(&mut q, cut), want);
                    }
                    8 if rng.random_range(0..8) == 0 => {
                        let mut out = Vec::new();
                        q.drain_into(&mut out);
                        out.sort();
                        let want: Vec<_> = std::mem::take(&mut reference).into_iter().collect();
                        assert_eq!(out, want);
                    }
                    _ => {}
                }
                let first = reference.first().copied();
                assert_eq!(q.len(), reference.len());
                assert_eq!(q.is_empty(), reference.is_empty());
                assert_eq!(q.peek_order(), first.map(|(t, s, _)| (t, s)));
                assert_eq!(q.peek_value().copied(), first.map(|(_, _, v)| v));
            }
        }
    }
}
