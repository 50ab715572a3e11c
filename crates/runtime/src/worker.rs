//! The worker process: heartbeats, runs attempts, stores blocks, serves map
//! output partitions for the shuffle.
//!
//! Work directory layout:
//!
//! ```text
//! name                          the worker's stable name
//! blocks/<id>                   block replicas (input and job output)
//! blocks/<id>.crc               its CRC-32C (`blockstore`)
//! outputs/<job>/<attempt>/<p>   a map attempt's sorted partition p
//! outputs/<job>/<attempt>/<p>.crc  its CRC-32C
//! reduce/<attempt>/             a reducer's fetched runs while it works
//! ```
//!
//! A map attempt reads its block from its own disk when it holds a replica
//! and otherwise fetches it from a replica holder, runs the map function of
//! every job it serves over that one copy (a shared scan runs several jobs'
//! maps, seed 000 Appendix C), and writes each job's output partitioned and
//! sorted. A reduce attempt fetches its partition of every finished map
//! (asking the master where they are until all are there), reports the end
//! of its copy phase, waits for the master to admit its compute phase
//! (copy-compute splitting), merges, reduces, and writes its output block
//! here and on the replica holders the master chose.
//!
//! Every block and partition read is checked against its checksum
//! (`blockstore`): a corrupt local replica is deleted and reported to the
//! master (which re-replicates the block) and the block is read from
//! another holder; a corrupt partition is answered as an error, which the
//! reducer reports as a fetch failure (the map runs again). The master's
//! re-replication commands (`copies` in the heartbeat reply) are copies of
//! a block from another worker's data server into this one's store.

use crate::blockstore::{self, BlockStore, ReadError, CRC_HEADER};
use crate::proto::*;
use crate::sortio::{reduce_runs, Groups, MapOutputWriter, Merger, RunReader};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;

/// How to run a worker.
#[derive(Clone, Debug)]
pub struct WorkerConfig {
    /// The master's URL.
    pub master: String,
    /// Work directory.
    pub dir: PathBuf,
    /// Name (default: kept in `<dir>/name`, generated the first time).
    pub name: Option<String>,
    /// Rack.
    pub rack: String,
    /// Map slots.
    pub map_slots: u32,
    /// Reduce slots.
    pub reduce_slots: u32,
    /// Address of the data server.
    pub listen: SocketAddr,
    /// Host name other machines reach this worker by (default: the listen
    /// address).
    pub advertise: Option<String>,
    /// Cluster secret.
    pub secret: String,
    /// TLS of the data server and of connections to the master and other
    /// workers (default: none).
    pub tls: crate::tls::TlsConfig,
}

struct Ctl {
    cancel: Arc<AtomicBool>,
    compute: Arc<(AtomicBool, Notify)>,
}

struct W {
    cfg: WorkerConfig,
    client: reqwest::Client,
    addr: String,
    name: String,
    reg: Mutex<Option<(u32, u64)>>,
    attempts: Mutex<HashMap<String, Ctl>>,
    reports: Mutex<Vec<Report>>,
    wake: Notify,
    /// Why the worker must stop (the master refused it for good).
    fatal: Mutex<Option<String>>,
}

fn lk<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl W {
    fn blocks(&self) -> PathBuf {
        self.cfg.dir.join("blocks")
    }
    fn outputs(&self) -> PathBuf {
        self.cfg.dir.join("outputs")
    }
    fn store(&self) -> BlockStore {
        BlockStore::new(self.blocks())
    }
    fn report(&self, r: Report) {
        lk(&self.reports).push(r);
        self.wake.notify_one();
    }
}

fn auth(w: &W, h: &HeaderMap) -> Result<(), StatusCode> {
    let got = h
        .get(SECRET_HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if crate::master::ct_eq(got.as_bytes(), w.cfg.secret.as_bytes()) {
        Ok(())
    } else {
        Err(StatusCode::UNAUTHORIZED)
    }
}

/// Read a local replica, checked. A corrupt one is deleted and reported
/// to the master, and reads as missing.
async fn read_block(w: &Arc<W>, id: u64) -> Result<(Vec<u8>, u32), ReadError> {
    let store = w.store();
    let r = tokio::task::spawn_blocking(move || store.get(id))
        .await
        .unwrap_or_else(|e| Err(ReadError::Io(std::io::Error::other(e.to_string()))));
    if let Err(ReadError::Corrupt { stored, actual }) = &r {
        eprintln!(
            "mrsched worker {}: block {id} failed its checksum (stored {stored:08x}, read {actual:08x}); deleted",
            w.name
        );
        w.store().remove(id);
        w.report(Report::BlockCorrupt { block: id });
    }
    r
}

/// Body and checksum header of a block or partition answer.
fn checked_body(data: Vec<u8>, c: u32) -> Response {
    ([(CRC_HEADER, blockstore::crc_hex(c))], Bytes::from(data)).into_response()
}

/// The checksum a request or answer carries, if any.
fn header_crc(h: &HeaderMap) -> Option<u32> {
    h.get(CRC_HEADER)
        .and_then(|v| v.to_str().ok())
        .and_then(blockstore::parse_crc)
}

async fn get_block(
    State(w): State<Arc<W>>,
    h: HeaderMap,
    Path(id): Path<u64>,
) -> Result<Response, StatusCode> {
    auth(&w, &h)?;
    match read_block(&w, id).await {
        Ok((d, c)) => Ok(checked_body(d, c)),
        // 410: it was here but failed its checksum (and is gone now).
        Err(ReadError::Corrupt { .. }) => Err(StatusCode::GONE),
        Err(_) => Err(StatusCode::NOT_FOUND),
    }
}

async fn put_block(
    State(w): State<Arc<W>>,
    h: HeaderMap,
    Path(id): Path<u64>,
    body: Bytes,
) -> Result<(), StatusCode> {
    auth(&w, &h)?;
    if blockstore::check_received(&body, header_crc(&h)).is_err() {
        return Err(StatusCode::BAD_REQUEST);
    }
    let store = w.store();
    tokio::task::spawn_blocking(move || store.put(id, &body))
        .await
        .map_err(|_| StatusCode::INTERNAL_SERVER_ERROR)?
        .map(|_| ())
        .map_err(|_| StatusCode::INSUFFICIENT_STORAGE)
}

async fn get_partition(
    State(w): State<Arc<W>>,
    h: HeaderMap,
    Path((job, key, part)): Path<(u32, String, u32)>,
) -> Result<Response, StatusCode> {
    auth(&w, &h)?;
    if key.contains('/') || key.contains("..") {
        return Err(StatusCode::BAD_REQUEST);
    }
    let p = w
        .outputs()
        .join(job.to_string())
        .join(&key)
        .join(part.to_string());
    match tokio::task::spawn_blocking(move || blockstore::read_verified(&p)).await {
        Ok(Ok((d, c))) => Ok(checked_body(d, c)),
        Ok(Err(ReadError::Corrupt { stored, actual })) => {
            // The reducer reports a fetch failure and the map runs again.
            eprintln!(
                "mrsched worker {}: partition {part} of {key} (job {job}) failed its checksum (stored {stored:08x}, read {actual:08x})",
                w.name
            );
            Err(StatusCode::GONE)
        }
        _ => Err(StatusCode::NOT_FOUND),
    }
}

/// Load or create the worker's name.
fn worker_name(cfg: &WorkerConfig) -> Result<String, String> {
    let path = cfg.dir.join("name");
    if let Some(n) = &cfg.name {
        std::fs::write(&path, n).map_err(|e| e.to_string())?;
        return Ok(n.clone());
    }
    if let Ok(n) = std::fs::read_to_string(&path) {
        if !n.trim().is_empty() {
            return Ok(n.trim().to_string());
        }
    }
    let n = format!("worker-{}", &crate::master::random_token()[..8]);
    std::fs::write(&path, &n).map_err(|e| e.to_string())?;
    Ok(n)
}

/// Run a worker until `shutdown` resolves.
pub async fn run_worker(
    cfg: WorkerConfig,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), String> {
    for d in ["blocks", "outputs", "reduce"] {
        std::fs::create_dir_all(cfg.dir.join(d))
            .map_err(|e| format!("cannot create {}: {e}", cfg.dir.join(d).display()))?;
    }
    // Half-done work of a previous run is useless.
    let _ = std::fs::remove_dir_all(cfg.dir.join("reduce"));
    std::fs::create_dir_all(cfg.dir.join("reduce")).map_err(|e| e.to_string())?;
    let name = worker_name(&cfg)?;
    let listener = tokio::net::TcpListener::bind(cfg.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", cfg.listen))?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    let host = cfg
        .advertise
        .clone()
        .unwrap_or_else(|| local.ip().to_string());
    let addr = format!("{}://{host}:{}", cfg.tls.scheme(), local.port());
    let client = cfg.tls.http_client(Duration::from_secs(300))?;
    let identity = cfg.tls.identity.clone();
    let w = Arc::new(W {
        cfg,
        client,
        addr,
        name,
        reg: Mutex::new(None),
        attempts: Mutex::new(HashMap::new()),
        reports: Mutex::new(Vec::new()),
        wake: Notify::new(),
        fatal: Mutex::new(None),
    });
    let app = Router::new()
        .route("/blocks/{id}", get(get_block).put(put_block))
        .route("/shuffle/{job}/{key}/{part}", get(get_partition))
        .route("/health", get(|| async { "ok" }));
    let app = crate::master::limits::worker_bounds(app).with_state(w.clone());
    eprintln!("mrsched worker {}: data server on {}", w.name, w.addr);
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let beats = tokio::spawn(heartbeat_loop(w.clone(), stop_tx));
    let stop_beats = beats.abort_handle();
    let stop = async move {
        tokio::select! {
            _ = shutdown => {}
            _ = stop_rx => {}
        }
        // A stopping worker takes no more work, even while its data
        // server finishes the transfers under way.
        stop_beats.abort();
    };
    let r = crate::tls::serve(listener, identity.as_ref(), app, stop).await;
    beats.abort();
    if let Some(e) = lk(&w.fatal).take() {
        return Err(e);
    }
    for c in lk(&w.attempts).values() {
        c.cancel.store(true, Ordering::Relaxed);
    }
    r
}

fn inventory(w: &W) -> (Vec<(u32, String)>, Vec<u64>) {
    let mut outs = Vec::new();
    if let Ok(jobs) = std::fs::read_dir(w.outputs()) {
        for j in jobs.flatten() {
            let Some(job) = j.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
                continue;
            };
            if let Ok(keys) = std::fs::read_dir(j.path()) {
                for k in keys.flatten() {
                    if let Some(k) = k.file_name().to_str() {
                        if !k.ends_with(".tmp") {
                            outs.push((job, k.to_string()));
                        }
                    }
                }
            }
        }
    }
    let mut blocks = Vec::new();
    if let Ok(bs) = std::fs::read_dir(w.blocks()) {
        for b in bs.flatten() {
            if let Some(id) = b.file_name().to_str().and_then(|s| s.parse().ok()) {
                blocks.push(id);
            }
        }
    }
    (outs, blocks)
}

/// Registration failed: `permanent` when the master refused this worker
/// (wrong secret, unknown to a formed cluster, bad settings), so retrying
/// cannot help.
struct RegisterError {
    permanent: bool,
    message: String,
}

async fn register(w: &Arc<W>) -> Result<Registered, RegisterError> {
    let (outputs, blocks) = inventory(w);
    let reg = Register {
        name: w.name.clone(),
        rack: w.cfg.rack.clone(),
        map_slots: w.cfg.map_slots,
        reduce_slots: w.cfg.reduce_slots,
        addr: w.addr.clone(),
        outputs,
        blocks,
    };
    let r = w
        .client
        .post(format!("{}/w/register", w.cfg.master))
        .header(SECRET_HEADER, &w.cfg.secret)
        .json(&reg)
        .send()
        .await
        .map_err(|e| RegisterError {
            permanent: false,
            message: format!(
                "cannot reach the master at {}: {}",
                w.cfg.master,
                crate::tls::error_chain(&e)
            ),
        })?;
    if !r.status().is_success() {
        let status = r.status();
        let body = r.text().await.unwrap_or_default();
        let body = serde_json::from_str::<ErrorBody>(&body)
            .map(|b| b.error)
            .unwrap_or(body);
        return Err(RegisterError {
            permanent: status.is_client_error(),
            message: format!("the master refused registration ({status}): {body}"),
        });
    }
    r.json().await.map_err(|e| RegisterError {
        permanent: false,
        message: e.to_string(),
    })
}

async fn heartbeat_loop(w: Arc<W>, stop: tokio::sync::oneshot::Sender<()>) {
    let mut interval = Duration::from_millis(500);
    let mut complained = false;
    loop {
        let reg = *lk(&w.reg);
        let Some((node, session)) = reg else {
            match register(&w).await {
                Ok(r) => {
                    interval = Duration::from_millis(r.heartbeat_ms.max(1));
                    *lk(&w.reg) = Some((r.node, r.session));
                    // A new session: whatever ran before is unknown to the
                    // master now.
                    for c in lk(&w.attempts).drain() {
                        c.1.cancel.store(true, Ordering::Relaxed);
                    }
                    lk(&w.reports).clear();
                    eprintln!("mrsched worker {}: registered as node {}", w.name, r.node);
                    complained = false;
                }
                Err(e) if e.permanent => {
                    *lk(&w.fatal) = Some(e.message);
                    let _ = stop.send(());
                    return;
                }
                Err(e) => {
                    if !complained {
                        eprintln!("mrsched worker {}: {}; retrying", w.name, e.message);
                        complained = true;
                    }
                    tokio::time::sleep(Duration::from_millis(300)).await;
                }
            }
            continue;
        };
        let reports = std::mem::take(&mut *lk(&w.reports));
        let hb = Heartbeat {
            node,
            session,
            reports: reports.clone(),
        };
        let sent = w
            .client
            .post(format!("{}/w/heartbeat", w.cfg.master))
            .header(SECRET_HEADER, &w.cfg.secret)
            .json(&hb)
            .send()
            .await;
        let reply: HeartbeatReply = match sent {
            Ok(r) if r.status().is_success() => match r.json().await {
                Ok(x) => x,
                Err(_) => {
                    requeue(&w, reports);
                    tokio::time::sleep(interval).await;
                    continue;
                }
            },
            _ => {
                // The master is away (restarting?): keep the reports.
                requeue(&w, reports);
                tokio::time::sleep(interval).await;
                continue;
            }
        };
        if reply.reregister {
            *lk(&w.reg) = None;
            continue;
        }
        handle_reply(&w, reply);
        tokio::select! {
            _ = tokio::time::sleep(interval) => {}
            _ = w.wake.notified() => {}
        }
    }
}

fn requeue(w: &W, mut reports: Vec<Report>) {
    let mut r = lk(&w.reports);
    reports.append(&mut r);
    *r = reports;
}

fn handle_reply(w: &Arc<W>, reply: HeartbeatReply) {
    {
        let mut at = lk(&w.attempts);
        for k in &reply.kills {
            if let Some(c) = at.remove(k) {
                c.cancel.store(true, Ordering::Relaxed);
            }
        }
    }
    if !reply.delete_jobs.is_empty() || !reply.delete_blocks.is_empty() {
        let (outs, blocks) = (w.outputs(), w.blocks());
        let (jobs, bl) = (reply.delete_jobs, reply.delete_blocks);
        tokio::task::spawn_blocking(move || {
            for j in jobs {
                let _ = std::fs::remove_dir_all(outs.join(j.to_string()));
            }
            for b in bl {
                blockstore::remove(&blocks.join(b.to_string()));
            }
        });
    }
    for c in reply.copies {
        let w = w.clone();
        tokio::spawn(async move {
            let r = copy_block(&w, &c).await;
            w.report(match r {
                Ok(bytes) => Report::BlockCopied {
                    block: c.block,
                    bytes,
                },
                Err(error) => Report::BlockCopyFailed {
                    block: c.block,
                    error,
                },
            });
        });
    }
    for l in reply.launches {
        let ctl = Ctl {
            cancel: Arc::new(AtomicBool::new(false)),
            compute: Arc::new((AtomicBool::new(false), Notify::new())),
        };
        let (cancel, compute) = (ctl.cancel.clone(), ctl.compute.clone());
        lk(&w.attempts).insert(l.key.clone(), ctl);
        let w = w.clone();
        tokio::spawn(async move {
            let key = l.key.clone();
            let r = if l.reduce.is_some() {
                run_reduce(&w, l, cancel.clone(), compute).await
            } else {
                run_map(&w, l, cancel.clone()).await
            };
            lk(&w.attempts).remove(&key);
            // A killed map that had already stored map-only blocks still
            // reports them: the master then deletes every copy, after the
            // copies were made.
            let stored = matches!(&r, Ok(Report::MapDone { blocks, .. }) if !blocks.is_empty());
            if !cancel.load(Ordering::Relaxed) || stored {
                w.report(match r {
                    Ok(r) => r,
                    Err(error) => Report::Failed { key, error },
                });
            }
        });
    }
    // After the launches: a reduce with an explicit time (MSJO) is admitted
    // to compute in the same reply that launches it.
    let at = lk(&w.attempts);
    for k in &reply.computes {
        if let Some(c) = at.get(k) {
            c.compute.0.store(true, Ordering::Relaxed);
            c.compute.1.notify_one();
        }
    }
}

/// GET a block or partition from another worker, checking the bytes
/// against the checksum it sends.
async fn fetch(w: &W, url: &str) -> Result<Bytes, String> {
    let r = w
        .client
        .get(url)
        .header(SECRET_HEADER, &w.cfg.secret)
        .send()
        .await
        .map_err(|e| e.to_string())?;
    if !r.status().is_success() {
        return Err(format!("{url}: {}", r.status()));
    }
    let sent = header_crc(r.headers());
    let b = r.bytes().await.map_err(|e| e.to_string())?;
    blockstore::check_received(&b, sent).map_err(|e| format!("{url}: {e}"))?;
    Ok(b)
}

/// A re-replication copy: fetch the block from its holder, store it here.
async fn copy_block(w: &Arc<W>, c: &BlockCopy) -> Result<u64, String> {
    let data = fetch(w, &format!("{}/blocks/{}", c.from, c.block)).await?;
    let (store, id, n) = (w.store(), c.block, data.len() as u64);
    tokio::task::spawn_blocking(move || store.put(id, &data))
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| format!("cannot store block {id}: {e}"))?;
    Ok(n)
}

/// A fetch that also says whether it failed to connect at all (refused,
/// unreachable, timed out) rather than getting an error answer.
async fn fetch_from_peer(w: &W, url: &str) -> Result<Bytes, (String, bool)> {
    let connect = |e: reqwest::Error| {
        let c = crate::master::probe::is_connect_error(&e);
        (e.to_string(), c)
    };
    let r = w
        .client
        .get(url)
        .header(SECRET_HEADER, &w.cfg.secret)
        .send()
        .await
        .map_err(connect)?;
    if !r.status().is_success() {
        return Err((format!("{url}: {}", r.status()), false));
    }
    r.bytes().await.map_err(connect)
}

async fn run_map(w: &Arc<W>, l: TaskLaunch, cancel: Arc<AtomicBool>) -> Result<Report, String> {
    let src = l.block.clone().ok_or("a map launch without a block")?;
    let (data, read) = match read_block(w, src.id).await {
        Ok((d, _)) => (Bytes::from(d), ReadFrom::Local),
        Err(_) => {
            let mut last = String::from("no replica holder known");
            let mut got = None;
            for s in src.sources.iter().filter(|s| **s != w.addr) {
                match fetch(w, &format!("{s}/blocks/{}", src.id)).await {
                    Ok(b) => {
                        got = Some(b);
                        break;
                    }
                    Err(e) => last = e,
                }
            }
            match got {
                Some(b) => (b, ReadFrom::Remote),
                None => return Err(format!("cannot read block {}: {last}", src.id)),
            }
        }
    };
    let outs = w.outputs();
    let key = l.key.clone();
    let input_bytes = data.len() as u64;
    let plan = l.map_only.clone();
    let bdir = w.blocks();
    let outputs =
        tokio::task::spawn_blocking(move || -> Result<Vec<(u32, Vec<u64>, u64)>, String> {
            let mut res = Vec::new();
            // One copy of the block, every job's map function over it.
            for tj in &l.jobs {
                if tj.reduces == 0 {
                    res.push(write_map_only_block(
                        &bdir,
                        tj,
                        &l.map_only,
                        &data,
                        &cancel,
                    )?);
                    continue;
                }
                let jdir = outs.join(tj.job.to_string());
                let tmp = jdir.join(format!("{key}.tmp"));
                let fin = jdir.join(&key);
                let _ = std::fs::remove_dir_all(&tmp);
                let io = |e: std::io::Error| format!("map output: {e}");
                let prog = &tj.program;
                let reduces = tj.reduces.max(1);
                let part = |k: &[u8]| prog.partition(k, reduces);
                let mut wr =
                    MapOutputWriter::new(&tmp, reduces, prog.sums_counts(), l.sort_buffer as usize)
                        .map_err(io)?;
                let err: std::cell::RefCell<Option<std::io::Error>> = Default::default();
                {
                    let cell = std::cell::RefCell::new(&mut wr);
                    prog.map(
                        &data,
                        &mut |k, v| {
                            if let Err(e) = cell.borrow_mut().add(part(k), k, v) {
                                err.borrow_mut().get_or_insert(e);
                            }
                        },
                        &mut |k, c| {
                            if let Err(e) = cell.borrow_mut().add_count(k, c, &part) {
                                err.borrow_mut().get_or_insert(e);
                            }
                        },
                        &|| cancel.load(Ordering::Relaxed),
                    )?;
                }
                if let Some(e) = err.into_inner() {
                    return Err(io(e));
                }
                let records = wr.records;
                let parts = wr.finish(&part).map_err(io)?;
                let _ = std::fs::remove_dir_all(&fin);
                std::fs::rename(&tmp, &fin).map_err(io)?;
                res.push((tj.job, parts.iter().map(|p| p.bytes).collect(), records));
            }
            Ok(res)
        })
        .await
        .map_err(|e| format!("map attempt panicked: {e}"));
    let outputs = match outputs.and_then(|r| r) {
        Ok(o) => o,
        Err(e) => {
            remove_blocks(w, &plan).await;
            return Err(e);
        }
    };
    let blocks = match replicate_map_only(w, &plan, &outputs).await {
        Ok(b) => b,
        Err(e) => {
            remove_blocks(w, &plan).await;
            return Err(e);
        }
    };
    Ok(Report::MapDone {
        key: l.key,
        outputs,
        read,
        input_bytes,
        blocks,
    })
}

/// A map-only job's map: its output lines straight into its output block
/// (see [`crate::maponly`]); `(job, [bytes], records)`.
fn write_map_only_block(
    bdir: &std::path::Path,
    tj: &TaskJob,
    plan: &[MapOnlyOutput],
    data: &[u8],
    cancel: &AtomicBool,
) -> Result<(u32, Vec<u64>, u64), String> {
    let io = |e: std::io::Error| format!("map output: {e}");
    let mo = plan
        .iter()
        .find(|m| m.job == tj.job)
        .ok_or("a map-only launch without its output block")?;
    let store = BlockStore::new(bdir.to_path_buf());
    let tmp = bdir.join(format!("{}.tmp", mo.block));
    let file = std::fs::File::create(&tmp).map_err(io)?;
    let mut out = blockstore::CrcWriter::new(std::io::BufWriter::with_capacity(1 << 16, file));
    let records = crate::maponly::write_map_only(&tj.program, data, &mut out, &|| {
        cancel.load(Ordering::Relaxed)
    })?;
    use std::io::Write;
    out.flush().map_err(io)?;
    let c = out.crc();
    drop(out);
    // Checksummed like every stored block.
    store.commit(mo.block, &tmp, c).map_err(io)?;
    let bytes = std::fs::metadata(store.path(mo.block)).map_err(io)?.len();
    Ok((tj.job, vec![bytes], records))
}

/// Copy a map attempt's map-only output blocks to their other replica
/// holders (even when the attempt was killed meanwhile: its report then
/// tells the master where every copy is, to delete them).
async fn replicate_map_only(
    w: &Arc<W>,
    plan: &[MapOnlyOutput],
    outputs: &[(u32, Vec<u64>, u64)],
) -> Result<Vec<MapOnlyBlock>, String> {
    let mut res = Vec::new();
    for mo in plan {
        let bytes = outputs
            .iter()
            .find(|o| o.0 == mo.job)
            .and_then(|o| o.1.first().copied())
            .unwrap_or(0);
        // Read back checked: what the replicas get is what was written.
        let (data, c) = read_block(w, mo.block)
            .await
            .map_err(|e| format!("map-only output block {}: {e}", mo.block))?;
        let data = Bytes::from(data);
        let puts: Vec<_> = mo
            .replicas
            .iter()
            .map(|(node, url)| {
                let req = w
                    .client
                    .put(format!("{url}/blocks/{}", mo.block))
                    .header(SECRET_HEADER, &w.cfg.secret)
                    .header(CRC_HEADER, blockstore::crc_hex(c))
                    .body(data.clone());
                (*node, tokio::spawn(async move { req.send().await }))
            })
            .collect();
        let mut replicas = Vec::new();
        for (node, h) in puts {
            if matches!(h.await, Ok(Ok(ref r)) if r.status().is_success()) {
                replicas.push(node);
            }
        }
        res.push(MapOnlyBlock {
            job: mo.job,
            block: mo.block,
            bytes,
            replicas,
        });
    }
    Ok(res)
}

/// A failed or killed map leaves none of its map-only blocks here (the
/// master deletes copies on other workers).
async fn remove_blocks(w: &W, plan: &[MapOnlyOutput]) {
    for mo in plan {
        let _ = tokio::fs::remove_file(w.blocks().join(format!("{}.tmp", mo.block))).await;
        w.store().remove(mo.block);
    }
}

async fn run_reduce(
    w: &Arc<W>,
    l: TaskLaunch,
    cancel: Arc<AtomicBool>,
    compute: Arc<(AtomicBool, Notify)>,
) -> Result<Report, String> {
    let rt = l
        .reduce
        .clone()
        .ok_or("a reduce launch without a partition")?;
    let tj = l
        .jobs
        .first()
        .cloned()
        .ok_or("a reduce launch without a job")?;
    let rdir = w.cfg.dir.join("reduce").join(&l.key);
    tokio::fs::create_dir_all(&rdir)
        .await
        .map_err(|e| e.to_string())?;
    let result = reduce_inner(w, &l, &rt, &tj, &rdir, &cancel, &compute).await;
    let _ = tokio::fs::remove_dir_all(&rdir).await;
    result
}

async fn reduce_inner(
    w: &Arc<W>,
    l: &TaskLaunch,
    rt: &ReduceTask,
    tj: &TaskJob,
    rdir: &std::path::Path,
    cancel: &Arc<AtomicBool>,
    compute: &Arc<(AtomicBool, Notify)>,
) -> Result<Report, String> {
    // Copy phase: fetch this partition of every map, as maps finish.
    let mut fetched: HashSet<u32> = HashSet::new();
    let mut runs = Vec::new();
    let poll = Duration::from_millis(100);
    // Data servers that refused or timed out: not tried again before the
    // time kept here (the backoff doubles, 0.5 s to 8 s); the master hears
    // of each failure at once and stops listing a lost worker's outputs.
    let mut unreachable: HashMap<String, (tokio::time::Instant, Duration)> = HashMap::new();
    loop {
        if cancel.load(Ordering::Relaxed) {
            return Err("killed".into());
        }
        let r = w
            .client
            .get(format!("{}/w/map-outputs/{}", w.cfg.master, tj.job))
            .header(SECRET_HEADER, &w.cfg.secret)
            .send()
            .await;
        let mo: MapOutputs = match r {
            Ok(r) if r.status().is_success() => r.json().await.map_err(|e| e.to_string())?,
            _ => {
                tokio::time::sleep(poll).await;
                continue;
            }
        };
        if mo.ended {
            return Err("the job ended".into());
        }
        for (map, key, addr) in mo.done {
            if fetched.contains(&map) || cancel.load(Ordering::Relaxed) {
                continue;
            }
            if unreachable
                .get(&addr)
                .is_some_and(|(until, _)| tokio::time::Instant::now() < *until)
            {
                continue;
            }
            let url = format!("{addr}/shuffle/{}/{key}/{}", tj.job, rt.partition);
            match fetch_from_peer(w, &url).await {
                Ok(b) => {
                    let p = rdir.join(format!("run-{map}"));
                    tokio::fs::write(&p, &b).await.map_err(|e| e.to_string())?;
                    runs.push(p);
                    fetched.insert(map);
                    unreachable.remove(&addr);
                }
                Err((_, connect)) => {
                    if connect {
                        let back = unreachable
                            .get(&addr)
                            .map_or(Duration::from_millis(500), |(_, b)| {
                                (*b * 2).min(Duration::from_secs(8))
                            });
                        unreachable
                            .insert(addr.clone(), (tokio::time::Instant::now() + back, back));
                    }
                    w.report(Report::FetchFailed {
                        job: tj.job,
                        map,
                        key,
                        reducer: l.key.clone(),
                        connect,
                    })
                }
            }
        }
        if fetched.len() as u32 >= mo.total {
            break;
        }
        tokio::time::sleep(poll).await;
    }
    w.report(Report::CopyDone { key: l.key.clone() });
    // Wait for the master to admit the compute phase.
    while !compute.0.load(Ordering::Relaxed) {
        if cancel.load(Ordering::Relaxed) {
            return Err("killed".into());
        }
        tokio::select! {
            _ = compute.1.notified() => {}
            _ = tokio::time::sleep(poll) => {}
        }
    }
    let out_id = rt.output_block;
    let tmp = w.blocks().join(format!("{out_id}.tmp"));
    let store = w.store();
    let prog = tj.program.clone();
    let rdir2 = rdir.to_path_buf();
    let cancel2 = cancel.clone();
    let bytes = tokio::task::spawn_blocking(move || -> Result<u64, String> {
        let io = |e: std::io::Error| format!("reduce: {e}");
        let left = reduce_runs(runs, &rdir2, false).map_err(io)?;
        let readers = left
            .iter()
            .map(|p| RunReader::open_file(p))
            .collect::<std::io::Result<Vec<_>>>()
            .map_err(io)?;
        let mut groups = Groups::new(Merger::new(readers).map_err(io)?);
        let file = std::fs::File::create(&tmp).map_err(io)?;
        let mut out = blockstore::CrcWriter::new(std::io::BufWriter::with_capacity(1 << 16, file));
        prog.reduce(&mut groups, &mut out, &|| cancel2.load(Ordering::Relaxed))?;
        use std::io::Write;
        out.flush().map_err(io)?;
        let c = out.crc();
        drop(out);
        store.commit(out_id, &tmp, c).map_err(io)?;
        Ok(std::fs::metadata(store.path(out_id)).map_err(io)?.len())
    })
    .await
    .map_err(|e| format!("reduce attempt panicked: {e}"))??;
    // Replicate the output block (read back checked: what the replicas get
    // is what was written).
    let (data, c) = read_block(w, out_id)
        .await
        .map_err(|e| format!("reduce output block {out_id}: {e}"))?;
    let data = Bytes::from(data);
    let puts: Vec<_> = rt
        .replicas
        .iter()
        .map(|(node, url)| {
            let req = w
                .client
                .put(format!("{url}/blocks/{out_id}"))
                .header(SECRET_HEADER, &w.cfg.secret)
                .header(CRC_HEADER, blockstore::crc_hex(c))
                .body(data.clone());
            (*node, tokio::spawn(async move { req.send().await }))
        })
        .collect();
    let mut replicas = Vec::new();
    for (node, h) in puts {
        if matches!(h.await, Ok(Ok(ref r)) if r.status().is_success()) {
            replicas.push(node);
        }
    }
    Ok(Report::ReduceDone {
        key: l.key.clone(),
        block: out_id,
        bytes,
        replicas,
    })
}
