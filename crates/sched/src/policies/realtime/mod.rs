//! Real-time scheduling with hard deadlines (seed 004, He, Lu and Swanson):
//! RTMR and its baseline, the Deadline Constraint scheduler.
//!
//! Why this family looks the way it does: a job J = (A, D, M, R, sigma)
//! either gets a guarantee on arrival or is refused, and a guarantee is
//! only worth something if the scheduler can later keep it. RTMR therefore
//! splits into three parts that share one priority queue:
//!
//! * the **admission controller** ([`queue`], Algorithms I-III) keeps, for
//!   every admitted job, the estimated available times of all map and
//!   reduce slots after that job and its predecessors ran ([`vectors`]);
//!   a new job is placed after its predecessor's vectors, every successor is
//!   re-checked, and the job is refused if anyone would be late. Task times
//!   are worst-case estimates learned from finished jobs ([`estimate`]);
//! * the **dispatcher** ([`dispatch`], Algorithm IV) serves maps in queue
//!   order and reduces with a reservation, so that a lower-priority job's
//!   reduce never takes a slot a higher-priority job in its map stage was
//!   promised; started jobs are never preempted;
//! * the **feedback controller** (Algorithms V-VI) rebuilds a finished
//!   job's vectors from its actual task ends when the estimate was off by
//!   more than epsilon, so that pessimistic estimates do not keep refusing
//!   jobs.
//!
//! RTMR assumes a job's reduces start only after all its maps; both
//! policies enforce it in their dispatchers (whatever the cluster's reduce
//! slow-start), and the experiments also set the slow-start to 1.0.
//!
//! [`deadline_constraint`] is Kc and Anyanwu's scheduler as seed 004 §III
//! describes it: latest reduce start, minimum map slots, two rejection tests
//! at single instants, minimum parallelism. Rejections go back as
//! `Admission::Reject(reason)`.
//!
//! Choices where the paper is silent are commented at the code and listed
//! in `docs/policies/realtime.md`.

pub mod deadline_constraint;
pub mod dispatch;
pub mod estimate;
pub mod job;
pub mod queue;
pub mod rtmr;
pub mod vectors;

use crate::config::{PolicyInfo, Preset, SchedulerConfig};
use mrsched_model::{Cluster, InputErrors, Time};

pub use deadline_constraint::DeadlineConstraint;
pub use rtmr::Rtmr;

fn yes() -> bool {
    true
}

/// Defaults of the learned parameters' priors (no history). The paper
/// learns delta, c_m^max and c_r^max from history and does not say where
/// they start; give measured values (`initial_*` options) when you have
/// them.
pub struct Priors;

impl Priors {
    /// delta prior: map output as large as the input.
    pub fn default_delta() -> f64 {
        1.0
    }
    /// c_m^max and c_r^max prior, seconds per MB (32 s for a 128 MB
    /// block).
    pub fn default_s_per_mb() -> f64 {
        0.25
    }
}

/// Check non-negative, finite numeric options; errors name
/// `<policy>.<field>` at its line.
pub(crate) fn check_priors(
    cfg: &SchedulerConfig,
    errs: &mut InputErrors,
    fields: &[(&str, Option<f64>)],
) {
    for (name, v) in fields {
        if let Some(v) = v {
            if !(v.is_finite() && *v >= 0.0) {
                errs.push(cfg.source.error(
                    format!("{}.{name}", cfg.policy),
                    format!("must be a finite number >= 0, got {v}"),
                ));
            }
        }
    }
}

/// The heartbeat wait a task may see at the start of a stage: the cluster's
/// heartbeat interval plus its jitter (the dispatcher hands out work only on
/// heartbeats; tasks that follow a finished task go out at once on the
/// out-of-band heartbeat).
pub fn default_slack(cluster: &Cluster) -> Time {
    cluster.heartbeat.interval + cluster.heartbeat.jitter
}

/// Registry entries: `rtmr` and `deadline-constraint`.
pub fn infos() -> Vec<PolicyInfo> {
    vec![
        PolicyInfo {
            name: "rtmr",
            about: "RTMR (seed 004): deadline admission control, EDF queue, reservation dispatcher, feedback",
            build: rtmr::build,
        },
        PolicyInfo {
            name: "deadline-constraint",
            about: "Kc and Anyanwu's Deadline Constraint scheduler (seed 004 §III baseline)",
            build: deadline_constraint::build,
        },
    ]
}

/// Presets.
pub fn presets() -> Vec<Preset> {
    vec![
        Preset {
            name: "rtmr",
            about: "RTMR: EDF queue, feedback on, safe (>=) reduce reservation",
            toml: "policy = \"rtmr\"\n",
        },
        Preset {
            name: "rtmr-no-feedback",
            about: "RTMR without the feedback controller (seed 004 Tables V-VI)",
            toml: "policy = \"rtmr\"\n[rtmr]\nfeedback = false\n",
        },
        Preset {
            name: "rtmr-fifo-order",
            about: "RTMR's admission control over a FIFO queue instead of EDF",
            toml: "policy = \"rtmr\"\n[rtmr]\norder = \"fifo\"\n",
        },
        Preset {
            name: "rtmr-gt",
            about: "RTMR with the reservation test as printed in the seed (>)",
            toml: "policy = \"rtmr\"\n[rtmr]\nreservation_test = \">\"\n",
        },
        Preset {
            name: "deadline-constraint",
            about: "Kc and Anyanwu's Deadline Constraint scheduler, EDF order",
            toml: "policy = \"deadline-constraint\"\n",
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use mrsched_model::{Format, Source};

    fn build(text: &str) -> Result<(), String> {
        let c =
            Cluster::from_toml_str("c", "[[nodes]]\nmap_slots = 2\nreduce_slots = 1\n").unwrap();
        let cfg = SchedulerConfig::from_source(&Source::new("s.toml", text, Format::Toml))
            .map_err(|e| e.to_string())?;
        cfg.build(&c).map(|_| ()).map_err(|e| e.to_string())
    }

    #[test]
    fn options_are_checked_with_locations() {
        assert!(
            build("policy = \"rtmr\"\n[rtmr]\nreservation_test = \">\"\norder = \"fifo\"\n")
                .is_ok()
        );
        let e = build("policy = \"rtmr\"\n[rtmr]\nreservation_test = \">>\"\n").unwrap_err();
        assert!(
            e.contains("s.toml:3") && e.contains("rtmr.reservation_test"),
            "{e}"
        );
        let e = build("policy = \"rtmr\"\n[rtmr]\n\ninitial_delta = -1\n").unwrap_err();
        assert!(
            e.contains("s.toml:4") && e.contains("rtmr.initial_delta"),
            "{e}"
        );
        let e = build("policy = \"deadline-constraint\"\n[deadline-constraint]\nfeedback = true\n")
            .unwrap_err();
        assert!(e.contains("unknown field"), "{e}");
    }
}
