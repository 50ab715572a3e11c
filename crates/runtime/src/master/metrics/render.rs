//! One scrape: a fresh registry of what the core holds at this instant
//! (workers, jobs, pools) and of the [`Instruments`]' running counts,
//! encoded in the Prometheus text format. Families are registered in the
//! order `docs/live.md` lists them.

use super::Instruments;
use crate::master::core::Core;
use mrsched_model::NodeId;
use mrsched_state::JobStatus;
use prometheus_client::encoding::prometheus_text;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use std::sync::atomic::AtomicU64;

type Labels = Vec<(&'static str, String)>;
type FloatGauge = Gauge<f64, AtomicU64>;

fn gauge(v: i64) -> Gauge {
    let g = Gauge::default();
    g.set(v);
    g
}

fn counter(v: u64) -> Counter {
    let c = Counter::default();
    c.inc_by(v);
    c
}

/// Encode the master's metrics (names in `docs/live.md`, Metrics).
pub fn render(core: &Core) -> Result<String, std::fmt::Error> {
    let mut r = Registry::with_prefix("mrsched");
    let uptime = FloatGauge::default();
    uptime.set(core.b.metrics.started.elapsed().as_secs_f64());
    r.register(
        "master_uptime_seconds",
        "Seconds since this master process started",
        uptime,
    );
    workers(core, &mut r);
    jobs(core, &mut r);
    core.b.metrics.register(&mut r);
    pools(core, &mut r);
    core.register_replication_metrics(&mut r);
    let mut out = String::new();
    prometheus_text::encode(&mut out, &r)?;
    Ok(out)
}

fn workers(core: &Core, r: &mut Registry) {
    let health = core.health();
    let alive = health.workers as usize;
    let (lost, total) = match &core.formed {
        Some(f) => {
            let n = core.b.nodes.len();
            let lost = (0..n)
                .filter(|&i| !f.st.slots(NodeId(i as u32)).alive)
                .count();
            (lost, n)
        }
        None => (0, (health.expected as usize).max(alive)),
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
}

fn jobs(core: &Core, r: &mut Registry) {
    let statuses = [
        ("submitted", JobStatus::Submitted),
        ("running", JobStatus::Running),
        ("succeeded", JobStatus::Succeeded),
        ("failed", JobStatus::Failed),
        ("killed", JobStatus::Killed),
        ("rejected", JobStatus::Rejected),
    ];
    let mut by_status = [0u64; 6];
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
    for ((name, status), n) in statuses.iter().zip(by_status) {
        let l = vec![("status", name.to_string())];
        jobs.get_or_create(&l).set(n as i64);
        if !matches!(status, JobStatus::Submitted | JobStatus::Running) {
            finished.get_or_create(&l).inc_by(n);
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
}

impl Instruments {
    fn register(&self, r: &mut Registry) {
        r.register(
            "task_attempts",
            "Ended task attempts by kind (map, reduce), locality of a map's read (node, rack, off_rack; none for reduces) and outcome (succeeded, failed, killed, lost); a shared scan counts once per task",
            self.attempts.clone(),
        );
        r.register(
            "heartbeat_duration_seconds",
            "Time the master spent on a worker heartbeat request, waiting for the core included",
            self.heartbeat.clone(),
        );
        r.register(
            "schedule_heartbeat_duration_seconds",
            "Scheduling time of a heartbeat: the scheduler's on_heartbeat, every assign call and applying its launches",
            self.schedule.clone(),
        );
        r.register(
            "schedule_assign_duration_seconds",
            "Time of one assign call of the scheduler",
            self.assign.clone(),
        );
        r.register(
            "journal_commit_duration_seconds",
            "Time of a journal transaction by durability (durable: waited for the disk; lazy: synced later)",
            self.commits.clone(),
        );
    }
}

/// Pools as `GET /api/pools` shows them; the view's shares are in map
/// slots, the reduce ones come from the scheduler's own list.
fn pools(core: &Core, r: &mut Registry) {
    let (Some(f), Ok(view)) = (&core.formed, core.pools()) else {
        return;
    };
    let shares = f.sched.pool_shares();
    let pool_jobs = Family::<Labels, Gauge>::default();
    let running = Family::<Labels, Gauge>::default();
    let pending = Family::<Labels, Gauge>::default();
    let weight = Family::<Labels, FloatGauge>::default();
    let demand = Family::<Labels, FloatGauge>::default();
    let fair = Family::<Labels, FloatGauge>::default();
    let min = Family::<Labels, FloatGauge>::default();
    for p in &view.pools {
        let pool = || ("pool", p.name.clone());
        let map = vec![pool(), ("kind", "map".to_string())];
        let red = vec![pool(), ("kind", "reduce".to_string())];
        let reduce_share = shares.iter().find(|s| s.name == p.name);
        let of_reduces =
            |pick: fn(&mrsched_sched::PoolShare) -> f64| reduce_share.map_or(0.0, pick);
        pool_jobs.get_or_create(&vec![pool()]).set(p.jobs as i64);
        weight.get_or_create(&vec![pool()]).set(p.weight);
        running.get_or_create(&map).set(p.running_maps as i64);
        running.get_or_create(&red).set(p.running_reduces as i64);
        pending.get_or_create(&map).set(p.pending_maps as i64);
        pending.get_or_create(&red).set(p.pending_reduces as i64);
        demand.get_or_create(&map).set(p.demand);
        demand.get_or_create(&red).set(of_reduces(|s| s.demand[1]));
        fair.get_or_create(&map).set(p.fair_share);
        fair.get_or_create(&red)
            .set(of_reduces(|s| s.fair_share[1]));
        min.get_or_create(&map).set(p.min_share);
        min.get_or_create(&red).set(of_reduces(|s| s.min_share[1]));
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
