//! A job's map tasks, stored compactly.
//!
//! Most maps of a byte-costed workload are "read block b of dataset d",
//! with the block's size as input: a SWIM day scaled to a large cluster has
//! millions of them, and a list of [`MapSpec`]s would spend 40 bytes on each
//! to repeat what the dataset already says. A job that reads one dataset
//! whole keeps only the dataset's id and its block sizes (a handle, or
//! three numbers: see [`BlockSizes`]);
//! every other job keeps the list. Both answer the same questions the same
//! way ([`MapSpecs::at`], [`MapSpecs::iter`]), so no reader can tell them
//! apart, and both serialise as the list.

use crate::block_sizes::BlockSizes;
use crate::ids::{BlockRef, DatasetId};
use crate::workload::MapSpec;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The map tasks of a job, in task order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MapSpecs(Repr);

#[derive(Clone, Debug, PartialEq)]
enum Repr {
    /// Any maps.
    List(Vec<MapSpec>),
    /// Map i reads block i of `dataset`, of `sizes[i]` MB, with no explicit
    /// time.
    Blocks {
        dataset: DatasetId,
        sizes: BlockSizes,
    },
}

impl Default for Repr {
    fn default() -> Self {
        Repr::List(Vec::new())
    }
}

impl MapSpecs {
    /// No maps.
    pub fn new() -> MapSpecs {
        MapSpecs::default()
    }

    /// One map per block of `dataset`, whose block sizes are `sizes` (MB).
    pub fn blocks(dataset: DatasetId, sizes: BlockSizes) -> MapSpecs {
        MapSpecs(Repr::Blocks { dataset, sizes })
    }

    /// Number of maps.
    #[inline]
    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::List(v) => v.len(),
            Repr::Blocks { sizes, .. } => sizes.len(),
        }
    }

    /// True when the job has no map.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Map `i`, if there is one.
    #[inline]
    pub fn get(&self, i: usize) -> Option<MapSpec> {
        match &self.0 {
            Repr::List(v) => v.get(i).copied(),
            Repr::Blocks { dataset, sizes } => sizes.get(i).map(|mb| MapSpec {
                block: Some(BlockRef {
                    dataset: *dataset,
                    index: i as u32,
                }),
                input_mb: mb,
                time: None,
            }),
        }
    }

    /// Hint that map `i` will be read soon ([`crate::hint`]).
    #[inline]
    pub fn prefetch(&self, i: usize) {
        match &self.0 {
            Repr::List(v) => {
                if let Some(m) = v.get(i) {
                    crate::hint::prefetch(m);
                }
            }
            Repr::Blocks { sizes, .. } => sizes.prefetch(i),
        }
    }

    /// `Some(d)` when map `i` reads block `i` of dataset `d`, for every
    /// `i` (the compact form): a reader may then go through the dataset's
    /// blocks in order instead of map by map.
    pub fn whole_dataset(&self) -> Option<DatasetId> {
        match &self.0 {
            Repr::Blocks { dataset, .. } => Some(*dataset),
            Repr::List(_) => None,
        }
    }

    /// The maps in task order as runs of equal cost: each run's first map
    /// and its length, a run being consecutive maps of equal input size
    /// and explicit time (all a map's cost depends on but its block). A
    /// sum over a job's maps (a report's ideal time) then prices each run
    /// once, the same number for each of its maps.
    pub fn runs(&self) -> impl Iterator<Item = (MapSpec, usize)> + '_ {
        // Blocks of one size and a last: at most two runs, told without
        // reading each map.
        let uniform = match &self.0 {
            Repr::Blocks { sizes, .. } => sizes
                .as_uniform()
                .filter(|(block, last)| !block.is_nan() && !last.is_nan())
                .map(|(block, last)| (sizes.len(), block == last)),
            Repr::List(_) => None,
        };
        let mut start = 0;
        let mut it = self.iter().peekable();
        std::iter::from_fn(move || {
            if let Some((count, one_size)) = uniform {
                if start >= count {
                    return None;
                }
                let n = if one_size || start + 1 == count {
                    count - start
                } else {
                    count - 1 - start
                };
                start += n;
                return Some((self.at(start - n), n));
            }
            let first = it.next()?;
            let mut n = 1;
            while it.next_if(|m| same_cost(m, &first)).is_some() {
                n += 1;
            }
            Some((first, n))
        })
    }

    /// The first map.
    pub fn first(&self) -> Option<MapSpec> {
        self.get(0)
    }

    /// Map `i`.
    ///
    /// # Panics
    /// When there is no map `i` (as indexing a list would).
    #[inline]
    pub fn at(&self, i: usize) -> MapSpec {
        self.get(i)
            .unwrap_or_else(|| panic!("map {i} of a job with {} maps", self.len()))
    }

    /// The maps in task order.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            maps: self,
            front: 0,
            back: self.len(),
        }
    }

    /// Add a map at the end.
    pub fn push(&mut self, m: MapSpec) {
        self.list_mut().push(m);
    }

    /// The maps as a list that can be changed (a block-backed job becomes
    /// a list first).
    pub fn list_mut(&mut self) -> &mut Vec<MapSpec> {
        if let Repr::Blocks { .. } = self.0 {
            let v: Vec<MapSpec> = self.iter().collect();
            self.0 = Repr::List(v);
        }
        match &mut self.0 {
            Repr::List(v) => v,
            Repr::Blocks { .. } => unreachable!("made a list above"),
        }
    }
}

impl From<Vec<MapSpec>> for MapSpecs {
    fn from(v: Vec<MapSpec>) -> MapSpecs {
        MapSpecs(Repr::List(v))
    }
}

impl FromIterator<MapSpec> for MapSpecs {
    fn from_iter<I: IntoIterator<Item = MapSpec>>(it: I) -> MapSpecs {
        MapSpecs(Repr::List(it.into_iter().collect()))
    }
}

impl Extend<MapSpec> for MapSpecs {
    fn extend<I: IntoIterator<Item = MapSpec>>(&mut self, it: I) {
        self.list_mut().extend(it);
    }
}

/// Iterator over [`MapSpecs`], by value.
#[derive(Clone, Debug)]
pub struct Iter<'a> {
    maps: &'a MapSpecs,
    front: usize,
    back: usize,
}

/// Whether `a` and `b` cost the same wherever they run (equal input size,
/// equal explicit time); NaN sizes are never equal, so never grouped.
fn same_cost(a: &MapSpec, b: &MapSpec) -> bool {
    a.input_mb == b.input_mb && a.time == b.time
}

impl Iterator for Iter<'_> {
    type Item = MapSpec;

    #[inline]
    fn next(&mut self) -> Option<MapSpec> {
        if self.front >= self.back {
            return None;
        }
        self.front += 1;
        self.maps.get(self.front - 1)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back - self.front;
        (n, Some(n))
    }
}

impl DoubleEndedIterator for Iter<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<MapSpec> {
        if self.front >= self.back {
            return None;
        }
        self.back -= 1;
        self.maps.get(self.back)
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a MapSpecs {
    type Item = MapSpec;
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl Serialize for MapSpecs {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for MapSpecs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<MapSpecs, D::Error> {
        Vec::<MapSpec>::deserialize(d).map(MapSpecs::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Time;

    fn block(d: u32, i: u32, mb: f64) -> MapSpec {
        MapSpec {
            block: Some(BlockRef {
                dataset: DatasetId(d),
                index: i,
            }),
            input_mb: mb,
            time: None,
        }
    }

    #[test]
    fn blocks_read_like_the_list_they_stand_for() {
        let sizes = BlockSizes::from_vec(vec![64.0, 64.0, 10.5]);
        assert!(sizes.as_uniform().is_some(), "kept as three numbers");
        let compact = MapSpecs::blocks(DatasetId(3), sizes);
        let list = MapSpecs::from(vec![
            block(3, 0, 64.0),
            block(3, 1, 64.0),
            block(3, 2, 10.5),
        ]);
        assert_eq!(compact.len(), 3);
        assert_eq!(compact.at(2), list.at(2));
        assert_eq!(compact.get(3), None);
        assert_eq!(
            compact.iter().collect::<Vec<_>>(),
            list.iter().collect::<Vec<_>>()
        );
        assert_eq!(
            compact.iter().rev().map(|m| m.input_mb).collect::<Vec<_>>(),
            vec![10.5, 64.0, 64.0]
        );
        assert_eq!(compact.iter().len(), 3);
        assert_eq!(
            serde_json::to_string(&compact).unwrap(),
            serde_json::to_string(&list).unwrap()
        );
        let back: MapSpecs =
            serde_json::from_str(&serde_json::to_string(&compact).unwrap()).unwrap();
        assert_eq!(back, list);
    }

    #[test]
    fn runs_group_consecutive_maps_of_equal_cost() {
        let runs = |m: &MapSpecs| {
            m.runs()
                .map(|(first, n)| (first.input_mb, first.time, n))
                .collect::<Vec<_>>()
        };
        // Compact blocks (told from their three numbers) group as the same
        // maps in a list do (read one by one).
        for sizes in [
            vec![64.0; 4],
            vec![64.0, 64.0, 9.0],
            vec![9.0],
            vec![64.0, 9.0],
        ] {
            let compact = MapSpecs::blocks(DatasetId(0), BlockSizes::from_vec(sizes.clone()));
            assert!(
                matches!(&compact.0, Repr::Blocks { sizes, .. } if sizes.as_uniform().is_some())
            );
            let list = MapSpecs::from(compact.iter().collect::<Vec<_>>());
            assert!(matches!(list.0, Repr::List(_)));
            assert_eq!(runs(&compact), runs(&list), "{sizes:?}");
            let mut at = 0;
            for (m, n) in compact.runs() {
                assert_eq!(m, compact.at(at));
                at += n;
            }
            assert_eq!(at, sizes.len());
        }
        let compact = MapSpecs::blocks(DatasetId(0), BlockSizes::from_vec(vec![64.0; 4]));
        assert_eq!(runs(&compact), vec![(64.0, None, 4)]);
        let tail = MapSpecs::blocks(DatasetId(0), BlockSizes::from_vec(vec![64.0, 64.0, 9.0]));
        assert_eq!(runs(&tail), vec![(64.0, None, 2), (9.0, None, 1)]);
        // Blocks differ within a run; sizes, times and NaN split runs; a
        // size seen again later starts a new run.
        let t = |s| Some(Time::from_secs(s));
        let mut list = MapSpecs::from(vec![block(0, 0, 5.0), block(1, 7, 5.0)]);
        for (mb, time) in [(5.0, t(3)), (5.0, t(3)), (5.0, t(4)), (f64::NAN, None)] {
            list.push(MapSpec {
                block: None,
                input_mb: mb,
                time,
            });
        }
        list.extend([block(0, 1, f64::NAN), block(0, 2, 5.0)]);
        let got = runs(&list);
        assert_eq!(got.len(), 6);
        assert_eq!(&got[..3], &[(5.0, None, 2), (5.0, t(3), 2), (5.0, t(4), 1)]);
        assert!(got[3].0.is_nan() && got[3].2 == 1 && got[4].0.is_nan() && got[4].2 == 1);
        assert_eq!(got[5], (5.0, None, 1));
        assert_eq!(got.iter().map(|r| r.2).sum::<usize>(), list.len());
        assert!(MapSpecs::new().runs().next().is_none());
    }

    #[test]
    fn changing_block_maps_turns_them_into_a_list() {
        let mut m = MapSpecs::blocks(DatasetId(0), vec![1.0, 2.0].into());
        m.push(MapSpec {
            block: None,
            input_mb: 0.0,
            time: Some(Time::from_secs(5)),
        });
        assert_eq!(m.len(), 3);
        assert_eq!(m.at(1), block(0, 1, 2.0));
        assert_eq!(m.at(2).time, Some(Time::from_secs(5)));
        m.extend([block(1, 0, 3.0)]);
        assert_eq!(m.len(), 4);
    }
}
