//! End-to-end runs of the live master and workers (in one process, over
//! loopback HTTP): real jobs, compared with the sequential reference; a
//! policy that rejects; a policy that launches shared scans.

mod common;

use common::*;
use mrsched_model::{Cluster, JobId, NodeId};
use mrsched_runtime::program::{sequential, Program};
use mrsched_sched::{Admission, Scheduler};
use mrsched_state::{ClusterState, Launch};
use std::sync::Arc;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(60);

fn job_toml(input: &str, output: &str, reduces: u32, program: &str) -> String {
    format!(
        "input = \"{input}\"\noutput = \"{output}\"\nreduces = {reduces}\n[program]\n{program}\n"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wordcount_and_sort_match_the_sequential_run() {
    let c = TestCluster::start(3, None).await;
    let text = corpus(3000);
    put(&c.alice, "corpus", &text, 8 * 1024).await;
    let f = c.alice.stat("corpus").await.unwrap();
    assert!(f.blocks.len() >= 4, "several blocks: {}", f.blocks.len());
    assert_eq!(f.bytes as usize, text.len());
    assert_eq!(c.alice.read("corpus").await.unwrap(), text.as_bytes());

    let wc = c
        .alice
        .submit(
            "wc.toml",
            &job_toml("corpus", "wc-out", 3, "kind = \"wordcount\""),
            false,
        )
        .await
        .unwrap();
    let st = c
        .alice
        .submit(
            "sort.toml",
            &job_toml("corpus", "sorted", 2, "kind = \"sort\""),
            false,
        )
        .await
        .unwrap();
    for id in [wc.id, st.id] {
        let j = c.alice.wait(id, WAIT).await.unwrap();
        assert_eq!(j.status, "succeeded", "{j:?}");
        assert_eq!(j.maps_done, f.blocks.len() as u32);
        assert_eq!(
            j.reads[0] + j.reads[1],
            j.maps,
            "every map recorded its read"
        );
    }
    let want = sequential(&Program::Wordcount, text.as_bytes(), 3)
        .unwrap()
        .concat();
    assert_eq!(c.alice.read("wc-out").await.unwrap(), want);
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort();
    assert_eq!(
        String::from_utf8(c.alice.read("sorted").await.unwrap()).unwrap(),
        lines.join("\n") + "\n"
    );
    // The same report as the simulator's, from the live state.
    let r = c.alice.report().await.unwrap();
    assert_eq!(r.jobs.len(), 2);
    assert!(r.jobs.iter().all(|j| j.response_time_s.is_some()));
    c.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failing_attempts_are_retried_then_the_job_fails_with_the_reason() {
    let c = TestCluster::start(2, None).await;
    put(&c.alice, "in", "a\nb\n", 1024).await;
    let prog = "kind = \"streaming\"\nmapper = \"echo broken >&2; exit 3\"\nreducer = \"cat\"";
    let s = c
        .alice
        .submit("bad.toml", &job_toml("in", "out", 1, prog), false)
        .await
        .unwrap();
    let j = c.alice.wait(s.id, WAIT).await.unwrap();
    assert_eq!(j.status, "failed");
    let reason = j.reason.unwrap();
    assert!(
        reason.contains("failed 3 times") && reason.contains("broken"),
        "{reason}"
    );
    // No half-made output.
    assert!(c.alice.stat("out").await.is_err());
    c.stop();
}

/// A test policy with RTMR's admission shape: it rejects jobs whose
/// deadline it cannot meet (here: any deadline under 100 s), with a reason.
struct DeadlineGate(mrsched_sched::policies::fifo::Fifo);

impl Scheduler for DeadlineGate {
    fn name(&self) -> String {
        "deadline-gate".into()
    }
    fn on_submit(&mut self, st: &ClusterState, job: JobId) -> Admission {
        match st.job(job).spec.deadline {
            Some(d) if d.as_secs_f64() < 100.0 => Admission::Reject(format!(
                "deadline {:.0} s cannot be met: the schedulable set is full",
                d.as_secs_f64()
            )),
            _ => Admission::Admit,
        }
    }
    fn on_event(&mut self, st: &ClusterState, ev: &mrsched_state::StateEvent) {
        self.0.on_event(st, ev)
    }
    fn assign(&mut self, st: &ClusterState, node: NodeId) -> Option<Launch> {
        self.0.assign(st, node)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejecting_policy_answers_the_submitter_with_its_reason() {
    let f: mrsched_runtime::master::core::SchedulerFactory = Arc::new(|_c: &Cluster| {
        Box::new(DeadlineGate(mrsched_sched::policies::fifo::Fifo::new())) as Box<dyn Scheduler>
    });
    let c = TestCluster::start(2, Some(f)).await;
    put(&c.alice, "in", "x y\n", 1024).await;
    let tight = format!(
        "deadline_s = 30\n{}",
        job_toml("in", "o1", 1, "kind = \"wordcount\"")
    );
    let s = c.alice.submit("tight.toml", &tight, false).await.unwrap();
    assert_eq!(s.status, "rejected");
    assert!(s.reason.as_deref().unwrap().contains("cannot be met"));
    // A rejected job leaves its output name free and shows its reason.
    let v = c.alice.job(s.id).await.unwrap();
    assert_eq!(v.status, "rejected");
    let loose = format!(
        "deadline_s = 300\n{}",
        job_toml("in", "o1", 1, "kind = \"wordcount\"")
    );
    let s = c.alice.submit("loose.toml", &loose, false).await.unwrap();
    assert_eq!(s.status, "running");
    assert_eq!(c.alice.wait(s.id, WAIT).await.unwrap().status, "succeeded");
    assert_eq!(c.alice.read("o1").await.unwrap(), b"x\t1\ny\t1\n");
    c.stop();
}

/// A test policy that launches shared scans: a map of the first job
/// scanning a dataset carries every other scanning job's map of the same
/// block as a rider (CIRCUMFLEX's C-mapper). It holds maps back until
/// `expect` jobs are scanning, so the scans really are shared.
struct SharedScan {
    fifo: mrsched_sched::policies::fifo::Fifo,
    expect: usize,
    pub shared: usize,
}

impl Scheduler for SharedScan {
    fn name(&self) -> String {
        "shared-scan".into()
    }
    fn on_event(&mut self, st: &ClusterState, ev: &mrsched_state::StateEvent) {
        self.fifo.on_event(st, ev)
    }
    fn assign(&mut self, st: &ClusterState, node: NodeId) -> Option<Launch> {
        if st.free_map_slots(node) > 0 {
            for &j in st.active_jobs() {
                let Some((t, _)) = st.find_map_task(j, node, mrsched_model::Locality::OffRack)
                else {
                    continue;
                };
                let Some(block) = st.job(j).spec.maps.at(t as usize).block else {
                    continue;
                };
                let scanners = st.scanners(block.dataset);
                if scanners.len() < self.expect {
                    return None;
                }
                let riders: Vec<(JobId, u32)> = scanners
                    .iter()
                    .filter(|&&r| r != j)
                    .filter_map(|&r| {
                        let rj = st.job(r);
                        rj.spec
                            .maps
                            .iter()
                            .position(|m| m.block == Some(block))
                            .map(|i| i as u32)
                            .filter(|&i| {
                                rj.maps[i as usize].status == mrsched_state::TaskStatus::Pending
                            })
                            .map(|i| (r, i))
                    })
                    .collect();
                if !riders.is_empty() {
                    self.shared += 1;
                }
                return Some(Launch::Map {
                    job: j,
                    task: t,
                    riders,
                });
            }
        }
        mrsched_sched::assign::first_reduce(st, node, self.fifo.order())
    }
    fn stats(&self) -> std::collections::BTreeMap<String, f64> {
        [("shared_attempts".to_string(), self.shared as f64)].into()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shared_scan_runs_every_riders_map_function_once_per_block() {
    let f: mrsched_runtime::master::core::SchedulerFactory = Arc::new(|_c: &Cluster| {
        Box::new(SharedScan {
            fifo: mrsched_sched::policies::fifo::Fifo::new(),
            expect: 3,
            shared: 0,
        }) as Box<dyn Scheduler>
    });
    let c = TestCluster::start(2, Some(f)).await;
    let text = corpus(1500);
    put(&c.alice, "logs", &text, 6 * 1024).await;
    let blocks = c.alice.stat("logs").await.unwrap().blocks.len() as u32;
    let jobs = [
        (
            "wc",
            2,
            "kind = \"wordcount\"".to_string(),
            Program::Wordcount,
        ),
        (
            "grep",
            1,
            "kind = \"grep\"\npattern = \"rack\"".to_string(),
            Program::Grep {
                pattern: "rack".into(),
            },
        ),
        ("sort", 2, "kind = \"sort\"".to_string(), Program::Sort),
    ];
    let mut ids = Vec::new();
    for (name, r, p, _) in &jobs {
        let s = c
            .bob
            .submit(
                name,
                &job_toml("logs", &format!("{name}-out"), *r, p),
                false,
            )
            .await
            .unwrap();
        ids.push(s.id);
    }
    for id in &ids {
        let j = c.bob.wait(*id, WAIT).await.unwrap();
        assert_eq!(j.status, "succeeded", "{j:?}");
    }
    for (name, r, _, prog) in &jobs {
        let want = sequential(prog, text.as_bytes(), *r).unwrap().concat();
        let got = c.bob.read(&format!("{name}-out")).await.unwrap();
        assert_eq!(got, want, "{name} output");
    }
    let report = c.bob.report().await.unwrap();
    // Every block was scanned once for all three jobs.
    assert_eq!(
        report
            .extra
            .get("scheduler.shared_attempts")
            .and_then(|v| v.as_f64()),
        Some(blocks as f64)
    );
    c.stop();
}

/// A test policy with shares: pools split the map slots max-min fairly
/// (`share::fair_shares`), jobs are served by deficit (`assign::by_deficit`).
/// It stands for any policy with shares; the Fair Scheduler's own live test
/// is `crates/cli/tests/live_fair.rs`.
struct PoolShares;

impl Scheduler for PoolShares {
    fn name(&self) -> String {
        "pool-shares".into()
    }
    fn assign(&mut self, st: &ClusterState, node: NodeId) -> Option<Launch> {
        use mrsched_sched::share::{fair_shares, Claim};
        let mut pools: Vec<(String, Vec<JobId>)> = Vec::new();
        for &j in st.active_jobs() {
            let p = st.job(j).spec.pool_name().to_string();
            match pools.iter_mut().find(|x| x.0 == p) {
                Some(x) => x.1.push(j),
                None => pools.push((p, vec![j])),
            }
        }
        let slots: u32 = (0..st.cluster().nodes.len())
            .map(|n| st.cluster().nodes[n].map_slots())
            .sum();
        let demand = |j: JobId| {
            let c = st.job(j).map_counts;
            (c.running + c.pending) as f64
        };
        let claims: Vec<Claim> = pools
            .iter()
            .map(|(_, js)| Claim::demand(js.iter().map(|&j| demand(j)).sum()))
            .collect();
        let shares = fair_shares(&claims, slots as f64);
        let targets: Vec<(JobId, f64)> = pools
            .iter()
            .zip(shares)
            .flat_map(|((_, js), s)| js.iter().map(move |&j| (j, s / js.len() as f64)))
            .collect();
        let order = mrsched_sched::assign::by_deficit(&targets, |j| st.job(j).map_counts.running);
        mrsched_sched::assign::first_map(st, node, order.iter().copied(), None)
            .or_else(|| mrsched_sched::assign::first_reduce(st, node, order))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_users_get_equal_shares_under_a_policy_with_shares() {
    let f: mrsched_runtime::master::core::SchedulerFactory =
        Arc::new(|_c: &Cluster| Box::new(PoolShares) as Box<dyn Scheduler>);
    // Two workers with two map slots each: 4 slots, 2 per user when shared.
    let c = TestCluster::start(2, Some(f)).await;
    let text = corpus(2000);
    put(&c.alice, "data", &text, 3 * 1024).await;
    let slow = "kind = \"streaming\"\nmapper = \"sleep 0.15; cat\"\nreducer = \"wc -l\"";
    // Alice first: FIFO would give her every slot.
    let a = c
        .alice
        .submit("a", &job_toml("data", "a-out", 1, slow), false)
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let b = c
        .bob
        .submit("b", &job_toml("data", "b-out", 1, slow), false)
        .await
        .unwrap();
    // Alice holds every slot when Bob arrives and the policy does not
    // preempt: the pools reach 2 + 2 as her maps end. Count from then on
    // (before, a loaded machine, sampling slowly, once saw mostly that
    // transition). A slot is refilled in the very heartbeat that reports
    // its map's end, so from then on every sample should be 2 + 2.
    let mut both = 0;
    let mut fair = 0;
    let mut shared = false;
    loop {
        let p = c.alice.pools().await.unwrap();
        let busy: Vec<(u32, u32)> = p
            .pools
            .iter()
            .map(|x| (x.running_maps, x.pending_maps))
            .collect();
        if busy.len() == 2 && busy.iter().all(|&(_, pend)| pend > 0) {
            let even = busy.iter().all(|&(run, _)| run == 2);
            shared |= even;
            if shared {
                both += 1;
                fair += even as u32;
            }
        }
        let ja = c.alice.job(a.id).await.unwrap();
        let jb = c.alice.job(b.id).await.unwrap();
        if ja.status != "running" && jb.status != "running" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
    assert!(
        both >= 3,
        "both users had pending maps, once shared, in {both} samples"
    );
    assert!(
        fair * 10 >= both * 7,
        "2 + 2 slots in only {fair} of {both} samples"
    );
    let lines = text.lines().count();
    for o in ["a-out", "b-out"] {
        let got = String::from_utf8(c.alice.read(o).await.unwrap()).unwrap();
        assert_eq!(got.trim(), lines.to_string());
    }
    c.stop();
}

/// FIFO with copy-compute splitting switched on (as `fair+ccs` does): a
/// node runs up to three reducers per reduce slot, only one computing.
struct FifoCcs(mrsched_sched::policies::fifo::Fifo);

impl Scheduler for FifoCcs {
    fn name(&self) -> String {
        "fifo+ccs-test".into()
    }
    fn on_event(&mut self, st: &ClusterState, ev: &mrsched_state::StateEvent) {
        self.0.on_event(st, ev)
    }
    fn assign(&mut self, st: &ClusterState, node: NodeId) -> Option<Launch> {
        self.0.assign(st, node)
    }
    fn copy_compute_splitting(&self) -> bool {
        true
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_compute_splitting_runs_more_reducers_than_compute_slots() {
    let f: mrsched_runtime::master::core::SchedulerFactory = Arc::new(|_c: &Cluster| {
        Box::new(FifoCcs(mrsched_sched::policies::fifo::Fifo::new())) as Box<dyn Scheduler>
    });
    let c = TestCluster::start(2, Some(f)).await;
    let text = corpus(1200);
    put(&c.alice, "t", &text, 2 * 1024).await;
    // A job may copy with one reducer per node (its reduce slots), so a
    // second reducer starts on a node only once the first computes. It is
    // launched in the reply to the heartbeat that admits the first one's
    // compute phase, and the first one's end comes in a later heartbeat:
    // on the master's clock the two overlap however fast the reducers run
    // and however loaded the machine is. (Sampling the job's running
    // reducers from outside could miss that window.)
    let (mapper, reducer) = ("cat", "sort -r");
    let prog = format!("kind = \"streaming\"\nmapper = \"{mapper}\"\nreducer = \"{reducer}\"");
    let s = c
        .alice
        .submit("ccs", &job_toml("t", "out", 6, &prog), false)
        .await
        .unwrap();
    let j = c.alice.wait(s.id, Duration::from_secs(120)).await.unwrap();
    assert_eq!(j.status, "succeeded", "{:?}", j.reason);
    // The most reduce attempts each node ran at once, from the master's
    // launch and end times.
    let atts = c.alice.attempts(s.id).await.unwrap();
    let mut by_node: std::collections::BTreeMap<&str, Vec<(f64, i32)>> = Default::default();
    for a in atts.iter().filter(|a| a.kind == "reduce") {
        let ev = by_node.entry(a.node.as_str()).or_default();
        ev.push((a.start_s, 1));
        ev.push((a.end_s.expect("the job ended"), -1));
    }
    let most: Vec<(&str, i32)> = by_node
        .into_iter()
        .map(|(n, mut ev)| {
            // Ends before launches at the same instant.
            ev.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
            let (mut now, mut top) = (0, 0);
            for (_, d) in ev {
                now += d;
                top = top.max(now);
            }
            (n, top)
        })
        .collect();
    // One reduce slot per node: without splitting never more than one.
    assert!(
        most.iter().any(|&(_, m)| m >= 2),
        "most reducers at once per node: {most:?}"
    );
    assert!(
        most.iter().all(|&(_, m)| m <= 3),
        "at most max_reducers (3) per node: {most:?}"
    );
    let p = Program::Streaming {
        mapper: mapper.into(),
        reducer: reducer.into(),
    };
    assert_eq!(
        c.alice.read("out").await.unwrap(),
        sequential(&p, text.as_bytes(), 6).unwrap().concat()
    );
    c.stop();
}

/// FIFO that preempts once: its timer fires soon after the first launch and
/// kills every running attempt (the Fair Scheduler's preemption path).
struct KillOnce {
    fifo: mrsched_sched::policies::fifo::Fifo,
    at: Option<mrsched_model::Time>,
    done: bool,
    killed: usize,
}

impl Scheduler for KillOnce {
    fn name(&self) -> String {
        "kill-once".into()
    }
    fn on_event(&mut self, st: &ClusterState, ev: &mrsched_state::StateEvent) {
        self.fifo.on_event(st, ev)
    }
    fn assign(&mut self, st: &ClusterState, node: NodeId) -> Option<Launch> {
        let l = self.fifo.assign(st, node);
        if l.is_some() && self.at.is_none() {
            self.at = Some(st.now() + mrsched_model::Time::from_secs_f64(0.15));
        }
        l
    }
    fn next_timer(&self) -> Option<mrsched_model::Time> {
        if self.done {
            None
        } else {
            self.at
        }
    }
    fn on_timer(&mut self, st: &ClusterState) -> Vec<mrsched_sched::Action> {
        self.done = true;
        let v: Vec<_> = (0..st.cluster().nodes.len() as u32)
            .flat_map(|n| st.attempts_on(NodeId(n)).map(|a| a.id).collect::<Vec<_>>())
            .map(mrsched_sched::Action::Kill)
            .collect();
        self.killed = v.len();
        v
    }
    fn stats(&self) -> std::collections::BTreeMap<String, f64> {
        [("killed".to_string(), self.killed as f64)].into()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn preempted_attempts_are_stopped_and_run_again() {
    let f: mrsched_runtime::master::core::SchedulerFactory = Arc::new(|_c: &Cluster| {
        Box::new(KillOnce {
            fifo: mrsched_sched::policies::fifo::Fifo::new(),
            at: None,
            done: false,
            killed: 0,
        }) as Box<dyn Scheduler>
    });
    let c = TestCluster::start(2, Some(f)).await;
    let text = corpus(800);
    put(&c.alice, "t", &text, 4 * 1024).await;
    let prog = "kind = \"streaming\"\nmapper = \"sleep 0.4; cat\"\nreducer = \"cat\"";
    let s = c
        .alice
        .submit("p", &job_toml("t", "out", 2, prog), false)
        .await
        .unwrap();
    let j = c.alice.wait(s.id, WAIT).await.unwrap();
    assert_eq!(j.status, "succeeded");
    let r = c.alice.report().await.unwrap();
    let killed = r.extra["scheduler.killed"].as_f64().unwrap();
    assert!(killed >= 1.0, "the timer killed {killed} attempts");
    assert_eq!(r.jobs[0].killed_attempts as f64, killed);
    let p = Program::Streaming {
        mapper: "sleep 0.4; cat".into(),
        reducer: "cat".into(),
    };
    assert_eq!(
        c.alice.read("out").await.unwrap(),
        sequential(&p, text.as_bytes(), 2).unwrap().concat()
    );
    c.stop();
}

/// A registered policy built from its preset, as `mrsched master
/// --scheduler NAME` does.
fn preset(name: &'static str) -> mrsched_runtime::master::core::SchedulerFactory {
    Arc::new(move |c: &Cluster| {
        mrsched_sched::SchedulerConfig::resolve(name)
            .unwrap()
            .build(c)
            .unwrap()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rtmr_admission_control_runs_live_and_answers_rejections() {
    let c = TestCluster::start(2, Some(preset("rtmr"))).await;
    put(&c.alice, "in", &corpus(200), 2048).await;
    // A deadline shorter than one heartbeat cannot be guaranteed.
    let tight = format!(
        "deadline_s = 0.01\n{}",
        job_toml("in", "o-tight", 1, "kind = \"wordcount\"")
    );
    let s = c.alice.submit("tight.toml", &tight, false).await.unwrap();
    assert_eq!(s.status, "rejected", "{s:?}");
    let reason = s.reason.unwrap();
    assert!(
        reason.contains("deadline"),
        "the reason names the deadline: {reason}"
    );
    let loose = format!(
        "deadline_s = 600\n{}",
        job_toml("in", "o-loose", 1, "kind = \"wordcount\"")
    );
    let s = c.alice.submit("loose.toml", &loose, false).await.unwrap();
    assert_eq!(s.status, "running", "{s:?}");
    let j = c.alice.wait(s.id, WAIT).await.unwrap();
    assert_eq!(j.status, "succeeded", "{j:?}");
    let r = c.alice.report().await.unwrap();
    let done = r.jobs.iter().find(|x| x.id == s.id).unwrap();
    assert_eq!(done.deadline_met, Some(true));
    c.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn circumflex_shares_scans_live_and_every_output_is_exact() {
    let c = TestCluster::start(2, Some(preset("circumflex"))).await;
    let text = corpus(3000);
    put(&c.bob, "logs", &text, 4 * 1024).await;
    // CPU work per record makes each map last long enough for the three
    // jobs to be scanning the dataset at the same time.
    let programs = [
        (
            "lg-a",
            1,
            "kind = \"loadgen\"\nkeep_map = 50\ncpu_per_record = 4000",
        ),
        (
            "lg-b",
            2,
            "kind = \"loadgen\"\nkeep_map = 100\ncpu_per_record = 4000",
        ),
        (
            "lg-c",
            1,
            "kind = \"loadgen\"\nkeep_map = 10\nkeep_reduce = 50\ncpu_per_record = 4000",
        ),
    ];
    let mut ids = Vec::new();
    for (name, r, p) in programs {
        let s = c
            .bob
            .submit(name, &job_toml("logs", &format!("{name}-out"), r, p), false)
            .await
            .unwrap();
        ids.push(s.id);
    }
    for id in &ids {
        let j = c.bob.wait(*id, WAIT).await.unwrap();
        assert_eq!(j.status, "succeeded", "{j:?}");
    }
    for (name, r, p) in programs {
        let prog: Program = toml::from_str::<toml::Table>(p)
            .unwrap()
            .try_into()
            .unwrap();
        let want = sequential(&prog, text.as_bytes(), r).unwrap().concat();
        assert_eq!(
            c.bob.read(&format!("{name}-out")).await.unwrap(),
            want,
            "{name}"
        );
    }
    let report = c.bob.report().await.unwrap();
    let riders = report
        .extra
        .get("scheduler.riders")
        .and_then(|v| v.as_f64())
        .unwrap();
    assert!(
        riders > 0.0,
        "some map attempts carried riders: {:?}",
        report.extra
    );
    c.stop();
}
