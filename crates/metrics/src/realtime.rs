//! Seed 004's real-time metrics (He, Lu, Swanson, §V):
//!
//! ```text
//! AcceptR  = # accepted jobs / # jobs in the workload
//! SuccessR = # successful jobs / # accepted jobs
//! Util     = slot time used by successful jobs / available slot time
//! ```
//!
//! A successful job finished by its deadline (a job without a deadline
//! counts when it succeeded). The slot time a job used is the map and
//! reduce slot time of its tasks' successful attempts (start to finish, a
//! reduce's copy included). The available slot time is "the product of the
//! number of slots and the turnaround execution time of all accepted jobs":
//! all map and reduce slots times the span from the first accepted job's
//! arrival to the last accepted job's end. For a scheduler without
//! admission control (Hadoop FIFO) the paper counts the slot time of all
//! jobs instead ([`UtilBasis::AllJobs`]).

use mrsched_model::Time;
use mrsched_state::{ClusterState, Job, JobStatus, TaskStatus};
use serde::{Deserialize, Serialize};

/// Whose slot time the utilisation counts.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum UtilBasis {
    /// Jobs that met their deadline (the real-time schedulers).
    SuccessfulJobs,
    /// Every job (Hadoop FIFO in the seed's tables).
    AllJobs,
}

/// The three ratios and what they are made of.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RealTimeSummary {
    /// Jobs in the workload.
    pub jobs: u32,
    /// Accepted (admitted) jobs.
    pub accepted: u32,
    /// Accepted jobs that finished by their deadline.
    pub successful: u32,
    /// accepted / jobs.
    pub accept_ratio: f64,
    /// successful / accepted (0 when none was accepted).
    pub success_ratio: f64,
    /// Slot time used (by the counted jobs) / available slot time.
    pub utilization: f64,
    /// Slot-seconds used by the counted jobs.
    pub used_slot_s: f64,
    /// First accepted arrival to last accepted end, seconds.
    pub turnaround_s: f64,
    /// Map plus reduce slots of the cluster.
    pub slots: u32,
}

/// Whether a job finished successfully by its deadline.
pub fn met_deadline(job: &Job) -> bool {
    job.status == JobStatus::Succeeded
        && match (job.finish, job.spec.deadline) {
            (Some(f), Some(d)) => f <= job.submitted + d,
            (Some(_), None) => true,
            (None, _) => false,
        }
}

/// Slot-seconds of a job's successful task attempts.
pub fn slot_seconds(job: &Job) -> f64 {
    job.maps
        .iter()
        .chain(&job.reduces)
        .filter(|t| t.status == TaskStatus::Done)
        .map(|t| (t.finish - t.start).as_secs_f64())
        .sum()
}

/// Compute the summary from a finished run.
pub fn realtime_summary(st: &ClusterState, basis: UtilBasis) -> RealTimeSummary {
    let mut s = RealTimeSummary {
        jobs: st.jobs().len() as u32,
        slots: st.cluster().total_slots(),
        ..Default::default()
    };
    let (mut first, mut last): (Option<Time>, Time) = (None, Time::ZERO);
    for j in st.jobs() {
        if matches!(j.status, JobStatus::Rejected | JobStatus::Submitted) {
            continue;
        }
        s.accepted += 1;
        first = Some(first.map_or(j.submitted, |f| f.min(j.submitted)));
        last = last.max(j.finish.unwrap_or(st.now()));
        let ok = met_deadline(j);
        if ok {
            s.successful += 1;
        }
        if ok || basis == UtilBasis::AllJobs {
            s.used_slot_s += slot_seconds(j);
        }
    }
    let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
    s.accept_ratio = ratio(s.accepted as f64, s.jobs as f64);
    s.success_ratio = ratio(s.successful as f64, s.accepted as f64);
    s.turnaround_s = first.map_or(0.0, |f| (last.saturating_sub(f)).as_secs_f64());
    s.utilization = ratio(s.used_slot_s, s.slots as f64 * s.turnaround_s);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use mrsched_model::{Cluster, JobSpec, NodeId};
    use mrsched_state::Launch;

    #[test]
    fn hand_worked_ratios() {
        // One node, 1 map + 1 reduce slot: 2 slots.
        let c =
            Cluster::from_toml_str("c", "[[nodes]]\nmap_slots = 1\nreduce_slots = 1\n").unwrap();
        let mut st = ClusterState::new(c);
        let spec = |name: &str, d: u64| {
            let mut s = JobSpec::explicit(name, Time::ZERO, &[1.0], &[], 1.0);
            s.deadline = Some(Time::from_secs(d));
            s
        };
        // Job 0 runs 0-10 s (deadline 20: success); job 1 runs 10-40 s
        // (deadline 30: late); job 2 is rejected.
        let a = st.submit(spec("a", 20));
        let b = st.submit(spec("b", 30));
        let r = st.submit(spec("r", 30));
        st.admit(a).unwrap();
        st.admit(b).unwrap();
        st.reject(r, "no").unwrap();
        let x = st.launch(NodeId(0), &Launch::map(a, 0)).unwrap();
        st.advance_to(Time::from_secs(10));
        st.finish_map(x).unwrap();
        let y = st.launch(NodeId(0), &Launch::map(b, 0)).unwrap();
        st.advance_to(Time::from_secs(40));
        st.finish_map(y).unwrap();
        let s = realtime_summary(&st, UtilBasis::SuccessfulJobs);
        assert_eq!((s.jobs, s.accepted, s.successful), (3, 2, 1));
        assert!((s.accept_ratio - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(s.success_ratio, 0.5);
        // 10 slot-s of 2 slots x 40 s.
        assert_eq!(s.turnaround_s, 40.0);
        assert_eq!(s.utilization, 10.0 / 80.0);
        let all = realtime_summary(&st, UtilBasis::AllJobs);
        assert_eq!(all.utilization, 40.0 / 80.0);
    }
}
