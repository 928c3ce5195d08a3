#!/usr/bin/env python3
"""Check vmapstat on a stock kernel (output of stock.sh via scripts/lab run).

Without the series' tracepoints vmapstat must say once which columns are
missing and why, and still report what the kernel offers: the workload's
vmalloc() calls timed per caller (the caller is an argument of
__vmalloc_node_range_noprof) with the areas the stock alloc_vmap_area
tracepoint saw, which must match /proc/vmallocinfo's sizes for the same
callers.
usage: check_stock.py ARCH LOGFILE
"""
import json
import re
import sys
from collections import defaultdict

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from check import sections, func  # noqa: E402

VMALLOC_CALLERS = ("vswl_vmalloc_4k", "vswl_vmalloc_huge_pmd", "vswl_vmalloc_huge_cont")
failures = []


def check(cond, msg):
    print(("ok:   " if cond else "FAIL: ") + msg)
    if not cond:
        failures.append(msg)


def check_stack(s):
    """--stack-callers: every caller of the workload named from the kernel
    stack, with the areas /proc/vmallocinfo lists for it (one per call)."""
    for key in ("VS2-RC", "VS2-JSON", "VS2-VMALLOCINFO"):
        if key not in s:
            check(False, f"guest output lacks @@{key}")
            return
    check(s["VS2-RC"][0].strip() == "0", f"--stack-callers: vmapstat exited {s['VS2-RC'][0].strip()}")
    jl = [l for l in s["VS2-JSON"] if l.startswith("{")]
    check(len(jl) == 1, f"--stack-callers: {len(jl)} JSON line(s)")
    if len(jl) != 1:
        return
    o = json.loads(jl[0])
    f = o["features"]
    check(f["callers"]["available"] and f["callers"]["how"] == "stack",
          f"--stack-callers: JSON features.callers {f['callers']}")
    check(not f["latency"]["available"], "--stack-callers: no entry-point probe attached")
    vi, vi_caller = defaultdict(list), defaultdict(set)
    for l in s["VS2-VMALLOCINFO"]:
        p = l.split()
        if len(p) > 2 and p[2].startswith("vswl_"):
            vi[func(p[2])].append(int(p[1]))
            vi_caller[func(p[2])].add(p[2])
    check(set(VMALLOC_CALLERS) <= set(vi), f"--stack-callers: vmallocinfo lists {sorted(vi)}")
    rows = defaultdict(list)
    for r in o["rows"]:
        rows[func(r["caller"])].append(r)
    for c in sorted(vi):
        rs = rows.get(c, [])
        check(len(rs) == 1, f"--stack-callers: {c}: one row ({[r['caller'] for r in rs]})")
        if len(rs) != 1:
            continue
        r = rs[0]
        # the stack's frame is the return address vmallocinfo records
        check({r["caller"].split()[0]} == vi_caller[c],
              f"--stack-callers: {c}: caller {r['caller'].split()[0]} == vmallocinfo {sorted(vi_caller[c])}")
        want_api = "vmalloc" if c in VMALLOC_CALLERS else "vmap" if c.startswith("vswl_vmap_") else None
        if want_api:
            check(r["api"] == want_api, f"--stack-callers: {c}: api {r['api']} == {want_api}")
        check(r["calls"] == 0, f"--stack-callers: {c}: no timed calls ({r['calls']})")
        check(r["areas"] == len(vi[c]) and r["area_bytes"] == sum(vi[c]),
              f"--stack-callers: {c}: areas {r['areas']} / {r['area_bytes']} B == "
              f"vmallocinfo {len(vi[c])} / {sum(vi[c])} B")


def main():
    arch, log = sys.argv[1], sys.argv[2]
    s = sections(open(log, errors="replace").read())
    for key in ("VS-RC", "VS-JSON", "VS-ERR", "VS-VMALLOCINFO"):
        if key not in s:
            print(f"FAIL: guest output lacks @@{key}")
            return 1
    err = [l for l in s["VS-ERR"] if l.strip()]
    check(s["VS-RC"][0].strip() == "0", f"vmapstat exited {s['VS-RC'][0].strip()}")
    for col, tp in (("granule", "vmap_set_ptes"), ("chunk", "vmap_chunk")):
        n = sum(1 for l in err if l.startswith(f"vmapstat: {col}: kernel lacks vmalloc:{tp}"))
        check(n == 1, f"stderr names the missing {col} column once ({n})")
    jl = [l for l in s["VS-JSON"] if l.startswith("{")]
    check(len(jl) == 1, f"{len(jl)} JSON line(s)")
    o = json.loads(jl[0])
    f = o["features"]
    check(not f["granule"]["available"] and "vmap_set_ptes" in f["granule"]["why"], "JSON: granule missing, with why")
    check(not f["chunk"]["available"] and "vmap_chunk" in f["chunk"]["why"], "JSON: chunk missing, with why")
    check(f["areas"]["available"], f"JSON: areas from stock tracepoints ({f['areas']['how']})")
    check(f["latency"]["available"], f"JSON: latency attached ({f['latency']['how']})")
    check(o["counters"]["set_ptes_events"] == 0 and o["counters"]["chunk_events"] == 0,
          "no series events on a stock kernel")

    # /proc/vmallocinfo: area sizes (guard page included) per caller
    vi = defaultdict(list)
    for l in s["VS-VMALLOCINFO"]:
        p = l.split()
        if len(p) > 2 and p[2].startswith("vswl_"):
            vi[func(p[2])].append(int(p[1]))
    rows = {func(r["caller"]): r for r in o["rows"]}
    for c in VMALLOC_CALLERS:
        r = rows.get(c)
        check(r is not None, f"{c}: row present (caller from __vmalloc_node_range's argument)")
        if r is None:
            continue
        check(r["api"] == "vmalloc", f"{c}: api {r['api']}")
        check(r["calls"] == 1 and r["failed"] == 0 and r["latency_sum_ns"] > 0,
              f"{c}: one timed call ({r['latency_sum_ns']} ns)")
        check(r["granules"] == [] and r["chunks"] == 0, f"{c}: no granule/chunk figures invented")
        check(r["areas"] == len(vi[c]) and r["area_bytes"] == sum(vi[c]),
              f"{c}: areas {r['areas']} / {r['area_bytes']} B == vmallocinfo {len(vi[c])} / {sum(vi[c])} B")
    check_stack(s)
    print(f"{arch} stock: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
