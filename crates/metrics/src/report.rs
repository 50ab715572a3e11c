//! Run reports: per-job records and a summary, computed from the final
//! cluster state the same way for the simulator and the live master.
//!
//! Definitions (see `docs/metrics.md`):
//! * response time = finish - submission, for jobs that succeeded;
//! * slowdown = response time / response time of the job alone on the same
//!   cluster under the same scheduler (when the caller measured it);
//! * stretch = response time / the job's ideal time (its work spread over all
//!   slots of reference-speed nodes, [`mrsched_model::cost::ideal_time`]);
//! * weighted completion = weight x finish time (the MSJO objective);
//! * tardiness = max(0, finish - deadline), lateness = finish - deadline;
//! * locality fractions count successful map attempts that read a block;
//! * utilisation = busy slot-time / available slot-time from the first
//!   submission to the end of the run;
//! * makespan = last end - first submission.

use crate::latency::LatencyHistogram;
use mrsched_model::{cost, Time};
use mrsched_state::{ClusterState, JobStatus};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A point of the run's timeline.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Sample {
    /// Time, seconds.
    pub t_s: f64,
    /// Busy slots.
    pub busy_slots: u64,
    /// Available slots.
    pub available_slots: u64,
    /// Running jobs.
    pub running_jobs: u32,
    /// Intermediate data on all nodes, MB.
    pub intermediate_mb: f64,
}

/// What a driver knows about a run beyond the cluster state.
#[derive(Clone, Debug, Default)]
pub struct RunInfo {
    /// Scheduler label.
    pub scheduler: String,
    /// Cluster name.
    pub cluster: String,
    /// Workload name.
    pub workload: String,
    /// Seed.
    pub seed: u64,
    /// Timeline samples.
    pub samples: Vec<Sample>,
    /// Decision latencies, when measured.
    pub decisions: Option<LatencyHistogram>,
    /// Events processed (simulator).
    pub events: u64,
    /// Each job's response time alone, by job id (for slowdown).
    pub standalone: Option<Vec<Option<Time>>>,
    /// Policy-specific measurements.
    pub scheduler_stats: BTreeMap<String, f64>,
    /// Each job's pool as the scheduler placed it, by job id
    /// (`sched::pools::placed_pools`); without it, the pool the job names.
    pub pools: Option<Vec<String>>,
}

/// Per-job locality counts.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct LocalityCounts {
    /// Node-local maps.
    pub node: u32,
    /// Rack-local maps.
    pub rack: u32,
    /// Off-rack maps.
    pub off_rack: u32,
    /// Maps without input data.
    pub no_data: u32,
}

/// One job's metrics.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct JobRecord {
    /// Job id.
    pub id: u32,
    /// Name.
    pub name: String,
    /// User.
    pub user: String,
    /// Pool.
    pub pool: String,
    /// Final status.
    pub status: JobStatus,
    /// Admitted by admission control.
    pub admitted: bool,
    /// Rejection or failure reason.
    pub reason: Option<String>,
    /// Submission, s.
    pub arrival_s: f64,
    /// First launch, s.
    pub start_s: Option<f64>,
    /// End, s.
    pub finish_s: Option<f64>,
    /// Finish - arrival, s (succeeded jobs).
    pub response_time_s: Option<f64>,
    /// Response / response alone.
    pub slowdown: Option<f64>,
    /// Response / ideal time.
    pub stretch: Option<f64>,
    /// Weight.
    pub weight: f64,
    /// Weight x finish, s.
    pub weighted_completion_s: Option<f64>,
    /// Absolute deadline, s.
    pub deadline_s: Option<f64>,
    /// max(0, finish - deadline), s.
    pub tardiness_s: Option<f64>,
    /// finish - deadline, s.
    pub lateness_s: Option<f64>,
    /// Finished (successfully) by its deadline; `None` without a deadline.
    pub deadline_met: Option<bool>,
    /// Absolute completion-time goal, s.
    pub goal_s: Option<f64>,
    /// Finished by its goal; `None` without a goal.
    pub goal_met: Option<bool>,
    /// Map tasks.
    pub maps: u32,
    /// Reduce tasks.
    pub reduces: u32,
    /// Locality of successful maps.
    pub locality: LocalityCounts,
    /// Attempts launched.
    pub attempts: u32,
    /// Failed attempts.
    pub failed_attempts: u32,
    /// Killed attempts.
    pub killed_attempts: u32,
    /// Slot-seconds of killed attempts.
    pub killed_work_s: f64,
    /// Slot-seconds of failed and lost attempts.
    pub lost_work_s: f64,
}

/// Locality fractions.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct LocalitySummary {
    /// Node-local fraction of maps with data.
    pub node: f64,
    /// Rack-local fraction.
    pub rack: f64,
    /// Off-rack fraction.
    pub off_rack: f64,
    /// Maps with data counted.
    pub maps_with_data: u64,
}

/// Decision-time percentiles.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct DecisionSummary {
    /// `assign` calls measured.
    pub calls: u64,
    /// Median, microseconds.
    pub p50_us: f64,
    /// 99th percentile, microseconds.
    pub p99_us: f64,
    /// Mean, microseconds.
    pub mean_us: f64,
}

/// Whole-run metrics.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Summary {
    /// Jobs submitted.
    pub jobs: u32,
    /// Admitted.
    pub admitted: u32,
    /// Rejected.
    pub rejected: u32,
    /// Succeeded.
    pub succeeded: u32,
    /// Failed or killed.
    pub failed: u32,
    /// Mean response time of succeeded jobs, s.
    pub mean_response_time_s: f64,
    /// Median response time, s.
    pub median_response_time_s: f64,
    /// 95th percentile response time, s.
    pub p95_response_time_s: f64,
    /// Longest response time, s.
    pub max_response_time_s: f64,
    /// Last end - first submission, s.
    pub makespan_s: f64,
    /// Mean slowdown (when measured).
    pub mean_slowdown: Option<f64>,
    /// Largest slowdown (when measured).
    pub max_slowdown: Option<f64>,
    /// Mean stretch.
    pub mean_stretch: f64,
    /// Largest stretch.
    pub max_stretch: f64,
    /// Sum of weight x finish, s.
    pub total_weighted_completion_s: f64,
    /// Jobs with a deadline.
    pub with_deadline: u32,
    /// Admitted jobs with a deadline that met it.
    pub deadlines_met: u32,
    /// Sum of tardiness, s.
    pub total_tardiness_s: f64,
    /// Jobs with a goal.
    pub with_goal: u32,
    /// Jobs that met their goal.
    pub goals_met: u32,
    /// Locality fractions.
    pub locality: LocalitySummary,
    /// Busy / available slot-time.
    pub utilization: f64,
    /// Task attempts launched.
    pub attempts: u64,
    /// Slot-seconds killed.
    pub killed_work_s: f64,
    /// Slot-seconds failed or lost.
    pub lost_work_s: f64,
    /// Most intermediate data at any sample, MB.
    pub max_intermediate_mb: f64,
    /// Scheduler decision time (only with timing on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision_time: Option<DecisionSummary>,
}

/// The report of one run.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Report {
    /// Scheduler label.
    pub scheduler: String,
    /// Cluster name.
    pub cluster: String,
    /// Workload name.
    pub workload: String,
    /// Seed.
    pub seed: u64,
    /// Summary.
    pub summary: Summary,
    /// Policy-specific measurements and extensions (e.g. LP bounds).
    pub extra: BTreeMap<String, serde_json::Value>,
    /// Per job.
    pub jobs: Vec<JobRecord>,
    /// Timeline.
    pub timeline: Vec<Sample>,
}

fn secs(t: Time) -> f64 {
    t.as_secs_f64()
}

/// Quantile of a sorted slice (nearest rank).
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

impl Report {
    /// Build the report of a finished run.
    pub fn build(st: &ClusterState, info: &RunInfo) -> Report {
        let cluster = st.cluster();
        let mut jobs = Vec::with_capacity(st.jobs().len());
        let slots = cost::SlotTotals::of(cluster);
        for job in st.jobs() {
            let spec = &job.spec;
            let totals = job.task_totals();
            let loc = LocalityCounts {
                node: totals.node_local,
                rack: totals.rack_local,
                off_rack: totals.off_rack,
                no_data: totals.no_data,
            };
            let attempts = totals.attempts;
            let ok = job.status == JobStatus::Succeeded;
            let finish = job.finish.filter(|_| ok);
            let response = finish.map(|f| f - job.submitted);
            let deadline = spec.deadline.map(|d| job.submitted + d);
            let goal = spec.goal.map(|g| job.submitted + g);
            let standalone = info
                .standalone
                .as_ref()
                .and_then(|v| v.get(job.id.idx()).copied().flatten());
            let ideal = cost::ideal_time_with(cluster, spec, slots);
            jobs.push(JobRecord {
                id: job.id.0,
                name: spec.name.clone(),
                user: spec.user.clone(),
                pool: info
                    .pools
                    .as_ref()
                    .and_then(|v| v.get(job.id.idx()))
                    .map_or_else(|| spec.pool_name().to_string(), Clone::clone),
                status: job.status,
                admitted: !matches!(job.status, JobStatus::Rejected | JobStatus::Submitted),
                reason: job.reason.clone(),
                arrival_s: secs(job.submitted),
                start_s: job.first_launch.map(secs),
                finish_s: job.finish.map(secs),
                response_time_s: response.map(secs),
                slowdown: match (response, standalone) {
                    (Some(r), Some(a)) if a > Time::ZERO => Some(secs(r) / secs(a)),
                    _ => None,
                },
                stretch: response.map(|r| secs(r) / secs(ideal)),
                weight: spec.weight,
                weighted_completion_s: finish.map(|f| spec.weight * secs(f)),
                deadline_s: deadline.map(secs),
                tardiness_s: match (finish, deadline) {
                    (Some(f), Some(d)) => Some(secs(f - d)),
                    _ => None,
                },
                lateness_s: match (finish, deadline) {
                    (Some(f), Some(d)) => Some(secs(f) - secs(d)),
                    _ => None,
                },
                deadline_met: deadline.map(|d| finish.is_some_and(|f| f <= d)),
                goal_s: goal.map(secs),
                goal_met: goal.map(|g| finish.is_some_and(|f| f <= g)),
                maps: totals.maps,
                reduces: totals.reduces,
                locality: loc,
                attempts,
                failed_attempts: job.failed_attempts,
                killed_attempts: job.killed_attempts,
                killed_work_s: secs(job.killed_work),
                lost_work_s: secs(job.lost_work),
            });
        }
        let summary = summarize(&jobs, st, info);
        let mut extra = BTreeMap::new();
        for (k, v) in &info.scheduler_stats {
            extra.insert(format!("scheduler.{k}"), serde_json::json!(v));
        }
        Report {
            scheduler: info.scheduler.clone(),
            cluster: info.cluster.clone(),
            workload: info.workload.clone(),
            seed: info.seed,
            summary,
            extra,
            jobs,
            timeline: info.samples.clone(),
        }
    }
}

fn summarize(jobs: &[JobRecord], st: &ClusterState, info: &RunInfo) -> Summary {
    let mut s = Summary {
        jobs: jobs.len() as u32,
        ..Default::default()
    };
    let mut resp = Vec::new();
    let mut stretch = Vec::new();
    let mut slow = Vec::new();
    let (mut ln, mut lr, mut lo) = (0u64, 0u64, 0u64);
    let mut first: Option<f64> = None;
    let mut last: f64 = 0.0;
    for j in jobs {
        if j.admitted {
            s.admitted += 1;
        } else {
            s.rejected += 1;
        }
        match j.status {
            JobStatus::Succeeded => s.succeeded += 1,
            JobStatus::Failed | JobStatus::Killed => s.failed += 1,
            _ => {}
        }
        if let Some(r) = j.response_time_s {
            resp.push(r);
        }
        if let Some(x) = j.stretch {
            stretch.push(x);
        }
        if let Some(x) = j.slowdown {
            slow.push(x);
        }
        if let Some(w) = j.weighted_completion_s {
            s.total_weighted_completion_s += w;
        }
        if j.deadline_s.is_some() {
            s.with_deadline += 1;
            if j.deadline_met == Some(true) {
                s.deadlines_met += 1;
            }
            s.total_tardiness_s += j.tardiness_s.unwrap_or(0.0);
        }
        if j.goal_s.is_some() {
            s.with_goal += 1;
            if j.goal_met == Some(true) {
                s.goals_met += 1;
            }
        }
        ln += j.locality.node as u64;
        lr += j.locality.rack as u64;
        lo += j.locality.off_rack as u64;
        s.attempts += j.attempts as u64;
        s.killed_work_s += j.killed_work_s;
        s.lost_work_s += j.lost_work_s;
        if j.admitted {
            first = Some(first.map_or(j.arrival_s, |f: f64| f.min(j.arrival_s)));
            if let Some(f) = j.finish_s {
                last = last.max(f);
            }
        }
    }
    resp.sort_by(|a, b| a.total_cmp(b));
    if !resp.is_empty() {
        s.mean_response_time_s = resp.iter().sum::<f64>() / resp.len() as f64;
        s.median_response_time_s = quantile(&resp, 0.5);
        s.p95_response_time_s = quantile(&resp, 0.95);
        s.max_response_time_s = *resp.last().unwrap_or(&0.0);
    }
    if !stretch.is_empty() {
        s.mean_stretch = stretch.iter().sum::<f64>() / stretch.len() as f64;
        s.max_stretch = stretch.iter().cloned().fold(0.0, f64::max);
    }
    if !slow.is_empty() {
        s.mean_slowdown = Some(slow.iter().sum::<f64>() / slow.len() as f64);
        s.max_slowdown = Some(slow.iter().cloned().fold(0.0, f64::max));
    }
    let with_data = ln + lr + lo;
    s.locality = LocalitySummary {
        node: frac(ln, with_data),
        rack: frac(lr, with_data),
        off_rack: frac(lo, with_data),
        maps_with_data: with_data,
    };
    s.makespan_s = first.map_or(0.0, |f| (last - f).max(0.0));
    s.utilization = st.usage().utilization();
    s.max_intermediate_mb = info
        .samples
        .iter()
        .map(|x| x.intermediate_mb)
        .fold(0.0, f64::max);
    s.decision_time = info.decisions.as_ref().map(|h| DecisionSummary {
        calls: h.count(),
        p50_us: h.quantile_ns(0.5) as f64 / 1000.0,
        p99_us: h.quantile_ns(0.99) as f64 / 1000.0,
        mean_us: h.mean_ns() / 1000.0,
    });
    s
}

fn frac(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}
