//! Scheduler configuration files and the policy registry.
//!
//! A scheduler is chosen with `--scheduler NAME` (a built-in preset such as
//! `fifo`) or `--scheduler FILE.toml`:
//!
//! ```toml
//! policy = "fifo"        # which policy
//! name = "my-fifo"       # optional label for reports
//! [fifo]                 # the policy's own options, if any
//! ```
//!
//! Each policy module exports a [`PolicyInfo`] (how to build it from its
//! options table) and its presets; the registry below lists them. Options
//! are parsed with the same located errors as every other input file.

use crate::policies;
use crate::scheduler::Scheduler;
use mrsched_model::{Cluster, Format, InputError, InputErrors, Source};
use serde::de::DeserializeOwned;

/// A parsed scheduler configuration.
#[derive(Clone, Debug)]
pub struct SchedulerConfig {
    /// Label for reports.
    pub label: String,
    /// Policy name.
    pub policy: String,
    /// The `[<policy>]` options table.
    pub options: toml::Table,
    /// Where it came from (for error locations).
    pub source: Source,
}

/// Builds a policy from its configuration.
pub type BuildFn = fn(&SchedulerConfig, &Cluster) -> Result<Box<dyn Scheduler>, InputErrors>;

/// A registered policy.
#[derive(Clone, Copy)]
pub struct PolicyInfo {
    /// Name used in `policy = "..."`.
    pub name: &'static str,
    /// One line for `mrsched list schedulers`.
    pub about: &'static str,
    /// Constructor.
    pub build: BuildFn,
}

/// A named, ready-made configuration.
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    /// Name used in `--scheduler NAME`.
    pub name: &'static str,
    /// One line for `mrsched list schedulers`.
    pub about: &'static str,
    /// The configuration, as TOML.
    pub toml: &'static str,
}

/// Every registered policy.
pub fn policies() -> Vec<PolicyInfo> {
    let mut v = vec![
        policies::fifo::info(),
        policies::fair::info(),
        policies::capacity::info(),
        policies::adaptive::info(),
        policies::edf::info(),
        policies::flex::info(),
        policies::msjo::info(),
    ];
    v.extend(policies::realtime::infos());
    v
}

/// Every preset.
pub fn presets() -> Vec<Preset> {
    let mut v = Vec::new();
    v.extend(policies::fifo::presets());
    v.extend(policies::fair::presets());
    v.extend(policies::capacity::presets());
    v.extend(policies::realtime::presets());
    v.extend(policies::adaptive::presets());
    v.extend(policies::edf::presets());
    v.extend(policies::flex::presets());
    v.extend(policies::msjo::presets());
    v
}

impl SchedulerConfig {
    /// Parse a configuration document.
    pub fn from_source(src: &Source) -> Result<SchedulerConfig, InputErrors> {
        let table: toml::Table = match src.format {
            Format::Toml => src.parse()?,
            Format::Json => {
                let v: serde_json::Value = src.parse()?;
                match toml::Value::try_from(v) {
                    Ok(toml::Value::Table(t)) => t,
                    _ => {
                        return Err(InputError::file(
                            &src.label,
                            "a scheduler configuration is an object without null values",
                        )
                        .into())
                    }
                }
            }
        };
        let policy = match table.get("policy") {
            Some(toml::Value::String(p)) => p.clone(),
            Some(_) => {
                return Err(src
                    .error("policy", "must be a string such as \"fifo\"")
                    .into())
            }
            None => {
                return Err(InputError::file(
                    &src.label,
                    format!(
                        "missing `policy = \"...\"` (one of: {})",
                        policy_names().join(", ")
                    ),
                )
                .into())
            }
        };
        if !policies().iter().any(|p| p.name == policy) {
            return Err(src
                .error(
                    "policy",
                    format!(
                        "unknown policy `{policy}` (known: {})",
                        policy_names().join(", ")
                    ),
                )
                .into());
        }
        let mut errs = InputErrors::new();
        for k in table.keys() {
            if k != "policy" && k != "name" && *k != policy {
                errs.push(src.error(
                    k.as_str(),
                    format!("unknown key; options of `{policy}` go in a [{policy}] table"),
                ));
            }
        }
        let label = match table.get("name") {
            Some(toml::Value::String(n)) => n.clone(),
            Some(_) => {
                errs.push(src.error("name", "must be a string"));
                String::new()
            }
            None => policy.clone(),
        };
        let options = match table.get(&policy) {
            Some(toml::Value::Table(t)) => t.clone(),
            Some(_) => {
                errs.push(src.error(policy.as_str(), "must be a table of options"));
                toml::Table::new()
            }
            None => toml::Table::new(),
        };
        errs.into_result(SchedulerConfig {
            label,
            policy,
            options,
            source: src.clone(),
        })
    }

    /// A preset by name.
    pub fn preset(name: &str) -> Option<SchedulerConfig> {
        let p = presets().into_iter().find(|p| p.name == name)?;
        let src = Source::new(format!("<preset {name}>"), p.toml, Format::Toml);
        let mut cfg = SchedulerConfig::from_source(&src).ok()?;
        cfg.label = name.to_string();
        Some(cfg)
    }

    /// A preset name or a configuration file path.
    pub fn resolve(arg: &str) -> Result<SchedulerConfig, InputErrors> {
        if let Some(c) = SchedulerConfig::preset(arg) {
            return Ok(c);
        }
        let path = std::path::Path::new(arg);
        if path.exists() {
            let is_xml = path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| e.eq_ignore_ascii_case("xml"));
            if is_xml {
                // A Hadoop `fair-scheduler.xml` runs the Fair Scheduler with
                // that allocation file; a `capacity-scheduler.xml` (a Hadoop
                // `<configuration>`) runs the Capacity Scheduler.
                let file = path
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let text = Source::read(path)?.text;
                let policy = if policies::capacity::conf::CapacityConf::looks_like(&text) {
                    "capacity"
                } else {
                    "fair"
                };
                let mut options = toml::Table::new();
                options.insert("allocation_file".into(), toml::Value::String(file));
                return Ok(SchedulerConfig {
                    label: policy.into(),
                    policy: policy.into(),
                    options,
                    source: Source::new(arg, "", Format::Toml),
                });
            }
            return SchedulerConfig::from_source(&Source::read(path)?);
        }
        Err(InputError::file(
            arg,
            format!(
                "not a scheduler preset or a file (presets: {})",
                presets()
                    .iter()
                    .map(|p| p.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
        .into())
    }

    /// Parse the options table into a policy's option struct. Errors point at
    /// the line and field (`[fair] delay_node_s`).
    pub fn options<T: DeserializeOwned>(&self) -> Result<T, InputErrors> {
        let v = toml::Value::Table(self.options.clone());
        serde_path_to_error::deserialize::<_, T>(v).map_err(|e| {
            let path = e.path().to_string();
            let field = if path == "." {
                self.policy.clone()
            } else {
                format!("{}.{}", self.policy, path)
            };
            let msg = e.into_inner().message().trim().to_string();
            InputErrors::from(self.source.error(field, msg))
        })
    }

    /// Build the scheduler.
    pub fn build(&self, cluster: &Cluster) -> Result<Box<dyn Scheduler>, InputErrors> {
        let p = policies()
            .into_iter()
            .find(|p| p.name == self.policy)
            .ok_or_else(|| InputErrors::from(self.source.error("policy", "unknown policy")))?;
        (p.build)(self, cluster)
    }
}

fn policy_names() -> Vec<&'static str> {
    policies().iter().map(|p| p.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_parse_and_build() {
        let c = Cluster::from_toml_str("c", "[[nodes]]\nmap_slots = 1\n").unwrap();
        for p in presets() {
            let cfg =
                SchedulerConfig::preset(p.name).unwrap_or_else(|| panic!("preset {}", p.name));
            cfg.build(&c)
                .unwrap_or_else(|e| panic!("preset {}: {e}", p.name));
        }
    }

    #[test]
    fn errors_are_located() {
        let src = Source::new("s.toml", "policy = \"fifo\"\nfoo = 1\n", Format::Toml);
        let e = SchedulerConfig::from_source(&src).unwrap_err();
        assert!(
            e.to_string().starts_with("s.toml:2: foo: unknown key"),
            "{e}"
        );
        let src = Source::new("s.toml", "policy = \"fiffo\"\n", Format::Toml);
        let e = SchedulerConfig::from_source(&src).unwrap_err();
        assert!(e.to_string().contains("unknown policy `fiffo`"), "{e}");
        let e = SchedulerConfig::resolve("no-such-thing").unwrap_err();
        assert!(e.to_string().contains("not a scheduler preset"), "{e}");
    }

    #[test]
    fn json_configs_are_accepted() {
        let src = Source::new("s.json", r#"{"policy": "fifo", "name": "x"}"#, Format::Json);
        let cfg = SchedulerConfig::from_source(&src).unwrap();
        assert_eq!(cfg.label, "x");
    }
}
