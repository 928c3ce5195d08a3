#!/usr/bin/env python3
"""Checks of vmapstat --by cgroup|comm in the Prometheus export.

The exposition of vmapstat -p -j --listen ... INTERVAL is rendered from
the same per-interval rows that the process prints with -j, and
vmapscope_intervals_total = k says how many of them it holds.  So the
first k JSON intervals, whose rows are never folded, are the exact
"before folding" view of that scrape: no second process, no timing luck
(a second, unbounded exporter would see another window and this
machine's other activity, and could only agree approximately).

usage:
  by_labels.py fold EXPOSITION JSON KEY TOP [--want-other]
      every per-caller series carries the KEY label right after caller;
      the named (caller, KEY) pairs are exactly those vmapstat's admission
      rule picks from the first k intervals (the biggest pairs while there
      is room, then kept), at most TOP of them; every other row is in
      caller="other",KEY="other"; each series equals the sum of its JSON
      rows (folded the same way), so each family's total equals the
      unfolded rows' total; at most TOP + 1 series per family and
      (api, granule, le).  --want-other: the fold must have happened.
  by_labels.py bursts EXPOSITION KEY LABEL_A LABEL_B NA NB
      the areas (or, on a series kernel, the mapping calls) of LABEL_A
      and LABEL_B, which forked NA < NB tasks alive at once: each within
      loose bounds of its burst, and B's above A's.
  by_labels.py promql PROMETHEUS_URL JSON KEY LABEL_A LABEL_B NA NB
      sum by (KEY) (vmapscope_vmap_areas_total) through Prometheus, at
      its latest scrape, equals the JSON sums per KEY of the first k
      intervals for every KEY value; then the bursts check on them.
exit 0 when every check holds; one "ok - " line per check.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from prom_vs_json import (BY_LABELS, COMPARED, NOT_COUNTERS, COUNTER_FAMILY,  # noqa: E402
                          expected_from_json, family, file_series, key)
from checklib import die, finish, ok  # noqa: E402
from promql import query  # noqa: E402

OTHER = "other"


def load_json(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.startswith("{")]


def intervals_of(series):
    for s in series:
        if s["metric"]["__name__"] == "vmapscope_intervals_total":
            return int(float(s["value"][1]))
    die("no vmapscope_intervals_total in the exposition")


def row_rank(acc):
    """vmapstat's admission order: bytes mapped, vmap area bytes, mapping
    calls plus probed calls (all descending), then the name (strcmp)."""
    return sorted(acc, key=lambda p: (-acc[p][0], -acc[p][1], -acc[p][2],
                                      p[0].encode(), p[1].encode()))


def admitted(objs, keyname, top):
    """The (caller, label) pairs vmapstat names after these intervals:
    after each interval, free places go to the biggest unnamed pairs of
    the totals so far; a named pair stays named."""
    acc, named = {}, set()
    for o in objs:
        for r in o["rows"]:
            p = (r["caller"], r.get(keyname, ""))
            a = acc.setdefault(p, [0, 0, 0])
            a[0] += sum(g["bytes"] for g in r["granules"])
            a[1] += r["area_bytes"]
            a[2] += r["chunks"] + r["calls"]
        if len(named) < top:
            free = [p for p in row_rank(acc) if p not in named]
            named.update(free[:top - len(named)])
    return named


def cmd_fold(expo, jpath, keyname, top, want_other):
    series = file_series(expo)
    objs = load_json(jpath)
    k = intervals_of(series)
    if k < 1 or len(objs) < k:
        die("exposition of %d intervals, JSON has %d" % (k, len(objs)))
    objs = objs[:k]
    counters = {COUNTER_FAMILY % c for c in objs[0]["counters"] if c not in NOT_COUNTERS}
    others = [b for b in BY_LABELS if b != keyname]

    # the label, after caller, on every per-caller series (text order)
    per_caller = re.compile(r'^(%s)(_bucket|_sum|_count)?\{' % "|".join(COMPARED))
    lines = [l for l in open(expo) if per_caller.match(l)]
    bad = [l for l in lines if not re.match(r'^\w+\{caller="(?:[^"\\]|\\.)*",%s="' % keyname, l)]
    if bad:
        die("per-caller series without %s right after caller: %s" % (keyname, bad[:3]))
    if not lines:
        die("no per-caller series at all")
    ok("%d per-caller series, each with %s after caller" % (len(lines), keyname))

    got = {}
    for s in series:
        m = dict(s["metric"])
        name = m.pop("__name__")
        if not family(name, counters):
            continue
        if "le" in m:
            m["le"] = float(m["le"].replace("+Inf", "inf"))
        for b in others:
            if b in m:
                die("%s has a %s label too" % (name, b))
        got[key(name, m)] = float(s["value"][1])

    # which pairs the exposition names, and the bound on them
    pairs = {(dict(kk[1])["caller"], dict(kk[1])[keyname]) for kk in got if "caller" in dict(kk[1])}
    named = {p for p in pairs if p[0] != OTHER}
    mixed = [p for p in pairs if (p[0] == OTHER) != (p[1] == OTHER)]
    if mixed:
        die("caller and %s not folded together: %s" % (keyname, mixed))
    if len(named) > top:
        die("%d named (caller, %s) pairs over --top-callers %d" % (len(named), keyname, top))
    want = admitted(objs, keyname, top)
    if named != want & pairs:
        die("named pairs %s, the admission rule names %s" % (sorted(named), sorted(want)))
    if (OTHER, OTHER) in pairs:
        ok("%d named (caller, %s) pairs (bound %d), the rest in caller=\"other\",%s=\"other\""
           % (len(named), keyname, top, keyname))
    elif want_other:
        die("no caller=\"other\" series: nothing was folded (%d pairs)" % len(pairs))
    else:
        ok("%d named (caller, %s) pairs (bound %d), nothing folded" % (len(named), keyname, top))

    # series per (family, api, granule, le): at most top + 1
    per_slot = {}
    for (name, labels) in got:
        d = dict(labels)
        if "caller" in d:
            slot = (name, d.get("api"), d.get("granule"), d.get("le"))
            per_slot[slot] = per_slot.get(slot, 0) + 1
    worst = max(per_slot.values()) if per_slot else 0
    if worst > top + 1:
        die("%d series of one family and (api, granule, le), over %d" % (worst, top + 1))
    ok("at most %d series per family and (api, granule, le) (bound %d)" % (worst, top + 1))

    # exact: each series is the sum of its JSON rows, folded as above
    unfolded = expected_from_json(objs)
    exp = {}
    for (name, labels), v in unfolded.items():
        d = dict(labels)
        if "caller" in d and (d["caller"], d.get(keyname, "")) not in named:
            d["caller"] = d[keyname] = OTHER
        kk = key(name, d)
        exp[kk] = exp.get(kk, 0) + v
    diff = ["%s: scraped %s, JSON %s" % (kk, got.get(kk), exp.get(kk))
            for kk in set(got) | set(exp) if got.get(kk) != exp.get(kk)]
    if diff:
        die("%d series differ from the JSON rows of the same %d intervals:\n  %s"
             % (len(diff), k, "\n  ".join(sorted(diff)[:20])))
    ok("%d series equal the sums of the first %d JSON intervals' rows" % (len(got), k))

    # so each family's total over its series is the unfolded total
    fams = {}
    for (name, labels), v in unfolded.items():
        if "caller" in dict(labels) and not name.endswith("_bucket"):
            fams.setdefault(name, [0, 0])[0] += v
    for (name, labels), v in got.items():
        if name in fams:
            fams[name][1] += v
    nonzero = {n: t for n, t in fams.items() if t[0]}
    if not nonzero:
        die("every per-caller family is zero: no activity seen")
    for n, (u, s) in sorted(fams.items()):
        if u != s:
            die("%s: total %s over the series, %s over the unfolded rows" % (n, s, u))
    ok("per-family totals equal the unfolded rows': %s"
       % ", ".join("%s %d" % (n, t[0]) for n, t in sorted(nonzero.items())))


def burst_counts(series, keyname):
    """Per label value: vmap areas, or mapping calls when no area series."""
    areas, calls = {}, {}
    for s in series:
        m = s["metric"]
        lab = m.get(keyname)
        if lab is None:
            continue
        v = float(s["value"][1])
        if m["__name__"] == "vmapscope_vmap_areas_total":
            areas[lab] = areas.get(lab, 0) + v
        elif m["__name__"] == "vmapscope_chunk_length_pages_count":
            calls[lab] = calls.get(lab, 0) + v
    return (areas, "areas") if areas else (calls, "mapping calls")


def check_bursts(counts, what, keyname, la, lb, na, nb):
    a, b = counts.get(la, 0), counts.get(lb, 0)
    # freed stacks are reused from a small per-CPU cache, so a burst may
    # allocate fewer areas than tasks: the bounds are loose, the order not
    if not 1 <= a <= 2 * na + 10:
        die("%s=%s holds %d %s for a burst of %d (%s)" % (keyname, la, a, what, na, counts))
    if not nb // 4 <= b <= 2 * nb + 10:
        die("%s=%s holds %d %s for a burst of %d (%s)" % (keyname, lb, b, what, nb, counts))
    if not b > a:
        die("%s=%s (%d) not above %s=%s (%d)" % (keyname, lb, b, keyname, la, a))
    ok("%s=%s %d %s (burst %d) < %s=%s %d %s (burst %d)" % (keyname, la, a, what, na,
                                                            keyname, lb, b, what, nb))


def cmd_bursts(expo, keyname, la, lb, na, nb):
    counts, what = burst_counts(file_series(expo), keyname)
    check_bursts(counts, what, keyname, la, lb, na, nb)




def cmd_promql(base, jpath, keyname, la, lb, na, nb):
    # the latest scrape: every series of it carries the same timestamp
    res = query(base, 'timestamp(vmapscope_intervals_total{job="vmapscope"})')
    if not res:
        die("Prometheus has no vmapscope_intervals_total")
    t = float(res[0]["value"][1])
    k = int(float(query(base, 'vmapscope_intervals_total{job="vmapscope"}', t)[0]["value"][1]))
    q = 'sum by (%s) (vmapscope_vmap_areas_total{job="vmapscope"})' % keyname
    got = {r["metric"].get(keyname, ""): float(r["value"][1]) for r in query(base, q, t)}
    objs = load_json(jpath)
    if k < 1 or len(objs) < k:
        die("Prometheus scraped %d intervals, JSON has %d" % (k, len(objs)))
    exp = {}
    for o in objs[:k]:
        for r in o["rows"]:
            if r["areas"]:
                exp[r[keyname]] = exp.get(r[keyname], 0) + r["areas"]
    if got != exp:
        die("%s at the scrape of %d intervals: %s, the JSON rows: %s" % (q, k, got, exp))
    ok("%s through Prometheus equals the JSON rows' sums of the same %d intervals (%d values)"
       % (q, k, len(got)))
    check_bursts(got, "areas", keyname, la, lb, na, nb)


def main(argv):
    if len(argv) >= 5 and argv[1] == "fold":
        cmd_fold(argv[2], argv[3], argv[4], int(argv[5]), "--want-other" in argv[6:])
    elif len(argv) == 8 and argv[1] == "bursts":
        cmd_bursts(argv[2], argv[3], argv[4], argv[5], int(argv[6]), int(argv[7]))
    elif len(argv) == 9 and argv[1] == "promql":
        cmd_promql(argv[2], argv[3], argv[4], argv[5], argv[6], int(argv[7]), int(argv[8]))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
    sys.exit(finish())
