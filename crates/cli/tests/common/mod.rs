//! What the command-line tests share: the binary, the repository, and a
//! run that must succeed; `cluster`: a real local cluster of processes.
#![allow(dead_code)] // each test file uses part of it

pub mod cluster;

use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::Command;

/// The `mrsched` binary under test.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mrsched"))
}

/// The repository root (examples, test data).
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Run `mrsched args` from the repository root; it must succeed. Its stdout.
pub fn run_ok<S: AsRef<OsStr>>(args: &[S]) -> Vec<u8> {
    let out = bin().args(args).current_dir(repo()).output().expect("runs");
    assert!(
        out.status.success(),
        "mrsched {:?} failed: {}",
        args.iter().map(|a| a.as_ref()).collect::<Vec<_>>(),
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}
