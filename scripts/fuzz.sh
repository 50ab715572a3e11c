#!/usr/bin/env bash
# Fuzz every parser of user input (docs/fuzzing.md).
#
#   scripts/fuzz.sh [--minutes N | --seconds N] [--seed S] [TARGET...]
#
# Runs each target (default: all of `mrsched-fuzz --list`) for the given
# time (default 1 minute) from the example files. A failure (panic, memory
# blow-up, hang) is copied to fuzz/regressions/TARGET/, where the test
# crates/cli/tests/fuzz_regressions.rs replays it from then on; the script
# then exits with status 1. The seed defaults to the time, FUZZ_SEED fixes it.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=60
seed="${FUZZ_SEED:-$(date +%s)}"
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) seconds=$(( $2 * 60 )); shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done

echo "== building the fuzz driver (fuzz/, debug build: overflow checks on)"
(cd fuzz && cargo build --quiet)
bin=target/debug/mrsched-fuzz
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <("$bin" --list)
fi

failed=0
for t in "${targets[@]}"; do
  rm -rf "fuzz/artifacts/$t"
  echo "== $t: ${seconds} s, seed $seed"
  if "$bin" "$t" --seconds "$seconds" --seed "$seed"; then
    :
  else
    failed=1
    mkdir -p "fuzz/regressions/$t"
    for f in fuzz/artifacts/"$t"/crash-*; do
      case "$f" in *.txt) continue ;; esac
      [ -e "$f" ] || continue
      cp "$f" "fuzz/regressions/$t/"
      echo "stored $f as fuzz/regressions/$t/$(basename "$f")" >&2
      echo "rerun: target/debug/mrsched-fuzz $t --replay fuzz/regressions/$t/$(basename "$f")" >&2
    done
  fi
done
if [ "$failed" != 0 ]; then
  echo "failures were found and stored under fuzz/regressions/; fix them at their cause" >&2
  exit 1
fi
