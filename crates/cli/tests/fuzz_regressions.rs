//! Every input stored under `fuzz/regressions/<target>/` (failures the
//! fuzzers found, and the hand-made cases they were built from) runs through
//! its fuzz target again: it must end quickly, without a panic.

#[allow(dead_code)]
#[path = "../../../fuzz/src/targets.rs"]
mod targets;

use std::path::PathBuf;
use std::time::{Duration, Instant};

fn regressions() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions")
}

#[test]
fn stored_fuzz_inputs_end_quickly_without_panicking() {
    let mut ran = 0;
    for target in targets::TARGETS {
        let Ok(rd) = std::fs::read_dir(regressions().join(target)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        files.sort();
        for f in files {
            let data = std::fs::read(&f).unwrap();
            let t = Instant::now();
            let out = targets::run(target, &data);
            assert!(
                t.elapsed() < Duration::from_secs(10),
                "{}: took {:?} ({out})",
                f.display(),
                t.elapsed()
            );
            ran += 1;
        }
    }
    // The cases of the original report are stored; none was lost.
    assert!(ran >= 9, "only {ran} stored inputs");
}

#[test]
fn every_target_has_seeds_and_accepts_them() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    for target in targets::TARGETS {
        let seeds = targets::seeds(target, &root);
        assert!(!seeds.is_empty(), "no seeds for {target}");
        // At least one seed is accepted: mutations start from valid files.
        let ok = seeds
            .iter()
            .any(|s| targets::run(target, s).lines().any(|l| l.starts_with("ok")));
        assert!(ok, "no seed of {target} is accepted");
    }
}
