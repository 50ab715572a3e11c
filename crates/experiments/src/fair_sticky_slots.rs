//! Seed 002 §4.1 / Figure 5 and §6.2.2 / Figures 13-14: sticky slots.
//!
//! Under strict fair sharing the job that just finished a task is the one
//! furthest below its share, so it gets the freed slot back and jobs never
//! leave their first slots; each job then reads most of its input remotely.
//! Figure 5 is the expected locality on 100 nodes with one slot each and 3
//! replicas: a job holding 100/J of the nodes finds a replica of a block on
//! one of them with probability 1 - (1 - 1/J)^3. We compare that curve with
//! simulated concurrent scans of one data set under fair sharing, with and
//! without delay scheduling (T1 = T2 = 10 s as in §6.2.2).

use crate::common::{f, figure_path, md_table, par_map, rerun_line, run_toml, write_markdown};
use crate::{err, ExpContext, ExpError, ExpReport, Experiment};
use mrsched_metrics::plot::{line_chart, Series};
use mrsched_model::workload::CostParams;
use mrsched_model::{Cluster, Time};
use mrsched_workload::{build::blocks, WorkloadBuilder};

/// Registry entry.
pub const EXPERIMENT: Experiment = Experiment {
    name: "fair-sticky-slots",
    about: "seed 002 Fig. 5 (and Figs. 13-14): locality vs concurrent jobs, 100 nodes x 1 slot, with and without delay scheduling",
    run,
};

/// 100 nodes, one map slot each, 4 racks. A 128 MB scan map takes 9 s
/// node-local (the paper's EC2 scans), about 15 s rack-local and 28 s
/// off-rack: the simulator has no network contention, so remote reads get
/// lower per-task rates instead (seed 002 §4: rack links 1 Gbps, much less
/// per node across racks).
pub const CLUSTER: &str = r#"
name = "sticky-100x1"
heartbeat_interval_s = 3
task_overhead_s = 1
[rates]
disk_mb_s = 20
rack_mb_s = 10
off_rack_mb_s = 5
shuffle_mb_s = 50
[[nodes]]
name = "n"
count = 100
racks = 4
map_slots = 1
reduce_slots = 1
"#;

/// Expected locality with sticky slots (Figure 5).
pub fn expected_locality(jobs: u32, replicas: i32) -> f64 {
    1.0 - (1.0 - 1.0 / jobs as f64).powi(replicas)
}

fn run(ctx: &ExpContext) -> Result<ExpReport, ExpError> {
    let cluster = Cluster::from_toml_str("sticky-100x1", CLUSTER).map_err(err)?;
    let (gb, counts): (f64, Vec<u32>) = if ctx.quick {
        (18.0, vec![1, 5, 20])
    } else {
        (180.0, vec![1, 2, 5, 10, 20, 50])
    };
    let configs = [
        ("fair", "policy = \"fair\"\n"),
        (
            "fair+delay (T1 = T2 = 10 s)",
            "policy = \"fair\"\n[fair]\ndelay = \"wait\"\nlocality_wait_s = [10, 10]\n",
        ),
    ];
    // The workloads first, then every (workload, configuration) run on
    // every core.
    let mut workloads = Vec::new();
    for &n in &counts {
        let mut b = WorkloadBuilder::new("sticky");
        let d = b.dataset("data", blocks(gb * 1024.0, 128.0), 3);
        for i in 0..n {
            let j = b.data_job(
                format!("scan-{i}"),
                Time::ZERO,
                &[d],
                0,
                CostParams {
                    map_cpu_s_per_mb: 1.6 / 128.0,
                    map_output_ratio: 0.001,
                    reduce_cpu_s_per_mb: 0.0,
                    reduce_output_ratio: 0.0,
                },
            );
            j.user = format!("user{i}");
        }
        workloads.push(b.build());
    }
    let runs = par_map(workloads.len() * configs.len(), 0.0, 1.0, |u| {
        let (label, toml) = configs[u % configs.len()];
        let r = run_toml(
            &cluster,
            &workloads[u / configs.len()],
            label,
            toml,
            ctx.seed,
        )?
        .report();
        Ok((r.summary.locality.node, r.summary.makespan_s))
    })?;
    let mut rows = Vec::new();
    let mut pts: Vec<Vec<(f64, f64)>> = vec![Vec::new(); 3];
    let mut json = Vec::new();
    for (k, &n) in counts.iter().enumerate() {
        let res = &runs[k * configs.len()..(k + 1) * configs.len()];
        let expect = expected_locality(n, 3);
        pts[0].push((n as f64, 100.0 * expect));
        pts[1].push((n as f64, 100.0 * res[0].0));
        pts[2].push((n as f64, 100.0 * res[1].0));
        rows.push(vec![
            n.to_string(),
            format!("{:.0}%", 100.0 * expect),
            format!("{:.0}%", 100.0 * res[0].0),
            format!("{:.0}%", 100.0 * res[1].0),
            f(res[0].1, 0),
            f(res[1].1, 0),
            f(res[0].1 / res[1].1, 2),
        ]);
        json.push(serde_json::json!({
            "jobs": n, "expected_node_locality": expect,
            "fair": {"node_locality": res[0].0, "makespan_s": res[0].1},
            "fair_delay": {"node_locality": res[1].0, "makespan_s": res[1].1},
        }));
    }
    let fig = figure_path(ctx, "fair-sticky-slots.svg")?;
    line_chart(
        &fig,
        "Node locality vs concurrent jobs (100 nodes x 1 slot, 3 replicas)",
        "concurrent jobs",
        "% node-local maps",
        &[
            Series {
                label: "expected with sticky slots (Fig. 5)".into(),
                points: pts[0].clone(),
            },
            Series {
                label: "simulated fair sharing".into(),
                points: pts[1].clone(),
            },
            Series {
                label: "simulated fair + delay scheduling".into(),
                points: pts[2].clone(),
            },
        ],
    )
    .map_err(err)?;
    let table = md_table(
        &[
            "concurrent jobs",
            "Fig. 5: 1-(1-1/J)^3",
            "fair: node-local",
            "fair+delay: node-local",
            "fair: time to finish all, s",
            "fair+delay, s",
            "throughput gain",
        ],
        &rows,
    );
    let markdown = format!(
        "# Sticky slots (seed 002 §4.1 Figure 5; §6.2.2 Figures 13-14)\n\n{rerun}\n\n\
Setup: 100 nodes with one map slot each on 4 racks; one data set of {gb} GB in 128 MB blocks, 3 \
replicas; J scan jobs (map-only) over the whole data set submitted together, one user each, under \
the Fair Scheduler without and with delay scheduling. A scan map takes 9 s node-local, ~15 s \
rack-local, ~28 s off-rack (our stand-in for network contention, which the simulator does not model).\n\n\
{table}\n![sticky](fair-sticky-slots.svg)\n\n\
Paper: Figure 5 is the analytic curve (below 50% already at 5 jobs). §6.2.2, measured on EC2 with 4 \
map slots per node (Figures 13-14): delay scheduling raised node locality from 90-27% to 99-100% and \
throughput by 1.1x at 10 jobs, 1.6x at 20 and 2x at 50.\n\n\
Reading: simulated fair sharing follows the sticky-slot curve closely: the simulator has no \
counting bug, so a job that finishes a task is the furthest below its share and gets the slot back. \
Delay scheduling restores locality to near 100% at every concurrency. The throughput gains follow \
from our remote-read costs and are larger or smaller than the paper's depending on that single \
assumption; EC2's 4 slots per node make slots less sticky than Figure 5's one slot, which is why the \
paper measured 90% rather than ~49% locality at 5 jobs.\n",
        rerun = rerun_line(ctx, EXPERIMENT.name),
    );
    write_markdown(ctx, EXPERIMENT.name, &markdown)?;
    Ok(ExpReport {
        name: EXPERIMENT.name.into(),
        markdown,
        figures: vec![fig],
        json: serde_json::json!({ "runs": json, "data_gb": gb }),
    })
}
