//! The Fair Scheduler running YARN and Spark allocation files: YARN's share
//! rule down the tree, placement rules, limits and preemption settings per
//! level; and a flat MR1 file pinned to today's shares.

use super::tree::MAP;
use super::*;
use crate::testutil::cluster;
use mrsched_model::JobSpec;

fn pump(st: &mut ClusterState, s: &mut FairScheduler) {
    for ev in st.take_events() {
        s.on_event(st, &ev);
    }
}

fn beat_all(st: &mut ClusterState, s: &mut FairScheduler) {
    for n in 0..st.cluster().nodes.len() as u32 {
        let n = NodeId(n);
        s.on_heartbeat(st, n);
        while st.free_map_slots(n) + st.free_reduce_slots(n) > 0 {
            let Some(l) = s.assign(st, n) else { break };
            st.launch(n, &l).unwrap();
            pump(st, s);
        }
    }
}

fn submit(st: &mut ClusterState, s: &mut FairScheduler, spec: JobSpec) -> JobId {
    let j = st.submit(spec);
    st.admit(j).unwrap();
    pump(st, s);
    j
}

fn job(pool: Option<&str>, user: &str, maps: usize, at: u64) -> JobSpec {
    let mut j = JobSpec::explicit("j", Time::from_secs(at), &vec![60.0; maps], &[], 1.0);
    j.pool = pool.map(str::to_string);
    j.user = user.to_string();
    j
}

fn slots(n: u32) -> Cluster {
    cluster(&format!(
        "[[nodes]]\ncount = {n}\nmap_slots = 1\nreduce_slots = 1\n"
    ))
}

fn share(s: &FairScheduler, pool: &str) -> f64 {
    let v = s
        .pool_share(pool)
        .unwrap_or_else(|| panic!("no pool {pool}"))[MAP];
    (v * 1e6).round() / 1e6
}

fn yarn(xml: &str, c: &Cluster) -> FairScheduler {
    from_xml("", "fs.xml", xml, c).unwrap()
}

const TREE: &str = r#"<allocations>
  <queue name="root">
    <queue name="prod">
      <weight>3</weight>
      <queue name="etl"/>
      <queue name="reports"/>
    </queue>
    <queue name="dev"/>
    <queue name="idle"><weight>5</weight></queue>
  </queue>
</allocations>"#;

#[test]
fn yarn_shares_go_down_the_tree_among_active_queues() {
    let c = slots(40);
    let mut st = ClusterState::new(c.clone());
    let mut s = yarn(TREE, &c);
    submit(&mut st, &mut s, job(Some("root.prod.etl"), "a", 100, 0));
    submit(&mut st, &mut s, job(Some("prod.reports"), "b", 100, 0));
    submit(&mut st, &mut s, job(Some("dev"), "c", 100, 0));
    beat_all(&mut st, &mut s);
    // root 40 -> prod 30 (weight 3), dev 10; the idle queue has no jobs
    // and gets nothing; prod's 30 -> 15 + 15.
    assert_eq!(share(&s, "prod"), 30.0);
    assert_eq!(share(&s, "dev"), 10.0);
    assert_eq!(share(&s, "idle"), 0.0);
    assert_eq!(share(&s, "prod.etl"), 15.0);
    assert_eq!(share(&s, "prod.reports"), 15.0);
    let run: Vec<u32> = st.jobs().iter().map(|j| j.map_counts.running).collect();
    assert_eq!(run, vec![15, 15, 10]);
    let names: Vec<String> = s.pool_shares().into_iter().map(|p| p.name).collect();
    assert_eq!(names, ["dev", "idle", "prod", "prod.etl", "prod.reports"]);
    // `mrsched pools` shows the tree by path, parents before children:
    // jobs where they run, shares of whole subtrees.
    let v = crate::PoolsView::build(&st, &s, "fair");
    let rows: Vec<(String, u32, u32, f64)> = v
        .pools
        .iter()
        .map(|p| (p.name.clone(), p.jobs, p.running_maps, p.fair_share))
        .collect();
    assert_eq!(
        rows,
        [
            ("dev".to_string(), 1, 10, 10.0),
            ("idle".to_string(), 0, 0, 0.0),
            ("prod".to_string(), 0, 0, 30.0),
            ("prod.etl".to_string(), 1, 15, 15.0),
            ("prod.reports".to_string(), 1, 15, 15.0),
        ]
    );
}

#[test]
fn yarn_keeps_minimums_whole_and_does_not_cap_by_demand() {
    let c = slots(40);
    let xml =
        "<allocations><queue name=\"a\"><minResources>30720 mb, 30 vcores</minResources></queue>\
               <queue name=\"b\"><minResources>30720 mb, 30 vcores</minResources></queue>\
               <queue name=\"small\"/></allocations>";
    let mut st = ClusterState::new(c.clone());
    let mut s = yarn(xml, &c);
    submit(&mut st, &mut s, job(Some("a"), "u", 100, 0));
    submit(&mut st, &mut s, job(Some("b"), "u", 100, 0));
    beat_all(&mut st, &mut s);
    // YARN: each keeps its minimum of 30 on 40 slots.
    assert_eq!((share(&s, "a"), share(&s, "b")), (30.0, 30.0));
    let w = s.warnings().join("\n");
    assert!(
        w.contains("each still gets its whole minimum (YARN)"),
        "{w}"
    );
    // The same pools in an MR1 file: the minimums are scaled to 20 + 20.
    let mr1 = "<allocations><pool name=\"a\"><minMaps>30</minMaps></pool>\
               <pool name=\"b\"><minMaps>30</minMaps></pool></allocations>";
    let mut st2 = ClusterState::new(c.clone());
    let mut s2 = from_xml("", "fs.xml", mr1, &c).unwrap();
    submit(&mut st2, &mut s2, job(Some("a"), "u", 100, 0));
    submit(&mut st2, &mut s2, job(Some("b"), "u", 100, 0));
    beat_all(&mut st2, &mut s2);
    assert_eq!((share(&s2, "a"), share(&s2, "b")), (20.0, 20.0));

    // No demand cap: a queue asking for 3 still has half of the cluster,
    // but the slots it does not use go to the other.
    let mut st = ClusterState::new(c.clone());
    let mut s = yarn(xml, &c);
    submit(&mut st, &mut s, job(Some("small"), "u", 3, 0));
    submit(&mut st, &mut s, job(Some("dev"), "v", 100, 0));
    beat_all(&mut st, &mut s);
    assert_eq!((share(&s, "small"), share(&s, "dev")), (20.0, 20.0));
    let run: Vec<u32> = st.jobs().iter().map(|j| j.map_counts.running).collect();
    assert_eq!(run, vec![3, 37]);
}

#[test]
fn yarn_fifo_queue_gives_its_share_to_the_first_job_and_limits_apply_per_level() {
    let c = slots(20);
    let xml = "<allocations><queue name=\"batch\"><maxRunningApps>2</maxRunningApps>\
               <queue name=\"q\"><schedulingPolicy>fifo</schedulingPolicy></queue>\
               <queue name=\"r\"/></queue></allocations>";
    let mut st = ClusterState::new(c.clone());
    let mut s = yarn(xml, &c);
    let first = submit(&mut st, &mut s, job(Some("batch.q"), "a", 5, 0));
    let second = submit(&mut st, &mut s, job(Some("batch.q"), "b", 100, 1));
    let third = submit(&mut st, &mut s, job(Some("batch.r"), "c", 100, 2));
    beat_all(&mut st, &mut s);
    let n = |j: JobId| s.tree().job_node(j);
    // The parent's limit of 2 holds the third job back.
    assert!(n(third).is_none());
    let shares: Vec<f64> = [first, second]
        .iter()
        .map(|j| s.tree().nodes[n(*j).unwrap() as usize].share[MAP])
        .collect();
    assert_eq!(shares, vec![20.0, 0.0]);
    assert_eq!(st.job(first).map_counts.running, 5);
    assert_eq!(st.job(second).map_counts.running, 15);
}

#[test]
fn placement_rules_choose_the_queue() {
    let c = slots(10);
    let xml = r#"<allocations>
  <queue name="analysts"/>
  <queue name="default"/>
  <queue name="etl"/>
  <queuePlacementPolicy>
    <rule name="specified" create="false"/>
    <rule name="primaryGroup" create="false"/>
    <rule name="user" create="false"/>
    <rule name="reject"/>
  </queuePlacementPolicy>
</allocations>"#;
    let mut st = ClusterState::new(c.clone());
    let mut s = from_xml("user_groups = { ann = \"analysts\" }", "fs.xml", xml, &c).unwrap();
    let named = submit(&mut st, &mut s, job(Some("root.etl"), "bob", 1, 0));
    let undeclared = submit(&mut st, &mut s, job(Some("nowhere"), "ann", 1, 0));
    let by_default = submit(&mut st, &mut s, job(Some("default"), "etl", 1, 0));
    let pools: Vec<String> = [named, undeclared, by_default]
        .iter()
        .map(|j| s.pool_of(&st, *j))
        .collect();
    assert_eq!(pools, ["etl", "analysts", "etl"]);
    // No rule takes zed's job: the scheduler refuses it on submission with
    // the reason, and a driver never admits it.
    let zed = st.submit(job(None, "zed", 1, 0));
    match s.on_submit(&st, zed) {
        Admission::Reject(why) => {
            assert!(
                why.contains("placement policy") && why.contains("zed"),
                "{why}"
            )
        }
        Admission::Admit => panic!("the reject rule refuses zed's job"),
    }
    assert_eq!(s.stats()["placement_rejections"], 1.0);
    // The placed jobs are admitted as usual.
    assert_eq!(s.on_submit(&st, named), Admission::Admit);
}

#[test]
fn a_job_placed_in_a_parent_queue_is_refused() {
    let c = slots(10);
    let xml = "<allocations><queue name=\"prod\"><queue name=\"etl\"/></queue>\
               <queue name=\"dev\"/></allocations>";
    let mut st = ClusterState::new(c.clone());
    let mut s = yarn(xml, &c);
    let parent = st.submit(job(Some("root.prod"), "a", 1, 0));
    let Admission::Reject(why) = s.on_submit(&st, parent) else {
        panic!("a parent queue takes no job")
    };
    assert!(why.contains("`prod` is a parent queue"), "{why}");
    for leaf in ["prod.etl", "dev", "root.dev"] {
        let j = st.submit(job(Some(leaf), "a", 1, 0));
        assert_eq!(s.on_submit(&st, j), Admission::Admit, "{leaf}");
    }
}

#[test]
fn created_queues_nest_under_their_parent() {
    let c = slots(10);
    let mut st = ClusterState::new(c.clone());
    let mut s = yarn(TREE, &c);
    submit(&mut st, &mut s, job(Some("root.prod.new"), "a", 100, 0));
    submit(&mut st, &mut s, job(Some("fresh.deep"), "b", 100, 0));
    beat_all(&mut st, &mut s);
    let t = s.tree();
    let parent = |p: &str| {
        t.nodes[t.nodes[t.pool(p).unwrap() as usize].parent as usize]
            .name
            .clone()
    };
    assert_eq!(parent("prod.new"), "prod");
    assert_eq!(parent("fresh.deep"), "fresh");
    assert_eq!(parent("fresh"), "");
    // A path of any depth nests at most 32 levels, like a file's queues.
    let deep = vec!["q"; 100_000].join(".");
    submit(&mut st, &mut s, job(Some(&deep), "c", 1, 0));
    beat_all(&mut st, &mut s);
    let t = s.tree();
    let leaf = t.pool(&deep).unwrap();
    assert_eq!(t.path(leaf).count(), 33);
}

#[test]
fn per_queue_preemption_threshold_and_timeout() {
    // `tight` is starved below 100% of its share after 10 s; `loose` has
    // only the default (half its share, 60 s).
    let c = slots(20);
    let xml = "<allocations><queue name=\"hog\"/>\
               <queue name=\"tight\"><fairSharePreemptionTimeout>10</fairSharePreemptionTimeout>\
               <fairSharePreemptionThreshold>1.0</fairSharePreemptionThreshold></queue>\
               <defaultFairSharePreemptionTimeout>60</defaultFairSharePreemptionTimeout></allocations>";
    let mut st = ClusterState::new(c.clone());
    let mut s = from_xml("preemption = true", "fs.xml", xml, &c).unwrap();
    let hog = submit(&mut st, &mut s, job(Some("hog"), "a", 100, 0));
    beat_all(&mut st, &mut s);
    assert_eq!(st.job(hog).map_counts.running, 20);
    submit(&mut st, &mut s, job(Some("tight"), "b", 100, 0));
    assert_eq!(s.next_timer(), Some(Time::from_secs(10)));
    st.advance_to(Time::from_secs(10));
    assert_eq!(s.on_timer(&st).len(), 10);
    // Without the queue's own settings the default timeout applies.
    let xml = xml.replace("tight", "loose").replace(
        "<fairSharePreemptionTimeout>10</fairSharePreemptionTimeout>\
         <fairSharePreemptionThreshold>1.0</fairSharePreemptionThreshold>",
        "",
    );
    let mut st = ClusterState::new(c.clone());
    let mut s = from_xml("preemption = true", "fs.xml", &xml, &c).unwrap();
    submit(&mut st, &mut s, job(Some("hog"), "a", 100, 0));
    beat_all(&mut st, &mut s);
    submit(&mut st, &mut s, job(Some("loose"), "b", 100, 0));
    assert_eq!(s.next_timer(), Some(Time::from_secs(60)));
}

#[test]
fn spark_pools_default_fifo_and_minimum_in_slots() {
    let c = slots(20);
    let xml = include_str!("../../../../../examples/spark-fairscheduler.xml");
    let mut st = ClusterState::new(c.clone());
    let mut s = from_xml("", "spark.xml", xml, &c).unwrap();
    let a = submit(&mut st, &mut s, job(Some("test"), "u", 100, 0));
    let b = submit(&mut st, &mut s, job(Some("test"), "u", 100, 1));
    let p = submit(&mut st, &mut s, job(Some("production"), "v", 100, 2));
    let d = submit(&mut st, &mut s, job(None, "w", 100, 3));
    beat_all(&mut st, &mut s);
    assert_eq!(s.pool_of(&st, d), "default");
    // Shares with MR1's rule: production has min 8 and weight 2.
    assert_eq!(share(&s, "production"), 10.0);
    assert_eq!(share(&s, "test"), 5.0);
    assert_eq!(share(&s, "default"), 5.0);
    // FIFO inside `test`: the first job has all of the pool's slots.
    assert_eq!(st.job(b).map_counts.running, 0);
    let run = [a, p, d].map(|j| st.job(j).map_counts.running);
    assert_eq!(run, [5, 10, 5]);
}

/// A flat MR1 file keeps today's shares exactly: HFS's rule, minimums
/// scaled when they exceed the capacity, weights, maxima and demand caps.
#[test]
fn flat_mr1_file_shares_are_pinned() {
    let c = slots(50);
    let xml = "<allocations>\
        <pool name=\"a\"><minMaps>20</minMaps><weight>2</weight></pool>\
        <pool name=\"b\"><minMaps>40</minMaps></pool>\
        <pool name=\"c\"><maxMaps>4</maxMaps><weight>3</weight></pool>\
        <pool name=\"d\"/></allocations>";
    let mut s = from_xml("", "fs.xml", xml, &c).unwrap();
    let mut st = ClusterState::new(c.clone());
    for (p, d) in [("a", 100), ("b", 100), ("c", 100), ("d", 2)] {
        submit(&mut st, &mut s, job(Some(p), p, d, 0));
    }
    beat_all(&mut st, &mut s);
    // Minimums 20 + 40 on 50 slots scale to 16.67 + 33.33; c and d only
    // get what the minimums leave: nothing.
    let got: Vec<f64> = ["a", "b", "c", "d"].iter().map(|p| share(&s, p)).collect();
    assert_eq!(got, vec![16.666667, 33.333333, 0.0, 0.0]);
    // With 100 slots: c capped at 4, d at its demand 2, b at its minimum
    // 40, and a at 2r = 54 for the ratio r = 27 that fills the cluster.
    let c = slots(100);
    let mut s = from_xml("", "fs.xml", xml, &c).unwrap();
    let mut st = ClusterState::new(c.clone());
    for (p, d) in [("a", 100), ("b", 100), ("c", 100), ("d", 2)] {
        submit(&mut st, &mut s, job(Some(p), p, d, 0));
    }
    beat_all(&mut st, &mut s);
    let got: Vec<f64> = ["a", "b", "c", "d"].iter().map(|p| share(&s, p)).collect();
    assert_eq!(got, vec![54.0, 40.0, 4.0, 2.0]);
}

#[test]
fn yarn_maximum_below_minimum_is_the_minimum() {
    let c = slots(20);
    let xml = "<allocations>\n<queue name=\"a\"><minResources>10240 mb, 10 vcores</minResources>\
               <maxResources>5120 mb, 5 vcores</maxResources></queue>\n</allocations>";
    let mut st = ClusterState::new(c.clone());
    let mut s = yarn(xml, &c);
    let w = s.warnings().join("\n");
    assert!(
        w.contains("fs.xml:2: queue[root.a]: max maps (5) is below min maps (10); the minimum is its maximum (YARN)"),
        "{w}"
    );
    let j = submit(&mut st, &mut s, job(Some("a"), "u", 100, 0));
    beat_all(&mut st, &mut s);
    assert_eq!(st.job(j).map_counts.running, 10);
}

/// Shares of the pools `names` after one 100-map job in each of `jobs`.
fn shares_with_jobs(xml: &str, c: &Cluster, jobs: &[&str], names: &[&str]) -> Vec<f64> {
    let mut st = ClusterState::new(c.clone());
    let mut s = yarn(xml, c);
    for q in jobs {
        submit(&mut st, &mut s, job(Some(q), "user1", 100, 0));
    }
    beat_all(&mut st, &mut s);
    names.iter().map(|p| share(&s, p)).collect()
}

/// YARN `TestFairScheduler.testSimpleFairShareCalculation`: two queues
/// wanting the whole 10-container cluster get 5 each; `root.default`,
/// declared but without applications, gets nothing.
#[test]
fn yarn_test_simple_fair_share_calculation() {
    let xml = "<allocations><queue name=\"default\"/></allocations>";
    let got = shares_with_jobs(
        xml,
        &slots(10),
        &["queue1", "queue2"],
        &["queue1", "queue2", "default"],
    );
    assert_eq!(got, vec![5.0, 5.0, 0.0]);
}

/// YARN `TestFairScheduler.testSimpleHierarchicalFairShareCalculation`:
/// on a capacity of 240, `queue1` gets half and `parent.queue2` and
/// `parent.queue3` a quarter each (queues created on use, the parent too).
#[test]
fn yarn_test_simple_hierarchical_fair_share_calculation() {
    let xml = "<allocations><queue name=\"default\"/></allocations>";
    let got = shares_with_jobs(
        xml,
        &slots(240),
        &["queue1", "parent.queue2", "parent.queue3"],
        &["queue1", "parent.queue2", "parent.queue3", "parent"],
    );
    assert_eq!(got, vec![120.0, 60.0, 60.0, 120.0]);
}

/// YARN `TestFairScheduler.testFairShareWithMinAlloc`: minimums of one and
/// two containers on a three-container cluster, both queues asking for
/// two: the shares are the minimums, 1 and 2.
#[test]
fn yarn_test_fair_share_with_min_alloc() {
    let xml = "<allocations>\
        <queue name=\"queueA\"><minResources>1024 mb, 1 vcores</minResources></queue>\
        <queue name=\"queueB\"><minResources>2048 mb, 2 vcores</minResources></queue>\
        </allocations>";
    let got = shares_with_jobs(xml, &slots(3), &["queueA", "queueB"], &["queueA", "queueB"]);
    assert_eq!(got, vec![1.0, 2.0]);
}
