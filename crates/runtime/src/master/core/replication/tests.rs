//! Re-replication in the master without networking: fake workers'
//! heartbeats and reports, the tick, and a reopened journal.

use super::super::*;
use super::choose_target;

fn settings(timeout_ms: u64) -> MasterSettings {
    MasterSettings {
        workers: 3,
        scheduler: SchedulerConfig::resolve("fifo").unwrap(),
        heartbeat: Duration::from_millis(20),
        worker_timeout: Duration::from_millis(timeout_ms),
        replication: 2,
        sort_buffer: 1 << 20,
        max_attempts: 4,
        reduce_slowstart: 1.0,
        seed: 3,
        ..Default::default()
    }
}

/// Workers a and b on rack r0, c on rack r1.
fn cluster(path: &std::path::Path, timeout_ms: u64) -> (Core, Vec<(u32, u64)>) {
    let mut c = Core::open(Journal::open(path).unwrap(), settings(timeout_ms), None).unwrap();
    let regs = ["a", "b", "c"]
        .iter()
        .map(|n| {
            let r = c
                .register(Register {
                    name: n.to_string(),
                    rack: if *n == "c" { "r1" } else { "r0" }.into(),
                    map_slots: 1,
                    reduce_slots: 1,
                    addr: format!("http://{n}"),
                    outputs: Vec::new(),
                    blocks: Vec::new(),
                })
                .unwrap();
            (r.node, r.session)
        })
        .collect();
    (c, regs)
}

fn alice() -> User {
    User {
        name: "alice".into(),
        admin: false,
    }
}

fn beat(c: &mut Core, w: (u32, u64), reports: Vec<Report>) -> HeartbeatReply {
    c.heartbeat(Heartbeat {
        node: w.0,
        session: w.1,
        reports,
    })
    .unwrap()
}

#[test]
fn a_corrupt_replica_is_copied_again_off_rack_and_the_journal_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.redb");
    let (mut c, w) = cluster(&path, 60_000);
    // Block 1 on a and b (rack r0 only, as a replication-2 upload with
    // c down would leave it).
    let (id, _) = c.new_block(2).unwrap();
    let (a, b) = (w[0].0, w[1].0);
    let blocks = vec![BlockMeta {
        id,
        bytes: 1000,
        replicas: vec![a, b],
    }];
    c.commit_file_replicated(&alice(), "in", blocks, 2).unwrap();
    c.tick().unwrap();
    assert_eq!(c.replication_view().under_replicated, 0);
    // b finds its replica corrupt.
    beat(&mut c, w[1], vec![Report::BlockCorrupt { block: id }]);
    assert_eq!(c.file_view("in").unwrap().live, vec![1]);
    c.tick().unwrap();
    // The copy goes to c, the other rack, from a.
    assert!(beat(&mut c, w[1], Vec::new()).copies.is_empty());
    let r = beat(&mut c, w[2], Vec::new());
    assert_eq!(
        r.copies,
        vec![BlockCopy {
            block: id,
            from: "http://a".into()
        }]
    );
    assert_eq!(c.replication_view().copies_in_flight, 1);
    // Not planned twice while in flight.
    c.tick().unwrap();
    assert!(beat(&mut c, w[2], Vec::new()).copies.is_empty());
    beat(
        &mut c,
        w[2],
        vec![Report::BlockCopied {
            block: id,
            bytes: 1000,
        }],
    );
    let v = c.replication_view();
    assert_eq!((v.under_replicated, v.copies_in_flight), (0, 0));
    assert_eq!(
        (v.blocks_copied, v.bytes_copied, v.corrupt_replicas),
        (1, 1000, 1)
    );
    let holders = |c: &Core| {
        let mut h = c.file_view("in").unwrap().blocks[0].2.clone();
        h.sort();
        h
    };
    assert_eq!(holders(&c), ["a", "c"]);
    c.sync().unwrap();
    drop(c);
    let c = Core::open(Journal::open(&path).unwrap(), settings(60_000), None).unwrap();
    assert_eq!(holders(&c), ["a", "c"], "replayed from the journal");
    assert_eq!(c.replication_view().bytes_copied, 1000);
}

#[test]
fn a_failed_copy_is_retried_on_another_worker() {
    let dir = tempfile::tempdir().unwrap();
    let (mut c, w) = cluster(&dir.path().join("j.redb"), 60_000);
    let (id, _) = c.new_block(1).unwrap();
    let blocks = vec![BlockMeta {
        id,
        bytes: 10,
        replicas: vec![w[0].0],
    }];
    // Replication 3 of a block on a: copies to b and c.
    c.commit_file_replicated(&alice(), "in", blocks, 3).unwrap();
    c.tick().unwrap();
    let to_b = beat(&mut c, w[1], Vec::new()).copies;
    let to_c = beat(&mut c, w[2], Vec::new()).copies;
    assert_eq!((to_b.len(), to_c.len()), (1, 1));
    // c fails; it is tried again (no other worker is left) and b's
    // copy lands.
    beat(
        &mut c,
        w[2],
        vec![Report::BlockCopyFailed {
            block: id,
            error: "disk full".into(),
        }],
    );
    beat(
        &mut c,
        w[1],
        vec![Report::BlockCopied {
            block: id,
            bytes: 10,
        }],
    );
    c.tick().unwrap();
    assert_eq!(beat(&mut c, w[2], Vec::new()).copies.len(), 1);
    assert_eq!(c.replication_view().copies_failed, 1);
    assert_eq!(c.file_view("in").unwrap().live, vec![2]);
}

#[test]
fn a_job_needing_a_block_with_no_live_holder_fails_and_stays_failed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.redb");
    let (mut c, w) = cluster(&path, 300);
    let (id, _) = c.new_block(1).unwrap();
    let blocks = vec![BlockMeta {
        id,
        bytes: 10,
        replicas: vec![w[2].0],
    }];
    c.commit_file_replicated(&alice(), "in", blocks, 1).unwrap();
    let job = "input = \"in\"\noutput = \"o\"\nreduces = 1\n[program]\nkind = \"sort\"\n";
    // A job running before the loss (its map launched on a or b, to
    // read from c, and never reported).
    let early = c.submit(&alice(), "e.toml", &job.replace("\"o\"", "\"o1\""), false);
    let early = early.unwrap();
    // c stays silent until declared lost; a and b keep beating.
    let t0 = Instant::now();
    while c.health().workers > 2 {
        assert!(t0.elapsed() < Duration::from_secs(20), "c is declared lost");
        beat(&mut c, w[0], Vec::new());
        beat(&mut c, w[1], Vec::new());
        c.tick().unwrap();
        std::thread::sleep(Duration::from_millis(20));
    }
    let v = c.replication_view();
    assert_eq!(v.lost, vec![("in".to_string(), 0, id)]);
    let view = c.job_view(early.id).unwrap();
    assert_eq!(view.status, "failed", "{view:?}");
    assert!(view.reason.unwrap().contains("has no replica left"));
    let s = c.submit(&alice(), "j.toml", job, false).unwrap();
    let want = format!("file in: block 0 (id {id}) has no replica left");
    let view = c.job_view(s.id).unwrap();
    assert_eq!(view.status, "failed");
    assert_eq!(view.reason.as_deref(), Some(want.as_str()));
    c.sync().unwrap();
    drop(c);
    let c = Core::open(Journal::open(&path).unwrap(), settings(300), None).unwrap();
    let view = c.job_view(s.id).unwrap();
    assert_eq!(view.status, "failed", "replayed");
    assert_eq!(view.reason.as_deref(), Some(want.as_str()));
}

#[test]
fn a_second_rack_is_kept_and_load_decides_the_rest() {
    // Nodes 0-3 on rack 0, 4-7 on rack 1.
    let rack = |n: u32| n / 4;
    let all: Vec<u32> = (0..8).collect();
    let cands = |holders: &[u32]| -> Vec<u32> {
        all.iter()
            .copied()
            .filter(|c| !holders.contains(c))
            .collect()
    };
    // Both holders on rack 0: the copy goes to rack 1, least loaded.
    let free = |_: u32| false;
    let load = |c: u32| if c == 4 { 5 } else { 1 };
    assert_eq!(
        choose_target(&[0, 1], &cands(&[0, 1]), rack, load, free),
        Some(5)
    );
    // One holder: also off its rack.
    assert_eq!(
        choose_target(&[6], &cands(&[6]), rack, |_| 0, free),
        Some(0)
    );
    // Holders on both racks already: least load wins anywhere.
    let load = |c: u32| if c == 2 { 0 } else { 3 };
    assert_eq!(
        choose_target(&[0, 4], &cands(&[0, 4]), rack, load, free),
        Some(2)
    );
    // No candidate on another rack: the same rack will do.
    assert_eq!(choose_target(&[0, 1], &[2, 3], rack, |_| 0, free), Some(2));
    assert_eq!(choose_target(&[0], &[], rack, |_| 0, free), None);
    // One rack in the cluster: lowest load, then lowest id.
    assert_eq!(choose_target(&[3], &[2, 1], |_| 0, |_| 0, free), Some(1));
    // The other rack's only candidate has no stream free: wait for it
    // rather than put the copy on the holders' rack.
    assert_eq!(choose_target(&[0], &[1, 4], rack, |_| 0, |c| c == 4), None);
    // A full candidate is skipped for the next one.
    assert_eq!(
        choose_target(&[0, 4], &[1, 2], rack, |_| 0, |c| c == 1),
        Some(2)
    );
}
