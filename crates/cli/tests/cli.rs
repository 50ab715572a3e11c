//! Integration tests: run the `mrsched` binary on the examples and check
//! its JSON, its errors and its exit codes.

mod common;

use common::{bin, repo, run_ok};
use std::process::Command;

fn run_json(args: &[&str]) -> serde_json::Value {
    let stdout = run_ok(args);
    serde_json::from_slice(&stdout).unwrap_or_else(|e| {
        panic!(
            "not one JSON document ({e}): {}",
            String::from_utf8_lossy(&stdout)
        )
    })
}

#[test]
fn simulate_examples_json_has_the_documented_fields() {
    let v = run_json(&[
        "simulate",
        "-c",
        "examples/cluster.toml",
        "-w",
        "examples/workload.toml",
        "-s",
        "examples/fifo.toml",
        "--format",
        "json",
    ]);
    let s = &v["summary"];
    assert_eq!(s["jobs"], 3);
    for k in ["mean_response_time_s", "makespan_s", "utilization"] {
        assert!(s[k].as_f64().is_some(), "summary.{k}");
    }
    let loc = &s["locality"];
    let sum: f64 = ["node", "rack", "off_rack"]
        .iter()
        .map(|k| loc[k].as_f64().unwrap())
        .sum();
    assert!(
        (sum - 1.0).abs() < 1e-9,
        "locality fractions sum to 1: {sum}"
    );
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 3);
    for j in jobs {
        for k in ["id", "arrival_s", "finish_s", "response_time_s", "admitted"] {
            assert!(!j[k].is_null(), "jobs[].{k} in {j}");
        }
        assert!(j.get("deadline_met").is_some());
        let r = j["response_time_s"].as_f64().unwrap();
        let f = j["finish_s"].as_f64().unwrap();
        let a = j["arrival_s"].as_f64().unwrap();
        assert!((f - a - r).abs() < 1e-6);
    }
    assert_eq!(v["scheduler"], "hadoop-fifo");
}

#[test]
fn same_seed_same_bytes() {
    let args = [
        "simulate",
        "-w",
        "synthetic",
        "-c",
        "tiny",
        "--seed",
        "5",
        "--format",
        "json",
    ];
    let a = bin().args(args).output().unwrap();
    let b = bin().args(args).output().unwrap();
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
    let c = bin()
        .args([
            "simulate",
            "-w",
            "synthetic",
            "-c",
            "tiny",
            "--seed",
            "6",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_ne!(a.stdout, c.stdout, "another seed gives another run");
}

#[test]
fn compare_prints_one_json_document_with_every_run() {
    let v = run_json(&[
        "compare",
        "-w",
        "swim-fb2009-sample",
        "-c",
        "ec2-100",
        "-s",
        "fifo,examples/fifo.toml",
        "-f",
        "json",
    ]);
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0]["scheduler"], "fifo");
    assert_eq!(runs[1]["scheduler"], "hadoop-fifo");
    assert_eq!(
        runs[0]["summary"], runs[1]["summary"],
        "same policy, same results"
    );
}

/// Under `--format json` each run's report is freed once rendered, except
/// when the figures or the page still need it.
#[test]
fn compare_as_json_with_figures_and_a_page_has_every_run_in_each() {
    let dir = tempfile::tempdir().unwrap();
    let (figs, page) = (dir.path().join("figs"), dir.path().join("r.html"));
    let args = [
        "compare",
        "-w",
        "swim-fb2009-sample",
        "-c",
        "tiny",
        "-s",
        "fifo,fair",
        "-f",
        "json",
    ];
    let alone = run_ok(&args);
    let mut with: Vec<&std::ffi::OsStr> = args.map(std::ffi::OsStr::new).to_vec();
    with.extend([std::ffi::OsStr::new("--plots"), figs.as_os_str()]);
    with.extend([std::ffi::OsStr::new("--html"), page.as_os_str()]);
    assert_eq!(run_ok(&with), alone, "the same document either way");
    let v: serde_json::Value = serde_json::from_slice(&alone).unwrap();
    assert_eq!(v["runs"].as_array().unwrap().len(), 2);
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(html.matches("<tr>").count(), 3, "header and two runs");
    let cdf = std::fs::read_to_string(figs.join("response-cdf.svg")).unwrap();
    assert!(
        cdf.contains("fifo") && cdf.contains("fair"),
        "both runs drawn"
    );
}

#[test]
fn compare_and_reproduce_give_the_same_output_on_any_number_of_threads() {
    // Four runs on one thread, on three, and one per core: the same bytes.
    let compare = |threads: &[&str]| {
        let mut args = vec![
            "compare",
            "-w",
            "fb-bm",
            "-c",
            "ec2-100",
            "-s",
            "fifo,fair,fair+delay,fifo+ccs",
            "-f",
            "json",
        ];
        args.extend_from_slice(threads);
        run_ok(&args)
    };
    let one = compare(&["-j", "1"]);
    assert!(!one.is_empty());
    assert_eq!(one, compare(&["-j", "3"]), "compare -j 1 and -j 3");
    assert_eq!(one, compare(&[]), "compare -j 1 and one thread per core");
    // An experiment whose runs go to every core (six of them here).
    let base = std::env::temp_dir().join(format!("mrsched-threads-{}", std::process::id()));
    let report = |j: &str| {
        let dir = base.join(j);
        let mut args: Vec<&std::ffi::OsStr> =
            ["reproduce", "fair-small-jobs", "--quick", "-j", j, "--out"]
                .map(std::ffi::OsStr::new)
                .to_vec();
        args.push(dir.as_os_str());
        run_ok(&args);
        ["fair-small-jobs.md", "fair-small-jobs.svg"].map(|f| std::fs::read(dir.join(f)).unwrap())
    };
    assert_eq!(report("1"), report("4"), "reproduce -j 1 and -j 4");
    let _ = std::fs::remove_dir_all(&base);
    // No threads at all is refused before anything runs.
    for cmd in [
        &["compare", "-j", "0"][..],
        &["reproduce", "fair-fig3", "-j", "0"],
    ] {
        let out = bin().args(cmd).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{cmd:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--threads") && err.contains('0'), "{err}");
    }
}

#[test]
fn csv_and_table_outputs() {
    let out = bin()
        .args(["simulate", "-w", "fb-bm", "-f", "csv"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("id,name,user,pool,status"));
    assert_eq!(lines.len(), 51, "header + 50 jobs");
    let out = bin()
        .args(["compare", "-w", "fb-bm", "-s", "fifo"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("mean_resp_s") && text.contains("fifo"),
        "{text}"
    );
}

#[test]
fn plots_are_written() {
    let dir = std::env::temp_dir().join(format!("mrsched-plots-{}", std::process::id()));
    let out = bin()
        .args([
            "compare",
            "-w",
            "swim-fb2009-sample",
            "-s",
            "fifo",
            "--plots",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for f in ["response-cdf.svg", "utilization.svg", "intermediate.svg"] {
        let svg = std::fs::read_to_string(dir.join(f)).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("fifo"), "{f}");
    }
    let p = dir.join("one.svg");
    let out = bin()
        .args(["simulate", "-w", "swim-fb2009-sample", "--plot"])
        .arg(&p)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(std::fs::read_to_string(&p).unwrap().starts_with("<svg"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_input_is_a_located_error_with_exit_code_2() {
    let dir = std::env::temp_dir().join(format!("mrsched-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let w = dir.join("w.toml");
    std::fs::write(&w, "[[jobs]]\narrival_s = 1\nmaps = 2\ndeadline_s = -4\n").unwrap();
    let out = bin().args(["simulate", "-w"]).arg(&w).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("w.toml:4: jobs[0].deadline_s"), "{err}");
    assert!(out.stdout.is_empty());

    let c = dir.join("c.toml");
    std::fs::write(&c, "[[nodes]]\ncount = 2\nmap_slots = 1\n").unwrap();
    let w2 = dir.join("w2.toml");
    std::fs::write(
        &w2,
        "[[datasets]]\nname = \"d\"\nsize_mb = 10\n[[jobs]]\ninput = \"d\"\n",
    )
    .unwrap();
    let out = bin()
        .args(["simulate", "-c"])
        .arg(&c)
        .arg("-w")
        .arg(&w2)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("asks for 3 replicas but the cluster"));

    let out = bin().args(["simulate", "-s", "nonsense"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a scheduler preset or a file"));

    let t = dir.join("t.tsv");
    std::fs::write(&t, "job0\t1\t1\t100\t0\n").unwrap();
    let out = bin().args(["validate"]).arg(&t).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("t.tsv:1: expected at least 6 tab-separated columns"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn validate_and_generate_round_trip() {
    let dir = std::env::temp_dir().join(format!("mrsched-gen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["bm.toml", "bm.json"] {
        let p = dir.join(name);
        let out = bin()
            .args(["generate", "fb-bm", "--seed", "3", "-o"])
            .arg(&p)
            .output()
            .unwrap();
        assert!(out.status.success());
        let out = bin().arg("validate").arg(&p).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("50 jobs"));
    }
    // The generated file replays to the same results as the built-in.
    let a = run_json(&["simulate", "-w", "fb-bm", "--seed", "3", "-f", "json"]);
    let b = run_json(&[
        "simulate",
        "-w",
        dir.join("bm.toml").to_str().unwrap(),
        "--seed",
        "3",
        "-f",
        "json",
    ]);
    assert_eq!(a["summary"], b["summary"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn list_and_reproduce() {
    let v = run_json(&["list", "-f", "json"]);
    for k in ["clusters", "workloads", "schedulers", "experiments"] {
        assert!(!v[k].as_array().unwrap().is_empty(), "{k}");
    }
    let dir = std::env::temp_dir().join(format!("mrsched-repro-{}", std::process::id()));
    let out = bin()
        .args([
            "reproduce",
            "fifo-locality-by-size",
            "--quick",
            "-f",
            "json",
            "--out",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["name"], "fifo-locality-by-size");
    assert!(dir.join("fifo-locality-by-size.md").exists());
    assert!(dir.join("fifo-locality-by-size.svg").exists());
    let out = bin().args(["reproduce", "no-such"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    // Several names: every one is checked before any runs.
    let dir2 = dir.join("several");
    let out = bin()
        .args(["reproduce", "fair-fig3", "no-such", "--quick", "--out"])
        .arg(&dir2)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such"));
    assert!(!dir2.join("fair-fig3.md").exists(), "nothing ran");
    let out = bin()
        .args([
            "reproduce",
            "fair-fig3",
            "fair-batch-2jobs",
            "--quick",
            "-f",
            "json",
            "--out",
        ])
        .arg(&dir2)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["name"], "fair-fig3");
    assert_eq!(v[1]["name"], "fair-batch-2jobs");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn timing_and_slowdown_are_reported_when_asked() {
    let v = run_json(&[
        "simulate",
        "-w",
        "swim-fb2009-sample",
        "-c",
        "tiny",
        "-f",
        "json",
    ]);
    assert!(
        v["summary"].get("decision_time").is_none(),
        "no wall-clock numbers by default"
    );
    assert!(v["summary"]["mean_slowdown"].is_null());
    let v = run_json(&[
        "simulate",
        "-w",
        "swim-fb2009-sample",
        "-c",
        "tiny",
        "-f",
        "json",
        "--timing",
        "--slowdown",
    ]);
    let d = &v["summary"]["decision_time"];
    assert!(d["calls"].as_u64().unwrap() > 0);
    assert!(d["p99_us"].as_f64().unwrap() >= d["p50_us"].as_f64().unwrap());
    // Alone, a job is about as fast or faster; heartbeat phases differ
    // between the runs, so a job may be a little faster in company.
    let s = v["summary"]["mean_slowdown"].as_f64().unwrap();
    assert!(s >= 0.95, "mean slowdown {s}");
    for j in v["jobs"].as_array().unwrap() {
        assert!(j["slowdown"].as_f64().unwrap() > 0.5, "{j}");
    }
}

/// The simulate progress line under a pseudo-terminal (`script` from
/// util-linux): shown on a terminal, never under `--format json`, never
/// when stderr is a pipe.
#[test]
fn simulate_progress_line_only_on_a_terminal_and_not_for_json() {
    let exe = env!("CARGO_BIN_EXE_mrsched");
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: `script` (util-linux) is not installed, no pseudo-terminal");
        return;
    }
    let under_pty = |extra: &str| {
        let cmd = format!("{exe} simulate -c ec2-100 -w fb-bm -s fifo{extra}");
        let out = Command::new("script")
            .args(["-qfec", &cmd, "/dev/null"])
            .env("MRSCHED_PROGRESS_AFTER_MS", "0")
            .env("COLUMNS", "120")
            .current_dir(repo())
            .output()
            .expect("script runs");
        assert!(out.status.success(), "{cmd}: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let table = under_pty("");
    assert!(
        table.contains("/50 jobs") && table.contains("M events/s") && table.contains("sim 00:"),
        "no progress line on a terminal: {table}"
    );
    assert!(table.contains("fifo on ec2-100 / fb-bm"), "{table}");
    let json = under_pty(" --format json");
    assert!(
        !json.contains("events/s"),
        "progress under --format json: {json}"
    );
    let piped = bin()
        .args(["simulate", "-c", "ec2-100", "-w", "fb-bm", "-s", "fifo"])
        .env("MRSCHED_PROGRESS_AFTER_MS", "0")
        .current_dir(repo())
        .output()
        .expect("runs");
    assert!(!String::from_utf8_lossy(&piped.stderr).contains("events/s"));
}

/// A run whose tasks keep running while no job ends for a simulated day
/// says so once on stderr, even piped and under `--format json`, and its
/// output is unchanged. Here it is a job whose one map runs 27 hours; every
/// heartbeat counts under `heartbeat_gaps`, so the run takes enough events
/// for progress reports during the quiet day.
#[test]
fn a_day_without_a_job_ending_is_warned_of_once() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = dir.path().join("c.toml");
    std::fs::write(
        &cluster,
        "name = \"c\"\nheartbeat_interval_s = 3\n[[nodes]]\ncount = 20\nmap_slots = 1\nreduce_slots = 1\n",
    )
    .unwrap();
    let workload = dir.path().join("w.toml");
    std::fs::write(
        &workload,
        "name = \"w\"\n[[jobs]]\nname = \"quick\"\narrival_s = 0\nmaps = 1\nmap_time_s = 10\n\
         [[jobs]]\nname = \"long\"\narrival_s = 0\nmaps = 1\nmap_time_s = 97200\n",
    )
    .unwrap();
    let run = |s: &str, workload: &std::path::Path| {
        let out = bin()
            .args(["simulate", "-f", "json", "-s", s, "-c"])
            .arg(&cluster)
            .arg("-w")
            .arg(workload)
            .output()
            .expect("runs");
        assert!(out.status.success(), "{out:?}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
        assert_eq!(v["summary"]["succeeded"], 2);
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let err = run("fair+hfs-delay", &workload);
    let warned: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("no job has ended"))
        .collect();
    assert_eq!(warned.len(), 1, "{err}");
    // Progress reports come every 100,000 events: a few simulated hours
    // apart here.
    let w = warned[0];
    assert!(
        w.starts_with("warning: fair+hfs-delay: no job has ended for 2"),
        "{err}"
    );
    assert!(w.contains(" simulated hours (since 00:00:1"), "{err}");
    assert!(
        w.contains("1 of 2 jobs still to end, 1 task running)"),
        "{err}"
    );
    // A day with no job open is not a day without a job ending: the long
    // job arriving at 100,000 s starts the count.
    let later = dir.path().join("later.toml");
    std::fs::write(
        &later,
        std::fs::read_to_string(&workload).unwrap().replace(
            "name = \"long\"\narrival_s = 0",
            "name = \"long\"\narrival_s = 100000",
        ),
    )
    .unwrap();
    let err = run("fair+hfs-delay", &later);
    assert!(
        err.contains("simulated hours (since 1d 03:46:40; 1 of 2"),
        "{err}"
    );
}

/// Every file under `examples/` is valid as it stands.
#[test]
fn every_example_file_validates() {
    let mut checked = 0;
    for entry in std::fs::read_dir(repo().join("examples")).expect("examples/") {
        let p = entry.expect("entry").path();
        if !matches!(
            p.extension().and_then(|e| e.to_str()),
            Some("toml" | "json")
        ) {
            continue;
        }
        let out = bin().arg("validate").arg(&p).output().expect("runs");
        assert!(
            out.status.success(),
            "{}: {}",
            p.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        checked += 1;
    }
    assert!(checked >= 7, "only {checked} example files");
}

/// `compare --html`: one page with the table row of every run and the
/// three figures inline, nothing fetched from elsewhere; a page that could
/// not be written is refused before the runs.
#[test]
fn compare_writes_a_self_contained_html_report() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    let out = bin()
        .args([
            "compare",
            "-w",
            "swim-fb2009-sample",
            "-c",
            "tiny",
            "-s",
            "fifo,examples/fifo.toml",
            "--html",
        ])
        .arg(&page)
        .current_dir(repo())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("report: {}", page.display())),
        "{stdout}"
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("<title>mrsched compare: swim-fb2009-sample on tiny</title>"));
    assert!(html.contains("<td>fifo</td><td>fifo</td>"), "row of fifo");
    assert!(
        html.contains("<td>examples/fifo.toml</td><td>hadoop-fifo</td>"),
        "row of the file, with its scheduler's name"
    );
    assert_eq!(html.matches("<tbody>").count(), 1);
    assert_eq!(html.matches("<tr>").count(), 3, "header and two runs");
    assert_eq!(html.matches("<svg").count(), 3);
    assert!(html.contains("Response time CDF") && html.contains("Intermediate data"));
    assert!(html.contains("--html"), "the command line is shown");
    let outside = html
        .replace("http://www.w3.org/2000/svg", "")
        .replace("http://www.w3.org/1999/xlink", "");
    assert!(!outside.contains("http://") && !outside.contains("https://"));
    assert!(!outside.contains("<script") && !outside.contains("<link"));

    let out = bin()
        .args([
            "compare",
            "-w",
            "swim-fb2009-sample",
            "-s",
            "fifo",
            "--html",
        ])
        .arg(dir.path().join("no-such-dir/report.html"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--html") && err.contains("no-such-dir"),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "no runs were made");
}
