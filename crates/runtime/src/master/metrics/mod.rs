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
//! registers both in a fresh registry and encodes it (`render.rs`).
//!
//! The route needs a token unless the master was started with
//! `--metrics-unauthenticated` (see [`ScrapeAuth`]).

use super::core::ApiError;
use super::{ct_eq, lock, Shared, Users};
use axum::extract::State;
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use mrsched_model::{Locality, TaskKind};
use mrsched_state::{Attempt, AttemptStatus};
use prometheus_client::encoding::prometheus_text;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use std::sync::Arc;
use std::time::{Duration, Instant};

mod render;
pub use render::render;

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

#[cfg(test)]
mod tests;
