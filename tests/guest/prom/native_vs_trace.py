#!/usr/bin/env python3
"""The native histograms a Prometheus server ingested from vmapstat's
protobuf exposition, against the kernel's own vmalloc:vmap_mapped lines
(tracefs) of the calls they count: exact, bucket by bucket.

  native_vs_trace.py PROMETHEUS_URL TRACE_FILE [--min-rows N]

TRACE_FILE: "api size ns caller" per mapping call of the workload
(native_inside.sh), every one of them inside the intervals the scrape
holds.  For each (caller, api) of the trace, at the latest scrape:
  - vmapscope_chunk_length_pages holds each call's size / 4096 pages in
    the schema-0 bucket (2^(k-1), 2^k] that contains it, and nowhere else;
  - vmapscope_map_latency_seconds each call's ns / 10^9 seconds likewise
    (the bucket computed exactly, in rationals: 10^9 is no power of two,
    so the native boundaries fall inside the BPF log2 slots);
  - histogram_count is the number of calls, histogram_sum the sum of the
    sizes in pages (exact) and of the times in seconds (within the
    rounding of one division).
A zero (a latency of 0 ns) belongs in the zero bucket.
"""
import os
import sys
import time
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "lib"))
from checklib import check, die, finish  # noqa: E402
from promql import query  # noqa: E402

PAGE = 4096


def bucket(v):
    """The schema-0 bucket of a value v >= 0 (a Fraction): its upper bound
    2^k, the smallest with v <= 2^k, as a float (exact: a power of two);
    "zero" for 0."""
    if v == 0:
        return "zero"
    k = v.numerator.bit_length() - v.denominator.bit_length()
    while Fraction(2) ** k < v:
        k += 1
    while Fraction(2) ** (k - 1) >= v:
        k -= 1
    return 2.0 ** k


def native_buckets(series):
    """{upper bound or "zero": count} of a query result's native histogram."""
    h = series.get("histogram")
    if not h:
        return None
    out = {}
    for rule, lo, up, n in h[1].get("buckets", []):
        lo, up, n = float(lo), float(up), float(n)
        if not n:
            continue
        key = "zero" if lo <= 0 <= up else up
        out[key] = out.get(key, 0) + n
    return out


def main():
    args = sys.argv[1:]
    min_rows = 1
    if "--min-rows" in args:
        i = args.index("--min-rows")
        min_rows = int(args[i + 1])
        del args[i:i + 2]
    base, trace_path = args
    calls = {}
    for line in open(trace_path):
        f = line.split(None, 3)
        if len(f) != 4:
            continue
        api, size, ns, caller = f[0], int(f[1]), int(f[2]), f[3].strip()
        calls.setdefault((caller, api), []).append((size, ns))
    check(len(calls) >= min_rows, "the trace holds %d calls of %d (caller, api) rows of the workload "
          "(at least %d)" % (sum(len(c) for c in calls.values()), len(calls), min_rows))

    res = query(base, "vmapscope_intervals_total[60s]", time.time())
    if not res:
        die("no vmapscope_intervals_total scraped")
    t = max(float(v[0]) for v in res[0]["values"])

    fams = (("vmapscope_chunk_length_pages", lambda size, ns: Fraction(size, PAGE)),
            ("vmapscope_map_latency_seconds", lambda size, ns: Fraction(ns, 10 ** 9)))
    for fam, value in fams:
        got = {(s["metric"].get("caller"), s["metric"].get("api")): s for s in query(base, fam, t)}
        cnt = {(s["metric"].get("caller"), s["metric"].get("api")): float(s["value"][1])
               for s in query(base, "histogram_count(%s)" % fam, t)}
        sm = {(s["metric"].get("caller"), s["metric"].get("api")): float(s["value"][1])
              for s in query(base, "histogram_sum(%s)" % fam, t)}
        exact = 0
        for key in sorted(calls):
            vals = [value(size, ns) for size, ns in calls[key]]
            want = {}
            for v in vals:
                b = bucket(v)
                want[b] = want.get(b, 0) + 1
            s = got.get(key)
            have = native_buckets(s) if s else None
            total = sum(vals)
            ok = (have == want and cnt.get(key) == len(vals) and sm.get(key) is not None and
                  abs(sm[key] - float(total)) <= 1e-12 * max(1.0, float(total)) * len(vals))
            if not ok:
                check(False, "%s{caller=%r, api=%s}: native buckets %s, count %s, sum %r; from the trace "
                      "%s, %d calls, sum %r" % (fam, key[0], key[1], have, cnt.get(key), sm.get(key),
                                               want, len(vals), float(total)))
                continue
            exact += 1
        check(exact == len(calls), "%s: the native histogram of each of the %d rows equals its calls' "
              "values in the trace, bucket by bucket (%d exact)" % (fam, len(calls), exact))
    return finish()


if __name__ == "__main__":
    sys.exit(main())
