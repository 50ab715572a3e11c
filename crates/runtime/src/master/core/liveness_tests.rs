//! The failure detector on a master without networking, with a fake clock:
//! fake workers heartbeat (or do not) while the clock is moved in small
//! steps, each followed by a tick.

use super::fixtures::{self, alice, map_done, reg};
use super::*;

const HB: Duration = Duration::from_millis(100);

fn settings() -> MasterSettings {
    MasterSettings {
        heartbeat: HB,
        // Three missed heartbeats.
        worker_timeout: HB * 3,
        max_attempts: 4,
        ..fixtures::settings()
    }
}

struct Fake {
    node: u32,
    session: u64,
    reports: Vec<Report>,
}

impl Fake {
    fn beat(&mut self, c: &mut Core) -> HeartbeatReply {
        c.heartbeat(Heartbeat {
            node: self.node,
            session: self.session,
            reports: std::mem::take(&mut self.reports),
        })
        .unwrap()
    }
}

/// A formed two-worker master (`a` = node 0, `b` = node 1) holding a
/// three-block file `in`.
fn cluster(dir: &tempfile::TempDir) -> (Core, Vec<Fake>) {
    let mut c = Core::open(
        Journal::open(&dir.path().join("j.redb")).unwrap(),
        settings(),
        None,
    )
    .unwrap();
    let w: Vec<Fake> = ["a", "b"]
        .iter()
        .map(|n| {
            let r = c.register(reg(n)).unwrap();
            Fake {
                node: r.node,
                session: r.session,
                reports: Vec::new(),
            }
        })
        .collect();
    let mut blocks = Vec::new();
    for _ in 0..3 {
        let (id, targets) = c.new_block(2).unwrap();
        blocks.push(BlockMeta {
            id,
            bytes: 10,
            replicas: targets.iter().map(|t| t.0).collect(),
        });
    }
    c.commit_file(&alice(), "in", blocks).unwrap();
    (c, w)
}

fn submit(c: &mut Core) -> u32 {
    let text = "input = \"in\"\noutput = \"out\"\nreduces = 1\n[program]\nkind = \"wordcount\"\n";
    c.submit(&alice(), "wc.toml", text, false).unwrap().id
}

/// Move the fake clock by `ms` in ticks of at most 50 ms (shorter than a
/// master stall), letting the workers in `beating` heartbeat every
/// `every_ms`.
fn run(c: &mut Core, w: &mut [Fake], beating: &[usize], every_ms: u64, ms: u64) {
    let mut since = 0;
    let mut t = 0;
    while t < ms {
        let d = 10.min(ms - t);
        c.skew_clock(Duration::from_millis(d));
        t += d;
        since += d;
        if since >= every_ms {
            since = 0;
            for &k in beating {
                let r = w[k].beat(c);
                assert!(!r.reregister, "worker {k} was declared lost");
            }
        }
        c.tick().unwrap();
    }
}

#[test]
fn a_fetch_that_cannot_connect_suspects_the_source_and_it_gets_no_launches() {
    let dir = tempfile::tempdir().unwrap();
    let (mut c, mut w) = cluster(&dir);
    let job = submit(&mut c);
    // a runs two maps, b one; all finish, and one of them gets the reduce.
    let la = w[0].beat(&mut c).launches;
    let lb = w[1].beat(&mut c).launches;
    assert_eq!((la.len(), lb.len()), (2, 1));
    let mut maps = Vec::new();
    for (k, ls) in [(0, la), (1, lb)] {
        for l in ls {
            maps.push((k, l.jobs[0].task, l.key.clone()));
            w[k].reports.push(map_done(l.key));
        }
    }
    let mut reduce = None;
    for k in [0, 1, 0, 1] {
        for l in w[k].beat(&mut c).launches {
            assert!(l.reduce.is_some());
            reduce = Some((k, l.key));
        }
    }
    let (r, rkey) = reduce.expect("the reduce was launched");
    let s = 1 - r;
    let (_, map, key) = maps.iter().find(|m| m.0 == s).cloned().unwrap();
    assert!(!c.is_suspected(s as u32));
    // The reducer cannot connect to the other worker for its map output.
    w[r].reports.push(Report::FetchFailed {
        job,
        map,
        key,
        reducer: rkey,
        connect: true,
    });
    // The map runs again at once, on the reducer's worker.
    let again = w[r].beat(&mut c).launches;
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].jobs[0].task, map);
    assert!(c.is_suspected(s as u32), "the source is suspected");
    assert!(c.workers()[s].suspected);
    assert!(!c.workers()[r].suspected);
    // More work: the suspected worker heartbeats with both map slots free
    // and gets nothing; the other one gets its free slot's worth.
    let text = "input = \"in\"\noutput = \"out2\"\nreduces = 1\n[program]\nkind = \"sort\"\n";
    c.submit(&alice(), "sort.toml", text, false).unwrap();
    assert!(w[s].beat(&mut c).launches.is_empty());
    assert_eq!(w[r].beat(&mut c).launches.len(), 1);
    // The suspected worker keeps heartbeating: it is never declared lost,
    // and the suspicion ends when the failure ages out (one worker
    // timeout).
    run(&mut c, &mut w, &[0, 1], 50, 250);
    assert!(c.is_suspected(s as u32), "the failure still stands");
    run(&mut c, &mut w, &[0, 1], 50, 100);
    assert!(!c.is_suspected(s as u32), "aged out");
    assert!(c
        .workers()
        .iter()
        .all(|v| v.alive && v.lost_reason.is_none()));
}

#[test]
fn a_silent_worker_is_suspected_then_lost_after_the_missed_beats() {
    let dir = tempfile::tempdir().unwrap();
    let (mut c, mut w) = cluster(&dir);
    submit(&mut c);
    let lb = w[1].beat(&mut c).launches;
    assert_eq!(lb.len(), 2, "b runs two maps, then goes silent");
    // One interval of silence is normal.
    run(&mut c, &mut w, &[0], 100, 140);
    assert!(!c.is_suspected(1));
    // Past 1.5 intervals it has missed a beat: suspected, still alive.
    run(&mut c, &mut w, &[0], 100, 30);
    assert!(c.is_suspected(1));
    assert!(c.workers()[1].alive);
    // Just before three intervals: still alive; after: lost.
    run(&mut c, &mut w, &[0], 100, 120);
    assert!(c.workers()[1].alive, "not before three missed heartbeats");
    run(&mut c, &mut w, &[0], 100, 20);
    let v = &c.workers()[1];
    assert!(!v.alive);
    assert!(!v.suspected, "lost, no longer merely suspected");
    let why = v.lost_reason.clone().unwrap();
    assert!(why.starts_with("no heartbeat for 0.3"), "{why}");
    assert!(c.workers()[0].alive, "a kept beating");
    // Its two maps are pending again; a (running the third) takes one.
    w[0].beat(&mut c);
    let st = &c.formed.as_ref().unwrap().st;
    assert_eq!(st.attempts_on(NodeId(0)).count(), 2);
    assert_eq!(st.attempts_on(NodeId(1)).count(), 0);
    // b comes back: told to register, and is alive with a clean record.
    assert!(w[1].beat(&mut c).reregister);
    c.register(reg("b")).unwrap();
    let v = &c.workers()[1];
    assert!(v.alive && v.lost_reason.is_none() && !v.suspected);
}

#[test]
fn a_slow_but_alive_worker_is_never_declared_lost() {
    let dir = tempfile::tempdir().unwrap();
    let (mut c, mut w) = cluster(&dir);
    submit(&mut c);
    // b is busy with two maps that never end in this test, and its
    // heartbeats come late (every 1.4 intervals) for 5 s.
    assert_eq!(w[1].beat(&mut c).launches.len(), 2);
    run(&mut c, &mut w, &[0, 1], 140, 5_000);
    assert!(c.workers().iter().all(|v| v.alive));
    assert!(!c.is_suspected(1));
    // The master itself stalls for two seconds (its ticks stop): that is
    // not the workers' silence.
    c.skew_clock(Duration::from_secs(2));
    c.tick().unwrap();
    assert!(c.workers().iter().all(|v| v.alive));
    // Its maps still run there: nothing was re-launched elsewhere.
    assert!(w[0].beat(&mut c).launches.len() <= 1, "only the third map");
    let running_on_b = c.formed.as_ref().unwrap().st.attempts_on(NodeId(1)).count();
    assert_eq!(running_on_b, 2);
}

#[test]
fn a_missed_beat_and_a_refused_probe_convict_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let (mut c, mut w) = cluster(&dir);
    // No probe while b heartbeats.
    run(&mut c, &mut w, &[0, 1], 50, 100);
    assert!(c.take_probes().is_empty());
    // b misses a beat: probed once (not again while the probe is out).
    run(&mut c, &mut w, &[0], 50, 160);
    assert_eq!(c.take_probes(), vec![(1, "http://b".to_string())]);
    assert!(c.take_probes().is_empty());
    // Its data server answers: no verdict yet.
    c.probe_result(1, ProbeOutcome::Answered);
    run(&mut c, &mut w, &[0], 50, 20);
    assert!(c.workers()[1].alive);
    // Probed again an interval later, refused: lost at once, well before
    // the three missed heartbeats.
    run(&mut c, &mut w, &[0], 50, 90);
    assert_eq!(c.take_probes().len(), 1);
    c.probe_result(1, ProbeOutcome::Refused);
    c.tick().unwrap();
    let v = &c.workers()[1];
    assert!(!v.alive);
    assert!(
        v.lost_reason.as_deref().unwrap().contains("refused"),
        "{:?}",
        v.lost_reason
    );
}

#[test]
fn two_reducers_that_cannot_connect_and_a_missed_beat_convict_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let (mut c, mut w) = cluster(&dir);
    // Connection failures while b still heartbeats: suspected only.
    c.connect_failed(1, "r1".into());
    c.connect_failed(1, "r2".into());
    run(&mut c, &mut w, &[0, 1], 50, 100);
    assert!(c.workers()[1].alive && c.is_suspected(1));
    // One failure and a missed beat: not enough.
    run(&mut c, &mut w, &[0, 1], 50, 350);
    assert!(!c.is_suspected(1), "aged out");
    c.connect_failed(1, "r3".into());
    run(&mut c, &mut w, &[0], 50, 170);
    assert!(c.workers()[1].alive);
    // A second reducer (or a probe that times out): lost.
    c.probe_result(1, ProbeOutcome::Unreachable);
    c.tick().unwrap();
    let v = &c.workers()[1];
    assert!(!v.alive);
    assert!(
        v.lost_reason.as_deref().unwrap().contains("2 fetches"),
        "{:?}",
        v.lost_reason
    );
}

#[test]
fn a_reducer_s_failed_connection_is_probed_at_once_and_a_refusal_convicts_a_late_worker() {
    let dir = tempfile::tempdir().unwrap();
    let (mut c, mut w) = cluster(&dir);
    run(&mut c, &mut w, &[0, 1], 50, 100);
    assert!(c.take_probes().is_empty(), "nobody is late");
    // A reducer cannot connect to b, which heartbeated 50 ms ago: probed
    // now, not after a missed beat.
    c.connect_failed(1, "r1".into());
    assert_eq!(c.take_probes(), vec![(1, "http://b".to_string())]);
    c.probe_result(1, ProbeOutcome::Refused);
    c.tick().unwrap();
    assert!(c.workers()[1].alive, "not while its heartbeat is on time");
    // Late by a tenth of an interval (before a missed beat, 1.5): lost.
    run(&mut c, &mut w, &[0], 20, 120);
    let v = &c.workers()[1];
    assert!(!v.alive);
    assert!(
        v.lost_reason.as_deref().unwrap().contains("refused"),
        "{:?}",
        v.lost_reason
    );
}
