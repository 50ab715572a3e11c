//! Benchmark: the Fair Scheduler paper's headline set-up (seed 002 §6: one
//! large job beside a stream of small jobs from other users) transposed to
//! Ballista queries, under an mrsched policy and Ballista's own.
//!
//! Run with `scripts/bench.sh` (or `cargo run --release --example bench`).
//! It prints a markdown table; nothing here is a test.
//!
//! For each policy, on a fresh scheduler with 3 executors x 2 vcores:
//! 1. the large query alone (its response time);
//! 2. the large query again, with a small query from one of three other
//!    users submitted every `--gap-ms` (small-query response times, the
//!    large query's slowdown against step 1);
//! 3. single-user throughput: the large query `--repeat` times back to back.
//!
//! Then the mrsched scheduler's own decision time per offer from /metrics.

#[path = "../tests/common/mod.rs"]
mod common;

use common::*;
use std::time::{Duration, Instant};

struct Args {
    policies: Vec<String>,
    small: usize,
    gap_ms: u64,
    repeat: usize,
    big_files: usize,
    big_rows: usize,
}

fn args() -> Args {
    let mut a = Args {
        policies: vec!["fair".into(), "ballista-bias".into()],
        small: 12,
        gap_ms: 250,
        repeat: 3,
        big_files: 60,
        big_rows: 20_000,
    };
    let v: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i + 1 < v.len() {
        let val = v[i + 1].clone();
        match v[i].as_str() {
            "--policies" => a.policies = val.split(',').map(str::to_string).collect(),
            "--small" => a.small = val.parse().expect("--small N"),
            "--gap-ms" => a.gap_ms = val.parse().expect("--gap-ms N"),
            "--repeat" => a.repeat = val.parse().expect("--repeat N"),
            "--big-files" => a.big_files = val.parse().expect("--big-files N"),
            "--big-rows" => a.big_rows = val.parse().expect("--big-rows N"),
            other => panic!("unknown option {other}"),
        }
        i += 2;
    }
    a
}

struct Run {
    policy: String,
    big_alone: Duration,
    small_alone: Duration,
    big_mixed: Duration,
    small: Vec<Duration>,
    throughput: Duration,
    decision_us: Option<(f64, f64, f64, f64)>,
}

async fn bench(policy: &str, a: &Args) -> Run {
    let c = Cluster::start(policy, 3, 2);
    let big = write_data(c.dir.path(), "big", a.big_files, a.big_rows);
    let small = write_data(c.dir.path(), "small", 2, 1_000);
    let want_big = local_result(&big, QUERY).await;
    let want_small = local_result(&small, QUERY).await;
    let etl = c.session("etl", "etl", a.big_files, &big).await;
    // Warm-up: one small query, so sessions and executors are up.
    let warm = c.session("warm", "warm", 2, &small).await;
    assert_eq!(run(&warm, QUERY).await.unwrap(), want_small);
    // A small query alone (median of 5): the floor of its response time.
    let mut alone = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        assert_eq!(run(&warm, QUERY).await.unwrap(), want_small);
        alone.push(t.elapsed());
    }
    alone.sort();
    let small_alone = alone[2];

    let t = Instant::now();
    assert_eq!(run(&etl, QUERY).await.unwrap(), want_big);
    let big_alone = t.elapsed();

    let mut users = Vec::new();
    for u in 0..3 {
        users.push(
            c.session(&format!("user{u}"), &format!("user{u}"), 2, &small)
                .await,
        );
    }
    let t = Instant::now();
    let large = tokio::spawn(async move {
        let r = run(&etl, QUERY).await.unwrap();
        (r, t.elapsed(), etl)
    });
    let mut smalls = Vec::new();
    for i in 0..a.small {
        tokio::time::sleep(Duration::from_millis(a.gap_ms)).await;
        let ctx = users[i % 3].clone();
        let want = want_small.clone();
        smalls.push(tokio::spawn(async move {
            let t = Instant::now();
            assert_eq!(run(&ctx, QUERY).await.unwrap(), want);
            t.elapsed()
        }));
    }
    let mut small_times = Vec::new();
    for s in smalls {
        small_times.push(s.await.unwrap());
    }
    let (r, big_mixed, etl) = large.await.unwrap();
    assert_eq!(r, want_big);

    let t = Instant::now();
    for _ in 0..a.repeat {
        assert_eq!(run(&etl, QUERY).await.unwrap(), want_big);
    }
    let throughput = t.elapsed();

    let decision_us = if policy.starts_with("ballista-") {
        None
    } else {
        let m = c.get("/metrics").await;
        let s = &m["extra"];
        let f = |k: &str| s[format!("scheduler.{k}")].as_f64().unwrap_or(f64::NAN);
        Some((
            f("decision_mean_us"),
            f("decision_max_us"),
            f("offers"),
            f("bind_call_mean_us"),
        ))
    };
    Run {
        policy: policy.to_string(),
        big_alone,
        small_alone,
        big_mixed,
        small: small_times,
        throughput,
        decision_us,
    }
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

#[tokio::main(flavor = "multi_thread", worker_threads = 4)]
async fn main() {
    let a = args();
    let mut runs = Vec::new();
    for p in &a.policies {
        eprintln!("running {p} ...");
        runs.push(bench(p, &a).await);
    }
    println!(
        "| policy | small alone (s) | small queries: mean (s) | max (s) | mean wait (s) | large alone (s) | large with stream (s) | slowdown | {} x large, one user (s) | decision per offer: mean / max (us), offers; whole bind call mean (us) |",
        a.repeat
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for r in &runs {
        let mean = r.small.iter().map(|d| secs(*d)).sum::<f64>() / r.small.len().max(1) as f64;
        let max = r.small.iter().map(|d| secs(*d)).fold(0.0, f64::max);
        let dec = match r.decision_us {
            Some((m, x, n, c)) => format!("{m:.0} / {x:.0}, {n:.0}; whole call {c:.0}"),
            None => "-".into(),
        };
        println!(
            "| {} | {:.3} | {mean:.3} | {max:.3} | {:.3} | {:.2} | {:.2} | {:.2} | {:.2} | {dec} |",
            r.policy,
            secs(r.small_alone),
            mean - secs(r.small_alone),
            secs(r.big_alone),
            secs(r.big_mixed),
            secs(r.big_mixed) / secs(r.big_alone),
            secs(r.throughput),
        );
    }
    if runs.len() >= 2 {
        let m =
            |r: &Run| r.small.iter().map(|d| secs(*d)).sum::<f64>() / r.small.len().max(1) as f64;
        println!();
        println!(
            "small-query mean response, {} against {}: {:.1}x better (time beyond a small query alone: {:.1}x); one-user throughput {} / {}: {:.3}",
            runs[0].policy,
            runs[1].policy,
            m(&runs[1]) / m(&runs[0]),
            (m(&runs[1]) - secs(runs[1].small_alone)) / (m(&runs[0]) - secs(runs[0].small_alone)),
            runs[0].policy,
            runs[1].policy,
            secs(runs[1].throughput) / secs(runs[0].throughput),
        );
    }
}
