//! Delay scheduling: let a job wait a little for a slot with its data
//! rather than run a non-local task at once.
//!
//! Two forms are implemented, both from the delay-scheduling work behind
//! seed 002:
//!
//! * **wait times** (the Hadoop Fair Scheduler, prior-work.md §6.1
//!   Algorithm 3): a job starts at level 0 (node-local only); after waiting
//!   `T1` it may launch rack-local tasks, after a further `T2` anything. Time
//!   waited grows by the gap to the next heartbeat each time the job is
//!   skipped, and is reset when it launches; launching a task more local than
//!   its level brings the job back to that level (seed 002 §4.2).
//! * **skip counts** (EuroSys Algorithm 2): the job may go one level further
//!   once it has been skipped `D1` (then `D1 + D2`) times.
//!
//! The state is per job; policies keep one [`DelayScheduler`] and ask it for
//! a task of a job on a node. Waits can be set per job (IO-rate biasing, seed
//! 002 §4.3.2): a job's own `locality_wait_s` overrides the policy default.

use mrsched_model::{JobId, Locality, NodeId, Time};
use mrsched_state::ClusterState;
use rustc_hash::FxHashMap;

/// How long jobs wait for locality.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum DelayMode {
    /// No waiting: the most local task available, whatever its level.
    Off,
    /// Time-based waits (Hadoop Fair Scheduler).
    Wait {
        /// Wait before rack-local tasks are allowed (T1).
        node: Time,
        /// Further wait before off-rack tasks are allowed (T2).
        rack: Time,
    },
    /// Skip-count based (EuroSys Algorithm 2 with a rack level).
    Skip {
        /// Skips before rack-local tasks are allowed (D1).
        node: u32,
        /// Further skips before off-rack tasks are allowed (D2).
        rack: u32,
    },
}

#[derive(Clone, Debug, Default)]
struct JobDelay {
    level: usize,
    wait: Time,
    skips: u32,
    skipped: bool,
}

/// Per-job delay-scheduling state.
#[derive(Clone, Debug)]
pub struct DelayScheduler {
    mode: DelayMode,
    jobs: FxHashMap<JobId, JobDelay>,
    skipped: Vec<JobId>,
    last_heartbeat: Option<Time>,
}

impl DelayScheduler {
    /// A delay scheduler in `mode`.
    pub fn new(mode: DelayMode) -> DelayScheduler {
        DelayScheduler {
            mode,
            jobs: FxHashMap::default(),
            skipped: Vec::new(),
            last_heartbeat: None,
        }
    }

    /// The configured mode.
    pub fn mode(&self) -> DelayMode {
        self.mode
    }

    /// Call at every heartbeat: jobs skipped at the previous heartbeat have
    /// waited the time since then.
    pub fn on_heartbeat(&mut self, now: Time) {
        if let Some(last) = self.last_heartbeat {
            let gap = now - last;
            for j in self.skipped.drain(..) {
                if let Some(d) = self.jobs.get_mut(&j) {
                    if d.skipped {
                        d.wait += gap;
                        d.skipped = false;
                    }
                }
            }
        }
        self.last_heartbeat = Some(now);
    }

    /// Forget a job (it ended).
    pub fn forget(&mut self, job: JobId) {
        self.jobs.remove(&job);
    }

    /// The least local level `job` may launch at now.
    pub fn allowed_level(&self, st: &ClusterState, job: JobId) -> Locality {
        let d = self.jobs.get(&job).cloned().unwrap_or_default();
        let mode = match (self.mode, st.job(job).spec.locality_wait) {
            (DelayMode::Wait { .. }, Some([n, r])) | (DelayMode::Off, Some([n, r])) => {
                DelayMode::Wait { node: n, rack: r }
            }
            (m, _) => m,
        };
        match mode {
            DelayMode::Off => Locality::OffRack,
            DelayMode::Wait { node, rack } => {
                if d.level >= 2
                    || (d.level == 1 && d.wait >= rack)
                    || (d.level == 0 && d.wait >= node + rack)
                {
                    Locality::OffRack
                } else if d.level >= 1 || d.wait >= node {
                    Locality::Rack
                } else {
                    Locality::Node
                }
            }
            DelayMode::Skip { node, rack } => {
                if d.skips >= node.saturating_add(rack) {
                    Locality::OffRack
                } else if d.skips >= node {
                    Locality::Rack
                } else {
                    Locality::Node
                }
            }
        }
    }

    /// A map task of `job` for `node` within the job's allowed level, and
    /// the bookkeeping that goes with the answer: a launch resets the wait
    /// and sets the level to the task's; no task while the job has pending
    /// maps counts as a skip.
    pub fn pick(&mut self, st: &ClusterState, job: JobId, node: NodeId) -> Option<(u32, Locality)> {
        if st.job(job).pending_maps() == 0 {
            return None;
        }
        let allowed = self.allowed_level(st, job);
        match st.find_map_task(job, node, allowed) {
            Some((t, loc)) => {
                self.launched(job, loc);
                Some((t, loc))
            }
            None => {
                self.skip(job);
                None
            }
        }
    }

    /// Record that `job` launched a task at `loc`.
    pub fn launched(&mut self, job: JobId, loc: Locality) {
        let d = self.jobs.entry(job).or_default();
        d.level = loc.level();
        d.wait = Time::ZERO;
        d.skips = 0;
        d.skipped = false;
    }

    /// Record that `job` was passed over for lack of a local task.
    pub fn skip(&mut self, job: JobId) {
        let d = self.jobs.entry(job).or_default();
        d.skips = d.skips.saturating_add(1);
        if !d.skipped {
            d.skipped = true;
            self.skipped.push(job);
        }
    }

    /// Current level of `job` (0 node, 1 rack, 2 any).
    pub fn level(&self, job: JobId) -> usize {
        self.jobs.get(&job).map(|d| d.level).unwrap_or(0)
    }
}
