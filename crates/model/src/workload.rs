//! Workloads: datasets and jobs.
//!
//! [`WorkloadSpec`] is the file format; [`Workload`] the resolved form with
//! each job's map and reduce tasks spelled out ([`JobSpec`]). A job either
//! reads datasets (one map per block, locality applies) or has data-less maps
//! (explicit task times, as the MSJO model needs). Task durations are explicit
//! when the workload gives them and come from the cost model
//! ([`crate::cost`]) otherwise.

use crate::block_sizes::BlockSizes;
use crate::cluster::Cluster;
use crate::error::InputErrors;
use crate::ids::{BlockRef, DatasetId, Priority};
use crate::limits::{num, Limits};
use crate::maps::MapSpecs;
use crate::source::Source;
use crate::time::Time;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::Arc;

fn default_block() -> f64 {
    128.0
}
fn default_replication() -> u32 {
    3
}
fn default_one() -> f64 {
    1.0
}
fn default_map_cpu() -> f64 {
    0.05
}
fn default_reduce_cpu() -> f64 {
    0.05
}

/// A workload file.
#[derive(Clone, Debug, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSpec {
    /// A name for reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Input datasets.
    #[serde(default)]
    pub datasets: Vec<DatasetSpec>,
    /// Jobs, in any order (they are sorted by arrival).
    #[serde(default)]
    pub jobs: Vec<JobFileSpec>,
}

/// A dataset: a file split into blocks that are replicated on nodes.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatasetSpec {
    /// Unique name, referenced by jobs' `input`.
    pub name: String,
    /// Total size, MB, cut into `block_mb` blocks (the last one smaller).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_mb: Option<f64>,
    /// Block size, MB.
    #[serde(default = "default_block")]
    pub block_mb: f64,
    /// Or: the size of every block, MB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks_mb: Option<Vec<f64>>,
    /// Replicas per block.
    #[serde(default = "default_replication")]
    pub replication: u32,
}

/// One name or a list of names.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum OneOrMany {
    /// A single dataset.
    One(String),
    /// Several datasets, read one after the other.
    Many(Vec<String>),
}

impl OneOrMany {
    /// The names as a list.
    pub fn names(&self) -> Vec<&str> {
        match self {
            OneOrMany::One(s) => vec![s.as_str()],
            OneOrMany::Many(v) => v.iter().map(|s| s.as_str()).collect(),
        }
    }
}

/// A job as written in a workload file. See `docs/formats.md`.
#[derive(Clone, Debug, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct JobFileSpec {
    /// Name (default `job-<i>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Submission time, seconds.
    #[serde(default)]
    pub arrival_s: f64,
    /// Submitting user (default `default`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// Pool (default: the user's own pool).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool: Option<String>,
    /// Hadoop priority level.
    #[serde(default)]
    pub priority: Priority,
    /// Weight in weighted metrics and weighted policies.
    #[serde(default = "default_one")]
    pub weight: f64,
    /// Input dataset(s): one map task per block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<OneOrMany>,
    /// Number of data-less map tasks (jobs without `input`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maps: Option<u32>,
    /// Input size of each data-less map, MB (cost model only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub map_input_mb: Option<f64>,
    /// Every map takes this long, seconds (explicit times).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub map_time_s: Option<f64>,
    /// Each map's time, seconds (explicit times).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub map_times_s: Option<Vec<f64>>,
    /// Number of reduce tasks (default 0: map-only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reduces: Option<u32>,
    /// Every reduce takes this long, seconds (explicit times).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reduce_time_s: Option<f64>,
    /// Each reduce's time, seconds (explicit times).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reduce_times_s: Option<Vec<f64>>,
    /// Cost model: map CPU seconds per input MB (at speed 1).
    #[serde(default = "default_map_cpu")]
    pub map_cpu_s_per_mb: f64,
    /// Cost model: map output MB per input MB (loadgen's keepMap).
    #[serde(default = "default_one")]
    pub map_output_ratio: f64,
    /// Cost model: reduce CPU seconds per copied MB.
    #[serde(default = "default_reduce_cpu")]
    pub reduce_cpu_s_per_mb: f64,
    /// Cost model: reduce output MB per copied MB (loadgen's keepReduce).
    #[serde(default = "default_one")]
    pub reduce_output_ratio: f64,
    /// Deadline, seconds after arrival.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_s: Option<f64>,
    /// Completion-time goal (soft deadline), seconds after arrival.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal_s: Option<f64>,
    /// Expected map task time from the job's profile, seconds (used by
    /// estimators before any task has finished).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_map_s: Option<f64>,
    /// Minimum slots (FLEX minima).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_slots: Option<u32>,
    /// Maximum slots (FLEX maxima).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_slots: Option<u32>,
    /// Map-to-reduce delay as a fraction of each map's time: a reduce may
    /// start only `factor x p_u` after map u ends (the MSJO d_uv).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shuffle_delay_factor: Option<f64>,
    /// Delay-scheduling waits `[node_to_rack_s, rack_to_any_s]` for this job
    /// (IO-rate biasing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locality_wait_s: Option<[f64; 2]>,
    /// Job class, for per-class scheduler settings (e.g. `cpu`, `io`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// Explicit-time shared scans: the fraction of a map's time that is the
    /// scan (paid once per shared attempt); the rest is paid per rider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scan_fraction: Option<f64>,
    /// Reduce slow-start for this job (default: the cluster's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reduce_slowstart: Option<f64>,
}

/// A resolved dataset.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Dataset {
    /// Name.
    pub name: String,
    /// Size of each block, MB.
    pub blocks_mb: BlockSizes,
    /// Replicas per block.
    pub replication: u32,
}

impl Dataset {
    /// Total size, MB.
    pub fn size_mb(&self) -> f64 {
        self.blocks_mb.total_mb()
    }
}

/// One map task of a job.
#[derive(Copy, Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct MapSpec {
    /// The block it reads (none for data-less maps).
    pub block: Option<BlockRef>,
    /// Input size, MB.
    pub input_mb: f64,
    /// Explicit duration at speed 1 (else the cost model decides).
    pub time: Option<Time>,
}

/// One reduce task of a job.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ReduceSpec {
    /// Explicit duration at speed 1 (else the cost model decides).
    pub time: Option<Time>,
}

/// Cost-model parameters of a job.
#[derive(Copy, Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CostParams {
    /// Map CPU seconds per input MB.
    pub map_cpu_s_per_mb: f64,
    /// Map output per input.
    pub map_output_ratio: f64,
    /// Reduce CPU seconds per copied MB.
    pub reduce_cpu_s_per_mb: f64,
    /// Reduce output per copied MB.
    pub reduce_output_ratio: f64,
}

/// A resolved job: everything a driver needs to run it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct JobSpec {
    /// Name.
    pub name: String,
    /// User.
    pub user: String,
    /// Pool (`None`: the user's pool).
    pub pool: Option<String>,
    /// Priority level.
    pub priority: Priority,
    /// Weight.
    pub weight: f64,
    /// Submission time.
    pub arrival: Time,
    /// Datasets read, in order.
    pub input: Vec<DatasetId>,
    /// Map tasks.
    pub maps: MapSpecs,
    /// Reduce tasks.
    pub reduces: Vec<ReduceSpec>,
    /// Cost model parameters.
    pub cost: CostParams,
    /// Relative deadline.
    pub deadline: Option<Time>,
    /// Relative completion-time goal.
    pub goal: Option<Time>,
    /// Expected map time from the job's profile.
    pub expected_map: Option<Time>,
    /// Minimum slots.
    pub min_slots: Option<u32>,
    /// Maximum slots.
    pub max_slots: Option<u32>,
    /// Map-to-reduce delay factor.
    pub shuffle_delay_factor: f64,
    /// Per-job delay-scheduling waits.
    pub locality_wait: Option<[Time; 2]>,
    /// Job class.
    pub class: Option<String>,
    /// Scan fraction for explicit-time shared scans.
    pub scan_fraction: f64,
    /// Reduce slow-start override.
    pub reduce_slowstart: Option<f64>,
    /// Per-task weights for task-level objectives (seed 001 §4.4: total
    /// weighted task completion time): maps then reduces. `None`: every
    /// task weighs the job's `weight`. Set by generators.
    #[serde(default)]
    pub task_weights: Option<Vec<f64>>,
}

impl JobSpec {
    /// Weight of map `index` (`TaskKind::Map`) or reduce `index` in
    /// task-level objectives: its own weight, else the job's.
    pub fn task_weight(&self, kind: crate::TaskKind, index: usize) -> f64 {
        let i = match kind {
            crate::TaskKind::Map => index,
            crate::TaskKind::Reduce => self.maps.len() + index,
        };
        self.task_weights
            .as_ref()
            .and_then(|w| w.get(i).copied())
            .unwrap_or(self.weight)
    }
    /// The pool this job belongs to: its own `pool`, else its user's name.
    pub fn pool_name(&self) -> &str {
        self.pool.as_deref().unwrap_or(&self.user)
    }
    /// Absolute deadline.
    pub fn abs_deadline(&self) -> Option<Time> {
        self.deadline.map(|d| self.arrival + d)
    }
    /// Absolute goal.
    pub fn abs_goal(&self) -> Option<Time> {
        self.goal.map(|g| self.arrival + g)
    }
    /// True when reduces have explicit times: they wait for every map plus
    /// the map-to-reduce delays and have no copy phase (the MSJO model).
    pub fn explicit_reduces(&self) -> bool {
        self.reduces.iter().any(|r| r.time.is_some())
    }
    /// A minimal job with `maps` data-less maps of `map_s` seconds and
    /// `reduces` reduces of `reduce_s` seconds (tests, generators).
    pub fn explicit(
        name: &str,
        arrival: Time,
        maps: &[f64],
        reduces: &[f64],
        weight: f64,
    ) -> JobSpec {
        JobSpec {
            name: name.to_string(),
            user: "default".into(),
            pool: None,
            priority: Priority::Normal,
            weight,
            arrival,
            input: vec![],
            maps: maps
                .iter()
                .map(|&t| MapSpec {
                    block: None,
                    input_mb: 0.0,
                    time: Some(Time::from_secs_f64(t)),
                })
                .collect(),
            reduces: reduces
                .iter()
                .map(|&t| ReduceSpec {
                    time: Some(Time::from_secs_f64(t)),
                })
                .collect(),
            cost: CostParams {
                map_cpu_s_per_mb: 0.0,
                map_output_ratio: 0.0,
                reduce_cpu_s_per_mb: 0.0,
                reduce_output_ratio: 0.0,
            },
            deadline: None,
            goal: None,
            expected_map: None,
            min_slots: None,
            max_slots: None,
            shuffle_delay_factor: 0.0,
            locality_wait: None,
            class: None,
            scan_fraction: 1.0,
            reduce_slowstart: None,
            task_weights: None,
        }
    }
}

/// A resolved workload.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Default)]
pub struct Workload {
    /// Name for reports.
    pub name: String,
    /// Datasets by [`DatasetId`].
    pub datasets: Vec<Dataset>,
    /// Jobs sorted by arrival (stable: file order breaks ties). Shared, so
    /// a simulation's state holds the same specs rather than copies.
    pub jobs: Vec<Arc<JobSpec>>,
}

/// Resolve one dataset spec; `f` names fields for errors.
pub fn resolve_dataset(
    d: &DatasetSpec,
    f: &dyn Fn(&str) -> String,
    src: &Source,
    errs: &mut InputErrors,
) -> Option<Dataset> {
    let mut ok = true;
    let mut bad = |field: &str, msg: String| {
        errs.push(src.error(f(field), msg));
        ok = false;
    };
    let lim = Limits::current();
    if d.name.trim().is_empty() {
        bad("name", "a dataset needs a non-empty name".into());
    }
    if d.replication == 0 {
        bad("replication", "must be at least 1".into());
    }
    let blocks = match (&d.blocks_mb, d.size_mb) {
        (Some(_), Some(_)) => {
            bad(
                "blocks_mb",
                "give either `size_mb` or `blocks_mb`, not both".into(),
            );
            BlockSizes::default()
        }
        (Some(b), None) => {
            if b.is_empty() {
                bad("blocks_mb", "a dataset needs at least one block".into());
            }
            if let Some(m) = Limits::check_count(
                b.len() as u64,
                lim.max_job_tasks,
                "blocks per dataset (one map each; raise it with --max-job-tasks)",
            ) {
                bad("blocks_mb", m);
            }
            for (i, v) in b.iter().enumerate() {
                if !(v.is_finite() && *v > 0.0) {
                    bad(
                        "blocks_mb",
                        format!("block {i} has size {v}; sizes must be positive MB"),
                    );
                } else if *v > lim.max_size_mb {
                    bad(
                        "blocks_mb",
                        format!(
                            "block {i} has size {} MB, beyond the limit of {} MB",
                            num(*v),
                            lim.max_size_mb
                        ),
                    );
                }
            }
            BlockSizes::from_vec(b.clone())
        }
        (None, Some(size)) => {
            if !(size.is_finite() && size > 0.0) {
                bad(
                    "size_mb",
                    format!("must be a positive size in MB, got {size}"),
                );
                BlockSizes::default()
            } else if size > lim.max_size_mb {
                bad(
                    "size_mb",
                    format!(
                        "{} MB is beyond the limit of {} MB",
                        num(size),
                        lim.max_size_mb
                    ),
                );
                BlockSizes::default()
            } else if !(d.block_mb.is_finite() && d.block_mb > 0.0) {
                bad(
                    "block_mb",
                    format!("must be a positive size in MB, got {}", d.block_mb),
                );
                BlockSizes::default()
            } else if d.block_mb < lim.min_block_mb || d.block_mb > lim.max_size_mb {
                bad(
                    "block_mb",
                    format!(
                        "{} MB is outside the limits [{}, {}] MB",
                        num(d.block_mb),
                        lim.min_block_mb,
                        lim.max_size_mb
                    ),
                );
                BlockSizes::default()
            } else {
                let n = (size / d.block_mb).ceil();
                if n > lim.max_job_tasks as f64 {
                    bad(
                        "size_mb",
                        format!(
                            "{} MB in blocks of {} MB is {} blocks, beyond the limit of {} blocks per dataset (one map each; raise it with --max-job-tasks)",
                            num(size),
                            num(d.block_mb),
                            num(n), lim.max_job_tasks
                        ),
                    );
                    BlockSizes::default()
                } else {
                    let last = size - d.block_mb * (n - 1.0);
                    BlockSizes::uniform(n as usize, d.block_mb, last)
                }
            }
        }
        (None, None) => {
            bad(
                "size_mb",
                "a dataset needs `size_mb` (with `block_mb`) or `blocks_mb`".into(),
            );
            BlockSizes::default()
        }
    };
    ok.then(|| Dataset {
        name: d.name.clone(),
        blocks_mb: blocks,
        replication: d.replication,
    })
}

impl JobFileSpec {
    /// Resolve a job against known datasets. Errors name fields through `f`
    /// (e.g. `jobs[3].deadline_s`) and are located in `src`.
    pub fn resolve(
        &self,
        default_name: &str,
        datasets: &[Dataset],
        f: &dyn Fn(&str) -> String,
        src: &Source,
        errs: &mut InputErrors,
    ) -> Option<JobSpec> {
        let index = dataset_index(datasets);
        self.resolve_indexed(default_name, datasets, &index, f, src, errs)
    }

    /// [`JobFileSpec::resolve`] with the datasets' index by name (see
    /// [`dataset_index`]), so that resolving many jobs stays linear.
    pub fn resolve_indexed(
        &self,
        default_name: &str,
        datasets: &[Dataset],
        index: &HashMap<&str, usize>,
        f: &dyn Fn(&str) -> String,
        src: &Source,
        errs: &mut InputErrors,
    ) -> Option<JobSpec> {
        let before = errs.0.len();
        macro_rules! bad {
            ($field:expr, $msg:expr $(,)?) => {
                errs.push(src.error(f($field), {
                    let m: String = $msg;
                    m
                }))
            };
        }
        let pos = |v: f64| v.is_finite() && v > 0.0;
        let nonneg = |v: f64| v.is_finite() && v >= 0.0;
        let frac = |v: f64| v.is_finite() && (0.0..=1.0).contains(&v);
        let lim = Limits::current();

        if !nonneg(self.arrival_s) {
            bad!(
                "arrival_s",
                format!("must be zero or more seconds, got {}", self.arrival_s),
            );
        } else if self.arrival_s > lim.max_time_s {
            bad!(
                "arrival_s",
                format!(
                    "{} s is beyond the simulated horizon of {} s (ten years)",
                    num(self.arrival_s),
                    lim.max_time_s
                ),
            );
        }
        if !pos(self.weight) {
            bad!(
                "weight",
                format!("must be a positive number, got {}", self.weight),
            );
        } else if self.weight > lim.max_weight {
            bad!(
                "weight",
                format!(
                    "{} is beyond the limit of {}",
                    num(self.weight),
                    lim.max_weight
                ),
            );
        }
        // Durations: a positive finite number is checked below; here only
        // the upper limit.
        let long = |v: f64| v.is_finite() && v > lim.max_duration_s;
        let too_long = |v: f64| {
            format!(
                "{} s is beyond the limit of {} s",
                num(v),
                lim.max_duration_s
            )
        };
        for (k, v) in [
            ("deadline_s", self.deadline_s),
            ("goal_s", self.goal_s),
            ("expected_map_s", self.expected_map_s),
            ("map_time_s", self.map_time_s),
            ("reduce_time_s", self.reduce_time_s),
            (
                "locality_wait_s",
                self.locality_wait_s.map(|w| w[0].max(w[1])),
            ),
        ] {
            if let Some(v) = v.filter(|v| long(*v)) {
                bad!(k, too_long(v));
            }
        }
        for (k, ts) in [
            ("map_times_s", &self.map_times_s),
            ("reduce_times_s", &self.reduce_times_s),
        ] {
            if let Some((i, v)) = ts.iter().flatten().enumerate().find(|(_, v)| long(**v)) {
                bad!(k, format!("time {i}: {}", too_long(*v)));
            }
        }
        for (k, v) in [
            ("map_cpu_s_per_mb", self.map_cpu_s_per_mb),
            ("map_output_ratio", self.map_output_ratio),
            ("reduce_cpu_s_per_mb", self.reduce_cpu_s_per_mb),
            ("reduce_output_ratio", self.reduce_output_ratio),
            (
                "shuffle_delay_factor",
                self.shuffle_delay_factor.unwrap_or(0.0),
            ),
        ] {
            if v.is_finite() && v > lim.max_factor {
                bad!(
                    k,
                    format!("{} is beyond the limit of {}", num(v), lim.max_factor)
                );
            }
        }
        if let Some(mb) = self
            .map_input_mb
            .filter(|v| v.is_finite() && *v > lim.max_size_mb)
        {
            bad!(
                "map_input_mb",
                format!(
                    "{} MB is beyond the limit of {} MB",
                    num(mb),
                    lim.max_size_mb
                ),
            );
        }
        let job_tasks = |n: u64| {
            Limits::check_count(
                n,
                lim.max_job_tasks,
                "tasks per job (raise it with --max-job-tasks)",
            )
        };
        for (k, v) in [
            ("map_cpu_s_per_mb", self.map_cpu_s_per_mb),
            ("map_output_ratio", self.map_output_ratio),
            ("reduce_cpu_s_per_mb", self.reduce_cpu_s_per_mb),
            ("reduce_output_ratio", self.reduce_output_ratio),
        ] {
            if !nonneg(v) {
                bad!(k, format!("must be zero or more, got {v}"));
            }
        }
        if let Some(d) = self.deadline_s {
            if !pos(d) {
                bad!(
                    "deadline_s",
                    format!("is relative to arrival and must be positive (a deadline before arrival is impossible), got {d}"),
                );
            }
        }
        if let Some(g) = self.goal_s {
            if !pos(g) {
                bad!(
                    "goal_s",
                    format!("is relative to arrival and must be positive, got {g}"),
                );
            }
        }
        if let Some(e) = self.expected_map_s {
            if !pos(e) {
                bad!(
                    "expected_map_s",
                    "must be a positive number of seconds".into()
                );
            }
        }
        if let (Some(lo), Some(hi)) = (self.min_slots, self.max_slots) {
            if hi < lo {
                bad!(
                    "max_slots",
                    format!("max_slots ({hi}) is below min_slots ({lo})"),
                );
            }
        }
        if self.max_slots == Some(0) {
            bad!("max_slots", "must be at least 1".into());
        }
        if let Some(d) = self.shuffle_delay_factor {
            if !nonneg(d) {
                bad!("shuffle_delay_factor", "must be zero or more".into());
            }
        }
        if let Some(w) = self.locality_wait_s {
            if !(nonneg(w[0]) && nonneg(w[1])) {
                bad!(
                    "locality_wait_s",
                    "waits must be zero or more seconds".into(),
                );
            }
        }
        if let Some(s) = self.scan_fraction {
            if !frac(s) {
                bad!("scan_fraction", "must be a fraction in [0, 1]".into());
            }
        }
        if let Some(s) = self.reduce_slowstart {
            if !frac(s) {
                bad!("reduce_slowstart", "must be a fraction in [0, 1]".into());
            }
        }

        // Map tasks.
        let mut input = Vec::new();
        let mut maps: Vec<MapSpec> = Vec::new();
        match (&self.input, self.maps) {
            (Some(names), _) => {
                for name in names.names() {
                    match index.get(name).copied() {
                        Some(i) => {
                            let id = DatasetId(i as u32);
                            if input.contains(&id) {
                                bad!("input", format!("dataset `{name}` is listed twice"));
                                continue;
                            }
                            input.push(id);
                            let n = maps.len() as u64 + datasets[i].blocks_mb.len() as u64;
                            if let Some(m) = job_tasks(n) {
                                bad!("input", format!("the input's blocks (one map each): {m}"));
                                break;
                            }
                            for (b, mb) in datasets[i].blocks_mb.iter().enumerate() {
                                maps.push(MapSpec {
                                    block: Some(BlockRef {
                                        dataset: id,
                                        index: b as u32,
                                    }),
                                    input_mb: mb,
                                    time: None,
                                });
                            }
                        }
                        None => bad!(
                            "input",
                            format!(
                                "no dataset is named `{name}` (known: {})",
                                list_names(datasets.iter().map(|d| d.name.as_str()))
                            ),
                        ),
                    }
                }
                if let Some(m) = self.maps {
                    if m as usize != maps.len() && errs.0.len() == before {
                        bad!(
                            "maps",
                            format!(
                                "the input has {} blocks, so the job has {} maps, not {m} (leave `maps` out)",
                                maps.len(),
                                maps.len()
                            ),
                        );
                    }
                }
                if self.map_input_mb.is_some() {
                    bad!(
                        "map_input_mb",
                        "only for data-less maps; a job with `input` reads its blocks".into(),
                    );
                }
            }
            (None, Some(m)) => {
                let mb = self.map_input_mb.unwrap_or(0.0);
                if !nonneg(mb) {
                    bad!("map_input_mb", "must be zero or more MB".into());
                }
                if let Some(msg) = job_tasks(m.into()) {
                    bad!("maps", msg);
                    return None;
                }
                maps = (0..m)
                    .map(|_| MapSpec {
                        block: None,
                        input_mb: mb,
                        time: None,
                    })
                    .collect();
            }
            (None, None) => {
                if let Some(t) = &self.map_times_s {
                    maps = t
                        .iter()
                        .map(|_| MapSpec {
                            block: None,
                            input_mb: self.map_input_mb.unwrap_or(0.0),
                            time: None,
                        })
                        .collect();
                } else {
                    bad!(
                        "input",
                        "a job needs `input` (datasets), `maps` (a count) or `map_times_s`".into(),
                    );
                }
            }
        }
        if maps.is_empty() && errs.0.len() == before {
            bad!("maps", "a job needs at least one map task".into());
        }
        match (&self.map_times_s, self.map_time_s) {
            (Some(_), Some(_)) => bad!(
                "map_time_s",
                "give either `map_time_s` or `map_times_s`, not both".into(),
            ),
            (Some(ts), None) => {
                if ts.len() != maps.len() && !maps.is_empty() {
                    bad!(
                        "map_times_s",
                        format!("has {} times for {} maps", ts.len(), maps.len()),
                    );
                } else {
                    for (i, t) in ts.iter().enumerate() {
                        if !pos(*t) {
                            bad!(
                                "map_times_s",
                                format!("time {i} is {t}; times must be positive seconds"),
                            );
                        }
                    }
                    for (m, t) in maps.iter_mut().zip(ts) {
                        m.time = Some(Time::from_secs_f64(*t));
                    }
                }
            }
            (None, Some(t)) => {
                if !pos(t) {
                    bad!(
                        "map_time_s",
                        format!("must be a positive number of seconds, got {t}"),
                    );
                }
                for m in &mut maps {
                    m.time = Some(Time::from_secs_f64(t));
                }
            }
            (None, None) => {}
        }

        // Reduce tasks.
        let mut n_red = self.reduces.unwrap_or(0) as usize;
        if let Some(ts) = &self.reduce_times_s {
            if self.reduces.is_some() && ts.len() != n_red {
                bad!(
                    "reduce_times_s",
                    format!("has {} times for {n_red} reduces", ts.len()),
                );
            }
            n_red = ts.len();
        }
        if let Some(msg) = job_tasks(maps.len() as u64 + n_red as u64) {
            bad!(
                if self.reduces.is_some() {
                    "reduces"
                } else {
                    "reduce_times_s"
                },
                format!("{} maps and {n_red} reduces: {msg}", maps.len()),
            );
            return None;
        }
        let mut reduces = vec![ReduceSpec { time: None }; n_red];
        match (&self.reduce_times_s, self.reduce_time_s) {
            (Some(_), Some(_)) => bad!(
                "reduce_time_s",
                "give either `reduce_time_s` or `reduce_times_s`, not both".into(),
            ),
            (Some(ts), None) => {
                for (i, t) in ts.iter().enumerate() {
                    if !pos(*t) {
                        bad!(
                            "reduce_times_s",
                            format!("time {i} is {t}; times must be positive seconds"),
                        );
                    }
                }
                for (r, t) in reduces.iter_mut().zip(ts) {
                    r.time = Some(Time::from_secs_f64(*t));
                }
            }
            (None, Some(t)) => {
                if !pos(t) {
                    bad!(
                        "reduce_time_s",
                        format!("must be a positive number of seconds, got {t}"),
                    );
                }
                if n_red == 0 {
                    bad!(
                        "reduce_time_s",
                        "is set but the job has no reduces (set `reduces`)".into(),
                    );
                }
                for r in &mut reduces {
                    r.time = Some(Time::from_secs_f64(t));
                }
            }
            (None, None) => {}
        }

        if errs.0.len() > before {
            return None;
        }
        let maps = match input.as_slice() {
            // One dataset read whole, no explicit times: its blocks.
            [d] if self.input.is_some() && maps.iter().all(|m| m.time.is_none()) => {
                MapSpecs::blocks(*d, datasets[d.idx()].blocks_mb.clone())
            }
            _ => maps.into(),
        };
        Some(JobSpec {
            name: self
                .name
                .clone()
                .unwrap_or_else(|| default_name.to_string()),
            user: self.user.clone().unwrap_or_else(|| "default".to_string()),
            pool: self.pool.clone(),
            priority: self.priority,
            weight: self.weight,
            arrival: Time::from_secs_f64(self.arrival_s),
            input,
            maps,
            reduces,
            cost: CostParams {
                map_cpu_s_per_mb: self.map_cpu_s_per_mb,
                map_output_ratio: self.map_output_ratio,
                reduce_cpu_s_per_mb: self.reduce_cpu_s_per_mb,
                reduce_output_ratio: self.reduce_output_ratio,
            },
            deadline: self.deadline_s.map(Time::from_secs_f64),
            goal: self.goal_s.map(Time::from_secs_f64),
            expected_map: self.expected_map_s.map(Time::from_secs_f64),
            min_slots: self.min_slots,
            max_slots: self.max_slots,
            shuffle_delay_factor: self.shuffle_delay_factor.unwrap_or(0.0),
            locality_wait: self
                .locality_wait_s
                .map(|w| [Time::from_secs_f64(w[0]), Time::from_secs_f64(w[1])]),
            class: self.class.clone(),
            scan_fraction: self.scan_fraction.unwrap_or(1.0),
            reduce_slowstart: self.reduce_slowstart,
            task_weights: None,
        })
    }
}

/// Datasets by name (the first of a name), for resolving jobs' inputs.
pub fn dataset_index(datasets: &[Dataset]) -> HashMap<&str, usize> {
    let mut m = HashMap::with_capacity(datasets.len());
    for (i, d) in datasets.iter().enumerate() {
        m.entry(d.name.as_str()).or_insert(i);
    }
    m
}

fn list_names<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let v: Vec<&str> = names.take(8).collect();
    if v.is_empty() {
        "none".to_string()
    } else {
        v.join(", ")
    }
}

impl Workload {
    /// Check and resolve a workload file.
    pub fn from_source(src: &Source) -> Result<Workload, InputErrors> {
        let spec: WorkloadSpec = src.parse()?;
        Workload::from_spec(&spec, src)
    }

    /// Check and resolve a parsed workload; `src` locates errors.
    pub fn from_spec(spec: &WorkloadSpec, src: &Source) -> Result<Workload, InputErrors> {
        let mut errs = InputErrors::new();
        let mut datasets = Vec::new();
        let mut names = std::collections::HashSet::new();
        for (i, d) in spec.datasets.iter().enumerate() {
            if !names.insert(d.name.as_str()) {
                errs.push(src.error(
                    format!("datasets[{i}].name"),
                    format!("dataset `{}` is defined twice", d.name),
                ));
                continue;
            }
            let f = move |k: &str| format!("datasets[{i}].{k}");
            if let Some(ds) = resolve_dataset(d, &f, src, &mut errs) {
                datasets.push(ds);
            } else {
                // Keep indices aligned so later references resolve; the
                // workload is rejected anyway.
                datasets.push(Dataset {
                    name: d.name.clone(),
                    blocks_mb: vec![1.0].into(),
                    replication: 1,
                });
            }
        }
        if spec.jobs.is_empty() {
            errs.push(src.error("jobs", "a workload needs at least one [[jobs]] entry"));
        }
        let lim = Limits::current();
        let blocks: u64 = datasets.iter().map(|d| d.blocks_mb.len() as u64).sum();
        if let Some(m) = Limits::check_count(
            blocks,
            lim.max_total_tasks,
            "blocks in all datasets (raise it with --max-tasks)",
        ) {
            errs.push(src.error("datasets", m));
        }
        let index = dataset_index(&datasets);
        let mut jobs = Vec::with_capacity(spec.jobs.len());
        let mut tasks = 0u64;
        for (i, j) in spec.jobs.iter().enumerate() {
            let f = move |k: &str| format!("jobs[{i}].{k}");
            if let Some(js) =
                j.resolve_indexed(&format!("job-{i}"), &datasets, &index, &f, src, &mut errs)
            {
                tasks += (js.maps.len() + js.reduces.len()) as u64;
                if let Some(m) = Limits::check_count(
                    tasks,
                    lim.max_total_tasks,
                    "tasks in a workload (raise it with --max-tasks)",
                ) {
                    errs.push(src.error(
                        f("name"),
                        format!("with job `{}` the workload has {m}", js.name),
                    ));
                    break;
                }
                jobs.push(Arc::new(js));
            }
        }
        errs.into_result(())?;
        jobs.sort_by_key(|j| j.arrival);
        Ok(Workload {
            name: spec.name.clone().unwrap_or_else(|| src.label.clone()),
            datasets,
            jobs,
        })
    }

    /// Checks that need the cluster: replication against node count, and
    /// the run's estimated end within the simulated horizon. Returns that
    /// estimate ([`crate::estimate()`]): sizing a day-long trace reads
    /// every task once, which a caller need not do again.
    pub fn check_against(
        &self,
        cluster: &Cluster,
        label: &str,
    ) -> Result<crate::Estimate, InputErrors> {
        let mut errs = InputErrors::new();
        let n = cluster.nodes.len() as u32;
        // One error per dataset for the first few: a trace of thousands of
        // jobs, each with its own dataset, would repeat it thousands of times.
        let over: Vec<(usize, &Dataset)> = self
            .datasets
            .iter()
            .enumerate()
            .filter(|(_, d)| d.replication > n)
            .collect();
        for (i, d) in over.iter().take(3) {
            errs.push(crate::error::InputError::field(
                label,
                format!("datasets[{i}].replication"),
                format!(
                    "dataset `{}` asks for {} replicas but the cluster `{}` has only {n} nodes",
                    d.name, d.replication, cluster.name
                ),
            ));
        }
        if over.len() > 3 {
            errs.push(crate::error::InputError::file(
                label,
                format!(
                    "{} more datasets ask for more replicas than the cluster `{}` has nodes",
                    over.len() - 3,
                    cluster.name
                ),
            ));
        }
        let lim = Limits::current();
        let est = crate::estimate::estimate(cluster, self);
        if est.horizon_s > lim.max_time_s {
            let last = self.jobs.iter().max_by_key(|j| j.arrival);
            let why = match (&est.longest_task, last) {
                (Some((job, kind, t)), _) if *t > lim.max_duration_s / 2.0 => format!(
                    "job `{job}` has a {kind} of about {t:.0} s on the slowest node of `{}` (from its task times or its sizes and cost factors)",
                    cluster.name
                ),
                (_, Some(j)) if j.arrival.as_secs_f64() > lim.max_time_s / 2.0 => format!(
                    "job `{}` arrives at {:.0} s (its arrival_s), and the work from then on takes about {:.0} s more",
                    j.name,
                    j.arrival.as_secs_f64(),
                    est.horizon_s - j.arrival.as_secs_f64()
                ),
                _ => format!(
                    "{} tasks of {:.0} task-seconds in all on {} slots",
                    est.tasks, est.work_s, est.slots
                ),
            };
            errs.push(crate::error::InputError::file(
                label,
                format!(
                    "the workload would run until about {:.0} s, beyond the simulated horizon of {} s: {why}",
                    est.horizon_s, lim.max_time_s
                ),
            ));
        }
        errs.into_result(est)
    }

    /// Total number of tasks.
    pub fn task_count(&self) -> usize {
        self.jobs
            .iter()
            .map(|j| j.maps.len() + j.reduces.len())
            .sum()
    }

    /// Turn back into a file spec (for `mrsched generate`).
    pub fn to_spec(&self) -> WorkloadSpec {
        WorkloadSpec {
            name: Some(self.name.clone()),
            datasets: self
                .datasets
                .iter()
                .map(|d| {
                    let b = &d.blocks_mb;
                    let uniform = b
                        .iter()
                        .take(b.len().saturating_sub(1))
                        .all(|x| Some(x) == b.first());
                    if uniform && b.last() <= b.first() && !b.is_empty() {
                        DatasetSpec {
                            name: d.name.clone(),
                            size_mb: Some(d.size_mb()),
                            block_mb: b.first().expect("not empty"),
                            blocks_mb: None,
                            replication: d.replication,
                        }
                    } else {
                        DatasetSpec {
                            name: d.name.clone(),
                            size_mb: None,
                            block_mb: default_block(),
                            blocks_mb: Some(d.blocks_mb.to_vec()),
                            replication: d.replication,
                        }
                    }
                })
                .collect(),
            jobs: self
                .jobs
                .iter()
                .map(|j| j.to_file_spec(&self.datasets))
                .collect(),
        }
    }
}

impl JobSpec {
    /// The file form of this job.
    pub fn to_file_spec(&self, datasets: &[Dataset]) -> JobFileSpec {
        let secs = |t: Time| t.as_secs_f64();
        let map_times: Option<Vec<f64>> = self
            .maps
            .iter()
            .map(|m| m.time.map(secs))
            .collect::<Option<Vec<_>>>();
        let red_times: Option<Vec<f64>> = if self.reduces.is_empty() {
            None
        } else {
            self.reduces
                .iter()
                .map(|r| r.time.map(secs))
                .collect::<Option<Vec<_>>>()
        };
        let uniform = |v: &Vec<f64>| v.iter().all(|x| *x == v[0]);
        let (map_time_s, map_times_s) = match map_times {
            Some(v) if !v.is_empty() && uniform(&v) => (Some(v[0]), None),
            Some(v) => (None, Some(v)),
            None => (None, None),
        };
        let (reduce_time_s, reduce_times_s) = match red_times {
            Some(v) if uniform(&v) => (Some(v[0]), None),
            Some(v) => (None, Some(v)),
            None => (None, None),
        };
        let input = match self.input.len() {
            0 => None,
            1 => Some(OneOrMany::One(datasets[self.input[0].idx()].name.clone())),
            _ => Some(OneOrMany::Many(
                self.input
                    .iter()
                    .map(|d| datasets[d.idx()].name.clone())
                    .collect(),
            )),
        };
        JobFileSpec {
            name: Some(self.name.clone()),
            arrival_s: secs(self.arrival),
            user: Some(self.user.clone()),
            pool: self.pool.clone(),
            priority: self.priority,
            weight: self.weight,
            maps: input.is_none().then_some(self.maps.len() as u32),
            map_input_mb: (input.is_none() && self.maps.first().is_some_and(|m| m.input_mb > 0.0))
                .then(|| self.maps.at(0).input_mb),
            input,
            map_time_s,
            map_times_s,
            reduces: Some(self.reduces.len() as u32),
            reduce_time_s,
            reduce_times_s,
            map_cpu_s_per_mb: self.cost.map_cpu_s_per_mb,
            map_output_ratio: self.cost.map_output_ratio,
            reduce_cpu_s_per_mb: self.cost.reduce_cpu_s_per_mb,
            reduce_output_ratio: self.cost.reduce_output_ratio,
            deadline_s: self.deadline.map(secs),
            goal_s: self.goal.map(secs),
            expected_map_s: self.expected_map.map(secs),
            min_slots: self.min_slots,
            max_slots: self.max_slots,
            shuffle_delay_factor: (self.shuffle_delay_factor != 0.0)
                .then_some(self.shuffle_delay_factor),
            locality_wait_s: self.locality_wait.map(|w| [secs(w[0]), secs(w[1])]),
            class: self.class.clone(),
            scan_fraction: (self.scan_fraction != 1.0).then_some(self.scan_fraction),
            reduce_slowstart: self.reduce_slowstart,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Format;

    fn parse(t: &str) -> Result<Workload, InputErrors> {
        Workload::from_source(&Source::new("w.toml", t, Format::Toml))
    }

    #[test]
    fn datasets_and_jobs_resolve() {
        let w = parse(
            r#"
[[datasets]]
name = "logs"
size_mb = 300
block_mb = 128

[[jobs]]
name = "b"
arrival_s = 5
input = "logs"
reduces = 2

[[jobs]]
name = "a"
arrival_s = 1
maps = 3
map_time_s = 10
reduce_times_s = [4, 5]
weight = 2
deadline_s = 100
"#,
        )
        .unwrap();
        assert_eq!(w.datasets[0].blocks_mb.to_vec(), [128.0, 128.0, 44.0]);
        assert_eq!(w.jobs[0].name, "a", "sorted by arrival");
        assert_eq!(w.jobs[0].maps.len(), 3);
        assert_eq!(w.jobs[0].reduces.len(), 2);
        assert!(w.jobs[0].explicit_reduces());
        assert_eq!(w.jobs[0].abs_deadline(), Some(Time::from_secs(101)));
        assert_eq!(w.jobs[1].maps.len(), 3);
        assert_eq!(w.jobs[1].maps.at(2).input_mb, 44.0);
        assert_eq!(w.jobs[1].pool_name(), "default");
    }

    #[test]
    fn bad_jobs_report_every_problem_with_lines() {
        let e = parse(
            r#"
[[datasets]]
name = "logs"
size_mb = -1

[[jobs]]
input = "nope"
deadline_s = -5

[[jobs]]
maps = 2
map_times_s = [1, 2, 3]
min_slots = 4
max_slots = 2
"#,
        )
        .unwrap_err();
        let s = e.to_string();
        assert!(s.contains("w.toml:4: datasets[0].size_mb"), "{s}");
        assert!(
            s.contains("w.toml:7: jobs[0].input: no dataset is named `nope`"),
            "{s}"
        );
        assert!(s.contains("w.toml:8: jobs[0].deadline_s"), "{s}");
        assert!(
            s.contains("w.toml:12: jobs[1].map_times_s: has 3 times for 2 maps"),
            "{s}"
        );
        assert!(s.contains("jobs[1].max_slots"), "{s}");
    }

    #[test]
    fn replication_above_node_count_is_rejected() {
        let w =
            parse("[[datasets]]\nname=\"d\"\nsize_mb=10\nreplication=5\n[[jobs]]\ninput=\"d\"\n")
                .unwrap();
        let c = Cluster::from_toml_str("c", "[[nodes]]\ncount=3\nmap_slots=1\n").unwrap();
        let e = w.check_against(&c, "w.toml").unwrap_err();
        assert!(e.to_string().contains("5 replicas"), "{e}");
    }

    #[test]
    fn spec_round_trip() {
        let w = parse(
            r#"
[[datasets]]
name = "logs"
size_mb = 300
[[datasets]]
name = "odd"
blocks_mb = [10, 20]
[[jobs]]
input = ["logs", "odd"]
reduces = 2
deadline_s = 50
[[jobs]]
maps = 3
map_times_s = [1, 2, 3]
reduce_time_s = 2
reduces = 1
"#,
        )
        .unwrap();
        let text = toml::to_string(&w.to_spec()).unwrap();
        let back = parse(&text).unwrap();
        assert_eq!(back.jobs, w.jobs);
        assert_eq!(back.datasets, w.datasets);
    }

    fn err_of(t: &str) -> String {
        let t0 = std::time::Instant::now();
        let s = parse(t).unwrap_err().to_string();
        assert!(t0.elapsed().as_secs() < 5, "slow rejection: {s}");
        s
    }

    #[test]
    fn limits_reject_absurd_counts_before_allocating() {
        let s = err_of("[[jobs]]\nname = \"big\"\nmaps = 4294967295\n");
        assert!(
            s.contains(
                "w.toml:3: jobs[0].maps: 4294967295 is beyond the limit of 10000000 tasks per job"
            ),
            "{s}"
        );
        let s = err_of("[[jobs]]\nmaps = 1\nreduces = 99999999\n");
        assert!(
            s.contains("w.toml:3: jobs[0].reduces: 1 maps and 99999999 reduces: 100000000 is beyond the limit of 10000000 tasks per job"),
            "{s}"
        );
        let s =
            err_of("[[datasets]]\nname = \"d\"\nsize_mb = 4294967296\n[[jobs]]\ninput = \"d\"\n");
        assert!(
            s.contains("w.toml:3: datasets[0].size_mb: 4294967296 MB in blocks of 128 MB is 33554432 blocks, beyond the limit of 10000000 blocks per dataset"),
            "{s}"
        );
        let s = err_of("[[datasets]]\nname = \"d\"\nsize_mb = 1e300\n[[jobs]]\ninput = \"d\"\n");
        assert!(
            s.contains("datasets[0].size_mb: 1e300 MB is beyond the limit"),
            "{s}"
        );
    }

    #[test]
    fn limits_reject_times_beyond_the_horizon() {
        let s =
            err_of("[[jobs]]\nmaps = 1\nmap_time_s = 1\n\n[[jobs]]\nmaps = 1\narrival_s = 1e308\n");
        assert!(
            s.contains("w.toml:7: jobs[1].arrival_s: 1e308 s is beyond the simulated horizon of 315360000 s"),
            "{s}"
        );
        let s = err_of("[[jobs]]\nmaps = 1\nmap_time_s = 1\nreduce_times_s = [1, 4294967296]\n");
        assert!(
            s.contains("w.toml:4: jobs[0].reduce_times_s: time 1: 4294967296 s is beyond the limit of 315360000 s"),
            "{s}"
        );
        let s = err_of(
            "[[jobs]]\nmaps = 1\nreduces = 1\nreduce_time_s = 4294967296\ndeadline_s = 1e300\n",
        );
        assert!(
            s.contains("w.toml:4: jobs[0].reduce_time_s: 4294967296 s"),
            "{s}"
        );
        assert!(s.contains("w.toml:5: jobs[0].deadline_s: 1e300 s"), "{s}");
        let s = err_of("[[jobs]]\nmaps = 1\nmap_cpu_s_per_mb = 1e300\nweight = 1e300\n");
        assert!(
            s.contains("jobs[0].map_cpu_s_per_mb: 1e300 is beyond the limit of 1000000"),
            "{s}"
        );
        assert!(
            s.contains("jobs[0].weight: 1e300 is beyond the limit"),
            "{s}"
        );
    }

    #[test]
    fn over_replicated_datasets_are_listed_once_beyond_the_first_three() {
        let c = Cluster::from_toml_str("c.toml", "[[nodes]]\nmap_slots = 1\n").unwrap();
        let mut text: String = (0..5)
            .map(|i| format!("[[datasets]]\nname = \"d{i}\"\nsize_mb = 128\nreplication = 3\n"))
            .collect();
        text.push_str("[[jobs]]\ninput = \"d0\"\n");
        let e = parse(&text)
            .unwrap()
            .check_against(&c, "w.toml")
            .unwrap_err();
        assert_eq!(e.0.len(), 4, "{e}");
        assert!(e.to_string().contains("datasets[2].replication"), "{e}");
        assert!(
            e.to_string()
                .contains("2 more datasets ask for more replicas"),
            "{e}"
        );
    }

    #[test]
    fn a_late_arrival_past_the_horizon_is_named() {
        let c = Cluster::from_toml_str("c.toml", "[[nodes]]\nmap_slots = 1\n").unwrap();
        let w = parse(
            "[[jobs]]\nname = \"early\"\nmaps = 1\n\n[[jobs]]\nname = \"late\"\narrival_s = 315000000\nmaps = 1\nmap_time_s = 400000\n",
        )
        .unwrap();
        let s = w.check_against(&c, "w.toml").unwrap_err().to_string();
        assert!(
            s.contains("job `late` arrives at 315000000 s (its arrival_s)"),
            "{s}"
        );
    }

    #[test]
    fn tasks_running_past_the_horizon_are_named() {
        let c =
            Cluster::from_toml_str("c.toml", "[[nodes]]\nmap_slots = 1\nspeed = 0.001\n").unwrap();
        let w = parse("[[jobs]]\nname = \"slow\"\nmaps = 1\nmap_time_s = 1e6\n").unwrap();
        let s = w.check_against(&c, "w.toml").unwrap_err().to_string();
        assert!(
            s.contains("w.toml: the workload would run until about 2000000000 s, beyond the simulated horizon of 315360000 s: job `slow` has a map of about 1000000000 s"),
            "{s}"
        );
    }

    #[test]
    fn thousands_of_errors_are_located_in_linear_time() {
        // Every located error used to parse the whole file again and count
        // its lines from the start: 20,000 bad jobs took minutes.
        let text = "[[jobs]]\nmaps = 0\n".repeat(10_000);
        let t = std::time::Instant::now();
        let e = parse(&text).unwrap_err();
        assert_eq!(e.0.len(), 10_000);
        assert_eq!(e.0[9_999].line, Some(20_000));
        assert!(t.elapsed().as_secs() < 10, "{:?}", t.elapsed());
    }

    #[test]
    fn many_datasets_resolve_in_linear_time() {
        let n = 10_000;
        let mut text = String::new();
        for i in 0..n {
            text += &format!("[[datasets]]\nname = \"d{i}\"\nsize_mb = 1\nreplication = 1\n");
        }
        for i in 0..n {
            text += &format!("[[jobs]]\ninput = \"d{}\"\n", n - 1 - i);
        }
        text += "[[datasets]]\nname = \"d5\"\nsize_mb = 1\n";
        let t = std::time::Instant::now();
        let e = parse(&text).unwrap_err().to_string();
        assert!(
            e.contains("datasets[10000].name: dataset `d5` is defined twice"),
            "{e}"
        );
        assert!(t.elapsed().as_secs() < 10, "{:?}", t.elapsed());
        let w = parse(&text[..text.len() - "[[datasets]]\nname = \"d5\"\nsize_mb = 1\n".len()])
            .unwrap();
        assert_eq!(w.jobs.len(), n);
        assert_eq!(
            w.datasets[w.jobs[0].input[0].idx()].name,
            format!("d{}", n - 1)
        );
    }
}
