//! Slot-availability vectors and the three vector algorithms of seed 004:
//! Cal_mT (Algorithm II), Cal_rT (Algorithm III) and SATU (Algorithm VI).
//!
//! A vector holds one entry per slot of a kind (l map slots, q reduce
//! slots): the time that slot becomes available, sorted ascending. The
//! paper's three algorithms all do the same thing over and over: take the
//! smallest entry, replace it by a new value, re-sort. The new values they
//! write are non-decreasing (Cal: `max(t, floor) + tau` of non-decreasing
//! `t`; SATU: the sorted actual finish times), so the re-sorted vector is
//! the merge of the untouched rest of the old vector and the list of new
//! values, and the whole loop runs in O(l + n) instead of O(n l log l).
//! [`replace_smallest`] is that loop; the results are identical to the
//! pseudo-code's.

use mrsched_model::Time;

/// A sorted vector of slot available times (the paper's T^m, T^r, U^m, U^r).
pub type SlotVec = Vec<Time>;

/// `n` times: take the smallest entry `x` of the vector, replace it by
/// `next(x)`, keep the vector sorted. `next` must return non-decreasing
/// values over the calls (it does for every caller: see the module comment).
/// Returns the new vector and the last value written (`None` when `n == 0`
/// or the vector is empty: a cluster without slots of this kind cannot run
/// the tasks).
pub fn replace_smallest(
    base: &[Time],
    n: usize,
    mut next: impl FnMut(Time) -> Time,
) -> (SlotVec, Option<Time>) {
    if base.is_empty() || n == 0 {
        return (base.to_vec(), None);
    }
    debug_assert!(base.windows(2).all(|w| w[0] <= w[1]), "vector not sorted");
    let mut i = 0usize; // next untouched entry of `base`
    let mut written: Vec<Time> = Vec::with_capacity(n.min(base.len()) + 1);
    let mut head = 0usize; // next entry of `written` still in the vector
    let mut last = None;
    for _ in 0..n {
        let from_written = head < written.len() && (i >= base.len() || written[head] < base[i]);
        let x = if from_written {
            head += 1;
            written[head - 1]
        } else {
            i += 1;
            base[i - 1]
        };
        let y = next(x);
        debug_assert!(
            written.last().is_none_or(|w| *w <= y),
            "writes must not decrease"
        );
        written.push(y);
        last = Some(y);
        // Keep `written` from growing without bound when n >> l.
        if head > 1024 && head * 2 > written.len() {
            written.drain(..head);
            head = 0;
        }
    }
    let (a, b) = (&base[i..], &written[head..]);
    let mut out = Vec::with_capacity(base.len());
    let (mut x, mut y) = (0, 0);
    while x < a.len() && y < b.len() {
        if b[y] < a[x] {
            out.push(b[y]);
            y += 1;
        } else {
            out.push(a[x]);
            x += 1;
        }
    }
    out.extend_from_slice(&a[x..]);
    out.extend_from_slice(&b[y..]);
    (out, last)
}

/// Algorithm II, Cal_mT: place `maps` map tasks of estimated length `tau`
/// on the map slots `tp` (the predecessor's vector), each on the slot that
/// frees first, no earlier than `floor` (the paper's `currentTime`; we add
/// the dispatch slack, see [`super::queue`]). Returns J's vector and its
/// estimated map-stage end `e_m` (`Time::MAX` when there is no map slot).
pub fn cal_mt(tp: &[Time], maps: usize, tau: Time, floor: Time) -> (SlotVec, Time) {
    if maps == 0 {
        return (tp.to_vec(), floor);
    }
    let (v, last) = replace_smallest(tp, maps, |t| t.max(floor).saturating_add(tau));
    (v, last.unwrap_or(Time::MAX))
}

/// Algorithm III, Cal_rT (its reduce part): place `reduces` reduce tasks of
/// estimated length `tau` on the reduce slots `tp`, none before `floor`
/// (the job's map-stage end `e_m`, plus the dispatch slack). Returns J's
/// vector and its estimated finish `e` (`e_m` itself for a map-only job,
/// `Time::MAX` when there is no reduce slot).
pub fn cal_rt(tp: &[Time], reduces: usize, tau: Time, floor: Time) -> (SlotVec, Time) {
    if reduces == 0 {
        return (tp.to_vec(), floor);
    }
    let (v, last) = replace_smallest(tp, reduces, |t| t.max(floor).saturating_add(tau));
    (v, last.unwrap_or(Time::MAX))
}

/// Algorithm VI, SATU: starting from the predecessor's vectors, replace the
/// smallest entry by each actual task finish time of J in increasing order
/// (the slot that became free first ran the task that finished first).
/// `finished_maps` and `finished_reduces` need not be sorted.
pub fn satu(
    tp_m: &[Time],
    tp_r: &[Time],
    finished_maps: &[Time],
    finished_reduces: &[Time],
) -> (SlotVec, SlotVec) {
    let update = |tp: &[Time], ends: &[Time]| {
        let mut ends = ends.to_vec();
        ends.sort_unstable();
        let mut it = ends.into_iter();
        let n = it.len();
        replace_smallest(tp, n, |_| it.next().expect("one end per replacement")).0
    };
    (update(tp_m, finished_maps), update(tp_r, finished_reduces))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[u64]) -> Vec<Time> {
        v.iter().map(|x| Time::from_secs(*x)).collect()
    }

    /// The pseudo-code taken literally: pick the smallest, overwrite, sort.
    fn literal(tp: &[Time], n: usize, tau: Time, floor: Time) -> (SlotVec, Time) {
        let mut v = tp.to_vec();
        let mut e = floor;
        for _ in 0..n {
            v[0] = v[0].max(floor) + tau;
            e = v[0];
            v.sort_unstable();
        }
        (v, e)
    }

    #[test]
    fn cal_mt_hand_worked() {
        // l = 3 map slots free at 0, 4 and 10; now = 2; M = 4 maps of 5 s.
        // Map 1: slot 0 -> max(0,2)+5 = 7   vector [4, 7, 10]
        // Map 2: slot 4 -> 4+5 = 9          vector [7, 9, 10]
        // Map 3: slot 7 -> 7+5 = 12         vector [9, 10, 12]
        // Map 4: slot 9 -> 9+5 = 14         vector [10, 12, 14], e_m = 14
        let (v, em) = cal_mt(&s(&[0, 4, 10]), 4, Time::from_secs(5), Time::from_secs(2));
        assert_eq!(v, s(&[10, 12, 14]));
        assert_eq!(em, Time::from_secs(14));
    }

    #[test]
    fn cal_rt_hand_worked() {
        // Continuing: reduce slots [0, 20], e_m = 14, R = 3 reduces of 6 s.
        // Reduce 1: slot 0 -> max(0,14)+6 = 20   vector [20, 20]
        // Reduce 2: slot 20 -> 26                vector [20, 26]
        // Reduce 3: slot 20 -> 26                vector [26, 26], e = 26
        let (v, e) = cal_rt(&s(&[0, 20]), 3, Time::from_secs(6), Time::from_secs(14));
        assert_eq!(v, s(&[26, 26]));
        assert_eq!(e, Time::from_secs(26));
        // A map-only job ends with its maps and leaves the vector alone.
        let (v, e) = cal_rt(&s(&[0, 20]), 0, Time::from_secs(6), Time::from_secs(14));
        assert_eq!((v, e), (s(&[0, 20]), Time::from_secs(14)));
    }

    #[test]
    fn no_slots_means_never() {
        let (_, em) = cal_mt(&[], 2, Time::from_secs(1), Time::ZERO);
        assert_eq!(em, Time::MAX);
        let (_, e) = cal_rt(&[], 1, Time::from_secs(1), Time::ZERO);
        assert_eq!(e, Time::MAX);
    }

    #[test]
    fn satu_hand_worked() {
        // Predecessor's map slots [0, 3, 8]; J's maps ended at 6, 2 (any
        // order). Sorted ends 2, 6: 2 replaces 0 -> [2, 3, 8]; 6 replaces 2
        // -> [3, 6, 8]. Reduce slots [5, 9]; one reduce ended at 12:
        // replaces 5 -> [9, 12].
        let (um, ur) = satu(&s(&[0, 3, 8]), &s(&[5, 9]), &s(&[6, 2]), &s(&[12]));
        assert_eq!(um, s(&[3, 6, 8]));
        assert_eq!(ur, s(&[9, 12]));
        // More tasks than slots: each end replaces the current smallest.
        let (um, _) = satu(&s(&[0, 0]), &[], &s(&[1, 2, 3, 4]), &[]);
        assert_eq!(um, s(&[3, 4]));
    }

    #[test]
    fn fast_loop_equals_the_pseudo_code() {
        let mut x = 12345u64;
        let mut rnd = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for _ in 0..300 {
            let l = 1 + rnd(12) as usize;
            let mut tp: Vec<Time> = (0..l).map(|_| Time::from_millis(rnd(50_000))).collect();
            tp.sort_unstable();
            let n = rnd(40) as usize;
            let tau = Time::from_millis(1 + rnd(9000));
            let floor = Time::from_millis(rnd(30_000));
            let (v, e) = cal_mt(&tp, n, tau, floor);
            let (lv, le) = literal(&tp, n, tau, floor);
            assert_eq!(v, lv);
            if n > 0 {
                assert_eq!(e, le);
            }
        }
    }
}
