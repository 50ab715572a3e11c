//! Stalls are reported with the names of the user's files, and a long wait
//! for the next arrival is not a stall.

use mrsched_model::{Cluster, Format, Source, Time, Workload};
use mrsched_sched::policies::fifo::Fifo;
use mrsched_sim::{simulate, SimError, SimOptions};

fn inputs(cluster: &str, workload: &str) -> (Cluster, Workload) {
    let c = Cluster::from_toml_str("c.toml", cluster).unwrap();
    let w = Workload::from_source(&Source::new("w.toml", workload, Format::Toml)).unwrap();
    (c, w)
}

#[test]
fn a_stall_names_the_jobs_from_the_workload_file() {
    // No reduce slots: the reduces of `report` can never run.
    let (c, w) = inputs(
        "[[nodes]]\nname = \"m\"\nmap_slots = 1\n",
        "[[jobs]]\nname = \"report\"\nmaps = 1\nmap_time_s = 5\nreduces = 1\nreduce_time_s = 5\n\n[[jobs]]\nname = \"later\"\narrival_s = 1000000\nmaps = 1\nmap_time_s = 5\n",
    );
    let opts = SimOptions {
        stall_after: Time::from_secs(3_600),
        ..Default::default()
    };
    let e = simulate(&c, &w, &mut Fifo::new(), &opts).err().unwrap();
    assert!(
        matches!(e, SimError::Stalled { unfinished: 1, .. }),
        "{e:?}"
    );
    let s = e.to_string();
    assert!(s.contains("job(s) `report` cannot finish"), "{s}");
    assert!(!s.contains("JobId"), "{s}");
    assert!(
        s.contains("job `later` is still to arrive at 1000000.000s (its arrival_s)"),
        "{s}"
    );
}

#[test]
fn a_gap_of_weeks_between_arrivals_is_not_a_stall() {
    // Ten days between two jobs, more than the default stall detection.
    let (c, w) = inputs(
        "[[nodes]]\nmap_slots = 1\nreduce_slots = 1\n",
        "[[jobs]]\nname = \"a\"\nmaps = 1\nmap_time_s = 5\n\n[[jobs]]\nname = \"b\"\narrival_s = 864000\nmaps = 1\nmap_time_s = 5\n",
    );
    let out = simulate(&c, &w, &mut Fifo::new(), &SimOptions::default()).unwrap();
    let r = out.report();
    assert_eq!(r.summary.succeeded, 2);
}

#[test]
fn a_task_that_nodes_fail_too_often_to_finish_is_a_stall_not_a_hang() {
    // Nodes fail every 5 s on average; the map needs 1,000 s. Every attempt
    // is lost and launched again: before, the run never ended.
    let (c, w) = inputs(
        "[[nodes]]\ncount = 4\nmap_slots = 1\nreduce_slots = 1\n[faults]\nnode_mtbf_s = 5\nnode_mttr_s = 1\n",
        "[[jobs]]\nname = \"long\"\nmaps = 1\nmap_time_s = 1000\n",
    );
    let opts = SimOptions {
        stall_after: Time::from_secs(3_600),
        ..Default::default()
    };
    let e = simulate(&c, &w, &mut Fifo::new(), &opts).err().unwrap();
    let s = e.to_string();
    assert!(s.contains("job(s) `long` cannot finish"), "{s}");
    assert!(s.contains("lost to node failures"), "{s}");
    let SimError::Stalled { at, .. } = e else {
        panic!("{e:?}")
    };
    assert!(at < Time::from_secs(3_600 + 2_100), "{at}");
}

#[test]
fn a_reducer_waiting_for_maps_no_slot_can_run_is_a_stall_not_a_hang() {
    // From 5 s on, the cluster's capacity takes every map slot while the
    // reducer of `stuck` waits for its maps: before, the run never ended.
    let (c, w) = inputs(
        "[[nodes]]\ncount = 2\nmap_slots = 1\nreduce_slots = 1\n[[capacity]]\nslots = \"map\"\nkind = \"trace\"\npoints = [[0, 0.0], [5, 1.0]]\n",
        "[[datasets]]\nname = \"d\"\nsize_mb = 1280\nreplication = 1\n[[jobs]]\nname = \"stuck\"\ninput = \"d\"\nreduces = 1\n",
    );
    let opts = SimOptions {
        stall_after: Time::from_secs(3_600),
        ..Default::default()
    };
    let e = simulate(&c, &w, &mut Fifo::new(), &opts).err().unwrap();
    let s = e.to_string();
    assert!(s.contains("job(s) `stuck` cannot finish"), "{s}");
    assert!(
        s.contains("none of the cluster's 2 map slots is free"),
        "{s}"
    );
}

#[test]
fn batch_runs_a_job_without_input_data() {
    // BATCH holds jobs by dataset; one without data is released at once
    // and must be planned then (before, it waited for an unrelated event).
    let (c, w) = inputs(
        "[[nodes]]\ncount = 4\nmap_slots = 2\nreduce_slots = 1\n",
        "[[jobs]]\nname = \"a\"\nmaps = 30\nmap_time_s = 10\n",
    );
    let cfg = mrsched_sched::config::SchedulerConfig::preset("batch").unwrap();
    let mut s = cfg.build(&c).unwrap();
    let out = simulate(&c, &w, s.as_mut(), &SimOptions::default()).unwrap();
    assert_eq!(out.report().summary.succeeded, 1);
}

#[test]
fn mars_refuses_a_job_without_task_times_with_the_reason() {
    // MarS plans with known task times: a job without them used to wait
    // until the run stalled a simulated week later.
    let (c, w) = inputs(
        "[[nodes]]\ncount = 2\nmap_slots = 2\nreduce_slots = 1\n",
        "[[jobs]]\nname = \"timed\"\nmaps = 2\nmap_time_s = 5\n\n[[jobs]]\nname = \"sized\"\nmaps = 3\n",
    );
    let cfg = mrsched_sched::config::SchedulerConfig::preset("mars").unwrap();
    let mut s = cfg.build(&c).unwrap();
    let r = simulate(&c, &w, s.as_mut(), &SimOptions::default())
        .unwrap()
        .report();
    assert_eq!((r.summary.succeeded, r.summary.rejected), (1, 1));
    let sized = r.jobs.iter().find(|j| j.name == "sized").unwrap();
    let why = sized.reason.as_deref().unwrap_or_default();
    assert!(why.contains("3 map(s) and 0 reduce(s)"), "{why}");
    let text = mrsched_metrics::output::summary_text(&r);
    assert!(
        text.contains("rejected") && text.contains("`sized`: mars plans"),
        "{text}"
    );
}
