#!/usr/bin/env python3
"""Check the output of tests/guest/snapshot/guest.sh.

  check.py ARCH VARIANT LOGFILE

1. The workload's live areas (found by the addresses the module logged)
   carry its callers and APIs and map exactly the expected bytes per
   granule, and nothing more than their guard page is unmapped.
2. Patched kernels: for every workload area, the series' tracepoints
   (vmap_set_ptes / vmap_huge_block, recorded while the module mapped)
   report exactly the same bytes per granule as the page-table walk.
3. x86_64 (CONFIG_PTDUMP_DEBUGFS): for every area walked, the kernel's own
   page-table dump maps the same bytes at each level (pte = 4K, pmd = 2M,
   pud = 1G), and the totals agree.  Areas that vanished between the
   snapshot and the dump are left out and counted.
4. After rmmod the workload's callers are gone from a new snapshot.
6. Mapping potential: each vmap area of the workload is one physically
   contiguous run from its first page (the module logs that page's
   physical address); where it is mapped with 4K PTEs, could_64K /
   could_2M / misaligned are what the series would map given its PA and
   length (docs/snapshot.md), computed here independently; where the
   series mapped it with blocks, nothing is left.
7. Shapes (shapes.py): each array of tests/kmod/snapshot_workload's
   snapshot_shapes has a row of its own; on stock kernels it is 4K and
   its "predicted" bytes per granule follow the series' rule from the
   runs the module logs, on patched kernels its bytes do and no potential
   is left.  With --record FILE --ident JSON the shapes' figures are
   written to FILE for run.sh's stock-vs-patched comparison.
5. Concurrent unmaps (test_vmalloc allocating and freeing on both CPUs):
   every snapshot succeeds, and its changed count is the sum of its rows'.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import checklib  # noqa: E402
import shapes  # noqa: E402
from checklib import fail, finish, ok  # noqa: E402

K = 1024
M = 1024 * K
# vmapstat's granule labels (user/lib/granule.c), 4K pages; x86_64 has no
# contiguous-bit granules, so its snapshots carry no 64K/32M keys at all
SHIFT_LABEL = {12: "4K", 16: "64K cont", 21: "2M PMD", 25: "32M cont PMD", 30: "1G PUD"}
GRANULES = list(SHIFT_LABEL.values())
PAGE_SIZE = 4096        # the lab boots 4K pages only, as the labels above assume

def section(text, name):
    m = re.search(r"^@@SNAP-%s-BEGIN\n(.*?)^@@SNAP-%s-END" % (name, name), text, re.S | re.M)
    return m.group(1) if m else None


def bytes_of(d):
    return {g: d.get(g, 0) for g in GRANULES if d.get(g, 0)}


def expected(arch, patched):
    """name -> (api, caller substring, {granule: bytes}); sizes from the module."""
    cont = arch == "arm64" and patched
    return {
        "vmalloc_small": ("vmalloc", "sw_vmalloc_small", {"4K": 64 * K}),
        "vmalloc_huge": ("vmalloc", "sw_vmalloc_huge", {"2M PMD": 4 * M}),
        # Below PMD size vmalloc_huge uses the arch's PTE-level block:
        # arm64 contiguous PTEs with the series, plain 4K elsewhere.
        "vmalloc_huge_256k": ("vmalloc", "sw_vmalloc_huge_256k",
                              {"64K cont": 256 * K} if cont else {"4K": 256 * K}),
        # vmap() of an order-9 block: one PMD with the series, else 4K PTEs.
        "vmap_2m": ("vmap", "sw_vmap", {"2M PMD": 2 * M} if patched else {"4K": 2 * M}),
        "vmap_64k": ("vmap", "sw_vmap", {"64K cont": 64 * K} if cont else {"4K": 64 * K}),
        # Pages 1..1023 of an order-10 block: 4K on stock; with the series
        # whatever VA placement allows (check 2 compares it with the events).
        "vmap_offset": ("vmap", "sw_vmap", None if patched else {"4K": 1023 * 4 * K}),
        # ioremap of a 2M-aligned BAR: PMDs on both arches, stock or not.
        "ioremap": ("ioremap", "sw_ioremap" if arch == "x86_64" else "", {"2M PMD": 4 * M}),
    }


def run_potential(arch, pa, size):
    """Potential of a vmap() area that is one physically contiguous run of 4K
    PTEs from its first page, by the definitions of docs/snapshot.md: the
    series maps blocks at block-aligned offsets from the area's first page
    where the physical address is aligned too, wherever the area is now."""
    def blocks(sz):
        return size // sz if pa % sz == 0 else 0

    small = 64 * K if arch == "arm64" else 2 * M
    pot = {"could_2M": 0, "misaligned": 0}
    if arch == "arm64":
        pot["could_64K"] = 0
    if pa % small:
        if size >= small:
            pot["misaligned"] = size
        return pot
    pot["could_2M"] = blocks(2 * M) * 2 * M
    if arch == "arm64":
        pot["could_64K"] = blocks(64 * K) * 64 * K - pot["could_2M"]
    return pot


def main():
    arch, variant, path = sys.argv[1], sys.argv[2], sys.argv[3]
    opts = dict(zip(sys.argv[4::2], sys.argv[5::2]))
    text = open(path, errors="replace").read()
    info = dict(re.findall(r"^@@SNAP-INFO .*?(\w+)=(\S+)", text, re.M))
    for line in re.findall(r"^@@SNAP-INFO (.*)$", text, re.M):
        for k, v in re.findall(r"(\w+)=(\S+)", line):
            info[k] = v
    patched = info.get("tracepoints") == "1"
    print("arch %s variant %s: tracepoints %s, ivshmem BAR2 %s" %
          (arch, variant, "present" if patched else "absent", info.get("ivshmem_bar2")))
    if variant != "stock" and not patched:
        fail("variant %s but the guest has no vmalloc:vmap_set_ptes tracepoint" % variant)

    snap_text = section(text, "JSON")
    if snap_text is None:
        fail("no snapshot output")
        return
    snap = json.loads(snap_text.strip().splitlines()[-1])
    areas = {int(a["start"], 16): a for a in snap["areas"]}
    ok("snapshot: %d areas listed, %d walked, %d changed, %.3f s (walk %.4f s, %d BPF runs); "
       "init_mm: %s; linear map: %s" %
       (snap["areas_listed"], len(snap["areas"]), snap["areas_changed"], snap["seconds"],
        snap["walk_seconds"], snap["prog_runs"], snap["init_mm"], snap["linear_map"]))

    # 1. The workload's areas.
    logged, phys = {}, {}
    for name, va, size, pa in re.findall(
            r"snapshot_workload: (\w+) va=([0-9a-f]+) size=(\d+)(?: pa=([0-9a-f]+))?",
            section(text, "DMESG") or ""):
        logged[name] = (int(va, 16), int(size))
        if pa:
            phys[name] = int(pa, 16)
    exp = expected(arch, patched)
    if info.get("ivshmem_bar2", "0") in ("0", "0x0000000000000000"):
        fail("no ivshmem BAR to ioremap")
    for name, (api, caller, want) in exp.items():
        if name not in logged:
            fail("%s: the module did not log it" % name)
            continue
        va, size = logged[name]
        a = areas.get(va)
        if a is None:
            fail("%s: no area at 0x%x in the snapshot" % (name, va))
            continue
        got = bytes_of(a["bytes"])
        problems = []
        if a["api"] != api:
            problems.append("api %s, want %s" % (a["api"], api))
        if caller and caller not in a["caller"]:
            problems.append("caller %r lacks %r" % (a["caller"], caller))
        if api != "ioremap" and "[snapshot_workload]" not in a["caller"]:
            problems.append("caller %r is not in the module" % a["caller"])
        if want is not None and got != want:
            problems.append("bytes %s, want %s" % (got, want))
        if a["unmapped"] != a["size"] - size:
            problems.append("unmapped %d, want %d (guard page)" % (a["unmapped"], a["size"] - size))
        if a["changed"]:
            problems.append("marked changed")
        if problems:
            fail("%s at 0x%x: %s" % (name, va, "; ".join(problems)))
        else:
            ok("%s at 0x%x (%s, %s): %s" % (name, va, a["api"], a["caller"], got))

    # 6. Mapping potential of the vmap areas.
    for name in sorted(phys):
        a = areas.get(logged[name][0])
        if a is None:
            continue
        va, size = logged[name]
        got = a.get("potential")
        if got is None:
            fail("%s: no potential in the snapshot" % name)
            continue
        if bytes_of(a["bytes"]) == {"4K": size}:
            want = run_potential(arch, phys[name], size)
        elif patched and name in ("vmap_2m", "vmap_64k"):
            want = {k: 0 for k in got}
        else:
            ok("%s: mapped %s, potential %s (not checked)" % (name, bytes_of(a["bytes"]), got))
            continue
        if got != want:
            fail("%s (va 0x%x, pa 0x%x, %d bytes): potential %s, want %s" %
                 (name, va, phys[name], size, got, want))
        else:
            ok("%s (va 0x%x, pa 0x%x): potential %s" % (name, va, phys[name], got))

    # 7. Array shapes: this kernel's figures, recorded for the comparison.
    rec = shapes.check_guest(arch, variant, section(text, "SHAPES") or "", snap, ok, fail)
    if "--record" in opts:
        with open(opts["--record"], "w") as f:
            json.dump({"arch": arch, "variant": variant, "ident": json.loads(opts["--ident"]),
                       "shapes": rec}, f, indent=1, sort_keys=True)

    # 2. Tracepoints vs. the walk, per workload area.
    if patched:
        events = []
        # v12 printed a size; since the events moved into the walks a run
        # prints only its entries (nr_ptes pages) and a block its shift.
        for kind, addr, size, nr_ptes, shift in re.findall(
                r"(vmap_set_ptes|vmap_huge_block): addr=0x([0-9a-f]+) pfn=0x[0-9a-f]+ "
                r"(?:size=(\d+) )?(?:nr_ptes=(\d+) )?shift=(\d+)", section(text, "TRACE") or ""):
            if size:
                nbytes = int(size)
            elif kind == "vmap_set_ptes" and nr_ptes:
                nbytes = int(nr_ptes) * PAGE_SIZE
            elif kind == "vmap_huge_block":
                nbytes = 1 << int(shift)
            else:
                fail("%s event without its size: addr=0x%s" % (kind, addr))
                continue
            events.append((int(addr, 16), nbytes, int(shift)))
        if not events:
            fail("tracepoints present but no vmap_set_ptes/vmap_huge_block events recorded")
        for name in exp:
            if name not in logged or logged[name][0] not in areas:
                continue
            a = areas[logged[name][0]]
            lo, hi = int(a["start"], 16), int(a["end"], 16)
            traced = {}
            for addr, size, shift in events:
                if lo <= addr < hi:
                    label = SHIFT_LABEL.get(shift, "shift %d" % shift)
                    traced[label] = traced.get(label, 0) + size
            if traced != bytes_of(a["bytes"]):
                fail("%s: tracepoints saw %s, the page tables hold %s" %
                     (name, traced, bytes_of(a["bytes"])))
            else:
                ok("%s: tracepoints and page tables agree: %s" % (name, traced))
        # Every other area mapped entirely while tracing (module memory
        # of the load, stacks of new tasks...): same split by granule.
        starts = sorted(areas)
        import bisect
        per_area = {}
        for addr, size, shift in events:
            i = bisect.bisect_right(starts, addr) - 1
            if i < 0:
                continue
            a = areas[starts[i]]
            if addr >= int(a["end"], 16):
                continue
            d = per_area.setdefault(starts[i], {})
            label = SHIFT_LABEL.get(shift, "shift %d" % shift)
            d[label] = d.get(label, 0) + size
        full = agree = 0
        for start, traced in per_area.items():
            a = areas[start]
            walked = bytes_of(a["bytes"])
            if a["changed"] or sum(traced.values()) != sum(walked.values()):
                continue	# mapped partly before tracing, or remapped
            full += 1
            if traced == walked:
                agree += 1
            else:
                fail("area %s (%s): tracepoints saw %s, the page tables hold %s" %
                     (a["start"], a["caller"], traced, walked))
        if full and agree == full:
            ok("all %d areas mapped entirely while tracing agree with the walk" % full)

    # 3. The kernel's own page-table dump (x86_64).
    dump = section(text, "PTDUMP")
    if arch == "x86_64":
        if dump is None:
            fail("x86_64 guest without /sys/kernel/debug/page_tables/kernel")
        else:
            check_ptdump(dump, snap, section(text, "AFTER") or "")

    # 3a. Tiny step budget: many resumed runs, same rows.
    st = section(text, "STEPS")
    if st is None or not st.strip():
        fail("no snapshot with --snapshot-steps 3")
    else:
        d = json.loads(st.strip().splitlines()[-1])
        mine = [r for r in snap["rows"] if "[snapshot_workload]" in r["caller"]]
        if d["rows"] != mine:
            fail("with 3 steps per run the workload rows differ: %s vs %s" % (d["rows"], mine))
        elif d["prog_runs"] <= snap["prog_runs"]:
            fail("3 steps per run took %d BPF runs, no more than the default %d" %
                 (d["prog_runs"], snap["prog_runs"]))
        else:
            ok("3 steps per BPF run: same rows in %d runs (default: %d)" %
               (d["prog_runs"], snap["prog_runs"]))

    # 3b. Without kallsyms data symbols: same rows, or a clear refusal.
    nok = section(text, "NOKSYMS")
    if nok is None:
        fail("no snapshot without kallsyms")
    else:
        last = nok.strip().splitlines()[-1] if nok.strip() else ""
        if last.startswith("{"):
            d = json.loads(last)
            mine = [r for r in snap["rows"] if "[snapshot_workload]" in r["caller"]]
            if d["rows"] != mine:
                fail("without kallsyms the workload rows differ: %s vs %s" % (d["rows"], mine))
            elif "kallsyms" in d["init_mm"].split(" ")[0]:
                fail("claims kallsyms init_mm with an empty kallsyms: %s" % d["init_mm"])
            else:
                ok("without kallsyms: same rows; init_mm from %s; linear map: %s" %
                   (d["init_mm"], d["linear_map"]))
        elif re.search(r"cannot audit live mappings on this kernel: (init_mm|linear map):", last):
            ok("without kallsyms: refused, naming what is hidden: %s" % last)
        else:
            fail("without kallsyms: neither a report nor a clear refusal: %r" % last)

    # 5. Churn.
    churn = section(text, "CHURN")
    if churn is None:
        fail("no snapshots under churn (test_vmalloc.ko missing?)")
    else:
        lines = [l for l in churn.splitlines() if l.startswith("{")]
        changed = []
        for l in lines:
            d = json.loads(l)
            if "failed" in d:
                fail("snapshot under churn failed with exit status %d" % d["failed"])
                continue
            changed.append(d["areas_changed"])
            if sum(r["changed"] for r in d["rows"]) != d["areas_changed"]:
                fail("under churn: rows' changed counts do not add up to areas_changed")
        if len(lines) != 5:
            fail("under churn: %d snapshots, want 5" % len(lines))
        elif len(changed) == 5:
            ok("5 snapshots under churn (test_vmalloc still running at the end: %s); "
               "areas changed during each walk: %s" % (info.get("churn_overlapped"), changed))

    # 4. Unloaded.
    after = section(text, "UNLOADED")
    if after is None:
        fail("no snapshot after rmmod")
    else:
        rows = json.loads(after.strip().splitlines()[-1])["rows"]
        if rows:
            fail("after rmmod the workload still has rows: %s" % rows)
        else:
            ok("after rmmod no area of the workload is left")


def check_ptdump(dump, snap, after_text):
    ranges = checklib.ptdump_leaves(dump)
    still = set()
    for line in after_text.splitlines():
        m = re.match(r"0x([0-9a-f]+)-0x([0-9a-f]+)\s+\d+\s+(.*)$", line)
        if m and "unpurged" not in line:
            still.add((int(m.group(1), 16), int(m.group(2), 16)))
    starts = [r[0] for r in ranges]
    total_walk, total_dump = {}, {}
    compared = skipped = mismatched = 0
    for a in snap["areas"]:
        lo, hi = int(a["start"], 16), int(a["end"], 16)
        if a["changed"] or (lo, hi) not in still:
            skipped += 1
            continue
        got = checklib.leaf_bytes(ranges, starts, lo, hi)
        walk = bytes_of(a["bytes"])
        compared += 1
        for k, v in walk.items():
            total_walk[k] = total_walk.get(k, 0) + v
        for k, v in got.items():
            total_dump[k] = total_dump.get(k, 0) + v
        if got != walk:
            mismatched += 1
            if mismatched <= 10:
                fail("ptdump disagrees for %s-%s (%s): dump %s, walk %s" %
                     (a["start"], a["end"], a["caller"], got, walk))
    if not compared:
        fail("ptdump: no area to compare")
    elif not mismatched:
        ok("ptdump agrees on all %d areas (%d changed in between, left out); totals %s" %
           (compared, skipped, total_walk))
    if total_walk != total_dump:
        fail("ptdump totals %s, walk totals %s" % (total_dump, total_walk))


if __name__ == "__main__":
    main()
    sys.exit(finish())
