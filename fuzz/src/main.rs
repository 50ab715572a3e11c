//! `mrsched-fuzz`: a mutation fuzzer for mrsched's parsers on stable Rust.
//!
//! ```text
//! mrsched-fuzz TARGET [--seconds N] [--seed S] [--timeout-ms T]
//! mrsched-fuzz TARGET --replay FILE...
//! mrsched-fuzz --list
//! ```
//!
//! Starting from the example files (see `targets::seeds`), each iteration
//! picks a corpus input, applies a few mutations (interesting numbers in
//! place of numbers, byte flips, line duplication (up to thousands of
//! copies), deletion and splicing,
//! known field names with extreme values, truncation) and runs the target.
//! Inputs whose outcome (the accepted summary or the error messages, digits
//! removed) is new join the corpus, so mutations build on inputs that reach
//! further. A failure is any panic, any allocation above 1 GiB (or 2 GiB
//! live), or a run longer than the timeout: the input is written to
//! `fuzz/artifacts/TARGET/` and the driver exits with status 1.
//! `scripts/fuzz.sh` runs every target and turns failures into regression
//! inputs under `fuzz/regressions/`.

mod targets;

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Largest single allocation a target may ask for.
const MAX_ALLOC: usize = 1 << 30;
/// Largest live heap.
const MAX_LIVE: usize = 2 << 30;

struct Bounded;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static TRIPPED: AtomicBool = AtomicBool::new(false);

unsafe impl GlobalAlloc for Bounded {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        if (layout.size() > MAX_ALLOC || live > MAX_LIVE) && !TRIPPED.swap(true, Ordering::SeqCst) {
            fail(&format!(
                "allocation of {} bytes ({} live): memory blow-up",
                layout.size(),
                live
            ));
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            let grow = new_size - layout.size();
            let live = LIVE.fetch_add(grow, Ordering::Relaxed) + grow;
            if (new_size > MAX_ALLOC || live > MAX_LIVE) && !TRIPPED.swap(true, Ordering::SeqCst) {
                fail(&format!(
                    "reallocation to {new_size} bytes ({live} live): memory blow-up"
                ));
            }
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Bounded = Bounded;

/// The input being run, for the failure handlers.
static CURRENT: Mutex<Vec<u8>> = Mutex::new(Vec::new());
static ARTIFACTS: OnceLock<PathBuf> = OnceLock::new();
/// Iterations started, and the start of the current one (ms since launch).
static ITER: AtomicU64 = AtomicU64::new(0);
static ITER_START_MS: AtomicU64 = AtomicU64::new(0);

/// Record the current input as a failure and exit.
fn fail(why: &str) -> ! {
    let data = CURRENT.lock().map(|d| d.clone()).unwrap_or_default();
    let name = format!("crash-{:016x}", fnv(&data));
    if let Some(dir) = ARTIFACTS.get() {
        let _ = std::fs::create_dir_all(dir);
        let path = dir.join(&name);
        let _ = std::fs::write(&path, &data);
        let _ = std::fs::write(dir.join(format!("{name}.txt")), why);
        eprintln!("FAILURE: {why}\ninput written to {}", path.display());
    } else {
        eprintln!("FAILURE: {why}");
    }
    std::process::exit(1);
}

fn fnv(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x100000001b3)
    })
}

/// xorshift64*: small, deterministic, good enough for mutation choices.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const INTERESTING: &[&str] = &[
    "0",
    "-1",
    "1",
    "-0",
    "0.0",
    "1e308",
    "-1e308",
    "1e-300",
    "nan",
    "inf",
    "-inf",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "2147483648",
    "9007199254740993",
    "99999999",
    "1e6",
    "1e9",
    "1e12",
    "65536",
    "0.5",
    "3600",
    "86400",
    "315360000",
    "315360001",
    "100000",
    "100001",
    "10000000",
    "10000001",
];

/// Field names and tags found in the seeds, for "key = value" insertions.
fn dictionary(seeds: &[Vec<u8>]) -> Vec<String> {
    let mut words = std::collections::BTreeSet::new();
    for s in seeds {
        let t = String::from_utf8_lossy(s);
        let mut cur = String::new();
        for c in t.chars() {
            if c.is_ascii_alphanumeric() || c == '_' {
                cur.push(c);
            } else {
                if cur.len() > 2 && cur.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) {
                    words.insert(cur.clone());
                }
                cur.clear();
            }
        }
    }
    words.into_iter().collect()
}

fn number_spans(data: &[u8]) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    let mut i = 0;
    while i < data.len() {
        if data[i].is_ascii_digit() {
            let s = i;
            while i < data.len() && (data[i].is_ascii_digit() || data[i] == b'.' || data[i] == b'e')
            {
                i += 1;
            }
            v.push((s, i));
        } else {
            i += 1;
        }
    }
    v
}

fn lines(data: &[u8]) -> Vec<&[u8]> {
    data.split_inclusive(|b| *b == b'\n').collect()
}

/// Largest input tried, bytes.
const MAX_INPUT: usize = 256 * 1024;

fn mutate(rng: &mut Rng, input: &[u8], corpus: &[Vec<u8>], dict: &[String]) -> Vec<u8> {
    let mut d = input.to_vec();
    let rounds = 1 + rng.below(4);
    for _ in 0..rounds {
        d.truncate(MAX_INPUT);
        match rng.below(10) {
            0..=2 => {
                let spans = number_spans(&d);
                if !spans.is_empty() {
                    let (s, e) = spans[rng.below(spans.len())];
                    let n = INTERESTING[rng.below(INTERESTING.len())];
                    d.splice(s..e, n.bytes());
                }
            }
            3 => {
                if !d.is_empty() {
                    let i = rng.below(d.len());
                    d[i] ^= 1 << rng.below(8);
                }
            }
            4 => {
                let ls = lines(&d);
                if !ls.is_empty() {
                    let i = rng.below(ls.len());
                    // Mostly a copy or two; sometimes thousands (nesting,
                    // long lists, many errors: quadratic work shows up).
                    let times: usize = if rng.below(8) == 0 {
                        1 << rng.below(13)
                    } else {
                        1 + rng.below(3)
                    };
                    // Stay within the input size bound.
                    let times = times.min(MAX_INPUT / ls[i].len().max(1));
                    let mut out: Vec<u8> = Vec::new();
                    for (k, l) in ls.iter().enumerate() {
                        out.extend_from_slice(l);
                        if k == i {
                            for _ in 0..times {
                                out.extend_from_slice(l);
                            }
                        }
                    }
                    d = out;
                }
            }
            5 => {
                let ls = lines(&d);
                if ls.len() > 1 {
                    let i = rng.below(ls.len());
                    d = ls
                        .iter()
                        .enumerate()
                        .filter(|(k, _)| *k != i)
                        .flat_map(|(_, l)| l.iter().copied())
                        .collect();
                }
            }
            6 => {
                // Splice a line of another corpus input.
                let other = &corpus[rng.below(corpus.len())];
                let ol = lines(other);
                let ls = lines(&d);
                if !ol.is_empty() {
                    let l = ol[rng.below(ol.len())].to_vec();
                    let at = rng.below(ls.len() + 1);
                    let mut out: Vec<u8> = Vec::new();
                    for (k, x) in ls.iter().enumerate() {
                        if k == at {
                            out.extend_from_slice(&l);
                        }
                        out.extend_from_slice(x);
                    }
                    if at == ls.len() {
                        out.extend_from_slice(&l);
                    }
                    d = out;
                }
            }
            7 => {
                // A known field with an extreme value, on its own line.
                if !dict.is_empty() {
                    let k = &dict[rng.below(dict.len())];
                    let v = INTERESTING[rng.below(INTERESTING.len())];
                    let line = match rng.below(3) {
                        0 => format!("{k} = {v}\n"),
                        1 => format!("\"{k}\": {v},\n"),
                        _ => format!("<{k}>{v}</{k}>\n"),
                    };
                    let ls = lines(&d);
                    let at = rng.below(ls.len() + 1);
                    let mut out: Vec<u8> = Vec::new();
                    for (i, x) in ls.iter().enumerate() {
                        if i == at {
                            out.extend_from_slice(line.as_bytes());
                        }
                        out.extend_from_slice(x);
                    }
                    if at == ls.len() {
                        out.extend_from_slice(line.as_bytes());
                    }
                    d = out;
                }
            }
            8 => {
                if !d.is_empty() {
                    let cut = rng.below(d.len());
                    d.truncate(cut);
                }
            }
            _ => {
                // Insert, delete or overwrite one byte with a syntax byte.
                const B: &[u8] = b"\t\n\"'[]{}<>=,.-#0e";
                if !d.is_empty() {
                    let i = rng.below(d.len());
                    match rng.below(3) {
                        0 => d.insert(i, B[rng.below(B.len())]),
                        1 => {
                            d.remove(i);
                        }
                        _ => d[i] = B[rng.below(B.len())],
                    }
                }
            }
        }
    }
    d.truncate(MAX_INPUT);
    d
}

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn set_current(data: &[u8]) {
    let mut c = CURRENT.lock().unwrap_or_else(|p| p.into_inner());
    c.clear();
    c.extend_from_slice(data);
}

fn watchdog(timeout: Duration) {
    let start = Instant::now();
    std::thread::spawn(move || {
        let mut seen = (u64::MAX, 0u64);
        loop {
            std::thread::sleep(Duration::from_millis(50));
            let it = ITER.load(Ordering::SeqCst);
            let at = ITER_START_MS.load(Ordering::SeqCst);
            if seen.0 != it {
                seen = (it, at);
                continue;
            }
            let now = start.elapsed().as_millis() as u64;
            if now.saturating_sub(at) > timeout.as_millis() as u64 {
                fail(&format!("one input ran for more than {timeout:?}: a hang"));
            }
        }
    });
    let _ = START.set(start);
}

static START: OnceLock<Instant> = OnceLock::new();

fn run_one(target: &str, data: &[u8]) -> String {
    set_current(data);
    let ms = START.get().map_or(0, |s| s.elapsed().as_millis() as u64);
    ITER_START_MS.store(ms, Ordering::SeqCst);
    ITER.fetch_add(1, Ordering::SeqCst);
    targets::run(target, data)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--list") {
        for t in targets::TARGETS {
            println!("{t}");
        }
        return;
    }
    let Some(target) = args.first().cloned() else {
        eprintln!("usage: mrsched-fuzz TARGET [--seconds N] [--seed S] [--timeout-ms T] | TARGET --replay FILE... | --list");
        std::process::exit(2);
    };
    if !targets::TARGETS.contains(&target.as_str()) {
        eprintln!(
            "unknown target `{target}` (known: {})",
            targets::TARGETS.join(", ")
        );
        std::process::exit(2);
    }
    let mut seconds = 60u64;
    let mut seed = 1u64;
    let mut timeout_ms = 10_000u64;
    let mut replay = Vec::new();
    let mut i = 1;
    while i < args.len() {
        let val = |i: usize| -> u64 {
            args.get(i + 1)
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| {
                    eprintln!("{} needs a number", args[i]);
                    std::process::exit(2)
                })
        };
        match args[i].as_str() {
            "--seconds" => {
                seconds = val(i);
                i += 1;
            }
            "--seed" => {
                seed = val(i);
                i += 1;
            }
            "--timeout-ms" => {
                timeout_ms = val(i);
                i += 1;
            }
            "--replay" => {
                replay.extend(args[i + 1..].iter().cloned());
                break;
            }
            other => {
                eprintln!("unknown argument `{other}`");
                std::process::exit(2);
            }
        }
        i += 1;
    }
    let root = repo_root();
    let _ = ARTIFACTS.set(root.join("fuzz/artifacts").join(&target));
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        hook(info);
        fail(&format!("panic: {info}"));
    }));
    watchdog(Duration::from_millis(timeout_ms));

    if !replay.is_empty() {
        for f in &replay {
            let data = std::fs::read(f).unwrap_or_else(|e| {
                eprintln!("cannot read {f}: {e}");
                std::process::exit(2)
            });
            let t = Instant::now();
            let out = run_one(&target, &data);
            println!("{f}: {:?}: {}", t.elapsed(), out.replace('\n', " / "));
        }
        return;
    }

    let seeds = targets::seeds(&target, &root);
    if seeds.is_empty() {
        eprintln!("no seeds for `{target}` under {}", root.display());
        std::process::exit(2);
    }
    let corpus_dir = root.join("fuzz/corpus").join(&target);
    let mut corpus = seeds.clone();
    if let Ok(rd) = std::fs::read_dir(&corpus_dir) {
        let mut files: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        files.sort();
        corpus.extend(files.iter().filter_map(|p| std::fs::read(p).ok()));
    }
    let dict = dictionary(&seeds);
    let mut seen = std::collections::HashSet::new();
    for c in &corpus {
        seen.insert(run_one(&target, c));
    }
    let mut rng = Rng(seed.wrapping_mul(0x9E3779B97F4A7C15) | 1);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let started = Instant::now();
    let mut execs = 0u64;
    let mut added = 0usize;
    let mut slowest = (Duration::ZERO, Vec::new());
    while Instant::now() < deadline {
        let base = &corpus[rng.below(corpus.len())];
        let input = mutate(&mut rng, base, &corpus, &dict);
        let t = Instant::now();
        let out = run_one(&target, &input);
        // The slowest input is reported: a parser that is quadratic in
        // some count shows up here long before it reaches the timeout.
        let took = t.elapsed();
        if took > slowest.0 {
            slowest = (took, input.clone());
        }
        execs += 1;
        if seen.insert(out) && corpus.len() < 2_000 {
            save(&corpus_dir, &input);
            corpus.push(input);
            added += 1;
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{target}: {execs} executions in {secs:.0} s ({:.0}/s), corpus {} (+{added} new outcomes), slowest input {:.0} ms ({} bytes), no failure",
        execs as f64 / secs.max(1e-9),
        corpus.len(),
        slowest.0.as_secs_f64() * 1e3,
        slowest.1.len()
    );
    // Kept beside failures (not copied to the regressions) for --replay.
    if let Some(dir) = ARTIFACTS.get() {
        let _ = std::fs::create_dir_all(dir);
        let _ = std::fs::write(dir.join("slowest"), &slowest.1);
    }
}

fn save(dir: &Path, data: &[u8]) {
    let _ = std::fs::create_dir_all(dir);
    let _ = std::fs::write(dir.join(format!("{:016x}", fnv(data))), data);
}
