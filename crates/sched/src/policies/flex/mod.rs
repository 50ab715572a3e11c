//! FLEX, CIRCUMFLEX and BATCH (seed 000; FLEX from prior-work.md §2).
//!
//! Why one family: CIRCUMFLEX *is* FLEX applied to the subjobs that cyclic
//! piggybacking creates, and the paper's BATCH baseline is FLEX applied to
//! batches. All three share one pipeline, and differ only in how remaining
//! scan work becomes subjobs ([`subjobs::Sharing`]):
//!
//! 1. **subjobs** ([`subjobs`], [`piggyback`]): per dataset, the scanning
//!    jobs and their per-block bits give atoms (blocks and the jobs that
//!    still need them); FLEX makes one subjob per job, CIRCUMFLEX one per
//!    set of needing jobs (the Venn partition, chains `(d,1) < (d,2) < ...`
//!    for single-dataset jobs), BATCH one per batch;
//! 2. **priority order** ([`order`]): Generalized Smith's Rule for minisum
//!    response time / stretch / lateness (B.1), Backwards Dynamic
//!    Programming for every minimax metric (B.2), candidate orders for the
//!    other minisum metrics;
//! 3. **packing** ([`packing`]): Ready List Malleable Packing with minima,
//!    maxima and precedence (B.3);
//! 4. **assignment** ([`scheduler`]): the first interval's allocations are
//!    slot targets honoured by deficit with delay scheduling; shared
//!    attempts carry riders.
//!
//! The same steps 1-3 also run in [`fluid`], the paper's own fluid model
//! that the `circumflex` reproduction drives exactly as Section 4 did.
//!
//! The metric menu is in [`metric`]; BATCH windows in [`batch`].

pub mod batch;
pub mod fluid;
pub mod metric;
pub mod order;
pub mod packing;
pub mod piggyback;
pub mod problem;
pub mod scheduler;
pub mod subjobs;

use crate::config::{PolicyInfo, Preset, SchedulerConfig};
use crate::delay::DelayMode;
use crate::scheduler::Scheduler;
use metric::{Metric, MetricKind, Objective, SlaStep};
use mrsched_model::{Cluster, InputErrors, Time};
use scheduler::{Flex, FlexSettings};
use serde::Deserialize;
use subjobs::Sharing;

fn default_sharing() -> Sharing {
    Sharing::None
}
fn default_metric() -> MetricKind {
    MetricKind::ResponseTime
}
fn default_objective() -> Objective {
    Objective::Sum
}
fn default_epoch() -> f64 {
    10.0
}
fn default_true() -> bool {
    true
}
fn default_window() -> f64 {
    120.0
}

/// The `[flex]` options table.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct FlexOptions {
    /// "none" (FLEX), "cyclic" (CIRCUMFLEX) or "batch" (BATCH).
    #[serde(default = "default_sharing")]
    sharing: Sharing,
    /// Metric kind.
    #[serde(default = "default_metric")]
    metric: MetricKind,
    /// "sum" or "max".
    #[serde(default = "default_objective")]
    objective: Objective,
    /// Weighted by job weights.
    #[serde(default)]
    weighted: bool,
    /// SLA steps `[[deadline multiple, penalty], ...]`.
    #[serde(default)]
    sla: Option<Vec<[f64; 2]>>,
    /// Epoch length, seconds (0: re-solve only on events).
    #[serde(default = "default_epoch")]
    epoch_s: f64,
    /// Re-solve at each arrival.
    #[serde(default = "default_true")]
    resolve_on_arrival: bool,
    /// Delay-scheduling waits `[node_to_rack_s, rack_to_any_s]`
    /// (default 1.5 heartbeat intervals each, the HFS default).
    #[serde(default)]
    locality_wait_s: Option<[f64; 2]>,
    /// BATCH window, seconds.
    #[serde(default = "default_window")]
    batch_window_s: f64,
    /// Minimum slots of jobs without `min_slots`.
    #[serde(default)]
    default_min_slots: u32,
}

fn build(cfg: &SchedulerConfig, cluster: &Cluster) -> Result<Box<dyn Scheduler>, InputErrors> {
    Ok(Box::new(Flex::new(settings(cfg, cluster)?)))
}

/// Parse and check a `[flex]` table into settings.
pub fn settings(cfg: &SchedulerConfig, cluster: &Cluster) -> Result<FlexSettings, InputErrors> {
    let o: FlexOptions = cfg.options()?;
    let mut errs = InputErrors::new();
    let field = |f: &str| format!("{}.{f}", cfg.policy);
    if !(o.epoch_s.is_finite() && o.epoch_s >= 0.0) {
        errs.push(cfg.source.error(
            field("epoch_s"),
            format!(
                "must be zero (no epochs) or a positive number of seconds, got {}",
                o.epoch_s
            ),
        ));
    }
    if !(o.batch_window_s.is_finite() && o.batch_window_s > 0.0) {
        errs.push(cfg.source.error(
            field("batch_window_s"),
            format!(
                "must be a positive number of seconds, got {}",
                o.batch_window_s
            ),
        ));
    }
    let hb = cluster.heartbeat.interval.as_secs_f64() * 1.5;
    let wait = o.locality_wait_s.unwrap_or([hb, hb]);
    if !wait.iter().all(|w| w.is_finite() && *w >= 0.0) {
        errs.push(cfg.source.error(
            field("locality_wait_s"),
            "waits must be zero or more seconds",
        ));
    }
    let mut sla = Vec::new();
    if let Some(steps) = &o.sla {
        if o.metric != MetricKind::Sla {
            errs.push(cfg.source.error(
                field("sla"),
                "SLA steps are only used with `metric = \"sla\"`",
            ));
        }
        if steps.is_empty() {
            errs.push(cfg.source.error(field("sla"), "give at least one step"));
        }
        for (i, s) in steps.iter().enumerate() {
            let ok = s[0].is_finite() && s[0] > 0.0 && s[1].is_finite() && s[1] >= 0.0;
            let increasing = i == 0 || (s[0] > steps[i - 1][0] && s[1] >= steps[i - 1][1]);
            if !ok || !increasing {
                errs.push(cfg.source.error(
                    field("sla"),
                    format!(
                        "step {i} is {s:?}; steps are [deadline multiple > 0, penalty >= 0] \
                         with increasing multiples and non-decreasing penalties"
                    ),
                ));
            }
            sla.push(SlaStep {
                after: s[0],
                penalty: s[1],
            });
        }
    }
    if sla.is_empty() {
        sla.push(SlaStep {
            after: 1.0,
            penalty: 1.0,
        });
    }
    let metric = Metric {
        kind: o.metric,
        objective: o.objective,
        weighted: o.weighted,
        sla,
    };
    let name = if cfg.label != cfg.policy {
        cfg.label.clone()
    } else {
        match o.sharing {
            Sharing::None => "flex".to_string(),
            Sharing::Cyclic => "circumflex".to_string(),
            Sharing::Batch => "batch".to_string(),
        }
    };
    let settings = FlexSettings {
        name,
        sharing: o.sharing,
        metric,
        epoch: (o.epoch_s > 0.0).then(|| Time::from_secs_f64(o.epoch_s)),
        resolve_on_arrival: o.resolve_on_arrival,
        delay: DelayMode::Wait {
            node: Time::from_secs_f64(wait[0].max(0.0)),
            rack: Time::from_secs_f64(wait[1].max(0.0)),
        },
        batch_window: Time::from_secs_f64(o.batch_window_s.max(1e-6)),
        default_min_slots: o.default_min_slots,
    };
    errs.into_result(settings)
}

/// Registry entry.
pub fn info() -> PolicyInfo {
    PolicyInfo {
        name: "flex",
        about: "FLEX metric optimiser; CIRCUMFLEX shared scans (sharing = \"cyclic\"); BATCH (sharing = \"batch\")",
        build,
    }
}

/// Presets.
pub fn presets() -> Vec<Preset> {
    vec![
        Preset {
            name: "flex",
            about: "FLEX: average response time (Smith's rule + malleable packing)",
            toml: "policy = \"flex\"\n",
        },
        Preset {
            name: "flex-max-stretch",
            about: "FLEX: maximum stretch (Lawler's rule + malleable packing)",
            toml: "policy = \"flex\"\n[flex]\nmetric = \"stretch\"\nobjective = \"max\"\n",
        },
        Preset {
            name: "circumflex",
            about: "CIRCUMFLEX: cyclic piggybacking shared scans, average response time",
            toml: "policy = \"flex\"\n[flex]\nsharing = \"cyclic\"\n",
        },
        Preset {
            name: "circumflex-stretch",
            about: "CIRCUMFLEX: average stretch",
            toml: "policy = \"flex\"\n[flex]\nsharing = \"cyclic\"\nmetric = \"stretch\"\n",
        },
        Preset {
            name: "circumflex-max-stretch",
            about: "CIRCUMFLEX: maximum stretch (also for semi-shared scans)",
            toml: "policy = \"flex\"\n[flex]\nsharing = \"cyclic\"\nmetric = \"stretch\"\nobjective = \"max\"\n",
        },
        Preset {
            name: "batch",
            about: "BATCH: shared scans batched every 2 minutes per dataset, FLEX on the batches",
            toml: "policy = \"flex\"\n[flex]\nsharing = \"batch\"\n",
        },
    ]
}

#[cfg(test)]
mod tests;
