//! Failure detection: when a worker is *suspected* and when it is
//! *declared lost*.
//!
//! Waiting out a long silence makes every crash cost that long: with a
//! 30 s timeout a job that lost a worker two seconds in spent most of its
//! time waiting. Silence alone is a weak signal (a paused or overloaded
//! worker is silent too), so it is combined with a strong one: a refused
//! connection, which means nothing listens on the worker's port any more.
//!
//! * A worker is **suspected** once it has missed a heartbeat (silent for
//!   1.5 intervals), or while reducers' recent connection failures to it
//!   stand, or once the master's probe of its data server was refused. A
//!   suspected worker gets no new launches; a suspicion is only that: it
//!   ends with the next heartbeat (silence) or when the failures age out
//!   (one worker timeout).
//! * The master **probes** a worker's data server (`GET /health`) once its
//!   heartbeat is late (1.1 intervals) and at once when a reducer could
//!   not connect to it.
//! * It is **declared lost** when it has been silent for the worker
//!   timeout (`--lost-after-missed` heartbeats, or `--worker-timeout-ms`),
//!   or at once when its heartbeat is late and the probe was refused, or
//!   when it has missed a heartbeat and [`CONNECT_FAILURES_TO_CONVICT`]
//!   distinct reducers (or the master's probe, timing out) could not
//!   connect to it.
//!
//! Time the master itself was not watching (its ticker stalled, e.g. the
//! process was descheduled) is not counted as workers' silence.
//!
//! The clock is `Instant::now()` plus a skew that tests advance, so
//! detection is tested without sleeping.

use super::*;

/// Distinct reducers (the master's timed-out probe counts as one) that must
/// have failed to connect to a worker that also missed a heartbeat before
/// it is declared lost without waiting for the timeout.
pub const CONNECT_FAILURES_TO_CONVICT: usize = 2;

/// A gap between two ticks longer than this is the master's stall, not
/// the workers' silence (the ticker runs every 20 ms).
const STALL: Duration = Duration::from_millis(250);

/// The reporter name of the master's own probe.
const PROBE: &str = "master probe";

/// What the master's probe of a worker's data server found.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ProbeOutcome {
    /// It answered: the process is there.
    Answered,
    /// The connection was refused: nothing listens on its port.
    Refused,
    /// No answer in time, or another connection error.
    Unreachable,
}

/// Per-worker detection state.
#[derive(Clone, Debug, Default)]
struct Health {
    /// Reducers (attempt keys) whose fetches could not connect, and when.
    connect_failures: BTreeMap<String, Instant>,
    /// A probe is in flight (sent then).
    probing: Option<Instant>,
    /// The last probe ended then.
    probed: Option<Instant>,
    /// The last probe was refused (cleared by a heartbeat).
    refused: bool,
    /// Why it was declared lost (until it registers again).
    lost_reason: Option<String>,
}

/// The master's failure detector.
#[derive(Debug, Default)]
pub struct Liveness {
    skew: Duration,
    last_tick: Option<Instant>,
    nodes: Vec<Health>,
}

impl Liveness {
    fn node(&mut self, n: usize) -> &mut Health {
        if self.nodes.len() <= n {
            self.nodes.resize(n + 1, Health::default());
        }
        &mut self.nodes[n]
    }

    fn get(&self, n: usize) -> Option<&Health> {
        self.nodes.get(n)
    }
}

impl Core {
    /// The failure detector's clock.
    pub fn clock(&self) -> Instant {
        Instant::now() + self.live.skew
    }

    /// Move the failure detector's clock forward (tests).
    pub fn skew_clock(&mut self, by: Duration) {
        self.live.skew += by;
    }

    /// Silence after which a worker has missed a heartbeat.
    fn missed_after(&self) -> Duration {
        self.b.settings.heartbeat * 3 / 2
    }

    /// Silence after which a worker's heartbeat is late: its data server
    /// is probed, and a refused probe convicts it. A probe costs one
    /// request, so it goes out early; the verdict needs the refusal.
    fn probe_after(&self) -> Duration {
        self.b.settings.heartbeat * 11 / 10
    }

    fn silence(&self, n: usize, at: Instant) -> Duration {
        self.b
            .nodes
            .get(n)
            .map(|x| at.saturating_duration_since(x.last_seen))
            .unwrap_or_default()
    }

    fn recent_failures(&self, n: usize, at: Instant) -> usize {
        let window = self.b.settings.worker_timeout;
        self.live.get(n).map_or(0, |h| {
            h.connect_failures
                .values()
                .filter(|t| at.saturating_duration_since(**t) <= window)
                .count()
        })
    }

    /// Whether worker `n` is suspected now (see the module comment).
    pub fn is_suspected(&self, n: u32) -> bool {
        let n = n as usize;
        let alive = self
            .formed
            .as_ref()
            .is_some_and(|f| n < self.b.nodes.len() && f.st.slots(NodeId(n as u32)).alive);
        if !alive {
            return false;
        }
        let at = self.clock();
        self.silence(n, at) > self.missed_after()
            || self.recent_failures(n, at) > 0
            || self.live.get(n).is_some_and(|h| h.refused)
    }

    /// Why worker `n` was declared lost, while it is.
    pub fn lost_reason(&self, n: u32) -> Option<String> {
        self.live
            .get(n as usize)
            .and_then(|h| h.lost_reason.clone())
    }

    /// A heartbeat came from `n`.
    pub(super) fn heard_from(&mut self, n: usize) {
        let h = self.live.node(n);
        h.refused = false;
    }

    /// `n` registered again: it starts with a clean record.
    pub(super) fn forget_health(&mut self, n: usize) {
        *self.live.node(n) = Health::default();
    }

    /// A reducer (attempt `reducer`) could not connect to worker `source`.
    pub(super) fn connect_failed(&mut self, source: u32, reducer: String) {
        let at = self.clock();
        self.live
            .node(source as usize)
            .connect_failures
            .insert(reducer, at);
    }

    /// Workers whose data server the master should probe now: alive, late
    /// with their heartbeat or with a reducer's failed connection since
    /// the last probe, no probe in flight, none in the last interval (a
    /// reducer's failure is probed at once). They are marked as being
    /// probed.
    pub fn take_probes(&mut self) -> Vec<(u32, String)> {
        let Some(f) = self.formed.as_ref() else {
            return Vec::new();
        };
        let at = self.clock();
        let hb = self.b.settings.heartbeat;
        let mut out = Vec::new();
        for (i, n) in self.b.nodes.iter().enumerate() {
            if !f.st.slots(NodeId(i as u32)).alive || n.addr.is_empty() {
                continue;
            }
            let late =
                at.saturating_duration_since(n.last_seen) > self.b.settings.heartbeat * 11 / 10;
            let h = self.live.node(i);
            let failed_since_probe = h
                .connect_failures
                .iter()
                .any(|(who, t)| who != PROBE && h.probed.is_none_or(|p| *t > p));
            if !late && !failed_since_probe {
                continue;
            }
            // A probe that never came back is given up after 10 intervals.
            let in_flight = h
                .probing
                .is_some_and(|t| at.saturating_duration_since(t) < hb * 10);
            let recent = !failed_since_probe
                && h.probed
                    .is_some_and(|t| at.saturating_duration_since(t) < hb);
            if in_flight || recent {
                continue;
            }
            h.probing = Some(at);
            out.push((i as u32, n.addr.clone()));
        }
        out
    }

    /// The master's probe of worker `n` ended.
    pub fn probe_result(&mut self, n: u32, outcome: ProbeOutcome) {
        let at = self.clock();
        let h = self.live.node(n as usize);
        h.probing = None;
        h.probed = Some(at);
        match outcome {
            ProbeOutcome::Answered => {
                h.refused = false;
                h.connect_failures.remove(PROBE);
            }
            ProbeOutcome::Refused => h.refused = true,
            ProbeOutcome::Unreachable => {
                h.connect_failures.insert(PROBE.into(), at);
            }
        }
    }

    /// The workers to declare lost at `at`, with the reason; forgives the
    /// master's own stalls first.
    pub(super) fn detect_lost(&mut self, at: Instant) -> Vec<(usize, String)> {
        if let Some(prev) = self.live.last_tick {
            let gap = at.saturating_duration_since(prev);
            if gap > STALL {
                for n in &mut self.b.nodes {
                    n.last_seen = (n.last_seen + gap).min(at);
                }
            }
        }
        self.live.last_tick = Some(at);
        let Some(f) = self.formed.as_ref() else {
            return Vec::new();
        };
        let timeout = self.b.settings.worker_timeout;
        let mut lost = Vec::new();
        for i in 0..self.b.nodes.len() {
            if !f.st.slots(NodeId(i as u32)).alive {
                continue;
            }
            let silent = self.silence(i, at);
            let why = if silent > timeout {
                Some(format!("no heartbeat for {:.1} s", silent.as_secs_f64()))
            } else if silent > self.probe_after() && self.live.get(i).is_some_and(|h| h.refused) {
                Some(format!(
                    "no heartbeat for {:.1} s and its data server refused connections",
                    silent.as_secs_f64()
                ))
            } else if silent > self.missed_after() {
                let failures = self.recent_failures(i, at);
                if failures >= CONNECT_FAILURES_TO_CONVICT {
                    Some(format!(
                        "no heartbeat for {:.1} s and {failures} fetches could not connect to it",
                        silent.as_secs_f64()
                    ))
                } else {
                    None
                }
            } else {
                None
            };
            if let Some(why) = why {
                lost.push((i, why));
            }
        }
        for (i, why) in &lost {
            let h = self.live.node(*i);
            *h = Health {
                lost_reason: Some(why.clone()),
                ..Health::default()
            };
        }
        lost
    }
}
