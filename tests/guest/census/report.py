#!/usr/bin/env python3
"""The census table (make census): docs/census.md's generated part, from
the full census runs of tests/guest/census/run.sh.

  report.py --out docs/census.md LOG...

LOG: census-ARCH-VARIANT-full.log for stock and patched of each arch.
docs/census.md keeps everything outside the markers
<!-- census:begin --> and <!-- census:end -->; the part between them is
replaced.

Rows are (caller function, API): the caller as /proc/vmallocinfo names it,
without the offset (the offsets differ between the two kernels' builds;
several call sites in one function are one row).  Per kernel:

- calls: mapping calls traced (series: vmap_mapped events; stock: areas,
  the only thing a stock kernel lets vmapstat count per caller);
- live: areas made during the run and still mapped at its end, their
  bytes per granule read from the page tables (vmapstat --snapshot), and
  on the stock kernel the audit's prediction for them with the series;
- series traced: bytes per granule of every mapping call (vmap_mapped),
  live or not;
- fallback reason: the series' per-caller fallback reasons (vmap_mapped's
  fallbacks, vmapstat's fallback_calls and fallbacks): the reasons of the
  calls that fell back to a smaller granule than one the walk considered,
  "none" where the series mapped 4K bytes but considered nothing larger;
  the run must agree with the kernel's own vmap_mapped lines (tracefs)
  per caller, or there is no table;
- latency: the series' mapping latency (vmap_mapped's ns) p50/p99, and
  with --call-latency the whole-call latency of vmalloc() (and arm64
  ioremap()) p50/p99 on both kernels, as log2 bucket ranges.
"""
import argparse
import datetime
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from censuslog import GRANULES, Run, fallback_cell, fallback_disagreements, nonzero, row_granules  # noqa: E402

BEGIN, END = "<!-- census:begin -->", "<!-- census:end -->"


def fkey(caller, api):
    """(function [module], api): the caller without its offset."""
    if caller in ("", "?"):
        return ("(no caller: vm_map_ram areas and vmap blocks)", api)
    m = re.match(r"([^+\s]+)(?:\+0x[0-9a-f]+/0x[0-9a-f]+)?(\s+\[\S+\])?$", caller)
    return ((m.group(1) + (m.group(2) or "")) if m else caller, api)


def add(d, g):
    for k, v in g.items():
        d[k] = d.get(k, 0) + v


def pct(hist, q):
    """The log2 bucket holding quantile q of a histogram: (low, high) ns."""
    total = sum(b["count"] for b in hist)
    if not total:
        return None
    want, seen = q * total, 0
    for b in hist:
        seen += b["count"]
        if seen >= want:
            return b["low"], b["high"]
    return hist[-1]["low"], hist[-1]["high"]


def fmt_ns(v):
    if v is None:
        return "∞"
    if v < 1000:
        return "%d ns" % v
    if v < 1000000:
        return "%.3g µs" % (v / 1000.0)
    return "%.3g ms" % (v / 1e6)


def fmt_lat(hist):
    if not hist:
        return "–"
    out = []
    for q in (0.5, 0.99):
        b = pct(hist, q)
        out.append("%s–%s" % (fmt_ns(b[0]), fmt_ns(b[1] + 1 if b[1] is not None else None)))
    return " / ".join(out)


def merge_hist(dst, hist):
    for b in hist:
        k = (b["low"], b["high"])
        dst[k] = dst.get(k, 0) + b["count"]


def hist_list(d):
    return [{"low": k[0], "high": k[1], "count": v} for k, v in sorted(d.items(), key=lambda x: x[0][0])]


def fmt_bytes(n):
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return "%d MiB" % (n >> 20)
    if n >= 1 << 20:
        return "%.1f MiB" % (n / float(1 << 20))
    return "%d KiB" % (n >> 10)


def fmt_gran(g):
    g = nonzero(g)
    if not g:
        return "–"
    return ", ".join("%s %s" % (k, fmt_bytes(v)) for k, v in ((k, g[k]) for k in GRANULES if k in g))


def large(g):
    return sum(v for k, v in g.items() if k != "4K")


def fallback_text(run, d):
    """The fallback column of one row (figures of collect()) of the
    series run: "–" where the series made no mapping call, or mapped
    nothing at 4K and no call fell back."""
    feat = run.trace["features"].get("fallback", {})
    if not feat.get("available"):
        return "n/a (%s)" % (feat.get("why") or feat.get("how") or "no fallback feature")
    if not d["calls"] or not (d["fell"] or nonzero(d["traced"]).get("4K")):
        return "–"
    return fallback_cell(d["calls"], d["fell"], d["reasons"])


def empty_row():
    return {"calls": 0, "areas": 0, "traced": {}, "live_n": 0, "live": {}, "predicted": {},
            "lat": {}, "call_lat": {}, "call_n": 0, "fell": 0, "reasons": {}}


def collect(run):
    """{fkey: figures} of one run."""
    out = {}

    def row(k):
        return out.setdefault(k, empty_row())
    for (caller, api), r in run.rows().items():
        if api == "unattributed":
            continue
        d = row(fkey(caller, api))
        d["calls"] += r.get("chunks", 0) if run.patched else r.get("areas", 0)
        d["areas"] += r.get("areas", 0)
        add(d["traced"], row_granules(r))
        merge_hist(d["lat"], r.get("latency_hist_ns", []))
        merge_hist(d["call_lat"], r.get("call_latency_hist_ns", []))
        d["call_n"] += r.get("calls", 0)
        d["fell"] += r.get("fallback_calls", 0)
        add(d["reasons"], r.get("fallbacks", {}))
    snap = {int(a["start"], 16): a for a in (run.snapshot or {}).get("areas", [])}
    for a in run.new_areas():
        s = snap.get(a.start)
        if s is None or s["changed"]:
            continue
        d = row(fkey(a.caller, a.api))
        d["live_n"] += 1
        add(d["live"], s["bytes"])
        add(d["predicted"], s.get("predicted", s["bytes"]))
    return out


def table(arch, stock, series, series_run):
    keys = set(stock) | set(series)
    empty = empty_row()
    rows = []
    for k in keys:
        s, p = stock.get(k, empty), series.get(k, empty)
        # What changed: bytes mapped above 4K, live (both kernels) and traced.
        moved = large(p["live"]) - large(s["live"])
        traced_large = large(p["traced"])
        # Comparable where both kernels ended with the same live areas
        # (count and bytes): the same mappings, made of other pages.
        same = s["live_n"] and s["live_n"] == p["live_n"] and \
            sum(s["live"].values()) == sum(p["live"].values())
        pred_ok = (nonzero(s["predicted"]) == nonzero(p["live"])) if same else None
        rows.append((k, s, p, moved, traced_large, pred_ok))
    rows.sort(key=lambda r: (-abs(r[3]), -r[4], -(sum(r[2]["traced"].values()) + sum(r[1]["live"].values())),
                             r[0]))
    lines = ["### %s" % arch, "",
             "| caller | API | calls stock / series | live areas stock / series | live, stock | "
             "stock `--snapshot` prediction | live, series | series, every call traced | "
             "prediction = series | fallback reason | series mapping latency p50 / p99 | "
             "call latency p50 / p99, stock ; series |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for (name, api), s, p, moved, traced_large, pred_ok in rows:
        if not (s["calls"] or p["calls"] or s["live_n"] or p["live_n"]):
            continue
        lines.append("| `%s` | %s | %d / %d | %d / %d | %s | %s | %s | %s | %s | %s | %s | %s ; %s |" % (
            name, api, s["calls"], p["calls"], s["live_n"], p["live_n"],
            fmt_gran(s["live"]), fmt_gran(s["predicted"]) if s["live_n"] else "–",
            fmt_gran(p["live"]), fmt_gran(p["traced"]),
            ("n/c" if s["live_n"] or p["live_n"] else "–") if pred_ok is None else ("yes" if pred_ok else "**no**"),
            fallback_text(series_run, p),
            fmt_lat(hist_list(p["lat"])),
            fmt_lat(hist_list(s["call_lat"])), fmt_lat(hist_list(p["call_lat"]))))
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("logs", nargs="+")
    args = ap.parse_args()
    runs = {}
    for path in args.logs:
        r = Run(path)
        if r.trace is None or r.snapshot is None:
            sys.exit("report.py: %s: no trace or no snapshot (the run failed?)" % path)
        runs[(r.arch, "series" if r.patched else "stock")] = r
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    src = subprocess.run([os.path.join(top, "scripts/lab"), "source"], capture_output=True, text=True).stdout.strip()
    rev = subprocess.run(["git", "-C", top, "describe", "--always", "--dirty"], capture_output=True,
                         text=True).stdout.strip()
    series = ""
    cover = os.path.join(top, "kernel-patches/linux-6.12/0000-cover-letter.patch")
    if os.path.exists(cover):
        m = re.search(r"^Subject: \[PATCH (v\d+)", open(cover).read(), re.M)
        series = m.group(1) if m else ""
    # Which state of the series: its patch count and the last commit that
    # changed it (the version in the cover letter stays while it is reworked).
    patches = os.path.join(top, "kernel-patches/linux-6.12/series")
    if series and os.path.exists(patches):
        n = sum(1 for l in open(patches) if l.strip() and not l.startswith("#"))
        at = subprocess.run(["git", "-C", top, "log", "-1", "--format=%h", "--", "kernel-patches/linux-6.12"],
                            capture_output=True, text=True).stdout.strip()
        series = "%s (%d patches, `kernel-patches/linux-6.12` as of `%s`)" % (series, n, at or "?")
    out = [BEGIN, "",
           "Generated by `make census` (`tests/guest/census/report.py`) on %s from vmapscope `%s`: "
           "kernel source `%s`, the series %s; tools `%s`." % (
               datetime.date.today().isoformat(), rev, src, series or "(unknown version)",
               next(iter(runs.values())).trace["kernel"]["release"]),
           ""]
    for arch in ("x86_64", "arm64"):
        if (arch, "stock") not in runs or (arch, "series") not in runs:
            continue
        st, se = runs[(arch, "stock")], runs[(arch, "series")]
        out += ["Runs: stock `%s` (vmapstat `%s`), series `%s` (vmapstat `%s`); census-drive: %s." % (
            st.info.get("release"), st.info.get("vmapstat_options", "").replace(",", " "),
            se.info.get("release"), se.info.get("vmapstat_options", "").replace(",", " "),
            "; ".join("%s %s" % (k, v) for k, v in sorted(se.steps.items()))), ""]
        bad = [msg for ok, msg in fallback_disagreements(se) if not ok]
        if bad:
            sys.exit("report.py: %s: vmapstat's fallback reasons disagree with the kernel's vmap_mapped "
                     "lines:\n  %s" % (se.path, "\n  ".join(bad)))
        out += table(arch, collect(st), collect(se), se)
        out.append("")
    out.append(END)
    text = open(args.out).read() if os.path.exists(args.out) else "%s\n%s\n" % (BEGIN, END)
    if BEGIN not in text or END not in text:
        sys.exit("report.py: %s has no %s ... %s markers" % (args.out, BEGIN, END))
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    with open(args.out + ".tmp", "w") as f:
        f.write(head + "\n".join(out) + tail)
    os.rename(args.out + ".tmp", args.out)


if __name__ == "__main__":
    main()
