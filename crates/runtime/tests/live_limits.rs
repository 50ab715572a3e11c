//! The master's resource bounds on a live cluster: oversized bodies (413),
//! too many queued jobs (429), files over the upload limit, abandoned
//! uploads cleaned after the upload timeout, and a client that stalls
//! halfway through a body cut after the body timeout while others are
//! served.

mod common;

use common::*;
use mrsched_runtime::master::core::MasterSettings;
use mrsched_runtime::proto::{CreateFile, ErrorBody};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const WAIT: Duration = Duration::from_secs(60);

fn bounded(workers: u32) -> MasterSettings {
    let mut s = settings(workers);
    s.limits.max_queued_jobs_per_user = 2;
    s.limits.max_request_bytes = 64 * 1024;
    s.limits.max_upload_bytes = 200 * 1024;
    s.limits.body_timeout = Duration::from_secs(1);
    s.limits.upload_timeout = Duration::from_secs(3);
    s
}

/// `POST /api/dfs/files` as Alice: start uploading `name`.
async fn start_upload(
    http: &reqwest::Client,
    url: &str,
    name: &str,
    replication: u32,
    block_size: u64,
) -> reqwest::Response {
    http.post(format!("{url}/api/dfs/files"))
        .bearer_auth(ALICE)
        .json(&CreateFile {
            name: name.into(),
            replication,
            block_size: Some(block_size),
        })
        .send()
        .await
        .unwrap()
}

async fn error_of(r: reqwest::Response) -> (u16, String) {
    let status = r.status().as_u16();
    let body: ErrorBody = r.json().await.expect("a JSON error body");
    (status, body.error)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_bodies_are_refused_with_413_and_the_limit() {
    let c = TestCluster::start_with(bounded(2), None).await;
    let http = reqwest::Client::new();
    // A job file over the 64 KiB request limit.
    let big = format!("# {}\n", "x".repeat(100 * 1024));
    let r = http
        .post(format!("{}/api/jobs", c.url))
        .bearer_auth(ALICE)
        .body(big.clone())
        .send()
        .await
        .unwrap();
    let (status, msg) = error_of(r).await;
    assert_eq!(status, 413, "{msg}");
    assert!(msg.contains("limit of 65536 bytes"), "{msg}");
    // JSON routes too, and worker routes have their own (larger) limit.
    let r = http
        .post(format!("{}/api/dfs/files", c.url))
        .bearer_auth(ALICE)
        .header("content-type", "application/json")
        .body(format!(
            "{{\"name\":\"{}\",\"replication\":1}}",
            "n".repeat(70_000)
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 413);
    // A block over its upload's block size plus the 1 MiB slack.
    let id: u64 = start_upload(&http, &c.url, "f", 1, 4096)
        .await
        .json()
        .await
        .unwrap();
    let r = http
        .post(format!("{}/api/dfs/uploads/{id}", c.url))
        .bearer_auth(ALICE)
        .body(vec![b'a'; 4096 + (1 << 20) + 1])
        .send()
        .await
        .unwrap();
    let (status, msg) = error_of(r).await;
    assert_eq!(status, 413, "{msg}");
    assert!(msg.contains("more than 1052672 bytes"), "{msg}");
    // A block within it is stored.
    let r = http
        .post(format!("{}/api/dfs/uploads/{id}", c.url))
        .bearer_auth(ALICE)
        .body(vec![b'a'; 5000])
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    // A block size over the master's block limit is refused up front.
    let r = start_upload(&http, &c.url, "g", 1, 2 << 30).await;
    let (status, msg) = error_of(r).await;
    assert_eq!(status, 400);
    assert!(msg.contains("--max-block-bytes"), "{msg}");
    // A file over --max-upload-bytes: refused, aborted, nothing left.
    let text = corpus(15000);
    assert!(text.len() > 200 * 1024);
    let mut rd = std::io::BufReader::new(text.as_bytes());
    let e = c
        .alice
        .put(&mut rd, "too-big", 16 * 1024, 2)
        .await
        .unwrap_err();
    assert_eq!(e.status, Some(413), "{e}");
    assert!(e.message.contains("--max-upload-bytes"), "{e}");
    assert!(c.alice.stat("too-big").await.is_err());
    assert_only_listed_blocks(&c, 2).await;
    c.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_over_the_queued_jobs_limit_gets_429_and_the_reason() {
    let c = TestCluster::start_with(bounded(2), None).await;
    put(&c.alice, "in", "a\nb\n", 1024).await;
    let slow = |out: &str| {
        format!(
            "input = \"in\"\noutput = \"{out}\"\nreduces = 0\n[program]\nkind = \"streaming\"\nmapper = \"sleep 30\"\n"
        )
    };
    let a = c.alice.submit("a.toml", &slow("o1"), false).await.unwrap();
    let b = c.alice.submit("b.toml", &slow("o2"), false).await.unwrap();
    let e = c
        .alice
        .submit("c.toml", &slow("o3"), false)
        .await
        .unwrap_err();
    assert_eq!(e.status, Some(429), "{e}");
    assert!(
        e.message
            .contains("user `alice` has 2 job(s) submitted and not finished; the limit is 2"),
        "{e}"
    );
    // Nothing was created: the output name is free, and bob is not limited
    // by alice's jobs.
    let s = c.bob.submit("c.toml", &slow("o3"), false).await.unwrap();
    c.bob.kill(s.id).await.unwrap();
    // When one of alice's jobs ends she may submit again.
    c.alice.kill(a.id).await.unwrap();
    let d = c.alice.submit("d.toml", &slow("o4"), false).await.unwrap();
    for id in [b.id, d.id] {
        c.alice.kill(id).await.unwrap();
        assert_eq!(c.alice.wait(id, WAIT).await.unwrap().status, "killed");
    }
    // Killed map-only jobs leave no output block.
    assert_only_listed_blocks(&c, 2).await;
    c.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abandoned_upload_is_aborted_and_leaves_nothing_behind() {
    let c = TestCluster::start_with(bounded(2), None).await;
    put(&c.alice, "kept", &corpus(200), 1024).await;
    let http = reqwest::Client::new();
    let id: u64 = start_upload(&http, &c.url, "half", 2, 4096)
        .await
        .json()
        .await
        .unwrap();
    for _ in 0..2 {
        let r = http
            .post(format!("{}/api/dfs/uploads/{id}", c.url))
            .bearer_auth(ALICE)
            .body(vec![b'z'; 3000])
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success());
    }
    // The client goes away. Its blocks are on the workers for now.
    let count = |k: u32| block_files(&c.dir.path().join(format!("worker-{k}/blocks"))).len();
    let kept = c.alice.stat("kept").await.unwrap().blocks.len();
    assert_eq!(count(0) + count(1), 2 * kept + 4);
    let t0 = Instant::now();
    // After the upload timeout (3 s) its blocks are deleted on the
    // workers: only the committed file's remain.
    let deadline = t0 + Duration::from_secs(15);
    while count(0) + count(1) != 2 * kept {
        assert!(Instant::now() < deadline, "blocks left behind");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        t0.elapsed() >= Duration::from_secs(2),
        "not before the timeout: {:?}",
        t0.elapsed()
    );
    assert_only_listed_blocks(&c, 2).await;
    // The upload is gone and its name is free.
    let r = http
        .post(format!("{}/api/dfs/uploads/{id}/commit", c.url))
        .bearer_auth(ALICE)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 404);
    assert!(c.alice.stat("half").await.is_err());
    put(&c.alice, "half", "now whole\n", 1024).await;
    assert_eq!(c.alice.read("half").await.unwrap(), b"now whole\n");
    assert_only_listed_blocks(&c, 2).await;
    c.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_stalls_halfway_through_a_body_is_cut_and_others_are_served() {
    let c = TestCluster::start_with(bounded(2), None).await;
    let addr = c.url.trim_start_matches("http://").to_string();
    let mut sock = tokio::net::TcpStream::connect(&addr).await.unwrap();
    sock.write_all(
        format!(
            "POST /api/jobs HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {ALICE}\r\nContent-Length: 1000\r\n\r\n"
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    sock.write_all(&[b'#'; 500]).await.unwrap();
    let t0 = Instant::now();
    // Meanwhile the master serves others.
    assert!(c.alice.health().await.unwrap().ready);
    put(&c.alice, "other", "served\n", 1024).await;
    // The stalled request is answered with an error and its connection
    // closed once the body has been idle for the body timeout (1 s).
    let mut got = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(10), sock.read_to_end(&mut got)).await;
    let waited = t0.elapsed();
    assert!(read.is_ok(), "the connection was not cut within 10 s");
    assert!(
        waited >= Duration::from_millis(800),
        "cut before the timeout: {waited:?}"
    );
    let text = String::from_utf8_lossy(&got);
    assert!(
        text.starts_with("HTTP/1.1 408") && text.contains("--body-timeout-s"),
        "a 408 naming the setting: {text}"
    );
    assert!(c.alice.health().await.unwrap().ready);
    c.stop();
}
