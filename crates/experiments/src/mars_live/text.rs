//! Generated input text for `mars-live`: lines of words from a Zipf-like
//! vocabulary, the same bytes for the same (seed, file), so every cluster
//! of a run stores the same inputs.

use rand::Rng;

/// About `bytes` bytes of text (whole lines) for file `file` of run `seed`.
pub fn corpus(seed: u64, file: u64, bytes: u64) -> Vec<u8> {
    let mut rng = mrsched_model::rng::stream(seed ^ file.wrapping_mul(0x9E37), "mars-live-text");
    let mut out = Vec::with_capacity(bytes as usize + 64);
    while (out.len() as u64) < bytes {
        let words = rng.random_range(4..12);
        for w in 0..words {
            if w > 0 {
                out.push(b' ');
            }
            // Rank r drawn with probability about 1/r over 20,000 words.
            let r = (20_000f64.powf(rng.random::<f64>())) as u32;
            out.extend_from_slice(b"w");
            out.extend_from_slice(r.to_string().as_bytes());
        }
        out.push(b'\n');
    }
    out
}
