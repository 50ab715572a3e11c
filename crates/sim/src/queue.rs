//! The event queue: a 4-ary min-heap keyed by `(time, sequence)`.
//!
//! The heap holds one event per running attempt and per awake node, and
//! every task costs a push and a pop, so its constant factor matters. A
//! 4-ary heap halves the depth of a binary heap and keeps siblings in one
//! cache line; keys are a single `u128` comparison. The sequence number makes
//! keys unique, so the order of equal-time events is their insertion order
//! and a run is deterministic.

/// Min-heap of `(time_us, seq)` keys with payloads.
pub struct EventQueue<T> {
    keys: Vec<u128>,
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

impl<T> EventQueue<T> {
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
        let key = ((t as u128) << 64) | self.seq as u128;
        // Sift up with a hole: parents move down, the new entry is written once.
        let mut i = self.keys.len();
        self.keys.push(key);
        self.vals.push(v);
        while i > 0 {
            let p = (i - 1) / 4;
            if self.keys[p] <= key {
                break;
            }
            self.keys.swap(i, p);
            self.vals.swap(i, p);
            i = p;
        }
    }

    /// The earliest event and its time.
    pub fn pop(&mut self) -> Option<(u64, T)> {
        let last_key = self.keys.pop()?;
        let last_val = self.vals.pop().expect("keys and values have one length");
        let n = self.keys.len();
        if n == 0 {
            return Some(((last_key >> 64) as u64, last_val));
        }
        // The root leaves; the last entry falls from the root through a hole
        // along the smallest children.
        let top_key = self.keys[0];
        let top_val = std::mem::replace(&mut self.vals[0], last_val);
        let mut i = 0;
        loop {
            let c = 4 * i + 1;
            if c >= n {
                break;
            }
            let end = (c + 4).min(n);
            let mut m = c;
            let mut mk = self.keys[c];
            for j in c + 1..end {
                let k = self.keys[j];
                if k < mk {
                    m = j;
                    mk = k;
                }
            }
            if mk >= last_key {
                break;
            }
            self.keys[i] = mk;
            self.vals.swap(i, m);
            i = m;
        }
        self.keys[i] = last_key;
        Some(((top_key >> 64) as u64, top_val))
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
}
