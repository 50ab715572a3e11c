//! The discrete-event engine.
//!
//! One priority queue of `(time, sequence, event)`: the sequence number
//! breaks ties in insertion order, so two runs with the same inputs and seed
//! process the same events in the same order and print the same bytes.
//!
//! Heartbeats dominate the event count of a naive simulator (600 nodes every
//! 3 s is 17 million a day), yet a heartbeat from a node with no free slot,
//! or when nothing is pending, changes nothing for a policy that acts only on
//! free slots. Such nodes *sleep*: their next heartbeat is not queued until a
//! slot frees on them or new work appears, and then it is queued at the next
//! instant of their own heartbeat grid (`phase + k * interval + jitter(k)`,
//! the jitter a hash of seed, node and k). Results are therefore identical to
//! delivering every heartbeat. Policies that need every heartbeat (time-based
//! waits that grow at idle heartbeats) say so and get them all.
//!
//! Waking every idle node when work appears (a job arrives, its reduces
//! become ready) would cost a heartbeat computation per node per job: on a
//! 100,000-node cluster that was the whole run. Such a wake-up is one
//! [`Cohort`]: its members' heartbeats are computed as simulated time reaches
//! them, in the order of their grid (see `cohort.rs`), with the same times
//! and the same order of equal times as waking them one by one.

use crate::cohort::{bit, set_bit, Cohort, Grid};
use crate::copy::CopyProfile;
use crate::placement::Placement;
use crate::queue::EventQueue;
use mrsched_metrics::{LatencyHistogram, RunInfo, Sample};
use mrsched_model::cost;
use mrsched_model::rng::{self, hash_words, unit_from_hash};
use mrsched_model::{AttemptId, Cluster, JobId, NodeId, TaskKind, Time, Workload};
use mrsched_sched::{Driver, Hooks, IdleBeats, Scheduler};
use mrsched_state::bits::ones;
use mrsched_state::{ClusterState, Launch, LaunchError, StateEvent};
use rand::Rng as _;
use rand_distr::{Distribution, Exp};
use rustc_hash::FxHashMap;
use std::fmt;

/// Simulation settings.
#[derive(Clone, Debug)]
pub struct SimOptions {
    /// Seed of every random choice.
    pub seed: u64,
    /// Timeline sampling period.
    pub sample_every: Time,
    /// Fail the run when a scheduler asks for an impossible launch (tests,
    /// development); otherwise the heartbeat simply ends.
    pub strict: bool,
    /// Measure the wall-clock time of every `assign` call (makes the output
    /// non-deterministic, so it is off by default).
    pub timing: bool,
    /// Give up when no job has arrived and no task has ended for this long
    /// while jobs remain and nothing runs; with tasks running, for this
    /// long beyond twice the longest task the workload could take.
    pub stall_after: Time,
    /// Free each job's task records once it has ended, keeping their
    /// totals (`ClusterState::release_task_records`): memory then follows
    /// the running jobs, not the whole day. The report is the same; callers
    /// that read ended jobs' tasks after the run leave it off.
    pub release_ended_jobs: bool,
    /// Wake every idle node at once through a cohort whose heartbeats are
    /// computed as time reaches them (see `cohort.rs`). Off, each node's
    /// heartbeat is queued one by one: the same run, slower on large
    /// clusters (tests compare the two).
    pub lazy_wake: bool,
    /// Take a heartbeat the scheduler declines
    /// (`Scheduler::decline_heartbeat`) without the full round and the step
    /// around it. Off, every heartbeat goes through the round: the same
    /// run, slower under delay scheduling (tests compare the two).
    pub decline_beats: bool,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            seed: 1,
            sample_every: Time::from_secs(10),
            strict: true,
            timing: false,
            stall_after: Time::from_secs(7 * 86_400),
            release_ended_jobs: false,
            lazy_wake: true,
            decline_beats: true,
        }
    }
}

/// Why a simulation could not finish.
#[derive(Clone, Debug, PartialEq)]
pub enum SimError {
    /// The scheduler asked for a launch the state refused (strict mode).
    InvalidLaunch {
        /// When.
        at: Time,
        /// The node.
        node: NodeId,
        /// The node's name in the cluster file.
        node_name: String,
        /// The request.
        launch: Launch,
        /// Why it was refused.
        error: LaunchError,
    },
    /// Jobs remain but nothing can happen any more.
    Stalled {
        /// When it was detected.
        at: Time,
        /// Names of unfinished submitted jobs (up to 10), as in the
        /// workload.
        jobs: Vec<String>,
        /// How many submitted jobs are unfinished.
        unfinished: usize,
        /// The next job still to arrive and its arrival time, if any.
        next_arrival: Option<(String, Time)>,
        /// When anything last happened (a job arrived, a task ended).
        last_progress: Time,
        /// The cluster's heartbeat interval.
        heartbeat: Time,
        /// Task attempts running when nodes failed, since `last_progress`.
        lost_attempts: u64,
        /// When maps wait: the map slots free at that time and in all
        /// (none free: nodes are down or the cluster's capacity takes them).
        waiting_maps_slots: Option<(u32, u32)>,
    },
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::InvalidLaunch {
                at,
                node: _,
                node_name,
                launch,
                error,
            } => write!(
                f,
                "at {at} the scheduler asked for an impossible launch on node `{node_name}`: {launch:?}: {error}"
            ),
            SimError::Stalled {
                at,
                jobs,
                unfinished,
                next_arrival,
                last_progress,
                heartbeat,
                lost_attempts,
                waiting_maps_slots,
            } => {
                write!(f, "the simulation stalled at {at}: no job arrived and no task ended since {last_progress}")?;
                if *unfinished > 0 {
                    let names: Vec<String> = jobs.iter().map(|j| format!("`{j}`")).collect();
                    let more = if *unfinished > jobs.len() {
                        format!(" and {} more", unfinished - jobs.len())
                    } else {
                        String::new()
                    };
                    write!(
                        f,
                        "; job(s) {}{more} cannot finish: no node can run them, or the scheduler never assigns them (check the jobs' slots and sizes against the cluster's nodes, and the scheduler's pools and limits)",
                        names.join(", ")
                    )?;
                }
                if let Some((name, t)) = next_arrival {
                    write!(
                        f,
                        "; job `{name}` is still to arrive at {t} (its arrival_s)"
                    )?;
                }
                if let Some((0, total)) = waiting_maps_slots {
                    write!(
                        f,
                        "; maps wait but none of the cluster's {total} map slots is free (nodes are down, or the cluster's [[capacity]] takes them)"
                    )?;
                }
                if *lost_attempts > 0 {
                    write!(
                        f,
                        "; {lost_attempts} task attempt(s) were lost to node failures since then: tasks longer than the time between failures (the cluster's faults, node_mtbf_s) never finish"
                    )?;
                }
                if *heartbeat >= *at {
                    write!(
                        f,
                        "; the cluster's heartbeat_interval_s ({heartbeat}) is longer than the whole run"
                    )?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for SimError {}

/// The result of a run.
pub struct SimOutput {
    /// The final cluster state (every job, task and counter).
    pub state: ClusterState,
    /// Run information for the report.
    pub info: RunInfo,
    /// Attempt launches plus attempt ends: the "task events" the throughput
    /// targets count.
    pub task_events: u64,
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    Arrival(u32),
    Heartbeat(NodeId, bool),
    MapDone(AttemptId),
    CopyDone(AttemptId, u32),
    ComputeDone(AttemptId),
    AttemptFail(AttemptId),
    Timer,
    NodeDown(NodeId, bool),
    NodeUp(NodeId, bool),
    Capacity(u32),
    ReduceRelease(JobId),
    Sample,
    /// Idle heartbeats set aside until this instant matter again (queued
    /// before every other event of that instant).
    BeatsDue,
}

struct NodeBeat {
    /// A periodic heartbeat is queued in `beat_heap` (members of a cohort
    /// are not).
    queued: bool,
    /// `(time, sequence)` of the queued heartbeat (entries of `beat_heap`
    /// with another sequence are stale).
    at: (u64, u64),
}

struct Engine<'a> {
    st: ClusterState,
    sched: &'a mut dyn Scheduler,
    driver: Driver,
    cluster: &'a Cluster,
    placement: Placement,
    k: Core<'a>,
}

/// Everything the engine keeps besides the state and the scheduler: the
/// driver hooks of the shared loop ([`Driver`]).
struct Core<'a> {
    opts: &'a SimOptions,
    workload: &'a Workload,
    heap: EventQueue<Ev>,
    /// Periodic heartbeats, apart from other events so that they can be set
    /// aside at once; one sequence counter orders both queues.
    beat_heap: EventQueue<NodeId>,
    seq: u64,
    /// `(time, sequence)` of the event being handled.
    current: (u64, u64),
    beats: Vec<NodeBeat>,
    /// Each node's next heartbeat grid index not yet delivered.
    next_k: Vec<u64>,
    grid: Grid,
    /// Wake-ups of many nodes at once whose heartbeats are computed as time
    /// reaches them (see [`crate::cohort`]); used when `lazy`.
    cohorts: Vec<Cohort>,
    /// The cohorts' heartbeats are set aside with the others.
    cohorts_aside: bool,
    /// No cohort beats before this (0: to be computed).
    cohort_horizon: u64,
    /// When a queued `BeatsDue` fires.
    beats_due: Option<u64>,
    /// Wake-ups of every idle node go through cohorts: the scheduler lets
    /// idle heartbeats be set aside and beat times grow with the grid index.
    lazy: bool,
    /// By phase rank (see [`Grid`]), when `lazy`: nodes with a free map
    /// slot, with a free reduce slot (both as of the last
    /// `refresh_slot_bits`, which every reader calls first), with a
    /// heartbeat in `beat_heap`.
    free_map_bits: Vec<u64>,
    free_reduce_bits: Vec<u64>,
    queued_bits: Vec<u64>,
    /// Nodes a wake-up queues one by one (kept to reuse its memory).
    woken: Vec<u32>,
    /// The heartbeats in `beat_heap` are set aside (see
    /// [`Core::set_beats_aside`]).
    beats_frozen: bool,
    copy_profiles: FxHashMap<JobId, CopyProfile>,
    /// Each running job's finished maps in the order they finished (so by
    /// finish time), for its [`CopyProfile`]; by job index, only jobs with
    /// reduces.
    map_finish_order: Vec<FinishOrder>,
    copy_epoch: FxHashMap<AttemptId, u32>,
    /// Each running job's reduce partition (MB), summed over its maps once
    /// rather than at every reducer's compute phase.
    partitions: FxHashMap<JobId, f64>,
    fail_rng: mrsched_model::rng::Rng,
    node_rng: mrsched_model::rng::Rng,
    timer_at: Option<Time>,
    timer_fired: Option<Time>,
    arrivals_left: usize,
    open_jobs: usize,
    every_heartbeat: bool,
    /// Heartbeats with nothing to launch may be set aside or skipped when
    /// the scheduler says they change nothing (not when it needs every
    /// heartbeat).
    beats_aside_allowed: bool,
    samples: Vec<Sample>,
    hist: Option<LatencyHistogram>,
    events: u64,
    task_events: u64,
    last_progress: Time,
    /// Since when no job has ended while jobs were open (see
    /// [`Progress::quiet_since`]).
    quiet_since: Time,
    /// Attempts lost to node failures since `last_progress`.
    lost_since_progress: u64,
    /// How long tasks may run without any progress before the run is
    /// stalled (computed when first needed).
    running_stall_bound: Option<Time>,
    capacity_times: Vec<Time>,
    /// Jobs that ended during the current step (their records are released
    /// at its end when asked).
    ended: Vec<JobId>,
    /// Each node's relative CPU speed, apart from the node records: a
    /// launch reads it to cost its task, and on a large cluster the node's
    /// record is rarely in cache.
    speeds: Vec<f64>,
}

/// A job's finished maps, in the order they finished.
#[derive(Default)]
enum FinishOrder {
    /// None listed yet (or handed over to the job's copy profile).
    #[default]
    Unlisted,
    /// Task indices, in finish order.
    Listed(Vec<u32>),
    /// A map's output was lost and the map finishes again later: the list
    /// would hold it twice, so the profile sorts instead.
    Lost,
}

/// Whether `order` lists each of `0..n` exactly once.
fn is_permutation(order: &[u32], n: usize) -> bool {
    if order.len() != n {
        return false;
    }
    let mut seen = vec![0u64; n.div_ceil(64)];
    order.iter().all(|&i| {
        let i = i as usize;
        let fresh = i < n && !bit(&seen, i);
        if fresh {
            set_bit(&mut seen, i, true);
        }
        fresh
    })
}

/// How long running tasks may go without a job arriving or a task ending
/// before the run is stalled: `stall_after` beyond twice the longest task
/// of the workload (the estimate's, on the slowest node at the slowest
/// rate).
fn running_stall_bound(cluster: &Cluster, workload: &Workload, stall_after: Time) -> Time {
    let longest = mrsched_model::estimate(cluster, workload)
        .longest_task
        .map_or(0.0, |(_, _, s)| s);
    stall_after + Time::from_secs_f64(2.0 * longest)
}

/// How far a run is, for progress displays.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Progress {
    /// Simulated time.
    pub now: Time,
    /// Jobs that ended (succeeded, failed, killed or rejected).
    pub jobs_ended: usize,
    /// Jobs in the workload.
    pub jobs: usize,
    /// Events handled so far.
    pub events: u64,
    /// Since when no job has ended while jobs were open: when a job last
    /// ended, or last arrived with no job open.
    pub quiet_since: Time,
    /// Task attempts running now.
    pub running_attempts: usize,
}

impl Progress {
    /// Fraction of the workload's jobs that ended, 0 to 1.
    pub fn fraction(&self) -> f64 {
        self.jobs_ended as f64 / self.jobs.max(1) as f64
    }
}

/// Run `workload` on `cluster` under `sched`.
pub fn simulate(
    cluster: &Cluster,
    workload: &Workload,
    sched: &mut dyn Scheduler,
    opts: &SimOptions,
) -> Result<SimOutput, SimError> {
    simulate_with_progress(cluster, workload, sched, opts, &mut |_| {})
}

/// [`simulate`], calling `progress` every 100,000 events and at the end.
pub fn simulate_with_progress(
    cluster: &Cluster,
    workload: &Workload,
    sched: &mut dyn Scheduler,
    opts: &SimOptions,
    progress: &mut dyn FnMut(&Progress),
) -> Result<SimOutput, SimError> {
    let mut st = ClusterState::new(cluster.clone());
    Driver::init(&mut st, sched);
    let placement = Placement::new(&mut st, workload, opts.seed, opts.release_ended_jobs);
    let interval = cluster.heartbeat.interval;
    let n_nodes = cluster.nodes.len();
    let phases = (0..n_nodes)
        .map(|n| {
            (unit_from_hash(hash_words(&[opts.seed, 0xBEA7, n as u64])) * interval.0 as f64) as u64
        })
        .collect();
    let grid = Grid::new(opts.seed, interval.0, cluster.heartbeat.jitter.0, phases);
    let beats = (0..n_nodes)
        .map(|_| NodeBeat {
            queued: false,
            at: (0, 0),
        })
        .collect();
    let every_heartbeat = sched.needs_every_heartbeat();
    let lazy = opts.lazy_wake && !every_heartbeat && grid.lazy();
    let words = n_nodes.div_ceil(64);
    let (mut free_map_bits, mut free_reduce_bits) = (vec![0u64; words], vec![0u64; words]);
    if lazy {
        st.follow_slot_changes();
        for n in 0..n_nodes {
            let r = grid.rank(n as u32);
            set_bit(
                &mut free_map_bits,
                r,
                st.free_map_slots(NodeId(n as u32)) > 0,
            );
            set_bit(
                &mut free_reduce_bits,
                r,
                st.free_reduce_slots(NodeId(n as u32)) > 0,
            );
        }
        st.drain_slot_changes(|_| {});
    }
    let mut e = Engine {
        st,
        sched,
        driver: Driver::new(),
        cluster,
        placement,
        k: Core {
            opts,
            workload,
            heap: EventQueue::new(),
            beat_heap: EventQueue::new(),
            seq: 0,
            current: (0, 0),
            beats,
            next_k: vec![0; n_nodes],
            grid,
            cohorts: Vec::new(),
            cohorts_aside: false,
            cohort_horizon: 0,
            beats_due: None,
            lazy,
            free_map_bits,
            free_reduce_bits,
            queued_bits: vec![0u64; words],
            woken: Vec::new(),
            beats_frozen: false,
            copy_profiles: FxHashMap::default(),
            map_finish_order: Vec::new(),
            copy_epoch: FxHashMap::default(),
            partitions: FxHashMap::default(),
            fail_rng: rng::stream(opts.seed, "task-failures"),
            node_rng: rng::stream(opts.seed, "node-failures"),
            timer_at: None,
            timer_fired: None,
            arrivals_left: workload.jobs.len(),
            open_jobs: 0,
            every_heartbeat,
            beats_aside_allowed: !every_heartbeat,
            samples: Vec::new(),
            hist: opts.timing.then(LatencyHistogram::new),
            events: 0,
            task_events: 0,
            last_progress: Time::ZERO,
            quiet_since: Time::ZERO,
            lost_since_progress: 0,
            running_stall_bound: None,
            capacity_times: cluster.capacity_change_times(),
            ended: Vec::new(),
            speeds: cluster.nodes.iter().map(|n| n.speed).collect(),
        },
    };
    e.init();
    let mut next_progress = 0u64;
    while e.k.arrivals_left > 0 || e.k.open_jobs > 0 {
        let Some((t, ev)) = e.k.pop() else {
            return Err(e.k.stalled(&e.st));
        };
        if t > e.st.now() {
            // With no job open, a long gap before the next arrival is
            // waiting, not a stall.
            if e.k.open_jobs > 0 && t - e.k.last_progress > e.k.opts.stall_after {
                // Running tasks end by themselves unless they wait for
                // what never comes (a reducer for maps no slot can run)
                // or keep being lost (nodes failing faster than a task
                // runs): give them twice the longest task first.
                if e.st.running_attempts() == 0 {
                    return Err(e.k.stalled(&e.st));
                }
                let bound = *e.k.running_stall_bound.get_or_insert_with(|| {
                    running_stall_bound(cluster, workload, e.k.opts.stall_after)
                });
                if t - e.k.last_progress > bound {
                    return Err(e.k.stalled(&e.st));
                }
            }
            e.st.advance_to(t);
        }
        e.k.events += 1;
        if !e.beat_declined(&ev) {
            e.prefetch_next(false);
            e.handle(ev)?;
            e.after_step()?;
            e.prefetch_next(true);
        }
        if e.k.events >= next_progress {
            next_progress = e.k.events + 100_000;
            progress(&Progress {
                now: e.st.now(),
                jobs_ended: workload.jobs.len() - e.k.arrivals_left - e.k.open_jobs,
                jobs: workload.jobs.len(),
                events: e.k.events,
                quiet_since: e.k.quiet_since,
                running_attempts: e.st.running_attempts(),
            });
        }
    }
    e.k.sample(&e.st);
    progress(&Progress {
        now: e.st.now(),
        jobs_ended: workload.jobs.len(),
        jobs: workload.jobs.len(),
        events: e.k.events,
        quiet_since: e.k.quiet_since,
        running_attempts: 0,
    });
    let info = RunInfo {
        scheduler: e.sched.name(),
        cluster: cluster.name.clone(),
        workload: workload.name.clone(),
        seed: opts.seed,
        samples: std::mem::take(&mut e.k.samples),
        decisions: e.k.hist.take(),
        events: e.k.events,
        standalone: None,
        scheduler_stats: e.sched.stats(),
        pools: Some(mrsched_sched::pools::placed_pools(&e.st, &*e.sched)),
    };
    Ok(SimOutput {
        task_events: e.k.task_events,
        state: e.st,
        info,
    })
}

impl Engine<'_> {
    fn init(&mut self) {
        self.sched.on_announce(&self.st, &self.k.workload.jobs);
        let k = &mut self.k;
        // Arrivals are chained (each queues the next), keeping the heap small.
        if let Some(j) = k.workload.jobs.first() {
            k.push(j.arrival, Ev::Arrival(0));
        }
        let cluster = self.st.cluster();
        let scheduled: Vec<(NodeId, Time, Option<Time>)> = cluster.faults.scheduled.clone();
        let mtbf = cluster.faults.mtbf;
        let n_nodes = cluster.nodes.len();
        for (n, at, back) in scheduled {
            k.push(at, Ev::NodeDown(n, false));
            if let Some(b) = back {
                k.push(b, Ev::NodeUp(n, false));
            }
        }
        if let Some(m) = mtbf {
            for n in 0..n_nodes {
                let d = k.exp_draw(m);
                k.push(d, Ev::NodeDown(NodeId(n as u32), true));
            }
        }
        if !k.capacity_times.is_empty() {
            k.push(k.capacity_times[0], Ev::Capacity(0));
        }
        if let Some(first) = k.workload.jobs.first() {
            k.push(first.arrival, Ev::Sample);
        }
        if k.every_heartbeat {
            for n in 0..n_nodes {
                k.wake(&self.st, NodeId(n as u32));
            }
        }
    }

    fn handle(&mut self, ev: Ev) -> Result<(), SimError> {
        match ev {
            Ev::Arrival(i) => {
                if let Some(next) = self.k.workload.jobs.get(i as usize + 1) {
                    self.k.push(next.arrival, Ev::Arrival(i + 1));
                }
                self.k.arrivals_left -= 1;
                if self.k.open_jobs == 0 {
                    // Nothing was due to end before now.
                    self.k.quiet_since = self.st.now();
                }
                self.k.open_jobs += 1;
                self.k.progress_at(self.st.now());
                // Shared with the workload, not copied.
                let spec = self.k.workload.jobs[i as usize].clone();
                self.placement
                    .job_arrives(&mut self.st, self.cluster, self.k.workload, &spec);
                self.driver
                    .submit(&mut self.st, self.sched, &mut self.k, spec);
            }
            Ev::Heartbeat(n, oob) => {
                if !oob {
                    self.k.set_queued(n, false);
                    self.k.next_k[n.idx()] += 1;
                }
                if !self.st.slots(n).alive {
                    return Ok(());
                }
                if !self.idle_beat_changes_nothing() {
                    self.heartbeat(n)?;
                }
                if !oob && (self.k.every_heartbeat || self.k.has_potential(&self.st, n)) {
                    self.k.wake(&self.st, n);
                }
            }
            Ev::MapDone(a) => {
                if let Some(n) = self.st.attempt(a).map(|x| x.node) {
                    if self.st.finish_map(a).is_ok() {
                        self.task_ended(n)?;
                    }
                }
            }
            Ev::CopyDone(a, epoch) => {
                if self.k.copy_epoch.get(&a) == Some(&epoch) {
                    self.k.copy_epoch.remove(&a);
                    let _ = self.st.finish_copy(a);
                }
            }
            Ev::ComputeDone(a) => {
                if let Some(n) = self.st.attempt(a).map(|x| x.node) {
                    if self.st.finish_reduce(a).is_ok() {
                        self.task_ended(n)?;
                    }
                }
            }
            Ev::AttemptFail(a) => {
                if let Some(att) = self.st.attempt(a) {
                    let node = att.node;
                    if self.st.fail_attempt(a, "injected task failure").is_ok() {
                        self.k.task_events += 1;
                        self.k.progress_at(self.st.now());
                        self.k.copy_epoch.remove(&a);
                        self.deliver();
                        self.maybe_oob(node)?;
                    }
                }
            }
            Ev::Timer => {
                let now = self.st.now();
                if self.k.timer_at == Some(now) {
                    self.k.timer_at = None;
                    self.k.timer_fired = Some(now);
                    self.driver
                        .fire_timer(&mut self.st, self.sched, &mut self.k);
                }
            }
            Ev::NodeDown(n, random) => {
                if self.st.slots(n).alive {
                    self.k.lost_since_progress += self.st.attempts_on(n).count() as u64;
                    self.st.node_lost(n);
                    if random {
                        let d = self.k.exp_draw(self.st.cluster().faults.mttr);
                        self.k.push(self.st.now() + d, Ev::NodeUp(n, true));
                    }
                }
            }
            Ev::NodeUp(n, random) => {
                if !self.st.slots(n).alive {
                    self.st.node_recovered(n);
                    self.k.wake(&self.st, n);
                    if random {
                        if let Some(m) = self.st.cluster().faults.mtbf {
                            let d = self.k.exp_draw(m);
                            self.k.push(self.st.now() + d, Ev::NodeDown(n, true));
                        }
                    }
                }
            }
            Ev::Capacity(i) => {
                let t = self.k.capacity_times[i as usize];
                let nodes = self.st.cluster().nodes.len();
                for n in 0..nodes {
                    let n = NodeId(n as u32);
                    let (m, r) = self.st.cluster().taken_at(n, t);
                    self.st.set_taken(n, m, r);
                }
                if let Some(next) = self.k.capacity_times.get(i as usize + 1) {
                    self.k.push(*next, Ev::Capacity(i + 1));
                }
            }
            Ev::ReduceRelease(j) => self.st.release_reduces(j),
            Ev::Sample => {
                self.k.sample(&self.st);
                let next = self.st.now() + self.k.opts.sample_every;
                self.k.push(next, Ev::Sample);
            }
            // `after_step` brings the heartbeats back.
            Ev::BeatsDue => {
                if self.k.beats_due == Some(self.st.now().0) {
                    self.k.beats_due = None;
                }
            }
        }
        Ok(())
    }

    /// Ask for what the next queued event (if it ends a task) will read,
    /// in two steps a whole event apart: its attempt before the current
    /// event is handled, then (`task`) its task's records, found through
    /// that attempt once it is in cache. The next event may still change
    /// (a heartbeat may come first); a hint changes no result
    /// ([`mrsched_model::hint`]).
    #[inline]
    fn prefetch_next(&self, task: bool) {
        if let Some(Ev::MapDone(a) | Ev::ComputeDone(a)) = self.k.heap.peek_value() {
            if task {
                self.st.prefetch_task_of(*a);
            } else {
                self.st.prefetch_attempt(*a);
            }
        }
    }

    /// Nothing is pending and the scheduler says a heartbeat now changes
    /// nothing: delivering it would only cost time.
    fn idle_beat_changes_nothing(&self) -> bool {
        self.k.beats_aside_allowed
            && self.st.pending_maps_total() == 0
            && self.st.launchable_reduces_total() == 0
            && match self.sched.idle_heartbeats() {
                IdleBeats::Always => false,
                IdleBeats::From(t) => self.st.now() < t,
                IdleBeats::Never => true,
            }
    }

    /// Take a periodic heartbeat the scheduler declines
    /// ([`Scheduler::decline_heartbeat`]) without the round and the step
    /// around it, as `handle` and `after_step` would: the beat is
    /// delivered, the node queues its next one, and nothing else moves
    /// (no launch, no state event, no timer). Under delay scheduling these
    /// are most heartbeats of a day-long trace: every arrival wakes every
    /// node with a free slot, and each is declined while the job waits
    /// for its data's nodes. Not with `--timing`, which times every
    /// decision.
    fn beat_declined(&mut self, ev: &Ev) -> bool {
        let Ev::Heartbeat(n, false) = *ev else {
            return false;
        };
        if self.k.hist.is_some()
            || !self.k.opts.decline_beats
            || !self.st.slots(n).alive
            || self.idle_beat_changes_nothing()
            || !self.sched.decline_heartbeat(&self.st, n)
        {
            return false;
        }
        debug_assert!(self.sched.next_timer().is_none());
        self.k.set_queued(n, false);
        self.k.next_k[n.idx()] += 1;
        if self.k.every_heartbeat || self.k.has_potential(&self.st, n) {
            self.k.requeue_beat(&self.st, n);
        }
        true
    }

    fn heartbeat(&mut self, n: NodeId) -> Result<(), SimError> {
        match self
            .driver
            .heartbeat(&mut self.st, self.sched, &mut self.k, n)
        {
            Ok(_) => Ok(()),
            Err(e) if self.k.opts.strict => Err(SimError::InvalidLaunch {
                at: self.st.now(),
                node: e.node,
                node_name: self.st.cluster().node(e.node).name.clone(),
                launch: e.launch,
                error: e.error,
            }),
            Err(_) => Ok(()),
        }
    }

    fn task_ended(&mut self, node: NodeId) -> Result<(), SimError> {
        self.k.task_events += 1;
        self.k.progress_at(self.st.now());
        self.deliver();
        for a in self.st.take_compute_started() {
            if self.st.attempt(a).is_some() {
                self.k.compute_started(&self.st, a);
            }
        }
        self.maybe_oob(node)?;
        if self.k.has_potential(&self.st, node) {
            self.k.wake(&self.st, node);
        }
        Ok(())
    }

    /// Hadoop's out-of-band heartbeat: a node reports a finished task at
    /// once. It is handled right away rather than queued (same instant, one
    /// heap operation less per task).
    fn maybe_oob(&mut self, n: NodeId) -> Result<(), SimError> {
        if self.st.cluster().heartbeat.on_completion
            && self.st.slots(n).alive
            && (self.k.every_heartbeat || self.k.has_potential(&self.st, n))
        {
            self.heartbeat(n)?;
        }
        Ok(())
    }

    fn deliver(&mut self) {
        self.driver.deliver(&mut self.st, self.sched, &mut self.k);
    }

    /// Work every step leaves: events, compute starts, releases, timers.
    fn after_step(&mut self) -> Result<(), SimError> {
        self.driver.settle(&mut self.st, self.sched, &mut self.k);
        if let Some(t) = self.sched.next_timer() {
            // A timer never fires twice at one instant (guards a policy
            // that keeps asking for "now").
            let floor = match self.k.timer_fired {
                Some(f) if f == self.st.now() => f + Time(1),
                _ => self.st.now(),
            };
            let t = t.max(floor);
            if self.k.timer_at != Some(t) {
                self.k.timer_at = Some(t);
                self.k.push(t, Ev::Timer);
            }
        }
        for j in self.k.ended.drain(..) {
            self.st.release_task_records(j);
            let spec = std::sync::Arc::clone(&self.st.job(j).spec);
            self.placement.job_ended(&mut self.st, &spec);
        }
        if self.k.beats_aside_allowed {
            let idle = self.st.pending_maps_total() == 0 && self.st.launchable_reduces_total() == 0;
            let now = self.st.now().0;
            // Until when idle heartbeats change nothing (`u64::MAX`: ever).
            let aside_until = match self.sched.idle_heartbeats() {
                _ if !idle => None,
                IdleBeats::Never => Some(u64::MAX),
                IdleBeats::From(t) if now < t.0 => Some(t.0),
                _ => None,
            };
            if let Some(until) = aside_until {
                // Those before `until` count as delivered, as skipping them
                // one by one would; `BeatsDue` brings back the others at
                // `until`, ahead of that instant's other events (sequence 0)
                // since a heartbeat at `until` matters.
                self.k.set_beats_aside();
                if until != u64::MAX && self.k.beats_due != Some(until) {
                    self.k.beats_due = Some(until);
                    self.k.heap.push_seq(until, 0, Ev::BeatsDue);
                }
            } else if self.k.beats_frozen || self.k.cohorts_aside {
                // Work appeared, or idle heartbeats matter again.
                self.k.restore_beats();
            }
        }
        Ok(())
    }
}

impl Hooks for Core<'_> {
    fn launched(&mut self, st: &ClusterState, a: AttemptId) {
        // A launch is not progress: an attempt lost again and again to
        // node failures is launched again and again.
        self.task_events += 1;
        self.started(st, a);
    }

    /// React to the state's events the engine itself must act on.
    fn react(&mut self, st: &ClusterState, ev: &StateEvent) {
        match ev {
            StateEvent::MapsDone(j) => {
                self.copy_profiles.remove(j);
                if st.job(*j).spec.explicit_reduces() {
                    return;
                }
                let copying: Vec<(AttemptId, Time)> = st
                    .running_attempts_of(*j)
                    .filter(|a| {
                        a.kind == TaskKind::Reduce && a.phase == mrsched_state::ReducePhase::Copying
                    })
                    .map(|a| (a.id, a.start))
                    .collect();
                for (a, s) in copying {
                    self.schedule_copy(st, *j, a, s);
                }
            }
            StateEvent::MapOutputLost { job, .. } => {
                self.copy_profiles.remove(job);
                // The map finishes again later: the order is no longer one
                // entry per map.
                if let Some(o) = self.map_finish_order.get_mut(job.idx()) {
                    *o = FinishOrder::Lost;
                }
                // Copies in flight must wait for the re-run map.
                let copying: Vec<AttemptId> = st
                    .running_attempts_of(*job)
                    .filter(|a| a.kind == TaskKind::Reduce)
                    .map(|a| a.id)
                    .collect();
                for a in copying {
                    if let Some(e) = self.copy_epoch.get_mut(&a) {
                        *e += 1;
                    }
                }
                self.wake_all(st);
            }
            StateEvent::JobEnded(j) | StateEvent::JobRejected(j) => {
                self.open_jobs -= 1;
                self.quiet_since = st.now();
                self.copy_profiles.remove(j);
                if let Some(o) = self.map_finish_order.get_mut(j.idx()) {
                    *o = FinishOrder::Unlisted;
                }
                self.partitions.remove(j);
                if self.opts.release_ended_jobs {
                    self.ended.push(*j);
                }
                self.progress_at(st.now());
            }
            StateEvent::AttemptEnded(a) => {
                // Only reducers copy: map-only runs skip the hashing.
                if a.kind == TaskKind::Reduce {
                    self.copy_epoch.remove(&a.id);
                } else if a.status == mrsched_state::AttemptStatus::Succeeded {
                    self.note_maps_finished(st, a);
                }
                // A success frees a slot on its node, which `task_ended`
                // offers at once (out-of-band heartbeat) before waking it.
                if a.status != mrsched_state::AttemptStatus::Succeeded {
                    // Its tasks are pending again: any node with room may take them.
                    self.wake_all(st);
                }
            }
            StateEvent::JobAdmitted(_) | StateEvent::ReducesReady(_) => self.wake_all(st),
            StateEvent::CapacityChanged(n) | StateEvent::NodeRecovered(n)
                if self.has_potential(st, *n) =>
            {
                self.wake(st, *n)
            }
            _ => {}
        }
    }

    /// A reducer entered its compute phase: queue its end.
    fn compute_started(&mut self, st: &ClusterState, a: AttemptId) {
        let Some(att) = st.attempt(a) else {
            return;
        };
        let cluster = st.cluster();
        let spec = &st.job(att.job).spec;
        let partition = *self
            .partitions
            .entry(att.job)
            .or_insert_with(|| cost::partition_mb(spec));
        let node = cluster.node(att.node);
        let d = cluster.task_overhead
            + cost::reduce_compute_time_of(cluster, spec, att.task as usize, node, partition);
        let end = st.now() + d;
        self.schedule_end(st, a, d, end, Ev::ComputeDone(a));
    }

    fn wakeup(&mut self, at: Time, job: JobId) {
        self.push(at, Ev::ReduceRelease(job));
    }

    fn killed(&mut self, st: &ClusterState, a: AttemptId, node: NodeId) {
        self.task_events += 1;
        self.copy_epoch.remove(&a);
        if self.has_potential(st, node) {
            self.wake(st, node);
        }
    }

    fn timing(&self) -> bool {
        self.hist.is_some()
    }

    fn decision(&mut self, ns: u64) {
        if let Some(h) = self.hist.as_mut() {
            h.record(ns);
        }
    }
}

impl Core<'_> {
    fn push(&mut self, t: Time, ev: Ev) {
        self.seq += 1;
        self.heap.push_seq(t.0, self.seq, ev);
    }

    /// The next event of the queues and cohorts, in `(time, sequence)`
    /// order.
    fn pop(&mut self) -> Option<(Time, Ev)> {
        if !self.cohorts.is_empty() && !self.cohorts_aside {
            let other = match (self.heap.peek_order(), self.beat_heap.peek_order()) {
                (Some(e), Some(b)) => Some(e.min(b)),
                (e, b) => e.or(b),
            };
            let other_t = other.map_or(u64::MAX, |o| o.0);
            if self.cohort_horizon <= other_t {
                let popped = self.pop_cohort(other);
                self.cohort_horizon = self
                    .cohorts
                    .iter_mut()
                    .map(|c| c.horizon(&self.grid))
                    .min()
                    .unwrap_or(u64::MAX);
                if let Some((t, seq, n)) = popped {
                    self.current = (t, seq);
                    return Some((Time(t), Ev::Heartbeat(NodeId(n), false)));
                }
            }
        }
        self.pop_queues()
    }

    /// The earliest cohort heartbeat if it comes before `other` (the
    /// queues' earliest `(time, sequence)`): cohorts first compute every
    /// member whose base is not after the earliest time known.
    fn pop_cohort(&mut self, other: Option<(u64, u64)>) -> Option<(u64, u64, u32)> {
        let grid = &self.grid;
        let mut min_t = other.map_or(u64::MAX, |o| o.0);
        for c in &mut self.cohorts {
            min_t = min_t.min(c.peek(grid).map_or(u64::MAX, |x| x.0));
        }
        // Members whose base is reached join the other queued heartbeats
        // (the faster queue): from then on they are queued like any other.
        for c in &mut self.cohorts {
            while let Some(b) = c.next_base(grid) {
                if b > min_t {
                    break;
                }
                if let Some((t, seq, n)) = c.sweep_one(grid, &mut self.next_k) {
                    min_t = min_t.min(t);
                    let b = &mut self.beats[n as usize];
                    b.queued = true;
                    b.at = (t, seq);
                    set_bit(&mut self.queued_bits, grid.rank(n), true);
                    self.beat_heap.push_seq(t, seq, NodeId(n));
                }
            }
        }
        let other = match (self.heap.peek_order(), self.beat_heap.peek_order()) {
            (Some(e), Some(b)) => Some(e.min(b)),
            (e, b) => e.or(b),
        };
        self.cohorts.retain(|c| c.live() > 0);
        let mut best: Option<(usize, (u64, u64))> = None;
        for (i, c) in self.cohorts.iter_mut().enumerate() {
            if let Some(o) = c.peek(grid) {
                if best.is_none_or(|(_, b)| o < b) {
                    best = Some((i, o));
                }
            }
        }
        let (i, o) = best?;
        if other.is_some_and(|x| x < o) {
            return None;
        }
        let e = self.cohorts[i].pop(grid);
        if self.cohorts[i].live() == 0 {
            self.cohorts.swap_remove(i);
        }
        e
    }

    /// The next event of either queue, in `(time, sequence)` order.
    fn pop_queues(&mut self) -> Option<(Time, Ev)> {
        loop {
            let beats = if self.beats_frozen {
                None
            } else {
                self.beat_heap.peek_order()
            };
            let beat_first = match (self.heap.peek_order(), beats) {
                (Some(e), Some(b)) => b < e,
                (None, Some(_)) => true,
                _ => false,
            };
            if !beat_first {
                break;
            }
            let (t, seq, n) = self.beat_heap.pop_with_seq()?;
            if self.is_live(n, seq) {
                self.current = (t, seq);
                return Some((Time(t), Ev::Heartbeat(n, false)));
            }
        }
        {
            let (t, seq, ev) = self.heap.pop_with_seq()?;
            self.current = (t, seq);
            Some((Time(t), ev))
        }
    }

    /// Nothing can be launched anywhere: every queued heartbeat would find
    /// nothing to do, and most of a day-long trace's events would be such
    /// heartbeats (every arrival wakes every idle node; the first to beat
    /// takes the work). Set them aside: the heartbeat queue is not read
    /// until work appears, when those at or before that moment count as
    /// delivered and the others are queued as they were, so the order of
    /// events is unchanged. Setting aside costs nothing, and bringing back
    /// touches only the heartbeats whose time has passed.
    fn set_beats_aside(&mut self) {
        if !self.cohorts.is_empty() {
            self.cohorts_aside = true;
        }
        self.beats_frozen = true;
    }

    /// Work appeared: the heartbeats set aside come back, those at or
    /// before the current event counting as delivered.
    fn restore_beats(&mut self) {
        if self.beats_frozen {
            self.beats_frozen = false;
            // Each node's own bookkeeping: the order they are taken in
            // does not matter.
            let mut passed = std::mem::take(&mut self.beat_heap);
            passed.pop_through(self.current, |_, seq, n| {
                if self.is_live(n, seq) {
                    self.set_queued(n, false);
                    self.next_k[n.idx()] += 1;
                }
            });
            self.beat_heap = passed;
        }
        if self.cohorts_aside {
            self.cohorts_aside = false;
            let cut = self.current;
            for c in &mut self.cohorts {
                c.resume(&self.grid, cut, &mut self.next_k);
            }
            self.cohorts.retain(|c| c.live() > 0);
            self.cohort_horizon = 0;
        }
    }

    /// Is `beat_heap`'s entry of node `n` with sequence `seq` its queued
    /// heartbeat (not one it left while set aside)?
    #[inline]
    fn is_live(&self, n: NodeId, seq: u64) -> bool {
        let b = &self.beats[n.idx()];
        b.queued && b.at.1 == seq
    }

    /// Queue node `n`'s heartbeat at `(t, seq)`.
    fn queue_beat(&mut self, n: NodeId, t: u64, seq: u64) {
        self.set_queued(n, true);
        self.beats[n.idx()].at = (t, seq);
        self.beat_heap.push_seq(t, seq, n);
    }

    /// Mark node `n`'s heartbeat queued in `beat_heap`, or not.
    fn set_queued(&mut self, n: NodeId, on: bool) {
        self.beats[n.idx()].queued = on;
        if self.lazy {
            set_bit(&mut self.queued_bits, self.grid.rank(n.0), on);
        }
    }

    /// The cohort node `n` belongs to, if any.
    fn cohort_of(&self, n: NodeId) -> Option<usize> {
        self.cohorts
            .iter()
            .position(|c| c.contains(&self.grid, n.0))
    }

    /// Apply the state's slot changes since the last call to the free-slot
    /// bits. Only wake-ups read the bits, so they bring them up to date
    /// here rather than every step: each node that changed is read once,
    /// as it is now, however often it changed in between.
    fn refresh_slot_bits(&mut self, st: &ClusterState) {
        let (grid, map, reduce) = (
            &self.grid,
            &mut self.free_map_bits,
            &mut self.free_reduce_bits,
        );
        st.drain_slot_changes(|n| {
            let r = grid.rank(n.0);
            set_bit(map, r, st.free_map_slots(n) > 0);
            set_bit(reduce, r, st.free_reduce_slots(n) > 0);
        });
    }

    fn exp_draw(&mut self, mean: Time) -> Time {
        let exp = Exp::new(1.0 / mean.as_secs_f64().max(1e-9)).expect("positive rate");
        Time::from_secs_f64(exp.sample(&mut self.node_rng))
    }

    /// A job arrived or ended, or a task ended, at `now`.
    fn progress_at(&mut self, now: Time) {
        self.last_progress = now;
        self.lost_since_progress = 0;
    }

    fn stalled(&self, st: &ClusterState) -> SimError {
        let open = || st.jobs().iter().filter(|j| !j.status.is_final());
        let next = self.workload.jobs.len() - self.arrivals_left;
        SimError::Stalled {
            at: st.now(),
            jobs: open().map(|j| j.spec.name.clone()).take(10).collect(),
            unfinished: open().count(),
            next_arrival: self
                .workload
                .jobs
                .get(next)
                .filter(|_| self.arrivals_left > 0)
                .map(|j| (j.name.clone(), j.arrival)),
            last_progress: self.last_progress,
            heartbeat: st.cluster().heartbeat.interval,
            lost_attempts: self.lost_since_progress,
            waiting_maps_slots: open().any(|j| j.map_counts.pending > 0).then(|| {
                let free = (0..st.nodes().len())
                    .map(|n| st.free_map_slots(NodeId(n as u32)))
                    .sum();
                (free, st.cluster().total_map_slots())
            }),
        }
    }

    /// Queue node `n`'s next periodic heartbeat if it is asleep.
    fn wake(&mut self, st: &ClusterState, n: NodeId) {
        if !st.slots(n).alive {
            return;
        }
        if self.beats[n.idx()].queued {
            // Set aside, it comes back as it was if still ahead; if not, it
            // counts as delivered and the node is woken anew.
            if !self.beats_frozen || self.beats[n.idx()].at > self.current {
                return;
            }
            self.set_queued(n, false);
            self.next_k[n.idx()] += 1;
        }
        if let Some(i) = self.cohort_of(n) {
            if !self.cohorts_aside {
                // Queued with its cohort.
                return;
            }
            // Set aside with its cohort: as `restore_beats` would treat it.
            let (k, t, seq) = self.cohorts[i].beat_of(&self.grid, n.0, &self.next_k);
            self.cohorts[i].leave(&self.grid, n.0);
            if self.cohorts[i].live() == 0 {
                self.cohorts.swap_remove(i);
            }
            self.cohort_horizon = 0;
            if (t, seq) > self.current {
                // Joins the other heartbeats (set aside with them).
                self.queue_beat(n, t, seq);
                return;
            }
            self.next_k[n.idx()] = k + 1;
        }
        self.requeue_beat(st, n);
    }

    /// Queue the next beat of live node `n`, neither queued nor in a
    /// cohort: `wake`'s last step, and all of it for a node whose beat was
    /// just taken and declined with nothing else done (a popped beat leaves
    /// its cohort, and no wake-up ran since).
    #[inline]
    fn requeue_beat(&mut self, st: &ClusterState, n: NodeId) {
        debug_assert!(st.slots(n).alive && !self.beats[n.idx()].queued);
        debug_assert!(self.cohort_of(n).is_none());
        let (k, t) = self.grid.first_beat(n.0, self.next_k[n.idx()], st.now().0);
        self.next_k[n.idx()] = k;
        self.seq += 1;
        self.queue_beat(n, t, self.seq);
    }

    /// Could a heartbeat of `n` launch anything now?
    fn has_potential(&self, st: &ClusterState, n: NodeId) -> bool {
        (st.pending_maps_total() > 0 && st.free_map_slots(n) > 0)
            || (st.launchable_reduces_total() > 0 && st.free_reduce_slots(n) > 0)
    }

    /// Queue the end of a newly launched attempt.
    fn started(&mut self, st: &ClusterState, a: AttemptId) {
        let att = st.attempt(a).expect("just launched");
        let cluster = st.cluster();
        match att.kind {
            TaskKind::Map => {
                let speed = self.speeds[att.node.idx()];
                let cost_of = |job: JobId, task: u32| {
                    let spec = &st.job(job).spec;
                    cost::map_cost_at_speed(
                        cluster,
                        spec,
                        &spec.maps.at(task as usize),
                        speed,
                        att.locality,
                    )
                };
                // One rider (every policy but shared scans): no allocation.
                let d = if att.riders.is_empty() {
                    cost::shared_map_time(cluster, &[cost_of(att.job, att.task)])
                } else {
                    let costs: Vec<cost::MapCost> =
                        att.tasks().map(|t| cost_of(t.job, t.index)).collect();
                    cost::shared_map_time(cluster, &costs)
                };
                let end = st.now() + d;
                self.schedule_end(st, a, d, end, Ev::MapDone(a));
            }
            TaskKind::Reduce => {
                // Copy end is known once every map is done; explicit-time
                // reduces skip the copy (they start computing at launch).
                let (job, start) = (att.job, att.start);
                if st.job(job).maps_done() && !st.job(job).spec.explicit_reduces() {
                    self.schedule_copy(st, job, a, start);
                }
            }
        }
    }

    /// Queue `done` at `end`, or a failure at a uniform point of `d`.
    fn schedule_end(&mut self, st: &ClusterState, a: AttemptId, d: Time, end: Time, done: Ev) {
        let p = st.cluster().faults.task_failure_prob;
        if p > 0.0 && self.fail_rng.random::<f64>() < p {
            let at = st.now() + d.scale(self.fail_rng.random::<f64>());
            self.push(at, Ev::AttemptFail(a));
        } else {
            self.push(end, done);
        }
    }

    /// Append a finished map attempt's tasks (its own and its riders') to
    /// their jobs' finish orders.
    fn note_maps_finished(&mut self, st: &ClusterState, a: &mrsched_state::Attempt) {
        let tasks = std::iter::once((a.job, a.task)).chain(a.riders.iter().copied());
        for (j, t) in tasks {
            let jb = st.job(j);
            if jb.reduces.is_empty() {
                continue;
            }
            if self.map_finish_order.len() <= j.idx() {
                self.map_finish_order
                    .resize_with(j.idx() + 1, FinishOrder::default);
            }
            match &mut self.map_finish_order[j.idx()] {
                // Room for every map at once: no growth slack on a big job.
                o @ FinishOrder::Unlisted => {
                    let mut order = Vec::with_capacity(jb.maps.len());
                    order.push(t);
                    *o = FinishOrder::Listed(order);
                }
                FinishOrder::Listed(order) => order.push(t),
                FinishOrder::Lost => {}
            }
        }
    }

    fn schedule_copy(&mut self, st: &ClusterState, job: JobId, a: AttemptId, start: Time) {
        if let std::collections::hash_map::Entry::Vacant(e) = self.copy_profiles.entry(job) {
            let cluster = st.cluster();
            let jb = st.job(job);
            let parts = jb.reduces.len().max(1) as f64;
            let pair = |i: usize| {
                let share = cost::map_output_mb(&jb.spec, &jb.spec.maps.at(i)) / parts;
                (jb.maps[i].finish, cost::copy_time(cluster, share))
            };
            // In finish order when every map is listed once (the profile
            // then skips its sort); otherwise in task order, sorted there.
            let order = self
                .map_finish_order
                .get_mut(job.idx())
                .map(std::mem::take)
                .unwrap_or_default();
            let maps: Vec<(Time, Time)> = match order {
                FinishOrder::Listed(order) if is_permutation(&order, jb.maps.len()) => {
                    order.iter().map(|&i| pair(i as usize)).collect()
                }
                _ => (0..jb.maps.len()).map(pair).collect(),
            };
            e.insert(CopyProfile::new(maps));
        }
        let overhead = st.cluster().task_overhead;
        let end = self.copy_profiles[&job].copy_end(start + overhead);
        let epoch = self.copy_epoch.get(&a).map_or(0, |e| e + 1);
        self.copy_epoch.insert(a, epoch);
        self.push(end.max(st.now()), Ev::CopyDone(a, epoch));
    }

    /// Wake every node that could launch something now. With `lazy`, one
    /// cohort stands for them: the nodes with room and no heartbeat queued,
    /// found a word of nodes at a time.
    fn wake_all(&mut self, st: &ClusterState) {
        if self.lazy {
            self.wake_all_lazily(st);
            return;
        }
        // Heartbeats set aside come back first, as waking each node would
        // bring its own back.
        if self.beats_frozen {
            self.restore_beats();
        }
        for n in 0..self.beats.len() {
            let n = NodeId(n as u32);
            if !self.beats[n.idx()].queued && self.has_potential(st, n) {
                self.wake(st, n);
            }
        }
    }

    fn wake_all_lazily(&mut self, st: &ClusterState) {
        // Heartbeats set aside come back first, as waking each node would
        // bring its own back.
        if self.cohorts_aside || self.beats_frozen {
            self.restore_beats();
        }
        self.refresh_slot_bits(st);
        #[cfg(debug_assertions)]
        self.check_bits(st);
        let maps = st.pending_maps_total() > 0;
        let reduces = st.launchable_reduces_total() > 0;
        if !maps && !reduces {
            return;
        }
        let mut members = vec![0u64; self.queued_bits.len()];
        let mut any = false;
        for (w, m) in members.iter_mut().enumerate() {
            let mut x = 0;
            if maps {
                x |= self.free_map_bits[w];
            }
            if reduces {
                x |= self.free_reduce_bits[w];
            }
            x &= !self.queued_bits[w];
            for c in &self.cohorts {
                x &= !c.members()[w];
            }
            *m = x;
            any |= x != 0;
        }
        if !any {
            return;
        }
        // Node n's sequence number is base + n: the order of waking them
        // one by one, in index order.
        //
        // A cohort pays when most members will not be needed (a few tasks
        // for many idle nodes: the first beats take them, the rest is set
        // aside unread). With work for most of them, every member would be
        // computed anyway: queue them one by one, in the same order, using
        // only the sequence numbers between the lowest and highest node.
        let count: u64 = members.iter().map(|w| u64::from(w.count_ones())).sum();
        let work = st.pending_maps_total() + st.launchable_reduces_total();
        if count <= 4 * work {
            let now = st.now().0;
            let mut woken = std::mem::take(&mut self.woken);
            for (w, &word) in members.iter().enumerate() {
                woken.extend(ones(word, w * 64).map(|r| self.grid.node_at(r)));
            }
            let lo = woken.iter().copied().min().unwrap_or(0) as u64;
            let hi = woken.iter().copied().max().unwrap_or(0) as u64;
            let first = self.seq + 1;
            self.seq += hi - lo + 1;
            for n in woken.drain(..) {
                let (k, t) = self.grid.first_beat(n, self.next_k[n as usize], now);
                self.next_k[n as usize] = k;
                self.queue_beat(NodeId(n), t, first + (n as u64 - lo));
            }
            self.woken = woken;
            return;
        }
        let base = self.seq + 1;
        self.seq += self.grid.len() as u64;
        let c = Cohort::new(&self.grid, st.now().0, base, members, &mut self.next_k);
        if c.live() > 0 {
            self.cohorts.push(c);
        }
        self.cohort_horizon = 0;
    }

    /// The bits agree with the state and the queue (debug builds).
    #[cfg(debug_assertions)]
    fn check_bits(&self, st: &ClusterState) {
        for n in 0..self.beats.len() {
            let id = NodeId(n as u32);
            let r = self.grid.rank(n as u32);
            assert_eq!(bit(&self.free_map_bits, r), st.free_map_slots(id) > 0);
            assert_eq!(bit(&self.free_reduce_bits, r), st.free_reduce_slots(id) > 0);
            assert_eq!(bit(&self.queued_bits, r), self.beats[n].queued);
        }
    }

    fn sample(&mut self, st: &ClusterState) {
        let u = st.usage();
        self.samples.push(Sample {
            t_s: st.now().as_secs_f64(),
            busy_slots: u.busy,
            available_slots: u.available,
            running_jobs: st.active_jobs().len() as u32,
            intermediate_mb: st.intermediate_mb(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::is_permutation;

    #[test]
    fn a_finish_order_is_used_only_when_it_lists_every_map_once() {
        assert!(is_permutation(&[2, 0, 1], 3));
        assert!(is_permutation(&[], 0));
        assert!(!is_permutation(&[0, 1], 3), "a map missing");
        assert!(!is_permutation(&[0, 1, 1], 3), "a map twice");
        assert!(!is_permutation(&[0, 1, 3], 3), "out of range");
        assert!(!is_permutation(
            &(0..65).chain([64]).collect::<Vec<_>>(),
            66
        ));
    }
}
