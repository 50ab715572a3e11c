//! The mirror against a small scripted engine: what a scheduler decides when
//! executors offer slots, and how the mirror follows the engine's changes.

use super::*;
use mrsched_model::{Format, Source};
use proptest::prelude::*;

/// A tiny engine: jobs of stages whose partitions run as one task each.
#[derive(Clone, Debug, Default)]
struct Engine {
    executors: Vec<ExecutorView>,
    jobs: Vec<JobView>,
}

impl Engine {
    fn new(executors: &[(&str, u32)]) -> Engine {
        Engine {
            executors: executors
                .iter()
                .map(|(id, slots)| ExecutorView {
                    id: id.to_string(),
                    host: format!("host-{id}"),
                    slots: *slots,
                })
                .collect(),
            jobs: Vec::new(),
        }
    }

    /// A job with one running stage of `parts` partitions (inputs on
    /// `input_on`, if any) in `pool`.
    fn add_job(&mut self, id: &str, pool: &str, parts: usize, input_on: Option<&str>) {
        let pending = (0..parts)
            .map(|p| PendingPartition {
                partition: p,
                inputs: input_on
                    .map(|e| vec![(e.to_string(), 100)])
                    .unwrap_or_default(),
            })
            .collect();
        self.jobs.push(JobView {
            id: id.into(),
            name: id.into(),
            user: format!("user-{pool}"),
            pool: Some(pool.into()),
            queued_ms: self.jobs.len() as u64,
            stages: vec![StageView {
                id: 1,
                attempt: 0,
                state: StageState::Running,
                collapse: false,
                pending,
                tasks: Vec::new(),
            }],
        });
    }

    fn stage(&mut self, job: &str, stage: usize) -> &mut StageView {
        self.jobs
            .iter_mut()
            .find(|j| j.id == job)
            .unwrap()
            .stages
            .iter_mut()
            .find(|s| s.id == stage)
            .unwrap()
    }

    /// Bind what the mirror chose, as the adapter does.
    fn bind(&mut self, mirror: &mut Mirror, executor: &str, binds: &[Bind]) {
        for b in binds {
            let s = self.stage(&b.job, b.stage);
            match b.work {
                Work::Partition(p) => s.pending.retain(|x| x.partition != p),
                Work::WholeStage => s.pending.clear(),
                Work::Adopted(_) => unreachable!("adopted tasks are never bound"),
            }
            let id = s.tasks.len();
            s.tasks.push(TaskView {
                id,
                executor: executor.into(),
                state: TaskState::Running,
            });
            mirror.confirm(b, id);
        }
    }

    fn free(&self, executor: &str) -> u32 {
        let slots = self
            .executors
            .iter()
            .find(|e| e.id == executor)
            .map_or(0, |e| e.slots);
        let busy = self
            .jobs
            .iter()
            .flat_map(|j| &j.stages)
            .flat_map(|s| &s.tasks)
            .filter(|t| t.executor == executor && t.state == TaskState::Running)
            .count() as u32;
        slots - busy
    }

    /// Sync then offer every executor's free slots, binding the answers.
    fn round(&mut self, mirror: &mut Mirror, now: Time) -> Vec<Bind> {
        mirror.sync(now, &self.executors, &self.jobs);
        let mut all = Vec::new();
        for e in self.executors.clone() {
            let free = self.free(&e.id);
            let b = mirror.offer(now, &e.id, free);
            self.bind(mirror, &e.id, &b);
            all.extend(b);
        }
        all
    }

    fn finish_one(&mut self, job: &str) -> bool {
        for s in &mut self.jobs.iter_mut().find(|j| j.id == job).unwrap().stages {
            if let Some(t) = s.tasks.iter_mut().find(|t| t.state == TaskState::Running) {
                t.state = TaskState::Succeeded;
                return true;
            }
        }
        false
    }

    fn running(&self, job: &str) -> usize {
        self.jobs
            .iter()
            .filter(|j| j.id == job)
            .flat_map(|j| &j.stages)
            .flat_map(|s| &s.tasks)
            .filter(|t| t.state == TaskState::Running)
            .count()
    }
}

fn config(toml: &str) -> SchedulerConfig {
    SchedulerConfig::from_source(&Source::new("<test>", toml, Format::Toml)).unwrap()
}

fn mirror(toml: &str) -> Mirror {
    Mirror::new(config(toml), Topology::flat(), "test").unwrap()
}

const FIFO: &str = "policy = \"fifo\"\n";
const FAIR: &str = "policy = \"fair\"\n";

fn secs(s: f64) -> Time {
    Time::from_secs_f64(s)
}

/// A long job holds every slot; a short job arrives; one slot frees up.
fn short_after_long(toml: &str) -> (Engine, Mirror, Vec<Bind>) {
    let mut e = Engine::new(&[("e0", 2), ("e1", 2)]);
    let mut m = mirror(toml);
    e.add_job("long", "batch", 40, None);
    let first = e.round(&mut m, secs(0.0));
    assert_eq!(first.len(), 4, "four slots, four tasks of the long job");
    assert!(first.iter().all(|b| b.job == "long"));
    e.add_job("short", "adhoc", 3, None);
    e.round(&mut m, secs(1.0));
    assert!(e.finish_one("long"));
    let next = e.round(&mut m, secs(2.0));
    (e, m, next)
}

#[test]
fn fair_gives_a_freed_slot_to_the_short_job_and_fifo_to_the_long_one() {
    let (e, mut m, next) = short_after_long(FAIR);
    assert_eq!(next.len(), 1);
    assert_eq!(next[0].job, "short");
    assert_eq!(e.running("short"), 1);
    let pools = m.pools();
    let adhoc = pools.pools.iter().find(|p| p.name == "adhoc").unwrap();
    assert_eq!(
        (adhoc.jobs, adhoc.running_maps, adhoc.pending_maps),
        (1, 1, 2)
    );
    // Two pools, demand 40 and 3 on four slots: two each.
    assert!((adhoc.fair_share - 2.0).abs() < 1e-9, "{adhoc:?}");

    let (e, _, next) = short_after_long(FIFO);
    assert_eq!(next.len(), 1);
    assert_eq!(next[0].job, "long");
    assert_eq!(e.running("short"), 0);
}

#[test]
fn weighted_pools_share_slots_in_their_ratio() {
    let toml = "policy = \"fair\"\n[fair.pools.etl]\nweight = 2.0\n[fair.pools.bi]\nweight = 1.0\n";
    let mut e = Engine::new(&[("e0", 3), ("e1", 3)]);
    let mut m = mirror(toml);
    e.add_job("a", "etl", 200, None);
    e.add_job("b", "bi", 200, None);
    let mut samples = Vec::new();
    for step in 0..60 {
        e.round(&mut m, secs(step as f64));
        samples.push((e.running("a"), e.running("b")));
        // One task of each job ends per step, so slots keep changing hands.
        e.finish_one("a");
        e.finish_one("b");
    }
    // After the first rounds every sample is 4:2 of six slots.
    for (a, b) in &samples[2..] {
        assert_eq!((a, b), (&4, &2), "{samples:?}");
    }
}

#[test]
fn a_query_naming_an_undeclared_pool_runs_in_default_when_only_declared_pools_are_allowed() {
    let toml =
        "policy = \"fair\"\n[fair]\ndeclared_pools_only = true\n[fair.pools.etl]\nweight = 2.0\n";
    let mut e = Engine::new(&[("e0", 3), ("e1", 3)]);
    let mut m = mirror(toml);
    e.add_job("a", "etl", 200, None);
    e.add_job("b", "nosuch", 200, None);
    e.round(&mut m, secs(0.0));
    e.finish_one("a");
    e.finish_one("b");
    e.round(&mut m, secs(1.0));
    assert_eq!((e.running("a"), e.running("b")), (4, 2));
    let names: Vec<(String, u32)> = m
        .pools()
        .pools
        .iter()
        .map(|p| (p.name.clone(), p.jobs))
        .collect();
    assert_eq!(names, [("default".into(), 1), ("etl".into(), 1)]);
}

#[test]
fn delay_scheduling_waits_for_the_executor_that_holds_the_input() {
    let toml = "policy = \"fair\"\n[fair]\ndelay = \"wait\"\nlocality_wait_s = [3, 3]\n";
    let mut e = Engine::new(&[("e0", 1), ("e1", 1)]);
    let mut m = mirror(toml);
    e.add_job("q", "p", 3, Some("e1"));
    m.sync(secs(0.0), &e.executors, &e.jobs);
    // e0 does not hold the input: declined while the job waits.
    assert!(m.offer(secs(0.0), "e0", 1).is_empty());
    assert!(m.offer(secs(1.0), "e0", 1).is_empty());
    // e1 does: node-local at once.
    let b = m.offer(secs(1.0), "e1", 1);
    assert_eq!(b.len(), 1);
    assert_eq!(b[0].locality, Locality::Node);
    e.bind(&mut m, "e1", &b);
    // Past the wait, e0 takes one anyway (same default rack).
    m.sync(secs(5.0), &e.executors, &e.jobs);
    let b = m.offer(secs(5.0), "e0", 1);
    assert_eq!(b.len(), 1);
    assert_eq!(b[0].locality, Locality::Rack);
    assert_eq!(m.stats().binds_by_locality.get("node"), Some(&1));
}

#[test]
fn a_collapse_stage_is_one_task_over_every_pending_partition() {
    let mut e = Engine::new(&[("e0", 4)]);
    let mut m = mirror(FIFO);
    e.add_job("q", "p", 5, None);
    e.stage("q", 1).collapse = true;
    let b = e.round(&mut m, secs(0.0));
    assert_eq!(b.len(), 1);
    assert_eq!(b[0].work, Work::WholeStage);
    assert!(e.stage("q", 1).pending.is_empty());
}

#[test]
fn stages_follow_one_another_and_the_query_ends_with_the_engine() {
    let mut e = Engine::new(&[("e0", 2)]);
    let mut m = mirror(FIFO);
    e.add_job("q", "p", 2, None);
    assert_eq!(e.round(&mut m, secs(0.0)).len(), 2);
    let j = m.job_id("q").unwrap();
    // Stage 1 done; stage 2 reads its output on e0.
    let s = e.stage("q", 1);
    s.state = StageState::Succeeded;
    for t in &mut s.tasks {
        t.state = TaskState::Succeeded;
    }
    e.jobs[0].stages.push(StageView {
        id: 2,
        attempt: 0,
        state: StageState::Running,
        collapse: false,
        pending: vec![PendingPartition {
            partition: 0,
            inputs: vec![("e0".into(), 10)],
        }],
        tasks: Vec::new(),
    });
    let b = e.round(&mut m, secs(1.0));
    assert_eq!(b.len(), 1);
    assert_eq!((b[0].stage, b[0].locality), (2, Locality::Node));
    assert_eq!(m.state().job(j).map_counts.done, 2);
    assert_eq!(m.state().job(j).status, JobStatus::Running);
    // The engine finishes the query: it leaves the running list.
    e.jobs.clear();
    e.round(&mut m, secs(2.0));
    assert_eq!(m.state().job(j).status, JobStatus::Succeeded);
    assert_eq!(m.state().job(j).map_counts.done, 3);
    assert_eq!(m.stats().jobs_ended, 1);
}

#[test]
fn a_rolled_back_stage_withdraws_its_tasks_and_runs_them_again() {
    let mut e = Engine::new(&[("e0", 1), ("e1", 1)]);
    let mut m = mirror(FIFO);
    e.add_job("q", "p", 3, None);
    assert_eq!(e.round(&mut m, secs(0.0)).len(), 2);
    let j = m.job_id("q").unwrap();
    // e1 is lost; the engine rolls the stage back.
    e.executors.retain(|x| x.id != "e1");
    let s = e.stage("q", 1);
    s.state = StageState::Waiting;
    s.pending.clear();
    s.tasks.clear();
    e.round(&mut m, secs(1.0));
    let job = m.state().job(j);
    assert_eq!((job.map_counts.running, job.map_counts.pending), (0, 0));
    assert!(!m.state().slots(NodeId(1)).alive);
    // It runs again as attempt 1 with all three partitions.
    let s = e.stage("q", 1);
    s.state = StageState::Running;
    s.attempt = 1;
    s.pending = (0..3)
        .map(|p| PendingPartition {
            partition: p,
            inputs: Vec::new(),
        })
        .collect();
    let b = e.round(&mut m, secs(2.0));
    assert_eq!(b.len(), 1, "one executor left");
    let job = m.state().job(j);
    assert_eq!((job.map_counts.running, job.map_counts.pending), (1, 2));
}

#[test]
fn a_failed_task_runs_again() {
    let mut e = Engine::new(&[("e0", 1)]);
    let mut m = mirror(FIFO);
    e.add_job("q", "p", 1, None);
    let b = e.round(&mut m, secs(0.0));
    assert_eq!(b[0].work, Work::Partition(0));
    // The task fails; the engine queues partition 0 again.
    let s = e.stage("q", 1);
    s.tasks[0].state = TaskState::Failed;
    s.pending.push(PendingPartition {
        partition: 0,
        inputs: Vec::new(),
    });
    let b = e.round(&mut m, secs(1.0));
    assert_eq!(b.len(), 1);
    assert_eq!(b[0].work, Work::Partition(0));
}

#[test]
fn a_new_executor_rebuilds_the_mirror_and_adopts_running_tasks() {
    let mut e = Engine::new(&[("e0", 2)]);
    let mut m = mirror(FAIR);
    e.add_job("q", "p", 10, None);
    assert_eq!(e.round(&mut m, secs(0.0)).len(), 2);
    let rebuilds = m.stats().rebuilds;
    e.executors.push(ExecutorView {
        id: "e1".into(),
        host: "h1".into(),
        slots: 2,
    });
    let b = e.round(&mut m, secs(1.0));
    assert_eq!(b.len(), 2, "the new executor's two slots");
    assert_eq!(m.stats().rebuilds, rebuilds + 1);
    assert_eq!(m.stats().adopted, 2);
    let j = m.job_id("q").unwrap();
    assert_eq!(m.state().job(j).map_counts.running, 4);
    assert_eq!(m.state().job(j).map_counts.pending, 6);
}

#[test]
fn ended_queries_are_forgotten_and_live_ones_keep_their_tasks() {
    let mut e = Engine::new(&[("e0", 2), ("e1", 2)]);
    let mut m = mirror(FAIR);
    m.forget_ended_after(5);
    m.sync(secs(0.0), &e.executors, &e.jobs);
    // e1 is lost before any work: it must stay lost across rebuilds.
    e.executors.retain(|x| x.id == "e0");
    e.add_job("long", "a", 40, None);
    e.round(&mut m, secs(1.0));
    for i in 0..12 {
        let id = format!("s{i}");
        e.add_job(&id, "b", 1, None);
        let t = secs(2.0 + i as f64);
        e.round(&mut m, t);
        while e.finish_one(&id) {}
        e.finish_one("long");
        e.jobs.retain(|j| j.id != id);
        e.round(&mut m, t);
        // Ended queries since the last rebuild, and the long query.
        assert!(m.state().jobs().len() <= 6, "{}", m.state().jobs().len());
        let j = m.job_id("long").unwrap();
        assert_eq!(
            m.state().job(j).map_counts.running as usize,
            e.running("long")
        );
        // e1 stays lost, and a compaction forgets it.
        let e1 = m.by_executor.get("e1").copied();
        assert!(e1.is_none_or(|n| !m.state().slots(n).alive));
    }
    assert_eq!(m.stats().jobs_ended, 12);
    assert_eq!(m.stats().compactions, 2);
    assert_eq!(m.stats().rebuilds, 1, "only when the executors joined");
    assert!(!m.by_executor.contains_key("e1"));
    assert_eq!(m.state().nodes().len(), 1);
    // The long query ends with each partition run exactly once.
    let mut t = 20.0;
    loop {
        t += 1.0;
        assert!(t < 200.0, "the long query never ends");
        e.round(&mut m, secs(t));
        let pending = e.stage("long", 1).pending.len();
        if !e.finish_one("long") && pending == 0 {
            break;
        }
    }
    let s = e.stage("long", 1);
    assert_eq!(s.tasks.len(), 40);
    assert!(s.tasks.iter().all(|t| t.executor == "e0"));
    // A forgotten executor that returns joins again.
    e.executors.push(ExecutorView {
        id: "e1".into(),
        host: "e1".into(),
        slots: 2,
    });
    e.round(&mut m, secs(t + 1.0));
    assert_eq!(m.stats().rebuilds, 2);
    assert!(m.state().slots(m.by_executor["e1"]).alive);
}

#[test]
fn an_executor_with_absurdly_many_vcores_counts_as_the_limit() {
    let mut e = Engine::new(&[("big", u32::MAX / 2)]);
    let mut m = mirror(FAIR);
    e.add_job("q", "p", 3, None);
    let b = e.round(&mut m, secs(0.0));
    assert_eq!(b.len(), 3);
    let n = m.by_executor["big"];
    assert_eq!(m.executors[n.idx()].slots, MAX_EXECUTOR_SLOTS);
    // An offer above the executor's size is its size.
    e.add_job("r", "p", 5_000, None);
    m.sync(secs(1.0), &e.executors, &e.jobs);
    let b = m.offer(secs(1.0), "big", u32::MAX);
    assert_eq!(b.len(), MAX_EXECUTOR_SLOTS as usize);
}

#[test]
fn a_failed_task_on_a_lost_executor_runs_again_and_nothing_is_adopted_there() {
    let mut e = Engine::new(&[("e0", 2), ("e1", 2)]);
    let mut m = mirror(FIFO);
    e.add_job("q", "p", 4, None);
    assert_eq!(e.round(&mut m, secs(0.0)).len(), 4);
    let j = m.job_id("q").unwrap();
    let tasks_before = m.state().job(j).maps.len();
    // e1 goes; for a few polls the engine still shows its tasks running.
    e.executors.retain(|x| x.id == "e0");
    for t in 1..5 {
        e.round(&mut m, secs(t as f64));
    }
    assert_eq!(
        m.state().job(j).maps.len(),
        tasks_before,
        "no adoption on a lost node"
    );
    assert_eq!(m.stats().adopted, 0);
    // Then the engine marks them failed and queues their partitions again
    // (same stage attempt): they run on e0 once it has room.
    let s = e.stage("q", 1);
    let mut lost = Vec::new();
    for t in s.tasks.iter_mut().filter(|t| t.executor == "e1") {
        t.state = TaskState::Failed;
        lost.push(t.id);
    }
    for p in &lost {
        s.pending.push(PendingPartition {
            partition: *p,
            inputs: Vec::new(),
        });
    }
    assert_eq!(lost.len(), 2);
    while e.finish_one("q") {}
    let again = e.round(&mut m, secs(6.0));
    assert_eq!(again.len(), 2);
    assert!(e.stage("q", 1).pending.is_empty());
    assert_eq!(e.running("q"), 2);
    assert_eq!(m.state().job(j).map_counts.running, 2);
}

#[test]
fn capacity_warnings_wait_for_executors_and_are_reported_once() {
    let toml = "policy = \"fair\"\n[fair.pools.a]\nmin_maps = 10\n";
    let mut e = Engine::new(&[("e0", 2)]);
    let mut m = mirror(toml);
    assert!(m.warnings().is_empty(), "no executor yet");
    m.sync(secs(0.0), &e.executors, &e.jobs);
    let p = m.take_problems();
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].contains("minimum maps add up to 10"), "{p:?}");
    m.sync(secs(1.0), &e.executors, &e.jobs);
    assert!(m.take_problems().is_empty());
    // Another executor: the cluster's size changed, so does the warning.
    e.executors.push(ExecutorView {
        id: "e1".into(),
        host: "e1".into(),
        slots: 2,
    });
    m.sync(secs(2.0), &e.executors, &e.jobs);
    let p = m.take_problems();
    assert!(p.len() == 1 && p[0].contains("has 4 maps slots"), "{p:?}");
}

#[test]
fn a_refused_bind_is_undone() {
    let mut e = Engine::new(&[("e0", 1)]);
    let mut m = mirror(FIFO);
    e.add_job("q", "p", 1, None);
    m.sync(secs(0.0), &e.executors, &e.jobs);
    let b = m.offer(secs(0.0), "e0", 1);
    m.refuse(&b[0]);
    let j = m.job_id("q").unwrap();
    assert_eq!(m.state().job(j).map_counts.pending, 1);
    assert_eq!(m.stats().refused, 1);
    // Offered again, the same work is chosen.
    let again = m.offer(secs(0.0), "e0", 1);
    assert_eq!(again[0].work, b[0].work);
}

#[test]
fn policies_the_engine_cannot_serve_are_refused_with_a_reason() {
    for preset in ["mars", "rtmr", "adaptive", "circumflex", "fair+preemption"] {
        let cfg = SchedulerConfig::preset(preset).unwrap();
        let e = check_policy(&cfg).unwrap_err();
        assert!(e.0.contains("cannot drive"), "{preset}: {e}");
    }
    for preset in ["fifo", "fair", "fair+delay"] {
        check_policy(&SchedulerConfig::preset(preset).unwrap()).unwrap();
    }
}

proptest! {
    /// Whatever the engine does, no executor is offered more tasks than its
    /// free slots, the mirror never counts more running tasks on a node
    /// than it has slots, and every partition is bound at most once while
    /// it is pending.
    #[test]
    fn binds_never_oversubscribe_executors(
        ops in proptest::collection::vec((0u8..4, 0usize..3), 1..60),
        fair in any::<bool>(),
    ) {
        let mut e = Engine::new(&[("e0", 2), ("e1", 3), ("e2", 1)]);
        let mut m = mirror(if fair { FAIR } else { FIFO });
        let mut jobs = 0;
        for (step, (op, arg)) in ops.into_iter().enumerate() {
            let now = secs(step as f64);
            match op {
                0 => {
                    e.add_job(&format!("j{jobs}"), &format!("p{arg}"), 1 + arg * 3, None);
                    jobs += 1;
                }
                1 => {
                    if let Some(j) = e.jobs.get(arg).map(|j| j.id.clone()) {
                        e.finish_one(&j);
                    }
                }
                2 => {
                    // Queries whose every task finished leave the engine.
                    e.jobs.retain(|j| j.stages.iter().any(|s| {
                        !s.pending.is_empty() || s.tasks.iter().any(|t| t.state == TaskState::Running)
                    }));
                }
                _ => {}
            }
            m.sync(now, &e.executors, &e.jobs);
            for x in e.executors.clone() {
                let free = e.free(&x.id);
                let b = m.offer(now, &x.id, free);
                prop_assert!(b.len() as u32 <= free);
                e.bind(&mut m, &x.id, &b);
            }
            for (i, x) in e.executors.iter().enumerate() {
                let on = m.state().attempts_on(NodeId(i as u32)).count() as u32;
                prop_assert!(on <= x.slots);
                prop_assert_eq!(x.slots - e.free(&x.id), on);
            }
        }
    }
}

#[test]
fn an_offer_is_filled_even_while_finished_tasks_still_look_running() {
    // The engine applies task updates after the executor offers again: its
    // view still shows both tasks running while the executor is idle.
    let mut e = Engine::new(&[("e0", 2)]);
    let mut m = mirror(FAIR);
    e.add_job("q", "p", 6, None);
    assert_eq!(e.round(&mut m, secs(0.0)).len(), 2);
    m.sync(secs(1.0), &e.executors, &e.jobs);
    let b = m.offer(secs(1.0), "e0", 2);
    assert_eq!(b.len(), 2, "the executor's two free vcores are used");
    e.bind(&mut m, "e0", &b);
    // Once the updates arrive, the mirror counts two running tasks again.
    for t in &mut e.stage("q", 1).tasks[..2] {
        t.state = TaskState::Succeeded;
    }
    m.sync(secs(2.0), &e.executors, &e.jobs);
    assert_eq!(m.state().attempts_on(NodeId(0)).count(), 2);
    // The fair share is computed on the executor's real size.
    let pools = m.pools();
    assert!((pools.pools[0].fair_share - 2.0).abs() < 1e-9, "{pools:?}");
    assert!(m.warnings().is_empty());
}

#[test]
fn partitions_bound_together_as_one_engine_task_end_together() {
    let mut e = Engine::new(&[("e0", 3)]);
    let mut m = mirror(FIFO);
    e.add_job("q", "p", 5, None);
    m.sync(secs(0.0), &e.executors, &e.jobs);
    let b = m.offer(secs(0.0), "e0", 3);
    assert_eq!(b.len(), 3);
    // The adapter packs the three partitions into one engine task.
    let s = e.stage("q", 1);
    for x in &b {
        let Work::Partition(p) = x.work else { panic!() };
        s.pending.retain(|y| y.partition != p);
    }
    s.tasks.push(TaskView {
        id: 0,
        executor: "e0".into(),
        state: TaskState::Running,
    });
    for x in &b {
        m.confirm(x, 0);
    }
    let j = m.job_id("q").unwrap();
    m.sync(secs(1.0), &e.executors, &e.jobs);
    assert_eq!(m.state().job(j).map_counts.running, 3);
    assert_eq!(m.stats().adopted, 0);
    e.stage("q", 1).tasks[0].state = TaskState::Succeeded;
    m.sync(secs(2.0), &e.executors, &e.jobs);
    let job = m.state().job(j);
    assert_eq!((job.map_counts.running, job.map_counts.done), (0, 3));
}

/// Every executor offers its free slots until nothing more is bound.
fn fill(e: &mut Engine, m: &mut Mirror, now: Time) {
    e.round(m, now);
}

#[test]
fn minimum_shares_max_running_jobs_and_fifo_pools_hold() {
    let toml = "policy = \"fair\"\n\
        [fair.pools.prod]\nmin_maps = 3\n\
        [fair.pools.one]\nmax_running_jobs = 1\n\
        [fair.pools.queue]\nscheduling_mode = \"fifo\"\n";
    // Minimum share: prod gets 3 of 4 slots although the weights are equal.
    let mut e = Engine::new(&[("e0", 2), ("e1", 2)]);
    let mut m = mirror(toml);
    e.add_job("adhoc", "adhoc", 20, None);
    fill(&mut e, &mut m, secs(0.0));
    e.add_job("prod", "prod", 20, None);
    for step in 1..12 {
        e.finish_one("adhoc");
        e.finish_one("prod");
        fill(&mut e, &mut m, secs(step as f64));
    }
    assert_eq!((e.running("prod"), e.running("adhoc")), (3, 1));

    // A pool that runs one job at a time: the second waits for the first.
    let mut e = Engine::new(&[("e0", 2), ("e1", 2)]);
    let mut m = mirror(toml);
    e.add_job("a", "one", 2, None);
    e.add_job("b", "one", 2, None);
    fill(&mut e, &mut m, secs(0.0));
    assert_eq!((e.running("a"), e.running("b")), (2, 0));
    e.jobs.retain(|j| j.id != "a");
    fill(&mut e, &mut m, secs(1.0));
    assert_eq!(e.running("b"), 2);

    // FIFO inside a pool: the earlier query takes every slot it can use.
    let mut e = Engine::new(&[("e0", 2), ("e1", 2)]);
    let mut m = mirror(toml);
    e.add_job("first", "queue", 10, None);
    e.add_job("second", "queue", 10, None);
    fill(&mut e, &mut m, secs(0.0));
    assert_eq!((e.running("first"), e.running("second")), (4, 0));
    let pools = m.pools();
    let q = pools.pools.iter().find(|p| p.name == "queue").unwrap();
    assert_eq!((q.jobs, q.running_maps, q.pending_maps), (2, 4, 16));
    let prod = pools.pools.iter().find(|p| p.name == "prod").unwrap();
    assert_eq!(prod.min_share, 3.0);
}
