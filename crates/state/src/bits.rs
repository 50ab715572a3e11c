//! Bit sets as plain `u64` words: the one helper for every set indexed by a
//! dense number (pending maps of a job, nodes by heartbeat rank).

/// Whether bit `i` is set (false beyond the words).
#[inline]
pub fn bit(bits: &[u64], i: usize) -> bool {
    bits.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
}

/// Set or clear bit `i`.
#[inline]
pub fn set_bit(bits: &mut [u64], i: usize, on: bool) {
    if on {
        bits[i / 64] |= 1 << (i % 64);
    } else {
        bits[i / 64] &= !(1 << (i % 64));
    }
}
