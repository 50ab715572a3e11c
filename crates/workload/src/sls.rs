//! Reading Hadoop SLS job traces (the JSON `hadoop-sls` reads with
//! `--tracetype SLS`).
//!
//! One JSON object per job, concatenated. The fields are read as SLS's
//! `AMDefinitionSLS` and `TaskContainerDefinition` read them, with their
//! defaults, so a trace SLS replays is replayed here with the same jobs and
//! container durations: arrival = `job.start.ms`, one map or reduce per
//! container of the kind `container.type` names, its time the container's
//! duration. What SLS models and mrsched does not (container memory and
//! cores, the AM container, hosts, node labels) is read past; every choice
//! is listed in `docs/formats.md`.

use crate::build::WorkloadBuilder;
use crate::jsonstream::{self, Long, Record, Seg, Text, MAX_ERRORS};
use mrsched_model::limits::num;
use mrsched_model::{InputErrors, Limits, Source, Time, Workload};
use serde::Deserialize;

/// One job entry (unknown keys are ignored, as SLS ignores them).
#[derive(Deserialize)]
struct SlsJob {
    #[serde(rename = "job.start.ms", default)]
    start: Option<Long>,
    #[serde(rename = "job.end.ms", default)]
    _end: Option<Long>,
    #[serde(rename = "job.queue.name", default)]
    queue: Option<Text>,
    #[serde(rename = "job.id", default)]
    id: Option<Text>,
    #[serde(rename = "job.user", default)]
    user: Option<Text>,
    #[serde(rename = "job.count", default)]
    count: Option<Long>,
    #[serde(rename = "am.type", default)]
    _am_type: Option<String>,
    #[serde(rename = "job.tasks", default)]
    tasks: Option<Vec<SlsTask>>,
}

/// One container entry.
#[derive(Deserialize)]
struct SlsTask {
    #[serde(rename = "container.host", default)]
    _host: Option<String>,
    #[serde(rename = "container.start.ms", default)]
    start: Option<Long>,
    #[serde(rename = "container.end.ms", default)]
    end: Option<Long>,
    #[serde(rename = "container.duration.ms", default)]
    duration: Option<Long>,
    #[serde(rename = "duration.ms", default)]
    duration_legacy: Option<Long>,
    #[serde(rename = "container.priority", default)]
    _priority: Option<Long>,
    #[serde(rename = "container.type", default)]
    kind: Option<String>,
    #[serde(default)]
    count: Option<Long>,
}

/// The workload's name: the file's stem.
pub(crate) fn stem(label: &str) -> String {
    std::path::Path::new(label)
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| label.to_string())
}

/// A count field (`job.count`, `count`): at least 1 (smaller ones are 1, as
/// in SLS).
fn count_of(c: Option<Long>) -> u64 {
    c.map_or(1, |c| c.0.max(1) as u64)
}

/// Read an SLS job trace into a workload.
pub fn read(src: &Source) -> Result<Workload, InputErrors> {
    let records = jsonstream::split(src)?;
    let lim = Limits::current();
    let mut errs = InputErrors::new();
    let mut b = WorkloadBuilder::new(&stem(&src.label));
    let mut total = 0u64;
    for rec in &records {
        if errs.0.len() >= MAX_ERRORS {
            break;
        }
        let job: SlsJob = match rec.parse(src, "job.id") {
            Ok(j) => j,
            Err(e) => {
                errs.push(e);
                continue;
            }
        };
        let Some(j) = check_job(src, rec, job, &lim, &mut errs) else {
            continue;
        };
        total = total.saturating_add(j.tasks.saturating_mul(j.copies));
        if let Some(m) = Limits::check_count(
            total,
            lim.max_total_tasks,
            "tasks in a workload (raise it with --max-tasks)",
        ) {
            errs.push(rec.error(
                src,
                Some(&j.name),
                &[],
                format!("with this job the trace has {m}"),
            ));
            break;
        }
        if !errs.is_empty() {
            continue;
        }
        for k in 1..=j.copies {
            let name = if j.copies > 1 {
                format!("{}#{k}", j.name)
            } else {
                j.name.clone()
            };
            let spec = b.explicit_job(name, j.arrival, &j.maps, &j.reduces, 1.0);
            spec.user = j.user.clone();
            spec.pool = j.pool.clone();
        }
    }
    errs.into_result(())?;
    Ok(b.build())
}

/// A checked job entry.
struct Job {
    name: String,
    user: String,
    pool: Option<String>,
    arrival: Time,
    maps: Vec<f64>,
    reduces: Vec<f64>,
    /// Tasks of one copy.
    tasks: u64,
    /// `job.count`.
    copies: u64,
}

fn check_job(
    src: &Source,
    rec: &Record,
    job: SlsJob,
    lim: &Limits,
    errs: &mut InputErrors,
) -> Option<Job> {
    // Errors name the job by its id in the file, if it has one.
    let id_text = job.id.map(|t| t.0);
    let id = id_text.as_deref();
    let name = id_text
        .clone()
        .unwrap_or_else(|| format!("job-{}", rec.number));
    let before = errs.0.len();
    let err = |errs: &mut InputErrors, path: &[Seg], msg: String| {
        errs.push(rec.error(src, id, path, msg))
    };
    let arrival = match job.start {
        None => {
            err(
                errs,
                &[Seg::Key("job.start.ms")],
                "missing field `job.start.ms` (the job's submission time, ms)".into(),
            );
            None
        }
        Some(Long(ms)) if ms < 0 => {
            err(
                errs,
                &[Seg::Key("job.start.ms")],
                format!("must be zero or more ms, got {ms}"),
            );
            None
        }
        Some(Long(ms)) => {
            let s = ms as f64 / 1000.0;
            match Limits::check_secs(s, lim.max_time_s) {
                Some(m) => {
                    err(
                        errs,
                        &[Seg::Key("job.start.ms")],
                        format!("{m} (the simulated horizon)"),
                    );
                    None
                }
                None => Some(Time::from_secs_f64(s)),
            }
        }
    };
    let tasks = job.tasks.unwrap_or_default();
    if tasks.is_empty() {
        err(
            errs,
            &[Seg::Key("job.tasks")],
            "the job has no tasks (SLS refuses it too)".into(),
        );
    }
    let (mut maps, mut reduces) = (Vec::new(), Vec::new());
    let mut n_tasks = 0u64;
    for (t, task) in tasks.iter().enumerate() {
        if errs.0.len() >= MAX_ERRORS {
            return None;
        }
        let at = |k: &'static str| [Seg::Key("job.tasks"), Seg::Index(t), Seg::Key(k)];
        let kind = task.kind.as_deref().unwrap_or("map");
        let is_map = match kind {
            "map" => true,
            "reduce" => false,
            other => {
                err(
                    errs,
                    &at("container.type"),
                    format!("expected `map` or `reduce`, got `{other}`"),
                );
                continue;
            }
        };
        // SLS's order: container.duration.ms, then duration.ms, then end - start.
        let (ms, field) = match (task.duration, task.duration_legacy, task.start, task.end) {
            (Some(d), _, _, _) => (d.0, "container.duration.ms"),
            (None, Some(d), _, _) => (d.0, "duration.ms"),
            (None, None, Some(s), Some(e)) => {
                if s.0 < 0 {
                    err(
                        errs,
                        &at("container.start.ms"),
                        format!("must be zero or more ms, got {}", s.0),
                    );
                    continue;
                }
                if e.0 <= s.0 {
                    err(
                        errs,
                        &at("container.end.ms"),
                        format!(
                            "the container ends at {} ms, not after it starts at {} ms",
                            e.0, s.0
                        ),
                    );
                    continue;
                }
                (e.0 - s.0, "container.end.ms")
            }
            (None, None, s, _) => {
                let missing = if s.is_none() {
                    "container.start.ms"
                } else {
                    "container.end.ms"
                };
                err(
                    errs,
                    &[Seg::Key("job.tasks"), Seg::Index(t)],
                    format!("missing field `{missing}`: a container needs container.duration.ms, or container.start.ms and container.end.ms"),
                );
                continue;
            }
        };
        let secs = ms as f64 / 1000.0;
        if ms <= 0 {
            err(
                errs,
                &at(field),
                format!("a container's duration must be positive, got {ms} ms"),
            );
            continue;
        }
        if let Some(m) = Limits::check_secs(secs, lim.max_duration_s) {
            err(errs, &at(field), m);
            continue;
        }
        let count = count_of(task.count);
        n_tasks = n_tasks.saturating_add(count);
        if let Some(m) = Limits::check_count(
            n_tasks,
            lim.max_job_tasks,
            "tasks per job (raise it with --max-job-tasks)",
        ) {
            err(
                errs,
                &at("count"),
                format!("the job's containers reach {m}"),
            );
            return None;
        }
        let list = if is_map { &mut maps } else { &mut reduces };
        list.extend(std::iter::repeat_n(secs, count as usize));
    }
    let copies = count_of(job.count);
    if errs.0.len() > before {
        return None;
    }
    if maps.is_empty() {
        errs.push(rec.error(
            src,
            id,
            &[Seg::Key("job.tasks")],
            format!(
                "the job has {} reduce containers and no map: mrsched jobs need at least one map",
                reduces.len()
            ),
        ));
        return None;
    }
    if let Some(m) = Limits::check_count(
        n_tasks.saturating_mul(copies),
        lim.max_total_tasks,
        "tasks in a workload (raise it with --max-tasks)",
    ) {
        errs.push(rec.error(
            src,
            id,
            &[Seg::Key("job.count")],
            format!("{} copies of {n_tasks} tasks: {m}", num(copies as f64)),
        ));
        return None;
    }
    Some(Job {
        name,
        user: job.user.map_or_else(|| "default".into(), |t| t.0),
        pool: job.queue.map(|t| t.0),
        arrival: arrival?,
        maps,
        reduces,
        tasks: n_tasks,
        copies,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use mrsched_model::Format;

    const EXAMPLE: &str = include_str!("../../../examples/sls-trace.json");

    fn read_str(text: &str) -> Result<Workload, InputErrors> {
        read(&Source::new("t.json", text, Format::Json))
    }

    fn times(v: impl Iterator<Item = Option<Time>>) -> Vec<f64> {
        v.map(|t| t.expect("explicit").as_secs_f64()).collect()
    }

    #[test]
    fn the_example_reads_as_hand_checked() {
        let w = read(&Source::new(
            "examples/sls-trace.json",
            EXAMPLE,
            Format::Json,
        ))
        .unwrap();
        assert_eq!(w.name, "sls-trace");
        let names: Vec<&str> = w.jobs.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(names, ["job_1", "job_2", "job_3"]);
        let arrivals: Vec<f64> = w.jobs.iter().map(|j| j.arrival.as_secs_f64()).collect();
        assert_eq!(arrivals, [0.0, 98.0, 120.0]);
        let j1 = &w.jobs[0];
        assert_eq!(times(j1.maps.iter().map(|m| m.time)), [17.36, 14.889, 18.5]);
        assert_eq!(times(j1.reduces.iter().map(|r| r.time)), [8.8]);
        assert_eq!((j1.user.as_str(), j1.pool_name()), ("alice", "research"));
        let j2 = &w.jobs[1];
        assert_eq!(times(j2.maps.iter().map(|m| m.time)), [22.5, 19.6]);
        assert!(j2.reduces.is_empty());
        assert_eq!((j2.user.as_str(), j2.pool_name()), ("bob", "production"));
        // `count` repeats a container; `duration.ms` is the legacy duration.
        let j3 = &w.jobs[2];
        assert_eq!(times(j3.maps.iter().map(|m| m.time)), [12.0; 4]);
        assert_eq!(times(j3.reduces.iter().map(|r| r.time)), [30.0]);
        assert_eq!(w.task_count(), 4 + 2 + 5);
    }

    #[test]
    fn an_array_of_jobs_reads_as_the_stream() {
        // Jackson's readValues takes either form; so does mrsched.
        let src = Source::new("t.json", EXAMPLE, Format::Json);
        let stream = read(&src).unwrap();
        let objects: Vec<&str> = jsonstream::split(&src)
            .unwrap()
            .iter()
            .map(|r| r.text)
            .collect();
        let array = format!("[\n{}\n]\n", objects.join(",\n"));
        let w = read_str(&array).unwrap();
        assert_eq!(w.jobs, stream.jobs);
    }

    #[test]
    fn defaults_follow_sls() {
        // No type: a map; no user: "default"; no queue: the user's pool;
        // no id: named after the record; job.count copies the job.
        let w = read_str(
            "[{\"job.start.ms\": 5, \"job.count\": 2, \"job.tasks\": [{\"container.duration.ms\": 1500}]}]",
        )
        .unwrap();
        let names: Vec<&str> = w.jobs.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(names, ["job-1#1", "job-1#2"]);
        assert_eq!(w.jobs[0].maps.len(), 1);
        assert_eq!(w.jobs[0].user, "default");
        assert_eq!(w.jobs[0].pool, None);
        assert_eq!(w.jobs[0].arrival, Time::from_millis(5));
        // Names may be numbers (SLS takes their text); objects may not.
        let w = read_str(
            "{\"job.id\": 7, \"job.user\": 12, \"job.queue.name\": 3, \"job.start.ms\": 0, \"job.tasks\": [{\"container.duration.ms\": 1}]}",
        )
        .unwrap();
        assert_eq!(
            (w.jobs[0].name.as_str(), w.jobs[0].user.as_str()),
            ("7", "12")
        );
        assert_eq!(w.jobs[0].pool.as_deref(), Some("3"));
        let e = read_str("{\"job.queue.name\": {\"a\": 1}, \"job.start.ms\": 0}")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("t.json:1:20: record 1, job.queue.name: invalid type: map, expected a string (or a number)"),
            "{e}"
        );
    }

    #[test]
    fn a_missing_start_names_file_record_line_and_field() {
        let e = read_str(
            "{\"job.start.ms\": 0, \"job.id\": \"a\", \"job.tasks\": [{\"container.duration.ms\": 10}]}\n{\n  \"job.id\": \"b\",\n  \"job.tasks\": [{\"container.duration.ms\": 10}]\n}\n",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.json:2:1: record 2 (job `b`), job.start.ms: missing field `job.start.ms` (the job's submission time, ms)"
        );
    }

    #[test]
    fn a_container_ending_before_it_starts_is_located() {
        let text = "{\n  \"job.id\": \"j\",\n  \"job.start.ms\": 0,\n  \"job.tasks\": [\n    {\"container.start.ms\": 10, \"container.end.ms\": 20},\n    {\"container.start.ms\": 30,\n     \"container.end.ms\": 25}\n  ]\n}\n";
        let e = read_str(text).unwrap_err().to_string();
        assert_eq!(
            e,
            "t.json:7:26: record 1 (job `j`), job.tasks[1].container.end.ms: the container ends at 25 ms, not after it starts at 30 ms"
        );
    }

    #[test]
    fn wrong_types_trailing_garbage_and_empty_files_are_errors() {
        let e = read_str("{\"job.id\": \"j\",\n \"job.start.ms\": \"soon\", \"job.tasks\": []}")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("t.json:2:")
                && e.contains("record 1 (job `j`), job.start.ms: expected an integer (or a string holding one), got \"soon\""),
            "{e}"
        );
        let ok = "{\"job.start.ms\": 0, \"job.tasks\": [{\"container.duration.ms\": 10}]}";
        let e = read_str(&format!("{ok}\n{ok} ]")).unwrap_err().to_string();
        assert_eq!(
            e,
            "t.json:2:67: record 3: expected `{` opening a JSON object, found `]`"
        );
        let e = read_str("").unwrap_err().to_string();
        assert_eq!(e, "t.json: the trace has no jobs (no JSON object in it)");
        let e = read_str(&format!("{ok}\n{{\"job.start.ms\": 1,"))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("t.json:2:") && e.contains(": record 2: EOF while parsing"),
            "{e}"
        );
    }

    #[test]
    fn bad_containers_are_each_reported() {
        let text = "{\"job.id\": \"j\", \"job.start.ms\": -3, \"job.tasks\": [\n {\"container.type\": \"shuffle\", \"container.duration.ms\": 5},\n {\"container.duration.ms\": 0},\n {\"container.start.ms\": 5}\n]}\n{\"job.id\": \"r\", \"job.start.ms\": 1, \"job.tasks\": [{\"container.type\": \"reduce\", \"duration.ms\": 9}]}";
        let e = read_str(text).unwrap_err().to_string();
        let lines: Vec<&str> = e.lines().collect();
        assert_eq!(lines.len(), 5, "{e}");
        assert!(
            lines[0].ends_with("record 1 (job `j`), job.start.ms: must be zero or more ms, got -3"),
            "{e}"
        );
        assert!(lines[1].starts_with("t.json:2:21: record 1 (job `j`), job.tasks[0].container.type: expected `map` or `reduce`, got `shuffle`"), "{e}");
        assert!(lines[2].starts_with("t.json:3:"), "{e}");
        assert!(lines[2].contains("job.tasks[1].container.duration.ms: a container's duration must be positive, got 0 ms"), "{e}");
        assert!(
            lines[3].contains("job.tasks[2]: missing field `container.end.ms`"),
            "{e}"
        );
        assert!(
            lines[4].contains(
                "record 2 (job `r`), job.tasks: the job has 1 reduce containers and no map"
            ),
            "{e}"
        );
    }

    #[test]
    fn a_job_of_many_bad_containers_stops_at_fifty_errors_quickly() {
        let tasks = vec!["{\"container.duration.ms\": 0}"; 100_000].join(",\n");
        let text = format!("{{\"job.start.ms\": 0, \"job.tasks\": [\n{tasks}]}}");
        let t = std::time::Instant::now();
        let e = read_str(&text).unwrap_err();
        assert_eq!(e.0.len(), MAX_ERRORS);
        assert_eq!(e.0[49].line, Some(51));
        assert!(t.elapsed().as_secs() < 5, "{:?}", t.elapsed());
    }

    #[test]
    fn counts_beyond_the_limits_are_refused_before_allocating() {
        let e = read_str("{\"job.start.ms\": 0, \"job.tasks\": [{\"count\": 99999999999, \"container.duration.ms\": 5}]}")
            .unwrap_err()
            .to_string();
        assert!(e.contains("job.tasks[0].count: the job's containers reach 99999999999 is beyond the limit of 10000000 tasks per job"), "{e}");
        let e = read_str("{\"job.start.ms\": 0, \"job.count\": 99999999999, \"job.tasks\": [{\"container.duration.ms\": 5}]}")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("job.count: 99999999999 copies of 1 tasks"),
            "{e}"
        );
        let e =
            read_str("{\"job.start.ms\": 1e300, \"job.tasks\": [{\"container.duration.ms\": 5}]}")
                .unwrap_err()
                .to_string();
        assert!(
            e.contains("job.start.ms: invalid type: floating point"),
            "{e}"
        );
        let e = read_str("{\"job.start.ms\": 9223372036854775807, \"job.tasks\": [{\"container.duration.ms\": 5}]}")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("job.start.ms: 9.223372036854776e15 s is beyond the limit of 315360000 s"),
            "{e}"
        );
    }
}
