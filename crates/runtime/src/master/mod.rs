//! The master process: an HTTP/JSON server in front of [`core::Core`].
//!
//! Two APIs share one listener. Workers (`/w/...`) authenticate with the
//! cluster secret; users (`/api/...`) with a bearer token from the users
//! file. Every handler locks the core, does its (short, synchronous) work and
//! answers; only block transfers of the block store (`dfs put` / `dfs cat`)
//! talk to workers, outside the lock.

pub mod core;
pub mod limits;
pub mod metrics;
pub mod probe;
mod ui;

use self::core::{ApiError, BlockMeta, Core, MasterSettings, SchedulerFactory, User};
use crate::journal::Journal;
use crate::proto::*;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Users and their tokens.
#[derive(Clone, Debug, Default)]
pub struct Users {
    by_token: BTreeMap<String, User>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct UsersFile {
    users: BTreeMap<String, UserEntry>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct UserEntry {
    token: String,
    #[serde(default)]
    admin: bool,
}

impl Users {
    /// Parse a users file:
    ///
    /// ```toml
    /// [users.alice]
    /// token = "a long random string"
    /// admin = true   # may kill anyone's jobs and remove anyone's files
    /// ```
    pub fn parse(src: &mrsched_model::Source) -> Result<Users, mrsched_model::InputErrors> {
        let f: UsersFile = src.parse()?;
        let mut errs = mrsched_model::InputErrors::new();
        let mut by_token = BTreeMap::new();
        for (name, e) in f.users {
            if e.token.len() < 16 {
                errs.push(src.error(
                    format!("users.{name}.token"),
                    "must be at least 16 characters",
                ));
            }
            if by_token.contains_key(&e.token) {
                errs.push(src.error(format!("users.{name}.token"), "is used by another user"));
            }
            by_token.insert(
                e.token,
                User {
                    name: name.clone(),
                    admin: e.admin,
                },
            );
        }
        errs.into_result(Users { by_token })
    }

    /// The user a token belongs to.
    pub fn find(&self, token: &str) -> Option<&User> {
        // Compare every token in full so timing says little about which
        // prefix matched.
        let mut found = None;
        for (t, u) in &self.by_token {
            if ct_eq(t.as_bytes(), token.as_bytes()) {
                found = Some(u);
            }
        }
        found
    }
}

/// Constant-time equality of two byte strings (length leaks).
pub fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A random token (hex), from the operating system's generator.
pub fn random_token() -> String {
    use rand::RngCore;
    let mut b = [0u8; 24];
    rand::rng().fill_bytes(&mut b);
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// How to run a master.
#[derive(Clone, Debug)]
pub struct MasterConfig {
    /// Work directory (journal, address file).
    pub dir: PathBuf,
    /// Address to listen on.
    pub listen: SocketAddr,
    /// Cluster secret workers must present.
    pub secret: String,
    /// API users.
    pub users: Users,
    /// Everything else.
    pub settings: MasterSettings,
    /// Who may scrape `GET /metrics`.
    pub metrics: metrics::ScrapeAuth,
    /// TLS of the API and of block transfers to workers (default: none).
    pub tls: crate::tls::TlsConfig,
}

struct Upload {
    user: User,
    name: String,
    replication: u32,
    blocks: Vec<BlockMeta>,
    usage: limits::UploadUse,
}

struct Shared {
    core: Mutex<Core>,
    secret: String,
    users: Users,
    client: reqwest::Client,
    uploads: Mutex<HashMap<u64, Upload>>,
    next_upload: AtomicU64,
    sessions: ui::Sessions,
    metrics: metrics::Endpoint,
    limits: limits::Limits,
}

type S = State<Arc<Shared>>;

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let code = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (
            code,
            Json(ErrorBody {
                error: self.message,
            }),
        )
            .into_response()
    }
}

fn lock(s: &Shared) -> std::sync::MutexGuard<'_, Core> {
    // A panic in a handler must not take the whole master down with a
    // poisoned lock: the state was left consistent by the state machine.
    s.core.lock().unwrap_or_else(|p| p.into_inner())
}

fn worker_auth(s: &Shared, h: &HeaderMap) -> Result<(), ApiError> {
    let got = h
        .get(SECRET_HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if ct_eq(got.as_bytes(), s.secret.as_bytes()) {
        Ok(())
    } else {
        Err(ApiError {
            status: 401,
            message: "wrong or missing cluster secret".into(),
        })
    }
}

fn user_auth(s: &Shared, h: &HeaderMap) -> Result<User, ApiError> {
    let token = h
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .ok_or(ApiError {
            status: 401,
            message: "missing token (set MRSCHED_TOKEN or pass --token)".into(),
        })?;
    s.users.find(token).cloned().ok_or(ApiError {
        status: 401,
        message: "unknown token (check MRSCHED_TOKEN or --token)".into(),
    })
}

type R<T> = Result<Json<T>, ApiError>;

async fn w_register(State(s): S, h: HeaderMap, Json(r): Json<Register>) -> R<Registered> {
    worker_auth(&s, &h)?;
    lock(&s).register(r).map(Json)
}

async fn w_heartbeat(State(s): S, h: HeaderMap, Json(hb): Json<Heartbeat>) -> R<HeartbeatReply> {
    worker_auth(&s, &h)?;
    let t0 = std::time::Instant::now();
    let r = lock(&s).heartbeat(hb).map(Json);
    s.metrics.instruments.heartbeat(t0.elapsed());
    r
}

async fn w_map_outputs(State(s): S, h: HeaderMap, Path(job): Path<u32>) -> R<MapOutputs> {
    worker_auth(&s, &h)?;
    lock(&s).map_outputs(job).map(Json)
}

async fn health(State(s): S) -> Json<Health> {
    Json(lock(&s).health())
}

#[derive(serde::Deserialize)]
struct SubmitQuery {
    label: Option<String>,
    json: Option<bool>,
}

/// The header of an idempotent submission (`core::idempotency`).
pub const IDEMPOTENCY_KEY: &str = "idempotency-key";

async fn submit(
    State(s): S,
    h: HeaderMap,
    Query(q): Query<SubmitQuery>,
    body: String,
) -> R<Submitted> {
    let u = user_auth(&s, &h)?;
    let label = q.label.unwrap_or_else(|| "job".into());
    if let Some(key) = h.get(IDEMPOTENCY_KEY) {
        let key = key
            .to_str()
            .map_err(|_| ApiError::bad("Idempotency-Key: must be visible ASCII characters"))?;
        return lock(&s)
            .submit_keyed(&u, &label, &body, q.json.unwrap_or(false), key)
            .map(Json);
    }
    lock(&s)
        .submit(&u, &label, &body, q.json.unwrap_or(false))
        .map(Json)
}

async fn submit_set(
    State(s): S,
    h: HeaderMap,
    Json(set): Json<crate::proto::JobSetRequest>,
) -> R<Vec<crate::proto::HeldJob>> {
    let u = user_auth(&s, &h)?;
    lock(&s).submit_set(&u, set).map(Json)
}

async fn jobs(State(s): S, h: HeaderMap) -> R<Vec<JobView>> {
    user_auth(&s, &h)?;
    lock(&s).jobs().map(Json)
}

async fn job(State(s): S, h: HeaderMap, Path(id): Path<u32>) -> R<JobView> {
    user_auth(&s, &h)?;
    lock(&s).job_view(id).map(Json)
}

async fn kill(State(s): S, h: HeaderMap, Path(id): Path<u32>) -> R<JobView> {
    let u = user_auth(&s, &h)?;
    lock(&s).kill(&u, id).map(Json)
}

async fn pools(State(s): S, h: HeaderMap) -> R<PoolsView> {
    user_auth(&s, &h)?;
    lock(&s).pools().map(Json)
}

async fn attempts(State(s): S, h: HeaderMap, Path(id): Path<u32>) -> R<Vec<AttemptView>> {
    user_auth(&s, &h)?;
    lock(&s).attempts(id).map(Json)
}

async fn pool_history(State(s): S, h: HeaderMap) -> R<PoolHistory> {
    user_auth(&s, &h)?;
    Ok(Json(lock(&s).pool_history()))
}

async fn workers(State(s): S, h: HeaderMap) -> R<Vec<WorkerView>> {
    user_auth(&s, &h)?;
    Ok(Json(lock(&s).workers()))
}

async fn report(State(s): S, h: HeaderMap) -> R<mrsched_metrics::Report> {
    user_auth(&s, &h)?;
    lock(&s).report().map(Json)
}

async fn dfs_replication(State(s): S, h: HeaderMap) -> R<ReplicationView> {
    user_auth(&s, &h)?;
    Ok(Json(lock(&s).replication_view()))
}

async fn dfs_ls(State(s): S, h: HeaderMap) -> R<Vec<FileView>> {
    user_auth(&s, &h)?;
    Ok(Json(lock(&s).files()))
}

async fn dfs_stat(State(s): S, h: HeaderMap, Path(name): Path<String>) -> R<FileView> {
    user_auth(&s, &h)?;
    lock(&s).file_view(&name).map(Json)
}

async fn dfs_rm(State(s): S, h: HeaderMap, Path(name): Path<String>) -> R<()> {
    let u = user_auth(&s, &h)?;
    lock(&s).remove_file(&u, &name).map(Json)
}

async fn dfs_create(State(s): S, h: HeaderMap, Json(c): Json<CreateFile>) -> R<u64> {
    let u = user_auth(&s, &h)?;
    lock(&s).check_new_file(&c.name)?;
    if let Some(b) = c.block_size {
        if b == 0 || b > s.limits.max_block_bytes {
            return Err(ApiError::bad(format!(
                "block size {b} is not between 1 and the master's limit of {} bytes (--max-block-bytes)",
                s.limits.max_block_bytes
            )));
        }
    }
    let id = s.next_upload.fetch_add(1, Ordering::Relaxed) + 1;
    s.uploads.lock().unwrap_or_else(|p| p.into_inner()).insert(
        id,
        Upload {
            user: u,
            name: c.name,
            replication: c.replication.clamp(1, 16),
            blocks: Vec::new(),
            usage: limits::UploadUse::new(s.limits.block_limit(c.block_size)),
        },
    );
    Ok(Json(id))
}

fn upload_of(s: &Shared, id: u64, u: &User) -> Result<(u32, String), ApiError> {
    let ups = s.uploads.lock().unwrap_or_else(|p| p.into_inner());
    match ups.get(&id) {
        Some(up) if up.user == *u => Ok((up.replication, up.name.clone())),
        _ => Err(ApiError::not_found(format!("no upload {id}"))),
    }
}

/// One block of an upload: store it on its replica holders. The upload
/// counts as busy meanwhile (the idle sweep leaves it alone).
async fn dfs_block(
    State(s): S,
    h: HeaderMap,
    Path(id): Path<u64>,
    body: axum::body::Body,
) -> R<u64> {
    let u = user_auth(&s, &h)?;
    upload_of(&s, id, &u)?;
    limits::upload_busy(&s, id, true);
    let declared = h
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok());
    let r = dfs_store_block(&s, id, &u, declared, body).await;
    limits::upload_busy(&s, id, false);
    r
}

async fn dfs_store_block(
    s: &Arc<Shared>,
    id: u64,
    u: &User,
    declared: Option<u64>,
    body: axum::body::Body,
) -> R<u64> {
    let (replication, _) = upload_of(s, id, u)?;
    // Counted against the file's limit from here (parallel blocks of one
    // upload cannot pass it together); given back if it is not stored.
    let body = limits::read_block(s, id, declared, body).await?;
    let r = dfs_put_replicas(s, id, replication, &body).await;
    if r.is_err() {
        limits::unreserve(s, id, body.len() as u64);
    }
    r
}

async fn dfs_put_replicas(s: &Arc<Shared>, id: u64, replication: u32, body: &Bytes) -> R<u64> {
    let (block, targets) = lock(s).new_block(replication)?;
    // The workers check what they receive against it and keep it.
    let crc = crate::blockstore::crc_hex(crate::blockstore::crc(body));
    // All replicas at once.
    let puts: Vec<_> = targets
        .into_iter()
        .map(|(node, url)| {
            let req = s
                .client
                .put(format!("{url}/blocks/{block}"))
                .header(SECRET_HEADER, &s.secret)
                .header(crate::blockstore::CRC_HEADER, &crc)
                .body(body.clone());
            (node, tokio::spawn(async move { req.send().await }))
        })
        .collect();
    let mut ok = Vec::new();
    let mut last_err = String::new();
    for (node, h) in puts {
        match h.await {
            Ok(Ok(r)) if r.status().is_success() => ok.push(node),
            Ok(Ok(r)) => last_err = format!("worker answered {}", r.status()),
            Ok(Err(e)) => last_err = crate::tls::error_chain(&e),
            Err(e) => last_err = e.to_string(),
        }
    }
    if ok.is_empty() {
        return Err(ApiError::unavailable(format!(
            "no worker could store block {block}: {last_err}"
        )));
    }
    let meta = BlockMeta {
        id: block,
        bytes: body.len() as u64,
        replicas: ok,
    };
    let mut ups = s.uploads.lock().unwrap_or_else(|p| p.into_inner());
    let Some(up) = ups.get_mut(&id) else {
        // Aborted meanwhile: the block is nobody's.
        drop(ups);
        lock(s).drop_blocks(&[meta]);
        return Err(ApiError::not_found(format!("no upload {id}")));
    };
    up.blocks.push(meta);
    Ok(Json(block))
}

async fn dfs_commit(State(s): S, h: HeaderMap, Path(id): Path<u64>) -> R<FileView> {
    let u = user_auth(&s, &h)?;
    upload_of(&s, id, &u)?;
    let up = s
        .uploads
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .remove(&id)
        .expect("checked");
    let mut core = lock(&s);
    if let Err(e) = core.commit_file_replicated(&u, &up.name, up.blocks.clone(), up.replication) {
        core.drop_blocks(&up.blocks);
        return Err(e);
    }
    core.file_view(&up.name).map(Json)
}

async fn dfs_abort(State(s): S, h: HeaderMap, Path(id): Path<u64>) -> R<()> {
    let u = user_auth(&s, &h)?;
    upload_of(&s, id, &u)?;
    if let Some(up) = s
        .uploads
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .remove(&id)
    {
        lock(&s).drop_blocks(&up.blocks);
    }
    Ok(Json(()))
}

/// A block's bytes from the first replica that gives them with a matching
/// checksum (a worker deletes and reports a replica that fails its check;
/// a transfer that arrives damaged is read again from the next replica).
async fn dfs_read_block(
    State(s): S,
    h: HeaderMap,
    Path(id): Path<u64>,
) -> Result<Response, ApiError> {
    user_auth(&s, &h)?;
    let sources = lock(&s).block_sources(id)?;
    let mut last = String::from("no replica on a live worker");
    for url in sources {
        match s
            .client
            .get(format!("{url}/blocks/{id}"))
            .header(SECRET_HEADER, &s.secret)
            .send()
            .await
        {
            Ok(r) if r.status().is_success() => {
                let sent = r
                    .headers()
                    .get(crate::blockstore::CRC_HEADER)
                    .and_then(|v| v.to_str().ok())
                    .and_then(crate::blockstore::parse_crc);
                match r.bytes().await {
                    Ok(b) => match crate::blockstore::check_received(&b, sent) {
                        Ok(()) => {
                            let c = crate::blockstore::crc_hex(crate::blockstore::crc(&b));
                            return Ok(([(crate::blockstore::CRC_HEADER, c)], b).into_response());
                        }
                        Err(e) => last = e,
                    },
                    Err(e) => last = e.to_string(),
                }
            }
            Ok(r) => last = format!("worker answered {}", r.status()),
            Err(e) => last = crate::tls::error_chain(&e),
        }
    }
    Err(ApiError::unavailable(format!(
        "no replica of block {id} could be read: {last}"
    )))
}

/// Build the master's router around an opened core. Each group of routes
/// has its own body limit ([`limits`]); every body has the idle timeout.
fn router(shared: Arc<Shared>) -> Router {
    let lim = shared.limits.clone();
    let worker_api = Router::new()
        .route("/w/register", post(w_register))
        .route("/w/heartbeat", post(w_heartbeat))
        .route("/w/map-outputs/{job}", get(w_map_outputs));
    let api = Router::new()
        .route("/api/health", get(health))
        .route("/api/jobs", post(submit).get(jobs))
        .route("/api/jobsets", post(submit_set))
        .route("/api/jobs/{id}", get(job))
        .route("/api/jobs/{id}/kill", post(kill))
        .route("/api/jobs/{id}/attempts", get(attempts))
        .route("/api/pools", get(pools))
        .route("/api/pools/history", get(pool_history))
        .route("/api/workers", get(workers))
        .route("/api/report", get(report))
        .route("/api/dfs/files", get(dfs_ls).post(dfs_create))
        .route("/api/dfs/files/{name}", get(dfs_stat).delete(dfs_rm))
        .route("/api/dfs/uploads/{id}/commit", post(dfs_commit))
        .route("/api/dfs/blocks/{id}", get(dfs_read_block))
        .route("/api/dfs/replication", get(dfs_replication))
        .merge(ui::routes())
        .route("/metrics", get(metrics::scrape));
    let uploads = Router::new().route("/api/dfs/uploads/{id}", post(dfs_block).delete(dfs_abort));
    let app = limits::body_limit(worker_api, lim.max_worker_request_bytes)
        .merge(limits::body_limit(api, lim.max_request_bytes))
        .merge(limits::body_limit(uploads, lim.max_block_bytes));
    limits::body_timeout(app, lim.body_timeout).with_state(shared)
}

/// Open the master's journal and core (replaying the journal); `factory`
/// replaces the configured scheduler when given.
pub fn open_core(cfg: &MasterConfig, factory: Option<SchedulerFactory>) -> Result<Core, String> {
    std::fs::create_dir_all(&cfg.dir)
        .map_err(|e| format!("cannot create {}: {e}", cfg.dir.display()))?;
    let journal = Journal::open(&cfg.dir.join("journal.redb")).map_err(|e| e.to_string())?;
    Core::open(journal, cfg.settings.clone(), factory).map_err(|e| e.message)
}

/// Run a master until `shutdown` resolves. Writes the URL it listens on
/// to `<dir>/addr`.
pub async fn run_master(
    cfg: MasterConfig,
    core: Core,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), String> {
    let listener = tokio::net::TcpListener::bind(cfg.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", cfg.listen))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let url = format!("{}://{addr}", cfg.tls.scheme());
    let client = cfg.tls.http_client(Duration::from_secs(120))?;
    let metrics = metrics::Endpoint {
        auth: cfg.metrics.clone(),
        instruments: core.b.metrics.clone(),
    };
    let shared = Arc::new(Shared {
        core: Mutex::new(core),
        secret: cfg.secret.clone(),
        users: cfg.users.clone(),
        client,
        uploads: Mutex::new(HashMap::new()),
        next_upload: AtomicU64::new(0),
        sessions: ui::Sessions::new(cfg.tls.identity.is_some()),
        metrics,
        limits: cfg.settings.limits.clone(),
    });
    let sweeper = limits::spawn_upload_sweeper(shared.clone());
    let ticker = {
        let s = shared.clone();
        tokio::spawn(async move {
            let mut iv = tokio::time::interval(Duration::from_millis(20));
            loop {
                iv.tick().await;
                let (probes, hb) = {
                    let mut c = lock(&s);
                    if let Err(e) = c.tick() {
                        eprintln!("mrsched master: {}", e.message);
                    }
                    (c.take_probes(), Duration::from_millis(c.heartbeat_ms()))
                };
                probe::spawn(&s, probes, hb.max(Duration::from_millis(500)));
            }
        })
    };
    let tmp = cfg.dir.join("addr.tmp");
    std::fs::write(&tmp, &url).map_err(|e| e.to_string())?;
    std::fs::rename(&tmp, cfg.dir.join("addr")).map_err(|e| e.to_string())?;
    eprintln!("mrsched master: listening on {url}");
    let app = router(shared.clone());
    let r = crate::tls::serve(listener, cfg.tls.identity.as_ref(), app, shutdown).await;
    ticker.abort();
    sweeper.abort();
    if let Err(e) = lock(&shared).sync() {
        eprintln!("mrsched master: {}", e.message);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use mrsched_model::{Format, Source};

    #[test]
    fn users_files_are_checked_and_tokens_found() {
        let src = Source::new(
            "users.toml",
            "[users.alice]\ntoken = \"aaaaaaaaaaaaaaaaaaaa\"\nadmin = true\n[users.bob]\ntoken = \"bbbbbbbbbbbbbbbbbbbb\"\n",
            Format::Toml,
        );
        let u = Users::parse(&src).unwrap();
        assert_eq!(
            u.find("aaaaaaaaaaaaaaaaaaaa"),
            Some(&User {
                name: "alice".into(),
                admin: true
            })
        );
        assert_eq!(u.find("bbbbbbbbbbbbbbbbbbbb").unwrap().name, "bob");
        assert!(u.find("bbbbbbbbbbbbbbbbbbb").is_none());
        assert!(u.find("").is_none());
        let src = Source::new(
            "users.toml",
            "[users.x]\ntoken = \"short\"\n[users.y]\ntoken = \"short\"\n",
            Format::Toml,
        );
        let e = Users::parse(&src).unwrap_err().to_string();
        assert!(
            e.contains("users.toml:2: users.x.token: must be at least 16"),
            "{e}"
        );
        assert!(e.contains("users.y.token: is used by another user"), "{e}");
        let src = Source::new("users.toml", "[users.x]\ntokn = \"x\"\n", Format::Toml);
        assert!(Users::parse(&src).unwrap_err().to_string().contains("tokn"));
    }

    #[test]
    fn secrets_compare_in_full() {
        assert!(ct_eq(b"abc", b"abc"));
        assert!(!ct_eq(b"abc", b"abd"));
        assert!(!ct_eq(b"abc", b"ab"));
        let t = random_token();
        assert_eq!(t.len(), 48);
        assert_ne!(t, random_token());
    }
}
