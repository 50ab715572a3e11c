//! Starting the pieces: a Ballista scheduler whose task distribution policy
//! is mrsched's (or Ballista's own, for comparisons), its HTTP views, and
//! executors.

use crate::observe::Observer;
use crate::options::scheduler_session_config;
use crate::policy::MrschedPolicy;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use ballista_core::config::TaskSchedulingPolicy;
use ballista_executor::executor_process::{start_executor_process, ExecutorProcessConfig};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::{SchedulerConfig as BallistaConfig, TaskDistributionPolicy};
use ballista_scheduler::scheduler_process::{create_scheduler, start_grpc_service_with_listener};
use datafusion_proto::protobuf::{LogicalPlanNode, PhysicalPlanNode};
use mrsched_mirror::{Mirror, Topology};
use mrsched_sched::SchedulerConfig;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// Who decides which task runs where.
#[derive(Clone, Debug)]
pub enum Decider {
    /// An mrsched scheduler configuration (a preset, a scheduler file or a
    /// `fair-scheduler.xml`), checked with [`mrsched_mirror::check_policy`].
    Mrsched(Box<SchedulerConfig>),
    /// Ballista's own `bias` policy (its default): every stage's tasks on
    /// the executors with the most free vcores, jobs in hash-map order.
    StockBias,
    /// Ballista's own `round-robin` policy.
    StockRoundRobin,
}

impl Decider {
    /// Parse `--scheduler`: `ballista-bias`, `ballista-round-robin`, or
    /// anything `mrsched simulate --scheduler` takes. Errors name the file,
    /// line and field, or why the policy cannot drive Ballista.
    pub fn parse(arg: &str) -> Result<Decider, String> {
        match arg {
            "ballista-bias" => return Ok(Decider::StockBias),
            "ballista-round-robin" => return Ok(Decider::StockRoundRobin),
            _ => {}
        }
        let cfg = SchedulerConfig::resolve(arg).map_err(|e| e.to_string())?;
        mrsched_mirror::check_policy(&cfg).map_err(|e| e.to_string())?;
        Ok(Decider::Mrsched(Box::new(cfg)))
    }

    /// A label for logs and views.
    pub fn label(&self) -> String {
        match self {
            Decider::Mrsched(c) => c.label.clone(),
            Decider::StockBias => "ballista-bias".into(),
            Decider::StockRoundRobin => "ballista-round-robin".into(),
        }
    }
}

/// How to start a scheduler.
#[derive(Clone, Debug)]
pub struct SchedulerSettings {
    /// gRPC address (port 0: any free port).
    pub bind: SocketAddr,
    /// HTTP address of the pool, metrics and observation views.
    pub http: SocketAddr,
    /// The policy.
    pub decider: Decider,
    /// Executor host to rack.
    pub topology: Topology,
    /// Push scheduling (the scheduler offers every executor's free vcores
    /// at once) instead of pull (each executor's poll is a heartbeat).
    pub push: bool,
    /// Seconds without a poll before an executor is declared lost and its
    /// tasks run again elsewhere (Ballista's default: 180).
    pub executor_timeout_s: u64,
}

/// A started scheduler.
pub struct RunningScheduler {
    /// Its gRPC address (`df://` clients and executors connect here).
    pub grpc: SocketAddr,
    /// Its HTTP address.
    pub http: SocketAddr,
    /// The mrsched policy, unless Ballista's own decides.
    pub policy: Option<Arc<MrschedPolicy>>,
    /// The engine-side sampler.
    pub observer: Arc<Observer>,
    /// The gRPC server task (ends with an error if the server fails).
    pub server: tokio::task::JoinHandle<Result<(), String>>,
}

#[derive(Clone)]
struct Views {
    policy: Option<Arc<MrschedPolicy>>,
    observer: Arc<Observer>,
}

fn no_pools() -> Response {
    (
        StatusCode::NOT_FOUND,
        "this scheduler runs one of Ballista's own policies: it has no pools\n",
    )
        .into_response()
}

async fn pools(State(v): State<Views>) -> Response {
    match &v.policy {
        Some(p) => Json(p.pools().await).into_response(),
        None => no_pools(),
    }
}

async fn metrics(State(v): State<Views>) -> Response {
    match &v.policy {
        Some(p) => Json(p.report().await).into_response(),
        None => no_pools(),
    }
}

async fn observed(State(v): State<Views>) -> Response {
    Json(v.observer.observed()).into_response()
}

/// Start a scheduler with `settings` on this runtime.
pub async fn start_scheduler(settings: SchedulerSettings) -> Result<RunningScheduler, String> {
    let listener = tokio::net::TcpListener::bind(settings.bind)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", settings.bind))?;
    let grpc = listener.local_addr().map_err(|e| e.to_string())?;
    // Configuration warnings (such as minimum shares above capacity) depend
    // on the executors: the mirror logs them as executors register.
    let (distribution, policy) = match &settings.decider {
        Decider::Mrsched(cfg) => {
            let mirror = Mirror::new((**cfg).clone(), settings.topology.clone(), &cfg.label)
                .map_err(|e| e.to_string())?;
            let p = Arc::new(MrschedPolicy::new(
                mirror,
                &format!("mrsched-{}", cfg.label),
            ));
            (TaskDistributionPolicy::Custom(p.clone()), Some(p))
        }
        Decider::StockBias => (TaskDistributionPolicy::Bias, None),
        Decider::StockRoundRobin => (TaskDistributionPolicy::RoundRobin, None),
    };
    let scheduling = if settings.push {
        TaskSchedulingPolicy::PushStaged
    } else {
        TaskSchedulingPolicy::PullStaged
    };
    let producer: ballista_core::ConfigProducer = Arc::new(scheduler_session_config);
    let mut cfg = BallistaConfig::default()
        .with_hostname(grpc.ip().to_string())
        .with_port(grpc.port())
        .with_scheduler_policy(scheduling)
        .with_task_distribution(distribution)
        .with_override_config_producer(producer);
    cfg.bind_host = grpc.ip().to_string();
    cfg.executor_timeout_seconds = settings.executor_timeout_s.max(1);
    cfg.expire_dead_executor_interval_seconds = (settings.executor_timeout_s / 3).clamp(1, 15);
    let cfg = Arc::new(cfg);
    let cluster = BallistaCluster::new_from_config(&cfg)
        .await
        .map_err(|e| format!("cannot create the Ballista cluster state: {e}"))?;
    if let Some(p) = &policy {
        p.set_cluster(cluster.cluster_state());
    }
    let scheduler = create_scheduler::<LogicalPlanNode, PhysicalPlanNode>(cluster, cfg)
        .await
        .map_err(|e| format!("cannot start the Ballista scheduler: {e}"))?;
    let observer = Observer::new(scheduler.state.clone());
    observer.spawn(Duration::from_millis(20));
    let server = tokio::spawn(async move {
        start_grpc_service_with_listener(listener, scheduler)
            .await
            .map_err(|e| e.to_string())
    });
    let views = Views {
        policy: policy.clone(),
        observer: observer.clone(),
    };
    let app = Router::new()
        .route("/pools", get(pools))
        .route("/metrics", get(metrics))
        .route("/observed", get(observed))
        .route("/health", get(|| async { "ok\n" }))
        .with_state(views);
    let http_listener = tokio::net::TcpListener::bind(settings.http)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", settings.http))?;
    let http = http_listener.local_addr().map_err(|e| e.to_string())?;
    tokio::spawn(async move {
        let _ = axum::serve(http_listener, app).await;
    });
    Ok(RunningScheduler {
        grpc,
        http,
        policy,
        observer,
        server,
    })
}

/// How to start an executor.
#[derive(Clone, Debug)]
pub struct ExecutorSettings {
    /// Executor id (empty: a random one).
    pub id: String,
    /// Scheduler address.
    pub scheduler: (String, u16),
    /// Address to bind (its Flight and gRPC ports).
    pub bind_host: String,
    /// Flight port (shuffle data).
    pub port: u16,
    /// gRPC port.
    pub grpc_port: u16,
    /// Vcores (task slots).
    pub vcores: usize,
    /// Where shuffle files go.
    pub work_dir: Option<String>,
    /// Push scheduling (must match the scheduler).
    pub push: bool,
}

/// Run an executor until it is told to stop (SIGTERM, Ctrl-C).
pub async fn run_executor(s: ExecutorSettings) -> Result<(), String> {
    let mut cfg = ExecutorProcessConfig {
        bind_host: s.bind_host.clone(),
        port: s.port,
        grpc_port: s.grpc_port,
        scheduler_host: s.scheduler.0.clone(),
        scheduler_port: s.scheduler.1,
        vcores: s.vcores.max(1),
        task_scheduling_policy: if s.push {
            TaskSchedulingPolicy::PushStaged
        } else {
            TaskSchedulingPolicy::PullStaged
        },
        work_dir: s.work_dir.clone(),
        print_thread_info: false,
        override_config_producer: Some(Arc::new(scheduler_session_config)),
        ..Default::default()
    };
    if !s.id.is_empty() {
        cfg.executor_id = s.id.clone();
    }
    start_executor_process(Arc::new(cfg))
        .await
        .map_err(|e| format!("executor failed: {e}"))
}

/// A free TCP port on `host` (bound, then released) for an executor, which
/// must be told its ports before it starts (it advertises them to the
/// scheduler). The port is drawn below the kernel's ephemeral range: a port
/// the kernel hands out (`bind` to port 0) comes from that range, where
/// every outgoing connection on the machine takes its local port, and one
/// of them may take it before the executor binds it.
pub fn free_port(host: &str) -> Result<u16, String> {
    static CALLS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let (low, _) = ephemeral_range();
    let span = u32::from(low.saturating_sub(10_000)).max(1);
    // Each process, and each call in it, probes from its own start: several
    // ports are drawn before any executor binds them.
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let first = std::process::id()
        .wrapping_mul(7919)
        .wrapping_add(call.wrapping_mul(17));
    (0..span.min(512))
        .map(|k| 10_000 + (first.wrapping_add(k) % span) as u16)
        .find(|p| std::net::TcpListener::bind((host, *p)).is_ok())
        .map(Ok)
        .unwrap_or_else(|| {
            std::net::TcpListener::bind((host, 0))
                .and_then(|l| l.local_addr())
                .map(|a| a.port())
                .map_err(|e| format!("no free port on {host}: {e}"))
        })
}

/// The kernel's ephemeral port range (Linux's default when unknown).
fn ephemeral_range() -> (u16, u16) {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|s| {
            let mut it = s.split_whitespace().map(|x| x.parse::<u16>().ok());
            Some((it.next()??, it.next()??))
        })
        .unwrap_or((32768, 60999))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn executor_ports_come_from_below_the_ephemeral_range() {
        let (low, high) = ephemeral_range();
        assert!(low <= high);
        for _ in 0..8 {
            let p = free_port("127.0.0.1").unwrap();
            if low > 10_001 {
                assert!((10_000..low).contains(&p), "{p} in 10000..{low}");
            }
        }
    }
}
