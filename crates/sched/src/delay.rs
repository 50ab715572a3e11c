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
//! 002 §4.3.2): a job's own `locality_wait_s` overrides a wait the policy set
//! for the job ([`DelayScheduler::set_job_mode`], e.g. per job class), which
//! overrides the policy default.
//!
//! How time waited is measured is a choice ([`WaitClock`]):
//!
//! * [`WaitClock::HeartbeatGaps`] (the default) is the Hadoop Fair
//!   Scheduler's rule above: a job skipped at one heartbeat has waited the
//!   gap to the next heartbeat of *any* node, and every launch resets the
//!   wait. It is exact only when every heartbeat is delivered, so a policy
//!   using it should ask the simulator for every heartbeat
//!   ([`DelayScheduler::needs_every_heartbeat`]).
//! * [`WaitClock::SinceStarved`] measures the wall-clock time since the job
//!   first declined a slot, and a launch ends that waiting episode only when
//!   the caller says the job now holds its share. This is the lesson of
//!   SPARK-18886 (research/anchors.md §4.1): when every launch resets the
//!   timer, a job whose tasks are shorter than the wait keeps launching on
//!   the few nodes with its data and never unlocks the idle rest of the
//!   cluster. With this clock a slot declined by a job below its share stays
//!   idle for at most `T1 + T2`.

use mrsched_model::{JobId, Locality, NodeId, Time};
use mrsched_state::ClusterState;

use crate::job_table::JobTable;

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

/// How the time a job has waited is measured (see the module docs).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum WaitClock {
    /// Hadoop Fair Scheduler: the gap to the next heartbeat after each skip;
    /// every launch resets the wait.
    #[default]
    HeartbeatGaps,
    /// Time since the job first declined a slot; a launch resets it only when
    /// the job then holds its share (SPARK-18886).
    SinceStarved,
}

#[derive(Clone, Debug, Default)]
struct JobDelay {
    level: usize,
    wait: Time,
    skips: u32,
    skipped: bool,
    /// Start of the current waiting episode (`SinceStarved`).
    since: Option<Time>,
    /// A wait the policy set for this job (IO-rate biasing by class).
    mode: Option<DelayMode>,
    /// The job's final mode, cached by [`DelayScheduler::admit`] so the
    /// heartbeat path does not read the job's spec.
    resolved: Option<DelayMode>,
}

/// Per-job delay-scheduling state.
#[derive(Clone, Debug)]
pub struct DelayScheduler {
    mode: DelayMode,
    clock: WaitClock,
    /// Per-job state by dense job id (a vector: lookups on the heartbeat
    /// path are array accesses, not hashing).
    jobs: JobTable<JobDelay>,
    skipped: Vec<JobId>,
    last_heartbeat: Option<Time>,
    /// Bumped by every change of a job's level, episode or mode (not by
    /// skips that leave them as they were): see [`DelayScheduler::epoch`].
    epoch: u64,
}

impl DelayScheduler {
    /// A delay scheduler in `mode` with the Hadoop Fair Scheduler's clock.
    pub fn new(mode: DelayMode) -> DelayScheduler {
        DelayScheduler {
            mode,
            clock: WaitClock::default(),
            jobs: JobTable::default(),
            skipped: Vec::new(),
            last_heartbeat: None,
            epoch: 0,
        }
    }

    /// The same, measuring waits with `clock`.
    pub fn with_clock(mut self, clock: WaitClock) -> DelayScheduler {
        self.clock = clock;
        self
    }

    /// The configured mode.
    pub fn mode(&self) -> DelayMode {
        self.mode
    }

    /// The configured clock.
    pub fn clock(&self) -> WaitClock {
        self.clock
    }

    /// Whether waits are only right when every heartbeat, even of a node
    /// with nothing to do, is delivered: time-based waits on the Hadoop Fair
    /// Scheduler's clock (a policy forwards this from
    /// `Scheduler::needs_every_heartbeat`).
    pub fn needs_every_heartbeat(&self) -> bool {
        matches!(self.mode, DelayMode::Wait { .. }) && self.clock == WaitClock::HeartbeatGaps
    }

    /// Call at every heartbeat: jobs skipped at the previous heartbeat have
    /// waited the time since then.
    pub fn on_heartbeat(&mut self, now: Time) {
        if let Some(last) = self.last_heartbeat {
            let gap = now.saturating_sub(last);
            for j in self.skipped.drain(..) {
                if let Some(d) = self.jobs.get_mut(j) {
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
        self.epoch += 1;
        self.jobs.remove(job);
    }

    /// Set the waits of one job (IO-rate biasing by job class, seed 002
    /// §4.3.2). A job's own `locality_wait_s` still takes precedence.
    pub fn set_job_mode(&mut self, job: JobId, mode: DelayMode) {
        self.epoch += 1;
        let d = self.jobs.get_or_insert_with(job, JobDelay::default);
        d.mode = Some(mode);
        d.resolved = None;
    }

    /// Resolve and remember the mode of an admitted job (its own waits, the
    /// mode set for it, or the default). Optional: it only saves reading the
    /// job's spec on every heartbeat. Call after any `set_job_mode`.
    pub fn admit(&mut self, st: &ClusterState, job: JobId) {
        let m = self.job_mode(st, job);
        self.epoch += 1;
        self.jobs
            .get_or_insert_with(job, JobDelay::default)
            .resolved = Some(m);
    }

    /// The mode that applies to `job`: its own `locality_wait_s`, else the
    /// mode set for it, else the default.
    pub fn job_mode(&self, st: &ClusterState, job: JobId) -> DelayMode {
        if let Some(m) = self.jobs.get(job).and_then(|d| d.resolved) {
            return m;
        }
        let base = self.jobs.get(job).and_then(|d| d.mode).unwrap_or(self.mode);
        match (base, st.job(job).spec.locality_wait) {
            (DelayMode::Wait { .. }, Some([n, r])) | (DelayMode::Off, Some([n, r])) => {
                DelayMode::Wait { node: n, rack: r }
            }
            (m, _) => m,
        }
    }

    /// Time `job` has waited, on the configured clock.
    pub fn waited(&self, job: JobId, now: Time) -> Time {
        let Some(d) = self.jobs.get(job) else {
            return Time::ZERO;
        };
        match self.clock {
            WaitClock::HeartbeatGaps => d.wait,
            WaitClock::SinceStarved => d.since.map_or(Time::ZERO, |s| now.saturating_sub(s)),
        }
    }

    /// The least local level `job` may launch at now.
    pub fn allowed_level(&self, st: &ClusterState, job: JobId) -> Locality {
        let (level, skips) = self.jobs.get(job).map_or((0, 0), |d| (d.level, d.skips));
        match self.job_mode(st, job) {
            DelayMode::Off => Locality::OffRack,
            DelayMode::Wait { node, rack } => {
                let wait = self.waited(job, st.now());
                if level >= 2 || (level == 1 && wait >= rack) || (level == 0 && wait >= node + rack)
                {
                    Locality::OffRack
                } else if level >= 1 || wait >= node {
                    Locality::Rack
                } else {
                    Locality::Node
                }
            }
            DelayMode::Skip { node, rack } => {
                if skips >= node.saturating_add(rack) {
                    Locality::OffRack
                } else if skips >= node {
                    Locality::Rack
                } else {
                    Locality::Node
                }
            }
        }
    }

    /// The task [`DelayScheduler::pick`] would launch, without recording
    /// anything: the most local pending map of `job` for `node` within the
    /// job's allowed level. Policies that may still refuse the task (disk
    /// space, caps) peek first, then call [`DelayScheduler::launched_at`] or
    /// [`DelayScheduler::skip_at`].
    pub fn peek(&self, st: &ClusterState, job: JobId, node: NodeId) -> Option<(u32, Locality)> {
        // `find_map_task` answers "nothing pending" itself; at node level it
        // rejects a job without local data from one bit.
        st.find_map_task(job, node, self.allowed_level(st, job))
    }

    /// A map task of `job` for `node` within the job's allowed level, and
    /// the bookkeeping that goes with the answer: a launch resets the wait
    /// and sets the level to the task's; no task while the job has pending
    /// maps counts as a skip.
    pub fn pick(&mut self, st: &ClusterState, job: JobId, node: NodeId) -> Option<(u32, Locality)> {
        self.pick_with(st, job, node, true)
    }

    /// [`DelayScheduler::pick`] for a policy that knows shares:
    /// `satisfied` tells whether the job holds its share once this task
    /// runs (only [`WaitClock::SinceStarved`] uses it).
    pub fn pick_with(
        &mut self,
        st: &ClusterState,
        job: JobId,
        node: NodeId,
        satisfied: bool,
    ) -> Option<(u32, Locality)> {
        if st.job(job).pending_maps() == 0 {
            // Nothing to wait for: a later batch of pending tasks (re-runs)
            // starts a new episode.
            if let Some(d) = self.jobs.get_mut(job) {
                d.since = None;
            }
            self.epoch += 1;
            return None;
        }
        match st.find_map_task(job, node, self.allowed_level(st, job)) {
            Some((t, loc)) => {
                self.launched_at(job, loc, st.now(), satisfied);
                Some((t, loc))
            }
            None => {
                self.skip_at(job, st.now());
                None
            }
        }
    }

    /// Record that `job` launched a task at `loc`.
    pub fn launched(&mut self, job: JobId, loc: Locality) {
        let now = self.last_heartbeat.unwrap_or(Time::ZERO);
        self.launched_at(job, loc, now, true);
    }

    /// Record that `job` launched a task at `loc` at `now`; `satisfied`:
    /// the job holds its share with it (ends a `SinceStarved` episode).
    /// A launch more local than the job's level brings it back to that level
    /// (seed 002 §4.2).
    pub fn launched_at(&mut self, job: JobId, loc: Locality, _now: Time, satisfied: bool) {
        let clock = self.clock;
        self.epoch += 1;
        let d = self.jobs.get_or_insert_with(job, JobDelay::default);
        d.level = loc.level();
        d.skips = 0;
        match clock {
            WaitClock::HeartbeatGaps => {
                d.wait = Time::ZERO;
                d.skipped = false;
            }
            WaitClock::SinceStarved => {
                // A job still below its share keeps its episode: the slots it
                // declined are still idle (SPARK-18886).
                if satisfied {
                    d.since = None;
                }
            }
        }
    }

    /// Record that `job` was passed over for lack of a local task.
    pub fn skip(&mut self, job: JobId) {
        let now = self.last_heartbeat.unwrap_or(Time::ZERO);
        self.skip_at(job, now);
    }

    /// Record that `job` declined a slot at `now` for lack of a task within
    /// its allowed level.
    pub fn skip_at(&mut self, job: JobId, now: Time) {
        let d = self.jobs.get_or_insert_with(job, JobDelay::default);
        d.skips = d.skips.saturating_add(1);
        if d.since.is_none() {
            d.since = Some(now);
            self.epoch += 1;
        }
        if !d.skipped {
            d.skipped = true;
            self.skipped.push(job);
        }
    }

    /// Changes whenever a job's level, waiting episode or mode changes.
    /// Skips that find a job's episode already started leave it as it was:
    /// they count only for skip-count waits and heartbeat-gap clocks.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Until when `job` may launch node-local tasks only and a skip
    /// changes nothing that can be seen: a time-based wait on the
    /// [`WaitClock::SinceStarved`] clock, at level 0, in an episode begun at
    /// `since`, which allows rack-local tasks from `since + T1`. `None`
    /// otherwise (or once that time is reached).
    pub fn node_only_until(&self, job: JobId, now: Time) -> Option<Time> {
        if self.clock != WaitClock::SinceStarved {
            return None;
        }
        let d = self.jobs.get(job)?;
        match (d.resolved?, d.since) {
            (DelayMode::Wait { node, .. }, Some(since)) if d.level == 0 => {
                let until = since + node;
                (now < until).then_some(until)
            }
            _ => None,
        }
    }

    /// Current level of `job` (0 node, 1 rack, 2 any).
    pub fn level(&self, job: JobId) -> usize {
        self.jobs.get(job).map(|d| d.level).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{data_job, state_with};

    fn secs(s: u64) -> Time {
        Time::from_secs(s)
    }

    // Nodes 0, 2 on rack 0 and 1, 3 on rack 1 (round-robin racks).
    const CLUSTER: &str = "[[nodes]]\ncount = 4\nracks = 2\nmap_slots = 1\nreduce_slots = 1\n";

    #[test]
    fn waits_unlock_rack_then_any_and_local_launch_falls_back() {
        // One block, on node 0 only.
        let mut st = state_with(CLUSTER, &[vec![0], vec![0]]);
        let j = st.submit(data_job(2, 0));
        st.admit(j).unwrap();
        let mut d = DelayScheduler::new(DelayMode::Wait {
            node: secs(5),
            rack: secs(10),
        });
        d.on_heartbeat(secs(0));
        // Node 2 is rack-local, node 1 off-rack: both refused at level 0.
        assert_eq!(d.pick(&st, j, NodeId(2)), None);
        d.on_heartbeat(secs(3));
        assert_eq!(d.allowed_level(&st, j), Locality::Node);
        assert_eq!(d.pick(&st, j, NodeId(2)), None);
        d.on_heartbeat(secs(6));
        // Waited 6 s >= T1: rack-local allowed, off-rack not yet.
        assert_eq!(d.allowed_level(&st, j), Locality::Rack);
        assert_eq!(d.pick(&st, j, NodeId(1)), None);
        d.on_heartbeat(secs(16));
        assert_eq!(d.allowed_level(&st, j), Locality::OffRack);
        let (_, loc) = d.pick(&st, j, NodeId(1)).unwrap();
        assert_eq!(loc, Locality::OffRack);
        assert_eq!(d.level(j), 2);
        // A node-local launch brings the job back to level 0.
        let (_, loc) = d.pick(&st, j, NodeId(0)).unwrap();
        assert_eq!(loc, Locality::Node);
        assert_eq!(d.level(j), 0);
        assert_eq!(d.allowed_level(&st, j), Locality::Node);
    }

    #[test]
    fn skip_counts() {
        let mut st = state_with(CLUSTER, &[vec![0], vec![0], vec![0]]);
        let j = st.submit(data_job(3, 0));
        st.admit(j).unwrap();
        let mut d = DelayScheduler::new(DelayMode::Skip { node: 2, rack: 1 });
        assert!(!d.needs_every_heartbeat());
        assert_eq!(d.pick(&st, j, NodeId(2)), None);
        assert_eq!(d.pick(&st, j, NodeId(2)), None);
        // Two skips: rack-local now allowed.
        assert_eq!(d.pick(&st, j, NodeId(2)).unwrap().1, Locality::Rack);
        // The rack launch reset the count.
        assert_eq!(d.pick(&st, j, NodeId(1)), None);
        assert_eq!(d.pick(&st, j, NodeId(1)), None);
        assert_eq!(d.pick(&st, j, NodeId(1)), None);
        assert_eq!(d.pick(&st, j, NodeId(1)).unwrap().1, Locality::OffRack);
    }

    #[test]
    fn per_job_modes_and_job_override() {
        let mut st = state_with(CLUSTER, &[vec![0]]);
        let a = st.submit(data_job(1, 0));
        let mut spec = data_job(1, 0);
        spec.locality_wait = Some([Time::ZERO, Time::ZERO]);
        let b = st.submit(spec);
        st.admit(a).unwrap();
        st.admit(b).unwrap();
        let mut d = DelayScheduler::new(DelayMode::Wait {
            node: secs(10),
            rack: secs(10),
        });
        assert_eq!(d.allowed_level(&st, a), Locality::Node);
        // The job's own zero waits: anything at once.
        assert_eq!(d.allowed_level(&st, b), Locality::OffRack);
        // A CPU-bound class with no wait (IO-rate biasing).
        d.set_job_mode(a, DelayMode::Off);
        assert_eq!(d.allowed_level(&st, a), Locality::OffRack);
        d.set_job_mode(b, DelayMode::Skip { node: 5, rack: 5 });
        // The job's own waits win over the class setting only for time
        // modes; a skip-count class keeps its counts.
        assert_eq!(d.allowed_level(&st, b), Locality::Node);
    }

    #[test]
    fn since_starved_clock_does_not_reset_below_share() {
        // SPARK-18886: every block is on node 0; the job keeps launching
        // there, but while it is below its share its episode goes on and
        // the other nodes get its tasks after T1 + T2.
        let blocks: Vec<Vec<u32>> = (0..20).map(|_| vec![0]).collect();
        let mut st = state_with(CLUSTER, &blocks);
        let j = st.submit(data_job(20, 0));
        st.admit(j).unwrap();
        let mode = DelayMode::Wait {
            node: secs(5),
            rack: secs(5),
        };
        let mut hfs = DelayScheduler::new(mode);
        let mut ours = DelayScheduler::new(mode).with_clock(WaitClock::SinceStarved);
        assert!(hfs.needs_every_heartbeat());
        assert!(!ours.needs_every_heartbeat());
        for t in 0..30u64 {
            st.advance_to(secs(t));
            hfs.on_heartbeat(secs(t));
            ours.on_heartbeat(secs(t));
            // Node 1 (off-rack) asks every second and is refused ...
            let h = hfs.peek(&st, j, NodeId(1));
            let o = ours.peek(&st, j, NodeId(1));
            if t < 10 {
                assert_eq!(o, None, "t = {t}");
            } else {
                assert!(o.is_some(), "ours unlocks the idle node by t = {t}");
            }
            assert_eq!(h, None, "the HFS clock never unlocks it (t = {t})");
            hfs.skip_at(j, secs(t));
            ours.skip_at(j, secs(t));
            // ... while node 0 launches a local task every second (tasks
            // shorter than the wait), with the job below its share.
            hfs.launched_at(j, Locality::Node, secs(t), false);
            ours.launched_at(j, Locality::Node, secs(t), false);
        }
        // A launch that satisfies the job ends the episode.
        ours.launched_at(j, Locality::Node, secs(30), true);
        assert_eq!(ours.waited(j, secs(31)), Time::ZERO);
        assert_eq!(ours.allowed_level(&st, j), Locality::Node);
    }
}
