use mrsched_sched::policies::fifo::Fifo;
use mrsched_sim::{simulate, SimOptions};
use mrsched_workload::catalog;

#[test]
fn fb_bm_under_fifo_finishes() {
    let c = catalog::cluster("ec2-100").unwrap();
    let w = catalog::workload("fb-bm", 1, &Default::default()).unwrap();
    let mut s = Fifo::new();
    let t0 = std::time::Instant::now();
    let o = simulate(&c, &w, &mut s, &SimOptions::default()).unwrap();
    let r = o.report();
    eprintln!("{}", mrsched_metrics::output::summary_text(&r));
    eprintln!(
        "events {} task events {} in {:?}",
        o.info.events,
        o.task_events,
        t0.elapsed()
    );
    assert_eq!(r.summary.succeeded, 50);
}

/// Releasing ended jobs' task records changes nothing a report shows, even
/// with nodes failing after jobs ended (their outputs' entries point at
/// released records), and leaves only the totals behind.
#[test]
fn released_task_records_give_the_same_report() {
    let mut c = catalog::cluster("ec2-100").unwrap();
    c.faults.task_failure_prob = 0.02;
    c.faults.mtbf = Some(mrsched_model::Time::from_secs(3_000));
    c.faults.mttr = mrsched_model::Time::from_secs(300);
    let w = catalog::workload("fb-bm", 1, &Default::default()).unwrap();
    let run = |release: bool| {
        let opts = SimOptions {
            release_ended_jobs: release,
            ..SimOptions::default()
        };
        simulate(&c, &w, &mut Fifo::new(), &opts).unwrap()
    };
    let (kept, released) = (run(false), run(true));
    let json = |o: &mrsched_sim::SimOutput| serde_json::to_string(&o.report()).unwrap();
    assert_eq!(json(&kept), json(&released));
    let lost: u32 = kept.state.jobs().iter().map(|j| j.failed_attempts).sum();
    assert!(lost > 0, "the faults must hit some attempts");
    for (k, r) in kept.state.jobs().iter().zip(released.state.jobs()) {
        assert!(r.maps.is_empty() && r.reduces.is_empty());
        assert_eq!(r.released, Some(k.task_totals()));
        assert_eq!(r.task_totals().maps as usize, k.maps.len());
    }
}
