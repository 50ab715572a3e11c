//! The MarS reports' readings, computed from the sweeps.
//!
//! A reading that states numbers or compares ("falls", "best", "as in the
//! paper") must follow the run that produced it: a quick run's 6-job table
//! cannot carry a full run's sentence. So every number below comes from a
//! [`Sweep`] and every comparative word from a test on it; only the paper's
//! own figures (constants quoted from the paper) and explanations without
//! numbers are fixed text. The helpers describe a series' trend, where an
//! algorithm is best, gaps at the largest x, rank and order, and changes
//! against a baseline sweep of the same seeds and x values.

use super::Sweep;

/// Relative change below which a series or a difference counts as flat.
const FLAT: f64 = 0.03;

/// Direction of a series from its first x to its last.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Trend {
    Rises,
    Falls,
    Flat,
}

impl Trend {
    fn word(self) -> &'static str {
        match self {
            Trend::Rises => "rises",
            Trend::Falls => "falls",
            Trend::Flat => "stays flat",
        }
    }
}

/// "as in the paper" when the measured trend is the paper's, else what the
/// paper has.
pub(super) fn as_paper(got: Trend, paper: Trend) -> String {
    if got == paper {
        "as in the paper".into()
    } else {
        format!("while it {} in the paper", paper.word())
    }
}

/// How the x values are named in a sentence: "at {before}10{after}" for
/// the first x, "at 100" for the last.
pub(super) struct Axis {
    pub before: &'static str,
    pub after: &'static str,
}

/// Job counts: "at 10 jobs ... at 100".
pub(super) const JOBS: Axis = Axis {
    before: "",
    after: " jobs",
};

/// A baseline's change against a series, per x.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Shift {
    Same,
    Worse,
    Better,
    Mixed,
}

const ORDINALS: [&str; 6] = ["first", "second", "third", "fourth", "fifth", "sixth"];

impl Sweep {
    fn means(&self, label: &str) -> Vec<f64> {
        (0..self.xs.len()).map(|i| self.mean(label, i)).collect()
    }

    /// Lowest and highest mean of `label` over the sweep.
    pub(super) fn range(&self, label: &str) -> (f64, f64) {
        let m = self.means(label);
        (
            m.iter().copied().fold(f64::INFINITY, f64::min),
            m.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        )
    }

    /// Direction from the first x to the last: flat within [`FLAT`].
    pub(super) fn trend(&self, label: &str) -> Trend {
        let m = self.means(label);
        let (a, b) = (m[0], m[m.len() - 1]);
        let rel = (b - a) / a.abs().max(1e-12);
        if rel > FLAT {
            Trend::Rises
        } else if rel < -FLAT {
            Trend::Falls
        } else {
            Trend::Flat
        }
    }

    /// "falls from 1.34 at 10 jobs to 1.18 at 100", with the range when
    /// the series leaves the span of its end points.
    pub(super) fn describe(&self, label: &str, axis: &Axis, digits: usize) -> String {
        let m = self.means(label);
        let last = m.len() - 1;
        let (a, b) = (m[0], m[last]);
        let (x0, x1) = (self.xs[0], self.xs[last]);
        let (lo, hi) = self.range(label);
        let ends = format!(
            "{a:.digits$} at {}{x0}{} to {b:.digits$} at {x1}",
            axis.before, axis.after
        );
        let mut s = match self.trend(label) {
            Trend::Rises => format!("rises from {ends}"),
            Trend::Falls => format!("falls from {ends}"),
            Trend::Flat => format!("stays level, from {ends}"),
        };
        let tol = 0.5 * 10f64.powi(-(digits as i32));
        if lo < a.min(b) - tol || hi > a.max(b) + tol {
            s.push_str(&format!(
                ", ranging {lo:.digits$}-{hi:.digits$} over the sweep"
            ));
        }
        s
    }

    /// X indices where `label` has the lowest mean of `among`.
    fn best_points(&self, label: &str, among: &[&str]) -> usize {
        (0..self.xs.len())
            .filter(|&i| {
                among
                    .iter()
                    .filter(|o| **o != label)
                    .all(|o| self.mean(label, i) < self.mean(o, i))
            })
            .count()
    }

    /// "best at every size" / "best at 3 of 10 sizes" / "best at no size"
    /// (lowest mean among `among`; `what` names the x values).
    pub(super) fn best_at(&self, label: &str, among: &[&str], what: &str) -> String {
        let (k, n) = (self.best_points(label, among), self.xs.len());
        if k == n {
            format!("best at every {what}")
        } else if k == 0 {
            format!("best at no {what}")
        } else {
            format!("best at {k} of {n} {what}s")
        }
    }

    /// "at 100 jobs MarS is 0.66 below HUWF and 0.84 above HJWF" (the
    /// caller capitalises at a sentence start).
    pub(super) fn gaps_at_last(&self, label: &str, others: &[&str], axis: &Axis) -> String {
        let last = self.xs.len() - 1;
        let m = self.mean(label, last);
        let parts: Vec<String> = others
            .iter()
            .map(|o| {
                let d = self.mean(o, last) - m;
                let side = if d >= 0.0 { "below" } else { "above" };
                format!("{:.2} {side} {o}", d.abs())
            })
            .collect();
        format!(
            "at {}{}{} {label} is {}",
            axis.before,
            self.xs[last],
            axis.after,
            join_and(&parts)
        )
    }

    /// `labels` ordered by mean over the sweep, lowest first (or highest
    /// first when `descending`).
    pub(super) fn order(&self, labels: &[&'static str], descending: bool) -> Vec<&'static str> {
        let mut v = labels.to_vec();
        v.sort_by(|a, b| self.overall(a).total_cmp(&self.overall(b)));
        if descending {
            v.reverse();
        }
        v
    }

    /// 1-based rank of `label` among `among` by mean over the sweep,
    /// lowest first.
    pub(super) fn rank(&self, label: &str, among: &[&'static str]) -> usize {
        1 + self
            .order(among, false)
            .iter()
            .position(|l| *l == label)
            .expect("a label of the ranking")
    }

    /// How `label` here compares with `label` in `base` (same x values),
    /// per x relative to `base`: "worse by up to 9.6% (+0.1% to +9.6% per
    /// size)" and the kind of shift (changes within [`FLAT`] count as none).
    pub(super) fn against(&self, base: &Sweep, label: &str) -> (String, Shift) {
        let rel: Vec<f64> = (0..self.xs.len())
            .map(|i| 100.0 * (self.mean(label, i) - base.mean(label, i)) / base.mean(label, i))
            .collect();
        let lo = rel.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = rel.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let flat = 100.0 * FLAT;
        let span = format!("{lo:+.1}% to {hi:+.1}% per size");
        if lo >= -flat && hi <= flat {
            (
                format!("within {flat:.0}% at every size ({span})"),
                Shift::Same,
            )
        } else if lo >= -flat {
            (format!("worse by up to {hi:.1}% ({span})"), Shift::Worse)
        } else if hi <= flat {
            (
                format!("better by up to {:.1}% ({span})", -lo),
                Shift::Better,
            )
        } else {
            (
                format!("better at some sizes and worse at others ({span})"),
                Shift::Mixed,
            )
        }
    }
}

/// `s` with its first letter in upper case.
pub(super) fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// "a", "a and b", "a, b and c".
pub(super) fn join_and(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Ordinal of a 1-based rank among `n`: "first", "second", ..., "last".
pub(super) fn ordinal(rank: usize, n: usize) -> &'static str {
    if rank == n && n > 1 {
        "last"
    } else {
        ORDINALS.get(rank - 1).copied().unwrap_or("lower")
    }
}

/// The paper's four job-level algorithms.
pub(super) const PAPER_JOB_ALGOS: [&str; 4] = ["MarS", "MARES", "HUWF", "HJWF"];

/// Fixed explanation of the bound's gap, true of every job-level figure.
pub(super) const BOUND_NOTE: &str = "Our bound is COGE stopped at epsilon 0.3 on heavily loaded \
instances (Bernoulli(1/2) arrivals bring several times the work the machines serve), so ratios cannot \
approach 1 even for very good schedules.";

/// Where MARES ranks among the paper's algorithms, against the paper's
/// second place, with the reconstruction's limits when it differs.
pub(super) fn mares_rank(sw: &Sweep) -> String {
    let r = sw.rank("MARES", &PAPER_JOB_ALGOS);
    let place = ordinal(r, PAPER_JOB_ALGOS.len());
    if r == 2 {
        "MARES ranks second of the paper's four algorithms over the sweep, as in the paper.".into()
    } else {
        format!(
            "MARES ranks {place} of the paper's four algorithms over the sweep while the paper has it second: \
our MARES balances total work per machine (LPT) without regard to release times and runs each machine's tasks in LP order; \
the original's column-generation LP and idle rule are not available (prior-work section 4.1)."
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::{job_readings, task_readings};
    use super::*;

    /// A sweep with one seed per point: `rows[a]` are algorithm `a`'s means.
    fn sweep(xs: &[f64], labels: &[&'static str], rows: &[&[f64]]) -> Sweep {
        let mut sw = Sweep::new(xs.to_vec(), labels.to_vec());
        sw.ratios = rows
            .iter()
            .map(|r| r.iter().map(|v| vec![*v]).collect())
            .collect();
        sw
    }

    #[test]
    fn trends_follow_the_series() {
        let up = sweep(&[10.0, 20.0, 30.0], &["A"], &[&[1.0, 1.6, 1.5]]);
        assert_eq!(up.trend("A"), Trend::Rises);
        assert_eq!(
            up.describe("A", &JOBS, 2),
            "rises from 1.00 at 10 jobs to 1.50 at 30, ranging 1.00-1.60 over the sweep"
        );
        let down = sweep(&[10.0, 20.0, 30.0], &["A"], &[&[1.5, 1.2, 1.0]]);
        assert_eq!(down.trend("A"), Trend::Falls);
        assert_eq!(
            down.describe("A", &JOBS, 2),
            "falls from 1.50 at 10 jobs to 1.00 at 30"
        );
        let flat = sweep(&[10.0, 20.0], &["A"], &[&[1.0, 1.02]]);
        assert_eq!(flat.trend("A"), Trend::Flat);
        assert!(flat.describe("A", &JOBS, 2).starts_with("stays level"));
        assert_eq!(as_paper(Trend::Rises, Trend::Rises), "as in the paper");
        assert_eq!(
            as_paper(Trend::Falls, Trend::Rises),
            "while it rises in the paper"
        );
    }

    #[test]
    fn best_gaps_ranks_and_shifts_come_from_the_means() {
        let labels = ["MarS", "MARES", "HUWF", "HJWF"];
        let xs = [10.0, 20.0, 30.0];
        let mut sw = sweep(
            &xs,
            &labels,
            &[
                &[1.1, 1.2, 1.3],
                &[1.5, 1.6, 1.7],
                &[1.2, 1.3, 1.4],
                &[1.3, 1.4, 1.5],
            ],
        );
        assert_eq!(sw.best_at("MarS", &labels, "size"), "best at every size");
        assert_eq!(sw.best_at("HUWF", &labels, "size"), "best at no size");
        assert_eq!(
            sw.gaps_at_last("MarS", &["HUWF", "HJWF"], &JOBS),
            "at 30 jobs MarS is 0.10 below HUWF and 0.20 below HJWF"
        );
        assert_eq!(sw.rank("MARES", &labels), 4);
        assert!(mares_rank(&sw).starts_with("MARES ranks last"));
        assert!(mares_rank(&sw).contains("prior-work"));
        // MARES moves to second place and MarS loses one size to HUWF.
        sw.ratios[1] = vec![vec![1.15], vec![1.25], vec![1.35]];
        sw.ratios[0][2] = vec![1.45];
        assert_eq!(sw.best_at("MarS", &labels, "size"), "best at 2 of 3 sizes");
        assert_eq!(
            sw.gaps_at_last("MarS", &["HUWF"], &JOBS),
            "at 30 jobs MarS is 0.05 above HUWF"
        );
        assert_eq!(sw.rank("MARES", &labels), 2);
        assert!(mares_rank(&sw).ends_with("as in the paper."));

        let base = sweep(&xs, &["A"], &[&[1.0, 1.0, 1.0]]);
        let shift = |v: [f64; 3]| sweep(&xs, &["A"], &[&v]).against(&base, "A").1;
        assert_eq!(shift([1.01, 0.99, 1.02]), Shift::Same);
        assert_eq!(shift([1.01, 1.10, 1.12]), Shift::Worse);
        assert_eq!(shift([0.9, 0.99, 1.0]), Shift::Better);
        assert_eq!(shift([0.9, 1.0, 1.1]), Shift::Mixed);
        let (text, _) = sweep(&xs, &["A"], &[&[1.01, 1.10, 1.12]]).against(&base, "A");
        assert_eq!(text, "worse by up to 12.0% (+1.0% to +12.0% per size)");
    }

    #[test]
    fn figure_readings_flip_with_the_data() {
        let labels = ["MarS", "MARES", "HUWF", "HJWF", super::super::OURS];
        let xs = [10.0, 100.0];
        let mut sw = sweep(
            &xs,
            &labels,
            &[
                &[1.1, 1.3],
                &[1.2, 1.4],
                &[1.5, 2.0],
                &[1.6, 2.2],
                &[1.0, 1.1],
            ],
        );
        let r = job_readings::fig7(&sw, None);
        assert!(r.starts_with("MarS rises from 1.10 at 10 jobs to 1.30 at 100 (as in the paper) and is best at every size"));
        assert!(r.contains("HJWF is above HUWF over the sweep, as in the paper"));
        assert!(r.contains("MARES ranks second"));
        sw.ratios[3] = vec![vec![1.4], vec![1.9]];
        sw.ratios[0] = vec![vec![1.3], vec![1.1]];
        let r = job_readings::fig7(&sw, None);
        assert!(r.starts_with(
            "MarS falls from 1.30 at 10 jobs to 1.10 at 100 (while it rises in the paper)"
        ));
        assert!(r.contains("HJWF is not above HUWF over the sweep, unlike the paper"));
        assert!(r.contains("is best at 1 of 2 sizes"));

        // Figure 11 against its baseline: HUWF and HJWF worse, or not.
        let base = sweep(
            &xs,
            &labels[..4],
            &[&[1.1, 1.3], &[1.2, 1.4], &[1.5, 2.0], &[1.6, 2.2]],
        );
        let worse = sweep(
            &xs,
            &labels,
            &[
                &[1.1, 1.3],
                &[1.2, 1.4],
                &[1.65, 2.2],
                &[1.75, 2.4],
                &[1.0, 1.1],
            ],
        );
        let r = job_readings::fig11(&worse, Some(&base));
        assert!(r.contains("the paper's direction"));
        assert!(r.contains(
            "MarS is within 3% at every size (+0.0% to +0.0% per size), as in the paper"
        ));
        let r = job_readings::fig11(&base_with_ours(&base), Some(&base));
        assert!(r.contains("not the paper's uniform worsening"));

        // Figure 15: which T-MarS variant is nearer the paper's numbers.
        let tl = ["T-MarS", "T-MarS packed", "H-MARES", "STF", "HTWF"];
        let near_packed = sweep(
            &[100.0, 1000.0],
            &tl,
            &[
                &[1.8, 2.0],
                &[1.05, 1.25],
                &[1.2, 1.6],
                &[1.3, 2.2],
                &[1.4, 2.3],
            ],
        );
        let r = task_readings::fig15(&near_packed);
        assert!(r.contains("insert idle time"));
        assert!(r.contains("the packed variant is the closer match"));
        assert!(r.contains("T-MarS, H-MARES, STF and HTWF, the paper's order"));
        let near_floored = sweep(
            &[100.0, 1000.0],
            &tl,
            &[
                &[1.03, 1.2],
                &[1.0, 1.0],
                &[1.2, 1.6],
                &[1.3, 2.2],
                &[1.4, 2.3],
            ],
        );
        let r = task_readings::fig15(&near_floored);
        assert!(r.contains("the floored variant is the closer match"));
        let r = task_readings::fig15(&sweep(&[60.0, 120.0], &tl, &[&[1.0, 1.0][..]; 5]));
        assert!(r.contains("does not include the task counts the paper reports"));
    }

    fn base_with_ours(base: &Sweep) -> Sweep {
        let mut s = Sweep::new(
            base.xs.clone(),
            vec!["MarS", "MARES", "HUWF", "HJWF", super::super::OURS],
        );
        s.ratios = base.ratios.clone();
        s.ratios.push(vec![vec![1.0], vec![1.0]]);
        s
    }
}
