#!/usr/bin/env bash
# The simulator's datacenter-scale goals, measured as a user runs it.
#
# Runs the proxy of a large day (a SWIM FB-2009 day sample with every byte
# count scaled by 40, on examples/dc3000.toml: 3000 nodes, 8.19 M task
# attempts for sample 0) under the six default presets and `compare`, whole
# process, wall clock and peak RSS from /usr/bin/time, for several rounds,
# and prints one table: each run's fastest, median and slowest time against
# its goal, and in how many rounds the goal held. Timings on a shared
# machine vary from minute to minute, so each round runs everything once
# in the same order, FIFO both first and last, and `compare` is read
# against the mean of its own round's two FIFO runs.
#
# It measures; it asserts nothing about time. It fails only when a run
# fails or when a preset's output differs between rounds (outputs must be
# byte-identical for the same inputs and seed).
#
#   scripts/dc-goals.sh [--rounds N] [--trace FILE] [--scale K] [--bin PATH] [--fetch]
#
# The trace defaults to ../shared/data/swim/FB-2009_samples_24_times_1hr_0.tsv
# beside the repository. With --fetch, a missing default trace is fetched
# from the SWIM project (github.com/SWIMProjectUCB/SWIM, workloadSuite/)
# into target/swim/ and checked by its md5. Without a trace the script
# says so and exits 0. Another shape of day, 40,000 small jobs:
# scripts/busy-day.py > busy-day.tsv, then --trace busy-day.tsv --scale 1.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=3
trace=../shared/data/swim/FB-2009_samples_24_times_1hr_0.tsv
scale=40
bin=target/release/mrsched
fetch=0
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --trace) trace="$2"; shift 2 ;;
    --scale) scale="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    --fetch) fetch=1; shift ;;
    -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "dc-goals: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$rounds" in ''|*[!0-9]*|0) echo "dc-goals: --rounds needs a positive whole number, got '$rounds'" >&2; exit 2 ;; esac
day0=FB-2009_samples_24_times_1hr_0.tsv
if [ ! -f "$trace" ] && [ "$fetch" = 1 ] && [ "$(basename "$trace")" = "$day0" ]; then
  trace=target/swim/$day0
  if [ ! -f "$trace" ]; then
    mkdir -p target/swim
    url=https://raw.githubusercontent.com/SWIMProjectUCB/SWIM/master/workloadSuite/$day0
    echo "+ fetching $url"
    if ! curl -sSfL --max-time 60 -o "$trace.part" "$url" ||
      [ "$(md5sum <"$trace.part" | cut -d' ' -f1)" != 039133e3ab59d8a86ac79a4d19b5183f ]; then
      echo "dc-goals: could not fetch $day0 (or its md5 differs)"
      rm -f "$trace.part"
    else
      mv "$trace.part" "$trace"
    fi
  fi
fi
if [ ! -f "$trace" ]; then
  echo "dc-goals: no trace at $trace (pass --trace FILE); nothing measured"
  exit 0
fi
if [ ! -x /usr/bin/time ]; then
  echo "dc-goals: /usr/bin/time is needed for peak memory (Debian: apt-get install time)" >&2
  exit 2
fi
if [ ! -x "$bin" ]; then
  echo "+ cargo build --release -p mrsched-cli"
  cargo build --release -p mrsched-cli
fi

presets=(fifo fifo+ccs fair fair+delay fair+ccs fair+ccs+delay)
declare -A goal=([fifo]=4 [fifo+ccs]=10 [fair]=10 [fair+delay]=6 [fair+ccs]=10 [fair+ccs+delay]=10)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
common=(-c examples/dc3000.toml -w "$trace" --swim-scale "$scale" -f json)

# run NAME ARGS...: one whole-process run; appends "seconds kb" to
# $work/NAME.times and the output's md5 to $work/NAME.md5.
run() {
  local name="$1"
  shift
  if ! /usr/bin/time -o "$work/t" -f "%e %M" "$bin" "$@" >"$work/out" 2>"$work/err"; then
    echo "dc-goals: '$bin $*' failed:" >&2
    cat "$work/err" >&2
    exit 1
  fi
  cat "$work/t" >>"$work/$name.times"
  md5sum <"$work/out" | cut -d' ' -f1 >>"$work/$name.md5"
  printf '  %-16s %6.2f s %5d MiB\n' "$name" "$(cut -d' ' -f1 "$work/t")" "$(($(cut -d' ' -f2 "$work/t") / 1024))"
}

echo "datacenter-scale goals: $(basename "$trace") x$scale on examples/dc3000.toml"
echo "  $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores; commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'); $bin; $(date -u '+%Y-%m-%d %H:%M UTC')"
for r in $(seq 1 "$rounds"); do
  echo "round $r of $rounds"
  run fifo simulate -s fifo "${common[@]}"
  f1=$(tail -n1 "$work/fifo.times" | cut -d' ' -f1)
  for p in "${presets[@]:1}"; do
    run "$p" simulate -s "$p" "${common[@]}"
  done
  run compare compare "${common[@]}"
  c=$(tail -n1 "$work/compare.times" | cut -d' ' -f1)
  run fifo simulate -s fifo "${common[@]}"
  f2=$(tail -n1 "$work/fifo.times" | cut -d' ' -f1)
  awk -v c="$c" -v a="$f1" -v b="$f2" 'BEGIN { printf "%.3f\n", c / ((a + b) / 2) }' >>"$work/ratio"
done

# stats FILE GOAL UNIT INCLUSIVE: "min median max met/total" of the first
# column, a value meeting the goal when below it (or equal, if INCLUSIVE=1).
stats() {
  cut -d' ' -f1 "$1" | sort -g | awk -v goal="$2" -v u="$3" -v eq="$4" '
    { v[NR] = $1; if ($1 < goal || (eq && $1 == goal)) met++ }
    END {
      med = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      printf "%.2f%s | %.2f%s | %.2f%s | %d of %d", v[1], u, med, u, v[NR], u, met, NR
    }'
}
peak() { cut -d' ' -f2 "$1" | sort -n | tail -n1 | awk '{ printf "%d MiB", $1 / 1024 }'; }

status=0
for p in "${presets[@]}" compare; do
  if [ "$(sort -u "$work/$p.md5" | wc -l)" != 1 ]; then
    echo "dc-goals: the output of $p differed between rounds" >&2
    status=1
  fi
done
echo
echo "| run | goal | fastest | median | slowest | goal held | peak RSS |"
echo "|---|---|---|---|---|---|---|"
for p in "${presets[@]}"; do
  echo "| $p | < ${goal[$p]} s | $(stats "$work/$p.times" "${goal[$p]}" " s" 0) | $(peak "$work/$p.times") |"
done
echo "| compare, six presets | <= 4x FIFO | $(stats "$work/ratio" 4 x 1) | $(peak "$work/compare.times") |"
echo
echo "compare in seconds: $(cut -d' ' -f1 "$work/compare.times" | tr '\n' ' ')(each against the mean of its round's two FIFO runs)"
echo "peak RSS goal: under 400 MB per run (/usr/bin/time's KiB over 1024: MiB)"
exit $status
