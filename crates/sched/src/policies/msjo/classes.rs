//! Interchangeable tasks share one LP variable.
//!
//! Why: the relaxations of seed 001 have one variable per task and the
//! cut rounds of COGE grow with the square of the task count, yet a job's
//! tasks usually come in large groups that the LP cannot tell apart (the
//! paper's uniform scenario: 30 maps of 10 s and 10 reduces of 15 s per
//! job; in a live cluster, per-phase time estimates). Tasks of one job and
//! phase with equal time, release, delay, weight (and machine, when cuts
//! are per machine) form a *class*.
//!
//! Exactness: permuting the tasks of a class maps the LP's feasible set and
//! objective onto themselves, so averaging an optimal solution over those
//! permutations gives an optimal solution that is equal within each class;
//! the LP over one variable per class (rows scaled by the class size) has
//! the same optimum. Separation along a sorted order need only check
//! prefixes that end at a class boundary: with equal values inside a class,
//! a prefix's violation `R(B) - sum_B p x` is a convex function of how many
//! of the class are in B (R is quadratic in p(B) with a positive leading
//! term, the sum is linear), so it peaks at the class's ends. COGE's exit
//! test "no PGC of pi violated" is therefore the same on tasks and classes.

use super::instance::Instance;
use super::lp::Var;
use rustc_hash::FxHashMap;

/// The classes of an instance.
#[derive(Clone, Debug, PartialEq)]
pub struct Classes {
    /// Class of each task.
    pub of_task: Vec<usize>,
    /// Tasks of each class, in index order (the first is its representative).
    pub members: Vec<Vec<usize>>,
}

impl Classes {
    /// Group interchangeable tasks; with `machine_of`, tasks on different
    /// machines stay apart (per-machine cuts tell them apart).
    pub fn new(inst: &Instance, machine_of: Option<&[usize]>) -> Classes {
        let mut index: FxHashMap<(usize, u8, [u64; 4], usize), usize> = FxHashMap::default();
        let mut of_task = Vec::with_capacity(inst.tasks.len());
        let mut members: Vec<Vec<usize>> = Vec::new();
        for (t, task) in inst.tasks.iter().enumerate() {
            let key = (
                task.job,
                task.kind as u8,
                [
                    task.p.to_bits(),
                    task.release.to_bits(),
                    task.delay.to_bits(),
                    task.weight.to_bits(),
                ],
                machine_of.map_or(0, |m| m[t]),
            );
            let c = *index.entry(key).or_insert_with(|| {
                members.push(Vec::new());
                members.len() - 1
            });
            members[c].push(t);
            of_task.push(c);
        }
        Classes { of_task, members }
    }

    /// Number of classes.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether there are no classes (no tasks).
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The representative task of class `c`.
    pub fn rep(&self, c: usize) -> usize {
        self.members[c][0]
    }

    /// How many tasks class `c` holds.
    pub fn size(&self, c: usize) -> f64 {
        self.members[c].len() as f64
    }

    /// The distinct classes of `tasks`, in order of first appearance.
    pub fn of(&self, tasks: &[usize]) -> Vec<usize> {
        let mut seen = rustc_hash::FxHashSet::default();
        tasks
            .iter()
            .map(|&t| self.of_task[t])
            .filter(|&c| seen.insert(c))
            .collect()
    }

    /// The terms of a prefix cut over a class order: each class's variable
    /// with coefficient (class size x p).
    pub fn cut_terms(&self, inst: &Instance, order: &[usize], vars: &[Var]) -> Vec<(Var, f64)> {
        order
            .iter()
            .map(|&k| (vars[k], self.size(k) * inst.tasks[self.rep(k)].p))
            .collect()
    }

    /// `classes` sorted by `key` of their representative, ties by map
    /// first, then representative index (a reduce never precedes a map of
    /// its job on a tie).
    pub fn sorted(
        &self,
        inst: &Instance,
        classes: &[usize],
        key: impl Fn(usize) -> f64,
    ) -> Vec<usize> {
        let mut v = classes.to_vec();
        v.sort_by(|&a, &b| {
            let (ra, rb) = (self.rep(a), self.rep(b));
            key(ra)
                .total_cmp(&key(rb))
                .then((inst.tasks[ra].kind as u8).cmp(&(inst.tasks[rb].kind as u8)))
                .then(ra.cmp(&rb))
        });
        v
    }

    /// The task order of a class order (members of a class consecutive).
    pub fn expand(&self, order: &[usize]) -> Vec<usize> {
        order
            .iter()
            .flat_map(|&c| self.members[c].iter().copied())
            .collect()
    }

    /// Prefixes of a class order, ending at class boundaries, whose cut
    /// `sum_B p x >= rhs(p(B), p^2(B))` the per-class values `x` violate:
    /// `(position in order, rhs)`.
    pub fn violated_prefixes(
        &self,
        inst: &Instance,
        order: &[usize],
        x: &[f64],
        rhs: impl Fn(f64, f64) -> f64,
    ) -> Vec<(usize, f64)> {
        violated_prefixes(
            order
                .iter()
                .map(|&c| (self.size(c), inst.tasks[self.rep(c)].p, x[c])),
            rhs,
        )
    }
}

/// The prefixes of a sequence of `(count, p, x)` groups whose cut
/// `sum_B p x >= rhs(p(B), p^2(B))` is violated: `(position, rhs)`. The
/// one separation routine of every PGC and Eq. (13) check.
pub fn violated_prefixes(
    groups: impl Iterator<Item = (f64, f64, f64)>,
    rhs: impl Fn(f64, f64) -> f64,
) -> Vec<(usize, f64)> {
    let (mut sp, mut sp2, mut spx) = (0.0, 0.0, 0.0);
    let mut out = Vec::new();
    for (pos, (n, p, x)) in groups.enumerate() {
        sp += n * p;
        sp2 += n * p * p;
        spx += n * p * x;
        let r = rhs(sp, sp2);
        if spx < r - 1e-7 * r.abs().max(1.0) {
            out.push((pos, r));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_tasks_of_a_job_phase_share_a_class() {
        let mut inst = Instance::new(2);
        inst.add_job(0.0, 1.0, &[10.0, 10.0, 12.0], &[15.0, 15.0], 0.2);
        inst.add_job(0.0, 1.0, &[10.0], &[], 0.2);
        let c = Classes::new(&inst, None);
        // {m0, m1}, {m2}, {r0, r1}, {job 1's map}.
        assert_eq!(c.len(), 4);
        assert_eq!(c.members[0], vec![0, 1]);
        assert_eq!(c.of(&inst.jobs[0].reduces), vec![2]);
        assert_eq!(c.of_task[5], 3);
        // Per-machine: the two equal maps on different machines split.
        let split = Classes::new(&inst, Some(&[0, 1, 0, 0, 0, 1]));
        assert_eq!(split.len(), 5);
    }

    #[test]
    fn class_boundary_prefixes_find_what_task_prefixes_find() {
        // Four equal tasks, all at x = 0: every prefix violates
        // sum p x >= (p(B))^2 / 2; as one class only the full prefix is
        // checked, and it is violated too.
        let mut inst = Instance::new(1);
        inst.add_job(0.0, 1.0, &[3.0; 4], &[], 0.0);
        let c = Classes::new(&inst, None);
        let v = c.violated_prefixes(&inst, &[0], &[0.0], |sp, _| sp * sp / 2.0);
        assert_eq!(v, vec![(0, 72.0)]);
        // Satisfied at the ends means satisfied inside: x = 6 gives
        // 12 * 6 = 72 >= 72 for the whole class.
        assert!(c
            .violated_prefixes(&inst, &[0], &[6.0], |sp, _| sp * sp / 2.0)
            .is_empty());
    }
}
