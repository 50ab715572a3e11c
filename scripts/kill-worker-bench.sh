#!/usr/bin/env bash
# Wordcount on a live local cluster (a master and 3 worker processes on
# loopback), fault-free and then with one worker killed (kill -9) a few
# seconds into the job: how much the failure costs.
#
#   scripts/kill-worker-bench.sh [SIZE_BYTES] [WORK_DIR]
#
# Generates a text corpus (default 1 GB), stores it with `mrsched dfs put`
# (64 MB blocks, 2 replicas), runs wordcount with 2 reduces, then runs it
# again and kills worker w2 with SIGKILL KILL_AT seconds (default 2.5) after
# submission. Both outputs must be byte for byte the single-process
# baseline's. Prints both job times, their ratio, when and why the master
# declared the worker lost, and the load average. The master runs with its
# default failure detection (--heartbeat-ms 1000, --lost-after-missed 3)
# unless MASTER_ARGS says otherwise. Not a test: it takes minutes and a few
# GB of disk.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE=${1:-1000000000}
WORK=${2:-$(mktemp -d /tmp/mrsched-killbench.XXXXXX)}
KILL_AT=${KILL_AT:-2.5}
MASTER_ARGS=${MASTER_ARGS:-}
REDUCES=2
mkdir -p "$WORK"

cargo build --release -q -p mrsched-cli
cargo build --release -q -p mrsched-runtime --example wordcount_baseline
BIN=$PWD/target/release/mrsched
BASE=$PWD/target/release/examples/wordcount_baseline

CORPUS="$WORK/corpus.txt"
if [ ! -s "$CORPUS" ] || [ "$(stat -c %s "$CORPUS")" -lt "$SIZE" ]; then
  echo "generating $SIZE bytes of text in $CORPUS"
  "$BASE" gen "$SIZE" "$CORPUS"
fi
BYTES=$(stat -c %s "$CORPUS")
"$BASE" count "$CORPUS" "$REDUCES" > "$WORK/baseline.out" 2> "$WORK/baseline.err"

C="$WORK/cluster"
rm -rf "$C"
mkdir -p "$C/master"
TOKEN=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '[users.bench]\ntoken = "%s"\nadmin = true\n' "$TOKEN" > "$C/master/users.toml"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT

# shellcheck disable=SC2086
"$BIN" master --dir "$C/master" --listen 127.0.0.1:0 --workers 3 \
  --users "$C/master/users.toml" $MASTER_ARGS 2> "$C/master.err" &
PIDS+=($!)
for _ in $(seq 1 300); do [ -s "$C/master/addr" ] && break; sleep 0.1; done
export MRSCHED_MASTER
MRSCHED_MASTER=$(cat "$C/master/addr")
export MRSCHED_TOKEN=$TOKEN
declare -A WPID
for k in 0 1 2; do
  "$BIN" worker --master "$MRSCHED_MASTER" --dir "$C/w$k" --name "w$k" \
    --rack "rack-$((k % 2))" --map-slots 2 --reduce-slots 1 \
    --secret-file "$C/master/secret" 2> "$C/w$k.err" &
  WPID[w$k]=$!
  PIDS+=($!)
done
for _ in $(seq 1 300); do
  curl -sf "$MRSCHED_MASTER/api/health" | grep -q '"ready":true' && break
  sleep 0.1
done

"$BIN" dfs put "$CORPUS" corpus --block-size 64M --replication 2

job() {
  cat > "$WORK/$1.toml" <<EOT
name = "$1"
input = "corpus"
output = "$1"
reduces = $REDUCES
[program]
kind = "wordcount"
EOT
}

echo "== fault-free"
job clean
"$BIN" submit "$WORK/clean.toml" --wait -f json > "$WORK/clean.json"
"$BIN" dfs cat clean > "$WORK/clean.out"

echo "== kill -9 of w2 ${KILL_AT} s into the job"
job faulty
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
"$BIN" submit "$WORK/faulty.toml" --wait -f json > "$WORK/faulty.json" &
SUB=$!
sleep "$KILL_AT"
kill -9 "${WPID[w2]}"
wait "$SUB"
"$BIN" dfs cat faulty > "$WORK/faulty.out"
curl -sf -H "Authorization: Bearer $TOKEN" "$MRSCHED_MASTER/api/workers" > "$WORK/workers.json"
grep -h "lost (" "$C/master.err" > "$WORK/lost.txt" || true

same() { if cmp -s "$1" "$WORK/baseline.out"; then echo identical; else echo DIFFERENT; fi; }
S1=$(same "$WORK/clean.out")
S2=$(same "$WORK/faulty.out")

python3 - "$BYTES" "$WORK" "$S1" "$S2" "$LOAD" "$KILL_AT" <<'PY'
import json, sys
size, work, s1, s2, load, kill_at = sys.argv[1:]
clean = json.load(open(f"{work}/clean.json"))
faulty = json.load(open(f"{work}/faulty.json"))
t = lambda j: j["finished_s"] - j["submitted_s"]
a, b = t(clean), t(faulty)
print()
print(f"input                  {int(size) / 1e6:.0f} MB, {clean['maps']} maps, {clean['reduces']} reduces, 3 workers (2 map + 1 reduce slots)")
print(f"fault-free wordcount   {a:.1f} s, output vs baseline {s1}")
print(f"w2 killed at {float(kill_at):.1f} s     {b:.1f} s, output vs baseline {s2}")
print(f"ratio                  {b / a:.2f}x")
for w in json.load(open(f"{work}/workers.json")):
    if not w["alive"]:
        print(f"{w['name']} declared lost     {w.get('lost_reason')}")
print("master log             " + " | ".join(l.strip() for l in open(f"{work}/lost.txt")))
print(f"load average at kill   {load}")
PY
[ "$S1" = identical ] && [ "$S2" = identical ]
