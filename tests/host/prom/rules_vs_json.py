#!/usr/bin/env python3
"""The histogram rules of contrib/prometheus/vmapscope.rules.yml (group
vmapscope.histograms, "native or classic" expressions) against a real
Prometheus that scraped vmapstat, natively or classically: each expression,
with its family renamed to one this host's kernel fills and its window
widened to cover every scrape, must give a result for every (caller, api)
row that changed, and the mean expression must equal the mean of the
observations of the JSON intervals between the window's first and last
scrape (the rate's extrapolation cancels in the ratio).

usage: rules_vs_json.py PROMETHEUS_URL JSON_FILE RULES_FILE FAMILY JSON_KEY SUM_KEY DEN
"""
import json
import math
import os
import re
import sys
import time

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from checklib import check, die, finish  # noqa: E402
from promql import query  # noqa: E402

FAMILIES = ("vmapscope_map_latency_seconds", "vmapscope_chunk_length_pages")
WINDOW = "10m"




def main():
    base, json_path, rules_path, fam, jkey, skey, den = sys.argv[1:8]
    den = float(den)
    objs = [json.loads(l) for l in open(json_path) if l.startswith("{")]
    groups = {g["name"]: g for g in yaml.safe_load(open(rules_path))["groups"]}
    rules = groups["vmapscope.histograms"]["rules"]
    t = time.time()
    ks = [int(float(v[1])) for v in query(base, "vmapscope_intervals_total[%s]" % WINDOW, t)[0]["values"]]
    k0, k1 = ks[0], ks[-1]
    if len(objs) < k1:
        die("vmapstat printed %d JSON intervals, the last scrape holds %d" % (len(objs), k1))
    # the JSON observations between the first and the last scrape of the window
    delta = {}
    for o in objs[k0:k1]:
        for r in o["rows"]:
            n = sum(e["count"] for e in r.get(jkey) or [])
            if n:
                d = delta.setdefault((r["caller"], r["api"]), [0, 0])
                d[0] += n
                d[1] += r[skey]
    check(delta, "JSON intervals %d..%d of the window hold observations of %d rows" % (k0 + 1, k1, len(delta)))
    for rule in rules:
        expr = rule["expr"]
        for f in FAMILIES:
            expr = expr.replace(f, fam)
        expr = re.sub(r"\[5m\]", "[%s]" % WINDOW, expr)
        res = query(base, expr, t)
        # a row without observations in the window divides 0 by 0
        got = {(s["metric"].get("caller"), s["metric"].get("api")): float(s["value"][1]) for s in res
               if not math.isnan(float(s["value"][1]))}
        name = rule["record"]
        if "caller" in name.split(":")[0]:
            check(set(got) == set(delta), "%s: a result for each row that changed (%d), got %d"
                  % (name, len(delta), len(got)))
            bad = [(rk, got.get(rk), s / den / n) for rk, (n, s) in delta.items()
                   if rk not in got or not math.isclose(got[rk], s / den / n, rel_tol=1e-9)]
            check(not bad, "%s: the mean of each row's observations in the window, as the JSON has it %s"
                  % (name, bad or ""))
        else:
            apis = {a for _, a in delta}
            check({a for _, a in got} == apis and all(math.isfinite(v) and v > 0 for v in got.values()),
                  "%s: a finite quantile for each API that changed (%s): %s" % (name, sorted(apis), got))
    return finish()


if __name__ == "__main__":
    sys.exit(main())
