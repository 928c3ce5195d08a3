#!/usr/bin/env python3
"""Summarize boots.txt: per case and purge mode, the median over boots of
each boot's median, the ratio stock / series, and its 95 % bootstrap
interval (2000 resamples of the boots, fixed seed).
Usage: summary.py boots.txt [STOCK,SERIES]  (labels as in the file)."""
import collections
import random
import statistics
import sys

random.seed(1)
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    kernel, _, fresh, case, ns = line.split()
    d[(case, fresh, kernel)].append(int(ns))
stock, series = (sys.argv[2].split(',') if len(sys.argv) > 2
                 else ['stock', 'proto'])


def interval(a, b, n=2000):
    r = sorted(statistics.median(random.choices(a, k=len(a))) /
               statistics.median(random.choices(b, k=len(b)))
               for _ in range(n))
    return r[int(n * .025)], r[int(n * .975)]


print('| case | purge | boots | stock ns | series ns | stock/series [95 %] |')
print('|---|---|---|---:|---:|---|')
for case in ['vmalloc_frag_128K', 'vmalloc_huge_frag_128K']:
    for fresh in '01':
        a, b = d[(case, fresh, stock)], d[(case, fresh, series)]
        if not a or not b:
            continue
        lo, hi = interval(a, b)
        ma, mb = statistics.median(a), statistics.median(b)
        print(f'| {case} | {"yes" if fresh == "1" else "no"} | '
              f'{len(a)}/{len(b)} | {ma:.0f} | {mb:.0f} | '
              f'{ma / mb:.3f} [{lo:.3f}, {hi:.3f}] |')
