//! Storage for running attempts, indexed without hashing.
//!
//! An [`AttemptId`] carries its slot: `(serial << 24) | slot`. Serials grow
//! with every launch, so ids still sort in launch order, and a lookup is an
//! array access plus a check that the slot still holds that serial. Slots of
//! ended attempts are reused, so memory is bounded by the number of attempts
//! running at once, not by the number ever launched.
//!
//! Each attempt's position in its job's running list sits in a dense array
//! beside the slots rather than in the attempt: when an attempt ends, the
//! job's last running attempt moves into its place and must learn its new
//! position, and that attempt is a random one, long out of cache. Four
//! bytes per slot stay in cache where a whole attempt would not.

use crate::attempt::Attempt;
use mrsched_model::AttemptId;

const SLOT_BITS: u32 = 24;
const SLOT_MASK: u64 = (1 << SLOT_BITS) - 1;

/// The slot an id names.
#[inline]
fn slot_of(id: &AttemptId) -> usize {
    (id.0 & SLOT_MASK) as usize
}

/// Running attempts by id.
#[derive(Default, Debug)]
pub(crate) struct AttemptSlab {
    slots: Vec<Option<Attempt>>,
    /// Position of the attempt in each slot in its driving job's running
    /// list.
    run_pos: Vec<u32>,
    free: Vec<u32>,
    len: usize,
    serial: u64,
}

impl AttemptSlab {
    /// The id the next inserted attempt will get.
    pub(crate) fn next_id(&mut self) -> AttemptId {
        let slot = match self.free.last() {
            Some(s) => *s as u64,
            None => self.slots.len() as u64,
        };
        assert!(
            slot <= SLOT_MASK,
            "more than 16 million attempts running at once"
        );
        AttemptId((self.serial << SLOT_BITS) | slot)
    }

    /// Store an attempt under the id [`AttemptSlab::next_id`] returned,
    /// at position `run_pos` of its job's running list.
    pub(crate) fn insert(&mut self, a: Attempt, run_pos: u32) {
        let slot = slot_of(&a.id);
        match self.free.last() {
            Some(s) if *s as usize == slot => {
                self.free.pop();
                self.slots[slot] = Some(a);
                self.run_pos[slot] = run_pos;
            }
            _ => {
                debug_assert_eq!(slot, self.slots.len());
                self.slots.push(Some(a));
                self.run_pos.push(run_pos);
            }
        }
        self.serial += 1;
        self.len += 1;
    }

    /// Hint that an attempt will be stored soon (the slot
    /// [`AttemptSlab::next_id`] would give).
    #[inline]
    pub(crate) fn prefetch_next_slot(&self) {
        if let Some(e) = self.free.last().and_then(|&s| self.slots.get(s as usize)) {
            mrsched_model::hint::prefetch(e);
        }
    }

    /// Hint that the attempt `id` will be read soon.
    #[inline]
    pub(crate) fn prefetch(&self, id: &AttemptId) {
        if let Some(e) = self.slots.get(slot_of(id)) {
            mrsched_model::hint::prefetch(e);
        }
    }

    #[inline]
    pub(crate) fn get(&self, id: &AttemptId) -> Option<&Attempt> {
        match self.slots.get(slot_of(id)) {
            Some(Some(a)) if a.id == *id => Some(a),
            _ => None,
        }
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, id: &AttemptId) -> Option<&mut Attempt> {
        match self.slots.get_mut(slot_of(id)) {
            Some(Some(a)) if a.id == *id => Some(a),
            _ => None,
        }
    }

    /// Take the attempt `id` out, with its position in its job's running
    /// list.
    pub(crate) fn remove(&mut self, id: &AttemptId) -> Option<(Attempt, u32)> {
        let slot = slot_of(id);
        match self.slots.get_mut(slot) {
            Some(e @ Some(_)) if e.as_ref().is_some_and(|a| a.id == *id) => {
                self.free.push(slot as u32);
                self.len -= 1;
                e.take().map(|a| (a, self.run_pos[slot]))
            }
            _ => None,
        }
    }

    /// The running attempt `id` is now at position `pos` of its job's
    /// running list. Touches only the position array: the caller knows
    /// `id` is running (it is listed in its job's running list).
    #[inline]
    pub(crate) fn set_run_pos(&mut self, id: &AttemptId, pos: u32) {
        let slot = slot_of(id);
        debug_assert!(self.get(id).is_some(), "{id} is not running");
        self.run_pos[slot] = pos;
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attempt::{AttemptStatus, ReducePhase, Stamp};
    use mrsched_model::{JobId, Locality, NodeId, TaskKind, Time};

    fn attempt(id: AttemptId, task: u32) -> Attempt {
        Attempt {
            id,
            kind: TaskKind::Map,
            job: JobId(0),
            task,
            riders: Box::default(),
            node: NodeId(0),
            start: Time::ZERO,
            end: Stamp::NONE,
            status: AttemptStatus::Running,
            locality: Locality::Node,
            phase: ReducePhase::Computing,
            compute_start: Stamp::NONE,
        }
    }

    #[test]
    fn positions_follow_their_attempt_through_moves_and_slot_reuse() {
        let mut slab = AttemptSlab::default();
        let mut ids = Vec::new();
        for t in 0..3 {
            let id = slab.next_id();
            slab.insert(attempt(id, t), t * 10);
            ids.push(id);
        }
        slab.set_run_pos(&ids[2], 7);
        let (a, pos) = slab.remove(&ids[1]).unwrap();
        assert_eq!((a.task, pos), (1, 10));
        assert!(slab.remove(&ids[1]).is_none(), "removed once only");
        // The freed slot is reused under a new id with its own position;
        // the old id no longer reaches it.
        let id = slab.next_id();
        assert_eq!(id.0 & SLOT_MASK, ids[1].0 & SLOT_MASK);
        assert_ne!(id, ids[1]);
        slab.insert(attempt(id, 3), 4);
        assert!(slab.get(&ids[1]).is_none());
        assert_eq!(slab.remove(&id).map(|(a, p)| (a.task, p)), Some((3, 4)));
        assert_eq!(slab.remove(&ids[2]).map(|(a, p)| (a.task, p)), Some((2, 7)));
        assert_eq!(slab.remove(&ids[0]).map(|(a, p)| (a.task, p)), Some((0, 0)));
        assert_eq!(slab.len(), 0);
    }
}
