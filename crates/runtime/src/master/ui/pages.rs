//! The pages, as maud templates: every value is escaped by maud; the only
//! unescaped markup is the chart's SVG, which plotters writes (escaping
//! the pool names in it).

use super::chart;
use super::session::Session;
use crate::proto::{AttemptView, FileView, Health, JobView, PoolHistory, WorkerView};
use maud::{html, Markup, PreEscaped, DOCTYPE};
use mrsched_sched::PoolsView;

/// Whether a job meets its deadline or goal, as far as can be told now.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Ended within its target.
    Met,
    /// Ended after it, or is still running past it.
    Missed,
    /// Running; at its rate so far it ends within the target.
    OnTrack,
    /// Running; at its rate so far it ends after the target.
    AtRisk,
}

impl Verdict {
    fn text(self) -> &'static str {
        match self {
            Verdict::Met => "met",
            Verdict::Missed => "missed",
            Verdict::OnTrack => "on track",
            Verdict::AtRisk => "at risk",
        }
    }
}

/// A job's deadline (or, without one, its goal) in seconds after
/// submission, and the verdict at `now_s`. A running job is projected from
/// its rate so far: its tasks done per second since its first launch,
/// over all of its tasks (a job with nothing done yet is on track until
/// its target passes).
pub fn verdict(j: &JobView, now_s: f64) -> Option<(f64, Verdict)> {
    let target = j.deadline_s.or(j.goal_s)?;
    let due = j.submitted_s + target;
    let v = match j.finished_s {
        Some(end) if j.status == "succeeded" && end <= due + 1e-9 => Verdict::Met,
        Some(_) => Verdict::Missed,
        None if now_s > due => Verdict::Missed,
        None => {
            let total = (j.maps + j.reduces).max(1) as f64;
            let done = (j.maps_done + j.reduces_done) as f64;
            match j.started_s {
                Some(start) if done > 0.0 => {
                    let end = start + (now_s - start) * total / done;
                    if end <= due {
                        Verdict::OnTrack
                    } else {
                        Verdict::AtRisk
                    }
                }
                _ => Verdict::OnTrack,
            }
        }
    };
    Some((target, v))
}

fn secs(s: f64) -> String {
    if s < 60.0 {
        format!("{s:.1} s")
    } else if s < 3600.0 {
        format!("{}m{:02}s", (s / 60.0) as u64, (s % 60.0) as u64)
    } else {
        format!(
            "{}h{:02}m",
            (s / 3600.0) as u64,
            ((s % 3600.0) / 60.0) as u64
        )
    }
}

fn bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// The frame of every page: navigation, the signed-in user, `<main>`.
pub fn layout(title: &str, sess: &Session, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                // The session's form token, for scripts that post forms.
                meta name="csrf-token" content=(sess.csrf);
                title { (title) " · mrsched" }
                link rel="stylesheet" href="/ui/style.css";
                script src="/ui/app.js" defer {}
            }
            body {
                header {
                    span.brand { "mrsched" }
                    nav {
                        a href="/" { "Pools" }
                        a href="/jobs" { "Jobs" }
                        a href="/workers" { "Workers" }
                        a href="/blocks" { "Blocks" }
                    }
                    span.user {
                        (sess.user.name)
                        @if sess.user.admin { " (admin)" }
                        form method="post" action="/logout" {
                            button type="submit" { "Sign out" }
                        }
                    }
                }
                main data-refresh="2000" { (body) }
                footer { span #updated {} }
            }
        }
    }
}

/// The sign-in page.
pub fn login(error: Option<&str>) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                title { "Sign in · mrsched" }
                link rel="stylesheet" href="/ui/style.css";
            }
            body.login {
                h1 { "mrsched" }
                @if let Some(e) = error { p.error { (e) } }
                form method="post" action="/login" {
                    label for="token" { "API token" }
                    input #token type="password" name="token" autocomplete="current-password" required;
                    button type="submit" { "Sign in" }
                }
                p.hint { "The token of your users-file entry (the one in MRSCHED_TOKEN)." }
            }
        }
    }
}

/// An error in a page's body.
pub fn error(message: &str) -> Markup {
    html! { p.error { (message) } }
}

/// The pools page.
pub fn pools(p: &PoolsView, health: &Health, history: &PoolHistory, now_s: f64) -> Markup {
    let chart = chart::running_slots(history, now_s);
    html! {
        h1 { "Pools" }
        p.summary {
            "Scheduler " b { (p.scheduler) } " · workers " (health.workers) " of " (health.expected)
            " · running jobs " (p.pools.iter().map(|x| x.jobs).sum::<u32>())
        }
        table #pools {
            thead { tr {
                th { "pool" } th { "jobs" } th { "running maps" } th { "running reduces" }
                th { "pending maps" } th { "pending reduces" } th { "demand" } th { "min share" }
                th { "fair share" } th { "max share" } th { "weight" } th { "oldest wait" }
                th { "starved for" }
                th { "preempted" }
            } }
            tbody {
                @for x in &p.pools {
                    tr data-pool=(x.name) {
                        td { (x.name) } td.n { (x.jobs) } td.n { (x.running_maps) }
                        td.n { (x.running_reduces) } td.n { (x.pending_maps) }
                        td.n { (x.pending_reduces) } td.n { (format!("{:.0}", x.demand)) }
                        td.n { (format!("{:.1}", x.min_share)) }
                        td.n.fair { (format!("{:.1}", x.fair_share)) }
                        td.n { @match x.max_share { Some(m) => (format!("{m:.1}")), None => "-" } }
                        td.n { (x.weight) } td.n { (secs(x.oldest_wait_s)) }
                        td.n { (secs(x.starved_s)) } td.n { (x.preemptions) }
                    }
                }
            }
        }
        @if p.pools.is_empty() { p.empty { "No pool has work or a configured share." } }
        h2 { "Running slots, last hour" }
        figure.chart {
            @match chart {
                Ok(svg) => (PreEscaped(svg)),
                Err(e) => p.error { "chart: " (e) },
            }
        }
        @if !p.stats.is_empty() {
            h2 { "Scheduler" }
            table.stats { tbody {
                @for (k, v) in &p.stats { tr { th { (k) } td.n { (v) } } }
            } }
        }
    }
}

fn job_group(j: &JobView) -> usize {
    match j.status.as_str() {
        "running" if j.started_s.is_some() => 0,
        "running" | "submitted" => 1,
        "rejected" => 2,
        _ => 3,
    }
}

/// The jobs page: running, waiting, rejected and finished jobs.
pub fn jobs(all: &[JobView], now_s: f64) -> Markup {
    const GROUPS: [(&str, &str); 4] = [
        ("running", "Running"),
        ("waiting", "Waiting"),
        ("rejected", "Rejected"),
        ("finished", "Finished"),
    ];
    html! {
        h1 { "Jobs" }
        @for (g, (id, title)) in GROUPS.iter().enumerate() {
            @let rows: Vec<&JobView> = all.iter().rev().filter(|j| job_group(j) == g).collect();
            section #(id) {
                h2 { (title) " (" (rows.len()) ")" }
                @if rows.is_empty() { p.empty { "None." } } @else {
                    table.jobs {
                        thead { tr {
                            th { "id" } th { "name" } th { "user" } th { "pool" } th { "status" }
                            th { "maps" } th { "reduces" } th { "locality node/rack/off" }
                            th { "start" } th { "elapsed" } th { "deadline or goal" }
                            @if g == 2 { th { "reason" } }
                        } }
                        tbody { @for j in rows { (job_row(j, now_s, g == 2)) } }
                    }
                }
            }
        }
    }
}

fn job_row(j: &JobView, now_s: f64, reason: bool) -> Markup {
    let end = j.finished_s.unwrap_or(now_s);
    html! {
        tr data-job=(j.id) {
            td { a href={ "/jobs/" (j.id) } { (j.id) } }
            td.name { (j.name) } td { (j.user) } td { (j.pool) } td.status { (j.status) }
            td.n.maps { (j.maps_done) "/" (j.maps) }
            td.n.reduces { (j.reduces_done) "/" (j.reduces) }
            td.n { (j.locality[0]) "/" (j.locality[1]) "/" (j.locality[2]) }
            td.n { @match j.started_s { Some(s) => (secs(s)), None => "-" } }
            td.n { (secs(end - j.submitted_s)) }
            td { (target(j, now_s)) }
            @if reason { td.reason { (j.reason.as_deref().unwrap_or("")) } }
        }
    }
}

fn target(j: &JobView, now_s: f64) -> Markup {
    match verdict(j, now_s) {
        Some((t, v)) => html! {
            (secs(t)) " "
            span class={ "verdict " (v.text().replace(' ', "-")) } { (v.text()) }
        },
        None => html! { "-" },
    }
}

/// A job's page: its numbers, its attempts and (for its owner or an admin,
/// while it runs) the kill button.
pub fn job(j: &JobView, attempts: &[AttemptView], sess: &Session, now_s: f64) -> Markup {
    let may_kill = (sess.user.admin || sess.user.name == j.user)
        && matches!(j.status.as_str(), "running" | "submitted");
    html! {
        h1 { "Job " (j.id) ": " span.name { (j.name) } }
        dl.job {
            dt { "status" } dd #status { (j.status) }
            @if let Some(r) = &j.reason { dt { "reason" } dd { (r) } }
            dt { "user" } dd { (j.user) }
            dt { "pool" } dd { (j.pool) }
            dt { "program" } dd { (j.program) }
            dt { "maps" } dd #maps { (j.maps_done) "/" (j.maps) " done, " (j.maps_running) " running" }
            dt { "reduces" } dd #reduces { (j.reduces_done) "/" (j.reduces) " done, " (j.reduces_running) " running" }
            dt { "locality (node/rack/off-rack)" } dd { (j.locality[0]) "/" (j.locality[1]) "/" (j.locality[2]) }
            dt { "submitted" } dd { (secs(j.submitted_s)) }
            dt { "elapsed" } dd { (secs(j.finished_s.unwrap_or(now_s) - j.submitted_s)) }
            dt { "deadline or goal" } dd { (target(j, now_s)) }
            dt { "output" } dd { (j.output) }
        }
        @if may_kill {
            form.kill method="post" action={ "/jobs/" (j.id) "/kill" } {
                input type="hidden" name="csrf" value=(sess.csrf);
                button #kill type="submit" { "Kill job" }
            }
        }
        h2 { "Attempts (" (attempts.len()) ")" }
        table.attempts {
            thead { tr {
                th { "attempt" } th { "task" } th { "node" } th { "locality" } th { "state" }
                th { "start" } th { "time" }
            } }
            tbody {
                @for a in attempts {
                    tr {
                        td.n { (a.id) } td { (a.kind) " " (a.task) } td { (a.node) }
                        td { (a.locality) } td { (a.state) } td.n { (secs(a.start_s)) }
                        td.n { (secs(a.end_s.unwrap_or(now_s) - a.start_s)) }
                    }
                }
            }
        }
    }
}

/// The workers page.
pub fn workers(ws: &[WorkerView]) -> Markup {
    let alive = ws.iter().filter(|w| w.alive).count();
    html! {
        h1 { "Workers" }
        p.summary { (alive) " alive, " (ws.len() - alive) " lost" }
        table #workers {
            thead { tr {
                th { "worker" } th { "rack" } th { "state" } th { "map slots" }
                th { "reduce slots" } th { "blocks" } th { "last heartbeat" }
            } }
            tbody {
                @for w in ws {
                    tr data-worker=(w.name) {
                        td { (w.name) } td { (w.rack) }
                        td class=(if w.alive { "alive" } else { "lost" }) {
                            (if w.alive { "alive" } else { "lost" })
                        }
                        td.n { (w.maps[0]) "/" (w.maps[1]) }
                        td.n { (w.reduces[0]) "/" (w.reduces[1]) }
                        td.n { (w.blocks) }
                        td.n { (secs(w.heartbeat_age_s)) " ago" }
                    }
                }
            }
        }
    }
}

/// The blocks page: files, their blocks and live replicas; a block is
/// under-replicated when it has fewer live replicas than its file's
/// replication (re-replication is bringing it back).
pub fn blocks(files: &[FileView], alive: &[String]) -> Markup {
    let lost = |reps: &[String]| reps.iter().filter(|r| !alive.contains(r)).count();
    let under: usize = files.iter().map(|f| f.under_replicated()).sum();
    let total: usize = files.iter().map(|f| f.blocks.len()).sum();
    html! {
        h1 { "Blocks" }
        p.summary {
            (files.len()) " files, " (total) " blocks, "
            span #under { (under) } " under-replicated"
        }
        table #files {
            thead { tr {
                th { "file" } th { "size" } th { "blocks" } th { "replicas per block" }
                th { "under-replicated" }
            } }
            tbody {
                @for f in files {
                    @let reps: Vec<usize> = f.blocks.iter().map(|b| b.2.len() - lost(&b.2)).collect();
                    tr {
                        td { (f.name) } td.n { (bytes(f.bytes)) } td.n { (f.blocks.len()) }
                        td {
                            @for (i, b) in f.blocks.iter().enumerate() {
                                span.block title=(b.2.join(", ")) { (reps[i]) }
                                " "
                            }
                        }
                        td.n { (f.under_replicated()) }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(status: &str, deadline: Option<f64>) -> JobView {
        JobView {
            id: 1,
            name: "j".into(),
            user: "u".into(),
            pool: "p".into(),
            program: "wordcount".into(),
            status: status.into(),
            reason: None,
            maps_done: 5,
            maps: 10,
            maps_running: 2,
            reduces_done: 0,
            reduces: 0,
            reduces_running: 0,
            submitted_s: 100.0,
            finished_s: None,
            output: "o".into(),
            locality: [0; 3],
            reads: [0; 2],
            started_s: Some(110.0),
            deadline_s: deadline,
            goal_s: None,
        }
    }

    #[test]
    fn verdicts_follow_the_rate_so_far() {
        assert_eq!(verdict(&job("running", None), 120.0), None);
        // Half done 10 s after its start: ends at 130, due at 140.
        assert_eq!(
            verdict(&job("running", Some(40.0)), 120.0),
            Some((40.0, Verdict::OnTrack))
        );
        // Due at 125: at risk.
        assert_eq!(
            verdict(&job("running", Some(25.0)), 120.0).unwrap().1,
            Verdict::AtRisk
        );
        // Past due while running: missed.
        assert_eq!(
            verdict(&job("running", Some(15.0)), 120.0).unwrap().1,
            Verdict::Missed
        );
        let mut done = job("succeeded", Some(40.0));
        done.finished_s = Some(140.0);
        assert_eq!(verdict(&done, 500.0).unwrap().1, Verdict::Met);
        done.finished_s = Some(140.5);
        assert_eq!(verdict(&done, 500.0).unwrap().1, Verdict::Missed);
        let mut killed = job("killed", Some(40.0));
        killed.finished_s = Some(120.0);
        assert_eq!(verdict(&killed, 500.0).unwrap().1, Verdict::Missed);
        // The goal counts when there is no deadline.
        let mut g = job("running", None);
        g.goal_s = Some(40.0);
        assert_eq!(verdict(&g, 120.0).unwrap().1, Verdict::OnTrack);
    }

    #[test]
    fn names_are_escaped() {
        let mut j = job("running", None);
        j.name = "<script>alert(1)</script>".into();
        let page = jobs(&[j], 120.0).into_string();
        assert!(!page.contains("<script>"), "{page}");
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    }

    #[test]
    fn durations_read_well() {
        assert_eq!(secs(3.25), "3.2 s");
        assert_eq!(secs(75.0), "1m15s");
        assert_eq!(secs(7260.0), "2h01m");
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(3 * 1024 * 1024), "3.0 MiB");
    }
}
