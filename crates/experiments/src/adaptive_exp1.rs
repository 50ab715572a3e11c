//! Seed 003, Experiment 1 (§V-B): MapReduce alone. With nothing else on the
//! machines the capacity is constant, and Reverse-Adaptive "should be similar
//! to previous approaches": we compare it with the Adaptive Scheduler and
//! FIFO on the goal-mix workload.

use crate::adaptive_common::{
    bound_sentence, capacity_timeline, compare, comparison_json, distance_cdf, headlines, jobs,
    more_or_fewer, seeds, setup_text, table, BOUND_TEXT,
};
use crate::common::write_markdown;
use crate::{err, ExpContext, ExpError, ExpReport, Experiment};
use mrsched_workload::catalog;

/// Registry entry.
pub const EXPERIMENT: Experiment = Experiment {
    name: "adaptive-exp1",
    about: "seed 003 Exp. 1: FIFO vs Adaptive vs Reverse-Adaptive, MapReduce alone (100 nodes)",
    run,
};

fn run(ctx: &ExpContext) -> Result<ExpReport, ExpError> {
    let cluster = catalog::cluster("shared-100").map_err(err)?;
    let seeds = seeds(ctx);
    let n = jobs(ctx);
    let c = compare(&cluster, n, &seeds)?;
    let cdf = distance_cdf(
        ctx,
        "adaptive-exp1-distance.svg",
        "Exp. 1 (MapReduce alone): distance to goal",
        &c,
    )?;
    let tl = capacity_timeline(
        ctx,
        "adaptive-exp1-timeline.svg",
        "Exp. 1: map slots available and busy (first seed)",
        &c,
        &cluster,
    )?;
    let h = headlines(&c);
    let (f, a, r, e) = (h[0], h[1], h[2], h[3]);
    let cmp = |x: f64, y: f64, lo: &'static str, hi: &'static str| if x < y { lo } else { hi };
    let like = if (r.met - a.met).abs() <= 1.0 {
        "and it does, within a point"
    } else {
        "and here it does not"
    };
    let reading = format!(
        "## Reading\n\n\
With nothing else on the machines the capacity is constant, so the two adaptive schedulers plan with the \
same slots and differ only where s_fit differs from s_req: a job whose goal is not the earliest may be \
deferred by s_fit (its work fits after the earlier goals), while s_req paces it evenly to its goal. The \
paper expects Reverse-Adaptive to perform like its predecessor here, {like}: it meets {r_met:.1}% of \
the goals and the Adaptive Scheduler {a_met:.1}%, with mean prediction errors of {r_mae:.0} s and \
{a_mae:.0} s. FIFO meets {f_met:.1}% (the Adaptive Scheduler {a_vs} goals, Reverse-Adaptive {r_vs} goals) and EDF (ours) \
{e_met:.1}%. The adaptive family gives every goal job its estimate before any job gets more: goal jobs end \
{closer} their goals than under FIFO (mean distance {a_d:.0} s and {r_d:.0} s against {f_d:.0} s) and are \
slowed down {evenly} (Jain {a_j:.3} and {r_j:.3} against {f_j:.3}), while best-effort jobs, which only \
get the slots no goal job can use, are slowed down {be} (mean slowdown {a_b:.2} against {f_b:.2} under \
FIFO). Predictions are {bias_word} on average (bias {a_bias:+.0} s and {r_bias:+.0} s): a scheduler cannot \
foresee the jobs that have not arrived yet, and the fluid model ignores the last, partial wave of maps.\n\n\
{BOUND_TEXT} With constant capacity, {bound}.\n",
        r_met = r.met, a_met = a.met, f_met = f.met, e_met = e.met,
        a_vs = more_or_fewer(a.met, f.met),
        r_vs = more_or_fewer(r.met, f.met),
        r_mae = r.mae, a_mae = a.mae,
        closer = cmp(a.distance.max(r.distance), f.distance, "further before", "closer to"),
        evenly = cmp(a.jain.min(r.jain), f.jain, "less evenly", "more evenly"),
        be = cmp(a.best_effort, f.best_effort, "less", "more"),
        bias_word = if a.bias < 0.0 && r.bias < 0.0 { "optimistic" } else if a.bias > 0.0 && r.bias > 0.0 { "pessimistic" } else { "mixed" },
        a_d = a.distance, r_d = r.distance, f_d = f.distance,
        a_j = a.jain, r_j = r.jain, f_j = f.jain,
        a_b = a.best_effort, f_b = f.best_effort,
        a_bias = a.bias, r_bias = r.bias,
        bound = bound_sentence(&c),
    );
    let markdown = format!(
        "# Seed 003, Experiment 1: MapReduce alone\n\n{setup}\n{table}\n![distance to goal]({cdf})\n\n![timeline]({tl})\n\n{reading}",
        setup = setup_text(EXPERIMENT.name, ctx, "`shared-100`: 100 nodes of 8 map + 2 reduce slots (800 map slots), 4 racks, no other workload (constant capacity).", n, &seeds),
        table = table(&c),
    );
    write_markdown(ctx, EXPERIMENT.name, &markdown)?;
    Ok(ExpReport {
        name: EXPERIMENT.name.into(),
        markdown,
        figures: vec![ctx.out_dir.join(cdf), ctx.out_dir.join(tl)],
        json: serde_json::json!({ "seeds": seeds, "jobs_per_seed": n, "schedulers": comparison_json(&c), "upper_bound": c.bound.json() }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_run_writes_report_and_figures() {
        let (r, dir) = crate::common::run_quick_checked(&EXPERIMENT);
        assert!(r.markdown.contains("The set-up is ours"));
        // Every goal job is counted under every scheduler, and the adaptive
        // schedulers made predictions.
        let s = &r.json["schedulers"];
        let goal_jobs = s["fifo"]["goal_jobs"].as_u64().unwrap();
        assert!(goal_jobs > 0);
        for name in ["adaptive", "reverse-adaptive"] {
            assert_eq!(s[name]["goal_jobs"].as_u64().unwrap(), goal_jobs);
            assert!(s[name]["prediction"]["count"].as_u64().unwrap() > 0);
        }
        assert!(s["fifo"]["prediction"].is_null());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
