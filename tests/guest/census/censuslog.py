"""Read a census guest log (tests/guest/census/guest.sh): the files it
prints between @@CENSUS-BEGIN/END markers, parsed.  Shared by check.py
(make check) and report.py (make census)."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from checklib import ptdump_leaves  # noqa: E402

K = 1024
M = 1024 * K
# vmapstat's granule labels (user/lib/granule.c), 4K pages, by shift.
SHIFT_LABEL = {12: "4K", 16: "64K cont", 21: "2M PMD", 25: "32M cont PMD", 30: "1G PUD"}
GRANULES = list(SHIFT_LABEL.values())
API_ORDER = ("vm_map_ram", "ioremap", "vmalloc", "vmap")


def nonzero(d):
    """{granule: bytes} without the zero entries."""
    return {g: d.get(g, 0) for g in GRANULES if d.get(g, 0)}


class Area:
    __slots__ = ("start", "end", "size", "caller", "api", "pages", "words")

    def __init__(self, start, end, size, caller, api, pages, words):
        self.start, self.end, self.size = start, end, size
        self.caller, self.api, self.pages, self.words = caller, api, pages, words

    @property
    def key(self):
        return (self.caller, self.api)

    @property
    def ident(self):
        return (self.start, self.end, self.caller)

    @property
    def mapped(self):
        """Bytes a mapping call maps: pages= where the line has it, else
        the area less its guard page (ioremap areas have no pages=)."""
        if self.pages is not None:
            return self.pages * 4096
        if self.api == "vm_map_ram":
            return self.size
        return self.size - 4096


def parse_vmallocinfo(text):
    """Areas of /proc/vmallocinfo, lazily freed ones left out; the API is
    vmapstat's rule for the flag words (vm_map_ram > ioremap > vmalloc >
    vmap > other), the caller as the kernel prints it ("" for vm_map_ram)."""
    areas = []
    for line in text.splitlines():
        m = re.match(r"0x([0-9a-f]+)-0x([0-9a-f]+)\s+(\d+)\s*(.*)$", line)
        if not m:
            continue
        start, end, size, rest = int(m.group(1), 16), int(m.group(2), 16), int(m.group(3)), m.group(4)
        if rest.startswith("unpurged"):
            continue
        words = rest.split()
        if words and words[0] == "vm_map_ram":
            areas.append(Area(start, end, size, "", "vm_map_ram", None, ["vm_map_ram"]))
            continue
        caller = ""
        if words and not re.match(r"(pages|phys)=|N\d+=", words[0]) and words[0] not in (
                "ioremap", "vmalloc", "vmap", "user", "dma-coherent", "sparse", "vpages"):
            caller = words.pop(0)
            if words and words[0].startswith("[") and words[0].endswith("]"):
                caller += " " + words.pop(0)
        pages = None
        for w in words:
            if w.startswith("pages="):
                pages = int(w[6:])
        api = next((a for a in API_ORDER if a in words), "other")
        areas.append(Area(start, end, size, caller, api, pages, words))
    return areas


def parse_kwalk(text):
    """census-kwalk output: {(start, end): ({granule: bytes}, holes)}."""
    out = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) < 3 or not f[0].startswith("0x"):
            continue
        d = dict(x.split("=") for x in f[2:])
        g = {SHIFT_LABEL[int(k[1:])]: int(v) for k, v in d.items() if k.startswith("s")}
        out[(int(f[0], 16), int(f[1], 16))] = (nonzero(g), int(d["holes"]))
    return out


def row_granules(row):
    return nonzero({g["label"]: g["bytes"] for g in row.get("granules", [])})


def func(caller):
    """The caller without its offset: "f+0x1/0x2 [mod]" -> "f [mod]"."""
    name, _, rest = caller.partition("+")
    mod = rest.split(" ", 1)[1] if " " in rest else ""
    return name + (" " + mod if mod else "")


def unresolved(name):
    """A caller %pS printed as an address (its module unloaded before the
    trace was read)."""
    return re.match(r"0x[0-9a-f]+$", name) is not None


def parse_tracefs(text):
    """phase.sh's count of the kernel's vmap_mapped lines (tracefs):
    ({(caller function, api): {"calls": n, "fallback_calls": n,
    "fallbacks": {reason: n}}}, {"overrun": n, "lines": n}), or (None, {})
    when the run has none (a stock kernel)."""
    if not text.strip():
        return None, {}
    out, meta = {}, {}
    for line in text.splitlines():
        f = line.split()
        if f and f[0].startswith("overrun="):
            meta = {k: int(v) for k, v in (x.split("=") for x in f)}
            continue
        if len(f) < 4 or not f[0].isdigit():
            continue
        n, api, reasons, caller = int(f[0]), f[1], f[2], " ".join(f[3:])
        d = out.setdefault((caller, api), {"calls": 0, "fallback_calls": 0, "fallbacks": {}})
        d["calls"] += n
        if reasons != "none":
            d["fallback_calls"] += n
            for r in reasons.split("|"):
                d["fallbacks"][r] = d["fallbacks"].get(r, 0) + n
    return out, meta


def fallback_cell(calls, fell, reasons):
    """The census' fallback column for mapping calls of one caller: the
    reasons of the calls that fell back, each with its number of calls (a
    call counts once per reason it had), out of how many calls; "none"
    when the walks considered no larger granule for any call."""
    if not fell:
        return "none"
    return "%s (%d of %d calls)" % (", ".join("%s %d" % (r, n) for r, n in sorted(
        reasons.items(), key=lambda x: (-x[1], x[0])) if n), fell, calls)


def fallbacks_of(rows):
    """vmapstat's fallback counts of traced rows per (caller function,
    API), in parse_tracefs()'s form."""
    out = {}
    for (caller, api), r in rows.items():
        if api == "unattributed":
            continue
        d = out.setdefault((func(caller), api), {"calls": 0, "fallback_calls": 0, "fallbacks": {}})
        d["calls"] += r.get("chunks", 0)
        d["fallback_calls"] += r.get("fallback_calls", 0)
        for k, v in r.get("fallbacks", {}).items():
            d["fallbacks"][k] = d["fallbacks"].get(k, 0) + v
    return out


def fell_back(d):
    """(calls that fell back, {reason: calls}) without zero reasons."""
    return d["fallback_calls"], {k: v for k, v in d["fallbacks"].items() if v}


def fallback_disagreements(run):
    """vmapstat's fallback reasons against the kernel's own vmap_mapped
    lines of the same run (tracefs, inside vmapstat's traced run):
    [(ok, message)].  Per caller that tracefs named, the calls that fell
    back and their reasons must be equal; the callers tracefs could only
    print as an address (their module unloaded) must account, together,
    for vmapstat's callers it did not name; and over the run, per reason.
    Calls are not compared: vmapstat's run starts earlier and ends later
    (its own start-up maps only order-0 pages, which never fall back)."""
    out = []
    feat = (run.trace or {}).get("features", {}).get("fallback", {})
    out.append((bool(feat.get("available")), "vmapstat reports fallback reasons (features.fallback: %s%s)" %
                (feat.get("how"), ", " + feat["why"] if feat.get("why") else "")))
    if run.tracefs is None:
        out.append((False, "the kernel's vmap_mapped lines (tracefs) are in the log"))
        return out
    meta = run.tracefs_meta
    counted = sum(d["calls"] for d in run.tracefs.values())
    out.append((meta.get("overrun") == 0 and meta.get("lines") == counted and counted > 0,
                "tracefs: %s vmap_mapped lines, %d parsed, %s overrun" %
                (meta.get("lines"), counted, meta.get("overrun"))))
    mine = fallbacks_of(run.rows())
    named = {k: v for k, v in run.tracefs.items() if not unresolved(k[0])}
    pool = {"calls": 0, "fallback_calls": 0, "fallbacks": {}}
    for k, v in run.tracefs.items():
        if unresolved(k[0]):
            pool["calls"] += v["calls"]
            pool["fallback_calls"] += v["fallback_calls"]
            for r, n in v["fallbacks"].items():
                pool["fallbacks"][r] = pool["fallbacks"].get(r, 0) + n
    zero = {"calls": 0, "fallback_calls": 0, "fallbacks": {}}
    rest = {"calls": 0, "fallback_calls": 0, "fallbacks": {}}
    for k in sorted(set(named) | {k for k, v in mine.items() if v["fallback_calls"]}):
        got = mine.get(k, zero)
        if k not in named and pool["calls"]:
            rest["fallback_calls"] += got["fallback_calls"]
            for r, n in got["fallbacks"].items():
                rest["fallbacks"][r] = rest["fallbacks"].get(r, 0) + n
            continue
        want = named.get(k, zero)
        out.append((fell_back(got) == fell_back(want),
                    "fallback reasons of %s %s: vmapstat %s, tracefs %s" % (
                        k[0], k[1], fallback_cell(got["calls"], *fell_back(got)),
                        fallback_cell(want["calls"], *fell_back(want)))))
    if pool["calls"]:
        out.append((fell_back(rest) == fell_back(pool),
                    "fallback reasons of the callers tracefs printed as addresses: vmapstat %s, tracefs %s" % (
                        fell_back(rest), fell_back(pool))))
    total = {"calls": 0, "fallback_calls": 0, "fallbacks": {}}
    for v in mine.values():
        total["fallback_calls"] += v["fallback_calls"]
        for r, n in v["fallbacks"].items():
            total["fallbacks"][r] = total["fallbacks"].get(r, 0) + n
    want = {"calls": 0, "fallback_calls": sum(v["fallback_calls"] for v in run.tracefs.values()),
            "fallbacks": {}}
    for v in run.tracefs.values():
        for r, n in v["fallbacks"].items():
            want["fallbacks"][r] = want["fallbacks"].get(r, 0) + n
    out.append((fell_back(total) == fell_back(want),
                "fallback reasons over the run: vmapstat %s, tracefs %s" % (fell_back(total), fell_back(want))))
    return out


class Run:
    """One guest run: info, census-drive's steps, the traced rows, the
    vmallocinfo lists, the audit, the walks."""

    def __init__(self, path):
        text = open(path, errors="replace").read()
        self.path = path
        self.files = {}
        for m in re.finditer(r"^@@CENSUS-BEGIN (\S+)\n(.*?)^@@CENSUS-END \1$", text, re.S | re.M):
            self.files[m.group(1)] = m.group(2)
        self.info = {}
        for line in re.findall(r"^@@CENSUS-INFO (.*)$", text, re.M):
            for k, v in re.findall(r"(\w+)=(\S+)", line):
                self.info[k] = v
        self.patched = self.info.get("patched") == "1"
        self.arch = self.info.get("arch", "?").replace("aarch64", "arm64")
        self.steps = {}
        for step, rest in re.findall(r"^@@CENSUS-DRIVE (\S+) (.*)$", self.files.get("drive.log", ""), re.M):
            self.steps[step] = rest
        self.trace = None
        lines = [l for l in self.files.get("trace.json", "").splitlines() if l.startswith("{")]
        if lines:
            self.trace = json.loads(lines[-1])
        self.snapshot = None
        lines = [l for l in self.files.get("snapshot.json", "").splitlines() if l.startswith("{")]
        if lines:
            self.snapshot = json.loads(lines[-1])
        self.before = parse_vmallocinfo(self.files.get("vmallocinfo-before", ""))
        self.after = parse_vmallocinfo(self.files.get("vmallocinfo-after", ""))
        self.end = parse_vmallocinfo(self.files.get("vmallocinfo-end", ""))
        self.kwalk = parse_kwalk(self.files.get("kwalk", ""))
        self.ptdump = ptdump_leaves(self.files["ptdump"]) if "ptdump" in self.files else None
        self.tracefs, self.tracefs_meta = parse_tracefs(self.files.get("tracefs-mapped", ""))

    def rows(self):
        """Traced rows by (caller, api)."""
        return {(r.get("caller", ""), r["api"]): r for r in (self.trace or {}).get("rows", [])}

    def new_areas(self):
        """Areas live at the end of the traced run that were not there
        before it (same range and caller)."""
        old = {a.ident for a in self.before}
        return [a for a in self.after if a.ident not in old]
