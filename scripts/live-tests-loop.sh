#!/usr/bin/env bash
# Run the live test binaries (real masters and workers over loopback) N
# times in a row, stopping at the first failure, to show they do not fail
# now and then.
#
#   scripts/live-tests-loop.sh [N=20]
#
# Builds the test binaries once, then runs every binary in each round with
# `cargo nextest run`. Prints one line per round and a summary; exits with
# 1 at the first failing round (its output is kept in the printed file).
set -euo pipefail
cd "$(dirname "$0")/.."

N=${1:-20}
RUNTIME_TESTS=(live live_faults live_msjo metrics integrity live_limits live_maponly tls)
CLI_TESTS=(live_cluster live_fair live_capacity mars_live live_restart live_tls soak)
LOG=$(mktemp -d /tmp/mrsched-live-loop.XXXXXX)

args() {
  local pkg=$1
  shift
  local a=(-p "$pkg")
  for t in "$@"; do a+=(--test "$t"); done
  echo "${a[@]}"
}
# shellcheck disable=SC2046
cargo nextest run --no-run $(args mrsched-runtime "${RUNTIME_TESTS[@]}") 2> "$LOG/build.txt" \
  || { cat "$LOG/build.txt"; exit 1; }
# shellcheck disable=SC2046
cargo nextest run --no-run $(args mrsched-cli "${CLI_TESTS[@]}") 2>> "$LOG/build.txt" \
  || { cat "$LOG/build.txt"; exit 1; }

START=$(date +%s)
for i in $(seq 1 "$N"); do
  T0=$(date +%s)
  OUT="$LOG/round-$i.txt"
  ok=1
  # shellcheck disable=SC2046
  cargo nextest run --no-fail-fast $(args mrsched-runtime "${RUNTIME_TESTS[@]}") > "$OUT" 2>&1 || ok=0
  # shellcheck disable=SC2046
  cargo nextest run --no-fail-fast $(args mrsched-cli "${CLI_TESTS[@]}") >> "$OUT" 2>&1 || ok=0
  TESTS=$(grep -c '^ *PASS \[' "$OUT" || true)
  LOAD=$(cut -d' ' -f1 /proc/loadavg)
  if [ "$ok" = 1 ]; then
    echo "round $i/$N: $TESTS tests passed in $(( $(date +%s) - T0 )) s (load $LOAD)"
  else
    echo "round $i/$N: FAILED (load $LOAD); output in $OUT"
    grep -E '^ *(FAIL|SIGSEGV|TIMEOUT) \[' "$OUT" | sort -u || true
    echo "summary: $((i - 1)) of $N rounds passed before a failure"
    exit 1
  fi
done
echo "summary: $N of $N rounds passed in $(( $(date +%s) - START )) s"
