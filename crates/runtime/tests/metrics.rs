//! `GET /metrics` of a live master: who may scrape it, and that what it
//! exports agrees with the JSON API (`/api/jobs`, `/api/report`,
//! `/api/pools`) after real jobs of two users.

mod common;

use common::*;
use mrsched_model::Cluster;
use mrsched_runtime::master::metrics::ScrapeAuth;
use mrsched_runtime::master::{open_core, run_master, MasterConfig};
use mrsched_sched::SchedulerConfig;
use prometheus_parse::{Scrape, Value};
use std::sync::Arc;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(60);

async fn get(url: &str, token: Option<&str>) -> (u16, String, String) {
    let mut req = reqwest::Client::new().get(format!("{url}/metrics"));
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let r = req.send().await.unwrap();
    let status = r.status().as_u16();
    let ctype = r
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    (status, ctype, r.text().await.unwrap())
}

/// A master alone (its cluster never forms): enough for the route.
async fn lone_master(metrics: ScrapeAuth) -> (String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let cfg = MasterConfig {
        dir: dir.path().join("master"),
        listen: "127.0.0.1:0".parse().unwrap(),
        secret: SECRET.into(),
        users: users(),
        settings: settings(2),
        metrics,
        tls: Default::default(),
    };
    let core = open_core(&cfg, None).unwrap();
    tokio::spawn(run_master(cfg, core, std::future::pending()));
    let addr = dir.path().join("master/addr");
    for _ in 0..500 {
        if let Ok(u) = std::fs::read_to_string(&addr) {
            return (u, dir);
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the master did not start");
}

fn parse(text: &str) -> Scrape {
    Scrape::parse(text.lines().map(|l| Ok(l.to_string()))).unwrap()
}

/// The value of the one sample of `name` whose labels include `labels`.
fn value(s: &Scrape, name: &str, labels: &[(&str, &str)]) -> f64 {
    let found: Vec<f64> = s
        .samples
        .iter()
        .filter(|x| x.metric == name && labels.iter().all(|(k, v)| x.labels.get(k) == Some(*v)))
        .map(|x| match x.value {
            Value::Counter(v) | Value::Gauge(v) | Value::Untyped(v) => v,
            _ => f64::NAN,
        })
        .collect();
    assert_eq!(found.len(), 1, "one sample of {name} {labels:?}: {found:?}");
    found[0]
}

/// Sum over every sample of `name` whose labels include `labels`.
fn sum(s: &Scrape, name: &str, labels: &[(&str, &str)]) -> f64 {
    s.samples
        .iter()
        .filter(|x| x.metric == name && labels.iter().all(|(k, v)| x.labels.get(k) == Some(*v)))
        .map(|x| match x.value {
            Value::Counter(v) | Value::Gauge(v) | Value::Untyped(v) => v,
            _ => 0.0,
        })
        .sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_need_the_scrape_token_unless_opted_out() {
    let (url, _d) = lone_master(ScrapeAuth {
        token: Some(SCRAPE.into()),
        unauthenticated: false,
    })
    .await;
    let (status, _, body) = get(&url, None).await;
    assert_eq!(status, 401, "{body}");
    assert!(body.contains("missing token"), "{body}");
    assert_eq!(get(&url, Some("scrape-token-01234567890")).await.0, 401);
    assert_eq!(
        get(&url, Some(SECRET)).await.0,
        401,
        "not the cluster secret"
    );
    // A user who is not an admin is known but may not scrape.
    let (status, _, body) = get(&url, Some(ALICE)).await;
    assert_eq!(status, 403, "{body}");
    let (status, ctype, body) = get(&url, Some(SCRAPE)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(ctype, "text/plain; version=0.0.4; charset=utf-8");
    // Before the cluster forms: no jobs, the workers it waits for.
    let s = parse(&body);
    assert_eq!(value(&s, "mrsched_workers", &[("state", "alive")]), 0.0);
    assert_eq!(
        value(&s, "mrsched_workers", &[("state", "unregistered")]),
        2.0
    );
    assert_eq!(value(&s, "mrsched_jobs_submitted_total", &[]), 0.0);
    assert!(value(&s, "mrsched_master_uptime_seconds", &[]) >= 0.0);

    let (url, _d) = lone_master(ScrapeAuth {
        token: None,
        unauthenticated: true,
    })
    .await;
    let (status, _, body) = get(&url, None).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("# TYPE mrsched_jobs gauge"), "{body}");
}

fn job_toml(output: &str) -> String {
    format!(
        "input = \"corpus\"\noutput = \"{output}\"\nreduces = 2\n[program]\nkind = \"wordcount\"\n"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_agree_with_the_json_api() {
    let fair: mrsched_runtime::master::core::SchedulerFactory =
        Arc::new(|c: &Cluster| SchedulerConfig::resolve("fair").unwrap().build(c).unwrap());
    let c = TestCluster::start(3, Some(fair)).await;
    put(&c.alice, "corpus", &corpus(2000), 8 * 1024).await;
    let mut ids = Vec::new();
    for (who, out) in [
        (&c.alice, "a1"),
        (&c.bob, "b1"),
        (&c.alice, "a2"),
        (&c.bob, "b2"),
    ] {
        let s = who.submit("job.toml", &job_toml(out), false).await.unwrap();
        assert_eq!(s.status, "running");
        ids.push(s.id);
    }
    // While they run, each user's pool has its gauges.
    let (status, _, body) = get(&c.url, Some(SCRAPE)).await;
    assert_eq!(status, 200, "{body}");
    let s = parse(&body);
    for pool in ["alice", "bob"] {
        for kind in ["map", "reduce"] {
            for g in [
                "mrsched_pool_running_tasks",
                "mrsched_pool_pending_tasks",
                "mrsched_pool_demand_slots",
                "mrsched_pool_fair_share_slots",
            ] {
                value(&s, g, &[("pool", pool), ("kind", kind)]);
            }
        }
    }
    for id in &ids {
        let j = c.alice.wait(*id, WAIT).await.unwrap();
        assert_eq!(j.status, "succeeded", "{j:?}");
    }

    let (status, _, body) = get(&c.url, Some(SCRAPE)).await;
    assert_eq!(status, 200, "{body}");
    let s = parse(&body);
    let jobs = c.alice.jobs().await.unwrap();
    let report = c.alice.report().await.unwrap();
    let pools = c.alice.pools().await.unwrap();

    // Jobs.
    assert_eq!(jobs.len(), 4);
    assert_eq!(value(&s, "mrsched_jobs_submitted_total", &[]), 4.0);
    assert_eq!(report.summary.jobs, 4);
    let succeeded = jobs.iter().filter(|j| j.status == "succeeded").count() as f64;
    assert_eq!(succeeded, 4.0);
    assert_eq!(
        value(
            &s,
            "mrsched_jobs_finished_total",
            &[("status", "succeeded")]
        ),
        succeeded
    );
    assert_eq!(report.summary.succeeded as f64, succeeded);
    assert_eq!(value(&s, "mrsched_jobs", &[("status", "succeeded")]), 4.0);
    for st in ["failed", "killed", "rejected"] {
        assert_eq!(
            value(&s, "mrsched_jobs_finished_total", &[("status", st)]),
            0.0
        );
    }
    assert_eq!(value(&s, "mrsched_jobs", &[("status", "running")]), 0.0);

    // Successful map attempts by locality are the jobs' locality counts.
    for (k, loc) in ["node", "rack", "off_rack"].into_iter().enumerate() {
        let from_jobs: u32 = jobs.iter().map(|j| j.locality[k]).sum();
        let from_report: u32 = report
            .jobs
            .iter()
            .map(|j| [j.locality.node, j.locality.rack, j.locality.off_rack][k])
            .sum();
        assert_eq!(from_jobs, from_report);
        let got = value(
            &s,
            "mrsched_task_attempts_total",
            &[("kind", "map"), ("locality", loc), ("outcome", "succeeded")],
        );
        assert_eq!(got, from_jobs as f64, "{loc}-local maps");
    }
    let maps: u32 = jobs.iter().map(|j| j.maps).sum();
    assert_eq!(
        sum(
            &s,
            "mrsched_task_attempts_total",
            &[("kind", "map"), ("outcome", "succeeded")]
        ),
        maps as f64
    );
    let reduces: u32 = jobs.iter().map(|j| j.reduces).sum();
    assert_eq!(
        value(
            &s,
            "mrsched_task_attempts_total",
            &[("kind", "reduce"), ("outcome", "succeeded")]
        ),
        reduces as f64
    );
    // Nothing runs any more: every attempt launched has ended.
    assert_eq!(
        sum(&s, "mrsched_task_attempts_total", &[]),
        report.summary.attempts as f64
    );

    // Pools: the same numbers as `/api/pools`.
    assert!(pools.pools.len() >= 2, "{pools:?}");
    for p in &pools.pools {
        let l = |kind| [("pool", p.name.as_str()), ("kind", kind)];
        assert_eq!(
            value(&s, "mrsched_pool_running_tasks", &l("map")),
            p.running_maps as f64
        );
        assert_eq!(
            value(&s, "mrsched_pool_running_tasks", &l("reduce")),
            p.running_reduces as f64
        );
        assert_eq!(value(&s, "mrsched_pool_demand_slots", &l("map")), p.demand);
        assert_eq!(
            value(&s, "mrsched_pool_fair_share_slots", &l("map")),
            p.fair_share
        );
    }

    // Workers and latencies.
    assert_eq!(value(&s, "mrsched_workers", &[("state", "alive")]), 3.0);
    assert_eq!(value(&s, "mrsched_workers", &[("state", "lost")]), 0.0);
    for h in [
        "mrsched_heartbeat_duration_seconds_count",
        "mrsched_schedule_heartbeat_duration_seconds_count",
        "mrsched_schedule_assign_duration_seconds_count",
        "mrsched_journal_commit_duration_seconds_count",
    ] {
        assert!(sum(&s, h, &[]) > 0.0, "{h} counted: {body}");
    }
    // Submissions are committed durably, heartbeats' records lazily.
    for d in ["durable", "lazy"] {
        assert!(
            value(
                &s,
                "mrsched_journal_commit_duration_seconds_count",
                &[("durability", d)]
            ) > 0.0,
            "{d} commits"
        );
    }
    assert!(
        value(&s, "mrsched_heartbeat_duration_seconds_count", &[])
            >= value(&s, "mrsched_schedule_heartbeat_duration_seconds_count", &[])
    );
    let up = value(&s, "mrsched_master_uptime_seconds", &[]);
    assert!(up > 0.0 && up < 600.0, "{up}");
    c.stop();
}
