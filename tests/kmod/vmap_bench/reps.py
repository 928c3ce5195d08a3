#!/usr/bin/env python3
"""Medians over boots: `make bench-kernel`'s outputs plus repeated boots of the same kernels.

usage: reps.py KERNEL_DIR REPS_DIR

KERNEL_DIR holds bench-kernel's ARCH-VARIANT[-icount].txt (one boot each, and for the
fragmented-memory cases as many as BENCH_FRAG_BOOTS); REPS_DIR holds
further boots, ARCH-VARIANT-tcg-N.txt (both bench.sh boots, plain TCG) and
ARCH-VARIANT-icount-frag-N.txt (the fragmented-memory boot under -icount).  For every case
with a result in at least three boots of both kernels, prints the median over boots of each
boot's median, the range, and stock/patched; a row is marked "apart" when the two kernels'
ranges do not overlap (an effect beyond what boots of one kernel vary by).
"""
import glob
import os
import re
import statistics
import sys

RESULT = re.compile(r'RESULT case=(\S+) metric=(\S+) median=(\d+)')


def load(path):
    """The boots in one output file: a file of make bench-kernel holds one boot of
    the other cases and several of the fragmented-memory ones; a case seen again
    starts the next boot."""
    out = [{}]
    with open(path) as f:
        for line in f:
            m = RESULT.search(line)
            if m:
                if (m[1], m[2]) in out[-1]:
                    out.append({})
                out[-1][(m[1], m[2])] = int(m[3])
    return out


def boots(kdir, rdir, arch, variant, run):
    if run == 'TCG':
        first = os.path.join(kdir, f'{arch}-{variant}.txt')
        more = sorted(glob.glob(os.path.join(rdir, f'{arch}-{variant}-tcg-*.txt')))
    else:
        first = os.path.join(kdir, f'{arch}-{variant}-icount.txt')
        more = sorted(glob.glob(os.path.join(rdir, f'{arch}-{variant}-icount-frag-*.txt')))
    return [b for p in [first] + more if os.path.exists(p) for b in load(p)]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[2])
    kdir, rdir = sys.argv[1:]
    print('| arch | run | case | metric | boots | stock median [range] | patched median [range] '
          '| stock/patched | |')
    print('|---|---|---|---|---:|---:|---:|---:|---|')
    for arch in ('x86_64', 'arm64'):
        for run in ('TCG', 'TCG -icount'):
            st, pa = (boots(kdir, rdir, arch, v, run) for v in ('stock', 'patched'))
            if not st or not pa:
                continue
            for key in st[0]:
                if key[1] not in ('ns', 'us', 'inst'):
                    continue
                s = [b[key] for b in st if key in b]
                p = [b[key] for b in pa if key in b]
                if len(s) < 3 or len(p) < 3:
                    continue
                ms, mp = statistics.median(s), statistics.median(p)
                apart = 'apart' if max(s) < min(p) or max(p) < min(s) else ''
                print(f'| {arch} | {run} | {key[0]} | {key[1]} | {len(s)}/{len(p)} '
                      f'| {ms:.0f} [{min(s)}-{max(s)}] | {mp:.0f} [{min(p)}-{max(p)}] '
                      f'| {ms / mp:.2f}x | {apart} |')


if __name__ == '__main__':
    main()
