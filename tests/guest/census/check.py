#!/usr/bin/env python3
"""Check a short census run (tests/guest/census/run.sh ... short).

  check.py ARCH VARIANT LOGFILE

1. census-drive did every step (BPF, io_uring, the dma-buf heap through
   vim2m, vfio-pci), and vmapstat traced the whole run with nothing lost.
2. Traced against the kernel's own accounting: every area made during the
   traced run and still live at its end (/proc/vmallocinfo after less
   before, by range and caller) is counted in the trace under the same
   caller and API.  Where a caller's traced areas are as many as its live
   ones, their bytes must be equal too (vmallocinfo's size); on a series
   kernel so must the mapped bytes (pages=, or the size less the guard
   page) and, per granule, what vmap_mapped reported against what the page
   tables hold for those areas (vmapstat --snapshot).  The callers the
   workload holds mapped (HELD) must be among those exact ones.
3. vmapstat --snapshot against two other readings of the same page
   tables, area by area (areas listed before and after, unchanged): the
   kernel's own dump (x86_64, PTDUMP_DEBUGFS) and census-kwalk, which
   walks them through /proc/kcore (both arches; arm64 has no dump).
4. The fallback reasons (series kernel): vmapstat's per-caller
   fallback_calls and fallbacks against the kernel's own vmap_mapped lines
   of the same run (tracefs, which print each call's reasons and caller),
   and the census table's fallback column (report.py) against the same
   column made from those lines.  On a stock kernel vmapstat must say the
   reasons are not available.
5. The check can fail: the same run, with one area's attribution moved
   (in the trace, in vmallocinfo, in the walk), or one call's fallback
   reason changed in the trace, must fail checks 2 to 4.
"""
import copy
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from censuslog import Run, fallback_disagreements, func, nonzero, row_granules, unresolved  # noqa: E402
import checklib  # noqa: E402
import report as census_report  # noqa: E402
from checklib import check, finish, leaf_bytes  # noqa: E402

# Callers the workload keeps mapped until the live areas have been read:
# (function name, API, what maps it).  Each must be exact (check 2).
HELD = [
    ("__io_uaddr_map", "vmap", "io_uring rings and SQEs in user huge pages"),
    ("io_register_pbuf_ring", "vmap", "io_uring provided-buffer ring in a user huge page"),
    ("system_heap_vmap", "vmap", "dma-buf system heap buffer imported by vim2m"),
    ("vb2_vmalloc_alloc [videobuf2_vmalloc]", "vmalloc", "vim2m MMAP buffers"),
    ("ringbuf_map_alloc", "vmap", "BPF ring buffer (bpf_ringbuf_area_alloc(), inlined)"),
    ("array_map_alloc", "vmalloc", "BPF arrays (bpf_map_area_alloc(), inlined)"),
    ("bpf_prog_alloc_no_stats", "vmalloc", "BPF programs"),
    ("z_erofs_gbuf_growsize [erofs]", "vmap", "erofs per-CPU decompression buffers"),
]
# The vfio-pci BAR: x86_64 names the ioremap() by the vfio-pci function
# that asks for it (pci_iomap() and pci_iomap_range() are inlined); arm64
# names every ioremap() by __ioremap_prot.
HELD_IOREMAP = {"x86_64": "vfio_pci_core_setup_barmap [vfio_pci_core]", "arm64": "__ioremap_prot"}


# Mapping calls the series' trace must name (function, API), made by the
# workload but never live at the end: each names the module it is in, so
# that a module loaded where an unloaded one was is named as itself.
TRACED = [
    ("z_erofs_lz4_decompress [erofs]", "vm_map_ram", "erofs LZ4 decompression"),
    ("vb2_vmalloc_get_userptr [videobuf2_vmalloc]", "vm_map_ram", "vim2m USERPTR buffer"),
]

# Areas no event or probe of vmapstat's sees being allocated, and why.
# The check requires them untraced, so that a tool that learns to see them
# updates this list.
UNTRACED = {
    ("pcpu_get_vm_areas", "vmalloc"):
        "percpu chunks: pcpu_get_vm_areas() carves its areas out of the free "
        "space itself, without alloc_vmap_area()",
}


def held_of(run):
    held = list(HELD)
    if run.info.get("ivshmem", "none") != "none":
        held.append((HELD_IOREMAP.get(run.arch, "?"), "ioremap", "vfio-pci: the ivshmem BAR"))
    return held


def checks(run, report, say):
    """Run checks 1-4, each also told to report(cond, msg), what else
    there is to know to say(line); return the failures."""
    failures = []

    def check(cond, msg):
        report(cond, msg)
        if not cond:
            failures.append(msg)
        return cond

    # 1. The run itself.
    check(not run.files.get("phase.err", "").strip(),
          "every step of the traced phase ran: %s" % (run.files.get("phase.err", "").strip() or "yes"))
    for step in ("bpf", "iouring", "v4l2") + (("vfio",) if run.info.get("ivshmem", "none") != "none" else ()):
        check(run.steps.get(step, "").startswith("ok"),
              "census-drive %s: %s" % (step, run.steps.get(step, "not run")))
    check(run.info.get("trace_rc") == "0" and run.trace is not None,
          "vmapstat traced the run (exit %s)" % run.info.get("trace_rc"))
    if run.trace is None:
        return failures
    ctr = run.trace["counters"]
    check(ctr["stats_map_full"] == 0, "no event lost to a full map (stats_map_full %d)" % ctr["stats_map_full"])
    check(run.info.get("snapshot_rc") == "0" and run.snapshot is not None,
          "vmapstat --snapshot (exit %s)" % run.info.get("snapshot_rc"))

    # 2. Traced against /proc/vmallocinfo.
    rows = run.rows()
    live = {}
    for a in run.new_areas():
        live.setdefault(a.key, []).append(a)
    snap_areas = {int(a["start"], 16): a for a in (run.snapshot or {}).get("areas", [])}
    exact = set()
    for key in sorted(live):
        caller, api = key
        areas = live[key]
        n, size, mapped = len(areas), sum(a.size for a in areas), sum(a.mapped for a in areas)
        if api == "vm_map_ram":
            # vmallocinfo names no caller: the API's rows together.
            traced = sum(r.get("areas", 0) for k, r in rows.items() if k[1] == api)
            check(traced >= n, "vm_map_ram: %d live areas made during the run, %d traced" % (n, traced))
            continue
        r = rows.get(key)
        why = UNTRACED.get((func(caller), api))
        if why:
            check(r is None or not r.get("areas"), "%s %s: %d live areas made during the run, untraced "
                  "as expected (%s): traced %s" % (caller, api, n, why, r.get("areas") if r else "none"))
            continue
        if not check(r is not None and r["areas"] >= n,
                     "%s %s: %d live areas (%d bytes) made during the run, traced %s" %
                     (caller, api, n, size, "%d" % r["areas"] if r else "none")):
            continue
        if r["areas"] != n:
            say("#     %s %s: %d traced, %d still live (the rest unmapped during the run)" %
                (caller, api, r["areas"], n))
            continue
        exact.add(key)
        check(r["area_bytes"] == size, "%s %s: %d areas, traced %d bytes, vmallocinfo %d" %
              (caller, api, n, r["area_bytes"], size))
        if not run.patched:
            continue
        if r["chunks"] == n:
            check(r["bytes"] == mapped, "%s %s: %d mapping calls, traced %d bytes mapped, vmallocinfo %d" %
                  (caller, api, n, r["bytes"], mapped))
            walked = {}
            for a in areas:
                s = snap_areas.get(a.start)
                for g, b in (s["bytes"] if s else {}).items():
                    walked[g] = walked.get(g, 0) + b
            check(row_granules(r) == nonzero(walked),
                  "%s %s: per granule, vmap_mapped %s, the page tables %s" %
                  (caller, api, row_granules(r), nonzero(walked)))
    if run.patched:
        for name, api, what in TRACED:
            calls = sum(r.get("chunks", 0) for k, r in rows.items() if func(k[0]) == name and k[1] == api)
            others = sorted({func(k[0]) for k, r in rows.items() if k[1] == api and r.get("chunks")})
            check(calls > 0, "%s %s (%s): %d mapping calls traced (every %s caller traced: %s)" %
                  (name, api, what, calls, api, ", ".join(others)))
    for name, api, what in run.held:
        keys = [k for k in live if func(k[0]) == name and k[1] == api]
        check(keys and all(k in exact for k in keys),
              "held caller %s (%s, %s): %s" % (name, api, what,
                                              ", ".join("%s exact" % k[0] if k in exact else "%s not exact" % k[0]
                                                        for k in keys) or "no live area"))

    # 3. The audit against the dump and the walk, area by area.
    end = {(a.start, a.end) for a in run.end}
    compared = {"ptdump": 0, "kwalk": 0}
    starts = [r[0] for r in run.ptdump] if run.ptdump is not None else None
    for a in (run.snapshot or {}).get("areas", []):
        lo, hi = int(a["start"], 16), int(a["end"], 16)
        if a["changed"] or (lo, hi) not in end:
            continue
        walk = nonzero(a["bytes"])
        if run.ptdump is not None:
            got = nonzero(leaf_bytes(run.ptdump, starts, lo, hi))
            compared["ptdump"] += 1
            if got != walk:
                check(False, "ptdump of %s-%s (%s): %s, the audit %s" %
                      (a["start"], a["end"], a["caller"], got, walk))
        kw = run.kwalk.get((lo, hi))
        if kw is not None:
            compared["kwalk"] += 1
            if kw != (walk, a["unmapped"]):
                check(False, "kwalk of %s-%s (%s): %s, %d unmapped; the audit %s, %d unmapped" %
                      (a["start"], a["end"], a["caller"], kw[0], kw[1], walk, a["unmapped"]))
    n_snap = len((run.snapshot or {}).get("areas", []))
    check(compared["kwalk"] > 0 and compared["kwalk"] >= n_snap * 9 // 10,
          "kwalk compared on %d of the audit's %d areas" % (compared["kwalk"], n_snap))
    if run.arch == "x86_64":
        check(run.ptdump is not None and compared["ptdump"] >= n_snap * 9 // 10,
              "ptdump compared on %d of the audit's %d areas" % (compared["ptdump"], n_snap))

    # 4. The fallback reasons against the kernel's vmap_mapped lines.
    if not run.patched:
        feat = run.trace["features"].get("fallback", {})
        check(not feat.get("available") and run.tracefs is None,
              "stock kernel: no fallback reasons (features.fallback available: %s; tracefs lines: %s)" %
              (feat.get("available"), "none" if run.tracefs is None else len(run.tracefs)))
        return failures
    for ok, msg in fallback_disagreements(run):
        check(ok, msg)
    cols = 0
    for key, d in sorted(census_report.collect(run).items()):
        kernel = run.tracefs.get(key) if run.tracefs else None
        if not d["calls"] or kernel is None or unresolved(key[0]):
            continue
        mine = census_report.fallback_text(run, d)
        theirs = census_report.fallback_text(run, dict(d, fell=kernel["fallback_calls"], reasons=kernel["fallbacks"]))
        cols += 1
        if mine != theirs:
            check(False, "census column, fallback reason of %s %s: %s; from tracefs %s" %
                  (key[0], key[1], mine, theirs))
    check(cols > 0, "the census' fallback column equals the one made from tracefs for %d callers" % cols)
    return failures


# ---- 5. Attribution off by one area, a fallback reason changed ------------

def held_areas(run):
    """A held caller's live areas made during the run (the first held caller
    that has one), and a traced row of another caller of the same API."""
    rows = run.rows()
    for name, api, _ in run.held:
        mine = [a for a in run.new_areas() if func(a.caller) == name and a.api == api]
        if not mine:
            continue
        others = [k for k in rows if k[1] == api and func(k[0]) != name]
        if others:
            return mine, rows[mine[0].key], rows[others[0]]
    return None, None, None


def mutate_trace(run):
    """Charge one of a held caller's areas to another caller in the trace."""
    mine, r, other = held_areas(run)
    if not mine:
        return None
    a = mine[0]
    for row, sign in ((r, -1), (other, 1)):
        row["areas"] += sign
        row["area_bytes"] += sign * a.size
        if run.patched:
            row["chunks"] += sign
            row["bytes"] += sign * a.mapped
    return "one %s area charged to %s in the trace" % (func(a.caller), other.get("caller"))


def mutate_vmallocinfo_caller(run):
    """Name another caller for one of a held caller's live areas."""
    mine, _, other = held_areas(run)
    if not mine:
        return None
    was = func(mine[0].caller)
    mine[0].caller = other.get("caller", "")
    return "one %s area named %s in vmallocinfo" % (was, other.get("caller"))


def mutate_vmallocinfo_drop(run):
    """One of a held caller's live areas missing from vmallocinfo."""
    mine, _, _ = held_areas(run)
    if not mine:
        return None
    run.after.remove(mine[0])
    return "one %s area missing from vmallocinfo" % func(mine[0].caller)


def mutate_walk(run):
    """The walk reads one area's first page at another granule (or not at all)."""
    for a in (run.snapshot or {}).get("areas", []):
        key = (int(a["start"], 16), int(a["end"], 16))
        if key in run.kwalk and a["api"] == "vmap" and not a["changed"]:
            g, holes = run.kwalk[key]
            g = dict(g)
            first = next(iter(g))
            g[first] -= 4096
            if not g[first]:
                del g[first]
            run.kwalk[key] = (g, holes + 4096)
            return "kwalk: one page of %s (%s) unmapped" % (a["start"], a["caller"])
    return None


def mutate_fallback(run):
    """One mapping call of the busiest caller tracefs named gets another
    fallback reason in the trace: one it had moved to the next reason,
    or, if it had none, the reason "align".  On a stock kernel, the trace
    claims fallback reasons."""
    if not run.patched:
        run.trace["features"].setdefault("fallback", {})["available"] = True
        return "a stock kernel's trace claiming fallback reasons"
    named = [k for k in (run.tracefs or {}) if not unresolved(k[0])]
    rows = [r for (caller, api), r in run.rows().items()
            if (func(caller), api) in named and r.get("chunks") and "fallbacks" in r]
    if not rows:
        return None
    r = max(rows, key=lambda r: (r.get("fallback_calls", 0), r["chunks"]))
    reasons = list(r["fallbacks"])
    had = [x for x in reasons if r["fallbacks"][x]]
    if had:
        new = reasons[(reasons.index(had[0]) + 1) % len(reasons)]
        r["fallbacks"][had[0]] -= 1
        r["fallbacks"][new] += 1
        return "one %s call's fallback reason %s changed to %s in the trace" % (func(r["caller"]), had[0], new)
    r["fallback_calls"] += 1
    r["fallbacks"]["align"] += 1
    return "one %s call given the fallback reason align in the trace" % func(r["caller"])


MUTATIONS = [mutate_trace, mutate_vmallocinfo_caller, mutate_vmallocinfo_drop, mutate_walk, mutate_fallback]


def main():
    arch, variant, path = sys.argv[1:4]
    run = Run(path)
    run.held = held_of(run)
    print("census check: %s %s (%s), kernel %s, %s" %
          (arch, variant, path, run.info.get("release"), "series" if run.patched else "stock"))
    name = "census-check-%s-%s" % (arch, variant)
    check(run.arch == arch, "the log is of %s (want %s)" % (run.arch, arch))
    check((variant == "patched") == run.patched, "variant %s: the guest %s vmalloc:vmap_mapped" %
          (variant, "has" if run.patched else "lacks"))
    if checks(run, check, print) or checklib.failures:
        return finish(name)
    # 5. Each mutation of the same run must fail.
    for mutate in MUTATIONS:
        m = copy.deepcopy(run)
        what = mutate(m)
        if what is None:
            check(False, "%s: something to mutate in this run" % mutate.__name__)
            continue
        got = checks(m, lambda cond, msg: None, lambda line: None)
        check(got, "fed a run with %s, the check fails%s" % (what, ": " + got[0] if got else ""))
    return finish(name)


if __name__ == "__main__":
    sys.exit(main())
