//! Seeded randomness.
//!
//! Every random choice in mrsched comes from a generator derived from the
//! run's seed and a stream name ("placement", "arrivals", "faults" ...), so
//! that changing how one part of a run draws numbers does not shift the
//! numbers another part sees. ChaCha8 is used because its output is
//! specified and stable across platforms and crate versions, which is what
//! byte-identical reproduction needs.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The generator type used everywhere.
pub type Rng = ChaCha8Rng;

/// SplitMix64 finaliser: a good 64-bit mix, used to derive seeds and for
/// counter-based draws.
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Hash of several words, for counter-based randomness (the draw for item k
/// does not depend on how many items were drawn before).
pub fn hash_words(words: &[u64]) -> u64 {
    hash_words_from(HASH_START, words)
}

/// The state [`hash_words`] starts from.
pub const HASH_START: u64 = 0x6A09_E667_F3BC_C908;

/// Continue a [`hash_words`] from state `h`: `hash_words(&[a, b, c])` is
/// `hash_words_from(hash_words_from(HASH_START, &[a, b]), &[c])`, so a
/// caller hashing many keys with a common prefix hashes the prefix once.
#[inline]
pub fn hash_words_from(h: u64, words: &[u64]) -> u64 {
    words.iter().fold(h, |h, w| mix64(h ^ mix64(*w)))
}

/// A uniform number in [0, 1) from a hash.
pub fn unit_from_hash(h: u64) -> f64 {
    (h >> 11) as f64 / (1u64 << 53) as f64
}

/// The generator for stream `name` of run `seed`.
pub fn stream(seed: u64, name: &str) -> Rng {
    let mut h = seed;
    for b in name.bytes() {
        h = mix64(h ^ b as u64);
    }
    Rng::seed_from_u64(mix64(h))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng as _;

    #[test]
    fn streams_are_reproducible_and_independent() {
        let a: Vec<u32> = (0..4)
            .map(|_| 0)
            .scan(stream(7, "x"), |r, _: u32| Some(r.random()))
            .collect();
        let b: Vec<u32> = (0..4)
            .map(|_| 0)
            .scan(stream(7, "x"), |r, _: u32| Some(r.random()))
            .collect();
        let c: Vec<u32> = (0..4)
            .map(|_| 0)
            .scan(stream(7, "y"), |r, _: u32| Some(r.random()))
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        let u = unit_from_hash(hash_words(&[1, 2, 3]));
        assert!((0.0..1.0).contains(&u));
    }
}
