//! Data integrity on the live cluster: checksums catch corrupt block
//! replicas and map output partitions, which are read from elsewhere or
//! re-made; lost and corrupt replicas are re-created; a block with no
//! replica left is named and fails the jobs that need it.
//!
//! The cluster here (unlike `common::TestCluster`) knows its workers'
//! addresses and can stop and restart single workers and the master.

mod common;

use common::*;
use mrsched_model::{Cluster, NodeId};
use mrsched_runtime::client::{render_ls, Client};
use mrsched_runtime::master::core::{MasterSettings, SchedulerFactory};
use mrsched_runtime::master::metrics::ScrapeAuth;
use mrsched_runtime::master::{open_core, run_master, MasterConfig};
use mrsched_runtime::program::{sequential, Program};
use mrsched_runtime::proto::FileView;
use mrsched_runtime::worker::{run_worker, WorkerConfig};
use mrsched_sched::Scheduler;
use mrsched_state::{ClusterState, Launch};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

const WAIT: Duration = Duration::from_secs(60);

struct Live {
    alice: Client,
    dir: tempfile::TempDir,
    master: MasterConfig,
    factory: Option<SchedulerFactory>,
    master_stop: Option<oneshot::Sender<()>>,
    workers: Vec<WorkerConfig>,
    worker_stops: Vec<Option<oneshot::Sender<()>>>,
}

impl Live {
    async fn start(settings: MasterSettings, factory: Option<SchedulerFactory>) -> Live {
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let master = MasterConfig {
            dir: dir.path().join("master"),
            listen: format!("127.0.0.1:{port}").parse().unwrap(),
            secret: SECRET.into(),
            users: users(),
            settings: settings.clone(),
            metrics: ScrapeAuth::default(),
            tls: Default::default(),
        };
        let url = format!("http://127.0.0.1:{port}");
        let workers = (0..settings.workers)
            .map(|k| WorkerConfig {
                master: url.clone(),
                dir: dir.path().join(format!("worker-{k}")),
                name: Some(format!("w{k}")),
                rack: format!("rack-{}", k % 2),
                map_slots: 2,
                reduce_slots: 1,
                listen: format!("127.0.0.1:{}", free_port()).parse().unwrap(),
                advertise: None,
                secret: SECRET.into(),
                tls: Default::default(),
            })
            .collect::<Vec<_>>();
        let mut c = Live {
            alice: Client::new(&url, Some(ALICE.into())),
            dir,
            master,
            factory,
            master_stop: None,
            worker_stops: workers.iter().map(|_| None).collect(),
            workers,
        };
        c.start_master().await;
        for k in 0..c.workers.len() {
            c.start_worker(k);
        }
        c.until("the cluster forms", || async {
            c.alice.health().await.is_ok_and(|h| h.ready)
        })
        .await;
        c
    }

    /// Start the master; after a stop, its journal opens once the stopped
    /// master's last handles on it are gone.
    async fn start_master(&mut self) {
        let t0 = Instant::now();
        let core = loop {
            match open_core(&self.master, self.factory.clone()) {
                Ok(core) => break core,
                Err(e) if t0.elapsed() < WAIT => {
                    let _ = e;
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Err(e) => panic!("the master does not start again: {e}"),
            }
        };
        let (tx, rx) = oneshot::channel::<()>();
        self.master_stop = Some(tx);
        tokio::spawn(run_master(self.master.clone(), core, async {
            let _ = rx.await;
        }));
    }

    fn stop_master(&mut self) {
        if let Some(s) = self.master_stop.take() {
            let _ = s.send(());
        }
    }

    fn start_worker(&mut self, k: usize) {
        let (tx, rx) = oneshot::channel::<()>();
        self.worker_stops[k] = Some(tx);
        tokio::spawn(run_worker(self.workers[k].clone(), async {
            let _ = rx.await;
        }));
    }

    fn stop_worker(&mut self, k: usize) {
        if let Some(s) = self.worker_stops[k].take() {
            let _ = s.send(());
        }
    }

    /// Data-server URL of worker `name` (`wK`).
    fn addr(&self, name: &str) -> String {
        format!("http://{}", self.workers[index(name)].listen)
    }

    /// Path of a block replica on worker `name`.
    fn replica(&self, name: &str, block: u64) -> PathBuf {
        self.dir
            .path()
            .join(format!("worker-{}", index(name)))
            .join("blocks")
            .join(block.to_string())
    }

    /// Wait for `cond`, failing the test after [`WAIT`].
    async fn until<F, Fut>(&self, what: &str, mut cond: F)
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = bool>,
    {
        let t0 = Instant::now();
        while !cond().await {
            assert!(t0.elapsed() < WAIT, "timed out waiting until {what}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    fn stop(mut self) {
        for k in 0..self.workers.len() {
            self.stop_worker(k);
        }
        self.stop_master();
    }
}

fn index(name: &str) -> usize {
    name.trim_start_matches('w').parse().unwrap()
}

fn flip_byte(path: &std::path::Path, at: usize) {
    let mut d = std::fs::read(path).unwrap();
    let at = at % d.len();
    d[at] ^= 0x01;
    std::fs::write(path, d).unwrap();
}

/// The bytes of each block of `text` as `dfs put` cut it.
fn blocks_of(f: &FileView, text: &str) -> Vec<Vec<u8>> {
    let mut off = 0usize;
    f.blocks
        .iter()
        .map(|(_, bytes, _)| {
            let b = text.as_bytes()[off..off + *bytes as usize].to_vec();
            off += *bytes as usize;
            b
        })
        .collect()
}

fn job_toml(input: &str, output: &str, reduces: u32) -> String {
    format!(
        "input = \"{input}\"\noutput = \"{output}\"\nreduces = {reduces}\nreduce_slowstart = 1.0\n[program]\nkind = \"wordcount\"\n"
    )
}

/// Every block has `want` live replicas on distinct workers, each of
/// which holds exactly the block's bytes.
fn assert_fully_replicated(c: &Live, f: &FileView, text: &str, want: usize) {
    for (i, ((id, _, holders), data)) in f.blocks.iter().zip(blocks_of(f, text)).enumerate() {
        assert!(
            f.live[i] as usize >= want,
            "block {i}: {} live replicas",
            f.live[i]
        );
        for h in holders {
            if let Ok(on_disk) = std::fs::read(c.replica(h, *id)) {
                assert_eq!(on_disk, data, "block {i} on {h}");
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn corrupt_replicas_are_read_around_dropped_and_made_again() {
    let mut s = settings(3);
    s.replication = 2;
    let c = Live::start(s, None).await;
    let text = corpus(2000);
    put(&c.alice, "corpus", &text, 6 * 1024).await;
    let f = c.alice.stat("corpus").await.unwrap();
    assert!(f.blocks.len() >= 3, "{} blocks", f.blocks.len());
    assert_eq!(f.replication, 2);
    // The replica `dfs cat` reads first (the master tries live holders in
    // address order) is the one made corrupt, for every block.
    let mut bad = Vec::new();
    for (id, _, holders) in &f.blocks {
        let first = holders
            .iter()
            .min_by_key(|h| c.addr(h))
            .expect("a holder")
            .clone();
        flip_byte(&c.replica(&first, *id), *id as usize * 7919);
        bad.push((*id, first));
    }
    // (a) The content is still exact.
    assert_eq!(c.alice.read("corpus").await.unwrap(), text.as_bytes());
    // (c) Each corrupt replica was dropped and another one made.
    c.until("every corrupt replica is reported", || async {
        c.alice
            .replication()
            .await
            .is_ok_and(|r| r.corrupt_replicas == bad.len() as u64)
    })
    .await;
    c.until("every block is back at two replicas", || async {
        c.alice
            .replication()
            .await
            .is_ok_and(|r| r.under_replicated == 0 && r.copies_in_flight == 0)
    })
    .await;
    let f = c.alice.stat("corpus").await.unwrap();
    assert_fully_replicated(&c, &f, &text, 2);
    let r = c.alice.replication().await.unwrap();
    assert_eq!(
        r.blocks_copied,
        bad.len() as u64,
        "one copy per bad replica"
    );
    assert_eq!(r.bytes_copied, text.len() as u64);
    // (b) Corrupt one replica of every block again: a job reading the file
    // still gets exact output.
    for (id, _, holders) in &f.blocks {
        flip_byte(&c.replica(&holders[0], *id), 3);
    }
    let sub = c
        .alice
        .submit("wc.toml", &job_toml("corpus", "wc", 2), false)
        .await
        .unwrap();
    let j = c.alice.wait(sub.id, WAIT).await.unwrap();
    assert_eq!(j.status, "succeeded", "{j:?}");
    let want = sequential(&Program::Wordcount, text.as_bytes(), 2)
        .unwrap()
        .concat();
    assert_eq!(c.alice.read("wc").await.unwrap(), want);
    c.stop();
}

/// FIFO that launches no reduce until the test opens the gate.
struct ReduceGate {
    inner: mrsched_sched::policies::fifo::Fifo,
    open: Arc<AtomicBool>,
}

impl Scheduler for ReduceGate {
    fn name(&self) -> String {
        "reduce-gate".into()
    }
    fn on_event(&mut self, st: &ClusterState, ev: &mrsched_state::StateEvent) {
        self.inner.on_event(st, ev)
    }
    fn assign(&mut self, st: &ClusterState, node: NodeId) -> Option<Launch> {
        match self.inner.assign(st, node) {
            Some(Launch::Reduce { .. }) if !self.open.load(Ordering::Relaxed) => None,
            l => l,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_corrupt_map_output_partition_runs_its_map_again() {
    let open = Arc::new(AtomicBool::new(false));
    let gate = open.clone();
    let factory: SchedulerFactory = Arc::new(move |_c: &Cluster| {
        Box::new(ReduceGate {
            inner: mrsched_sched::policies::fifo::Fifo::new(),
            open: gate.clone(),
        }) as Box<dyn Scheduler>
    });
    // The test counts map attempts exactly, so a worker must not be
    // declared lost for silence alone: on a loaded machine a 1.5 s timeout
    // can pass while a worker waits for a thread, and all its maps would
    // run again. Loss detection has its own tests (`live_faults.rs`).
    let mut s = settings(2);
    s.worker_timeout = Duration::from_secs(30);
    let c = Live::start(s, Some(factory)).await;
    let text = corpus(1500);
    put(&c.alice, "corpus", &text, 8 * 1024).await;
    let sub = c
        .alice
        .submit("wc.toml", &job_toml("corpus", "wc", 2), false)
        .await
        .unwrap();
    c.until("every map is done", || async {
        let j = c.alice.job(sub.id).await.unwrap();
        j.maps_done == j.maps
    })
    .await;
    let maps = c.alice.job(sub.id).await.unwrap().maps;
    // Damage every non-empty partition of one map's output.
    let out = c.dir.path().join(format!("worker-0/outputs/{}", sub.id));
    let outs = std::fs::read_dir(&out)
        .map(|d| d.flatten().map(|e| e.path()).collect::<Vec<_>>())
        .unwrap_or_default();
    let (victim, dir) = match outs.first() {
        Some(d) => (0, d.clone()),
        None => {
            let out = c.dir.path().join(format!("worker-1/outputs/{}", sub.id));
            let d = std::fs::read_dir(&out).unwrap().flatten().next().unwrap();
            (1, d.path())
        }
    };
    let mut damaged = 0;
    for p in 0..2 {
        let f = dir.join(p.to_string());
        if std::fs::metadata(&f).unwrap().len() > 0 {
            flip_byte(&f, 11);
            damaged += 1;
        }
    }
    assert!(damaged > 0, "map output on worker {victim} has data");
    open.store(true, Ordering::Relaxed);
    let j = c.alice.wait(sub.id, WAIT).await.unwrap();
    assert_eq!(j.status, "succeeded", "{j:?}");
    let want = sequential(&Program::Wordcount, text.as_bytes(), 2)
        .unwrap()
        .concat();
    assert_eq!(c.alice.read("wc").await.unwrap(), want);
    let attempts = c.alice.attempts(sub.id).await.unwrap();
    let map_attempts = attempts
        .iter()
        .filter(|a| a.kind == "map" && a.state == "succeeded")
        .count();
    assert_eq!(
        map_attempts,
        maps as usize + 1,
        "exactly the damaged map ran again"
    );
    c.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_worker_s_blocks_are_copied_back_to_full_replication() {
    let mut s = settings(4);
    s.replication = 2;
    let mut c = Live::start(s, None).await;
    let text = corpus(2500);
    put(&c.alice, "corpus", &text, 6 * 1024).await;
    let f = c.alice.stat("corpus").await.unwrap();
    let on_w0 = f
        .blocks
        .iter()
        .filter(|b| b.2.contains(&"w0".into()))
        .count();
    assert!(on_w0 > 0, "w0 holds some blocks");
    c.stop_worker(0);
    c.until("w0 is lost and its blocks copied again", || async {
        let h = c.alice.health().await.unwrap();
        let r = c.alice.replication().await.unwrap();
        h.workers == 3 && r.under_replicated == 0 && r.copies_in_flight == 0
    })
    .await;
    let f = c.alice.stat("corpus").await.unwrap();
    assert_fully_replicated(&c, &f, &text, 2);
    let workers = c.alice.workers().await.unwrap();
    let rack_of = |n: &str| workers.iter().find(|w| w.name == n).unwrap().rack.clone();
    for (i, (_, _, holders)) in f.blocks.iter().enumerate() {
        let mut racks: Vec<String> = holders
            .iter()
            .filter(|h| *h != "w0")
            .map(|h| rack_of(h))
            .collect();
        racks.sort();
        racks.dedup();
        assert_eq!(racks.len(), 2, "block {i} spans both racks: {holders:?}");
    }
    let r = c.alice.replication().await.unwrap();
    assert_eq!(r.blocks_copied, on_w0 as u64);
    assert!(r.bytes_copied > 0);
    assert_eq!(c.alice.read("corpus").await.unwrap(), text.as_bytes());
    assert!(render_ls(&c.alice.ls().await.unwrap()).contains("corpus"));

    // w0 comes back with its old blocks: they count again (kept, not
    // deleted).
    c.start_worker(0);
    c.until("w0 holds its blocks again", || async {
        let f = c.alice.stat("corpus").await.unwrap();
        f.live.iter().filter(|&&n| n == 3).count() == on_w0
    })
    .await;

    // After a master restart the locations come from the journal and the
    // workers' registrations: the same holders, nothing to copy.
    let before = c.alice.stat("corpus").await.unwrap();
    c.stop_master();
    c.until("the master is down", || async {
        c.alice.health().await.is_err()
    })
    .await;
    c.start_master().await;
    c.until("every worker registered again", || async {
        c.alice.health().await.is_ok_and(|h| h.workers == 4)
    })
    .await;
    let after = c.alice.stat("corpus").await.unwrap();
    let holders = |f: &FileView| {
        f.blocks
            .iter()
            .map(|b| {
                let mut h = b.2.clone();
                h.sort();
                h
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(holders(&after), holders(&before));
    let r = c.alice.replication().await.unwrap();
    assert_eq!(r.under_replicated, 0);
    assert_eq!(
        r.blocks_copied, on_w0 as u64,
        "copies are counted since the cluster started"
    );
    assert_eq!(c.alice.read("corpus").await.unwrap(), text.as_bytes());
    c.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_block_with_no_replica_left_is_named_and_fails_the_job() {
    let mut c = Live::start(settings(3), None).await;
    let text = corpus(1500);
    let mut r = std::io::BufReader::new(text.as_bytes());
    c.alice.put(&mut r, "single", 4 * 1024, 1).await.unwrap();
    put(&c.alice, "corpus", &text, 8 * 1024).await;
    let f = c.alice.stat("single").await.unwrap();
    let (i, (id, _, holders)) = f
        .blocks
        .iter()
        .enumerate()
        .find(|(_, b)| b.2 == ["w1"])
        .or_else(|| f.blocks.iter().enumerate().next())
        .map(|(i, b)| (i, b.clone()))
        .unwrap();
    let k = index(&holders[0]);
    c.stop_worker(k);
    c.until("the worker is lost", || async {
        c.alice.health().await.is_ok_and(|h| h.workers == 2)
    })
    .await;
    let ls = render_ls(&c.alice.ls().await.unwrap());
    eprintln!("dfs ls:\n{ls}");
    let named = format!("file single: block {i} (id {id}) has no replica left");
    assert!(ls.contains(&named), "{ls}");
    assert!(ls.contains("under-replicated:"), "{ls}");
    let r = c.alice.replication().await.unwrap();
    assert!(r.lost.contains(&("single".to_string(), i as u32, id)));
    // Reading it fails with a clear error, and so does a job.
    let e = c.alice.read("single").await.unwrap_err();
    assert!(e.to_string().contains(&id.to_string()), "{e}");
    let sub = c
        .alice
        .submit("wc.toml", &job_toml("single", "out", 1), false)
        .await
        .unwrap();
    let j = c.alice.wait(sub.id, WAIT).await.unwrap();
    assert_eq!(j.status, "failed", "{j:?}");
    let reason = j.reason.unwrap_or_default();
    assert!(reason.contains("has no replica left"), "{reason}");
    assert!(reason.contains(&format!("block {i} (id {id})")), "{reason}");
    assert!(c.alice.stat("out").await.is_err(), "no output left behind");
    c.stop();
}
