//! `GET /metrics`: the live master in the Prometheus text exposition format
//! (version 0.0.4), built with `prometheus-client`.
//!
//! Most of what an operator graphs (jobs by status, pools' running work and
//! shares, workers) is already kept by the cluster state and the scheduler,
//! so it is read from them at scrape time, under the core's lock: the same
//! numbers as `/api/jobs`, `/api/pools` and `/api/report`, with nothing to
//! keep in step. What the state does not keep (ended attempts by kind,
//! locality and outcome; latencies) is counted as it happens by
//! [`Instruments`], a few metric handles held by the core's bookkeeping
//! (clones share their values, so the HTTP layer holds one too). Each scrape
//! registers both in a fresh registry and encodes it.
//!
//! The route needs a token unless the master was started with
//! `--metrics-unauthenticated` (see [`ScrapeAuth`]).

use super::core::{ApiError, Core};
use super::{ct_eq, lock, Shared, Users};
use axum::extract::State;
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use mrsched_model::{Locality, NodeId, TaskKind};
use mrsched_state::{Attempt, AttemptStatus, JobStatus};
use prometheus_client::encoding::prometheus_text;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Who may scrape `GET /metrics`.
///
/// A request is let in when it carries `Authorization: Bearer TOKEN` with
/// the scrape token or an admin user's token, or when `unauthenticated` is
/// set. Without either setting only admin users' tokens work.
#[derive(Clone, Debug, Default)]
pub struct ScrapeAuth {
    /// The dedicated scrape token (`--metrics-token-file`).
    pub token: Option<String>,
    /// Serve without a token (`--metrics-unauthenticated`: a trusted scrape
    /// network only).
    pub unauthenticated: bool,
}

impl ScrapeAuth {
    /// Let in a request with `headers`, or say why not (401 without a
    /// known token, 403 for a user who is not an admin).
    pub fn check(&self, users: &Users, headers: &HeaderMap) -> Result<(), ApiError> {
        if self.unauthenticated {
            return Ok(());
        }
        let unauthorized = |m: &str| ApiError {
            status: 401,
            message: m.to_string(),
        };
        let token = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .ok_or_else(|| {
                unauthorized(
                    "missing token: send `Authorization: Bearer TOKEN` with the scrape token (--metrics-token-file) or an admin user's token",
                )
            })?;
        // Both checks run whatever the first one says, so timing tells
        // little about which kind of token was sent.
        let scrape = self
            .token
            .as_deref()
            .is_some_and(|t| ct_eq(t.as_bytes(), token.as_bytes()));
        let user = users.find(token);
        match user {
            _ if scrape => Ok(()),
            Some(u) if u.admin => Ok(()),
            Some(u) => Err(ApiError::forbidden(format!(
                "user `{}` is not an admin: scrape with the scrape token (--metrics-token-file)",
                u.name
            ))),
            None => Err(unauthorized(
                "unknown token: use the scrape token (--metrics-token-file) or an admin user's token",
            )),
        }
    }
}

/// Labels of ended task attempts: kind, locality, outcome.
type AttemptLabels = [(&'static str, &'static str); 3];
/// Labels of journal commits: durability.
type CommitLabels = [(&'static str, &'static str); 1];

/// Latency buckets, seconds: 1 us to about 4 s, doubling.
fn latency() -> Histogram {
    Histogram::new(exponential_buckets(1e-6, 2.0, 23))
}

/// What the master counts and times as it works; cheap to clone (clones
/// share their values).
#[derive(Clone, Debug)]
pub struct Instruments {
    started: Instant,
    heartbeat: Histogram,
    schedule: Histogram,
    assign: Histogram,
    commits: Family<CommitLabels, Histogram, fn() -> Histogram>,
    attempts: Family<AttemptLabels, Counter>,
}

impl Default for Instruments {
    fn default() -> Self {
        Self::new()
    }
}

const OUTCOMES: [&str; 4] = ["succeeded", "failed", "killed", "lost"];

impl Instruments {
    /// Start counting (uptime counts from now). Every ended-attempt series
    /// a real job can produce starts at zero, so dashboards see them before
    /// the first attempt ends.
    pub fn new() -> Instruments {
        let i = Instruments {
            started: Instant::now(),
            heartbeat: latency(),
            schedule: latency(),
            assign: latency(),
            commits: Family::new_with_constructor(latency),
            attempts: Family::default(),
        };
        for outcome in OUTCOMES {
            for locality in ["node", "rack", "off_rack"] {
                drop(i.attempts.get_or_create(&[
                    ("kind", "map"),
                    ("locality", locality),
                    ("outcome", outcome),
                ]));
            }
            drop(i.attempts.get_or_create(&[
                ("kind", "reduce"),
                ("locality", "none"),
                ("outcome", outcome),
            ]));
        }
        i
    }

    /// A worker's heartbeat took `d` to handle, waiting for the core
    /// included.
    pub fn heartbeat(&self, d: Duration) {
        self.heartbeat.observe(d.as_secs_f64());
    }

    /// The scheduling part of a heartbeat (`on_heartbeat`, every `assign`
    /// and launch) took `ns`.
    pub fn schedule(&self, ns: u64) {
        self.schedule.observe(ns as f64 * 1e-9);
    }

    /// One `assign` call took `ns`.
    pub fn assign(&self, ns: u64) {
        self.assign.observe(ns as f64 * 1e-9);
    }

    /// A journal transaction took `d` (`durable`: waited for the disk).
    pub fn journal_commit(&self, durable: bool, d: Duration) {
        let label = if durable { "durable" } else { "lazy" };
        self.commits
            .get_or_create(&[("durability", label)])
            .observe(d.as_secs_f64());
    }

    /// An attempt ended. A shared scan's attempt counts once per task it
    /// ran, as the jobs' own counts do.
    pub fn attempt_ended(&self, a: &Attempt) {
        let outcome = match a.status {
            AttemptStatus::Running => return,
            AttemptStatus::Succeeded => "succeeded",
            AttemptStatus::Failed => "failed",
            AttemptStatus::Killed => "killed",
            AttemptStatus::Lost => "lost",
        };
        let (kind, locality) = match a.kind {
            TaskKind::Reduce => ("reduce", "none"),
            TaskKind::Map => (
                "map",
                match a.locality {
                    Locality::Node => "node",
                    Locality::Rack => "rack",
                    Locality::OffRack => "off_rack",
                    Locality::NoData => "none",
                },
            ),
        };
        self.attempts
            .get_or_create(&[("kind", kind), ("locality", locality), ("outcome", outcome)])
            .inc_by(a.tasks().count() as u64);
    }
}

/// The route's state in the master: who may scrape, and the instruments
/// the HTTP layer itself feeds (heartbeat handling time).
#[derive(Clone, Debug)]
pub(super) struct Endpoint {
    pub auth: ScrapeAuth,
    pub instruments: Instruments,
}

/// `GET /metrics`.
pub(super) async fn scrape(State(s): State<Arc<Shared>>, h: HeaderMap) -> Response {
    if let Err(e) = s.metrics.auth.check(&s.users, &h) {
        return e.into_response();
    }
    let text = render(&lock(&s));
    match text {
        Ok(t) => ([(header::CONTENT_TYPE, prometheus_text::CONTENT_TYPE)], t).into_response(),
        Err(_) => ApiError::internal("cannot encode the metrics").into_response(),
    }
}

fn gauge(v: i64) -> Gauge {
    let g = Gauge::default();
    g.set(v);
    g
}

fn gauge_f(v: f64) -> Gauge<f64, AtomicU64> {
    let g = Gauge::<f64, AtomicU64>::default();
    g.set(v);
    g
}

fn counter(v: u64) -> Counter {
    let c = Counter::default();
    c.inc_by(v);
    c
}

type Labels = Vec<(&'static str, String)>;

/// Encode the master's metrics (names in `docs/live.md`, Metrics).
pub fn render(core: &Core) -> Result<String, std::fmt::Error> {
    let ins = &core.b.metrics;
    let mut r = Registry::with_prefix("mrsched");
    r.register(
        "master_uptime_seconds",
        "Seconds since this master process started",
        gauge_f(ins.started.elapsed().as_secs_f64()),
    );

    // Workers.
    let health = core.health();
    let (alive, lost, total) = match &core.formed {
        Some(f) => {
            let n = core.b.nodes.len();
            let lost = (0..n)
                .filter(|&i| !f.st.node(NodeId(i as u32)).alive)
                .count();
            (health.workers as usize, lost, n)
        }
        None => (
            health.workers as usize,
            0,
            (health.expected as usize).max(health.workers as usize),
        ),
    };
    let workers = Family::<Labels, Gauge>::default();
    for (state, v) in [
        ("alive", alive),
        ("lost", lost),
        ("unregistered", total.saturating_sub(alive + lost)),
    ] {
        workers
            .get_or_create(&vec![("state", state.to_string())])
            .set(v as i64);
    }
    r.register(
        "workers",
        "Workers of the cluster by state: alive (registered and heartbeating), lost (declared lost), unregistered (not registered since this master started)",
        workers,
    );
    r.register(
        "workers_expected",
        "Workers the cluster forms with (--workers)",
        gauge(health.expected as i64),
    );

    // Jobs.
    let mut by_status = [0u64; 6];
    let statuses = [
        ("submitted", JobStatus::Submitted),
        ("running", JobStatus::Running),
        ("succeeded", JobStatus::Succeeded),
        ("failed", JobStatus::Failed),
        ("killed", JobStatus::Killed),
        ("rejected", JobStatus::Rejected),
    ];
    let mut submitted = 0u64;
    if let Some(f) = &core.formed {
        for j in f.st.jobs() {
            submitted += 1;
            if let Some(k) = statuses.iter().position(|(_, s)| *s == j.status) {
                by_status[k] += 1;
            }
        }
    }
    let jobs = Family::<Labels, Gauge>::default();
    let finished = Family::<Labels, Counter>::default();
    for (k, (name, status)) in statuses.iter().enumerate() {
        let l = vec![("status", name.to_string())];
        jobs.get_or_create(&l).set(by_status[k] as i64);
        if !matches!(status, JobStatus::Submitted | JobStatus::Running) {
            finished.get_or_create(&l).inc_by(by_status[k]);
        }
    }
    r.register(
        "jobs",
        "Jobs by current status (submitted: awaiting admission)",
        jobs,
    );
    r.register(
        "jobs_submitted",
        "Jobs submitted since the cluster was first started (journal included)",
        counter(submitted),
    );
    r.register(
        "jobs_finished",
        "Jobs that reached a final status: succeeded, failed, killed or rejected",
        finished,
    );

    // Ended attempts and latencies.
    r.register(
        "task_attempts",
        "Ended task attempts by kind (map, reduce), locality of a map's read (node, rack, off_rack; none for reduces) and outcome (succeeded, failed, killed, lost); a shared scan counts once per task",
        ins.attempts.clone(),
    );
    r.register(
        "heartbeat_duration_seconds",
        "Time the master spent on a worker heartbeat request, waiting for the core included",
        ins.heartbeat.clone(),
    );
    r.register(
        "schedule_heartbeat_duration_seconds",
        "Scheduling time of a heartbeat: the scheduler's on_heartbeat, every assign call and applying its launches",
        ins.schedule.clone(),
    );
    r.register(
        "schedule_assign_duration_seconds",
        "Time of one assign call of the scheduler",
        ins.assign.clone(),
    );
    r.register(
        "journal_commit_duration_seconds",
        "Time of a journal transaction by durability (durable: waited for the disk; lazy: synced later)",
        ins.commits.clone(),
    );

    // Pools, as `GET /api/pools` shows them.
    if let (Some(f), Ok(view)) = (&core.formed, core.pools()) {
        let shares = f.sched.pool_shares();
        let reduce_share = |name: &str| shares.iter().find(|p| p.name == name);
        let pool_jobs = Family::<Labels, Gauge>::default();
        let running = Family::<Labels, Gauge>::default();
        let pending = Family::<Labels, Gauge>::default();
        let weight = Family::<Labels, Gauge<f64, AtomicU64>>::default();
        let demand = Family::<Labels, Gauge<f64, AtomicU64>>::default();
        let fair = Family::<Labels, Gauge<f64, AtomicU64>>::default();
        let min = Family::<Labels, Gauge<f64, AtomicU64>>::default();
        for p in &view.pools {
            let pool = || ("pool", p.name.clone());
            let map = vec![pool(), ("kind", "map".to_string())];
            let red = vec![pool(), ("kind", "reduce".to_string())];
            let rs = reduce_share(&p.name);
            pool_jobs.get_or_create(&vec![pool()]).set(p.jobs as i64);
            weight.get_or_create(&vec![pool()]).set(p.weight);
            running.get_or_create(&map).set(p.running_maps as i64);
            running.get_or_create(&red).set(p.running_reduces as i64);
            pending.get_or_create(&map).set(p.pending_maps as i64);
            pending.get_or_create(&red).set(p.pending_reduces as i64);
            demand.get_or_create(&map).set(p.demand);
            demand
                .get_or_create(&red)
                .set(rs.map_or(0.0, |s| s.demand[1]));
            fair.get_or_create(&map).set(p.fair_share);
            fair.get_or_create(&red)
                .set(rs.map_or(0.0, |s| s.fair_share[1]));
            min.get_or_create(&map).set(p.min_share);
            min.get_or_create(&red)
                .set(rs.map_or(0.0, |s| s.min_share[1]));
        }
        r.register("pool_jobs", "Running jobs of a pool", pool_jobs);
        r.register(
            "pool_running_tasks",
            "Running attempts of a pool's jobs by kind",
            running,
        );
        r.register(
            "pool_pending_tasks",
            "Pending tasks of a pool's jobs by kind",
            pending,
        );
        r.register(
            "pool_demand_slots",
            "A pool's demand at the scheduler's last share update, slots by kind (policies with pools; 0 otherwise)",
            demand,
        );
        r.register(
            "pool_fair_share_slots",
            "A pool's fair share at the scheduler's last share update, slots by kind (policies with pools; 0 otherwise)",
            fair,
        );
        r.register(
            "pool_min_share_slots",
            "A pool's minimum share, slots by kind (policies with pools; 0 otherwise)",
            min,
        );
        r.register(
            "pool_weight",
            "A pool's weight (policies with pools; 1 otherwise)",
            weight,
        );
    }
    let mut out = String::new();
    prometheus_text::encode(&mut out, &r)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;
    use mrsched_model::{Format, Source};

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
        let settings = crate::master::core::MasterSettings {
            workers: 2,
            scheduler: mrsched_sched::SchedulerConfig::resolve("fair").unwrap(),
            heartbeat: Duration::from_millis(100),
            worker_timeout: Duration::from_secs(60),
            replication: 2,
            sort_buffer: 1 << 20,
            max_attempts: 4,
            reduce_slowstart: 1.0,
            seed: 3,
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
        use crate::proto::{Heartbeat, ReadFrom, Register, Report};
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
                .register(Register {
                    name: name.into(),
                    rack: "r".into(),
                    map_slots: 2,
                    reduce_slots: 1,
                    addr: format!("http://{name}"),
                    outputs: Vec::new(),
                    blocks: Vec::new(),
                })
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
}
