#!/usr/bin/env python3
"""Write a synthetic SWIM day of many small jobs: a second shape of day
for the datacenter-scale goals (docs/architecture.md, "Other shapes of
day"), beside the FB-2009 proxy, whose 5,894 jobs are mostly tiny with a
few huge ones.

    scripts/busy-day.py [--jobs N] [--seed S] > busy-day.tsv
    mrsched simulate -c examples/dc3000.toml -w busy-day.tsv -s fair+delay

Defaults: 40,000 jobs in 86,400 s (a Poisson process, whole seconds as
in SWIM), maps log-normal (median 25, mu 3.2, sigma 1.9, at most
200,000; mrsched makes one map per 128 MB of input), 30% map-only, the
others shuffling a log-normal fraction of their input (median 0.22) and
writing 10-100% of it. About 6.1 M tasks, as many as the proxy at
`--swim-scale 30`, in seven times as many jobs.

The file depends only on --jobs and --seed: the generator draws from
Python's seeded Mersenne Twister through `random()` alone (normals by
Box-Muller, exponentials by inversion), which is the same on every
Python 3.
"""

import argparse
import math
import random
import sys

DAY_S = 86_400
BLOCK = 128 << 20
MB = 1 << 20


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=40_000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.jobs < 1:
        sys.exit("busy-day: --jobs must be at least 1")
    rng = random.Random(a.seed)

    def normal(mu, sigma):
        u1 = 1.0 - rng.random()  # in (0, 1]
        u2 = rng.random()
        return mu + sigma * math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)

    t, prev = 0.0, 0
    out = sys.stdout
    for i in range(a.jobs):
        t += -math.log(1.0 - rng.random()) * DAY_S / a.jobs
        submit = min(int(t), DAY_S)
        maps = min(max(1, int(math.exp(normal(3.2, 1.9)))), 200_000)
        inp = maps * BLOCK - int(rng.random() * 64 * MB)
        if rng.random() < 0.3:
            shuffle, output = 0, 1 + int(rng.random() * 10 * MB)
        else:
            shuffle = int(inp * math.exp(normal(-1.5, 1.2)))
            output = int(shuffle * (0.1 + 0.9 * rng.random()))
        out.write(f"job{i}\t{submit}\t{submit - prev}\t{inp}\t{shuffle}\t{output}\n")
        prev = submit


if __name__ == "__main__":
    main()
