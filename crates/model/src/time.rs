//! Virtual time.
//!
//! Every instant and every length of time in mrsched is an integer number of
//! microseconds. Integers make event order exact (no two runs can disagree on
//! which of two events came first because of a rounding difference), and a
//! microsecond is fine enough for heartbeats, task times and bandwidth
//! arithmetic while `u64` still spans half a million years.
//!
//! The same type serves for instants ("at 12 s") and durations ("for 3 s"):
//! the scheduling papers mix the two freely and a second newtype would only add
//! conversions.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Add, AddAssign, Mul, Sub, SubAssign};

/// An instant or a duration in virtual time, in whole microseconds.
#[derive(
    Copy, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Time(pub u64);

impl Time {
    /// Time zero: the start of a simulation.
    pub const ZERO: Time = Time(0);
    /// The largest representable time; used as "never".
    pub const MAX: Time = Time(u64::MAX);
    /// Microseconds in one second.
    pub const MICROS_PER_SEC: u64 = 1_000_000;

    /// Whole seconds.
    pub const fn from_secs(s: u64) -> Time {
        Time(s.saturating_mul(Self::MICROS_PER_SEC))
    }

    /// Whole milliseconds.
    pub const fn from_millis(ms: u64) -> Time {
        Time(ms.saturating_mul(1000))
    }

    /// Fractional seconds, rounded to the nearest microsecond. Negative and NaN
    /// inputs give zero and huge ones saturate; callers validate user input
    /// before converting, so these cases only guard against arithmetic noise.
    #[inline]
    pub fn from_secs_f64(s: f64) -> Time {
        if s.is_nan() || s <= 0.0 {
            return Time::ZERO;
        }
        let x = s * Self::MICROS_PER_SEC as f64;
        // Below 2^52 the fraction of `x` is exact, so this is `x.round()`
        // (half away from zero) without the libm call `round` is on
        // baseline x86-64: every task's duration goes through here.
        if x < (1u64 << 52) as f64 {
            let t = x as u64;
            return Time(t + u64::from(x - t as f64 >= 0.5));
        }
        let us = x.round();
        if us >= u64::MAX as f64 {
            Time::MAX
        } else {
            Time(us as u64)
        }
    }

    /// This time in seconds.
    #[inline]
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / Self::MICROS_PER_SEC as f64
    }

    /// Microseconds.
    pub const fn micros(self) -> u64 {
        self.0
    }

    /// `self - other`, or zero when `other` is later.
    pub fn saturating_sub(self, other: Time) -> Time {
        Time(self.0.saturating_sub(other.0))
    }

    /// `self + other`, saturating at [`Time::MAX`].
    pub fn saturating_add(self, other: Time) -> Time {
        Time(self.0.saturating_add(other.0))
    }

    /// Multiply a duration by a non-negative factor, rounding to the nearest
    /// microsecond.
    #[inline]
    pub fn scale(self, factor: f64) -> Time {
        Time::from_secs_f64(self.as_secs_f64() * factor)
    }
}

impl Add for Time {
    type Output = Time;
    fn add(self, rhs: Time) -> Time {
        Time(self.0.saturating_add(rhs.0))
    }
}

impl AddAssign for Time {
    fn add_assign(&mut self, rhs: Time) {
        self.0 = self.0.saturating_add(rhs.0);
    }
}

impl Sub for Time {
    type Output = Time;
    /// Saturating: a negative duration is never meaningful here.
    fn sub(self, rhs: Time) -> Time {
        Time(self.0.saturating_sub(rhs.0))
    }
}

impl SubAssign for Time {
    fn sub_assign(&mut self, rhs: Time) {
        self.0 = self.0.saturating_sub(rhs.0);
    }
}

impl Mul<u64> for Time {
    type Output = Time;
    fn mul(self, rhs: u64) -> Time {
        Time(self.0.saturating_mul(rhs))
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == Time::MAX {
            return f.write_str("never");
        }
        write!(f, "{:.3}s", self.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_matches_f64_round() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let cases = [
            0.5e-6,
            1.5e-6,
            2.5e-6,
            0.4999999e-6,
            1e-7,
            // The float just below 2^52 µs (where s * 1e6 stops having a fraction).
            f64::from_bits(4503599627.370496f64.to_bits() - 1),
            4503599627.370496,
            9.1e9,
        ];
        for s in cases.into_iter().chain((0..100_000).map(|i| {
            let scale = [1e-6, 1e-3, 1.0, 1e3, 1e6, 1e9][i % 6];
            (next() >> 11) as f64 / (1u64 << 53) as f64 * scale
        })) {
            let want = (s * 1e6).round() as u64;
            assert_eq!(Time::from_secs_f64(s), Time(want), "{s}");
        }
        // Exact halves round away from zero.
        assert_eq!(Time::from_secs_f64(2.5e-6), Time(3));
    }

    #[test]
    fn seconds_round_trip() {
        assert_eq!(Time::from_secs_f64(1.5), Time(1_500_000));
        assert_eq!(Time::from_secs(3).as_secs_f64(), 3.0);
        assert_eq!(Time::from_secs_f64(-2.0), Time::ZERO);
        assert_eq!(Time::from_secs_f64(f64::NAN), Time::ZERO);
        assert_eq!(Time::from_secs_f64(1e300), Time::MAX);
        assert_eq!(Time::from_millis(2), Time(2000));
    }

    #[test]
    fn arithmetic_saturates() {
        assert_eq!(Time(5) - Time(7), Time::ZERO);
        assert_eq!(Time::MAX + Time(1), Time::MAX);
        assert_eq!(Time::from_secs(10).scale(0.25), Time::from_secs_f64(2.5));
        assert_eq!(format!("{}", Time::from_millis(1234)), "1.234s");
    }
}
