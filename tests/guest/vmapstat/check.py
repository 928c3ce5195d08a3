#!/usr/bin/env python3
"""Check vmapstat's guest run (output of guest.sh via scripts/lab run).

Three independent views of the same workload must agree exactly:
  1. what vmapstat_workload.ko must produce (EXPECTED below, per arch),
  2. vmapstat -p -j --runs (BPF aggregation in the kernel),
  3. the raw tracefs events of the same run, re-aggregated here.
A second load under vmapstat's default attach set must give the same
bytes, calls and timings with exactly one BPF program on the mapping
paths (vmap_mapped) and no kprobe, fentry or per-run program.
With --by cgroup and --by comm, two workloads run at once in two cgroups:
the module's callers must be under its cgroup (task) only, with the
unlabelled run's bytes and calls, and a fork burst's stacks under the
other's.
usage: check.py ARCH LOGFILE
"""
import json
import re
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import checklib  # noqa: E402
from checklib import check, finish  # noqa: E402
from collections import defaultdict

K, M = 1024, 1024 * 1024

# caller -> (api, {shift: bytes}, chunk pages list); 4K base pages.
COMMON = {
    "vswl_vmalloc_4k": ("vmalloc", {12: 64 * K}, [16]),
    # + its 8K page array, vmalloc'ed by __vmalloc_area_node with the same caller
    "vswl_vmalloc_huge_pmd": ("vmalloc", {12: 8 * K, 21: 4 * M}, [2, 1024]),
    "vswl_vmap_pmd": ("vmap", {21: 2 * M}, [512]),
    "vswl_vmap_4k": ("vmap", {12: 32 * K}, [8]),
    "vswl_vm_map_ram": ("vm_map_ram", {12: 16 * K}, [4]),
}
EXPECTED = {
    "x86_64": dict(COMMON, **{
        "vswl_vmalloc_huge_cont": ("vmalloc", {12: 256 * K}, [64]),
        "vswl_vmap_cont": ("vmap", {12: 256 * K}, [64]),
        "vswl_vmap_misaligned": ("vmap", {21: 2 * M, 12: 3 * M}, [1280]),
    }),
    "arm64": dict(COMMON, **{
        "vswl_vmalloc_huge_cont": ("vmalloc", {16: 256 * K}, [64]),
        "vswl_vmap_cont": ("vmap", {16: 256 * K}, [64]),
        "vswl_vmap_misaligned": ("vmap", {21: 2 * M, 16: 3 * M}, [1280]),
    }),
}
# Why the walk fell back (vmap_mapped fallbacks): the calls that did, and
# their reasons; every other caller none.  The second 2M of the misaligned
# vmap() is contiguous but only 1M-aligned, on both arches.
FALLBACKS = {"vswl_vmap_misaligned": (1, {"align": 1})}
# ioremap (when the guest had an ivshmem BAR): 4 MiB at a 2M-aligned BAR.
# x86's ioremap() passes its own return address; arm64's generic ioremap
# names __ioremap_prot as the caller.
IOREMAP_CALLER = {"x86_64": "vswl_ioremap", "arm64": "__ioremap_prot"}

def sections(text):
    return checklib.sections(text, r"^@@(VS[2-5DLBC]?-[A-Z-]+)\s?(.*)$")


def func(sym):
    return sym.split("+", 1)[0]


TRACE_RE = re.compile(r"^\s*(.+)-(\d+)\s+\[\d+\].*?\s(vmap_mapped|vmap_set_ptes|vmap_huge_block): (.*)$")
REASONS = ("limit", "discontig", "align", "occupied")
# vmap_mapped's byte counts, in its order, by shift (arm64's contiguous PTEs: 64K)
CLASSES = ("pte", "pte_block", "pmd", "pud")


def class_shifts(arch):
    return {"pte": 12, "pte_block": 16 if arch == "arm64" else None, "pmd": 21, "pud": 30}


def trace_view(lines, arch):
    """Per caller: bytes per shift, calls, their pages and mapping times
    from vmap_mapped; runs per shift from the per-run events, each charged
    to the next vmap_mapped of the same task whose range holds it."""
    shifts = class_shifts(arch)
    pending = defaultdict(list)
    per = defaultdict(lambda: {"bytes": defaultdict(int), "runs": defaultdict(int), "chunks": [],
                               "ns": [], "nr_runs": 0, "fell": 0, "reasons": defaultdict(int)})
    unattributed = 0
    for line in lines:
        m = TRACE_RE.match(line)
        if not m:
            continue
        pid, ev, rest = m.group(2), m.group(3), m.group(4)
        f = dict(re.findall(r"(\w+)=(\S+)", rest.split(" caller=")[0]))
        if ev != "vmap_mapped":
            pending[pid].append((int(f["addr"], 16), int(f["shift"])))
            continue
        caller = func(rest.split(" caller=", 1)[1].strip())
        addr, size = int(f["addr"], 16), int(f["size"])
        p = per[caller]
        for c in CLASSES:
            if int(f[c]):
                p["bytes"][shifts[c]] += int(f[c])
        p["chunks"].append(size // 4096)
        p["ns"].append(int(f["ns"]))
        p["nr_runs"] += int(f["nr_runs"])
        if f.get("fallbacks", "none") != "none":
            p["fell"] += 1
            for r in f["fallbacks"].split("|"):
                p["reasons"][r] += 1
        for a, sh in pending.pop(pid, []):
            if addr <= a < addr + size:
                p["runs"][sh] += 1
            else:
                unattributed += 1
    return per, unattributed


def json_view(obj):
    """Rows by caller function; a caller seen with two APIs is a failure."""
    per = {}
    for r in obj["rows"]:
        fn = func(r["caller"])
        if fn.startswith("vswl_"):
            check(fn not in per, f"{fn}: one row only")
        per.setdefault(fn, r)
    return per


def check_unloaded(s, tag, loops, caller_re):
    """test_vmalloc fix_size_alloc_test: loops x vmalloc_huge(2 MiB), each one
    chunk of 512 pages; the module is gone when vmapstat names the caller."""
    check(s[f"{tag}-RC"][0].strip() == "0", f"{tag}: vmapstat -- kload test_vmalloc exited {s[f'{tag}-RC'][0].strip()}")
    jl = [l for l in s[f"{tag}-JSON"] if l.startswith("{")]
    if not jl:
        check(False, f"{tag}: no JSON line")
        return
    rows = json.loads(jl[0])["rows"]
    mine = [r for r in rows if re.fullmatch(caller_re, r["caller"])]
    check(len(mine) == 1, f"{tag}: one row named {caller_re}: {[r['caller'] for r in mine]}")
    if mine:
        r = mine[0]
        gran = {g["label"]: g["mappings"] for g in r["granules"]}
        check(r["api"] == "vmalloc" and r["bytes"] == loops * 2 * M and
              r["chunks"] == loops and r["chunk_pages"] == loops * 512,
              f"{tag}: {r['caller']}: {r['api']}, {r['bytes']} bytes in {r['chunks']} chunks "
              f"of {r['chunk_pages']} pages == {loops} x 2 MiB ({gran})")
    raw = [r["caller"] for r in rows if r["caller"].startswith("0x")]
    check(not raw, f"{tag}: no caller left as a raw address {raw}")


def check_lifetime(s, expected):
    """--lifetime around a load and an unload of the workload: each
    vmalloc/vmap/ioremap mapping it made is unmapped once, with its time;
    vm_map_ram's share vmap blocks and are not tracked."""
    if "VSL-RC" not in s:
        check(False, "guest output lacks the --lifetime run (VSL)")
        return
    check(s["VSL-RC"][0].strip() == "0", f"--lifetime run exited {s['VSL-RC'][0].strip()}")
    obj = json.loads([l for l in s["VSL-JSON"] if l.startswith("{")][0])
    f = obj["features"]["lifetime"]
    check(f["available"] and f["how"] == "vmap_mapped+free_vmap_area_noflush", f"--lifetime attached ({f})")
    rows = json_view(obj)
    for caller, (api, _, chunks) in sorted(expected.items()):
        r = rows.get(caller)
        if r is None:
            check(False, f"--lifetime: {caller} row present")
            continue
        want = 0 if api == "vm_map_ram" else len(chunks)
        n = sum(h["count"] for h in r["lifetime_hist_ns"])
        check(r["unmaps"] == want == n and (r["lifetime_sum_ns"] > 0) == (want > 0),
              f"--lifetime: {caller}: {r['unmaps']} unmapped ({n} in the histogram, "
              f"{r['lifetime_sum_ns']} ns) == {want} mappings")
    check(obj["counters"]["lifetime_map_full"] == 0, "--lifetime: the map of live mappings never full")


def check_default(s, arch, expected, runs_view):
    """vmapstat without options: vmap_mapped (and module_load) only, as the
    kernel lists them, and the rows of the --runs run without their runs."""
    if "VSD-RC" not in s:
        check(False, "guest output lacks the default run (VSD)")
        return
    check(s["VSD-RC"][0].strip() == "0", f"default run exited {s['VSD-RC'][0].strip()}")
    obj = json.loads([l for l in s["VSD-JSON"] if l.startswith("{")][0])
    f = obj["features"]
    check(f["runs"]["how"] == "off (--runs)" and f["call_latency"]["how"] == "off (--call-latency)" and
          f["areas"]["how"] == "off (--areas)" and f["latency"]["how"] == "vmap_mapped",
          f"default features: runs, call latency and areas off, latency from vmap_mapped ({f})")
    progs = [l.split() for l in s.get("VSD-LINKS", []) if l.startswith("prog ")]
    links = [l.split() for l in s.get("VSD-LINKS", []) if l.startswith("link ")]
    print("default attach set:", [" ".join(p[2:]) for p in progs], [" ".join(l[2:]) for l in links])
    check(progs and all(p[2] == "raw_tracepoint" for p in progs),
          f"no kprobe, fentry or other program type by default: {[p[2:] for p in progs]}")
    check(sorted(p[3] for p in progs) == ["on_module_load", "on_vmap_mapped"],
          f"programs loaded: on_vmap_mapped and on_module_load only: {[p[3] for p in progs]}")
    check(sorted(l[4] for l in links if l[2] == "raw_tracepoint") == ["module_load", "vmap_mapped"] and
          all(l[2] == "raw_tracepoint" for l in links),
          f"links: raw tracepoints vmap_mapped and module_load only: {[l[2:] for l in links]}")
    dv = json_view(obj)
    for caller, (api, gran, chunks) in sorted(expected.items()):
        r, rr = dv.get(caller), runs_view.get(caller)
        if r is None or rr is None:
            check(False, f"default run: {caller} row present")
            continue
        got = {g["shift"]: g["bytes"] for g in r["granules"]}
        check(got == gran and r["chunks"] == len(chunks) and r["chunk_pages"] == sum(chunks) and
              r["chunk_hist"] == rr["chunk_hist"],
              f"default run: {caller}: bytes {got}, {r['chunks']} calls of {r['chunk_pages']} pages "
              f"== expected {gran}, {len(chunks)} of {sum(chunks)}")
        check(all(g["runs"] == 0 for g in r["granules"]), f"default run: {caller}: no runs counted")
        check(sum(h["count"] for h in r["latency_hist_ns"]) == len(chunks) and r["latency_sum_ns"] > 0,
              f"default run: {caller}: every call timed ({r['latency_sum_ns']} ns)")


def check_by(s, expected):
    """--by cgroup and --by comm around two workloads started together:
    cgroup /vs_a (task kload) loads the workload module, cgroup /vs_b
    (task sh) forks NB sleepers.  The module's callers must be under the
    first label only, with the bytes and calls of the unlabelled default
    run (summed over labels); the burst's stacks under the second only."""
    if "VSB-SETUP" not in s or "VSC-RC" not in s:
        check(False, "guest output lacks the --by runs (VSB, VSC)")
        return
    setup = s["VSB-SETUP"][0].strip()
    check(setup == "ok", f"--by: cgroup2 mounted in the guest, cgroups vs_a and vs_b made ({setup})")
    nb = int(s["VSB-NB"][0])
    dl = [l for l in s.get("VSD-JSON", []) if l.startswith("{")]
    dv = {func(r["caller"]): r for r in json.loads(dl[0])["rows"]} if dl else {}
    for tag, key, other, la, lb, b_max in (("VSB", "cgroup", "comm", "/vs_a", "/vs_b", nb + 2),
                                           ("VSC", "comm", "cgroup", "kload", "sh", nb + 10)):
        rc = s[f"{tag}-RC"][0].strip()
        check(rc == "0", f"--by {key}: vmapstat exited {rc} ({' | '.join(s[f'{tag}-ERR']).strip()})")
        jl = [l for l in s[f"{tag}-JSON"] if l.startswith("{")]
        if rc != "0" or len(jl) != 1:
            check(False, f"--by {key}: one JSON line ({len(jl)})")
            continue
        rows = json.loads(jl[0])["rows"]
        check(rows and all(key in r and other not in r for r in rows),
              f"--by {key}: every row has \"{key}\" and no \"{other}\"")
        per_label = defaultdict(lambda: defaultdict(int))
        for r in rows:
            per_label[r.get(key)][func(r["caller"])] += r["chunks"]
        print(f"--by {key}: mapping calls per label and caller:",
              {lab: dict(c) for lab, c in sorted(per_label.items())})
        # the module's callers: under la only, summed over labels as unlabelled
        for caller, (api, gran, chunks) in sorted(expected.items()):
            rs = [r for r in rows if func(r["caller"]) == caller]
            labels = sorted({r[key] for r in rs})
            check(labels == [la], f"--by {key}: {caller}'s rows under {key}={la} only ({labels})")
            got = defaultdict(int)
            for r in rs:
                for g in r["granules"]:
                    got[g["shift"]] += g["bytes"]
            n, pages = sum(r["chunks"] for r in rs), sum(r["chunk_pages"] for r in rs)
            d = dv.get(caller)
            want = ({g["shift"]: g["bytes"] for g in d["granules"]}, d["chunks"], d["chunk_pages"]) \
                if d else None
            check(dict(got) == gran and n == len(chunks) and pages == sum(chunks) and
                  want == (dict(got), n, pages),
                  f"--by {key}: {caller} over all labels: bytes {dict(got)}, {n} calls of {pages} pages "
                  f"== expected {gran}, {len(chunks)} of {sum(chunks)} == the unlabelled run's {want}")
        # the burst: its stacks under lb; that caller never under la
        b = per_label.get(lb, {})
        stack = max(b, key=b.get) if b else None
        check(stack is not None and nb // 2 <= b[stack] <= b_max,
              f"--by {key}: {key}={lb} forked {nb} tasks: {b.get(stack, 0)} calls of its top caller "
              f"{stack} (between {nb // 2} and {b_max})")
        check(not any(c in expected for c in b), f"--by {key}: no workload module caller under {lb}")
        check(stack not in per_label.get(la, {}),
              f"--by {key}: {key}={la} forked nothing: no {stack} row ({dict(per_label.get(la, {}))})")


def main():
    arch, log = sys.argv[1], sys.argv[2]
    s = sections(open(log, errors="replace").read())
    for key in ("VS-RC", "VS-JSON", "VS-TRACE", "VS2-RC", "VS2-JSON"):
        if key not in s:
            print(f"FAIL: guest output lacks @@{key}")
            return 1
    params = " ".join(s.get("VS-PARAMS", []))
    print("guest params:", params or "(no ivshmem: ioremap not exercised)")
    print("vmapstat notes:", " | ".join(l for l in s.get("VS-ERR", []) if l.strip()))

    check(s["VS-RC"][0].strip() == "0", f"vmapstat -p -j --runs -- kload exited {s['VS-RC'][0].strip()}")
    # the command's own output (kload's line) shares stdout
    jl = [l for l in s["VS-JSON"] if l.startswith("{")]
    check(len(jl) == 1, f"command mode printed {len(jl)} JSON line(s), want 1")
    obj = json.loads(jl[0])
    feats = obj["features"]
    check(all(feats[f]["available"] and feats[f]["how"] == "vmap_mapped"
              for f in ("granule", "chunk", "latency", "fallback", "callers")),
          f"granule, calls, latency, fallbacks and callers from vmap_mapped ({feats})")
    check(feats["runs"]["available"], f"--runs attached the per-run events ({feats['runs']})")
    check(not feats["call_latency"]["available"] and not feats["call_latency"]["why"],
          f"no entry-point probe unless asked ({feats['call_latency']})")
    check(obj["counters"]["stats_map_full"] == 0, "stats map never full")
    print("counters:", {k: v for k, v in obj["counters"].items() if v})

    jv = json_view(obj)
    tv, t_unattr = trace_view(s["VS-TRACE"], arch)
    check(not any("LOST" in l for l in s["VS-TRACE"]), "tracefs lost no events")

    expected = dict(EXPECTED[arch])
    if params:
        expected[IOREMAP_CALLER[arch]] = ("ioremap", {21: 4 * M}, [1024])

    for caller, (api, gran, chunks) in sorted(expected.items()):
        r = jv.get(caller)
        check(r is not None, f"{caller}: row present")
        if r is None:
            continue
        got = {g["shift"]: g["bytes"] for g in r["granules"]}
        runs = {g["shift"]: g["runs"] for g in r["granules"]}
        check(r["api"] == api, f"{caller}: api {r['api']} == {api}")
        check(got == gran, f"{caller}: bytes per shift {got} == expected {gran}")
        for g in r["granules"]:
            check(g["mappings"] == g["bytes"] >> g["shift"],
                  f"{caller}: {g['label']}: mappings {g['mappings']} == bytes >> shift")
        check(r["chunks"] == len(chunks) and r["chunk_pages"] == sum(chunks),
              f"{caller}: chunks {r['chunks']} x {r['chunk_pages']} pages == {len(chunks)} x {sum(chunks)}")
        want_hist = defaultdict(int)
        for n in chunks:
            want_hist[max(n.bit_length() - 1, 0)] += 1
        got_hist = {h["low"].bit_length() - 1 if h["low"] else 0: h["count"] for h in r["chunk_hist"]}
        check(got_hist == dict(want_hist), f"{caller}: chunk-length histogram {got_hist} == {dict(want_hist)}")
        # the same run's raw events, aggregated independently
        t = tv.get(caller)
        check(t is not None, f"{caller}: present in tracefs")
        if t is not None:
            check(dict(t["bytes"]) == got, f"{caller}: tracefs bytes {dict(t['bytes'])} == vmapstat {got}")
            check(dict(t["runs"]) == runs, f"{caller}: tracefs runs {dict(t['runs'])} == vmapstat {runs}")
            check(sorted(t["chunks"]) == sorted(chunks), f"{caller}: tracefs chunks {t['chunks']} == {chunks}")
            check(sum(runs.values()) == t["nr_runs"],
                  f"{caller}: runs {sum(runs.values())} == the events' nr_runs {t['nr_runs']}")
            # the mapping time is the kernel's own (vmap_mapped ns), read by both
            timed = [n for n in t["ns"] if n]
            check(r["latency_sum_ns"] == sum(timed) and
                  sum(h["count"] for h in r["latency_hist_ns"]) == len(timed) == len(chunks),
                  f"{caller}: mapping latency {r['latency_sum_ns']} ns over "
                  f"{sum(h['count'] for h in r['latency_hist_ns'])} calls == tracefs {sum(timed)} ns "
                  f"over {len(timed)} of {len(chunks)}")
        check(r["map_failed"] == 0 and r["calls"] == 0 and not r["call_latency_hist_ns"],
              f"{caller}: no failed mapping, no whole-call timing unless asked")
        # why it fell back: as the workload is built, and as tracefs says
        fell, reasons = FALLBACKS.get(caller, (0, {}))
        got_r = {k: v for k, v in r["fallbacks"].items() if v}
        check(r["fallback_calls"] == fell and got_r == reasons and sorted(r["fallbacks"]) == sorted(REASONS),
              f"{caller}: fell back in {r['fallback_calls']} call(s), {got_r} == {fell}, {reasons}")
        if t is not None:
            check(t["fell"] == r["fallback_calls"] and dict(t["reasons"]) == got_r,
                  f"{caller}: tracefs fallbacks {t['fell']} {dict(t['reasons'])} == vmapstat's")
    # nothing of ours charged elsewhere
    extra = sorted(c for c in jv if c.startswith("vswl_") and c not in expected)
    check(not extra, f"no unexpected workload callers {extra}")

    check(t_unattr == 0, f"tracefs: every per-run event inside its call's range ({t_unattr} outside)")

    # the default attach set: the same numbers, one program on the mapping paths
    check_default(s, arch, expected, jv)
    check_lifetime(s, expected)
    check_by(s, expected)

    vi = [l for l in s.get("VS-VMALLOCINFO", []) if "vswl_" in l]
    vi_callers = {func(l.split()[2]) for l in vi if len(l.split()) > 2}
    want_vi = {c for c in expected if c.startswith("vswl_") and c != "vswl_vm_map_ram"}
    check(want_vi <= vi_callers, f"/proc/vmallocinfo names the same callers ({len(vi_callers)} found)")

    # run 2: -c vswl_vmap on a module loaded after vmapstat started
    check(s["VS2-RC"][0].strip() == "0", f"vmapstat -c run exited {s['VS2-RC'][0].strip()}")
    o2 = json.loads([l for l in s["VS2-JSON"] if l.startswith("{")][0])
    c2 = {func(r["caller"]): r for r in o2["rows"]}
    check(all("vswl_vmap" in c for c in c2), f"-c vswl_vmap keeps only matching callers: {sorted(c2)}")
    for caller in ("vswl_vmap_pmd", "vswl_vmap_cont", "vswl_vmap_4k"):
        r = c2.get(caller)
        check(r is not None and {g["shift"]: g["bytes"] for g in r["granules"]} == expected[caller][1],
              f"-c run: {caller} bytes as in run 1")

    # run 3: -c load_module, a kernel symbol known at start: filtered in BPF
    if "VS3-RC" in s:
        check(s["VS3-RC"][0].strip() == "0", f"vmapstat -c load_module exited {s['VS3-RC'][0].strip()}")
        o3 = json.loads([l for l in s["VS3-JSON"] if l.startswith("{")][0])
        c3 = [r["caller"] for r in o3["rows"]]
        check(c3 and all(c.startswith("load_module+") for c in c3),
              f"-c load_module: rows only for load_module ({c3})")
        check(o3["counters"]["filtered_events"] > 0,
              f"-c load_module: other callers dropped in BPF ({o3['counters']['filtered_events']} events)")
    else:
        check(False, "guest output lacks run 3 (-c load_module)")

    # runs 4 and 5: test_vmalloc unloads itself before vmapstat reads its rows
    ko = (s.get("VS4-KO") or [""])[0].strip()
    check(ko.endswith("/test_vmalloc.ko"), f"test_vmalloc.ko in the guest's /lib/modules ({ko!r})")
    if "VS4-RC" in s and "VS5-RC" in s:
        check_unloaded(s, "VS4", 10, r"fix_size_alloc_test\+0x[0-9a-f]+/0x[0-9a-f]+ \[test_vmalloc\]")
        check_unloaded(s, "VS5", 2, r"\[test_vmalloc\]\+0x[0-9a-f]+")
        err5 = " ".join(s["VS5-ERR"])
        check(err5.count("callers in module test_vmalloc shown as [test_vmalloc]+0xoff") == 1 and
              "no test_vmalloc.ko under /lib/modules/" in err5,
              f"without the .ko: said once on stderr ({err5.strip()!r})")
        check("shown as" not in " ".join(s["VS4-ERR"]), "with the .ko: no fallback note")
    else:
        check(False, "guest output lacks the test_vmalloc runs (VS4, VS5)")

    return finish(f"check.py-{arch}")


if __name__ == "__main__":
    sys.exit(main())
