//! Who may scrape, what an ended attempt counts as, and scrapes of a core
//! without networking against its own views (also after a restart).

use super::*;
use crate::master::core::Core;
use axum::http::HeaderValue;
use mrsched_model::{Format, Source};
use prometheus_client::registry::Registry;

fn users() -> Users {
    Users::parse(&Source::new(
        "users.toml",
        "[users.root]\ntoken = \"admin-token-0123456789\"\nadmin = true\n[users.bob]\ntoken = \"bob-token-0123456789ab\"\n",
        Format::Toml,
    ))
    .unwrap()
}

fn bearer(t: &str) -> HeaderMap {
    let mut h = HeaderMap::new();
    h.insert(
        header::AUTHORIZATION,
        HeaderValue::from_str(&format!("Bearer {t}")).unwrap(),
    );
    h
}

#[test]
fn scrapes_need_the_scrape_token_or_an_admin() {
    let u = users();
    let auth = ScrapeAuth {
        token: Some("scrape-token-0123456789".into()),
        unauthenticated: false,
    };
    let status = |h: &HeaderMap| auth.check(&u, h).map_err(|e| e.status);
    assert_eq!(status(&HeaderMap::new()), Err(401));
    assert_eq!(status(&bearer("scrape-token-012345678")), Err(401));
    assert_eq!(status(&bearer("")), Err(401));
    let mut basic = HeaderMap::new();
    basic.insert(
        header::AUTHORIZATION,
        HeaderValue::from_static("Basic eA=="),
    );
    assert_eq!(status(&basic), Err(401));
    assert_eq!(status(&bearer("scrape-token-0123456789")), Ok(()));
    assert_eq!(status(&bearer("admin-token-0123456789")), Ok(()));
    let e = auth
        .check(&u, &bearer("bob-token-0123456789ab"))
        .unwrap_err();
    assert_eq!(e.status, 403);
    assert!(e.message.contains("`bob` is not an admin"), "{}", e.message);
    // Without a scrape token, only admins.
    let admins = ScrapeAuth::default();
    assert_eq!(admins.check(&u, &HeaderMap::new()).unwrap_err().status, 401);
    assert_eq!(
        admins
            .check(&u, &bearer("scrape-token-0123456789"))
            .unwrap_err()
            .status,
        401
    );
    assert!(admins.check(&u, &bearer("admin-token-0123456789")).is_ok());
    // Opted out: anyone.
    let open = ScrapeAuth {
        token: None,
        unauthenticated: true,
    };
    assert!(open.check(&u, &HeaderMap::new()).is_ok());
    assert!(open.check(&u, &bearer("anything")).is_ok());
}

fn scrape(c: &Core) -> prometheus_parse::Scrape {
    let text = render(c).unwrap();
    prometheus_parse::Scrape::parse(text.lines().map(|l| Ok(l.to_string()))).unwrap()
}

fn value(s: &prometheus_parse::Scrape, name: &str, labels: &[(&str, &str)]) -> f64 {
    let v: Vec<f64> = s
        .samples
        .iter()
        .filter(|x| x.metric == name && labels.iter().all(|(k, v)| x.labels.get(k) == Some(*v)))
        .filter_map(|x| match x.value {
            prometheus_parse::Value::Counter(v) | prometheus_parse::Value::Gauge(v) => Some(v),
            _ => None,
        })
        .collect();
    assert_eq!(v.len(), 1, "{name} {labels:?}");
    v[0]
}

fn open(path: &std::path::Path) -> Core {
    // The master core tests' settings, under the Fair Scheduler.
    let settings = crate::master::core::MasterSettings {
        scheduler: mrsched_sched::SchedulerConfig::resolve("fair").unwrap(),
        max_attempts: 4,
        ..crate::master::core::fixtures::settings()
    };
    Core::open(crate::journal::Journal::open(path).unwrap(), settings, None).unwrap()
}

/// Two users' jobs under the Fair Scheduler on a core without
/// networking: the pool gauges are the pools view of the same instant,
/// ended attempts are counted, and a restarted master counts the
/// journal's finished and failed attempts again, as its report does.
#[test]
fn scrapes_agree_with_the_pools_view_and_replays() {
    use crate::master::core::{BlockMeta, User};
    use crate::proto::{Heartbeat, ReadFrom, Report};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.redb");
    let mut c = open(&path);
    let s = scrape(&c);
    assert_eq!(
        value(&s, "mrsched_workers", &[("state", "unregistered")]),
        2.0
    );
    let mut sessions = Vec::new();
    for name in ["a", "b"] {
        let r = c
            .register(crate::master::core::fixtures::reg(name))
            .unwrap();
        sessions.push((r.node, r.session));
    }
    let mut blocks = Vec::new();
    for _ in 0..4 {
        let (id, targets) = c.new_block(2).unwrap();
        blocks.push(BlockMeta {
            id,
            bytes: 10,
            replicas: targets.iter().map(|t| t.0).collect(),
        });
    }
    let user = |n: &str| User {
        name: n.into(),
        admin: false,
    };
    c.commit_file(&user("alice"), "in", blocks).unwrap();
    for (who, out) in [("alice", "o1"), ("bob", "o2")] {
        let text = format!(
            "input = \"in\"\noutput = \"{out}\"\nreduces = 1\n[program]\nkind = \"wordcount\"\n"
        );
        c.submit(&user(who), "j.toml", &text, false).unwrap();
    }
    let beat = |c: &mut Core, k: usize, reports: Vec<Report>| {
        c.heartbeat(Heartbeat {
            node: sessions[k].0,
            session: sessions[k].1,
            reports,
        })
        .unwrap()
    };
    let launched = beat(&mut c, 0, Vec::new()).launches;
    assert_eq!(launched.len(), 2, "a's two map slots");

    let s = scrape(&c);
    let view = c.pools().unwrap();
    assert_eq!(view.pools.len(), 2);
    let mut fair = 0.0;
    for p in &view.pools {
        let l = |kind| [("pool", p.name.as_str()), ("kind", kind)];
        let running = value(&s, "mrsched_pool_running_tasks", &l("map"));
        assert_eq!(running, p.running_maps as f64);
        assert_eq!(
            value(&s, "mrsched_pool_pending_tasks", &l("map")),
            p.pending_maps as f64
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
        assert_eq!(
            value(&s, "mrsched_pool_jobs", &[("pool", p.name.as_str())]),
            1.0
        );
        fair += p.fair_share;
    }
    assert!(fair > 0.0, "the shares were computed: {view:?}");
    assert_eq!(value(&s, "mrsched_jobs", &[("status", "running")]), 2.0);
    assert_eq!(value(&s, "mrsched_workers", &[("state", "alive")]), 2.0);

    // One map succeeds, the other fails (and is retried).
    let reports = vec![
        Report::MapDone {
            key: launched[0].key.clone(),
            outputs: Vec::new(),
            read: ReadFrom::Local,
            input_bytes: 10,
            blocks: Vec::new(),
        },
        Report::Failed {
            key: launched[1].key.clone(),
            error: "disk on fire".into(),
        },
    ];
    beat(&mut c, 0, reports);
    let attempts = |s: &prometheus_parse::Scrape, outcome| {
        value(
            s,
            "mrsched_task_attempts_total",
            &[("kind", "map"), ("locality", "node"), ("outcome", outcome)],
        )
    };
    let s = scrape(&c);
    assert_eq!(attempts(&s, "succeeded"), 1.0);
    assert_eq!(attempts(&s, "failed"), 1.0);
    let report = c.report().unwrap();
    let failed: u32 = report.jobs.iter().map(|j| j.failed_attempts).sum();
    assert_eq!(failed, 1);
    drop(c);

    // A new master on the same journal replays the finished work.
    let c = open(&path);
    let s = scrape(&c);
    assert_eq!(attempts(&s, "succeeded"), 1.0);
    assert_eq!(attempts(&s, "failed"), 1.0);
    assert_eq!(value(&s, "mrsched_jobs_submitted_total", &[]), 2.0);
    assert_eq!(
        value(&s, "mrsched_workers", &[("state", "unregistered")]),
        2.0,
        "no worker has registered with the new master yet"
    );
}

#[test]
fn ended_attempts_are_counted_by_kind_locality_and_outcome() {
    let i = Instruments::new();
    let text = |i: &Instruments| {
        let mut r = Registry::default();
        r.register("a", "attempts", i.attempts.clone());
        let mut s = String::new();
        prometheus_text::encode(&mut s, &r).unwrap();
        s
    };
    // Every series of a real run is there at zero from the start.
    let t = text(&i);
    assert!(
        t.contains("a_total{kind=\"map\",locality=\"off_rack\",outcome=\"lost\"} 0"),
        "{t}"
    );
    assert!(
        t.contains("a_total{kind=\"reduce\",locality=\"none\",outcome=\"succeeded\"} 0"),
        "{t}"
    );
    let json = serde_json::json!({
        "id": 1, "kind": "map", "job": 0, "task": 3, "riders": [[1, 3]],
        "node": 0, "start": 0, "end": 5, "status": "succeeded",
        "locality": "rack", "phase": "computing", "compute_start": null
    });
    let a: Attempt = serde_json::from_value(json.clone()).unwrap();
    i.attempt_ended(&a);
    let mut r = json;
    r["kind"] = "reduce".into();
    r["riders"] = serde_json::json!([]);
    r["status"] = "failed".into();
    r["locality"] = "no_data".into();
    let a: Attempt = serde_json::from_value(r.clone()).unwrap();
    i.attempt_ended(&a);
    r["status"] = "running".into();
    i.attempt_ended(&serde_json::from_value(r).unwrap());
    let t = text(&i.clone());
    assert!(
        t.contains("a_total{kind=\"map\",locality=\"rack\",outcome=\"succeeded\"} 2"),
        "a shared scan counts per task: {t}"
    );
    assert!(
        t.contains("a_total{kind=\"reduce\",locality=\"none\",outcome=\"failed\"} 1"),
        "{t}"
    );
    assert!(
        t.contains("a_total{kind=\"map\",locality=\"node\",outcome=\"succeeded\"} 0"),
        "{t}"
    );
}
