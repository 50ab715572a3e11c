//! Built-in clusters and workloads, so that nothing needs a file to start.
//!
//! Clusters are written as cluster files (TOML) and go through the same
//! validation as users' files; workloads are generator calls. `mrsched list`
//! prints both tables.

use crate::facebook::{self, BmParams, Fb2009Params};
use crate::msjo::{self, Counts, MsjoParams, Times};
use crate::swim::{self, SwimOptions};
use crate::synthetic::{self, SyntheticParams};
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
/// with `swim`, others workload files.
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
    Workload::from_source(&src)
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
