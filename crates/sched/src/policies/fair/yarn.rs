//! YARN's Fair Scheduler allocation file, read as is.
//!
//! Operators with YARN clusters have this file, not MR1's: `<queue>`
//! elements nested under `root`, resources as memory and vcores instead of
//! slots, per-queue preemption thresholds, and a placement policy that maps
//! a job to its queue. It is read into the same [`Allocations`] as MR1's
//! file with the located-error helpers of [`super::alloc`], and marked
//! [`AllocFormat::Yarn`] so that shares follow YARN's `ComputeFairShares`
//! ([`crate::share::yarn_fair_shares`]).
//!
//! Mapping onto the model (every choice is in `docs/policies/fair.md`):
//!
//! * queue `root.a.b` is pool `a.b` (the `root.` prefix is dropped; a job
//!   may name either form); `<queue name="root">` itself only wraps the
//!   top-level queues and carries the root's policy and job limit;
//! * resources become slots at scheduler build time
//!   ([`Allocations::resolve_resources`]): whole containers of the
//!   configured size, the same number for map and reduce slots;
//! * `drf` is `fair` (slots are one resource kind); `maxAMShare` and the ACL
//!   and reservation elements are accepted and limit nothing;
//! * preemption timeouts and thresholds are inherited down the tree, as
//!   YARN does.

use super::alloc::{AllocFormat, Allocations, Mode, PoolConf, Xml, MAX_POOL_DEPTH};
use super::placement::{pool_path, PlaceRule};
use super::resource::Resource;
use mrsched_model::{InputErrors, Time};
use std::collections::BTreeSet;

const QUEUE_ELEMENTS: &str = "minResources, maxResources, maxRunningApps, maxAMShare, weight, schedulingPolicy, minSharePreemptionTimeout, fairSharePreemptionTimeout, fairSharePreemptionThreshold, aclSubmitApps, aclAdministerApps, allowPreemptionFrom, maxChildResources, maxContainerAllocation, reservation, queue";
const TOP_ELEMENTS: &str = "queue, user, userMaxAppsDefault, queueMaxAppsDefault, queueMaxAMShareDefault, queueMaxResourcesDefault, defaultQueueSchedulingPolicy, defaultMinSharePreemptionTimeout, defaultFairSharePreemptionTimeout, fairSharePreemptionTimeout, defaultFairSharePreemptionThreshold, queuePlacementPolicy";
/// Accepted and kept out of the model: access control and reservations.
const IGNORED: [&str; 6] = [
    "aclSubmitApps",
    "aclAdministerApps",
    "allowPreemptionFrom",
    "maxChildResources",
    "maxContainerAllocation",
    "reservation",
];

/// Settings a queue hands down to its children when they have none.
#[derive(Copy, Clone, Default)]
struct Inherited {
    min_timeout: Option<Time>,
    fair_timeout: Option<Time>,
    threshold: Option<f64>,
}

struct Reader<'a> {
    x: Xml<'a>,
    paths: BTreeSet<String>,
}

impl Reader<'_> {
    fn resource(&mut self, n: roxmltree::Node, field: &str) -> Option<Resource> {
        let t = self.x.text(n, field)?;
        match Resource::parse(t) {
            Ok(r) => Some(r),
            Err(m) => {
                self.x.err(n, field, format!("`{t}`: {m}"));
                None
            }
        }
    }

    fn fraction(&mut self, n: roxmltree::Node, field: &str) -> Option<f64> {
        self.x.number(n, field, "a fraction from 0 to 1", 1.0)
    }

    /// `maxAMShare`: a fraction, or -1 for no check (YARN).
    fn am_share(&mut self, n: roxmltree::Node, field: &str) -> Option<f64> {
        let off = self
            .x
            .text(n, field)
            .and_then(|t| t.parse::<f64>().ok())
            .is_some_and(|v| v == -1.0);
        if off {
            None
        } else {
            self.fraction(n, field)
        }
    }

    fn policy(&mut self, n: roxmltree::Node, field: &str) -> Option<Mode> {
        let t = self.x.text(n, field)?;
        match t.to_ascii_lowercase().as_str() {
            "fair" | "drf" => Some(Mode::Fair),
            "fifo" => Some(Mode::Fifo),
            _ => {
                self.x
                    .err(n, field, format!("`{t}` is not `fair`, `fifo` or `drf`"));
                None
            }
        }
    }

    /// A `<queue>` (or `<pool>`, which YARN takes as a synonym) under the
    /// queue `parent` (`root` for the top level).
    fn queue(
        &mut self,
        n: roxmltree::Node,
        parent: &str,
        depth: usize,
        inh: Inherited,
    ) -> Option<PoolConf> {
        let tag = n.tag_name().name();
        let name = self.x.name(n, tag)?;
        let full = format!("{parent}.{name}");
        let field = format!("queue[{full}]");
        if depth >= MAX_POOL_DEPTH {
            self.x.err(
                n,
                &field,
                format!("queues are nested more than {MAX_POOL_DEPTH} deep"),
            );
            return None;
        }
        if name.contains('.') || name == "root" {
            self.x.err(
                n,
                &field,
                format!("a queue name may not contain `.` or be `root` (below the top): `{name}`"),
            );
            return None;
        }
        match n.attribute("type") {
            None | Some("parent") | Some("leaf") => {}
            Some(t) => self.x.err(
                n,
                &format!("{field}.type"),
                format!("`{t}` is not `parent` or `leaf`"),
            ),
        }
        let path = pool_path(&full).to_string();
        if !self.paths.insert(path.clone()) {
            self.x
                .err(n, &field, format!("queue `{full}` is defined twice"));
        }
        let line = self.x.line(n);
        let mut p = PoolConf::new(path, field.clone(), Some(line));
        let kids = self.settings(n, &field, &mut p, true);
        let inh = Inherited {
            min_timeout: p.min_share_timeout.or(inh.min_timeout),
            fair_timeout: p.fair_share_timeout.or(inh.fair_timeout),
            threshold: p.fair_share_threshold.or(inh.threshold),
        };
        p.min_share_timeout = inh.min_timeout;
        p.fair_share_timeout = inh.fair_timeout;
        p.fair_share_threshold = inh.threshold;
        if p.mode == Some(Mode::Fifo) && !kids.is_empty() {
            self.x.err(
                n,
                &format!("{field}.schedulingPolicy"),
                "`fifo` is only for leaf queues (YARN); this queue has child queues",
            );
        }
        for c in kids {
            if let Some(q) = self.queue(c, &full, depth + 1, inh) {
                p.children.push(q);
            }
        }
        Some(p)
    }

    /// Read a queue's settings into `p`; returns its child queues.
    fn settings<'b, 'i>(
        &mut self,
        n: roxmltree::Node<'b, 'i>,
        field: &str,
        p: &mut PoolConf,
        children_allowed: bool,
    ) -> Vec<roxmltree::Node<'b, 'i>> {
        let mut kids = Vec::new();
        let mut seen = BTreeSet::new();
        for c in n.children().filter(|c| c.is_element()) {
            let tag = c.tag_name().name();
            let f = format!("{field}.{tag}");
            let is_queue = matches!(tag, "queue" | "pool");
            if !is_queue && !seen.insert(tag.to_string()) {
                self.x.err(c, &f, format!("<{tag}> is given twice"));
                continue;
            }
            match tag {
                "queue" | "pool" if children_allowed => kids.push(c),
                "minResources" => p.min_res = self.resource(c, &f),
                "maxResources" => p.max_res = self.resource(c, &f),
                "maxRunningApps" => p.max_running_jobs = self.x.count(c, &f),
                "maxAMShare" => p.max_am_share = self.am_share(c, &f),
                "weight" => {
                    let max = mrsched_model::Limits::current().max_weight;
                    p.weight = self.x.number(c, &f, "a weight >= 0", max).unwrap_or(1.0)
                }
                "schedulingPolicy" => p.mode = self.policy(c, &f),
                "minSharePreemptionTimeout" => {
                    p.min_share_timeout = self.x.seconds(c, &f).map(Time::from_secs_f64)
                }
                "fairSharePreemptionTimeout" => {
                    p.fair_share_timeout = self.x.seconds(c, &f).map(Time::from_secs_f64)
                }
                "fairSharePreemptionThreshold" => p.fair_share_threshold = self.fraction(c, &f),
                t if IGNORED.contains(&t) => {}
                _ => self.x.err(
                    c,
                    &f,
                    format!(
                        "unknown element <{tag}> in a <queue> (expected one of: {QUEUE_ELEMENTS})"
                    ),
                ),
            }
        }
        kids
    }

    fn placement<'b, 'i>(
        &mut self,
        n: roxmltree::Node<'b, 'i>,
    ) -> Vec<(PlaceRule, roxmltree::Node<'b, 'i>)> {
        let mut out = Vec::new();
        for r in n.children().filter(|c| c.is_element()) {
            let tag = r.tag_name().name();
            if tag != "rule" {
                self.x.err(
                    r,
                    &format!("queuePlacementPolicy.{tag}"),
                    format!("unknown element <{tag}> in <queuePlacementPolicy> (expected rule)"),
                );
                continue;
            }
            let Some(name) = self.x.name(r, "rule") else {
                continue;
            };
            let field = format!("queuePlacementPolicy.rule[{name}]");
            if r.children().any(|c| c.is_element()) {
                self.x.err(
                    r,
                    &field,
                    "nested rules (nestedUserQueue) are not supported",
                );
                continue;
            }
            let create = match r.attribute("create").map(str::trim) {
                None | Some("true") => true,
                Some("false") => false,
                Some(t) => {
                    self.x.err(
                        r,
                        &format!("{field}.create"),
                        format!("`{t}` is not `true` or `false`"),
                    );
                    true
                }
            };
            let rule = match name.as_str() {
                "specified" => PlaceRule::Specified { create },
                "user" => PlaceRule::User { create },
                "primaryGroup" => PlaceRule::PrimaryGroup { create },
                "default" => {
                    let q = r.attribute("queue").map(str::trim).unwrap_or("default");
                    PlaceRule::Default {
                        queue: pool_path(q).to_string(),
                    }
                }
                "reject" => PlaceRule::Reject,
                _ => {
                    self.x.err(
                        r,
                        &field,
                        format!("unknown placement rule `{name}` (expected one of: specified, user, primaryGroup, default, reject)"),
                    );
                    continue;
                }
            };
            out.push((rule, r));
        }
        out
    }
}

/// Read a YARN allocation file (already known to be one: see
/// [`super::alloc::xml_dialect`]).
pub(super) fn read(doc: &roxmltree::Document, x: Xml) -> Result<Allocations, InputErrors> {
    let mut rd = Reader {
        x,
        paths: BTreeSet::new(),
    };
    let root = doc.root_element();
    let mut a = Allocations {
        file: rd.x.file.to_string(),
        format: AllocFormat::Yarn,
        ..Default::default()
    };
    let mut top = Inherited::default();
    let mut queues = Vec::new();
    let mut rules = Vec::new();
    let mut max_res_default = None;
    let mut seen = BTreeSet::new();
    for c in root.children().filter(|c| c.is_element()) {
        let tag = c.tag_name().name();
        if !matches!(tag, "queue" | "pool" | "user") && !seen.insert(tag.to_string()) {
            rd.x.err(c, tag, format!("<{tag}> is given twice"));
            continue;
        }
        match tag {
            "queue" | "pool" if c.attribute("name").map(str::trim) == Some("root") => {
                if !seen.insert("root".into()) {
                    rd.x.err(c, "queue[root]", "queue `root` is defined twice");
                    continue;
                }
                let mut p = PoolConf::new(String::new(), "queue[root]".into(), None);
                let kids = rd.settings(c, "queue[root]", &mut p, true);
                if p.mode == Some(Mode::Fifo) {
                    rd.x.err(
                        c,
                        "queue[root].schedulingPolicy",
                        "`fifo` is only for leaf queues (YARN); root is the parent of every queue",
                    );
                }
                a.root_mode = p.mode;
                a.root_max_jobs = p.max_running_jobs;
                top.min_timeout = p.min_share_timeout;
                top.fair_timeout = p.fair_share_timeout;
                top.threshold = p.fair_share_threshold;
                queues.extend(kids);
            }
            "queue" | "pool" => queues.push(c),
            "user" => {
                let Some(name) = rd.x.name(c, "user") else {
                    continue;
                };
                let field = format!("user[{name}]");
                if a.users.contains_key(&name) {
                    rd.x.err(c, &field, format!("user `{name}` is defined twice"));
                }
                for u in c.children().filter(|u| u.is_element()) {
                    let t = u.tag_name().name();
                    let f = format!("{field}.{t}");
                    match t {
                        "maxRunningApps" => {
                            if let Some(m) = rd.x.count(u, &f) {
                                a.users.insert(name.clone(), m);
                            }
                        }
                        _ => rd.x.err(
                            u,
                            &f,
                            format!("unknown element <{t}> in a <user> (expected maxRunningApps)"),
                        ),
                    }
                }
            }
            "userMaxAppsDefault" => a.user_max_jobs_default = rd.x.count(c, tag),
            "queueMaxAppsDefault" => a.pool_max_jobs_default = rd.x.count(c, tag),
            "queueMaxAMShareDefault" => a.max_am_share_default = rd.am_share(c, tag),
            "queueMaxResourcesDefault" => max_res_default = rd.resource(c, tag),
            "defaultQueueSchedulingPolicy" => {
                if let Some(m) = rd.policy(c, tag) {
                    a.default_mode = m;
                }
            }
            "defaultMinSharePreemptionTimeout" => {
                a.default_min_share_timeout = rd.x.seconds(c, tag).map(Time::from_secs_f64)
            }
            // The older top-level spelling is the default too.
            "defaultFairSharePreemptionTimeout" | "fairSharePreemptionTimeout" => {
                if a.fair_share_timeout.is_some() {
                    rd.x.err(
                        c,
                        tag,
                        "the fair-share preemption timeout is given twice (defaultFairSharePreemptionTimeout and fairSharePreemptionTimeout)",
                    );
                }
                a.fair_share_timeout = rd.x.seconds(c, tag).map(Time::from_secs_f64)
            }
            "defaultFairSharePreemptionThreshold" => {
                a.default_fair_share_threshold = rd.fraction(c, tag)
            }
            "queuePlacementPolicy" => rules = rd.placement(c),
            _ => rd.x.err(
                c,
                tag,
                format!(
                    "unknown element <{tag}> in <allocations> (expected one of: {TOP_ELEMENTS})"
                ),
            ),
        }
    }
    for q in queues {
        if let Some(p) = rd.queue(q, "root", 0, top) {
            a.pools.push(p);
        }
    }
    if let Some(r) = max_res_default {
        fn rec(p: &mut PoolConf, r: &Resource) {
            if p.max_res.is_none() {
                p.max_res = Some(r.clone());
            }
            p.children.iter_mut().for_each(|c| rec(c, r));
        }
        a.pools.iter_mut().for_each(|p| rec(p, &r));
    }
    // The policy: rules after a terminal one are never reached, the last
    // must be terminal, and a fixed queue that may not be created must be
    // declared.
    let n_rules = rules.len();
    for (i, (rule, node)) in rules.iter().enumerate() {
        let field = "queuePlacementPolicy.rule";
        if rule.terminal() && i + 1 < n_rules {
            rd.x.err(
                rules[i + 1].1,
                field,
                "this rule can never be reached: the one before it always places the job",
            );
        }
        if i + 1 == n_rules && !rule.terminal() {
            rd.x.err(
                *node,
                field,
                "the last rule must always place the job (default, reject, or create=\"true\")",
            );
        }
        if let PlaceRule::Default { queue } = rule {
            let create = node.attribute("create").map(str::trim) != Some("false");
            if !create && !rd.paths.contains(queue) {
                rd.x.err(
                    *node,
                    &format!("{field}[default].queue"),
                    format!("queue `{queue}` is not declared in this file and create=\"false\""),
                );
            }
        }
    }
    a.placement = rules.into_iter().map(|(r, _)| r).collect();
    rd.x.errs.into_result(a)
}

#[cfg(test)]
#[path = "yarn_tests.rs"]
mod tests;
