//! Reading SWIM traces (Statistical Workload Injector for MapReduce).
//!
//! A SWIM file has one job per line, tab-separated: job id, submit time (s),
//! gap since the previous submission (s), map input bytes, shuffle bytes,
//! reduce output bytes, and optionally an input path. There are no task
//! counts or durations, so mrsched maps bytes to tasks (documented in
//! `docs/formats.md`):
//!
//! * **bytes mode**: maps = ceil(input / block size) (at least one); reduces
//!   = ceil(shuffle / MB-per-reduce), capped, none when shuffle is 0; map
//!   output ratio = shuffle / input; reduce output ratio = output / shuffle;
//!   task times then come from the cost model;
//! * **bins mode**: task counts are drawn from the published Facebook 2009
//!   size bins (seed 004 Table II) instead, since naive byte counts make most
//!   FB-2009 jobs single-map; arrival times and byte ratios stay the trace's.
//!
//! Jobs that share an input path (7th column) share a dataset, which is what
//! shared-scan schedulers need. Nothing assumes FB-2009's scale: any number
//! of jobs and any cluster size work.

use crate::build::{blocks, WorkloadBuilder};
use crate::facebook::{fb2009_sizes, Fb2009Params};
use mrsched_model::limits::num;
use mrsched_model::rng;
use mrsched_model::workload::CostParams;
use mrsched_model::{InputError, InputErrors, Limits, Source, Time, Workload};
use rand::Rng as _;
use std::collections::HashMap;

/// How task counts are derived.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SwimMode {
    /// From bytes.
    Bytes,
    /// From the Facebook 2009 size bins.
    Bins,
}

/// Reader options.
#[derive(Clone, Debug)]
pub struct SwimOptions {
    /// Task counts from bytes or bins.
    pub mode: SwimMode,
    /// Block size, MB.
    pub block_mb: f64,
    /// Multiply every byte count by this (SWIM scales by target / original
    /// cluster size).
    pub scale: f64,
    /// Raise smaller inputs to this many MB (SWIM's replayer uses 64).
    pub min_input_mb: f64,
    /// Shuffle MB per reduce task.
    pub mb_per_reduce: f64,
    /// Most reduces per job.
    pub max_reduces: u32,
    /// Map CPU seconds per input MB.
    pub map_cpu_s_per_mb: f64,
    /// Reduce CPU seconds per shuffled MB.
    pub reduce_cpu_s_per_mb: f64,
    /// Keep only the first jobs.
    pub max_jobs: Option<usize>,
    /// Seed for bins mode.
    pub seed: u64,
    /// Users to spread jobs over (SWIM has no users).
    pub users: usize,
}

impl Default for SwimOptions {
    fn default() -> Self {
        SwimOptions {
            mode: SwimMode::Bytes,
            block_mb: 128.0,
            scale: 1.0,
            min_input_mb: 0.0,
            mb_per_reduce: 1024.0,
            max_reduces: 1000,
            map_cpu_s_per_mb: 0.08,
            reduce_cpu_s_per_mb: 0.05,
            max_jobs: None,
            seed: 1,
            users: 10,
        }
    }
}

struct Row {
    line: usize,
    name: String,
    submit_s: f64,
    input: f64,
    shuffle: f64,
    output: f64,
    path: Option<String>,
}

const COLUMNS: [&str; 6] = [
    "job_id",
    "submit_s",
    "gap_s",
    "map_input_bytes",
    "shuffle_bytes",
    "reduce_output_bytes",
];

fn parse_rows(src: &Source, max_jobs: Option<usize>) -> Result<Vec<Row>, InputErrors> {
    let mut errs = InputErrors::new();
    let mut rows = Vec::new();
    for (i, line) in src.text.lines().enumerate() {
        if max_jobs.is_some_and(|m| rows.len() >= m) {
            break;
        }
        let ln = i + 1;
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let bad = |col: usize, msg: String| {
            InputError::field(
                &src.label,
                format!("column {} ({})", col + 1, COLUMNS[col]),
                msg,
            )
            .at_line(Some(ln))
        };
        if cols.len() < 6 {
            errs.push(
                InputError::file(
                    &src.label,
                    format!(
                        "expected at least 6 tab-separated columns ({}), got {}",
                        COLUMNS.join(", "),
                        cols.len()
                    ),
                )
                .at_line(Some(ln)),
            );
            continue;
        }
        let mut num = |col: usize| -> Option<f64> {
            match cols[col].trim().parse::<f64>() {
                Ok(v) if v.is_finite() && v >= 0.0 => Some(v),
                _ => {
                    errs.push(bad(
                        col,
                        format!("expected a non-negative number, got `{}`", cols[col]),
                    ));
                    None
                }
            }
        };
        let (submit, gap, input, shuffle, output) = (num(1), num(2), num(3), num(4), num(5));
        let max_t = Limits::current().max_time_s;
        if let Some(m) = submit.and_then(|v| Limits::check_secs(v, max_t)) {
            errs.push(bad(1, format!("{m} (the simulated horizon)")));
            continue;
        }
        if let (Some(submit_s), Some(_), Some(input), Some(shuffle), Some(output)) =
            (submit, gap, input, shuffle, output)
        {
            let path = cols
                .get(6)
                .map(|p| p.trim())
                .filter(|p| !p.is_empty())
                .map(String::from);
            rows.push(Row {
                line: ln,
                name: cols[0].trim().to_string(),
                submit_s,
                input,
                shuffle,
                output,
                path,
            });
        }
        if errs.0.len() >= 50 {
            break;
        }
    }
    if rows.is_empty() && errs.is_empty() {
        errs.push(InputError::file(&src.label, "the trace has no jobs"));
    }
    errs.into_result(rows)
}

/// Read a SWIM trace into a workload.
pub fn read(src: &Source, opts: &SwimOptions) -> Result<Workload, InputErrors> {
    let mut errs = InputErrors::new();
    for (ok, what) in [
        (opts.block_mb > 0.0, "block size must be positive"),
        (opts.scale > 0.0, "byte scale must be positive"),
        (opts.mb_per_reduce > 0.0, "MB per reduce must be positive"),
        (opts.max_reduces > 0, "max reduces must be at least 1"),
    ] {
        if !ok {
            errs.push(InputError::file(&src.label, what));
        }
    }
    errs.into_result(())?;
    let mut errs = InputErrors::new();
    let rows = parse_rows(src, opts.max_jobs)?;
    let mb = |bytes: f64| bytes * opts.scale / 1_048_576.0;
    // The trace's own figure, then what the scale made of it: an error
    // must name the bytes the user can find in the file.
    let scaled = |bytes: f64| {
        if opts.scale == 1.0 {
            String::new()
        } else {
            format!(
                " (x{} by the byte scale: {})",
                num(opts.scale),
                num(bytes * opts.scale)
            )
        }
    };
    let mut rng = rng::stream(opts.seed, "workload:swim-bins");
    let bin_sizes = match opts.mode {
        SwimMode::Bins => fb2009_sizes(
            &mut rng,
            &Fb2009Params {
                jobs: Some(rows.len()),
                ..Default::default()
            },
        ),
        SwimMode::Bytes => Vec::new(),
    };
    let name = std::path::Path::new(&src.label)
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| src.label.clone());
    let mut b = WorkloadBuilder::new(&name);
    let mut by_path: HashMap<String, mrsched_model::DatasetId> = HashMap::new();
    let lim = Limits::current();
    let mut tasks = 0u64;
    for (i, r) in rows.iter().enumerate() {
        let raw_input = mb(r.input).max(opts.min_input_mb);
        let (input_mb, maps) = match opts.mode {
            SwimMode::Bytes => {
                let input = raw_input.max(1e-6);
                let maps = (input / opts.block_mb).ceil().max(1.0);
                if maps > lim.max_job_tasks as f64 {
                    errs.push(
                        InputError::field(
                            &src.label,
                            format!("column 4 ({})", COLUMNS[3]),
                            format!(
                                "job `{}`: {} bytes{} make {} maps of {} MB, beyond the limit of {} tasks per job (raise it with --max-job-tasks, or scale bytes down with --swim-scale)",
                                r.name,
                                num(r.input),
                                scaled(r.input),
                                num(maps),
                                opts.block_mb,
                                lim.max_job_tasks
                            ),
                        )
                        .at_line(Some(r.line)),
                    );
                    if errs.0.len() >= 50 {
                        break;
                    }
                    continue;
                }
                (input, maps as u32)
            }
            SwimMode::Bins => {
                let maps = bin_sizes[i];
                (maps as f64 * opts.block_mb, maps)
            }
        };
        let shuffle_mb = mb(r.shuffle);
        let output_mb = mb(r.output);
        let reduces = if r.shuffle <= 0.0 {
            0
        } else {
            match opts.mode {
                SwimMode::Bytes => {
                    ((shuffle_mb / opts.mb_per_reduce).ceil() as u32).clamp(1, opts.max_reduces)
                }
                SwimMode::Bins => {
                    let f = rng.random_range(0.05..=0.25);
                    ((maps as f64 * f).round() as u32).clamp(1, opts.max_reduces)
                }
            }
        };
        tasks += u64::from(maps) + u64::from(reduces);
        if let Some(m) = Limits::check_count(
            tasks,
            lim.max_total_tasks,
            "tasks in a workload (raise it with --max-tasks)",
        ) {
            errs.push(
                InputError::file(
                    &src.label,
                    format!("with job `{}` the trace has {m}", r.name),
                )
                .at_line(Some(r.line)),
            );
            break;
        }
        if !errs.is_empty() {
            continue;
        }
        let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
        let cost = CostParams {
            map_cpu_s_per_mb: opts.map_cpu_s_per_mb,
            map_output_ratio: ratio(r.shuffle, r.input.max(1.0)).min(1e6),
            reduce_cpu_s_per_mb: opts.reduce_cpu_s_per_mb,
            reduce_output_ratio: ratio(r.output, r.shuffle).min(1e6),
        };
        let sizes = blocks(input_mb, opts.block_mb);
        let d = match (&r.path, opts.mode) {
            (Some(p), SwimMode::Bytes) => match by_path.get(p) {
                Some(d) => *d,
                None => {
                    let d = b.dataset(p, sizes, 3);
                    by_path.insert(p.clone(), d);
                    d
                }
            },
            _ => b.dataset(&format!("{}-input", r.name), sizes, 3),
        };
        let j = b.data_job(
            r.name.clone(),
            Time::from_secs_f64(r.submit_s),
            &[d],
            reduces as usize,
            cost,
        );
        j.user = format!("user{}", i % opts.users.max(1));
        if r.shuffle > 0.0 && output_mb <= 0.0 {
            j.cost.reduce_output_ratio = 0.0;
        }
    }
    errs.into_result(())?;
    Ok(b.build())
}

#[cfg(test)]
mod tests {
    use super::*;
    use mrsched_model::Format;

    const SAMPLE: &str = include_str!("../data/FB-2009_samples_24_times_1hr_0_first50jobs.tsv");

    #[test]
    fn bytes_mode_maps_and_reduces() {
        let src = Source::new("s.tsv", SAMPLE, Format::Toml);
        let w = read(&src, &SwimOptions::default()).unwrap();
        assert_eq!(w.jobs.len(), 50);
        // job0: 740773 input bytes -> one map; 2339561 shuffle -> one reduce.
        let j0 = w.jobs.iter().find(|j| j.name == "job0").unwrap();
        assert_eq!(j0.maps.len(), 1);
        assert_eq!(j0.reduces.len(), 1);
        assert_eq!(j0.arrival, Time::from_secs(49));
        // job4 is map-only (shuffle 0).
        let j4 = w.jobs.iter().find(|j| j.name == "job4").unwrap();
        assert!(j4.reduces.is_empty());
        assert!(w.jobs.windows(2).all(|p| p[0].arrival <= p[1].arrival));
    }

    #[test]
    fn bins_mode_uses_facebook_sizes() {
        let src = Source::new("s.tsv", SAMPLE, Format::Toml);
        let w = read(
            &src,
            &SwimOptions {
                mode: SwimMode::Bins,
                ..Default::default()
            },
        )
        .unwrap();
        let sizes = [1u32, 2, 10, 50, 100, 200, 400, 800, 4800];
        assert!(w
            .jobs
            .iter()
            .all(|j| sizes.contains(&(j.maps.len() as u32))));
    }

    #[test]
    fn shared_paths_share_datasets() {
        let text = "job0\t1\t1\t1000\t0\t10\tpathA\nx\njob1\t2\t1\t1000\t5\t10\tpathA\njob2\t3\t1\t-4\t0\t1\n";
        let src = Source::new("t.tsv", text, Format::Toml);
        let e = read(&src, &SwimOptions::default()).unwrap_err();
        let s = e.to_string();
        assert!(
            s.contains("t.tsv:2: expected at least 6 tab-separated columns"),
            "{s}"
        );
        assert!(
            s.contains(
                "t.tsv:4: column 4 (map_input_bytes): expected a non-negative number, got `-4`"
            ),
            "{s}"
        );
        let text = "job0\t1\t1\t1000\t0\t10\tpathA\njob1\t2\t1\t1000\t5\t10\tpathA\n";
        let w = read(
            &Source::new("t.tsv", text, Format::Toml),
            &SwimOptions::default(),
        )
        .unwrap();
        assert_eq!(w.datasets.len(), 1);
        assert_eq!(w.jobs[0].input, w.jobs[1].input);
    }

    #[test]
    fn huge_byte_counts_are_an_error_not_an_allocation() {
        let text = "job0\t1\t1\t1000\t0\t10\njob1\t2\t1\t18446744073709551616\t5\t10\n";
        let e = read(
            &Source::new("t.tsv", text, Format::Toml),
            &SwimOptions::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("t.tsv:2: column 4 (map_input_bytes): job `job1`: 1.8446744073709552e19 bytes make 137438953472 maps of 128 MB, beyond the limit of 10000000 tasks per job"),
            "{e}"
        );
    }

    #[test]
    fn negative_gaps_and_endless_submit_times_are_errors() {
        let text =
            "job0\t1\t1\t1000\t0\t10\njob1\t2\t-1\t1000\t5\t10\njob2\t1e308\t1\t1000\t5\t10\n";
        let e = read(
            &Source::new("t.tsv", text, Format::Toml),
            &SwimOptions::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("t.tsv:2: column 3 (gap_s): expected a non-negative number, got `-1`"),
            "{e}"
        );
        assert!(
            e.contains("t.tsv:3: column 2 (submit_s): 1e308 s is beyond the limit of 315360000 s (the simulated horizon)"),
            "{e}"
        );
    }
}
