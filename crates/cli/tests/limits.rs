//! Inputs that once aborted, hung or stalled silently: each is now a quick,
//! located error, or a run whose size is printed (and refused beyond the
//! event budget) before it starts.

mod common;

use common::{bin, repo};
use std::path::PathBuf;
use std::process::Output;
use std::time::{Duration, Instant};

struct Dir(PathBuf);

impl Dir {
    fn new(tag: &str) -> Dir {
        let d = std::env::temp_dir().join(format!("mrsched-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        Dir(d)
    }
    fn file(&self, name: &str, text: &str) -> String {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Run mrsched; it must end within 20 s.
fn run(args: &[&str]) -> (Output, String) {
    let t = Instant::now();
    let out = bin().args(args).current_dir(repo()).output().expect("runs");
    assert!(
        t.elapsed() < Duration::from_secs(20),
        "mrsched {args:?} took {:?}",
        t.elapsed()
    );
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    (out, err)
}

fn simulate_w(w: &str) -> (Output, String) {
    run(&[
        "simulate",
        "-c",
        "examples/cluster.toml",
        "-w",
        w,
        "-f",
        "json",
    ])
}

#[test]
fn swim_input_bytes_beyond_u64_are_a_located_error() {
    let d = Dir::new("swim-huge");
    let t = d.file("t.tsv", "job0\t1\t1\t18446744073709551616\t0\t10\n");
    let (out, err) = simulate_w(&t);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("t.tsv:1: column 4 (map_input_bytes): job `job0`"),
        "{err}"
    );
    assert!(!err.contains("memory allocation"), "{err}");
    let t = d.file("g.tsv", "job0\t1\t-5\t100\t0\t10\n");
    let (out, err) = run(&["validate", &t]);
    assert_eq!(out.status.code(), Some(2));
    assert!(err.contains("g.tsv:1: column 3 (gap_s)"), "{err}");
}

#[test]
fn a_byte_scale_too_large_or_negative_is_named_as_such() {
    let d = Dir::new("swim-scale");
    let t = d.file("t.tsv", "job0\t1\t1\t2000000\t0\t10\n");
    let scaled = |scale: &str| {
        run(&[
            "simulate",
            "-c",
            "examples/cluster.toml",
            "-w",
            &t,
            "--swim-scale",
            scale,
            "-f",
            "json",
        ])
    };
    // The error gives the file's figure and what the scale made of it.
    let (out, err) = scaled("1e9");
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("t.tsv:1: column 4 (map_input_bytes): job `job0`: 2000000 bytes (x1000000000 by the byte scale: 2e15) make"),
        "{err}"
    );
    // A negative scale reaches the check rather than reading as a flag.
    let (out, err) = scaled("-1");
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--swim-scale must be a positive number"),
        "{err}"
    );
}

#[test]
fn arrival_and_heartbeat_beyond_the_limits_are_located_errors() {
    let d = Dir::new("times");
    let w = d.file(
        "w.toml",
        "[[jobs]]\nname = \"now\"\nmaps = 1\nmap_time_s = 1\n\n[[jobs]]\nname = \"never\"\narrival_s = 1e308\nmaps = 1\n",
    );
    let (out, err) = simulate_w(&w);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        err.contains("w.toml:8: jobs[1].arrival_s: 1e308 s is beyond the simulated horizon"),
        "{err}"
    );
    let c = d.file(
        "c.toml",
        "heartbeat_interval_s = 4294967296\n[[nodes]]\nmap_slots = 1\nreduce_slots = 1\n",
    );
    let (out, err) = run(&["simulate", "-c", &c, "-w", "examples/workload.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        err.contains("c.toml:1: heartbeat_interval_s: 4294967296 s is beyond the limit of 3600 s"),
        "{err}"
    );
    assert!(!err.contains("JobId"), "{err}");
}

#[test]
fn huge_counts_are_refused_quickly() {
    let d = Dir::new("counts");
    let w = d.file("r.toml", "[[jobs]]\nmaps = 1\nreduces = 99999999\n");
    let (out, err) = simulate_w(&w);
    assert_eq!(out.status.code(), Some(2));
    assert!(err.contains("r.toml:3: jobs[0].reduces"), "{err}");
    assert!(
        err.contains("beyond the limit of 10000000 tasks per job"),
        "{err}"
    );
    let w = d.file(
        "d.toml",
        "[[datasets]]\nname = \"d\"\nsize_mb = 4294967296\n[[jobs]]\ninput = \"d\"\n",
    );
    let (out, err) = simulate_w(&w);
    assert_eq!(out.status.code(), Some(2));
    assert!(err.contains("d.toml:3: datasets[0].size_mb"), "{err}");
    let w = d.file(
        "t.toml",
        "[[jobs]]\nmaps = 1\nreduces = 1\nreduce_time_s = 4294967296\n",
    );
    let (out, err) = simulate_w(&w);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        err.contains("t.toml:4: jobs[0].reduce_time_s: 4294967296 s"),
        "{err}"
    );
    let c = d.file("c.toml", "[[nodes]]\ncount = 10000000\nmap_slots = 1\n");
    let (out, err) = run(&["validate", &c]);
    assert_eq!(out.status.code(), Some(2));
    assert!(err.contains("c.toml:2: nodes[0].count"), "{err}");
    // The limit can be raised; the node count is then accepted.
    let c = d.file("c2.toml", "[[nodes]]\ncount = 100001\nmap_slots = 1\n");
    let (out, err) = run(&["validate", &c]);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let (out, err) = run(&["validate", "--max-nodes", "200000", &c]);
    assert!(out.status.success(), "{err}");
}

#[test]
fn runs_beyond_the_event_budget_are_refused_with_their_size() {
    let d = Dir::new("budget");
    // Within the limits, but five years of heartbeats on the example
    // cluster.
    let w = d.file(
        "w.toml",
        "[[jobs]]\nname = \"long\"\nmaps = 1\nreduces = 1\nreduce_time_s = 100000000\n",
    );
    let (out, err) = simulate_w(&w);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(out.stdout.is_empty());
    assert!(err.contains("estimate: workload"), "{err}");
    assert!(err.contains("beyond the budget"), "{err}");
    assert!(err.contains("reduce of job `long`"), "{err}");
    assert!(err.contains("--force"), "{err}");
    // A smaller budget refuses the example too.
    let (out, err) = run(&[
        "simulate",
        "-c",
        "examples/cluster.toml",
        "-w",
        "examples/workload.toml",
        "--max-events",
        "100",
    ]);
    assert_eq!(out.status.code(), Some(2), "{err}");
    // --force goes on; stdout stays one JSON document, the estimate is on
    // stderr.
    let (out, err) = run(&[
        "simulate",
        "-c",
        "examples/cluster.toml",
        "-w",
        "examples/workload.toml",
        "--max-events",
        "100",
        "--force",
        "-f",
        "json",
    ]);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(
            "estimate: workload `example` on cluster `example`: 3 jobs, 136 tasks on 24 nodes"
        ),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert_eq!(v["summary"]["succeeded"], 3);
}

/// Idle nodes sleep unless the scheduler counts heartbeats: the same run is
/// within a budget under FIFO and beyond it when every heartbeat counts.
#[test]
fn the_budget_counts_every_heartbeat_only_for_schedulers_that_need_them() {
    let d = Dir::new("budget-beats");
    // 46 simulated days on the 24-node example cluster.
    let w = d.file(
        "w.toml",
        "[[jobs]]\nname = \"long\"\nmaps = 1\nreduces = 1\nreduce_time_s = 4000000\n",
    );
    let beats = d.file(
        "beats.toml",
        "policy = \"fair\"\n[fair]\ndelay = \"wait\"\nwait_clock = \"heartbeat_gaps\"\n",
    );
    let simulate = |s: &str| {
        run(&[
            "simulate",
            "-c",
            "examples/cluster.toml",
            "-w",
            &w,
            "-s",
            s,
            "--max-events",
            "9e7",
        ])
    };
    let (out, err) = simulate(&beats);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("the scheduler needs every heartbeat"), "{err}");
    let (out, err) = simulate("fifo");
    assert!(out.status.success(), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("succeeded"));
}

#[test]
fn validate_sizes_workloads_against_a_cluster() {
    let (out, err) = run(&[
        "validate",
        "examples/cluster.toml",
        "examples/workload.toml",
    ]);
    assert!(out.status.success(), "{err}");
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(
        s.contains("estimate: examples/workload.toml on cluster `example`: 3 jobs, 136 tasks on 24 nodes (120 slots)"),
        "{s}"
    );
}

#[test]
fn validate_locates_syntax_errors_and_knows_allocation_and_job_files() {
    let d = Dir::new("validate-kinds");
    // A file that does not parse: its line, not "cannot tell what it is".
    let bad = d.file("bad.toml", "[[nodes]\nmap_slots = 1\n");
    let (out, err) = run(&["validate", &bad]);
    assert_eq!(out.status.code(), Some(2));
    assert!(err.contains("bad.toml:1:"), "{err}");
    assert!(!err.contains("cannot tell"), "{err}");
    let xml = d.file(
        "fair-scheduler.xml",
        "<?xml version=\"1.0\"?>\n<allocations>\n  <pool name=\"etl\">\n    <weight>heavy</weight>\n  </pool>\n</allocations>\n",
    );
    let (out, err) = run(&["validate", &xml]);
    assert_eq!(out.status.code(), Some(2));
    assert!(err.contains("fair-scheduler.xml:4"), "{err}");
    let native = d.file("pools.toml", "[pools.etl]\nweight = 2\n[pools.bi]\n");
    let job = d.file(
        "job.toml",
        &std::fs::read_to_string(repo().join("examples/wordcount-job.toml")).unwrap(),
    );
    // A JSON cluster saved with a byte order mark.
    let bom = d.file("c.json", "\u{feff}{\"nodes\": [{\"map_slots\": 1}]}");
    let (out, err) = run(&["validate", &native, &job, &bom]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(stdout.contains("allocation file: 2 pools"), "{stdout}");
    assert!(stdout.contains("job file: job `"), "{stdout}");
    assert!(stdout.contains("1 map + 0 reduce slots"), "{stdout}");
}
