//! Hadoop job traces on the command line: SLS and Rumen traces are told by
//! their contents, validated with a summary, simulated with every task's
//! recorded time, converted to workload files, and refused with a located
//! error when malformed.

mod common;

use common::{bin, repo, run_ok};

fn json(args: &[&str]) -> serde_json::Value {
    serde_json::from_slice(&run_ok(args)).expect("one JSON document")
}

/// A cluster with room for every job of the examples at once and fast
/// heartbeats, so each job runs as if alone.
fn roomy_cluster(dir: &std::path::Path) -> String {
    let c = dir.join("roomy.toml");
    std::fs::write(
        &c,
        "heartbeat_interval_s = 0.1\n[[nodes]]\ncount = 4\nmap_slots = 4\nreduce_slots = 2\n",
    )
    .unwrap();
    c.to_str().unwrap().to_string()
}

fn tempdir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("mrsched-traces-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A job as expected: name, maps, reduces, longest map + longest reduce.
type Expect = (&'static str, u64, u64, f64);

/// Every job's task counts and, on an idle cluster, its response time:
/// its longest map then its longest reduce (explicit reduces wait for every
/// map), plus at most a second of heartbeats.
#[test]
fn traces_simulate_with_their_recorded_task_times() {
    let dir = tempdir("sim");
    let c = roomy_cluster(&dir);
    let cases: [(&str, &[Expect]); 2] = [
        (
            "examples/sls-trace.json",
            &[
                ("job_1", 3, 1, 18.5 + 8.8),
                ("job_2", 2, 0, 22.5),
                ("job_3", 4, 1, 12.0 + 30.0),
            ],
        ),
        (
            "examples/rumen-trace.json",
            &[
                ("job_1700000000000_0042", 2, 1, 17.043 + 10.5),
                ("job_1700000000000_0043", 1, 0, 20.0),
            ],
        ),
    ];
    for (trace, expect) in cases {
        let v = json(&[
            "simulate", "-c", &c, "-w", trace, "-s", "fifo", "-f", "json",
        ]);
        let jobs = v["jobs"].as_array().unwrap();
        assert_eq!(jobs.len(), expect.len(), "{trace}");
        for (name, maps, reduces, alone) in expect {
            let j = jobs.iter().find(|j| j["name"] == *name).expect(name);
            assert_eq!(j["maps"], *maps, "{trace} {name}");
            assert_eq!(j["reduces"], *reduces, "{trace} {name}");
            assert_eq!(j["status"], "succeeded");
            let r = j["response_time_s"].as_f64().unwrap();
            assert!(
                r >= alone - 1e-6 && r <= alone + 1.0,
                "{trace} {name}: response {r} s, alone {alone} s"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn validate_tells_traces_by_content_and_sums_them_up() {
    let out = run_ok(&[
        "validate",
        "examples/sls-trace.json",
        "examples/rumen-trace.json",
    ]);
    let out = String::from_utf8_lossy(&out);
    assert!(
        out.contains(
            "ok: examples/sls-trace.json: SLS job trace: 3 jobs, 11 tasks, arrivals over 120 s"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "ok: examples/rumen-trace.json: Rumen job trace: 2 jobs, 4 tasks, arrivals over 10 s"
        ),
        "{out}"
    );
    // Told explicitly, an SLS trace read as Rumen is refused per record.
    let out = bin()
        .args(["validate", "--as", "rumen", "examples/sls-trace.json"])
        .current_dir(repo())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "examples/sls-trace.json:1:1: record 1, submitTime: missing field `submitTime`"
        ),
        "{err}"
    );
}

/// A trace converted to a workload file replays to the same results.
#[test]
fn generate_converts_a_trace_to_a_workload_file() {
    let dir = tempdir("gen");
    for trace in ["examples/sls-trace.json", "examples/rumen-trace.json"] {
        let w = dir.join("w.toml");
        run_ok(&["generate", trace, "-o", w.to_str().unwrap()]);
        let a = json(&[
            "simulate",
            "-c",
            "examples/cluster.toml",
            "-w",
            trace,
            "-f",
            "json",
        ]);
        let b = json(&[
            "simulate",
            "-c",
            "examples/cluster.toml",
            "-w",
            w.to_str().unwrap(),
            "-f",
            "json",
        ]);
        assert_eq!(a["summary"], b["summary"], "{trace}");
        assert_eq!(a["jobs"], b["jobs"], "{trace}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Malformed traces: an error naming file, record, line and field, exit
/// code 2, and nothing run.
#[test]
fn malformed_traces_are_located_errors_and_nothing_runs() {
    let dir = tempdir("bad");
    let cases = [
        (
            "missing-start.json",
            "{\"job.id\": \"a\", \"job.start.ms\": 0, \"job.tasks\": [{\"container.duration.ms\": 5}]}\n{\"job.id\": \"b\",\n \"job.tasks\": [{\"container.duration.ms\": 5}]}\n",
            "missing-start.json:2:1: record 2 (job `b`), job.start.ms: missing field `job.start.ms`",
        ),
        (
            "backwards.json",
            "{\"job.id\": \"a\", \"job.start.ms\": 0, \"job.tasks\": [\n {\"container.start.ms\": 9, \"container.end.ms\": 4}]}\n",
            "backwards.json:2:48: record 1 (job `a`), job.tasks[0].container.end.ms: the container ends at 4 ms, not after it starts at 9 ms",
        ),
        (
            "soon.json",
            "{\"jobID\": \"job_7\", \"mapTasks\": [],\n \"submitTime\": \"soon\"}\n",
            "soon.json:2:", // then the record, the field and the message
        ),
        (
            "syntax.json",
            "{\"job.id\": \"a\", \"job.start.ms\": 0,\n \"job.tasks\": [{\"container.duration.ms\": 5},]}\n",
            "syntax.json:2:45: record 1, job.tasks: trailing comma",
        ),
        (
            "trailing.json",
            "{\"jobID\": \"job_7\", \"submitTime\": 1, \"mapTasks\": [{\"startTime\": 1, \"finishTime\": 2}]}\ngarbage\n",
            "trailing.json:2:1: record 2: expected `{` opening a JSON object, found `garbage`",
        ),
    ];
    for (name, text, want) in cases {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        let out = bin().args(["simulate", "-w"]).arg(&p).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert!(out.stdout.is_empty(), "{name}: nothing runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{name}: {err}");
        if name == "soon.json" {
            assert!(
                err.contains("record 1 (job `job_7`), submitTime: expected an integer (or a string holding one), got \"soon\""),
                "{err}"
            );
        }
    }
    // An empty file cannot be told apart from any other kind: `--as` says it.
    let p = dir.join("empty.json");
    std::fs::write(&p, "").unwrap();
    let out = bin()
        .args(["validate", "--as", "sls"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("empty.json: the trace has no jobs"));
    let _ = std::fs::remove_dir_all(&dir);
}
