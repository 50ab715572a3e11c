//! The `DistributionPolicy` Ballista calls to bind pending tasks to free
//! vcores: every decision is made by an mrsched `Scheduler` through the
//! [`Mirror`], the same policies and driver loop as in the simulator and the
//! live master.
//!
//! Under pull scheduling (the default here) an executor's poll is a Hadoop
//! heartbeat: one executor offers its free vcores, the scheduler fills them
//! or declines (delay scheduling), and an idle executor polls again 50 ms
//! later. Under push scheduling every executor with free vcores is offered
//! in turn, in executor-id order.

use crate::graph;
use ballista_core::serde::protobuf::{job_status, AvailableVcores};
use ballista_core::JobId;
use ballista_scheduler::cluster::{BoundTask, ClusterState, DistributionPolicy};
use ballista_scheduler::state::task_manager::JobInfoCache;
use mrsched_metrics::{Report, RunInfo};
use mrsched_mirror::{Bind, ExecutorView, Mirror, MirrorStats, Work};
use mrsched_model::Time;
use mrsched_sched::PoolsView;
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;
use tokio::sync::Mutex;

/// mrsched's schedulers as a Ballista task distribution policy.
pub struct MrschedPolicy {
    mirror: Mutex<Mirror>,
    cluster: OnceLock<Arc<dyn ClusterState>>,
    epoch: Instant,
    name: String,
    /// `bind_tasks` calls and their total wall time, ns (syncing the
    /// mirror with the graphs, deciding and binding).
    calls: AtomicU64,
    call_ns: AtomicU64,
}

impl fmt::Debug for MrschedPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MrschedPolicy")
            .field("name", &self.name)
            .finish()
    }
}

impl MrschedPolicy {
    /// A policy deciding through `mirror`.
    pub fn new(mirror: Mirror, name: &str) -> MrschedPolicy {
        MrschedPolicy {
            mirror: Mutex::new(mirror),
            cluster: OnceLock::new(),
            epoch: Instant::now(),
            name: name.to_string(),
            calls: AtomicU64::new(0),
            call_ns: AtomicU64::new(0),
        }
    }

    /// Where to read executors' sizes (their registered vcores).
    pub fn set_cluster(&self, cluster: Arc<dyn ClusterState>) {
        let _ = self.cluster.set(cluster);
    }

    fn now(&self) -> Time {
        Time(self.epoch.elapsed().as_micros() as u64)
    }

    /// The pools view, as `mrsched pools` shows it.
    pub async fn pools(&self) -> PoolsView {
        self.mirror.lock().await.pools()
    }

    /// The mirror's counters.
    pub async fn stats(&self) -> MirrorStats {
        self.mirror.lock().await.stats().clone()
    }

    /// The run's report, as `mrsched metrics` shows it for the live
    /// cluster: per-query response times, locality, utilisation.
    pub async fn report(&self) -> Report {
        // The engine's registered executors and their vcores (what a client
        // waits for before it measures anything on a full cluster).
        let registered = match self.cluster.get() {
            Some(c) => c.registered_executor_metadata().await,
            None => Vec::new(),
        };
        let mut m = self.mirror.lock().await;
        let pools = m.pools();
        let stats = m.stats();
        let mut scheduler_stats = std::collections::BTreeMap::new();
        scheduler_stats.insert("executors".into(), registered.len() as f64);
        scheduler_stats.insert(
            "executor_vcores".into(),
            registered
                .iter()
                .map(|e| f64::from(e.specification.vcores))
                .sum(),
        );
        scheduler_stats.insert("offers".into(), stats.offers as f64);
        scheduler_stats.insert("binds".into(), stats.binds as f64);
        scheduler_stats.insert("refused_binds".into(), stats.refused as f64);
        scheduler_stats.insert("adopted_tasks".into(), stats.adopted as f64);
        scheduler_stats.insert("withdrawn_tasks".into(), stats.withdrawn as f64);
        scheduler_stats.insert("rebuilds".into(), stats.rebuilds as f64);
        scheduler_stats.insert("compactions".into(), stats.compactions as f64);
        if stats.offers > 0 {
            scheduler_stats.insert(
                "decision_mean_us".into(),
                stats.decision_ns_total as f64 / stats.offers as f64 / 1e3,
            );
        }
        scheduler_stats.insert("decision_max_us".into(), stats.decision_ns_max as f64 / 1e3);
        let calls = self.calls.load(Ordering::Relaxed);
        scheduler_stats.insert("bind_calls".into(), calls as f64);
        if calls > 0 {
            scheduler_stats.insert(
                "bind_call_mean_us".into(),
                self.call_ns.load(Ordering::Relaxed) as f64 / calls as f64 / 1e3,
            );
        }
        let info = RunInfo {
            scheduler: pools.scheduler.clone(),
            cluster: "ballista".into(),
            workload: "ballista".into(),
            seed: 0,
            samples: Vec::new(),
            decisions: None,
            events: 0,
            standalone: None,
            scheduler_stats,
            pools: Some(m.placed_pools()),
        };
        Report::build(m.state(), &info)
    }

    async fn executors(&self, budgets: &[&mut AvailableVcores]) -> Vec<ExecutorView> {
        match self.cluster.get() {
            Some(c) => {
                let mut v: Vec<ExecutorView> = c
                    .registered_executor_metadata()
                    .await
                    .into_iter()
                    .map(|m| ExecutorView {
                        id: m.id,
                        host: m.host,
                        slots: m.specification.vcores,
                    })
                    .collect();
                v.sort_by(|a, b| a.id.cmp(&b.id));
                v
            }
            // Without the cluster's registry, the offers are all we know.
            None => budgets
                .iter()
                .map(|b| ExecutorView {
                    id: b.executor_id.clone(),
                    host: String::new(),
                    slots: b.vcores,
                })
                .collect(),
        }
    }
}

#[async_trait::async_trait]
impl DistributionPolicy for MrschedPolicy {
    async fn bind_tasks(
        &self,
        mut budgets: Vec<&mut AvailableVcores>,
        running_jobs: Arc<HashMap<JobId, JobInfoCache>>,
    ) -> datafusion::error::Result<Vec<BoundTask>> {
        // One decision at a time: the mirror is the scheduler's state.
        let mut mirror = self.mirror.lock().await;
        let t0 = Instant::now();
        let now = self.now();
        let executors = self.executors(&budgets).await;
        let mut ids: Vec<&JobId> = running_jobs
            .iter()
            .filter(|(_, info)| matches!(info.status, Some(job_status::Status::Running(_))))
            .map(|(id, _)| id)
            .collect();
        ids.sort_by(|a, b| a.as_str().cmp(b.as_str()));
        let mut views = Vec::with_capacity(ids.len());
        for id in &ids {
            let mut g = running_jobs[*id].execution_graph.write().await;
            views.push(graph::job_view(&mut g));
        }
        mirror.sync(now, &executors, &views);
        budgets.sort_by(|a, b| a.executor_id.cmp(&b.executor_id));
        let mut bound = Vec::new();
        for budget in budgets.iter_mut() {
            if budget.vcores == 0 {
                continue;
            }
            let binds = mirror.offer(now, &budget.executor_id, budget.vcores);
            // The scheduler's choices for one stage on this executor travel
            // as one Ballista task, the way Ballista packs a slice: the same
            // partitions on the same executor, with fewer dispatches.
            let mut groups: Vec<((String, usize), Vec<Bind>)> = Vec::new();
            for b in binds {
                let key = (b.job.clone(), b.stage);
                match groups.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, v)) => v.push(b),
                    None => groups.push((key, vec![b])),
                }
            }
            for ((job, stage), group) in groups {
                let Some(info) = running_jobs.get(job.as_str()) else {
                    group.iter().for_each(|b| mirror.refuse(b));
                    continue;
                };
                let mut g = info.execution_graph.write().await;
                let cap = graph::max_partitions_per_task(&g);
                for chunk in group.chunks(cap) {
                    let work: Vec<Work> = chunk.iter().map(|b| b.work).collect();
                    match graph::bind(&mut g, stage, &work, &budget.executor_id) {
                        Some((desc, task_id, carried)) => {
                            for b in chunk {
                                if carried.contains(&b.work) {
                                    mirror.confirm(b, task_id);
                                } else {
                                    mirror.refuse(b);
                                }
                            }
                            // The mirror offers no more than the free vcores.
                            budget.vcores = budget.vcores.saturating_sub(desc.vcores_consumed);
                            bound.push((budget.executor_id.clone(), desc));
                        }
                        None => chunk.iter().for_each(|b| mirror.refuse(b)),
                    }
                }
            }
        }
        for p in mirror.take_problems() {
            log::warn!("{p}");
            eprintln!("mrsched: {p}");
        }
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.call_ns
            .fetch_add(t0.elapsed().as_nanos() as u64, Ordering::Relaxed);
        Ok(bound)
    }

    fn name(&self) -> &str {
        &self.name
    }
}
