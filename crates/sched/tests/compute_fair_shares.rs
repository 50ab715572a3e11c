//! Cross-checks of [`yarn_fair_shares`] against the scenarios of YARN's
//! `TestComputeFairShares` (hadoop-yarn-server-resourcemanager,
//! `scheduler/fair/TestComputeFairShares.java`): the same claims and
//! capacity, and the numbers that Java test asserts. A `FakeSchedulable`
//! there is `(minShare, maxShare, weight)` with an unbounded maximum and
//! weight 1 by default; its fair share is what we compare.
//!
//! Zero weights and zero maxima are not in that test; their cases follow
//! `ComputeFairShares.getFairShareIfFixed`, which the tests below cite.

use mrsched_sched::share::{yarn_fair_shares, YarnClaim};

/// `FakeSchedulable(minShare, maxShare, weight)`.
fn fake(min: f64, max: f64, weight: f64) -> YarnClaim {
    YarnClaim {
        min,
        max,
        weight,
        active: true,
    }
}

fn min_only(min: f64) -> YarnClaim {
    fake(min, f64::INFINITY, 1.0)
}

fn assert_shares(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).abs() <= 1e-9 * w.abs().max(1.0),
            "got {got:?}, want {want:?}"
        );
    }
}

/// `testEqualSharing`: four claims without limits share 40 equally.
#[test]
fn equal_sharing() {
    let s = yarn_fair_shares(&[YarnClaim::new(); 4], 40.0);
    assert_shares(&s, &[10.0, 10.0, 10.0, 10.0]);
}

/// `testLowMaxShares`: maxima 100, 50, 11, 3 on 40 give 13, 13, 11, 3.
#[test]
fn low_max_shares() {
    let c = [
        fake(0.0, 100.0, 1.0),
        fake(0.0, 50.0, 1.0),
        fake(0.0, 11.0, 1.0),
        fake(0.0, 3.0, 1.0),
    ];
    assert_shares(&yarn_fair_shares(&c, 40.0), &[13.0, 13.0, 11.0, 3.0]);
}

/// `testMinShares`: minimums 20, 18, 0, 2 on 40 give exactly the minimums.
#[test]
fn min_shares() {
    let c = [min_only(20.0), min_only(18.0), min_only(0.0), min_only(2.0)];
    assert_shares(&yarn_fair_shares(&c, 40.0), &[20.0, 18.0, 0.0, 2.0]);
}

/// `testWeightedSharing`: weights 2, 1, 1, 0.5 on 45 give 20, 10, 10, 5.
#[test]
fn weighted_sharing() {
    let c = [
        fake(0.0, f64::INFINITY, 2.0),
        fake(0.0, f64::INFINITY, 1.0),
        fake(0.0, f64::INFINITY, 1.0),
        fake(0.0, f64::INFINITY, 0.5),
    ];
    assert_shares(&yarn_fair_shares(&c, 45.0), &[20.0, 10.0, 10.0, 5.0]);
}

/// `testWeightedSharingWithMaxShares`: maxima 10, 11, 30, 20 and weights
/// 2, 1, 1, 0.5 on 45 give 10, 11, 16, 8.
#[test]
fn weighted_sharing_with_max_shares() {
    let c = [
        fake(0.0, 10.0, 2.0),
        fake(0.0, 11.0, 1.0),
        fake(0.0, 30.0, 1.0),
        fake(0.0, 20.0, 0.5),
    ];
    assert_shares(&yarn_fair_shares(&c, 45.0), &[10.0, 11.0, 16.0, 8.0]);
}

/// `testWeightedSharingWithMinShares`: minimums 20, 0, 5, 15 and weights
/// 2, 1, 1, 0.5 on 45 give 20, 5, 5, 15.
#[test]
fn weighted_sharing_with_min_shares() {
    let c = [
        fake(20.0, f64::INFINITY, 2.0),
        fake(0.0, f64::INFINITY, 1.0),
        fake(5.0, f64::INFINITY, 1.0),
        fake(15.0, f64::INFINITY, 0.5),
    ];
    assert_shares(&yarn_fair_shares(&c, 45.0), &[20.0, 5.0, 5.0, 15.0]);
}

/// `testLargeShares`: 40 million shared by four gives 10 million each.
#[test]
fn large_shares() {
    let m = 1e6;
    let s = yarn_fair_shares(&[YarnClaim::new(); 4], 40.0 * m);
    assert_shares(&s, &[10.0 * m, 10.0 * m, 10.0 * m, 10.0 * m]);
}

/// `testEmptyList`: nothing to share among is no error.
#[test]
fn empty_list() {
    assert!(yarn_fair_shares(&[], 40.0).is_empty());
}

/// `testCPU`: the same as `testWeightedSharingWithMinShares` on vcores
/// (one routine per resource kind: slots here) gives 20, 5, 5, 15.
#[test]
fn cpu() {
    let c = [
        fake(20.0, f64::INFINITY, 2.0),
        fake(0.0, f64::INFINITY, 1.0),
        fake(5.0, f64::INFINITY, 1.0),
        fake(15.0, f64::INFINITY, 0.5),
    ];
    assert_shares(&yarn_fair_shares(&c, 45.0), &[20.0, 5.0, 5.0, 15.0]);
}

/// `testResourceUsedWithWeightToResourceRatio`: two minimums of
/// `Integer.MAX_VALUE` on a capacity of `Integer.MAX_VALUE` end (the Java
/// test only asks that it terminates); each keeps its whole minimum, so
/// the shares add up to twice the capacity: YARN does not scale minimums
/// above the capacity down, unlike [`mrsched_sched::share::fair_shares`].
#[test]
fn resource_used_with_weight_to_resource_ratio() {
    let max = i32::MAX as f64;
    let s = yarn_fair_shares(&[min_only(max), min_only(max)], max);
    assert_shares(&s, &[max, max]);
    let hfs = mrsched_sched::share::fair_shares(
        &[mrsched_sched::share::Claim {
            demand: max,
            min: max,
            weight: 1.0,
        }; 2],
        max,
    );
    assert_shares(&hfs, &[max / 2.0, max / 2.0]);
}

/// `ComputeFairShares.getFairShareIfFixed`: weight 0 gets its minimum,
/// taken before the others share the rest; maximum 0 and inactive claims
/// get nothing.
#[test]
fn zero_weight_zero_max_and_inactive_are_fixed() {
    let c = [
        fake(6.0, f64::INFINITY, 0.0),
        fake(0.0, f64::INFINITY, 0.0),
        fake(5.0, 0.0, 1.0),
        YarnClaim {
            active: false,
            ..fake(8.0, f64::INFINITY, 1.0)
        },
        fake(0.0, f64::INFINITY, 1.0),
        fake(0.0, f64::INFINITY, 3.0),
    ];
    assert_shares(
        &yarn_fair_shares(&c, 46.0),
        &[6.0, 0.0, 0.0, 0.0, 10.0, 30.0],
    );
}
