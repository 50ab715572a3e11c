#!/usr/bin/env bash
# Regenerate the committed reproduction reports and fail if any differs.
#
# Every report in docs/reproductions/ is the output of `mrsched reproduce
# NAME`; a later change to the simulator or a policy that moves a number
# must come with the regenerated report. This script reruns the
# experiments into a scratch directory and compares each report and each
# figure byte for byte with the committed one.
#
# Usage: scripts/check-reproductions.sh [--bin PATH] [--all] [NAME ...]
#   --bin PATH  the mrsched binary (default: target/release/mrsched, built
#               here if missing)
#   --all       every experiment, the MarS sweeps included; their reports
#               come from a build with `--features mrsched-cli/highs` and
#               run for an hour or more (.ci/scheduled)
#   NAME ...    just these experiments
# Default: every experiment except the MarS sweeps (mars-*), about two
# minutes on two cores with a release build.
set -euo pipefail
cd "$(dirname "$0")/.."

bin=target/release/mrsched
all=0
names=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --all) all=1; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) names+=("$1"); shift ;;
  esac
done
if [ ! -x "$bin" ]; then
  cargo build --release -p mrsched-cli
fi
if [ ${#names[@]} -eq 0 ]; then
  while read -r n _; do
    case "$n" in
      # Real timings of a live cluster: never byte-identical, so never
      # compared; its --quick form runs in crates/cli/tests/mars_live.rs.
      mars-live) ;;
      mars-*) [ "$all" = 1 ] && names+=("$n") ;;
      *) names+=("$n") ;;
    esac
  done < <("$bin" list experiments | tail -n +3)
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
committed=docs/reproductions
jobs=${JOBS:-$(nproc)}

# Independent experiments run side by side, each in its own directory.
# Figures 8, 11 and 12 compare with Figure 7's scenario and reuse its runs
# when they follow it in one process: those four run as one item (names
# joined by '+', the directory named after the first).
items=()
group=()
for n in "${names[@]}"; do
  case "$n" in
    mars-fig7|mars-fig8|mars-fig11|mars-fig12) group+=("$n") ;;
    *) items+=("$n") ;;
  esac
done
if [ ${#group[@]} -gt 0 ]; then
  items=("$(IFS=+; echo "${group[*]}")" "${items[@]}")
fi
printf '%s\n' "${items[@]}" |
  xargs -P "$jobs" -I{} sh -c \
    'd=${2%%+*}; "$1" reproduce $(echo "$2" | tr + " ") --out "$3/$d" >/dev/null 2>"$3/$d.err" || echo "$d" >>"$3/failed"' \
    sh "$bin" {} "$scratch"

status=0
if [ -s "$scratch/failed" ]; then
  while read -r n; do
    echo "FAILED to run: $n"
    sed 's/^/  /' "$scratch/$n.err"
  done <"$scratch/failed"
  status=1
fi
# Wall-clock figures (run and planning times) vary from run to run; the
# reports mark them with <!-- wall clock --> ... <!-- /wall clock -->, and
# they are left out of the comparison. Everything else must match byte
# for byte.
comparable() {
  perl -0pe 's/<!-- wall clock -->.*?<!-- \/wall clock -->//gs' "$1"
}
same() {
  case "$1" in
    *.md) cmp -s <(comparable "$1") <(comparable "$2") ;;
    *) cmp -s "$1" "$2" ;;
  esac
}
stale=()
for n in "${items[@]}"; do
  n=${n%%+*}
  [ -d "$scratch/$n" ] || continue
  if [ -z "$(ls -A "$scratch/$n")" ]; then
    stale+=("$n (wrote nothing)")
    continue
  fi
  for f in "$scratch/$n"/*; do
    b=$(basename "$f")
    if [ ! -f "$committed/$b" ]; then
      stale+=("$b (not committed)")
    elif ! same "$f" "$committed/$b"; then
      stale+=("$b")
      case "$b" in
        *.md) diff -u <(comparable "$committed/$b") <(comparable "$f") | head -n 40 || true ;;
      esac
    fi
  done
done
if [ ${#stale[@]} -gt 0 ]; then
  echo
  echo "Reports or figures that differ from a fresh run (${#stale[@]}):"
  printf '  %s\n' "${stale[@]}"
  echo "Regenerate them with \`mrsched reproduce NAME\` (release build) and commit."
  status=1
fi
if [ "$status" = 0 ]; then
  echo "${#names[@]} reproductions regenerated: every report and figure matches the committed one."
fi
exit "$status"
