//! Hand-checked tests of the Capacity Scheduler, driven as a driver would:
//! events forwarded after every change, `assign` until `None`.

use super::*;
use crate::testutil::cluster;
use mrsched_model::JobSpec;

fn pump(st: &mut ClusterState, s: &mut CapacityScheduler) {
    for ev in st.take_events() {
        s.on_event(st, &ev);
    }
}

fn beat_all(st: &mut ClusterState, s: &mut CapacityScheduler) {
    for n in 0..st.cluster().nodes.len() as u32 {
        let n = NodeId(n);
        while st.free_map_slots(n) + st.free_reduce_slots(n) > 0 {
            let Some(l) = s.assign(st, n) else { break };
            st.launch(n, &l)
                .expect("the scheduler only asks for valid launches");
            pump(st, s);
        }
    }
}

/// Submit through `on_submit` as a driver does; the reason when rejected.
fn submit(
    st: &mut ClusterState,
    s: &mut CapacityScheduler,
    spec: JobSpec,
) -> Result<JobId, String> {
    let j = st.submit(spec);
    pump(st, s);
    match s.on_submit(st, j) {
        Admission::Admit => {
            st.admit(j).unwrap();
            pump(st, s);
            Ok(j)
        }
        Admission::Reject(why) => {
            st.reject(j, &why).unwrap();
            pump(st, s);
            Err(why)
        }
    }
}

/// A data-less map-only job of `maps` 60 s maps.
fn job(queue: Option<&str>, user: &str, maps: usize) -> JobSpec {
    let mut j = JobSpec::explicit("j", Time::ZERO, &vec![60.0; maps], &[], 1.0);
    j.pool = queue.map(str::to_string);
    j.user = user.to_string();
    j
}

fn slots(n: u32) -> Cluster {
    cluster(&format!(
        "[[nodes]]\ncount = {n}\nmap_slots = 1\nreduce_slots = 1\n"
    ))
}

/// A capacity-scheduler.xml from `name = value` pairs (names without the
/// `yarn.scheduler.capacity.` prefix).
fn xml(props: &[(&str, &str)]) -> String {
    let mut s = String::from("<?xml version=\"1.0\"?>\n<configuration>\n");
    for (k, v) in props {
        s.push_str(&format!(
            "  <property>\n    <name>yarn.scheduler.capacity.{k}</name>\n    <value>{v}</value>\n  </property>\n"
        ));
    }
    s.push_str("</configuration>\n");
    s
}

fn sched(props: &[(&str, &str)], c: &Cluster) -> CapacityScheduler {
    let conf = conf::parse("cs.xml", &xml(props)).unwrap_or_else(|e| panic!("{e}"));
    CapacityScheduler::new("capacity".into(), conf, c)
}

fn running(st: &ClusterState, j: JobId) -> u32 {
    st.job(j).map_counts.running
}

#[test]
fn user_limit_follows_yarn() {
    // 10 guaranteed slots, 2 active users, minimum-user-limit-percent 100:
    // one user may take the whole queue (max(10/2, 10 * 100%) = 10).
    assert_eq!(user_limit(10.0, 0, 2, 100.0, 1.0), 10);
    // At 50%: max(ceil(10 / 2), 10 * 50%) = 5.
    assert_eq!(user_limit(10.0, 0, 2, 50.0, 1.0), 5);
    // Three users at 25%: max(ceil(10 / 3) = 4, ceil(2.5) = 3) = 4.
    assert_eq!(user_limit(10.0, 4, 3, 25.0, 1.0), 4);
    // Over capacity (12 used), one user: current = 13, capped by
    // floor(10 * 1.5) = 15 -> 13; with factor 1, 10.
    assert_eq!(user_limit(10.0, 12, 1, 100.0, 1.5), 13);
    assert_eq!(user_limit(10.0, 12, 1, 100.0, 1.0), 10);
    // Factor -1: no cap beyond the queue's maximum.
    assert_eq!(user_limit(10.0, 40, 1, 100.0, -1.0), 41);
    // A queue of less than a slot still gets one (YARN's max(.., required)).
    assert_eq!(user_limit(0.3, 0, 1, 100.0, 1.0), 1);
}

#[test]
fn busy_queues_get_their_capacities() {
    // 10 slots, a 70% and b 30%, both with more work than slots.
    let c = slots(10);
    let mut st = ClusterState::new(c.clone());
    let mut s = sched(
        &[
            ("root.queues", "a,b"),
            ("root.a.capacity", "70"),
            ("root.b.capacity", "30"),
        ],
        &c,
    );
    let a = submit(&mut st, &mut s, job(Some("a"), "u1", 50)).unwrap();
    let b = submit(&mut st, &mut s, job(Some("root.b"), "u2", 50)).unwrap();
    beat_all(&mut st, &mut s);
    assert_eq!((running(&st, a), running(&st, b)), (7, 3));
    assert_eq!(s.pool_of(&st, a), "root.a");
    assert_eq!(s.pool_of(&st, b), "root.b");
}

#[test]
fn an_idle_queue_lends_up_to_maximum_capacity() {
    let c = slots(10);
    for (max, ulf, want) in [
        // a may grow to 90% of the cluster: 9 slots, one stays idle.
        ("90", "10", 9),
        // absent maximum-capacity is 100%.
        ("-1", "10", 10),
        // user-limit-factor 1 keeps a single user at the queue's capacity
        // (YARN's behaviour: elasticity needs a factor above 1).
        ("90", "1", 7),
    ] {
        let mut st = ClusterState::new(c.clone());
        let mut s = sched(
            &[
                ("root.queues", "a,b"),
                ("root.a.capacity", "70"),
                ("root.a.maximum-capacity", max),
                ("root.a.user-limit-factor", ulf),
                ("root.b.capacity", "30"),
            ],
            &c,
        );
        let a = submit(&mut st, &mut s, job(Some("a"), "u1", 50)).unwrap();
        beat_all(&mut st, &mut s);
        assert_eq!(running(&st, a), want, "max {max}, factor {ulf}");
        // b's job arrives: b is below its capacity, a at or above it, so
        // the next free slots go to b (no preemption: a keeps what it has).
        let b = submit(&mut st, &mut s, job(Some("b"), "u2", 50)).unwrap();
        beat_all(&mut st, &mut s);
        assert_eq!(running(&st, b), 10 - want, "max {max}, factor {ulf}");
    }
}

#[test]
fn user_limit_caps_a_user_sharing_a_leaf() {
    let c = slots(10);
    for (mulp, want) in [("50", (5, 5)), ("100", (10, 0))] {
        let mut st = ClusterState::new(c.clone());
        let mut s = sched(
            &[
                ("root.queues", "default"),
                ("root.default.capacity", "100"),
                ("root.default.minimum-user-limit-percent", mulp),
            ],
            &c,
        );
        // Both jobs name no queue: they go to `default`.
        let j1 = submit(&mut st, &mut s, job(None, "alice", 50)).unwrap();
        let j2 = submit(&mut st, &mut s, job(None, "bob", 50)).unwrap();
        beat_all(&mut st, &mut s);
        assert_eq!((running(&st, j1), running(&st, j2)), want, "percent {mulp}");
    }
}

#[test]
fn fifo_inside_a_leaf_by_priority_then_submit_time() {
    let c = slots(4);
    let mut st = ClusterState::new(c.clone());
    let mut s = CapacityScheduler::new("capacity".into(), CapacityConf::single_default(), &c);
    let first = submit(&mut st, &mut s, job(None, "u", 3)).unwrap();
    let second = submit(&mut st, &mut s, job(None, "u", 3)).unwrap();
    let mut urgent = job(None, "u", 2);
    urgent.priority = Priority::High;
    let urgent = submit(&mut st, &mut s, urgent).unwrap();
    beat_all(&mut st, &mut s);
    // The high-priority job first (2 maps), then the first submitted.
    assert_eq!(running(&st, urgent), 2);
    assert_eq!(running(&st, first), 2);
    assert_eq!(running(&st, second), 0);
}

#[test]
fn stopped_missing_and_parent_queues_reject_with_the_reason() {
    let c = slots(4);
    let mut st = ClusterState::new(c.clone());
    let mut s = sched(
        &[
            ("root.queues", "live,old,team"),
            ("root.live.capacity", "50"),
            ("root.old.capacity", "25"),
            ("root.old.state", "STOPPED"),
            ("root.team.capacity", "25"),
            ("root.team.queues", "x"),
            ("root.team.x.capacity", "100"),
            ("root.team.x.maximum-applications", "1"),
        ],
        &c,
    );
    let why = submit(&mut st, &mut s, job(Some("old"), "u", 1)).unwrap_err();
    assert!(why.contains("queue `root.old` is STOPPED"), "{why}");
    let why = submit(&mut st, &mut s, job(Some("nope"), "u", 1)).unwrap_err();
    assert!(why.contains("queue `nope` does not exist"), "{why}");
    let why = submit(&mut st, &mut s, job(None, "u", 1)).unwrap_err();
    assert!(why.contains("no `default` queue"), "{why}");
    let why = submit(&mut st, &mut s, job(Some("team"), "u", 1)).unwrap_err();
    assert!(why.contains("is a parent queue"), "{why}");
    submit(&mut st, &mut s, job(Some("x"), "u", 1)).unwrap();
    let why = submit(&mut st, &mut s, job(Some("x"), "u", 1)).unwrap_err();
    assert!(why.contains("maximum-applications 1"), "{why}");
    assert!(submit(&mut st, &mut s, job(Some("live"), "u", 1)).is_ok());
    assert_eq!(s.stats()["rejected_jobs"], 5.0);
}

#[test]
fn hierarchy_splits_a_parents_capacity() {
    // 20 slots: a 60% (a1, a2 half each), b 40%; all busy.
    let c = slots(20);
    let mut st = ClusterState::new(c.clone());
    let mut s = sched(
        &[
            ("root.queues", "a,b"),
            ("root.a.capacity", "60"),
            ("root.a.queues", "a1,a2"),
            ("root.a.a1.capacity", "50"),
            ("root.a.a2.capacity", "50"),
            ("root.b.capacity", "40"),
        ],
        &c,
    );
    let a1 = submit(&mut st, &mut s, job(Some("a1"), "u1", 50)).unwrap();
    let a2 = submit(&mut st, &mut s, job(Some("root.a.a2"), "u2", 50)).unwrap();
    let b = submit(&mut st, &mut s, job(Some("b"), "u3", 50)).unwrap();
    beat_all(&mut st, &mut s);
    assert_eq!(
        (running(&st, a1), running(&st, a2), running(&st, b)),
        (6, 6, 8)
    );
    s.update_allocation(&st);
    let shares = s.pool_shares();
    let a = shares.iter().find(|p| p.name == "root.a").unwrap();
    assert!((a.min_share[0] - 12.0).abs() < 1e-9);
    assert_eq!(a.demand[0], 100.0);
    assert_eq!(a.max_share, Some([20.0, 20.0]));
}

#[test]
fn a_parents_maximum_caps_its_children() {
    // a may hold at most 50% of 10 slots, however its children are set.
    let c = slots(10);
    let mut st = ClusterState::new(c.clone());
    let mut s = sched(
        &[
            ("root.queues", "a,b"),
            ("root.a.capacity", "50"),
            ("root.a.maximum-capacity", "50"),
            ("root.a.queues", "a1,a2"),
            ("root.a.a1.capacity", "50"),
            ("root.a.a1.user-limit-factor", "10"),
            ("root.a.a2.capacity", "50"),
            ("root.b.capacity", "50"),
        ],
        &c,
    );
    let a1 = submit(&mut st, &mut s, job(Some("a1"), "u1", 50)).unwrap();
    beat_all(&mut st, &mut s);
    assert_eq!(running(&st, a1), 5);
}

#[test]
fn queue_mappings_place_users() {
    let c = slots(4);
    let mut st = ClusterState::new(c.clone());
    let mut s = sched(
        &[
            ("root.queues", "prod,alice,default"),
            ("root.prod.capacity", "50"),
            ("root.alice.capacity", "25"),
            ("root.default.capacity", "25"),
            ("queue-mappings", "u:etl:prod,u:%user:%user"),
        ],
        &c,
    );
    let j = submit(&mut st, &mut s, job(None, "etl", 1)).unwrap();
    assert_eq!(s.pool_of(&st, j), "root.prod");
    let j = submit(&mut st, &mut s, job(None, "alice", 1)).unwrap();
    assert_eq!(s.pool_of(&st, j), "root.alice");
    let j = submit(&mut st, &mut s, job(None, "bob", 1)).unwrap();
    assert_eq!(s.pool_of(&st, j), "root.default");
    // A named queue wins over the mapping unless overriding is on.
    let j = submit(&mut st, &mut s, job(Some("default"), "etl", 1)).unwrap();
    assert_eq!(s.pool_of(&st, j), "root.prod");
    let j = submit(&mut st, &mut s, job(Some("alice"), "etl", 1)).unwrap();
    assert_eq!(s.pool_of(&st, j), "root.alice");
}

#[test]
fn reduces_have_their_own_capacity() {
    // 4 map and 4 reduce slots, a 75% / b 25%: each job's reduces are held
    // to its queue's share of reduce slots.
    let c = cluster("[[nodes]]\ncount = 4\nmap_slots = 1\nreduce_slots = 1\n");
    let mut st = ClusterState::new(c.clone());
    let mut s = sched(
        &[
            ("root.queues", "a,b"),
            ("root.a.capacity", "75"),
            ("root.b.capacity", "25"),
        ],
        &c,
    );
    let mk = |q: &str| {
        let mut j = JobSpec::explicit("j", Time::ZERO, &[1.0], &[60.0; 8], 1.0);
        j.pool = Some(q.into());
        j
    };
    let a = submit(&mut st, &mut s, mk("a")).unwrap();
    let b = submit(&mut st, &mut s, mk("b")).unwrap();
    // Finish both maps so that the reduces are launchable.
    beat_all(&mut st, &mut s);
    let attempts: Vec<_> = st
        .running_attempts_of(a)
        .chain(st.running_attempts_of(b))
        .map(|x| x.id)
        .collect();
    st.advance_to(Time::from_secs(1));
    for at in attempts {
        st.finish_map(at).unwrap();
    }
    st.advance_to(Time::from_secs(1_000));
    st.release_reduces(a);
    st.release_reduces(b);
    pump(&mut st, &mut s);
    beat_all(&mut st, &mut s);
    assert_eq!(
        (
            st.job(a).reduce_counts.running,
            st.job(b).reduce_counts.running
        ),
        (3, 1)
    );
}

#[test]
fn pool_views_need_no_update_and_tiny_maxima_are_warned() {
    // 4 map and 4 reduce slots; b may hold 20% of them: less than one slot.
    let c = slots(4);
    let mut st = ClusterState::new(c.clone());
    let mut s = sched(
        &[
            ("root.queues", "a,b"),
            ("root.a.capacity", "80"),
            ("root.b.capacity", "20"),
            ("root.b.maximum-capacity", "20"),
        ],
        &c,
    );
    let w = s.warnings().join("\n");
    assert!(
        w.contains("cs.xml: queue `root.b`: its maximum-capacity (20.00% of the cluster) is less than one of the 4 map slots"),
        "{w}"
    );
    // Guarantees come from the cluster before any assignment (the live
    // master shows pools without updating allocations first).
    let shares = s.pool_shares();
    assert_eq!(shares.len(), 2);
    assert!((shares[0].min_share[0] - 3.2).abs() < 1e-9, "{shares:?}");
    assert_eq!(shares[1].max_share, Some([0.0, 0.0]));
    // Demand follows assignments.
    let a = submit(&mut st, &mut s, job(Some("a"), "u", 6)).unwrap();
    beat_all(&mut st, &mut s);
    // The user limit rounds the 3.2 guaranteed slots up to 4 (YARN's
    // multiplyAndNormalizeUp).
    assert_eq!(running(&st, a), 4);
    assert_eq!(s.pool_shares()[0].demand[0], 6.0);
}
