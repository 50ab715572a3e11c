//! The single-process baseline of `scripts/bench-wordcount.sh`, and its
//! corpus generator.
//!
//! ```text
//! wordcount_baseline gen BYTES FILE       # a deterministic text corpus
//! wordcount_baseline count FILE REDUCES   # wordcount in one process, to stdout
//! ```
//!
//! `count` runs the same map function as the live cluster's wordcount
//! (`Program::Wordcount`) over the file in 8 MB line-aligned chunks, sums
//! counts in one hash map, and writes each partition sorted, in partition
//! order: the same bytes as the cluster's output file. It prints its
//! throughput on stderr.

use mrsched_runtime::program::Program;
use rustc_hash::FxHashMap;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::time::Instant;

fn gen(bytes: u64, path: &str) -> std::io::Result<()> {
    // A Zipf-like vocabulary of 60,000 made-up words.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let vocab: Vec<Vec<u8>> = (0..60_000)
        .map(|_| {
            let len = 2 + (next() % 9) as usize;
            (0..len).map(|_| b'a' + (next() % 26) as u8).collect()
        })
        .collect();
    let mut w = BufWriter::with_capacity(1 << 22, std::fs::File::create(path)?);
    let mut written = 0u64;
    let mut line = Vec::with_capacity(256);
    while written < bytes {
        line.clear();
        let words = 6 + next() % 10;
        for k in 0..words {
            if k > 0 {
                line.push(b' ');
            }
            // Rank ~ 1/u: a few words are very common.
            let u = (next() % 1_000_000) as f64 / 1_000_000.0 + 1e-6;
            let rank = ((1.0 / u) as usize).min(vocab.len()) - 1;
            line.extend_from_slice(&vocab[rank]);
        }
        line.push(b'\n');
        w.write_all(&line)?;
        written += line.len() as u64;
    }
    w.flush()
}

fn count(path: &str, reduces: u32) -> std::io::Result<()> {
    let t0 = Instant::now();
    let f = std::fs::File::open(path)?;
    let size = f.metadata()?.len();
    let mut r = BufReader::with_capacity(1 << 20, f);
    let mut counts: FxHashMap<Vec<u8>, u64> = FxHashMap::default();
    let mut chunk: Vec<u8> = Vec::with_capacity(9 << 20);
    loop {
        chunk.clear();
        (&mut r).take(8 << 20).read_to_end(&mut chunk)?;
        if chunk.is_empty() {
            break;
        }
        // Finish the last line.
        if chunk.last() != Some(&b'\n') {
            r.read_until(b'\n', &mut chunk)?;
        }
        Program::Wordcount
            .map(
                &chunk,
                &mut |_, _| {},
                &mut |k, c| match counts.get_mut(k) {
                    Some(x) => *x += c,
                    None => {
                        counts.insert(k.to_vec(), c);
                    }
                },
                &|| false,
            )
            .map_err(std::io::Error::other)?;
    }
    let mut parts: Vec<Vec<(Vec<u8>, u64)>> = vec![Vec::new(); reduces.max(1) as usize];
    for (k, c) in counts {
        parts[Program::Wordcount.partition(&k, reduces) as usize].push((k, c));
    }
    let out = std::io::stdout();
    let mut w = BufWriter::with_capacity(1 << 20, out.lock());
    for mut p in parts {
        p.sort_unstable();
        for (k, c) in p {
            w.write_all(&k)?;
            writeln!(w, "\t{c}")?;
        }
    }
    w.flush()?;
    let s = t0.elapsed().as_secs_f64();
    eprintln!(
        "baseline: {:.1} MB in {:.2} s = {:.1} MB/s",
        size as f64 / 1e6,
        s,
        size as f64 / 1e6 / s
    );
    Ok(())
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let r = match a.get(1).map(String::as_str) {
        Some("gen") if a.len() == 4 => match a[2].parse() {
            Ok(b) => gen(b, &a[3]),
            Err(_) => Err(std::io::Error::other("BYTES must be a number")),
        },
        Some("count") if a.len() == 4 => match a[3].parse() {
            Ok(r) => count(&a[2], r),
            Err(_) => Err(std::io::Error::other("REDUCES must be a number")),
        },
        _ => Err(std::io::Error::other(
            "usage: wordcount_baseline gen BYTES FILE | count FILE REDUCES",
        )),
    };
    if let Err(e) = r {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
