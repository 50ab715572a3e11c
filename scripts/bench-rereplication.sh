#!/usr/bin/env bash
# Re-replication on a live local cluster: 4 workers on 2 racks, a corpus
# stored with 2 replicas, wordcount running, then `kill -9` of one worker.
#
#   scripts/bench-rereplication.sh [SIZE_BYTES] [WORK_DIR]
#
# Reports how long the master took to declare the worker lost and to bring
# every block back to 2 live replicas, the blocks and bytes it copied, and
# checks that `dfs cat` and the job's output are exact (against the
# single-process baseline). PROFILE=release builds optimized binaries
# (default: the debug build). Not a test: it takes minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE=${1:-200000000}
WORK=${2:-$(mktemp -d /tmp/mrsched-rerep.XXXXXX)}
PROFILE=${PROFILE:-debug}
mkdir -p "$WORK"

if [ "$PROFILE" = release ]; then FLAG=--release; else FLAG=; fi
cargo build $FLAG -q -p mrsched-cli
cargo build $FLAG -q -p mrsched-runtime --example wordcount_baseline
BIN=target/$PROFILE/mrsched
BASE=target/$PROFILE/examples/wordcount_baseline

CORPUS="$WORK/corpus.txt"
if [ ! -s "$CORPUS" ] || [ "$(stat -c %s "$CORPUS")" -lt "$SIZE" ]; then
  "$BASE" gen "$SIZE" "$CORPUS"
fi
"$BASE" count "$CORPUS" 2 > "$WORK/baseline.out" 2> /dev/null

rm -rf "$WORK/cluster"
"$BIN" local --workers 4 --racks 2 --port 0 --dir "$WORK/cluster" \
  --heartbeat-ms 200 --worker-timeout-ms 3000 \
  > "$WORK/local.out" 2> "$WORK/local.err" &
LOCAL=$!
trap 'kill -INT $LOCAL 2>/dev/null || true; wait $LOCAL 2>/dev/null || true' EXIT
for _ in $(seq 1 600); do
  grep -q MRSCHED_TOKEN "$WORK/local.out" 2>/dev/null && break
  sleep 0.1
done
eval "$(grep '^export' "$WORK/local.out" | sed 's/#.*//')"
api() { curl -sf -H "Authorization: Bearer $MRSCHED_TOKEN" "$MRSCHED_MASTER$1"; }

"$BIN" dfs put "$CORPUS" corpus --block-size 16M --replication 2
cat > "$WORK/wc.toml" <<EOF
input = "corpus"
output = "counts"
reduces = 2
[program]
kind = "wordcount"
EOF
JOB=$("$BIN" submit "$WORK/wc.toml" -f json | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')

# The worker process of worker-1 (started by `mrsched local` above).
PID=$(ps -eo pid=,args= | awk -v d="$WORK/cluster/worker-1" 'index($0, d) && /mrsched worker/ {print $1; exit}')
sleep 1
T0=$(date +%s.%N)
kill -9 "$PID"
echo "killed worker-1 (pid $PID)"
LOST=""
while :; do
  NOW=$(date +%s.%N)
  if [ -z "$LOST" ] && api /api/workers | python3 -c 'import json,sys; sys.exit(0 if any(not w["alive"] for w in json.load(sys.stdin)) else 1)'; then
    LOST=$NOW
  fi
  R=$(api /api/dfs/replication)
  if [ -n "$LOST" ] && echo "$R" | python3 -c 'import json,sys; r=json.load(sys.stdin); sys.exit(0 if r["under_replicated"]==0 and r["copies_in_flight"]==0 else 1)'; then
    DONE=$NOW
    break
  fi
  sleep 0.2
done
while :; do
  "$BIN" status "$JOB" -f json > "$WORK/job.json"
  python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["status"] not in ("running", "submitted") else 1)' "$WORK/job.json" && break
  sleep 0.5
done
"$BIN" dfs cat counts > "$WORK/cluster.out"
"$BIN" dfs cat corpus > "$WORK/corpus.back"
"$BIN" dfs ls

python3 - "$T0" "$LOST" "$DONE" "$R" "$WORK" <<'PY'
import json, sys, filecmp
t0, lost, done, r, work = sys.argv[1:]
t0, lost, done = float(t0), float(lost), float(done)
r = json.loads(r)
job = json.load(open(f"{work}/job.json"))
print(f"declared lost after      {lost - t0:6.1f} s")
print(f"full replication after   {done - t0:6.1f} s  ({done - lost:.1f} s of copying)")
print(f"blocks copied            {r['blocks_copied']}")
print(f"bytes re-replicated      {r['bytes_copied']} ({r['bytes_copied'] / 1e6:.1f} MB)")
print(f"copies failed            {r['copies_failed']}")
print(f"job {job['id']}                    {job['status']}")
print("dfs cat corpus           " + ("identical" if filecmp.cmp(f"{work}/corpus.txt", f"{work}/corpus.back", shallow=False) else "DIFFERENT"))
print("wordcount output         " + ("identical" if filecmp.cmp(f"{work}/baseline.out", f"{work}/cluster.out", shallow=False) else "DIFFERENT"))
PY
