//! The priority queue of admitted jobs and their estimated slot vectors:
//! the admission controller (seed 004 Algorithm I) and the feedback
//! controller (Algorithm V).
//!
//! The queue holds the admitted jobs in service order. Started jobs come
//! first, in the order they started (no preemption: a job that has run a
//! map keeps its place, §IV's second assumption); waiting jobs follow in
//! EDF order (or FIFO order, an option: §IV.B says the admission control
//! works for any order). A new job is inserted among the waiting jobs, so
//! its predecessor is the job before it there or, "if J were at the head of
//! the queue, the job that has been started latest" (§IV.B).
//!
//! Each record keeps J.T^m and J.T^r: the estimated available times of all
//! map and reduce slots after J and its predecessors ran. Finished jobs stay
//! in the queue until every job before them has finished, because their
//! vectors are their successors' starting point; the vectors of the last
//! job popped off the front become the base the first record starts from
//! (the paper's "job that has been started latest", still needed when it
//! has finished). All estimates are clamped to "now" by Cal_mT, so vectors
//! of the past do no harm.

use super::estimate::Estimator;
use super::job::RtJob;
use super::vectors::{cal_mt, cal_rt, satu, SlotVec};
use mrsched_model::{JobId, Time};
use serde::Deserialize;

/// The order jobs are served and admitted in.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QueueOrder {
    /// Earliest (absolute) deadline first; ties by arrival, then id.
    #[default]
    Edf,
    /// Arrival order.
    Fifo,
}

/// Where a queued job is in its life.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Admitted, no task launched yet.
    Waiting,
    /// A task was launched (no preemption from here on).
    Started,
    /// Ended; kept while a job ahead of it still runs.
    Finished,
}

/// An estimate for one job: its vectors, map-stage end and finish.
#[derive(Clone, Debug, PartialEq)]
pub struct JobEstimate {
    /// J.T^m.
    pub tm: SlotVec,
    /// J.T^r.
    pub tr: SlotVec,
    /// e_m: estimated end of the map stage.
    pub em: Time,
    /// e: estimated finish.
    pub e: Time,
}

/// A queued job.
#[derive(Clone, Debug)]
pub struct Record {
    /// The job.
    pub job: RtJob,
    /// Its stage.
    pub stage: Stage,
    /// Its current estimate.
    pub est: JobEstimate,
    /// Actual task finish times (maps, reduces), once finished.
    pub ends: Option<(Vec<Time>, Vec<Time>)>,
}

/// Why a job was refused.
#[derive(Clone, Debug, PartialEq)]
pub enum Rejection {
    /// The job itself would finish after its deadline.
    Own {
        /// Estimated finish.
        estimated: Time,
        /// Its deadline.
        deadline: Time,
    },
    /// An admitted job after it would miss its deadline.
    Successor {
        /// The job that would be late.
        job: JobId,
        /// Its new estimated finish.
        estimated: Time,
        /// Its deadline.
        deadline: Time,
    },
}

impl Rejection {
    /// The reason for the submitter; `name` names a job.
    pub fn reason(&self, name: impl Fn(JobId) -> String) -> String {
        let t = |x: Time| {
            if x == Time::MAX {
                "never (no slots)".to_string()
            } else {
                format!("{:.1} s", x.as_secs_f64())
            }
        };
        match self {
            Rejection::Own {
                estimated,
                deadline,
            } => format!(
                "admission control: estimated finish {} is after the deadline {}",
                t(*estimated),
                t(*deadline)
            ),
            Rejection::Successor {
                job,
                estimated,
                deadline,
            } => format!(
                "admission control: admitting it would make {} miss its deadline {} (estimated finish {})",
                name(*job),
                t(*deadline),
                t(*estimated)
            ),
        }
    }
}

/// An admission decision that can be committed.
#[derive(Clone, Debug)]
pub struct Plan {
    pos: usize,
    record: Record,
    successors: Vec<JobEstimate>,
}

impl Plan {
    /// The new job's estimate.
    pub fn estimate(&self) -> &JobEstimate {
        &self.record.est
    }
    /// Where it goes in the queue.
    pub fn position(&self) -> usize {
        self.pos
    }
}

/// The priority queue with its vectors.
#[derive(Clone, Debug)]
pub struct AdmissionQueue {
    order: QueueOrder,
    slack: Time,
    base_m: SlotVec,
    base_r: SlotVec,
    recs: Vec<Record>,
}

fn key(j: &RtJob) -> (Time, Time, JobId) {
    (j.deadline, j.arrival, j.id)
}

impl AdmissionQueue {
    /// An empty queue for `map_slots` (l) and `reduce_slots` (q) slots.
    /// `slack` is added where a task must wait for a heartbeat: at the start
    /// of a job's map stage and of its reduce stage (0 gives the paper's
    /// algorithms exactly).
    pub fn new(map_slots: usize, reduce_slots: usize, order: QueueOrder, slack: Time) -> Self {
        AdmissionQueue {
            order,
            slack,
            base_m: vec![Time::ZERO; map_slots],
            base_r: vec![Time::ZERO; reduce_slots],
            recs: Vec::new(),
        }
    }

    /// The queue order.
    pub fn order(&self) -> QueueOrder {
        self.order
    }

    /// Every record, in queue order.
    pub fn records(&self) -> &[Record] {
        &self.recs
    }

    /// Records of unfinished jobs, in queue order.
    pub fn active(&self) -> impl Iterator<Item = &Record> + '_ {
        self.recs.iter().filter(|r| r.stage != Stage::Finished)
    }

    /// Position of a job.
    pub fn position(&self, j: JobId) -> Option<usize> {
        self.recs.iter().position(|r| r.job.id == j)
    }

    fn pred(&self, pos: usize) -> (&[Time], &[Time]) {
        match pos.checked_sub(1) {
            Some(p) => (&self.recs[p].est.tm, &self.recs[p].est.tr),
            None => (&self.base_m, &self.base_r),
        }
    }

    /// Algorithms II and III for `job` after a predecessor with vectors
    /// `tp_m`, `tp_r`, at time `now`.
    pub fn estimate(
        &self,
        job: &RtJob,
        est: &Estimator,
        tp_m: &[Time],
        tp_r: &[Time],
        now: Time,
    ) -> JobEstimate {
        let floor = now.saturating_add(self.slack);
        let (tm, em) = cal_mt(tp_m, job.maps as usize, est.map_task(job), floor);
        let (tr, e) = if job.reduces == 0 {
            (tp_r.to_vec(), em)
        } else {
            cal_rt(
                tp_r,
                job.reduces as usize,
                est.reduce_task(job),
                em.saturating_add(self.slack),
            )
        };
        JobEstimate { tm, tr, em, e }
    }

    /// A finished record rebuilt from its actual task ends (SATU) after a
    /// new predecessor.
    fn rebuild(rec: &Record, tp_m: &[Time], tp_r: &[Time]) -> Option<JobEstimate> {
        let (me, re) = rec.ends.as_ref()?;
        let (tm, tr) = satu(tp_m, tp_r, me, re);
        Some(JobEstimate {
            tm,
            tr,
            em: me.iter().copied().max().unwrap_or(rec.est.em),
            e: rec.est.e,
        })
    }

    /// Where `job` would be inserted: among the waiting jobs, after every
    /// started or finished one.
    pub fn insert_position(&self, job: &RtJob) -> usize {
        let first = self
            .recs
            .iter()
            .rposition(|r| r.stage != Stage::Waiting)
            .map_or(0, |p| p + 1);
        match self.order {
            QueueOrder::Fifo => self.recs.len(),
            QueueOrder::Edf => {
                let k = key(job);
                first + self.recs[first..].partition_point(|r| key(&r.job) <= k)
            }
        }
    }

    /// Algorithm I without side effects: the plan to admit `job` at `now`,
    /// or why not.
    pub fn evaluate(&self, job: &RtJob, est: &Estimator, now: Time) -> Result<Plan, Rejection> {
        let pos = self.insert_position(job);
        let (tp_m, tp_r) = self.pred(pos);
        let mine = self.estimate(job, est, tp_m, tp_r, now);
        if mine.e > job.deadline {
            return Err(Rejection::Own {
                estimated: mine.e,
                deadline: job.deadline,
            });
        }
        let mut successors: Vec<JobEstimate> = Vec::with_capacity(self.recs.len() - pos);
        for r in &self.recs[pos..] {
            let p = successors.last().unwrap_or(&mine);
            let s = match r.stage {
                Stage::Finished => Self::rebuild(r, &p.tm, &p.tr)
                    .unwrap_or_else(|| self.estimate(&r.job, est, &p.tm, &p.tr, now)),
                _ => self.estimate(&r.job, est, &p.tm, &p.tr, now),
            };
            if r.stage != Stage::Finished && s.e > r.job.deadline {
                return Err(Rejection::Successor {
                    job: r.job.id,
                    estimated: s.e,
                    deadline: r.job.deadline,
                });
            }
            successors.push(s);
        }
        Ok(Plan {
            pos,
            record: Record {
                job: job.clone(),
                stage: Stage::Waiting,
                est: mine,
                ends: None,
            },
            successors,
        })
    }

    /// Algorithm I lines 22-23: insert the job and record the new vectors.
    pub fn commit(&mut self, plan: Plan) {
        let Plan {
            pos,
            record,
            successors,
        } = plan;
        for (r, s) in self.recs[pos..].iter_mut().zip(successors) {
            r.est = s;
        }
        self.recs.insert(pos, record);
    }

    /// Algorithm I: admit `job` if it and every job after it can meet their
    /// deadlines.
    pub fn admit(&mut self, job: &RtJob, est: &Estimator, now: Time) -> Result<(), Rejection> {
        let plan = self.evaluate(job, est, now)?;
        self.commit(plan);
        Ok(())
    }

    /// Mark waiting jobs that have launched a task as started.
    pub fn refresh_started(&mut self, started: impl Fn(JobId) -> bool) {
        for r in self.recs.iter_mut().filter(|r| r.stage == Stage::Waiting) {
            if started(r.job.id) {
                r.stage = Stage::Started;
            }
        }
    }

    /// Recompute the records from `from` on after their (changed)
    /// predecessors (Algorithm V lines 12-19).
    fn recompute_from(&mut self, from: usize, est: &Estimator, now: Time) {
        for k in from..self.recs.len() {
            let (tp_m, tp_r) = self.pred(k);
            let r = &self.recs[k];
            let s = match r.stage {
                Stage::Finished => Self::rebuild(r, tp_m, tp_r),
                _ => None,
            }
            .unwrap_or_else(|| self.estimate(&r.job, est, tp_m, tp_r, now));
            self.recs[k].est = s;
        }
    }

    /// Algorithm V, the feedback controller, for job `j` that finished at
    /// `finish` with the given actual task finish times. When its estimated
    /// finish differs from the actual one by more than `epsilon`, or it
    /// missed its deadline, its vectors are rebuilt by SATU and every
    /// successor's are recomputed. Returns whether it triggered.
    ///
    /// Line 6 recomputes e with Cal_rT; run at J's finish, Cal_mT's
    /// `max(t, currentTime)` would put J's maps after its own end, so we use
    /// the estimate recorded when J's vectors were last computed (the same
    /// Cal_rT at that time).
    #[allow(clippy::too_many_arguments)]
    pub fn feedback(
        &mut self,
        j: JobId,
        finish: Time,
        map_ends: &[Time],
        reduce_ends: &[Time],
        epsilon: Time,
        est: &Estimator,
        now: Time,
    ) -> bool {
        let Some(i) = self.position(j) else {
            return false;
        };
        let r = &self.recs[i];
        let diff = if r.est.e > finish {
            r.est.e - finish
        } else {
            finish - r.est.e
        };
        if diff <= epsilon && finish <= r.job.deadline {
            return false;
        }
        let (tp_m, tp_r) = self.pred(i);
        let (tm, tr) = satu(tp_m, tp_r, map_ends, reduce_ends);
        let rec = &mut self.recs[i];
        rec.est.tm = tm;
        rec.est.tr = tr;
        self.recompute_from(i + 1, est, now);
        true
    }

    /// Job `j` ended with the given actual task finish times: keep it until
    /// every job before it has ended, then drop it (its vectors become the
    /// base).
    pub fn finish(&mut self, j: JobId, map_ends: Vec<Time>, reduce_ends: Vec<Time>) {
        if let Some(i) = self.position(j) {
            let r = &mut self.recs[i];
            r.stage = Stage::Finished;
            r.ends = Some((map_ends, reduce_ends));
        }
        let done = self
            .recs
            .iter()
            .take_while(|r| r.stage == Stage::Finished)
            .count();
        if done > 0 {
            let last = &self.recs[done - 1];
            self.base_m = last.est.tm.clone();
            self.base_r = last.est.tr.clone();
            self.recs.drain(..done);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(id: u32, arrival: u64, deadline: u64, maps: u32, reduces: u32) -> RtJob {
        RtJob {
            id: JobId(id),
            arrival: Time::from_secs(arrival),
            deadline: Time::from_secs(deadline),
            maps,
            reduces,
            input_mb: maps as f64 * 10.0,
            max_split_mb: 10.0,
        }
    }

    /// Maps take 10 s (1 s/MB x 10 MB); reduces delta x sigma / R x 1 s/MB.
    fn est() -> Estimator {
        Estimator::new(0.5, 1.0, 1.0)
    }

    fn s(v: &[u64]) -> Vec<Time> {
        v.iter().map(|x| Time::from_secs(*x)).collect()
    }

    #[test]
    fn admission_hand_worked() {
        // l = 2 map slots, q = 1 reduce slot.
        let mut q = AdmissionQueue::new(2, 1, QueueOrder::Edf, Time::ZERO);
        // J0: 3 maps (10 s), 1 reduce of 0.5 x 30 / 1 = 15 s, deadline 100.
        // Maps: [0,0] -> 10, 10, then 20: T^m = [10, 20], e_m = 20.
        // Reduce: max(0, 20) + 15 = 35 = e.
        let j0 = job(0, 0, 100, 3, 1);
        q.admit(&j0, &est(), Time::ZERO).unwrap();
        let r = &q.records()[0];
        assert_eq!(r.est.tm, s(&[10, 20]));
        assert_eq!(
            (r.est.em, r.est.e),
            (Time::from_secs(20), Time::from_secs(35))
        );
        // J1 (deadline 60) arrives at 0 and goes first in EDF order:
        // 2 maps: [0,0] -> [10,10], e_m = 10; 1 reduce of 10 s: 20.
        // J0 recomputed after it: maps [10,10] -> 20, 20, 30 -> T^m [20, 30],
        // e_m 30; reduce max(20, 30) + 15 = 45 <= 100: admitted.
        let j1 = job(1, 0, 60, 2, 1);
        q.admit(&j1, &est(), Time::ZERO).unwrap();
        let ids: Vec<u32> = q.records().iter().map(|r| r.job.id.0).collect();
        assert_eq!(ids, vec![1, 0]);
        assert_eq!(q.records()[0].est.e, Time::from_secs(20));
        assert_eq!(q.records()[1].est.tm, s(&[20, 30]));
        assert_eq!(q.records()[1].est.e, Time::from_secs(45));
        // J3 (12 maps, no reduce, deadline 90) would go between J1 and J0:
        // its maps run on [10, 10] in 6 waves to e = 70 <= 90, but J0's
        // maps then end at 90 and its reduce at 105 > 100: refused, naming J0.
        let j3 = job(3, 0, 90, 12, 0);
        let err = q.evaluate(&j3, &est(), Time::ZERO).unwrap_err();
        match err {
            Rejection::Successor { job, .. } => assert_eq!(job, JobId(0)),
            other => panic!("{other:?}"),
        }
        // Its own deadline too short: rejected for itself.
        let j4 = job(4, 0, 15, 2, 1);
        assert!(matches!(
            q.evaluate(&j4, &est(), Time::ZERO),
            Err(Rejection::Own { .. })
        ));
        // Nothing changed by the refused evaluations.
        assert_eq!(q.records().len(), 2);
        assert_eq!(q.records()[1].est.e, Time::from_secs(45));
    }

    #[test]
    fn started_jobs_keep_their_place_and_fifo_appends() {
        let mut q = AdmissionQueue::new(2, 1, QueueOrder::Edf, Time::ZERO);
        q.admit(&job(0, 0, 500, 2, 0), &est(), Time::ZERO).unwrap();
        q.refresh_started(|j| j == JobId(0));
        // An earlier deadline cannot overtake a started job.
        let j1 = job(1, 1, 100, 1, 0);
        assert_eq!(q.insert_position(&j1), 1);
        q.admit(&j1, &est(), Time::from_secs(1)).unwrap();
        // ... but does overtake a waiting one.
        let j2 = job(2, 2, 50, 1, 0);
        assert_eq!(q.insert_position(&j2), 1);
        let mut f = AdmissionQueue::new(2, 1, QueueOrder::Fifo, Time::ZERO);
        f.admit(&job(0, 0, 500, 2, 0), &est(), Time::ZERO).unwrap();
        assert_eq!(f.insert_position(&j2), 1);
    }

    #[test]
    fn feedback_rebuilds_and_recomputes_successors() {
        let mut q = AdmissionQueue::new(2, 1, QueueOrder::Fifo, Time::ZERO);
        q.admit(&job(0, 0, 100, 3, 1), &est(), Time::ZERO).unwrap();
        q.admit(&job(1, 0, 200, 2, 0), &est(), Time::ZERO).unwrap();
        // J1 after J0: maps on [10, 20] -> 20, 30: e = 30.
        assert_eq!(q.records()[1].est.e, Time::from_secs(30));
        q.refresh_started(|_| true);
        // J0 actually finished at 12 (estimate 35): maps ended 4, 5, 8 and
        // its reduce at 12. SATU from the zero base: map slots [0, 0] ->
        // 4 -> [0, 4] -> 5 -> [4, 5] -> 8 -> [5, 8]; reduce [0] -> [12].
        let fired = q.feedback(
            JobId(0),
            Time::from_secs(12),
            &s(&[5, 4, 8]),
            &s(&[12]),
            Time::from_secs(5),
            &est(),
            Time::from_secs(12),
        );
        assert!(fired);
        assert_eq!(q.records()[0].est.tm, s(&[5, 8]));
        assert_eq!(q.records()[0].est.tr, s(&[12]));
        // J1 recomputed at now = 12: maps max(5,12)+10 = 22, max(8,12)+10 = 22.
        assert_eq!(q.records()[1].est.e, Time::from_secs(22));
        // Within epsilon: nothing happens.
        let fired = q.feedback(
            JobId(1),
            Time::from_secs(25),
            &s(&[20, 21]),
            &[],
            Time::from_secs(5),
            &est(),
            Time::from_secs(25),
        );
        assert!(!fired);
        // Finishing pops the front and keeps its vectors as the base.
        q.finish(JobId(1), s(&[20, 21]), vec![]);
        assert_eq!(q.records().len(), 2, "J1 waits behind unfinished J0");
        q.finish(JobId(0), s(&[4, 5, 8]), s(&[12]));
        assert!(q.records().is_empty());
        assert_eq!(q.pred(0).0, s(&[22, 22]).as_slice());
    }

    #[test]
    fn slack_delays_both_stages() {
        let q = AdmissionQueue::new(1, 1, QueueOrder::Edf, Time::from_secs(3));
        let e = q.estimate(
            &job(0, 0, 100, 1, 1),
            &est(),
            &s(&[0]),
            &s(&[0]),
            Time::ZERO,
        );
        // Map: 0 + 3 + 10 = 13; reduce (5 s): 13 + 3 + 5 = 21.
        assert_eq!((e.em, e.e), (Time::from_secs(13), Time::from_secs(21)));
    }
}
