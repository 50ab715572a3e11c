//! Progress bars on stderr for long runs, live jobs (`submit --wait`) and
//! uploads (`dfs put`); hidden when stderr is not a terminal, so scripts
//! and JSON consumers see nothing and the output stays what it always was.

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use mrsched_model::Time;
use mrsched_sim::Progress;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// A bar from 0 to 1000 (per mille of jobs ended).
pub fn bar(label: &str) -> ProgressBar {
    let pb = ProgressBar::with_draw_target(Some(1000), ProgressDrawTarget::stderr());
    if !std::io::stderr().is_terminal() {
        pb.set_draw_target(ProgressDrawTarget::hidden());
    }
    pb.set_style(
        ProgressStyle::with_template("{prefix:>12} [{bar:40}] {percent:>3}% {elapsed}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    pb.set_prefix(label.to_string());
    pb
}

/// Simulated time without a job ending, while tasks run, after which a
/// run says so on stderr once ([`RunProgress::update`]).
const QUIET: Time = Time::from_secs(86_400);

/// The progress line of one simulation: jobs ended, simulated time and
/// events per second. Drawn only on a terminal, only when the output is not
/// JSON, and only once the run has taken a second
/// (`MRSCHED_PROGRESS_AFTER_MS` changes that delay), so short runs and
/// scripts see nothing.
///
/// A run whose tasks keep running while no job ends for a simulated day
/// (a policy keeping the cluster busy without finishing anything: see
/// "Runs that stop finishing jobs" in `docs/simulator.md`) gets one
/// warning on stderr, terminal or not: such a run looks like a hang, and
/// the stall check (no task ending for a week) never fires for it.
pub struct RunProgress {
    label: String,
    warned: bool,
    pb: ProgressBar,
    started: Instant,
    after: Duration,
    enabled: bool,
    shown: bool,
    /// Lines of runs going on at once (`compare`) share the terminal.
    group: Option<MultiProgress>,
}

impl RunProgress {
    /// A line labelled `label`; `enabled` is false for JSON output. Lines
    /// of runs going on at the same time pass one `group`.
    pub fn new(label: &str, enabled: bool, group: Option<&MultiProgress>) -> RunProgress {
        let pb = ProgressBar::with_draw_target(Some(1), ProgressDrawTarget::hidden());
        pb.set_style(
            ProgressStyle::with_template("{prefix} [{bar:20}] {pos}/{len} jobs {msg}")
                .expect("valid template")
                .progress_chars("=> "),
        );
        pb.set_prefix(label.to_string());
        let after = std::env::var("MRSCHED_PROGRESS_AFTER_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map_or(Duration::from_secs(1), Duration::from_millis);
        RunProgress {
            label: label.to_string(),
            warned: false,
            pb,
            started: Instant::now(),
            after,
            enabled: enabled && std::io::stderr().is_terminal(),
            shown: false,
            group: group.cloned(),
        }
    }

    /// Show where the run is.
    pub fn update(&mut self, p: &Progress) {
        if let Some(w) = self.quiet_warning(p) {
            if self.shown {
                self.pb.println(w);
            } else {
                eprintln!("{w}");
            }
        }
        if !self.enabled {
            return;
        }
        let elapsed = self.started.elapsed();
        if !self.shown && elapsed < self.after {
            return;
        }
        self.pb.set_length(p.jobs as u64);
        self.pb.set_position(p.jobs_ended as u64);
        let rate = p.events as f64 / elapsed.as_secs_f64().max(1e-9);
        self.pb
            .set_message(format!("sim {} {:.2}M events/s", clock(p.now), rate / 1e6));
        if !self.shown {
            match &self.group {
                Some(g) => self.pb = g.add(self.pb.clone()),
                None => self.pb.set_draw_target(ProgressDrawTarget::stderr()),
            }
            self.shown = true;
        }
    }

    /// The warning for a run whose tasks run on while no job has ended for
    /// [`QUIET`] (with jobs open all that time), the first time it is so.
    fn quiet_warning(&mut self, p: &Progress) -> Option<String> {
        let quiet = p.now.saturating_sub(p.quiet_since);
        if self.warned || p.jobs_ended >= p.jobs || p.running_attempts == 0 || quiet < QUIET {
            return None;
        }
        self.warned = true;
        let since = clock(p.quiet_since);
        Some(format!(
            "warning: {}: no job has ended for {:.0} simulated hours (since {since}; {} of {} jobs still to end, {} {} running); the run goes on. See \"Runs that stop finishing jobs\" in docs/simulator.md",
            self.label,
            quiet.as_secs_f64() / 3600.0,
            p.jobs - p.jobs_ended,
            p.jobs,
            p.running_attempts,
            if p.running_attempts == 1 { "task" } else { "tasks" }
        ))
    }

    /// Remove the line.
    pub fn finish(self) {
        self.pb.finish_and_clear();
    }
}

/// A draw target on stderr when it is a terminal, hidden otherwise.
fn stderr_target() -> ProgressDrawTarget {
    if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    }
}

/// The line of a live job `submit --wait` watches: maps and reduces done
/// out of their totals, and the time waited. Call [`job_update`] with each
/// state polled, then `finish_and_clear` before the final state is printed.
pub fn job_bar(id: u32) -> ProgressBar {
    // Nothing is drawn before the first state: the builders do not draw.
    ProgressBar::with_draw_target(Some(1), stderr_target())
        .with_style(
            ProgressStyle::with_template("{prefix} [{bar:25}] {msg}  {elapsed_precise}")
                .expect("valid template")
                .progress_chars("=> "),
        )
        .with_prefix(format!("job {id}"))
}

/// Show a polled job state on its line.
pub fn job_update(pb: &ProgressBar, j: &mrsched_runtime::proto::JobView) {
    // The counts first (each call may redraw; the line should never show a
    // bar without them), then the bar's length and position in one draw.
    pb.set_message(format!(
        "{}: maps {}/{}  reduces {}/{}",
        j.status, j.maps_done, j.maps, j.reduces_done, j.reduces
    ));
    pb.update(|s| {
        s.set_len(u64::from(j.maps) + u64::from(j.reduces));
        s.set_pos(u64::from(j.maps_done) + u64::from(j.reduces_done));
    });
}

/// The line of an upload (`dfs put`): bytes stored out of `total` (a
/// spinner when the size is not known, as for stdin) and the rate. Set the
/// position to the bytes stored.
pub fn bytes_bar(total: Option<u64>) -> ProgressBar {
    let (pb, template) = match total {
        Some(n) => (
            ProgressBar::with_draw_target(Some(n), stderr_target()),
            "sent [{bar:25}] {bytes}/{total_bytes}  {binary_bytes_per_sec}  {elapsed_precise}",
        ),
        None => (
            ProgressBar::with_draw_target(None, stderr_target()),
            "sent {spinner} {bytes}  {binary_bytes_per_sec}  {elapsed_precise}",
        ),
    };
    pb.set_style(
        ProgressStyle::with_template(template)
            .expect("valid template")
            .progress_chars("=> "),
    );
    // A block of 64 MB takes a while: keep the time and the spinner moving
    // between blocks (a ticker thread, only when the line is drawn).
    if !pb.is_hidden() {
        pb.enable_steady_tick(Duration::from_millis(250));
    }
    pb
}

/// Simulated time as `[Nd ]hh:mm:ss`.
fn clock(t: Time) -> String {
    let s = t.as_secs_f64() as u64;
    let (d, h, m, s) = (s / 86_400, s / 3600 % 24, s / 60 % 60, s % 60);
    if d > 0 {
        format!("{d}d {h:02}:{m:02}:{s:02}")
    } else {
        format!("{h:02}:{m:02}:{s:02}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simulated_clock() {
        assert_eq!(clock(Time::from_secs(0)), "00:00:00");
        assert_eq!(clock(Time::from_secs(3_723)), "01:02:03");
        assert_eq!(clock(Time::from_secs(2 * 86_400 + 59)), "2d 00:00:59");
    }

    #[test]
    fn a_day_without_a_job_ending_is_said_once() {
        let mut line = RunProgress::new("fair", false, None);
        let at = |now: u64, ended: usize, last: u64, running: usize| Progress {
            now: Time::from_secs(now),
            jobs_ended: ended,
            jobs: 10,
            events: 0,
            quiet_since: Time::from_secs(last),
            running_attempts: running,
        };
        let h = 3600;
        // Under a day, or nothing running (waiting for arrivals), or all
        // done: nothing to say.
        assert_eq!(line.quiet_warning(&at(23 * h, 0, 0, 5)), None);
        assert_eq!(line.quiet_warning(&at(30 * h, 0, 0, 0)), None);
        assert_eq!(line.quiet_warning(&at(30 * h, 10, 0, 5)), None);
        let w = line.quiet_warning(&at(25 * h, 0, 0, 5)).unwrap();
        assert!(
            w.starts_with("warning: fair: no job has ended for 25 simulated hours (since 00:00:00; 10 of 10 jobs still to end, 5 tasks running)"),
            "{w}"
        );
        // Once.
        assert_eq!(line.quiet_warning(&at(50 * h, 0, 0, 5)), None);
        let mut line = RunProgress::new("fifo", false, None);
        let last = 19 * h + 31 * 60 + 2;
        let w = line.quiet_warning(&at(last + 24 * h, 3, last, 7)).unwrap();
        assert!(
            w.contains("24 simulated hours (since 19:31:02; 7 of 10"),
            "{w}"
        );
    }
}
