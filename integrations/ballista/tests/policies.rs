//! The papers' behaviours, measured on the engine (not on the mirror):
//! weighted pools, short queries beside a long one, delay scheduling.

mod common;
use common::*;
use std::time::{Duration, Instant};

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn pools_with_weights_two_to_one_get_vcores_two_to_one() {
    let dir = tempfile::tempdir().unwrap();
    let xml = dir.path().join("fair-scheduler.xml");
    std::fs::write(
        &xml,
        "<?xml version=\"1.0\"?>\n<allocations>\n  <pool name=\"etl\">\n    <weight>2.0</weight>\n  </pool>\n  <pool name=\"bi\">\n    <weight>1.0</weight>\n  </pool>\n</allocations>\n",
    )
    .unwrap();
    let c = Cluster::start(xml.to_str().unwrap(), 2, 3);
    let data = write_data(c.dir.path(), "d", 48, 12_000);
    let want = local_result(&data, QUERY).await;
    let etl = c.session("ann", "etl", 48, &data).await;
    let bi = c.session("bob", "bi", 48, &data).await;
    let t0 = Instant::now();
    let (a, b) = tokio::join!(run(&etl, QUERY), run(&bi, QUERY));
    eprintln!("both queries: {:?}", t0.elapsed());
    assert_eq!(a.unwrap(), want);
    assert_eq!(b.unwrap(), want);
    // While both pools have work waiting, six vcores split 4:2.
    let obs = c.get("/observed").await;
    let (mut e, mut r) = (Vec::new(), Vec::new());
    for s in obs["samples"].as_array().unwrap() {
        let pending = |p: &str| s["pending"][p].as_u64().unwrap_or(0);
        let running = |p: &str| s["running"][p].as_u64().unwrap_or(0) as f64;
        if pending("etl") > 0 && pending("bi") > 0 {
            e.push(running("etl"));
            r.push(running("bi"));
        }
    }
    eprintln!(
        "{} samples with both pools waiting: etl {:.2}, bi {:.2}",
        e.len(),
        mean(&e),
        mean(&r)
    );
    assert!(e.len() >= 10, "too few samples: {obs}");
    assert!((mean(&e) - 4.0).abs() <= 1.0, "etl {:?}", e);
    assert!((mean(&r) - 2.0).abs() <= 1.0, "bi {:?}", r);
    assert!(mean(&e) > mean(&r));
    // The pools view shows the allocation file's pools and weights.
    let out = std::process::Command::new(bin())
        .args(["pools", "--http", &c.http.to_string()])
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{table}");
    let row = |name: &str| {
        table
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no {name} row in\n{table}"))
            .split_whitespace()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(row("etl")[6], "2", "{table}");
    assert_eq!(row("bi")[6], "1", "{table}");
}

/// A long query holds every vcore; a short one arrives: how long until its
/// first task is bound, and how long it takes.
async fn short_beside_long(scheduler: &str) -> (u64, Duration, Duration) {
    let c = Cluster::start(scheduler, 2, 2);
    // Both executors registered first: a late one would leave the long
    // query two vcores, never the four the test needs it to hold.
    let both = wait_until(Duration::from_secs(60), || async {
        c.get("/metrics").await["extra"]["scheduler.executor_vcores"].as_f64() == Some(4.0)
    })
    .await;
    assert!(both, "the two executors never registered");
    let big = write_data(c.dir.path(), "big", 40, 12_000);
    let small = write_data(c.dir.path(), "small", 1, 500);
    let long = c.session("ann", "batch", 40, &big).await;
    let short = c.session("bob", "adhoc", 1, &small).await;
    let t0 = Instant::now();
    let long_run = tokio::spawn(async move { run(&long, QUERY).await.map(|_| t0.elapsed()) });
    // Wait until the long query holds all four vcores.
    let full = wait_until(Duration::from_secs(60), || async {
        let obs = c.get("/observed").await;
        obs["samples"]
            .as_array()
            .and_then(|s| s.last())
            .and_then(|s| s["running"]["batch"].as_u64())
            == Some(4)
    })
    .await;
    assert!(full, "the long query never held every vcore");
    let t1 = Instant::now();
    let got = run(&short, QUERY).await.unwrap();
    let short_time = t1.elapsed();
    assert_eq!(got, local_result(&small, QUERY).await);
    let long_time = long_run.await.unwrap().unwrap();
    let obs = c.get("/observed").await;
    let job = obs["jobs"]
        .as_object()
        .unwrap()
        .values()
        .find(|j| j["pool"] == "adhoc")
        .unwrap_or_else(|| panic!("the short query was never seen: {obs}"))
        .clone();
    let first = job["first_task_ms"].as_u64();
    let wait =
        first.unwrap_or_else(|| panic!("no first task: {job}")) - job["seen_ms"].as_u64().unwrap();
    eprintln!("{scheduler}: short query waited {wait} ms for its first task, took {short_time:?}; long query {long_time:?}");
    (wait, short_time, long_time)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_short_query_starts_at_once_under_fair_and_waits_under_fifo() {
    let (fair_wait, fair_short, fair_long) = short_beside_long("fair").await;
    let (fifo_wait, fifo_short, _) = short_beside_long("fifo").await;
    // Fair: the first vcore freed goes to the short query, so it waits at
    // most for one of the long query's tasks (40 tasks on 4 vcores: a
    // tenth of its run), or 500 ms when tasks are quicker than that. A
    // loaded machine slows the tasks and so lengthens the bound with them.
    let one_task = fair_long.as_millis() as u64 * 4 / 40;
    assert!(
        fair_wait <= one_task.max(500),
        "fair: waited {fair_wait} ms; one long-query task takes about {one_task} ms"
    );
    assert!(
        fair_short < fair_long,
        "fair: {fair_short:?} vs {fair_long:?}"
    );
    // FIFO: it waits for the long query's pending tasks.
    assert!(
        fifo_wait >= 4 * fair_wait.max(100),
        "fifo {fifo_wait} ms, fair {fair_wait} ms"
    );
    assert!(
        fifo_short > fair_short,
        "fifo {fifo_short:?}, fair {fair_short:?}"
    );
}

/// Share of shuffle-reading tasks placed on the executor that holds most of
/// their input, over four runs of a two-stage query on four executors, over files whose keys do not overlap.
async fn input_local_share(scheduler: &str) -> f64 {
    let c = Cluster::start(scheduler, 4, 2);
    let data = write_keyed_data(c.dir.path(), "d", 16, 5_000, 2);
    let want = local_result(&data, QUERY).await;
    let ctx = c.session("ann", "etl", 16, &data).await;
    for _ in 0..4 {
        assert_eq!(run(&ctx, QUERY).await.unwrap(), want);
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let p = &c.get("/observed").await["placement"];
    let (l, r) = (
        p["input_local"].as_f64().unwrap(),
        p["input_remote"].as_f64().unwrap(),
    );
    eprintln!(
        "{scheduler}: {l} input-local, {r} remote, {} tied, {} scans",
        p["input_tied"], p["no_input"]
    );
    assert!(l + r >= 15.0, "too few shuffle readers seen: {p}");
    l / (l + r)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn delay_scheduling_places_more_tasks_with_their_input_than_ballistas_policy() {
    let dir = tempfile::tempdir().unwrap();
    let delay = dir.path().join("delay.toml");
    std::fs::write(
        &delay,
        "policy = \"fair\"\n[fair]\ndelay = \"wait\"\nlocality_wait_s = [0.5, 0.5]\n",
    )
    .unwrap();
    let stock = input_local_share("ballista-bias").await;
    let ours = input_local_share(delay.to_str().unwrap()).await;
    // Each file holds its own keys, so a shuffle partition's input lies
    // mostly on the executors that scanned its keys. Ballista's bias policy
    // binds wherever vcores are free (0.22-0.33 measured); delay scheduling
    // waits for the executor with the input (0.89-0.97).
    assert!(
        ours >= 0.8 && ours >= stock + 0.3,
        "input-local share: mrsched fair+delay {ours:.2}, Ballista bias {stock:.2}"
    );
}
