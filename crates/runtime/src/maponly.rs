//! Map-only jobs (`reduces = 0`), as in Hadoop: a map's output is not
//! partitioned, sorted or shuffled but written straight to the block store
//! as one block of the job's output file, in map order (output block `i`
//! is map task `i`'s output).
//!
//! The lines are the ones a reduce would write for the same pairs, in the
//! order the map emits them: `key<TAB>value`, or `key` alone when the value
//! is empty (sort, a streaming mapper's lines without a tab). Counting
//! programs (wordcount, grep) emit a count of 1 per occurrence, as Hadoop's
//! map-only jobs do without a combiner. A map whose output is empty gives
//! an empty block, so the file has exactly one block per map.
//!
//! [`sequential_map_only`] is the same computation in one process, the
//! reference the tests compare a live run with.

use crate::program::Program;
use std::io::Write;

/// Write one output line for the pair `(k, v)`.
fn line(out: &mut dyn Write, k: &[u8], v: &[u8]) -> std::io::Result<()> {
    out.write_all(k)?;
    if !v.is_empty() {
        out.write_all(b"\t")?;
        out.write_all(v)?;
    }
    out.write_all(b"\n")
}

/// Run `program`'s map over one block, writing its output lines to `out`;
/// returns the number of records written.
pub fn write_map_only(
    program: &Program,
    data: &[u8],
    out: &mut dyn Write,
    cancel: &(dyn Fn() -> bool + Sync),
) -> Result<u64, String> {
    let out = std::cell::RefCell::new(out);
    let err: std::cell::RefCell<Option<std::io::Error>> = Default::default();
    let records = std::cell::Cell::new(0u64);
    let put = |k: &[u8], v: &[u8]| {
        if err.borrow().is_some() {
            return;
        }
        records.set(records.get() + 1);
        let mut o = out.borrow_mut();
        if let Err(e) = line(&mut **o, k, v) {
            *err.borrow_mut() = Some(e);
        }
    };
    program.map(
        data,
        &mut |k, v| put(k, v),
        &mut |k, c| put(k, c.to_string().as_bytes()),
        cancel,
    )?;
    if let Some(e) = err.into_inner() {
        return Err(format!("map output: {e}"));
    }
    Ok(records.get())
}

/// The output blocks of a map-only job over `blocks` (its input blocks in
/// order), computed in one process.
pub fn sequential_map_only(program: &Program, blocks: &[&[u8]]) -> Result<Vec<Vec<u8>>, String> {
    blocks
        .iter()
        .map(|b| {
            let mut out = Vec::new();
            write_map_only(program, b, &mut out, &|| false)?;
            Ok(out)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_only_lines_are_the_pairs_in_emit_order() {
        let grep = Program::Grep {
            pattern: "err".into(),
        };
        let mut out = Vec::new();
        let n = write_map_only(&grep, b"ok\nerr 1\nfine\nan err\n", &mut out, &|| false).unwrap();
        assert_eq!(n, 2);
        assert_eq!(out, b"err 1\t1\nan err\t1\n");
        let mut out = Vec::new();
        write_map_only(&Program::Wordcount, b"b a b\n", &mut out, &|| false).unwrap();
        assert_eq!(out, b"b\t1\na\t1\nb\t1\n");
        let mut out = Vec::new();
        write_map_only(&Program::Sort, b"z\ny\n", &mut out, &|| false).unwrap();
        assert_eq!(out, b"z\ny\n");
        let blocks = sequential_map_only(&grep, &[b"err\n", b"none\n"]).unwrap();
        assert_eq!(blocks, vec![b"err\t1\n".to_vec(), Vec::new()]);
    }

    #[test]
    fn a_cancelled_map_only_attempt_stops() {
        let data = "w\n".repeat(200_000);
        let mut out = Vec::new();
        let e = write_map_only(&Program::Wordcount, data.as_bytes(), &mut out, &|| true);
        assert_eq!(e.unwrap_err(), "killed");
    }
}
