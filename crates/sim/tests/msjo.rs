//! MSJO plans inside the simulator: every algorithm finishes every job,
//! never beats the LP lower bound, and offline MarS runs as planned.

use mrsched_sched::policies::msjo::planner::Algorithm;
use mrsched_sched::policies::msjo::{lower_bound, Msjo, MsjoOptions};
use mrsched_sim::{simulate, SimOptions};
use mrsched_workload::catalog;
use mrsched_workload::msjo::{msjo, MsjoParams};

#[test]
fn every_algorithm_runs_its_plan_above_the_bound() {
    let c = catalog::cluster("unified-50").unwrap();
    let w = msjo(
        4,
        &MsjoParams {
            jobs: 4,
            task_weights: true,
            ..Default::default()
        },
    );
    let lb = lower_bound(&w, &c).unwrap().unwrap().objective;
    for a in Algorithm::ALL {
        // Semi-online for two of them (each SO run re-plans several times).
        let modes: &[Option<f64>] = if matches!(a, Algorithm::Mars | Algorithm::Hjwf) {
            &[None, Some(20.0)]
        } else {
            &[None]
        };
        for &batch in modes {
            let mut o = MsjoOptions::new(a);
            o.batch_interval_s = batch;
            let mut s = Msjo::new(&c, o);
            let out = simulate(&c, &w, &mut s, &SimOptions::default()).unwrap();
            let r = out.report();
            assert_eq!(r.summary.succeeded, 4, "{a:?} {batch:?}");
            let twjct = r.summary.total_weighted_completion_s;
            assert!(twjct >= lb * (1.0 - 1e-9), "{a:?}: {twjct} < bound {lb}");
            if batch.is_none() && a != Algorithm::TMars {
                // Offline plans are followed as planned, up to heartbeat
                // waits (0.1 s per start at most).
                let planned = out.info.scheduler_stats["plan_twjct_s"];
                assert!(
                    (twjct - planned).abs() <= 0.03 * planned,
                    "{a:?}: simulated {twjct} planned {planned}"
                );
            }
        }
    }
}

#[test]
fn prediction_error_still_finishes() {
    let c = catalog::cluster("unified-50").unwrap();
    let w = msjo(
        5,
        &MsjoParams {
            jobs: 5,
            ..Default::default()
        },
    );
    let mut o = MsjoOptions::new(Algorithm::Mars);
    o.prediction_error = 1.0;
    let mut s = Msjo::new(&c, o);
    let r = simulate(&c, &w, &mut s, &SimOptions::default())
        .unwrap()
        .report();
    assert_eq!(r.summary.succeeded, 5);
}

#[test]
fn work_conserving_follower_finishes_every_job_once_above_the_bound() {
    use mrsched_sched::policies::msjo::FollowerOpt;
    let c = catalog::cluster("unified-50").unwrap();
    for seed in 1..=3 {
        let w = msjo(
            seed,
            &MsjoParams {
                jobs: 8,
                ..Default::default()
            },
        );
        let lb = lower_bound(&w, &c).unwrap().unwrap().objective;
        let mut idle = Vec::new();
        for follower in [FollowerOpt::Planned, FollowerOpt::WorkConserving] {
            let mut o = MsjoOptions::new(Algorithm::Mars);
            o.prediction_error = 1.0;
            o.seed = seed;
            o.follower = follower;
            let mut s = Msjo::new(&c, o);
            let out = simulate(&c, &w, &mut s, &SimOptions::default()).unwrap();
            let r = out.report();
            assert_eq!(r.summary.succeeded, 8, "{follower:?} seed {seed}");
            for j in &r.jobs {
                assert_eq!(j.status, mrsched_state::JobStatus::Succeeded);
            }
            let twjct = r.summary.total_weighted_completion_s;
            assert!(twjct >= lb * (1.0 - 1e-9), "{follower:?}: {twjct} < {lb}");
            idle.push(r.summary.makespan_s);
        }
        // Never idle while a planned task could run: with wrong planning
        // times the last task ends no later than when nodes wait for their
        // planned successors (makespans within one task length of noise).
        assert!(
            idle[1] <= idle[0] * 1.05,
            "seed {seed}: work-conserving makespan {} vs planned {}",
            idle[1],
            idle[0]
        );
    }
}
