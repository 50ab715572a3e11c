//! Reading YARN and Spark allocation files: what the examples say, and a
//! located error for each kind of mistake.

use super::super::alloc::{AllocFormat, Allocations, Mode, PoolConf, ShareRule};
use super::super::placement::PlaceRule;
use super::super::resource::Resource;
use mrsched_model::{Format, Source, Time};

const YARN: &str = include_str!("../../../../../examples/yarn-fair-scheduler.xml");
const SPARK: &str = include_str!("../../../../../examples/spark-fairscheduler.xml");

fn read(name: &str, text: &str) -> Result<Allocations, String> {
    Allocations::from_source(&Source::new(name, text, Format::Toml)).map_err(|e| e.to_string())
}

fn pool<'a>(a: &'a Allocations, path: &str) -> &'a PoolConf {
    a.all_pools()
        .into_iter()
        .find(|p| p.path == path)
        .unwrap_or_else(|| panic!("no pool {path}"))
}

fn err(text: &str) -> String {
    let e = read("fs.xml", text).unwrap_err();
    assert!(e.starts_with("fs.xml:"), "{e}");
    e
}

#[test]
fn yarn_example_reads_into_the_tree() {
    let mut a = read("yarn.xml", YARN).unwrap();
    assert_eq!(a.format, AllocFormat::Yarn);
    assert_eq!(a.share_rule(), ShareRule::Yarn);
    let paths: Vec<&str> = a.all_pools().iter().map(|p| p.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "production",
            "production.etl",
            "production.reports",
            "analytics",
            "analytics.adhoc",
            "analytics.ml",
            "default"
        ]
    );
    assert_eq!(a.root_mode, Some(Mode::Fair));
    assert_eq!(a.users.get("etl-bot"), Some(&15));
    assert_eq!(a.user_max_jobs_default, Some(8));
    assert_eq!(a.pool_max_jobs_default, Some(50));
    assert_eq!(a.max_am_share_default, Some(0.5));
    assert_eq!(a.default_min_share_timeout, Some(Time::from_secs(120)));
    assert_eq!(a.fair_share_timeout, Some(Time::from_secs(300)));
    assert_eq!(a.default_fair_share_threshold, Some(0.5));
    assert_eq!(
        a.placement,
        [
            PlaceRule::Specified { create: false },
            PlaceRule::PrimaryGroup { create: false },
            PlaceRule::Default {
                queue: "default".into()
            }
        ]
    );
    // Per-queue settings, and preemption settings inherited downwards.
    let etl = pool(&a, "production.etl");
    assert_eq!(etl.mode, Some(Mode::Fifo));
    assert_eq!(etl.max_running_jobs, Some(10));
    assert_eq!(etl.min_share_timeout, Some(Time::from_secs(30)));
    assert_eq!(etl.fair_share_timeout, Some(Time::from_secs(60)));
    assert_eq!(etl.fair_share_threshold, Some(0.8));
    assert_eq!(etl.line, Some(20));
    assert_eq!(pool(&a, "production.reports").mode, Some(Mode::Fair));
    assert_eq!(pool(&a, "production").weight, 3.0);
    assert_eq!(pool(&a, "analytics").max_am_share, Some(0.5));
    // Resources in slots: 2048 MB / 2 vcore containers on 200 + 100 slots.
    a.resolve_resources([2048.0, 2.0], [200.0, 100.0]);
    assert_eq!(pool(&a, "production").min, [20.0, 20.0]);
    assert_eq!(pool(&a, "production.etl").min, [10.0, 10.0]);
    assert_eq!(pool(&a, "analytics").max, [Some(120.0), Some(60.0)]);
    assert_eq!(pool(&a, "analytics.adhoc").max, [Some(50.0), Some(25.0)]);
    assert_eq!(pool(&a, "analytics.ml").min, [5.0, 5.0]);
    assert_eq!(pool(&a, "analytics.ml").max, [Some(15.0), Some(15.0)]);
    assert_eq!(pool(&a, "default").max, [Some(40.0), Some(20.0)]);
    assert_eq!(pool(&a, "default").min, [0.0, 0.0]);
}

#[test]
fn resource_forms() {
    let c = [1024.0, 1.0];
    let cap = [100.0, 50.0];
    let slots = |t: &str| Resource::parse(t).unwrap().slots(c, cap);
    assert_eq!(slots("10240 mb, 4 vcores"), [4.0, 4.0]);
    assert_eq!(slots("10240mb,20vcores"), [10.0, 10.0]);
    assert_eq!(slots("memory-mb=5000, vcores=8"), [4.0, 4.0]);
    assert_eq!(slots("memory-mb=3072"), [3.0, 3.0]);
    assert_eq!(slots("vcores=7, memory-mb=10240"), [7.0, 7.0]);
    assert_eq!(slots("50%"), [50.0, 25.0]);
    assert_eq!(slots("30.5% memory, 20% cpu"), [20.0, 10.0]);
    assert_eq!(slots("memory-mb=10%, vcores=40%"), [10.0, 5.0]);
    for (bad, why) in [
        ("10 gb", "expected `X mb`"),
        ("1024 mb", "needs both memory and vcores"),
        ("120%", "not a percentage from 0 to 100"),
        ("memory-mb=50%, vcores=4", "mixes percentages and amounts"),
        ("memory-mb=-1, vcores=1", "not an amount >= 0"),
        ("memory-mb=1, gpus=1", "unknown resource `gpus`"),
        ("1024 mb, 2 vcores, 2 vcores", "given twice"),
        ("", "empty"),
    ] {
        let e = Resource::parse(bad).unwrap_err();
        assert!(e.contains(why), "{bad}: {e}");
    }
}

#[test]
fn root_prefix_is_optional_and_flat_files_work() {
    let a = read(
        "fs.xml",
        "<allocations><queue name=\"a\"><weight>2</weight><queue name=\"b\"/></queue>\
         <queueMaxAppsDefault>3</queueMaxAppsDefault></allocations>",
    )
    .unwrap();
    assert_eq!(a.format, AllocFormat::Yarn);
    assert_eq!(pool(&a, "a").weight, 2.0);
    assert_eq!(pool(&a, "a.b").field, "queue[root.a.b]");
    // A file of only YARN top-level settings is YARN too.
    let a = read(
        "fs.xml",
        "<allocations><pool name=\"p\"><maxAMShare>-1.0</maxAMShare></pool>\
         <userMaxAppsDefault>2</userMaxAppsDefault>\
         <queueMaxAMShareDefault>-1</queueMaxAMShareDefault></allocations>",
    )
    .unwrap();
    assert_eq!(pool(&a, "p").max_am_share, None);
    assert_eq!(a.max_am_share_default, None);
    assert_eq!(a.format, AllocFormat::Yarn);
    assert_eq!(a.user_max_jobs_default, Some(2));
}

#[test]
fn yarn_mistakes_are_located_errors() {
    let e =
        err("<allocations>\n<queue name=\"a\">\n<minMaps>3</minMaps>\n</queue>\n</allocations>");
    assert!(
        e.starts_with("fs.xml:3: queue[root.a].minMaps: unknown element <minMaps> in a <queue>"),
        "{e}"
    );
    let e = err("<allocations>\n<queue name=\"a\">\n<minResources>10 gb, 2 vcores</minResources>\n</queue>\n</allocations>");
    assert!(
        e.starts_with("fs.xml:3: queue[root.a].minResources: `10 gb, 2 vcores`: `10 gb`"),
        "{e}"
    );
    let e = err("<allocations>\n<queue name=\"a\">\n<maxResources>150%</maxResources>\n</queue>\n</allocations>");
    assert!(
        e.contains("fs.xml:3: queue[root.a].maxResources: `150%`: `150%` is not a percentage"),
        "{e}"
    );
    let e = err("<allocations>\n<queue name=\"root\">\n<queue name=\"a\"/>\n</queue>\n<queue name=\"a\"/>\n</allocations>");
    assert!(
        e.contains("fs.xml:5: queue[root.a]: queue `root.a` is defined twice"),
        "{e}"
    );
    let e =
        err("<allocations>\n<queue name=\"a\">\n<queue name=\"root\"/>\n</queue>\n</allocations>");
    assert!(
        e.contains("fs.xml:3: queue[root.a.root]: a queue name may not contain `.` or be `root`"),
        "{e}"
    );
    let e = err("<allocations>\n<queue name=\"x.y\"/>\n</allocations>");
    assert!(e.contains("fs.xml:2: queue[root.x.y]"), "{e}");
    let e = err("<allocations>\n<queue name=\"p\">\n<schedulingPolicy>fifo</schedulingPolicy>\n<queue name=\"c\"/>\n</queue>\n</allocations>");
    assert!(
        e.contains("fs.xml:2: queue[root.p].schedulingPolicy: `fifo` is only for leaf queues"),
        "{e}"
    );
    let e = err("<allocations>\n<queue name=\"root\"><schedulingPolicy>FIFO</schedulingPolicy></queue>\n</allocations>");
    assert!(
        e.contains("fs.xml:2: queue[root].schedulingPolicy: `fifo` is only for leaf queues"),
        "{e}"
    );
    let e = err("<allocations>\n<queue name=\"p\"><schedulingPolicy>lifo</schedulingPolicy></queue>\n</allocations>");
    assert!(e.contains("`lifo` is not `fair`, `fifo` or `drf`"), "{e}");
    let e = err("<allocations>\n<queue name=\"p\"><fairSharePreemptionThreshold>1.5</fairSharePreemptionThreshold></queue>\n</allocations>");
    assert!(
        e.contains("fs.xml:2: queue[root.p].fairSharePreemptionThreshold: `1.5` is not a fraction"),
        "{e}"
    );
}

#[test]
fn placement_mistakes_are_located_errors() {
    let policy = |rules: &str| {
        format!(
            "<allocations>\n<queue name=\"a\"/>\n<queuePlacementPolicy>\n{rules}\n</queuePlacementPolicy>\n</allocations>"
        )
    };
    let e = err(&policy(
        "<rule name=\"specified\" create=\"false\"/>\n<rule name=\"default\" queue=\"root.missing\" create=\"false\"/>",
    ));
    assert!(
        e.contains("fs.xml:5: queuePlacementPolicy.rule[default].queue: queue `missing` is not declared in this file and create=\"false\""),
        "{e}"
    );
    // The same rule naming a declared queue is fine, and so is create.
    read(
        "fs.xml",
        &policy("<rule name=\"default\" queue=\"root.a\" create=\"false\"/>"),
    )
    .unwrap();
    read("fs.xml", &policy("<rule name=\"default\" queue=\"new\"/>")).unwrap();
    let e = err(&policy("<rule name=\"specified\" create=\"false\"/>"));
    assert!(
        e.contains("fs.xml:4: queuePlacementPolicy.rule: the last rule must always place the job"),
        "{e}"
    );
    let e = err(&policy("<rule name=\"reject\"/>\n<rule name=\"user\"/>"));
    assert!(
        e.contains("fs.xml:5: queuePlacementPolicy.rule: this rule can never be reached"),
        "{e}"
    );
    let e = err(&policy(
        "<rule name=\"secondaryGroupExistingQueue\"/>\n<rule name=\"default\"/>",
    ));
    assert!(e.contains("fs.xml:4: queuePlacementPolicy.rule[secondaryGroupExistingQueue]: unknown placement rule"), "{e}");
    let e = err(&policy(
        "<rule name=\"nestedUserQueue\"><rule name=\"primaryGroup\"/></rule>",
    ));
    assert!(e.contains("nested rules"), "{e}");
    let e = err(&policy("<rule name=\"user\" create=\"maybe\"/>"));
    assert!(
        e.contains("rule[user].create: `maybe` is not `true` or `false`"),
        "{e}"
    );
}

#[test]
fn spark_example_reads() {
    let a = read("spark.xml", SPARK).unwrap();
    assert_eq!(a.format, AllocFormat::Spark);
    assert_eq!(a.share_rule(), ShareRule::Hfs);
    assert_eq!(a.default_mode, Mode::Fifo);
    let p = pool(&a, "production");
    assert_eq!(
        (p.weight, p.min, p.mode),
        (2.0, [8.0, 8.0], Some(Mode::Fair))
    );
    let t = pool(&a, "test");
    assert_eq!(
        (t.weight, t.min, t.mode),
        (1.0, [2.0, 2.0], Some(Mode::Fifo))
    );
    assert_eq!(t.line, Some(14));
    assert_eq!(a.all_pools().len(), 3);
}

#[test]
fn spark_mistakes_are_located_errors() {
    let e = err("<allocations>\n<pool name=\"p\">\n<minShare>2</minShare>\n<maxShare>4</maxShare>\n</pool>\n</allocations>");
    assert!(
        e.starts_with("fs.xml:4: pool[p].maxShare: unknown element <maxShare> in a Spark <pool>"),
        "{e}"
    );
    let e = err("<allocations>\n<pool name=\"p\"><minShare>two</minShare></pool>\n<pool name=\"p\"><minShare>1</minShare></pool>\n</allocations>");
    assert!(e.contains("fs.xml:2: pool[p].minShare: `two`"), "{e}");
    assert!(
        e.contains("fs.xml:3: pool[p]: pool `p` is defined twice"),
        "{e}"
    );
    let e = err("<allocations>\n<pool name=\"p\"><minShare>1</minShare><schedulingMode>NONE</schedulingMode></pool>\n</allocations>");
    assert!(e.contains("`NONE` is not `fair` or `fifo`"), "{e}");
}

#[test]
fn spark_files_without_minimums_are_told_by_their_modes() {
    let a = read(
        "fs.xml",
        "<allocations><pool name=\"p\"><schedulingMode>FAIR</schedulingMode><weight>2</weight></pool></allocations>",
    )
    .unwrap();
    assert_eq!(a.format, AllocFormat::Spark);
    let a = read(
        "fs.xml",
        "<allocations><pool name=\"p\"><schedulingMode>fair</schedulingMode><weight>2</weight></pool></allocations>",
    )
    .unwrap();
    assert_eq!(a.format, AllocFormat::Mr1);
}

#[test]
fn mr1_files_stay_mr1() {
    let a = read(
        "fs.xml",
        "<allocations><pool name=\"p\"><minMaps>2</minMaps><weight>2</weight></pool></allocations>",
    )
    .unwrap();
    assert_eq!(a.format, AllocFormat::Mr1);
    assert_eq!(a.share_rule(), ShareRule::Hfs);
    // minShare next to an MR1 element is an MR1 mistake, not Spark.
    let e = err("<allocations><pool name=\"p\"><minMaps>2</minMaps><minShare>2</minShare></pool></allocations>");
    assert!(e.contains("unknown element <minShare> in a <pool>"), "{e}");
}

#[test]
fn deep_queue_nesting_is_an_error_not_a_stack_overflow() {
    let n = 5_000;
    let xml = format!(
        "<allocations>{}{}</allocations>",
        "<queue name=\"q\">".repeat(n),
        "</queue>".repeat(n)
    );
    let e = read("f.xml", &xml).unwrap_err();
    assert!(e.contains("queues are nested more than 32 deep"), "{e}");
    let e = err("<allocations>\n<queue name=\"a\"><weight></weight></queue>\n</allocations>");
    assert!(
        e.contains("fs.xml:2: queue[root.a].weight: expected a value such as <weight>10</weight>"),
        "{e}"
    );
}
