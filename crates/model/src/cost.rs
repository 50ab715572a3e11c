//! The task cost model, shared by the simulator and by metrics.
//!
//! A task's duration is either explicit (the workload says "this map takes
//! 10 s", as the MSJO experiments need) or derived from bytes:
//!
//! * map = overhead + read(input at the rate of its locality level)
//!   + input x CPU-per-MB / node speed;
//! * reduce = copy phase (its partition of every map's output, at the shuffle
//!   rate, overlapping the map phase) + compute phase (partition x CPU-per-MB
//!   / node speed + writing its output at disk rate).
//!
//! A shared scan (one attempt, several riding jobs) pays the scan part once
//! and every rider's compute part: for byte-costed tasks the scan part is the
//! read, for explicit ones it is `scan_fraction` of the time (seed 000 §4,
//! the paper's f).

use crate::cluster::{Cluster, Node};
use crate::ids::Locality;
use crate::time::Time;
use crate::workload::{JobSpec, MapSpec};

/// The two parts of one rider's map work on a given node.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MapCost {
    /// Reading the block (shared by riders).
    pub scan: Time,
    /// Running this job's map function (paid per rider).
    pub compute: Time,
}

/// Read rate (MB/s) at a locality level. Data-less maps read locally.
#[inline]
pub fn read_rate(cluster: &Cluster, loc: Locality) -> f64 {
    match loc {
        Locality::Node | Locality::NoData => cluster.rates.disk_mb_s,
        Locality::Rack => cluster.rates.rack_mb_s,
        Locality::OffRack => cluster.rates.off_rack_mb_s,
    }
}

/// Cost of one map of `job` on `node` at locality `loc`.
#[inline]
pub fn map_cost(
    cluster: &Cluster,
    job: &JobSpec,
    map: &MapSpec,
    node: &Node,
    loc: Locality,
) -> MapCost {
    map_cost_at_speed(cluster, job, map, node.speed, loc)
}

/// [`map_cost`] on a node of relative CPU speed `speed` (callers that keep
/// node speeds apart from the node records, which are cold in a large
/// cluster).
#[inline]
pub fn map_cost_at_speed(
    cluster: &Cluster,
    job: &JobSpec,
    map: &MapSpec,
    speed: f64,
    loc: Locality,
) -> MapCost {
    match map.time {
        Some(t) => {
            let t = t.scale(1.0 / speed);
            let scan = t.scale(job.scan_fraction);
            MapCost {
                scan,
                compute: t - scan,
            }
        }
        None => MapCost {
            scan: Time::from_secs_f64(map.input_mb / read_rate(cluster, loc)),
            compute: Time::from_secs_f64(map.input_mb * job.cost.map_cpu_s_per_mb / speed),
        },
    }
}

/// Duration of an attempt that serves `riders` (one [`MapCost`] each):
/// overhead + the longest scan + every compute.
#[inline]
pub fn shared_map_time(cluster: &Cluster, riders: &[MapCost]) -> Time {
    let scan = riders.iter().map(|c| c.scan).max().unwrap_or(Time::ZERO);
    let compute = riders.iter().fold(Time::ZERO, |a, c| a + c.compute);
    cluster.task_overhead + scan + compute
}

/// Intermediate output of one map, MB.
pub fn map_output_mb(job: &JobSpec, map: &MapSpec) -> f64 {
    map.input_mb * job.cost.map_output_ratio
}

/// Total intermediate output of a job's maps, MB.
pub fn job_output_mb(job: &JobSpec) -> f64 {
    job.maps.iter().map(|m| map_output_mb(job, &m)).sum()
}

/// One reduce's partition, MB (keys spread evenly over reduces).
pub fn partition_mb(job: &JobSpec) -> f64 {
    if job.reduces.is_empty() {
        0.0
    } else {
        job_output_mb(job) / job.reduces.len() as f64
    }
}

/// Compute phase of reduce `index` of `job` on `node` (explicit reduces:
/// their whole time).
pub fn reduce_compute_time(cluster: &Cluster, job: &JobSpec, index: usize, node: &Node) -> Time {
    reduce_compute_time_of(cluster, job, index, node, partition_mb(job))
}

/// [`reduce_compute_time`] with the job's [`partition_mb`] already known:
/// the partition sums over every map, so callers that cost many reduces of
/// one job compute it once.
pub fn reduce_compute_time_of(
    cluster: &Cluster,
    job: &JobSpec,
    index: usize,
    node: &Node,
    partition_mb: f64,
) -> Time {
    match job.reduces[index].time {
        Some(t) => t.scale(1.0 / node.speed),
        None => {
            let p = partition_mb;
            let cpu = p * job.cost.reduce_cpu_s_per_mb / node.speed;
            let write = p * job.cost.reduce_output_ratio / cluster.rates.disk_mb_s;
            Time::from_secs_f64(cpu + write)
        }
    }
}

/// Time to copy `mb` at the shuffle rate.
pub fn copy_time(cluster: &Cluster, mb: f64) -> Time {
    Time::from_secs_f64(mb / cluster.rates.shuffle_mb_s)
}

/// The job's time alone on an idle cluster of reference (speed 1) nodes, a
/// lower bound used for stretch: the map phase takes at least its longest
/// map and its total map work spread over every map slot; the reduce phase
/// likewise over reduce slots (copy time is ignored, it overlaps the maps).
pub fn ideal_time(cluster: &Cluster, job: &JobSpec) -> Time {
    ideal_time_with(cluster, job, SlotTotals::of(cluster))
}

/// The cluster's map and reduce slots, counted once for many
/// [`ideal_time_with`] calls (a cluster may have 100,000 nodes).
#[derive(Copy, Clone, Debug)]
pub struct SlotTotals {
    /// Map slots over all nodes.
    pub map: u32,
    /// Reduce slots over all nodes.
    pub reduce: u32,
}

impl SlotTotals {
    /// Count `cluster`'s slots.
    pub fn of(cluster: &Cluster) -> SlotTotals {
        SlotTotals {
            map: cluster.total_map_slots(),
            reduce: cluster.total_reduce_slots(),
        }
    }
}

/// [`ideal_time`] with the cluster's slot totals counted already.
pub fn ideal_time_with(cluster: &Cluster, job: &JobSpec, slots: SlotTotals) -> Time {
    let reference = Node {
        name: String::new(),
        rack: crate::ids::RackId(0),
        group: String::new(),
        slots: crate::cluster::SlotConfig::Unified { slots: 1 },
        max_reducers: 1,
        speed: 1.0,
        disk_mb: None,
    };
    let (mut work, mut longest) = (0.0f64, Time::ZERO);
    // One price per run of equal maps (a report asks this of every job, 8 M
    // maps on a large day); the sum still adds one term per map, in order.
    for (m, n) in job.maps.runs() {
        let c = map_cost(cluster, job, &m, &reference, Locality::Node);
        let t = cluster.task_overhead + c.scan + c.compute;
        let secs = t.as_secs_f64();
        for _ in 0..n {
            work += secs;
        }
        longest = longest.max(t);
    }
    let map_slots = slots.map.max(1) as f64;
    let map_phase = longest.max(Time::from_secs_f64(work / map_slots));
    let (mut rwork, mut rlongest) = (0.0f64, Time::ZERO);
    let partition = partition_mb(job);
    for i in 0..job.reduces.len() {
        let t =
            cluster.task_overhead + reduce_compute_time_of(cluster, job, i, &reference, partition);
        rwork += t.as_secs_f64();
        rlongest = rlongest.max(t);
    }
    let red_slots = slots.reduce.max(1) as f64;
    let reduce_phase = rlongest.max(Time::from_secs_f64(rwork / red_slots));
    (map_phase + reduce_phase).max(Time(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{BlockRef, DatasetId};

    fn cluster() -> Cluster {
        Cluster::from_toml_str(
            "c",
            r#"
task_overhead_s = 1
[rates]
disk_mb_s = 100
rack_mb_s = 50
off_rack_mb_s = 10
shuffle_mb_s = 20
[[nodes]]
count = 2
map_slots = 2
reduce_slots = 1
"#,
        )
        .unwrap()
    }

    fn job() -> JobSpec {
        let mut j = JobSpec::explicit("j", Time::ZERO, &[], &[], 1.0);
        j.maps = vec![
            MapSpec {
                block: Some(BlockRef {
                    dataset: DatasetId(0),
                    index: 0,
                }),
                input_mb: 100.0,
                time: None,
            };
            4
        ]
        .into();
        j.reduces = vec![crate::workload::ReduceSpec { time: None }; 2];
        j.cost.map_cpu_s_per_mb = 0.1;
        j.cost.map_output_ratio = 0.5;
        j.cost.reduce_cpu_s_per_mb = 0.2;
        j.cost.reduce_output_ratio = 1.0;
        j
    }

    #[test]
    fn map_cost_by_locality() {
        let c = cluster();
        let j = job();
        let n = &c.nodes[0];
        let local = map_cost(&c, &j, &j.maps.at(0), n, Locality::Node);
        assert_eq!(local.scan, Time::from_secs(1));
        assert_eq!(local.compute, Time::from_secs(10));
        let off = map_cost(&c, &j, &j.maps.at(0), n, Locality::OffRack);
        assert_eq!(off.scan, Time::from_secs(10));
        assert_eq!(shared_map_time(&c, &[local]), Time::from_secs(12));
        // Two riders: one scan, two computes, one overhead.
        assert_eq!(shared_map_time(&c, &[local, local]), Time::from_secs(22));
    }

    #[test]
    fn explicit_scan_fraction() {
        let c = cluster();
        let mut j = JobSpec::explicit("j", Time::ZERO, &[10.0], &[], 1.0);
        j.scan_fraction = 0.6;
        let m = map_cost(&c, &j, &j.maps.at(0), &c.nodes[0], Locality::NoData);
        assert_eq!(m.scan, Time::from_secs(6));
        assert_eq!(m.compute, Time::from_secs(4));
        // Shared by three riders: 6 + 3 x 4 (+1 overhead).
        assert_eq!(shared_map_time(&c, &[m, m, m]), Time::from_secs(19));
    }

    #[test]
    fn reduce_costs_and_ideal_time() {
        let c = cluster();
        let j = job();
        assert_eq!(job_output_mb(&j), 200.0);
        assert_eq!(partition_mb(&j), 100.0);
        // 100 MB x 0.2 s/MB + 100 MB / 100 MB/s.
        assert_eq!(
            reduce_compute_time(&c, &j, 0, &c.nodes[0]),
            Time::from_secs(21)
        );
        assert_eq!(copy_time(&c, 100.0), Time::from_secs(5));
        // Maps: 4 x 12 s over 4 slots = 12 s; reduces: 2 x 22 s over 2 slots.
        assert_eq!(ideal_time(&c, &j), Time::from_secs(34));
    }

    #[test]
    fn ideal_time_of_mixed_maps_costs_each_map() {
        // Runs of equal maps, a change of size, explicit times (equal size,
        // other time): a cost reused for the wrong map would change the
        // total work, which sets the map phase here.
        let c = cluster();
        let mut j = job();
        let map = |mb: f64, secs: Option<u64>| MapSpec {
            block: None,
            input_mb: mb,
            time: secs.map(Time::from_secs),
        };
        j.maps = vec![
            map(100.0, None),
            map(100.0, None),
            map(10.0, None),
            map(10.0, Some(3)),
            map(10.0, Some(5)),
            map(10.0, None),
            map(100.0, None),
            map(100.0, None),
        ]
        .into();
        // Maps: 12 + 12 + 2.1 + 4 + 6 + 2.1 + 12 + 12 = 62.2 s over 4 slots
        // = 15.55 s (more than the longest, 12 s). Reduces: output 0.5 x
        // 440 MB over 2 = 110 MB each, 1 + 110 x 0.2 + 110 / 100 = 24.1 s,
        // two of them over 2 slots.
        let got = ideal_time(&c, &j);
        assert!(got.0.abs_diff(39_650_000) <= 2, "{got:?}");
        // And to the microsecond what costing every map afresh gives.
        let reference = c.nodes[0].clone();
        let (mut work, mut longest) = (0.0f64, Time::ZERO);
        for m in &j.maps {
            let mc = map_cost(&c, &j, &m, &reference, Locality::Node);
            let t = c.task_overhead + mc.scan + mc.compute;
            work += t.as_secs_f64();
            longest = longest.max(t);
        }
        let map_phase = longest.max(Time::from_secs_f64(work / 4.0));
        let r = c.task_overhead + reduce_compute_time(&c, &j, 0, &reference);
        assert_eq!(
            got,
            map_phase + r.max(Time::from_secs_f64(2.0 * r.as_secs_f64() / 2.0))
        );
    }
}
