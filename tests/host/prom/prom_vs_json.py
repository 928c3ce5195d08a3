#!/usr/bin/env python3
"""Compare what a Prometheus server scraped from vmapstat --listen with what
the same vmapstat process printed with -j, for the same intervals.

The exposition carries vmapscope_intervals_total = k: it is the sum of the
first k interval objects of the JSON output.  This script asks Prometheus
(HTTP API) for every vmapscope_ series with its samples' scrape times,
takes each series' sample of the latest scrape (all must have one), sums the first k JSON
intervals, and requires every scraped value to equal the JSON sum and every
non-zero JSON figure to have been scraped.  No timing assumption: whatever
k Prometheus happened to scrape is the k that is compared.

usage: prom_vs_json.py PROMETHEUS_URL|EXPOSITION_FILE JSON_FILE [--min-intervals N]
With a file (--textfile, --prometheus output) instead of a server URL the
same comparison is made against that exposition.
prints one line per check; exit 0 when all agree.
"""
import json
import math
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from checklib import die, fail, finish, ok  # noqa: E402
from promql import query  # noqa: E402

HIST_SLOTS = 36          # VMAPSCOPE_HIST_SLOTS
FINITE_BOUNDS = HIST_SLOTS - 1

# families whose every series must match the JSON (info gauges excluded)
COMPARED = ("vmapscope_mapped_bytes_total", "vmapscope_mappings_total",
            "vmapscope_mapping_runs_total", "vmapscope_chunk_length_pages",
            "vmapscope_map_latency_seconds", "vmapscope_calls_total",
            "vmapscope_failed_calls_total", "vmapscope_vmap_areas_total",
            "vmapscope_vmap_area_bytes_total")
# every JSON counter is a family of its own name (vocab.h), but the map size
COUNTER_FAMILY = "vmapscope_%s_total"
NOT_COUNTERS = ("stats_map_max_entries",)
# the JSON row keys that --by adds, each exported as a label of its name
BY_LABELS = ("cgroup", "comm")


def size_label(shift):
    if shift < 10:
        return str(1 << shift)
    return "%d%s" % (1 << (shift % 10), "KMGTPE"[shift // 10 - 1])




def key(name, labels):
    return (name, tuple(sorted(labels.items())))


def add(exp, name, labels, v):
    k = key(name, labels)
    exp[k] = exp.get(k, 0) + v


def hist_expected(exp, name, labels, entries, total_sum, div):
    """entries: JSON [{low, high, count}] (non-zero slots); cumulative le."""
    per_slot = [0] * HIST_SLOTS
    for e in entries:
        slot = 0 if e["low"] == 0 else e["low"].bit_length() - 1
        per_slot[min(slot, HIST_SLOTS - 1)] += e["count"]
    cum = 0
    for i in range(FINITE_BOUNDS):
        cum += per_slot[i]
        add(exp, name + "_bucket", dict(labels, le=((2 ** (i + 1) - 1) / div)), cum)
    cum += per_slot[-1]
    add(exp, name + "_bucket", dict(labels, le=math.inf), cum)
    add(exp, name + "_count", labels, cum)
    add(exp, name + "_sum", labels, total_sum)


def expected_from_json(objs):
    exp = {}
    hists = {}      # (name, caller, api) -> [entries, sum]
    for o in objs:
        for r in o["rows"]:
            lab = {"caller": r["caller"], "api": r["api"]}
            # --by: the row's label, as the exporter's label of that name
            lab.update({b: r[b] for b in BY_LABELS if b in r})
            for g in r["granules"]:
                glab = dict(lab, granule=size_label(g["shift"]))
                add(exp, "vmapscope_mapped_bytes_total", glab, g["bytes"])
                add(exp, "vmapscope_mappings_total", glab, g["mappings"])
                add(exp, "vmapscope_mapping_runs_total", glab, g["runs"])
            for field, name in (("calls", "vmapscope_calls_total"),
                                ("failed", "vmapscope_failed_calls_total"),
                                ("areas", "vmapscope_vmap_areas_total"),
                                ("area_bytes", "vmapscope_vmap_area_bytes_total")):
                add(exp, name, lab, r[field])
            for hname, ent, s in (("chunk", r["chunk_hist"], r["chunk_pages"]),
                                  ("lat", r["latency_hist_ns"], r["latency_sum_ns"])):
                h = hists.setdefault((hname, tuple(sorted(lab.items()))), [[], 0])
                h[0].extend(ent)
                h[1] += s
        c = o["counters"]
        for name, v in c.items():
            if name not in NOT_COUNTERS:
                add(exp, COUNTER_FAMILY % name, {}, v)
    for (hname, labels), (ent, s) in hists.items():
        if not ent:
            continue
        lab = dict(labels)
        if hname == "chunk":
            hist_expected(exp, "vmapscope_chunk_length_pages", lab, ent, s, 1)
        else:
            hist_expected(exp, "vmapscope_map_latency_seconds", lab, ent, s / 1e9, 1e9)
    # the exporter writes per-(caller, api) series only when non-zero
    # (the JSON lists a granule when its bytes or runs are non-zero, the
    # same rule as the exporter's; histograms only when they have counts)
    sparse = ("vmapscope_calls_total", "vmapscope_failed_calls_total",
              "vmapscope_vmap_areas_total", "vmapscope_vmap_area_bytes_total")
    return {k: v for k, v in exp.items() if v or k[0] not in sparse}


def family(name, counters=()):
    if name in counters:
        return name
    for f in COMPARED:
        if name == f or name in (f + "_bucket", f + "_sum", f + "_count"):
            return f
    return None


def scraped_series(base):
    t = time.time()
    # a range selector returns each sample with its scrape timestamp: take
    # the latest scrape S, and from every series its sample of scrape S
    res = query(base, '{__name__=~"vmapscope_.+"}[15s]', t)
    last = max(float(v[0]) for s in res for v in s["values"])
    at_s = []
    for s in res:
        vals = [v for v in s["values"] if float(v[0]) == last]
        if not vals:
            die("%s has no sample from the scrape at %.3f" % (s["metric"], last))
        at_s.append({"metric": s["metric"], "value": vals[0]})
    ok("%d vmapscope series, all from the scrape at %.3f" % (len(at_s), last))
    return at_s


LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def unescape(v):
    return re.sub(r'\\(.)', lambda m: "\n" if m.group(1) == "n" else m.group(1), v)


def file_series(path):
    out = []
    for line in open(path):
        if not line.strip() or line.startswith("#"):
            continue
        series, value = line.rsplit(" ", 1)
        name, _, labels = series.partition("{")
        m = {k: unescape(v) for k, v in LABEL.findall(labels)}
        m["__name__"] = name
        out.append({"metric": m, "value": [0, value]})
    ok("%d vmapscope series in %s" % (len(out), path))
    return out


def main():
    base, jpath = sys.argv[1], sys.argv[2]
    min_k = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--min-intervals" else 1
    if base.startswith("http://"):
        res = scraped_series(base)
    else:
        res = file_series(base)

    with open(jpath) as f:
        objs = [json.loads(line) for line in f if line.strip()]
    counters = {COUNTER_FAMILY % c for o in objs[:1] for c in o["counters"] if c not in NOT_COUNTERS}
    got = {}
    k = None
    for s in res:
        m = dict(s["metric"])
        name = m.pop("__name__")
        m.pop("job", None)
        m.pop("instance", None)
        if name == "vmapscope_intervals_total":
            k = int(float(s["value"][1]))
        if not family(name, counters):
            continue
        if "le" in m:
            m["le"] = float(m["le"].replace("+Inf", "inf"))
        got[key(name, m)] = float(s["value"][1])
    if k is None or k < min_k:
        die("Prometheus scraped vmapscope_intervals_total=%s, want >= %d" % (k, min_k))

    if len(objs) < k:
        die("scrape says %d intervals, JSON has only %d" % (k, len(objs)))
    exp = expected_from_json(objs[:k])

    bad = []
    for kk, v in got.items():
        if kk not in exp:
            bad.append("scraped but not in JSON: %s = %s" % (kk, v))
        elif exp[kk] != v:
            bad.append("%s: scraped %r, JSON sum %r" % (kk, v, exp[kk]))
    for kk, v in exp.items():
        if kk not in got:
            bad.append("in JSON but not scraped: %s = %s" % (kk, v))
    if bad:
        for b in bad[:40]:
            fail(b)
        die("%d mismatches over %d intervals" % (len(bad), k))
    nonzero = sum(1 for v in got.values() if v)
    areas = sum(v for kk, v in got.items() if kk[0] == "vmapscope_vmap_area_bytes_total")
    ok("%d compared series (%d non-zero) equal the sum of the first %d JSON intervals "
          "(vmap area bytes %d)" % (len(got), nonzero, k, areas))
    if not nonzero:
        die("nothing non-zero was compared: no activity seen")


if __name__ == "__main__":
    main()
    sys.exit(finish())
