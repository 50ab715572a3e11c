//! The LP solver behind the relaxations, through a small backend trait so
//! another solver can be put behind it (research/crates.md §1 measured
//! microlp, HiGHS and clarabel on this LP).
//!
//! The default backend is microlp 0.6 (pure Rust, 28 CPU-s to build). Its
//! warm start (`Solution::add_constraint`) re-factorises the basis and
//! copies the whole matrix for every added row, which is cheap for a few
//! cuts but not for the thousands of PGCs one COGE round adds, so this
//! backend rebuilds and solves cold each round; the cuts are kept sparse by
//! [`CutPool`] instead.

use microlp::{ComparisonOp, OptimizationDirection, Problem, Variable};

/// A variable of the LP.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Var(pub usize);

/// A row's sense.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// `>=`
    Ge,
    /// `<=`
    Le,
    /// `=`
    Eq,
}

/// Why an LP could not be solved.
#[derive(Clone, Debug, PartialEq)]
pub struct LpError(pub String);

impl std::fmt::Display for LpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LP solver: {}", self.0)
    }
}

impl std::error::Error for LpError {}

/// A minimising LP that grows between solves.
pub trait LpBackend {
    /// A new variable with objective coefficient `obj` and bounds.
    fn add_var(&mut self, obj: f64, lo: f64, hi: f64) -> Var;
    /// A new row `sum coeff x cmp rhs`.
    fn add_row(&mut self, terms: &[(Var, f64)], cmp: Cmp, rhs: f64);
    /// Solve (again, with everything added so far); the optimal objective.
    fn solve(&mut self) -> Result<f64, LpError>;
    /// A variable's value in the last solution.
    fn value(&self, v: Var) -> f64;
    /// Simplex iterations of the last solve, when the solver reports them.
    fn iterations(&self) -> u64 {
        0
    }
}

/// microlp 0.6, solved cold after each batch of rows.
pub struct Microlp {
    problem: Problem,
    vars: Vec<Variable>,
    values: Vec<f64>,
    iterations: u64,
}

impl Default for Microlp {
    fn default() -> Self {
        Microlp {
            problem: Problem::new(OptimizationDirection::Minimize),
            vars: Vec::new(),
            values: Vec::new(),
            iterations: 0,
        }
    }
}

impl LpBackend for Microlp {
    fn add_var(&mut self, obj: f64, lo: f64, hi: f64) -> Var {
        self.vars.push(self.problem.add_var(obj, (lo, hi)));
        Var(self.vars.len() - 1)
    }

    fn add_row(&mut self, terms: &[(Var, f64)], cmp: Cmp, rhs: f64) {
        let op = match cmp {
            Cmp::Ge => ComparisonOp::Ge,
            Cmp::Le => ComparisonOp::Le,
            Cmp::Eq => ComparisonOp::Eq,
        };
        let t: Vec<(Variable, f64)> = terms.iter().map(|(v, c)| (self.vars[v.0], *c)).collect();
        self.problem.add_constraint(t.as_slice(), op, rhs);
    }

    fn solve(&mut self) -> Result<f64, LpError> {
        let out = self.problem.solve().map_err(|e| LpError(e.to_string()))?;
        let sol = out
            .into_solution()
            .map_err(|_| LpError("interrupted".into()))?;
        self.values = self.vars.iter().map(|v| sol.var_value_raw(*v)).collect();
        self.iterations = sol.stats().lp_iterations;
        Ok(sol.objective())
    }

    fn value(&self, v: Var) -> f64 {
        self.values.get(v.0).copied().unwrap_or(0.0)
    }

    fn iterations(&self) -> u64 {
        self.iterations
    }
}

/// Name of the solver [`default_backend`] returns ("HiGHS" or "microlp"),
/// for reports.
pub fn default_backend_name() -> &'static str {
    #[cfg(feature = "highs")]
    if std::env::var("MRSCHED_LP").map_or(true, |v| v != "microlp") {
        return "HiGHS";
    }
    "microlp"
}

/// The backend every planner uses: HiGHS when built with the `highs`
/// feature, microlp otherwise; `MRSCHED_LP=microlp` picks microlp in a
/// HiGHS build (cross-checks).
pub fn default_backend() -> Box<dyn LpBackend> {
    #[cfg(feature = "highs")]
    if default_backend_name() == "HiGHS" {
        return Box::new(super::highs_backend::Highs::default());
    }
    Box::new(Microlp::default())
}

/// Adds prefix cuts `sum_{k <= i} c_k x_{order[k]} >= rhs_i` sparsely.
///
/// A PGC or an Eq. (13) cut covers a prefix of a sorted task list, so it has
/// up to |T| non-zeros and one round adds up to |T| of them. Partial sums of
/// `block` consecutive terms are carried in auxiliary variables
/// `Q_b <= Q_{b-1} + sum_{block b} c x` (a chain over the order), and a cut
/// is `Q_{b} + (the terms after the last full block) >= rhs`. Because the
/// cuts are `>=` rows and Q only appears with a plus sign, `Q_b` can always
/// equal the true partial sum, so the LP is the same as with dense cuts
/// (same optimum, projected on the original variables), with O(|T| x block)
/// non-zeros per round instead of O(|T|^2).
pub struct CutPool {
    /// Terms per chain block.
    pub block: usize,
}

impl CutPool {
    /// Add the cuts at prefix positions `cuts` (`(last index, rhs)`, in any
    /// order) over `terms` (in sort order). Returns the number of non-zeros
    /// added.
    pub fn add(
        &self,
        lp: &mut dyn LpBackend,
        terms: &[(Var, f64)],
        cuts: &[(usize, f64)],
    ) -> usize {
        let Some(last) = cuts.iter().map(|c| c.0).max() else {
            return 0;
        };
        let b = self.block.max(1);
        let full = (last + 1) / b;
        let mut chain = Vec::with_capacity(full);
        let mut nnz = 0;
        for k in 0..full {
            let q = lp.add_var(0.0, f64::NEG_INFINITY, f64::INFINITY);
            let mut row: Vec<(Var, f64)> = terms[k * b..(k + 1) * b]
                .iter()
                .map(|&(v, c)| (v, c))
                .collect();
            row.push((q, -1.0));
            if k > 0 {
                row.push((chain[k - 1], 1.0));
            }
            nnz += row.len();
            lp.add_row(&row, Cmp::Ge, 0.0);
            chain.push(q);
        }
        for &(i, rhs) in cuts {
            let blocks = (i + 1) / b;
            let mut row: Vec<(Var, f64)> = terms[blocks * b..=i].to_vec();
            if blocks > 0 {
                row.push((chain[blocks - 1], 1.0));
            }
            nnz += row.len();
            lp.add_row(&row, Cmp::Ge, rhs);
        }
        nnz
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn microlp_solves_a_small_lp() {
        // min x + 2y, x + y >= 3, x <= 1  ->  x = 1, y = 2, objective 5.
        let mut lp = Microlp::default();
        let x = lp.add_var(1.0, 0.0, 1.0);
        let y = lp.add_var(2.0, 0.0, f64::INFINITY);
        lp.add_row(&[(x, 1.0), (y, 1.0)], Cmp::Ge, 3.0);
        let obj = lp.solve().unwrap();
        assert!((obj - 5.0).abs() < 1e-9);
        assert!((lp.value(y) - 2.0).abs() < 1e-9);
        // Growing and solving again.
        lp.add_row(&[(y, 1.0)], Cmp::Ge, 4.0);
        let obj = lp.solve().unwrap();
        assert!((obj - 8.0).abs() < 1e-9, "{obj}");
    }

    #[test]
    fn chained_cuts_equal_dense_cuts() {
        // min sum x_i with prefix cuts sum_{k<=i} x_k >= (i+1)^2: both
        // formulations give the same optimum.
        let n = 23;
        let rhs = |i: usize| ((i + 1) * (i + 1)) as f64;
        let mut dense = Microlp::default();
        let xs: Vec<Var> = (0..n)
            .map(|_| dense.add_var(1.0 + 0.01, 0.0, f64::INFINITY))
            .collect();
        for i in 0..n {
            let row: Vec<(Var, f64)> = xs[..=i].iter().map(|&v| (v, 1.0)).collect();
            dense.add_row(&row, Cmp::Ge, rhs(i));
        }
        let a = dense.solve().unwrap();
        let mut sparse = Microlp::default();
        let ys: Vec<Var> = (0..n)
            .map(|_| sparse.add_var(1.0 + 0.01, 0.0, f64::INFINITY))
            .collect();
        let terms: Vec<(Var, f64)> = ys.iter().map(|&v| (v, 1.0)).collect();
        let cuts: Vec<(usize, f64)> = (0..n).map(|i| (i, rhs(i))).collect();
        CutPool { block: 4 }.add(&mut sparse, &terms, &cuts);
        let b = sparse.solve().unwrap();
        assert!((a - b).abs() < 1e-6 * a.abs(), "{a} vs {b}");
        let total: f64 = ys.iter().map(|&v| sparse.value(v)).sum();
        assert!(total + 1e-6 >= rhs(n - 1));
    }
}
