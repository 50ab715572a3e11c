//! Command-line arguments.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::num::NonZeroUsize;
use std::path::PathBuf;

/// Multi-user MapReduce scheduling: simulate a cluster under the Fair
/// Scheduler, FLEX/CIRCUMFLEX, MarS, Adaptive and RTMR schedulers (and FIFO),
/// compare them on real traces, and reproduce their papers.
#[derive(Parser, Debug)]
#[command(name = "mrsched", version, after_help = EXAMPLES)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

const EXAMPLES: &str = "\
Examples:
  mrsched compare                      # Facebook benchmark, default schedulers
  mrsched simulate -s fifo -f json     # one run, as JSON
  mrsched simulate -c fb-600 -w FB-2009_samples_24_times_1hr_0.tsv
  mrsched list                         # built-in clusters, workloads, ...
  mrsched reproduce fifo-locality-by-size";

/// Subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run one workload on one cluster under one scheduler.
    Simulate(SimulateArgs),
    /// Run several schedulers on the same workload and seed, one table.
    Compare(CompareArgs),
    /// Reproduce a paper's experiment: markdown report and SVG figures.
    Reproduce(ReproduceArgs),
    /// List built-in clusters, workloads, schedulers and experiments.
    List(ListArgs),
    /// Check cluster, workload, scheduler or trace files without running.
    Validate(ValidateArgs),
    /// Write a built-in workload as a workload file to edit.
    Generate(GenerateArgs),
    /// Live cluster: master, worker, local, submit, jobs, status, kill, pools, metrics, dfs.
    #[command(flatten)]
    Live(crate::live::LiveCommand),
}

/// Output formats.
#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum Format {
    /// A readable table.
    Table,
    /// One JSON document on stdout.
    Json,
    /// CSV (per job for simulate, per scheduler for compare).
    Csv,
}

/// How SWIM traces become tasks.
#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum SwimModeArg {
    /// Maps from input bytes, reduces from shuffle bytes.
    Bytes,
    /// Task counts from the Facebook 2009 size bins.
    Bins,
}

/// What every run needs.
#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// Built-in cluster name (see `mrsched list`) or cluster file (.toml/.json).
    #[arg(long, short = 'c', default_value = "ec2-100")]
    pub cluster: String,
    /// Built-in workload name, workload file (.toml/.json), SWIM trace (.tsv),
    /// or Hadoop SLS or Rumen job trace (JSON, told by its contents).
    #[arg(long, short = 'w', default_value = "fb-bm")]
    pub workload: String,
    /// Seed of every random choice (workload generation, placement, faults).
    #[arg(long, allow_negative_numbers = true, default_value_t = 1)]
    pub seed: u64,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Measure scheduler decision time (p50/p99); makes output vary between runs.
    #[arg(long)]
    pub timing: bool,
    /// Also run every job alone to report slowdowns (one extra run per job).
    #[arg(long)]
    pub slowdown: bool,
    /// SWIM traces: derive task counts from bytes or from the Facebook bins.
    #[arg(long, value_enum, default_value_t = SwimModeArg::Bytes)]
    pub swim_mode: SwimModeArg,
    /// SWIM traces: multiply byte counts by this factor.
    #[arg(long, allow_negative_numbers = true, default_value_t = 1.0)]
    pub swim_scale: f64,
    /// SWIM traces: read only the first N jobs.
    #[arg(long, allow_negative_numbers = true)]
    pub swim_jobs: Option<usize>,
    /// Refuse runs estimated to take more simulation events than this
    /// (the estimate is printed on stderr before every run).
    #[arg(long, allow_negative_numbers = true, default_value_t = DEFAULT_MAX_EVENTS)]
    pub max_events: f64,
    /// Run even when the estimate is beyond --max-events.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// The default event budget of one run: at a few million events a second,
/// a few minutes for runs as estimated.
pub const DEFAULT_MAX_EVENTS: f64 = 500_000_000.0;

/// Raise the input limits (docs/formats.md, Limits) for larger studies.
#[derive(Args, Debug, Clone)]
pub struct LimitArgs {
    /// Most nodes in a cluster.
    #[arg(long, allow_negative_numbers = true, default_value_t = 100_000)]
    pub max_nodes: u64,
    /// Most tasks in one job (and blocks in one dataset).
    #[arg(long, allow_negative_numbers = true, default_value_t = 10_000_000)]
    pub max_job_tasks: u64,
    /// Most tasks in a workload (and blocks in all its datasets).
    #[arg(long, allow_negative_numbers = true, default_value_t = 100_000_000)]
    pub max_tasks: u64,
}

impl LimitArgs {
    /// Put these limits in force for the rest of the process.
    pub fn apply(&self) {
        mrsched_model::limits::set(mrsched_model::Limits {
            max_nodes: self.max_nodes,
            max_job_tasks: self.max_job_tasks,
            max_total_tasks: self.max_tasks,
            ..Default::default()
        });
    }
}

/// `mrsched simulate`.
#[derive(Args, Debug)]
pub struct SimulateArgs {
    #[command(flatten)]
    pub run: RunArgs,
    /// Scheduler preset (see `mrsched list schedulers`) or scheduler file.
    #[arg(long, short = 's', default_value = "fifo")]
    pub scheduler: String,
    /// Write an SVG of slot utilisation and intermediate data over time.
    #[arg(long)]
    pub plot: Option<PathBuf>,
}

/// `mrsched compare`.
#[derive(Args, Debug)]
pub struct CompareArgs {
    #[command(flatten)]
    pub run: RunArgs,
    /// Comma-separated scheduler presets or files (default: every default preset).
    #[arg(long, short = 's', value_delimiter = ',')]
    pub schedulers: Vec<String>,
    /// Write response-time CDF, utilisation and intermediate-data SVGs here.
    #[arg(long)]
    pub plots: Option<PathBuf>,
    /// Write one self-contained HTML page: the inputs, the comparison table
    /// and the three figures of `--plots`, inline.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Simulations run at once (default: one per core); fewer keep fewer
    /// runs in memory. The output is the same for any number.
    #[arg(long, short = 'j', value_name = "N")]
    pub threads: Option<NonZeroUsize>,
}

/// `mrsched reproduce`.
#[derive(Args, Debug)]
pub struct ReproduceArgs {
    /// Experiment names (`mrsched list experiments`), or `all`. Several
    /// run in one process, in the order given: Figures 8, 11 and 12 reuse
    /// Figure 7's runs when it comes first.
    pub names: Vec<String>,
    /// Directory for the report and figures.
    #[arg(long, default_value = "docs/reproductions")]
    pub out: PathBuf,
    /// A smaller, faster version (fewer seeds and settings).
    #[arg(long)]
    pub quick: bool,
    /// Base seed.
    #[arg(long, allow_negative_numbers = true, default_value_t = 1)]
    pub seed: u64,
    /// Output format of the summary on stdout.
    #[arg(long, short = 'f', value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Simulations run at once (default: one per core). The reports are
    /// the same for any number.
    #[arg(long, short = 'j', value_name = "N")]
    pub threads: Option<NonZeroUsize>,
}

/// What `mrsched list` shows.
#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum ListWhat {
    /// Built-in clusters.
    Clusters,
    /// Built-in workloads.
    Workloads,
    /// Scheduler presets and policies.
    Schedulers,
    /// Reproducible experiments.
    Experiments,
}

/// `mrsched list`.
#[derive(Args, Debug)]
pub struct ListArgs {
    /// Only this table.
    pub what: Option<ListWhat>,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

/// Kinds of files `validate` knows.
#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum FileKind {
    /// A cluster file.
    Cluster,
    /// A workload file.
    Workload,
    /// A scheduler configuration.
    Scheduler,
    /// A SWIM trace.
    Swim,
    /// A Hadoop SLS job trace (JSON).
    Sls,
    /// A Rumen job trace (JSON).
    Rumen,
    /// An allocation file: MR1's `fair-scheduler.xml`, YARN's or Spark's
    /// allocation file, or the native form.
    Allocation,
    /// A YARN Capacity Scheduler `capacity-scheduler.xml`.
    Capacity,
    /// A live job file (`mrsched submit`).
    Job,
}

/// `mrsched validate`.
#[derive(Args, Debug)]
pub struct ValidateArgs {
    /// Files to check.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Treat every file as this kind (default: guess from the contents).
    #[arg(long = "as", value_enum)]
    pub kind: Option<FileKind>,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// `mrsched generate`.
#[derive(Args, Debug)]
pub struct GenerateArgs {
    /// Built-in workload name, or a SWIM, SLS or Rumen trace to convert.
    pub workload: String,
    /// Seed.
    #[arg(long, allow_negative_numbers = true, default_value_t = 1)]
    pub seed: u64,
    /// Output file (default: stdout). `.json` writes JSON, anything else TOML.
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    /// SWIM traces: task counts from bytes or bins.
    #[arg(long, value_enum, default_value_t = SwimModeArg::Bytes)]
    pub swim_mode: SwimModeArg,
}
