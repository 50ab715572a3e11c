//! Jobs and their tasks as the JobTracker sees them.

use crate::index::LocalityIndex;
use mrsched_model::{AttemptId, DatasetId, JobId, JobSpec, Locality, NodeId, Time};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::sync::Arc;

/// Where a job is in its life.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobStatus {
    /// Arrived; the scheduler has not decided on admission yet.
    Submitted,
    /// Refused on arrival (admission control).
    Rejected,
    /// Admitted and not finished.
    Running,
    /// Every task done.
    Succeeded,
    /// A task failed too often (or the job could not run).
    Failed,
    /// Killed by a user.
    Killed,
}

impl JobStatus {
    /// True for the three end states and rejection.
    pub fn is_final(self) -> bool {
        !matches!(self, JobStatus::Submitted | JobStatus::Running)
    }
}

/// Where a task is in its life.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Waiting for a slot.
    Pending,
    /// An attempt is running.
    Running,
    /// Done (for maps: output available, unless lost and pending again).
    Done,
}

/// One task of a job.
///
/// 32 bytes, aligned to 32 so that no record straddles two cache lines: a
/// day-long run reads each record at its launch and its end, minutes
/// apart, and each read is a cache miss (a 40-byte record took two lines
/// in half the reads).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[repr(align(32))]
pub struct Task {
    /// Status.
    pub status: TaskStatus,
    /// Attempts launched so far.
    pub attempts: u16,
    /// Attempts that failed.
    pub failures: u16,
    /// Node of the last attempt (for a done map: where its output is).
    pub node: Option<NodeId>,
    /// Start of the successful attempt.
    pub start: Time,
    /// End of the successful attempt.
    pub finish: Time,
    /// Locality of the successful attempt.
    pub locality: Locality,
    /// A done map's intermediate output is held on `node` (its job has
    /// reduces, and the output was not lost or deleted); its size is
    /// [`mrsched_model::cost::map_output_mb`] of the map.
    pub holds_output: bool,
}

impl Task {
    pub(crate) fn new() -> Task {
        Task {
            status: TaskStatus::Pending,
            attempts: 0,
            failures: 0,
            node: None,
            start: Time::ZERO,
            finish: Time::ZERO,
            locality: Locality::NoData,
            holds_output: false,
        }
    }
}

/// Task counts of one kind.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Waiting for a slot.
    pub pending: u32,
    /// Running.
    pub running: u32,
    /// Done.
    pub done: u32,
}

/// Observed task durations of a job (successful attempts).
#[derive(Copy, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskStats {
    /// Finished maps observed.
    pub maps: u32,
    /// Sum of their durations.
    pub map_total: Time,
    /// Longest.
    pub map_max: Time,
    /// Finished reduces observed.
    pub reduces: u32,
    /// Sum of their durations.
    pub reduce_total: Time,
    /// Longest.
    pub reduce_max: Time,
}

impl TaskStats {
    /// Mean map duration, when any map finished.
    pub fn mean_map(&self) -> Option<Time> {
        (self.maps > 0).then(|| Time(self.map_total.0 / self.maps as u64))
    }
    /// Mean reduce duration, when any reduce finished.
    pub fn mean_reduce(&self) -> Option<Time> {
        (self.reduces > 0).then(|| Time(self.reduce_total.0 / self.reduces as u64))
    }
}

/// What a job's task records add up to: all a report needs of them, kept
/// when the records themselves are released
/// ([`crate::ClusterState::release_task_records`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskTotals {
    /// Map tasks.
    pub maps: u32,
    /// Reduce tasks.
    pub reduces: u32,
    /// Attempts launched, maps and reduces.
    pub attempts: u32,
    /// Done maps that read their block on their node.
    pub node_local: u32,
    /// Done maps that read it from their rack.
    pub rack_local: u32,
    /// Done maps that read it across racks.
    pub off_rack: u32,
    /// Done maps that read no block.
    pub no_data: u32,
}

/// One running attempt in a job's running list: the attempt, and which of
/// its tasks is this job's (0: the driving task, `k + 1`: rider `k`). The
/// driving task's position is kept in the attempt, riders' in the state.
#[derive(Copy, Clone, Debug)]
pub(crate) struct RunEntry {
    pub(crate) attempt: AttemptId,
    pub(crate) served: u32,
}

/// A job in the cluster state.
#[derive(Debug)]
pub struct Job {
    /// Its id (submission order).
    pub id: JobId,
    /// What was submitted (shared with the workload it came from).
    pub spec: Arc<JobSpec>,
    /// Status.
    pub status: JobStatus,
    /// Why it was rejected, failed or killed.
    pub reason: Option<String>,
    /// When it was submitted.
    pub submitted: Time,
    /// When it was admitted or rejected.
    pub decided: Option<Time>,
    /// First attempt launch.
    pub first_launch: Option<Time>,
    /// When its maps were all done (last time, if re-run).
    pub maps_done_at: Option<Time>,
    /// End time (succeeded, failed, killed).
    pub finish: Option<Time>,
    /// Map tasks.
    pub maps: Vec<Task>,
    /// Reduce tasks.
    pub reduces: Vec<Task>,
    /// Map counts.
    pub map_counts: Counts,
    /// Reduce counts.
    pub reduce_counts: Counts,
    /// Whether reduces may be launched.
    pub reduces_ready: bool,
    /// Observed durations.
    pub stats: TaskStats,
    /// More tasks may still be added ([`crate::ClusterState::add_maps`]):
    /// the job does not finish when its current tasks are done, only after
    /// [`crate::ClusterState::close_job`]. Set for the jobs of DAG engines,
    /// whose stages become tasks one after another.
    pub open: bool,
    /// Slot-time of attempts killed by the scheduler or users.
    pub killed_work: Time,
    /// Slot-time of attempts lost with their node or failed.
    pub lost_work: Time,
    /// Attempts that failed.
    pub failed_attempts: u32,
    /// Attempts killed.
    pub killed_attempts: u32,
    /// Running attempts (any order; sort by id for launch order). Each
    /// attempt knows where its entry is, so removal is a swap, with no
    /// hashing.
    pub(crate) running: Vec<RunEntry>,
    /// First map index of each input dataset.
    pub(crate) dataset_offsets: Vec<(DatasetId, u32)>,
    /// Pending-task lookups (interior mutability: lookups drop stale
    /// entries lazily; see [`crate::index`]).
    pub(crate) index: RefCell<LocalityIndex>,
    /// Bit `t` set while map `t` is pending. The locality index's lookups
    /// skip entries of tasks launched from another row; asking these bits
    /// (a word per 64 maps, hot while the job runs) instead of each task's
    /// record saves a cache miss per stale entry on large jobs.
    pub(crate) map_pending: Vec<u64>,
    /// Set when the task records of this ended job were released: `maps`
    /// and `reduces` are empty and these are their totals.
    pub released: Option<TaskTotals>,
    /// The spec's `explicit_reduces()`, asked at every map end until the
    /// reduces may start (a scan of every reduce each time otherwise).
    pub(crate) explicit_reduces: bool,
}

/// Set bits `from..to` of `bits`, growing it to hold them.
pub(crate) fn grow_bits(bits: &mut Vec<u64>, from: usize, to: usize) {
    bits.resize(to.div_ceil(64), 0);
    for t in from..to {
        crate::bits::set_bit(bits, t, true);
    }
}

impl Job {
    /// Hint that map `t`'s pending bit will be read soon.
    #[inline]
    pub(crate) fn prefetch_pending_bit(&self, t: u32) {
        if let Some(w) = self.map_pending.get(t as usize / 64) {
            mrsched_model::hint::prefetch(w);
        }
    }

    /// Whether map `t` is pending (its bit; the same as its record says).
    #[inline]
    pub(crate) fn map_is_pending(&self, t: u32) -> bool {
        let t = t as usize;
        let on = crate::bits::bit(&self.map_pending, t);
        debug_assert_eq!(
            on,
            self.maps
                .get(t)
                .is_some_and(|x| x.status == TaskStatus::Pending),
            "{} map {t}: pending bit and record disagree",
            self.id
        );
        on
    }

    /// Record whether map `t` is pending (beside its record's status).
    #[inline]
    pub(crate) fn set_map_pending(&mut self, t: u32, pending: bool) {
        crate::bits::set_bit(&mut self.map_pending, t as usize, pending);
    }

    pub(crate) fn new(id: JobId, spec: Arc<JobSpec>, submitted: Time) -> Job {
        let maps = (0..spec.maps.len()).map(|_| Task::new()).collect();
        let mut map_pending = Vec::new();
        grow_bits(&mut map_pending, 0, spec.maps.len());
        let reduces = (0..spec.reduces.len()).map(|_| Task::new()).collect();
        // Map i of a whole dataset reads its block i: one offset, found
        // without reading a map each (a job may have millions).
        let dataset_offsets = match spec.maps.whole_dataset() {
            Some(d) if !spec.maps.is_empty() => vec![(d, 0)],
            _ => spec
                .maps
                .iter()
                .enumerate()
                .filter_map(|(i, m)| match m.block {
                    Some(b) if b.index == 0 => Some((b.dataset, i as u32)),
                    _ => None,
                })
                .collect(),
        };
        Job {
            id,
            status: JobStatus::Submitted,
            reason: None,
            submitted,
            decided: None,
            first_launch: None,
            maps_done_at: None,
            finish: None,
            map_counts: Counts::default(),
            reduce_counts: Counts::default(),
            maps,
            map_pending,
            reduces,
            reduces_ready: false,
            stats: TaskStats::default(),
            open: false,
            killed_work: Time::ZERO,
            lost_work: Time::ZERO,
            failed_attempts: 0,
            killed_attempts: 0,
            running: Vec::new(),
            dataset_offsets,
            index: RefCell::new(LocalityIndex::default()),
            released: None,
            explicit_reduces: spec.explicit_reduces(),
            spec,
        }
    }

    /// Totals of the task records (kept when they were released).
    pub fn task_totals(&self) -> TaskTotals {
        if let Some(t) = self.released {
            return t;
        }
        let mut t = TaskTotals {
            maps: self.maps.len() as u32,
            reduces: self.reduces.len() as u32,
            ..TaskTotals::default()
        };
        for m in &self.maps {
            t.attempts += m.attempts as u32;
            if m.status == TaskStatus::Done {
                match m.locality {
                    Locality::Node => t.node_local += 1,
                    Locality::Rack => t.rack_local += 1,
                    Locality::OffRack => t.off_rack += 1,
                    Locality::NoData => t.no_data += 1,
                }
            }
        }
        t.attempts += self.reduces.iter().map(|r| r.attempts as u32).sum::<u32>();
        t
    }

    /// True while admitted and unfinished.
    pub fn is_running(&self) -> bool {
        self.status == JobStatus::Running
    }

    /// Pending map tasks.
    pub fn pending_maps(&self) -> u32 {
        self.map_counts.pending
    }

    /// Pending reduce tasks that may be launched now.
    pub fn launchable_reduces(&self) -> u32 {
        if self.reduces_ready {
            self.reduce_counts.pending
        } else {
            0
        }
    }

    /// Running attempts (maps + reduces).
    pub fn running_tasks(&self) -> u32 {
        self.map_counts.running + self.reduce_counts.running
    }

    /// Tasks not finished (pending + running), the job's slot demand.
    pub fn remaining_tasks(&self) -> u32 {
        self.map_counts.pending
            + self.map_counts.running
            + self.reduce_counts.pending
            + self.reduce_counts.running
    }

    /// All maps done.
    pub fn maps_done(&self) -> bool {
        self.map_counts.done as usize == self.maps.len()
    }

    /// The map task of this job that reads block `index` of `dataset`, if
    /// the job reads that dataset.
    pub fn map_for_block(&self, dataset: DatasetId, index: u32) -> Option<u32> {
        let want = Some(mrsched_model::BlockRef { dataset, index });
        self.dataset_offsets
            .iter()
            .find(|(d, _)| *d == dataset)
            .map(|(_, off)| off + index)
            .filter(|t| {
                self.spec
                    .maps
                    .get(*t as usize)
                    .is_some_and(|m| m.block == want)
            })
    }

    /// Ids of the running attempts (any order).
    pub fn running_attempt_ids(&self) -> impl Iterator<Item = AttemptId> + '_ {
        self.running.iter().map(|e| e.attempt)
    }

    /// List `attempt` as running here, serving task `served` of it (see
    /// [`RunEntry`]); returns the entry's position.
    pub(crate) fn add_running(&mut self, attempt: AttemptId, served: u32) -> u32 {
        self.running.push(RunEntry { attempt, served });
        self.running.len() as u32 - 1
    }

    /// Remove `attempt`'s entry at `pos`. The last entry takes its place
    /// and is returned: its attempt must learn its new position.
    pub(crate) fn remove_running(&mut self, attempt: AttemptId, pos: u32) -> Option<RunEntry> {
        let pos = pos as usize;
        let listed = self.running.get(pos).is_some_and(|e| e.attempt == attempt);
        debug_assert!(listed, "{attempt} is not listed as running");
        if !listed {
            return None;
        }
        self.running.swap_remove(pos);
        self.running.get(pos).copied()
    }

    /// Response time so far or in total.
    pub fn response_time(&self, now: Time) -> Time {
        self.finish.unwrap_or(now) - self.submitted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A job's task records are most of a day-long run's memory, and each
    /// read of one is a cache miss: two records to a line, none across
    /// two (see [`Task`]).
    #[test]
    fn task_records_are_half_a_cache_line() {
        assert_eq!(std::mem::size_of::<Task>(), 32);
        assert_eq!(std::mem::align_of::<Task>(), 32);
        let v: Vec<Task> = (0..5).map(|_| Task::new()).collect();
        assert_eq!(v.as_ptr() as usize % 32, 0);
    }
}
