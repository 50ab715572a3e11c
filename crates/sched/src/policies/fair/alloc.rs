//! The allocation file: pools, their minimum shares, maxima, weights, job
//! limits and preemption timeouts.
//!
//! Two spellings of one content:
//!
//! * the Hadoop MR1 Fair Scheduler's `fair-scheduler.xml`, read as is
//!   (prior-work.md §6.3; anchors.md §3.1 for the later YARN form):
//!
//!   ```xml
//!   <allocations>
//!     <pool name="production">
//!       <minMaps>20</minMaps> <minReduces>10</minReduces>
//!       <maxMaps>60</maxMaps> <maxReduces>30</maxReduces>
//!       <maxRunningJobs>5</maxRunningJobs> <weight>2.0</weight>
//!       <minSharePreemptionTimeout>300</minSharePreemptionTimeout>
//!       <schedulingMode>fifo</schedulingMode>
//!     </pool>
//!     <user name="alice"><maxRunningJobs>3</maxRunningJobs></user>
//!     <poolMaxJobsDefault>20</poolMaxJobsDefault>
//!     <userMaxJobsDefault>10</userMaxJobsDefault>
//!     <defaultMinSharePreemptionTimeout>600</defaultMinSharePreemptionTimeout>
//!     <fairSharePreemptionTimeout>900</fairSharePreemptionTimeout>
//!     <defaultPoolSchedulingMode>fair</defaultPoolSchedulingMode>
//!   </allocations>
//!   ```
//!
//!   Timeouts are seconds, as in MR1. One extension: a `<pool>` may contain
//!   `<pool>` elements, for hierarchies deeper than pool -> job.
//! * the native TOML form (in an allocation file or inline in the
//!   scheduler configuration's `[fair]` table), with the same names in
//!   snake case and nested pools as `[pools.<name>.pools.<child>]`.
//!
//! Two more dialects of the XML file are told apart by content and read by
//! their own modules with the located-error helpers here: YARN's Fair
//! Scheduler allocation file (`<queue>` elements, [`super::yarn`]) and
//! Spark's `fairscheduler.xml` (`<pool>` with `<minShare>`,
//! [`super::spark`]).
//!
//! Every problem is an error naming the file, line and element; suspicious
//! but valid settings (minimums above capacity, weight 0, a maximum below
//! the minimum) are warnings.

use super::placement::PlaceRule;
use super::resource::Resource;
use mrsched_model::{Cluster, Format, InputError, InputErrors, Source, Time};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};

/// Scheduling among the children of a pool (MR1 `schedulingMode`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Max-min fair sharing with weights.
    #[default]
    Fair,
    /// Priority, then submit time; the first job gets what it can use.
    Fifo,
}

/// One configured pool.
#[derive(Clone, Debug, PartialEq)]
pub struct PoolConf {
    /// Full path: parent names and its own, joined by `.`.
    pub path: String,
    /// Minimum shares, `[maps, reduces]`.
    pub min: [f64; 2],
    /// Maximum slots, `[maps, reduces]`.
    pub max: [Option<f64>; 2],
    /// Weight.
    pub weight: f64,
    /// Jobs that may run at once in the pool (with its sub-pools).
    pub max_running_jobs: Option<u32>,
    /// Min-share preemption timeout (else the default).
    pub min_share_timeout: Option<Time>,
    /// Scheduling among its children (else the default).
    pub mode: Option<Mode>,
    /// Sub-pools.
    pub children: Vec<PoolConf>,
    /// Where it is written (for warnings): line and field.
    pub line: Option<usize>,
    /// Field path in the file (`pool[production]`, `pools.production`).
    pub field: String,
    /// YARN `minResources`, turned into `min` by
    /// [`Allocations::resolve_resources`].
    pub min_res: Option<Resource>,
    /// YARN `maxResources`, turned into `max` likewise.
    pub max_res: Option<Resource>,
    /// YARN `fairSharePreemptionTimeout` (else the parent's, else the
    /// default).
    pub fair_share_timeout: Option<Time>,
    /// YARN `fairSharePreemptionThreshold` (else the parent's, else the
    /// default).
    pub fair_share_threshold: Option<f64>,
    /// YARN `maxAMShare`: kept, but there are no ApplicationMasters in the
    /// model, so it limits nothing.
    pub max_am_share: Option<f64>,
}

impl PoolConf {
    /// A pool with the defaults: no minimum or maximum, weight 1.
    pub fn new(path: String, field: String, line: Option<usize>) -> PoolConf {
        PoolConf {
            path,
            min: [0.0, 0.0],
            max: [None, None],
            weight: 1.0,
            max_running_jobs: None,
            min_share_timeout: None,
            mode: None,
            children: Vec::new(),
            line,
            field,
            min_res: None,
            max_res: None,
            fair_share_timeout: None,
            fair_share_threshold: None,
            max_am_share: None,
        }
    }
}

/// Which file an allocation came from: it decides the share rule and the
/// defaults that differ between the schedulers.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum AllocFormat {
    /// Hadoop MR1 `fair-scheduler.xml`.
    #[default]
    Mr1,
    /// The native TOML form (MR1 semantics).
    Native,
    /// YARN Fair Scheduler allocation file.
    Yarn,
    /// Spark `fairscheduler.xml`.
    Spark,
}

/// How a pool's share is split among its children.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum ShareRule {
    /// [`crate::share::fair_shares`]: demand-capped max-min shares,
    /// minimums above the capacity scaled down (MR1, seed 002).
    #[default]
    Hfs,
    /// [`crate::share::yarn_fair_shares`]: YARN's `ComputeFairShares`
    /// over active children, minimums kept whole; FIFO gives everything to
    /// the earliest job.
    Yarn,
}

/// The whole allocation file.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Allocations {
    /// Top-level pools.
    pub pools: Vec<PoolConf>,
    /// Per-user running-job limits.
    pub users: BTreeMap<String, u32>,
    /// Running-job limit of pools without their own.
    pub pool_max_jobs_default: Option<u32>,
    /// Running-job limit of users without their own.
    pub user_max_jobs_default: Option<u32>,
    /// Min-share preemption timeout of pools without their own.
    pub default_min_share_timeout: Option<Time>,
    /// Fair-share preemption timeout (all pools).
    pub fair_share_timeout: Option<Time>,
    /// Scheduling mode of pools without their own.
    pub default_mode: Mode,
    /// The file it came from.
    pub file: String,
    /// Its dialect.
    pub format: AllocFormat,
    /// YARN `queuePlacementPolicy` (empty: the job's pool, else its user's).
    pub placement: Vec<PlaceRule>,
    /// YARN `defaultFairSharePreemptionThreshold`.
    pub default_fair_share_threshold: Option<f64>,
    /// YARN `queueMaxAMShareDefault` (kept; limits nothing).
    pub max_am_share_default: Option<f64>,
    /// YARN: scheduling among the top-level queues (`<queue name="root">`'s
    /// `schedulingPolicy`).
    pub root_mode: Option<Mode>,
    /// YARN: `maxRunningApps` of `<queue name="root">`.
    pub root_max_jobs: Option<u32>,
}

impl Allocations {
    /// How shares are split: YARN's rule for YARN files, HFS's otherwise.
    pub fn share_rule(&self) -> ShareRule {
        match self.format {
            AllocFormat::Yarn => ShareRule::Yarn,
            _ => ShareRule::Hfs,
        }
    }

    /// Turn YARN resources (`minResources`, `maxResources`) into slots:
    /// an absolute amount is the whole containers of `container` (MB,
    /// vcores) it holds, the same count for map and reduce slots; a
    /// percentage is that fraction of the cluster's map and reduce slots
    /// `cap`.
    pub fn resolve_resources(&mut self, container: [f64; 2], cap: [f64; 2]) {
        fn rec(p: &mut PoolConf, container: [f64; 2], cap: [f64; 2]) {
            if let Some(r) = &p.min_res {
                p.min = r.slots(container, cap);
            }
            if let Some(r) = &p.max_res {
                let m = r.slots(container, cap);
                p.max = [Some(m[0]), Some(m[1])];
            }
            for c in &mut p.children {
                rec(c, container, cap);
            }
        }
        for p in &mut self.pools {
            rec(p, container, cap);
        }
    }

    /// Every pool, parents before children.
    pub fn all_pools(&self) -> Vec<&PoolConf> {
        fn rec<'a>(p: &'a PoolConf, out: &mut Vec<&'a PoolConf>) {
            out.push(p);
            for c in &p.children {
                rec(c, out);
            }
        }
        let mut out = Vec::new();
        for p in &self.pools {
            rec(p, &mut out);
        }
        out
    }

    /// Whether `src` is an XML allocation file: named `.xml`, or looking
    /// like XML.
    pub fn is_xml(src: &Source) -> bool {
        src.label.to_ascii_lowercase().ends_with(".xml") || src.text.trim_start().starts_with('<')
    }

    /// Read an allocation file: XML when [`Allocations::is_xml`] (MR1,
    /// YARN or Spark, told apart by content: [`xml_dialect`]), the native
    /// TOML form otherwise.
    pub fn from_source(src: &Source) -> Result<Allocations, InputErrors> {
        if Self::is_xml(src) {
            let (doc, x) = open_xml(&src.label, &src.text)?;
            match xml_dialect(&doc) {
                AllocFormat::Yarn => super::yarn::read(&doc, x),
                AllocFormat::Spark => super::spark::read(&doc, x),
                _ => mr1_doc(&doc, x),
            }
        } else {
            let spec: AllocSpec = match src.format {
                Format::Toml | Format::Json => src.parse()?,
            };
            spec.resolve(src, "")
        }
    }

    /// Warnings against a cluster: minimum shares above its capacity (per
    /// level), weight 0, a maximum below the minimum.
    pub fn warnings(&self, cluster: &Cluster) -> Vec<String> {
        let mut out = Vec::new();
        let cap = [
            cluster.total_map_slots() as f64,
            cluster.total_reduce_slots() as f64,
        ];
        let warn = |p: &PoolConf, msg: String| {
            InputError::field(&self.file, &p.field, msg)
                .at_line(p.line)
                .to_string()
        };
        let names = ["maps", "reduces"];
        for (k, name) in names.iter().enumerate() {
            let total: f64 = self.pools.iter().map(|p| p.min[k]).sum();
            if total > cap[k] {
                out.push(
                    InputError::file(
                        &self.file,
                        format!(
                            "the pools' minimum {name} add up to {total} but the cluster has {} {name} slots; {}",
                            cap[k],
                            match self.share_rule() {
                                ShareRule::Hfs => "they are scaled down proportionally",
                                ShareRule::Yarn => "each still gets its whole minimum (YARN), so the shares add up to more than the cluster",
                            }
                        ),
                    )
                    .to_string(),
                );
            }
        }
        for p in self.all_pools() {
            if p.weight == 0.0 {
                out.push(warn(
                    p,
                    "weight 0: the pool only gets slots no other pool wants".into(),
                ));
            }
            if p.max_running_jobs == Some(0) {
                out.push(warn(
                    p,
                    "maxRunningJobs 0: no job of this pool ever runs".into(),
                ));
            }
            for (k, name) in names.iter().enumerate() {
                if p.max[k] == Some(0.0) {
                    out.push(warn(
                        p,
                        format!(
                            "max {name} 0: no {} of this pool ever runs",
                            &name[..name.len() - 1]
                        ),
                    ));
                }
                if let Some(m) = p.max[k] {
                    if m < p.min[k] {
                        let then = match self.share_rule() {
                            ShareRule::Hfs => "the pool never gets its minimum",
                            ShareRule::Yarn => "the minimum is its maximum (YARN)",
                        };
                        out.push(warn(
                            p,
                            format!(
                                "max {name} ({m}) is below min {name} ({}); {then}",
                                p.min[k]
                            ),
                        ));
                    }
                }
                let kids: f64 = p.children.iter().map(|c| c.min[k]).sum();
                if p.min[k] > 0.0 && kids > p.min[k] {
                    out.push(warn(
                        p,
                        format!(
                            "its sub-pools' minimum {name} add up to {kids}, above its own minimum {}",
                            p.min[k]
                        ),
                    ));
                }
            }
        }
        out
    }
}

fn secs(v: f64) -> Time {
    Time::from_secs_f64(v)
}

// ---------------------------------------------------------------------------
// Native TOML.
// ---------------------------------------------------------------------------

/// The native allocation form (also the pool part of the `[fair]` table).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AllocSpec {
    /// Pools by name.
    #[serde(default)]
    pub pools: BTreeMap<String, PoolSpec>,
    /// Users by name.
    #[serde(default)]
    pub users: BTreeMap<String, UserSpec>,
    /// MR1 `poolMaxJobsDefault`.
    #[serde(default)]
    pub pool_max_jobs_default: Option<u32>,
    /// MR1 `userMaxJobsDefault`.
    #[serde(default)]
    pub user_max_jobs_default: Option<u32>,
    /// MR1 `defaultMinSharePreemptionTimeout`, seconds.
    #[serde(default)]
    pub default_min_share_preemption_timeout_s: Option<f64>,
    /// MR1 `fairSharePreemptionTimeout`, seconds.
    #[serde(default)]
    pub fair_share_preemption_timeout_s: Option<f64>,
    /// MR1 `defaultPoolSchedulingMode`.
    #[serde(default)]
    pub default_pool_scheduling_mode: Option<Mode>,
}

/// One pool in the native form.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoolSpec {
    /// Minimum map slots.
    #[serde(default)]
    pub min_maps: Option<u32>,
    /// Minimum reduce slots.
    #[serde(default)]
    pub min_reduces: Option<u32>,
    /// Maximum map slots.
    #[serde(default)]
    pub max_maps: Option<u32>,
    /// Maximum reduce slots.
    #[serde(default)]
    pub max_reduces: Option<u32>,
    /// Jobs running at once.
    #[serde(default)]
    pub max_running_jobs: Option<u32>,
    /// Weight (default 1).
    #[serde(default)]
    pub weight: Option<f64>,
    /// Min-share preemption timeout, seconds.
    #[serde(default)]
    pub min_share_preemption_timeout_s: Option<f64>,
    /// `fair` or `fifo`.
    #[serde(default)]
    pub scheduling_mode: Option<Mode>,
    /// Sub-pools.
    #[serde(default)]
    pub pools: BTreeMap<String, PoolSpec>,
}

/// One user in the native form.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserSpec {
    /// Jobs running at once.
    #[serde(default)]
    pub max_running_jobs: Option<u32>,
}

impl AllocSpec {
    /// Check and resolve; `prefix` is the field path of the table holding
    /// it (`fair.` inline, empty in its own file).
    pub fn resolve(&self, src: &Source, prefix: &str) -> Result<Allocations, InputErrors> {
        let mut errs = InputErrors::new();
        let mut check_secs = |field: String, v: Option<f64>| -> Option<Time> {
            let v = v?;
            match mrsched_model::Limits::check_secs(
                v,
                mrsched_model::Limits::current().max_duration_s,
            ) {
                None => Some(secs(v)),
                Some(m) => {
                    errs.push(src.error(field, m));
                    None
                }
            }
        };
        let default_min_share_timeout = check_secs(
            format!("{prefix}default_min_share_preemption_timeout_s"),
            self.default_min_share_preemption_timeout_s,
        );
        let fair_share_timeout = check_secs(
            format!("{prefix}fair_share_preemption_timeout_s"),
            self.fair_share_preemption_timeout_s,
        );
        let mut pools = Vec::new();
        for (name, p) in &self.pools {
            pools.push(resolve_pool(
                src,
                name,
                "",
                &format!("{prefix}pools"),
                p,
                &mut errs,
            ));
        }
        let users = self
            .users
            .iter()
            .filter_map(|(u, s)| s.max_running_jobs.map(|m| (u.clone(), m)))
            .collect();
        errs.into_result(Allocations {
            pools,
            users,
            pool_max_jobs_default: self.pool_max_jobs_default,
            user_max_jobs_default: self.user_max_jobs_default,
            default_min_share_timeout,
            fair_share_timeout,
            default_mode: self.default_pool_scheduling_mode.unwrap_or_default(),
            file: src.label.clone(),
            format: AllocFormat::Native,
            ..Default::default()
        })
    }

    /// True when no allocation setting is given.
    pub fn is_empty(&self) -> bool {
        self.pools.is_empty()
            && self.users.is_empty()
            && self.pool_max_jobs_default.is_none()
            && self.user_max_jobs_default.is_none()
            && self.default_min_share_preemption_timeout_s.is_none()
            && self.fair_share_preemption_timeout_s.is_none()
            && self.default_pool_scheduling_mode.is_none()
    }
}

fn resolve_pool(
    src: &Source,
    name: &str,
    parent: &str,
    table: &str,
    p: &PoolSpec,
    errs: &mut InputErrors,
) -> PoolConf {
    let field = format!("{table}.{name}");
    let lim = mrsched_model::Limits::current();
    if name.is_empty() {
        errs.push(src.error(&field, "a pool name may not be empty"));
    }
    let weight = match p.weight {
        Some(w) if !(w.is_finite() && w >= 0.0) => {
            errs.push(src.error(format!("{field}.weight"), "must be a number >= 0"));
            1.0
        }
        Some(w) if w > lim.max_weight => {
            errs.push(src.error(
                format!("{field}.weight"),
                format!("{w:e} is beyond the limit of {}", lim.max_weight),
            ));
            1.0
        }
        Some(w) => w,
        None => 1.0,
    };
    let min_share_timeout = match p.min_share_preemption_timeout_s {
        Some(v) if mrsched_model::Limits::check_secs(v, lim.max_duration_s).is_some() => {
            errs.push(src.error(
                format!("{field}.min_share_preemption_timeout_s"),
                format!("must be a number of seconds in [0, {}]", lim.max_duration_s),
            ));
            None
        }
        v => v.map(secs),
    };
    let path = if parent.is_empty() {
        name.to_string()
    } else {
        format!("{parent}.{name}")
    };
    let children = p
        .pools
        .iter()
        .map(|(n, c)| resolve_pool(src, n, &path, &format!("{field}.pools"), c, errs))
        .collect();
    PoolConf {
        min: [
            p.min_maps.unwrap_or(0) as f64,
            p.min_reduces.unwrap_or(0) as f64,
        ],
        max: [p.max_maps.map(f64::from), p.max_reduces.map(f64::from)],
        weight,
        max_running_jobs: p.max_running_jobs,
        min_share_timeout,
        mode: p.scheduling_mode,
        children,
        ..PoolConf::new(path, field.clone(), src.line_of(&field))
    }
}

// ---------------------------------------------------------------------------
// MR1 XML.
// ---------------------------------------------------------------------------

/// Deepest nesting of `<pool>` elements (each level is a recursion).
pub const MAX_POOL_DEPTH: usize = 32;

const POOL_ELEMENTS: &str = "minMaps, minReduces, maxMaps, maxReduces, maxRunningJobs, weight, minSharePreemptionTimeout, schedulingMode, pool";
const TOP_ELEMENTS: &str = "pool, user, poolMaxJobsDefault, userMaxJobsDefault, defaultMinSharePreemptionTimeout, fairSharePreemptionTimeout, defaultPoolSchedulingMode";

/// The located-error helpers shared by the XML dialects.
pub(super) struct Xml<'a> {
    pub(super) file: &'a str,
    lines: crate::xml::Lines,
    pub(super) errs: InputErrors,
}

impl Xml<'_> {
    pub(super) fn line(&self, n: roxmltree::Node) -> usize {
        self.lines.of(n)
    }

    pub(super) fn err(&mut self, n: roxmltree::Node, field: &str, msg: impl Into<String>) {
        let e = InputError::field(self.file, field, msg).at_line(Some(self.line(n)));
        self.errs.push(e);
    }

    pub(super) fn text<'b>(&mut self, n: roxmltree::Node<'b, '_>, field: &str) -> Option<&'b str> {
        let t = n.text().map(str::trim).filter(|t| !t.is_empty());
        if t.is_none() || n.children().any(|c| c.is_element()) {
            let tag = n.tag_name().name();
            self.err(
                n,
                field,
                format!("expected a value such as <{tag}>10</{tag}>"),
            );
            return None;
        }
        t
    }

    pub(super) fn count(&mut self, n: roxmltree::Node, field: &str) -> Option<u32> {
        let t = self.text(n, field)?;
        match t.parse::<u32>() {
            Ok(v) => Some(v),
            Err(_) => {
                self.err(
                    n,
                    field,
                    format!("`{t}` is not a whole number >= 0 of slots or jobs"),
                );
                None
            }
        }
    }

    /// A number of seconds from 0 to the limit of durations.
    pub(super) fn seconds(&mut self, n: roxmltree::Node, field: &str) -> Option<f64> {
        let max = mrsched_model::Limits::current().max_duration_s;
        self.number(n, field, "a number of seconds >= 0", max)
    }

    /// A number from 0 to `max` (the limit of its kind: weights, seconds).
    pub(super) fn number(
        &mut self,
        n: roxmltree::Node,
        field: &str,
        what: &str,
        max: f64,
    ) -> Option<f64> {
        let t = self.text(n, field)?;
        match t.parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 0.0 && v <= max => Some(v),
            _ => {
                self.err(n, field, format!("`{t}` is not {what} (at most {max})"));
                None
            }
        }
    }

    pub(super) fn mode(&mut self, n: roxmltree::Node, field: &str) -> Option<Mode> {
        let t = self.text(n, field)?;
        match t.to_ascii_lowercase().as_str() {
            "fair" => Some(Mode::Fair),
            "fifo" => Some(Mode::Fifo),
            _ => {
                self.err(n, field, format!("`{t}` is not `fair` or `fifo`"));
                None
            }
        }
    }

    pub(super) fn name(&mut self, n: roxmltree::Node, what: &str) -> Option<String> {
        match n.attribute("name").map(str::trim) {
            Some(s) if !s.is_empty() => Some(s.to_string()),
            _ => {
                self.err(
                    n,
                    what,
                    format!("<{what}> needs a name attribute: <{what} name=\"...\">"),
                );
                None
            }
        }
    }

    fn pool(
        &mut self,
        n: roxmltree::Node,
        parent: &str,
        paths: &mut BTreeSet<String>,
        depth: usize,
    ) -> Option<PoolConf> {
        let name = self.name(n, "pool")?;
        if depth >= MAX_POOL_DEPTH {
            self.err(
                n,
                &format!("pool[{parent}]"),
                format!("pools are nested more than {MAX_POOL_DEPTH} deep"),
            );
            return None;
        }
        let path = if parent.is_empty() {
            name.clone()
        } else {
            format!("{parent}.{name}")
        };
        let field = format!("pool[{path}]");
        if !paths.insert(path.clone()) {
            self.err(n, &field, format!("pool `{path}` is defined twice"));
        }
        let mut p = PoolConf::new(path.clone(), field.clone(), Some(self.line(n)));
        let mut seen = BTreeSet::new();
        for c in n.children().filter(|c| c.is_element()) {
            let tag = c.tag_name().name();
            let f = format!("{field}.{tag}");
            if tag != "pool" && !seen.insert(tag.to_string()) {
                self.err(c, &f, format!("<{tag}> is given twice"));
                continue;
            }
            match tag {
                "minMaps" => p.min[0] = self.count(c, &f).unwrap_or(0) as f64,
                "minReduces" => p.min[1] = self.count(c, &f).unwrap_or(0) as f64,
                "maxMaps" => p.max[0] = self.count(c, &f).map(f64::from),
                "maxReduces" => p.max[1] = self.count(c, &f).map(f64::from),
                "maxRunningJobs" => p.max_running_jobs = self.count(c, &f),
                "weight" => {
                    let max = mrsched_model::Limits::current().max_weight;
                    p.weight = self.number(c, &f, "a weight >= 0", max).unwrap_or(1.0)
                }
                "minSharePreemptionTimeout" => p.min_share_timeout = self.seconds(c, &f).map(secs),
                "schedulingMode" => p.mode = self.mode(c, &f),
                "pool" => {
                    if let Some(child) = self.pool(c, &path, paths, depth + 1) {
                        p.children.push(child);
                    }
                }
                _ => self.err(
                    c,
                    &f,
                    format!(
                        "unknown element <{tag}> in a <pool> (expected one of: {POOL_ELEMENTS})"
                    ),
                ),
            }
        }
        Some(p)
    }
}

/// Parse an MR1 `fair-scheduler.xml`.
pub fn from_xml(file: &str, text: &str) -> Result<Allocations, InputErrors> {
    let (doc, x) = open_xml(file, text)?;
    mr1_doc(&doc, x)
}

/// Which scheduler an XML allocation file is for, by content: YARN when it
/// has a `<queue>` or one of YARN's own top-level elements, Spark when a
/// `<pool>` holds a `<minShare>` or a mode in capitals (`FAIR`, `FIFO`) and
/// nothing of MR1 appears, MR1 otherwise.
pub fn xml_dialect(doc: &roxmltree::Document) -> AllocFormat {
    const YARN_TOP: [&str; 9] = [
        "queueMaxAppsDefault",
        "queuePlacementPolicy",
        "defaultQueueSchedulingPolicy",
        "userMaxAppsDefault",
        "queueMaxAMShareDefault",
        "defaultFairSharePreemptionTimeout",
        "defaultFairSharePreemptionThreshold",
        "queueMaxResourcesDefault",
        "queuePlacementRules",
    ];
    const MR1: [&str; 8] = [
        "minMaps",
        "minReduces",
        "maxMaps",
        "maxReduces",
        "maxRunningJobs",
        "poolMaxJobsDefault",
        "userMaxJobsDefault",
        "defaultPoolSchedulingMode",
    ];
    let mut spark = false;
    let mut mr1 = false;
    for n in doc.descendants().filter(|n| n.is_element()) {
        let tag = n.tag_name().name();
        if tag == "queue" || YARN_TOP.contains(&tag) {
            return AllocFormat::Yarn;
        }
        mr1 |= MR1.contains(&tag);
        let in_pool = n.parent_element().is_some_and(|p| p.has_tag_name("pool"));
        // Spark writes its modes in capitals (`FAIR`, `FIFO`), MR1's
        // documentation in lower case.
        let spark_mode = tag == "schedulingMode"
            && n.text()
                .is_some_and(|t| matches!(t.trim(), "FAIR" | "FIFO"));
        spark |= in_pool && (tag == "minShare" || spark_mode);
    }
    if spark && !mr1 {
        AllocFormat::Spark
    } else {
        AllocFormat::Mr1
    }
}

/// Parse XML and set up the located-error helpers; the root must be
/// `<allocations>`.
pub(super) fn open_xml<'t>(
    file: &'t str,
    text: &'t str,
) -> Result<(roxmltree::Document<'t>, Xml<'t>), InputErrors> {
    let (doc, lines) = crate::xml::parse(file, text)?;
    let mut x = Xml {
        file,
        lines,
        errs: InputErrors::new(),
    };
    let root = doc.root_element();
    if root.tag_name().name() != "allocations" {
        x.err(
            root,
            root.tag_name().name(),
            "the root element of an allocation file must be <allocations>",
        );
        return Err(x.errs);
    }
    Ok((doc, x))
}

fn mr1_doc(doc: &roxmltree::Document, mut x: Xml) -> Result<Allocations, InputErrors> {
    let file = x.file;
    let root = doc.root_element();
    let mut a = Allocations {
        file: file.to_string(),
        ..Default::default()
    };
    let mut paths = BTreeSet::new();
    let mut seen = BTreeSet::new();
    for c in root.children().filter(|c| c.is_element()) {
        let tag = c.tag_name().name();
        if !matches!(tag, "pool" | "user") && !seen.insert(tag.to_string()) {
            x.err(c, tag, format!("<{tag}> is given twice"));
            continue;
        }
        match tag {
            "pool" => {
                if let Some(p) = x.pool(c, "", &mut paths, 0) {
                    a.pools.push(p);
                }
            }
            "user" => {
                let Some(name) = x.name(c, "user") else {
                    continue;
                };
                let field = format!("user[{name}]");
                if a.users.contains_key(&name) {
                    x.err(c, &field, format!("user `{name}` is defined twice"));
                }
                for u in c.children().filter(|u| u.is_element()) {
                    let t = u.tag_name().name();
                    let f = format!("{field}.{t}");
                    match t {
                        "maxRunningJobs" => {
                            if let Some(m) = x.count(u, &f) {
                                a.users.insert(name.clone(), m);
                            }
                        }
                        _ => x.err(
                            u,
                            &f,
                            format!("unknown element <{t}> in a <user> (expected maxRunningJobs)"),
                        ),
                    }
                }
            }
            "poolMaxJobsDefault" => a.pool_max_jobs_default = x.count(c, tag),
            "userMaxJobsDefault" => a.user_max_jobs_default = x.count(c, tag),
            "defaultMinSharePreemptionTimeout" => {
                a.default_min_share_timeout = x.seconds(c, tag).map(secs)
            }
            "fairSharePreemptionTimeout" => a.fair_share_timeout = x.seconds(c, tag).map(secs),
            "defaultPoolSchedulingMode" => {
                if let Some(m) = x.mode(c, tag) {
                    a.default_mode = m;
                }
            }
            _ => x.err(
                c,
                tag,
                format!(
                    "unknown element <{tag}> in <allocations> (expected one of: {TOP_ELEMENTS})"
                ),
            ),
        }
    }
    x.errs.into_result(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    const XML: &str = r#"<?xml version="1.0"?>
<!-- MR1 allocation file -->
<allocations>
  <pool name="production">
    <minMaps>20</minMaps>
    <minReduces>10</minReduces>
    <maxMaps>60</maxMaps>
    <weight>2.0</weight>
    <maxRunningJobs>5</maxRunningJobs>
    <minSharePreemptionTimeout>300</minSharePreemptionTimeout>
    <schedulingMode>FIFO</schedulingMode>
  </pool>
  <pool name="research">
    <pool name="ml"><minMaps>4</minMaps></pool>
  </pool>
  <user name="alice">
    <maxRunningJobs>3</maxRunningJobs>
  </user>
  <poolMaxJobsDefault>20</poolMaxJobsDefault>
  <userMaxJobsDefault>10</userMaxJobsDefault>
  <defaultMinSharePreemptionTimeout>600</defaultMinSharePreemptionTimeout>
  <fairSharePreemptionTimeout>900</fairSharePreemptionTimeout>
  <defaultPoolSchedulingMode>fair</defaultPoolSchedulingMode>
</allocations>
"#;

    const TOML: &str = r#"
pool_max_jobs_default = 20
user_max_jobs_default = 10
default_min_share_preemption_timeout_s = 600
fair_share_preemption_timeout_s = 900
default_pool_scheduling_mode = "fair"

[pools.production]
min_maps = 20
min_reduces = 10
max_maps = 60
weight = 2.0
max_running_jobs = 5
min_share_preemption_timeout_s = 300
scheduling_mode = "fifo"

[pools.research.pools.ml]
min_maps = 4

[users.alice]
max_running_jobs = 3
"#;

    fn strip(mut a: Allocations) -> Allocations {
        fn rec(p: &mut PoolConf) {
            p.line = None;
            p.field.clear();
            p.children.iter_mut().for_each(rec);
        }
        a.pools.iter_mut().for_each(rec);
        a.file.clear();
        a.format = AllocFormat::Mr1;
        a
    }

    #[test]
    fn xml_and_toml_say_the_same() {
        let x = from_xml("fs.xml", XML).unwrap();
        let t = Allocations::from_source(&Source::new("a.toml", TOML, Format::Toml)).unwrap();
        assert_eq!(x.pools.len(), 2);
        let prod = &x.pools[0];
        assert_eq!(prod.path, "production");
        assert_eq!(prod.min, [20.0, 10.0]);
        assert_eq!(prod.max, [Some(60.0), None]);
        assert_eq!(prod.mode, Some(Mode::Fifo));
        assert_eq!(prod.min_share_timeout, Some(Time::from_secs(300)));
        assert_eq!(prod.line, Some(4));
        assert_eq!(x.pools[1].children[0].path, "research.ml");
        assert_eq!(x.users.get("alice"), Some(&3));
        assert_eq!(x.fair_share_timeout, Some(Time::from_secs(900)));
        assert_eq!(strip(x), strip(t));
    }

    #[test]
    fn xml_errors_name_line_and_element() {
        let e = from_xml(
            "fs.xml",
            "<allocations>\n<pool name=\"a\">\n<minMaps>ten</minMaps>\n</pool>\n</allocations>",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "fs.xml:3: pool[a].minMaps: `ten` is not a whole number >= 0 of slots or jobs"
        );
        let e = from_xml(
            "fs.xml",
            "<allocations>\n<pool name=\"a\">\n<minMap>1</minMap>\n</pool>\n</allocations>",
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("fs.xml:3: pool[a].minMap: unknown element <minMap>"),
            "{e}"
        );
        let e = from_xml("fs.xml", "<allocations>\n<pool>\n</pool>\n</allocations>").unwrap_err();
        assert!(
            e.to_string()
                .contains("fs.xml:2: pool: <pool> needs a name"),
            "{e}"
        );
        let e = from_xml("fs.xml", "<allocations>\n<pool name=\"a\"><weight>-1</weight></pool>\n<pool name=\"a\"/>\n</allocations>").unwrap_err();
        assert_eq!(e.0.len(), 2, "{e}");
        assert!(e.to_string().contains("is defined twice"), "{e}");
        let e = from_xml("fs.xml", "<allocations>\n<pool name=\"a\">\n</allocations>").unwrap_err();
        assert!(e.to_string().starts_with("fs.xml:3:"), "{e}");
        assert!(e.to_string().contains("not well-formed XML"), "{e}");
        let e = from_xml("fs.xml", "<queues/>").unwrap_err();
        assert!(e.to_string().contains("must be <allocations>"), "{e}");
        let e = from_xml("fs.xml", "<allocations><schedulingMode>lifo</schedulingMode><pool name=\"p\"><schedulingMode>lifo</schedulingMode></pool></allocations>").unwrap_err();
        assert!(
            e.to_string()
                .contains("unknown element <schedulingMode> in <allocations>"),
            "{e}"
        );
        assert!(
            e.to_string().contains("`lifo` is not `fair` or `fifo`"),
            "{e}"
        );
        let e = from_xml("fs.xml", "<allocations><pool name=\"p\"><minMaps>1</minMaps><minMaps>2</minMaps></pool></allocations>").unwrap_err();
        assert!(e.to_string().contains("is given twice"), "{e}");
    }

    #[test]
    fn toml_errors_are_located() {
        let src = Source::new("a.toml", "[pools.a]\nweight = -2\n", Format::Toml);
        let e = Allocations::from_source(&src).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a.toml:2: pools.a.weight: must be a number >= 0"
        );
        let src = Source::new("a.toml", "[pools.a]\nmin_map = 2\n", Format::Toml);
        let e = Allocations::from_source(&src).unwrap_err();
        assert!(e.to_string().starts_with("a.toml:2:"), "{e}");
        assert!(e.to_string().contains("unknown field `min_map`"), "{e}");
    }

    #[test]
    fn warnings_for_suspicious_settings() {
        let c = Cluster::from_toml_str(
            "c",
            "[[nodes]]\ncount = 10\nmap_slots = 2\nreduce_slots = 1\n",
        )
        .unwrap();
        let x = from_xml(
            "fs.xml",
            "<allocations>\n<pool name=\"a\"><minMaps>15</minMaps><maxMaps>5</maxMaps></pool>\n<pool name=\"b\"><minMaps>10</minMaps><weight>0</weight></pool>\n</allocations>",
        )
        .unwrap();
        let w = x.warnings(&c).join("\n");
        assert!(
            w.contains("minimum maps add up to 25 but the cluster has 20"),
            "{w}"
        );
        assert!(
            w.contains("fs.xml:2: pool[a]: max maps (5) is below min maps (15)"),
            "{w}"
        );
        assert!(w.contains("fs.xml:3: pool[b]: weight 0"), "{w}");
        let x = from_xml(
            "fs.xml",
            "<allocations>\n<pool name=\"off\"><maxRunningJobs>0</maxRunningJobs></pool>\n<pool name=\"maponly\"><maxReduces>0</maxReduces></pool>\n</allocations>",
        )
        .unwrap();
        let w = x.warnings(&c).join("\n");
        assert!(
            w.contains("fs.xml:2: pool[off]: maxRunningJobs 0: no job of this pool ever runs"),
            "{w}"
        );
        assert!(
            w.contains("fs.xml:3: pool[maponly]: max reduces 0: no reduce of this pool ever runs"),
            "{w}"
        );
        assert!(from_xml("fs.xml", XML)
            .unwrap()
            .warnings(
                &Cluster::from_toml_str(
                    "c",
                    "[[nodes]]\ncount = 100\nmap_slots = 2\nreduce_slots = 1\n"
                )
                .unwrap()
            )
            .is_empty());
    }

    #[test]
    fn deep_pool_nesting_is_an_error_not_a_stack_overflow() {
        // Found by fuzzing: every nested <pool> was one more recursion.
        let n = 20_000;
        let xml = format!(
            "<allocations>{}{}</allocations>",
            "<pool name=\"p\">".repeat(n),
            "</pool>".repeat(n)
        );
        let e = from_xml("f.xml", &xml).unwrap_err().to_string();
        assert!(e.contains("pools are nested more than 32 deep"), "{e}");
        let ok = format!(
            "<allocations>{}{}</allocations>",
            "<pool name=\"p\">".repeat(MAX_POOL_DEPTH),
            "</pool>".repeat(MAX_POOL_DEPTH)
        );
        assert!(from_xml("f.xml", &ok).is_ok());
    }

    #[test]
    fn timeouts_and_weights_beyond_the_limits_are_errors() {
        let e = from_xml(
            "f.xml",
            "<allocations>\n<pool name=\"a\">\n<weight>1e300</weight>\n</pool>\n<fairSharePreemptionTimeout>1e308</fairSharePreemptionTimeout>\n</allocations>",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains(
                "f.xml:3: pool[a].weight: `1e300` is not a weight >= 0 (at most 1000000000)"
            ),
            "{e}"
        );
        assert!(
            e.contains("f.xml:5: fairSharePreemptionTimeout: `1e308`"),
            "{e}"
        );
    }

    #[test]
    fn lines_of_thousands_of_pools_are_those_of_the_xml_parser() {
        // Found by fuzzing: every pool and error located its line by
        // rescanning the text, half a second for 2,000 users.
        let mut xml = String::from("<?xml version=\"1.0\"?>\r\n<allocations>\r\n");
        for i in 0..3000 {
            xml.push_str(&format!(
                "<pool name=\"p{i}\">\n<weight>w</weight></pool>\r\n\n"
            ));
        }
        xml.push_str("</allocations>");
        let doc = roxmltree::Document::parse(&xml).unwrap();
        let e = from_xml("f.xml", &xml).unwrap_err();
        let want: Vec<usize> = doc
            .descendants()
            .filter(|n| n.has_tag_name("weight"))
            .map(|n| doc.text_pos_at(n.range().start).row as usize)
            .collect();
        let got: Vec<Option<usize>> = e.0.iter().map(|e| e.line).collect();
        assert_eq!(got.len(), 3000);
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(*g, Some(*w));
        }
        assert_eq!(got[1], Some(7));
    }
}
