//! Jobs on a real local cluster under the Capacity Scheduler read from a
//! `capacity-scheduler.xml`: queue `a` (75%) and queue `b` (25%) both busy
//! hold 3 and 1 of the 4 map slots, `mrsched pools` shows each queue's
//! guarantee and maximum, and a stopped queue rejects with the reason.

use mrsched_runtime::client::Client;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_mrsched");

struct Kill(Vec<Child>);
impl Drop for Kill {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

const XML: &str = r#"<?xml version="1.0"?>
<configuration>
  <property><name>yarn.scheduler.capacity.root.queues</name><value>a,b,old</value></property>
  <property><name>yarn.scheduler.capacity.root.a.capacity</name><value>75</value></property>
  <property><name>yarn.scheduler.capacity.root.b.capacity</name><value>25</value></property>
  <property><name>yarn.scheduler.capacity.root.b.maximum-capacity</name><value>50</value></property>
  <property><name>yarn.scheduler.capacity.root.old.capacity</name><value>0</value></property>
  <property><name>yarn.scheduler.capacity.root.old.state</name><value>STOPPED</value></property>
</configuration>
"#;

#[test]
fn queues_hold_their_capacities_on_a_live_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("secret"), "cluster-secret-0123456789").unwrap();
    std::fs::write(
        d.join("users.toml"),
        "[users.alice]\ntoken = \"alice-token-0123456789\"\n",
    )
    .unwrap();
    std::fs::write(d.join("capacity-scheduler.xml"), XML).unwrap();
    let mut procs = Kill(Vec::new());
    procs.0.push(
        Command::new(BIN)
            .args(["master", "--listen", "127.0.0.1:0", "--workers", "2"])
            .arg("--scheduler")
            .arg(d.join("capacity-scheduler.xml"))
            .args(["--heartbeat-ms", "50", "--worker-timeout-ms", "1000"])
            .args(["--replication", "2"])
            .arg("--dir")
            .arg(d.join("m"))
            .arg("--secret-file")
            .arg(d.join("secret"))
            .arg("--users")
            .arg(d.join("users.toml"))
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let t0 = Instant::now();
    while !d.join("m/addr").exists() {
        if let Ok(Some(st)) = procs.0[0].try_wait() {
            panic!("the master exited ({st})");
        }
        assert!(t0.elapsed() < Duration::from_secs(30));
        std::thread::sleep(Duration::from_millis(20));
    }
    let url = std::fs::read_to_string(d.join("m/addr")).unwrap();
    for k in 0..2 {
        procs.0.push(
            Command::new(BIN)
                .args(["worker", "--master", &url, "--map-slots", "2", "--name"])
                .arg(format!("w{k}"))
                .arg("--dir")
                .arg(d.join(format!("w{k}")))
                .arg("--secret-file")
                .arg(d.join("secret"))
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        );
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    let c = Client::new(&url, Some("alice-token-0123456789".into()));
    while !rt.block_on(c.health()).is_ok_and(|h| h.ready) {
        assert!(t0.elapsed() < Duration::from_secs(60));
        std::thread::sleep(Duration::from_millis(20));
    }
    let text: String = (0..4000)
        .map(|i| format!("line {i} of the input\n"))
        .collect();
    rt.block_on(c.put(&mut text.as_bytes(), "data", 4 * 1024, 2))
        .unwrap();
    let job = |out: &str, queue: &str| {
        format!("input = \"data\"\noutput = \"{out}\"\npool = \"{queue}\"\nreduces = 1\n[program]\nkind = \"streaming\"\nmapper = \"sleep 0.15; cat\"\nreducer = \"wc -l\"\n")
    };
    let x = rt
        .block_on(c.submit("x", &job("x-out", "old"), false))
        .unwrap();
    assert_eq!(x.status, "rejected");
    let why = x.reason.unwrap_or_default();
    assert!(why.contains("queue `root.old` is STOPPED"), "{why}");
    let a = rt
        .block_on(c.submit("a", &job("a-out", "a"), false))
        .unwrap();
    let b = rt
        .block_on(c.submit("b", &job("b-out", "b"), false))
        .unwrap();
    let (mut both, mut held) = (0, 0);
    loop {
        let p = rt.block_on(c.pools()).unwrap();
        let q = |name: &str| p.pools.iter().find(|x| x.name == name).cloned();
        let (qa, qb) = (q("root.a").unwrap(), q("root.b").unwrap());
        assert_eq!((qa.min_share, qb.min_share), (3.0, 1.0));
        assert_eq!((qa.max_share, qb.max_share), (Some(4.0), Some(2.0)));
        if qa.pending_maps > 0 && qb.pending_maps > 0 {
            both += 1;
            // Give or take the slot in transit.
            if qa.running_maps <= 3 && qb.running_maps <= 2 {
                held += 1;
            }
        }
        let sa = rt.block_on(c.job(a.id)).unwrap().status;
        let sb = rt.block_on(c.job(b.id)).unwrap().status;
        if sa != "running" && sb != "running" {
            assert_eq!((sa.as_str(), sb.as_str()), ("succeeded", "succeeded"));
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(120));
        std::thread::sleep(Duration::from_millis(40));
    }
    assert!(both >= 5, "both queues had pending maps in {both} samples");
    assert!(
        held * 10 >= both * 9,
        "within capacity in {held} of {both} samples"
    );
}
