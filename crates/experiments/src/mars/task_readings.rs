//! The readings of the task-level figures (15 and 16).
//!
//! As for the job figures, the paper's numbers are constants quoted from
//! it and every comparison is computed from the sweep: whether Algorithm
//! 3's interval floors cost anything, which T-MarS variant is nearer the
//! paper's reported ratios (only at task counts the paper reports), and
//! whether the algorithms come in the paper's order.

use super::reading::join_and;
use super::Sweep;

/// Paper, Fig. 15: T-MarS's ratio at 100 and (at most) at 1000 tasks.
const PAPER_FIG15_TMARS: [(f64, f64); 2] = [(100.0, 1.03), (1000.0, 1.21)];
/// The paper's order of the task-level algorithms, best first (Figs. 15
/// and 16).
const PAPER_ORDER: [&str; 4] = ["T-MarS", "H-MARES", "STF", "HTWF"];
/// Paper, Fig. 16: T-MarS's share of tasks finished at relative waiting
/// time 0.5.
const PAPER_FIG16_TMARS_HALF: f64 = 0.71;

/// "the order is A, B, C and D, the paper's" or "..., where the paper has
/// ...": `got` uses "T-MarS" for whichever variant stands for it.
fn order_note(got: &[&str]) -> String {
    let list = |v: &[&str]| join_and(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    if got == PAPER_ORDER {
        format!("{}, the paper's order", list(got))
    } else {
        format!("{}, where the paper has {}", list(got), list(&PAPER_ORDER))
    }
}

/// Figure 15 (ratios against total tasks; columns "T-MarS", "T-MarS
/// packed", "H-MARES", "STF", "HTWF").
pub(super) fn fig15(sw: &Sweep) -> String {
    let floors = sw.compare("T-MarS", "T-MarS packed");
    let floors_note = if floors.contains(" above ") {
        format!(
            "Algorithm 3's floors (tasks of interval n wait until tau_(n-1) = 1 + sum (t_k + a_k)) insert idle time: {floors}."
        )
    } else {
        format!("Algorithm 3's floors cost nothing here: {floors}.")
    };
    let reported: Vec<(usize, f64)> = PAPER_FIG15_TMARS
        .iter()
        .filter_map(|(x, v)| sw.xs.iter().position(|y| y == x).map(|i| (i, *v)))
        .collect();
    let closer = if reported.is_empty() {
        "This sweep does not include the task counts the paper reports, so neither variant is set against its numbers."
            .to_string()
    } else {
        let dist = |l: &str| {
            reported
                .iter()
                .map(|(i, v)| (sw.mean(l, *i) - v).abs())
                .sum::<f64>()
                / reported.len() as f64
        };
        let (df, dp) = (dist("T-MarS"), dist("T-MarS packed"));
        let at: Vec<String> = reported
            .iter()
            .map(|(i, _)| format!("{}", sw.xs[*i]))
            .collect();
        format!(
            "At {} tasks, where the paper reports T-MarS, the {} variant is the closer match (mean distance {:.2} against {:.2}).",
            join_and(&at),
            if dp < df { "packed" } else { "floored" },
            df.min(dp),
            df.max(dp)
        )
    };
    let last = sw.xs.len() - 1;
    let best_t = if sw.overall("T-MarS packed") < sw.overall("T-MarS") {
        "T-MarS packed"
    } else {
        "T-MarS"
    };
    let mut among = vec![best_t, "H-MARES", "STF", "HTWF"];
    among = sw.order(&among, false);
    let named: Vec<&str> = among
        .iter()
        .map(|l| if *l == best_t { "T-MarS" } else { *l })
        .collect();
    format!(
        "{floors_note} {closer} {stf}, where the paper has STF well behind T-MarS; at {x} tasks STF is at {s:.2} and packed \
T-MarS at {p:.2}. Over the sweep (T-MarS as its better variant, {best_t}) the order by mean ratio is {order}.",
        stf = sw.compare("STF", "T-MarS packed"),
        x = sw.xs[last],
        s = sw.mean("STF", last),
        p = sw.mean("T-MarS packed", last),
        order = order_note(&named),
    )
}

/// Figure 16 (share of tasks finished against relative waiting time).
pub(super) fn fig16(sw: &Sweep) -> String {
    let Some(half) = sw.xs.iter().position(|x| (*x - 0.5).abs() < 1e-9) else {
        return "The grid has no relative waiting time 0.5, the paper's point.".into();
    };
    let labels = ["T-MarS", "T-MarS packed", "H-MARES", "STF", "HTWF"];
    let shares: Vec<String> = labels
        .iter()
        .map(|l| format!("{l} {:.0}%", 100.0 * sw.mean(l, half)))
        .collect();
    let best_t = if sw.mean("T-MarS packed", half) > sw.mean("T-MarS", half) {
        "T-MarS packed"
    } else {
        "T-MarS"
    };
    let mut at_half: Vec<&str> = vec![best_t, "H-MARES", "STF", "HTWF"];
    at_half.sort_by(|a, b| sw.mean(b, half).total_cmp(&sw.mean(a, half)));
    let named: Vec<&str> = at_half
        .iter()
        .map(|l| if *l == best_t { "T-MarS" } else { *l })
        .collect();
    let paper_t = PAPER_FIG16_TMARS_HALF;
    let t = sw.mean(best_t, half);
    format!(
        "At relative waiting time 0.5: {shares}. With T-MarS as its better variant there ({best_t}), the order by share is {order}. \
{best_t} finishes {t:.0}% of tasks by then, {cmp} the paper's {pt:.0}% for T-MarS.",
        shares = join_and(&shares),
        order = order_note(&named),
        t = 100.0 * t,
        cmp = if (t - paper_t).abs() <= 0.03 {
            "close to"
        } else if t > paper_t {
            "above"
        } else {
            "below"
        },
        pt = 100.0 * paper_t,
    )
}
