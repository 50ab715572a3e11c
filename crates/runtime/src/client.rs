//! The user API client: what `mrsched submit`, `jobs`, `dfs ...` call.

use crate::proto::*;
use serde::de::DeserializeOwned;
use std::fmt;
use std::io::{BufRead, Write};
use std::time::Duration;

/// A failed API call.
#[derive(Clone, Debug)]
pub struct ClientError {
    /// HTTP status, when the master answered.
    pub status: Option<u16>,
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ClientError {}

/// A connection to a master's user API.
#[derive(Clone)]
pub struct Client {
    base: String,
    token: Option<String>,
    http: reqwest::Client,
    /// Why no request may be sent (a token bound for plain HTTP beyond
    /// loopback).
    refused: Option<String>,
}

/// How a [`Client`] connects: what it trusts and whether plain HTTP beyond
/// loopback is allowed.
#[derive(Clone, Debug, Default)]
pub struct ConnectOptions {
    /// How an `https://` master is verified.
    pub trust: Option<crate::tls::Trust>,
    /// Send the token over plain HTTP beyond loopback anyway.
    pub insecure: bool,
}

type Res<T> = Result<T, ClientError>;

impl Client {
    /// A client of the master at `base` (`http://host:port`) that trusts
    /// no `https://` server and refuses to send a token over plain HTTP
    /// beyond loopback (every call fails with the reason).
    pub fn new(base: &str, token: Option<String>) -> Client {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(600))
            .build()
            .expect("a client without TLS roots always builds");
        Client::with_http(base, token, http, false)
    }

    /// A client of the master at `base` (`https://host:port` or, on
    /// loopback or with `insecure`, `http://host:port`). Fails, before
    /// anything is sent, when a token would cross the network in clear.
    pub fn connect(base: &str, token: Option<String>, opts: &ConnectOptions) -> Res<Client> {
        let http = crate::tls::http_client(opts.trust.as_ref(), Duration::from_secs(600)).map_err(
            |message| ClientError {
                status: None,
                message,
            },
        )?;
        let c = Client::with_http(base, token, http, opts.insecure);
        match c.refused {
            Some(message) => Err(ClientError {
                status: None,
                message,
            }),
            None => Ok(c),
        }
    }

    fn with_http(
        base: &str,
        token: Option<String>,
        http: reqwest::Client,
        insecure: bool,
    ) -> Client {
        let base = base.trim_end_matches('/').to_string();
        let refused = match token {
            Some(_) => crate::tls::check_plain_url(&base, "the token", insecure).err(),
            None => None,
        };
        Client {
            token: if refused.is_some() { None } else { token },
            base,
            http,
            refused,
        }
    }

    /// The master's URL.
    pub fn base(&self) -> &str {
        &self.base
    }

    fn req(&self, m: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        let r = self.http.request(m, format!("{}{path}", self.base));
        match &self.token {
            Some(t) => r.bearer_auth(t),
            None => r,
        }
    }

    async fn send<T: DeserializeOwned>(&self, r: reqwest::RequestBuilder) -> Res<T> {
        if let Some(message) = &self.refused {
            return Err(ClientError {
                status: None,
                message: message.clone(),
            });
        }
        let resp = r.send().await.map_err(|e| ClientError {
            status: None,
            message: format!(
                "cannot reach the master at {}: {}",
                self.base,
                crate::tls::error_chain(&e)
            ),
        })?;
        let status = resp.status();
        if status.is_success() {
            return resp.json().await.map_err(|e| ClientError {
                status: Some(status.as_u16()),
                message: format!("bad answer from the master: {e}"),
            });
        }
        let text = resp.text().await.unwrap_or_default();
        let msg = serde_json::from_str::<ErrorBody>(&text)
            .map(|b| b.error)
            .unwrap_or(text);
        Err(ClientError {
            status: Some(status.as_u16()),
            message: match status.as_u16() {
                401 => format!("the master refused the request: {msg}"),
                _ => msg,
            },
        })
    }

    /// Cluster readiness (no token needed).
    pub async fn health(&self) -> Res<Health> {
        self.send(self.req(reqwest::Method::GET, "/api/health"))
            .await
    }

    /// Submit a job file's text; `label` names it in error messages.
    pub async fn submit(&self, label: &str, text: &str, json: bool) -> Res<Submitted> {
        self.send(
            self.req(reqwest::Method::POST, "/api/jobs")
                .query(&[
                    ("label", label),
                    ("json", if json { "true" } else { "false" }),
                ])
                .body(text.to_string()),
        )
        .await
    }

    /// Submit a job file with an idempotency key: sent again with the same
    /// key (after a broken connection, a master restart), it answers with
    /// the job the first request created instead of creating another.
    pub async fn submit_keyed(
        &self,
        label: &str,
        text: &str,
        json: bool,
        key: &str,
    ) -> Res<Submitted> {
        self.send(
            self.req(reqwest::Method::POST, "/api/jobs")
                .query(&[
                    ("label", label),
                    ("json", if json { "true" } else { "false" }),
                ])
                .header(crate::master::IDEMPOTENCY_KEY, key)
                .body(text.to_string()),
        )
        .await
    }

    /// Submit a job set: every job with its release time, announced to the
    /// scheduler at once and each held by the master until its release.
    pub async fn submit_set(&self, set: &JobSetRequest) -> Res<Vec<HeldJob>> {
        self.send(self.req(reqwest::Method::POST, "/api/jobsets").json(set))
            .await
    }

    /// Every job.
    pub async fn jobs(&self) -> Res<Vec<JobView>> {
        self.send(self.req(reqwest::Method::GET, "/api/jobs")).await
    }

    /// One job.
    pub async fn job(&self, id: u32) -> Res<JobView> {
        self.send(self.req(reqwest::Method::GET, &format!("/api/jobs/{id}")))
            .await
    }

    /// Kill a job.
    pub async fn kill(&self, id: u32) -> Res<JobView> {
        self.send(self.req(reqwest::Method::POST, &format!("/api/jobs/{id}/kill")))
            .await
    }

    /// A job's attempts, ended then running.
    pub async fn attempts(&self, id: u32) -> Res<Vec<AttemptView>> {
        self.send(self.req(reqwest::Method::GET, &format!("/api/jobs/{id}/attempts")))
            .await
    }

    /// The workers.
    pub async fn workers(&self) -> Res<Vec<WorkerView>> {
        self.send(self.req(reqwest::Method::GET, "/api/workers"))
            .await
    }

    /// The pools' running slots over the last hour.
    pub async fn pool_history(&self) -> Res<PoolHistory> {
        self.send(self.req(reqwest::Method::GET, "/api/pools/history"))
            .await
    }

    /// Pools.
    pub async fn pools(&self) -> Res<PoolsView> {
        self.send(self.req(reqwest::Method::GET, "/api/pools"))
            .await
    }

    /// The run's metrics report.
    pub async fn report(&self) -> Res<mrsched_metrics::Report> {
        self.send(self.req(reqwest::Method::GET, "/api/report"))
            .await
    }

    /// Wait until job `id` has ended (or `timeout` passed).
    pub async fn wait(&self, id: u32, timeout: Duration) -> Res<JobView> {
        self.wait_with_progress(id, timeout, &mut |_| {}).await
    }

    /// [`Client::wait`], calling `seen` with every state of the job it
    /// polls (every 100 ms), the last one included: what a progress display
    /// shows.
    pub async fn wait_with_progress(
        &self,
        id: u32,
        timeout: Duration,
        seen: &mut (dyn FnMut(&JobView) + Send),
    ) -> Res<JobView> {
        let t0 = std::time::Instant::now();
        loop {
            let j = self.job(id).await?;
            seen(&j);
            if !matches!(j.status.as_str(), "running" | "submitted") {
                return Ok(j);
            }
            if t0.elapsed() > timeout {
                return Err(ClientError {
                    status: None,
                    message: format!(
                        "job {id} still {} after {:.0} s",
                        j.status,
                        timeout.as_secs_f64()
                    ),
                });
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Wait until every job of a submitted set has been released and has
    /// ended (or `timeout` passed): a held job is not known to the master
    /// before its release time.
    pub async fn wait_set(&self, held: &[HeldJob], timeout: Duration) -> Res<Vec<JobView>> {
        let t0 = std::time::Instant::now();
        let mut out = Vec::new();
        for h in held {
            loop {
                match self.job(h.id).await {
                    Ok(_) => break,
                    Err(e) if e.status == Some(404) && t0.elapsed() < timeout => {
                        tokio::time::sleep(Duration::from_millis(50)).await
                    }
                    Err(e) => return Err(e),
                }
            }
            out.push(
                self.wait(h.id, timeout.saturating_sub(t0.elapsed()))
                    .await?,
            );
        }
        Ok(out)
    }

    /// Store a stream as file `name`: cut into blocks of about
    /// `block_size` bytes on line boundaries (a block ends after the line
    /// that reaches the size), each replicated `replication` times. Nothing
    /// is visible until every block is stored; on error the partial upload
    /// is discarded.
    pub async fn put(
        &self,
        input: &mut dyn BufRead,
        name: &str,
        block_size: u64,
        replication: u32,
    ) -> Res<FileView> {
        self.put_with_progress(input, name, block_size, replication, &mut |_| {})
            .await
    }

    /// [`Client::put`], calling `stored` with the bytes stored so far each
    /// time the master has taken a block (what a progress display shows).
    pub async fn put_with_progress(
        &self,
        input: &mut dyn BufRead,
        name: &str,
        block_size: u64,
        replication: u32,
        stored: &mut (dyn FnMut(u64) + Send),
    ) -> Res<FileView> {
        let id: u64 = self
            .send(
                self.req(reqwest::Method::POST, "/api/dfs/files")
                    .json(&CreateFile {
                        name: name.to_string(),
                        replication,
                        block_size: Some(block_size.max(1)),
                    }),
            )
            .await?;
        match self.put_blocks(id, input, block_size.max(1), stored).await {
            Ok(()) => {
                self.send(self.req(
                    reqwest::Method::POST,
                    &format!("/api/dfs/uploads/{id}/commit"),
                ))
                .await
            }
            Err(e) => {
                let _: Res<()> = self
                    .send(self.req(reqwest::Method::DELETE, &format!("/api/dfs/uploads/{id}")))
                    .await;
                Err(e)
            }
        }
    }

    async fn put_blocks(
        &self,
        id: u64,
        input: &mut dyn BufRead,
        block_size: u64,
        stored: &mut (dyn FnMut(u64) + Send),
    ) -> Res<()> {
        let io = |e: std::io::Error| ClientError {
            status: None,
            message: format!("cannot read the input: {e}"),
        };
        // One block uploads while the next is read; blocks are sent in
        // order (the previous upload ends before the next starts), so at
        // most two blocks are in memory.
        let mut inflight: Option<(tokio::task::JoinHandle<Res<u64>>, u64)> = None;
        let mut done = 0u64;
        loop {
            let body = next_block(input, block_size).map_err(io)?;
            if let Some((h, len)) = inflight.take() {
                join(h).await?;
                done += len;
                stored(done);
            }
            if body.is_empty() {
                return Ok(());
            }
            let len = body.len() as u64;
            let me = self.clone();
            let path = format!("/api/dfs/uploads/{id}");
            inflight = Some((
                tokio::spawn(async move {
                    me.send(me.req(reqwest::Method::POST, &path).body(body))
                        .await
                }),
                len,
            ));
        }
    }

    /// The block store's replication state.
    pub async fn replication(&self) -> Res<ReplicationView> {
        self.send(self.req(reqwest::Method::GET, "/api/dfs/replication"))
            .await
    }

    /// Files.
    pub async fn ls(&self) -> Res<Vec<FileView>> {
        self.send(self.req(reqwest::Method::GET, "/api/dfs/files"))
            .await
    }

    /// One file.
    pub async fn stat(&self, name: &str) -> Res<FileView> {
        self.send(self.req(
            reqwest::Method::GET,
            &format!("/api/dfs/files/{}", encode(name)),
        ))
        .await
    }

    /// Remove a file.
    pub async fn rm(&self, name: &str) -> Res<()> {
        self.send(self.req(
            reqwest::Method::DELETE,
            &format!("/api/dfs/files/{}", encode(name)),
        ))
        .await
    }

    /// Write a file's contents to `out`, block after block.
    pub async fn cat(&self, name: &str, out: &mut dyn Write) -> Res<u64> {
        let f = self.stat(name).await?;
        let mut n = 0;
        for (id, _, _) in f.blocks {
            let r = self
                .req(reqwest::Method::GET, &format!("/api/dfs/blocks/{id}"))
                .send()
                .await
                .map_err(|e| ClientError {
                    status: None,
                    message: format!("cannot reach the master at {}: {e}", self.base),
                })?;
            if !r.status().is_success() {
                let status = r.status().as_u16();
                let text = r.text().await.unwrap_or_default();
                let msg = serde_json::from_str::<ErrorBody>(&text)
                    .map(|b| b.error)
                    .unwrap_or(text);
                return Err(ClientError {
                    status: Some(status),
                    message: msg,
                });
            }
            let sent = r
                .headers()
                .get(crate::blockstore::CRC_HEADER)
                .and_then(|v| v.to_str().ok())
                .and_then(crate::blockstore::parse_crc);
            let b = r.bytes().await.map_err(|e| ClientError {
                status: None,
                message: e.to_string(),
            })?;
            crate::blockstore::check_received(&b, sent).map_err(|e| ClientError {
                status: None,
                message: format!("block {id} of `{name}`: {e}"),
            })?;
            n += b.len() as u64;
            out.write_all(&b).map_err(|e| ClientError {
                status: None,
                message: format!("cannot write the output: {e}"),
            })?;
        }
        Ok(n)
    }

    /// A file's contents.
    pub async fn read(&self, name: &str) -> Res<Vec<u8>> {
        let mut v = Vec::new();
        self.cat(name, &mut v).await?;
        Ok(v)
    }
}

/// `mrsched dfs ls` as a table: each file's size, blocks and the fewest
/// live replicas of any block against the target (`2/3`), then a line for
/// under-replicated blocks and one for each block with no replica left.
pub fn render_ls(files: &[FileView]) -> String {
    let rows: Vec<Vec<String>> = files
        .iter()
        .map(|f| {
            let min = f.live.iter().min().copied().unwrap_or(0);
            let replicas = if f.blocks.is_empty() || f.replication == 0 {
                "-".to_string()
            } else {
                format!("{min}/{}", f.replication)
            };
            vec![
                f.name.clone(),
                f.bytes.to_string(),
                f.blocks.len().to_string(),
                replicas,
            ]
        })
        .collect();
    let mut out = mrsched_metrics::output::render_table_aligned(
        &["name", "bytes", "blocks", "replicas"],
        &rows,
        &[false, true, true, true],
    );
    let under: usize = files.iter().map(|f| f.under_replicated()).sum();
    if under > 0 {
        out.push_str(&format!(
            "under-replicated: {under} block{}\n",
            if under == 1 { "" } else { "s" }
        ));
    }
    for f in files {
        for (i, id) in f.lost_blocks() {
            out.push_str(&format!(
                "file {}: block {i} (id {id}) has no replica left\n",
                f.name
            ));
        }
    }
    out
}

/// The next block of `input`: whole lines until the block reaches
/// `block_size` bytes (the line that crosses the size ends the block), or
/// what is left at the end. Empty at the end of the input.
pub fn next_block(input: &mut dyn BufRead, block_size: u64) -> std::io::Result<Vec<u8>> {
    let mut block: Vec<u8> = Vec::with_capacity(block_size.min(1 << 28) as usize);
    while (block.len() as u64) < block_size.max(1) {
        if input.read_until(b'\n', &mut block)? == 0 {
            break;
        }
    }
    Ok(block)
}

async fn join(h: tokio::task::JoinHandle<Res<u64>>) -> Res<u64> {
    h.await.map_err(|e| ClientError {
        status: None,
        message: format!("upload task failed: {e}"),
    })?
}

/// Percent-encode a path segment.
fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Blocks cover the input in order, each ends at a line boundary
        /// (except possibly the last), and a block only passes the size by
        /// the line that crossed it.
        #[test]
        fn blocks_cut_on_line_boundaries(
            lines in prop::collection::vec("[a-z ]{0,40}", 0..60),
            last_newline in any::<bool>(),
            size in 1u64..200,
        ) {
            let mut text = lines.join("\n");
            if last_newline && !text.is_empty() {
                text.push('\n');
            }
            let mut r = text.as_bytes();
            let mut blocks = Vec::new();
            loop {
                let b = next_block(&mut r, size).unwrap();
                if b.is_empty() {
                    break;
                }
                blocks.push(b);
            }
            prop_assert_eq!(blocks.concat(), text.as_bytes());
            for (i, b) in blocks.iter().enumerate() {
                if i + 1 < blocks.len() {
                    prop_assert_eq!(b.last(), Some(&b'\n'));
                    prop_assert!(b.len() as u64 >= size);
                }
                // Without its last line the block was still below the size.
                let body = &b[..b.len() - 1];
                let prev = body.iter().rposition(|&c| c == b'\n').map_or(0, |p| p + 1);
                prop_assert!((prev as u64) < size);
            }
        }
    }
}
