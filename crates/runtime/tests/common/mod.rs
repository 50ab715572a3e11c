//! An in-process live cluster for tests: a master and workers as tasks of
//! one tokio runtime, talking HTTP over loopback.

#![allow(dead_code)]

use mrsched_runtime::client::Client;
use mrsched_runtime::master::core::{MasterSettings, SchedulerFactory, User};
use mrsched_runtime::master::metrics::ScrapeAuth;
use mrsched_runtime::master::{open_core, run_master, MasterConfig, Users};
use mrsched_runtime::worker::{run_worker, WorkerConfig};
use mrsched_sched::SchedulerConfig;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

pub mod browser;

pub const SECRET: &str = "test-secret-0123456789";
pub const ALICE: &str = "alice-token-0123456789";
pub const BOB: &str = "bob-token-0123456789ab";
pub const SCRAPE: &str = "scrape-token-0123456789";

pub struct TestCluster {
    pub url: String,
    pub alice: Client,
    pub bob: Client,
    pub dir: tempfile::TempDir,
    stops: Vec<oneshot::Sender<()>>,
}

/// A free loopback port below the kernel's ephemeral range (32768 and up
/// on Linux), for a cluster whose master and workers must keep their ports
/// across restarts: a port from the ephemeral range, found free and
/// released, could meanwhile go to any socket's outgoing connection. Each
/// test process starts probing at a different port, and each call after
/// the last port handed out (several are taken before any is bound).
pub fn free_port() -> u16 {
    static CALLS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let span = 12_000u32;
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let first = std::process::id()
        .wrapping_mul(7919)
        .wrapping_add(call * 17)
        % span;
    (0..span)
        .map(|k| (20_000 + (first + k) % span) as u16)
        .find(|p| std::net::TcpListener::bind(("127.0.0.1", *p)).is_ok())
        .expect("a free port between 20000 and 32000")
}

pub fn users() -> Users {
    let src = mrsched_model::Source::new(
        "users.toml",
        format!("[users.alice]\ntoken = \"{ALICE}\"\n[users.bob]\ntoken = \"{BOB}\"\n"),
        mrsched_model::Format::Toml,
    );
    Users::parse(&src).unwrap()
}

pub fn settings(workers: u32) -> MasterSettings {
    MasterSettings {
        workers,
        scheduler: SchedulerConfig::resolve("fifo").unwrap(),
        heartbeat: Duration::from_millis(50),
        worker_timeout: Duration::from_millis(1500),
        replication: 2,
        sort_buffer: 4096,
        max_attempts: 3,
        reduce_slowstart: 0.05,
        seed: 1,
        ..Default::default()
    }
}

impl TestCluster {
    pub async fn start(workers: u32, factory: Option<SchedulerFactory>) -> TestCluster {
        Self::start_with(settings(workers), factory).await
    }

    /// A cluster with these master settings.
    pub async fn start_with(
        settings: MasterSettings,
        factory: Option<SchedulerFactory>,
    ) -> TestCluster {
        let workers = settings.workers;
        let dir = tempfile::tempdir().unwrap();
        let cfg = MasterConfig {
            dir: dir.path().join("master"),
            listen: "127.0.0.1:0".parse().unwrap(),
            secret: SECRET.into(),
            users: users(),
            settings,
            metrics: ScrapeAuth {
                token: Some(SCRAPE.into()),
                unauthenticated: false,
            },
            tls: Default::default(),
        };
        let core = open_core(&cfg, factory).unwrap();
        let (tx, rx) = oneshot::channel::<()>();
        let mut stops = vec![tx];
        tokio::spawn(run_master(cfg, core, async {
            let _ = rx.await;
        }));
        let addr_file = dir.path().join("master/addr");
        let url = loop {
            if let Ok(u) = std::fs::read_to_string(&addr_file) {
                break u;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        };
        for k in 0..workers {
            let (tx, rx) = oneshot::channel::<()>();
            stops.push(tx);
            let wc = WorkerConfig {
                master: url.clone(),
                dir: dir.path().join(format!("worker-{k}")),
                name: Some(format!("w{k}")),
                rack: format!("rack-{}", k % 2),
                map_slots: 2,
                reduce_slots: 1,
                listen: "127.0.0.1:0".parse().unwrap(),
                advertise: None,
                secret: SECRET.into(),
                tls: Default::default(),
            };
            tokio::spawn(run_worker(wc, async {
                let _ = rx.await;
            }));
        }
        let alice = Client::new(&url, Some(ALICE.into()));
        let bob = Client::new(&url, Some(BOB.into()));
        for _ in 0..500 {
            if alice.health().await.is_ok_and(|h| h.ready) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(alice.health().await.unwrap().ready, "cluster formed");
        TestCluster {
            url,
            alice,
            bob,
            dir,
            stops,
        }
    }

    /// Stop worker `k` (0-based) at once: its data server closes (its
    /// port refuses connections), its heartbeats stop and its attempts are
    /// abandoned without reports, as a crashed worker's would be.
    pub fn stop_worker(&mut self, k: usize) {
        let (dummy, _) = oneshot::channel::<()>();
        let _ = std::mem::replace(&mut self.stops[k + 1], dummy).send(());
    }

    pub fn stop(self) {
        for s in self.stops {
            let _ = s.send(());
        }
    }
}

/// A text corpus of `lines` lines with a skewed vocabulary.
pub fn corpus(lines: usize) -> String {
    let words = [
        "the", "map", "reduce", "slot", "fair", "pool", "delay", "node", "rack", "block",
        "shuffle", "sort", "job", "task",
    ];
    let mut s = String::new();
    let mut x: u64 = 12345;
    for i in 0..lines {
        let n = 1 + (i % 7);
        for k in 0..n {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let w =
                words[((x >> 33) as usize % words.len()).min(((x >> 40) as usize) % words.len())];
            if k > 0 {
                s.push(' ');
            }
            s.push_str(w);
            if (x >> 20) & 3 == 0 {
                s.push_str(&format!("{}", (x >> 50) % 30));
            }
        }
        s.push('\n');
    }
    s
}

pub async fn put(c: &Client, name: &str, data: &str, block: u64) {
    let mut r = std::io::BufReader::new(data.as_bytes());
    c.put(&mut r, name, block, 2).await.unwrap();
}

pub fn admin() -> User {
    User {
        name: "alice".into(),
        admin: false,
    }
}

/// The files of a worker's block directory, each block's checksum sidecar
/// (`<id>.crc`) counted with its block: a sidecar without its block, or a
/// temporary file, shows under its own name.
pub fn block_files(dir: &std::path::Path) -> std::collections::BTreeSet<String> {
    let names: std::collections::BTreeSet<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names
        .iter()
        .filter(|n| !n.strip_suffix(".crc").is_some_and(|b| names.contains(b)))
        .cloned()
        .collect()
}

/// Block files on each worker's disk (checksum sidecars aside) are exactly the replicas the block
/// store lists, once deletions have reached the workers (deadline 10 s).
pub async fn assert_only_listed_blocks(c: &TestCluster, workers: u32) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let files = c.alice.ls().await.unwrap();
        let mut diff = Vec::new();
        for k in 0..workers {
            let want: BTreeSet<String> = files
                .iter()
                .flat_map(|f| f.blocks.iter())
                .filter(|b| b.2.contains(&format!("w{k}")))
                .map(|b| b.0.to_string())
                .collect();
            let have: BTreeSet<String> =
                block_files(&c.dir.path().join(format!("worker-{k}/blocks")));
            if want != have {
                diff.push((k, want, have));
            }
        }
        if diff.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "block files differ from the listing: {diff:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
