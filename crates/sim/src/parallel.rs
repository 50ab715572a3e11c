//! Independent runs on every core.
//!
//! Simulations of one comparison or one experiment share nothing, so they
//! run on as many threads as the machine gives this process (its cores,
//! less any CPU affinity or cgroup quota), or as many as the user asked
//! for ([`set_thread_limit`], the command line's `--threads`), each taking
//! the next run when it finishes one. Results come back in index order:
//! the output never depends on the thread count or on which run ended
//! first.

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Most runs at once, for the whole process; 0: one per core.
static LIMIT: AtomicUsize = AtomicUsize::new(0);

/// Run at most `limit` simulations at once from now on (`None`: one per
/// core). Fewer threads keep fewer runs in memory at once.
pub fn set_thread_limit(limit: Option<NonZeroUsize>) {
    LIMIT.store(limit.map_or(0, NonZeroUsize::get), Ordering::Relaxed);
}

/// The worker threads [`map`] uses for `n` runs.
pub fn threads_for(n: usize) -> usize {
    let limit = NonZeroUsize::new(LIMIT.load(Ordering::Relaxed));
    threads_given(limit, std::thread::available_parallelism().ok(), n)
}

/// Threads for `n` runs with at most `limit` asked for and `cores`
/// available (unknown: one).
fn threads_given(limit: Option<NonZeroUsize>, cores: Option<NonZeroUsize>, n: usize) -> usize {
    let want = limit.or(cores).map_or(1, NonZeroUsize::get);
    want.min(n).max(1)
}

/// `f(i)` for every `i < n`, on [`threads_for`]`(n)` threads, in index
/// order; `done(k)` is called (from a worker) each time a run ends, with
/// the number ended so far. A run that panics panics the caller.
pub fn map<T: Send>(
    n: usize,
    f: impl Fn(usize) -> T + Sync,
    done: impl Fn(usize) + Sync,
) -> Vec<T> {
    let next = AtomicUsize::new(0);
    let ended = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<T>>> = Mutex::new((0..n).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads_for(n) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let r = f(i);
                results.lock().expect("no worker panicked holding the lock")[i] = Some(r);
                done(ended.fetch_add(1, Ordering::Relaxed) + 1);
            });
        }
    });
    results
        .into_inner()
        .expect("no worker panicked holding the lock")
        .into_iter()
        .map(|r| r.expect("every run ended"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_in_index_order_and_every_end_counted() {
        let count = AtomicUsize::new(0);
        let out = map(
            50,
            |i| {
                // Uneven work, so runs end out of order.
                std::thread::sleep(std::time::Duration::from_micros(((i * 7) % 5) as u64 * 100));
                i * i
            },
            |_| {
                count.fetch_add(1, Ordering::Relaxed);
            },
        );
        assert_eq!(out, (0..50).map(|i| i * i).collect::<Vec<_>>());
        assert_eq!(count.load(Ordering::Relaxed), 50);
        assert!(map(0, |i| i, |_| {}).is_empty());
    }

    #[test]
    fn one_thread_per_core_or_as_asked_never_more_than_runs() {
        let nz = NonZeroUsize::new;
        // Every core, however many (no fixed ceiling).
        assert_eq!(threads_given(None, nz(64), 1000), 64);
        assert_eq!(threads_given(None, nz(2), 6), 2);
        // No more threads than runs, and at least one.
        assert_eq!(threads_given(None, nz(64), 6), 6);
        assert_eq!(threads_given(None, nz(4), 0), 1);
        assert_eq!(threads_given(None, None, 10), 1);
        // A limit wins over the core count, in both directions.
        assert_eq!(threads_given(nz(1), nz(8), 10), 1);
        assert_eq!(threads_given(nz(3), nz(2), 10), 3);
        assert_eq!(threads_given(nz(16), nz(2), 5), 5);
    }
}
