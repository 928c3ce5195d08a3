#!/usr/bin/env python3
"""Compare the native histograms a Prometheus server scraped from vmapstat
--web.listen-address (protobuf, --enable-feature=native-histograms) with what
the same vmapstat process printed with -j for the same intervals.

The scrape carries vmapscope_intervals_total = k; its histograms hold the
observations of the first k JSON intervals.  For every (caller, api) row of
each family named on the command line, at the time of the latest scrape:
  - the series exist exactly for the rows with observations, as native
    histograms (no classic _bucket series were ingested);
  - histogram_count() equals the JSON count and histogram_sum() the JSON
    sum divided by the unit (the same double the exporter wrote);
  - the native buckets hold every observation (their counts add up to the
    count) and agree with the JSON log2 slots: at every native bucket
    boundary u the observations at or below u are at least those of the
    slots wholly below u and at most those of the slots starting below u;
  - histogram_quantile(0.5) lies in the native bucket that holds the
    median observation, and that bucket overlaps the JSON slot that holds it.
A WANT file (--want) adds the exact native buckets a known workload must
give (caller prefix, family, {upper bound: count}).

usage: native_vs_json.py PROMETHEUS_URL JSON_FILE FAMILY:JSON_KEY:SUM_KEY:DEN...
       [--min-intervals N] [--min-callers N] [--want FILE]
"""
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from checklib import check, die, finish  # noqa: E402
from promql import query  # noqa: E402

HIST_SLOTS = 36          # VMAPSCOPE_HIST_SLOTS




def slot_of(low):
    return min(0 if low == 0 else low.bit_length() - 1, HIST_SLOTS - 1)


def slot_bounds(i):
    """[low, high] of slot i in whole units; high None for the last."""
    lo = 0 if i == 0 else 1 << i
    return lo, (None if i == HIST_SLOTS - 1 else (2 << i) - 1)


def rowkey(m):
    return (m.get("caller"), m.get("api"))


def expected(objs, jkey, skey):
    rows = {}
    for o in objs:
        for r in o["rows"]:
            ent = r.get(jkey) or []
            if not ent:
                continue
            slots, s = rows.setdefault((r["caller"], r["api"]), [[0] * HIST_SLOTS, 0])
            for e in ent:
                slots[slot_of(e["low"])] += e["count"]
            rows[(r["caller"], r["api"])][1] += r[skey]
    return rows


def main():
    args = sys.argv[1:]
    opts = {"--min-intervals": "1", "--min-callers": "1", "--want": None}
    rest = []
    while args:
        a = args.pop(0)
        if a in opts:
            opts[a] = args.pop(0)
        else:
            rest.append(a)
    base, json_path, fams = rest[0], rest[1], [f.split(":") for f in rest[2:]]
    objs = [json.loads(l) for l in open(json_path) if l.startswith("{")]

    # the latest scrape: its time and how many intervals it holds
    res = query(base, "vmapscope_intervals_total[30s]", time.time())
    if not res:
        die("no vmapscope_intervals_total scraped")
    t, k = max((float(v[0]), int(float(v[1]))) for v in res[0]["values"])
    check(k >= int(opts["--min-intervals"]), "the scrape at %.3f holds %d intervals (at least %s)"
          % (t, k, opts["--min-intervals"]))
    if len(objs) < k:
        die("vmapstat printed %d JSON intervals, the scrape holds %d" % (len(objs), k))
    objs = objs[:k]
    want = json.load(open(opts["--want"])) if opts["--want"] else []

    for fam, jkey, skey, den in fams:
        den = float(den)
        exp = expected(objs, jkey, skey)
        raw = {rowkey(s["metric"]): s for s in query(base, fam, t)}
        cnt = {rowkey(s["metric"]): float(s["value"][1]) for s in query(base, "histogram_count(%s)" % fam, t)}
        sm = {rowkey(s["metric"]): float(s["value"][1]) for s in query(base, "histogram_sum(%s)" % fam, t)}
        q50 = {rowkey(s["metric"]): float(s["value"][1])
               for s in query(base, "histogram_quantile(0.5, %s)" % fam, t)}
        classic = query(base, "%s_bucket" % fam, t)
        check(not classic, "%s: native only, no classic _bucket series ingested (%d)" % (fam, len(classic)))
        check(len(exp) >= int(opts["--min-callers"]),
              "%s: %d (caller, api) rows with observations (at least %s): %s"
              % (fam, len(exp), opts["--min-callers"], sorted(c for c, _ in exp)))
        check(set(raw) == set(exp), "%s: a native series for exactly the JSON rows with observations "
              "(only scraped: %s, only in JSON: %s)" % (fam, set(raw) - set(exp), set(exp) - set(raw)))
        for rk in sorted(set(raw) & set(exp)):
            slots, total_sum = exp[rk]
            n = sum(slots)
            h = raw[rk].get("histogram")
            if not h:
                check(False, "%s%s: not a native histogram: %s" % (fam, rk, raw[rk]))
                continue
            h = h[1]
            check(cnt.get(rk) == n, "%s%s: histogram_count %s == JSON %d" % (fam, rk, cnt.get(rk), n))
            check(sm.get(rk) == total_sum / den, "%s%s: histogram_sum %r == JSON %d / %g = %r"
                  % (fam, rk, sm.get(rk), total_sum, den, total_sum / den))
            # buckets: [rule, lower, upper, count]; the zero bucket straddles 0
            buckets = sorted((float(b[1]), float(b[2]), float(b[3])) for b in h.get("buckets", []))
            check(sum(b[2] for b in buckets) == n, "%s%s: native buckets hold all %d observations (%s)"
                  % (fam, rk, n, sum(b[2] for b in buckets)))
            bad = []
            cum = 0.0
            for lo, up, c in buckets:
                cum += c
                if up <= 0:
                    continue
                below = sum(slots[i] for i in range(HIST_SLOTS)
                            if slot_bounds(i)[1] is not None and slot_bounds(i)[1] / den <= up)
                started = sum(slots[i] for i in range(HIST_SLOTS) if slot_bounds(i)[0] / den <= up)
                if not below <= cum <= started:
                    bad.append((up, below, cum, started))
            check(not bad, "%s%s: native buckets agree with the JSON slots at every boundary %s"
                  % (fam, rk, bad or ""))
            # the median: its native bucket and its JSON slot
            rank, cum, mb = 0.5 * n, 0.0, None
            for lo, up, c in buckets:
                cum += c
                if cum >= rank:
                    mb = (lo, up)
                    break
            cum, ms = 0, None
            for i in range(HIST_SLOTS):
                cum += slots[i]
                if cum >= rank:
                    ms = slot_bounds(i)
                    break
            q = q50.get(rk)
            s_lo, s_hi = ms[0] / den, math.inf if ms[1] is None else ms[1] / den
            check(mb is not None and q is not None and mb[0] <= q <= mb[1] and mb[0] <= s_hi and mb[1] >= s_lo,
                  "%s%s: histogram_quantile(0.5) %s in the median's native bucket %s, which overlaps "
                  "its JSON slot [%g, %g]" % (fam, rk, q, mb, s_lo, s_hi))
        for w in want:
            if w["family"] != fam:
                continue
            rows = [rk for rk in raw if rk[0] and rk[0].startswith(w["caller"])]
            check(len(rows) == 1, "%s: one row of %s (%s)" % (fam, w["caller"], rows))
            if len(rows) != 1:
                continue
            got = {}
            for b in raw[rows[0]]["histogram"][1].get("buckets", []):
                if float(b[3]):
                    got["%g" % float(b[2])] = float(b[3])
            check(got == w["buckets"], "%s %s: native buckets {upper: count} %s == the workload's %s"
                  % (fam, w["caller"], got, w["buckets"]))
    return finish()


if __name__ == "__main__":
    sys.exit(main())
