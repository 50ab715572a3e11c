//! Storage for running attempts, indexed without hashing.
//!
//! An [`AttemptId`] carries its slot: `(serial << 24) | slot`. Serials grow
//! with every launch, so ids still sort in launch order, and a lookup is an
//! array access plus a check that the slot still holds that serial. Slots of
//! ended attempts are reused, so memory is bounded by the number of attempts
//! running at once, not by the number ever launched.

use crate::attempt::Attempt;
use mrsched_model::AttemptId;

const SLOT_BITS: u32 = 24;
const SLOT_MASK: u64 = (1 << SLOT_BITS) - 1;

/// Running attempts by id.
#[derive(Default, Debug)]
pub(crate) struct AttemptSlab {
    slots: Vec<Option<Attempt>>,
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

    /// Store an attempt under the id [`AttemptSlab::next_id`] returned.
    pub(crate) fn insert(&mut self, a: Attempt) {
        let slot = (a.id.0 & SLOT_MASK) as usize;
        match self.free.last() {
            Some(s) if *s as usize == slot => {
                self.free.pop();
                self.slots[slot] = Some(a);
            }
            _ => {
                debug_assert_eq!(slot, self.slots.len());
                self.slots.push(Some(a));
            }
        }
        self.serial += 1;
        self.len += 1;
    }

    #[inline]
    pub(crate) fn get(&self, id: &AttemptId) -> Option<&Attempt> {
        match self.slots.get((id.0 & SLOT_MASK) as usize) {
            Some(Some(a)) if a.id == *id => Some(a),
            _ => None,
        }
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, id: &AttemptId) -> Option<&mut Attempt> {
        match self.slots.get_mut((id.0 & SLOT_MASK) as usize) {
            Some(Some(a)) if a.id == *id => Some(a),
            _ => None,
        }
    }

    pub(crate) fn remove(&mut self, id: &AttemptId) -> Option<Attempt> {
        let slot = (id.0 & SLOT_MASK) as usize;
        match self.slots.get_mut(slot) {
            Some(e @ Some(_)) if e.as_ref().is_some_and(|a| a.id == *id) => {
                self.free.push(slot as u32);
                self.len -= 1;
                e.take()
            }
            _ => None,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }
}
