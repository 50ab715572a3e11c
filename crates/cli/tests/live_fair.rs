//! Two users' jobs on a real local cluster under the Fair Scheduler with
//! delay scheduling (`--scheduler fair+delay`): while both have pending
//! maps, each holds half the map slots, and most maps are node-local.

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

#[test]
fn two_users_share_the_cluster_under_fair_with_delay() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("secret"), "cluster-secret-0123456789").unwrap();
    std::fs::write(
        d.join("users.toml"),
        "[users.alice]\ntoken = \"alice-token-0123456789\"\n[users.bob]\ntoken = \"bob-token-0123456789ab\"\n",
    )
    .unwrap();
    let mut procs = Kill(Vec::new());
    procs.0.push(
        Command::new(BIN)
            .args([
                "master",
                "--listen",
                "127.0.0.1:0",
                "--workers",
                "3",
                "--scheduler",
                "fair+delay",
            ])
            .args([
                "--heartbeat-ms",
                "50",
                "--worker-timeout-ms",
                "1000",
                "--replication",
                "2",
            ])
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
            panic!("the master exited ({st}): is the `fair+delay` preset registered?");
        }
        assert!(t0.elapsed() < Duration::from_secs(30));
        std::thread::sleep(Duration::from_millis(20));
    }
    let url = std::fs::read_to_string(d.join("m/addr")).unwrap();
    for k in 0..3 {
        procs.0.push(
            Command::new(BIN)
                .args(["worker", "--master", &url, "--map-slots", "2", "--name"])
                .arg(format!("w{k}"))
                .arg("--rack")
                .arg(format!("rack-{}", k % 2))
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
    let alice = Client::new(&url, Some("alice-token-0123456789".into()));
    let bob = Client::new(&url, Some("bob-token-0123456789ab".into()));
    while !rt.block_on(alice.health()).is_ok_and(|h| h.ready) {
        assert!(t0.elapsed() < Duration::from_secs(60));
        std::thread::sleep(Duration::from_millis(20));
    }
    let text: String = (0..6000)
        .map(|i| format!("line {i} of the input\n"))
        .collect();
    rt.block_on(alice.put(&mut text.as_bytes(), "data", 4 * 1024, 2))
        .unwrap();
    let job = |out: &str| {
        format!("input = \"data\"\noutput = \"{out}\"\nreduces = 1\n[program]\nkind = \"streaming\"\nmapper = \"sleep 0.15; cat\"\nreducer = \"wc -l\"\n")
    };
    let a = rt
        .block_on(alice.submit("a", &job("a-out"), false))
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let b = rt.block_on(bob.submit("b", &job("b-out"), false)).unwrap();
    let (mut both, mut fair) = (0, 0);
    loop {
        let p = rt.block_on(alice.pools()).unwrap();
        let busy: Vec<(u32, u32)> = p
            .pools
            .iter()
            .map(|x| (x.running_maps, x.pending_maps))
            .collect();
        if busy.len() == 2 && busy.iter().all(|&(_, pend)| pend > 0) {
            both += 1;
            // 6 map slots: 3 each, give or take the slot in transit.
            if busy.iter().all(|&(run, _)| (2..=4).contains(&run)) {
                fair += 1;
            }
        }
        let sa = rt.block_on(alice.job(a.id)).unwrap().status;
        let sb = rt.block_on(alice.job(b.id)).unwrap().status;
        if sa != "running" && sb != "running" {
            assert_eq!((sa.as_str(), sb.as_str()), ("succeeded", "succeeded"));
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(120));
        std::thread::sleep(Duration::from_millis(40));
    }
    assert!(both >= 5, "both users had pending maps in {both} samples");
    assert!(fair * 10 >= both * 7, "fair in {fair} of {both} samples");
    let report = rt.block_on(alice.report()).unwrap();
    let loc = &report.summary.locality;
    assert!(
        loc.node >= 0.8,
        "delay scheduling keeps maps local: {loc:?}"
    );
}
