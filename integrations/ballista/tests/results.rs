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
