#!/usr/bin/env python3
"""Paired whole-process runs of two commands on a noisy machine: A and B run in turn,
RUNS times each after one warm-up each, so that both see the same load; prints the median
wall time of each and the median of the per-pair ratios B/A (the figure to quote), with
its first and third quartiles.

    benches/paired_runs.py RUNS 'command A' 'command B'

A command's exit status 0 or 1 (findings) is accepted; any other stops the run.
"""
import shlex
import statistics
import subprocess
import sys
import time


def wall(command):
    start = time.perf_counter()
    status = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    elapsed = time.perf_counter() - start
    if status not in (0, 1):
        sys.exit(f"{shlex.join(command)}: exit status {status}")
    return elapsed


def main():
    runs = int(sys.argv[1])
    a, b = (shlex.split(c) for c in sys.argv[2:4])
    wall(a)
    wall(b)
    times_a, times_b, ratios = [], [], []
    for i in range(runs):
        # Alternate which goes first, so that neither always follows the other.
        if i % 2:
            tb, ta = wall(b), wall(a)
        else:
            ta, tb = wall(a), wall(b)
        times_a.append(ta)
        times_b.append(tb)
        ratios.append(tb / ta)
    q1, median, q3 = statistics.quantiles(ratios, n=4)
    print(f"A: {sys.argv[2]}\n   median {statistics.median(times_a) * 1000:.1f} ms")
    print(f"B: {sys.argv[3]}\n   median {statistics.median(times_b) * 1000:.1f} ms")
    print(f"B/A over {runs} pairs: median {median:.3f} (quartiles {q1:.3f} to {q3:.3f})")


if __name__ == "__main__":
    main()
