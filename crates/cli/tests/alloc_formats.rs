//! The YARN and Spark allocation files through the command line: the
//! examples run and validate, and a malformed file stops everything with a
//! located error.

mod common;

use common::{bin, repo, run_ok};

fn simulate_json(scheduler: &str) -> serde_json::Value {
    let out = run_ok(&[
        "simulate",
        "-c",
        "examples/cluster.toml",
        "-w",
        "examples/workload.toml",
        "-s",
        scheduler,
        "--format",
        "json",
    ]);
    serde_json::from_slice(&out).expect("one JSON document")
}

#[test]
fn yarn_and_spark_examples_run_a_simulation() {
    for (file, done) in [
        ("examples/yarn-fair-scheduler.xml", 2),
        ("examples/spark-fairscheduler.xml", 3),
    ] {
        let v = simulate_json(file);
        assert_eq!(v["summary"]["jobs"], 3, "{file}");
        assert_eq!(v["scheduler"], "fair", "{file}");
        let jobs = v["jobs"].as_array().unwrap();
        let ended = jobs.iter().filter(|j| !j["finish_s"].is_null()).count();
        assert_eq!(ended, done, "{file}");
    }
    // Under the YARN file, alice's job names `production`, a parent queue
    // there: refused with the reason, as YARN refuses it.
    let v = simulate_json("examples/yarn-fair-scheduler.xml");
    let alice = v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["user"] == "alice")
        .unwrap()
        .clone();
    assert_eq!(alice["status"], "rejected");
    let why = alice["reason"].as_str().unwrap();
    assert!(why.contains("`production` is a parent queue"), "{why}");
}

#[test]
fn validate_names_the_dialect() {
    let out = run_ok(&[
        "validate",
        "examples/yarn-fair-scheduler.xml",
        "examples/spark-fairscheduler.xml",
    ]);
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains("YARN Fair Scheduler allocation file: 7 queues, 1 users, 3 placement rules"),
        "{out}"
    );
    assert!(
        out.contains("Spark fairscheduler.xml: 3 pools, 0 users"),
        "{out}"
    );
}

#[test]
fn container_size_comes_from_the_scheduler_file() {
    let dir = std::env::temp_dir().join(format!("mrsched-yarn-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        repo().join("examples/yarn-fair-scheduler.xml"),
        dir.join("fair-scheduler.xml"),
    )
    .unwrap();
    let conf = dir.join("yarn.toml");
    std::fs::write(
        &conf,
        "policy = \"fair\"\n[fair]\nallocation_file = \"fair-scheduler.xml\"\ncontainer_mb = 2048\ncontainer_vcores = 2\n",
    )
    .unwrap();
    let v = simulate_json(conf.to_str().unwrap());
    assert_eq!(v["summary"]["jobs"], 3);
    std::fs::write(
        &conf,
        "policy = \"fair\"\n[fair]\nallocation_file = \"fair-scheduler.xml\"\ncontainer_mb = 0\n",
    )
    .unwrap();
    let out = bin()
        .args(["validate", conf.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("fair.container_mb: must be a number > 0"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_malformed_yarn_file_is_a_located_error_and_nothing_runs() {
    let dir = std::env::temp_dir().join(format!("mrsched-yarn-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("fair-scheduler.xml");
    let cases = [
        (
            "<allocations>\n<queue name=\"a\">\n<minResources>10 gb, 2 vcores</minResources>\n</queue>\n</allocations>\n",
            "fair-scheduler.xml:3: queue[root.a].minResources: `10 gb, 2 vcores`",
        ),
        (
            "<allocations>\n<queue name=\"a\"/>\n<queue name=\"a\"/>\n</allocations>\n",
            "fair-scheduler.xml:3: queue[root.a]: queue `root.a` is defined twice",
        ),
        (
            "<allocations>\n<queue name=\"a\">\n<maxApps>3</maxApps>\n</queue>\n</allocations>\n",
            "fair-scheduler.xml:3: queue[root.a].maxApps: unknown element <maxApps>",
        ),
        (
            "<allocations>\n<queue name=\"a\"/>\n<queuePlacementPolicy>\n<rule name=\"default\" queue=\"b\" create=\"false\"/>\n</queuePlacementPolicy>\n</allocations>\n",
            "fair-scheduler.xml:4: queuePlacementPolicy.rule[default].queue: queue `b` is not declared",
        ),
    ];
    for (text, want) in cases {
        std::fs::write(&bad, text).unwrap();
        for args in [
            vec!["validate", bad.to_str().unwrap()],
            vec![
                "simulate",
                "-c",
                "examples/cluster.toml",
                "-w",
                "examples/workload.toml",
                "-s",
                bad.to_str().unwrap(),
            ],
        ] {
            let out = bin().args(&args).current_dir(repo()).output().unwrap();
            assert!(!out.status.success(), "{args:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains(want), "{args:?}: {err}");
            if args[0] == "simulate" {
                assert!(out.stdout.is_empty(), "a partial run: {:?}", out.stdout);
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A YARN placement policy that rejects: the job is refused on submission
/// with the reason, and the others run.
#[test]
fn a_rejecting_placement_policy_refuses_the_job_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let xml = dir.path().join("fs.xml");
    std::fs::write(
        &xml,
        "<allocations>\n  <queue name=\"production\"/>\n  <queue name=\"bob\"/>\n\
         <queuePlacementPolicy>\n    <rule name=\"specified\" create=\"false\"/>\n\
         <rule name=\"user\" create=\"false\"/>\n    <rule name=\"reject\"/>\n\
         </queuePlacementPolicy>\n</allocations>\n",
    )
    .unwrap();
    let v = simulate_json(xml.to_str().unwrap());
    let jobs = v["jobs"].as_array().unwrap();
    let by_user = |u: &str| jobs.iter().find(|j| j["user"] == u).unwrap();
    // alice names the declared `production`, bob has his own queue; carol
    // has neither.
    let carol = by_user("carol");
    assert_eq!(carol["status"], "rejected", "{carol}");
    let why = carol["reason"].as_str().unwrap();
    assert!(
        why.contains("placement policy") && why.contains("carol"),
        "{why}"
    );
    for u in ["alice", "bob"] {
        assert_eq!(by_user(u)["status"], "succeeded", "{u}");
    }
    assert_eq!(v["summary"]["rejected"], 1);
}

/// Reports show the pool a placement policy chose, not the one a job names.
#[test]
fn reports_show_the_queue_the_placement_policy_chose() {
    let dir = tempfile::tempdir().unwrap();
    let xml = dir.path().join("fs.xml");
    std::fs::write(
        &xml,
        "<allocations>\n  <queue name=\"shared\"><queue name=\"all\"/></queue>\n\
         <queuePlacementPolicy>\n    <rule name=\"default\" queue=\"root.shared.all\"/>\n\
         </queuePlacementPolicy>\n</allocations>\n",
    )
    .unwrap();
    let v = simulate_json(xml.to_str().unwrap());
    let pools: Vec<&str> = v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["pool"].as_str().unwrap())
        .collect();
    // examples/workload.toml names `production` and the users' own pools.
    assert_eq!(pools, ["shared.all"; 3]);
}
