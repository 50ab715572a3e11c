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
use mrsched_mirror::{ExecutorView, Mirror, MirrorStats};
use mrsched_model::Time;
use mrsched_sched::PoolsView;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock};
use std::time::Instant;
use tokio::sync::Mutex;

/// mrsched's schedulers as a Ballista task distribution policy.
pub struct MrschedPolicy {
    mirror: Mutex<Mirror>,
    cluster: OnceLock<Arc<dyn ClusterState>>,
    epoch: Instant,
    name: String,
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
        let mut m = self.mirror.lock().await;
        let pools = m.pools();
        let stats = m.stats();
        let mut scheduler_stats = std::collections::BTreeMap::new();
        scheduler_stats.insert("offers".into(), stats.offers as f64);
        scheduler_stats.insert("binds".into(), stats.binds as f64);
        scheduler_stats.insert("refused_binds".into(), stats.refused as f64);
        scheduler_stats.insert("adopted_tasks".into(), stats.adopted as f64);
        scheduler_stats.insert("withdrawn_tasks".into(), stats.withdrawn as f64);
        scheduler_stats.insert("rebuilds".into(), stats.rebuilds as f64);
        if stats.offers > 0 {
            scheduler_stats.insert(
                "decision_mean_us".into(),
                stats.decision_ns_total as f64 / stats.offers as f64 / 1e3,
            );
        }
        scheduler_stats.insert("decision_max_us".into(), stats.decision_ns_max as f64 / 1e3);
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
            for b in binds {
                let Some(info) = running_jobs.get(b.job.as_str()) else {
                    mirror.refuse(&b);
                    continue;
                };
                let mut g = info.execution_graph.write().await;
                match graph::bind(&mut g, b.stage, b.work, &budget.executor_id) {
                    Some((desc, task_id)) => {
                        mirror.confirm(&b, task_id);
                        // The mirror offers no more than the free vcores.
                        budget.vcores = budget.vcores.saturating_sub(1);
                        bound.push((budget.executor_id.clone(), desc));
                    }
                    None => mirror.refuse(&b),
                }
            }
        }
        for p in mirror.take_problems() {
            log::warn!("{p}");
            eprintln!("mrsched: {p}");
        }
        Ok(bound)
    }

    fn name(&self) -> &str {
        &self.name
    }
}
