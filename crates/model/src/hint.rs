//! Cache prefetch hints.
//!
//! A day-long run touches each task's records a few times, minutes of
//! simulated time apart, so most of those touches miss every cache and the
//! simulator waits on memory more than it computes. Where the next record
//! needed is known a little ahead (the attempt of the next queued event,
//! the task a scheduler just chose and the one below it in its node's
//! row), asking for it early lets the load overlap other work. A prefetch
//! is only a hint: it changes no value and no order, so results are
//! identical with or without it.

/// Ask the CPU to bring the cache line holding `r` closer (no-op on
/// targets without a prefetch instruction).
#[inline(always)]
pub fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch never faults and reads nothing into the
        // program, whatever the address; this one is a live reference.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((r as *const T).cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}
