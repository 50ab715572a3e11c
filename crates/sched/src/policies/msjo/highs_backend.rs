//! The HiGHS backend (the optional `highs` cargo feature).
//!
//! Why HiGHS: COGE and the task-level LPs re-solve after every round of
//! cuts, and HiGHS keeps its basis between solves, so a round after the
//! first costs a few dual simplex iterations instead of a cold solve
//! (microlp 0.6 can warm-start only one row at a time, re-factorising for
//! each). Variables and rows are buffered and handed to the one HiGHS model
//! that lives as long as the backend in a single `Highs_addCols` and a
//! single `Highs_addRows` call per solve: added one at a time, each row
//! makes HiGHS update its basis data and copy its row-wise matrix, which
//! cost more than the simplex itself once a round brings thousands of cuts
//! (perf: 80% of a 60-job random-time COGE).

use super::lp::{Cmp, LpBackend, LpError, Var};
use highs::{HighsModelStatus, Model, RowProblem, Sense, SolvedModel};
use highs_sys::HighsInt;

/// A HiGHS model that grows between solves and keeps its basis.
pub struct Highs {
    /// The model, `None` only while a solve runs.
    model: Option<Model>,
    /// Columns in the model plus pending ones.
    cols: usize,
    /// Columns not yet in the model: cost, lower, upper.
    new_cols: (Vec<f64>, Vec<f64>, Vec<f64>),
    /// Rows not yet in the model, row-wise: lower, upper, starts, index, value.
    new_rows: PendingRows,
    values: Vec<f64>,
    iterations: u64,
    /// Simplex iterations HiGHS had counted before the last solve.
    counted: u64,
}

#[derive(Default)]
struct PendingRows {
    lower: Vec<f64>,
    upper: Vec<f64>,
    starts: Vec<HighsInt>,
    index: Vec<HighsInt>,
    value: Vec<f64>,
}

impl Default for Highs {
    fn default() -> Self {
        let mut model = Model::new(RowProblem::default());
        model.make_quiet();
        model.set_sense(Sense::Minimise);
        // One thread: runs must not depend on the machine's core count,
        // and the experiments already run one plan per core.
        model.set_option("threads", 1);
        // Devex pricing in the dual simplex: with HiGHS's default (dual
        // steepest edge) every row added to a solved model gets its exact
        // edge weight, one backward solve per row, which dominated rounds of
        // thousands of cuts (100 random-time jobs: 78 s against 8 s).
        model.set_option("simplex_dual_edge_weight_strategy", 1);
        Highs {
            model: Some(model),
            cols: 0,
            new_cols: Default::default(),
            new_rows: PendingRows::default(),
            values: Vec::new(),
            iterations: 0,
            counted: 0,
        }
    }
}

/// HiGHS's running count of simplex iterations of a model.
fn simplex_iterations(solved: &mut SolvedModel) -> u64 {
    let name = c"simplex_iteration_count";
    let mut n: HighsInt = 0;
    // SAFETY: the pointer is the live model's, the name a C string and `n`
    // a valid out-parameter of HiGHS's integer info type.
    let status =
        unsafe { highs_sys::Highs_getIntInfoValue(solved.as_mut_ptr(), name.as_ptr(), &mut n) };
    if status == highs_sys::STATUS_OK {
        n.max(0) as u64
    } else {
        0
    }
}

/// A count or index as HiGHS's integer type.
fn hint(n: usize) -> Result<HighsInt, LpError> {
    HighsInt::try_from(n).map_err(|_| LpError(format!("HiGHS: {n} is beyond its index range")))
}

impl Highs {
    /// Hand the buffered columns, then rows, to the model.
    fn flush(&mut self) -> Result<(), LpError> {
        let model = self.model.as_mut().expect("model present between solves");
        let ptr = model.as_mut_ptr();
        let (cost, lo, hi) = &mut self.new_cols;
        if !cost.is_empty() {
            let zero: [HighsInt; 1] = [0];
            // SAFETY: three arrays of `cost.len()` values and no non-zeros
            // (HiGHS reads no entry of starts, index or value then).
            let status = unsafe {
                highs_sys::Highs_addCols(
                    ptr,
                    hint(cost.len())?,
                    cost.as_ptr(),
                    lo.as_ptr(),
                    hi.as_ptr(),
                    0,
                    zero.as_ptr(),
                    zero.as_ptr(),
                    [0.0f64].as_ptr(),
                )
            };
            if status == highs_sys::STATUS_ERROR {
                return Err(LpError("HiGHS refused new columns".into()));
            }
            cost.clear();
            lo.clear();
            hi.clear();
        }
        let r = &mut self.new_rows;
        if !r.lower.is_empty() {
            // SAFETY: `lower`, `upper` and `starts` have one entry per row,
            // `index` and `value` one per non-zero, indices below the
            // column count just flushed.
            let status = unsafe {
                highs_sys::Highs_addRows(
                    ptr,
                    hint(r.lower.len())?,
                    r.lower.as_ptr(),
                    r.upper.as_ptr(),
                    hint(r.index.len())?,
                    r.starts.as_ptr(),
                    r.index.as_ptr(),
                    r.value.as_ptr(),
                )
            };
            if status == highs_sys::STATUS_ERROR {
                return Err(LpError("HiGHS refused new rows".into()));
            }
            *r = PendingRows::default();
        }
        Ok(())
    }
}

impl LpBackend for Highs {
    fn add_var(&mut self, obj: f64, lo: f64, hi: f64) -> Var {
        self.new_cols.0.push(obj);
        self.new_cols.1.push(lo);
        self.new_cols.2.push(hi);
        self.cols += 1;
        Var(self.cols - 1)
    }

    fn add_row(&mut self, terms: &[(Var, f64)], cmp: Cmp, rhs: f64) {
        let r = &mut self.new_rows;
        let (lo, hi) = match cmp {
            Cmp::Ge => (rhs, f64::INFINITY),
            Cmp::Le => (f64::NEG_INFINITY, rhs),
            Cmp::Eq => (rhs, rhs),
        };
        r.lower.push(lo);
        r.upper.push(hi);
        // Sizes are checked when the rows are flushed; an index that does
        // not fit saturates and is refused there.
        r.starts
            .push(HighsInt::try_from(r.index.len()).unwrap_or(HighsInt::MAX));
        for &(v, c) in terms {
            r.index
                .push(HighsInt::try_from(v.0).unwrap_or(HighsInt::MAX));
            r.value.push(c);
        }
    }

    fn solve(&mut self) -> Result<f64, LpError> {
        self.flush()?;
        let model = self.model.take().expect("model present between solves");
        let mut solved = model
            .try_solve()
            .map_err(|e| LpError(format!("HiGHS: {e:?}")))?;
        let status = solved.status();
        let total = simplex_iterations(&mut solved);
        self.iterations = total.saturating_sub(self.counted);
        self.counted = total;
        let result = if status == HighsModelStatus::Optimal {
            self.values = solved.get_solution().columns().to_vec();
            Ok(solved.objective_value())
        } else {
            Err(LpError(format!("HiGHS: {status:?}")))
        };
        self.model = Some(solved.into());
        result
    }

    fn value(&self, v: Var) -> f64 {
        self.values.get(v.0).copied().unwrap_or(0.0)
    }

    fn iterations(&self) -> u64 {
        self.iterations
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policies::msjo::lp::{CutPool, Microlp};

    /// The same growing LP in both backends: the objectives agree after the
    /// first solve and after rows are added (HiGHS re-solves warm).
    #[test]
    fn agrees_with_microlp_before_and_after_adding_rows() {
        fn run(lp: &mut dyn LpBackend) -> (f64, f64) {
            // min sum (1 + i/10) x_i, x_i >= i, prefix cuts sum_{k<=i} x_k >= (i+1)^2.
            let xs: Vec<Var> = (0..15)
                .map(|i| lp.add_var(1.0 + i as f64 / 10.0, i as f64, f64::INFINITY))
                .collect();
            lp.add_row(&[(xs[0], 1.0), (xs[14], -1.0)], Cmp::Le, 0.0);
            let first = lp.solve().unwrap();
            let terms: Vec<(Var, f64)> = xs.iter().map(|&v| (v, 1.0)).collect();
            let cuts: Vec<(usize, f64)> =
                (0..15).map(|i| (i, ((i + 1) * (i + 1)) as f64)).collect();
            CutPool { block: 4 }.add(lp, &terms, &cuts);
            (first, lp.solve().unwrap())
        }
        let (h1, h2) = run(&mut Highs::default());
        let (m1, m2) = run(&mut Microlp::default());
        assert!((h1 - m1).abs() < 1e-6 * m1.abs(), "{h1} vs {m1}");
        assert!((h2 - m2).abs() < 1e-6 * m2.abs(), "{h2} vs {m2}");
        assert!(h2 > h1 + 1.0, "the cuts bind: {h1} -> {h2}");
    }
}
