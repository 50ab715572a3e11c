//! The live cluster over TLS (in one process, on loopback): a master and
//! two workers sharing a self-signed cluster certificate run wordcount
//! exactly; clients that do not trust the server's certificate, plain
//! HTTP against a TLS port and tokens bound for plain HTTP beyond loopback
//! are refused, and nothing of the request reaches the server.

mod common;

use axum::http::HeaderMap;
use common::*;
use mrsched_runtime::client::{Client, ConnectOptions};
use mrsched_runtime::master::metrics::ScrapeAuth;
use mrsched_runtime::master::{open_core, run_master, MasterConfig};
use mrsched_runtime::program::{sequential, Program};
use mrsched_runtime::tls::{ensure_self_signed, Identity, TlsConfig, Trust};
use mrsched_runtime::worker::{run_worker, WorkerConfig};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

const WAIT: Duration = Duration::from_secs(60);

struct TlsCluster {
    url: String,
    identity: Identity,
    dir: tempfile::TempDir,
    stops: Vec<oneshot::Sender<()>>,
}

fn pinned(id: &Identity) -> ConnectOptions {
    ConnectOptions {
        trust: Some(Trust::Pin(vec![id.fingerprint])),
        insecure: false,
    }
}

/// A master and `workers` workers, all serving with the self-signed pair
/// generated into the master's directory and trusting exactly it.
async fn start(workers: u32) -> TlsCluster {
    let dir = tempfile::tempdir().unwrap();
    let mdir = dir.path().join("master");
    std::fs::create_dir_all(&mdir).unwrap();
    let listen = "127.0.0.1:0".parse().unwrap();
    let (cert, key, created) = ensure_self_signed(&mdir, listen, &[]).unwrap();
    assert!(created);
    let identity = Identity::load(&cert, &key).unwrap();
    let cfg = MasterConfig {
        dir: mdir.clone(),
        listen,
        secret: SECRET.into(),
        users: users(),
        settings: settings(workers),
        metrics: ScrapeAuth {
            token: Some(SCRAPE.into()),
            unauthenticated: false,
        },
        tls: TlsConfig::cluster(identity.clone()),
    };
    let core = open_core(&cfg, None).unwrap();
    let (tx, rx) = oneshot::channel::<()>();
    let mut stops = vec![tx];
    tokio::spawn(run_master(cfg, core, async {
        let _ = rx.await;
    }));
    let t0 = Instant::now();
    let url = loop {
        if let Ok(u) = std::fs::read_to_string(mdir.join("addr")) {
            break u;
        }
        assert!(t0.elapsed() < WAIT, "the master did not start");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    assert!(url.starts_with("https://127.0.0.1:"), "{url}");
    for k in 0..workers {
        let (tx, rx) = oneshot::channel::<()>();
        stops.push(tx);
        // As an operator would: the worker loads the copied pair itself.
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
            tls: TlsConfig::cluster(Identity::load(&cert, &key).unwrap()),
        };
        tokio::spawn(run_worker(wc, async {
            let _ = rx.await;
        }));
    }
    let c = Client::connect(&url, Some(ALICE.into()), &pinned(&identity)).unwrap();
    while !c.health().await.is_ok_and(|h| h.ready) {
        assert!(t0.elapsed() < WAIT, "the cluster did not form");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    TlsCluster {
        url,
        identity,
        dir,
        stops,
    }
}

impl TlsCluster {
    fn stop(self) {
        for s in self.stops {
            let _ = s.send(());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tls_cluster_runs_wordcount_exactly() {
    let c = start(2).await;
    let alice = Client::connect(&c.url, Some(ALICE.into()), &pinned(&c.identity)).unwrap();
    let text = corpus(3000);
    put(&alice, "corpus", &text, 8 * 1024).await;
    let f = alice.stat("corpus").await.unwrap();
    assert!(f.blocks.len() >= 4, "several blocks: {}", f.blocks.len());
    let job =
        "input = \"corpus\"\noutput = \"counts\"\nreduces = 3\n[program]\nkind = \"wordcount\"\n";
    let s = alice.submit("wc.toml", job, false).await.unwrap();
    let j = alice.wait(s.id, WAIT).await.unwrap();
    assert_eq!(j.status, "succeeded", "{j:?}");
    let want = sequential(&Program::Wordcount, text.as_bytes(), 3)
        .unwrap()
        .concat();
    assert_eq!(alice.read("counts").await.unwrap(), want);
    // Every map read its block somewhere and reducers fetched over HTTPS
    // from the other worker: both workers serve TLS.
    let ws = alice.workers().await.unwrap();
    assert_eq!(ws.len(), 2);
    for w in &ws {
        assert!(w.alive, "{w:?}");
    }

    // The certificate as a root works too, by the names it carries.
    let roots = ConnectOptions {
        trust: Some(Trust::roots(&c.dir.path().join("master/cert.pem")).unwrap()),
        insecure: false,
    };
    let port = c.url.rsplit(':').next().unwrap();
    for base in [c.url.clone(), format!("https://localhost:{port}")] {
        let by_ca = Client::connect(&base, Some(BOB.into()), &roots).unwrap();
        assert_eq!(by_ca.stat("counts").await.unwrap().bytes, want.len() as u64);
    }
    c.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_http_and_untrusted_clients_fail_cleanly() {
    let c = start(1).await;
    // Plain HTTP against the TLS port: a clear answer, not a hang.
    let plain_url = c.url.replace("https://", "http://");
    let e = Client::new(&plain_url, Some(ALICE.into()))
        .jobs()
        .await
        .unwrap_err();
    assert_eq!(e.status, Some(400), "{e:?}");
    assert!(e.message.contains("use an https:// URL"), "{e}");
    // A request with a body too (it is read before the answer, so the
    // answer is not lost to a reset).
    let body = "x".repeat(200_000);
    let e = Client::new(&plain_url, Some(ALICE.into()))
        .submit("big.toml", &body, false)
        .await
        .unwrap_err();
    assert_eq!(e.status, Some(400), "{e:?}");
    // A client that trusts nothing.
    let e = Client::new(&c.url, Some(ALICE.into()))
        .jobs()
        .await
        .unwrap_err();
    assert!(e.message.contains("invalid peer certificate"), "{e}");
    // The master still serves.
    let alice = Client::connect(&c.url, Some(ALICE.into()), &pinned(&c.identity)).unwrap();
    assert!(alice.jobs().await.unwrap().is_empty());
    // The web UI's session cookie is `Secure` over HTTPS.
    let tls = Trust::Pin(vec![c.identity.fingerprint])
        .client_config()
        .unwrap();
    let browser = reqwest::Client::builder()
        .use_preconfigured_tls(tls)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let r = browser
        .get(format!("{}/?token={ALICE}", c.url))
        .send()
        .await
        .unwrap();
    let cookie = r.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(
        cookie.contains("mrsched_session=")
            && cookie.contains("Secure")
            && cookie.contains("HttpOnly"),
        "{cookie}"
    );
    c.stop();
}

/// A TLS server with another certificate that records every bearer token
/// it is sent.
async fn impostor(dir: &Path) -> (String, Identity, Arc<Mutex<Vec<String>>>) {
    let (cert, key, _) = ensure_self_signed(dir, "127.0.0.1:0".parse().unwrap(), &[]).unwrap();
    let id = Identity::load(&cert, &key).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s2 = seen.clone();
    let app = axum::Router::new().fallback(move |h: HeaderMap| {
        let s2 = s2.clone();
        async move {
            if let Some(v) = h.get("authorization").and_then(|v| v.to_str().ok()) {
                s2.lock().unwrap().push(v.to_string());
            }
            axum::Json(Vec::<u32>::new())
        }
    });
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("https://{}", l.local_addr().unwrap());
    let served = id.clone();
    tokio::spawn(async move {
        mrsched_runtime::tls::serve(l, Some(&served), app, std::future::pending()).await
    });
    (url, id, seen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_fingerprint_or_ca_is_refused_before_the_token_is_sent() {
    let c = start(1).await;
    let other = tempfile::tempdir().unwrap();
    let (url, other_id, seen) = impostor(other.path()).await;
    assert_ne!(other_id.fingerprint, c.identity.fingerprint);
    // Pinned to the cluster's certificate: the impostor is refused.
    let e = Client::connect(&url, Some(ALICE.into()), &pinned(&c.identity))
        .unwrap()
        .jobs()
        .await
        .unwrap_err();
    assert!(e.message.contains("not the pinned"), "{e}");
    assert!(
        e.message.contains(&c.identity.fingerprint.to_string())
            && e.message.contains(&other_id.fingerprint.to_string()),
        "{e}"
    );
    // The cluster's certificate as the CA: not the impostor's issuer.
    let roots = ConnectOptions {
        trust: Some(Trust::roots(&c.dir.path().join("master/cert.pem")).unwrap()),
        insecure: false,
    };
    let e = Client::connect(&url, Some(ALICE.into()), &roots)
        .unwrap()
        .jobs()
        .await
        .unwrap_err();
    assert!(e.message.contains("invalid peer certificate"), "{e}");
    assert!(seen.lock().unwrap().is_empty(), "no token reached it");
    // The recorder works: a client that trusts the impostor does send.
    Client::connect(&url, Some(ALICE.into()), &pinned(&other_id))
        .unwrap()
        .jobs()
        .await
        .unwrap();
    assert_eq!(*seen.lock().unwrap(), vec![format!("Bearer {ALICE}")]);
    c.stop();
}

#[tokio::test]
async fn tokens_are_not_sent_over_plain_http_beyond_loopback() {
    let opts = ConnectOptions::default();
    let e = Client::connect("http://10.1.2.3:7070", Some(ALICE.into()), &opts)
        .err()
        .unwrap();
    assert!(
        e.message
            .contains("refusing to send the token to http://10.1.2.3:7070 over plain HTTP"),
        "{e}"
    );
    assert!(e.message.contains("--insecure"), "{e}");
    // The plain constructor refuses every call, without connecting.
    let t0 = Instant::now();
    let e = Client::new("http://10.1.2.3:7070", Some(ALICE.into()))
        .jobs()
        .await
        .unwrap_err();
    assert!(e.message.contains("refusing to send the token"), "{e}");
    assert!(t0.elapsed() < Duration::from_secs(1));
    // Allowed: loopback, https, no token, or --insecure.
    assert!(Client::connect("http://127.0.0.1:7070", Some(ALICE.into()), &opts).is_ok());
    assert!(Client::connect("https://10.1.2.3:7070", Some(ALICE.into()), &opts).is_ok());
    assert!(Client::connect("http://10.1.2.3:7070", None, &opts).is_ok());
    let insecure = ConnectOptions {
        trust: None,
        insecure: true,
    };
    assert!(Client::connect("http://10.1.2.3:7070", Some(ALICE.into()), &insecure).is_ok());
}
