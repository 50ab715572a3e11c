//! The `mrsched` binary over TLS: a master with a self-signed certificate
//! and workers sharing it run a job that clients reach by the printed
//! fingerprint or the certificate file; plain listeners beyond loopback,
//! tokens bound for plain HTTP beyond loopback and bad certificate files
//! are refused with messages that say what to do.

mod common;

use common::cluster::{err, ok, BIN};
use mrsched_runtime::client::{Client, ConnectOptions};
use mrsched_runtime::program::{sequential, Program};
use mrsched_runtime::tls::Trust;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const ALICE: &str = "alice-token-0123456789";
const WAIT: Duration = Duration::from_secs(90);

/// Child processes killed when the test ends, however it ends.
struct Kids(Vec<Child>);

impl Drop for Kids {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Start `mrsched args..`; its stderr lines arrive on the receiver.
fn spawn(args: &[&str]) -> (Child, mpsc::Receiver<String>) {
    let mut c = Command::new(BIN)
        .args(args)
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let err = c.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for l in BufReader::new(err).lines().map_while(Result::ok) {
            if tx.send(l).is_err() {
                break;
            }
        }
    });
    (c, rx)
}

/// Lines until one contains `want` (that one included).
fn until(rx: &mpsc::Receiver<String>, want: &str) -> Vec<String> {
    let t0 = Instant::now();
    let mut seen = Vec::new();
    loop {
        let left = WAIT.saturating_sub(t0.elapsed());
        match rx.recv_timeout(left) {
            Ok(l) => {
                let hit = l.contains(want);
                seen.push(l);
                if hit {
                    return seen;
                }
            }
            Err(e) => panic!("no line with `{want}` ({e}); got {seen:?}"),
        }
    }
}

fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(BIN);
    c.args(args)
        .env_remove("MRSCHED_TLS_FINGERPRINT")
        .env_remove("MRSCHED_TLS_CA")
        .env_remove("MRSCHED_MASTER")
        .env_remove("MRSCHED_TOKEN");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_master_refuses_plain_http_beyond_loopback_unless_insecure() {
    let d = tempfile::tempdir().unwrap();
    let m = d.path().join("m");
    let e = err(
        &run(&["master", "--dir", s(&m), "--listen", "0.0.0.0:0"], &[]),
        2,
    );
    assert!(
        e.contains("refusing to listen on 0.0.0.0:0 (not loopback) without TLS: add --tls-cert FILE --tls-key FILE (or --tls-self-signed), or --insecure"),
        "{e}"
    );
    assert!(!m.exists(), "nothing created");
    // A worker likewise.
    std::fs::write(d.path().join("secret"), "cluster-secret-0123456789").unwrap();
    let secret = d.path().join("secret");
    let e = err(
        &run(
            &[
                "worker",
                "--master",
                "http://127.0.0.1:1",
                "--secret-file",
                s(&secret),
                "--listen",
                "0.0.0.0:0",
                "--dir",
                s(&d.path().join("w")),
            ],
            &[],
        ),
        2,
    );
    assert!(
        e.contains("mrsched worker: refusing to listen on 0.0.0.0:0"),
        "{e}"
    );
    // With --insecure it serves, and says traffic is not encrypted.
    let (c, rx) = spawn(&[
        "master",
        "--dir",
        s(&m),
        "--listen",
        "0.0.0.0:0",
        "--insecure",
    ]);
    let _kids = Kids(vec![c]);
    let lines = until(&rx, "listening on http://0.0.0.0:");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("traffic is not encrypted (--insecure)")),
        "{lines:?}"
    );
}

#[test]
fn clients_refuse_to_send_tokens_over_plain_http_beyond_loopback() {
    let t0 = Instant::now();
    let e = err(
        &run(
            &["jobs", "--master", "http://10.1.2.3:7070", "--token", ALICE],
            &[],
        ),
        2,
    );
    assert!(
        e.contains(
            "refusing to send the token to http://10.1.2.3:7070 over plain HTTP (not loopback)"
        ) && e.contains("--insecure"),
        "{e}"
    );
    // Refused before any connection is tried.
    assert!(t0.elapsed() < Duration::from_secs(10));
    // A worker does not send the cluster secret that way either.
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("secret"), "cluster-secret-0123456789").unwrap();
    let e = err(
        &run(
            &[
                "worker",
                "--master",
                "http://10.1.2.3:7070",
                "--secret-file",
                s(&d.path().join("secret")),
                "--dir",
                s(&d.path().join("w")),
            ],
            &[],
        ),
        2,
    );
    assert!(e.contains("refusing to send the cluster secret"), "{e}");
    // An https:// master needs something to trust.
    let e = err(
        &run(
            &[
                "jobs",
                "--master",
                "https://10.1.2.3:7070",
                "--token",
                ALICE,
            ],
            &[],
        ),
        2,
    );
    assert!(
        e.contains("--tls-fingerprint SHA256:... (MRSCHED_TLS_FINGERPRINT) or --tls-ca FILE"),
        "{e}"
    );
}

#[test]
fn certificate_file_errors_name_the_file() {
    let d = tempfile::tempdir().unwrap();
    let missing = d.path().join("missing.pem");
    let junk = d.path().join("junk.pem");
    std::fs::write(&junk, "not a certificate\n").unwrap();
    let m = s(&d.path().join("m")).to_string();
    let e = err(
        &run(
            &[
                "master",
                "--dir",
                &m,
                "--tls-cert",
                s(&missing),
                "--tls-key",
                s(&junk),
            ],
            &[],
        ),
        2,
    );
    assert!(
        e.contains("missing.pem: cannot read PEM certificates"),
        "{e}"
    );
    let e = err(
        &run(
            &[
                "master",
                "--dir",
                &m,
                "--tls-cert",
                s(&junk),
                "--tls-key",
                s(&junk),
            ],
            &[],
        ),
        2,
    );
    assert!(
        e.contains("junk.pem: expected PEM certificates (-----BEGIN CERTIFICATE-----), found none"),
        "{e}"
    );
    let e = err(
        &run(
            &[
                "jobs",
                "--master",
                "https://127.0.0.1:1",
                "--tls-ca",
                s(&junk),
            ],
            &[],
        ),
        2,
    );
    assert!(e.contains("junk.pem: expected PEM certificates"), "{e}");
}

#[test]
fn a_tls_cluster_of_processes_runs_a_job_for_pinned_clients() {
    let d = tempfile::tempdir().unwrap();
    let p = |x: &str| d.path().join(x);
    std::fs::write(p("secret"), "cluster-secret-0123456789").unwrap();
    std::fs::write(
        p("users.toml"),
        format!("[users.alice]\ntoken = \"{ALICE}\"\n"),
    )
    .unwrap();
    let (mdir, secret, users) = (p("m"), p("secret"), p("users.toml"));
    let master_args = [
        "master",
        "--dir",
        s(&mdir),
        "--listen",
        "127.0.0.1:0",
        "--workers",
        "2",
        "--secret-file",
        s(&secret),
        "--users",
        s(&users),
        "--heartbeat-ms",
        "50",
        "--replication",
        "2",
        "--tls-self-signed",
        "--tls-san",
        "mrsched.example",
    ];
    let (c, rx) = spawn(&master_args);
    let mut kids = Kids(vec![c]);
    let lines = until(&rx, "listening on https://127.0.0.1:");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("created a self-signed certificate")),
        "{lines:?}"
    );
    let fp_line = lines
        .iter()
        .find(|l| l.contains("with fingerprint SHA256:"))
        .unwrap_or_else(|| panic!("{lines:?}"));
    let fp = fp_line.rsplit(' ').next().unwrap().to_string();
    let url = lines
        .last()
        .unwrap()
        .rsplit(' ')
        .next()
        .unwrap()
        .to_string();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(p("m/key.pem"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    // Their stderr stays open (a closed pipe would end them at their next
    // message).
    let mut worker_logs: Vec<mpsc::Receiver<String>> = Vec::new();
    for k in 0..2 {
        let (c, rx) = spawn(&[
            "worker",
            "--master",
            &url,
            "--dir",
            s(&p(&format!("w{k}"))),
            "--name",
            &format!("w{k}"),
            "--secret-file",
            s(&p("secret")),
            "--tls-cert",
            s(&p("m/cert.pem")),
            "--tls-key",
            s(&p("m/key.pem")),
        ]);
        kids.0.push(c);
        worker_logs.push(rx);
    }
    let pin = [
        ("MRSCHED_MASTER", url.as_str()),
        ("MRSCHED_TOKEN", ALICE),
        ("MRSCHED_TLS_FINGERPRINT", fp.as_str()),
    ];
    // Until both workers have registered (over TLS, pinning the master).
    let trust = Trust::Pin(vec![fp.parse().unwrap()]);
    let opts = ConnectOptions {
        trust: Some(trust),
        insecure: false,
    };
    let client = Client::connect(&url, None, &opts).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let t0 = Instant::now();
    while !rt.block_on(client.health()).is_ok_and(|h| h.ready) {
        assert!(t0.elapsed() < WAIT, "the cluster did not form");
        std::thread::sleep(Duration::from_millis(20));
    }
    let text: String = (0..4000)
        .map(|i| format!("w{} x{} y{}\n", i % 13, i % 7, i % 101))
        .collect();
    std::fs::write(p("in.txt"), &text).unwrap();
    std::fs::write(
        p("wc.toml"),
        "input = \"in\"\noutput = \"out\"\nreduces = 2\n[program]\nkind = \"wordcount\"\n",
    )
    .unwrap();
    // Blocks go from the master to the workers over TLS.
    ok(&run(
        &[
            "dfs",
            "put",
            s(&p("in.txt")),
            "in",
            "--block-size",
            "8K",
            "--replication",
            "2",
        ],
        &pin,
    ));
    ok(&run(&["submit", s(&p("wc.toml")), "--wait"], &pin));
    let got = run(&["dfs", "cat", "out"], &pin);
    let want = sequential(&Program::Wordcount, text.as_bytes(), 2)
        .unwrap()
        .concat();
    assert_eq!(got.stdout, want, "{}", String::from_utf8_lossy(&got.stderr));
    // The certificate file as the CA, by a name it carries.
    let port = url.rsplit(':').next().unwrap();
    let o = run(
        &[
            "dfs",
            "ls",
            "--master",
            &format!("https://localhost:{port}"),
            "--tls-ca",
            s(&p("m/cert.pem")),
        ],
        &[("MRSCHED_TOKEN", ALICE)],
    );
    assert!(ok(&o).contains("out"));
    // A wrong pin: refused, saying both fingerprints.
    let wrong = format!("SHA256:{}", "ab".repeat(32));
    let o = run(
        &["jobs"],
        &[
            ("MRSCHED_MASTER", url.as_str()),
            ("MRSCHED_TOKEN", ALICE),
            ("MRSCHED_TLS_FINGERPRINT", wrong.as_str()),
        ],
    );
    let e = err(&o, 1);
    assert!(
        e.contains(&format!("has fingerprint {fp}, not the pinned {wrong}")),
        "{e}"
    );
    // A restarted master keeps its certificate.
    let mut m = kids.0.remove(0);
    let _ = m.kill();
    let _ = m.wait();
    let (c, rx) = spawn(&master_args);
    kids.0.push(c);
    let lines = until(&rx, "listening on https://");
    assert!(
        !lines.iter().any(|l| l.contains("created a self-signed")),
        "{lines:?}"
    );
    assert!(lines.iter().any(|l| l.contains(&fp)), "{lines:?}");
}
