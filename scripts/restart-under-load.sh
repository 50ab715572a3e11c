#!/usr/bin/env bash
# Master restart under load: 50 jobs (wordcount, grep, sort, loadgen and a
# streaming job whose maps sleep 0.2 s) from 3 users on a master and 3
# workers of the built `mrsched` binary; the master is killed with SIGKILL
# while jobs run and wait, and restarted on the same directory. Checks that
# every job ended exactly once with its id, owner and an output equal to
# the sequential computation, that there is no extra job or file, and that
# a second restart finds the same jobs; prints the jobs at the kill, the
# time until the master had every worker back, and the total time against
# a fault-free run of the same 50 jobs.
#
#   scripts/restart-under-load.sh
#
# The same check with 15 jobs runs in the default test suite
# (crates/cli/tests/live_restart.rs).
set -euo pipefail
cd "$(dirname "$0")/.."

if cargo nextest --version >/dev/null 2>&1; then
  cargo nextest run -p mrsched-cli --test live_restart \
    --run-ignored ignored-only --no-capture restart_under_load_50_jobs
else
  cargo test -p mrsched-cli --test live_restart -- \
    --ignored --nocapture restart_under_load_50_jobs
fi
