//! Job programs: the map and reduce functions a live job runs.
//!
//! Records are lines (the bytes between two `\n`, without it), as Hadoop's
//! text input gives them. A map function turns each line into `(key, value)`
//! pairs; pairs are partitioned by key ([`Program::partition`]), sorted by
//! key then value (the value order makes every run's reduce input, and so
//! its output, the same whatever order the maps finished in), and each
//! reduce call gets one key with all its values.
//!
//! Built-in programs follow Hadoop's examples and Gridmix's loadgen; a
//! streaming program runs any command as mapper and reducer, reading and
//! writing `key<TAB>value` lines like Hadoop Streaming.

use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};

/// What a job computes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Program {
    /// Count each whitespace-separated word: `word<TAB>count` lines.
    Wordcount,
    /// Lines containing `pattern` (a plain substring), with how often each
    /// such line occurs: `line<TAB>count`.
    Grep {
        /// The substring to look for.
        pattern: String,
    },
    /// Every line, sorted (byte order); partitions are key ranges, so the
    /// concatenated output is globally sorted.
    Sort,
    /// Gridmix's loadgen: keep `keep_map` percent of the input records as
    /// map output (above 100 duplicates records), burn `cpu_per_record`
    /// rounds of hashing per record, and keep `keep_reduce` percent of the
    /// reduce input. The choice of kept records is a hash of the record, so
    /// every run keeps the same ones.
    Loadgen {
        /// Map output records per 100 input records.
        #[serde(default = "hundred")]
        keep_map: f64,
        /// Reduce output records per 100 reduce input records.
        #[serde(default = "hundred")]
        keep_reduce: f64,
        /// CPU work per record, hash rounds.
        #[serde(default)]
        cpu_per_record: u32,
    },
    /// Any commands (run with `sh -c`) as mapper and reducer. The mapper
    /// reads input lines on stdin and writes `key<TAB>value` lines (a line
    /// without a tab is a key with an empty value); the reducer reads the
    /// sorted `key<TAB>value` lines of its partition and its stdout is the
    /// output. Like Hadoop Streaming, the mapper must treat lines
    /// independently for the result not to depend on the block size.
    Streaming {
        /// Mapper command.
        mapper: String,
        /// Reducer command (`cat` keeps the sorted map output); not needed
        /// by a map-only job.
        #[serde(default)]
        reducer: String,
    },
}

fn hundred() -> f64 {
    100.0
}

/// FNV-1a, 64 bits: the partitioner's hash (stable across runs, platforms
/// and versions, unlike std's hasher).
pub fn fnv1a(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Lines of a block: split on `\n`; a final line without `\n` counts.
pub fn lines(data: &[u8]) -> impl Iterator<Item = &[u8]> {
    let data = data.strip_suffix(b"\n").unwrap_or(data);
    let empty = data.is_empty();
    data.split(|&b| b == b'\n').filter(move |_| !empty)
}

/// Split `key<TAB>value` (a line without a tab is all key).
pub fn split_kv(line: &[u8]) -> (&[u8], &[u8]) {
    match line.iter().position(|&b| b == b'\t') {
        Some(i) => (&line[..i], &line[i + 1..]),
        None => (line, &[]),
    }
}

fn cpu_burn(line: &[u8], rounds: u32) -> u64 {
    let mut h = fnv1a(line);
    for _ in 0..rounds {
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
    }
    h
}

/// How many copies of a record to keep at `pct` percent, chosen by `h`.
fn keep_count(pct: f64, h: u64) -> u64 {
    let whole = (pct / 100.0).floor();
    let frac = pct / 100.0 - whole;
    let extra = ((h % 1_000_000) as f64) < frac * 1_000_000.0;
    whole as u64 + extra as u64
}

impl Program {
    /// Check the program's options; a message for the user when invalid.
    pub fn check(&self) -> Result<(), String> {
        match self {
            Program::Grep { pattern } if pattern.is_empty() => {
                Err("grep needs a non-empty `pattern`".into())
            }
            Program::Loadgen {
                keep_map,
                keep_reduce,
                ..
            } => {
                for (k, v) in [("keep_map", keep_map), ("keep_reduce", keep_reduce)] {
                    if !(v.is_finite() && *v >= 0.0 && *v <= 10_000.0) {
                        return Err(format!("`{k}` must be a percentage in [0, 10000]"));
                    }
                }
                Ok(())
            }
            Program::Streaming { mapper, .. } => {
                if mapper.trim().is_empty() {
                    Err("streaming needs a non-empty `mapper` command".into())
                } else {
                    Ok(())
                }
            }
            _ => Ok(()),
        }
    }

    /// Short name for listings.
    pub fn kind(&self) -> &'static str {
        match self {
            Program::Wordcount => "wordcount",
            Program::Grep { .. } => "grep",
            Program::Sort => "sort",
            Program::Loadgen { .. } => "loadgen",
            Program::Streaming { .. } => "streaming",
        }
    }

    /// Whether values of one key may be summed early (map-side combining):
    /// values are decimal counts and the reduce sums them.
    pub fn sums_counts(&self) -> bool {
        matches!(self, Program::Wordcount | Program::Grep { .. })
    }

    /// The reduce partition of `key` among `reduces`.
    pub fn partition(&self, key: &[u8], reduces: u32) -> u32 {
        if reduces <= 1 {
            return 0;
        }
        match self {
            // Key ranges by the first byte, so that the parts concatenate
            // into one sorted file (a fixed stand-in for Hadoop's sampled
            // TotalOrderPartitioner).
            Program::Sort => {
                let b = key.first().copied().unwrap_or(0) as u64;
                (b * reduces as u64 / 256) as u32
            }
            _ => (fnv1a(key) % reduces as u64) as u32,
        }
    }

    /// Run the map function over a block, emitting `(key, value)` pairs.
    /// Counting programs emit `(key, count)` through `count` instead, so the
    /// caller can combine them without formatting numbers.
    pub fn map(
        &self,
        data: &[u8],
        emit: &mut dyn FnMut(&[u8], &[u8]),
        count: &mut dyn FnMut(&[u8], u64),
        cancel: &(dyn Fn() -> bool + Sync),
    ) -> Result<(), String> {
        match self {
            Program::Wordcount => {
                for (i, line) in lines(data).enumerate() {
                    if i % 65_536 == 0 && cancel() {
                        return Err("killed".into());
                    }
                    for w in line
                        .split(|b| b.is_ascii_whitespace())
                        .filter(|w| !w.is_empty())
                    {
                        count(w, 1);
                    }
                }
            }
            Program::Grep { pattern } => {
                let p = pattern.as_bytes();
                for line in lines(data) {
                    if line.windows(p.len()).any(|w| w == p) {
                        count(line, 1);
                    }
                }
            }
            Program::Sort => {
                for line in lines(data) {
                    emit(line, b"");
                }
            }
            Program::Loadgen {
                keep_map,
                cpu_per_record,
                ..
            } => {
                for (i, line) in lines(data).enumerate() {
                    if i % 4096 == 0 && cancel() {
                        return Err("killed".into());
                    }
                    let h = cpu_burn(line, *cpu_per_record);
                    for c in 0..keep_count(*keep_map, h) {
                        emit(line, c.to_string().as_bytes());
                    }
                }
            }
            Program::Streaming { mapper, .. } => {
                run_filter(mapper, data, cancel, &mut |line| {
                    let (k, v) = split_kv(line);
                    emit(k, v);
                })?;
            }
        }
        Ok(())
    }

    /// Run the reduce function over sorted `(key, values)` groups, writing
    /// output lines to `out`.
    pub fn reduce(
        &self,
        groups: &mut dyn Iterator<Item = std::io::Result<(Vec<u8>, Vec<Vec<u8>>)>>,
        out: &mut (dyn Write + Send),
        cancel: &(dyn Fn() -> bool + Sync),
    ) -> Result<(), String> {
        let io = |e: std::io::Error| e.to_string();
        match self {
            Program::Wordcount | Program::Grep { .. } => {
                for g in groups {
                    let (k, vs) = g.map_err(io)?;
                    let mut sum: u64 = 0;
                    for v in &vs {
                        sum += parse_count(v)?;
                    }
                    out.write_all(&k).map_err(io)?;
                    writeln!(out, "\t{sum}").map_err(io)?;
                }
            }
            Program::Sort => {
                for g in groups {
                    let (k, vs) = g.map_err(io)?;
                    for _ in &vs {
                        out.write_all(&k).map_err(io)?;
                        out.write_all(b"\n").map_err(io)?;
                    }
                }
            }
            Program::Loadgen { keep_reduce, .. } => {
                for g in groups {
                    let (k, vs) = g.map_err(io)?;
                    for v in &vs {
                        let mut rec = k.clone();
                        rec.push(b'\t');
                        rec.extend_from_slice(v);
                        let h = fnv1a(&rec).rotate_left(17);
                        for _ in 0..keep_count(*keep_reduce, h) {
                            out.write_all(&rec).map_err(io)?;
                            out.write_all(b"\n").map_err(io)?;
                        }
                    }
                }
            }
            Program::Streaming { reducer, .. } => {
                stream_reduce(reducer, groups, out, cancel)?;
            }
        }
        Ok(())
    }
}

/// Parse a decimal count written by a counting map.
pub fn parse_count(v: &[u8]) -> Result<u64, String> {
    std::str::from_utf8(v)
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("not a count: {:?}", String::from_utf8_lossy(v)))
}

/// Start `sh -c cmd` with piped stdio, in its own process group so that
/// a kill reaches everything it started.
fn spawn_sh(cmd: &str) -> Result<std::process::Child, String> {
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(cmd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        c.process_group(0);
    }
    c.spawn().map_err(|e| format!("cannot start `{cmd}`: {e}"))
}

/// Watch `cancel` while a command runs; on cancel kill its process group.
/// Returns whether it killed. `done` (then an unpark) ends the watch.
fn watch_cancel<'s>(
    s: &'s std::thread::Scope<'s, '_>,
    cancel: &'s (dyn Fn() -> bool + Sync),
    pid: u32,
    done: &'s std::sync::atomic::AtomicBool,
) -> std::thread::ScopedJoinHandle<'s, bool> {
    s.spawn(move || {
        while !done.load(std::sync::atomic::Ordering::Acquire) {
            if cancel() {
                #[cfg(unix)]
                let _ = Command::new("kill")
                    .args(["-s", "KILL", "--"])
                    .arg(format!("-{pid}"))
                    .stderr(Stdio::null())
                    .status();
                return true;
            }
            std::thread::park_timeout(std::time::Duration::from_millis(25));
        }
        false
    })
}

/// Pipe `input` through `sh -c cmd`, calling `line` for each output line.
fn run_filter(
    cmd: &str,
    input: &[u8],
    cancel: &(dyn Fn() -> bool + Sync),
    line: &mut dyn FnMut(&[u8]),
) -> Result<(), String> {
    let mut child = spawn_sh(cmd)?;
    let mut stdin = child.stdin.take().expect("piped");
    let stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let done = std::sync::atomic::AtomicBool::new(false);
    let pid = child.id();
    std::thread::scope(|s| -> Result<(), String> {
        let watcher = watch_cancel(s, cancel, pid, &done);
        let writer = s.spawn(move || {
            // A command that stops reading early is not an error here; its
            // exit status says whether it succeeded.
            let _ = stdin.write_all(input);
        });
        let errs = s.spawn(move || {
            let mut e = String::new();
            let _ = stderr.read_to_string(&mut e);
            e
        });
        let mut r = BufReader::with_capacity(1 << 16, stdout);
        let mut buf = Vec::new();
        let mut read_err = None;
        loop {
            buf.clear();
            match r.read_until(b'\n', &mut buf) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => {
                    read_err = Some(e.to_string());
                    break;
                }
            }
            if buf.last() == Some(&b'\n') {
                buf.pop();
            }
            line(&buf);
        }
        done.store(true, std::sync::atomic::Ordering::Release);
        watcher.thread().unpark();
        let killed = watcher.join().unwrap_or(false);
        let _ = writer.join();
        let err = errs.join().unwrap_or_default();
        let status = child.wait().map_err(|e| e.to_string())?;
        if killed {
            return Err("killed".into());
        }
        if let Some(e) = read_err {
            return Err(e);
        }
        if !status.success() {
            return Err(format!(
                "`{cmd}` exited with {status}: {}",
                err.trim().lines().last().unwrap_or("")
            ));
        }
        Ok(())
    })
}

/// Feed sorted groups to a streaming reducer as `key<TAB>value` lines and
/// copy its stdout to `out`.
fn stream_reduce(
    cmd: &str,
    groups: &mut dyn Iterator<Item = std::io::Result<(Vec<u8>, Vec<Vec<u8>>)>>,
    out: &mut (dyn Write + Send),
    cancel: &(dyn Fn() -> bool + Sync),
) -> Result<(), String> {
    let mut child = spawn_sh(cmd)?;
    let stdin = child.stdin.take().expect("piped");
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let done = std::sync::atomic::AtomicBool::new(false);
    let pid = child.id();
    // The reducer's input is written on this thread while a helper copies
    // its output, so neither pipe can fill up and block the other.
    let (copied, err, fed, killed) = std::thread::scope(|s| {
        let watcher = watch_cancel(s, cancel, pid, &done);
        // The output goes straight to `out`: nothing is held in memory.
        let reader = s.spawn(move || -> std::io::Result<u64> { std::io::copy(&mut stdout, out) });
        let errs = s.spawn(move || {
            let mut e = String::new();
            let _ = stderr.read_to_string(&mut e);
            e
        });
        let mut w = std::io::BufWriter::with_capacity(1 << 16, stdin);
        let mut fed: Result<(), String> = Ok(());
        'groups: for g in groups {
            match g {
                Ok((k, vs)) => {
                    for v in vs {
                        let r = w
                            .write_all(&k)
                            .and_then(|_| w.write_all(b"\t"))
                            .and_then(|_| w.write_all(&v))
                            .and_then(|_| w.write_all(b"\n"));
                        if r.is_err() {
                            break 'groups;
                        }
                    }
                }
                Err(e) => {
                    fed = Err(e.to_string());
                    break;
                }
            }
        }
        let _ = w.flush();
        drop(w);
        let copied = reader.join();
        done.store(true, std::sync::atomic::Ordering::Release);
        watcher.thread().unpark();
        let killed = watcher.join().unwrap_or(false);
        (copied, errs.join().unwrap_or_default(), fed, killed)
    });
    let status = child.wait().map_err(|e| e.to_string())?;
    if killed {
        return Err("killed".into());
    }
    fed?;
    if !status.success() {
        return Err(format!(
            "`{cmd}` exited with {status}: {}",
            err.trim().lines().last().unwrap_or("")
        ));
    }
    copied
        .map_err(|_| "reducer output thread panicked".to_string())?
        .map_err(|e| format!("reduce output: {e}"))?;
    Ok(())
}

/// The reference: the job run sequentially in one process, all in memory.
/// Returns each reduce partition's output. A live run's output (its parts
/// concatenated in partition order) must equal this byte for byte.
pub fn sequential(program: &Program, input: &[u8], reduces: u32) -> Result<Vec<Vec<u8>>, String> {
    let reduces = reduces.max(1);
    let mut parts: Vec<Vec<(Vec<u8>, Vec<u8>)>> = vec![Vec::new(); reduces as usize];
    {
        let mut put = |k: &[u8], v: &[u8]| {
            parts[program.partition(k, reduces) as usize].push((k.to_vec(), v.to_vec()));
        };
        let pairs = std::cell::RefCell::new(Vec::<(Vec<u8>, Vec<u8>)>::new());
        program.map(
            input,
            &mut |k, v| pairs.borrow_mut().push((k.to_vec(), v.to_vec())),
            &mut |k, c| {
                pairs
                    .borrow_mut()
                    .push((k.to_vec(), c.to_string().into_bytes()))
            },
            &|| false,
        )?;
        let pairs = pairs.into_inner();
        for (k, v) in &pairs {
            put(k, v);
        }
    }
    let mut out = Vec::new();
    for mut p in parts {
        p.sort();
        let mut groups: Vec<(Vec<u8>, Vec<Vec<u8>>)> = Vec::new();
        for (k, v) in p {
            match groups.last_mut() {
                Some((gk, vs)) if *gk == k => vs.push(v),
                _ => groups.push((k, vec![v])),
            }
        }
        let mut buf = Vec::new();
        program.reduce(&mut groups.into_iter().map(Ok), &mut buf, &|| false)?;
        out.push(buf);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(p: &Program, input: &str, r: u32) -> String {
        let parts = sequential(p, input.as_bytes(), r).unwrap();
        String::from_utf8(parts.concat()).unwrap()
    }

    #[test]
    fn wordcount_counts_words() {
        let out = run(&Program::Wordcount, "a b a\n\nb  c\na", 1);
        assert_eq!(out, "a\t3\nb\t2\nc\t1\n");
    }

    #[test]
    fn grep_keeps_matching_lines_with_counts() {
        let p = Program::Grep {
            pattern: "ba".into(),
        };
        assert_eq!(run(&p, "abc\nbar\nfoo\nbar\n", 1), "bar\t2\n");
    }

    #[test]
    fn sort_is_globally_sorted_over_range_partitions() {
        let input = "pear\napple\nzoo\nApple\nbanana\napple\n";
        let out = run(&Program::Sort, input, 3);
        let mut want: Vec<&str> = input.lines().collect();
        want.sort();
        assert_eq!(out, want.join("\n") + "\n");
    }

    #[test]
    fn loadgen_keeps_the_asked_fraction() {
        let input: String = (0..2000).map(|i| format!("rec{i}\n")).collect();
        let p = Program::Loadgen {
            keep_map: 50.0,
            keep_reduce: 100.0,
            cpu_per_record: 3,
        };
        let n = run(&p, &input, 2).lines().count();
        assert!((850..1150).contains(&n), "{n} of 2000 kept at 50%");
        let p = Program::Loadgen {
            keep_map: 200.0,
            keep_reduce: 50.0,
            cpu_per_record: 0,
        };
        let n = run(&p, &input, 2).lines().count();
        assert!((1850..2150).contains(&n), "{n}: x2 then /2");
    }

    #[test]
    fn streaming_runs_commands() {
        let p = Program::Streaming {
            mapper: "tr ' ' '\\n' | grep -v '^$' | sed 's/$/\t1/'".into(),
            reducer: "cut -f1 | uniq -c | awk '{print $2\"\\t\"$1}'".into(),
        };
        assert_eq!(run(&p, "x y x\ny\n", 1), "x\t2\ny\t2\n");
        let bad = Program::Streaming {
            mapper: "exit 3".into(),
            reducer: "cat".into(),
        };
        let e = sequential(&bad, b"a\n", 1).unwrap_err();
        assert!(e.contains("exit"), "{e}");
    }

    #[test]
    fn partitions_are_stable_and_in_range() {
        for r in 1..5 {
            for k in ["", "a", "zz", "\u{ff}"] {
                let p = Program::Wordcount.partition(k.as_bytes(), r);
                assert!(p < r);
                assert_eq!(p, Program::Wordcount.partition(k.as_bytes(), r));
                assert!(Program::Sort.partition(k.as_bytes(), r) < r);
            }
        }
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn lines_split_like_text_input() {
        let v: Vec<&[u8]> = lines(b"a\n\nb").collect();
        assert_eq!(v, vec![&b"a"[..], b"", b"b"]);
        assert_eq!(lines(b"").count(), 0);
        assert_eq!(lines(b"x\n").count(), 1);
    }

    #[test]
    fn a_cancelled_command_is_killed_with_what_it_started() {
        let t0 = std::time::Instant::now();
        let cancel = || t0.elapsed() > std::time::Duration::from_millis(100);
        let p = Program::Streaming {
            mapper: "sleep 20; cat".into(),
            reducer: "sleep 20; cat".into(),
        };
        let e = p
            .map(b"a\n", &mut |_, _| {}, &mut |_, _| {}, &cancel)
            .unwrap_err();
        assert_eq!(e, "killed");
        let t1 = std::time::Instant::now();
        let cancel = || t1.elapsed() > std::time::Duration::from_millis(100);
        let mut out = Vec::new();
        let groups = vec![Ok((b"k".to_vec(), vec![b"v".to_vec()]))];
        let e = p
            .reduce(&mut groups.into_iter(), &mut out, &cancel)
            .unwrap_err();
        assert_eq!(e, "killed");
        assert!(t0.elapsed().as_secs() < 10, "the sleeps were killed");
    }
}
