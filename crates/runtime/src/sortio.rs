//! Map output on disk: partition, sort, spill, merge (external sort).
//!
//! A map attempt collects its pairs in a buffer of bounded size. When the
//! buffer is full it is sorted by (partition, key, value) and written as one
//! *spill* (a run per partition). At the end the spills' runs of each
//! partition are merged into one sorted file per partition, which reducers
//! fetch. A reducer merges the runs it fetched, again with a bounded fan-in,
//! and groups values by key. Memory use is the buffer plus one record per
//! open run, whatever the input size.
//!
//! Counting programs (wordcount, grep) combine in the map: the buffer holds
//! one count per key, and equal keys are summed while merging (Hadoop's
//! combiner).
//!
//! Record format: `u32` key length, `u32` value length (little endian), key,
//! value.

use crate::program::parse_count;
use rustc_hash::FxHashMap;
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Most runs merged at once; more are merged in passes.
pub const MERGE_FAN_IN: usize = 64;

/// Write one record.
pub fn write_record(w: &mut impl Write, k: &[u8], v: &[u8]) -> io::Result<()> {
    w.write_all(&(k.len() as u32).to_le_bytes())?;
    w.write_all(&(v.len() as u32).to_le_bytes())?;
    w.write_all(k)?;
    w.write_all(v)
}

/// Reads records from a byte range of a file.
pub struct RunReader {
    r: BufReader<io::Take<File>>,
}

impl RunReader {
    /// Records in `path` from `offset`, `len` bytes.
    pub fn open(path: &Path, offset: u64, len: u64) -> io::Result<RunReader> {
        let mut f = File::open(path)?;
        f.seek(SeekFrom::Start(offset))?;
        Ok(RunReader {
            r: BufReader::with_capacity(1 << 16, f.take(len)),
        })
    }

    /// A whole file.
    pub fn open_file(path: &Path) -> io::Result<RunReader> {
        let len = std::fs::metadata(path)?.len();
        RunReader::open(path, 0, len)
    }

    /// The next record, or `None` at the end.
    pub fn next_record(&mut self) -> io::Result<Option<(Vec<u8>, Vec<u8>)>> {
        let mut h = [0u8; 8];
        match self.r.read_exact(&mut h[..1]) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(e),
        }
        self.r.read_exact(&mut h[1..])?;
        let kl = u32::from_le_bytes(h[..4].try_into().expect("4 bytes")) as usize;
        let vl = u32::from_le_bytes(h[4..].try_into().expect("4 bytes")) as usize;
        let mut k = vec![0; kl];
        self.r.read_exact(&mut k)?;
        let mut v = vec![0; vl];
        self.r.read_exact(&mut v)?;
        Ok(Some((k, v)))
    }
}

struct Head {
    k: Vec<u8>,
    v: Vec<u8>,
    run: usize,
}

impl PartialEq for Head {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Head {}
impl PartialOrd for Head {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Head {
    // Reversed: BinaryHeap is a max-heap and we want the smallest first.
    fn cmp(&self, o: &Self) -> Ordering {
        (&o.k, &o.v, o.run).cmp(&(&self.k, &self.v, self.run))
    }
}

/// K-way merge of sorted runs, smallest (key, value) first.
pub struct Merger {
    runs: Vec<RunReader>,
    heap: BinaryHeap<Head>,
}

impl Merger {
    /// Merge `runs`.
    pub fn new(mut runs: Vec<RunReader>) -> io::Result<Merger> {
        let mut heap = BinaryHeap::with_capacity(runs.len());
        for (i, r) in runs.iter_mut().enumerate() {
            if let Some((k, v)) = r.next_record()? {
                heap.push(Head { k, v, run: i });
            }
        }
        Ok(Merger { runs, heap })
    }

    /// The next record in order.
    pub fn next_record(&mut self) -> io::Result<Option<(Vec<u8>, Vec<u8>)>> {
        let Some(h) = self.heap.pop() else {
            return Ok(None);
        };
        if let Some((k, v)) = self.runs[h.run].next_record()? {
            self.heap.push(Head { k, v, run: h.run });
        }
        Ok(Some((h.k, h.v)))
    }
}

/// Merge sorted run files in passes of at most [`MERGE_FAN_IN`] runs until
/// at most that many are left (which one [`Merger`] then reads); `combine`
/// sums counts of equal keys. Merged inputs are deleted.
pub fn reduce_runs(
    mut files: Vec<PathBuf>,
    tmp_dir: &Path,
    combine: bool,
) -> io::Result<Vec<PathBuf>> {
    let mut pass = 0;
    while files.len() > MERGE_FAN_IN {
        let mut next = Vec::new();
        for (i, chunk) in files.chunks(MERGE_FAN_IN).enumerate() {
            let out = tmp_dir.join(format!("merge-{pass}-{i}"));
            merge_into(chunk, &out, combine)?;
            for f in chunk {
                let _ = std::fs::remove_file(f);
            }
            next.push(out);
        }
        files = next;
        pass += 1;
    }
    Ok(files)
}

/// Merge `files` into `out`.
pub fn merge_into(files: &[PathBuf], out: &Path, combine: bool) -> io::Result<u64> {
    let runs = files
        .iter()
        .map(|f| RunReader::open_file(f))
        .collect::<io::Result<Vec<_>>>()?;
    let mut m = Merger::new(runs)?;
    let mut w = BufWriter::with_capacity(1 << 16, File::create(out)?);
    let n = drain_merged(&mut m, &mut w, combine)?;
    w.flush()?;
    Ok(n)
}

/// Write a merger's records to `w`, summing counts of equal keys when
/// `combine`. Returns bytes written.
fn drain_merged(m: &mut Merger, w: &mut impl Write, combine: bool) -> io::Result<u64> {
    let mut bytes = 0u64;
    if !combine {
        while let Some((k, v)) = m.next_record()? {
            write_record(w, &k, &v)?;
            bytes += 8 + (k.len() + v.len()) as u64;
        }
        return Ok(bytes);
    }
    let mut cur: Option<(Vec<u8>, u64)> = None;
    let bad = |e: String| io::Error::new(io::ErrorKind::InvalidData, e);
    while let Some((k, v)) = m.next_record()? {
        let c = parse_count(&v).map_err(bad)?;
        match cur.as_mut() {
            Some((ck, cc)) if *ck == k => *cc += c,
            _ => {
                if let Some((ck, cc)) = cur.take() {
                    let s = cc.to_string();
                    write_record(w, &ck, s.as_bytes())?;
                    bytes += 8 + (ck.len() + s.len()) as u64;
                }
                cur = Some((k, c));
            }
        }
    }
    if let Some((ck, cc)) = cur {
        let s = cc.to_string();
        write_record(w, &ck, s.as_bytes())?;
        bytes += 8 + (ck.len() + s.len()) as u64;
    }
    Ok(bytes)
}

/// Groups of equal keys from a merger: `(key, values)`.
pub struct Groups {
    m: Merger,
    peek: Option<(Vec<u8>, Vec<u8>)>,
    started: bool,
}

impl Groups {
    /// Group the merger's records.
    pub fn new(m: Merger) -> Groups {
        Groups {
            m,
            peek: None,
            started: false,
        }
    }
}

impl Iterator for Groups {
    type Item = io::Result<(Vec<u8>, Vec<Vec<u8>>)>;
    fn next(&mut self) -> Option<Self::Item> {
        if !self.started {
            self.started = true;
            match self.m.next_record() {
                Ok(r) => self.peek = r,
                Err(e) => return Some(Err(e)),
            }
        }
        let (k, v) = self.peek.take()?;
        let mut vs = vec![v];
        loop {
            match self.m.next_record() {
                Ok(Some((k2, v2))) if k2 == k => vs.push(v2),
                Ok(other) => {
                    self.peek = other;
                    break;
                }
                Err(e) => return Some(Err(e)),
            }
        }
        Some(Ok((k, vs)))
    }
}

/// What one spill holds: per partition, `(offset, len)` in its file.
struct Spill {
    path: PathBuf,
    ranges: Vec<(u64, u64)>,
}

/// Sizes of one partition file of a map's output.
#[derive(Clone, Debug, Default)]
pub struct PartitionInfo {
    /// Bytes.
    pub bytes: u64,
}

/// A map's output for one job: buffer, spills, final per-partition files.
pub struct MapOutputWriter {
    dir: PathBuf,
    reduces: u32,
    combine: bool,
    limit: usize,
    // Plain pairs: arena plus index (partition, offset, key len, value len).
    arena: Vec<u8>,
    index: Vec<(u32, u32, u32, u32)>,
    // Counting programs: one count per key.
    counts: FxHashMap<Vec<u8>, u64>,
    counts_bytes: usize,
    spills: Vec<Spill>,
    /// Records emitted by the map function.
    pub records: u64,
}

impl MapOutputWriter {
    /// Output of `reduces` partitions into `dir` (created), holding at most
    /// about `limit` bytes in memory; `combine` sums counts per key.
    pub fn new(dir: &Path, reduces: u32, combine: bool, limit: usize) -> io::Result<Self> {
        std::fs::create_dir_all(dir)?;
        Ok(MapOutputWriter {
            dir: dir.to_path_buf(),
            reduces: reduces.max(1),
            combine,
            limit: limit.max(256),
            arena: Vec::new(),
            index: Vec::new(),
            counts: FxHashMap::default(),
            counts_bytes: 0,
            spills: Vec::new(),
            records: 0,
        })
    }

    /// Add a pair in partition `part`.
    pub fn add(&mut self, part: u32, k: &[u8], v: &[u8]) -> io::Result<()> {
        self.records += 1;
        let off = self.arena.len() as u32;
        self.arena.extend_from_slice(k);
        self.arena.extend_from_slice(v);
        self.index.push((part, off, k.len() as u32, v.len() as u32));
        if self.arena.len() + self.index.len() * 16 >= self.limit
            || self.arena.len() > (u32::MAX as usize) / 2
        {
            self.spill(&|_| 0)?;
        }
        Ok(())
    }

    /// Add `c` to the count of `k` (combining output).
    pub fn add_count(&mut self, k: &[u8], c: u64, part: &dyn Fn(&[u8]) -> u32) -> io::Result<()> {
        self.records += 1;
        if let Some(x) = self.counts.get_mut(k) {
            *x += c;
            return Ok(());
        }
        self.counts_bytes += k.len() + 64;
        self.counts.insert(k.to_vec(), c);
        if self.counts_bytes >= self.limit {
            self.spill(part)?;
        }
        Ok(())
    }

    fn spill(&mut self, part_of: &dyn Fn(&[u8]) -> u32) -> io::Result<()> {
        if self.index.is_empty() && self.counts.is_empty() {
            return Ok(());
        }
        let path = self.dir.join(format!("spill-{}", self.spills.len()));
        let mut w = BufWriter::with_capacity(1 << 16, File::create(&path)?);
        let mut ranges = vec![(0u64, 0u64); self.reduces as usize];
        let mut pos = 0u64;
        if self.combine {
            let mut v: Vec<(u32, Vec<u8>, u64)> = self
                .counts
                .drain()
                .map(|(k, c)| (part_of(&k), k, c))
                .collect();
            v.sort_unstable();
            let mut cur = u32::MAX;
            for (p, k, c) in v {
                if p != cur {
                    cur = p;
                    ranges[p as usize].0 = pos;
                }
                let s = c.to_string();
                write_record(&mut w, &k, s.as_bytes())?;
                let n = 8 + (k.len() + s.len()) as u64;
                ranges[p as usize].1 += n;
                pos += n;
            }
            self.counts_bytes = 0;
        } else {
            let arena = &self.arena;
            let key = |e: &(u32, u32, u32, u32)| {
                let (o, kl, vl) = (e.1 as usize, e.2 as usize, e.3 as usize);
                (e.0, &arena[o..o + kl], &arena[o + kl..o + kl + vl])
            };
            self.index.sort_unstable_by(|a, b| key(a).cmp(&key(b)));
            let mut cur = u32::MAX;
            for e in &self.index {
                let (p, k, v) = key(e);
                if p != cur {
                    cur = p;
                    ranges[p as usize].0 = pos;
                }
                write_record(&mut w, k, v)?;
                let n = 8 + (k.len() + v.len()) as u64;
                ranges[p as usize].1 += n;
                pos += n;
            }
            self.arena.clear();
            self.index.clear();
        }
        w.flush()?;
        self.spills.push(Spill { path, ranges });
        Ok(())
    }

    /// Finish: spill what is buffered, merge each partition's runs into
    /// `dir/<partition>`, each with its checksum in `dir/<partition>.crc`
    /// (`blockstore`). Returns each partition's size.
    pub fn finish(mut self, part_of: &dyn Fn(&[u8]) -> u32) -> io::Result<Vec<PartitionInfo>> {
        self.spill(part_of)?;
        let mut out = Vec::with_capacity(self.reduces as usize);
        for p in 0..self.reduces as usize {
            let runs = self
                .spills
                .iter()
                .filter(|s| s.ranges[p].1 > 0)
                .map(|s| RunReader::open(&s.path, s.ranges[p].0, s.ranges[p].1))
                .collect::<io::Result<Vec<_>>>()?;
            let path = self.dir.join(p.to_string());
            let file = BufWriter::with_capacity(1 << 16, File::create(&path)?);
            let mut w = crate::blockstore::CrcWriter::new(file);
            // Spills rarely exceed the fan-in (each is a full buffer); when
            // they do, the merge still works, with more open files.
            let mut m = Merger::new(runs)?;
            let bytes = drain_merged(&mut m, &mut w, self.combine)?;
            w.flush()?;
            // The shuffle server checks every partition against this.
            crate::blockstore::write_sidecar(&path, w.crc())?;
            out.push(PartitionInfo { bytes });
        }
        for s in &self.spills {
            let _ = std::fs::remove_file(&s.path);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(path: &Path) -> Vec<(Vec<u8>, Vec<u8>)> {
        let mut r = RunReader::open_file(path).unwrap();
        let mut v = Vec::new();
        while let Some(x) = r.next_record().unwrap() {
            v.push(x);
        }
        v
    }

    #[test]
    fn spills_merge_into_sorted_partitions() {
        let dir = tempfile::tempdir().unwrap();
        // A tiny buffer forces many spills.
        let mut w = MapOutputWriter::new(dir.path(), 3, false, 256).unwrap();
        let mut want: Vec<Vec<(Vec<u8>, Vec<u8>)>> = vec![Vec::new(); 3];
        for i in 0..500u32 {
            let k = format!("k{}", (i * 7919) % 113).into_bytes();
            let v = format!("{i}").into_bytes();
            let p = i % 3;
            w.add(p, &k, &v).unwrap();
            want[p as usize].push((k, v));
        }
        assert!(w.spills.len() > 10);
        let info = w.finish(&|_| 0).unwrap();
        for p in 0..3 {
            want[p].sort();
            let got = read_all(&dir.path().join(p.to_string()));
            assert_eq!(got, want[p]);
            let bytes: u64 = got
                .iter()
                .map(|(k, v)| 8 + (k.len() + v.len()) as u64)
                .sum();
            assert_eq!(info[p].bytes, bytes);
        }
    }

    #[test]
    fn counts_combine_across_spills() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = MapOutputWriter::new(dir.path(), 2, true, 300).unwrap();
        let part = |k: &[u8]| (k[0] % 2) as u32;
        for i in 0..1000u32 {
            let k = format!("{}", i % 37).into_bytes();
            w.add_count(&k, 1, &part).unwrap();
        }
        w.finish(&part).unwrap();
        let mut total = 0;
        for p in 0..2 {
            let got = read_all(&dir.path().join(p.to_string()));
            let keys: Vec<_> = got.iter().map(|x| x.0.clone()).collect();
            let mut sorted = keys.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(keys, sorted, "one record per key, in order");
            for (k, v) in got {
                assert_eq!(part(&k), p as u32);
                let c = parse_count(&v).unwrap();
                let i: u32 = std::str::from_utf8(&k).unwrap().parse().unwrap();
                assert_eq!(c, (0..1000).filter(|x| x % 37 == i).count() as u64);
                total += c;
            }
        }
        assert_eq!(total, 1000);
    }

    #[test]
    fn multi_pass_merge_and_grouping() {
        let dir = tempfile::tempdir().unwrap();
        let mut files = Vec::new();
        for f in 0..(MERGE_FAN_IN + 5) {
            let path = dir.path().join(format!("run{f}"));
            let mut w = File::create(&path).unwrap();
            for k in 0..3 {
                write_record(
                    &mut w,
                    format!("key{k}").as_bytes(),
                    format!("{f:03}").as_bytes(),
                )
                .unwrap();
            }
            files.push(path);
        }
        let left = reduce_runs(files, dir.path(), false).unwrap();
        assert_eq!(left.len(), 2, "69 runs: one pass of 64, then 2 runs");
        let runs = left
            .iter()
            .map(|f| RunReader::open_file(f).unwrap())
            .collect();
        let m = Merger::new(runs).unwrap();
        let groups: Vec<_> = Groups::new(m).map(|g| g.unwrap()).collect();
        assert_eq!(groups.len(), 3);
        for (k, vs) in groups {
            assert!(k.starts_with(b"key"));
            assert_eq!(vs.len(), MERGE_FAN_IN + 5);
            let mut s = vs.clone();
            s.sort();
            assert_eq!(vs, s, "values sorted within a key");
        }
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(48))]

            /// Whatever the buffer size (so however many spills), each
            /// partition file holds exactly that partition's pairs, sorted;
            /// with combining, one summed count per key.
            #[test]
            fn partitions_are_the_sorted_input(
                pairs in prop::collection::vec(("[a-d]{0,3}", "[0-9]{0,2}"), 0..200),
                reduces in 1u32..4,
                limit in 256usize..2048,
                combine in any::<bool>(),
            ) {
                let dir = tempfile::tempdir().unwrap();
                let part = |k: &[u8]| (crate::program::fnv1a(k) % reduces as u64) as u32;
                let mut w = MapOutputWriter::new(dir.path(), reduces, combine, limit).unwrap();
                let mut want: Vec<Vec<(Vec<u8>, Vec<u8>)>> = vec![Vec::new(); reduces as usize];
                let mut sums: Vec<std::collections::BTreeMap<Vec<u8>, u64>> =
                    vec![Default::default(); reduces as usize];
                for (k, v) in &pairs {
                    let (k, v) = (k.as_bytes(), v.as_bytes());
                    if combine {
                        let c = v.len() as u64 + 1;
                        w.add_count(k, c, &part).unwrap();
                        *sums[part(k) as usize].entry(k.to_vec()).or_default() += c;
                    } else {
                        w.add(part(k), k, v).unwrap();
                        want[part(k) as usize].push((k.to_vec(), v.to_vec()));
                    }
                }
                w.finish(&part).unwrap();
                for p in 0..reduces as usize {
                    let got = read_all(&dir.path().join(p.to_string()));
                    if combine {
                        let exp: Vec<(Vec<u8>, Vec<u8>)> = sums[p]
                            .iter()
                            .map(|(k, c)| (k.clone(), c.to_string().into_bytes()))
                            .collect();
                        prop_assert_eq!(got, exp);
                    } else {
                        want[p].sort();
                        prop_assert_eq!(&got, &want[p]);
                    }
                }
            }
        }
    }
}
