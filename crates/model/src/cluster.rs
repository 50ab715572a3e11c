//! The cluster: racks, nodes and their slots, read rates, heartbeats, the
//! capacity other workloads take over time, and faults.
//!
//! [`ClusterSpec`] is the file format (see `docs/formats.md`); [`Cluster`] is
//! the checked, resolved form every other layer uses, with dense node and rack
//! ids. Resolution is the only place where a cluster file can be rejected.

use crate::error::InputErrors;
use crate::ids::{NodeId, RackId};
use crate::limits::{num, Limits};
use crate::source::Source;
use crate::time::Time;
use serde::{Deserialize, Serialize};

fn default_heartbeat() -> f64 {
    3.0
}
fn default_true() -> bool {
    true
}
fn default_slowstart() -> f64 {
    0.05
}
fn default_max_attempts() -> u32 {
    4
}
fn default_speed() -> f64 {
    1.0
}
fn default_count() -> u32 {
    1
}
fn default_step() -> f64 {
    60.0
}

/// A cluster file.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterSpec {
    /// A name for reports.
    #[serde(default)]
    pub name: Option<String>,
    /// Seconds between two heartbeats of a node.
    #[serde(default = "default_heartbeat")]
    pub heartbeat_interval_s: f64,
    /// Each heartbeat comes up to this many seconds late (uniform, seeded).
    #[serde(default)]
    pub heartbeat_jitter_s: f64,
    /// A node heartbeats at once when one of its tasks finishes (Hadoop's
    /// out-of-band heartbeat).
    #[serde(default = "default_true")]
    pub heartbeat_on_completion: bool,
    /// Fraction of a job's maps that must finish before its reduces may
    /// start (Hadoop's `mapred.reduce.slowstart.completed.maps`).
    #[serde(default = "default_slowstart")]
    pub reduce_slowstart: f64,
    /// Attempts per task before the job fails.
    #[serde(default = "default_max_attempts")]
    pub max_attempts: u32,
    /// Fixed start-up cost of every task attempt, seconds.
    #[serde(default)]
    pub task_overhead_s: f64,
    /// Read and copy rates.
    #[serde(default)]
    pub rates: Rates,
    /// Groups of identical nodes.
    pub nodes: Vec<NodeGroupSpec>,
    /// Capacity taken by other workloads over time (f(t)).
    #[serde(default)]
    pub capacity: Vec<CapacitySpec>,
    /// Node and task failures.
    #[serde(default)]
    pub faults: FaultSpec,
}

/// Data rates, MB/s.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Rates {
    /// Reading a block stored on the node itself.
    pub disk_mb_s: f64,
    /// Reading a block from another node of the same rack.
    pub rack_mb_s: f64,
    /// Reading a block from another rack.
    pub off_rack_mb_s: f64,
    /// A reducer copying map output (the shuffle).
    pub shuffle_mb_s: f64,
}

impl Default for Rates {
    /// Facebook's 2009 numbers (seed 002 §4): ~4 disks of 50-60 MB/s per
    /// node, 1 Gbps rack links, and roughly 10x less per node across racks.
    fn default() -> Self {
        Rates {
            disk_mb_s: 200.0,
            rack_mb_s: 100.0,
            off_rack_mb_s: 12.5,
            shuffle_mb_s: 50.0,
        }
    }
}

/// A group of identical nodes.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeGroupSpec {
    /// Name prefix: nodes are called `<name>-0`, `<name>-1`, ... (default
    /// `node`).
    #[serde(default)]
    pub name: Option<String>,
    /// How many nodes.
    #[serde(default = "default_count")]
    pub count: u32,
    /// Put every node of the group on this rack.
    #[serde(default)]
    pub rack: Option<String>,
    /// Or spread the nodes round-robin over this many racks named
    /// `<name>-rack-<k>`.
    #[serde(default)]
    pub racks: Option<u32>,
    /// Map slots per node.
    #[serde(default)]
    pub map_slots: Option<u32>,
    /// Reduce slots per node (with copy-compute splitting: reducers that may
    /// compute at once, the paper's maxComputing).
    #[serde(default)]
    pub reduce_slots: Option<u32>,
    /// Unified slots that run either kind (the MarS machine model). Excludes
    /// `map_slots` and `reduce_slots`.
    #[serde(default)]
    pub slots: Option<u32>,
    /// Reducers that may be running (copying or computing) at once when the
    /// scheduler uses copy-compute splitting: the paper's maxReducers.
    /// Defaults to three times `reduce_slots`; without copy-compute
    /// splitting a node runs at most `reduce_slots` reducers.
    #[serde(default)]
    pub max_reducers: Option<u32>,
    /// Relative CPU speed: compute time is divided by it.
    #[serde(default = "default_speed")]
    pub speed: f64,
    /// Disk space for intermediate data, MB (unlimited when absent).
    #[serde(default)]
    pub disk_mb: Option<f64>,
}

/// Which slots a capacity rule takes.
#[derive(Copy, Clone, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum SlotSelector {
    /// Map and reduce slots alike (and unified slots).
    #[default]
    Both,
    /// Map slots only.
    Map,
    /// Reduce slots only.
    Reduce,
}

/// The shape of f(t): the fraction of a node's slots another workload takes.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum CapacityShape {
    /// The same fraction at all times.
    Constant {
        /// Fraction of slots taken, 0..=1.
        fraction: f64,
    },
    /// A day-shaped curve: `min + (max - min) * (1 - cos(2 pi (t - phase) / period)) / 2`,
    /// held constant over steps of `step_s`.
    Sine {
        /// Lowest fraction taken.
        min_fraction: f64,
        /// Highest fraction taken.
        max_fraction: f64,
        /// Period, seconds (a day is 86400).
        period_s: f64,
        /// Time of the minimum, seconds.
        #[serde(default)]
        phase_s: f64,
        /// Resolution of the step approximation, seconds.
        #[serde(default = "default_step")]
        step_s: f64,
        /// Curve ends here, seconds (default: four periods).
        #[serde(default)]
        until_s: Option<f64>,
    },
    /// Square bursts: `fraction` for `duration_s` every `every_s`, starting at
    /// `start_s`; zero otherwise.
    Bursts {
        /// Fraction taken during a burst.
        fraction: f64,
        /// Distance between burst starts, seconds.
        every_s: f64,
        /// Length of one burst, seconds.
        duration_s: f64,
        /// First burst, seconds.
        #[serde(default)]
        start_s: f64,
        /// Number of bursts (default: 100).
        #[serde(default)]
        count: Option<u32>,
    },
    /// A piecewise-constant trace: `[time_s, fraction]` points; each value
    /// holds until the next point.
    Trace {
        /// The points, in increasing time.
        points: Vec<(f64, f64)>,
    },
}

/// A capacity rule: which nodes, which slots, what shape. (Unknown keys are
/// rejected by the shape, which receives every key but these two.)
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CapacitySpec {
    /// Node group name (a `[[nodes]]` entry's `name`); all nodes when absent.
    #[serde(default)]
    pub group: Option<String>,
    /// Which slots are taken.
    #[serde(default)]
    pub slots: SlotSelector,
    /// The curve.
    #[serde(flatten)]
    pub shape: CapacityShape,
}

/// Faults to inject.
#[derive(Clone, Debug, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct FaultSpec {
    /// Scheduled node failures.
    #[serde(default)]
    pub node_failures: Vec<NodeFailureSpec>,
    /// Mean time between random failures of one node, seconds (0 = none).
    #[serde(default)]
    pub node_mtbf_s: f64,
    /// Mean time to repair after a random failure, seconds.
    #[serde(default)]
    pub node_mttr_s: f64,
    /// Probability that an attempt fails (at a uniform point of its run).
    #[serde(default)]
    pub task_failure_prob: f64,
}

/// One scheduled node failure.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeFailureSpec {
    /// Node name.
    pub node: String,
    /// When it fails, seconds.
    pub at_s: f64,
    /// How long it stays down, seconds (forever when absent).
    #[serde(default)]
    pub down_s: Option<f64>,
}

/// How a node's slots are organised.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "snake_case")]
pub enum SlotConfig {
    /// Hadoop MR1: separate map and reduce slots.
    Split {
        /// Map slots.
        map: u32,
        /// Reduce slots that may compute at once.
        reduce: u32,
    },
    /// One pool of slots that runs either kind (MSJO machines).
    Unified {
        /// Slots.
        slots: u32,
    },
}

/// A resolved node.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Node {
    /// Unique name.
    pub name: String,
    /// Its rack.
    pub rack: RackId,
    /// The group it came from.
    pub group: String,
    /// Its slots.
    pub slots: SlotConfig,
    /// Reducers that may be running at once (copying + computing) under
    /// copy-compute splitting.
    pub max_reducers: u32,
    /// Relative CPU speed.
    pub speed: f64,
    /// Intermediate-data space, MB.
    pub disk_mb: Option<f64>,
}

impl Node {
    /// Map slots (unified: all slots).
    #[inline]
    pub fn map_slots(&self) -> u32 {
        match self.slots {
            SlotConfig::Split { map, .. } => map,
            SlotConfig::Unified { slots } => slots,
        }
    }
    /// Reduce slots that may compute at once (unified: all slots).
    #[inline]
    pub fn reduce_slots(&self) -> u32 {
        match self.slots {
            SlotConfig::Split { reduce, .. } => reduce,
            SlotConfig::Unified { slots } => slots,
        }
    }
    /// True for the unified-slot model.
    #[inline]
    pub fn is_unified(&self) -> bool {
        matches!(self.slots, SlotConfig::Unified { .. })
    }
    /// Slots counted in utilisation: map + reduce, or unified.
    #[inline]
    pub fn total_slots(&self) -> u32 {
        match self.slots {
            SlotConfig::Split { map, reduce } => map + reduce,
            SlotConfig::Unified { slots } => slots,
        }
    }
}

/// A resolved rack.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Rack {
    /// Name.
    pub name: String,
    /// Its nodes.
    pub nodes: Vec<NodeId>,
}

/// Heartbeat settings.
#[derive(Copy, Clone, Debug, Serialize, Deserialize)]
pub struct Heartbeat {
    /// Interval between heartbeats.
    pub interval: Time,
    /// Maximum extra delay of one heartbeat.
    pub jitter: Time,
    /// Heartbeat at once when a task finishes.
    pub on_completion: bool,
}

/// A resolved capacity rule: the nodes it covers and a step function of the
/// fraction of their slots taken.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CapacityRule {
    /// Covered nodes.
    pub nodes: Vec<NodeId>,
    /// Which slots.
    pub slots: SlotSelector,
    /// `(from, fraction)` steps in increasing time; before the first step
    /// nothing is taken.
    pub steps: Vec<(Time, f64)>,
}

impl CapacityRule {
    /// Fraction taken at time `t`.
    pub fn fraction_at(&self, t: Time) -> f64 {
        match self.steps.partition_point(|(s, _)| *s <= t) {
            0 => 0.0,
            i => self.steps[i - 1].1,
        }
    }
}

/// Resolved faults.
#[derive(Clone, Debug, Serialize, Deserialize, Default)]
pub struct Faults {
    /// `(node, at, back_at)` scheduled failures.
    pub scheduled: Vec<(NodeId, Time, Option<Time>)>,
    /// Mean time between random failures per node (`None`: off).
    pub mtbf: Option<Time>,
    /// Mean repair time.
    pub mttr: Time,
    /// Attempt failure probability.
    pub task_failure_prob: f64,
}

/// A checked cluster.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Cluster {
    /// Name for reports.
    pub name: String,
    /// Nodes by [`NodeId`].
    pub nodes: Vec<Node>,
    /// Racks by [`RackId`].
    pub racks: Vec<Rack>,
    /// Data rates.
    pub rates: Rates,
    /// Heartbeats.
    pub heartbeat: Heartbeat,
    /// Default reduce slow-start fraction.
    pub reduce_slowstart: f64,
    /// Attempts per task before its job fails.
    pub max_attempts: u32,
    /// Start-up cost of every attempt.
    pub task_overhead: Time,
    /// Capacity taken by other workloads.
    pub capacity: Vec<CapacityRule>,
    /// Faults.
    pub faults: Faults,
}

/// A member of a cluster that forms at run time: a live worker, or an
/// executor of another engine.
#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    /// Unique name.
    pub name: String,
    /// Rack name.
    pub rack: String,
    /// Its slots.
    pub slots: SlotConfig,
}

impl Cluster {
    /// The cluster of run-time members: racks in order of first appearance,
    /// default rates, no capacity rules or faults, reducers limited to three
    /// times the reduce slots under copy-compute splitting.
    pub fn of_members(
        name: &str,
        members: &[Member],
        heartbeat: Time,
        reduce_slowstart: f64,
        max_attempts: u32,
    ) -> Cluster {
        let mut racks: Vec<Rack> = Vec::new();
        let mut nodes = Vec::with_capacity(members.len());
        for (i, m) in members.iter().enumerate() {
            let r = match racks.iter().position(|r| r.name == m.rack) {
                Some(r) => r,
                None => {
                    racks.push(Rack {
                        name: m.rack.clone(),
                        nodes: Vec::new(),
                    });
                    racks.len() - 1
                }
            };
            racks[r].nodes.push(NodeId(i as u32));
            let reduce = match m.slots {
                SlotConfig::Split { reduce, .. } => reduce,
                SlotConfig::Unified { slots } => slots,
            };
            nodes.push(Node {
                name: m.name.clone(),
                rack: RackId(r as u32),
                group: "workers".into(),
                slots: m.slots,
                max_reducers: 3 * reduce,
                speed: 1.0,
                disk_mb: None,
            });
        }
        Cluster {
            name: name.into(),
            nodes,
            racks,
            rates: Rates::default(),
            heartbeat: Heartbeat {
                interval: heartbeat.max(Time(1)),
                jitter: Time::ZERO,
                on_completion: true,
            },
            reduce_slowstart,
            max_attempts,
            task_overhead: Time::ZERO,
            capacity: Vec::new(),
            faults: Faults::default(),
        }
    }

    /// Check and resolve a cluster file.
    pub fn from_source(src: &Source) -> Result<Cluster, InputErrors> {
        let spec: ClusterSpec = src.parse()?;
        Cluster::from_spec(&spec, src)
    }

    /// Check and resolve a parsed spec; `src` locates errors.
    pub fn from_spec(spec: &ClusterSpec, src: &Source) -> Result<Cluster, InputErrors> {
        let mut errs = InputErrors::new();
        let mut err = |field: String, msg: String| errs.push(src.error(field, msg));
        let pos = |v: f64| v.is_finite() && v > 0.0;
        let nonneg = |v: f64| v.is_finite() && v >= 0.0;
        let frac = |v: f64| v.is_finite() && (0.0..=1.0).contains(&v);
        let lim = Limits::current();

        if !pos(spec.heartbeat_interval_s) {
            err(
                "heartbeat_interval_s".into(),
                format!(
                    "must be a positive number of seconds, got {}",
                    spec.heartbeat_interval_s
                ),
            );
        } else if spec.heartbeat_interval_s > lim.max_heartbeat_s {
            err(
                "heartbeat_interval_s".into(),
                format!(
                    "{} s is beyond the limit of {} s between heartbeats",
                    num(spec.heartbeat_interval_s),
                    lim.max_heartbeat_s
                ),
            );
        }
        if !nonneg(spec.heartbeat_jitter_s) {
            err(
                "heartbeat_jitter_s".into(),
                "must be zero or more seconds".into(),
            );
        } else if spec.heartbeat_jitter_s > lim.max_heartbeat_s {
            err(
                "heartbeat_jitter_s".into(),
                format!(
                    "{} s is beyond the limit of {} s",
                    num(spec.heartbeat_jitter_s),
                    lim.max_heartbeat_s
                ),
            );
        }
        if !frac(spec.reduce_slowstart) {
            err(
                "reduce_slowstart".into(),
                format!(
                    "must be a fraction in [0, 1], got {}",
                    spec.reduce_slowstart
                ),
            );
        }
        if spec.max_attempts == 0 {
            err("max_attempts".into(), "must be at least 1".into());
        } else if let Some(m) = Limits::check_count(
            spec.max_attempts.into(),
            lim.max_attempts.into(),
            "attempts per task",
        ) {
            err("max_attempts".into(), m);
        }
        if let Some(m) = Limits::check_secs(spec.task_overhead_s, lim.max_duration_s) {
            err("task_overhead_s".into(), m);
        }
        for (name, v) in [
            ("disk_mb_s", spec.rates.disk_mb_s),
            ("rack_mb_s", spec.rates.rack_mb_s),
            ("off_rack_mb_s", spec.rates.off_rack_mb_s),
            ("shuffle_mb_s", spec.rates.shuffle_mb_s),
        ] {
            if !pos(v) {
                err(
                    format!("rates.{name}"),
                    format!("must be a positive rate in MB/s, got {v}"),
                );
            } else if v < lim.min_rate_mb_s || v > lim.max_rate_mb_s {
                err(
                    format!("rates.{name}"),
                    format!(
                        "{} MB/s is outside the limits [{}, {}] MB/s",
                        num(v),
                        lim.min_rate_mb_s,
                        lim.max_rate_mb_s
                    ),
                );
            }
        }
        if spec.nodes.is_empty() {
            err(
                "nodes".into(),
                "a cluster needs at least one [[nodes]] group".into(),
            );
        }

        let mut nodes = Vec::new();
        let mut racks: Vec<Rack> = Vec::new();
        // By name: a cluster may have as many racks as nodes.
        let mut rack_ids: std::collections::HashMap<String, RackId> =
            std::collections::HashMap::new();
        let mut rack_of = |name: String, racks: &mut Vec<Rack>| -> RackId {
            *rack_ids.entry(name).or_insert_with_key(|name| {
                racks.push(Rack {
                    name: name.clone(),
                    nodes: Vec::new(),
                });
                RackId(racks.len() as u32 - 1)
            })
        };
        let mut group_names = Vec::new();
        let mut total_nodes = 0u64;
        for (gi, g) in spec.nodes.iter().enumerate() {
            let f = |k: &str| format!("nodes[{gi}].{k}");
            let prefix = g.name.clone().unwrap_or_else(|| {
                if spec.nodes.len() == 1 {
                    "node".to_string()
                } else {
                    format!("group{gi}")
                }
            });
            if group_names.contains(&prefix) {
                err(
                    f("name"),
                    format!("group name `{prefix}` is used twice; node names must be unique"),
                );
            }
            group_names.push(prefix.clone());
            if g.count == 0 {
                err(f("count"), "must be at least 1 node".into());
            }
            total_nodes += u64::from(g.count);
            // Past the limit no node is built: the cluster is rejected.
            let too_many = total_nodes > lim.max_nodes;
            if too_many {
                err(
                    f("count"),
                    format!(
                        "the cluster would have {total_nodes} nodes, beyond the limit of {} nodes (raise it with --max-nodes)",
                        lim.max_nodes
                    ),
                );
            }
            if !pos(g.speed) {
                err(
                    f("speed"),
                    format!("must be a positive speed factor, got {}", g.speed),
                );
            } else if g.speed < lim.speed_range.0 || g.speed > lim.speed_range.1 {
                err(
                    f("speed"),
                    format!(
                        "{} is outside the limits [{}, {}]",
                        num(g.speed),
                        lim.speed_range.0,
                        lim.speed_range.1
                    ),
                );
            }
            if let Some(d) = g.disk_mb {
                if !pos(d) {
                    err(f("disk_mb"), "must be a positive size in MB".into());
                } else if d > lim.max_size_mb {
                    err(
                        f("disk_mb"),
                        format!(
                            "{} MB is beyond the limit of {} MB",
                            num(d),
                            lim.max_size_mb
                        ),
                    );
                }
            }
            for (k, v) in [
                ("slots", g.slots),
                ("map_slots", g.map_slots),
                ("reduce_slots", g.reduce_slots),
                ("max_reducers", g.max_reducers),
            ] {
                if let Some(m) = v.and_then(|v| {
                    Limits::check_count(v.into(), lim.max_slots_per_node.into(), "slots per node")
                }) {
                    err(f(k), m);
                }
            }
            if g.rack.is_some() && g.racks.is_some() {
                err(
                    f("racks"),
                    "give either `rack` (one rack) or `racks` (a count), not both".into(),
                );
            }
            if g.racks == Some(0) {
                err(f("racks"), "must be at least 1".into());
            }
            let slots = match (g.slots, g.map_slots, g.reduce_slots) {
                (Some(s), None, None) => {
                    if s == 0 {
                        err(f("slots"), "a node needs at least one slot".into());
                    }
                    SlotConfig::Unified { slots: s }
                }
                (Some(_), _, _) => {
                    err(
                        f("slots"),
                        "unified `slots` excludes `map_slots` and `reduce_slots`".into(),
                    );
                    SlotConfig::Unified { slots: 1 }
                }
                (None, m, r) => {
                    let (m, r) = (m.unwrap_or(0), r.unwrap_or(0));
                    if m == 0 {
                        err(
                            f("map_slots"),
                            "a node needs at least one map slot (or unified `slots`)".into(),
                        );
                    }
                    SlotConfig::Split { map: m, reduce: r }
                }
            };
            let reduce_slots = match slots {
                SlotConfig::Split { reduce, .. } => reduce,
                SlotConfig::Unified { slots } => slots,
            };
            let max_reducers = g.max_reducers.unwrap_or(reduce_slots.saturating_mul(3));
            if max_reducers < reduce_slots {
                err(
                    f("max_reducers"),
                    format!(
                        "must be at least reduce_slots ({reduce_slots}): it counts copying and computing reducers"
                    ),
                );
            }
            if matches!(slots, SlotConfig::Unified { .. }) && g.max_reducers.is_some() {
                err(
                    f("max_reducers"),
                    "copy-compute splitting needs separate reduce slots, not unified `slots`"
                        .into(),
                );
            }
            for k in 0..if too_many { 0 } else { g.count } {
                let rack_name = match (&g.rack, g.racks) {
                    (Some(r), _) => r.clone(),
                    (None, Some(n)) if n > 0 => format!("{prefix}-rack-{}", k % n),
                    _ => format!("{prefix}-rack-0"),
                };
                let rack = rack_of(rack_name, &mut racks);
                let id = NodeId(nodes.len() as u32);
                racks[rack.idx()].nodes.push(id);
                nodes.push(Node {
                    name: format!("{prefix}-{k}"),
                    rack,
                    group: prefix.clone(),
                    slots,
                    max_reducers,
                    speed: g.speed,
                    disk_mb: g.disk_mb,
                });
            }
        }

        let mut capacity = Vec::new();
        for (ci, c) in spec.capacity.iter().enumerate() {
            let f = |k: &str| format!("capacity[{ci}].{k}");
            let covered: Vec<NodeId> = match &c.group {
                None => (0..nodes.len() as u32).map(NodeId).collect(),
                Some(gname) => {
                    let v: Vec<NodeId> = nodes
                        .iter()
                        .enumerate()
                        .filter(|(_, n)| &n.group == gname)
                        .map(|(i, _)| NodeId(i as u32))
                        .collect();
                    if v.is_empty() {
                        err(f("group"), format!("no node group is named `{gname}`"));
                    }
                    v
                }
            };
            match capacity_steps(&c.shape, &lim) {
                Ok(steps) => capacity.push(CapacityRule {
                    nodes: covered,
                    slots: c.slots,
                    steps,
                }),
                Err((field, msg)) => err(f(field), msg),
            }
        }

        let mut scheduled = Vec::new();
        for (fi, nf) in spec.faults.node_failures.iter().enumerate() {
            let f = |k: &str| format!("faults.node_failures[{fi}].{k}");
            let node = nodes.iter().position(|n| n.name == nf.node);
            if node.is_none() {
                err(
                    f("node"),
                    format!(
                        "no node is named `{}` (names are <group>-<k>, e.g. `{}`)",
                        nf.node,
                        nodes.first().map(|n| n.name.as_str()).unwrap_or("node-0")
                    ),
                );
            }
            if let Some(m) = Limits::check_secs(nf.at_s, lim.max_time_s) {
                err(f("at_s"), m);
            }
            if let Some(d) = nf.down_s {
                if !pos(d) {
                    err(f("down_s"), "must be a positive number of seconds".into());
                } else if let Some(m) = Limits::check_secs(d, lim.max_duration_s) {
                    err(f("down_s"), m);
                }
            }
            if let Some(n) = node {
                let at = Time::from_secs_f64(nf.at_s);
                scheduled.push((
                    NodeId(n as u32),
                    at,
                    nf.down_s.map(|d| at + Time::from_secs_f64(d)),
                ));
            }
        }
        if !nonneg(spec.faults.node_mtbf_s) {
            err(
                "faults.node_mtbf_s".into(),
                "must be zero (off) or more seconds".into(),
            );
        }
        if !nonneg(spec.faults.node_mttr_s) {
            err(
                "faults.node_mttr_s".into(),
                "must be zero or more seconds".into(),
            );
        }
        if spec.faults.node_mtbf_s > 0.0 && spec.faults.node_mttr_s <= 0.0 {
            err(
                "faults.node_mttr_s".into(),
                "random failures need a positive repair time".into(),
            );
        }
        for (k, v) in [
            ("node_mtbf_s", spec.faults.node_mtbf_s),
            ("node_mttr_s", spec.faults.node_mttr_s),
        ] {
            if v > 0.0 && spec.faults.node_mtbf_s > 0.0 && v < lim.min_fault_time_s {
                err(
                    format!("faults.{k}"),
                    format!(
                        "{} s is below the limit of {} s (failures and repairs would repeat without time passing)",
                        num(v),
                        lim.min_fault_time_s
                    ),
                );
            } else if v > lim.max_duration_s {
                err(
                    format!("faults.{k}"),
                    format!(
                        "{} s is beyond the limit of {} s",
                        num(v),
                        lim.max_duration_s
                    ),
                );
            }
        }
        if !(frac(spec.faults.task_failure_prob) && spec.faults.task_failure_prob < 1.0) {
            err(
                "faults.task_failure_prob".into(),
                "must be a probability in [0, 1)".into(),
            );
        }

        errs.into_result(())?;
        Ok(Cluster {
            name: spec.name.clone().unwrap_or_else(|| src.label.clone()),
            nodes,
            racks,
            rates: spec.rates.clone(),
            heartbeat: Heartbeat {
                interval: Time::from_secs_f64(spec.heartbeat_interval_s).max(Time(1)),
                jitter: Time::from_secs_f64(spec.heartbeat_jitter_s),
                on_completion: spec.heartbeat_on_completion,
            },
            reduce_slowstart: spec.reduce_slowstart,
            max_attempts: spec.max_attempts,
            task_overhead: Time::from_secs_f64(spec.task_overhead_s),
            capacity,
            faults: Faults {
                scheduled,
                mtbf: (spec.faults.node_mtbf_s > 0.0)
                    .then(|| Time::from_secs_f64(spec.faults.node_mtbf_s)),
                mttr: Time::from_secs_f64(spec.faults.node_mttr_s),
                task_failure_prob: spec.faults.task_failure_prob,
            },
        })
    }

    /// Node by id.
    #[inline]
    pub fn node(&self, n: NodeId) -> &Node {
        &self.nodes[n.idx()]
    }

    /// Rack of a node.
    #[inline]
    pub fn rack_of(&self, n: NodeId) -> RackId {
        self.nodes[n.idx()].rack
    }

    /// Total map slots (unified: all slots).
    pub fn total_map_slots(&self) -> u32 {
        self.nodes.iter().map(|n| n.map_slots()).sum()
    }

    /// Total reduce slots (unified: all slots).
    pub fn total_reduce_slots(&self) -> u32 {
        self.nodes.iter().map(|n| n.reduce_slots()).sum()
    }

    /// Slots counted by utilisation.
    pub fn total_slots(&self) -> u32 {
        self.nodes.iter().map(|n| n.total_slots()).sum()
    }

    /// True when every node has unified slots.
    pub fn is_unified(&self) -> bool {
        self.nodes.iter().all(|n| n.is_unified())
    }

    /// `(map, reduce)` slots of node `n` taken by other workloads at time
    /// `t`: the forecast f(t), known in advance. For unified nodes both
    /// numbers are the same count of unified slots.
    pub fn taken_at(&self, n: NodeId, t: Time) -> (u32, u32) {
        let node = &self.nodes[n.idx()];
        let (mut fm, mut fr) = (0.0f64, 0.0f64);
        for rule in &self.capacity {
            if rule.nodes.binary_search(&n).is_err() {
                continue;
            }
            let f = rule.fraction_at(t);
            match rule.slots {
                SlotSelector::Both => {
                    fm += f;
                    fr += f;
                }
                SlotSelector::Map => fm += f,
                SlotSelector::Reduce => fr += f,
            }
        }
        let take = |frac: f64, slots: u32| -> u32 {
            ((frac.min(1.0) * slots as f64).round() as u32).min(slots)
        };
        if node.is_unified() {
            let f = fm.max(fr);
            let t = take(f, node.total_slots());
            (t, t)
        } else {
            (take(fm, node.map_slots()), take(fr, node.reduce_slots()))
        }
    }

    /// Every instant at which some node's taken capacity may change, sorted
    /// and without duplicates.
    pub fn capacity_change_times(&self) -> Vec<Time> {
        let mut v: Vec<Time> = self
            .capacity
            .iter()
            .flat_map(|r| r.steps.iter().map(|(t, _)| *t))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

fn capacity_steps(
    shape: &CapacityShape,
    lim: &Limits,
) -> Result<Vec<(Time, f64)>, (&'static str, String)> {
    let frac_ok = |v: f64| v.is_finite() && (0.0..=1.0).contains(&v);
    let max_t = lim.max_time_s;
    let pos = |v: f64| v.is_finite() && v > 0.0 && v <= max_t;
    let nonneg = |v: f64| v.is_finite() && v >= 0.0 && v <= max_t;
    let beyond = format!("; times are limited to {max_t} s");
    match shape {
        CapacityShape::Constant { fraction } => {
            if !frac_ok(*fraction) {
                return Err(("fraction", "must be a fraction in [0, 1]".into()));
            }
            Ok(vec![(Time::ZERO, *fraction)])
        }
        CapacityShape::Sine {
            min_fraction,
            max_fraction,
            period_s,
            phase_s,
            step_s,
            until_s,
        } => {
            if !frac_ok(*min_fraction) {
                return Err(("min_fraction", "must be a fraction in [0, 1]".into()));
            }
            if !frac_ok(*max_fraction) || max_fraction < min_fraction {
                return Err((
                    "max_fraction",
                    "must be a fraction in [min_fraction, 1]".into(),
                ));
            }
            if !pos(*period_s) {
                return Err((
                    "period_s",
                    format!("must be a positive number of seconds{beyond}"),
                ));
            }
            if !pos(*step_s) || *step_s > *period_s {
                return Err(("step_s", "must be positive and at most period_s".into()));
            }
            if !(phase_s.is_finite() && phase_s.abs() <= max_t) {
                return Err(("phase_s", format!("must be a number of seconds{beyond}")));
            }
            let until = until_s.unwrap_or(4.0 * period_s);
            if !pos(until) {
                return Err((
                    "until_s",
                    format!("must be a positive number of seconds{beyond}"),
                ));
            }
            let n = (until / step_s).ceil() as usize;
            if n > 10_000_000 {
                return Err((
                    "step_s",
                    "too fine for the curve's length (over 10 million steps)".into(),
                ));
            }
            let mut v = Vec::with_capacity(n + 1);
            for k in 0..n {
                let t = k as f64 * step_s;
                // Value at the middle of the step.
                let mid = t + step_s / 2.0;
                let x = (1.0 - (std::f64::consts::TAU * (mid - phase_s) / period_s).cos()) / 2.0;
                v.push((
                    Time::from_secs_f64(t),
                    min_fraction + (max_fraction - min_fraction) * x,
                ));
            }
            v.push((Time::from_secs_f64(n as f64 * step_s), 0.0));
            Ok(v)
        }
        CapacityShape::Bursts {
            fraction,
            every_s,
            duration_s,
            start_s,
            count,
        } => {
            if !frac_ok(*fraction) {
                return Err(("fraction", "must be a fraction in [0, 1]".into()));
            }
            if !pos(*every_s) {
                return Err((
                    "every_s",
                    format!("must be a positive number of seconds{beyond}"),
                ));
            }
            if !pos(*duration_s) || duration_s > every_s {
                return Err(("duration_s", "must be positive and at most every_s".into()));
            }
            if !nonneg(*start_s) {
                return Err(("start_s", format!("must be zero or more seconds{beyond}")));
            }
            let count = count.unwrap_or(100);
            if count > 1_000_000 {
                return Err(("count", "at most 1,000,000 bursts".into()));
            }
            if start_s + count as f64 * every_s > max_t {
                return Err((
                    "count",
                    format!(
                        "{count} bursts every {} s end beyond the limit of {max_t} s",
                        num(*every_s)
                    ),
                ));
            }
            let mut v = Vec::new();
            for k in 0..count {
                let s = start_s + k as f64 * every_s;
                v.push((Time::from_secs_f64(s), *fraction));
                v.push((Time::from_secs_f64(s + duration_s), 0.0));
            }
            // Adjacent bursts (duration == every) share an instant: keep the later value.
            v.dedup_by(|b, a| {
                if a.0 == b.0 {
                    a.1 = b.1;
                    true
                } else {
                    false
                }
            });
            Ok(v)
        }
        CapacityShape::Trace { points } => {
            if points.is_empty() {
                return Err((
                    "points",
                    "a trace needs at least one [time_s, fraction] point".into(),
                ));
            }
            let mut last = -1.0f64;
            let mut v = Vec::with_capacity(points.len());
            for &(t, f) in points {
                if !nonneg(t) || t <= last {
                    return Err((
                        "points",
                        format!(
                            "times must be zero or more, strictly increasing and at most {max_t} s (at {})",
                            num(t)
                        ),
                    ));
                }
                if !frac_ok(f) {
                    return Err((
                        "points",
                        format!("fraction {f} at time {t} is not in [0, 1]"),
                    ));
                }
                last = t;
                v.push((Time::from_secs_f64(t), f));
            }
            Ok(v)
        }
    }
}

impl Cluster {
    /// Check and resolve a cluster written as TOML text (built-in clusters,
    /// tests).
    pub fn from_toml_str(label: &str, toml_text: &str) -> Result<Cluster, InputErrors> {
        let src = Source::new(label, toml_text, crate::source::Format::Toml);
        Cluster::from_source(&src)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(t: &str) -> Result<Cluster, InputErrors> {
        Cluster::from_toml_str("c.toml", t)
    }

    #[test]
    fn groups_racks_and_slots() {
        let c = parse(
            r#"
            [[nodes]]
            name = "fast"
            count = 4
            racks = 2
            map_slots = 4
            reduce_slots = 1
            [[nodes]]
            name = "slow"
            count = 2
            rack = "r9"
            map_slots = 2
            reduce_slots = 1
            speed = 0.5
            "#,
        )
        .unwrap();
        assert_eq!(c.nodes.len(), 6);
        assert_eq!(c.racks.len(), 3);
        assert_eq!(c.total_map_slots(), 20);
        assert_eq!(c.total_reduce_slots(), 6);
        assert_eq!(c.nodes[0].name, "fast-0");
        assert_eq!(c.rack_of(NodeId(0)), c.rack_of(NodeId(2)));
        assert_ne!(c.rack_of(NodeId(0)), c.rack_of(NodeId(1)));
        assert_eq!(c.nodes[5].speed, 0.5);
        assert_eq!(c.nodes[0].max_reducers, 3);
    }

    #[test]
    fn impossible_configurations_are_rejected_with_all_errors() {
        let e = parse(
            r#"
heartbeat_interval_s = 0
[[nodes]]
count = 0
map_slots = 0
max_reducers = 0
reduce_slots = 2
"#,
        )
        .unwrap_err();
        let s = e.to_string();
        assert!(s.contains("c.toml:2: heartbeat_interval_s"), "{s}");
        assert!(s.contains("nodes[0].count"), "{s}");
        assert!(s.contains("nodes[0].map_slots"), "{s}");
        assert!(s.contains("nodes[0].max_reducers"), "{s}");
        assert_eq!(e.0.len(), 4);
    }

    #[test]
    fn unified_slots() {
        let c = parse("[[nodes]]\ncount = 3\nslots = 2\n").unwrap();
        assert!(c.is_unified());
        assert_eq!(c.total_slots(), 6);
        assert_eq!(c.nodes[0].map_slots(), 2);
        assert!(parse("[[nodes]]\nslots = 2\nmap_slots = 1\n").is_err());
    }

    #[test]
    fn capacity_shapes() {
        let c = parse(
            r#"
[[nodes]]
count = 2
map_slots = 10
reduce_slots = 4
[[capacity]]
kind = "bursts"
fraction = 0.5
every_s = 100
duration_s = 10
start_s = 50
count = 2
slots = "map"
[[capacity]]
kind = "constant"
fraction = 0.25
slots = "reduce"
"#,
        )
        .unwrap();
        assert_eq!(c.taken_at(NodeId(0), Time::from_secs(0)), (0, 1));
        assert_eq!(c.taken_at(NodeId(1), Time::from_secs(55)), (5, 1));
        assert_eq!(c.taken_at(NodeId(1), Time::from_secs(60)), (0, 1));
        assert_eq!(c.taken_at(NodeId(1), Time::from_secs(150)), (5, 1));
        let times = c.capacity_change_times();
        assert_eq!(
            times,
            vec![
                Time::ZERO,
                Time::from_secs(50),
                Time::from_secs(60),
                Time::from_secs(150),
                Time::from_secs(160)
            ]
        );
    }

    #[test]
    fn sine_is_day_shaped() {
        let c = parse(
            r#"
[[nodes]]
map_slots = 100
[[capacity]]
kind = "sine"
min_fraction = 0.1
max_fraction = 0.7
period_s = 1000
step_s = 10
"#,
        )
        .unwrap();
        let (lo, _) = c.taken_at(NodeId(0), Time::from_secs(0));
        let (hi, _) = c.taken_at(NodeId(0), Time::from_secs(500));
        assert!((10..=11).contains(&lo), "{lo}");
        assert!((69..=70).contains(&hi), "{hi}");
    }

    #[test]
    fn bad_fault_node_is_named() {
        let e = parse(
            "[[nodes]]\nmap_slots = 1\n[faults]\nnode_failures = [{ node = \"nod-7\", at_s = 5 }]\n",
        )
        .unwrap_err();
        assert!(e.to_string().contains("no node is named `nod-7`"), "{e}");
    }

    #[test]
    fn unknown_capacity_key_is_rejected() {
        let e = Cluster::from_toml_str(
            "c.toml",
            "[[nodes]]\nmap_slots = 1\n[[capacity]]\nkind = \"constant\"\nfraction = 0.5\nfracton = 1\n",
        )
        .unwrap_err();
        assert!(e.to_string().contains("fracton"), "{e}");
    }

    #[test]
    fn limits_reject_huge_clusters_before_building_them() {
        let t = std::time::Instant::now();
        let e = parse("[[nodes]]\ncount = 10000000\nmap_slots = 1\n").unwrap_err();
        let s = e.to_string();
        assert!(
            s.contains("c.toml:2: nodes[0].count: the cluster would have 10000000 nodes, beyond the limit of 100000 nodes"),
            "{s}"
        );
        // Two groups under the limit each but not together.
        let e = parse(
            "[[nodes]]\nname = \"a\"\ncount = 60000\nmap_slots = 1\n[[nodes]]\nname = \"b\"\ncount = 60000\nmap_slots = 1\n",
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("nodes[1].count: the cluster would have 120000 nodes"),
            "{e}"
        );
        assert!(t.elapsed().as_secs() < 5);
    }

    #[test]
    fn limits_reject_endless_heartbeats_rates_and_slots() {
        let e = parse(
            "heartbeat_interval_s = 4294967296\nmax_attempts = 4294967295\n[rates]\ndisk_mb_s = 1e-300\nrack_mb_s = 1\noff_rack_mb_s = 1\nshuffle_mb_s = 1\n[[nodes]]\nmap_slots = 4294967295\nreduce_slots = 4294967295\n",
        )
        .unwrap_err();
        let s = e.to_string();
        assert!(
            s.contains("c.toml:1: heartbeat_interval_s: 4294967296 s is beyond the limit of 3600 s between heartbeats"),
            "{s}"
        );
        assert!(
            s.contains(
                "c.toml:2: max_attempts: 4294967295 is beyond the limit of 1000 attempts per task"
            ),
            "{s}"
        );
        assert!(
            s.contains("c.toml:4: rates.disk_mb_s: 1e-300 MB/s is outside the limits"),
            "{s}"
        );
        assert!(s.contains("c.toml:9: nodes[0].map_slots: 4294967295 is beyond the limit of 10000 slots per node"), "{s}");
        assert!(s.contains("nodes[0].reduce_slots"), "{s}");
    }

    #[test]
    fn limits_reject_faults_that_repeat_without_time_passing() {
        let e = parse(
            "[[nodes]]\nmap_slots = 1\n[faults]\nnode_mtbf_s = 1e-9\nnode_mttr_s = 1e-9\nnode_failures = [{ node = \"node-0\", at_s = 1e308 }]\n",
        )
        .unwrap_err();
        let s = e.to_string();
        assert!(
            s.contains("faults.node_mtbf_s: 1e-9 s is below the limit of 1 s"),
            "{s}"
        );
        assert!(s.contains("faults.node_mttr_s"), "{s}");
        assert!(
            s.contains("faults.node_failures[0].at_s: 1e308 s is beyond the limit"),
            "{s}"
        );
    }

    #[test]
    fn one_rack_per_node_is_fast() {
        // Found by fuzzing: racks were looked up by a linear scan, so 86400
        // nodes on as many racks took minutes.
        let t = std::time::Instant::now();
        let c = parse("[[nodes]]\ncount = 100000\nracks = 4294967295\nmap_slots = 1\n").unwrap();
        assert_eq!(c.racks.len(), 100_000);
        assert_eq!(c.racks[99_999].name, "node-rack-99999");
        assert!(t.elapsed().as_secs() < 10, "{:?}", t.elapsed());
    }
}
