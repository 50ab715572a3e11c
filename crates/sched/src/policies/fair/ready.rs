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
    /// joining the order). `old`, when given, must be present.
    pub fn replace(&mut self, old: Option<Key>, new: Option<Key>) {
        let v = &mut self.0;
        match (old, new) {
            (Some(o), Some(n)) => {
                let p = v.binary_search(&o).expect("a child's key is in its order");
                // Most moves pass no neighbour (a launch or an end changes
                // one ratio a little): the key changes in place.
                let stays = if n < o {
                    p == 0 || v[p - 1] < n
                } else {
                    p + 1 == v.len() || n < v[p + 1]
                };
                if stays {
                    v[p] = n;
                } else if n < o {
                    // Keys in q..p are >= n and < o: shift them right by one.
                    let q = v[..p].partition_point(|k| *k < n);
                    v[q..=p].rotate_right(1);
                    v[q] = n;
                } else {
                    // Keys in p+1..q are < n: shift them left by one.
                    let q = p + 1 + v[p + 1..].partition_point(|k| *k < n);
                    v[p..q].rotate_left(1);
                    v[q - 1] = n;
                }
            }
            (Some(o), None) => {
                let p = v.binary_search(&o).expect("a child's key is in its order");
                v.remove(p);
            }
            (None, Some(n)) => {
                let q = v.partition_point(|k| *k < n);
                v.insert(q, n);
            }
            (None, None) => {}
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
            ops in prop::collection::vec((0u32..40, prop::option::of(0u64..30)), 1..300)
        ) {
            let mut ready = Ready::default();
            let mut set = BTreeSet::new();
            let mut key_of: Vec<Option<Key>> = vec![None; 40];
            for (child, ratio) in ops {
                let new = ratio.map(|r| (r % 2, r, 0, child));
                let old = key_of[child as usize];
                ready.replace(old, new);
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
