#!/usr/bin/env bash
# Wordcount on a live local cluster (a master and 2 workers on loopback)
# against a single-process Rust baseline on the same data.
#
#   scripts/bench-wordcount.sh [SIZE_BYTES] [WORK_DIR]
#
# Generates a text corpus (default 1 GB), stores it with `mrsched dfs put`
# (64 MB blocks), runs wordcount with 2 reduces, checks that the output is
# byte for byte the baseline's, and prints throughput (input MB / job time)
# and the master's scheduling overhead per heartbeat. Not a test: it takes
# minutes and a few GB of disk.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE=${1:-1000000000}
WORK=${2:-$(mktemp -d /tmp/mrsched-bench.XXXXXX)}
REDUCES=2
mkdir -p "$WORK"

cargo build --release -q -p mrsched-cli
cargo build --release -q -p mrsched-runtime --example wordcount_baseline
BIN=target/release/mrsched
BASE=target/release/examples/wordcount_baseline

CORPUS="$WORK/corpus.txt"
if [ ! -s "$CORPUS" ] || [ "$(stat -c %s "$CORPUS")" -lt "$SIZE" ]; then
  echo "generating $SIZE bytes of text in $CORPUS"
  "$BASE" gen "$SIZE" "$CORPUS"
fi
BYTES=$(stat -c %s "$CORPUS")

echo "== single-process baseline"
"$BASE" count "$CORPUS" "$REDUCES" > "$WORK/baseline.out" 2> "$WORK/baseline.err"
cat "$WORK/baseline.err"
# Second run with a warm page cache, like the cluster's maps get.
"$BASE" count "$CORPUS" "$REDUCES" > "$WORK/baseline.out" 2> "$WORK/baseline.err"
cat "$WORK/baseline.err"
BASE_MBS=$(sed -n 's/.*= \([0-9.]*\) MB\/s/\1/p' "$WORK/baseline.err")

echo "== live cluster: 1 master + 2 workers (2 map slots, 1 reduce slot each)"
rm -rf "$WORK/cluster"
"$BIN" local --workers 2 --port 0 --dir "$WORK/cluster" > "$WORK/local.out" 2> "$WORK/local.err" &
LOCAL=$!
trap 'kill -INT $LOCAL 2>/dev/null || true; wait $LOCAL 2>/dev/null || true' EXIT
for _ in $(seq 1 600); do
  grep -q MRSCHED_TOKEN "$WORK/local.out" 2>/dev/null && break
  sleep 0.1
done
eval "$(grep '^export' "$WORK/local.out" | sed 's/#.*//')"

T0=$(date +%s.%N)
"$BIN" dfs put "$CORPUS" corpus --block-size 64M --replication 2
T1=$(date +%s.%N)
cat > "$WORK/wc.toml" <<EOF
name = "wordcount-bench"
input = "corpus"
output = "counts"
reduces = $REDUCES
[program]
kind = "wordcount"
EOF
"$BIN" submit "$WORK/wc.toml" --wait -f json > "$WORK/job.json"
"$BIN" dfs cat counts > "$WORK/cluster.out"
"$BIN" metrics -f json > "$WORK/metrics.json"

if cmp -s "$WORK/cluster.out" "$WORK/baseline.out"; then
  SAME="identical"
else
  SAME="DIFFERENT"
fi

python3 - "$BYTES" "$T0" "$T1" "$BASE_MBS" "$SAME" "$WORK" <<'PY'
import json, sys
size, t0, t1, base_mbs, same, work = sys.argv[1:]
size = int(size)
job = json.load(open(f"{work}/job.json"))
m = json.load(open(f"{work}/metrics.json"))
secs = job["finished_s"] - job["submitted_s"]
mb = size / 1e6
ex = m["extra"]
print()
print(f"input                      {mb:.0f} MB, {job['maps']} maps, {job['reduces']} reduces")
print(f"dfs put                    {float(t1) - float(t0):.1f} s ({mb / (float(t1) - float(t0)):.1f} MB/s, 2 replicas)")
print(f"cluster wordcount          {secs:.1f} s = {mb / secs:.1f} MB/s")
print(f"single-process baseline    {mb / float(base_mbs):.1f} s = {float(base_mbs):.1f} MB/s")
print(f"output vs baseline         {same}")
print(f"maps node-local            {job['locality'][0]}/{job['maps']}, block reads local/remote {job['reads'][0]}/{job['reads'][1]}")
print(f"heartbeats scheduled       {ex['scheduler.heartbeats']:.0f}")
print(f"scheduling per heartbeat   mean {ex['scheduler.heartbeat_sched_mean_us']:.1f} us, p99 {ex['scheduler.heartbeat_sched_p99_us']:.1f} us")
print(f"whole heartbeat handling   mean {ex['scheduler.heartbeat_total_mean_us']:.1f} us, p99 {ex['scheduler.heartbeat_total_p99_us']:.1f} us (reports, scheduling, journal commit)")
d = m["summary"].get("decision_time") or {}
if d:
    print(f"assign() calls             {d}")
PY
[ "$SAME" = "identical" ]
