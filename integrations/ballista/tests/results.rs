//! Queries give DataFusion's local results under every policy.

mod common;
use common::*;
use std::time::Instant;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn results_equal_datafusion_local_results_under_each_policy() {
    for scheduler in ["fair", "fifo", "fair+delay"] {
        let c = Cluster::start(scheduler, 2, 2);
        let data = write_data(c.dir.path(), "d", 6, 2_000);
        let want = local_result(&data, QUERY).await;
        let ctx = c.session("ann", "etl", 4, &data).await;
        let t0 = Instant::now();
        let got = run(&ctx, QUERY).await.unwrap();
        eprintln!("{scheduler}: {:?}", t0.elapsed());
        assert_eq!(got, want, "{scheduler}");
        // A second query with a join and a final sort over the same data.
        let sql = "SELECT a.k, count(*) AS n FROM t a JOIN (SELECT DISTINCT k FROM t WHERE v % 2 = 0) b ON a.k = b.k GROUP BY a.k ORDER BY n DESC, a.k LIMIT 5";
        assert_eq!(
            run(&ctx, sql).await.unwrap(),
            local_result(&data, sql).await
        );
        let pools = c.get("/pools").await;
        let names: Vec<&str> = pools["pools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        if scheduler != "fifo" {
            assert!(names.contains(&"etl"), "{pools}");
        }
        let report = c.get("/metrics").await;
        assert!(report["jobs"].as_array().unwrap().len() >= 2, "{report}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn push_scheduling_gives_the_same_results() {
    let c = Cluster::start_with("fair", 2, 2, true);
    let data = write_data(c.dir.path(), "d", 6, 2_000);
    let ctx = c.session("ann", "etl", 4, &data).await;
    assert_eq!(
        run(&ctx, QUERY).await.unwrap(),
        local_result(&data, QUERY).await
    );
    let report = c.get("/metrics").await;
    assert!(
        report["extra"]["scheduler.binds"].as_f64().unwrap() > 0.0,
        "{report}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_embedded_local_cluster_runs_queries_and_stops_its_executors() {
    use std::io::BufRead;
    let mut child = std::process::Command::new(bin())
        .args([
            "local",
            "--executors",
            "2",
            "--vcores",
            "2",
            "--scheduler",
            "fair+delay",
        ])
        .args(["--port", "0", "--http-port", "0"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut text = String::new();
    loop {
        let mut line = String::new();
        assert!(
            out.read_line(&mut line).unwrap() > 0,
            "no `ready` in: {text}"
        );
        text.push_str(&line);
        if line.trim() == "ready" {
            break;
        }
    }
    let url = text
        .split_whitespace()
        .find(|w| w.starts_with("df://"))
        .unwrap()
        .trim_end_matches(',')
        .to_string();
    assert!(text.contains("SessionContext::remote"), "{text}");
    let dir = tempfile::tempdir().unwrap();
    let data = write_data(dir.path(), "d", 4, 1_000);
    let ctx = mrsched_ballista::options::connect(&url, "ann")
        .await
        .unwrap();
    ctx.sql("SET mrsched.pool = 'etl'").await.unwrap();
    register(&ctx, &data).await;
    assert_eq!(
        run(&ctx, QUERY).await.unwrap(),
        local_result(&data, QUERY).await
    );
    // SIGTERM: the executors stop with it.
    let pid = child.id().to_string();
    let kids = std::process::Command::new("pgrep")
        .args(["-P", &pid])
        .output()
        .unwrap();
    let kids: Vec<String> = String::from_utf8_lossy(&kids.stdout)
        .split_whitespace()
        .map(str::to_string)
        .collect();
    assert_eq!(kids.len(), 2, "two executor processes");
    assert!(std::process::Command::new("kill")
        .arg(&pid)
        .status()
        .unwrap()
        .success());
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
    for k in kids {
        let gone = wait_until(std::time::Duration::from_secs(5), || {
            let k = k.clone();
            async move { !std::path::Path::new(&format!("/proc/{k}")).exists() }
        })
        .await;
        assert!(gone, "executor {k} left behind");
    }
}
