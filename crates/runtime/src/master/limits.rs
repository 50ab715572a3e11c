//! Resource bounds of the master's API, so that one user or one slow or
//! hostile client cannot exhaust the master's memory, disk or connections:
//!
//! * request bodies are bounded per route: small for JSON and job files
//!   ([`Limits::max_request_bytes`]), larger for worker heartbeats
//!   ([`Limits::max_worker_request_bytes`]), and for a block upload the
//!   upload's block size plus [`BLOCK_SLACK`] (a block ends after the line
//!   that crosses the block size). A larger body is answered 413 with the
//!   limit in the message, before it is read when it declares its length;
//! * a request body that stops arriving for [`Limits::body_timeout`] is
//!   cut (tower-http's idle timeout between body frames);
//! * each user may have at most [`Limits::max_queued_jobs_per_user`] jobs
//!   submitted and not finished (429 above it);
//! * an uploaded file may hold at most [`Limits::max_upload_bytes`];
//! * an upload left idle for [`Limits::upload_timeout`] (a client that
//!   disappeared halfway) is aborted: its blocks are deleted on the workers.

use super::{lock, ApiError, ErrorBody, Shared};
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Bytes a block upload may exceed its file's block size by.
pub const BLOCK_SLACK: u64 = 1 << 20;

/// The master's resource bounds.
#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    /// Jobs a user may have submitted and not finished.
    pub max_queued_jobs_per_user: u32,
    /// Bytes of one uploaded file.
    pub max_upload_bytes: u64,
    /// Bytes of one block (also the largest block size an upload may
    /// declare).
    pub max_block_bytes: u64,
    /// Body of a user request other than a block upload (JSON, job files,
    /// web forms).
    pub max_request_bytes: u64,
    /// Body of a worker request (registrations, heartbeats with reports).
    pub max_worker_request_bytes: u64,
    /// A request body idle this long is cut.
    pub body_timeout: Duration,
    /// An upload without a block or commit for this long is aborted.
    pub upload_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_queued_jobs_per_user: 100,
            max_upload_bytes: 1 << 40,
            max_block_bytes: 1 << 30,
            max_request_bytes: 1 << 20,
            max_worker_request_bytes: 64 << 20,
            body_timeout: Duration::from_secs(30),
            upload_timeout: Duration::from_secs(300),
        }
    }
}

impl Limits {
    /// The largest block body an upload with `block_size` accepts.
    pub fn block_limit(&self, block_size: Option<u64>) -> u64 {
        match block_size {
            Some(b) => b.saturating_add(BLOCK_SLACK).min(self.max_block_bytes),
            None => self.max_block_bytes,
        }
    }
}

/// A 413 with `message`.
pub fn too_large(message: String) -> Response {
    (
        StatusCode::PAYLOAD_TOO_LARGE,
        Json(ErrorBody { error: message }),
    )
        .into_response()
}

fn declared_length(req: &Request) -> Option<u64> {
    req.headers()
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .parse()
        .ok()
}

/// An oversized body at most this much over its limit is read and thrown
/// away before the 413, so that the client, still sending, sees the answer
/// instead of a reset connection; a larger one is refused at once.
pub const DRAIN_SLACK: u64 = 8 << 20;

/// Read and discard `body` when `declared` is at most [`DRAIN_SLACK`] over
/// `max` (bounded by the body timeout too).
pub(super) async fn drain(body: axum::body::Body, declared: u64, max: u64) {
    use http_body_util::BodyExt;
    if declared > max.saturating_add(DRAIN_SLACK) {
        return;
    }
    let mut body = body;
    let mut n = 0u64;
    while let Some(Ok(f)) = body.frame().await {
        n += f.data_ref().map_or(0, |d| d.len() as u64);
        if n > declared {
            return;
        }
    }
}

async fn check_body(State(max): State<u64>, req: Request, next: Next) -> Response {
    if let Some(n) = declared_length(&req) {
        if n > max {
            drain(req.into_body(), n, max).await;
            return too_large(format!(
                "request body of {n} bytes is over this route's limit of {max} bytes"
            ));
        }
    }
    let resp = next.run(req).await;
    // A body without a declared length that grew over the limit: axum's
    // extractors answer 413 in plain text; say which limit.
    if resp.status() == StatusCode::PAYLOAD_TOO_LARGE && !is_json(&resp) {
        return too_large(format!(
            "request body is over this route's limit of {max} bytes"
        ));
    }
    resp
}

/// Bound the bodies of `router`'s routes to `max` bytes.
pub fn body_limit<S: Clone + Send + Sync + 'static>(router: Router<S>, max: u64) -> Router<S> {
    router
        .layer(DefaultBodyLimit::max(max.min(usize::MAX as u64) as usize))
        .layer(axum::middleware::from_fn_with_state(max, check_body))
}

fn is_json(resp: &Response) -> bool {
    resp.headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"))
}

/// axum answers a body cut by the timeout with a plain-text 400 quoting
/// tower-http's error; make it a 408 that names the setting.
async fn explain_timeout(State(t): State<Duration>, req: Request, next: Next) -> Response {
    let resp = next.run(req).await;
    if resp.status() != StatusCode::BAD_REQUEST || is_json(&resp) {
        return resp;
    }
    let (parts, body) = resp.into_parts();
    let bytes = axum::body::to_bytes(body, 64 * 1024)
        .await
        .unwrap_or_default();
    if std::str::from_utf8(&bytes).is_ok_and(|s| s.contains("within the designated timeout")) {
        return (
            StatusCode::REQUEST_TIMEOUT,
            Json(ErrorBody {
                error: format!(
                    "the request body stopped arriving for {} s (--body-timeout-s); the request is cut",
                    t.as_secs_f64()
                ),
            }),
        )
            .into_response();
    }
    Response::from_parts(parts, axum::body::Body::from(bytes))
}

/// Cut request bodies idle for `t` (a slow or stalled client): 408, and
/// the connection is closed (its body was not read to the end).
pub fn body_timeout<S: Clone + Send + Sync + 'static>(router: Router<S>, t: Duration) -> Router<S> {
    router
        .layer(tower_http::timeout::RequestBodyTimeoutLayer::new(t))
        .layer(axum::middleware::from_fn_with_state(t, explain_timeout))
}

/// A worker's data server: block bodies (`PUT /blocks/{id}`) up to the
/// default [`Limits::max_block_bytes`], with the default body timeout.
pub fn worker_bounds<S: Clone + Send + Sync + 'static>(router: Router<S>) -> Router<S> {
    let d = Limits::default();
    body_timeout(body_limit(router, d.max_block_bytes), d.body_timeout)
}

/// An upload's bookkeeping for the bounds: when it was last used, blocks
/// being stored, bytes so far.
#[derive(Clone, Debug)]
pub struct UploadUse {
    /// Last block or start.
    pub last_active: Instant,
    /// Blocks being stored right now.
    pub busy: u32,
    /// Bytes stored so far, and of blocks being stored.
    pub bytes: u64,
    /// Largest block body accepted.
    pub block_limit: u64,
}

impl UploadUse {
    /// A new upload's.
    pub fn new(block_limit: u64) -> UploadUse {
        UploadUse {
            last_active: Instant::now(),
            busy: 0,
            bytes: 0,
            block_limit,
        }
    }
}

/// Abort uploads idle for longer than the upload timeout: forget them (the
/// name was never reserved) and delete their blocks on the workers.
pub(super) fn sweep_uploads(s: &Shared, timeout: Duration) -> usize {
    let stale: Vec<super::Upload> = {
        let mut ups = s.uploads.lock().unwrap_or_else(|p| p.into_inner());
        let ids: Vec<u64> = ups
            .iter()
            .filter(|(_, u)| u.usage.busy == 0 && u.usage.last_active.elapsed() > timeout)
            .map(|(id, _)| *id)
            .collect();
        ids.into_iter().filter_map(|id| ups.remove(&id)).collect()
    };
    let n = stale.len();
    if n > 0 {
        let mut core = lock(s);
        for up in stale {
            eprintln!(
                "mrsched master: upload of `{}` by {} idle for over {:.0} s: aborted, {} block(s) deleted",
                up.name,
                up.user.name,
                timeout.as_secs_f64(),
                up.blocks.len()
            );
            core.drop_blocks(&up.blocks);
        }
    }
    n
}

/// Sweep idle uploads every second (or every tenth of the timeout when
/// that is shorter) for as long as the master runs.
pub(super) fn spawn_upload_sweeper(s: Arc<Shared>) -> tokio::task::JoinHandle<()> {
    let timeout = s.limits.upload_timeout;
    let every = (timeout / 10).clamp(Duration::from_millis(10), Duration::from_secs(1));
    tokio::spawn(async move {
        let mut iv = tokio::time::interval(every);
        loop {
            iv.tick().await;
            sweep_uploads(&s, timeout);
        }
    })
}

/// Mark upload `id` busy (a block is being stored) or done with a block.
pub(super) fn upload_busy(s: &Shared, id: u64, busy: bool) {
    let mut ups = s.uploads.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(u) = ups.get_mut(&id) {
        if busy {
            u.usage.busy += 1;
        } else {
            u.usage.busy = u.usage.busy.saturating_sub(1);
        }
        u.usage.last_active = Instant::now();
    }
}

fn payload_too_large(message: String) -> ApiError {
    ApiError {
        status: 413,
        message,
    }
}

/// Read one block of upload `id` within its bounds: at most its block
/// limit, and the file at most [`Limits::max_upload_bytes`] (over it the
/// upload is aborted and its blocks deleted).
pub(super) async fn read_block(
    s: &Shared,
    id: u64,
    declared: Option<u64>,
    body: axum::body::Body,
) -> Result<axum::body::Bytes, ApiError> {
    let limit = {
        let ups = s.uploads.lock().unwrap_or_else(|p| p.into_inner());
        let u = ups
            .get(&id)
            .ok_or_else(|| ApiError::not_found(format!("no upload {id}")))?;
        u.usage.block_limit
    };
    let over = || {
        payload_too_large(format!(
            "a block of more than {limit} bytes: over this upload's limit (its block size plus {BLOCK_SLACK} bytes for the line that crosses it, at most --max-block-bytes {})",
            s.limits.max_block_bytes
        ))
    };
    if let Some(n) = declared.filter(|&n| n > limit) {
        drain(body, n, limit).await;
        return Err(over());
    }
    let data = match axum::body::to_bytes(body, limit.min(usize::MAX as u64) as usize).await {
        Ok(d) => d,
        Err(e) => {
            let e = e.into_inner();
            if e.downcast_ref::<http_body_util::LengthLimitError>()
                .is_some()
            {
                return Err(over());
            }
            return Err(ApiError {
                status: 408,
                message: format!("the block did not arrive: {e}"),
            });
        }
    };
    let max = s.limits.max_upload_bytes;
    let mut ups = s.uploads.lock().unwrap_or_else(|p| p.into_inner());
    let u = ups
        .get_mut(&id)
        .ok_or_else(|| ApiError::not_found(format!("no upload {id}")))?;
    if u.usage.bytes + data.len() as u64 <= max {
        u.usage.bytes += data.len() as u64;
    } else {
        let up = ups.remove(&id).expect("present");
        drop(ups);
        lock(s).drop_blocks(&up.blocks);
        return Err(payload_too_large(format!(
            "`{}` would be over the limit of {max} bytes per file (--max-upload-bytes); the upload is aborted",
            up.name
        )));
    }
    Ok(data)
}

/// Give back `n` bytes counted for a block that was not stored.
pub(super) fn unreserve(s: &Shared, id: u64, n: u64) {
    let mut ups = s.uploads.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(u) = ups.get_mut(&id) {
        u.usage.bytes = u.usage.bytes.saturating_sub(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[test]
    fn block_limits_follow_the_block_size() {
        let l = Limits::default();
        assert_eq!(l.block_limit(Some(4096)), 4096 + BLOCK_SLACK);
        assert_eq!(l.block_limit(None), l.max_block_bytes);
        assert_eq!(l.block_limit(Some(u64::MAX)), l.max_block_bytes);
    }

    #[tokio::test]
    async fn a_workers_block_store_refuses_a_block_over_its_limit() {
        let app = worker_bounds(Router::new().route(
            "/blocks/{id}",
            axum::routing::put(|b: axum::body::Bytes| async move { b.len().to_string() }),
        ));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        let ask = |len: u64, body: Vec<u8>| async move {
            let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
            let head = format!(
                "PUT /blocks/1 HTTP/1.1\r\nHost: x\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n"
            );
            s.write_all(head.as_bytes()).await.unwrap();
            s.write_all(&body).await.unwrap();
            let mut out = String::new();
            s.read_to_string(&mut out).await.unwrap();
            out
        };
        let r = ask(2 << 30, Vec::new()).await;
        assert!(r.starts_with("HTTP/1.1 413"), "{r}");
        assert!(
            r.contains(
                "request body of 2147483648 bytes is over this route's limit of 1073741824 bytes"
            ),
            "{r}"
        );
        let r = ask(3, b"abc".to_vec()).await;
        assert!(
            r.starts_with("HTTP/1.1 200") && r.ends_with("\r\n\r\n3"),
            "{r}"
        );
    }
}
