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
