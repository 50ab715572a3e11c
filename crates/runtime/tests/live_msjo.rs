//! The MSJO planners (seed 001) on the live cluster: jobs carry predicted
//! task times and weights in their files, workers' slots are unified
//! (each slot one MSJO machine), and MarS's plan is followed
//! work-conserving, as seed 001 §6.1's Hadoop implementation does.

mod common;

use common::*;
use mrsched_runtime::program::{sequential, Program};
use mrsched_runtime::proto::{JobSetEntry, JobSetRequest};
use mrsched_sched::SchedulerConfig;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(120);

fn msjo_settings(workers: u32, algorithm: &str) -> mrsched_runtime::master::core::MasterSettings {
    let mut s = settings(workers);
    let text = format!(
        "policy = \"msjo\"\n[msjo]\nalgorithm = \"{algorithm}\"\nfollower = \"work-conserving\"\n"
    );
    let src = mrsched_model::Source::new("mars.toml", text, mrsched_model::Format::Toml);
    s.scheduler = SchedulerConfig::from_source(&src).unwrap();
    s.unified_slots = true;
    s
}

fn job(input: &str, output: &str, weight: f64, map_s: f64, reduce_s: f64) -> String {
    format!(
        "input = \"{input}\"\noutput = \"{output}\"\nreduces = 2\nweight = {weight}\nmap_time_s = {map_s}\nreduce_time_s = {reduce_s}\n[program]\nkind = \"wordcount\"\n"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mars_runs_weighted_jobs_with_predicted_times_to_exact_output() {
    let c = TestCluster::start_with(msjo_settings(2, "mars"), None).await;
    let texts = [corpus(1500), corpus(600), corpus(2500)];
    for (k, t) in texts.iter().enumerate() {
        put(&c.alice, &format!("in{k}"), t, 8 * 1024).await;
    }
    // Slots are unified: 2 workers x (2 map + 1 reduce) = 6 machines.
    let ws = c.alice.workers().await.unwrap();
    assert_eq!(ws.len(), 2);

    let mut ids = Vec::new();
    for (k, (w, m, r)) in [(10.0, 0.2, 0.3), (40.0, 0.1, 0.2), (25.0, 0.3, 0.4)]
        .into_iter()
        .enumerate()
    {
        let s = c
            .alice
            .submit(
                &format!("j{k}.toml"),
                &job(&format!("in{k}"), &format!("out{k}"), w, m, r),
                false,
            )
            .await
            .unwrap();
        assert_eq!(s.status, "running", "{s:?}");
        ids.push(s.id);
    }
    for (k, id) in ids.iter().enumerate() {
        let j = c.alice.wait(*id, WAIT).await.unwrap();
        assert_eq!(j.status, "succeeded", "{j:?}");
        let want = sequential(&Program::Wordcount, texts[k].as_bytes(), 2)
            .unwrap()
            .concat();
        assert_eq!(c.alice.read(&format!("out{k}")).await.unwrap(), want);
        // MSJO precedence: with predicted times a job's reduces start only
        // after its last map has ended (no slow-start).
        let at = c.alice.attempts(*id).await.unwrap();
        let last_map = at
            .iter()
            .filter(|a| a.kind == "map" && a.state == "succeeded")
            .filter_map(|a| a.end_s)
            .fold(0.0, f64::max);
        let reduces: Vec<_> = at.iter().filter(|a| a.kind == "reduce").collect();
        assert_eq!(reduces.len(), 2, "{at:?}");
        assert!(reduces.iter().all(|a| a.start_s >= last_map), "{at:?}");
    }
    // The planner ran: one plan per arrival (no announcement live).
    let r = c.alice.report().await.unwrap();
    assert_eq!(r.jobs.len(), 3);
    let plans = r.extra["scheduler.plans"].as_f64().unwrap_or(0.0);
    assert!(plans >= 3.0, "plans: {plans}");
    // A job without predicted times cannot be planned: refused with why.
    let s = c
        .alice
        .submit(
            "plain.toml",
            "input = \"in0\"\noutput = \"o\"\n[program]\nkind = \"wordcount\"\n",
            false,
        )
        .await
        .unwrap();
    assert_eq!(s.status, "rejected");
    let reason = s.reason.unwrap();
    assert!(
        reason.contains("map_time_s") && reason.contains("reduce_time_s"),
        "{reason}"
    );
    c.stop();
}

fn entry(label: &str, text: String, release_s: f64) -> JobSetEntry {
    JobSetEntry {
        label: label.into(),
        text,
        json: false,
        release_s,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_set_is_planned_once_and_released_on_time() {
    let c = TestCluster::start_with(msjo_settings(2, "mars"), None).await;
    let texts = [corpus(1200), corpus(500), corpus(1800)];
    for (k, t) in texts.iter().enumerate() {
        put(&c.alice, &format!("in{k}"), t, 8 * 1024).await;
    }
    // Bad sets are refused whole, naming file and field.
    let bad = JobSetRequest {
        jobs: vec![
            entry("a.toml", job("in0", "o", 1.0, 0.1, 0.1), -1.0),
            entry("b.toml", job("missing", "o2", 1.0, 0.1, 0.1), 0.0),
            entry("c.toml", job("in1", "o2", 1.0, 0.1, 0.1), 0.0),
        ],
    };
    let e = c.alice.submit_set(&bad).await.unwrap_err().to_string();
    assert!(e.contains("a.toml: release_s: must be zero or more"), "{e}");
    assert!(e.contains("b.toml:1: input: no file `missing`"), "{e}");
    assert!(
        e.contains("c.toml:2: output: `o2` is also the output of b.toml"),
        "{e}"
    );
    assert!(c.alice.jobs().await.unwrap().is_empty());

    // Listed out of release order: ids follow the release order.
    let set = JobSetRequest {
        jobs: vec![
            entry("late.toml", job("in2", "out2", 20.0, 0.2, 0.3), 1.5),
            entry("first.toml", job("in0", "out0", 10.0, 0.2, 0.3), 0.0),
            entry("mid.toml", job("in1", "out1", 40.0, 0.1, 0.2), 0.7),
        ],
    };
    let held = c.alice.submit_set(&set).await.unwrap();
    let order: Vec<(&str, u32)> = held.iter().map(|h| (h.label.as_str(), h.id)).collect();
    assert_eq!(
        order,
        vec![("first.toml", 0), ("mid.toml", 1), ("late.toml", 2)]
    );
    // While jobs are held, other submissions wait for the set.
    let e = c
        .alice
        .submit("x.toml", &job("in0", "x", 1.0, 0.1, 0.1), false)
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("a job set is being released"), "{e}");
    let views = c.alice.wait_set(&held, WAIT).await.unwrap();
    for (j, k) in views.iter().zip([0usize, 1, 2]) {
        assert_eq!(j.status, "succeeded", "{j:?}");
        let want = sequential(&Program::Wordcount, texts[k].as_bytes(), 2)
            .unwrap()
            .concat();
        assert_eq!(c.alice.read(&format!("out{k}")).await.unwrap(), want);
    }
    let r = c.alice.report().await.unwrap();
    let arrivals: Vec<f64> = r.jobs.iter().map(|j| j.arrival_s).collect();
    let t0 = arrivals[0];
    assert!(
        arrivals[1] - t0 >= 0.7 - 1e-3 && arrivals[2] - t0 >= 1.5 - 1e-3,
        "{arrivals:?}"
    );
    // One offline plan for the whole set, none at the arrivals.
    assert_eq!(r.extra["scheduler.plans"].as_f64(), Some(1.0));
    // After the set, single jobs are planned online again.
    let s = c
        .alice
        .submit("after.toml", &job("in1", "after", 5.0, 0.1, 0.1), false)
        .await
        .unwrap();
    assert_eq!(c.alice.wait(s.id, WAIT).await.unwrap().status, "succeeded");
    c.stop();
}
