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
