#!/usr/bin/env python3
"""arm64 kvmalloc_frag_128K, -icount: each boot's median falls in one of
three modes (kmalloc()'s attempt compacting once, once with more work, or
twice).  Per kernel: the boots in each mode, the median within the cheap
mode, and Fisher's exact test (two-sided) of the expensive mode's share.
Usage: modes.py DIR...  (reads ARCH-VARIANT-icount-frag-*.txt and
ARCH-VARIANT-icount.txt, the make bench-kernel boot)."""
import glob
import re
import statistics
import sys
from math import comb

CASE = re.compile(r'kvmalloc_frag_128K metric=inst median=(\d+)')


def boots(variant):
    out = []
    for d in sys.argv[1:]:
        for f in sorted(glob.glob(f'{d}/arm64-{variant}-icount*.txt')):
            if 'ioremap' in f:
                continue
            m = CASE.search(open(f).read())
            if m:
                out.append(int(m.group(1)))
    return out


def fisher(a, n1, b, n2):
    k, n = a + b, n1 + n2
    pr = lambda x: comb(k, x) * comb(n - k, n1 - x) / comb(n, n1)
    p0 = pr(a)
    return sum(pr(x) for x in range(max(0, k - n2), min(k, n1) + 1)
               if pr(x) <= p0 * (1 + 1e-9))


def med(xs):
    return f'{statistics.median(xs):.0f}' if xs else '-'


res = {}
for v in ('stock', 'patched'):
    b = boots(v)
    if not b:
        sys.exit(f'modes.py: no arm64-{v}-icount boot with a kvmalloc_frag_128K result')
    cheap = [x for x in b if x < 9000]
    dear = [x for x in b if x > 50000]
    res[v] = (len(b), len(dear), len(cheap))
    print(f'{v}: {len(b)} boots; cheap {len(cheap)} (median {med(cheap)}), '
          f'middle {len(b) - len(cheap) - len(dear)}, expensive {len(dear)} '
          f'(median {med(dear)}); median of all boots {med(b)}')
(n1, a, ca), (n2, c, cc) = res['stock'], res['patched']
print(f'expensive share, stock {a}/{n1} against patched {c}/{n2}: '
      f'Fisher two-sided p = {fisher(a, n1, c, n2):.2f}')
print(f'cheap share, stock {ca}/{n1} against patched {cc}/{n2}: '
      f'Fisher two-sided p = {fisher(ca, n1, cc, n2):.3f}')
