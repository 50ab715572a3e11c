//! Bad input gets a clear error, and a lost executor never yields a
//! silently partial result.

mod common;
use common::*;
use std::process::Command;
use std::time::Duration;

fn fails_with(args: &[&str], want: &[&str]) {
    let out = Command::new(bin()).args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} succeeded");
    for w in want {
        assert!(err.contains(w), "{args:?}: `{w}` not in: {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn unknown_and_unsupported_schedulers_are_refused_with_the_reason() {
    fails_with(
        &["scheduler", "--scheduler", "fastest"],
        &["fastest", "not a scheduler preset or a file", "fair+delay"],
    );
    fails_with(
        &["scheduler", "--scheduler", "mars"],
        &["cannot drive", "offline"],
    );
    fails_with(
        &["local", "--scheduler", "rtmr"],
        &["cannot drive", "admission"],
    );
    fails_with(
        &["scheduler", "--scheduler", "fair+preemption"],
        &["preemption", "cannot cancel"],
    );
}

#[test]
fn malformed_allocation_and_topology_files_name_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let xml = dir.path().join("fair-scheduler.xml");
    std::fs::write(
        &xml,
        "<?xml version=\"1.0\"?>\n<allocations>\n  <pool name=\"etl\">\n    <weight>heavy</weight>\n  </pool>\n</allocations>\n",
    )
    .unwrap();
    let x = xml.to_str().unwrap();
    fails_with(
        &["scheduler", "--scheduler", x],
        &["fair-scheduler.xml", ":4", "weight"],
    );
    let topo = dir.path().join("racks.txt");
    std::fs::write(&topo, "10.0.0.1 /r1\n10.0.0.2\n").unwrap();
    fails_with(
        &["scheduler", "--topology", topo.to_str().unwrap()],
        &["racks.txt:2", "host rack"],
    );
    fails_with(&["pools", "--http", "127.0.0.1:1"], &["cannot reach"]);
    fails_with(&["metrics", "--http", "127.0.0.1:1"], &["cannot reach"]);
}

#[test]
fn executor_arguments_out_of_range_are_refused() {
    fails_with(&["executor", "--vcores", "0"], &["--vcores", "1..=2500"]);
    fails_with(&["local", "--vcores", "100000"], &["--vcores", "1..=2500"]);
    fails_with(
        &["executor", "--scheduler", "scheduler-host"],
        &["--scheduler", "expected host:port"],
    );
    fails_with(
        &["executor", "--scheduler", "scheduler-host:99999"],
        &["`99999` is not a port"],
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_executor_lost_mid_query_gives_the_full_result_or_an_error() {
    let mut c = Cluster::start("fair", 3, 2);
    let data = write_data(c.dir.path(), "d", 36, 8_000);
    let want = local_result(&data, QUERY).await;
    let ctx = c.session("ann", "etl", 36, &data).await;
    let q = tokio::spawn(async move { run(&ctx, QUERY).await });
    let http = c.http;
    let busy = wait_until(Duration::from_secs(60), || async move {
        let obs: serde_json::Value = reqwest::get(format!("http://{http}/observed"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        obs["samples"]
            .as_array()
            .and_then(|s| s.last())
            .and_then(|s| s["running"]["etl"].as_u64())
            .unwrap_or(0)
            >= 4
    })
    .await;
    assert!(busy, "the query never ran");
    // kill -9 one executor while it runs tasks.
    let mut victim = c.executors.remove(2);
    victim.0.kill().unwrap();
    let _ = victim.0.wait();
    let got = tokio::time::timeout(Duration::from_secs(120), q)
        .await
        .expect("the query neither finished nor failed within two minutes")
        .unwrap();
    match got {
        Ok(table) => assert_eq!(
            table, want,
            "a result after an executor loss must be complete"
        ),
        Err(e) => eprintln!("the query failed with an error, as allowed: {e}"),
    }
    // The scheduler still serves its views, and the ended query holds
    // nothing there: no task left running or pending on the lost executor.
    let pools = c.get("/pools").await;
    assert_eq!(pools["scheduler"], "fair");
    let http = c.http;
    let drained = wait_until(Duration::from_secs(10), || async move {
        let pools: serde_json::Value = reqwest::get(format!("http://{http}/pools"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        pools["pools"].as_array().is_some_and(|ps| {
            ps.iter()
                .all(|p| p["running_maps"] == 0 && p["pending_maps"] == 0)
        })
    })
    .await;
    assert!(drained, "{}", c.get("/pools").await);
}
