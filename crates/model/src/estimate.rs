//! The size of a run, known before it starts.
//!
//! [`estimate`] sizes how long a workload keeps a cluster busy and how many
//! events simulating it takes, from task counts and the cost model alone (no
//! simulation). It assumes each task runs once with the slots kept busy, so
//! it is no bound when nodes fail, capacity is taken or a scheduler waits. The command line prints it before long work and refuses runs
//! beyond an event budget unless told to go on; [`crate::Workload::check_against`]
//! rejects a workload whose tasks would run past the simulated horizon.

use crate::cluster::Cluster;
use crate::workload::{JobSpec, Workload};
use std::fmt;

/// What a run is about to do.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// Jobs.
    pub jobs: usize,
    /// Map and reduce tasks.
    pub tasks: u64,
    /// Nodes.
    pub nodes: usize,
    /// Slots of every node together.
    pub slots: u64,
    /// Task seconds on the slowest node at the slowest rate (an upper
    /// bound of the work).
    pub work_s: f64,
    /// Simulated seconds until everything has ended with the slots kept
    /// busy: the last arrival, then all the work spread over every slot,
    /// then the longest job's longest map and reduce.
    pub horizon_s: f64,
    /// Events to simulate when the scheduler leaves idle nodes asleep (the
    /// default): a few per task attempt, the nodes each job wakes (see
    /// [`WOKEN_NODE_COST`]), the timeline samples.
    pub events: f64,
    /// Events to simulate when the scheduler needs every heartbeat (delay
    /// scheduling counting heartbeats): every node's heartbeats over the
    /// horizon instead of the woken nodes.
    pub every_heartbeat_events: f64,
    /// The longest task: job name, `map` or `reduce`, seconds.
    pub longest_task: Option<(String, &'static str, f64)>,
}

/// What computing a woken node's next heartbeat costs, in events: a
/// tenth (measured: the SWIM FB-2009 day on 100,000 nodes computes 2e8 of
/// them and handles 1.3e6 task events in 4.7 s).
pub const WOKEN_NODE_COST: f64 = 0.1;

/// What a timeline sample costs, in events: it is kept in memory and
/// written to the report (a day has 8,640 of them; ten years, 3e7).
pub const SAMPLE_COST: f64 = 100.0;

/// The slowest node's speed (once per estimate, not per job: clusters
/// have up to 100,000 nodes).
fn slowest_speed(cluster: &Cluster) -> f64 {
    cluster
        .nodes
        .iter()
        .map(|n| n.speed)
        .fold(f64::INFINITY, f64::min)
        .clamp(f64::MIN_POSITIVE, f64::MAX)
}

/// Count, total and longest of one kind of a job's worst-case task times.
struct KindSecs {
    count: usize,
    total: f64,
    longest: f64,
}

impl KindSecs {
    /// Of the times `secs` yields, in one pass (no list is kept: a job may
    /// have millions of tasks). The same numbers as `sum()` and
    /// `fold(0.0, f64::max)` over a list of them: `Sum for f64` starts from
    /// -0.0.
    fn of(secs: impl Iterator<Item = f64>) -> KindSecs {
        let mut k = KindSecs {
            count: 0,
            total: -0.0,
            longest: 0.0,
        };
        for x in secs {
            k.count += 1;
            k.total += x;
            k.longest = f64::max(k.longest, x);
        }
        k
    }
}

/// Worst-case seconds of the maps and of the reduces of `job` on
/// `cluster`: the slowest node, the slowest read rate, the task overhead
/// included. `speed` is the slowest node's ([`slowest_speed`]).
fn task_secs(cluster: &Cluster, job: &JobSpec, speed: f64) -> [KindSecs; 2] {
    let r = &cluster.rates;
    let slowest_read = r.disk_mb_s.min(r.rack_mb_s).min(r.off_rack_mb_s);
    let overhead = cluster.task_overhead.as_secs_f64();
    let maps = KindSecs::of(job.maps.iter().map(|m| {
        overhead
            + match m.time {
                Some(t) => t.as_secs_f64() / speed,
                None => m.input_mb / slowest_read + m.input_mb * job.cost.map_cpu_s_per_mb / speed,
            }
    }));
    let partition = crate::cost::partition_mb(job);
    let reduces = KindSecs::of(job.reduces.iter().map(|rd| {
        overhead
            + partition / r.shuffle_mb_s
            + match rd.time {
                Some(t) => t.as_secs_f64() / speed,
                None => {
                    partition * job.cost.reduce_cpu_s_per_mb / speed
                        + partition * job.cost.reduce_output_ratio / r.disk_mb_s
                }
            }
    }));
    [maps, reduces]
}

/// Estimate a run of `workload` on `cluster`.
pub fn estimate(cluster: &Cluster, workload: &Workload) -> Estimate {
    let slots = cluster
        .nodes
        .iter()
        .map(|n| u64::from(n.total_slots()))
        .sum::<u64>();
    let mut work = 0.0f64;
    let mut tasks = 0u64;
    let mut last_arrival = 0.0f64;
    let mut longest_job = 0.0f64;
    let mut longest_task: Option<(String, &'static str, f64)> = None;
    let speed = slowest_speed(cluster);
    for job in &workload.jobs {
        let [maps, reduces] = task_secs(cluster, job, speed);
        tasks += (maps.count + reduces.count) as u64;
        let mut job_longest = 0.0f64;
        for (kind, v) in [("map", &maps), ("reduce", &reduces)] {
            let m = v.longest;
            job_longest += m;
            work += v.total;
            if longest_task.as_ref().is_none_or(|(_, _, t)| m > *t) && m > 0.0 {
                longest_task = Some((job.name.clone(), kind, m));
            }
        }
        longest_job = longest_job.max(job_longest);
        last_arrival = last_arrival.max(job.arrival.as_secs_f64());
    }
    let horizon = last_arrival + work / slots.max(1) as f64 + longest_job;
    let beats = cluster.nodes.len() as f64 * horizon / cluster.heartbeat.interval.as_secs_f64();
    // Failed attempts are retried: 1 / (1 - p) attempts per task on
    // average, at most max_attempts.
    let attempts = (1.0 / (1.0 - cluster.faults.task_failure_prob))
        .min(f64::from(cluster.max_attempts))
        .max(1.0);
    let jobs = workload.jobs.len() as f64;
    // A timeline sample (every 10 s) is kept and written out: about a
    // hundred events' worth.
    let base = 6.0 * attempts * tasks as f64 + SAMPLE_COST * horizon / 10.0 + jobs;
    // A job's arrival and its reduces wake every idle node: a word of nodes
    // at a time, and a jitter's width of them computed (all of them when
    // the jitter exceeds the interval: heartbeats then come out of order).
    let hb = &cluster.heartbeat;
    let per_node = if hb.jitter <= hb.interval {
        WOKEN_NODE_COST * (hb.jitter.0.max(1) as f64 / hb.interval.0.max(1) as f64) + 1.0 / 64.0
    } else {
        1.0
    };
    let woken = 2.0 * jobs * cluster.nodes.len() as f64 * per_node;
    let events = base + woken;
    let every_heartbeat_events = base + beats;
    Estimate {
        jobs: workload.jobs.len(),
        tasks,
        nodes: cluster.nodes.len(),
        slots,
        work_s: work,
        horizon_s: horizon,
        events,
        every_heartbeat_events,
        longest_task,
    }
}

impl fmt::Display for Estimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} jobs, {} tasks on {} nodes ({} slots); about {:.0} simulated seconds and {:.2e} events",
            self.jobs, self.tasks, self.nodes, self.slots, self.horizon_s, self.events
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Format, Source};

    #[test]
    fn one_pass_gives_the_list_sum_and_maximum_bit_for_bit() {
        for v in [vec![], vec![0.1, 0.2, 0.3], vec![3.0, 1e-17, 1e17, 2.5]] {
            let k = KindSecs::of(v.iter().copied());
            assert_eq!(k.count, v.len());
            assert_eq!(k.total.to_bits(), v.iter().sum::<f64>().to_bits());
            assert_eq!(k.longest, v.iter().copied().fold(0.0, f64::max));
        }
    }

    fn run(cluster: &str, workload: &str) -> Estimate {
        let c = Cluster::from_toml_str("c.toml", cluster).unwrap();
        let w = Workload::from_source(&Source::new("w.toml", workload, Format::Toml)).unwrap();
        estimate(&c, &w)
    }

    #[test]
    fn explicit_times_bound_the_horizon() {
        let e = run(
            "heartbeat_interval_s = 1\n[[nodes]]\ncount = 2\nmap_slots = 1\nreduce_slots = 1\n",
            "[[jobs]]\nname = \"a\"\narrival_s = 100\nmaps = 4\nmap_time_s = 10\nreduce_times_s = [50]\n",
        );
        assert_eq!((e.jobs, e.tasks, e.nodes, e.slots), (1, 5, 2, 4));
        assert_eq!(e.work_s, 90.0);
        // 100 (arrival) + 90 / 4 + 10 + 50.
        assert_eq!(e.horizon_s, 182.5);
        assert_eq!(e.longest_task, Some(("a".into(), "reduce", 50.0)));
        // Two nodes beating every second over the horizon, when every
        // heartbeat counts.
        assert!(e.every_heartbeat_events >= 2.0 * 182.5, "{e}");
        assert!(e.events < e.every_heartbeat_events);
        assert!(e
            .to_string()
            .starts_with("1 jobs, 5 tasks on 2 nodes (4 slots)"));
    }

    #[test]
    fn cost_model_uses_the_slowest_node_and_rate() {
        let e = run(
            "[rates]\ndisk_mb_s = 100\nrack_mb_s = 50\noff_rack_mb_s = 10\nshuffle_mb_s = 50\n[[nodes]]\nname = \"a\"\nmap_slots = 1\nspeed = 2\n[[nodes]]\nname = \"b\"\nmap_slots = 1\nspeed = 0.5\n",
            "[[datasets]]\nname = \"d\"\nsize_mb = 100\nblock_mb = 100\nreplication = 1\n[[jobs]]\ninput = \"d\"\nmap_cpu_s_per_mb = 0.1\n",
        );
        // 100 MB at 10 MB/s + 100 MB x 0.1 s/MB at speed 0.5.
        assert_eq!(e.work_s, 30.0);
    }

    /// A day on 100,000 nodes: idle nodes sleep, so it is sized by its jobs
    /// (within the default budget of 5e8) unless every heartbeat counts.
    #[test]
    fn sleeping_nodes_cost_only_their_wake_ups() {
        let jobs: String = (0..100)
            .map(|i| {
                format!(
                    "[[jobs]]\nname = \"j{i}\"\narrival_s = {}\nmaps = 1\nmap_time_s = 10\n",
                    i * 864
                )
            })
            .collect();
        let e = run(
            "heartbeat_interval_s = 3\nheartbeat_jitter_s = 0.5\n[[nodes]]\ncount = 100000\nmap_slots = 1\nreduce_slots = 1\n",
            &jobs,
        );
        // 100 jobs x 2 wake-ups x 100,000 nodes x (0.1 x 0.5 / 3 + 1 / 64).
        let woken = 2.0 * 100.0 * 1e5 * (WOKEN_NODE_COST * 0.5 / 3.0 + 1.0 / 64.0);
        let base = 6.0 * 100.0 + SAMPLE_COST * e.horizon_s / 10.0 + 100.0;
        assert!((e.events - (base + woken)).abs() < 1e-6 * e.events, "{e}");
        assert!(e.events < 5e8);
        // Every node beating every 3 s over the day.
        assert!(e.horizon_s > 85_000.0 && e.every_heartbeat_events >= 1e5 * e.horizon_s / 3.0);
    }
}
