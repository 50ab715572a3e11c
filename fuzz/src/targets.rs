//! The fuzz targets: every parser of user input, and parse-then-simulate.
//!
//! Each target takes arbitrary bytes and must return (an accepted input or
//! a located error) without panicking, aborting or hanging. The same file is
//! compiled into the fuzz driver (`fuzz/src/main.rs`) and into the
//! regression test `crates/cli/tests/fuzz_regressions.rs`, which replays
//! every input stored under `fuzz/regressions/<target>/`.

use mrsched_mirror::Topology;
use mrsched_model::{estimate, Cluster, Format, InputErrors, Source, Workload};
use mrsched_runtime::jobfile::JobFile;
use mrsched_runtime::master::Users;
use mrsched_runtime::proto;
use mrsched_sched::config::{self, SchedulerConfig};
use mrsched_sched::policies::fair::alloc;
use mrsched_sim::{simulate, SimOptions};
use mrsched_workload::swim::{self, SwimMode, SwimOptions};
use mrsched_workload::{rumen, sls};
use std::path::Path;

/// Every target, by name.
pub const TARGETS: &[&str] = &[
    "cluster",
    "workload",
    "scheduler",
    "alloc-xml",
    "alloc-toml",
    "capacity-xml",
    "alloc-yarn",
    "swim",
    "sls",
    "rumen",
    "jobfile",
    "proto",
    "users",
    "topology",
    "simulate",
];

/// Most estimated events the `simulate` target runs (a tiny cluster and a
/// bounded run: the estimate is an upper bound, so accepted inputs of this
/// size end in well under a second).
pub const SIMULATE_MAX_EVENTS: f64 = 200_000.0;

/// The separator between the cluster and the workload of a `simulate`
/// input.
pub const SPLIT: &str = "\n#%%\n";

/// A short, digit-free summary of what an input led to. The driver keeps
/// inputs that lead somewhere new.
pub fn outcome_class(r: Result<String, InputErrors>) -> String {
    let s = match r {
        Ok(s) => format!("ok {s}"),
        Err(e) => {
            // The field (indices removed) and the message's first words.
            let mut v: Vec<String> =
                e.0.iter()
                    .map(|e| {
                        let words: Vec<&str> = e.message.split_whitespace().take(2).collect();
                        // A misspelt field names itself: keep only the kind.
                        let field = match e.field.as_deref() {
                            Some(f) if !e.message.contains("unknown") => f,
                            _ => "",
                        };
                        format!("{field}:{}", words.join(" "))
                    })
                    .collect();
            v.sort();
            v.dedup();
            v.join("|")
        }
    };
    s.chars()
        .filter(|c| !c.is_ascii_digit() && *c != '`')
        .take(300)
        .collect()
}

/// Both formats of a document (TOML and JSON).
fn both(label: &str, text: &str) -> [Source; 2] {
    [
        Source::new(format!("{label}.toml"), text, Format::Toml),
        Source::new(format!("{label}.json"), text, Format::Json),
    ]
}

/// A small cluster schedulers are built against.
fn probe() -> Cluster {
    Cluster::from_toml_str(
        "probe",
        "[[nodes]]\ncount = 4\nracks = 2\nmap_slots = 2\nreduce_slots = 1\n",
    )
    .expect("the probe cluster is valid")
}

/// Run `target` on `data`; returns a summary of the outcome.
pub fn run(target: &str, data: &[u8]) -> String {
    let text = String::from_utf8_lossy(data);
    let text = text.as_ref();
    let mut out = Vec::new();
    match target {
        "cluster" => {
            for src in both("c", text) {
                out.push(outcome_class(
                    Cluster::from_source(&src)
                        .map(|c| format!("{} {}", c.nodes.len(), c.capacity.len())),
                ));
            }
        }
        "workload" => {
            let c = probe();
            for src in both("w", text) {
                out.push(outcome_class(Workload::from_source(&src).and_then(|w| {
                    w.check_against(&c, "w")?;
                    let e = estimate(&c, &w);
                    Ok(format!("{} {}", e.jobs, e.tasks))
                })));
            }
        }
        "scheduler" => {
            let c = probe();
            for src in both("s", text) {
                out.push(outcome_class(
                    SchedulerConfig::from_source(&src)
                        .and_then(|cfg| cfg.build(&c).map(|s| s.name())),
                ));
            }
        }
        "alloc-xml" => {
            let c = probe();
            out.push(outcome_class(
                alloc::from_xml("fair-scheduler.xml", text).map(|a| a.warnings(&c).join("|")),
            ));
        }
        "alloc-yarn" => {
            // Any XML dialect (YARN, Spark, MR1) as `allocation_file` reads
            // it, its resources in slots, its warnings, and a scheduler built
            // on it that places a few jobs.
            let c = probe();
            let src = Source::new("fair-scheduler.xml", text, Format::Toml);
            out.push(outcome_class(
                alloc::Allocations::from_source(&src).and_then(|mut a| {
                    let w = a.warnings(&c).join("|");
                    a.resolve_resources(
                        [1024.0, 1.0],
                        [c.total_map_slots() as f64, c.total_reduce_slots() as f64],
                    );
                    let s = mrsched_sched::policies::fair::from_xml("", "f.xml", text, &c)?;
                    Ok(format!("{w} {}", s.tree().pools().count()))
                }),
            ));
        }
        "alloc-toml" => {
            // The native form (its own file, TOML or JSON), as `allocation_file`
            // reads it.
            let c = probe();
            for src in both("pools", text) {
                out.push(outcome_class(
                    alloc::Allocations::from_source(&src).map(|a| a.warnings(&c).join("|")),
                ));
            }
        }
        "capacity-xml" => {
            // YARN's capacity-scheduler.xml, then the policy built on it
            // (its warnings check every queue against a cluster).
            let c = probe();
            out.push(outcome_class(
                mrsched_sched::policies::capacity::conf::parse("capacity-scheduler.xml", text).map(
                    |q| {
                        let s = mrsched_sched::policies::capacity::CapacityScheduler::new(
                            "capacity".into(),
                            q,
                            &c,
                        );
                        mrsched_sched::Scheduler::warnings(&s).join("|")
                    },
                ),
            ));
        }
        "swim" => {
            for mode in [SwimMode::Bytes, SwimMode::Bins] {
                let src = Source::new("t.tsv", text, Format::Toml);
                let opts = SwimOptions {
                    mode,
                    ..Default::default()
                };
                out.push(outcome_class(
                    swim::read(&src, &opts).map(|w| format!("{}", w.jobs.len())),
                ));
            }
        }
        "sls" | "rumen" => {
            // A Hadoop job trace, then what a run checks before it starts.
            let src = Source::new("t.json", text, Format::Json);
            let read = if target == "sls" {
                sls::read
            } else {
                rumen::read
            };
            let r = read(&src);
            if let Err(e) = &r {
                // Every located error points at a line of the file.
                let lines = text.split('\n').count();
                for e in &e.0 {
                    assert!(
                        e.line.is_none_or(|l| l >= 1 && l <= lines),
                        "line {:?} of {lines}: {e}",
                        e.line
                    );
                }
            }
            let c = probe();
            out.push(outcome_class(r.and_then(|w| {
                w.check_against(&c, "t.json")?;
                let e = estimate(&c, &w);
                Ok(format!("{} {}", e.jobs, e.tasks))
            })));
        }
        "jobfile" => {
            for src in both("job", text) {
                out.push(outcome_class(
                    JobFile::parse(&src).map(|j| j.display_name()),
                ));
            }
        }
        "proto" => {
            // Every JSON body the master accepts: worker registration and
            // heartbeats, uploads, and job submissions (job files).
            let kind = |r: Result<(), serde_json::Error>| match r {
                Ok(()) => "ok".to_string(),
                Err(e) => format!("{:?}", e.classify()),
            };
            out.push(kind(
                serde_json::from_slice::<proto::Register>(data).map(|_| ()),
            ));
            out.push(kind(
                serde_json::from_slice::<proto::Heartbeat>(data).map(|_| ()),
            ));
            out.push(kind(
                serde_json::from_slice::<proto::CreateFile>(data).map(|_| ()),
            ));
            let src = Source::new("body", text, Format::Json);
            out.push(outcome_class(
                JobFile::parse(&src).map(|j| j.display_name()),
            ));
        }
        "users" => {
            // The live master's users file (`--users`).
            for src in both("users", text) {
                out.push(outcome_class(
                    Users::parse(&src).map(|u| u.find("0123456789abcdef").is_some().to_string()),
                ));
            }
        }
        "topology" => {
            // A Hadoop table mapping (`host rack` lines), as `mrsched-ballista
            // --topology` reads it.
            out.push(match Topology::parse("racks.txt", text) {
                Ok(t) => format!("ok {}", t.rack_of("10.0.0.1", "exec-b") == "/default-rack"),
                Err(e) => {
                    assert!(
                        e.line >= 1 && e.line <= text.lines().count(),
                        "line {} of {}",
                        e.line,
                        text.lines().count()
                    );
                    e.message
                        .split_whitespace()
                        .take(2)
                        .collect::<Vec<_>>()
                        .join(" ")
                }
            });
        }
        "simulate" => out.push(simulate_target(text)),
        _ => panic!(
            "unknown fuzz target `{target}` (known: {})",
            TARGETS.join(", ")
        ),
    }
    out.join("\n")
}

/// Parse a cluster and a workload (separated by [`SPLIT`]) and simulate
/// them when the run is small, under FIFO and the Fair Scheduler.
fn simulate_target(text: &str) -> String {
    let (c, w) = text.split_once(SPLIT).unwrap_or((text, ""));
    let c = match Cluster::from_source(&Source::new("c.toml", c, Format::Toml)) {
        Ok(c) => c,
        Err(e) => return outcome_class(Err(e)),
    };
    let w = match Workload::from_source(&Source::new("w.toml", w, Format::Toml))
        .and_then(|w| w.check_against(&c, "w.toml").map(|_| w))
    {
        Ok(w) => w,
        Err(e) => return outcome_class(Err(e)),
    };
    let est = estimate(&c, &w);
    if est.events > SIMULATE_MAX_EVENTS || c.nodes.len() > 64 {
        return "too big".into();
    }
    let mut out = Vec::new();
    for name in ["fifo", "fair+delay"] {
        let cfg = SchedulerConfig::preset(name).expect("a preset");
        let mut s = match cfg.build(&c) {
            Ok(s) => s,
            Err(e) => return outcome_class(Err(e)),
        };
        let opts = SimOptions {
            strict: true,
            ..Default::default()
        };
        match simulate(&c, &w, s.as_mut(), &opts) {
            Ok(o) => {
                // The estimate must bound the run.
                assert!(
                    (o.info.events as f64) <= est.events.max(1_000.0) * 4.0,
                    "{} events simulated, {} estimated",
                    o.info.events,
                    est.events
                );
                out.push(format!("ok {}", o.report().summary.succeeded > 0));
            }
            Err(e) => out.push(
                e.to_string()
                    .chars()
                    .filter(|c| c.is_alphabetic())
                    .take(80)
                    .collect(),
            ),
        }
    }
    out.join("|")
}

/// Seed inputs of `target`, from the examples in the repository at `root`.
pub fn seeds(target: &str, root: &Path) -> Vec<Vec<u8>> {
    let read = |p: &str| std::fs::read(root.join(p)).unwrap_or_default();
    let mut v: Vec<Vec<u8>> = match target {
        "cluster" => {
            let toml_text = read("examples/cluster.toml");
            let spec: Option<mrsched_model::ClusterSpec> =
                toml::from_str(&String::from_utf8_lossy(&toml_text)).ok();
            let mut v = vec![toml_text];
            if let Some(spec) = spec {
                v.push(serde_json::to_vec_pretty(&spec).unwrap_or_default());
            }
            v.push(
                b"heartbeat_interval_s = 1\n[[nodes]]\nslots = 2\n[[capacity]]\nkind = \"sine\"\nmin_fraction = 0.1\nmax_fraction = 0.5\nperiod_s = 600\n[[capacity]]\nkind = \"bursts\"\nfraction = 0.5\nevery_s = 100\nduration_s = 10\n[[capacity]]\nkind = \"trace\"\npoints = [[0, 0.1], [50, 0.2]]\n[faults]\nnode_mtbf_s = 1000\nnode_mttr_s = 60\ntask_failure_prob = 0.1\n"
                    .to_vec(),
            );
            v
        }
        "workload" => vec![
            read("examples/workload.toml"),
            read("examples/workload.json"),
        ],
        "scheduler" => {
            let mut v = vec![read("examples/fifo.toml")];
            v.extend(config::presets().iter().map(|p| p.toml.as_bytes().to_vec()));
            v
        }
        "alloc-xml" => vec![ALLOC_XML.as_bytes().to_vec()],
        "alloc-toml" => vec![ALLOC_TOML.as_bytes().to_vec()],
        "capacity-xml" => vec![read("examples/capacity-scheduler.xml")],
        "alloc-yarn" => vec![
            read("examples/yarn-fair-scheduler.xml"),
            read("examples/spark-fairscheduler.xml"),
        ],
        "users" => vec![
            b"# API users of this cluster: name, token, admin.\n[users.alice]\ntoken = \"0123456789abcdef\"\nadmin = true\n\n[users.\"bob smith\"]\ntoken = \"fedcba9876543210fedcba\"\n".to_vec(),
        ],
        "topology" => vec![
            b"# host rack\n10.0.0.1 /dc1/r1\n10.0.0.2 /dc1/r1\n\nexec-b   /dc1/r2  # by executor id\n".to_vec(),
        ],
        "swim" => vec![read(
            "crates/workload/data/FB-2009_samples_24_times_1hr_0_first50jobs.tsv",
        )],
        "sls" => vec![read("examples/sls-trace.json")],
        "rumen" => vec![read("examples/rumen-trace.json")],
        "jobfile" => vec![
            read("examples/wordcount-job.toml"),
            read("examples/streaming-job.toml"),
        ],
        "proto" => {
            let reg = proto::Register {
                name: "w1".into(),
                rack: "r1".into(),
                map_slots: 2,
                reduce_slots: 1,
                addr: "http://127.0.0.1:7000".into(),
                outputs: vec![(1, "1-2".into())],
                blocks: vec![1, 2],
            };
            let hb = proto::Heartbeat {
                node: 0,
                session: 1,
                reports: vec![
                    proto::Report::MapDone {
                        key: "1-3".into(),
                        outputs: vec![(1, vec![10, 20], 5)],
                        read: proto::ReadFrom::Local,
                        input_bytes: 100,
                        blocks: Vec::new(),
                    },
                    proto::Report::CopyDone { key: "1-4".into() },
                    proto::Report::ReduceDone {
                        key: "1-5".into(),
                        block: 7,
                        bytes: 9,
                        replicas: vec![0, 1],
                    },
                    proto::Report::Failed {
                        key: "1-6".into(),
                        error: "boom".into(),
                    },
                    proto::Report::FetchFailed {
                        job: 1,
                        map: 0,
                        key: "1-3".into(),
                        reducer: "1-5".into(),
                        connect: true,
                    },
                ],
            };
            let cf = proto::CreateFile {
                name: "corpus".into(),
                replication: 2,
                block_size: Some(64 << 20),
            };
            let job: Option<JobFile> = toml::from_str(&String::from_utf8_lossy(&read(
                "examples/wordcount-job.toml",
            )))
            .ok();
            let mut v = vec![
                serde_json::to_vec(&reg).unwrap_or_default(),
                serde_json::to_vec(&hb).unwrap_or_default(),
                serde_json::to_vec(&cf).unwrap_or_default(),
            ];
            if let Some(j) = job {
                v.push(serde_json::to_vec_pretty(&j).unwrap_or_default());
            }
            v
        }
        "simulate" => {
            let w = read("examples/workload.toml");
            let mut small = b"heartbeat_interval_s = 1\n[[nodes]]\ncount = 4\nracks = 2\nmap_slots = 2\nreduce_slots = 1\n".to_vec();
            small.extend_from_slice(SPLIT.as_bytes());
            let mut a = small.clone();
            a.extend_from_slice(&w);
            let mut b = small;
            b.extend_from_slice(
                b"[[jobs]]\nname = \"a\"\nmaps = 3\nmap_time_s = 5\nreduce_times_s = [4, 2]\n\n[[jobs]]\nname = \"b\"\narrival_s = 2\nuser = \"u\"\nmaps = 2\nmap_time_s = 1\ndeadline_s = 100\n",
            );
            vec![a, b]
        }
        _ => Vec::new(),
    };
    v.retain(|s| !s.is_empty());
    v
}

/// A seed `fair-scheduler.xml` using every element.
pub const ALLOC_XML: &str = r#"<?xml version="1.0"?>
<allocations>
  <pool name="prod">
    <minMaps>4</minMaps>
    <minReduces>2</minReduces>
    <maxRunningJobs>10</maxRunningJobs>
    <weight>2.0</weight>
    <minSharePreemptionTimeout>60</minSharePreemptionTimeout>
    <schedulingMode>fifo</schedulingMode>
  </pool>
  <pool name="research">
    <weight>1</weight>
    <maxMaps>8</maxMaps>
    <maxReduces>4</maxReduces>
    <pool name="nested">
      <minMaps>1</minMaps>
    </pool>
  </pool>
  <user name="alice">
    <maxRunningJobs>3</maxRunningJobs>
  </user>
  <poolMaxJobsDefault>20</poolMaxJobsDefault>
  <userMaxJobsDefault>5</userMaxJobsDefault>
  <defaultMinSharePreemptionTimeout>600</defaultMinSharePreemptionTimeout>
  <fairSharePreemptionTimeout>600</fairSharePreemptionTimeout>
  <defaultPoolSchedulingMode>fair</defaultPoolSchedulingMode>
</allocations>
"#;

/// A seed allocation file in the native form using every field.
pub const ALLOC_TOML: &str = r#"pool_max_jobs_default = 20
user_max_jobs_default = 5
default_min_share_preemption_timeout_s = 600
fair_share_preemption_timeout_s = 600
default_pool_scheduling_mode = "fair"

[pools.prod]
min_maps = 4
min_reduces = 2
max_running_jobs = 10
weight = 2.0
min_share_preemption_timeout_s = 60
scheduling_mode = "fifo"

[pools.research]
max_maps = 8
max_reduces = 4

[pools.research.pools.nested]
min_maps = 1

[users.alice]
max_running_jobs = 3
"#;
