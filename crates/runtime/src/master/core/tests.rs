//! The master without networking: a fake worker drives jobs through
//! register / heartbeat reports, and a reopened journal must rebuild the
//! same jobs, files and failure counts.

use super::fixtures::{self, alice, map_done, reg};
use super::*;

fn settings() -> MasterSettings {
    MasterSettings {
        max_attempts: 2,
        ..fixtures::settings()
    }
}

struct Fake {
    node: u32,
    session: u64,
    reports: Vec<Report>,
}

impl Fake {
    /// One heartbeat; returns the reply.
    fn beat(&mut self, c: &mut Core) -> HeartbeatReply {
        let r = c
            .heartbeat(Heartbeat {
                node: self.node,
                session: self.session,
                reports: std::mem::take(&mut self.reports),
            })
            .unwrap();
        assert!(!r.reregister);
        r
    }
}

fn job(output: &str, program: &str) -> String {
    format!("input = \"in\"\noutput = \"{output}\"\nreduces = 1\n[program]\n{program}\n")
}

/// Run every launch to completion (maps succeed, or fail when `fail_maps`),
/// until a heartbeat brings nothing.
fn drive(c: &mut Core, w: &mut [Fake], fail_maps: bool) {
    for _ in 0..20 {
        let mut any = false;
        for f in w.iter_mut() {
            let r = f.beat(c);
            for l in r.launches {
                any = true;
                if l.reduce.is_some() {
                    f.reports.push(Report::CopyDone { key: l.key.clone() });
                } else if fail_maps {
                    f.reports.push(Report::Failed {
                        key: l.key,
                        error: "disk on fire".into(),
                    });
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
        if !any && w.iter().all(|f| f.reports.is_empty()) {
            return;
        }
    }
}

fn summary(c: &Core) -> Vec<(u32, String, u32, u32, Option<String>)> {
    c.jobs()
        .unwrap()
        .into_iter()
        .map(|j| (j.id, j.status, j.maps_done, j.reduces_done, j.reason))
        .collect()
}

#[test]
fn a_reopened_journal_rebuilds_jobs_files_and_failures() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.redb");
    let (before, files_before) = {
        let mut c = Core::open(Journal::open(&path).unwrap(), settings(), None).unwrap();
        let r0 = c.register(reg("a")).unwrap();
        assert!(c.formed.is_none(), "waits for the second worker");
        let r1 = c.register(reg("b")).unwrap();
        assert!(c.health().ready);
        let mut blocks = Vec::new();
        for _ in 0..3 {
            let (id, targets) = c.new_block(2).unwrap();
            assert_eq!(targets.len(), 2);
            blocks.push(BlockMeta {
                id,
                bytes: 10,
                replicas: targets.iter().map(|t| t.0).collect(),
            });
        }
        c.commit_file(&alice(), "in", blocks).unwrap();
        let mut w = vec![
            Fake {
                node: r0.node,
                session: r0.session,
                reports: Vec::new(),
            },
            Fake {
                node: r1.node,
                session: r1.session,
                reports: Vec::new(),
            },
        ];
        // A job that succeeds.
        let ok = c
            .submit(
                &alice(),
                "ok.toml",
                &job("out", "kind = \"wordcount\""),
                false,
            )
            .unwrap();
        drive(&mut c, &mut w, false);
        // A job whose maps fail twice: it fails with the reason.
        let bad = c
            .submit(&alice(), "bad.toml", &job("out2", "kind = \"sort\""), false)
            .unwrap();
        drive(&mut c, &mut w, true);
        // A job killed by its owner while pending.
        let k = c
            .submit(&alice(), "k.toml", &job("out3", "kind = \"sort\""), false)
            .unwrap();
        c.kill(&alice(), k.id).unwrap();
        let s = summary(&c);
        assert_eq!(s[ok.id as usize].1, "succeeded");
        assert_eq!(s[bad.id as usize].1, "failed");
        assert!(s[bad.id as usize]
            .4
            .as_ref()
            .unwrap()
            .contains("disk on fire"));
        assert_eq!(s[k.id as usize].1, "killed");
        (s, c.files())
    };
    // A new master on the same journal.
    let c = Core::open(Journal::open(&path).unwrap(), settings(), None).unwrap();
    assert!(c.health().ready, "formed from the journal");
    assert_eq!(summary(&c), before);
    assert_eq!(c.files(), files_before);
    let out = c.file_view("out").unwrap();
    assert_eq!(out.blocks.len(), 1, "one block per reduce");
    assert!(c.file_view("out2").is_err(), "no output of a failed job");
    // New attempt keys and blocks cannot collide with the old ones.
    assert_eq!(c.b.gen, 2);
}

#[test]
fn unknown_sessions_and_strangers_are_turned_away() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = Core::open(
        Journal::open(&dir.path().join("j.redb")).unwrap(),
        settings(),
        None,
    )
    .unwrap();
    c.register(reg("a")).unwrap();
    c.register(reg("b")).unwrap();
    let r = c
        .heartbeat(Heartbeat {
            node: 0,
            session: 12345,
            reports: Vec::new(),
        })
        .unwrap();
    assert!(r.reregister);
    let e = c.register(reg("c")).unwrap_err();
    assert_eq!(e.status, 409);
    let e = c
        .submit(&alice(), "x.toml", &job("o", "kind = \"sort\""), false)
        .unwrap_err();
    assert!(e.message.contains("no file `in`"), "{}", e.message);
    assert!(c.jobs().unwrap().is_empty(), "nothing half-made");
}

#[test]
fn late_reduce_reports_delete_their_block_but_repeated_ones_do_not() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = Core::open(
        Journal::open(&dir.path().join("j.redb")).unwrap(),
        settings(),
        None,
    )
    .unwrap();
    let r0 = c.register(reg("a")).unwrap();
    let r1 = c.register(reg("b")).unwrap();
    let (id, targets) = c.new_block(1).unwrap();
    c.commit_file(
        &alice(),
        "in",
        vec![BlockMeta {
            id,
            bytes: 10,
            replicas: targets.iter().map(|t| t.0).collect(),
        }],
    )
    .unwrap();
    let mut w = vec![
        Fake {
            node: r0.node,
            session: r0.session,
            reports: Vec::new(),
        },
        Fake {
            node: r1.node,
            session: r1.session,
            reports: Vec::new(),
        },
    ];
    c.submit(
        &alice(),
        "ok.toml",
        &job("out", "kind = \"wordcount\""),
        false,
    )
    .unwrap();
    drive(&mut c, &mut w, false);
    let out = c.file_view("out").unwrap();
    let written = out.blocks[0].0;
    // The same report again (its answer was lost): nothing is deleted.
    for f in w.iter_mut() {
        f.reports.push(Report::ReduceDone {
            key: format!("{}-0", c.b.gen),
            block: written,
            bytes: 7,
            replicas: vec![],
        });
        assert!(f.beat(&mut c).delete_blocks.is_empty());
    }
    // A report for an attempt nobody knows: its block goes.
    let other = w[1].node;
    w[0].reports.push(Report::ReduceDone {
        key: format!("{}-777", c.b.gen),
        block: 1234,
        bytes: 7,
        replicas: vec![other],
    });
    assert_eq!(w[0].beat(&mut c).delete_blocks, vec![1234]);
    assert_eq!(w[1].beat(&mut c).delete_blocks, vec![1234]);
}

#[test]
fn a_reopened_journal_rebuilds_jobs_with_predicted_times() {
    // Reduces with a predicted time (MSJO) compute from their launch, with
    // no copy phase: the replay must finish them all the same.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.redb");
    let before = {
        let mut c = Core::open(Journal::open(&path).unwrap(), settings(), None).unwrap();
        let r0 = c.register(reg("a")).unwrap();
        let r1 = c.register(reg("b")).unwrap();
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
        let mut w: Vec<Fake> = [r0, r1]
            .iter()
            .map(|r| Fake {
                node: r.node,
                session: r.session,
                reports: Vec::new(),
            })
            .collect();
        let text = "input = \"in\"\noutput = \"out\"\nreduces = 2\nweight = 3\nmap_time_s = 1\nreduce_time_s = 2\n[program]\nkind = \"wordcount\"\n";
        let s = c.submit(&alice(), "t.toml", text, false).unwrap();
        drive(&mut c, &mut w, false);
        let s = &summary(&c)[s.id as usize];
        assert_eq!((s.1.as_str(), s.2, s.3), ("succeeded", 3, 2), "{s:?}");
        summary(&c)
    };
    let c = Core::open(Journal::open(&path).unwrap(), settings(), None).unwrap();
    assert_eq!(summary(&c), before);
    assert_eq!(c.file_view("out").unwrap().blocks.len(), 2);
}

#[test]
fn journal_records_naming_unknown_jobs_or_tasks_are_errors_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = Core::open(
        Journal::open(&dir.path().join("j.redb")).unwrap(),
        settings(),
        None,
    )
    .unwrap();
    c.register(reg("a")).unwrap();
    c.register(reg("b")).unwrap();
    let reduce = |job, task| Record::ReduceDone {
        t: 1,
        node: 0,
        job,
        task,
        block: 7,
        bytes: 1,
        replicas: vec![0],
    };
    let e = c.replay_one(reduce(99, 0)).unwrap_err();
    assert!(e.message.contains("job 99"), "{}", e.message);
    for r in [
        Record::MapDone {
            t: 1,
            node: 0,
            tasks: vec![(3, 0)],
            key: "k".into(),
            blocks: Vec::new(),
        },
        Record::MapDone {
            t: 1,
            node: 0,
            tasks: Vec::new(),
            key: "k".into(),
            blocks: Vec::new(),
        },
        Record::OutputLost {
            t: 1,
            job: 5,
            task: 0,
            node: 0,
        },
        Record::Evicted {
            t: 1,
            job: 5,
            node: 0,
        },
    ] {
        assert!(c.replay_one(r).is_err());
    }
    // A job that exists, with a task index past its end.
    let mut blocks = Vec::new();
    let (id, targets) = c.new_block(1).unwrap();
    blocks.push(BlockMeta {
        id,
        bytes: 10,
        replicas: targets.iter().map(|t| t.0).collect(),
    });
    c.commit_file(&alice(), "in", blocks).unwrap();
    let s = c
        .submit(
            &alice(),
            "ok.toml",
            &job("out", "kind = \"wordcount\""),
            false,
        )
        .unwrap();
    let e = c.replay_one(reduce(s.id, 50)).unwrap_err();
    assert!(e.message.contains("reduce task 50"), "{}", e.message);
    let e = c
        .replay_one(Record::MapDone {
            t: 1,
            node: 0,
            tasks: vec![(s.id, 9)],
            key: "k".into(),
            blocks: Vec::new(),
        })
        .unwrap_err();
    assert!(e.message.contains("map task 9"), "{}", e.message);
}
