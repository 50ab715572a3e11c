//! A real local cluster for the command-line tests: a master and worker
//! processes of the built `mrsched` binary on loopback, with short
//! heartbeats, three users, and the faults the tests inject (`kill -9` of a
//! worker or of the master, restarts on the same directories). One harness
//! for the live cluster, restart and soak tests, so a fix to how processes
//! are started or waited for reaches all of them.

use mrsched_runtime::client::Client;
use mrsched_runtime::program::Program;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The `mrsched` binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_mrsched");
/// The users of every test cluster: name and token.
pub const USERS: [(&str, &str); 3] = [
    ("alice", ALICE),
    ("bob", BOB),
    ("carol", "carol-token-0123456789"),
];
/// Alice's token.
pub const ALICE: &str = "alice-token-0123456789";
/// Bob's token.
pub const BOB: &str = "bob-token-0123456789ab";
/// How long a test waits for anything.
pub const WAIT: Duration = Duration::from_secs(240);

/// A running cluster; its processes are killed when it is dropped.
pub struct Live {
    /// Work directory: `master/`, `w<k>/`, the secret and the users file.
    pub dir: tempfile::TempDir,
    /// The master process, while it runs.
    pub master: Option<Child>,
    /// Worker `k`'s process, while it runs.
    pub workers: Vec<Option<Child>>,
    /// The master's URL.
    pub url: String,
    master_args: Vec<String>,
}

impl Drop for Live {
    fn drop(&mut self) {
        for c in self.workers.iter_mut().flatten() {
            let _ = c.kill();
            let _ = c.wait();
        }
        if let Some(m) = self.master.as_mut() {
            let _ = m.kill();
            let _ = m.wait();
        }
    }
}

/// Wait until `f` holds, at most [`WAIT`].
pub fn wait_for(what: &str, mut f: impl FnMut() -> bool) {
    let t0 = Instant::now();
    while !f() {
        assert!(t0.elapsed() < WAIT, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A runtime for the client's async calls.
pub fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A free loopback port below the kernel's ephemeral range (32768 and up
/// on Linux): a master restarted on its old port must find it free, and a
/// port from the ephemeral range could meanwhile go to another test's
/// socket. Each test process starts probing at a different port.
pub fn free_port() -> u16 {
    let span = 12_000u32;
    let first = std::process::id() % span;
    (0..span)
        .map(|k| (20_000 + (first + k) % span) as u16)
        .find(|p| std::net::TcpListener::bind(("127.0.0.1", *p)).is_ok())
        .expect("a free port between 20000 and 32000")
}

impl Live {
    /// A master (the tests' settings, see `settings`, and `master_args`)
    /// and `workers` workers on two racks; returns when the
    /// cluster has formed.
    pub fn start(workers: usize, master_args: &[&str]) -> Live {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("secret"), "cluster-secret-0123456789").unwrap();
        let users: String = USERS
            .iter()
            .map(|(u, t)| format!("[users.{u}]\ntoken = \"{t}\"\n"))
            .collect();
        std::fs::write(dir.path().join("users.toml"), users).unwrap();
        let mut live = Live {
            dir,
            master: None,
            workers: Vec::new(),
            url: String::new(),
            master_args: master_args.iter().map(|s| s.to_string()).collect(),
        };
        live.start_master(&format!("127.0.0.1:{}", free_port()), workers);
        for k in 0..workers {
            let c = live.spawn_worker(k);
            live.workers.push(Some(c));
        }
        live.wait_ready(workers);
        live
    }

    /// A path in the work directory.
    pub fn path(&self, p: &str) -> PathBuf {
        self.dir.path().join(p)
    }

    /// Start the master on `listen` (its log is appended to `master.log`).
    pub fn start_master(&mut self, listen: &str, workers: usize) {
        let addr = self.path("master/addr");
        let _ = std::fs::remove_file(&addr);
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.path("master.log"))
            .unwrap();
        let child = Command::new(BIN)
            .args(["master", "--listen", listen, "--workers"])
            .arg(workers.to_string())
            .arg("--dir")
            .arg(self.path("master"))
            .arg("--secret-file")
            .arg(self.path("secret"))
            .arg("--users")
            .arg(self.path("users.toml"))
            .args(self.settings())
            .stderr(log)
            .spawn()
            .unwrap();
        self.master = Some(child);
        wait_for("the master's address", || addr.exists());
        self.url = std::fs::read_to_string(addr).unwrap();
    }

    /// Start worker `k` (name `w<k>`, rack `rack-<k % 2>`, its own
    /// directory, kept across restarts).
    pub fn spawn_worker(&self, k: usize) -> Child {
        Command::new(BIN)
            .args(["worker", "--master", &self.url, "--name"])
            .arg(format!("w{k}"))
            .arg("--rack")
            .arg(format!("rack-{}", k % 2))
            .arg("--dir")
            .arg(self.path(&format!("w{k}")))
            .arg("--secret-file")
            .arg(self.path("secret"))
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    }

    /// Wait until the cluster has formed with `workers` workers.
    pub fn wait_ready(&self, workers: usize) {
        let c = self.client(ALICE);
        let r = rt();
        wait_for("the cluster to form", || {
            r.block_on(c.health())
                .is_ok_and(|h| h.ready && h.workers == workers as u32)
        });
    }

    /// A client of the user with `token`.
    pub fn client(&self, token: &str) -> Client {
        Client::new(&self.url, Some(token.to_string()))
    }

    /// `kill -9` of worker `k` (no goodbye: the master must notice).
    pub fn kill_worker(&mut self, k: usize) {
        if let Some(mut w) = self.workers[k].take() {
            w.kill().unwrap();
            w.wait().unwrap();
        }
    }

    /// Start worker `k` again on its old directory.
    pub fn restart_worker(&mut self, k: usize) {
        let c = self.spawn_worker(k);
        self.workers[k] = Some(c);
    }

    /// `kill -9` of the master.
    pub fn kill_master(&mut self) {
        if let Some(mut m) = self.master.take() {
            m.kill().unwrap();
            m.wait().unwrap();
        }
    }

    /// `kill -9` of the master, then a new master on the same port and
    /// directory; returns when every worker has registered again.
    pub fn restart_master(&mut self, workers: usize) {
        let port = self.url.rsplit(':').next().unwrap().to_string();
        self.kill_master();
        self.start_master(&format!("127.0.0.1:{port}"), workers);
        self.wait_ready(workers);
    }

    /// Run the CLI against this cluster as `token`'s user.
    pub fn cli(&self, token: &str, args: &[&str]) -> Output {
        Command::new(BIN)
            .args(args)
            .env("MRSCHED_MASTER", &self.url)
            .env("MRSCHED_TOKEN", token)
            .current_dir(self.dir.path())
            .output()
            .unwrap()
    }

    /// The master's settings: the tests' defaults (50 ms heartbeats, a
    /// worker silent for 1 s is lost, replication 2, a tiny sort buffer)
    /// where `master_args` does not set them, then `master_args`.
    fn settings(&self) -> Vec<String> {
        let defaults = [
            ("--heartbeat-ms", "50"),
            ("--worker-timeout-ms", "1000"),
            ("--replication", "2"),
            ("--sort-buffer-mb", "0.01"),
        ];
        let mut v: Vec<String> = defaults
            .iter()
            .filter(|(flag, _)| !self.master_args.iter().any(|a| a == flag))
            .flat_map(|(flag, value)| [flag.to_string(), value.to_string()])
            .collect();
        v.extend(self.master_args.iter().cloned());
        v
    }

    /// Write a file in the work directory.
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.path(name);
        std::fs::write(&p, text).unwrap();
        p
    }
}

/// A deterministic text corpus of `lines` lines: a few words, some with
/// numbers, 1-6 words a line.
pub fn corpus(lines: usize, seed: u64) -> String {
    let words = [
        "alpha", "beta", "gamma", "delta", "map", "reduce", "pool", "slot", "node", "rack",
    ];
    let mut s = String::new();
    let mut x: u64 = seed;
    for i in 0..lines {
        for k in 0..(1 + i % 6) {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            if k > 0 {
                s.push(' ');
            }
            s.push_str(words[(x >> 35) as usize % words.len()]);
            if (x >> 13) & 3 == 0 {
                s.push_str(&((x >> 45) % 50).to_string());
            }
        }
        s.push('\n');
    }
    s
}

/// A job file's text.
pub fn job(input: &str, output: &str, reduces: u32, program: &str) -> String {
    format!(
        "input = \"{input}\"\noutput = \"{output}\"\nreduces = {reduces}\n[program]\n{program}\n"
    )
}

/// Its stdout; the run must have succeeded.
pub fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// Its stderr; the run must have exited with `code`.
pub fn err(o: &Output, code: i32) -> String {
    let e = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(code), "stderr: {e}");
    e
}

/// One submitted job: who, what, and what its output must be.
pub struct Spec {
    /// Index in [`USERS`] of its owner.
    pub user: usize,
    /// Its job file.
    pub file: PathBuf,
    /// Output file name.
    pub output: String,
    /// Input `in<input>`.
    pub input: usize,
    /// Reduces.
    pub reduces: u32,
    /// Its program, for the sequential computation.
    pub program: Program,
}

/// Job `k`: one of five kinds (wordcount, grep, sort, loadgen, and a
/// streaming job whose maps sleep, so that some work is always running).
pub fn spec(dir: &Path, k: usize) -> Spec {
    let input = k % 2;
    let output = format!("out-{k}");
    let (program, text, reduces) = match k % 5 {
        0 => (Program::Wordcount, "kind = \"wordcount\"".to_string(), 2),
        1 => (
            Program::Grep {
                pattern: "alpha".into(),
            },
            "kind = \"grep\"\npattern = \"alpha\"".to_string(),
            1,
        ),
        2 => (Program::Sort, "kind = \"sort\"".to_string(), 2),
        3 => (
            Program::Loadgen {
                keep_map: 50.0,
                keep_reduce: 100.0,
                cpu_per_record: 200,
            },
            "kind = \"loadgen\"\nkeep_map = 50\nkeep_reduce = 100\ncpu_per_record = 200"
                .to_string(),
            1,
        ),
        _ => {
            let mapper = "sleep 0.2; awk '{print $1 \"\\t\" NF}'";
            let reducer =
                "awk -F '\\t' '{s[$1]+=$2} END {for (k in s) print k \"\\t\" s[k]}' | sort";
            let esc = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
            (
                Program::Streaming {
                    mapper: mapper.into(),
                    reducer: reducer.into(),
                },
                format!(
                    "kind = \"streaming\"\nmapper = \"{}\"\nreducer = \"{}\"",
                    esc(mapper),
                    esc(reducer)
                ),
                2,
            )
        }
    };
    let file = dir.join(format!("job-{k}.toml"));
    std::fs::write(
        &file,
        format!(
            "name = \"job-{k}\"\ninput = \"in{input}\"\noutput = \"{output}\"\nreduces = {reduces}\n[program]\n{text}\n"
        ),
    )
    .unwrap();
    Spec {
        user: k % USERS.len(),
        file,
        output,
        input,
        reduces,
        program,
    }
}
