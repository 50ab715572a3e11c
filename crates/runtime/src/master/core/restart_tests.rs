//! Restarts: a journal replayed (once, twice, after a crash at any commit)
//! must rebuild exactly the jobs, ids, outputs and held jobs of the master
//! that wrote it.

use super::fixtures::{self, alice, map_done, reg};
use super::*;
use crate::proto::{JobSetEntry, JobSetRequest};

fn settings(sched: &str) -> MasterSettings {
    MasterSettings {
        scheduler: SchedulerConfig::resolve(sched).unwrap(),
        max_attempts: 2,
        unified_slots: true,
        ..fixtures::settings()
    }
}

/// `reg(name)` for a worker whose disk kept every replica the master
/// places on it: a worker that registers again reports what it holds, and
/// the master takes the report as the truth (re-replication's rule).
fn back(c: &Core, name: &str) -> Register {
    let node = c.b.nodes.iter().position(|n| n.name == name);
    let blocks =
        c.b.files
            .values()
            .flat_map(|f| f.blocks.iter())
            .filter(|b| node.is_some_and(|n| b.replicas.contains(&(n as u32))))
            .map(|b| b.id)
            .collect();
    Register {
        blocks,
        ..reg(name)
    }
}

/// A fake worker: answers every launch at its next heartbeat.
struct Fake {
    node: u32,
    session: u64,
    reports: Vec<Report>,
}

fn fakes(c: &mut Core) -> Vec<Fake> {
    ["a", "b"]
        .iter()
        .map(|n| {
            let r = c.register(back(c, n)).unwrap();
            Fake {
                node: r.node,
                session: r.session,
                reports: Vec::new(),
            }
        })
        .collect()
}

/// Heartbeat every fake once; true when anything happened.
fn round(c: &mut Core, w: &mut [Fake]) -> bool {
    let mut any = false;
    for f in w.iter_mut() {
        any |= !f.reports.is_empty();
        let r = c
            .heartbeat(Heartbeat {
                node: f.node,
                session: f.session,
                reports: std::mem::take(&mut f.reports),
            })
            .unwrap();
        assert!(!r.reregister);
        for l in r.launches {
            any = true;
            if l.reduce.is_some() {
                f.reports.push(Report::CopyDone { key: l.key.clone() });
            } else {
                f.reports.push(map_done(l.key));
            }
        }
        for k in r.computes {
            any = true;
            f.reports.push(Report::ReduceDone {
                key: k,
                block: 99,
                bytes: 7,
                replicas: Vec::new(),
            });
        }
    }
    any
}

/// Tick and heartbeat until every job has ended (a deadline, not a sleep
/// count, bounds it).
fn run_all(c: &mut Core, w: &mut [Fake]) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        c.tick().unwrap();
        let busy = round(c, w);
        let open = c
            .jobs()
            .unwrap()
            .iter()
            .any(|j| j.status == "running" || j.status == "submitted")
            || !c.held.is_empty();
        if !busy && !open {
            return;
        }
        assert!(Instant::now() < deadline, "jobs still open: {:?}", c.jobs());
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn input(c: &mut Core, name: &str, blocks: usize) {
    let mut v = Vec::new();
    for _ in 0..blocks {
        let (id, targets) = c.new_block(2).unwrap();
        v.push(BlockMeta {
            id,
            bytes: 10,
            replicas: targets.iter().map(|t| t.0).collect(),
        });
    }
    c.commit_file(&alice(), name, v).unwrap();
}

fn timed(output: &str) -> String {
    format!("input = \"in\"\noutput = \"{output}\"\nreduces = 2\nmap_time_s = 1\nreduce_time_s = 2\n[program]\nkind = \"wordcount\"\n")
}

fn plain(output: &str) -> String {
    format!("input = \"in\"\noutput = \"{output}\"\nreduces = 1\n[program]\nkind = \"wordcount\"\n")
}

fn set(entries: &[(&str, String, f64)]) -> JobSetRequest {
    JobSetRequest {
        jobs: entries
            .iter()
            .map(|(l, t, r)| JobSetEntry {
                label: l.to_string(),
                text: t.clone(),
                json: false,
                release_s: *r,
            })
            .collect(),
    }
}

fn summary(c: &Core) -> Vec<(u32, String, String, u32, u32)> {
    c.jobs()
        .unwrap()
        .into_iter()
        .map(|j| (j.id, j.name, j.status, j.maps_done, j.reduces_done))
        .collect()
}

/// Everything a replay rebuilds that users or workers see.
fn snapshot(c: &Core) -> String {
    let held: Vec<(u32, &str, u64)> = c
        .held
        .iter()
        .map(|h| (h.id, h.label.as_str(), h.release.0))
        .collect();
    let outs: Vec<_> =
        c.b.jobs
            .iter()
            .map(|m| (&m.map_out, &m.reduce_out))
            .collect();
    format!(
        "{:#?}\n{:#?}\n{held:?}\n{outs:?}",
        c.jobs().unwrap(),
        c.files()
    )
}

fn reopen(path: &std::path::Path, sched: &str) -> Core {
    let c = Core::open(Journal::open(path).unwrap(), settings(sched), None).unwrap();
    assert!(c.replay_errors.is_empty(), "{:?}", c.replay_errors);
    c
}

/// A journal holding `records` (a copy of another's, edited).
fn journal_of(dir: &std::path::Path, name: &str, records: &[Record]) -> std::path::PathBuf {
    let path = dir.join(name);
    let mut j = Journal::open(&path).unwrap();
    for r in records {
        j.push(r.clone());
    }
    j.commit().unwrap();
    path
}

fn kind(r: &Record) -> String {
    let d = format!("{r:?}");
    d.split([' ', '{']).next().unwrap().to_string()
}

#[test]
fn every_record_kind_replays_to_the_same_state_once_twice_duplicated_and_from_every_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.redb");
    let mut st = settings("mars");
    st.worker_timeout = Duration::from_millis(300);
    let live = {
        let mut c = Core::open(Journal::open(&path).unwrap(), st.clone(), None).unwrap();
        let mut w = fakes(&mut c);
        input(&mut c, "in", 2);
        input(&mut c, "gone", 1);
        // Rejected: MSJO needs predicted times.
        let r = c.submit(&alice(), "p.toml", &plain("p"), false).unwrap();
        assert_eq!(r.status, "rejected");
        // A job whose first map attempt fails once.
        c.submit(&alice(), "j1.toml", &timed("o1"), false).unwrap();
        let r = c
            .heartbeat(Heartbeat {
                node: w[0].node,
                session: w[0].session,
                reports: Vec::new(),
            })
            .unwrap();
        for (i, l) in r.launches.into_iter().enumerate() {
            w[0].reports.push(if i == 0 {
                Report::Failed {
                    key: l.key,
                    error: "disk on fire".into(),
                }
            } else {
                map_done(l.key)
            });
        }
        run_all(&mut c, &mut w);
        // A job whose map outputs on `a` are gone when `a` registers
        // again (OutputLost), then `b` falls silent (NodeLost) and comes
        // back (NodeBack).
        let j2 = c.submit(&alice(), "j2.toml", &timed("o2"), false).unwrap();
        for _ in 0..2 {
            round(&mut c, &mut w);
        }
        let (map, key) = c.b.jobs[j2.id as usize]
            .map_out
            .iter()
            .enumerate()
            .find_map(|(i, o)| o.as_ref().map(|(k, _)| (i as u32, k.clone())))
            .expect("a map of j2 done");
        w[0].reports.push(Report::FetchFailed {
            job: j2.id,
            map,
            key,
            reducer: String::new(),
            connect: false,
        });
        round(&mut c, &mut w);
        let r = c.register(back(&c, "a")).unwrap();
        w[0].session = r.session;
        w[0].reports.clear();
        // `a` keeps heartbeating, `b` is silent.
        let deadline = Instant::now() + Duration::from_secs(20);
        while c.formed.as_ref().unwrap().st.slots(NodeId(1)).alive {
            assert!(Instant::now() < deadline, "b was never declared lost");
            c.tick().unwrap();
            round(&mut c, &mut w[..1]);
            std::thread::sleep(Duration::from_millis(5));
        }
        let r = c.register(back(&c, "b")).unwrap();
        w[1].session = r.session;
        w[1].reports.clear();
        run_all(&mut c, &mut w);
        assert_eq!(c.job_view(j2.id).unwrap().status, "succeeded");
        // A set: one job at once, one whose input is removed before its
        // release (Unreleased).
        let h = c
            .submit_set(
                &alice(),
                set(&[
                    ("s-a.toml", timed("s-a"), 0.0),
                    (
                        "s-b.toml",
                        timed("s-b").replace("input = \"in\"", "input = \"gone\""),
                        0.3,
                    ),
                ]),
            )
            .unwrap();
        c.remove_file(&alice(), "gone").unwrap();
        run_all(&mut c, &mut w);
        let b = c.job_view(h[1].id).unwrap();
        assert_eq!(b.status, "rejected");
        assert!(b.reason.unwrap().contains("no file `gone`"));
        // Killed by its owner.
        let k = c.submit(&alice(), "k.toml", &timed("ok"), false).unwrap();
        c.kill(&alice(), k.id).unwrap();
        c.sync().unwrap();
        let kinds: std::collections::BTreeSet<String> =
            c.journal.records().unwrap().iter().map(kind).collect();
        for k in [
            "Node",
            "File",
            "FileRemoved",
            "Submit",
            "MapDone",
            "ReduceDone",
            "Failed",
            "NodeLost",
            "NodeBack",
            "OutputLost",
            "Killed",
            "JobSet",
            "Unreleased",
        ] {
            assert!(kinds.contains(k), "no {k} record in {kinds:?}");
        }
        summary(&c)
    };
    let records = Journal::open(&path).unwrap().records().unwrap();
    // Replayed once and twice: the same state, and replay writes nothing.
    let once = reopen(&path, "mars");
    assert_eq!(summary(&once), live);
    let first = snapshot(&once);
    drop(once);
    let twice = reopen(&path, "mars");
    assert_eq!(snapshot(&twice), first);
    drop(twice);
    assert_eq!(
        Journal::open(&path).unwrap().records().unwrap().len(),
        records.len()
    );
    // Every record applied twice: the same state.
    let doubled: Vec<Record> = records
        .iter()
        .flat_map(|r| [r.clone(), r.clone()])
        .collect();
    let p2 = journal_of(dir.path(), "doubled.redb", &doubled);
    assert_eq!(snapshot(&reopen(&p2, "mars")), first);
    // A crash after any commit: every prefix replays without an error,
    // each submission with the id it was given.
    for k in 0..=records.len() {
        let mut j = Journal::in_memory().unwrap();
        for r in &records[..k] {
            j.push(r.clone());
        }
        j.commit().unwrap();
        let c = Core::open(j, settings("mars"), None).unwrap();
        assert!(
            c.replay_errors.is_empty(),
            "prefix {k}: {:?}",
            c.replay_errors
        );
        let ids = records[..k]
            .iter()
            .filter(|r| matches!(r, Record::Submit { .. } | Record::Unreleased { .. }))
            .count();
        assert_eq!(c.b.jobs.len(), ids, "prefix {k}");
    }
}

#[test]
fn held_jobs_of_a_set_survive_a_restart_and_are_released_at_their_times() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.redb");
    let h = {
        let mut c = Core::open(Journal::open(&path).unwrap(), settings("mars"), None).unwrap();
        fakes(&mut c);
        input(&mut c, "in", 3);
        c.submit_set(
            &alice(),
            set(&[
                ("late.toml", timed("late"), 0.6),
                ("first.toml", timed("first"), 0.0),
                ("mid.toml", timed("mid"), 0.3),
            ]),
        )
        .unwrap()
        // The master dies at once: only the first job was released.
    };
    let labels: Vec<&str> = h.iter().map(|x| x.label.as_str()).collect();
    assert_eq!(labels, ["first.toml", "mid.toml", "late.toml"]);
    let mut c = reopen(&path, "mars");
    assert_eq!(c.b.jobs.len(), 1);
    let held: Vec<u32> = c.held.iter().map(|x| x.id).collect();
    assert_eq!(held, vec![h[1].id, h[2].id]);
    // Other submissions still wait for the set.
    let e = c
        .submit(&alice(), "x.toml", &timed("x"), false)
        .unwrap_err();
    assert_eq!(e.status, 409);
    let mut w = fakes(&mut c);
    run_all(&mut c, &mut w);
    // The set's time: its first job was released with it.
    let t0 = c.job_view(h[0].id).unwrap().submitted_s;
    for x in &h {
        let v = c.job_view(x.id).unwrap();
        assert_eq!(v.status, "succeeded", "{v:?}");
        assert_eq!(v.output, x.label.trim_end_matches(".toml"));
        assert!(
            v.submitted_s + 1e-3 >= t0 + x.release_s,
            "{} released at {} before {}",
            x.label,
            v.submitted_s,
            t0 + x.release_s
        );
    }
    assert_eq!(c.jobs().unwrap().len(), 3, "no job twice");
    let before = summary(&c);
    c.sync().unwrap();
    drop(c);
    let c = reopen(&path, "mars");
    assert_eq!(summary(&c), before);
    assert!(c.held.is_empty());
}

#[test]
fn fifo_training_then_msjo_sets_keep_their_ids_across_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.redb");
    {
        let mut c = Core::open(Journal::open(&path).unwrap(), settings("fifo"), None).unwrap();
        let mut w = fakes(&mut c);
        input(&mut c, "in", 3);
        for k in 0..2 {
            let h = c
                .submit_set(
                    &alice(),
                    set(&[(
                        &format!("train-{k}.toml"),
                        plain(&format!("train-out-{k}")),
                        0.0,
                    )]),
                )
                .unwrap();
            assert_eq!(h[0].id, k);
            run_all(&mut c, &mut w);
        }
        c.sync().unwrap();
    }
    // The same cluster under MarS: a set whose second job is held when
    // the master dies.
    let h = {
        let mut c = reopen(&path, "mars");
        fakes(&mut c);
        c.submit_set(
            &alice(),
            set(&[
                ("s-a.toml", timed("s-a"), 0.0),
                ("s-b.toml", timed("s-b"), 0.2),
            ]),
        )
        .unwrap()
    };
    assert_eq!((h[0].id, h[1].id), (2, 3));
    for _ in 0..2 {
        // Restarting twice changes nothing.
        let c = reopen(&path, "mars");
        assert_eq!(c.b.jobs.len(), 3);
        assert_eq!(c.held.front().map(|x| x.id), Some(3));
    }
    let mut c = reopen(&path, "mars");
    let mut w = fakes(&mut c);
    run_all(&mut c, &mut w);
    let names: Vec<(u32, String, String)> = c
        .jobs()
        .unwrap()
        .into_iter()
        .map(|j| (j.id, j.output, j.status))
        .collect();
    let want: Vec<(u32, String, String)> = ["train-out-0", "train-out-1", "s-a", "s-b"]
        .iter()
        .enumerate()
        .map(|(i, o)| (i as u32, o.to_string(), "succeeded".to_string()))
        .collect();
    assert_eq!(names, want);
    let before = summary(&c);
    c.sync().unwrap();
    drop(c);
    assert_eq!(summary(&reopen(&path, "mars")), before);
}

#[test]
fn a_repeated_idempotency_key_gets_the_first_job_also_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.redb");
    let bob = User {
        name: "bob".into(),
        admin: false,
    };
    let first = {
        let mut c = Core::open(Journal::open(&path).unwrap(), settings("fifo"), None).unwrap();
        fakes(&mut c);
        input(&mut c, "in", 2);
        let a = c
            .submit_keyed(&alice(), "a.toml", &plain("a"), false, "k-1")
            .unwrap();
        // The same request again: the same job, nothing new.
        let again = c
            .submit_keyed(&alice(), "a.toml", &plain("a"), false, "k-1")
            .unwrap();
        assert_eq!(format!("{again:?}"), format!("{a:?}"));
        assert_eq!(c.jobs().unwrap().len(), 1);
        // Another user's key space is their own.
        let b = c
            .submit_keyed(&bob, "b.toml", &plain("b"), false, "k-1")
            .unwrap();
        assert_ne!(b.id, a.id);
        for bad in ["", "has space", &"x".repeat(201)] {
            let e = c
                .submit_keyed(&alice(), "c.toml", &plain("c"), false, bad)
                .unwrap_err();
            assert_eq!(e.status, 400, "{bad:?}");
            assert!(e.message.contains("Idempotency-Key"), "{}", e.message);
        }
        // A failed submission takes no key: it can be sent again fixed.
        let e = c
            .submit_keyed(&alice(), "d.toml", "output = 3", false, "k-2")
            .unwrap_err();
        assert_eq!(e.status, 400);
        let d = c
            .submit_keyed(&alice(), "d.toml", &plain("d"), false, "k-2")
            .unwrap();
        assert_eq!(d.id, 2);
        a
    };
    // The master died before the client saw the answer: the retry after
    // the restart finds the job.
    let mut c = reopen(&path, "fifo");
    let again = c
        .submit_keyed(&alice(), "a.toml", &plain("a"), false, "k-1")
        .unwrap();
    assert_eq!(format!("{again:?}"), format!("{first:?}"));
    assert_eq!(c.jobs().unwrap().len(), 3);
}

#[test]
fn after_a_restart_nothing_is_launched_until_every_worker_is_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.redb");
    {
        let mut c = Core::open(Journal::open(&path).unwrap(), settings("fifo"), None).unwrap();
        fakes(&mut c);
        input(&mut c, "in", 2);
        c.submit(&alice(), "a.toml", &plain("a"), false).unwrap();
    }
    let mut c = reopen(&path, "fifo");
    assert!(c.recovering());
    let a = c.register(back(&c, "a")).unwrap();
    let beat = |c: &mut Core| {
        c.heartbeat(Heartbeat {
            node: a.node,
            session: a.session,
            reports: Vec::new(),
        })
        .unwrap()
    };
    // `b` holds replicas of the input and has no known address yet.
    assert!(beat(&mut c).launches.is_empty());
    c.register(back(&c, "b")).unwrap();
    assert!(!c.recovering());
    let l = beat(&mut c).launches;
    assert!(!l.is_empty());
    let sources = &l[0].block.as_ref().unwrap().sources;
    assert_eq!(sources.len(), 2, "both replica holders: {sources:?}");
}

#[test]
fn a_worker_lost_after_its_maps_were_no_longer_needed_does_not_reopen_the_job() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.redb");
    let mut st = settings("fifo");
    st.worker_timeout = Duration::from_millis(200);
    st.unified_slots = false;
    let live = {
        let mut c = Core::open(Journal::open(&path).unwrap(), st, None).unwrap();
        // `a` runs maps only, `b` the reduces.
        let mut w: Vec<Fake> = [("a", 2, 0), ("b", 1, 2)]
            .into_iter()
            .map(|(n, m, r)| {
                let x = c
                    .register(Register {
                        map_slots: m,
                        reduce_slots: r,
                        ..reg(n)
                    })
                    .unwrap();
                Fake {
                    node: x.node,
                    session: x.session,
                    reports: Vec::new(),
                }
            })
            .collect();
        input(&mut c, "in", 2);
        let j = c.submit(&alice(), "t.toml", &timed("t"), false).unwrap();
        // Both maps on `a`, done.
        let deadline = Instant::now() + Duration::from_secs(20);
        while c.job_view(j.id).unwrap().maps_done < 2 {
            assert!(Instant::now() < deadline);
            round(&mut c, &mut w[..1]);
        }
        // Both reduces on `b`, computing (no copy phase with predicted
        // times); their reports held back.
        while c.job_view(j.id).unwrap().reduces_running < 2 {
            assert!(Instant::now() < deadline);
            round(&mut c, &mut w[1..]);
        }
        let held = std::mem::take(&mut w[1].reports);
        // `a` falls silent and is declared lost: its outputs are no longer
        // needed, the maps stay done.
        while c.formed.as_ref().unwrap().st.slots(NodeId(0)).alive {
            assert!(Instant::now() < deadline);
            c.tick().unwrap();
            round(&mut c, &mut w[1..]);
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(c.job_view(j.id).unwrap().maps_done, 2);
        w[1].reports = held;
        round(&mut c, &mut w[1..]);
        let v = c.job_view(j.id).unwrap();
        assert_eq!(v.status, "succeeded", "{v:?}");
        summary(&c)
    };
    let c = reopen(&path, "fifo");
    assert_eq!(summary(&c), live);
}
