//! The soak: jobs of five kinds from three users on a real local cluster
//! (a master and four worker processes of the built binary) while a chaos
//! loop kills a random worker with SIGKILL and starts it again, and kills
//! the master once. At the end every job has succeeded exactly once with
//! its id, every output is the sequential computation's, and every block is
//! back at its file's replication.
//!
//! One loop drives submissions, kills and restarts, so no two threads share
//! the processes and a run reads in order. The default size is the CI's (15
//! jobs over 16 s, a kill every 2-5 s); `scripts/soak.sh` runs the full
//! size (60 jobs over three minutes, a kill every 20-40 s) through the
//! `MRSCHED_SOAK_*` variables, with a fault-free run to compare against.

mod common;

use common::cluster::*;
use mrsched_runtime::program::sequential;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

const WORKERS: usize = 4;

/// A size knob from `MRSCHED_SOAK_<NAME>`, or its CI default.
fn knob(name: &str, default: u64) -> u64 {
    std::env::var(format!("MRSCHED_SOAK_{name}"))
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// What a run measured.
#[derive(Debug, Default)]
struct Outcome {
    jobs: usize,
    secs: f64,
    /// Mean time from a job's submission to its end.
    mean_job_s: f64,
    worker_kills: u32,
    master_restarts: u32,
    bytes_rereplicated: u64,
    blocks_rereplicated: u64,
}

/// One soak: with `chaos`, the kills; without, the fault-free reference.
fn soak(chaos: bool) -> Outcome {
    let n = knob("JOBS", 15) as usize;
    let spread = Duration::from_secs(knob("SUBMIT_OVER_S", 16));
    let (kill_lo, kill_hi) = (knob("KILL_MIN_S", 2), knob("KILL_MAX_S", 5));
    let down = Duration::from_secs(knob("DOWN_S", 2));
    let lines = knob("LINES", 1500) as usize;
    let block = knob("BLOCK_KB", 2) * 1024;
    let mut rng = rand::rngs::StdRng::seed_from_u64(knob("SEED", 1));
    let gap =
        |rng: &mut rand::rngs::StdRng| Duration::from_secs(rng.random_range(kill_lo..=kill_hi));

    let mut live = Live::start(WORKERS, &["--scheduler", "fair"]);
    let r = rt();
    let inputs = [corpus(lines, 7), corpus(lines * 3 / 4, 11)];
    for (i, text) in inputs.iter().enumerate() {
        r.block_on(
            live.client(ALICE)
                .put(&mut text.as_bytes(), &format!("in{i}"), block, 3),
        )
        .unwrap();
    }
    let specs: Vec<Spec> = (0..n).map(|k| spec(live.dir.path(), k)).collect();
    let mut out = Outcome {
        jobs: n,
        ..Outcome::default()
    };
    let mut ids: BTreeMap<u32, usize> = BTreeMap::new();
    let mut next = 0;
    let t0 = Instant::now();
    let mut next_kill = t0 + gap(&mut rng);
    let mut down_worker: Option<(usize, Instant)> = None;
    loop {
        let now = Instant::now();
        assert!(
            now < t0 + spread + WAIT,
            "the soak did not finish: {} of {n} submitted",
            ids.len()
        );
        // Submissions, spread evenly over `spread`. Each carries an
        // idempotency key, so one that is retried because the master was
        // down makes one job, never two.
        while next < n && now >= t0 + spread.mul_f64(next as f64 / n as f64) {
            let sp = &specs[next];
            let text = std::fs::read_to_string(&sp.file).unwrap();
            let key = format!("soak-{next}");
            let c = live.client(USERS[sp.user].1);
            match r.block_on(c.submit_keyed(&sp.output, &text, false, &key)) {
                Ok(s) => {
                    assert!(ids.insert(s.id, next).is_none(), "id {} twice", s.id);
                    next += 1;
                }
                Err(e) if e.status.is_none() => break, // the master is down
                Err(e) => panic!("{}: {e:?}", sp.output),
            }
        }
        if chaos {
            match down_worker {
                Some((k, at)) if now >= at => {
                    live.restart_worker(k);
                    down_worker = None;
                }
                Some(_) => {}
                None if now >= next_kill => {
                    if out.master_restarts == 0 && next >= n / 2 {
                        // Once, half-way through the submissions.
                        live.restart_master(WORKERS);
                        out.master_restarts += 1;
                    } else {
                        let k = rng.random_range(0..WORKERS);
                        live.kill_worker(k);
                        out.worker_kills += 1;
                        down_worker = Some((k, now + down));
                    }
                    next_kill = Instant::now() + gap(&mut rng);
                }
                None => {}
            }
        }
        if next == n && down_worker.is_none() {
            let all = r.block_on(live.client(ALICE).jobs());
            if all.is_ok_and(|js| js.iter().all(|j| j.finished_s.is_some())) {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    out.secs = t0.elapsed().as_secs_f64();

    // Exactly once: the submitted ids and no other job, each succeeded
    // with its owner, and each output the sequential computation's.
    let c = live.client(ALICE);
    let all = r.block_on(c.jobs()).unwrap();
    let got: Vec<u32> = all.iter().map(|j| j.id).collect();
    assert_eq!(
        got,
        ids.keys().copied().collect::<Vec<_>>(),
        "no job lost, none extra"
    );
    for j in &all {
        let sp = &specs[ids[&j.id]];
        assert_eq!(j.status, "succeeded", "{j:?}");
        assert_eq!(
            (j.user.as_str(), j.output.as_str()),
            (USERS[sp.user].0, sp.output.as_str())
        );
        let want = sequential(&sp.program, inputs[sp.input].as_bytes(), sp.reduces)
            .unwrap()
            .concat();
        assert!(
            r.block_on(c.read(&sp.output)).unwrap() == want,
            "job {}: output differs",
            j.id
        );
    }
    out.mean_job_s = all
        .iter()
        .map(|j| j.finished_s.unwrap_or(j.submitted_s) - j.submitted_s)
        .sum::<f64>()
        / n as f64;
    // Every block back at its file's replication, none lost.
    wait_for("every block at full replication", || {
        r.block_on(c.replication())
            .is_ok_and(|v| v.under_replicated == 0 && v.lost.is_empty())
    });
    let v = r.block_on(c.replication()).unwrap();
    out.bytes_rereplicated = v.bytes_copied;
    out.blocks_rereplicated = v.blocks_copied;
    out
}

#[test]
fn every_job_succeeds_once_under_worker_and_master_kills() {
    let reference = (knob("BASELINE", 0) == 1).then(|| soak(false));
    let run = soak(true);
    println!(
        "soak: {} jobs from {} users, {} worker kills, {} master restart; all ended in {:.1} s, mean job {:.2} s{}; {} blocks ({} bytes) re-replicated",
        run.jobs,
        USERS.len(),
        run.worker_kills,
        run.master_restarts,
        run.secs,
        run.mean_job_s,
        reference
            .map(|f| format!(
                " (fault-free: {:.1} s, mean job {:.2} s, x{:.2})",
                f.secs,
                f.mean_job_s,
                run.mean_job_s / f.mean_job_s
            ))
            .unwrap_or_default(),
        run.blocks_rereplicated,
        run.bytes_rereplicated
    );
    assert_eq!(run.master_restarts, 1, "{run:?}");
    assert!(run.worker_kills >= 1, "{run:?}");
}
