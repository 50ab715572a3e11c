//! What busy machines take away from the relaxations' capacity cuts.
//!
//! Why: a batch re-plan (SO-MarS, seed 001 §5.3) starts while machines
//! still run tasks; [`Instance::machine_free`] holds when each one frees.
//! The PGCs of §4.1 (and Eq. (13) of §4.4) assume every machine is free
//! from time 0, so on a re-plan they let the LP run the pending work on
//! machines that are busy and its order ignores the queue that forms. The
//! list schedule always started each machine at its free time; these
//! bounds make the LP do the same, while staying a valid lower bound.
//!
//! The bound: put the tasks of a set B on machine i in any order starting
//! at its free time f_i; with `x_i = p(B_i)`, the single-machine
//! inequality gives `sum_{B_i} p_u S_u >= f_i x_i + (x_i^2 - p^2(B_i)) / 2`.
//! Summing over machines and relaxing the split `x` to any non-negative
//! reals with `sum x_i = p(B)`:
//!
//! `sum_B p_u S_u >= W(p(B)) - p^2(B) / 2`,
//! `W(P) = min { sum_i f_i x_i + x_i^2 / 2 : sum_i x_i = P, x >= 0 }`.
//!
//! W is water filling: the k machines free earliest get `x_i = lambda -
//! f_i` with `lambda = (P + F_k) / k`, so `W(P) = (P + F_k)^2 / (2k) -
//! F2_k / 2` (F_k, F2_k: sum of the k smallest f and of their squares).
//! With every f_i = 0 it is the PGC's `P^2 / (2|M|)`; with all f_i = f it
//! is that plus `f P` (the PGC shifted to f). W is convex in P (the value
//! of a convex program in its right-hand side), so the class argument of
//! [`super::classes`] (violation convex in how many of a class are in B)
//! still holds. Machines that never free (dead nodes) take no work.
//! Every task also starts no earlier than the earliest free time.

use super::instance::Instance;

/// The machines' free times, sorted, with prefix sums for [`Capacity::w`].
#[derive(Clone, Debug, PartialEq)]
pub struct Capacity {
    free: Vec<f64>,
    sum: Vec<f64>,
    sum2: Vec<f64>,
}

impl Capacity {
    /// The capacity of `inst`'s machines (those with a finite free time).
    pub fn of(inst: &Instance) -> Capacity {
        Capacity::new(&inst.machine_free)
    }

    /// The capacity of machines free at `free` (non-finite: never).
    pub fn new(free: &[f64]) -> Capacity {
        let mut f: Vec<f64> = free.iter().copied().filter(|f| f.is_finite()).collect();
        f.sort_by(|a, b| a.total_cmp(b));
        let (mut sum, mut sum2) = (vec![0.0], vec![0.0]);
        for &x in &f {
            sum.push(sum[sum.len() - 1] + x);
            sum2.push(sum2[sum2.len() - 1] + x * x);
        }
        Capacity { free: f, sum, sum2 }
    }

    /// The earliest time any machine is free (0 with no machine).
    pub fn earliest(&self) -> f64 {
        self.free.first().copied().unwrap_or(0.0).max(0.0)
    }

    /// W(P): the least `sum f_i x_i + x_i^2 / 2` over splits of `p` work.
    pub fn w(&self, p: f64) -> f64 {
        let m = self.free.len();
        if m == 0 {
            return 0.0;
        }
        let mut k = 1;
        while k < m && self.free[k] < (p + self.sum[k]) / k as f64 {
            k += 1;
        }
        let s = p + self.sum[k];
        s * s / (2.0 * k as f64) - self.sum2[k] / 2.0
    }

    /// Right-hand side of the start-time PGC for a set with total time
    /// `sp` and total squared time `sp2`: `sum_B p S >= W(sp) - sp2 / 2`.
    pub fn start_rhs(&self, sp: f64, sp2: f64) -> f64 {
        self.w(sp) - sp2 / 2.0
    }

    /// Right-hand side of the completion-time form (Eq. (13)):
    /// `sum_B p C >= W(sp) + sp2 / 2`.
    pub fn completion_rhs(&self, sp: f64, sp2: f64) -> f64 {
        self.w(sp) + sp2 / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_free_at_zero_is_the_pgc() {
        let c = Capacity::new(&[0.0; 4]);
        for p in [0.0, 1.0, 7.5, 100.0] {
            assert_eq!(c.w(p), p * p / 8.0);
        }
    }

    #[test]
    fn all_free_at_f_shifts_the_pgc_by_f() {
        let c = Capacity::new(&[30.0; 3]);
        for p in [0.0, 6.0, 90.0] {
            assert!((c.w(p) - (30.0 * p + p * p / 6.0)).abs() < 1e-9);
        }
    }

    #[test]
    fn water_filling_by_hand() {
        // Free at 0, 10 and never. 4 units: all on the first machine,
        // 4^2 / 2 = 8. 20 units: lambda = 15, x = (15, 5), 15^2/2 + 10*5 +
        // 5^2/2 = 112.5 + 50 + 12.5 = 175.
        let c = Capacity::new(&[10.0, 0.0, f64::INFINITY]);
        assert!((c.w(4.0) - 8.0).abs() < 1e-9);
        assert!((c.w(20.0) - 175.0).abs() < 1e-9);
        assert_eq!(c.earliest(), 0.0);
        assert_eq!(Capacity::new(&[5.0, 9.0]).earliest(), 5.0);
    }

    #[test]
    fn w_is_the_minimum_over_splits() {
        // Against a grid over two machines' splits.
        let c = Capacity::new(&[3.0, 11.0]);
        for p in [1.0, 8.0, 8.5, 20.0, 40.0] {
            let mut best = f64::INFINITY;
            for i in 0..=4000 {
                let x = p * i as f64 / 4000.0;
                let y = p - x;
                best = best.min(3.0 * x + x * x / 2.0 + 11.0 * y + y * y / 2.0);
            }
            assert!((c.w(p) - best).abs() < 1e-3 * best.max(1.0), "{p}");
        }
    }
}
