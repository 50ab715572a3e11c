//! Hand-checked tests of the Fair Scheduler, driven like a driver would:
//! events forwarded after every change, `assign` until `None`.

use super::*;
use crate::testutil::{cluster, data_job, state_with};
use mrsched_model::JobSpec;
use mrsched_state::AttemptStatus;

/// Forward the state's events to the scheduler.
fn pump(st: &mut ClusterState, s: &mut FairScheduler) {
    for ev in st.take_events() {
        s.on_event(st, &ev);
    }
}

/// One heartbeat of `node`: launches until the scheduler says `None`.
fn beat(st: &mut ClusterState, s: &mut FairScheduler, node: u32) -> Vec<Launch> {
    let n = NodeId(node);
    s.on_heartbeat(st, n);
    let mut out = Vec::new();
    while st.free_map_slots(n) + st.free_reduce_slots(n) > 0 {
        let Some(l) = s.assign(st, n) else { break };
        st.launch(n, &l)
            .expect("the scheduler only asks for valid launches");
        pump(st, s);
        out.push(l);
    }
    out
}

fn beat_all(st: &mut ClusterState, s: &mut FairScheduler) {
    for n in 0..st.cluster().nodes.len() as u32 {
        beat(st, s, n);
    }
}

fn submit(st: &mut ClusterState, s: &mut FairScheduler, spec: JobSpec) -> JobId {
    let j = st.submit(spec);
    st.admit(j).unwrap();
    pump(st, s);
    j
}

/// A data-less map-only job of `maps` maps in `pool` for `user`.
fn job(pool: &str, user: &str, maps: usize, at: u64) -> JobSpec {
    let mut j = JobSpec::explicit("j", Time::from_secs(at), &vec![60.0; maps], &[], 1.0);
    j.pool = Some(pool.to_string());
    j.user = user.to_string();
    j
}

fn running_in(st: &ClusterState, pool: &str) -> u32 {
    st.active_jobs()
        .iter()
        .filter(|j| st.job(**j).spec.pool_name() == pool)
        .map(|j| st.job(*j).map_counts.running)
        .sum()
}

fn slots(n: u32) -> String {
    format!("[[nodes]]\ncount = {n}\nmap_slots = 1\nreduce_slots = 1\n")
}

const FIG3: &str = r#"
[pools.p1]
min_maps = 50
[pools.p2]
min_maps = 10
[pools.p3]
min_maps = 25
[pools.p4]
min_maps = 15
"#;

#[test]
fn paper_figure_3_end_to_end() {
    // Seed 002 §3.1: 100 slots, pools with (min, demand) (50, 46),
    // (10, 18), (25, 28), (15, 16): the pools must run 46, 14, 25, 15.
    let c = cluster(&slots(100));
    let mut st = ClusterState::new(c.clone());
    let mut s = from_toml(FIG3, &c).unwrap();
    assert!(s.warnings().is_empty(), "{:?}", s.warnings());
    for (p, d) in [("p1", 46), ("p2", 18), ("p3", 28), ("p4", 16)] {
        submit(&mut st, &mut s, job(p, p, d, 0));
    }
    beat_all(&mut st, &mut s);
    let got: Vec<u32> = ["p1", "p2", "p3", "p4"]
        .iter()
        .map(|p| running_in(&st, p))
        .collect();
    assert_eq!(got, vec![46, 14, 25, 15]);
    let share = s.pool_share("p2").unwrap()[MAP];
    assert!((share - 14.0).abs() < 1e-9, "{share}");
}

#[test]
fn weights_and_fifo_pools() {
    let c = cluster(&slots(40));
    let opts = "[pools.heavy]\nweight = 3\n[pools.queue]\nscheduling_mode = \"fifo\"\n";
    let mut st = ClusterState::new(c.clone());
    let mut s = from_toml(opts, &c).unwrap();
    submit(&mut st, &mut s, job("heavy", "a", 100, 0));
    let first = submit(&mut st, &mut s, job("queue", "b", 100, 0));
    let second = submit(&mut st, &mut s, job("queue", "b", 100, 0));
    beat_all(&mut st, &mut s);
    assert_eq!(running_in(&st, "heavy"), 30);
    assert_eq!(running_in(&st, "queue"), 10);
    // FIFO inside the pool: the first job takes all of the pool's slots.
    assert_eq!(st.job(first).map_counts.running, 10);
    assert_eq!(st.job(second).map_counts.running, 0);
}

#[test]
fn undeclared_pools_run_in_default_when_only_declared_pools_are_allowed() {
    let c = cluster(&slots(30));
    let file = "[pools.etl]\nweight = 2\n[pools.default]\nmax_running_jobs = 1\n";
    for (only, stray_pool) in [(false, "adhoc"), (true, "default")] {
        let opts = format!("declared_pools_only = {only}\n{file}");
        let mut st = ClusterState::new(c.clone());
        let mut s = from_toml(&opts, &c).unwrap();
        submit(&mut st, &mut s, job("etl", "a", 100, 0));
        let stray = submit(&mut st, &mut s, job("adhoc", "b", 100, 0));
        // A second stray job: under `default`'s one-job limit it waits.
        let second = submit(&mut st, &mut s, job("adhoc", "c", 100, 0));
        beat_all(&mut st, &mut s);
        assert_eq!(s.pool_of(&st, stray), stray_pool, "only = {only}");
        let pools: Vec<String> = s.pool_shares().into_iter().map(|p| p.name).collect();
        assert_eq!(pools.contains(&"adhoc".to_string()), !only, "{pools:?}");
        let running = |j| st.job(j).map_counts.running;
        if only {
            // etl (weight 2) against default (weight 1, one job): 20 + 10.
            assert_eq!((running(stray), running(second)), (10, 0));
        } else {
            // etl (weight 2) against adhoc (weight 1): adhoc's two jobs share 10.
            assert_eq!(running(stray) + running(second), 10);
            assert!(running(second) > 0);
        }
        let view = crate::pools::PoolsView::build(&st, &s, "fair");
        let row = view.pools.iter().find(|p| p.name == stray_pool).unwrap();
        assert_eq!(row.jobs, 2, "{view:?}");
        assert_eq!(row.running_maps, 10);
    }
}

#[test]
fn running_job_limits_per_pool_and_user() {
    let c = cluster(&slots(10));
    let opts = "user_max_jobs_default = 1\n[pools.p]\nmax_running_jobs = 1\n";
    let mut st = ClusterState::new(c.clone());
    let mut s = from_toml(opts, &c).unwrap();
    let a = submit(&mut st, &mut s, job("p", "u1", 2, 0));
    let b = submit(&mut st, &mut s, job("p", "u2", 2, 0));
    let c1 = submit(&mut st, &mut s, job("other", "u3", 2, 0));
    let c2 = submit(&mut st, &mut s, job("other", "u3", 2, 0));
    beat_all(&mut st, &mut s);
    // Pool p runs one job, user u3 one job.
    assert_eq!(st.job(a).map_counts.running, 2);
    assert_eq!(st.job(b).map_counts.running, 0);
    assert_eq!(st.job(c1).map_counts.running, 2);
    assert_eq!(st.job(c2).map_counts.running, 0);
    // When a finishes, b becomes runnable.
    let atts: Vec<_> = st.running_attempts_of(a).map(|x| x.id).collect();
    st.advance_to(Time::from_secs(60));
    for x in atts {
        st.finish_map(x).unwrap();
    }
    pump(&mut st, &mut s);
    beat_all(&mut st, &mut s);
    assert_eq!(st.job(b).map_counts.running, 2);
    assert_eq!(st.job(c2).map_counts.running, 0);
}

#[test]
fn max_maps_caps_a_pool() {
    let c = cluster(&slots(10));
    let mut st = ClusterState::new(c.clone());
    let mut s = from_toml("[pools.p]\nmax_maps = 3\n", &c).unwrap();
    submit(&mut st, &mut s, job("p", "u", 20, 0));
    beat_all(&mut st, &mut s);
    assert_eq!(running_in(&st, "p"), 3);
}

#[test]
fn min_share_preemption_kills_newest_tasks_and_keeps_victims_at_share() {
    let c = cluster(&slots(20));
    let opts = "preemption = true\npreemption_interval_s = 5\n\
                [pools.prod]\nmin_maps = 10\nmin_share_preemption_timeout_s = 30\n";
    let mut st = ClusterState::new(c.clone());
    let mut s = from_toml(opts, &c).unwrap();
    // Two ad-hoc pools fill the cluster, one of them launched later.
    let old = submit(&mut st, &mut s, job("a", "a", 100, 0));
    for n in 0..12 {
        beat(&mut st, &mut s, n);
    }
    st.advance_to(Time::from_secs(5));
    let young = submit(&mut st, &mut s, job("b", "b", 100, 0));
    for n in 12..20 {
        beat(&mut st, &mut s, n);
    }
    assert_eq!(st.job(old).map_counts.running, 12);
    assert_eq!(st.job(young).map_counts.running, 8);
    st.advance_to(Time::from_secs(10));
    let prod = submit(&mut st, &mut s, job("prod", "p", 100, 10));
    // Starved since t = 10: due at 40.
    assert_eq!(s.next_timer(), Some(Time::from_secs(40)));
    st.advance_to(Time::from_secs(40));
    let kills = s.on_timer(&st);
    assert_eq!(kills.len(), 10, "{kills:?}");
    // The pool view shows the starvation clock, the kills made for the pool
    // and how long its oldest map has waited (all since prod's arrival).
    let view = crate::pools::PoolsView::build(&st, &s, "fair");
    let p = view.pools.iter().find(|p| p.name == "prod").unwrap();
    assert_eq!(
        (p.starved_s, p.preemptions, p.oldest_wait_s),
        (30.0, 10, 30.0)
    );
    let a = view.pools.iter().find(|p| p.name == "a").unwrap();
    assert_eq!(
        (a.starved_s, a.preemptions, a.oldest_wait_s),
        (0.0, 0, 40.0)
    );
    // Shares: prod 10, a 5, b 5. Pool a (12 running) may lose 7, pool b (8)
    // 3: the newest tasks are b's, then a's.
    let mut from = FxHashMap::default();
    for k in &kills {
        let Action::Kill(a) = k else { panic!() };
        let att = st.attempt(*a).unwrap();
        *from.entry(att.job).or_insert(0) += 1;
    }
    assert_eq!(from.get(&young), Some(&3));
    assert_eq!(from.get(&old), Some(&7));
    for k in kills {
        let Action::Kill(a) = k else { panic!() };
        st.kill_attempt(a).unwrap();
    }
    pump(&mut st, &mut s);
    assert_eq!(st.job(old).map_counts.running, 5);
    assert_eq!(st.job(young).map_counts.running, 5);
    assert!(
        st.job(old).killed_work > Time::ZERO,
        "killed work is counted"
    );
    // The freed slots are reserved for prod, whatever else is pending.
    beat_all(&mut st, &mut s);
    assert_eq!(st.job(prod).map_counts.running, 10);
    assert_eq!(s.stats()["reserved_slots_used"], 10.0);
    // Nothing more to do: no thrash.
    assert_eq!(s.next_timer(), None);
}

#[test]
fn fair_share_preemption_below_half_share() {
    let c = cluster(&slots(20));
    let opts = "preemption = true\nfair_share_preemption_timeout_s = 60\n";
    let mut st = ClusterState::new(c.clone());
    let mut s = from_toml(opts, &c).unwrap();
    let hog = submit(&mut st, &mut s, job("a", "a", 100, 0));
    beat_all(&mut st, &mut s);
    let late = submit(&mut st, &mut s, job("b", "b", 100, 0));
    // b's share is 10, it runs 0 < 5: due 60 s later, and it may then take
    // its whole fair share.
    assert_eq!(s.next_timer(), Some(Time::from_secs(60)));
    st.advance_to(Time::from_secs(60));
    let kills = s.on_timer(&st);
    assert_eq!(kills.len(), 10);
    for k in kills {
        let Action::Kill(a) = k else { panic!() };
        assert_eq!(st.attempt(a).unwrap().job, hog);
        st.kill_attempt(a).unwrap();
    }
    pump(&mut st, &mut s);
    beat_all(&mut st, &mut s);
    assert_eq!(st.job(late).map_counts.running, 10);
    assert_eq!(st.job(hog).map_counts.running, 10);
    let ended: Vec<_> = st.jobs().iter().map(|j| j.killed_attempts).collect();
    assert_eq!(ended, vec![10, 0]);
    let _ = AttemptStatus::Killed;
}

#[test]
fn delay_scheduling_skips_jobs_without_local_data() {
    // Nodes 0, 2 on rack 0; 1, 3 on rack 1. Job a's only block is on node 0,
    // job b's on node 1.
    let text = "[[nodes]]\ncount = 4\nracks = 2\nmap_slots = 1\nreduce_slots = 1\n";
    let mut st = state_with(text, &[vec![0], vec![1]]);
    let c = st.cluster().clone();
    let mut s = from_toml("delay = \"wait\"\nlocality_wait_s = [5, 5]\n", &c).unwrap();
    let mut ja = data_job(1, 0);
    ja.user = "a".into();
    let mut jb = data_job(2, 0);
    jb.maps.list_mut().remove(0);
    jb.user = "b".into();
    let a = submit(&mut st, &mut s, ja);
    let b = submit(&mut st, &mut s, jb);
    // Node 1 asks first: a (first in order) has no local data and is
    // skipped; b launches node-locally.
    let l = beat(&mut st, &mut s, 1);
    assert_eq!(l, vec![Launch::map(b, 0)]);
    // Node 3 (rack 1): a is still waiting.
    assert!(beat(&mut st, &mut s, 3).is_empty());
    st.advance_to(Time::from_secs(11));
    let l = beat(&mut st, &mut s, 3);
    assert_eq!(l, vec![Launch::map(a, 0)], "after T1 + T2 a goes off-rack");
}

#[test]
fn a_walk_that_found_nothing_stands_for_the_next_nodes_until_the_wait_ends() {
    // Eight nodes on two racks; job a's two blocks are on node 0 only.
    let text = "[[nodes]]\ncount = 8\nracks = 2\nmap_slots = 1\nreduce_slots = 1\n";
    let mut st = state_with(text, &[vec![0], vec![0]]);
    let c = st.cluster().clone();
    let mut s = from_toml("delay = \"wait\"\nlocality_wait_s = [5, 5]\n", &c).unwrap();
    let a = submit(&mut st, &mut s, data_job(2, 0));
    // Node 1's walk skips a (its episode starts) and finds nothing; nodes 2
    // to 7 have no data of a either: no walk, nothing launched.
    for n in 1..8 {
        assert!(beat(&mut st, &mut s, n).is_empty());
    }
    assert_eq!(s.idle_walk_hits, 6);
    // Node 0 holds a's data: the bit sends it down the walk, which launches.
    assert_eq!(beat(&mut st, &mut s, 0), vec![Launch::map(a, 0)]);
    // The launch changed a's delay state: the next node walks again, and
    // its empty walk stands for the others.
    assert!(beat(&mut st, &mut s, 2).is_empty());
    assert!(beat(&mut st, &mut s, 4).is_empty());
    assert_eq!(s.idle_walk_hits, 7);
    // Once a may go rack-local (5 s after its episode began) the shortcut
    // no longer holds: node 2 (rack 0, with node 0) gets the other map.
    st.advance_to(Time::from_secs(5));
    assert_eq!(beat(&mut st, &mut s, 2), vec![Launch::map(a, 1)]);
    assert_eq!(s.idle_walk_hits, 7);
}

#[test]
fn a_heartbeat_is_declined_only_where_the_idle_walk_stands() {
    // Job a's two blocks are on node 0 only, as above.
    let text = "[[nodes]]\ncount = 8\nracks = 2\nmap_slots = 1\nreduce_slots = 1\n";
    let mut st = state_with(text, &[vec![0], vec![0]]);
    let c = st.cluster().clone();
    let mut s = from_toml("delay = \"wait\"\nlocality_wait_s = [5, 5]\n", &c).unwrap();
    let a = submit(&mut st, &mut s, data_job(2, 0));
    // No walk has found nothing yet (and a new job's pool asks for a share
    // update): the first heartbeat goes through the full round.
    assert!(!s.decline_heartbeat(&st, NodeId(1)));
    assert!(beat(&mut st, &mut s, 1).is_empty());
    // Its empty walk stands for nodes without a's data: declined, counted
    // as the walk it stands for.
    assert!(s.decline_heartbeat(&st, NodeId(3)));
    assert!(s.decline_heartbeat(&st, NodeId(5)));
    assert_eq!(s.idle_walk_hits, 2);
    // Node 0 holds a's data: not declined, and its round launches.
    assert!(!s.decline_heartbeat(&st, NodeId(0)));
    assert_eq!(beat(&mut st, &mut s, 0), vec![Launch::map(a, 0)]);
    // The launch left a job to sync: the next heartbeat takes the round.
    assert!(!s.decline_heartbeat(&st, NodeId(2)));
    assert!(beat(&mut st, &mut s, 2).is_empty());
    assert!(s.decline_heartbeat(&st, NodeId(4)));
    // From the time a may go rack-local, no heartbeat is declined.
    st.advance_to(Time::from_secs(5));
    assert!(!s.decline_heartbeat(&st, NodeId(2)));
    assert_eq!(beat(&mut st, &mut s, 2), vec![Launch::map(a, 1)]);
    // Nothing pending and nothing to refresh: a heartbeat changes nothing.
    st.advance_to(Time::from_secs(60));
    assert!(beat(&mut st, &mut s, 6).is_empty());
    assert!(s.decline_heartbeat(&st, NodeId(7)));
}

#[test]
fn copy_compute_splitting_lets_a_second_job_reduce() {
    let text = "reduce_slowstart = 0.0\n[[nodes]]\ncount = 1\nmap_slots = 1\nreduce_slots = 1\nmax_reducers = 3\n";
    let mut st = state_with(text, &[vec![0], vec![0]]);
    let c = st.cluster().clone();
    for (opts, second) in [("", 0), ("copy_compute_splitting = true\n", 1)] {
        let mut st2 = ClusterState::new(c.clone());
        st2.add_dataset(mrsched_state::DatasetBlocks::new(
            "d",
            vec![64.0; 2],
            &[vec![NodeId(0)], vec![NodeId(0)]],
        ));
        let mut s = from_toml(opts, &c).unwrap();
        st2.set_copy_compute_splitting(s.copy_compute_splitting());
        let mut big = data_job(2, 4);
        big.user = "big".into();
        let mut small = data_job(2, 2);
        small.user = "small".into();
        let a = submit(&mut st2, &mut s, big);
        let b = submit(&mut st2, &mut s, small);
        let reds: Vec<JobId> = beat(&mut st2, &mut s, 0)
            .into_iter()
            .filter(|l| l.kind() == TaskKind::Reduce)
            .map(|l| l.job())
            .collect();
        assert_eq!(reds.iter().filter(|j| **j == a).count(), 1);
        assert_eq!(reds.iter().filter(|j| **j == b).count(), second);
    }
    let _ = &mut st;
}

#[test]
fn full_disk_evicts_the_latest_job_and_the_earliest_progresses() {
    // One node with two map slots and room for 3 map outputs of 64 MB.
    let text = "reduce_slowstart = 1.0\n[[nodes]]\ncount = 1\nmap_slots = 2\nreduce_slots = 1\ndisk_mb = 192\n";
    let blocks: Vec<Vec<u32>> = (0..4).map(|_| vec![0]).collect();
    let mut st = state_with(text, &blocks);
    let c = st.cluster().clone();
    let mut s = from_toml("", &c).unwrap();
    let mut early = data_job(4, 1);
    early.user = "early".into();
    let mut late = data_job(4, 1);
    late.user = "late".into();
    let a = submit(&mut st, &mut s, early);
    st.advance_to(Time::from_secs(1));
    let b = submit(&mut st, &mut s, late);
    let finish_all = |st: &mut ClusterState, s: &mut FairScheduler, t: u64| {
        st.advance_to(Time::from_secs(t));
        let atts: Vec<_> = st.attempts_on(NodeId(0)).map(|x| x.id).collect();
        for x in atts {
            st.finish_map(x).unwrap();
        }
        pump(st, s);
    };
    let l = beat(&mut st, &mut s, 0);
    assert_eq!(l.iter().map(|l| l.job()).collect::<Vec<_>>(), vec![a, b]);
    finish_all(&mut st, &mut s, 10);
    // 128 MB held: a's next map fits (its output is counted while it runs),
    // b's does not; b ranks below a, so nothing is evicted for it.
    let l = beat(&mut st, &mut s, 0);
    assert_eq!(l.iter().map(|l| l.job()).collect::<Vec<_>>(), vec![a]);
    assert_eq!(s.next_timer(), None);
    finish_all(&mut st, &mut s, 20);
    assert_eq!(st.intermediate_on(NodeId(0)), 192.0);
    // Full: a is refused, and the later job's outputs go.
    let counted = s.space_count_hits;
    assert!(beat(&mut st, &mut s, 0).is_empty());
    // Both refused from a count: no map of either has room.
    assert_eq!(s.space_count_hits, counted + 2);
    assert!(s.stats()["space_refusals"] >= 2.0);
    assert!(s.next_timer().is_some());
    let acts = s.on_timer(&st);
    assert_eq!(
        acts,
        vec![Action::EvictOutputs {
            job: b,
            node: NodeId(0)
        }]
    );
    st.evict_outputs(b, NodeId(0));
    pump(&mut st, &mut s);
    assert_eq!(st.job(b).pending_maps(), 4);
    // Now the early job gets its last map, and b waits.
    let l = beat(&mut st, &mut s, 0);
    assert_eq!(l.iter().map(|l| l.job()).collect::<Vec<_>>(), vec![a]);
}

#[test]
fn config_errors_are_clear() {
    let c = cluster(&slots(4));
    let e = from_toml("delay = \"sometimes\"\n", &c).err().unwrap();
    assert!(e.to_string().contains("fair.delay"), "{e}");
    let e = from_toml("locality_wait_s = [5, -1]\n", &c).err().unwrap();
    assert!(
        e.to_string().contains("<fair>:3: fair.locality_wait_s"),
        "{e}"
    );
    let e = from_toml("[pools.a]\nweight = -1\n", &c).err().unwrap();
    assert!(
        e.to_string()
            .contains("fair.pools.a.weight: must be a number >= 0"),
        "{e}"
    );
    let e = from_toml("allocation_file = \"x.xml\"\n[pools.a]\n", &c)
        .err()
        .unwrap();
    assert!(
        e.to_string()
            .contains("either inline or in allocation_file"),
        "{e}"
    );
    let e = from_toml("allocation_file = \"/no/such/fair-scheduler.xml\"\n", &c)
        .err()
        .unwrap();
    assert!(e.to_string().contains("cannot read file"), "{e}");
    let e = from_toml("preemtion = true\n", &c).err().unwrap();
    assert!(e.to_string().contains("unknown field `preemtion`"), "{e}");
}

#[test]
fn reads_an_mr1_allocation_file() {
    let dir = std::env::temp_dir().join(format!("mrsched-fair-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let xml = dir.join("fair-scheduler.xml");
    std::fs::write(
        &xml,
        "<?xml version=\"1.0\"?>\n<allocations>\n  <pool name=\"prod\">\n    <minMaps>30</minMaps>\n    <weight>0</weight>\n  </pool>\n</allocations>\n",
    )
    .unwrap();
    let conf = dir.join("fair.toml");
    std::fs::write(
        &conf,
        "policy = \"fair\"\n[fair]\nallocation_file = \"fair-scheduler.xml\"\n",
    )
    .unwrap();
    let c = cluster(&slots(20));
    let cfg = SchedulerConfig::resolve(conf.to_str().unwrap()).unwrap();
    let s = cfg.build(&c).unwrap();
    let w = s.warnings().join("\n");
    assert!(
        w.contains("minimum maps add up to 30 but the cluster has 20"),
        "{w}"
    );
    assert!(
        w.contains("fair-scheduler.xml:3: pool[prod]: weight 0"),
        "{w}"
    );
    // The XML file itself as --scheduler.
    let cfg = SchedulerConfig::resolve(xml.to_str().unwrap()).unwrap();
    assert_eq!(cfg.policy, "fair");
    assert!(cfg.build(&c).is_ok());
    std::fs::write(
        &xml,
        "<allocations><pool name=\"p\"><minMaps>x</minMaps></pool></allocations>",
    )
    .unwrap();
    let e = SchedulerConfig::resolve(xml.to_str().unwrap())
        .and_then(|cfg| cfg.build(&c).map(|_| ()))
        .unwrap_err();
    assert!(e.to_string().contains("pool[p].minMaps"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn presets_behave_as_named() {
    let c = cluster(&slots(4));
    for (name, ccs, beats) in [
        ("fair", false, false),
        ("fair+ccs", true, false),
        ("fair+delay", false, false),
        ("fair+hfs-delay", false, true),
        ("fair+ccs+delay", true, false),
    ] {
        let s = SchedulerConfig::preset(name).unwrap().build(&c).unwrap();
        assert_eq!(s.copy_compute_splitting(), ccs, "{name}");
        assert_eq!(s.needs_every_heartbeat(), beats, "{name}");
    }
}

mod props {
    use super::*;
    use mrsched_model::{BlockRef, DatasetId, MapSpec};
    use proptest::prelude::*;

    proptest! {
        // Cheap cases; enough of them that a pool rejoining its order
        // between two heartbeats comes up every run.
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// The idle-walk shortcut changes no decision: a scheduler with it
        /// and one walking at every heartbeat, driven through the same
        /// arrivals, heartbeats and task ends, launch the same tasks. So
        /// does a third that is first offered each heartbeat to decline
        /// (`decline_heartbeat`, which the simulator uses to skip the
        /// round): what it declines, the others launch nothing for.
        #[test]
        fn idle_walks_change_no_decision(
            reps in proptest::collection::vec(proptest::collection::vec(0u32..8, 1..3), 24),
            jobs in proptest::collection::vec((proptest::collection::vec(0u32..24, 1..6), 0u64..20, 0u32..3), 1..6),
            ops in proptest::collection::vec((0u32..8, 0u64..2500, proptest::option::of(0u32..8)), 20..150),
            waits in (0u64..6, 0u64..6),
        ) {
            let text = "[[nodes]]\ncount = 8\nracks = 2\nmap_slots = 2\nreduce_slots = 1\n";
            // User u0's pool may run two maps at most: it leaves and
            // rejoins the order as its tasks end.
            let opts = format!(
                "delay = \"wait\"\nlocality_wait_s = [{}, {}]\n[pools.u0]\nmax_maps = 2\n",
                waits.0, waits.1
            );
            // (walks on, declines offered)
            let modes = [(true, false), (false, false), (true, true)];
            let mut runs: Vec<(ClusterState, FairScheduler)> = modes
                .into_iter()
                .map(|(on, _)| {
                    let st = state_with(text, &reps);
                    let s = from_toml(&opts, st.cluster()).unwrap();
                    (st, if on { s } else { s.without_idle_walks() })
                })
                .collect();
            let mut arrivals: Vec<_> = jobs.iter().enumerate().collect();
            arrivals.sort_by_key(|(i, (_, at, _))| (*at, *i));
            let mut next = 0;
            let mut now_ms = 0;
            for (node, dt, finish) in ops {
                now_ms += dt;
                let mut launched = Vec::new();
                for ((st, s), (_, offer)) in runs.iter_mut().zip(modes) {
                    st.advance_to(Time(now_ms * 1000));
                    let mut k = next;
                    while let Some((_, (blocks, at, user))) = arrivals.get(k) {
                        if at * 1000 > now_ms {
                            break;
                        }
                        let mut j = data_job(0, 0);
                        j.user = format!("u{user}");
                        j.maps = blocks
                            .iter()
                            .map(|&b| MapSpec {
                                block: Some(BlockRef { dataset: DatasetId(0), index: b }),
                                input_mb: 64.0,
                                time: None,
                            })
                            .collect();
                        submit(st, s, j);
                        k += 1;
                    }
                    if let Some(f) = finish {
                        let first = st.attempts_on(NodeId(f)).map(|a| a.id).next();
                        if let Some(a) = first {
                            st.finish_map(a).unwrap();
                            pump(st, s);
                        }
                    }
                    if offer && s.decline_heartbeat(st, NodeId(node)) {
                        launched.push(Vec::new());
                    } else {
                        launched.push(beat(st, s, node));
                    }
                }
                next = arrivals.partition_point(|(_, (_, at, _))| at * 1000 <= now_ms);
                prop_assert_eq!(&launched[0], &launched[1], "at {} ms, node {}", now_ms, node);
                prop_assert_eq!(&launched[0], &launched[2], "at {} ms, node {} (declines offered)", now_ms, node);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Refusing a job for disk space from a count when none of its
        /// maps fits (`Space::fits_none`) changes no decision: a scheduler
        /// doing so and one looking up every job's map, driven through the
        /// same arrivals, heartbeats, task ends and evictions on small
        /// disks, launch the same tasks and evict the same outputs.
        #[test]
        fn space_counts_change_no_decision(
            reps in proptest::collection::vec(proptest::collection::vec(0u32..6, 1..3), 16),
            jobs in proptest::collection::vec(
                (proptest::collection::vec((0u32..16, 0usize..3), 1..6), 0u64..20, 0u32..3),
                1..6,
            ),
            ops in proptest::collection::vec((0u32..6, 0u64..2500, 0u32..10), 20..150),
            disk in 96u32..400,
            delay in proptest::option::of((0u64..6, 0u64..6)),
        ) {
            let text = format!(
                "reduce_slowstart = 1.0\n[[nodes]]\ncount = 6\nracks = 2\nmap_slots = 2\nreduce_slots = 1\ndisk_mb = {disk}\n"
            );
            let opts = match delay {
                Some((a, b)) => format!("delay = \"wait\"\nlocality_wait_s = [{a}, {b}]\n"),
                None => String::new(),
            };
            let mut runs: Vec<(ClusterState, FairScheduler)> = [true, false]
                .into_iter()
                .map(|on| {
                    let st = state_with(&text, &reps);
                    let s = from_toml(&opts, st.cluster()).unwrap();
                    (st, if on { s } else { s.without_space_counts() })
                })
                .collect();
            let mut arrivals: Vec<_> = jobs.iter().enumerate().collect();
            arrivals.sort_by_key(|(i, (_, at, _))| (*at, *i));
            let mut next = 0;
            let mut now_ms = 0;
            for (node, dt, what) in ops {
                now_ms += dt;
                let mut seen = Vec::new();
                for (st, s) in runs.iter_mut() {
                    st.advance_to(Time(now_ms * 1000));
                    let mut k = next;
                    while let Some((_, (maps, at, user))) = arrivals.get(k) {
                        if at * 1000 > now_ms {
                            break;
                        }
                        let mut j = data_job(0, 1);
                        j.user = format!("u{user}");
                        // Outputs of 16, 64 or 128 MB: a job's smallest
                        // may fit where the map it would run does not.
                        j.maps = maps
                            .iter()
                            .map(|&(b, size)| MapSpec {
                                block: Some(BlockRef { dataset: DatasetId(0), index: b }),
                                input_mb: [16.0, 64.0, 128.0][size],
                                time: None,
                            })
                            .collect();
                        submit(st, s, j);
                        k += 1;
                    }
                    let mut evicted = Vec::new();
                    match what {
                        // Finish the node's first task.
                        0..=5 => {
                            let first = st.attempts_on(NodeId(what)).map(|a| (a.id, a.kind)).next();
                            if let Some((a, kind)) = first {
                                match kind {
                                    TaskKind::Map => st.finish_map(a).unwrap(),
                                    TaskKind::Reduce => {
                                        st.finish_copy(a).unwrap();
                                        st.finish_reduce(a).unwrap()
                                    }
                                }
                                pump(st, s);
                            }
                        }
                        // The scheduler's timer: evictions.
                        6 if s.next_timer().is_some() => {
                            for act in s.on_timer(st) {
                                if let Action::EvictOutputs { job, node } = act {
                                    st.evict_outputs(job, node);
                                    evicted.push((job, node));
                                }
                            }
                            pump(st, s);
                        }
                        _ => {}
                    }
                    seen.push((evicted, beat(st, s, node)));
                }
                next = arrivals.partition_point(|(_, (_, at, _))| at * 1000 <= now_ms);
                prop_assert_eq!(&seen[0], &seen[1], "at {} ms, node {}", now_ms, node);
            }
            prop_assert_eq!(runs[1].1.space_count_hits, 0);
            prop_assert_eq!(
                runs[0].1.stats()["space_refusals"],
                runs[1].1.stats()["space_refusals"]
            );
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Victims never push a job or pool below floor(share), and the
        /// starved pool's kills never exceed its deficit.
        #[test]
        fn preemption_never_pushes_below_share(
            pools in proptest::collection::vec((0u32..6, 1usize..4), 2..5),
            mins in proptest::collection::vec(0u32..12, 2..5),
            order in proptest::collection::vec(0usize..16, 10..40),
        ) {
            let nodes = 24u32;
            let c = cluster(&slots(nodes));
            let mut opts = String::from("preemption = true\nfair_share_preemption_timeout_s = 10\n");
            for (i, m) in mins.iter().enumerate() {
                opts.push_str(&format!("[pools.p{i}]\nmin_maps = {m}\nmin_share_preemption_timeout_s = 5\n"));
            }
            let mut st = ClusterState::new(c.clone());
            let mut s = from_toml(&opts, &c).unwrap();
            // Jobs arrive in pools p0..; they fill the cluster in arrival order.
            let mut t = 0;
            for (i, (_, jobs)) in pools.iter().enumerate() {
                for _ in 0..*jobs {
                    t += 1;
                    st.advance_to(Time::from_secs(t));
                    submit(&mut st, &mut s, job(&format!("p{}", i % mins.len()), &format!("u{i}"), 30, t));
                }
                for &n in order.iter().skip(i).take(6) {
                    beat(&mut st, &mut s, n as u32 % nodes);
                }
            }
            beat_all(&mut st, &mut s);
            s.refresh(&st);
            let before: FxHashMap<JobId, u32> = st.active_jobs().iter().map(|j| (*j, st.job(*j).map_counts.running)).collect();
            st.advance_to(Time::from_secs(t + 100));
            s.refresh(&st);
            let kills = s.on_timer(&st);
            let mut lost: FxHashMap<JobId, u32> = FxHashMap::default();
            for k in &kills {
                if let Action::Kill(a) = k {
                    *lost.entry(st.attempt(*a).unwrap().job).or_default() += 1;
                }
            }
            let tree = s.tree();
            let mut pool_lost: FxHashMap<u32, u32> = FxHashMap::default();
            for (j, n) in &lost {
                let i = tree.job_node(*j).unwrap();
                let node = &tree.nodes[i as usize];
                prop_assert!(before[j] - n >= (node.share[MAP] + 1e-9).floor() as u32,
                    "job {j} pushed below its share");
                *pool_lost.entry(node.parent).or_default() += n;
            }
            for (p, n) in pool_lost {
                let pool = &tree.nodes[p as usize];
                prop_assert!(pool.running[MAP] - n >= (pool.share[MAP] + 1e-9).floor() as u32,
                    "pool {} pushed below its share", pool.name);
            }
            prop_assert!(kills.len() <= nodes as usize);
        }

        /// Shares sum to the capacity when demand allows, and every pool
        /// gets min(min share, demand) when the minimums fit.
        #[test]
        fn shares_sum_and_minimums(
            spec in proptest::collection::vec((0u32..30, 0u32..15, 1u32..4), 1..8),
            cap in 1u32..80,
        ) {
            let c = cluster(&slots(cap));
            let mut opts = String::new();
            for (i, (_, m, w)) in spec.iter().enumerate() {
                opts.push_str(&format!("[pools.p{i}]\nmin_maps = {m}\nweight = {w}\n"));
            }
            let mut st = ClusterState::new(c.clone());
            let mut s = from_toml(&opts, &c).unwrap();
            for (i, (d, _, _)) in spec.iter().enumerate() {
                if *d > 0 {
                    submit(&mut st, &mut s, job(&format!("p{i}"), &format!("u{i}"), *d as usize, 0));
                }
            }
            s.refresh(&st);
            let total_demand: u32 = spec.iter().map(|x| x.0).sum();
            let shares: Vec<f64> = (0..spec.len()).map(|i| s.pool_share(&format!("p{i}")).unwrap()[MAP]).collect();
            let sum: f64 = shares.iter().sum();
            prop_assert!((sum - (cap.min(total_demand)) as f64).abs() < 1e-6, "{sum} vs {cap} / {total_demand}");
            let mins: f64 = spec.iter().map(|(d, m, _)| (*d).min(*m) as f64).sum();
            if mins <= cap as f64 {
                for (i, (d, m, _)) in spec.iter().enumerate() {
                    prop_assert!(shares[i] + 1e-6 >= (*d).min(*m) as f64, "pool {i} below its minimum");
                }
            }
            for (i, (d, _, _)) in spec.iter().enumerate() {
                prop_assert!(shares[i] <= *d as f64 + 1e-6);
            }
        }
    }
}

/// Every tree node's reduce key and reduce order (what a reduce walk reads).
fn reduce_orders(t: &Tree) -> Vec<(Option<tree::Key>, Vec<tree::Key>)> {
    t.nodes
        .iter()
        .map(|n| (n.key[RED], n.ready[RED].iter().copied().collect()))
        .collect()
}

/// Every tree node's map key and map order.
fn map_orders(t: &Tree) -> Vec<(Option<tree::Key>, Vec<tree::Key>)> {
    t.nodes
        .iter()
        .map(|n| (n.key[MAP], n.ready[MAP].iter().copied().collect()))
        .collect()
}

#[test]
fn a_map_launch_left_unsynced_changes_no_reduce_order() {
    // `refresh_for` leaves jobs that only launched a map unsynced before a
    // reduce walk: syncing them must move map keys only. Three jobs with
    // maps and reduces in two pools, maps finishing as they go so that
    // reduces become launchable while maps are still pending.
    let c =
        cluster("reduce_slowstart = 0.1\n[[nodes]]\ncount = 6\nmap_slots = 2\nreduce_slots = 2\n");
    let mut st = ClusterState::new(c.clone());
    let mut s = from_toml("", &c).unwrap();
    for (pool, maps, reduces) in [("p1", 30, 4), ("p1", 12, 3), ("p2", 20, 2)] {
        let mut spec = JobSpec::explicit(
            "j",
            Time::ZERO,
            &vec![60.0; maps],
            &vec![30.0; reduces],
            1.0,
        );
        spec.pool = Some(pool.to_string());
        spec.user = pool.to_string();
        submit(&mut st, &mut s, spec);
    }
    let (mut checked, mut with_reduces, mut moved_maps) = (0, 0, 0);
    for round in 1..=12u64 {
        st.advance_to(Time::from_secs(60 * round));
        for node in 0..6 {
            let n = NodeId(node);
            s.on_heartbeat(&st, n);
            while st.free_map_slots(n) + st.free_reduce_slots(n) > 0 {
                let Some(l) = s.assign(&st, n) else { break };
                st.launch(n, &l).expect("a valid launch");
                pump(&mut st, &mut s);
                if s.map_launched.is_empty() {
                    continue;
                }
                let (red, map) = (reduce_orders(&s.tree), map_orders(&s.tree));
                s.sync_map_launched(&st);
                assert_eq!(reduce_orders(&s.tree), red, "round {round}, node {node}");
                checked += 1;
                with_reduces += (st.launchable_reduces_total() > 0) as u32;
                moved_maps += (map_orders(&s.tree) != map) as u32;
            }
        }
        // The maps launched this round end before the next.
        let maps: Vec<mrsched_model::AttemptId> = (0..6)
            .flat_map(|n| st.attempts_on(NodeId(n)))
            .filter(|a| a.kind == TaskKind::Map)
            .map(|a| a.id)
            .collect();
        for a in maps {
            st.finish_map(a).expect("running map");
        }
        pump(&mut st, &mut s);
    }
    // Not vacuous: map launches were left unsynced, some while reduces
    // could launch, and syncing them moved map keys.
    assert!(checked > 20, "{checked}");
    assert!(with_reduces > 5, "{with_reduces}");
    assert!(moved_maps > 5, "{moved_maps}");
}
