//! A pool's children that could take a task now, in scheduling order.
//!
//! Why a sorted vector and not an ordered tree set: every launch and every
//! task end moves one job's key (its running / fair-share ratio) a little,
//! usually past few or no neighbours. In a sorted vector that move is a
//! binary search and a shift over the keys it passes, with no allocation;
//! in a `BTreeSet` it is a removal and an insertion that rebalance nodes and
//! allocate. Walking the order is a slice scan. When every key may move at
//! once (a fair-share recomputation), the owner rebuilds the vector and
//! sorts it instead of moving keys one at a time ([`Ready::rebuild`]).
//! Each move returns where the key landed; the owner hands it back with the
//! next move as a hint, which spares the search for the key while no
//! sibling moved past it.

use super::tree::Key;

/// Keys in ascending order, each at most once.
#[derive(Clone, Debug, Default)]
pub struct Ready(Vec<Key>);

impl Ready {
    /// True when no child could take a task.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The keys in order.
    pub fn iter(&self) -> std::slice::Iter<'_, Key> {
        self.0.iter()
    }

    /// Replace key `old` by `new`; either may be absent (a child leaving or
    /// joining the order). `old`, when given, must be present; `hint` is
    /// where it may be (any value is safe: a wrong one costs a search).
    /// Returns where `new` now is (0 when absent): the next call's hint.
    #[inline]
    pub fn replace(&mut self, old: Option<Key>, new: Option<Key>, hint: u32) -> u32 {
        let v = &mut self.0;
        let find = |v: &[Key], o: &Key| match v.get(hint as usize) {
            Some(k) if k == o => hint as usize,
            _ => v.binary_search(o).expect("a child's key is in its order"),
        };
        match (old, new) {
            (Some(o), Some(n)) => {
                let p = find(v, &o);
                // Most moves pass no neighbour (a launch or an end changes
                // one ratio a little): the key changes in place.
                let stays = if n < o {
                    p == 0 || v[p - 1] < n
                } else {
                    p + 1 == v.len() || n < v[p + 1]
                };
                let at = if stays {
                    p
                } else if n < o {
                    // Keys in q..p are >= n and < o: shift them right by one.
                    let q = v[..p].partition_point(|k| *k < n);
                    v[q..=p].rotate_right(1);
                    q
                } else {
                    // Keys in p+1..q are < n: shift them left by one.
                    let q = p + 1 + v[p + 1..].partition_point(|k| *k < n);
                    v[p..q].rotate_left(1);
                    q - 1
                };
                v[at] = n;
                at as u32
            }
            (Some(o), None) => {
                let p = find(v, &o);
                v.remove(p);
                0
            }
            (None, Some(n)) => {
                let q = v.partition_point(|k| *k < n);
                v.insert(q, n);
                q as u32
            }
            (None, None) => 0,
        }
    }

    /// Replace every key by `keys` (any order; distinct).
    pub fn rebuild(&mut self, keys: impl Iterator<Item = Key>) {
        self.0.clear();
        self.0.extend(keys);
        self.0.sort_unstable();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    proptest! {
        /// Any sequence of moves, arrivals and departures leaves the same
        /// order as an ordered set given the same changes.
        #[test]
        fn moves_keep_the_order_of_an_ordered_set(
            ops in prop::collection::vec((0u32..40, prop::option::of(0u64..30), prop::option::of(0u32..45)), 1..300)
        ) {
            let mut ready = Ready::default();
            let mut set = BTreeSet::new();
            let mut key_of: Vec<Option<Key>> = vec![None; 40];
            let mut pos: Vec<u32> = vec![0; 40];
            for (child, ratio, wrong) in ops {
                let new = ratio.map(|r| (r % 2, r, 0, child));
                let old = key_of[child as usize];
                // The position the last move returned (stale once others
                // moved past), or any value: the order must not care.
                let hint = wrong.unwrap_or(pos[child as usize]);
                pos[child as usize] = ready.replace(old, new, hint);
                if let Some(n) = new {
                    prop_assert_eq!(ready.iter().nth(pos[child as usize] as usize), Some(&n));
                }
                if let Some(o) = old {
                    set.remove(&o);
                }
                if let Some(n) = new {
                    set.insert(n);
                }
                key_of[child as usize] = new;
                prop_assert_eq!(ready.iter().copied().collect::<Vec<_>>(), set.iter().copied().collect::<Vec<_>>());
            }
            let mut rebuilt = Ready::default();
            rebuilt.rebuild(key_of.iter().rev().flatten().copied());
            prop_assert_eq!(rebuilt.iter().collect::<Vec<_>>(), ready.iter().collect::<Vec<_>>());
        }
    }
}
