#!/usr/bin/env python3
"""The snapshot's prediction against the series, on page arrays of known
shape (tests/kmod/snapshot_workload/snapshot_shapes.{c,h}).

In each guest the module snapshot_shapes vmap()s every shape from its own
function ss_<shape>(), so the audit has one row per shape.  check.py
checks one guest's rows (check_guest()) and records them (a JSON file per
arch and variant); the property itself needs both kernels:

  shapes.py compare ARCH STOCK.json PATCHED.json
      for every shape, the bytes per granule the audit predicts on the
      stock kernel ("predicted") are the bytes per granule it measures
      on the patched kernel ("bytes")
  shapes.py fresh RECORD IDENT
      exit 0 when RECORD was made with IDENT (kernel key, vmapstat and
      module source hashes), 1 otherwise

Per guest, independently of the audit, the expected bytes per granule are
worked out here from the runs the module logs, by the series' rule: a 2M
PMD at every array index that is a multiple of 512 where 512 physically
contiguous pages start on a 2M-aligned page; on arm64 a 64K contiguous-PTE
block at every multiple of 16 likewise, outside those; 4K elsewhere.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from checklib import check, fail, finish  # noqa: E402

K = 1024
M = 1024 * K
GRANULES = ["4K", "64K cont", "2M PMD", "32M cont PMD", "1G PUD"]
LINE = re.compile(r"snapshot_shapes: (\w+) va=([0-9a-f]+) pages=(\d+) runs=(\S+)")


def nonzero(d):
    return {g: d.get(g, 0) for g in GRANULES if d.get(g, 0)}


def parse_log(text):
    """name -> {"va", "pages", "runs": [(index, pfn, pages)]} from the module's lines."""
    shapes = {}
    for name, va, pages, runs in LINE.findall(text or ""):
        rl = []
        if runs != "-":
            for r in runs.split(","):
                idx, rest = r.split(":")
                pfn, n = rest.split("+")
                rl.append((int(idx), int(pfn, 16), int(n)))
        shapes[name] = {"va": int(va, 16), "pages": int(pages), "runs": rl}
    return shapes


def series_blocks(arch, runs):
    """[(index, pages)] of the blocks the series maps for an array with these runs."""
    blocks, pmd = [], set()
    sizes = [512, 16] if arch == "arm64" else [512]
    for size in sizes:
        for idx, pfn, n in runs:
            j = (idx + size - 1) // size * size
            while j + size <= idx + n:
                inside = size < 512 and (j // 512 * 512) in pmd
                if (pfn + j - idx) % size == 0 and not inside:
                    blocks.append((j, size))
                    if size == 512:
                        pmd.add(j)
                j += size
    return blocks


def series_bytes(arch, shape):
    b = {"4K": shape["pages"] * 4 * K}
    for _, size in series_blocks(arch, shape["runs"]):
        label = "2M PMD" if size == 512 else "64K cont"
        b[label] = b.get(label, 0) + size * 4 * K
        b["4K"] -= size * 4 * K
    return nonzero(b)


def crossing(arch, shape):
    """Blocks that straddle a PTE table (a 2M VA boundary) where the area is now."""
    n = 0
    for j, size in series_blocks(arch, shape["runs"]):
        lo = shape["va"] + j * 4 * K
        if lo // (2 * M) != (lo + size * 4 * K - 1) // (2 * M):
            n += 1
    return n


def check_guest(arch, variant, text, snap, ok, fail):
    """One guest: each shape's area and row; returns the record's "shapes"."""
    shapes = parse_log(text)
    if not shapes:
        fail("shapes: the module logged no shape")
        return {}
    areas = {int(a["start"], 16): a for a in snap["areas"]}
    rec = {}
    for name, sh in sorted(shapes.items()):
        size = sh["pages"] * 4 * K
        a = areas.get(sh["va"])
        rows = [r for r in snap["rows"] if r["caller"].startswith("ss_%s+" % name)]
        if a is None or len(rows) != 1:
            fail("shape %s: area at 0x%x %s, %d rows" %
                 (name, sh["va"], "found" if a else "missing", len(rows)))
            continue
        row = rows[0]
        problems = []
        if a["api"] != "vmap" or row["api"] != "vmap" or "[snapshot_shapes]" not in a["caller"]:
            problems.append("api %s, caller %s" % (a["api"], a["caller"]))
        if row["areas"] != 1 or a["changed"]:
            problems.append("%d areas, changed %s" % (row["areas"], a["changed"]))
        if sum(nonzero(a["bytes"]).values()) != size:
            problems.append("maps %s, want %d bytes in all" % (nonzero(a["bytes"]), size))
        want = series_bytes(arch, sh)
        got_bytes, got_pred = nonzero(row["bytes"]), nonzero(row["predicted"])
        pot = row["potential"]
        if variant == "stock":
            # A stock vmap() maps every page with a PTE; the audit predicts.
            if got_bytes != {"4K": size}:
                problems.append("stock kernel maps %s" % got_bytes)
            if got_pred != want:
                problems.append("predicted %s, the series' rule gives %s" % (got_pred, want))
        else:
            if got_bytes != want:
                problems.append("maps %s, the series' rule gives %s" % (got_bytes, want))
            if pot.get("could_2M") or pot.get("could_64K"):
                problems.append("potential left on the patched kernel: %s" % pot)
        if problems:
            fail("shape %s: %s" % (name, "; ".join(problems)))
        else:
            ok("shape %s (%d pages at 0x%x): %s %s, potential %s" %
               (name, sh["pages"], sh["va"],
                "predicted" if variant == "stock" else "maps",
                got_pred if variant == "stock" else got_bytes, pot))
        rec[name] = {"va": "0x%x" % sh["va"], "pages": sh["pages"], "bytes": got_bytes,
                     "predicted": got_pred, "potential": pot,
                     "blocks_across_pte_tables": crossing(arch, sh)}
    return rec


def compare(arch, stock_path, patched_path):
    stock = json.load(open(stock_path))
    patched = json.load(open(patched_path))
    names = sorted(set(stock["shapes"]) | set(patched["shapes"]))
    print("shapes, %s: stock prediction (%s) vs. patched kernel (%s)" %
          (arch, stock["ident"]["kernel"], patched["ident"]["kernel"]))
    granules, across = set(), 0
    for name in names:
        s, p = stock["shapes"].get(name), patched["shapes"].get(name)
        if s is None or p is None:
            fail("shape %s: only in the %s record" % (name, "stock" if s else "patched"))
            continue
        across += s["blocks_across_pte_tables"]
        granules.update(p["bytes"])
        check(s["predicted"] == p["bytes"],
              "shape %s: the stock kernel predicts %s, the patched kernel maps %s" %
              (name, s["predicted"], p["bytes"]))
    # Not vacuous: blocks of every size the arch has, and stock areas
    # whose blocks straddle PTE tables (runs followed across tables).
    need = {"4K", "2M PMD"} | ({"64K cont"} if arch == "arm64" else set())
    check(need <= granules, "the patched kernel mapped the shapes with %s, want at least %s" %
          (sorted(granules), sorted(need)))
    check(across, "%d predicted blocks straddle a PTE table where the stock kernel placed them"
          % across)
    return finish("shapes.py-" + arch)


def fresh(path, ident):
    try:
        rec = json.load(open(path))
    except (OSError, ValueError):
        return 1
    return 0 if rec.get("ident") == json.loads(ident) else 1


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3], sys.argv[4]))
    if len(sys.argv) == 4 and sys.argv[1] == "fresh":
        sys.exit(fresh(sys.argv[2], sys.argv[3]))
    print("usage: shapes.py compare ARCH STOCK.json PATCHED.json | fresh RECORD IDENT",
          file=sys.stderr)
    sys.exit(2)
