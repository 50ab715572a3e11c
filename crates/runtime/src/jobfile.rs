//! Job files: what `mrsched submit JOB.toml` sends.
//!
//! ```toml
//! name = "counts"
//! input = "corpus"          # a file in the block store (or a list)
//! output = "counts-out"     # must not exist yet
//! reduces = 2              # 0: map-only (one output block per map)
//! pool = "research"         # default: the user's own pool
//! priority = "normal"       # very_low, low, normal, high, very_high
//! deadline_s = 600          # or goal_s, both relative to submission
//! weight = 30               # weighted policies (MSJO) and metrics
//! map_time_s = 2.5          # predicted time of each map (MSJO planners)
//! reduce_time_s = 4.0       # predicted time of each reduce
//! [program]
//! kind = "wordcount"        # grep (pattern), sort, loadgen, streaming
//! ```
//!
//! Parsing and every check happen before anything is created, so a bad file
//! leaves no trace; errors name the file, line and field.

use crate::program::Program;
use mrsched_model::workload::OneOrMany;
use mrsched_model::{InputErrors, Priority, Source};
use serde::{Deserialize, Serialize};

fn one() -> f64 {
    1.0
}
fn one_u() -> u32 {
    1
}

/// A job file.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct JobFile {
    /// Name for listings (default: the program kind).
    #[serde(default)]
    pub name: Option<String>,
    /// Submit as this user (default: the token's user; only an admin may
    /// name another).
    #[serde(default)]
    pub user: Option<String>,
    /// Pool (default: the user's name).
    #[serde(default)]
    pub pool: Option<String>,
    /// Hadoop priority level.
    #[serde(default)]
    pub priority: Priority,
    /// Weight for weighted policies and metrics.
    #[serde(default = "one")]
    pub weight: f64,
    /// Input file(s) in the block store: one map per block.
    pub input: OneOrMany,
    /// Output file in the block store: one block per reduce, in order
    /// (a map-only job: one block per map, in map order).
    pub output: String,
    /// Reduce tasks (partitions); 0 makes a map-only job.
    #[serde(default = "one_u")]
    pub reduces: u32,
    /// Deadline, seconds after submission.
    #[serde(default)]
    pub deadline_s: Option<f64>,
    /// Completion-time goal (soft deadline), seconds after submission.
    #[serde(default)]
    pub goal_s: Option<f64>,
    /// Minimum slots (policies with minima).
    #[serde(default)]
    pub min_slots: Option<u32>,
    /// Maximum slots.
    #[serde(default)]
    pub max_slots: Option<u32>,
    /// Fraction of maps done before reduces start (default: the cluster's).
    #[serde(default)]
    pub reduce_slowstart: Option<f64>,
    /// Job class for per-class scheduler settings.
    #[serde(default)]
    pub class: Option<String>,
    /// Predicted time of each map task, seconds: what the MSJO planners
    /// (seed 001) plan with. The task still runs for as long as it takes.
    #[serde(default)]
    pub map_time_s: Option<f64>,
    /// Predicted time of each reduce task, seconds. With it, reduces wait
    /// for every map (MSJO's precedence) instead of the slow-start fraction.
    #[serde(default)]
    pub reduce_time_s: Option<f64>,
    /// What to compute.
    pub program: Program,
}

pub use mrsched_model::limits::{valid_name, MAX_NAME};

impl JobFile {
    /// Parse and check a job file.
    pub fn parse(src: &Source) -> Result<JobFile, InputErrors> {
        let f: JobFile = src.parse()?;
        let mut errs = InputErrors::new();
        let mut err = |field: &str, msg: String| errs.push(src.error(field, msg));
        let pos = |v: f64| v.is_finite() && v > 0.0;
        if let Some(n) = &f.name {
            if !valid_name(n) {
                err(
                    "name",
                    "must be 1-200 characters without control characters or `/`".into(),
                );
            }
        }
        for (k, v) in [("user", &f.user), ("pool", &f.pool)] {
            if let Some(v) = v {
                if !valid_name(v) {
                    err(
                        k,
                        "must be 1-200 characters without control characters or `/`".into(),
                    );
                }
            }
        }
        let lim = mrsched_model::Limits::current();
        if !pos(f.weight) {
            err(
                "weight",
                format!("must be a positive number, got {}", f.weight),
            );
        } else if f.weight > lim.max_weight {
            err(
                "weight",
                format!(
                    "{} is beyond the limit of {}",
                    mrsched_model::limits::num(f.weight),
                    lim.max_weight
                ),
            );
        }
        let inputs = f.input.names();
        if inputs.is_empty() {
            err("input", "needs at least one input file".into());
        }
        for i in &inputs {
            if !valid_name(i) {
                err("input", format!("`{i}` is not a valid file name"));
            }
        }
        if !valid_name(&f.output) {
            err(
                "output",
                "must be a file name (1-200 characters, no `/`)".into(),
            );
        } else if inputs.contains(&f.output.as_str()) {
            err("output", "must differ from the input".into());
        }
        if f.reduces > 10_000 {
            err(
                "reduces",
                format!("must be between 0 and 10000, got {}", f.reduces),
            );
        }
        for (k, v) in [("deadline_s", f.deadline_s), ("goal_s", f.goal_s)] {
            if let Some(v) = v {
                if !pos(v) {
                    err(k, format!("must be a positive number of seconds, got {v}"));
                } else if let Some(m) = mrsched_model::Limits::check_secs(v, lim.max_duration_s) {
                    err(k, m);
                }
            }
        }
        for (k, v) in [
            ("map_time_s", f.map_time_s),
            ("reduce_time_s", f.reduce_time_s),
        ] {
            if let Some(v) = v {
                if !pos(v) {
                    err(k, format!("must be a positive number of seconds, got {v}"));
                } else if let Some(m) = mrsched_model::Limits::check_secs(v, lim.max_duration_s) {
                    err(k, m);
                }
            }
        }
        if f.map_time_s.is_some() != f.reduce_time_s.is_some() {
            let (k, other) = if f.map_time_s.is_some() {
                ("map_time_s", "reduce_time_s")
            } else {
                ("reduce_time_s", "map_time_s")
            };
            err(
                k,
                format!("a predicted time needs `{other}` too (a plan needs every task's time)"),
            );
        }
        if let Some(s) = f.reduce_slowstart {
            if !(s.is_finite() && (0.0..=1.0).contains(&s)) {
                err(
                    "reduce_slowstart",
                    format!("must be a fraction in [0, 1], got {s}"),
                );
            }
        }
        if let (Some(a), Some(b)) = (f.min_slots, f.max_slots) {
            if a > b {
                err("min_slots", format!("is above max_slots ({a} > {b})"));
            }
        }
        if let Err(e) = f.program.check() {
            err("program", e);
        }
        if let Program::Streaming { reducer, .. } = &f.program {
            if f.reduces > 0 && reducer.trim().is_empty() {
                err(
                    "program",
                    "streaming needs a non-empty `reducer` command (or `reduces = 0` for a map-only job)".into(),
                );
            }
        }
        errs.into_result(f)
    }

    /// The job's name for listings.
    pub fn display_name(&self) -> String {
        self.name
            .clone()
            .unwrap_or_else(|| self.program.kind().to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mrsched_model::Format;

    fn parse(text: &str) -> Result<JobFile, String> {
        JobFile::parse(&Source::new("job.toml", text, Format::Toml)).map_err(|e| e.to_string())
    }

    #[test]
    fn a_full_file_parses() {
        let f = parse(
            "name = \"wc\"\ninput = [\"a\", \"b\"]\noutput = \"o\"\nreduces = 3\npool = \"p\"\npriority = \"high\"\ndeadline_s = 60\n[program]\nkind = \"grep\"\npattern = \"x\"\n",
        )
        .unwrap();
        assert_eq!(f.reduces, 3);
        assert_eq!(f.priority, Priority::High);
        assert_eq!(f.input.names(), vec!["a", "b"]);
        assert_eq!(
            f.program,
            Program::Grep {
                pattern: "x".into()
            }
        );
    }

    #[test]
    fn errors_name_file_line_and_field() {
        let e = parse(
            "input = \"a\"\noutput = \"o\"\nreduces = 10001\n[program]\nkind = \"wordcount\"\n",
        )
        .unwrap_err();
        assert!(
            e.contains("job.toml:3: reduces: must be between 0 and 10000, got 10001"),
            "{e}"
        );
        let f = parse("input = \"a\"\noutput = \"o\"\nreduces = 0\n[program]\nkind = \"grep\"\npattern = \"x\"\n")
            .unwrap();
        assert_eq!(f.reduces, 0, "a map-only job");
        let e =
            parse("input = \"a\"\noutput = \"o\"\n[program]\nkind = \"wordcont\"\n").unwrap_err();
        assert!(e.contains("job.toml") && e.contains("wordcont"), "{e}");
        let e = parse("input = \"a\"\noutput = \"o\"\ncolour = 1\n[program]\nkind = \"sort\"\n")
            .unwrap_err();
        assert!(e.contains("colour"), "{e}");
        let e = parse("input = \"a\"\n[program]\nkind = \"sort\"\n").unwrap_err();
        assert!(e.contains("output"), "{e}");
        let e =
            parse("input = \"a\"\noutput = \"a\"\n[program]\nkind = \"grep\"\npattern = \"\"\n")
                .unwrap_err();
        assert!(
            e.contains("must differ") && e.contains("non-empty `pattern`"),
            "{e}"
        );
    }

    #[test]
    fn times_and_weights_beyond_the_limits_are_errors() {
        let e = parse(
            "input = \"a\"\noutput = \"o\"\ndeadline_s = 1e308\nweight = 1e300\n[program]\nkind = \"sort\"\n",
        )
        .unwrap_err();
        assert!(
            e.contains("job.toml:3: deadline_s: 1e308 s is beyond the limit of 315360000 s"),
            "{e}"
        );
        assert!(
            e.contains("job.toml:4: weight: 1e300 is beyond the limit"),
            "{e}"
        );
    }
}

#[cfg(test)]
mod time_tests {
    use super::*;
    use mrsched_model::Format;

    fn parse(text: &str) -> Result<JobFile, String> {
        JobFile::parse(&Source::new("job.toml", text, Format::Toml)).map_err(|e| e.to_string())
    }

    const HEAD: &str = "input = \"a\"\noutput = \"o\"\n";
    const PROG: &str = "[program]\nkind = \"wordcount\"\n";

    #[test]
    fn predicted_times_and_weight_parse() {
        let f = parse(&format!(
            "{HEAD}weight = 30.5\nmap_time_s = 2.5\nreduce_time_s = 4\n{PROG}"
        ))
        .unwrap();
        assert_eq!(f.weight, 30.5);
        assert_eq!(f.map_time_s, Some(2.5));
        assert_eq!(f.reduce_time_s, Some(4.0));
        let f = parse(&format!("{HEAD}{PROG}")).unwrap();
        assert_eq!((f.weight, f.map_time_s, f.reduce_time_s), (1.0, None, None));
    }

    #[test]
    fn bad_predicted_times_name_file_line_and_field() {
        let e = parse(&format!("{HEAD}map_time_s = 0\nreduce_time_s = -1\n{PROG}")).unwrap_err();
        assert!(
            e.contains("job.toml:3: map_time_s: must be a positive number of seconds, got 0"),
            "{e}"
        );
        assert!(
            e.contains("job.toml:4: reduce_time_s: must be a positive number of seconds, got -1"),
            "{e}"
        );
        let e = parse(&format!(
            "{HEAD}map_time_s = 1e308\nreduce_time_s = 1\n{PROG}"
        ))
        .unwrap_err();
        assert!(
            e.contains("job.toml:3: map_time_s: 1e308 s is beyond the limit"),
            "{e}"
        );
        let e = parse(&format!("{HEAD}map_time_s = 2\n{PROG}")).unwrap_err();
        assert!(
            e.contains("job.toml:3: map_time_s: a predicted time needs `reduce_time_s` too"),
            "{e}"
        );
        let e = parse(&format!("{HEAD}weight = 0\n{PROG}")).unwrap_err();
        assert!(
            e.contains("job.toml:3: weight: must be a positive number, got 0"),
            "{e}"
        );
        let e = parse(&format!(
            "{HEAD}map_time_s = \"fast\"\nreduce_time_s = 1\n{PROG}"
        ))
        .unwrap_err();
        assert!(e.contains("job.toml") && e.contains("map_time_s"), "{e}");
    }
}

#[cfg(test)]
mod example_tests {
    use super::*;
    use mrsched_model::Format;

    #[test]
    fn shipped_examples_parse() {
        for (name, text) in [
            (
                "wordcount-job.toml",
                include_str!("../../../examples/wordcount-job.toml"),
            ),
            (
                "streaming-job.toml",
                include_str!("../../../examples/streaming-job.toml"),
            ),
        ] {
            let f = JobFile::parse(&Source::new(name, text, Format::Toml))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(f.input.names(), vec!["corpus"]);
        }
    }
}
