//! A worker stopped in the middle of a job, on an in-process cluster whose
//! worker timeout is the old 30 s: the master must find out from the
//! missed heartbeats and the refused connections, not from the timeout,
//! and the job must end with exact output.

mod common;

use common::*;
use mrsched_runtime::program::{sequential, Program};
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_stopped_mid_job_is_declared_lost_from_refused_connections() {
    let mut s = settings(3);
    s.worker_timeout = Duration::from_secs(30);
    let mut c = TestCluster::start_with(s, None).await;
    let text = corpus(1500);
    put(&c.alice, "t", &text, 2 * 1024).await;
    let (mapper, reducer) = ("sleep 0.2; cat", "sort -r");
    let job = format!(
        "input = \"t\"\noutput = \"out\"\nreduces = 3\n[program]\nkind = \"streaming\"\nmapper = \"{mapper}\"\nreducer = \"{reducer}\"\n"
    );
    let id = c.alice.submit("job", &job, false).await.unwrap().id;
    // Mid-job: some maps done, more to run.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let j = c.alice.job(id).await.unwrap();
        assert_eq!(j.status, "running", "the job ended before the stop");
        if j.maps_done >= 2 {
            break;
        }
        assert!(Instant::now() < deadline, "no map finished in 60 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Stop a worker that is running maps (the first busy one).
    let ws = c.alice.workers().await.unwrap();
    let victim = ws.iter().position(|w| w.maps[0] > 0).unwrap_or(0);
    let name = ws[victim].name.clone();
    // Workers are named w0, w1, w2 in the order they were started.
    c.stop_worker(name[1..].parse().unwrap());
    let stopped = Instant::now();
    // The master declares it lost, and says why: well before the 30 s
    // timeout could have.
    let why = loop {
        let ws = c.alice.workers().await.unwrap();
        let w = ws.iter().find(|w| w.name == name).unwrap();
        if !w.alive {
            break w.lost_reason.clone().expect("a lost worker has a reason");
        }
        assert!(
            stopped.elapsed() < Duration::from_secs(20),
            "{name} still alive 20 s after it stopped"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(
        why.contains("refused") || why.contains("could not connect"),
        "{why}"
    );
    let others = c.alice.workers().await.unwrap();
    assert_eq!(others.iter().filter(|w| w.alive).count(), 2);
    // The job finishes on the other two with exact output.
    let j = loop {
        let j = c.alice.job(id).await.unwrap();
        if j.status != "running" {
            break j;
        }
        assert!(
            stopped.elapsed() < Duration::from_secs(25),
            "the job still runs 25 s after the stop"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(j.status, "succeeded", "{:?}", j.reason);
    let p = Program::Streaming {
        mapper: mapper.into(),
        reducer: reducer.into(),
    };
    assert_eq!(
        c.alice.read("out").await.unwrap(),
        sequential(&p, text.as_bytes(), 3).unwrap().concat()
    );
    c.stop();
}
