#!/usr/bin/env python3
"""Check vmapstat on a stock kernel (output of stock.sh via scripts/lab run).

Without the series' tracepoints vmapstat must say once which columns are
missing and why, and still report what the kernel offers: by default the
areas counted per caller at alloc_vmap_area()'s exit, one program and no
entry-point probe (check_default), which must match /proc/vmallocinfo's
sizes for the same callers; with --call-latency the workload's vmalloc()
calls timed whole (the caller is an argument of
__vmalloc_node_range_noprof); the same with the callers named by kernel
stack (--stack-callers); and the traced rows joined with the snapshot's
on (caller, api) (check_join).
usage: check_stock.py ARCH LOGFILE
"""
import json
import re
import sys
from collections import defaultdict

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from check import sections, func  # noqa: E402
from checklib import check, finish  # noqa: E402  (check.py put tests/lib on the path)

VMALLOC_CALLERS = ("vswl_vmalloc_4k", "vswl_vmalloc_huge_pmd", "vswl_vmalloc_huge_cont")


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
    check(not f["call_latency"]["available"], "--stack-callers: no entry-point probe attached")
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


FORK_FUNCS = ("kernel_clone", "copy_process", "dup_task_struct", "alloc_thread_stack_node")
JOIN_CALLERS = VMALLOC_CALLERS + ("vswl_vmap_pmd", "vswl_vmap_cont", "vswl_vmap_4k")
N_CHILDREN = 20


def check_join(s):
    """VS3: the default method names each area's caller from its vm_struct,
    so the traced rows (vmapstat -p -j) and the snapshot's rows
    (vmapstat --snapshot -p -j, from /proc/vmallocinfo) join on (caller,
    api): the workload module's areas, exactly, and the fork burst's thread
    stacks (vmallocinfo names them by kernel_clone, not by the stack
    frame copy_process)."""
    for key in ("VS3-RC", "VS3-JSON", "VS3-ERR", "VS3-LIVE-RC", "VS3-LIVE", "VS3-VMALLOCINFO",
                "VS3-CPUS"):
        if key not in s:
            check(False, f"guest output lacks @@{key}")
            return
    check(s["VS3-RC"][0].strip() == "0", f"join: vmapstat exited {s['VS3-RC'][0].strip()}")
    check(s["VS3-LIVE-RC"][0].strip() == "0", f"join: vmapstat --snapshot exited {s['VS3-LIVE-RC'][0].strip()}")
    jl = [l for l in s["VS3-JSON"] if l.startswith("{")]
    ll = [l for l in s["VS3-LIVE"] if l.startswith("{")]
    check(len(jl) == 1 and len(ll) == 1, f"join: {len(jl)} traced and {len(ll)} live JSON line(s)")
    if len(jl) != 1 or len(ll) != 1:
        return
    o, live = json.loads(jl[0]), json.loads(ll[0])
    f = o["features"]
    check(f["callers"] == {"available": True, "how": "vm_struct", "why": ""},
          f"join: callers named by the areas' vm_struct ({f['callers']})")
    check(f["areas"]["available"] and f["areas"]["how"] == "fexit",
          f"join: areas counted at alloc_vmap_area's exit by fexit ({f['areas']})")
    err = s["VS3-ERR"]
    gran = [l for l in err if l.startswith("vmapstat: granule: kernel lacks vmalloc:vmap_mapped")]
    check(len(gran) == 1 and "vm_struct" in gran[0] and "entry-point probes" not in gran[0],
          f"join: stderr names the method that ran: {gran}")
    check("vmapstat: callers named by vm_struct" in err, "join: -v says callers named by vm_struct")
    check(o["counters"]["stack_unnamed_areas"] == 0 and o["counters"]["alloc_vmap_area_events"] > 0,
          f"join: {o['counters']['alloc_vmap_area_events']} areas, none left to the stack method")

    traced = defaultdict(list)
    for r in o["rows"]:
        traced[(r["caller"], r["api"])].append(r)
    lrows = {(r["caller"], r["api"]): r for r in live["rows"]}
    check(all(len(v) == 1 for v in traced.values()), "join: one traced row per (caller, api)")

    # the workload module: every row of either view is in the other, same areas and bytes
    tmod = {k for k in traced if k[0].endswith(" [vmapstat_workload]")}
    lmod = {k for k in lrows if k[0].endswith(" [vmapstat_workload]")}
    check({func(c) for c, _ in lmod} >= set(JOIN_CALLERS),
          f"join: live view lists the workload's callers {sorted(func(c) for c, _ in lmod)}")
    check(tmod == lmod, f"join: workload rows, traced {sorted(tmod)} == live {sorted(lmod)}")
    for k in sorted(tmod & lmod):
        t, l = traced[k][0], lrows[k]
        check(t["areas"] == l["areas"] and t["area_bytes"] == l["area_bytes"],
              f"join: {k[0]} ({k[1]}): traced {t['areas']} areas / {t['area_bytes']} B == "
              f"live {l['areas']} / {l['area_bytes']} B")

    # the fork burst: its stacks under the caller vmallocinfo prints for them
    vi_callers = {l.split()[2] for l in s["VS3-VMALLOCINFO"] if len(l.split()) > 2}
    fork = [k for k in traced if k[1] == "vmalloc" and func(k[0]) in FORK_FUNCS]
    cpus = int(s["VS3-CPUS"][0].strip())
    check(len(fork) == 1, f"join: one traced row for the fork path ({fork})")
    if len(fork) != 1:
        return
    k = fork[0]
    t = traced[k][0]
    # a fork takes a cached stack first (two per CPU), else allocates one
    check(t["areas"] >= N_CHILDREN - 2 * cpus,
          f"join: fork burst: {t['areas']} stacks traced under {k[0]} (>= {N_CHILDREN} - 2 x {cpus} CPUs)")
    check(k[0] in vi_callers, f"join: fork caller {k[0]} is one /proc/vmallocinfo prints")
    l = lrows.get(k)
    check(l is not None and l["areas"] >= N_CHILDREN,
          f"join: live row ({k[0]}, vmalloc) with the {N_CHILDREN} live children's stacks "
          f"({l['areas'] if l else 0} areas)")


def check_default(s, vi):
    """No option: one program at alloc_vmap_area()'s exit (and module_load),
    no entry-point probe; the areas per caller as /proc/vmallocinfo has them."""
    if "VSD-RC" not in s:
        check(False, "guest output lacks the default run (VSD)")
        return
    check(s["VSD-RC"][0].strip() == "0", f"default run exited {s['VSD-RC'][0].strip()}")
    o = json.loads([l for l in s["VSD-JSON"] if l.startswith("{")][0])
    f = o["features"]
    check(f["call_latency"]["how"] == "off (--call-latency)" and f["callers"]["how"] == "vm_struct",
          f"default: no call latency, callers from the areas' vm_struct ({f['call_latency']}, {f['callers']})")
    progs = [l.split() for l in s.get("VSD-LINKS", []) if l.startswith("prog ")]
    links = [l.split() for l in s.get("VSD-LINKS", []) if l.startswith("link ")]
    print("default attach set:", [" ".join(p[2:]) for p in progs], [" ".join(l[2:]) for l in links])
    names = [p[3] for p in progs]
    # loaded: one area program (and the tracepoint's, kept in case it cannot attach)
    check(len([n for n in names if n in ("on_area_exit", "on_area_ret")]) == 1 and
          not any(n.startswith("lat_") for n in names),
          f"default: one area program loaded, no entry-point probe ({names})")
    # attached: the area program at alloc_vmap_area()'s exit and module_load
    raw = sorted(l[4] for l in links if l[2] == "raw_tracepoint")
    other = [l[2] for l in links if l[2] != "raw_tracepoint"]
    check(raw == ["module_load"] and other in (["tracing"], ["perf_event"]),
          f"default: links: module_load and one area program ({[l[2:] for l in links]})")
    rows = {func(r["caller"]): r for r in o["rows"]}
    for c in VMALLOC_CALLERS:
        r = rows.get(c)
        check(r is not None and r["areas"] == len(vi[c]) and r["area_bytes"] == sum(vi[c]) and
              r["calls"] == 0,
              f"default: {c}: areas {r and r['areas']} / {r and r['area_bytes']} B == vmallocinfo "
              f"{len(vi[c])} / {sum(vi[c])} B, no call timed")


def main():
    arch, log = sys.argv[1], sys.argv[2]
    s = sections(open(log, errors="replace").read())
    for key in ("VS-RC", "VS-JSON", "VS-ERR", "VS-VMALLOCINFO"):
        if key not in s:
            print(f"FAIL: guest output lacks @@{key}")
            return 1
    err = [l for l in s["VS-ERR"] if l.strip()]
    check(s["VS-RC"][0].strip() == "0", f"vmapstat exited {s['VS-RC'][0].strip()}")
    for what, start in (("granule", "vmapstat: granule: kernel lacks vmalloc:vmap_mapped"),
                        ("mapping latency", "vmapstat: latency: the mapping time comes from vmalloc:vmap_mapped")):
        n = sum(1 for l in err if l.startswith(start))
        check(n == 1, f"stderr names the missing {what} column once ({n})")
    check(sum(1 for l in err if "callers named by each area's vm_struct" in l) == 1,
          f"stderr names the method that named the callers ({err})")
    jl = [l for l in s["VS-JSON"] if l.startswith("{")]
    check(len(jl) == 1, f"{len(jl)} JSON line(s)")
    o = json.loads(jl[0])
    f = o["features"]
    check(not f["granule"]["available"] and "vmap_mapped" in f["granule"]["why"], "JSON: granule missing, with why")
    check(not f["chunk"]["available"] and not f["latency"]["available"], "JSON: no calls, no mapping latency")
    check(f["areas"]["available"] and f["areas"]["how"] in ("fexit", "kretprobe"),
          f"JSON: areas at alloc_vmap_area()'s exit ({f['areas']['how']})")
    check(f["call_latency"]["available"], f"JSON: --call-latency attached ({f['call_latency']['how']})")
    check(o["counters"]["set_ptes_events"] == 0 and o["counters"]["mapped_events"] == 0,
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
        check(r["calls"] == 1 and r["failed"] == 0 and r["call_latency_sum_ns"] > 0 and
              r["latency_sum_ns"] == 0,
              f"{c}: one call timed whole ({r['call_latency_sum_ns']} ns), no mapping latency invented")
        check(r["granules"] == [] and r["chunks"] == 0, f"{c}: no granule/chunk figures invented")
        check(r["areas"] == len(vi[c]) and r["area_bytes"] == sum(vi[c]),
              f"{c}: areas {r['areas']} / {r['area_bytes']} B == vmallocinfo {len(vi[c])} / {sum(vi[c])} B")
    check_default(s, vi)
    check_stack(s)
    check_join(s)
    return finish(f"check_stock.py-{arch}")


if __name__ == "__main__":
    sys.exit(main())
