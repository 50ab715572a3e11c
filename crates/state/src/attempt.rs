//! Attempts (one execution of a task) and launch requests.

use mrsched_model::{AttemptId, JobId, Locality, NodeId, TaskKind, TaskRef, Time};
use serde::{Deserialize, Serialize};

/// What a scheduler asks a driver to start on a node.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Launch {
    /// A map attempt. `riders` are further jobs' map tasks that read the same
    /// block and ride on this attempt (a shared scan, seed 000 Appendix C);
    /// empty for every policy without shared scans.
    Map {
        /// The driving job.
        job: JobId,
        /// Its map task index.
        task: u32,
        /// Riding `(job, map task)` pairs on the same block.
        riders: Vec<(JobId, u32)>,
    },
    /// A reduce attempt.
    Reduce {
        /// The job.
        job: JobId,
        /// Its reduce task index.
        task: u32,
    },
}

impl Launch {
    /// A plain map launch.
    pub fn map(job: JobId, task: u32) -> Launch {
        Launch::Map {
            job,
            task,
            riders: Vec::new(),
        }
    }
    /// A reduce launch.
    pub fn reduce(job: JobId, task: u32) -> Launch {
        Launch::Reduce { job, task }
    }
    /// Map or reduce.
    pub fn kind(&self) -> TaskKind {
        match self {
            Launch::Map { .. } => TaskKind::Map,
            Launch::Reduce { .. } => TaskKind::Reduce,
        }
    }
    /// The driving job.
    pub fn job(&self) -> JobId {
        match self {
            Launch::Map { job, .. } | Launch::Reduce { job, .. } => *job,
        }
    }
}

/// How an attempt ended (or that it is still running).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttemptStatus {
    /// Still running.
    Running,
    /// Finished its work.
    Succeeded,
    /// Failed (counts towards the task's attempt limit).
    Failed,
    /// Killed by the scheduler (preemption) or a user; not a failure.
    Killed,
    /// Its node was lost; not a failure.
    Lost,
}

/// Phase of a running reduce attempt.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReducePhase {
    /// Fetching map outputs (network bound).
    Copying,
    /// Copy done; waiting for the node to admit its compute phase
    /// (copy-compute splitting).
    WaitingCompute,
    /// Running the reduce function.
    Computing,
}

/// An instant that may not have come yet, in eight bytes.
///
/// Serialised as `Option<Time>` (`null` or microseconds). `Time::MAX`, the
/// "never" of [`Time`], stands for "not yet": no run reaches that instant.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Stamp(Time);

impl Stamp {
    /// Not yet.
    pub const NONE: Stamp = Stamp(Time::MAX);
    /// The instant `t`.
    pub fn at(t: Time) -> Stamp {
        debug_assert!(t != Time::MAX, "Time::MAX marks an unset stamp");
        Stamp(t)
    }
    /// The instant, if it has come.
    pub fn get(self) -> Option<Time> {
        (self.0 != Time::MAX).then_some(self.0)
    }
}

impl Serialize for Stamp {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.get().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Stamp {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Stamp, D::Error> {
        Ok(Option::<Time>::deserialize(d)?.map_or(Stamp::NONE, Stamp))
    }
}

/// One execution on one node.
///
/// 64 bytes aligned to 64: each slot of the running attempts' store is one
/// cache line, read once at a launch, a phase change and an end.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[repr(align(64))]
pub struct Attempt {
    /// Unique id (never reused).
    pub id: AttemptId,
    /// Map or reduce.
    pub kind: TaskKind,
    /// The driving task (for a shared scan, the first rider).
    pub job: JobId,
    /// Its index.
    pub task: u32,
    /// Further riding map tasks (shared scans).
    pub riders: Box<[(JobId, u32)]>,
    /// Where it runs.
    pub node: NodeId,
    /// Launch time.
    pub start: Time,
    /// End time, once ended.
    pub end: Stamp,
    /// Status.
    pub status: AttemptStatus,
    /// Locality of its read (maps); `NoData` for reduces.
    pub locality: Locality,
    /// Reduce phase (maps: always `Computing`).
    pub phase: ReducePhase,
    /// When the compute phase began (reduces).
    pub compute_start: Stamp,
}

impl Attempt {
    /// Every task this attempt serves: the driver first, then the riders.
    pub fn tasks(&self) -> impl Iterator<Item = TaskRef> + '_ {
        std::iter::once((self.job, self.task))
            .chain(self.riders.iter().copied())
            .map(move |(job, index)| TaskRef {
                job,
                kind: self.kind,
                index,
            })
    }
    /// Time run so far (or in total, once ended).
    pub fn elapsed(&self, now: Time) -> Time {
        self.end.get().unwrap_or(now) - self.start
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The running attempts' store reads a slot at every launch, phase
    /// change and end: one cache line each, none across two.
    #[test]
    fn attempt_slots_are_one_cache_line() {
        assert_eq!(std::mem::size_of::<Option<Attempt>>(), 64);
        assert_eq!(std::mem::align_of::<Attempt>(), 64);
    }

    /// A stamp serialises as the `Option<Time>` it stands for, both ways.
    #[test]
    fn stamps_read_and_write_as_optional_times() {
        let set = Stamp::at(Time(1_500_000));
        assert_eq!(serde_json::to_string(&set).unwrap(), "1500000");
        assert_eq!(serde_json::to_string(&Stamp::NONE).unwrap(), "null");
        assert_eq!(serde_json::from_str::<Stamp>("1500000").unwrap(), set);
        assert_eq!(serde_json::from_str::<Stamp>("null").unwrap(), Stamp::NONE);
        assert_eq!(set.get(), Some(Time(1_500_000)));
        assert_eq!(Stamp::NONE.get(), None);
    }
}
