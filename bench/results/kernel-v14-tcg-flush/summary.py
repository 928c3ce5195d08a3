#!/usr/bin/env python3
"""Medians over boots of the fresh=0 / fresh=1 runs in run10b.txt and
run12-16.txt ("patched" and "v14" are the same kernel; guest-fresh.sh: one module load with fresh=0, then one with
fresh=1, per boot; "v14" the series, "tcg" the inlining prototype of
prototype.diff), and stock/kernel with a 95 % bootstrap interval."""
import random, re, statistics, sys, glob, os
here = os.path.dirname(os.path.abspath(__file__))
data = {}
for f in ["run10b.txt"] + ["run%d.txt" % i for i in range(12, 17)]:
    kernel = None
    for line in open(os.path.join(here, f)):
        m = re.match(r"=== (\S+) boot", line)
        if m:
            kernel = {"patched": "v14"}.get(m.group(1), m.group(1))
            continue
        m = re.match(r"R fresh=(\d)", line)
        if m and kernel:
            for case, ns in re.findall(r"case=(\S+?)=(\d+)", line):
                data.setdefault((case, m.group(1), kernel), []).append(int(ns))
random.seed(1)
def boot(a, b):
    r = []
    for _ in range(2000):
        r.append(statistics.median(random.choices(a, k=len(a))) /
                 statistics.median(random.choices(b, k=len(b))))
    r.sort()
    return r[50], r[1949]
print("| case | fresh | stock | kernel | n | median ns | stock/kernel [95 %] |")
print("|---|---|---|---|---|---|---|")
for (case, fresh, kernel) in sorted(data):
    if kernel == "stock":
        continue
    s, k = data[(case, fresh, "stock")], data[(case, fresh, kernel)]
    lo, hi = boot(s, k)
    print("| %s | %s | %d (n=%d) | %s | %d | %d | %.3f [%.3f, %.3f] |" % (
        case, fresh, statistics.median(s), len(s), kernel, len(k),
        statistics.median(k), statistics.median(s) / statistics.median(k), lo, hi))
