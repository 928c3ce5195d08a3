#!/usr/bin/env python3
"""Check the AUX guest run (output of guest.sh via scripts/lab run).

Per run, three views of the AUX buffer's mapping must agree:
  1. the module's own report: the chunk orders the perf core allocated and
     the page-table entries it finds mapping its vmap()ed buffer;
  2. vmapstat -p -j, the row of the caller aux_test_setup_aux (patched
     kernel: the series' tracepoints; a stock kernel has none);
  3. vmapstat --snapshot, taken while aux-record holds the buffer.
and what the kernel must do with those chunks: on the patched kernel
order-10 chunks are all 2M PMD, order-4 chunks at least 64K cont on arm64
(never 4K); on a stock kernel everything is 4K.  aux-record checks every
streamed word and the PERF_RECORD_AUX records.
usage: check.py ARCH VARIANT LOGFILE [PMU_RUNS_OUT]
  PMU_RUNS_OUT: where to save the pmu_runs line of the --repeat run.
"""
import json
import re
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import checklib  # noqa: E402
from checklib import check, finish  # noqa: E402

M = 1024 * 1024
SIZE = 64 * M
PAGES = SIZE // 4096
CALLER = "aux_test_setup_aux"
# The snapshot labels granules "4K", "64K cont", "2M PMD", ...: the size decides.
SNAP_SHIFT = {"4K": 12, "64K": 16, "2M": 21, "32M": 25, "1G": 30}
# run -> (runs, chunk orders the perf core must have allocated)
RUNS = {"large": (1, {10: 16}), "order4": (1, {4: 1024}), "repeat": (5, {10: 16}),
        "single": (1, {0: PAGES})}

def sections(text):
    return checklib.sections(text, r"^@@AUX-([A-Za-z0-9]+(?:-[A-Z]+)?)\s?(.*)$")


def kv(s):
    """'10:16,4:2' -> {10: 16, 4: 2}"""
    return {int(a): int(b) for a, b in (p.split(":") for p in s.split(",") if p)}


def module_reports(lines):
    out = []
    for l in lines:
        m = re.search(r"aux_test: setup_aux pages=(\d+) chunks=(\d+) orders=(\S+) granules=(\S+)", l)
        if m:
            out.append({"pages": int(m.group(1)), "chunks": int(m.group(2)),
                        "orders": kv(m.group(3)), "granules": kv(m.group(4))})
    return out


def expected_rule(arch, variant, orders, gran):
    """What the kernel must have done with these chunks, as a message and a verdict."""
    if variant == "stock":
        return gran == {12: SIZE}, "stock: all 4K"
    if set(orders) == {10}:
        return gran == {21: SIZE}, "order-10 chunks: all 2M PMD"
    if set(orders) == {4}:
        if arch == "arm64":
            return 12 not in gran and gran.get(16, 0) + gran.get(21, 0) == SIZE, \
                "order-4 chunks on arm64: 64K cont or larger, no 4K"
        return 16 not in gran and gran.get(12, 0) + gran.get(21, 0) == SIZE, \
            "order-4 chunks on x86_64: 4K (2M where neighbours line up)"
    return sum(gran.values()) == SIZE, "order-0 pages: whatever their layout allows"


def main():
    arch, variant, log = sys.argv[1], sys.argv[2], sys.argv[3]
    runs_out = sys.argv[4] if len(sys.argv) > 4 else None
    s = sections(open(log, errors="replace").read())
    print("guest:", " ".join(s.get("KERNEL", [])))
    check("END" in s, "guest script ran to the end")

    for tag, (nruns, want_orders) in RUNS.items():
        if f"{tag}-RC" not in s:
            check(False, f"{tag}: guest output lacks the run")
            continue
        print(f"== {tag}")
        rc = s[f"{tag}-RC"][0].strip()
        check(rc == "0", f"{tag}: vmapstat -- aux-record exited {rc}")
        err = [l for l in s.get(f"{tag}-ERR", []) if l.strip()]
        for l in err:
            print("   stderr:", l)
        out = s.get(f"{tag}-OUT", [])
        summ = [l for l in out if l.startswith("aux-record: ")]
        check(len(summ) == nruns, f"{tag}: {len(summ)} aux-record summaries, want {nruns}")
        for l in summ:
            m = re.search(r"AUX (\d+) bytes, streamed (\d+) bytes in (\d+) records, verified (\d+), "
                          r"bad words (\d+), record gaps (\d+), truncated (\d+), lost (\d+)", l)
            check(m is not None and int(m.group(1)) == SIZE and int(m.group(2)) >= SIZE and
                  m.group(4) == m.group(2) and int(m.group(3)) > 0 and
                  m.group(5) == m.group(6) == m.group(8) == "0",
                  f"{tag}: the whole buffer streamed and every word checked: {l[12:]}")

        mods = module_reports(s.get(f"{tag}-DMESG", []))
        check(len(mods) == nruns, f"{tag}: {len(mods)} setup_aux reports, want {nruns}")
        gran_sum = {}
        for i, mo in enumerate(mods):
            check(mo["pages"] == PAGES and mo["orders"] == want_orders,
                  f"{tag}[{i}]: module got {mo['pages']} pages in chunks of order {mo['orders']}, "
                  f"want {PAGES} in {want_orders}")
            ok, what = expected_rule(arch, variant, mo["orders"], mo["granules"])
            check(ok, f"{tag}[{i}]: page tables {mo['granules']} ({what})")
            for k, v in mo["granules"].items():
                gran_sum[k] = gran_sum.get(k, 0) + v

        jl = [json.loads(l) for l in out if l.startswith("{")]
        rep = [o for o in jl if "rows" in o]
        pmu_runs = [o for o in jl if "pmu_runs" in o]
        check(len(rep) == 1 and len(pmu_runs) == 1, f"{tag}: one mapping report and one pmu_runs line")
        if rep:
            o = rep[0]
            rows = [r for r in o["rows"] if r.get("caller", "").startswith(CALLER + "+")]
            if variant == "patched":
                check(len(rows) == 1, f"{tag}: one vmapstat row for {CALLER} ({len(rows)})")
                if rows:
                    r = rows[0]
                    got = {g["shift"]: g["bytes"] for g in r["granules"]}
                    check(r["api"] == "vmap", f"{tag}: api {r['api']}")
                    check(got == gran_sum, f"{tag}: vmapstat bytes per shift {got} == module's page tables "
                          f"{gran_sum}")
                    check(r["chunk_pages"] == nruns * PAGES,
                          f"{tag}: vmapstat chunk pages {r['chunk_pages']} == {nruns} x {PAGES}")
                    for g in r["granules"]:
                        check(g["mappings"] == g["bytes"] >> g["shift"],
                              f"{tag}: {g['label']}: {g['mappings']} mappings")
            else:
                f = o["features"]["granule"]
                check(not f["available"], f"{tag}: stock: no granule column ({f['why']})")
                check(all(not r["granules"] for r in rows), f"{tag}: stock: no granules invented")
        if pmu_runs:
            p = pmu_runs[0]["pmu_runs"]
            check(p["runs"] == nruns and p["status"] == [0] * nruns, f"{tag}: {p['runs']} runs, status {p['status']}")
            names = [m["name"] for m in p["metrics"]]
            print(f"   pmu_runs metrics: {names}")
            if variant == "patched":
                large = [m for m in p["metrics"] if m["name"] == "vmap bytes in large granules"]
                big = sum(v for k, v in gran_sum.items() if k > 12) // nruns
                check(large and all(v is not None and v >= big for v in large[0]["values"]),
                      f"{tag}: per run, vmap bytes in large granules >= the buffer's {big} "
                      f"{large[0]['values'] if large else None}")
            if runs_out and tag == "repeat":
                with open(runs_out, "w") as fh:
                    fh.writelines(l + "\n" for l in out if l.startswith("{"))

        snap = [l for l in s.get(f"{tag}-SNAP", []) if l.startswith("{")]
        check(len(snap) == 1, f"{tag}: one live snapshot")
        if snap and mods:
            so = json.loads(snap[0])
            srows = [r for r in so["rows"] if r["caller"].startswith(CALLER + "+")]
            check(len(srows) == 1 and srows[0]["areas"] == 1,
                  f"{tag}: snapshot: one live area of {CALLER} while aux-record holds it")
            if srows:
                sg = {SNAP_SHIFT[k.split()[0]]: v for k, v in srows[0]["bytes"].items() if v}
                check(sg == mods[-1]["granules"],
                      f"{tag}: snapshot bytes per shift {sg} == module's page tables {mods[-1]['granules']}")

    return finish(f"check.py-{arch}-{variant}")


if __name__ == "__main__":
    sys.exit(main())
