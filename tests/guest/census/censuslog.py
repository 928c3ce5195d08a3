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

    def rows(self):
        """Traced rows by (caller, api)."""
        return {(r.get("caller", ""), r["api"]): r for r in (self.trace or {}).get("rows", [])}

    def new_areas(self):
        """Areas live at the end of the traced run that were not there
        before it (same range and caller)."""
        old = {a.ident for a in self.before}
        return [a for a in self.after if a.ident not in old]
