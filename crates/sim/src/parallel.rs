//! Independent runs on every core.
//!
//! Simulations of one comparison or one experiment share nothing, so they
//! run on as many threads as the machine has cores (at most 8), each taking
//! the next run when it finishes one. Results come back in index order:
//! the output never depends on the thread count or on which run ended
//! first.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The worker threads [`map`] uses for `n` runs.
pub fn threads_for(n: usize) -> usize {
    std::thread::available_parallelism()
        .map_or(1, |t| t.get())
        .clamp(1, 8)
        .min(n.max(1))
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
}
