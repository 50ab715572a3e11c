//! `mrsched reproduce mars-live --quick`: seed 001 §6 on a local live
//! cluster of real `mrsched` processes (training pass, job sets, MarS and
//! baselines), and `mrsched submit-set`'s argument checks.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_mrsched");

#[test]
fn the_quick_live_reproduction_runs_and_reports_measured_ratios() {
    let out = tempfile::tempdir().unwrap();
    let o = Command::new(BIN)
        .args(["reproduce", "mars-live", "--quick", "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = std::fs::read_to_string(out.path().join("mars-live.md")).unwrap();
    assert!(
        md.contains("A quick run") && md.contains("<!-- wall clock -->"),
        "{md}"
    );
    // Every measured ratio is a positive number (real timings over the LP
    // bound of the trained times).
    let mut ratios = Vec::new();
    for line in md.lines() {
        for label in ["| MarS |", "| MARES |", "| T-MarS |"] {
            if let Some(rest) = line.strip_prefix(label) {
                for cell in rest.split('|').map(str::trim).filter(|c| !c.is_empty()) {
                    ratios.push(
                        cell.parse::<f64>()
                            .unwrap_or_else(|e| panic!("{line}: {e}")),
                    );
                }
            }
        }
    }
    assert_eq!(ratios.len(), 6, "{md}");
    assert!(
        ratios.iter().all(|r| r.is_finite() && *r > 0.0),
        "{ratios:?}"
    );
    assert!(md.contains("is lowest"), "{md}");
    for f in [
        "mars-live-fig18.svg",
        "mars-live-fig19.svg",
        "mars-live-fig20.svg",
    ] {
        let svg = std::fs::read_to_string(out.path().join(f)).unwrap();
        assert!(svg.contains("<svg"), "{f}");
    }
}

#[test]
fn submit_set_checks_its_release_times_before_connecting() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("a.toml");
    std::fs::write(
        &job,
        "input = \"in\"\noutput = \"out\"\n[program]\nkind = \"wordcount\"\n",
    )
    .unwrap();
    let run = |args: &[&str]| {
        Command::new(BIN)
            .arg("submit-set")
            .arg(&job)
            .args(args)
            .env("MRSCHED_MASTER", "http://127.0.0.1:9")
            .env("MRSCHED_TOKEN", "nobody-token-0123456789")
            .output()
            .unwrap()
    };
    let o = run(&["--release-s", "0,1"]);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("--release-s gives 2 time(s) for 1 file(s)"),
        "{e}"
    );
    let o = run(&["--release-s=-1"]);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("must be zero or more seconds, got -1"), "{e}");
}
