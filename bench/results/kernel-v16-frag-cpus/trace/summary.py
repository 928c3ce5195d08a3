#!/usr/bin/env python3
"""Per traced boot (ctrace.sh output, gzipped): what decided kvmalloc_frag_128K's mode.

Counts, up to the last order-5 compaction event (kvmalloc_frag_128K's kmalloc() is
order 5; the 1M case after it is order 8):
  stalls     compact_stall total the module reported for the case
  kmalloc    calls kmalloc() served
  kcd_wakes  kcompactd wake-ups (mm_compaction_kcompactd_wake)
  kcd_defers kcompactd's failed order-9 compactions that deferred the zone
             (mm_compaction_defer_compaction order=9)
  deferred5  order-5 attempts skipped as deferred (mm_compaction_deferred order=5)
  failed_max the largest zone->compact_order_failed those events show: 6 means an
             order-5 compaction succeeded, and order 5 is no longer deferred at all
Usage: summary.py FILE.txt.gz...
"""
import gzip
import re
import sys

for path in sys.argv[1:]:
    text = gzip.open(path, 'rt').read()
    head, _, trace = text.partition('=== TRACE')
    stalls = re.search(r'compact_stall .*total=(\d+)', head)
    kmalloc = re.search(r'kvmalloc_frag_128K: (\d+) of', head)
    lines = trace.splitlines()
    last5 = max((i for i, l in enumerate(lines) if ' order=5 ' in l + ' '), default=-1)
    win = lines[:last5 + 1]
    count = lambda pat: sum(1 for l in win if re.search(pat, l))
    failed = [int(x) for l in win for x in re.findall(r'order_failed=(\d+)', l)]
    print(f'{path.split("/")[-1]:22} stalls={stalls[1] if stalls else "?":>3} '
          f'kmalloc={kmalloc[1] if kmalloc else "?"} '
          f'kcd_wakes={count("mm_compaction_kcompactd_wake"):>2} '
          f'kcd_defers={count("mm_compaction_defer_compaction: .*order=9"):>2} '
          f'deferred5={count("mm_compaction_deferred: .*order=5"):>2} '
          f'failed_max={max(failed, default="-")}')
