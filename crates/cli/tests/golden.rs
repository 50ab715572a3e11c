//! Byte-identical guard: the simulator's output for a fixed set of
//! clusters, workloads and presets must not change when the engine is made
//! faster or leaner. Each case runs `mrsched simulate --format json` and
//! compares a digest of the whole output (every job record, the timeline,
//! the summary) and the summary itself with `tests/golden/<case>.txt`. The
//! LP lower bound of explicit-time runs depends on the LP solver build and
//! is left out.
//!
//! A change that is meant to alter results (a policy fix, a new cost
//! model) regenerates the files with `MRSCHED_BLESS=1 cargo test -p
//! mrsched-cli --test golden` and says why in its commit; an optimisation
//! must leave them alone.

mod common;

use common::{repo, run_ok};

/// FNV-1a, 64 bits: stable across platforms and Rust versions.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ *b as u64).wrapping_mul(0x0000_0100_0000_01B3)
    })
}

fn check(case: &str, cluster: &str, workload: &str, scheduler: &str) {
    let args = [
        "simulate", "-c", cluster, "-w", workload, "-s", scheduler, "--format", "json",
    ];
    let stdout = run_ok(&args);
    let v: serde_json::Value = serde_json::from_slice(&stdout).expect("one JSON document");
    // The LP lower bound printed beside explicit-time runs comes from the
    // LP solver the binary was built with (microlp or HiGHS), not from the
    // simulator: its lines are left out of the digest.
    let text = String::from_utf8(stdout).expect("UTF-8");
    let digested: String = text
        .split_inclusive('\n')
        .filter(|l| {
            !l.contains("\"lp_lower_bound_s\":") && !l.contains("\"twjct_over_lower_bound\":")
        })
        .collect();
    let digested = digested.as_bytes();
    let got = format!(
        "mrsched {}\ndigested bytes: {}\nfnv1a-64: {:016x}\nsummary: {}\n",
        args.join(" "),
        digested.len(),
        fnv1a(digested),
        serde_json::to_string_pretty(&v["summary"]).expect("serialises"),
    );
    let path = repo().join(format!("crates/cli/tests/golden/{case}.txt"));
    if std::env::var_os("MRSCHED_BLESS").is_some() {
        std::fs::write(&path, &got).expect("writes the golden file");
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (record it with MRSCHED_BLESS=1 cargo test -p mrsched-cli --test golden)",
            path.display()
        )
    });
    assert!(
        got == want,
        "simulator output changed for `{case}`\n--- expected ({})\n{want}\n--- got\n{got}",
        path.display()
    );
}

macro_rules! golden {
    ($($name:ident: $cluster:expr, $workload:expr, $sched:expr;)*) => {$(
        #[test]
        fn $name() {
            check(stringify!($name), $cluster, $workload, $sched);
        }
    )*};
}

const FAULTY: &str = "crates/cli/tests/golden/faulty.toml";

golden! {
    fb_bm_fifo: "ec2-100", "fb-bm", "fifo";
    fb_bm_fifo_ccs: "ec2-100", "fb-bm", "fifo+ccs";
    fb_bm_fair: "ec2-100", "fb-bm", "fair";
    fb_bm_fair_ccs_delay: "ec2-100", "fb-bm", "fair+ccs+delay";
    fb_bm_fair_preemption: "ec2-100", "fb-bm", "fair+preemption";
    faulty_fifo: FAULTY, "fb-bm", "fifo";
    faulty_fair_ccs_delay: FAULTY, "fb-bm", "fair+ccs+delay";
    faulty_fair_hfs_delay: FAULTY, "synthetic", "fair+hfs-delay";
    example_synthetic_fair_delay: "examples/cluster.toml", "synthetic", "fair+delay";
    swim_fifo: "fb-600", "swim-fb2009-sample", "fifo";
    swim_fair_delay: "fb-600", "swim-fb2009-sample", "fair+delay";
    bins_fair_skip_delay: "fb-600", "fb2009-bins", "fair+skip-delay";
    bins_fair_iobias: "fb-600", "fb2009-bins", "fair+iobias";
    scans_circumflex: "scan-100", "shared-scans", "circumflex";
    scans_batch: "scan-100", "shared-scans", "batch";
    scans_flex: "scan-100", "shared-scans", "flex";
    msjo_uniform_stf: "unified-50", "msjo-uniform", "stf";
    goals_adaptive: "shared-100-day", "goal-mix", "adaptive";
    goals_reverse_adaptive: "shared-100-day", "goal-mix", "reverse-adaptive";
    rtmr_2_rtmr: "rtmr-30", "rtmr-workload-2", "rtmr";
    rtmr_2_deadline_constraint: "rtmr-30", "rtmr-workload-2", "deadline-constraint";
    mr1_flat_file: "ec2-100", "fb-bm", "crates/cli/tests/golden/mr1_flat.toml";
}
