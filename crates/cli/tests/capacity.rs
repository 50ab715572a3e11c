//! The Capacity Scheduler from the command line: `capacity-scheduler.xml`
//! files run as a scheduler, validate, and refuse to run when malformed.

mod common;

use common::{bin, repo, run_ok};

fn json(args: &[&str]) -> serde_json::Value {
    serde_json::from_slice(&run_ok(args)).expect("one JSON document")
}

#[test]
fn simulates_with_the_example_file() {
    let v = json(&[
        "simulate",
        "-c",
        "tiny",
        "-w",
        "swim-fb2009-sample",
        "-s",
        "examples/capacity-scheduler.xml",
        "--format",
        "json",
    ]);
    assert_eq!(v["scheduler"], "capacity");
    let s = &v["summary"];
    assert_eq!(s["jobs"], 50);
    assert_eq!(s["succeeded"], 50, "{s}");
    assert_eq!(v["extra"]["scheduler.rejected_jobs"], 0.0, "{}", v["extra"]);
    // The same run through a scheduler file naming the XML, and the preset.
    let dir = tempfile::tempdir().unwrap();
    let xml = dir.path().join("cs.xml");
    std::fs::copy(repo().join("examples/capacity-scheduler.xml"), &xml).unwrap();
    let cfg = dir.path().join("cap.toml");
    std::fs::write(
        &cfg,
        "policy = \"capacity\"\n[capacity]\nallocation_file = \"cs.xml\"\n",
    )
    .unwrap();
    let w = json(&[
        "simulate",
        "-c",
        "tiny",
        "-w",
        "swim-fb2009-sample",
        "-s",
        cfg.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(w["summary"], v["summary"]);
    json(&[
        "simulate",
        "-c",
        "tiny",
        "-w",
        "swim-fb2009-sample",
        "-s",
        "capacity",
        "--format",
        "json",
    ]);
}

#[test]
fn a_stopped_queue_rejects_its_jobs_in_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let xml = dir.path().join("capacity-scheduler.xml");
    std::fs::write(
        &xml,
        "<configuration>\n\
         <property><name>yarn.scheduler.capacity.root.queues</name><value>default,old</value></property>\n\
         <property><name>yarn.scheduler.capacity.root.default.capacity</name><value>90</value></property>\n\
         <property><name>yarn.scheduler.capacity.root.old.capacity</name><value>10</value></property>\n\
         <property><name>yarn.scheduler.capacity.root.old.state</name><value>STOPPED</value></property>\n\
         </configuration>\n",
    )
    .unwrap();
    let w = dir.path().join("w.toml");
    std::fs::write(
        &w,
        "[[jobs]]\nmaps = 2\nmap_time_s = 5\n[[jobs]]\nmaps = 2\nmap_time_s = 5\npool = \"old\"\n",
    )
    .unwrap();
    let v = json(&[
        "simulate",
        "-c",
        "tiny",
        "-w",
        w.to_str().unwrap(),
        "-s",
        xml.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(v["summary"]["rejected"], 1, "{}", v["summary"]);
    let reason = v["jobs"][1]["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("queue `root.old` is STOPPED"), "{reason}");
}

#[test]
fn malformed_files_are_located_errors_and_nothing_runs() {
    let dir = tempfile::tempdir().unwrap();
    let xml = dir.path().join("capacity-scheduler.xml");
    std::fs::write(
        &xml,
        "<?xml version=\"1.0\"?>\n<configuration>\n\
         <property><name>yarn.scheduler.capacity.root.queues</name><value>a,b</value></property>\n\
         <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>60</value></property>\n\
         <property><name>yarn.scheduler.capacity.root.b.capacity</name><value>30</value></property>\n\
         <property><name>yarn.scheduler.capacity.root.b.user-limit-factor</name><value>x</value></property>\n\
         </configuration>\n",
    )
    .unwrap();
    let out = bin()
        .args(["simulate", "-c", "tiny", "-w", "swim-fb2009-sample", "-s"])
        .arg(&xml)
        .current_dir(repo())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "nothing runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("capacity-scheduler.xml:3: yarn.scheduler.capacity.root.queues: the capacities of the children of `root` sum to 90, not 100"),
        "{err}"
    );
    assert!(
        err.contains("capacity-scheduler.xml:6: yarn.scheduler.capacity.root.b.user-limit-factor: `x` is not a number"),
        "{err}"
    );
    let out = bin().arg("validate").arg(&xml).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("sum to 90, not 100"));
}

#[test]
fn validate_recognises_capacity_scheduler_files() {
    let out = String::from_utf8(run_ok(&[
        "validate",
        "examples/capacity-scheduler.xml",
        "examples/whatif-fair-scheduler.xml",
    ]))
    .unwrap();
    assert!(
        out.contains("ok: examples/capacity-scheduler.xml: capacity-scheduler file: 5 queues (4 leaves), 7 user mappings"),
        "{out}"
    );
    assert!(
        out.contains("ok: examples/whatif-fair-scheduler.xml: MR1 fair-scheduler.xml: 10 pools"),
        "{out}"
    );
}

/// Reports show the queue a job was placed in: the queue mappings send
/// user0 to `prod`, user4 to `research.ml`, and user9 to `default`.
#[test]
fn reports_show_the_queue_each_job_was_mapped_to() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path().join("w.toml");
    let mut text = String::new();
    for u in ["user0", "user4", "user9"] {
        text.push_str(&format!(
            "[[jobs]]\nuser = \"{u}\"\nmaps = 2\nmap_time_s = 5\n"
        ));
    }
    std::fs::write(&w, text).unwrap();
    let v = json(&[
        "simulate",
        "-c",
        "tiny",
        "-w",
        w.to_str().unwrap(),
        "-s",
        "examples/capacity-scheduler.xml",
        "--format",
        "json",
    ]);
    let pools: Vec<&str> = v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["pool"].as_str().unwrap())
        .collect();
    assert_eq!(pools, ["root.prod", "root.research.ml", "root.default"]);
}
