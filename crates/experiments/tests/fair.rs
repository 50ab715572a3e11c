//! The Fair Scheduler reproductions in quick mode, into a temporary
//! directory, with the results the paper fixes exactly checked.

use mrsched_experiments::{find, ExpContext};
use std::path::PathBuf;

fn ctx(name: &str) -> ExpContext {
    let dir: PathBuf = std::env::temp_dir().join(format!("mrsched-{name}-{}", std::process::id()));
    ExpContext {
        out_dir: dir,
        quick: true,
        seed: 1,
    }
}

fn run(name: &str) -> mrsched_experiments::ExpReport {
    let c = ctx(name);
    let e = find(name).unwrap_or_else(|| panic!("{name} is registered"));
    let r = (e.run)(&c).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(c.out_dir.join(format!("{name}.md")).exists());
    for f in &r.figures {
        assert!(f.exists(), "{}", f.display());
    }
    std::fs::remove_dir_all(&c.out_dir).ok();
    r
}

#[test]
fn fig3_gives_the_papers_shares() {
    let r = run("fair-fig3");
    assert_eq!(
        r.json["shares"],
        serde_json::json!([46.0, 14.0, 25.0, 15.0])
    );
    assert_eq!(r.json["first_wave"], serde_json::json!([46, 14, 25, 15]));
}

#[test]
fn batch_two_jobs_fifo_300_fair_400() {
    let r = run("fair-batch-2jobs");
    let two: Vec<f64> = serde_json::from_value(r.json["two_jobs_s"].clone()).unwrap();
    // Heartbeats are 1 s apart: a few seconds of latency at most.
    assert!((300.0..306.0).contains(&two[0]), "{two:?}");
    assert!((400.0..406.0).contains(&two[1]), "{two:?}");
    assert_eq!(r.json["five_jobs_min"].as_array().unwrap().len(), 3);
}

#[test]
fn sticky_slots_follow_the_curve_and_delay_fixes_them() {
    let r = run("fair-sticky-slots");
    for x in r.json["runs"].as_array().unwrap() {
        let jobs = x["jobs"].as_f64().unwrap();
        let expect = x["expected_node_locality"].as_f64().unwrap();
        let fair = x["fair"]["node_locality"].as_f64().unwrap();
        let delay = x["fair_delay"]["node_locality"].as_f64().unwrap();
        if jobs > 1.0 {
            assert!(
                (fair - expect).abs() < 0.1,
                "{jobs} jobs: {fair} vs {expect}"
            );
        }
        assert!(delay > 0.9, "{jobs} jobs: {delay}");
    }
}

#[test]
fn small_jobs_gain_locality_with_delay() {
    let r = run("fair-small-jobs");
    for x in r.json["sizes"].as_array().unwrap() {
        let before = x["fair"]["node"].as_f64().unwrap();
        let after = x["fair_delay"]["node"].as_f64().unwrap();
        assert!(after > 0.9 && after > before, "{x}");
    }
}

#[test]
fn macro_benchmark_runs() {
    let r = run("fair-macro");
    let loc: Vec<f64> =
        serde_json::from_value(r.json["locality"]["fair_ccs_delay"].clone()).unwrap();
    assert!(loc.iter().all(|l| *l > 0.8), "{loc:?}");
    let gains = r.json["gains"].as_array().unwrap();
    let ccs = gains.iter().find(|g| g["scheduler"] == "fair+ccs").unwrap();
    assert!(ccs["mean_gain_per_bin"][0].as_f64().unwrap() > 1.0);
}

#[test]
fn batch_sim_and_io_biasing_run() {
    let r = run("fair-batch-sim");
    let sd: Vec<Vec<f64>> = serde_json::from_value(r.json["mean_slowdown"].clone()).unwrap();
    assert_eq!(sd.len(), 5);
    let r = run("fair-io-biasing");
    for x in r.json["results"].as_array().unwrap() {
        assert_eq!(x["converged"], true, "{x}");
        assert!(x["scans"].as_u64().unwrap() > 0);
    }
}
