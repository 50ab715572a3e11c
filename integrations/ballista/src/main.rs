//! `mrsched-ballista`: a Ballista scheduler whose tasks are placed by
//! mrsched's schedulers, its executors, an embedded local cluster, and the
//! pool and metrics views.

use clap::{Parser, Subcommand, ValueEnum};
use mrsched_ballista::service::{
    free_port, run_executor, start_scheduler, Decider, ExecutorSettings, SchedulerSettings,
};
use mrsched_mirror::Topology;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "mrsched-ballista",
    about = "mrsched's schedulers (FIFO, Fair with pools and delay scheduling) inside Apache DataFusion Ballista"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Table,
    Json,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a Ballista scheduler with an mrsched policy.
    Scheduler {
        /// A preset (`fifo`, `fair`, `fair+delay` ...), a scheduler file,
        /// a `fair-scheduler.xml`, or `ballista-bias` / `ballista-round-robin`
        /// for Ballista's own policies.
        #[arg(long, default_value = "fair")]
        scheduler: String,
        /// gRPC address for clients and executors.
        #[arg(long, default_value = "127.0.0.1:50050")]
        bind: SocketAddr,
        /// HTTP address of /pools, /metrics and /observed.
        #[arg(long, default_value = "127.0.0.1:50080")]
        http: SocketAddr,
        /// Hadoop table mapping of executor hosts to racks (`host rack`
        /// lines); every host on `/default-rack` without it.
        #[arg(long)]
        topology: Option<PathBuf>,
        /// Push scheduling instead of pull (executors must match).
        #[arg(long)]
        push: bool,
        /// Seconds without a poll before an executor is declared lost.
        #[arg(long, default_value_t = 180)]
        executor_timeout_s: u64,
    },
    /// Run a Ballista executor (pull scheduling) for such a scheduler.
    Executor {
        /// The scheduler's gRPC address, `host:port` (a name or an address).
        #[arg(long, default_value = "127.0.0.1:50050", value_parser = host_port)]
        scheduler: (String, u16),
        /// Address to bind.
        #[arg(long, default_value = "127.0.0.1")]
        bind_host: String,
        /// Flight port (shuffle data).
        #[arg(long, default_value_t = 50051)]
        port: u16,
        /// gRPC port.
        #[arg(long, default_value_t = 50052)]
        grpc_port: u16,
        /// Vcores (task slots), 1 to 2,500.
        #[arg(long, default_value_t = 2, value_parser = vcores_arg())]
        vcores: usize,
        /// Executor id (default: random).
        #[arg(long, default_value = "")]
        id: String,
        /// Directory for shuffle files (default: a temporary one).
        #[arg(long)]
        work_dir: Option<String>,
        /// Push scheduling (must match the scheduler).
        #[arg(long)]
        push: bool,
    },
    /// Start a scheduler and N executors on loopback, print how to connect,
    /// and run until interrupted.
    Local {
        /// Executors.
        #[arg(long, default_value_t = 2)]
        executors: usize,
        /// Vcores per executor, 1 to 2,500.
        #[arg(long, default_value_t = 2, value_parser = vcores_arg())]
        vcores: usize,
        /// The scheduler (as for `scheduler`).
        #[arg(long, default_value = "fair")]
        scheduler: String,
        /// gRPC port (0: any free port).
        #[arg(long, default_value_t = 50050)]
        port: u16,
        /// HTTP port (0: any free port).
        #[arg(long, default_value_t = 50080)]
        http_port: u16,
        /// Hadoop table mapping of executor ids to racks.
        #[arg(long)]
        topology: Option<PathBuf>,
        /// Seconds without a poll before an executor is declared lost.
        #[arg(long, default_value_t = 30)]
        executor_timeout_s: u64,
    },
    /// Show the pools of a running scheduler (as `mrsched pools`).
    Pools {
        /// The scheduler's HTTP address.
        #[arg(long, default_value = "127.0.0.1:50080")]
        http: SocketAddr,
        /// Output format.
        #[arg(long, value_enum, default_value = "table")]
        format: Format,
    },
    /// Show the run's metrics of a running scheduler (as `mrsched metrics`).
    Metrics {
        /// The scheduler's HTTP address.
        #[arg(long, default_value = "127.0.0.1:50080")]
        http: SocketAddr,
        /// Output format.
        #[arg(long, value_enum, default_value = "table")]
        format: Format,
    },
}

/// Vcores an executor may declare: the scheduler counts at most
/// [`mrsched_mirror::MAX_EXECUTOR_SLOTS`] per executor.
fn vcores_arg() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::<usize>::new()
        .range(1..=u64::from(mrsched_mirror::MAX_EXECUTOR_SLOTS))
}

/// `host:port`, the host a name or an address (`[::1]:50050` for IPv6).
fn host_port(arg: &str) -> Result<(String, u16), String> {
    let (host, port) = arg
        .rsplit_once(':')
        .ok_or_else(|| format!("expected host:port, got `{arg}`"))?;
    let port = port
        .parse::<u16>()
        .map_err(|_| format!("`{port}` is not a port (0 to 65535)"))?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.is_empty() {
        return Err(format!("expected host:port, got `{arg}`"));
    }
    Ok((host.to_string(), port))
}

fn topology(path: &Option<PathBuf>) -> Result<Topology, String> {
    match path {
        None => Ok(Topology::flat()),
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| format!("{}: cannot read: {e}", p.display()))?;
            Topology::parse(&p.display().to_string(), &text).map_err(|e| e.to_string())
        }
    }
}

async fn wait_for_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("a SIGTERM handler");
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
}

async fn scheduler(settings: SchedulerSettings) -> Result<(), String> {
    let label = settings.decider.label();
    let s = start_scheduler(settings).await?;
    println!(
        "mrsched-ballista: scheduler df://{} (policy {label}); pools at http://{}/pools",
        s.grpc, s.http
    );
    tokio::select! {
        r = s.server => r.map_err(|e| e.to_string())?,
        _ = wait_for_signal() => Ok(()),
    }
}

async fn local(
    executors: usize,
    vcores: usize,
    decider: Decider,
    (port, http_port): (u16, u16),
    topo: Topology,
    executor_timeout_s: u64,
) -> Result<(), String> {
    let label = decider.label();
    let s = start_scheduler(SchedulerSettings {
        bind: SocketAddr::from(([127, 0, 0, 1], port)),
        http: SocketAddr::from(([127, 0, 0, 1], http_port)),
        decider,
        topology: topo,
        push: false,
        executor_timeout_s,
    })
    .await?;
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let work = tempfile::Builder::new()
        .prefix("mrsched-ballista-")
        .tempdir()
        .map_err(|e| format!("cannot create a work directory: {e}"))?;
    let mut children = Vec::new();
    for i in 0..executors {
        let dir = work.path().join(format!("executor-{i}"));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let child = tokio::process::Command::new(&exe)
            .arg("executor")
            .arg("--scheduler")
            .arg(s.grpc.to_string())
            .args(["--port", &free_port("127.0.0.1")?.to_string()])
            .args(["--grpc-port", &free_port("127.0.0.1")?.to_string()])
            .args(["--vcores", &vcores.to_string()])
            .args(["--id", &format!("executor-{i}")])
            .arg("--work-dir")
            .arg(&dir)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot start executor {i}: {e}"))?;
        children.push(child);
    }
    println!(
        "mrsched-ballista: scheduler df://{grpc} (policy {label}), {executors} executors x {vcores} vcores",
        grpc = s.grpc
    );
    println!(
        "  pools:   http://{}/pools   (mrsched-ballista pools --http {})",
        s.http, s.http
    );
    println!("  metrics: http://{}/metrics", s.http);
    println!(
        "  connect: SessionContext::remote(\"df://{}\"), or mrsched_ballista::options::connect(url, user) to pick a pool with SET mrsched.pool = '...'",
        s.grpc
    );
    println!("ready");
    let r = tokio::select! {
        r = s.server => r.map_err(|e| e.to_string()).and_then(|x| x),
        _ = wait_for_signal() => Ok(()),
    };
    for mut c in children {
        let _ = c.kill().await;
    }
    r
}

async fn fetch(http: SocketAddr, path: &str) -> Result<serde_json::Value, String> {
    let url = format!("http://{http}{path}");
    // A server that accepts but never answers must not hang the command.
    let client = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(10))
        .build()
        .map_err(|e| e.to_string())?;
    let resp = client
        .get(&url)
        .send()
        .await
        .map_err(|e| format!("cannot reach {url}: {e}"))?;
    let status = resp.status();
    if !status.is_success() {
        let text = resp.text().await.unwrap_or_default();
        return Err(format!("{url}: {status}: {}", text.trim()));
    }
    resp.json()
        .await
        .map_err(|e| format!("{url}: not a JSON answer: {e}"))
}

async fn run(cli: Cli) -> Result<(), String> {
    match cli.cmd {
        Cmd::Scheduler {
            scheduler: arg,
            bind,
            http,
            topology: t,
            push,
            executor_timeout_s,
        } => {
            scheduler(SchedulerSettings {
                bind,
                http,
                decider: Decider::parse(&arg)?,
                topology: topology(&t)?,
                push,
                executor_timeout_s,
            })
            .await
        }
        Cmd::Executor {
            scheduler,
            bind_host,
            port,
            grpc_port,
            vcores,
            id,
            work_dir,
            push,
        } => {
            run_executor(ExecutorSettings {
                id,
                scheduler,
                bind_host,
                port,
                grpc_port,
                vcores,
                work_dir,
                push,
            })
            .await
        }
        Cmd::Local {
            executors,
            vcores,
            scheduler,
            port,
            http_port,
            topology: t,
            executor_timeout_s,
        } => {
            local(
                executors,
                vcores,
                Decider::parse(&scheduler)?,
                (port, http_port),
                topology(&t)?,
                executor_timeout_s,
            )
            .await
        }
        Cmd::Pools { http, format } => {
            show::<mrsched_sched::PoolsView>(http, "/pools", format, |p| {
                mrsched_metrics::output::pools_table(p)
            })
            .await
        }
        Cmd::Metrics { http, format } => {
            show::<mrsched_metrics::Report>(http, "/metrics", format, |r| {
                mrsched_metrics::output::summary_text(r)
            })
            .await
        }
    }
}

/// Fetch a view and print it as JSON or as `table` renders it.
async fn show<T: serde::de::DeserializeOwned>(
    http: SocketAddr,
    path: &str,
    format: Format,
    table: impl Fn(&T) -> String,
) -> Result<(), String> {
    let v = fetch(http, path).await?;
    match format {
        Format::Json => println!("{v:#}"),
        Format::Table => {
            let x: T = serde_json::from_value(v)
                .map_err(|e| format!("unexpected answer from {path}: {e}"))?;
            print!("{}", table(&x));
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("mrsched-ballista: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match rt.block_on(run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mrsched-ballista: {e}");
            ExitCode::FAILURE
        }
    }
}
