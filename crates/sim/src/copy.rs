//! When does a reducer finish copying?
//!
//! A reducer fetches its partition of every map's output at the shuffle
//! rate `r`, starting when it launches and overlapping the map phase. Seen as
//! a fluid queue (work arrives when maps finish, drains at `r`), a reducer
//! started at `s` finishes copying at
//!
//! ```text
//! max( s + A / r,  max over maps i finishing after s of ( t_i + S_i / r ) )
//! ```
//!
//! where `A` is its whole partition and `S_i` the part produced by maps
//! finishing at or after `t_i`. [`CopyProfile`] precomputes the suffix
//! maxima once a job's maps are all done, so each reducer costs a binary
//! search. (A map re-run after its output was lost counts at its new finish
//! time: the reducer is assumed to fetch it again.)
//!
//! The engine hands the maps over in the order they finished, which is
//! already sorted by finish time, so a job of a million maps skips a sort.
//! Maps finishing at the same instant may come in any order: a lookup lands
//! on the first map of a group of equal times, whose suffix covers the
//! whole group, so the answer does not depend on their order.

use mrsched_model::Time;

/// Suffix maxima of `t_i + S_i / r` over a job's maps sorted by finish time.
#[derive(Clone, Debug, Default)]
pub struct CopyProfile {
    /// `(t_i, suffix maximum from i)`, by finish time; built in the
    /// vector it is given, so a job of millions of maps needs no second one.
    points: Vec<(Time, Time)>,
    total: Time,
}

impl CopyProfile {
    /// Build from `(finish time, partition share in seconds of copying)`
    /// pairs of every map, in any order (sorted here unless they already
    /// are by finish time).
    pub fn new(mut maps: Vec<(Time, Time)>) -> CopyProfile {
        if !maps.is_sorted_by_key(|p| p.0) {
            maps.sort_unstable();
        }
        let total = maps.iter().fold(Time::ZERO, |a, (_, c)| a + c.to_owned());
        let mut suffix = Time::ZERO;
        let mut best = Time::ZERO;
        for p in maps.iter_mut().rev() {
            suffix += p.1;
            best = best.max(p.0 + suffix);
            p.1 = best;
        }
        CopyProfile {
            points: maps,
            total,
        }
    }

    /// Copy end of a reducer started at `s` (`overhead` added to its start).
    pub fn copy_end(&self, s: Time) -> Time {
        let k = self.points.partition_point(|(t, _)| *t <= s);
        let own = s + self.total;
        match self.points.get(k) {
            Some((_, g)) => own.max(*g),
            None => own,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: u64) -> Time {
        Time::from_secs(s)
    }

    #[test]
    fn reducer_after_maps_copies_everything_at_rate() {
        let p = CopyProfile::new(vec![(t(10), t(2)), (t(20), t(2))]);
        assert_eq!(p.copy_end(t(30)), t(34));
    }

    #[test]
    fn reducer_waits_for_late_maps() {
        // Started at 0: copies map 1's share by 12, idles, map 2 ends at 20.
        let p = CopyProfile::new(vec![(t(20), t(2)), (t(10), t(2))]);
        assert_eq!(p.copy_end(t(0)), t(22));
    }

    #[test]
    fn bursts_at_the_end_queue_up() {
        // Ten maps end together at 100, each 1 s of copying.
        let p = CopyProfile::new((0..10).map(|_| (t(100), t(1))).collect());
        assert_eq!(p.copy_end(t(0)), t(110));
        assert_eq!(p.copy_end(t(105)), t(115));
    }

    proptest::proptest! {
        /// Maps of equal finish times in any order: the same copy ends as
        /// the fully sorted list (the engine passes maps in finish order).
        #[test]
        fn ties_in_any_order_give_the_same_copy_ends(
            maps in proptest::collection::vec((0u64..6, 0u64..4), 1..40),
            rot in 0usize..40,
        ) {
            let maps: Vec<(Time, Time)> = maps.iter().map(|&(a, b)| (t(a), t(b))).collect();
            let mut sorted = maps.clone();
            sorted.sort_unstable();
            // Sorted by time only, each group of equal times rotated.
            let mut by_time = sorted.clone();
            for g in by_time.chunk_by_mut(|x, y| x.0 == y.0) {
                let k = rot % g.len();
                g.rotate_left(k);
            }
            by_time.reverse();
            by_time.sort_by_key(|p| p.0);
            let (a, b) = (CopyProfile::new(sorted), CopyProfile::new(by_time));
            for s in 0..12 {
                proptest::prop_assert_eq!(a.copy_end(t(s)), b.copy_end(t(s)));
            }
        }
    }

    #[test]
    fn matches_a_step_by_step_drain() {
        // Brute force: simulate the queue in 1 ms steps.
        let maps: Vec<(Time, Time)> =
            vec![(t(3), t(5)), (t(4), t(1)), (t(12), t(2)), (t(13), t(1))];
        let p = CopyProfile::new(maps.clone());
        for s in [0u64, 2, 3, 5, 9, 12, 14] {
            let mut now = Time::from_secs(s);
            let mut backlog = 0i64;
            let mut pending: Vec<(Time, Time)> = maps.clone();
            pending.sort();
            for (mt, c) in pending.iter() {
                if *mt <= now {
                    backlog += c.0 as i64;
                }
            }
            let mut rest: Vec<(Time, Time)> =
                pending.into_iter().filter(|(mt, _)| *mt > now).collect();
            loop {
                if backlog <= 0 && rest.is_empty() {
                    break;
                }
                let step = Time::from_millis(1);
                now += step;
                backlog = (backlog - step.0 as i64).max(0);
                rest.retain(|(mt, c)| {
                    if *mt <= now {
                        backlog += c.0 as i64;
                        false
                    } else {
                        true
                    }
                });
            }
            let got = p.copy_end(Time::from_secs(s));
            let diff = got.0.abs_diff(now.0);
            assert!(diff <= 2_000, "start {s}: formula {got} vs drain {now}");
        }
    }
}
