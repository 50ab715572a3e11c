#!/usr/bin/env bash
# What TLS costs the live cluster: the same corpus stored and counted by a
# master and 2 workers on loopback, once over plain HTTP and once over TLS
# (a self-signed cluster certificate, clients pinning its fingerprint).
#
#   scripts/tls-overhead.sh [SIZE_BYTES] [WORK_DIR]
#
# Prints, for each, the `dfs put` time (every block goes client -> master
# -> 2 workers) and the wordcount job time (map block reads, shuffle,
# output replicas), and checks that both outputs are identical. Not a
# test: it builds the release binary and takes a few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE=${1:-200000000}
WORK=${2:-$(mktemp -d /tmp/mrsched-tls.XXXXXX)}
mkdir -p "$WORK"

cargo build --release -q -p mrsched-cli
cargo build --release -q -p mrsched-runtime --example wordcount_baseline
BIN=target/release/mrsched
CORPUS="$WORK/corpus.txt"
if [ ! -s "$CORPUS" ] || [ "$(stat -c %s "$CORPUS")" -lt "$SIZE" ]; then
  target/release/examples/wordcount_baseline gen "$SIZE" "$CORPUS"
fi
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT

TOKEN=bench-token-0123456789
run() { # MODE: plain | tls
  local mode=$1 dir="$WORK/$1"
  rm -rf "$dir"
  mkdir -p "$dir"
  echo "cluster-secret-0123456789" > "$dir/secret"
  printf '[users.bench]\ntoken = "%s"\n' "$TOKEN" > "$dir/users.toml"
  local mtls=() wtls=()
  if [ "$mode" = tls ]; then
    mtls=(--tls-self-signed)
    wtls=(--tls-cert "$dir/m/cert.pem" --tls-key "$dir/m/key.pem")
  fi
  "$BIN" master --dir "$dir/m" --listen 127.0.0.1:0 --workers 2 \
    --secret-file "$dir/secret" --users "$dir/users.toml" --replication 2 \
    "${mtls[@]}" 2> "$dir/master.err" &
  PIDS+=($!)
  for _ in $(seq 1 300); do [ -s "$dir/m/addr" ] && break; sleep 0.1; done
  local url
  url=$(cat "$dir/m/addr")
  for k in 0 1; do
    "$BIN" worker --master "$url" --dir "$dir/w$k" --name "w$k" \
      --secret-file "$dir/secret" --map-slots 2 --reduce-slots 1 \
      "${wtls[@]}" 2> "$dir/w$k.err" &
    PIDS+=($!)
  done
  export MRSCHED_MASTER=$url MRSCHED_TOKEN=$TOKEN
  if [ "$mode" = tls ]; then
    MRSCHED_TLS_FINGERPRINT=$(grep -o 'SHA256:[0-9a-f]*' "$dir/master.err" | head -1)
    export MRSCHED_TLS_FINGERPRINT
  else
    unset MRSCHED_TLS_FINGERPRINT
  fi
  # Until both workers have registered.
  for _ in $(seq 1 300); do
    n=$(cat "$dir"/w*.err 2>/dev/null | grep -c 'registered as' || true)
    [ "$n" -ge 2 ] && break
    sleep 0.1
  done
  local t0 t1 t2
  t0=$(date +%s.%N)
  "$BIN" dfs put "$CORPUS" corpus --block-size 64M --replication 2 > /dev/null
  t1=$(date +%s.%N)
  printf 'input = "corpus"\noutput = "counts"\nreduces = 2\n[program]\nkind = "wordcount"\n' > "$dir/wc.toml"
  "$BIN" submit "$dir/wc.toml" --wait > /dev/null
  t2=$(date +%s.%N)
  "$BIN" dfs cat counts > "$dir/out"
  python3 -c "import sys; s=int(sys.argv[1]); p=float(sys.argv[3])-float(sys.argv[2]); j=float(sys.argv[4])-float(sys.argv[3]); print(f'{sys.argv[5]:5}  dfs put {p:6.2f} s ({s/1e6/p:6.1f} MB/s)   wordcount {j:6.2f} s ({s/1e6/j:6.1f} MB/s)')" \
    "$(stat -c %s "$CORPUS")" "$t0" "$t1" "$t2" "$mode"
  cleanup
  PIDS=()
}

run plain
run tls
if cmp -s "$WORK/plain/out" "$WORK/tls/out"; then
  echo "outputs identical"
else
  echo "outputs DIFFER" && exit 1
fi
