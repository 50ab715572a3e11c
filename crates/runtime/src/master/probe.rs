//! The master's side of failure detection that touches the network:
//! probing the data server of a worker that missed its heartbeat, and
//! telling connection failures from error answers (workers use the same
//! test for their fetches). The decisions are in `core::liveness`.

use super::core::ProbeOutcome;
use super::{lock, Shared};
use std::sync::Arc;
use std::time::Duration;

/// Whether a failed request could not reach its server at all (refused,
/// unreachable, timed out), as opposed to an answer with an error status.
pub fn is_connect_error(e: &reqwest::Error) -> bool {
    e.is_connect() || e.is_timeout()
}

/// Whether the error chain of a failed request holds a refused connection.
pub fn is_refused(e: &reqwest::Error) -> bool {
    let mut src: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = src {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            if io.kind() == std::io::ErrorKind::ConnectionRefused {
                return true;
            }
        }
        src = s.source();
    }
    false
}

/// Probe `GET {addr}/health` of each worker in `probes` (at most
/// `timeout` each), feeding the outcomes back to the core.
pub(super) fn spawn(s: &Arc<Shared>, probes: Vec<(u32, String)>, timeout: Duration) {
    for (node, addr) in probes {
        let s = s.clone();
        tokio::spawn(async move {
            let r = s
                .client
                .get(format!("{addr}/health"))
                .timeout(timeout)
                .send()
                .await;
            let outcome = match r {
                Ok(_) => ProbeOutcome::Answered,
                Err(e) if is_refused(&e) => ProbeOutcome::Refused,
                Err(_) => ProbeOutcome::Unreachable,
            };
            lock(&s).probe_result(node, outcome);
        });
    }
}
