#!/usr/bin/env bash
# The Ballista benchmark (docs/ballista.md, Measurements): one large query
# beside a stream of small queries from other users, under mrsched's fair
# scheduler, Ballista's own bias policy and FIFO, then single-user
# throughput. Not a test: it prints a markdown table.
#
#   scripts/bench.sh [--policies fair,ballista-bias,fifo] [--small 12] [--gap-ms 250] [--repeat 3]
#
# Builds with the `bench-lean` profile (optimised, quick to build). Run it
# on an otherwise idle machine: every figure is wall-clock time.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --profile bench-lean --example bench --bin mrsched-ballista
exec target/bench-lean/examples/bench --policies fair,ballista-bias,fifo "$@"
