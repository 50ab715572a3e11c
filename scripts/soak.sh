#!/usr/bin/env bash
# The soak at full size: 60 jobs (wordcount, grep, sort, loadgen and a
# streaming job whose maps sleep) from 3 users over two inputs of 1.6 and
# 1.2 MB in 64 KB blocks (3 replicas), submitted over three minutes to a master and 4 workers of the release `mrsched` binary, while
# a chaos loop kills a random worker with SIGKILL every 20-40 s and starts
# it again 5 s later, and kills the master once. First the same jobs run
# without faults, for the extra time. Checks every job succeeded exactly
# once with an output equal to the sequential computation and every block
# is back at its replication; prints jobs, kills, master restarts, time
# against the fault-free run and the bytes re-replicated.
#
#   scripts/soak.sh [JOBS] [SUBMIT_OVER_S]
#
# The same test at CI size (15 jobs over 16 s, a kill every 2-5 s) runs in
# the default test suite (crates/cli/tests/soak.rs). About 7 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

export MRSCHED_SOAK_JOBS=${1:-60}
export MRSCHED_SOAK_SUBMIT_OVER_S=${2:-180}
export MRSCHED_SOAK_KILL_MIN_S=${MRSCHED_SOAK_KILL_MIN_S:-20}
export MRSCHED_SOAK_KILL_MAX_S=${MRSCHED_SOAK_KILL_MAX_S:-40}
export MRSCHED_SOAK_DOWN_S=${MRSCHED_SOAK_DOWN_S:-5}
export MRSCHED_SOAK_LINES=${MRSCHED_SOAK_LINES:-100000}
export MRSCHED_SOAK_BLOCK_KB=${MRSCHED_SOAK_BLOCK_KB:-64}
export MRSCHED_SOAK_BASELINE=1
cargo test --release -q -p mrsched-cli --test soak -- --nocapture 2>&1 | grep -v '^$'
