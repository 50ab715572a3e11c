#!/usr/bin/env bash
# The fastest mrsched binary: a release build optimised with a profile of
# its own runs (profile-guided optimisation, PGO).
#
# The simulator's time goes to a few hundred small steps per task (event
# queue, index lookups, slot bookkeeping), each with branches whose bias
# only a run can tell. Built once with counters, run on the built-in
# workloads, and built again with those counts, the compiler lays out and
# inlines the hot paths as they are taken (docs/architecture.md,
# "Profile-guided build", has the measurements).
#
# The training runs use only what the repository ships (built-in clusters,
# workloads and schedulers), never the trace a benchmark measures. Outputs
# do not change: the script checks that the optimised binary writes the
# same reports as the instrumented one on every training run.
#
#   scripts/build-pgo.sh            # writes target/pgo/mrsched
#
# Needs `llvm-profdata` of the compiler's LLVM: `rustup component add
# llvm-tools` (the script runs it when rustup is there). Two release builds
# of the CLI: about 10 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."

host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$profdata" ] && command -v rustup >/dev/null 2>&1; then
  echo "+ rustup component add llvm-tools"
  rustup component add llvm-tools >/dev/null
fi
if [ ! -x "$profdata" ]; then
  echo "build-pgo: $profdata not found; install the compiler's LLVM tools (rustup component add llvm-tools)" >&2
  exit 1
fi

out=target/pgo
data=$out/profiles
rm -rf "$data" "$out/check"
mkdir -p "$data" "$out/check"

# `--target` keeps RUSTFLAGS off build scripts and proc macros: only the
# binary's own code is instrumented and optimised.
build() {
  RUSTFLAGS="$1" cargo build --release --locked -p mrsched-cli --target "$host" --target-dir "$2"
}

echo "== instrumented build"
build "-Cprofile-generate=$PWD/$data" "$out/gen"
gen=$out/gen/$host/release/mrsched

# The training runs: every default preset (`compare`) and the other policy
# families on the built-in workloads, on clusters from 100 to 3000 nodes.
# Each writes its JSON report to $out/check for the identity check below.
train() {
  local bin=$1 dir=$2 i=0
  mkdir -p "$dir"
  run() {
    i=$((i + 1))
    "$bin" "$@" -f json >"$dir/$i.json" 2>/dev/null
  }
  for w in fb-bm fb2009-bins synthetic swim-fb2009-sample goal-mix; do
    for c in ec2-100 fb-600 examples/dc3000.toml; do
      run compare -c "$c" -w "$w"
    done
  done
  for s in capacity fair+preemption fair+hfs-delay fair+skip-delay fair+iobias \
    examples/yarn-fair-scheduler.xml examples/capacity-scheduler.xml; do
    run simulate -c fb-600 -w fb2009-bins -s "$s"
  done
  run simulate -c shared-100-bursts -w goal-mix -s fair+delay
  run simulate -c examples/cluster.toml -w examples/workload.toml -s fifo
}

echo "== training runs (built-in workloads only)"
train "$gen" "$out/check/gen"
"$profdata" merge -o "$out/mrsched.profdata" "$data"
# The instrumented build is not needed any more: a gigabyte of disk.
rm -rf "$out/gen" "$data"

echo "== optimised build"
build "-Cprofile-use=$PWD/$out/mrsched.profdata" "$out/use"
bin=$out/use/$host/release/mrsched

echo "== identity: the optimised binary's reports equal the instrumented one's"
train "$bin" "$out/check/use"
if ! diff -rq "$out/check/gen" "$out/check/use"; then
  echo "build-pgo: the optimised binary's output differs from the instrumented one's" >&2
  exit 1
fi
cp "$bin" "$out/mrsched"
echo "build-pgo: wrote $out/mrsched ($(find "$out/check/use" -name '*.json' | wc -l) training runs, outputs identical)"
