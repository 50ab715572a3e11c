//! A dataset's block sizes, stored compactly.
//!
//! A file is cut into blocks of one size and a last, shorter block: that is
//! what every byte-counted generator makes (`size_mb` with `block_mb`, a
//! SWIM trace's input bytes). A SWIM day scaled to a large cluster has
//! millions of such blocks, and a list would spend 8 bytes on each to say
//! the same number again, for the whole day, before the first job arrives.
//! [`BlockSizes`] keeps such a dataset as `(count, block, last)` and any
//! other as the list. Both answer the same questions the same way and both
//! serialise as the list, so no reader or report can tell them apart.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::sync::Arc;

/// Size of each block of a dataset, MB, in block order.
#[derive(Clone, Debug)]
pub struct BlockSizes(Repr);

#[derive(Clone, Debug)]
enum Repr {
    /// `count` blocks: all of `block_mb` but the last, of `last_mb`.
    Uniform {
        count: usize,
        block_mb: f64,
        last_mb: f64,
    },
    /// Any sizes (shared: the maps of a job reading the dataset whole keep
    /// a handle rather than a copy).
    List(Arc<[f64]>),
}

impl Default for BlockSizes {
    fn default() -> Self {
        BlockSizes(Repr::List(Arc::from(Vec::new())))
    }
}

impl BlockSizes {
    /// `count` blocks of `block_mb`, the last of `last_mb` (a single block
    /// is of `last_mb`).
    pub fn uniform(count: usize, block_mb: f64, last_mb: f64) -> BlockSizes {
        if count == 0 {
            return BlockSizes::default();
        }
        BlockSizes(Repr::Uniform {
            count,
            block_mb: if count == 1 { last_mb } else { block_mb },
            last_mb,
        })
    }

    /// These sizes, kept as `(count, block, last)` when every block but the
    /// last has the first one's size (bit for bit), else as the list.
    pub fn from_vec(sizes: Vec<f64>) -> BlockSizes {
        match sizes.as_slice() {
            [first, .., last]
                if sizes[..sizes.len() - 1]
                    .iter()
                    .all(|b| b.to_bits() == first.to_bits()) =>
            {
                BlockSizes::uniform(sizes.len(), *first, *last)
            }
            [only] => BlockSizes::uniform(1, *only, *only),
            _ => BlockSizes(Repr::List(sizes.into())),
        }
    }

    /// Number of blocks.
    #[inline]
    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Uniform { count, .. } => *count,
            Repr::List(v) => v.len(),
        }
    }

    /// True when there is no block.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Size of block `i`, MB, if there is one.
    #[inline]
    pub fn get(&self, i: usize) -> Option<f64> {
        match &self.0 {
            Repr::Uniform {
                count,
                block_mb,
                last_mb,
            } => {
                if i + 1 < *count {
                    Some(*block_mb)
                } else if i + 1 == *count {
                    Some(*last_mb)
                } else {
                    None
                }
            }
            Repr::List(v) => v.get(i).copied(),
        }
    }

    /// Hint that block `i`'s size will be read soon ([`crate::hint`]); a
    /// uniform dataset has nothing to fetch.
    #[inline]
    pub fn prefetch(&self, i: usize) {
        if let Repr::List(v) = &self.0 {
            if let Some(mb) = v.get(i) {
                crate::hint::prefetch(mb);
            }
        }
    }

    /// The first block's size.
    pub fn first(&self) -> Option<f64> {
        self.get(0)
    }

    /// The last block's size.
    pub fn last(&self) -> Option<f64> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }

    /// The sizes in block order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = f64> + ExactSizeIterator + '_ {
        (0..self.len()).map(move |i| self.get(i).expect("index below the length"))
    }

    /// Total size, MB: the sizes added in block order, so the same sum as
    /// the list's whichever way they are kept.
    pub fn total_mb(&self) -> f64 {
        self.iter().sum()
    }

    /// `Some((block, last))` when every block but the last is of `block`
    /// MB.
    pub fn as_uniform(&self) -> Option<(f64, f64)> {
        match &self.0 {
            Repr::Uniform {
                block_mb, last_mb, ..
            } => Some((*block_mb, *last_mb)),
            Repr::List(_) => None,
        }
    }

    /// The sizes as a list.
    pub fn to_vec(&self) -> Vec<f64> {
        self.iter().collect()
    }
}

impl From<Vec<f64>> for BlockSizes {
    fn from(v: Vec<f64>) -> Self {
        BlockSizes::from_vec(v)
    }
}

impl PartialEq for BlockSizes {
    /// Equal when the sizes are, whichever way each side keeps them.
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Serialize for BlockSizes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for BlockSizes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<f64>::deserialize(d).map(BlockSizes::from_vec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_cut_file_is_kept_as_three_numbers_and_reads_as_its_list() {
        let s = BlockSizes::from_vec(vec![128.0, 128.0, 44.0]);
        assert_eq!(s.as_uniform(), Some((128.0, 44.0)));
        assert_eq!(s.len(), 3);
        assert_eq!(s.to_vec(), vec![128.0, 128.0, 44.0]);
        assert_eq!(s.get(3), None);
        assert_eq!(s.last(), Some(44.0));
        assert_eq!(s.total_mb(), 300.0);
    }

    #[test]
    fn uneven_sizes_stay_a_list() {
        let s = BlockSizes::from_vec(vec![10.0, 20.0, 20.0]);
        assert_eq!(s.as_uniform(), None);
        assert_eq!(s.to_vec(), vec![10.0, 20.0, 20.0]);
        // A larger last block is still one size and a last.
        let s = BlockSizes::from_vec(vec![10.0, 10.0, 30.0]);
        assert_eq!(s.as_uniform(), Some((10.0, 30.0)));
    }

    #[test]
    fn one_block_and_none() {
        let one = BlockSizes::from_vec(vec![0.5]);
        assert_eq!(one.to_vec(), vec![0.5]);
        assert_eq!(one, BlockSizes::uniform(1, 128.0, 0.5));
        let none = BlockSizes::from_vec(vec![]);
        assert!(none.is_empty());
        assert_eq!(none.first(), None);
        assert_eq!(none.last(), None);
        assert_eq!(none, BlockSizes::uniform(0, 1.0, 1.0));
    }

    #[test]
    fn serialises_as_the_list() {
        let s = BlockSizes::from_vec(vec![64.0, 64.0, 1.5]);
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(json, "[64.0,64.0,1.5]");
        let back: BlockSizes = serde_json::from_str(&json).unwrap();
        assert_eq!(back, s);
        assert_eq!(back.as_uniform(), Some((64.0, 1.5)));
    }

    proptest! {
        /// Whatever the sizes, both forms answer every question as the
        /// list does, and the total is the list's sum bit for bit.
        #[test]
        fn reads_as_the_list(
            block in prop::sample::select(vec![64.0, 128.0, 0.1, 1e-6]),
            n in 0usize..40,
            last in 0.01f64..200.0,
            odd in prop::option::of((0usize..40, 0.01f64..200.0)),
        ) {
            let mut v = vec![block; n];
            if let Some(l) = v.last_mut() {
                *l = last;
            }
            if let Some((i, mb)) = odd {
                if i < v.len() {
                    v[i] = mb;
                }
            }
            let s = BlockSizes::from_vec(v.clone());
            prop_assert_eq!(s.len(), v.len());
            for i in 0..v.len() + 2 {
                prop_assert_eq!(s.get(i), v.get(i).copied());
            }
            prop_assert_eq!(s.to_vec(), v.clone());
            prop_assert_eq!(s.iter().rev().collect::<Vec<_>>(),
                v.iter().rev().copied().collect::<Vec<_>>());
            prop_assert_eq!(s.total_mb().to_bits(), v.iter().sum::<f64>().to_bits());
            prop_assert_eq!(s.first(), v.first().copied());
            prop_assert_eq!(s.last(), v.last().copied());
        }
    }
}
