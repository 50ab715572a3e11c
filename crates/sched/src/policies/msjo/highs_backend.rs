//! The HiGHS backend (the optional `highs` cargo feature).
//!
//! Why HiGHS: COGE and the task-level LPs re-solve after every round of
//! cuts, and HiGHS keeps its basis between solves, so a round after the
//! first costs a few dual simplex iterations instead of a cold solve
//! (microlp 0.6 can warm-start only one row at a time, re-factorising for
//! each). Variables and rows go straight into one HiGHS model that lives
//! as long as the backend.

use super::lp::{Cmp, LpBackend, LpError, Var};
use highs::{Col, HighsModelStatus, Model, RowProblem, Sense, SolvedModel};

/// A HiGHS model that grows between solves and keeps its basis.
pub struct Highs {
    /// The model, `None` only while a solve runs.
    model: Option<Model>,
    cols: Vec<Col>,
    values: Vec<f64>,
    iterations: u64,
    /// Simplex iterations HiGHS had counted before the last solve.
    counted: u64,
}

impl Default for Highs {
    fn default() -> Self {
        let mut model = Model::new(RowProblem::default());
        model.make_quiet();
        model.set_sense(Sense::Minimise);
        // One thread: runs must not depend on the machine's core count,
        // and the experiments already run one plan per core.
        model.set_option("threads", 1);
        Highs {
            model: Some(model),
            cols: Vec::new(),
            values: Vec::new(),
            iterations: 0,
            counted: 0,
        }
    }
}

impl Highs {
    fn model(&mut self) -> &mut Model {
        self.model.as_mut().expect("model present between solves")
    }
}

/// HiGHS's running count of simplex iterations of a model.
fn simplex_iterations(solved: &mut SolvedModel) -> u64 {
    let name = c"simplex_iteration_count";
    let mut n: highs_sys::HighsInt = 0;
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

impl LpBackend for Highs {
    fn add_var(&mut self, obj: f64, lo: f64, hi: f64) -> Var {
        let col = self.model().add_col(obj, lo..=hi, []);
        self.cols.push(col);
        Var(self.cols.len() - 1)
    }

    fn add_row(&mut self, terms: &[(Var, f64)], cmp: Cmp, rhs: f64) {
        let factors: Vec<(Col, f64)> = terms.iter().map(|&(v, c)| (self.cols[v.0], c)).collect();
        let model = self.model();
        match cmp {
            Cmp::Ge => model.add_row(rhs.., factors),
            Cmp::Le => model.add_row(..=rhs, factors),
            Cmp::Eq => model.add_row(rhs..=rhs, factors),
        };
    }

    fn solve(&mut self) -> Result<f64, LpError> {
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
