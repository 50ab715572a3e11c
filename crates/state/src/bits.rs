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

/// The set bits of `word`, lowest first, as indices from `base` (word `w`
/// of a set has `base = 64 * w`).
#[inline]
pub fn ones(word: u64, base: usize) -> impl Iterator<Item = usize> {
    let mut rest = word;
    std::iter::from_fn(move || {
        (rest != 0).then(|| {
            let b = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            base + b
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ones_lists_set_bits_lowest_first_from_the_base() {
        assert_eq!(ones(0b1010_0001, 64).collect::<Vec<_>>(), vec![64, 69, 71]);
        assert_eq!(ones(1 << 63, 0).collect::<Vec<_>>(), vec![63]);
        assert_eq!(ones(0, 128).count(), 0);
    }
}
