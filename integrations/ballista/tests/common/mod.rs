//! Test harness: a scheduler and executors as child processes of the real
//! binary, CSV data written to a temporary directory, clients in the test.

#![allow(dead_code)]

use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::prelude::{CsvReadOptions, SessionContext};
use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The `mrsched-ballista` binary: Cargo's for tests, else the one beside
/// the running example (`target/<profile>/examples/..`).
pub fn bin() -> PathBuf {
    if let Some(b) = option_env!("CARGO_BIN_EXE_mrsched-ballista") {
        return PathBuf::from(b);
    }
    let exe = std::env::current_exe().unwrap();
    exe.parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("mrsched-ballista")
}

/// A running `mrsched-ballista` process, killed on drop.
pub struct Proc(pub Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A scheduler with its executors (each its own process).
pub struct Cluster {
    pub grpc: SocketAddr,
    pub http: SocketAddr,
    pub scheduler: Proc,
    pub executors: Vec<Proc>,
    pub dir: tempfile::TempDir,
    pub push: bool,
}

/// A port for an executor (see [`mrsched_ballista::service::free_port`]).
fn free_port() -> u16 {
    mrsched_ballista::service::free_port("127.0.0.1").unwrap()
}

/// The `df://` and `http://` addresses in the scheduler's first line.
fn addresses(line: &str) -> Option<(SocketAddr, SocketAddr)> {
    let after = |tag: &str| {
        let rest = &line[line.find(tag)? + tag.len()..];
        rest.split([' ', '/']).next()?.parse().ok()
    };
    Some((after("df://")?, after("http://")?))
}

impl Cluster {
    /// `mrsched-ballista scheduler --scheduler <scheduler>` and `executors`
    /// executors of `vcores` each.
    pub fn start(scheduler: &str, executors: usize, vcores: usize) -> Cluster {
        Cluster::start_with(scheduler, executors, vcores, false)
    }

    /// [`Cluster::start`], with push scheduling when `push`.
    pub fn start_with(scheduler: &str, executors: usize, vcores: usize, push: bool) -> Cluster {
        let dir = tempfile::tempdir().unwrap();
        // The scheduler binds ports the kernel picks and prints them: a port
        // found free here could be taken before it binds.
        let mut child = Command::new(bin())
            .args(["scheduler", "--scheduler", scheduler])
            .args(["--bind", "127.0.0.1:0"])
            .args(["--http", "127.0.0.1:0"])
            .args(["--executor-timeout-s", "3"])
            .args(push.then_some("--push"))
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert!(line.contains("scheduler df://"), "scheduler said: {line}");
        let (grpc, http) = addresses(&line)
            .unwrap_or_else(|| panic!("no addresses in the scheduler's line: {line}"));
        let mut c = Cluster {
            grpc,
            http,
            scheduler: Proc(child),
            executors: Vec::new(),
            dir,
            push,
        };
        for i in 0..executors {
            c.add_executor(&format!("executor-{i}"), vcores);
        }
        c
    }

    pub fn add_executor(&mut self, id: &str, vcores: usize) {
        let work = self.dir.path().join(id);
        std::fs::create_dir_all(&work).unwrap();
        let child = Command::new(bin())
            .args(["executor", "--scheduler", &self.grpc.to_string()])
            .args(["--port", &free_port().to_string()])
            .args(["--grpc-port", &free_port().to_string()])
            .args(["--vcores", &vcores.to_string()])
            .args(["--id", id])
            .args(self.push.then_some("--push"))
            .arg("--work-dir")
            .arg(&work)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        self.executors.push(Proc(child));
    }

    pub fn url(&self) -> String {
        format!("df://{}", self.grpc)
    }

    /// A client session as `user` in `pool` with `partitions` target
    /// partitions, table `t` registered over `data`.
    pub async fn session(
        &self,
        user: &str,
        pool: &str,
        partitions: usize,
        data: &Path,
    ) -> SessionContext {
        let ctx = mrsched_ballista::options::connect(&self.url(), user)
            .await
            .unwrap();
        ctx.sql(&format!("SET mrsched.pool = '{pool}'"))
            .await
            .unwrap();
        ctx.sql(&format!(
            "SET datafusion.execution.target_partitions = {partitions}"
        ))
        .await
        .unwrap();
        register(&ctx, data).await;
        ctx
    }

    pub async fn get(&self, path: &str) -> serde_json::Value {
        reqwest::get(format!("http://{}{path}", self.http))
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }
}

pub async fn register(ctx: &SessionContext, data: &Path) {
    ctx.register_csv(
        "t",
        data.to_str().unwrap(),
        CsvReadOptions::new().has_header(true),
    )
    .await
    .unwrap();
}

/// `files` CSV files of `rows` rows each: `k` in 0..97, `v`, `s`.
pub fn write_data(dir: &Path, name: &str, files: usize, rows: usize) -> PathBuf {
    write_csv(dir, name, files, rows, |f, i| (f * rows + i) % 97)
}

/// `files` CSV files of `rows` rows each whose keys do not overlap: file
/// `f` holds keys `f * keys .. (f + 1) * keys`, so each shuffle partition's
/// input lies mostly with the few map tasks that read its keys.
pub fn write_keyed_data(dir: &Path, name: &str, files: usize, rows: usize, keys: usize) -> PathBuf {
    write_csv(dir, name, files, rows, |f, i| f * keys + i % keys)
}

/// CSV files `part-NNN.csv` with columns `k` (`key(file, row)`), `v`, `s`.
fn write_csv(
    dir: &Path,
    name: &str,
    files: usize,
    rows: usize,
    key: impl Fn(usize, usize) -> usize,
) -> PathBuf {
    let d = dir.join(name);
    std::fs::create_dir_all(&d).unwrap();
    for f in 0..files {
        let mut w = std::io::BufWriter::new(
            std::fs::File::create(d.join(format!("part-{f:03}.csv"))).unwrap(),
        );
        writeln!(w, "k,v,s").unwrap();
        for i in 0..rows {
            let n = f * rows + i;
            writeln!(w, "{},{},word{}", key(f, i), n, n % 13).unwrap();
        }
    }
    d
}

/// The aggregation every test runs.
pub const QUERY: &str =
    "SELECT k, count(*) AS n, sum(v) AS total, count(DISTINCT s) AS words FROM t GROUP BY k ORDER BY k";

/// Run `sql` and render the result as a table.
pub async fn run(ctx: &SessionContext, sql: &str) -> datafusion::error::Result<String> {
    let batches = ctx.sql(sql).await?.collect().await?;
    Ok(pretty_format_batches(&batches)?.to_string())
}

/// The same query on a plain local DataFusion context.
pub async fn local_result(data: &Path, sql: &str) -> String {
    let ctx = SessionContext::new();
    register(&ctx, data).await;
    run(&ctx, sql).await.unwrap()
}

/// Wait until `f` holds (polling), at most `limit`.
pub async fn wait_until<F, Fut>(limit: Duration, mut f: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let t0 = Instant::now();
    while t0.elapsed() < limit {
        if f().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}
