//! The live-cluster subcommands: `master`, `worker`, `local`, `submit`,
//! `jobs`, `status`, `kill`, `pools`, `metrics` and `dfs`.
//!
//! Client commands find the master in `--master` or `MRSCHED_MASTER`
//! (default `http://127.0.0.1:7070`) and the user's token in `--token` or
//! `MRSCHED_TOKEN`.

use crate::commands::CliError;
use crate::progress;
use clap::{Args, Subcommand, ValueEnum};
use mrsched_metrics::output::{render_table_aligned, summary_text};
use mrsched_model::{Format as DocFormat, Source};
use mrsched_runtime::client::{Client, ClientError, ConnectOptions};
use mrsched_runtime::local::{ensure_secret, ensure_users, LocalCluster, LocalConfig};
use mrsched_runtime::master::core::MasterSettings;
use mrsched_runtime::master::metrics::ScrapeAuth;
use mrsched_runtime::master::{open_core, run_master, MasterConfig, Users};
use mrsched_runtime::proto::JobView;
use mrsched_runtime::tls::{self, Identity, TlsConfig, Trust};
use mrsched_runtime::worker::{run_worker, WorkerConfig};
use mrsched_sched::SchedulerConfig;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

type Result<T> = std::result::Result<T, CliError>;

fn fail(msg: impl std::fmt::Display) -> CliError {
    CliError {
        message: msg.to_string(),
        code: 1,
    }
}

fn usage(msg: impl std::fmt::Display) -> CliError {
    CliError {
        message: msg.to_string(),
        code: 2,
    }
}

fn api(e: ClientError) -> CliError {
    let code = match e.status {
        Some(400) | Some(401) | Some(403) | Some(404) | Some(409) => 2,
        _ => 1,
    };
    CliError {
        message: e.message,
        code,
    }
}

/// The live-cluster subcommands.
#[derive(Subcommand, Debug)]
pub enum LiveCommand {
    /// Run a master: owns the cluster state and the scheduler, serves the
    /// worker and user APIs.
    ///
    /// It also serves Prometheus metrics at `GET /metrics` (jobs by status,
    /// task attempts by kind, locality and outcome, pools' running work and
    /// shares, workers, heartbeat / scheduling / journal latencies, uptime).
    /// A scrape sends `Authorization: Bearer TOKEN` with the token of
    /// `--metrics-token-file` or an admin user's token, unless the master runs
    /// with `--metrics-unauthenticated`. See docs/live.md, Metrics.
    Master(MasterArgs),
    /// Run a worker: runs tasks, stores blocks, serves map output.
    Worker(WorkerArgs),
    /// Start a master and N workers on this machine (Ctrl-C stops them).
    Local(LocalArgs),
    /// Submit a job file to a live cluster.
    Submit(SubmitArgs),
    /// Submit a job set: job files with release times, announced to the
    /// scheduler at once (offline MSJO planning, seed 001 §6.1) and each
    /// held by the master until its release.
    SubmitSet(SubmitSetArgs),
    /// List a live cluster's jobs.
    Jobs(ConnArgs),
    /// Show one job of a live cluster.
    Status(JobArgs),
    /// Kill one of your jobs.
    Kill(JobArgs),
    /// Pools with their running and pending work, and the scheduler's numbers.
    Pools(ConnArgs),
    /// The live run's metrics report (the same report as `simulate`).
    Metrics(ConnArgs),
    /// The block store: put, ls, cat, rm.
    #[command(subcommand)]
    Dfs(DfsCommand),
}

/// Output format of client commands.
#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum LiveFormat {
    /// A readable table.
    Table,
    /// JSON.
    Json,
}

/// How to reach a master.
#[derive(Args, Debug, Clone)]
pub struct ConnArgs {
    /// Master URL [env: MRSCHED_MASTER; default http://127.0.0.1:7070].
    #[arg(long)]
    pub master: Option<String>,
    /// API token [env: MRSCHED_TOKEN].
    #[arg(long)]
    pub token: Option<String>,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = LiveFormat::Table)]
    pub format: LiveFormat,
    /// Trust an https:// master whose certificate is issued by these roots
    /// (PEM; the cluster's self-signed cert.pem works too), names checked
    /// [env: MRSCHED_TLS_CA].
    #[arg(long, value_name = "FILE")]
    pub tls_ca: Option<PathBuf>,
    /// Trust an https:// master whose certificate has this SHA-256
    /// fingerprint, whatever its name (the master prints it at start)
    /// [env: MRSCHED_TLS_FINGERPRINT].
    #[arg(long, value_name = "SHA256:HEX", conflicts_with = "tls_ca")]
    pub tls_fingerprint: Option<String>,
    /// Send the token to a plain http:// master that is not on loopback
    /// (it crosses the network in clear).
    #[arg(long)]
    pub insecure: bool,
}

impl ConnArgs {
    fn client(&self) -> Result<Client> {
        let master = self
            .master
            .clone()
            .or_else(|| std::env::var("MRSCHED_MASTER").ok())
            .unwrap_or_else(|| "http://127.0.0.1:7070".into());
        let token = self
            .token
            .clone()
            .or_else(|| std::env::var("MRSCHED_TOKEN").ok());
        let trust = client_trust(self.tls_ca.clone(), self.tls_fingerprint.clone())?;
        if trust.is_none() && master.starts_with("https://") {
            return Err(usage(format!(
                "{master} is https://: say which certificate to trust with --tls-fingerprint SHA256:... (MRSCHED_TLS_FINGERPRINT) or --tls-ca FILE (MRSCHED_TLS_CA)"
            )));
        }
        let opts = ConnectOptions {
            trust,
            insecure: self.insecure,
        };
        Client::connect(&master, token, &opts).map_err(|e| usage(e.message))
    }
}

/// `mrsched submit`.
#[derive(Args, Debug)]
pub struct SubmitArgs {
    /// Job file (.toml or .json).
    pub file: PathBuf,
    /// Wait for the job to end and print its final state.
    #[arg(long)]
    pub wait: bool,
    #[command(flatten)]
    pub conn: ConnArgs,
}

/// `mrsched submit-set`.
#[derive(Args, Debug)]
pub struct SubmitSetArgs {
    /// Job files (.toml or .json).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Release time of each file, seconds after the submission (one per
    /// file, comma-separated; default: all 0).
    #[arg(long, value_delimiter = ',')]
    pub release_s: Vec<f64>,
    /// Wait for every job to end and print their final states.
    #[arg(long)]
    pub wait: bool,
    #[command(flatten)]
    pub conn: ConnArgs,
}

/// `mrsched status` / `kill`.
#[derive(Args, Debug)]
pub struct JobArgs {
    /// Job id.
    pub job: u32,
    #[command(flatten)]
    pub conn: ConnArgs,
}

/// `mrsched dfs ...`.
#[derive(Subcommand, Debug)]
pub enum DfsCommand {
    /// Store a local file (`-` for stdin), cut into blocks on line boundaries.
    Put(PutArgs),
    /// List files.
    Ls(ConnArgs),
    /// Write a file to stdout.
    Cat(NameArgs),
    /// Remove a file.
    Rm(NameArgs),
}

/// `mrsched dfs put`.
#[derive(Args, Debug)]
pub struct PutArgs {
    /// Local file, or `-` for stdin.
    pub file: PathBuf,
    /// Name in the block store.
    pub name: String,
    /// Block size: bytes, or with a K, M or G suffix.
    #[arg(long, default_value = "64M")]
    pub block_size: String,
    /// Replicas per block.
    #[arg(long, default_value_t = 3)]
    pub replication: u32,
    #[command(flatten)]
    pub conn: ConnArgs,
}

/// A file name.
#[derive(Args, Debug)]
pub struct NameArgs {
    /// Name in the block store.
    pub name: String,
    #[command(flatten)]
    pub conn: ConnArgs,
}

/// Settings shared by `master` and `local`.
#[derive(Args, Debug, Clone)]
pub struct ClusterArgs {
    /// Scheduler preset (see `mrsched list schedulers`) or scheduler file.
    #[arg(long, short = 's', default_value = "fifo")]
    pub scheduler: String,
    /// Worker heartbeat interval, milliseconds.
    #[arg(long, default_value_t = 1000)]
    pub heartbeat_ms: u64,
    /// A worker that missed this many heartbeats in a row is declared lost
    /// (sooner when it also refuses connections; docs/live.md, Faults).
    #[arg(long, default_value_t = 3)]
    pub lost_after_missed: u32,
    /// A worker silent this long is declared lost, milliseconds (overrides
    /// --lost-after-missed).
    #[arg(long)]
    pub worker_timeout_ms: Option<u64>,
    /// Replicas of job output blocks.
    #[arg(long, default_value_t = 3)]
    pub replication: u32,
    /// Map output buffer per attempt before it spills to disk, MB.
    #[arg(long, default_value_t = 64.0)]
    pub sort_buffer_mb: f64,
    /// Attempts per task before its job fails.
    #[arg(long, default_value_t = 4)]
    pub max_attempts: u32,
    /// Fraction of a job's maps done before its reduces start.
    #[arg(long, default_value_t = 0.05)]
    pub reduce_slowstart: f64,
    /// Seed of block placement.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Pool each worker's map and reduce slots into unified slots that run
    /// either kind of task (the MSJO planners' machines).
    #[arg(long)]
    pub unified_slots: bool,
    /// Resource bounds of the API.
    #[command(flatten)]
    pub limits: crate::live_limits::LimitArgs,
    /// Re-replication copies in flight per worker (as source or target).
    #[arg(long, default_value_t = 2)]
    pub rereplication_streams: u32,
    /// Re-replication copies in flight in the whole cluster.
    #[arg(long, default_value_t = 8)]
    pub rereplication_max_copies: u32,
}

impl ClusterArgs {
    fn to_args(&self) -> Vec<String> {
        let mut v = vec![
            "--scheduler".into(),
            self.scheduler.clone(),
            "--heartbeat-ms".into(),
            self.heartbeat_ms.to_string(),
            "--lost-after-missed".into(),
            self.lost_after_missed.to_string(),
            "--replication".into(),
            self.replication.to_string(),
            "--sort-buffer-mb".into(),
            self.sort_buffer_mb.to_string(),
            "--max-attempts".into(),
            self.max_attempts.to_string(),
            "--reduce-slowstart".into(),
            self.reduce_slowstart.to_string(),
            "--seed".into(),
            self.seed.to_string(),
        ];
        if self.unified_slots {
            v.push("--unified-slots".into());
        }
        v.extend(self.limits.to_args());
        v.extend([
            "--rereplication-streams".into(),
            self.rereplication_streams.to_string(),
            "--rereplication-max-copies".into(),
            self.rereplication_max_copies.to_string(),
        ]);
        if let Some(t) = self.worker_timeout_ms {
            v.extend(["--worker-timeout-ms".into(), t.to_string()]);
        }
        v
    }
}

/// `mrsched master`.
#[derive(Args, Debug)]
pub struct MasterArgs {
    /// Work directory (journal, address file; secret and users files by
    /// default).
    #[arg(long, default_value = "mrsched-master")]
    pub dir: PathBuf,
    /// Address to listen on (loopback by default; give a routable address
    /// to let other machines in).
    #[arg(long, default_value = "127.0.0.1:7070")]
    pub listen: SocketAddr,
    /// Workers the cluster waits for before it forms.
    #[arg(long, default_value_t = 1)]
    pub workers: u32,
    /// File holding the cluster secret (created if missing) [default: DIR/secret].
    #[arg(long)]
    pub secret_file: Option<PathBuf>,
    /// Users file (TOML `[users.NAME] token = "..." admin = true`) [default:
    /// DIR/users.toml, created with one admin user if missing].
    #[arg(long)]
    pub users: Option<PathBuf>,
    /// File holding the token Prometheus scrapes `GET /metrics` with
    /// (created with a random token if missing). Admin users' tokens are
    /// accepted too; without this flag only they are.
    #[arg(long, value_name = "FILE")]
    pub metrics_token_file: Option<PathBuf>,
    /// Serve `GET /metrics` without a token (only on a trusted scrape
    /// network).
    #[arg(long, conflicts_with = "metrics_token_file")]
    pub metrics_unauthenticated: bool,
    /// Serve TLS with this certificate chain (PEM; with --tls-key). Workers
    /// serve with the same pair.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Serve TLS with a self-signed pair kept in DIR/cert.pem and
    /// DIR/key.pem (generated on first start); prints its fingerprint.
    #[arg(long, conflicts_with = "tls_cert")]
    pub tls_self_signed: bool,
    /// Another name (host name or IP address) the self-signed certificate
    /// is made for (repeatable; only when it is generated).
    #[arg(long, value_name = "NAME", requires = "tls_self_signed")]
    pub tls_san: Vec<String>,
    /// Verify workers' certificates by these roots (PEM) and their names
    /// [default: trust exactly the master's own certificate].
    #[arg(long, value_name = "FILE")]
    pub tls_ca: Option<PathBuf>,
    /// Listen beyond loopback without TLS (the secret and tokens then cross
    /// the network in clear).
    #[arg(long)]
    pub insecure: bool,
    #[command(flatten)]
    pub cluster: ClusterArgs,
}

/// `mrsched worker`.
#[derive(Args, Debug)]
pub struct WorkerArgs {
    /// The master's URL.
    #[arg(long)]
    pub master: String,
    /// Work directory (blocks, map outputs).
    #[arg(long, default_value = "mrsched-worker")]
    pub dir: PathBuf,
    /// Worker name (default: kept in DIR/name, generated once).
    #[arg(long)]
    pub name: Option<String>,
    /// Rack name.
    #[arg(long, default_value = "rack-0")]
    pub rack: String,
    /// Map slots.
    #[arg(long, default_value_t = 2)]
    pub map_slots: u32,
    /// Reduce slots.
    #[arg(long, default_value_t = 1)]
    pub reduce_slots: u32,
    /// Address of the data server (port 0: any free port).
    #[arg(long, default_value = "127.0.0.1:0")]
    pub listen: SocketAddr,
    /// Host name other machines reach this worker by.
    #[arg(long)]
    pub advertise: Option<String>,
    /// File holding the cluster secret [env: MRSCHED_SECRET].
    #[arg(long)]
    pub secret_file: Option<PathBuf>,
    /// Serve the data server over TLS with the cluster's certificate (PEM,
    /// the master's, copied with the secret; with --tls-key). It is then
    /// also what the worker trusts the master and other workers by.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Verify the master and other workers by these roots (PEM) and their
    /// names instead.
    #[arg(long, value_name = "FILE")]
    pub tls_ca: Option<PathBuf>,
    /// Also trust the certificate with this fingerprint (the master's)
    /// [env: MRSCHED_TLS_FINGERPRINT].
    #[arg(long, value_name = "SHA256:HEX", conflicts_with = "tls_ca")]
    pub tls_fingerprint: Option<String>,
    /// Listen beyond loopback without TLS, and send the secret to a plain
    /// http:// master beyond loopback.
    #[arg(long)]
    pub insecure: bool,
}

/// `mrsched local`.
#[derive(Args, Debug)]
pub struct LocalArgs {
    /// Workers to start.
    #[arg(long, default_value_t = 2)]
    pub workers: u32,
    /// Work directory.
    #[arg(long, default_value = "mrsched-local")]
    pub dir: PathBuf,
    /// Master port on 127.0.0.1 (0: any free port).
    #[arg(long, default_value_t = 7070)]
    pub port: u16,
    /// Racks the workers are spread over.
    #[arg(long, default_value_t = 1)]
    pub racks: u32,
    /// Map slots per worker.
    #[arg(long, default_value_t = 2)]
    pub map_slots: u32,
    /// Reduce slots per worker.
    #[arg(long, default_value_t = 1)]
    pub reduce_slots: u32,
    /// Serve `GET /metrics` without a token (default: scrapes need the
    /// token in DIR/metrics-token, or an admin user's token).
    #[arg(long)]
    pub metrics_unauthenticated: bool,
    #[command(flatten)]
    pub cluster: ClusterArgs,
}

/// Run a live-cluster subcommand.
pub fn run(cmd: LiveCommand) -> Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(fail)?;
    rt.block_on(async move {
        match cmd {
            LiveCommand::Master(a) => master(a).await,
            LiveCommand::Worker(a) => worker(a).await,
            LiveCommand::Local(a) => local(a).await,
            LiveCommand::Submit(a) => submit(a).await,
            LiveCommand::SubmitSet(a) => submit_set(a).await,
            LiveCommand::Jobs(a) => jobs(a).await,
            LiveCommand::Status(a) => status(a).await,
            LiveCommand::Kill(a) => kill(a).await,
            LiveCommand::Pools(a) => pools(a).await,
            LiveCommand::Metrics(a) => metrics(a).await,
            LiveCommand::Dfs(d) => dfs(d).await,
        }
    })
}

/// Resolves on Ctrl-C or SIGTERM.
async fn stop_signal() {
    let term = async {
        #[cfg(unix)]
        {
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(mut s) => {
                    s.recv().await;
                }
                Err(_) => std::future::pending::<()>().await,
            }
        }
        #[cfg(not(unix))]
        std::future::pending::<()>().await
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term => {}
    }
}

/// What a client trusts: roots from a file or a pinned fingerprint, from
/// the flags, else from the environment.
fn client_trust(ca: Option<PathBuf>, fingerprint: Option<String>) -> Result<Option<Trust>> {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    if let Some(ca) = &ca {
        return Ok(Some(Trust::roots(ca).map_err(usage)?));
    }
    if let Some(fp) = fingerprint.or_else(|| env("MRSCHED_TLS_FINGERPRINT")) {
        return Ok(Some(Trust::Pin(vec![fp.parse().map_err(usage)?])));
    }
    match env("MRSCHED_TLS_CA") {
        Some(ca) => Ok(Some(Trust::roots(Path::new(&ca)).map_err(usage)?)),
        None => Ok(None),
    }
}

/// The master's TLS: its pair (from files or self-signed in its
/// directory) and, for its connections to workers, `--tls-ca` or exactly
/// its own certificate.
fn master_tls(a: &MasterArgs) -> Result<TlsConfig> {
    let (cert, key) = match (&a.tls_cert, &a.tls_key) {
        (Some(c), Some(k)) => (c.clone(), k.clone()),
        _ if a.tls_self_signed => {
            let (c, k, created) =
                tls::ensure_self_signed(&a.dir, a.listen, &a.tls_san).map_err(fail)?;
            if created {
                eprintln!(
                    "mrsched master: created a self-signed certificate {} and its key {}",
                    c.display(),
                    k.display()
                );
            }
            (c, k)
        }
        _ => return Ok(TlsConfig::default()),
    };
    let identity = Identity::load(&cert, &key).map_err(usage)?;
    eprintln!(
        "mrsched master: TLS certificate {} with fingerprint {}",
        cert.display(),
        identity.fingerprint
    );
    eprintln!(
        "mrsched master: clients: export MRSCHED_TLS_FINGERPRINT={} (or --tls-ca {}); workers: --tls-cert and --tls-key with copies of this pair",
        identity.fingerprint,
        cert.display()
    );
    let mut cfg = TlsConfig::cluster(identity);
    if let Some(ca) = &a.tls_ca {
        cfg.trust = Some(Trust::roots(ca).map_err(usage)?);
    }
    Ok(cfg)
}

/// The worker's TLS: the cluster's pair, and what it trusts the master and
/// other workers by (`--tls-ca`, else its own certificate and any pinned
/// fingerprint). Refuses a plain listener beyond loopback and sending the
/// secret over plain HTTP beyond loopback unless `--insecure`.
fn worker_tls(a: &WorkerArgs) -> Result<TlsConfig> {
    let mut cfg = match (&a.tls_cert, &a.tls_key) {
        (Some(c), Some(k)) => TlsConfig::cluster(Identity::load(c, k).map_err(usage)?),
        _ => TlsConfig::default(),
    };
    tls::check_listen(
        "mrsched worker",
        a.listen,
        cfg.identity.is_some(),
        a.insecure,
    )
    .map_err(usage)?;
    tls::check_plain_url(&a.master, "the cluster secret", a.insecure).map_err(usage)?;
    match client_trust(a.tls_ca.clone(), a.tls_fingerprint.clone())? {
        Some(Trust::Pin(mut pins)) => {
            if let Some(id) = &cfg.identity {
                pins.push(id.fingerprint);
            }
            cfg.trust = Some(Trust::Pin(pins));
        }
        Some(roots) => cfg.trust = Some(roots),
        None => {}
    }
    if cfg.trust.is_none() && a.master.starts_with("https://") {
        return Err(usage(format!(
            "{} is https://: give the cluster's --tls-cert and --tls-key, or --tls-fingerprint SHA256:... or --tls-ca FILE",
            a.master
        )));
    }
    Ok(cfg)
}

fn read_secret(path: &Path) -> Result<String> {
    let s = std::fs::read_to_string(path).map_err(|e| {
        usage(format!(
            "{}: cannot read the cluster secret: {e}",
            path.display()
        ))
    })?;
    let s = s.trim().to_string();
    if s.len() < 16 {
        return Err(usage(format!(
            "{}: the cluster secret must be at least 16 characters",
            path.display()
        )));
    }
    Ok(s)
}

/// Who may scrape `/metrics`: the token in `file` (created if missing),
/// everyone, or (neither) admin users only.
fn scrape_auth(file: Option<&Path>, unauthenticated: bool) -> Result<ScrapeAuth> {
    let token = match file {
        None => None,
        Some(p) => {
            let existed = p.exists();
            let t = ensure_secret(p).map_err(fail)?;
            if t.len() < 16 {
                return Err(usage(format!(
                    "{}: the metrics token must be at least 16 characters",
                    p.display()
                )));
            }
            if !existed {
                eprintln!(
                    "mrsched master: created {} (the token for scraping /metrics)",
                    p.display()
                );
            }
            Some(t)
        }
    };
    Ok(ScrapeAuth {
        token,
        unauthenticated,
    })
}

fn settings(a: &ClusterArgs, workers: u32) -> Result<MasterSettings> {
    let scheduler = SchedulerConfig::resolve(&a.scheduler)?;
    if a.heartbeat_ms == 0 {
        return Err(usage("--heartbeat-ms must be positive"));
    }
    if a.lost_after_missed == 0 {
        return Err(usage("--lost-after-missed must be at least 1"));
    }
    let worker_timeout_ms = match a.worker_timeout_ms {
        Some(t) if t <= a.heartbeat_ms => {
            return Err(usage(
                "--worker-timeout-ms must be larger than --heartbeat-ms",
            ))
        }
        Some(t) => t,
        None => a.heartbeat_ms.saturating_mul(a.lost_after_missed as u64),
    };
    if !(a.sort_buffer_mb.is_finite() && a.sort_buffer_mb > 0.0) {
        return Err(usage("--sort-buffer-mb must be positive"));
    }
    if a.max_attempts == 0 {
        return Err(usage("--max-attempts must be at least 1"));
    }
    if !(0.0..=1.0).contains(&a.reduce_slowstart) {
        return Err(usage("--reduce-slowstart must be a fraction in [0, 1]"));
    }
    if workers == 0 {
        return Err(usage("--workers must be at least 1"));
    }
    if a.rereplication_streams == 0 || a.rereplication_max_copies == 0 {
        return Err(usage(
            "--rereplication-streams and --rereplication-max-copies must be at least 1",
        ));
    }
    Ok(MasterSettings {
        workers,
        scheduler,
        heartbeat: Duration::from_millis(a.heartbeat_ms),
        worker_timeout: Duration::from_millis(worker_timeout_ms),
        replication: a.replication.max(1),
        sort_buffer: (a.sort_buffer_mb * 1_048_576.0) as u64,
        max_attempts: a.max_attempts,
        reduce_slowstart: a.reduce_slowstart,
        seed: a.seed,
        unified_slots: a.unified_slots,
        limits: a.limits.limits().map_err(usage)?,
        rereplication: mrsched_runtime::master::core::replication::ReplicationSettings {
            streams: a.rereplication_streams,
            max_copies: a.rereplication_max_copies,
            ..Default::default()
        },
    })
}

async fn master(a: MasterArgs) -> Result<()> {
    let settings = settings(&a.cluster, a.workers)?;
    let serves_tls = a.tls_cert.is_some() || a.tls_self_signed;
    tls::check_listen("mrsched master", a.listen, serves_tls, a.insecure).map_err(usage)?;
    std::fs::create_dir_all(&a.dir).map_err(|e| fail(format!("{}: {e}", a.dir.display())))?;
    let tls = master_tls(&a)?;
    let secret_path = a
        .secret_file
        .clone()
        .unwrap_or_else(|| a.dir.join("secret"));
    let secret = if a.secret_file.is_some() {
        read_secret(&secret_path)?
    } else {
        ensure_secret(&secret_path).map_err(fail)?
    };
    let users_path = a.users.clone().unwrap_or_else(|| a.dir.join("users.toml"));
    if a.users.is_none() && !users_path.exists() {
        let (u, t) = ensure_users(&users_path, "admin").map_err(fail)?;
        eprintln!(
            "mrsched master: created {} with user `{u}` (token {t})",
            users_path.display()
        );
    }
    let src = Source::read(&users_path).map_err(|e| usage(e.to_string()))?;
    let users = Users::parse(&src)?;
    let metrics = scrape_auth(a.metrics_token_file.as_deref(), a.metrics_unauthenticated)?;
    if metrics.unauthenticated && !a.listen.ip().is_loopback() {
        eprintln!(
            "mrsched master: /metrics answers anyone who can reach {} (--metrics-unauthenticated)",
            a.listen
        );
    }
    if !a.listen.ip().is_loopback() && !serves_tls {
        eprintln!(
            "mrsched master: listening on {} (not loopback): anyone who can reach it needs the cluster secret or a user token; traffic is not encrypted (--insecure)",
            a.listen
        );
    }
    let cfg = MasterConfig {
        dir: a.dir.clone(),
        listen: a.listen,
        secret,
        users,
        settings,
        metrics,
        tls,
    };
    let core = open_core(&cfg, None).map_err(fail)?;
    run_master(cfg, core, stop_signal()).await.map_err(fail)?;
    eprintln!("mrsched master: stopped");
    Ok(())
}

async fn worker(a: WorkerArgs) -> Result<()> {
    let secret = match (&a.secret_file, std::env::var("MRSCHED_SECRET")) {
        (Some(p), _) => read_secret(p)?,
        (None, Ok(s)) if s.len() >= 16 => s,
        _ => {
            return Err(usage(
                "the worker needs the cluster secret: --secret-file FILE or MRSCHED_SECRET",
            ))
        }
    };
    if a.map_slots == 0 {
        return Err(usage("--map-slots must be at least 1"));
    }
    let tls = worker_tls(&a)?;
    std::fs::create_dir_all(&a.dir).map_err(|e| fail(format!("{}: {e}", a.dir.display())))?;
    let cfg = WorkerConfig {
        master: a.master.trim_end_matches('/').to_string(),
        dir: a.dir,
        name: a.name,
        rack: a.rack,
        map_slots: a.map_slots,
        reduce_slots: a.reduce_slots,
        listen: a.listen,
        advertise: a.advertise,
        secret,
        tls,
    };
    run_worker(cfg, stop_signal()).await.map_err(fail)?;
    Ok(())
}

async fn local(a: LocalArgs) -> Result<()> {
    settings(&a.cluster, a.workers)?;
    let exe = std::env::current_exe().map_err(fail)?;
    let cfg = LocalConfig {
        exe,
        dir: a.dir.clone(),
        workers: a.workers,
        port: a.port,
        racks: a.racks,
        map_slots: a.map_slots,
        reduce_slots: a.reduce_slots,
        master_args: a.cluster.to_args(),
        metrics_unauthenticated: a.metrics_unauthenticated,
    };
    let mut lc = LocalCluster::start(&cfg).await.map_err(fail)?;
    println!(
        "mrsched local: master {} with {} workers (work directory {})",
        lc.url,
        a.workers,
        a.dir.display()
    );
    println!("export MRSCHED_MASTER={}", lc.url);
    println!("export MRSCHED_TOKEN={}   # user `{}`", lc.token, lc.user);
    println!(
        "# Web UI: open {}/?token={} once (the browser then keeps a session cookie)",
        lc.url, lc.token
    );
    match &lc.metrics_token {
        Some(t) => println!(
            "# Prometheus metrics: curl -H 'Authorization: Bearer {t}' {}/metrics   (token in {})",
            lc.url,
            a.dir.join("metrics-token").display()
        ),
        None => println!("# Prometheus metrics: curl {}/metrics", lc.url),
    }
    println!("Ctrl-C stops the cluster.");
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let mut reported = std::collections::BTreeSet::new();
    let stop = stop_signal();
    tokio::pin!(stop);
    loop {
        tokio::select! {
            _ = &mut stop => break,
            _ = tokio::time::sleep(Duration::from_millis(500)) => {
                for (who, status) in lc.exited() {
                    if reported.insert(who.clone()) {
                        eprintln!("mrsched local: {who} exited ({status})");
                    }
                }
                if reported.contains("master") {
                    break;
                }
            }
        }
    }
    eprintln!("mrsched local: stopping");
    tokio::task::spawn_blocking(move || lc.stop())
        .await
        .map_err(fail)?;
    eprintln!("mrsched local: stopped");
    Ok(())
}

fn print_json<T: serde::Serialize>(v: &T) -> Result<()> {
    println!("{}", serde_json::to_string_pretty(v).map_err(fail)?);
    Ok(())
}

fn job_rows(js: &[JobView]) -> String {
    let rows: Vec<Vec<String>> = js
        .iter()
        .map(|j| {
            vec![
                j.id.to_string(),
                j.name.clone(),
                j.user.clone(),
                j.pool.clone(),
                j.status.clone(),
                format!("{}/{}", j.maps_done, j.maps),
                format!("{}/{}", j.reduces_done, j.reduces),
                match j.finished_s {
                    Some(f) => format!("{:.1}", f - j.submitted_s),
                    None => "-".into(),
                },
                j.reason.clone().unwrap_or_default(),
            ]
        })
        .collect();
    render_table_aligned(
        &[
            "id", "name", "user", "pool", "status", "maps", "reduces", "time_s", "reason",
        ],
        &rows,
        &[true, false, false, false, false, true, true, true, false],
    )
}

async fn submit_set(a: SubmitSetArgs) -> Result<()> {
    use mrsched_runtime::proto::{JobSetEntry, JobSetRequest};
    if !a.release_s.is_empty() && a.release_s.len() != a.files.len() {
        return Err(usage(format!(
            "--release-s gives {} time(s) for {} file(s): give one per file",
            a.release_s.len(),
            a.files.len()
        )));
    }
    let mut jobs = Vec::new();
    for (k, file) in a.files.iter().enumerate() {
        let label = file.display().to_string();
        let text = std::fs::read_to_string(file)
            .map_err(|e| usage(format!("{label}: cannot read file: {e}")))?;
        let format = DocFormat::from_path(file);
        mrsched_runtime::jobfile::JobFile::parse(&Source::new(&label, text.clone(), format))?;
        let release_s = a.release_s.get(k).copied().unwrap_or(0.0);
        if !(release_s.is_finite() && release_s >= 0.0) {
            return Err(usage(format!(
                "--release-s: {label}: must be zero or more seconds, got {release_s}"
            )));
        }
        jobs.push(JobSetEntry {
            label,
            text,
            json: format == DocFormat::Json,
            release_s,
        });
    }
    let c = a.conn.client()?;
    let held = c.submit_set(&JobSetRequest { jobs }).await.map_err(api)?;
    if !a.wait {
        return match a.conn.format {
            LiveFormat::Json => print_json(&held),
            LiveFormat::Table => {
                for h in &held {
                    println!("job {} {} released at +{:.3} s", h.id, h.label, h.release_s);
                }
                Ok(())
            }
        };
    }
    let views = c
        .wait_set(&held, Duration::from_secs(365 * 86_400))
        .await
        .map_err(api)?;
    match a.conn.format {
        LiveFormat::Json => print_json(&views)?,
        LiveFormat::Table => print!("{}", job_rows(&views)),
    }
    let bad: Vec<String> = views
        .iter()
        .filter(|j| j.status != "succeeded")
        .map(|j| format!("job {} {}", j.id, j.status))
        .collect();
    if bad.is_empty() {
        Ok(())
    } else {
        Err(fail(bad.join(", ")))
    }
}

async fn submit(a: SubmitArgs) -> Result<()> {
    let label = a.file.display().to_string();
    let text = std::fs::read_to_string(&a.file)
        .map_err(|e| usage(format!("{label}: cannot read file: {e}")))?;
    let json = DocFormat::from_path(&a.file) == DocFormat::Json;
    // Check locally first: the same errors the master would give, without
    // a round trip.
    mrsched_runtime::jobfile::JobFile::parse(&Source::new(
        &label,
        text.clone(),
        DocFormat::from_path(&a.file),
    ))?;
    let c = a.conn.client()?;
    // One key per invocation: a retry after a lost connection (the master
    // restarting, say) gets the job the first attempt created, if it did.
    let key = mrsched_runtime::master::random_token();
    let s = match c.submit_keyed(&label, &text, json, &key).await {
        Err(e) if e.status.is_none() => {
            eprintln!("{}; retrying once in 1 s", e.message);
            tokio::time::sleep(Duration::from_secs(1)).await;
            c.submit_keyed(&label, &text, json, &key).await
        }
        r => r,
    }
    .map_err(api)?;
    if s.status == "rejected" {
        if a.conn.format == LiveFormat::Json {
            print_json(&s)?;
        }
        return Err(fail(format!(
            "job {} rejected by the scheduler: {}",
            s.id,
            s.reason.unwrap_or_default()
        )));
    }
    if a.wait {
        let pb = progress::job_bar(s.id);
        let waited = c
            .wait_with_progress(s.id, Duration::from_secs(365 * 86_400), &mut |j| {
                progress::job_update(&pb, j)
            })
            .await;
        pb.finish_and_clear();
        let j = waited.map_err(api)?;
        match a.conn.format {
            LiveFormat::Json => print_json(&j)?,
            LiveFormat::Table => print!("{}", job_rows(std::slice::from_ref(&j))),
        }
        if j.status != "succeeded" {
            return Err(fail(format!(
                "job {} {}: {}",
                j.id,
                j.status,
                j.reason.unwrap_or_default()
            )));
        }
        return Ok(());
    }
    match a.conn.format {
        LiveFormat::Json => print_json(&s),
        LiveFormat::Table => {
            println!("job {} submitted", s.id);
            Ok(())
        }
    }
}

async fn jobs(a: ConnArgs) -> Result<()> {
    let js = a.client()?.jobs().await.map_err(api)?;
    match a.format {
        LiveFormat::Json => print_json(&js),
        LiveFormat::Table => {
            print!("{}", job_rows(&js));
            Ok(())
        }
    }
}

async fn status(a: JobArgs) -> Result<()> {
    let j = a.conn.client()?.job(a.job).await.map_err(api)?;
    match a.conn.format {
        LiveFormat::Json => print_json(&j),
        LiveFormat::Table => {
            print!("{}", job_rows(std::slice::from_ref(&j)));
            println!(
                "output {}; maps node/rack/off-rack {}/{}/{}; block reads local/remote {}/{}",
                j.output, j.locality[0], j.locality[1], j.locality[2], j.reads[0], j.reads[1]
            );
            Ok(())
        }
    }
}

async fn kill(a: JobArgs) -> Result<()> {
    let j = a.conn.client()?.kill(a.job).await.map_err(api)?;
    match a.conn.format {
        LiveFormat::Json => print_json(&j),
        LiveFormat::Table => {
            println!("job {} {}", j.id, j.status);
            Ok(())
        }
    }
}

async fn pools(a: ConnArgs) -> Result<()> {
    let p = a.client()?.pools().await.map_err(api)?;
    match a.format {
        LiveFormat::Json => print_json(&p),
        LiveFormat::Table => {
            print!("{}", mrsched_metrics::output::pools_table(&p));
            Ok(())
        }
    }
}

async fn metrics(a: ConnArgs) -> Result<()> {
    let r = a.client()?.report().await.map_err(api)?;
    match a.format {
        LiveFormat::Json => print_json(&r),
        LiveFormat::Table => {
            print!("{}", summary_text(&r));
            Ok(())
        }
    }
}

/// Parse `64M`, `512K`, `1G` or plain bytes.
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (num, mul) = match s.chars().last()? {
        'k' | 'K' => (&s[..s.len() - 1], 1u64 << 10),
        'm' | 'M' => (&s[..s.len() - 1], 1 << 20),
        'g' | 'G' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    let v: f64 = num.trim().parse().ok()?;
    (v.is_finite() && v >= 1.0 / mul as f64).then_some((v * mul as f64) as u64)
}

/// `dfs put`: the upload, with a line of bytes stored and the rate on a
/// terminal.
async fn dfs_put(a: PutArgs) -> Result<()> {
    let block = parse_size(&a.block_size)
        .filter(|b| *b > 0)
        .ok_or_else(|| {
            usage(format!(
                "--block-size: `{}` is not a size such as 64M",
                a.block_size
            ))
        })?;
    let c = a.conn.client()?;
    let (mut r, total): (Box<dyn std::io::BufRead>, Option<u64>) = if a.file.as_os_str() == "-" {
        (Box::new(std::io::stdin().lock()), None)
    } else {
        let file = std::fs::File::open(&a.file)
            .map_err(|e| usage(format!("{}: cannot read file: {e}", a.file.display())))?;
        // A regular file's size is the line's total; a pipe's is not known.
        let total = file
            .metadata()
            .ok()
            .filter(|m| m.is_file())
            .map(|m| m.len());
        (
            Box::new(std::io::BufReader::with_capacity(1 << 20, file)),
            total,
        )
    };
    let pb = progress::bytes_bar(total);
    pb.tick();
    let put = c
        .put_with_progress(&mut r, &a.name, block, a.replication, &mut |n| {
            pb.set_position(n)
        })
        .await;
    match &put {
        Ok(_) => pb.finish(),
        Err(_) => pb.finish_and_clear(),
    }
    let f = put.map_err(api)?;
    match a.conn.format {
        LiveFormat::Json => print_json(&f),
        LiveFormat::Table => {
            println!("{}: {} bytes in {} blocks", f.name, f.bytes, f.blocks.len());
            Ok(())
        }
    }
}

async fn dfs(d: DfsCommand) -> Result<()> {
    match d {
        DfsCommand::Put(a) => dfs_put(a).await,
        DfsCommand::Ls(a) => {
            let fs = a.client()?.ls().await.map_err(api)?;
            match a.format {
                LiveFormat::Json => print_json(&fs),
                LiveFormat::Table => {
                    print!("{}", mrsched_runtime::client::render_ls(&fs));
                    Ok(())
                }
            }
        }
        DfsCommand::Cat(a) => {
            let stdout = std::io::stdout();
            let mut o = stdout.lock();
            a.conn.client()?.cat(&a.name, &mut o).await.map_err(api)?;
            Ok(())
        }
        DfsCommand::Rm(a) => {
            a.conn.client()?.rm(&a.name).await.map_err(api)?;
            if a.conn.format == LiveFormat::Table {
                println!("removed {}", a.name);
            } else {
                print_json(&serde_json::json!({"removed": a.name}))?;
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[derive(clap::Parser)]
    struct T {
        #[command(flatten)]
        c: super::ClusterArgs,
    }

    fn timeout(args: &[&str]) -> Result<std::time::Duration, String> {
        use clap::Parser;
        let t = T::try_parse_from(std::iter::once("t").chain(args.iter().copied()))
            .map_err(|e| e.to_string())?;
        super::settings(&t.c, 3)
            .map(|s| s.worker_timeout)
            .map_err(|e| e.message)
    }

    #[test]
    fn lost_workers_are_declared_after_missed_heartbeats_or_the_explicit_timeout() {
        let ms = std::time::Duration::from_millis;
        assert_eq!(timeout(&[]), Ok(ms(3000)), "3 missed heartbeats of 1 s");
        assert_eq!(
            timeout(&["--heartbeat-ms", "200", "--lost-after-missed", "5"]),
            Ok(ms(1000))
        );
        assert_eq!(timeout(&["--worker-timeout-ms", "30000"]), Ok(ms(30000)));
        let e = timeout(&["--lost-after-missed", "0"]).unwrap_err();
        assert!(e.contains("--lost-after-missed must be at least 1"), "{e}");
        let e = timeout(&["--worker-timeout-ms", "500"]).unwrap_err();
        assert!(e.contains("larger than --heartbeat-ms"), "{e}");
        let e = timeout(&["--heartbeat-ms", "0"]).unwrap_err();
        assert!(e.contains("--heartbeat-ms must be positive"), "{e}");
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("64M"), Some(64 << 20));
        assert_eq!(parse_size("512k"), Some(512 << 10));
        assert_eq!(parse_size("1000"), Some(1000));
        assert_eq!(parse_size("0.5K"), Some(512));
        assert_eq!(parse_size("x"), None);
        assert_eq!(parse_size(""), None);
    }
}
