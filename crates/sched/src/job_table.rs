//! Per-job state by dense job id.
//!
//! Job ids are handed out densely from zero, so state a scheduler keeps for
//! each job lives in a vector indexed by id: the lookups on the heartbeat
//! path (every task launch and end) are array accesses, not hashing.

use mrsched_model::JobId;

/// A map from [`JobId`] to `T`, stored as a vector indexed by job id.
#[derive(Clone, Debug)]
pub(crate) struct JobTable<T> {
    slots: Vec<Option<T>>,
    len: usize,
}

impl<T> Default for JobTable<T> {
    fn default() -> Self {
        JobTable {
            slots: Vec::new(),
            len: 0,
        }
    }
}

impl<T> JobTable<T> {
    /// The entry of `j`, if any.
    #[inline]
    pub(crate) fn get(&self, j: JobId) -> Option<&T> {
        self.slots.get(j.idx()).and_then(|s| s.as_ref())
    }

    /// The entry of `j`, if any, for change.
    #[inline]
    pub(crate) fn get_mut(&mut self, j: JobId) -> Option<&mut T> {
        self.slots.get_mut(j.idx()).and_then(|s| s.as_mut())
    }

    /// The entry of `j`, made by `make` when it has none.
    #[inline]
    pub(crate) fn get_or_insert_with(&mut self, j: JobId, make: impl FnOnce() -> T) -> &mut T {
        if self.slots.len() <= j.idx() {
            self.slots.resize_with(j.idx() + 1, || None);
        }
        let slot = &mut self.slots[j.idx()];
        if slot.is_none() {
            self.len += 1;
        }
        slot.get_or_insert_with(make)
    }

    /// Set the entry of `j`, returning the one it replaces.
    pub(crate) fn insert(&mut self, j: JobId, v: T) -> Option<T> {
        let old = self.slot(j).replace(v);
        if old.is_none() {
            self.len += 1;
        }
        old
    }

    /// Remove the entry of `j`, returning it.
    pub(crate) fn remove(&mut self, j: JobId) -> Option<T> {
        let old = self.slots.get_mut(j.idx()).and_then(Option::take);
        if old.is_some() {
            self.len -= 1;
        }
        old
    }

    /// How many jobs have an entry.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Every entry, in job-id order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (JobId, &T)> + '_ {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(j, s)| s.as_ref().map(|v| (JobId(j as u32), v)))
    }

    fn slot(&mut self, j: JobId) -> &mut Option<T> {
        if self.slots.len() <= j.idx() {
            self.slots.resize_with(j.idx() + 1, || None);
        }
        &mut self.slots[j.idx()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_found_counted_and_forgotten_by_id() {
        let mut t = JobTable::default();
        assert_eq!(t.insert(JobId(7), 'a'), None);
        assert_eq!(t.insert(JobId(7), 'b'), Some('a'));
        *t.get_or_insert_with(JobId(2), || 'c') = 'd';
        assert_eq!(*t.get_or_insert_with(JobId(2), || 'e'), 'd');
        assert_eq!(
            (t.get(JobId(7)), t.get(JobId(3)), t.get(JobId(99))),
            (Some(&'b'), None, None)
        );
        assert_eq!(t.len(), 2);
        assert_eq!(t.remove(JobId(7)), Some('b'));
        assert_eq!((t.remove(JobId(7)), t.remove(JobId(50))), (None, None));
        assert_eq!(t.len(), 1);
        assert_eq!(t.iter().collect::<Vec<_>>(), vec![(JobId(2), &'d')]);
    }
}
