//! Cross-checks against Hadoop MR1's own Fair Scheduler tests
//! (`TestFairScheduler.java`, the 0.21 / 1.x scheduler with `Schedulable`
//! pools and jobs): each test below encodes one of its scenarios, on the
//! same cluster (two TaskTrackers of 2 map and 2 reduce slots unless it
//! says otherwise), with the same allocation file (MR1 XML, read by our
//! reader) and the numbers that test asserts: fair shares, which tasks a
//! heartbeat hands out, job limits and preemption counts.
//!
//! Two mechanical differences, neither a difference in policy:
//! * MR1 assigns one task per `assignTasks` call and alternates map and
//!   reduce; our driver fills a node in one heartbeat, maps first. So a
//!   heartbeat is compared as the *multiset* of (job, kind) it launches.
//! * Jobs without a pool go to MR1's `default` pool; ours go to their
//!   user's pool, so these jobs name `default` explicitly.

use super::*;
use crate::testutil::cluster;
use mrsched_model::{JobSpec, Priority, ReduceSpec};

fn pump(st: &mut ClusterState, s: &mut FairScheduler) {
    for ev in st.take_events() {
        s.on_event(st, &ev);
    }
}

/// One heartbeat of TaskTracker `tt` (1-based, as in the Java test): the
/// launches as sorted `(job number, 'm' | 'r')`, job numbers 1-based.
fn heartbeat(st: &mut ClusterState, s: &mut FairScheduler, tt: u32) -> Vec<(u32, char)> {
    let n = NodeId(tt - 1);
    s.on_heartbeat(st, n);
    let mut out = Vec::new();
    while st.free_map_slots(n) + st.free_reduce_slots(n) > 0 {
        let Some(l) = s.assign(st, n) else { break };
        st.launch(n, &l).expect("a valid launch");
        pump(st, s);
        let kind = match l.kind() {
            TaskKind::Map => 'm',
            TaskKind::Reduce => 'r',
        };
        out.push((l.job().0 + 1, kind));
    }
    out.sort();
    out
}

/// `trackers` TaskTrackers of 2 map and 2 reduce slots; reduces may start
/// at once (the Java test sets `waitForMapsBeforeLaunchingReduces = false`).
fn trackers(n: u32) -> Cluster {
    cluster(&format!(
        "reduce_slowstart = 0.0\n[[nodes]]\ncount = {n}\nmap_slots = 2\nreduce_slots = 2\n"
    ))
}

/// A Fair Scheduler with `options` (`[fair]` TOML) and the MR1 allocation
/// file `xml`.
fn scheduler(options: &str, xml: &str, c: &Cluster) -> FairScheduler {
    let text = format!("policy = \"fair\"\n[fair]\n{options}");
    let cfg = SchedulerConfig::from_source(&Source::new("<fair>", text, Format::Toml)).unwrap();
    let o: FairOptions = cfg.options().unwrap();
    let alloc = alloc::from_xml("test-pools", xml).unwrap();
    FairScheduler::new("fair".into(), &o, alloc, c)
}

/// A job of `maps` one-minute maps and `reduces` reduces. The reduces
/// have no explicit time (explicit-time reduces wait for every map), so
/// with the cluster's slow-start of 0 they are launchable at once, as in
/// the Java test.
fn mr1_job(at: Time, maps: usize, reduces: usize) -> JobSpec {
    let mut spec = JobSpec::explicit("j", at, &vec![60.0; maps], &[], 1.0);
    spec.reduces = vec![ReduceSpec { time: None }; reduces];
    spec
}

/// The Java test's `submitJob(RUNNING, maps, reduces, pool)` at `ms`.
fn submit(
    st: &mut ClusterState,
    s: &mut FairScheduler,
    ms: u64,
    maps: usize,
    reduces: usize,
    pool: &str,
    user: &str,
) -> JobId {
    let at = Time::from_secs_f64(ms as f64 / 1000.0);
    st.advance_to(at);
    let mut spec = mr1_job(at, maps, reduces);
    spec.pool = Some(pool.to_string());
    spec.user = user.to_string();
    let j = st.submit(spec);
    st.admit(j).unwrap();
    pump(st, s);
    j
}

/// A job's (map, reduce) fair share; 0 for a job the limits keep waiting.
fn share(st: &ClusterState, s: &mut FairScheduler, j: JobId) -> [f64; 2] {
    s.refresh(st);
    s.tree()
        .job_node(j)
        .map_or([0.0; 2], |i| s.tree().nodes[i as usize].share)
}

fn close(got: [f64; 2], want: f64, tol: f64) -> bool {
    got.iter().all(|g| (g - want).abs() <= tol)
}

const NO_POOLS: &str = "<?xml version=\"1.0\"?>\n<allocations />\n";

/// `testSmallJobs`: two jobs smaller than the cluster get their demands;
/// the slots go to job 1's tasks and job 2's.
#[test]
fn small_jobs() {
    let c = trackers(2);
    let mut st = ClusterState::new(c.clone());
    let mut s = scheduler("", NO_POOLS, &c);
    let j1 = submit(&mut st, &mut s, 0, 2, 1, "default", "u");
    assert_eq!(share(&st, &mut s, j1), [2.0, 1.0]);
    let j2 = submit(&mut st, &mut s, 100, 1, 2, "default", "u");
    assert_eq!(share(&st, &mut s, j1), [2.0, 1.0]);
    assert_eq!(share(&st, &mut s, j2), [1.0, 2.0]);
    assert_eq!(
        heartbeat(&mut st, &mut s, 1),
        [(1, 'm'), (1, 'r'), (2, 'm'), (2, 'r')]
    );
    assert_eq!(heartbeat(&mut st, &mut s, 2), [(1, 'm'), (2, 'r')]);
    assert!(heartbeat(&mut st, &mut s, 2).is_empty());
}

/// `testLargeJobs`: a job alone has the cluster (4 + 4); two share it
/// 2 + 2 and take turns on each tracker.
#[test]
fn large_jobs() {
    let c = trackers(2);
    let mut st = ClusterState::new(c.clone());
    let mut s = scheduler("", NO_POOLS, &c);
    let j1 = submit(&mut st, &mut s, 0, 10, 10, "default", "u");
    assert_eq!(share(&st, &mut s, j1), [4.0, 4.0]);
    let j2 = submit(&mut st, &mut s, 100, 10, 10, "default", "u");
    assert_eq!(share(&st, &mut s, j1), [2.0, 2.0]);
    assert_eq!(share(&st, &mut s, j2), [2.0, 2.0]);
    for tt in [1, 2] {
        assert_eq!(
            heartbeat(&mut st, &mut s, tt),
            [(1, 'm'), (1, 'r'), (2, 'm'), (2, 'r')]
        );
    }
    assert!(heartbeat(&mut st, &mut s, 1).is_empty());
}

/// `testJobsWithPriorities`: three trackers; a HIGH job has twice the
/// weight: shares 2 and 4 of 6, and it gets two tasks of each kind for the
/// other's one.
#[test]
fn jobs_with_priorities() {
    let c = trackers(3);
    let mut st = ClusterState::new(c.clone());
    let mut s = scheduler("", NO_POOLS, &c);
    let j1 = submit(&mut st, &mut s, 0, 10, 10, "default", "u");
    let at = st.now();
    let mut spec = mr1_job(at, 10, 10);
    spec.pool = Some("default".into());
    spec.priority = Priority::High;
    let j2 = st.submit(spec);
    st.admit(j2).unwrap();
    pump(&mut st, &mut s);
    assert!(close(share(&st, &mut s, j1), 2.0, 0.1));
    assert!(close(share(&st, &mut s, j2), 4.0, 0.1));
    let mut all = Vec::new();
    for tt in [1, 2, 3] {
        all.extend(heartbeat(&mut st, &mut s, tt));
    }
    let count = |j: u32, k: char| all.iter().filter(|x| **x == (j, k)).count();
    assert_eq!([count(1, 'm'), count(1, 'r')], [2, 2], "{all:?}");
    assert_eq!([count(2, 'm'), count(2, 'r')], [4, 4], "{all:?}");
}

const POOLS_A1_2_B2_1: &str = "<?xml version=\"1.0\"?>\n<allocations>\n\
    <pool name=\"poolA\"><minMaps>1</minMaps><minReduces>2</minReduces></pool>\n\
    <pool name=\"poolB\"><minMaps>2</minMaps><minReduces>1</minReduces></pool>\n\
    </allocations>\n";

/// `testLargeJobsWithPools`: pools with minimum shares (A: 1 map, 2
/// reduces; B: 2, 1) are served first; the default pool's job gets the rest.
#[test]
fn large_jobs_with_pools() {
    let c = trackers(2);
    let mut st = ClusterState::new(c.clone());
    let mut s = scheduler("", POOLS_A1_2_B2_1, &c);
    let j1 = submit(&mut st, &mut s, 0, 10, 10, "default", "u");
    assert_eq!(share(&st, &mut s, j1), [4.0, 4.0]);
    let j2 = submit(&mut st, &mut s, 200, 10, 10, "poolA", "u");
    let j3 = submit(&mut st, &mut s, 300, 10, 10, "poolB", "u");
    assert_eq!(
        s.tree().nodes[s.tree().pool("poolA").unwrap() as usize].min,
        [1.0, 2.0]
    );
    assert_eq!(share(&st, &mut s, j1), [1.0, 1.0]);
    assert_eq!(share(&st, &mut s, j2), [1.0, 2.0]);
    assert_eq!(share(&st, &mut s, j3), [2.0, 1.0]);
    st.advance_to(Time::from_secs_f64(0.4));
    assert_eq!(
        heartbeat(&mut st, &mut s, 1),
        [(2, 'm'), (2, 'r'), (3, 'm'), (3, 'r')]
    );
    assert_eq!(
        heartbeat(&mut st, &mut s, 2),
        [(1, 'm'), (1, 'r'), (2, 'r'), (3, 'm')]
    );
}

/// `testLargeJobsWithExcessCapacity`: a pool's minimum (2 + 2) is shared by
/// its two jobs; the default pool's job gets the other half.
#[test]
fn large_jobs_with_excess_capacity() {
    let xml = "<allocations><pool name=\"poolA\"><minMaps>2</minMaps>\
               <minReduces>2</minReduces></pool></allocations>";
    let c = trackers(2);
    let mut st = ClusterState::new(c.clone());
    let mut s = scheduler("", xml, &c);
    let j1 = submit(&mut st, &mut s, 0, 10, 10, "default", "u");
    let j2 = submit(&mut st, &mut s, 200, 10, 10, "poolA", "u");
    assert_eq!(share(&st, &mut s, j1), [2.0, 2.0]);
    assert_eq!(share(&st, &mut s, j2), [2.0, 2.0]);
    let j3 = submit(&mut st, &mut s, 300, 10, 10, "poolA", "u");
    assert_eq!(share(&st, &mut s, j1), [2.0, 2.0]);
    assert_eq!(share(&st, &mut s, j2), [1.0, 1.0]);
    assert_eq!(share(&st, &mut s, j3), [1.0, 1.0]);
    st.advance_to(Time::from_secs_f64(0.4));
    assert_eq!(
        heartbeat(&mut st, &mut s, 1),
        [(2, 'm'), (2, 'r'), (3, 'm'), (3, 'r')]
    );
    assert_eq!(
        heartbeat(&mut st, &mut s, 2),
        [(1, 'm'), (1, 'm'), (1, 'r'), (1, 'r')]
    );
}

/// `testSmallJobInLargePool`: a pool's minimum (4 + 4) above its only
/// job's demand (1 + 1) gives that job its demand, not the minimum.
#[test]
fn small_job_in_large_pool() {
    let xml = "<allocations><pool name=\"poolA\"><minMaps>4</minMaps>\
               <minReduces>4</minReduces></pool></allocations>";
    let c = trackers(2);
    let mut st = ClusterState::new(c.clone());
    let mut s = scheduler("", xml, &c);
    let j1 = submit(&mut st, &mut s, 0, 10, 10, "default", "u");
    let j2 = submit(&mut st, &mut s, 0, 1, 1, "poolA", "u");
    assert_eq!(share(&st, &mut s, j1), [3.0, 3.0]);
    assert_eq!(share(&st, &mut s, j2), [1.0, 1.0]);
    assert_eq!(
        heartbeat(&mut st, &mut s, 1),
        [(1, 'm'), (1, 'r'), (2, 'm'), (2, 'r')]
    );
    assert_eq!(
        heartbeat(&mut st, &mut s, 2),
        [(1, 'm'), (1, 'm'), (1, 'r'), (1, 'r')]
    );
}

/// `testPoolMaxJobs`: `maxRunningJobs` 2 in the default pool: the first
/// two jobs share the cluster, the others wait with no share.
#[test]
fn pool_max_jobs() {
    let xml = "<allocations><pool name=\"default\"><maxRunningJobs>2</maxRunningJobs>\
               </pool></allocations>";
    let c = trackers(2);
    let mut st = ClusterState::new(c.clone());
    let mut s = scheduler("", xml, &c);
    let jobs: Vec<JobId> = (0..4)
        .map(|k| submit(&mut st, &mut s, 10 * k, 10, 10, "default", "u"))
        .collect();
    let shares: Vec<[f64; 2]> = jobs.iter().map(|j| share(&st, &mut s, *j)).collect();
    assert_eq!(shares, [[2.0, 2.0], [2.0, 2.0], [0.0, 0.0], [0.0, 0.0]]);
    for tt in [1, 2] {
        assert_eq!(
            heartbeat(&mut st, &mut s, tt),
            [(1, 'm'), (1, 'r'), (2, 'm'), (2, 'r')]
        );
    }
}

/// `testUserMaxJobs`: user1 may run one job; user2's two jobs run. Three
/// runnable jobs share 4 slots (1.33 each).
#[test]
fn user_max_jobs() {
    let xml = "<allocations><user name=\"user1\"><maxRunningJobs>1</maxRunningJobs>\
               </user></allocations>";
    let c = trackers(2);
    let mut st = ClusterState::new(c.clone());
    let mut s = scheduler("", xml, &c);
    let users = ["user1", "user1", "user2", "user2"];
    let jobs: Vec<JobId> = (0..4)
        .map(|k| submit(&mut st, &mut s, 10 * k as u64, 10, 10, "default", users[k]))
        .collect();
    for (k, want) in [1.33, 0.0, 1.33, 1.33].into_iter().enumerate() {
        let got = share(&st, &mut s, jobs[k]);
        assert!(close(got, want, 0.1), "job {}: {got:?}", k + 1);
    }
    let mut all = heartbeat(&mut st, &mut s, 1);
    all.extend(heartbeat(&mut st, &mut s, 2));
    all.sort();
    // Jobs 1, 3 and 4 run; job 1 (earliest) gets the fourth slot of each
    // kind (MR1: tt1 1,3; tt2 4,1).
    assert_eq!(
        all,
        [
            (1, 'm'),
            (1, 'm'),
            (1, 'r'),
            (1, 'r'),
            (3, 'm'),
            (3, 'r'),
            (4, 'm'),
            (4, 'r')
        ]
    );
}

/// `testComplexJobLimits`: pool and user limits together (poolA 1 job,
/// user1 1, user2 10, others 2 by default): the default pool's six runnable
/// jobs split half the cluster (0.33 each), poolA's one runnable job has
/// the other half (2).
#[test]
fn complex_job_limits() {
    let xml = "<allocations>\
               <pool name=\"poolA\"><maxRunningJobs>1</maxRunningJobs></pool>\
               <user name=\"user1\"><maxRunningJobs>1</maxRunningJobs></user>\
               <user name=\"user2\"><maxRunningJobs>10</maxRunningJobs></user>\
               <userMaxJobsDefault>2</userMaxJobsDefault></allocations>";
    let c = trackers(2);
    let mut st = ClusterState::new(c.clone());
    let mut s = scheduler("", xml, &c);
    let plan = [
        ("user1", "default"),
        ("user1", "default"),
        ("user2", "default"),
        ("user2", "default"),
        ("user2", "default"),
        ("user3", "default"),
        ("user3", "default"),
        ("user3", "default"),
        ("user4", "poolA"),
        ("user4", "poolA"),
    ];
    let jobs: Vec<JobId> = plan
        .iter()
        .enumerate()
        .map(|(k, (u, p))| submit(&mut st, &mut s, 10 * k as u64, 10, 10, p, u))
        .collect();
    let want = [0.33, 0.0, 0.33, 0.33, 0.33, 0.33, 0.33, 0.0, 2.0, 0.0];
    for (k, w) in want.into_iter().enumerate() {
        let got = share(&st, &mut s, jobs[k]);
        assert!(close(got, w, 0.1), "job {}: {got:?} (want {w})", k + 1);
    }
}

/// `testPoolWeights`: weights 2 (poolA), 0.5 (poolB) and 1 (default) split
/// 4 slots 2.28 / 0.57 / 1.14; a second job in poolB halves its job's share.
#[test]
fn pool_weights() {
    let xml = "<allocations><pool name=\"poolA\"><weight>2.0</weight></pool>\
               <pool name=\"poolB\"><weight>0.5</weight></pool></allocations>";
    let c = trackers(2);
    let mut st = ClusterState::new(c.clone());
    let mut s = scheduler("", xml, &c);
    let j1 = submit(&mut st, &mut s, 0, 10, 10, "default", "u");
    let j2 = submit(&mut st, &mut s, 0, 10, 10, "poolA", "u");
    let j3 = submit(&mut st, &mut s, 0, 10, 10, "poolB", "u");
    st.advance_to(Time::from_secs_f64(0.01));
    assert!(close(share(&st, &mut s, j1), 1.14, 0.01));
    assert!(close(share(&st, &mut s, j2), 2.28, 0.01));
    assert!(close(share(&st, &mut s, j3), 0.57, 0.01));
    let j4 = submit(&mut st, &mut s, 10, 10, 10, "poolB", "u");
    st.advance_to(Time::from_secs_f64(0.02));
    assert!(close(share(&st, &mut s, j1), 1.14, 0.01));
    assert!(close(share(&st, &mut s, j2), 2.28, 0.01));
    assert!(close(share(&st, &mut s, j3), 0.28, 0.01));
    assert!(close(share(&st, &mut s, j4), 0.28, 0.01));
}

/// `testPoolWeightsWhenNoMaps`: poolA (weight 2) runs only reduces, so
/// poolB's job has all 4 map slots; reduces split 2:1 by weight.
#[test]
fn pool_weights_when_no_maps() {
    let xml = "<allocations><pool name=\"poolA\"><weight>2.0</weight></pool>\
               <pool name=\"poolB\"><weight>1.0</weight></pool></allocations>";
    let c = trackers(2);
    let mut st = ClusterState::new(c.clone());
    let mut s = scheduler("", xml, &c);
    let j1 = submit(&mut st, &mut s, 0, 0, 10, "poolA", "u");
    let j2 = submit(&mut st, &mut s, 0, 0, 10, "poolA", "u");
    let j3 = submit(&mut st, &mut s, 0, 10, 10, "poolB", "u");
    st.advance_to(Time::from_secs_f64(0.01));
    for (j, map) in [(j1, 0.0), (j2, 0.0), (j3, 4.0)] {
        let got = share(&st, &mut s, j);
        assert!((got[0] - map).abs() < 0.01, "{got:?}");
        assert!((got[1] - 1.33).abs() < 0.01, "{got:?}");
    }
}

/// `testPoolMaxMapsReduces`: a pool capped at 2 maps and 1 reduce runs no
/// more; the default pool's job takes what it leaves.
#[test]
fn pool_max_maps_reduces() {
    let xml = "<allocations><pool name=\"poolLimited\"><weight>1.0</weight>\
               <maxMaps>2</maxMaps><maxReduces>1</maxReduces></pool></allocations>";
    let c = trackers(2);
    let mut st = ClusterState::new(c.clone());
    let mut s = scheduler("", xml, &c);
    let j1 = submit(&mut st, &mut s, 0, 10, 5, "poolLimited", "u");
    let j2 = submit(&mut st, &mut s, 10, 10, 5, "default", "u");
    assert_eq!(
        heartbeat(&mut st, &mut s, 1),
        [(1, 'm'), (1, 'r'), (2, 'm'), (2, 'r')]
    );
    assert_eq!(
        heartbeat(&mut st, &mut s, 2),
        [(1, 'm'), (2, 'm'), (2, 'r'), (2, 'r')]
    );
    let run = |j: JobId| {
        [
            st.job(j).map_counts.running,
            st.job(j).reduce_counts.running,
        ]
    };
    assert_eq!(run(j1), [2, 1]);
    assert_eq!(run(j2), [2, 3]);
}

/// Kills the scheduler asks for at `now`, as (maps, reduces), applied.
fn preempt(st: &mut ClusterState, s: &mut FairScheduler) -> [u32; 2] {
    let mut n = [0; 2];
    if s.next_timer().is_some_and(|t| t <= st.now()) {
        for a in s.on_timer(st) {
            let Action::Kill(a) = a else { continue };
            let k = st.attempt(a).unwrap().kind;
            n[(k == TaskKind::Reduce) as usize] += 1;
            st.kill_attempt(a).unwrap();
        }
        pump(st, s);
    }
    n
}

/// The preemption scenarios' start: job 1 fills both trackers, tt2 100 ms
/// after tt1 (so tt2's tasks are the newest).
fn fill_with_job1(st: &mut ClusterState, s: &mut FairScheduler, trackers: u32) -> JobId {
    let j1 = submit(st, s, 0, 10, 10, "default", "u");
    for tt in 1..=trackers {
        st.advance_to(Time::from_secs_f64(0.1 * (tt - 1) as f64));
        assert_eq!(
            heartbeat(st, s, tt),
            [(1, 'm'), (1, 'm'), (1, 'r'), (1, 'r')]
        );
    }
    j1
}

/// `testMinSharePreemption`: poolA (min 2 maps, 1 reduce, timeout 60 s)
/// may not preempt 59 s after its job arrives, and preempts 2 maps and 1
/// reduce at 61 s, from tt2 (the newest tasks); the freed slots go to it.
#[test]
fn min_share_preemption() {
    let xml = "<allocations><pool name=\"poolA\"><minMaps>2</minMaps>\
               <minReduces>1</minReduces>\
               <minSharePreemptionTimeout>60</minSharePreemptionTimeout></pool></allocations>";
    let c = trackers(2);
    let mut st = ClusterState::new(c.clone());
    let mut s = scheduler("preemption = true", xml, &c);
    let j1 = fill_with_job1(&mut st, &mut s, 2);
    submit(&mut st, &mut s, 10_100, 10, 10, "poolA", "u");
    st.advance_to(Time::from_secs_f64(10.1 + 59.0));
    assert_eq!(preempt(&mut st, &mut s), [0, 0]);
    st.advance_to(Time::from_secs_f64(10.1 + 61.0));
    assert_eq!(preempt(&mut st, &mut s), [2, 1]);
    assert_eq!(st.job(j1).map_counts.running, 2);
    assert_eq!(st.job(j1).reduce_counts.running, 3);
    assert!(heartbeat(&mut st, &mut s, 1).is_empty());
    assert_eq!(
        heartbeat(&mut st, &mut s, 2),
        [(2, 'm'), (2, 'm'), (2, 'r')]
    );
}

/// `testMinSharePreemptionWithSmallJob`: a min share of 3 + 3 preempts only
/// what the pool's job needs (1 map, 2 reduces).
#[test]
fn min_share_preemption_with_small_job() {
    let xml = "<allocations><pool name=\"poolA\"><minMaps>3</minMaps>\
               <minReduces>3</minReduces>\
               <minSharePreemptionTimeout>60</minSharePreemptionTimeout></pool></allocations>";
    let c = trackers(2);
    let mut st = ClusterState::new(c.clone());
    let mut s = scheduler("preemption = true", xml, &c);
    let j1 = fill_with_job1(&mut st, &mut s, 2);
    submit(&mut st, &mut s, 10_100, 1, 2, "poolA", "u");
    st.advance_to(Time::from_secs_f64(10.1 + 59.0));
    assert_eq!(preempt(&mut st, &mut s), [0, 0]);
    st.advance_to(Time::from_secs_f64(10.1 + 61.0));
    assert_eq!(preempt(&mut st, &mut s), [1, 2]);
    assert_eq!(st.job(j1).map_counts.running, 3);
    assert_eq!(st.job(j1).reduce_counts.running, 2);
    assert_eq!(
        heartbeat(&mut st, &mut s, 2),
        [(2, 'm'), (2, 'r'), (2, 'r')]
    );
    assert!(heartbeat(&mut st, &mut s, 1).is_empty());
}

/// `testFairSharePreemption`: four trackers; pool1 holds 6 + 6, pool2 2 + 2
/// and pool3 nothing. Fair shares are 8/3 each: pool2 is at half its share,
/// pool3 below it, so after the 60 s fair-share timeout only pool3
/// preempts, floor(2.67) = 2 of each kind, from pool1's newest tasks.
#[test]
fn fair_share_preemption() {
    let xml = "<allocations><fairSharePreemptionTimeout>60</fairSharePreemptionTimeout>\
               </allocations>";
    let c = trackers(4);
    let mut st = ClusterState::new(c.clone());
    let mut s = scheduler("preemption = true", xml, &c);
    let j1 = submit(&mut st, &mut s, 0, 6, 6, "pool1", "u");
    for tt in 1..=3 {
        st.advance_to(Time::from_secs_f64(0.1 * tt as f64));
        assert_eq!(
            heartbeat(&mut st, &mut s, tt),
            [(1, 'm'), (1, 'm'), (1, 'r'), (1, 'r')]
        );
    }
    submit(&mut st, &mut s, 400, 10, 10, "pool2", "u");
    st.advance_to(Time::from_secs_f64(0.5));
    assert_eq!(
        heartbeat(&mut st, &mut s, 4),
        [(2, 'm'), (2, 'm'), (2, 'r'), (2, 'r')]
    );
    submit(&mut st, &mut s, 500, 10, 10, "pool3", "u");
    st.advance_to(Time::from_secs_f64(0.5 + 59.0));
    assert_eq!(preempt(&mut st, &mut s), [0, 0]);
    st.advance_to(Time::from_secs_f64(0.5 + 61.0));
    assert_eq!(preempt(&mut st, &mut s), [2, 2]);
    assert_eq!(st.job(j1).map_counts.running, 4);
    assert_eq!(st.job(j1).reduce_counts.running, 4);
    assert_eq!(
        heartbeat(&mut st, &mut s, 3),
        [(3, 'm'), (3, 'm'), (3, 'r'), (3, 'r')]
    );
    for tt in 1..=4 {
        assert!(heartbeat(&mut st, &mut s, tt).is_empty());
    }
}
