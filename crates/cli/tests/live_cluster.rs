//! Real local clusters: a master and worker processes of the built
//! `mrsched` binary on loopback, with short heartbeats and timeouts. Jobs
//! are compared with a sequential run; workers are killed with SIGKILL and
//! the master is restarted mid-job; bad input must give clear errors.

mod common;

use common::cluster::*;
use mrsched_runtime::client::Client;
use mrsched_runtime::program::{sequential, Program};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn wordcount_and_streaming_match_a_sequential_run() {
    let live = Live::start(3, &[]);
    let text = corpus(4000, 7);
    let input = live.write("corpus.txt", &text);
    let out = ok(&live.cli(
        ALICE,
        &[
            "dfs",
            "put",
            input.to_str().unwrap(),
            "corpus",
            "--block-size",
            "16K",
            "--replication",
            "2",
        ],
    ));
    assert!(out.contains("blocks"), "{out}");
    let wc = live.write(
        "wc.toml",
        &job("corpus", "counts", 3, "kind = \"wordcount\""),
    );
    ok(&live.cli(ALICE, &["submit", wc.to_str().unwrap(), "--wait"]));
    let got = ok(&live.cli(ALICE, &["dfs", "cat", "counts"]));
    // An independent count, and the sequential reference byte for byte.
    let mut want: BTreeMap<&str, u64> = BTreeMap::new();
    for w in text.split_whitespace() {
        *want.entry(w).or_default() += 1;
    }
    let mut lines: Vec<&str> = got.lines().collect();
    lines.sort();
    let mut expect: Vec<String> = want.iter().map(|(w, c)| format!("{w}\t{c}")).collect();
    expect.sort();
    assert_eq!(lines, expect);
    let reference = sequential(&Program::Wordcount, text.as_bytes(), 3)
        .unwrap()
        .concat();
    assert_eq!(got.as_bytes(), reference);

    // Streaming: any commands as mapper and reducer.
    let mapper = "tr -s ' ' '\\n' | grep -v '^$' | awk '{print length($0) \"\\t\" $0}'";
    let reducer = "awk -F '\\t' '{n[$1]++} END {for (k in n) print k \"\\t\" n[k]}' | sort";
    let prog = format!(
        "kind = \"streaming\"\nmapper = \"{}\"\nreducer = \"{}\"",
        mapper.replace('\\', "\\\\").replace('"', "\\\""),
        reducer.replace('\\', "\\\\").replace('"', "\\\"")
    );
    let st = live.write("st.toml", &job("corpus", "lengths", 2, &prog));
    ok(&live.cli(ALICE, &["submit", st.to_str().unwrap(), "--wait"]));
    let got = ok(&live.cli(ALICE, &["dfs", "cat", "lengths"]));
    let p = Program::Streaming {
        mapper: mapper.into(),
        reducer: reducer.into(),
    };
    let reference = sequential(&p, text.as_bytes(), 2).unwrap().concat();
    assert_eq!(got.as_bytes(), reference);
    assert!(got.lines().count() > 3);

    // Listings, JSON output and the metrics report.
    let jobs: serde_json::Value =
        serde_json::from_str(&ok(&live.cli(ALICE, &["jobs", "--format", "json"]))).unwrap();
    assert_eq!(jobs.as_array().unwrap().len(), 2);
    assert!(jobs[0]["locality"].is_array());
    let report: serde_json::Value =
        serde_json::from_str(&ok(&live.cli(ALICE, &["metrics", "-f", "json"]))).unwrap();
    assert_eq!(report["summary"]["jobs"].as_u64(), Some(2));
    let ls = ok(&live.cli(ALICE, &["dfs", "ls"]));
    assert!(ls.contains("counts") && ls.contains("corpus"), "{ls}");
}

/// A job slow enough to be interrupted: every map sleeps before it runs.
fn slow_job(input: &str, output: &str) -> (String, Program) {
    let mapper = "sleep 0.3; awk '{print $1 \"\\t\" NF}'";
    let reducer = "awk -F '\\t' '{s[$1]+=$2} END {for (k in s) print k \"\\t\" s[k]}' | sort";
    let prog = format!(
        "kind = \"streaming\"\nmapper = \"{}\"\nreducer = \"{}\"",
        mapper.replace('\\', "\\\\").replace('"', "\\\""),
        reducer.replace('\\', "\\\\").replace('"', "\\\"")
    );
    (
        job(input, output, 2, &prog),
        Program::Streaming {
            mapper: mapper.into(),
            reducer: reducer.into(),
        },
    )
}

#[test]
fn a_worker_killed_mid_job_does_not_change_the_output() {
    let mut live = Live::start(3, &[]);
    let text = corpus(3000, 7);
    let c = live.client(ALICE);
    let r = rt();
    r.block_on(c.put(&mut text.as_bytes(), "in", 4 * 1024, 2))
        .unwrap();
    let (jt, prog) = slow_job("in", "out");
    let s = r.block_on(c.submit("slow.toml", &jt, false)).unwrap();
    wait_for("some maps to finish", || {
        r.block_on(c.job(s.id)).unwrap().maps_done >= 3
    });
    // SIGKILL: no goodbye; the master must notice the silence.
    let mut w = live.workers[0].take().unwrap();
    w.kill().unwrap();
    w.wait().unwrap();
    let j = r.block_on(c.wait(s.id, WAIT)).unwrap();
    assert_eq!(j.status, "succeeded", "{j:?}");
    assert!(j.maps_done == j.maps);
    let got = r.block_on(c.read("out")).unwrap();
    assert_eq!(got, sequential(&prog, text.as_bytes(), 2).unwrap().concat());
    let report = r.block_on(c.report()).unwrap();
    assert!(
        report.jobs[0].attempts > j.maps + j.reduces,
        "lost work was re-run: {} attempts",
        report.jobs[0].attempts
    );
}

#[test]
fn a_master_restarted_mid_job_resumes_and_loses_nothing() {
    let mut live = Live::start(2, &[]);
    let text = corpus(2500, 7);
    let c = live.client(ALICE);
    let r = rt();
    r.block_on(c.put(&mut text.as_bytes(), "in", 4 * 1024, 2))
        .unwrap();
    let (jt, prog) = slow_job("in", "out");
    let s = r.block_on(c.submit("slow.toml", &jt, false)).unwrap();
    let queued = r
        .block_on(c.submit(
            "second.toml",
            &job("in", "counts", 1, "kind = \"wordcount\""),
            false,
        ))
        .unwrap();
    wait_for("some maps to finish", || {
        r.block_on(c.job(s.id)).unwrap().maps_done >= 2
    });
    let port = live.url.rsplit(':').next().unwrap().to_string();
    let mut m = live.master.take().unwrap();
    m.kill().unwrap();
    m.wait().unwrap();
    live.start_master(&format!("127.0.0.1:{port}"), 2);
    let c = live.client(ALICE);
    // Both submitted jobs are still there, with their ids.
    let jobs = r.block_on(c.jobs()).unwrap();
    assert_eq!(jobs.len(), 2);
    let j = r.block_on(c.wait(s.id, WAIT)).unwrap();
    assert_eq!(j.status, "succeeded", "{j:?}");
    assert_eq!(
        r.block_on(c.read("out")).unwrap(),
        sequential(&prog, text.as_bytes(), 2).unwrap().concat()
    );
    let j2 = r.block_on(c.wait(queued.id, WAIT)).unwrap();
    assert_eq!(j2.status, "succeeded");
    assert_eq!(
        r.block_on(c.read("counts")).unwrap(),
        sequential(&Program::Wordcount, text.as_bytes(), 1)
            .unwrap()
            .concat()
    );
    // The input file survived too.
    assert_eq!(r.block_on(c.read("in")).unwrap(), text.as_bytes());
}

#[test]
fn bad_job_files_tokens_and_inputs_give_clear_errors() {
    let live = Live::start(2, &[]);
    let data = live.write("d.txt", "a b\nc\n");
    ok(&live.cli(ALICE, &["dfs", "put", data.to_str().unwrap(), "d"]));

    let bad = live.write(
        "bad.toml",
        "input = \"d\"\noutput = \"o\"\nreduces = -1\n[program]\nkind = \"wordcount\"\n",
    );
    let e = err(&live.cli(ALICE, &["submit", bad.to_str().unwrap()]), 2);
    assert!(e.contains("bad.toml:3") && e.contains("reduces"), "{e}");
    let typo = live.write(
        "typo.toml",
        "input = \"d\"\noutput = \"o\"\n[program]\nkind = \"wordcont\"\n",
    );
    let e = err(&live.cli(ALICE, &["submit", typo.to_str().unwrap()]), 2);
    assert!(e.contains("typo.toml") && e.contains("wordcont"), "{e}");
    let missing = live.write("missing.toml", &job("nope", "o", 1, "kind = \"sort\""));
    let e = err(&live.cli(ALICE, &["submit", missing.to_str().unwrap()]), 2);
    assert!(e.contains("missing.toml:1: input: no file `nope`"), "{e}");
    let e = err(&live.cli(ALICE, &["submit", "no-such-file.toml"]), 2);
    assert!(
        e.contains("no-such-file.toml") && e.contains("cannot read"),
        "{e}"
    );
    let good = live.write("good.toml", &job("d", "o", 1, "kind = \"wordcount\""));
    let e = err(
        &live.cli("not-a-token", &["submit", good.to_str().unwrap()]),
        2,
    );
    assert!(e.contains("refused") && e.contains("unknown token"), "{e}");
    let e = err(&live.cli("", &["jobs"]), 2);
    assert!(e.contains("token"), "{e}");
    // None of the failures left a job behind.
    assert_eq!(ok(&live.cli(ALICE, &["jobs", "-f", "json"])).trim(), "[]");

    // A good job; its output name is then taken.
    ok(&live.cli(ALICE, &["submit", good.to_str().unwrap(), "--wait"]));
    assert_eq!(
        ok(&live.cli(ALICE, &["dfs", "cat", "o"])),
        "a\t1\nb\t1\nc\t1\n"
    );
    let e = err(&live.cli(ALICE, &["submit", good.to_str().unwrap()]), 2);
    assert!(e.contains("output: `o` already exists"), "{e}");

    // Users cannot kill each other's jobs or remove each other's files.
    // A job that would run for a minute: it is killed below.
    let slow = live.write(
        "slow.toml",
        &job(
            "d",
            "s",
            1,
            "kind = \"streaming\"\nmapper = \"sleep 60; cat\"\nreducer = \"cat\"",
        ),
    );
    let out = ok(&live.cli(ALICE, &["submit", slow.to_str().unwrap(), "-f", "json"]));
    let id = serde_json::from_str::<serde_json::Value>(&out).unwrap()["id"]
        .as_u64()
        .unwrap()
        .to_string();
    let e = err(&live.cli(BOB, &["kill", &id]), 2);
    assert!(e.contains("belongs to `alice`"), "{e}");
    let e = err(&live.cli(BOB, &["dfs", "rm", "d"]), 2);
    assert!(e.contains("belongs to `alice`"), "{e}");
    let e = err(&live.cli(ALICE, &["dfs", "rm", "d"]), 2);
    assert!(e.contains("is read by running job"), "{e}");
    let out = ok(&live.cli(ALICE, &["kill", &id]));
    assert!(out.contains("killed"), "{out}");
    let status = ok(&live.cli(ALICE, &["status", &id, "-f", "json"]));
    assert!(status.contains("killed by alice"), "{status}");
    let e = err(&live.cli(ALICE, &["status", "99"]), 2);
    assert!(e.contains("no job 99"), "{e}");
    let e = err(&live.cli(ALICE, &["dfs", "put", "/no/such/file", "x"]), 2);
    assert!(e.contains("/no/such/file"), "{e}");
    // A worker with the wrong secret is refused and says why.
    std::fs::write(live.path("wrong"), "not-the-cluster-secret").unwrap();
    let o = Command::new(BIN)
        .args([
            "worker",
            "--master",
            &live.url,
            "--name",
            "intruder",
            "--secret-file",
        ])
        .arg(live.path("wrong"))
        .arg("--dir")
        .arg(live.path("intruder"))
        .output()
        .unwrap();
    let e = err(&o, 1);
    assert!(e.contains("wrong or missing cluster secret"), "{e}");
    // So is an unknown worker once the cluster has formed.
    let o = Command::new(BIN)
        .args([
            "worker",
            "--master",
            &live.url,
            "--name",
            "late",
            "--secret-file",
        ])
        .arg(live.path("secret"))
        .arg("--dir")
        .arg(live.path("late"))
        .output()
        .unwrap();
    let e = err(&o, 1);
    assert!(e.contains("`late` is not one of them"), "{e}");
    // The killed job's output name is free again.
    assert!(!ok(&live.cli(ALICE, &["dfs", "ls"])).contains(" s "));
}

#[test]
fn local_starts_a_cluster_and_stops_it_on_interrupt() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(BIN)
        .args([
            "local",
            "--workers",
            "2",
            "--port",
            "0",
            "--heartbeat-ms",
            "50",
        ])
        .arg("--dir")
        .arg(dir.path().join("c"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    use std::io::BufRead;
    let stdout = child.stdout.take().unwrap();
    let mut lines = std::io::BufReader::new(stdout).lines();
    let (mut url, mut token) = (String::new(), String::new());
    for l in lines.by_ref() {
        let l = l.unwrap();
        if let Some(u) = l.strip_prefix("export MRSCHED_MASTER=") {
            url = u.to_string();
        }
        if let Some(t) = l.strip_prefix("export MRSCHED_TOKEN=") {
            token = t.split_whitespace().next().unwrap().to_string();
            break;
        }
    }
    // The web UI's sign-in link: it signs a browser in and drops the token
    // from the address.
    let ui_line = lines.next().unwrap().unwrap();
    let ui_url = ui_line
        .split_whitespace()
        .find(|w| w.starts_with("http"))
        .unwrap_or_else(|| panic!("no link in {ui_line}"));
    assert_eq!(ui_url, format!("{url}/?token={token}"), "{ui_line}");
    // The scrape token: printed, and kept in the work directory.
    let scrape_line = lines.next().unwrap().unwrap();
    let scrape_token = std::fs::read_to_string(dir.path().join("c/metrics-token")).unwrap();
    assert!(
        scrape_line.contains(&format!("Bearer {scrape_token}' {url}/metrics")),
        "{scrape_line}"
    );
    let c = Client::new(&url, Some(token.clone()));
    let r = rt();
    let scrape = |t: Option<&str>| {
        let mut req = reqwest::Client::new().get(format!("{url}/metrics"));
        if let Some(t) = t {
            req = req.bearer_auth(t);
        }
        r.block_on(async { req.send().await.unwrap().status().as_u16() })
    };
    assert_eq!(scrape(None), 401);
    assert_eq!(scrape(Some(&scrape_token)), 200);
    assert_eq!(scrape(Some(&token)), 200, "the local user is an admin");
    let signed_in = r.block_on(async {
        reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap()
            .get(ui_url)
            .send()
            .await
            .unwrap()
    });
    assert_eq!(signed_in.status(), 303);
    assert_eq!(signed_in.headers()["location"], "/");
    assert!(signed_in.headers().contains_key("set-cookie"));
    r.block_on(c.put(&mut "x y x\n".as_bytes(), "t", 1024, 2))
        .unwrap();
    let s = r
        .block_on(c.submit("j", &job("t", "o", 1, "kind = \"wordcount\""), false))
        .unwrap();
    assert_eq!(r.block_on(c.wait(s.id, WAIT)).unwrap().status, "succeeded");
    assert_eq!(r.block_on(c.read("o")).unwrap(), b"x\t2\ny\t1\n");
    // Ctrl-C.
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(t0.elapsed() < Duration::from_secs(20), "local did not stop");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status}");
    assert!(r.block_on(c.health()).is_err(), "the master is gone");
    let _ = Path::new(&url);
}

/// Whether `text` has `word` followed by a `done/total` count.
fn has_count(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(k, _)| {
        let rest = &text[k + word.len()..];
        let digits = |s: &str| s.chars().take_while(|c| c.is_ascii_digit()).count();
        let a = digits(rest);
        a > 0 && rest[a..].starts_with('/') && digits(&rest[a + 1..]) > 0
    })
}

/// `dfs put` and `submit --wait` under a pseudo-terminal (`script` from
/// util-linux) draw their progress lines (bytes sent with the rate; maps and
/// reduces done); with stdout and stderr piped they print exactly what they
/// print without progress, and nothing on stderr.
#[test]
fn put_and_submit_wait_show_progress_only_on_a_terminal() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: `script` (util-linux) is not installed, no pseudo-terminal");
        return;
    }
    let live = Live::start(2, &[]);
    let text = corpus(3000, 7);
    let input = live.write("corpus.txt", &text);
    assert!(text.len() > 8 * 2048, "several blocks of 2K: the bar moves");
    let under_pty = |args: &str| {
        let cmd = format!("{BIN} {args}");
        let out = Command::new("script")
            .args(["-qfec", &cmd, "/dev/null"])
            .env("MRSCHED_MASTER", &live.url)
            .env("MRSCHED_TOKEN", ALICE)
            .env("COLUMNS", "120")
            .current_dir(live.dir.path())
            .output()
            .expect("script runs");
        assert!(out.status.success(), "{cmd}: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };

    let put = |name: &str| format!("dfs put {} {name} --block-size 2K", input.display());
    let tty = under_pty(&put("corpus"));
    let total = indicatif::HumanBytes(text.len() as u64).to_string();
    assert!(
        tty.contains(&format!("{total}/{total}")),
        "no byte count {total}/{total}: {tty}"
    );
    let rate = tty
        .split(&format!("{total}/{total}"))
        .nth(1)
        .and_then(|rest| rest.split_whitespace().nth(1))
        .unwrap_or_default();
    assert!(rate.ends_with("B/s"), "no rate after the byte count: {tty}");
    assert!(
        tty.contains(&format!("corpus: {} bytes in ", text.len())),
        "{tty}"
    );
    // From stdin the size is not known: bytes and rate, no total.
    let stdin = under_pty(&format!(
        "dfs put - piped --block-size 2K < {}",
        input.display()
    ));
    assert!(stdin.contains(&total) && stdin.contains("B/s"), "{stdin}");

    let wc = live.write(
        "wc.toml",
        &job("corpus", "counts", 2, "kind = \"wordcount\""),
    );
    let tty = under_pty(&format!("submit {} --wait", wc.display()));
    assert!(
        has_count(&tty, "maps ") && has_count(&tty, "reduces "),
        "no progress line: {tty}"
    );
    assert!(tty.contains("succeeded"), "final state: {tty}");

    // Piped: the output of old, and no progress text.
    let o = live.cli(
        ALICE,
        &[
            "dfs",
            "put",
            input.to_str().unwrap(),
            "again",
            "--block-size",
            "2K",
        ],
    );
    let stdout = ok(&o);
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        stdout.starts_with(&format!("again: {} bytes in ", text.len()))
            && stdout.ends_with(" blocks\n")
            && stdout.lines().count() == 1,
        "{stdout}"
    );
    let wc2 = live.write(
        "wc2.toml",
        &job("corpus", "counts2", 2, "kind = \"wordcount\""),
    );
    let o = live.cli(ALICE, &["submit", wc2.to_str().unwrap(), "--wait"]);
    let stdout = ok(&o);
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "header, rule, the job: {stdout}");
    assert!(
        lines[0].starts_with("id") && lines[2].contains("succeeded"),
        "{stdout}"
    );
    assert!(
        !has_count(&stdout, "maps ") && !stdout.contains('\u{1b}'),
        "{stdout}"
    );
}

#[test]
fn master_metrics_flags_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let master = |extra: &[&str]| {
        Command::new(BIN)
            .args(["master", "--listen", "127.0.0.1:0", "--dir"])
            .arg(dir.path().join("m"))
            .args(extra)
            .output()
            .unwrap()
    };
    let tf = dir.path().join("tok");
    let o = master(&[
        "--metrics-token-file",
        tf.to_str().unwrap(),
        "--metrics-unauthenticated",
    ]);
    let e = err(&o, 2);
    assert!(e.contains("cannot be used with"), "{e}");
    std::fs::write(&tf, "short\n").unwrap();
    let o = master(&["--metrics-token-file", tf.to_str().unwrap()]);
    let e = err(&o, 2);
    assert!(
        e.contains("the metrics token must be at least 16 characters"),
        "{e}"
    );
    let help = ok(&Command::new(BIN)
        .args(["master", "--help"])
        .output()
        .unwrap());
    for flag in [
        "--metrics-token-file",
        "--metrics-unauthenticated",
        "/metrics",
    ] {
        assert!(help.contains(flag), "{flag} in --help: {help}");
    }
}

#[test]
fn master_rereplication_flags_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    for flag in ["--rereplication-streams", "--rereplication-max-copies"] {
        let o = Command::new(BIN)
            .args(["master", "--listen", "127.0.0.1:0", "--dir"])
            .arg(dir.path().join("m"))
            .args([flag, "0"])
            .output()
            .unwrap();
        let e = err(&o, 2);
        assert!(
            e.contains("--rereplication-streams and --rereplication-max-copies must be at least 1"),
            "{e}"
        );
    }
    let help = ok(&Command::new(BIN)
        .args(["master", "--help"])
        .output()
        .unwrap());
    for flag in ["--rereplication-streams", "--rereplication-max-copies"] {
        assert!(help.contains(flag), "{flag} in --help: {help}");
    }
}

/// A YARN Fair Scheduler allocation file on a live master: a job naming a
/// parent queue, and one no placement rule takes, are refused with the
/// reason; jobs in `prod` (weight 3) and `dev` (weight 1) share the 4 map
/// slots 3 : 1, as `mrsched pools` shows.
#[test]
fn a_yarn_allocation_file_places_refuses_and_shares_on_a_live_cluster() {
    let files = tempfile::tempdir().unwrap();
    let xml = files.path().join("fair-scheduler.xml");
    std::fs::write(
        &xml,
        "<allocations>\n  <queue name=\"prod\"><weight>3</weight></queue>\n\
         <queue name=\"dev\"/>\n  <queue name=\"team\" type=\"parent\"><queue name=\"x\"/></queue>\n\
         <queuePlacementPolicy>\n    <rule name=\"specified\" create=\"false\"/>\n\
         <rule name=\"reject\"/>\n  </queuePlacementPolicy>\n</allocations>\n",
    )
    .unwrap();
    let live = Live::start(2, &["--scheduler", xml.to_str().unwrap()]);
    let r = rt();
    let c = live.client(ALICE);
    r.block_on(c.put(&mut corpus(2000, 7).as_bytes(), "corpus", 2 * 1024, 2))
        .unwrap();
    let slow = |out: &str, queue: &str| {
        format!(
            "input = \"corpus\"\noutput = \"{out}\"\nreduces = 1\npool = \"{queue}\"\n\
             [program]\nkind = \"streaming\"\nmapper = \"sleep 0.3; cat\"\nreducer = \"wc -l\"\n"
        )
    };
    for (queue, why) in [
        ("team", "`team` is a parent queue"),
        ("nowhere", "placement policy"),
    ] {
        let s = r
            .block_on(c.submit(queue, &slow(&format!("{queue}-out"), queue), false))
            .unwrap();
        assert_eq!(s.status, "rejected", "{queue}");
        let reason = s.reason.unwrap_or_default();
        assert!(reason.contains(why), "{queue}: {reason}");
    }
    let prod = r
        .block_on(c.submit("p", &slow("p-out", "root.prod"), false))
        .unwrap();
    let dev = r
        .block_on(c.submit("d", &slow("d-out", "dev"), false))
        .unwrap();
    let mut seen = 0;
    wait_for("both jobs to end", || {
        let p = r.block_on(c.pools()).unwrap();
        let q = |n: &str| p.pools.iter().find(|x| x.name == n).cloned();
        if let (Some(a), Some(b)) = (q("prod"), q("dev")) {
            // Shares are those of the last share update: count only samples
            // taken after one that saw both jobs.
            let updated = a.fair_share > 0.0 && b.fair_share > 0.0;
            if updated && a.pending_maps > 0 && b.pending_maps > 0 {
                assert_eq!((a.fair_share, b.fair_share), (3.0, 1.0), "{p:?}");
                seen += 1;
            }
        }
        let done = |id| r.block_on(c.job(id)).unwrap().status != "running";
        done(prod.id) && done(dev.id)
    });
    assert!(seen > 0, "both queues were seen busy");
    for id in [prod.id, dev.id] {
        assert_eq!(r.block_on(c.job(id)).unwrap().status, "succeeded");
    }
}

/// Through the CLI: a map-only job's output, a user over
/// `--max-queued-jobs-per-user` (exit 1 with the master's message), a
/// `dfs put` over `--max-upload-bytes`, and bad bound flags.
#[test]
fn map_only_jobs_and_resource_bounds_through_the_cli() {
    let live = Live::start(
        2,
        &[
            "--max-queued-jobs-per-user",
            "1",
            "--max-upload-bytes",
            "100000",
        ],
    );
    let text = corpus(400, 7);
    let data = live.write("d.txt", &text);
    ok(&live.cli(
        ALICE,
        &[
            "dfs",
            "put",
            data.to_str().unwrap(),
            "d",
            "--block-size",
            "2K",
        ],
    ));
    let grep = live.write(
        "grep.toml",
        &job("d", "hits", 0, "kind = \"grep\"\npattern = \"gamma\""),
    );
    ok(&live.cli(ALICE, &["submit", grep.to_str().unwrap(), "--wait"]));
    let want: String = text
        .lines()
        .filter(|l| l.contains("gamma"))
        .map(|l| format!("{l}\t1\n"))
        .collect();
    assert_eq!(ok(&live.cli(ALICE, &["dfs", "cat", "hits"])), want);

    // Map-only jobs that run until killed.
    let slow = |out: &str| job("d", out, 0, "kind = \"streaming\"\nmapper = \"sleep 60\"");
    let slow1 = live.write("slow1.toml", &slow("slow-1"));
    let out = ok(&live.cli(ALICE, &["submit", slow1.to_str().unwrap()]));
    let slow2 = live.write("slow2.toml", &slow("slow-2"));
    let e = err(&live.cli(ALICE, &["submit", slow2.to_str().unwrap()]), 1);
    assert!(
        e.contains("user `alice` has 1 job(s) submitted and not finished; the limit is 1 per user (--max-queued-jobs-per-user)"),
        "{e}"
    );
    let id = out
        .split(|c: char| !c.is_ascii_digit())
        .find(|s| !s.is_empty())
        .expect("a job id")
        .to_string();
    ok(&live.cli(ALICE, &["kill", &id]));

    let big = live.write("big.txt", &corpus(8000, 7));
    let e = err(
        &live.cli(ALICE, &["dfs", "put", big.to_str().unwrap(), "big"]),
        1,
    );
    assert!(e.contains("--max-upload-bytes"), "{e}");
    let e = err(&live.cli(ALICE, &["dfs", "cat", "big"]), 2);
    assert!(e.contains("big"), "{e}");

    let o = Command::new(BIN)
        .args([
            "master",
            "--listen",
            "127.0.0.1:0",
            "--body-timeout-s",
            "0",
            "--dir",
        ])
        .arg(live.path("m2"))
        .output()
        .unwrap();
    let e = err(&o, 2);
    assert!(
        e.contains("--body-timeout-s must be a positive number"),
        "{e}"
    );
}
