#!/usr/bin/env python3
"""alternate.py: a quick A/B of tracecost builds (or settings) on one input, between two `make
bench` runs: the commands run alternately, ROUNDS times each, so both see the same machine load;
it prints per command the median wall time (time.perf_counter around the run), the median CPU time
(user + system of the child, all threads) and the largest peak RSS (ru_maxrss), and every wall.
A SPEC is a command, optionally after VAR=VALUE settings ("TRACECOST_GZIP=zlib build/tracecost");
the ARGS after -- follow each command. stdout is discarded.
Usage: bench/alternate.py ROUNDS SPEC [SPEC ...] -- ARGS
  bench/alternate.py 5 /tmp/old/tracecost build/tracecost -- analyze -q --json /tmp/x.json FILE"""
import os
import statistics
import subprocess
import sys
import time


def run(spec, args):
    parts, env = spec.split(), dict(os.environ)
    while parts and "=" in parts[0]:
        k, v = parts.pop(0).split("=", 1)
        env[k] = v
    t0 = time.perf_counter()
    p = subprocess.Popen(parts + args, env=env, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if status != 0:
        print("alternate: %s exited with status %d" % (spec, os.waitstatus_to_exitcode(status)), file=sys.stderr)
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024


def main():
    if "--" not in sys.argv or len(sys.argv) < 4:
        sys.exit(__doc__.split("\n")[-2])
    sep = sys.argv.index("--")
    rounds, specs, args = int(sys.argv[1]), sys.argv[2:sep], sys.argv[sep + 1:]
    res = {s: [] for s in specs}
    for _ in range(rounds):
        for s in specs:
            res[s].append(run(s, args))
    for s in specs:
        r = res[s]
        print("%-40s wall %.4f s  cpu %.3f s  rss %.0f MiB  (walls %s)" % (
            s[-40:], statistics.median(x[0] for x in r), statistics.median(x[1] for x in r),
            max(x[2] for x in r), " ".join("%.3f" % x[0] for x in r)))


if __name__ == "__main__":
    main()
