//! The readings of the job-count figures (7-12), one function each.
//!
//! Each states what its sweep shows next to what the paper claims for that
//! figure; the paper's claims are constants quoted from it, and every
//! "as in the paper" is a test of the sweep against them. Figures 8, 11
//! and 12 are defined by the paper as changes from Figure 7, so they run
//! Figure 7's random scenario on the same seeds and job counts as their
//! baseline (`base`) rather than quoting another report's numbers.

use super::reading::{
    as_paper, capitalised, join_and, mares_rank, Axis, Shift, Trend, BOUND_NOTE, JOBS,
    PAPER_JOB_ALGOS,
};
use super::Sweep;

/// How a baseline is named in the readings.
const RANDOM: &str = "the random scenario";

/// Paper, Fig. 7: MarS better than every other algorithm by over 40% in
/// most cases.
const PAPER_FIG7_MARGIN: f64 = 0.40;
/// Paper, Fig. 8: HUWF and HJWF about this much lower than in Fig. 7.
const PAPER_FIG8_DROP: f64 = 0.2;
/// Paper, Fig. 9: MarS within this of its bound at 10 jobs.
const PAPER_FIG9_NEAR: f64 = 0.08;
/// Paper, Fig. 9: the MarS-MARES gap on average.
const PAPER_FIG9_GAP: f64 = 0.35;
/// Paper, Fig. 10: MarS's lead at 100 jobs over MARES, HUWF, HJWF.
const PAPER_FIG10_LEADS: [f64; 3] = [0.42, 0.75, 0.79];
/// Paper, Fig. 11: HUWF and HJWF about this much (relative) worse.
const PAPER_FIG11_WORSE: f64 = 0.10;

/// A job figure's reading from its sweep and, where the figure compares
/// with Figure 7, the random scenario's sweep.
pub(super) type JobReading = fn(&Sweep, Option<&Sweep>) -> String;

fn mars_best(sw: &Sweep) -> String {
    sw.best_at("MarS", &PAPER_JOB_ALGOS, "size")
}

fn base(b: Option<&Sweep>) -> &Sweep {
    b.expect("a figure compared with Figure 7 runs its baseline")
}

/// Figure 7.
pub(super) fn fig7(sw: &Sweep, _: Option<&Sweep>) -> String {
    let others = ["MARES", "HUWF", "HJWF"];
    let margin = (0..sw.xs.len())
        .filter(|&i| {
            others
                .iter()
                .all(|o| sw.mean(o, i) >= (1.0 + PAPER_FIG7_MARGIN) * sw.mean("MarS", i))
        })
        .count();
    let hjwf_above = sw.overall("HJWF") > sw.overall("HUWF");
    format!(
        "MarS {mars} ({mars_p}) and is {best}. HUWF {huwf} ({huwf_p}) and HJWF {hjwf} ({hjwf_p}); \
HJWF is {hj} HUWF over the sweep{hj_p}; {gaps}. Every other algorithm is more than {pct:.0}% above MarS at {margin} of {n} sizes \
(the paper: MarS better by over {pct:.0}% in most cases). {mares} {BOUND_NOTE}",
        mars = sw.describe("MarS", &JOBS, 2),
        mars_p = as_paper(sw.trend("MarS"), Trend::Rises),
        best = mars_best(sw),
        huwf = sw.describe("HUWF", &JOBS, 2),
        huwf_p = as_paper(sw.trend("HUWF"), Trend::Rises),
        hjwf = sw.describe("HJWF", &JOBS, 2),
        hjwf_p = as_paper(sw.trend("HJWF"), Trend::Rises),
        hj = if hjwf_above { "above" } else { "not above" },
        hj_p = if hjwf_above { ", as in the paper" } else { ", unlike the paper" },
        gaps = sw.gaps_at_last("MarS", &["HUWF", "HJWF"], &JOBS),
        pct = 100.0 * PAPER_FIG7_MARGIN,
        n = sw.xs.len(),
        mares = mares_rank(sw),
    )
}

/// Figure 8: uniform task numbers.
pub(super) fn fig8(sw: &Sweep, b: Option<&Sweep>) -> String {
    let b = base(b);
    let shift = |l: &str| sw.overall(l) - b.overall(l);
    let (dh, dj) = (shift("HUWF"), shift("HJWF"));
    let close = sw.compare("HUWF", "HJWF");
    let tied = close.contains(" ties ");
    let lower = |d: f64| {
        if d < 0.0 {
            format!("{:.2} lower", -d)
        } else {
            format!("{d:.2} higher")
        }
    };
    format!(
        "MarS {mars} and is {best}. MARES {mares} ({mares_p}). {close}: {close_p}. Against {RANDOM} run on the \
same seeds and job counts, HUWF is {h} and HJWF {j} on average; the paper has both about {PAPER_FIG8_DROP} lower{both}. {rank} {BOUND_NOTE}",
        mars = sw.describe("MarS", &JOBS, 2),
        best = mars_best(sw),
        mares = sw.describe("MARES", &JOBS, 2),
        mares_p = as_paper(sw.trend("MARES"), Trend::Rises),
        close_p = if tied {
            "close to each other, as in the paper"
        } else {
            "not as close as the paper's"
        },
        h = lower(dh),
        j = lower(dj),
        both = if dh < 0.0 && dj < 0.0 {
            ", the same direction"
        } else {
            ", which this run does not show"
        },
        rank = mares_rank(sw),
    )
}

/// Figure 9: uniform task times.
pub(super) fn fig9(sw: &Sweep, _: Option<&Sweep>) -> String {
    let gaps: Vec<f64> = (0..sw.xs.len())
        .map(|i| sw.mean("MARES", i) - sw.mean("MarS", i))
        .collect();
    let avg = gaps.iter().sum::<f64>() / gaps.len().max(1) as f64;
    let lo = gaps.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = gaps.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (mlo, _) = sw.range("MarS");
    let (hlo, hhi) = sw.range("HUWF");
    let (jlo, jhi) = sw.range("HJWF");
    format!(
        "MarS {mars} and is {best}; the paper's MarS is within {PAPER_FIG9_NEAR} of its bound, {near}. The MarS-MARES gap is \
{avg:.2} on average ({lo:.2}-{hi:.2}) against the paper's {PAPER_FIG9_GAP}{gap_p}. HUWF {hlo:.2}-{hhi:.2}, HJWF {jlo:.2}-{jhi:.2}. {rank} {BOUND_NOTE}",
        mars = sw.describe("MarS", &JOBS, 2),
        best = mars_best(sw),
        near = if mlo - 1.0 <= PAPER_FIG9_NEAR {
            "as ours is at its best point"
        } else {
            "which ours, against a looser bound, is at no size"
        },
        gap_p = if (avg - PAPER_FIG9_GAP).abs() <= 0.05 {
            ", close to it"
        } else if avg > PAPER_FIG9_GAP {
            ", wider"
        } else {
            ", narrower"
        },
        rank = mares_rank(sw),
    )
}

/// Figure 10: 100 machines.
pub(super) fn fig10(sw: &Sweep, _: Option<&Sweep>) -> String {
    let others = ["MARES", "HUWF", "HJWF"];
    let rising = others
        .iter()
        .filter(|o| sw.trend(o) == Trend::Rises)
        .count();
    let each: Vec<String> = others
        .iter()
        .map(|o| format!("{o} {}", sw.describe(o, &JOBS, 2)))
        .collect();
    let first: Vec<f64> = ["MarS", "HUWF", "HJWF"]
        .iter()
        .map(|l| sw.mean(l, 0))
        .collect();
    let (flo, fhi) = (
        first.iter().copied().fold(f64::INFINITY, f64::min),
        first.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    );
    let idle = if (fhi - flo) / flo <= 0.05 {
        format!(
            " At {} jobs MarS, HUWF and HJWF are within 5% of each other ({flo:.2}-{fhi:.2}): so few jobs leave machines idle on 100 machines.",
            sw.xs[0]
        )
    } else {
        String::new()
    };
    let paper: Vec<String> = PAPER_FIG10_LEADS.iter().map(|v| format!("{v}")).collect();
    format!(
        "MarS {mars} ({mars_p}) and is {best}. {each}: {rising} rise with the job count{rise_p}. \
{gaps} (the paper: {paper} below MARES, HUWF and HJWF).{idle} {rank} {BOUND_NOTE}",
        mars = sw.describe("MarS", &JOBS, 2),
        mars_p = as_paper(sw.trend("MarS"), Trend::Falls),
        best = mars_best(sw),
        each = join_and(&each),
        rising = if rising == 3 {
            "all three".to_string()
        } else {
            format!("{rising} of the three")
        },
        rise_p = if rising == 3 {
            ", as in the paper"
        } else {
            ", where the paper has all three rise"
        },
        gaps = capitalised(&sw.gaps_at_last("MarS", &others, &JOBS)),
        paper = join_and(&paper),
        rank = mares_rank(sw),
    )
}

/// Figure 11: increasing unit-weight category.
pub(super) fn fig11(sw: &Sweep, b: Option<&Sweep>) -> String {
    let b = base(b);
    let (h, hs) = sw.against(b, "HUWF");
    let (j, js) = sw.against(b, "HJWF");
    let (m, ms) = sw.against(b, "MarS");
    let (r, rs) = sw.against(b, "MARES");
    let same = |s: Shift| {
        if s == Shift::Same {
            "as in the paper, where it is unchanged"
        } else {
            "unlike the paper, where it is unchanged"
        }
    };
    format!(
        "Against {RANDOM} run on the same seeds and job counts: HUWF is {h} and HJWF {j}, {hj_p} (about {pct:.0}% worse); \
MARES is {r}, {r_p}; MarS is {m}, {m_p}, and is {best}. {BOUND_NOTE}",
        hj_p = if hs == Shift::Worse && js == Shift::Worse {
            "the paper's direction"
        } else {
            "not the paper's uniform worsening"
        },
        pct = 100.0 * PAPER_FIG11_WORSE,
        r_p = same(rs),
        m_p = same(ms),
        best = mars_best(sw),
    )
}

/// Figure 12: decreasing unit-weight category.
pub(super) fn fig12(sw: &Sweep, b: Option<&Sweep>) -> String {
    let b = base(b);
    let (m, ms) = sw.against(b, "MarS");
    let (r, rs) = sw.against(b, "MARES");
    let (h, _) = sw.against(b, "HUWF");
    let (j, _) = sw.against(b, "HJWF");
    let n = sw.xs.len();
    let below = |a: &str, o: &str| (0..n).filter(|&i| sw.mean(a, i) < sw.mean(o, i)).count();
    let (hm, hmars, jh) = (
        below("HUWF", "MARES"),
        below("HUWF", "MarS"),
        below("HUWF", "HJWF"),
    );
    format!(
        "Against {RANDOM} run on the same seeds and job counts: MarS is {m} and MARES {r}{mr_p}. HUWF is {h} and below MARES at \
{hm} of {n} sizes{hm_p}, below MarS at {hmars} of {n}; HJWF is {j} and above HUWF at {jh} of {n} sizes. MarS is {best}. {BOUND_NOTE}",
        mr_p = if ms == Shift::Same && rs == Shift::Same {
            ", both unchanged as in the paper"
        } else {
            ", where the paper has both unchanged"
        },
        hm_p = if hm == n {
            ", as in the paper"
        } else {
            ", where the paper has HUWF better than MARES"
        },
        best = mars_best(sw),
    )
}

/// Paper, §5.2: COGE needs fewer than this many iterations in practice.
const PAPER_FEW_ITERATIONS: f64 = 10.0;

/// Figures 5-6: MarS's ratio (`ratio`, column "MarS") and COGE's LP
/// solves (`iters`, column "COGE") against epsilon; `cap` is COGE's round
/// cap and `chosen` the x index of the paper's epsilon 0.3.
pub(super) fn fig5_6(ratio: &Sweep, iters: &Sweep, cap: usize, chosen: usize) -> String {
    let eps = Axis {
        before: "epsilon ",
        after: "",
    };
    let at_cap = iters.ratios[0][0]
        .iter()
        .filter(|r| **r >= cap as f64)
        .count();
    let cap_note = if at_cap > 0 {
        format!(
            "; at epsilon {} {at_cap} of {} seed(s) stop at the round cap of {cap}",
            iters.xs[0],
            iters.ratios[0][0].len()
        )
    } else {
        String::new()
    };
    let (mt, it) = (ratio.trend("MarS"), iters.trend("COGE"));
    let shape = if mt != Trend::Falls && it == Trend::Falls {
        "This is the paper's shape: the schedule does not improve with a looser LP while the LP solves fall."
    } else if it != Trend::Falls {
        "Unlike the paper, the LP solves do not fall as epsilon grows."
    } else {
        "Unlike the paper, MarS's ratio improves with a looser LP."
    };
    let n03 = iters.mean("COGE", chosen);
    format!(
        "MarS's ratio (against one bound per seed) {m} ({m03:.2} at {e03}); COGE's count of LP solves {i}{cap_note}. {shape} The paper reports \
fewer than {PAPER_FEW_ITERATIONS} iterations in practice; ours average {n03:.1} at epsilon {e03}{more}.",
        m = ratio.describe("MarS", &eps, 2),
        m03 = ratio.mean("MarS", chosen),
        e03 = ratio.xs[chosen],
        i = iters.describe("COGE", &eps, 1),
        more = if n03 >= PAPER_FEW_ITERATIONS {
            ", more, on these heavily loaded instances whose no-violation solution is far from the LP's"
        } else {
            ", as in the paper"
        },
    )
}
