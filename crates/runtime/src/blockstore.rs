//! Checksummed files on a worker's disk: block replicas and map output
//! partitions.
//!
//! Disks return wrong bytes now and then (bit rot, torn writes, a bad
//! controller), and a block read back wrong would silently become wrong job
//! output. So every file a worker stores for others to read gets a CRC-32C
//! (the checksum HDFS uses, computed with the CPU's CRC instructions by the
//! `crc32c` crate) in a *sidecar* file beside it, `<file>.crc` (eight hex
//! digits). The data file stays exactly the block's bytes, so nothing else
//! that reads it needs to know about the checksum. Every read checks the
//! data against the sidecar; a mismatch is [`ReadError::Corrupt`] and the
//! caller drops that copy and reads another one.
//!
//! Writes put the sidecar in place first and the data file second (each
//! through a temporary file and a rename), so a crash can leave a sidecar
//! without data (a missing block) but never data with a stale sidecar. A
//! data file without a sidecar (written before checksums existed) is read
//! without a check.
//!
//! Between processes the checksum travels in the [`CRC_HEADER`] header of
//! the answer, and the reader checks the bytes it received against it: the
//! server's check catches a bad disk, the reader's a bad network path.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// HTTP header carrying the CRC-32C (hex) of a block or partition body.
pub const CRC_HEADER: &str = "x-mrsched-crc32c";

/// CRC-32C of `data`.
pub fn crc(data: &[u8]) -> u32 {
    crc32c::crc32c(data)
}

/// A checksum as it is written in sidecars and headers.
pub fn crc_hex(c: u32) -> String {
    format!("{c:08x}")
}

/// Parse a checksum written by [`crc_hex`].
pub fn parse_crc(s: &str) -> Option<u32> {
    let s = s.trim();
    (s.len() == 8)
        .then(|| u32::from_str_radix(s, 16).ok())
        .flatten()
}

/// Why a checksummed read gave no data.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// No such file.
    #[error("not stored here")]
    Missing,
    /// The data does not match its checksum.
    #[error("checksum mismatch (stored {stored:08x}, data {actual:08x})")]
    Corrupt {
        /// The checksum in the sidecar.
        stored: u32,
        /// The checksum of the data read.
        actual: u32,
    },
    /// Another I/O error.
    #[error("{0}")]
    Io(io::Error),
}

fn sidecar(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".crc");
    PathBuf::from(s)
}

fn tmp_of(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".tmp");
    PathBuf::from(s)
}

/// Write the sidecar of `path` (atomically).
pub fn write_sidecar(path: &Path, c: u32) -> io::Result<()> {
    let side = sidecar(path);
    let tmp = tmp_of(&side);
    std::fs::write(&tmp, crc_hex(c) + "\n")?;
    std::fs::rename(&tmp, &side)
}

/// The checksum stored beside `path`, if any. A sidecar that cannot be
/// parsed is reported as corrupt data by [`read_verified`].
fn read_sidecar(path: &Path) -> io::Result<Option<Option<u32>>> {
    match std::fs::read_to_string(sidecar(path)) {
        Ok(s) => Ok(Some(parse_crc(&s))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Read `path` and check it against its sidecar; returns the data and its
/// checksum.
pub fn read_verified(path: &Path) -> Result<(Vec<u8>, u32), ReadError> {
    let data = match std::fs::read(path) {
        Ok(d) => d,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(ReadError::Missing),
        Err(e) => return Err(ReadError::Io(e)),
    };
    let actual = crc(&data);
    match read_sidecar(path).map_err(ReadError::Io)? {
        None => Ok((data, actual)),
        Some(Some(stored)) if stored == actual => Ok((data, actual)),
        Some(stored) => Err(ReadError::Corrupt {
            stored: stored.unwrap_or(0),
            actual,
        }),
    }
}

/// Write `data` to `path` with its sidecar; returns the checksum.
pub fn write_checked(path: &Path, data: &[u8]) -> io::Result<u32> {
    let c = crc(data);
    let tmp = tmp_of(path);
    std::fs::write(&tmp, data)?;
    write_sidecar(path, c)?;
    std::fs::rename(&tmp, path)?;
    Ok(c)
}

/// Checksum a file written by other means and write its sidecar (map
/// output partitions, written by the external sort). Returns the checksum.
pub fn seal(path: &Path) -> io::Result<u32> {
    let c = crc(&std::fs::read(path)?);
    write_sidecar(path, c)?;
    Ok(c)
}

/// Remove `path` and its sidecar.
pub fn remove(path: &Path) {
    let _ = std::fs::remove_file(path);
    let _ = std::fs::remove_file(sidecar(path));
}

/// Check `data` received with checksum `expected` (from [`CRC_HEADER`];
/// `None` when the sender sent none).
pub fn check_received(data: &[u8], expected: Option<u32>) -> Result<(), String> {
    match expected {
        Some(e) if crc(data) != e => Err(format!(
            "checksum mismatch in transfer (sent {e:08x}, received {:08x})",
            crc(data)
        )),
        _ => Ok(()),
    }
}

/// A writer that computes the CRC-32C of what goes through it.
pub struct CrcWriter<W> {
    inner: W,
    crc: u32,
}

impl<W: Write> CrcWriter<W> {
    /// Wrap `inner`.
    pub fn new(inner: W) -> Self {
        CrcWriter { inner, crc: 0 }
    }
    /// The checksum of everything written so far.
    pub fn crc(&self) -> u32 {
        self.crc
    }
    /// The inner writer.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.inner
    }
}

impl<W: Write> Write for CrcWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.crc = crc32c::crc32c_append(self.crc, &buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// A worker's block replicas: `<dir>/<id>` and `<dir>/<id>.crc`.
#[derive(Clone, Debug)]
pub struct BlockStore {
    dir: PathBuf,
}

impl BlockStore {
    /// The store in `dir` (which must exist).
    pub fn new(dir: PathBuf) -> BlockStore {
        BlockStore { dir }
    }

    /// The data file of block `id`.
    pub fn path(&self, id: u64) -> PathBuf {
        self.dir.join(id.to_string())
    }

    /// Store block `id`; returns its checksum.
    pub fn put(&self, id: u64, data: &[u8]) -> io::Result<u32> {
        write_checked(&self.path(id), data)
    }

    /// Read block `id`, checked.
    pub fn get(&self, id: u64) -> Result<(Vec<u8>, u32), ReadError> {
        read_verified(&self.path(id))
    }

    /// Make a finished temporary file block `id`, with checksum `c`
    /// computed while it was written ([`CrcWriter`]).
    pub fn commit(&self, id: u64, tmp: &Path, c: u32) -> io::Result<()> {
        let path = self.path(id);
        write_sidecar(&path, c)?;
        std::fs::rename(tmp, path)
    }

    /// Delete block `id`.
    pub fn remove(&self, id: u64) {
        remove(&self.path(id));
    }

    /// Ids of the blocks held (data files; sidecars and temporary files
    /// are not blocks).
    pub fn ids(&self) -> Vec<u64> {
        let mut v: Vec<u64> = std::fs::read_dir(&self.dir)
            .map(|d| {
                d.flatten()
                    .filter_map(|e| e.file_name().to_str().and_then(|s| s.parse().ok()))
                    .collect()
            })
            .unwrap_or_default();
        v.sort_unstable();
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flip(path: &Path, at: usize) {
        let mut d = std::fs::read(path).unwrap();
        d[at] ^= 0x20;
        std::fs::write(path, d).unwrap();
    }

    #[test]
    fn blocks_round_trip_and_corruption_is_caught() {
        let dir = tempfile::tempdir().unwrap();
        let s = BlockStore::new(dir.path().to_path_buf());
        let data = b"the quick brown fox\njumps over\n".repeat(100);
        let c = s.put(7, &data).unwrap();
        assert_eq!(c, crc(&data));
        assert_eq!(s.get(7).unwrap(), (data.clone(), c));
        assert_eq!(s.ids(), vec![7], "sidecars are not blocks");
        // One flipped bit anywhere is caught.
        flip(&s.path(7), 1234);
        match s.get(7) {
            Err(ReadError::Corrupt { stored, actual }) => {
                assert_eq!(stored, c);
                assert_ne!(actual, c);
            }
            other => panic!("expected corruption, got {other:?}"),
        }
        s.remove(7);
        assert!(matches!(s.get(7), Err(ReadError::Missing)));
        assert!(s.ids().is_empty());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_damaged_sidecar_is_corruption_and_a_missing_one_is_unchecked() {
        let dir = tempfile::tempdir().unwrap();
        let s = BlockStore::new(dir.path().to_path_buf());
        s.put(1, b"abc").unwrap();
        std::fs::write(dir.path().join("1.crc"), "zz\n").unwrap();
        assert!(matches!(s.get(1), Err(ReadError::Corrupt { .. })));
        std::fs::remove_file(dir.path().join("1.crc")).unwrap();
        assert_eq!(s.get(1).unwrap().0, b"abc");
    }

    #[test]
    fn streamed_writes_commit_with_their_checksum() {
        let dir = tempfile::tempdir().unwrap();
        let s = BlockStore::new(dir.path().to_path_buf());
        let tmp = dir.path().join("9.tmp");
        let mut w = CrcWriter::new(std::fs::File::create(&tmp).unwrap());
        for i in 0..1000 {
            writeln!(w, "line {i}").unwrap();
        }
        w.flush().unwrap();
        let c = w.crc();
        s.commit(9, &tmp, c).unwrap();
        let (data, got) = s.get(9).unwrap();
        assert_eq!(got, c);
        assert_eq!(crc(&data), c, "the streamed checksum is the data's");
        assert!(!tmp.exists());
    }

    #[test]
    fn sealed_files_and_transfers_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("0");
        std::fs::write(&p, b"key\tvalue\n").unwrap();
        let c = seal(&p).unwrap();
        assert_eq!(read_verified(&p).unwrap().1, c);
        flip(&p, 0);
        assert!(matches!(read_verified(&p), Err(ReadError::Corrupt { .. })));
        assert!(check_received(b"abc", Some(crc(b"abc"))).is_ok());
        assert!(check_received(b"abd", Some(crc(b"abc")))
            .unwrap_err()
            .contains("mismatch"));
        assert!(check_received(b"abd", None).is_ok());
        assert_eq!(parse_crc(&crc_hex(0xdeadbeef)), Some(0xdeadbeef));
        assert_eq!(parse_crc("xyz"), None);
        // A known CRC-32C value (RFC 3720 test vector: 32 zero bytes).
        assert_eq!(crc(&[0u8; 32]), 0x8a9136aa);
    }
}
