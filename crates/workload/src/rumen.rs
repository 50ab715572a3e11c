//! Reading Rumen job traces (the `LoggedJob` JSON objects Rumen's
//! `TraceBuilder` writes from job history, one after another).
//!
//! Rumen records what happened: every task with its attempts, failed and
//! killed ones included. A task is replayed with the time its successful
//! attempt took, which is the work the job needed; the time lost to failed
//! attempts is not replayed (the cluster's `task_failure_prob` models
//! failures instead). Arrivals are submit times relative to the earliest
//! job. Everything else Rumen logs (configuration, counters, CDFs, hosts)
//! is read past; `docs/formats.md` lists every choice.

use crate::build::WorkloadBuilder;
use crate::jsonstream::{self, Long, Record, Seg, Text, MAX_ERRORS};
use crate::sls::stem;
use mrsched_model::ids::Priority;
use mrsched_model::{InputErrors, Limits, Source, Time, Workload};
use serde::Deserialize;

/// One `LoggedJob` (unknown keys are ignored, as Rumen ignores them).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LoggedJob {
    #[serde(rename = "jobID", default)]
    job_id: Option<Text>,
    #[serde(default)]
    user: Option<Text>,
    #[serde(default)]
    queue: Option<Text>,
    #[serde(default)]
    priority: Option<JobPriority>,
    #[serde(default)]
    submit_time: Option<Long>,
    #[serde(default)]
    _launch_time: Option<Long>,
    #[serde(default)]
    _finish_time: Option<Long>,
    #[serde(default)]
    map_tasks: Option<Vec<LoggedTask>>,
    #[serde(default)]
    reduce_tasks: Option<Vec<LoggedTask>>,
}

/// Rumen's `JobPriority`.
#[derive(Deserialize, Copy, Clone)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
enum JobPriority {
    VeryLow,
    Low,
    Normal,
    High,
    VeryHigh,
}

/// Rumen's `Pre21JobHistoryConstants.Values`: task types, statuses and
/// attempt results share it.
#[derive(Deserialize, Copy, Clone, PartialEq, Eq)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
enum Values {
    Success,
    Succeeded,
    Failed,
    Killed,
    Map,
    Reduce,
    Cleanup,
    Running,
    Prep,
    Setup,
}

/// One `LoggedTask`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LoggedTask {
    #[serde(rename = "taskID", default)]
    _task_id: Option<String>,
    #[serde(default)]
    start_time: Option<Long>,
    #[serde(default)]
    finish_time: Option<Long>,
    #[serde(default)]
    _task_type: Option<Values>,
    #[serde(default)]
    _task_status: Option<Values>,
    #[serde(default)]
    input_bytes: Option<Long>,
    #[serde(default)]
    attempts: Option<Vec<LoggedTaskAttempt>>,
}

/// One `LoggedTaskAttempt`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LoggedTaskAttempt {
    #[serde(rename = "attemptID", default)]
    _attempt_id: Option<String>,
    #[serde(default)]
    start_time: Option<Long>,
    #[serde(default)]
    finish_time: Option<Long>,
    #[serde(default)]
    result: Option<Values>,
    #[serde(default)]
    _host_name: Option<String>,
    #[serde(default)]
    hdfs_bytes_read: Option<Long>,
}

/// A checked job; times in ms.
struct Job {
    /// Index of its record.
    rec: usize,
    /// Whether the name is the record's `jobID`.
    has_id: bool,
    name: String,
    user: String,
    pool: Option<String>,
    priority: Priority,
    submit_ms: i64,
    /// (seconds, input MB) per map.
    maps: Vec<(f64, f64)>,
    reduces: Vec<f64>,
}

/// Read a Rumen job trace into a workload.
pub fn read(src: &Source) -> Result<Workload, InputErrors> {
    let records = jsonstream::split(src)?;
    let lim = Limits::current();
    let mut errs = InputErrors::new();
    let mut jobs = Vec::new();
    let mut total = 0u64;
    for (r, rec) in records.iter().enumerate() {
        if errs.0.len() >= MAX_ERRORS {
            break;
        }
        let job: LoggedJob = match rec.parse(src, "jobID") {
            Ok(j) => j,
            Err(e) => {
                errs.push(e);
                continue;
            }
        };
        if let Some(mut j) = check_job(src, rec, job, &lim, &mut errs) {
            j.rec = r;
            total += (j.maps.len() + j.reduces.len()) as u64;
            if let Some(m) = Limits::check_count(
                total,
                lim.max_total_tasks,
                "tasks in a workload (raise it with --max-tasks)",
            ) {
                errs.push(rec.error(
                    src,
                    j.has_id.then_some(j.name.as_str()),
                    &[],
                    format!("with this job the trace has {m}"),
                ));
                break;
            }
            jobs.push(j);
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    let first = jobs.iter().map(|j| j.submit_ms).min().unwrap_or(0);
    for j in &jobs {
        let after = j.submit_ms - first;
        if let Some(m) = Limits::check_secs(after as f64 / 1000.0, lim.max_time_s) {
            let id = j.has_id.then_some(j.name.as_str());
            errs.push(records[j.rec].error(
                src,
                id,
                &[Seg::Key("submitTime")],
                format!("{after} ms after the earliest submission: {m} (the simulated horizon)"),
            ));
            if errs.0.len() >= MAX_ERRORS {
                break;
            }
        }
    }
    errs.into_result(())?;
    let mut b = WorkloadBuilder::new(&stem(&src.label));
    for j in jobs {
        let arrival = Time::from_millis((j.submit_ms - first) as u64);
        let times: Vec<f64> = j.maps.iter().map(|m| m.0).collect();
        let spec = b.explicit_job(j.name, arrival, &times, &j.reduces, 1.0);
        for (m, (_, mb)) in spec.maps.list_mut().iter_mut().zip(&j.maps) {
            m.input_mb = *mb;
        }
        spec.user = j.user;
        spec.pool = j.pool;
        spec.priority = j.priority;
    }
    Ok(b.build())
}

fn check_job(
    src: &Source,
    rec: &Record,
    job: LoggedJob,
    lim: &Limits,
    errs: &mut InputErrors,
) -> Option<Job> {
    // Errors name the job by its id in the file, if it has one.
    let id = job.job_id.as_ref().map(|t| t.0.as_str());
    let name = id
        .map(String::from)
        .unwrap_or_else(|| format!("job-{}", rec.number));
    let before = errs.0.len();
    let submit_ms = match job.submit_time {
        Some(Long(ms)) if ms >= 0 => Some(ms),
        other => {
            let msg = match other {
                None => "missing field `submitTime` (the job's submission time, ms)".to_string(),
                Some(Long(ms)) => format!("the submission time is unknown ({ms})"),
            };
            errs.push(rec.error(src, id, &[Seg::Key("submitTime")], msg));
            None
        }
    };
    let mut maps = Vec::new();
    let mut reduces = Vec::new();
    for (key, tasks) in [
        ("mapTasks", &job.map_tasks),
        ("reduceTasks", &job.reduce_tasks),
    ] {
        let tasks = tasks.as_deref().unwrap_or_default();
        if tasks.len() as u64 > lim.max_job_tasks {
            errs.push(rec.error(
                src,
                id,
                &[Seg::Key(key)],
                format!("{} tasks are beyond the limit of {} tasks per job (raise it with --max-job-tasks)", tasks.len(), lim.max_job_tasks),
            ));
            return None;
        }
        for (t, task) in tasks.iter().enumerate() {
            if errs.0.len() >= MAX_ERRORS {
                return None;
            }
            let Some(secs) = task_time(src, rec, id, key, t, task, lim, errs) else {
                continue;
            };
            if key == "mapTasks" {
                let bytes = task
                    .input_bytes
                    .filter(|b| b.0 >= 0)
                    .or_else(|| {
                        successful(task)
                            .and_then(|(_, a)| a.hdfs_bytes_read)
                            .filter(|b| b.0 >= 0)
                    })
                    .map_or(0, |b| b.0);
                maps.push((secs, (bytes as f64 / 1_048_576.0).min(lim.max_size_mb)));
            } else {
                reduces.push(secs);
            }
        }
        if errs.0.len() >= MAX_ERRORS {
            return None;
        }
    }
    if errs.0.len() > before {
        return None;
    }
    if maps.len() + reduces.len() > lim.max_job_tasks as usize {
        errs.push(rec.error(
            src,
            id,
            &[Seg::Key("reduceTasks")],
            format!("{} maps and {} reduces are beyond the limit of {} tasks per job (raise it with --max-job-tasks)", maps.len(), reduces.len(), lim.max_job_tasks),
        ));
        return None;
    }
    if maps.is_empty() {
        errs.push(rec.error(
            src,
            id,
            &[Seg::Key("mapTasks")],
            format!(
                "the job has {} reduce tasks and no map task: mrsched jobs need at least one map",
                reduces.len()
            ),
        ));
        return None;
    }
    Some(Job {
        rec: 0,
        has_id: id.is_some(),
        name,
        user: job.user.map_or_else(|| "default".into(), |t| t.0),
        pool: job.queue.map(|t| t.0),
        priority: match job.priority.unwrap_or(JobPriority::Normal) {
            JobPriority::VeryLow => Priority::VeryLow,
            JobPriority::Low => Priority::Low,
            JobPriority::Normal => Priority::Normal,
            JobPriority::High => Priority::High,
            JobPriority::VeryHigh => Priority::VeryHigh,
        },
        submit_ms: submit_ms?,
        maps,
        reduces,
    })
}

/// The first successful attempt, with its index.
fn successful(task: &LoggedTask) -> Option<(usize, &LoggedTaskAttempt)> {
    task.attempts
        .as_deref()?
        .iter()
        .enumerate()
        .find(|(_, a)| matches!(a.result, Some(Values::Success | Values::Succeeded)))
}

/// A task's time, s: its successful attempt's, else its last attempt's (as
/// SLS replays it), else the task's own start and finish.
#[allow(clippy::too_many_arguments)]
fn task_time(
    src: &Source,
    rec: &Record,
    id: Option<&str>,
    key: &'static str,
    t: usize,
    task: &LoggedTask,
    lim: &Limits,
    errs: &mut InputErrors,
) -> Option<f64> {
    let attempts = task.attempts.as_deref().unwrap_or_default();
    let chosen =
        successful(task).or_else(|| attempts.len().checked_sub(1).map(|i| (i, &attempts[i])));
    let (start, finish, at): (_, _, Vec<Seg>) = match chosen {
        Some((a, att)) => (
            att.start_time,
            att.finish_time,
            vec![
                Seg::Key(key),
                Seg::Index(t),
                Seg::Key("attempts"),
                Seg::Index(a),
            ],
        ),
        None => (
            task.start_time,
            task.finish_time,
            vec![Seg::Key(key), Seg::Index(t)],
        ),
    };
    let whose = if chosen.is_some() {
        "the attempt"
    } else {
        "the task (it has no attempts)"
    };
    let field = |k: &'static str| {
        let mut p = at.clone();
        p.push(Seg::Key(k));
        p
    };
    let (s, f) = match (start, finish) {
        (Some(Long(s)), Some(Long(f))) if s >= 0 && f >= 0 => (s, f),
        (s, f) => {
            let (k, v) = if s.is_none_or(|s| s.0 < 0) {
                ("startTime", s)
            } else {
                ("finishTime", f)
            };
            let got = v.map_or("missing".to_string(), |v| v.0.to_string());
            errs.push(rec.error(
                src,
                id,
                &field(k),
                format!("{whose} has no {k} to take its time from (got {got})"),
            ));
            return None;
        }
    };
    if f <= s {
        errs.push(rec.error(
            src,
            id,
            &field("finishTime"),
            format!("{whose} finishes at {f} ms, not after it starts at {s} ms"),
        ));
        return None;
    }
    let secs = (f - s) as f64 / 1000.0;
    if let Some(m) = Limits::check_secs(secs, lim.max_duration_s) {
        errs.push(rec.error(src, id, &field("finishTime"), m));
        return None;
    }
    Some(secs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mrsched_model::Format;

    const EXAMPLE: &str = include_str!("../../../examples/rumen-trace.json");

    fn read_str(text: &str) -> Result<Workload, InputErrors> {
        read(&Source::new("t.json", text, Format::Json))
    }

    fn secs(t: Option<Time>) -> f64 {
        t.expect("explicit").as_secs_f64()
    }

    #[test]
    fn the_example_reads_as_hand_checked() {
        let w = read(&Source::new(
            "examples/rumen-trace.json",
            EXAMPLE,
            Format::Json,
        ))
        .unwrap();
        assert_eq!(w.name, "rumen-trace");
        assert_eq!(w.jobs.len(), 2);
        let a = &w.jobs[0];
        assert_eq!(a.name, "job_1700000000000_0042");
        assert_eq!(a.arrival, Time::ZERO);
        assert_eq!((a.user.as_str(), a.pool_name()), ("etl", "research"));
        // Map 0: its one attempt, 17.043 s over 128 MB. Map 1: the failed
        // attempt (4 s) is not replayed, the successful one took 15 s.
        let maps: Vec<(f64, f64)> = a.maps.iter().map(|m| (secs(m.time), m.input_mb)).collect();
        assert_eq!(maps, [(17.043, 128.0), (15.0, 64.0)]);
        let reduces: Vec<f64> = a.reduces.iter().map(|r| secs(r.time)).collect();
        assert_eq!(reduces, [10.5]);
        assert_eq!(a.priority, Priority::Normal);
        // Job B: submitted 10 s later, HIGH; the killed speculative attempt
        // is not replayed; no inputBytes, so the attempt's hdfsBytesRead.
        let b = &w.jobs[1];
        assert_eq!(b.name, "job_1700000000000_0043");
        assert_eq!(b.arrival, Time::from_secs(10));
        assert_eq!(b.priority, Priority::High);
        assert_eq!(
            (secs(b.maps.at(0).time), b.maps.at(0).input_mb),
            (20.0, 10.0)
        );
        assert!(b.reduces.is_empty());
    }

    #[test]
    fn tasks_without_a_successful_attempt_take_their_last_or_their_own_time() {
        let w = read_str(
            r#"{"jobID": "j", "submitTime": 5000, "mapTasks": [
  {"startTime": 0, "finishTime": 9000, "attempts": [
    {"startTime": 100, "finishTime": 1100, "result": "FAILED"},
    {"startTime": 2000, "finishTime": 5000, "result": "KILLED"}]},
  {"startTime": 1000, "finishTime": 3500, "attempts": []}]}
{"jobID": "k", "submitTime": 2000, "mapTasks": [{"startTime": 0, "finishTime": 1000}]}"#,
        )
        .unwrap();
        let j = w.jobs.iter().find(|j| j.name == "j").unwrap();
        let t: Vec<f64> = j.maps.iter().map(|m| secs(m.time)).collect();
        assert_eq!(t, [3.0, 2.5]);
        // Arrivals are relative to the earliest submission, not the first record.
        assert_eq!(j.arrival, Time::from_secs(3));
        assert_eq!(w.jobs[0].name, "k");
        assert_eq!(w.jobs[0].arrival, Time::ZERO);
    }

    #[test]
    fn many_bad_tasks_stop_at_fifty_errors_quickly() {
        let tasks = vec!["{\"startTime\": 5, \"finishTime\": 5}"; 100_000].join(",\n");
        let text = format!("{{\"submitTime\": 0, \"mapTasks\": [\n{tasks}]}}");
        let t = std::time::Instant::now();
        let e = read_str(&text).unwrap_err();
        assert_eq!(e.0.len(), MAX_ERRORS);
        assert_eq!(e.0[49].line, Some(51));
        assert!(t.elapsed().as_secs() < 5, "{:?}", t.elapsed());
    }

    #[test]
    fn malformed_records_name_file_record_line_and_field() {
        let e = read_str("{\"jobID\": \"a\",\n \"mapTasks\": []}")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "t.json:1:1: record 1 (job `a`), submitTime: missing field `submitTime` (the job's submission time, ms)"
        );
        let e = read_str(
            "{\"jobID\": \"a\", \"submitTime\": 0, \"mapTasks\": [\n {\"attempts\": [\n  {\"result\": \"SUCCESS\", \"startTime\": 50,\n   \"finishTime\": 20}]}]}",
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            e,
            "t.json:4:18: record 1 (job `a`), mapTasks[0].attempts[0].finishTime: the attempt finishes at 20 ms, not after it starts at 50 ms"
        );
        let e = read_str("{\"jobID\": \"a\",\n \"submitTime\": \"soon\"}")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("t.json:2:")
                && e.contains("record 1 (job `a`), submitTime: expected an integer"),
            "{e}"
        );
        let e = read_str(
            "{\"jobID\": \"a\", \"submitTime\": 0, \"mapTasks\": [{\"attempts\": [{\"result\": \"DONE\"}]}]}",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("mapTasks[0].attempts[0].result: unknown variant `DONE`"),
            "{e}"
        );
        let e = read_str(
            "{\"jobID\": \"a\", \"submitTime\": 0, \"mapTasks\": [{\"attempts\": [{\"result\": \"SUCCESS\", \"startTime\": -1, \"finishTime\": 10}]}]}\n}",
        )
        .unwrap_err()
        .to_string();
        let lines: Vec<&str> = e.lines().collect();
        assert_eq!(
            lines,
            ["t.json:2:1: record 2: expected `{` opening a JSON object, found `}`"],
            "trailing garbage is found before any record is checked"
        );
        let e = read_str(
            "{\"jobID\": \"a\", \"submitTime\": 0, \"mapTasks\": [{\"attempts\": [{\"result\": \"SUCCESS\", \"startTime\": -1, \"finishTime\": 10}]}]}",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("mapTasks[0].attempts[0].startTime: the attempt has no startTime to take its time from (got -1)"), "{e}");
        let e = read_str("{\"jobID\": \"a\", \"submitTime\": 0, \"reduceTasks\": [{\"startTime\": 0, \"finishTime\": 10}]}")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("record 1 (job `a`), mapTasks: the job has 1 reduce tasks and no map task"),
            "{e}"
        );
        let e = read_str(
            "{\"jobID\": \"a\", \"submitTime\": 0, \"mapTasks\": [{\"startTime\": 0, \"finishTime\": 1}]}\n{\"submitTime\": 400000000000, \"mapTasks\": [{\"startTime\": 0, \"finishTime\": 1}]}",
        )
        .unwrap_err()
        .to_string();
        assert_eq!(e, "t.json:2:16: record 2, submitTime: 400000000000 ms after the earliest submission: 400000000 s is beyond the limit of 315360000 s (the simulated horizon)");
        let e = read_str("\n\n").unwrap_err().to_string();
        assert_eq!(e, "t.json: the trace has no jobs (no JSON object in it)");
    }
}
