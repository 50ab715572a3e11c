//! Built-in clusters and workloads, so that nothing needs a file to start.
//!
//! Clusters are written as cluster files (TOML) and go through the same
//! validation as users' files; workloads are generator calls. `mrsched list`
//! prints both tables.

use crate::facebook::{self, BmParams, Fb2009Params};
use crate::goals::{self, GoalMixParams};
use crate::jsonstream::{self, TraceFormat};
use crate::msjo::{self, Counts, MsjoParams, Times};
use crate::realtime::{self as rt, RtmrParams, RtmrWorkload};
use crate::shared_scans;
use crate::swim::{self, SwimOptions};
use crate::synthetic::{self, SyntheticParams};
use crate::{rumen, sls};
use mrsched_model::{Cluster, Format, InputError, InputErrors, Source, Workload};
use std::path::Path;

/// A named cluster.
pub struct BuiltinCluster {
    /// Name.
    pub name: &'static str,
    /// What it models.
    pub about: &'static str,
    /// The cluster file.
    pub toml: &'static str,
}

/// A named workload generator.
pub struct BuiltinWorkload {
    /// Name.
    pub name: &'static str,
    /// What it models.
    pub about: &'static str,
    /// Build it for a seed.
    pub make: fn(u64) -> Workload,
}

/// Seed 004 Table I: one master (not modelled) and 30 workers on one rack.
/// Type I: 2 dual-core 2.2 GHz Opteron 275, 4 map + 1 reduce slots; type
/// II: 2 single-core 2.2 GHz Opteron 64 (an older part), 2 map + 1 reduce
/// slots. The paper calls the cluster heterogeneous without measuring the
/// difference; we make type II cores 20% slower. 1 Gbps Ethernet, one disk
/// per node (~70 MB/s, 2008-era SATA), Hadoop 0.21's 3 s heartbeat with
/// out-of-band heartbeats on task completion, JVM start-up of 1 s per task,
/// and reduces only after all maps (RTMR's assumption: slow-start 1.0).
pub const RTMR_30: &str = r#"
name = "rtmr-30"
heartbeat_interval_s = 3
heartbeat_on_completion = true
reduce_slowstart = 1.0
task_overhead_s = 1
[rates]
disk_mb_s = 70
rack_mb_s = 50
off_rack_mb_s = 50
shuffle_mb_s = 30
[[nodes]]
name = "type1"
count = 20
rack = "rack0"
map_slots = 4
reduce_slots = 1
speed = 1.0
[[nodes]]
name = "type2"
count = 10
rack = "rack0"
map_slots = 2
reduce_slots = 1
speed = 0.8
"#;

/// The node section the `shared-100` clusters have in common.
macro_rules! shared_100_nodes {
    () => {
        "heartbeat_interval_s = 3
task_overhead_s = 1
[[nodes]]
name = \"sh\"
count = 100
racks = 4
map_slots = 8
reduce_slots = 2
"
    };
}

/// The seed-003 stand-in cluster: MapReduce alone.
pub const SHARED_100: &str = concat!("name = \"shared-100\"\n", shared_100_nodes!());

/// `shared-100` plus a day-shaped transactional workload compressed to two
/// hours: 10% of every node at the trough (time 0), 70% at the peak (1 h).
pub const SHARED_100_DAY: &str = concat!(
    "name = \"shared-100-day\"\n",
    shared_100_nodes!(),
    "[[capacity]]
kind = \"sine\"
min_fraction = 0.1
max_fraction = 0.7
period_s = 7200
step_s = 60
until_s = 86400
"
);

/// `shared-100` plus bursts of a transactional workload: 75% of every node
/// for 10 minutes every hour, the first at 10 minutes.
pub const SHARED_100_BURSTS: &str = concat!(
    "name = \"shared-100-bursts\"\n",
    shared_100_nodes!(),
    "[[capacity]]
kind = \"bursts\"
fraction = 0.75
every_s = 3600
duration_s = 600
start_s = 600
count = 24
"
);

/// Every built-in cluster.
pub fn clusters() -> Vec<BuiltinCluster> {
    vec![
        BuiltinCluster {
            name: "tiny",
            about: "4 nodes on 2 racks, 2 map + 1 reduce slots (quick experiments)",
            toml: r#"
name = "tiny"
heartbeat_interval_s = 1
[[nodes]]
count = 4
racks = 2
map_slots = 2
reduce_slots = 1
"#,
        },
        BuiltinCluster {
            name: "ec2-100",
            about: "seed 002 Table 1 EC2: 100 nodes, 4 map + 2 reduce slots, 4 racks",
            toml: r#"
name = "ec2-100"
heartbeat_interval_s = 3
task_overhead_s = 1
[rates]
disk_mb_s = 200
rack_mb_s = 100
off_rack_mb_s = 40
shuffle_mb_s = 50
[[nodes]]
name = "ec2"
count = 100
racks = 4
map_slots = 4
reduce_slots = 2
"#,
        },
        BuiltinCluster {
            name: "private-100",
            about:
                "seed 002 Table 1 small private cluster: 100 nodes, 6 map + 4 reduce slots, 4 racks",
            toml: r#"
name = "private-100"
heartbeat_interval_s = 3
task_overhead_s = 1
[rates]
disk_mb_s = 200
rack_mb_s = 100
off_rack_mb_s = 25
shuffle_mb_s = 50
[[nodes]]
name = "priv"
count = 100
racks = 4
map_slots = 6
reduce_slots = 4
"#,
        },
        BuiltinCluster {
            name: "fb-600",
            about: "Facebook 2009 warehouse: 600 nodes on 30 racks, 5 map + 3 reduce slots",
            toml: r#"
name = "fb-600"
heartbeat_interval_s = 3
task_overhead_s = 2
[rates]
disk_mb_s = 200
rack_mb_s = 100
off_rack_mb_s = 12.5
shuffle_mb_s = 50
[[nodes]]
name = "fb"
count = 600
racks = 30
map_slots = 5
reduce_slots = 3
"#,
        },
        // MSJO assumes a task starts the moment its machine and inputs are
        // ready: heartbeats every 0.1 s keep the simulator's wait for a
        // heartbeat small next to 10-15 s tasks.
        BuiltinCluster {
            name: "rtmr-30",
            about: "seed 004 Table I: 20 nodes with 4 map + 1 reduce slots, 10 slower with 2 + 1, one rack",
            toml: RTMR_30,
        },
        BuiltinCluster {
            name: "shared-100",
            about: "seed 003 stand-in: 100 nodes, 8 map + 2 reduce slots, MapReduce alone",
            toml: SHARED_100,
        },
        BuiltinCluster {
            name: "shared-100-day",
            about:
                "shared-100 with a transactional workload taking 10%-70% of every node (2 h sine)",
            toml: SHARED_100_DAY,
        },
        BuiltinCluster {
            name: "shared-100-bursts",
            about: "shared-100 with bursts taking 75% of every node for 10 min every hour",
            toml: SHARED_100_BURSTS,
        },
        BuiltinCluster {
            name: "scan-100",
            about: "seed 000 §4: S = 100 map slots (25 nodes x 4), map-only, no task overhead",
            toml: r#"
name = "scan-100"
heartbeat_interval_s = 3
task_overhead_s = 0
[[nodes]]
name = "scan"
count = 25
racks = 5
map_slots = 4
reduce_slots = 0
"#,
        },
        BuiltinCluster {
            name: "unified-50",
            about: "seed 001 default: 50 identical machines running one task at a time",
            toml: r#"
name = "unified-50"
heartbeat_interval_s = 0.1
heartbeat_on_completion = true
[[nodes]]
name = "m"
count = 50
slots = 1
"#,
        },
        BuiltinCluster {
            name: "unified-100",
            about: "seed 001 Fig. 10: 100 identical machines running one task at a time",
            toml: r#"
name = "unified-100"
heartbeat_interval_s = 0.1
heartbeat_on_completion = true
[[nodes]]
name = "m"
count = 100
slots = 1
"#,
        },
    ]
}

/// Every built-in workload.
pub fn workloads() -> Vec<BuiltinWorkload> {
    vec![
        BuiltinWorkload {
            name: "fb-bm",
            about: "seed 002 BM: 50 Facebook-sized loadgen jobs, Poisson arrivals every ~30 s",
            make: |seed| facebook::bm(seed, &BmParams::default()),
        },
        BuiltinWorkload {
            name: "fb2009-bins",
            about:
                "seed 004 Table II: 100 jobs in the Facebook 2009 size bins, arrivals every ~14 s",
            make: |seed| facebook::fb2009_bins(seed, &Fb2009Params::default()),
        },
        BuiltinWorkload {
            name: "rtmr-workload-1",
            about: "seed 004 workload I: 88 deadline jobs of 1-200 maps, arrivals every ~14 s",
            make: |seed| rt::rtmr_workload(seed, RtmrWorkload::I, &RtmrParams::default()),
        },
        BuiltinWorkload {
            name: "rtmr-workload-2",
            about: "seed 004 workload II: 89 deadline jobs of 1-300 maps and up to 70 reduces",
            make: |seed| rt::rtmr_workload(seed, RtmrWorkload::II, &RtmrParams::default()),
        },
        BuiltinWorkload {
            name: "swim-fb2009-sample",
            about: "the first 50 jobs of the SWIM FB-2009 day trace (bytes mode)",
            make: |seed| {
                let src = Source::new(
                    "swim-fb2009-sample",
                    include_str!("../data/FB-2009_samples_24_times_1hr_0_first50jobs.tsv"),
                    Format::Toml,
                );
                let opts = SwimOptions {
                    seed,
                    ..Default::default()
                };
                swim::read(&src, &opts).expect("the embedded sample is valid")
            },
        },
        BuiltinWorkload {
            name: "goal-mix",
            about: "seed 003 stand-in: 300 map-only jobs of 50-1000 maps, Poisson every ~60 s, goals 2-4x time alone on shared-100, 20% best effort",
            make: |seed| {
                let c = cluster("shared-100").expect("built-in cluster");
                goals::goal_mix(seed, &GoalMixParams::default(), &c)
            },
        },
        BuiltinWorkload {
            name: "shared-scans",
            about: "seed 000 §4: 1000 map-only scans of 20 Zipf datasets in 100 min, rho 0.9 on 100 slots",
            make: |seed| shared_scans::draw(seed, &Default::default()).to_workload(10.0, 1.0),
        },
        BuiltinWorkload {
            name: "day-week-month",
            about: "semi-shared scans: 80 jobs reading a day, a week or a month of 30 daily datasets",
            make: |seed| shared_scans::day_week_month(seed, 80),
        },
        BuiltinWorkload {
            name: "msjo-random",
            about: "seed 001 random scenario: 20 jobs, Poisson(30) maps, N(10,5)/N(15,5) s, weights N(30,10)",
            make: |seed| {
                msjo::msjo(
                    seed,
                    &MsjoParams {
                        jobs: 20,
                        ..Default::default()
                    },
                )
            },
        },
        BuiltinWorkload {
            name: "msjo-uniform",
            about: "seed 001 uniform scenario: 20 jobs of 30 maps (10 s) and 10 reduces (15 s)",
            make: |seed| {
                msjo::msjo(
                    seed,
                    &MsjoParams {
                        jobs: 20,
                        counts: Counts::Uniform,
                        times: Times::Uniform,
                        ..Default::default()
                    },
                )
            },
        },
        BuiltinWorkload {
            name: "synthetic",
            about: "200 jobs, Poisson arrivals every 20 s, Zipf sizes up to 400 maps",
            make: |seed| synthetic::synthetic(seed, &SyntheticParams::default()),
        },
    ]
}

/// A built-in cluster name or a cluster file.
pub fn cluster(arg: &str) -> Result<Cluster, InputErrors> {
    if let Some(c) = clusters().into_iter().find(|c| c.name == arg) {
        return Cluster::from_toml_str(&format!("<builtin {}>", c.name), c.toml);
    }
    let path = Path::new(arg);
    if !path.exists() {
        return Err(InputError::file(
            arg,
            format!(
                "not a built-in cluster or a file (built-in: {})",
                clusters()
                    .iter()
                    .map(|c| c.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
        .into());
    }
    Cluster::from_source(&Source::read(path)?)
}

/// A built-in workload name or a file: `.tsv` files are SWIM traces read
/// with `swim`; Hadoop SLS and Rumen job traces are told by their first
/// record's keys ([`jsonstream::detect`]); others are workload files.
pub fn workload(arg: &str, seed: u64, swim: &SwimOptions) -> Result<Workload, InputErrors> {
    if let Some(w) = workloads().into_iter().find(|w| w.name == arg) {
        return Ok((w.make)(seed));
    }
    let path = Path::new(arg);
    if !path.exists() {
        return Err(InputError::file(
            arg,
            format!(
                "not a built-in workload or a file (built-in: {})",
                workloads()
                    .iter()
                    .map(|w| w.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
        .into());
    }
    let src = Source::read(path)?;
    if path.extension().and_then(|e| e.to_str()) == Some("tsv") {
        let opts = SwimOptions {
            seed,
            ..swim.clone()
        };
        return swim::read(&src, &opts);
    }
    match jsonstream::detect(&src.text) {
        Some(TraceFormat::Sls) => sls::read(&src),
        Some(TraceFormat::Rumen) => rumen::read(&src),
        None => Workload::from_source(&src),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_are_valid() {
        for c in clusters() {
            cluster(c.name).unwrap_or_else(|e| panic!("{}: {e}", c.name));
        }
        for w in workloads() {
            let wl = (w.make)(1);
            assert!(!wl.jobs.is_empty(), "{}", w.name);
        }
        assert!(cluster("nope").is_err());
        assert!(workload("nope", 1, &SwimOptions::default()).is_err());
    }
}
