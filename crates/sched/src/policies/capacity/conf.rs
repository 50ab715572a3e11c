//! Reading Hadoop's `capacity-scheduler.xml` as operators have it.
//!
//! The file is a Hadoop `Configuration`: `<configuration>` with
//! `<property><name>..</name><value>..</value></property>` entries. Queues
//! are paths (`root.prod.etl`), each parent listing its children in
//! `yarn.scheduler.capacity.<path>.queues`. Because names are paths built
//! from those lists, a cycle cannot be written; a child listed twice, a
//! property given twice, a listed queue without a capacity, children whose
//! capacities do not sum to 100 and bad numbers are errors naming the file,
//! the line and the property, and nothing runs. Properties YARN would
//! ignore (unknown names, queues nobody lists) are warnings, as YARN
//! ignores them too; properties that have no meaning for slots (ACLs,
//! AM-resource limits, node labels) are read and ignored
//! (docs/policies/capacity.md lists them).

use mrsched_model::{InputError, InputErrors};
use std::collections::BTreeMap;

/// Prefix of every Capacity Scheduler property.
pub const PREFIX: &str = "yarn.scheduler.capacity.";

/// Deepest queue nesting read.
pub const MAX_DEPTH: usize = 32;

/// Most queues read from one file.
pub const MAX_QUEUES: usize = 10_000;

/// YARN's `yarn.scheduler.capacity.maximum-applications` default.
pub const DEFAULT_MAX_APPLICATIONS: u32 = 10_000;

/// Per-queue properties that are read.
const QUEUE_PROPS: &[&str] = &[
    "queues",
    "capacity",
    "maximum-capacity",
    "user-limit-factor",
    "minimum-user-limit-percent",
    "maximum-applications",
    "state",
    "ordering-policy",
];

/// Per-queue properties that are read but have no meaning for slots.
const IGNORED_QUEUE_PROPS: &[&str] = &[
    "acl_submit_applications",
    "acl_administer_queue",
    "acl_application_max_priority",
    "maximum-am-resource-percent",
    "priority",
    "default-application-priority",
    "maximum-application-lifetime",
    "default-application-lifetime",
    "maximum-allocation-mb",
    "maximum-allocation-vcores",
    "disable_preemption",
    "intra-queue-preemption.disable_preemption",
    "accessible-node-labels",
    "default-node-label-expression",
];

/// Global properties that are read but have no meaning for slots.
const IGNORED_GLOBAL_PROPS: &[&str] = &[
    "maximum-am-resource-percent",
    "resource-calculator",
    "node-locality-delay",
    "rack-locality-additional-delay",
    "schedule-asynchronously.enable",
    "application.fail-fast",
    "per-node-heartbeat.maximum-offswitch-assignments",
    "per-node-heartbeat.multiple-assignments-enabled",
    "per-node-heartbeat.maximum-container-assignments",
    "global-queue-max-application",
    "workflow-priority-mappings",
    "workflow-priority-mappings-override.enable",
];

/// One queue of the file.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueConf {
    /// Full path, `root.a.b`.
    pub path: String,
    /// Parent index (`None` for root).
    pub parent: Option<usize>,
    /// Children indices, in the order their parent lists them.
    pub children: Vec<usize>,
    /// `capacity`: percent of the parent (root: 100).
    pub capacity: f64,
    /// `maximum-capacity`: percent of the parent (absent or -1: 100).
    pub max_capacity: f64,
    /// Guaranteed fraction of the cluster (product of capacities).
    pub abs_capacity: f64,
    /// Maximum fraction of the cluster (product of maximum capacities).
    pub abs_max_capacity: f64,
    /// `user-limit-factor` (default 1; -1: no cap beyond the queue's maximum).
    pub user_limit_factor: f64,
    /// `minimum-user-limit-percent` (default 100).
    pub min_user_limit_percent: f64,
    /// `maximum-applications` (default: the system's times the absolute
    /// capacity).
    pub max_applications: u32,
    /// `state` is RUNNING (a STOPPED queue, or one under a STOPPED parent,
    /// accepts no new job).
    pub running: bool,
    /// Line of the `.queues` entry that lists it.
    pub line: Option<usize>,
}

impl QueueConf {
    /// Whether it has no children (jobs run only in leaves).
    pub fn is_leaf(&self) -> bool {
        self.children.is_empty()
    }

    /// Last component of the path.
    pub fn leaf_name(&self) -> &str {
        self.path.rsplit('.').next().unwrap_or(&self.path)
    }
}

/// Where `yarn.scheduler.capacity.queue-mappings` sends a user's jobs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserMapping {
    /// The user (`None`: `%user`, any user).
    pub user: Option<String>,
    /// The queue index (`None`: `%user`, the leaf named as the user).
    pub queue: Option<usize>,
}

/// A parsed `capacity-scheduler.xml`.
#[derive(Clone, Debug, PartialEq)]
pub struct CapacityConf {
    /// File name for messages.
    pub file: String,
    /// Queues, root first, then in breadth-first order of the lists.
    pub queues: Vec<QueueConf>,
    /// `queue-mappings` (`u:` rules), in order.
    pub mappings: Vec<UserMapping>,
    /// `queue-mappings-override.enable`.
    pub mappings_override: bool,
    /// `maximum-applications` of the whole system.
    pub max_applications: u32,
    /// Things read but ignored, each with file, line and property.
    pub warnings: Vec<String>,
}

impl CapacityConf {
    /// The configuration used when no file is given: one `root.default`
    /// queue with 100% of the cluster (YARN's shipped default).
    pub fn single_default() -> CapacityConf {
        const TEXT: &str = "<configuration>\n<property><name>yarn.scheduler.capacity.root.queues</name><value>default</value></property>\n<property><name>yarn.scheduler.capacity.root.default.capacity</name><value>100</value></property>\n</configuration>\n";
        parse("<capacity default>", TEXT).expect("the built-in default is valid")
    }

    /// Whether `text` looks like a Hadoop configuration file (root element
    /// `<configuration>`), as a Capacity Scheduler file is.
    pub fn looks_like(text: &str) -> bool {
        roxmltree::Document::parse(text)
            .is_ok_and(|d| d.root_element().tag_name().name() == "configuration")
    }

    /// Index of the queue named `name`: a full path (`root.a.b`) or the
    /// last component of exactly one leaf's path.
    pub fn find(&self, name: &str) -> Result<usize, String> {
        if let Some(i) = self.queues.iter().position(|q| q.path == name) {
            return Ok(i);
        }
        let hits: Vec<usize> = (0..self.queues.len())
            .filter(|&i| self.queues[i].leaf_name() == name && i != 0)
            .collect();
        match hits.as_slice() {
            [i] => Ok(*i),
            [] => Err(format!("queue `{name}` does not exist")),
            _ => Err(format!(
                "queue name `{name}` is ambiguous ({}); use the full path",
                hits.iter()
                    .map(|&i| self.queues[i].path.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
}

struct Prop {
    value: String,
    line: usize,
    used: bool,
}

struct Reader<'a> {
    file: &'a str,
    props: BTreeMap<String, Prop>,
    errs: InputErrors,
    warnings: Vec<String>,
}

impl Reader<'_> {
    fn err(&mut self, line: Option<usize>, prop: &str, msg: impl Into<String>) {
        self.errs
            .push(InputError::field(self.file, prop, msg).at_line(line));
    }

    /// The value of `name`, marked as read.
    fn take(&mut self, name: &str) -> Option<(String, usize)> {
        let p = self.props.get_mut(name)?;
        p.used = true;
        Some((p.value.trim().to_string(), p.line))
    }

    /// A number in `lo..=hi` (or `-1` when `minus_one` allows it).
    fn number(&mut self, name: &str, lo: f64, hi: f64, minus_one: bool) -> Option<f64> {
        let (v, line) = self.take(name)?;
        match v.parse::<f64>() {
            Ok(x) if minus_one && x == -1.0 => Some(x),
            Ok(x) if x.is_finite() && x >= lo && x <= hi => Some(x),
            _ => {
                let also = if minus_one { " or -1" } else { "" };
                // YARN 3's other capacity forms, named as such.
                let form = if v.starts_with('[') {
                    " (absolute resources such as [memory=..,vcores=..] are not supported: give a percent)"
                } else if v.ends_with('w') && v[..v.len() - 1].parse::<f64>().is_ok() {
                    " (weights such as 2w are not supported: give a percent)"
                } else {
                    ""
                };
                self.err(
                    Some(line),
                    name,
                    format!("`{v}` is not a number from {lo} to {hi}{also}{form}"),
                );
                None
            }
        }
    }

    fn count(&mut self, name: &str) -> Option<u32> {
        let (v, line) = self.take(name)?;
        match v.parse::<u32>() {
            Ok(x) => Some(x),
            Err(_) => {
                self.err(
                    Some(line),
                    name,
                    format!("`{v}` is not a whole number >= 0"),
                );
                None
            }
        }
    }

    fn boolean(&mut self, name: &str) -> Option<bool> {
        let (v, line) = self.take(name)?;
        match v.to_ascii_lowercase().as_str() {
            "true" => Some(true),
            "false" => Some(false),
            _ => {
                self.err(Some(line), name, format!("`{v}` is not true or false"));
                None
            }
        }
    }
}

/// Parse a `capacity-scheduler.xml`.
pub fn parse(file: &str, text: &str) -> Result<CapacityConf, InputErrors> {
    let (doc, lines) = crate::xml::parse(file, text)?;
    let line = |n: roxmltree::Node| lines.of(n);
    let mut r = Reader {
        file,
        props: BTreeMap::new(),
        errs: InputErrors::new(),
        warnings: Vec::new(),
    };
    let root = doc.root_element();
    if root.tag_name().name() != "configuration" {
        r.err(
            Some(line(root)),
            root.tag_name().name(),
            "the root element of a capacity-scheduler.xml must be <configuration>",
        );
        return Err(r.errs);
    }
    for p in root.children().filter(|c| c.is_element()) {
        let tag = p.tag_name().name();
        if tag != "property" {
            r.err(
                Some(line(p)),
                tag,
                format!("unknown element <{tag}> in <configuration> (expected <property>)"),
            );
            continue;
        }
        let (mut name, mut value) = (None, None);
        for c in p.children().filter(|c| c.is_element()) {
            let t = c.tag_name().name();
            let text = c.text().unwrap_or("").trim().to_string();
            match t {
                "name" => name = Some(text),
                "value" => value = Some(text),
                "description" | "final" | "source" | "tag" => {}
                _ => r.err(
                    Some(line(c)),
                    "property",
                    format!("unknown element <{t}> in a <property> (expected name, value, description, final)"),
                ),
            }
        }
        let Some(name) = name.filter(|n| !n.is_empty()) else {
            r.err(Some(line(p)), "property", "<property> needs a <name>");
            continue;
        };
        let l = line(p);
        if let Some(first) = r.props.get(&name) {
            let msg = format!("given twice (first at line {})", first.line);
            r.err(Some(l), &name, msg);
            continue;
        }
        let Some(value) = value else {
            r.err(Some(l), &name, "<property> needs a <value>");
            continue;
        };
        r.props.insert(
            name,
            Prop {
                value,
                line: l,
                used: false,
            },
        );
    }
    if !r.errs.is_empty() {
        return Err(r.errs);
    }
    let queues = read_queues(&mut r);
    let mut conf = CapacityConf {
        file: file.to_string(),
        queues,
        mappings: Vec::new(),
        mappings_override: false,
        max_applications: DEFAULT_MAX_APPLICATIONS,
        warnings: Vec::new(),
    };
    if r.errs.is_empty() {
        read_queue_settings(&mut r, &mut conf);
        read_mappings(&mut r, &mut conf);
        check_sums(&mut r, &conf);
    }
    leftovers(&mut r, &conf);
    conf.warnings = std::mem::take(&mut r.warnings);
    r.errs.into_result(conf)
}

/// The tree from the `.queues` lists, breadth first from root.
fn read_queues(r: &mut Reader) -> Vec<QueueConf> {
    let blank = |path: String, parent: Option<usize>, line: Option<usize>| QueueConf {
        path,
        parent,
        children: Vec::new(),
        capacity: 100.0,
        max_capacity: 100.0,
        abs_capacity: 1.0,
        abs_max_capacity: 1.0,
        user_limit_factor: 1.0,
        min_user_limit_percent: 100.0,
        max_applications: DEFAULT_MAX_APPLICATIONS,
        running: true,
        line,
    };
    let mut queues = vec![blank("root".into(), None, None)];
    let root_list = format!("{PREFIX}root.queues");
    if !r.props.contains_key(&root_list) {
        r.err(
            None,
            &root_list,
            "missing: the root queue must list its children (such as `default`)",
        );
        return queues;
    }
    let mut i = 0;
    while i < queues.len() {
        let key = format!("{PREFIX}{}.queues", queues[i].path);
        if let Some((list, line)) = r.take(&key) {
            let depth = queues[i].path.matches('.').count() + 1;
            if depth > MAX_DEPTH {
                r.err(
                    Some(line),
                    &key,
                    format!("queues are nested more than {MAX_DEPTH} deep"),
                );
            } else {
                let mut seen = Vec::new();
                for name in list.split(',').map(str::trim) {
                    if name.is_empty() || name.contains('.') || name.contains(char::is_whitespace) {
                        r.err(
                            Some(line),
                            &key,
                            format!("`{name}` is not a queue name (non-empty, no dots or spaces)"),
                        );
                        continue;
                    }
                    if seen.contains(&name) {
                        r.err(Some(line), &key, format!("queue `{name}` is listed twice"));
                        continue;
                    }
                    seen.push(name);
                    if queues.len() >= MAX_QUEUES {
                        r.err(Some(line), &key, format!("more than {MAX_QUEUES} queues"));
                        break;
                    }
                    let c = queues.len();
                    let path = format!("{}.{name}", queues[i].path);
                    queues.push(blank(path, Some(i), Some(line)));
                    queues[i].children.push(c);
                }
            }
        }
        i += 1;
    }
    queues
}

fn read_queue_settings(r: &mut Reader, conf: &mut CapacityConf) {
    if let Some(m) = r.count(&format!("{PREFIX}maximum-applications")) {
        conf.max_applications = m;
    }
    let system_apps = conf.max_applications;
    for i in 0..conf.queues.len() {
        let path = conf.queues[i].path.clone();
        let key = |p: &str| format!("{PREFIX}{path}.{p}");
        let parent = conf.queues[i].parent;
        let q = &mut conf.queues[i];
        match parent {
            None => {
                // root: 100% whatever it says, as YARN forces it.
                if let Some(c) = r.number(&key("capacity"), 0.0, 100.0, false) {
                    if (c - 100.0).abs() > 0.01 {
                        let l = r.props.get(&key("capacity")).map(|p| p.line);
                        r.err(l, &key("capacity"), "the root queue's capacity is 100");
                    }
                }
                r.number(&key("maximum-capacity"), 0.0, 100.0, true);
            }
            Some(_) => match r.number(&key("capacity"), 0.0, 100.0, false) {
                Some(c) => q.capacity = c,
                None if !r.props.contains_key(&key("capacity")) => {
                    let msg = format!(
                        "queue `{path}` is listed but has no {} property",
                        key("capacity")
                    );
                    r.err(q.line, &key("capacity"), msg);
                }
                None => {}
            },
        }
        if parent.is_some() {
            if let Some(m) = r.number(&key("maximum-capacity"), 0.0, 100.0, true) {
                q.max_capacity = if m < 0.0 { 100.0 } else { m };
                if q.max_capacity + 1e-9 < q.capacity {
                    let l = r.props.get(&key("maximum-capacity")).map(|p| p.line);
                    let msg = format!(
                        "maximum-capacity {} is below capacity {}",
                        q.max_capacity, q.capacity
                    );
                    r.err(l, &key("maximum-capacity"), msg);
                }
            }
        }
        if let Some(f) = r.number(&key("user-limit-factor"), 0.0, 1e6, true) {
            q.user_limit_factor = f;
        }
        if let Some(p) = r.number(&key("minimum-user-limit-percent"), 0.0, 100.0, false) {
            if p == 0.0 {
                let l = r
                    .props
                    .get(&key("minimum-user-limit-percent"))
                    .map(|p| p.line);
                r.err(
                    l,
                    &key("minimum-user-limit-percent"),
                    "must be above 0 (a percent of the queue, up to 100)",
                );
            }
            q.min_user_limit_percent = p;
        }
        if let Some((v, l)) = r.take(&key("state")) {
            match v.to_ascii_uppercase().as_str() {
                "RUNNING" => {}
                "STOPPED" => q.running = false,
                _ => r.err(
                    Some(l),
                    &key("state"),
                    format!("`{v}` is not RUNNING or STOPPED"),
                ),
            }
        }
        if let Some((v, l)) = r.take(&key("ordering-policy")) {
            if !v.eq_ignore_ascii_case("fifo") {
                r.err(
                    Some(l),
                    &key("ordering-policy"),
                    format!("`{v}`: only the default `fifo` ordering is supported"),
                );
            }
        }
        let given_apps = r.count(&key("maximum-applications"));
        for p in IGNORED_QUEUE_PROPS {
            r.take(&key(p));
        }
        // Absolute capacities and inherited state, parents first (the list
        // is breadth first).
        let (pa, pm, prun) = match parent {
            Some(p) => {
                let pq = &conf.queues[p];
                (pq.abs_capacity, pq.abs_max_capacity, pq.running)
            }
            None => (1.0, 1.0, true),
        };
        let q = &mut conf.queues[i];
        if parent.is_some() {
            q.abs_capacity = pa * q.capacity / 100.0;
            q.abs_max_capacity = pm * q.max_capacity / 100.0;
        }
        q.running &= prun;
        q.max_applications =
            given_apps.unwrap_or((system_apps as f64 * q.abs_capacity).floor() as u32);
    }
}

fn read_mappings(r: &mut Reader, conf: &mut CapacityConf) {
    let key = format!("{PREFIX}queue-mappings-override.enable");
    if let Some(b) = r.boolean(&key) {
        conf.mappings_override = b;
    }
    let key = format!("{PREFIX}queue-mappings");
    let Some((v, line)) = r.take(&key) else {
        return;
    };
    for rule in v.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let parts: Vec<&str> = rule.split(':').map(str::trim).collect();
        match parts.as_slice() {
            ["u", user, queue] if !user.is_empty() && !queue.is_empty() => {
                let user = (*user != "%user").then(|| user.to_string());
                let queue = if *queue == "%user" {
                    None
                } else if *queue == "%primary_group" || queue.starts_with('%') {
                    r.err(
                        Some(line),
                        &key,
                        format!("`{rule}`: only %user is known (mrsched's jobs have no groups)"),
                    );
                    continue;
                } else {
                    match conf.find(queue) {
                        Ok(i) if conf.queues[i].is_leaf() => Some(i),
                        Ok(i) => {
                            let msg = format!(
                                "`{rule}`: queue `{}` is not a leaf queue",
                                conf.queues[i].path
                            );
                            r.err(Some(line), &key, msg);
                            continue;
                        }
                        Err(e) => {
                            r.err(Some(line), &key, format!("`{rule}`: {e}"));
                            continue;
                        }
                    }
                };
                conf.mappings.push(UserMapping { user, queue });
            }
            ["g", ..] => r.warnings.push(format!(
                "{}:{line}: {key}: `{rule}` ignored: mrsched's jobs have no groups",
                r.file
            )),
            _ => r.err(
                Some(line),
                &key,
                format!("`{rule}` is not a mapping such as u:alice:prod or u:%user:%user"),
            ),
        }
    }
}

fn check_sums(r: &mut Reader, conf: &CapacityConf) {
    for q in &conf.queues {
        if q.is_leaf() {
            continue;
        }
        let sum: f64 = q.children.iter().map(|&c| conf.queues[c].capacity).sum();
        if (sum - 100.0).abs() > 0.01 {
            let key = format!("{PREFIX}{}.queues", q.path);
            let line = r.props.get(&key).map(|p| p.line);
            let parts: Vec<String> = q
                .children
                .iter()
                .map(|&c| format!("{} {}", conf.queues[c].leaf_name(), conf.queues[c].capacity))
                .collect();
            r.err(
                line,
                &key,
                format!(
                    "the capacities of the children of `{}` sum to {sum}, not 100 ({})",
                    q.path,
                    parts.join(", ")
                ),
            );
        }
    }
}

/// Warnings for properties nothing read.
fn leftovers(r: &mut Reader, conf: &CapacityConf) {
    let mut warn = Vec::new();
    for (name, p) in &r.props {
        if p.used {
            continue;
        }
        let why = if let Some(rest) = name.strip_prefix(PREFIX) {
            if IGNORED_GLOBAL_PROPS.contains(&rest) {
                continue;
            }
            if rest.starts_with("root.") || rest == "root" {
                // The longest queue path the name starts with.
                let known = conf
                    .queues
                    .iter()
                    .filter(|q| rest.starts_with(&format!("{}.", q.path)))
                    .max_by_key(|q| q.path.len());
                match known {
                    Some(q) => {
                        let attr = &rest[q.path.len() + 1..];
                        if attr.starts_with("accessible-node-labels.") {
                            continue;
                        }
                        let last = attr.rsplit('.').next().unwrap_or(attr);
                        let is_queue_prop =
                            QUEUE_PROPS.contains(&last) || IGNORED_QUEUE_PROPS.contains(&last);
                        match attr.split_once('.') {
                            Some((child, _)) if is_queue_prop => format!(
                                "queue `{}.{child}` is not listed in {PREFIX}{}.queues; ignored",
                                q.path, q.path
                            ),
                            _ => "unknown queue property, ignored (as YARN does)".to_string(),
                        }
                    }
                    None => "unknown property, ignored (as YARN does)".to_string(),
                }
            } else {
                "unknown property, ignored (as YARN does)".to_string()
            }
        } else if name.starts_with("yarn.resourcemanager.monitor.capacity.preemption") {
            "Capacity Scheduler preemption is not modelled; ignored".to_string()
        } else {
            "not a Capacity Scheduler property, ignored".to_string()
        };
        warn.push(format!("{}:{}: {name}: {why}", r.file, p.line));
    }
    r.warnings.extend(warn);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(props: &[(&str, &str)]) -> String {
        let mut s = String::from("<?xml version=\"1.0\"?>\n<configuration>\n");
        for (k, v) in props {
            s.push_str(&format!(
                "<property><name>{k}</name><value>{v}</value></property>\n"
            ));
        }
        s + "</configuration>\n"
    }

    fn err(props: &[(&str, &str)]) -> String {
        parse("cs.xml", &doc(props)).unwrap_err().to_string()
    }

    const Q: &str = "yarn.scheduler.capacity.root.queues";

    #[test]
    fn the_example_file_reads() {
        let text = include_str!("../../../../../examples/capacity-scheduler.xml");
        let c = parse("capacity-scheduler.xml", text).unwrap();
        let paths: Vec<&str> = c.queues.iter().map(|q| q.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "root",
                "root.prod",
                "root.research",
                "root.default",
                "root.research.ml",
                "root.research.reports"
            ]
        );
        let ml = &c.queues[c.find("ml").unwrap()];
        assert!((ml.abs_capacity - 0.3 * 0.6).abs() < 1e-12);
        assert!((ml.abs_max_capacity - 0.6).abs() < 1e-12);
        assert!(c.mappings.len() >= 3);
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
        assert!(CapacityConf::looks_like(text));
    }

    #[test]
    fn defaults_follow_yarn() {
        let c = CapacityConf::single_default();
        let d = &c.queues[1];
        assert_eq!(d.path, "root.default");
        assert_eq!((d.capacity, d.max_capacity), (100.0, 100.0));
        assert_eq!(
            (d.user_limit_factor, d.min_user_limit_percent),
            (1.0, 100.0)
        );
        assert_eq!(d.max_applications, 10_000);
        assert!(d.running && d.is_leaf());
    }

    #[test]
    fn hadoops_shipped_default_file_reads_without_warnings() {
        // The properties of the capacity-scheduler.xml Hadoop ships.
        let p = |k: &str| format!("yarn.scheduler.capacity.{k}");
        let props = [
            (p("maximum-applications"), "10000"),
            (p("maximum-am-resource-percent"), "0.1"),
            (
                p("resource-calculator"),
                "org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator",
            ),
            (p("root.queues"), "default"),
            (p("root.default.capacity"), "100"),
            (p("root.default.user-limit-factor"), "1"),
            (p("root.default.maximum-capacity"), "100"),
            (p("root.default.state"), "RUNNING"),
            (p("root.default.acl_submit_applications"), "*"),
            (p("root.default.acl_administer_queue"), "*"),
            (p("root.default.acl_application_max_priority"), "*"),
            (p("node-locality-delay"), "40"),
            (p("queue-mappings"), ""),
            (p("queue-mappings-override.enable"), "false"),
            (p("per-node-heartbeat.maximum-offswitch-assignments"), "1"),
        ];
        let props: Vec<(&str, &str)> = props.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        let c = parse("capacity-scheduler.xml", &doc(&props)).unwrap();
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
        // The same queues as the built-in default (lines aside).
        let mut d = CapacityConf::single_default();
        d.file = c.file.clone();
        d.queues[1].line = c.queues[1].line;
        assert_eq!(c, d);
    }

    #[test]
    fn capacities_must_sum_to_100() {
        let e = err(&[
            (Q, "a,b"),
            ("yarn.scheduler.capacity.root.a.capacity", "70"),
            ("yarn.scheduler.capacity.root.b.capacity", "20"),
        ]);
        assert!(
            e.starts_with("cs.xml:3: yarn.scheduler.capacity.root.queues: the capacities of the children of `root` sum to 90, not 100 (a 70, b 20)"),
            "{e}"
        );
        // Within 0.01 is fine (thirds).
        parse(
            "cs.xml",
            &doc(&[
                (Q, "a,b,c"),
                ("yarn.scheduler.capacity.root.a.capacity", "33.33"),
                ("yarn.scheduler.capacity.root.b.capacity", "33.33"),
                ("yarn.scheduler.capacity.root.c.capacity", "33.34"),
            ]),
        )
        .unwrap();
    }

    #[test]
    fn listed_but_undefined_duplicates_and_bad_numbers_are_located() {
        let e = err(&[
            (Q, "a,b"),
            ("yarn.scheduler.capacity.root.a.capacity", "100"),
        ]);
        assert!(
            e.contains("cs.xml:3: yarn.scheduler.capacity.root.b.capacity: queue `root.b` is listed but has no"),
            "{e}"
        );
        let e = err(&[
            (Q, "a,a"),
            ("yarn.scheduler.capacity.root.a.capacity", "100"),
        ]);
        assert!(
            e.contains("cs.xml:3: yarn.scheduler.capacity.root.queues: queue `a` is listed twice"),
            "{e}"
        );
        let e = err(&[
            (Q, "a"),
            ("yarn.scheduler.capacity.root.a.capacity", "100"),
            ("yarn.scheduler.capacity.root.a.capacity", "100"),
        ]);
        assert!(
            e.contains(
                "cs.xml:5: yarn.scheduler.capacity.root.a.capacity: given twice (first at line 4)"
            ),
            "{e}"
        );
        let e = err(&[
            (Q, "a"),
            ("yarn.scheduler.capacity.root.a.capacity", "lots"),
        ]);
        assert!(e.contains("cs.xml:4: yarn.scheduler.capacity.root.a.capacity: `lots` is not a number from 0 to 100"), "{e}");
        let e = err(&[
            (Q, "a"),
            ("yarn.scheduler.capacity.root.a.capacity", "100"),
            ("yarn.scheduler.capacity.root.a.maximum-capacity", "50"),
            ("yarn.scheduler.capacity.root.a.state", "PAUSED"),
            ("yarn.scheduler.capacity.root.a.user-limit-factor", "-3"),
        ]);
        assert!(e.contains("cs.xml:5: yarn.scheduler.capacity.root.a.maximum-capacity: maximum-capacity 50 is below capacity 100"), "{e}");
        assert!(e.contains("cs.xml:6: yarn.scheduler.capacity.root.a.state: `PAUSED` is not RUNNING or STOPPED"), "{e}");
        assert!(
            e.contains("cs.xml:7: yarn.scheduler.capacity.root.a.user-limit-factor"),
            "{e}"
        );
        let e = err(&[
            (Q, "a"),
            (
                "yarn.scheduler.capacity.root.a.capacity",
                "[memory=1024,vcores=1]",
            ),
        ]);
        assert!(
            e.contains("absolute resources such as [memory=..,vcores=..] are not supported"),
            "{e}"
        );
        let e = err(&[(Q, "a"), ("yarn.scheduler.capacity.root.a.capacity", "2w")]);
        assert!(e.contains("weights such as 2w are not supported"), "{e}");
        let e = err(&[
            (Q, "a.b"),
            ("yarn.scheduler.capacity.root.a.capacity", "100"),
        ]);
        assert!(e.contains("`a.b` is not a queue name"), "{e}");
        let e = err(&[("yarn.scheduler.capacity.root.a.capacity", "100")]);
        assert!(
            e.contains("yarn.scheduler.capacity.root.queues: missing"),
            "{e}"
        );
    }

    #[test]
    fn mappings_must_name_existing_leaves() {
        let base = [
            (Q, "a,b"),
            ("yarn.scheduler.capacity.root.a.capacity", "50"),
            ("yarn.scheduler.capacity.root.b.capacity", "50"),
        ];
        let with = |m: &str| {
            let mut v = base.to_vec();
            v.push(("yarn.scheduler.capacity.queue-mappings", m));
            err(&v)
        };
        let e = with("u:alice:nope");
        assert!(e.contains("cs.xml:6: yarn.scheduler.capacity.queue-mappings: `u:alice:nope`: queue `nope` does not exist"), "{e}");
        let e = with("u:alice:root");
        assert!(e.contains("is not a leaf queue"), "{e}");
        let e = with("alice=a");
        assert!(e.contains("is not a mapping such as u:alice:prod"), "{e}");
        let e = with("u:alice:%primary_group");
        assert!(e.contains("only %user is known"), "{e}");
    }

    #[test]
    fn xml_problems_are_errors_and_unknown_properties_warnings() {
        let e = parse("cs.xml", "<allocations/>").unwrap_err().to_string();
        assert!(e.contains("must be <configuration>"), "{e}");
        let e = parse("cs.xml", "<configuration>\n<property><name>x</name>").unwrap_err();
        assert!(e.to_string().contains("not well-formed XML"), "{e}");
        let e = parse(
            "cs.xml",
            "<configuration>\n<queue name=\"a\"/>\n</configuration>",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("cs.xml:2: queue: unknown element <queue>"),
            "{e}"
        );
        let c = parse(
            "cs.xml",
            &doc(&[
                (Q, "a"),
                ("yarn.scheduler.capacity.root.a.capacity", "100"),
                ("yarn.scheduler.capacity.root.a.capacty", "5"),
                ("yarn.scheduler.capacity.root.zz.capacity", "5"),
                (
                    "yarn.scheduler.capacity.root.a.acl_submit_applications",
                    "*",
                ),
                (
                    "yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill",
                    "1",
                ),
            ]),
        )
        .unwrap();
        let w = c.warnings.join("\n");
        assert!(
            w.contains("cs.xml:5: yarn.scheduler.capacity.root.a.capacty: unknown queue property"),
            "{w}"
        );
        assert!(
            w.contains(
                "cs.xml:6: yarn.scheduler.capacity.root.zz.capacity: queue `root.zz` is not listed"
            ),
            "{w}"
        );
        assert!(w.contains("preemption is not modelled"), "{w}");
        assert!(!w.contains("acl_submit_applications"), "{w}");
    }
}
