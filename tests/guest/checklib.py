"""Helpers shared by the guest tests' host-side checkers (check.py files):
one failure list, one way to report a check, splitting a guest log into
the sections its @@-marker lines open, and reading the x86_64 kernel's
page-table dump."""
import bisect
import re

failures = []


def check(cond, msg):
    print(("ok:   " if cond else "FAIL: ") + msg)
    if not cond:
        failures.append(msg)


def sections(text, marker):
    """{name: [lines]}: a line matching marker (a regex whose group 1 is the
    section name and group 2 the rest of the line) starts a section; the
    rest of the line, if any, is its first line."""
    out, cur = {}, None
    for line in text.splitlines():
        m = re.match(marker, line)
        if m:
            cur = m.group(1)
            out.setdefault(cur, [])
            if m.group(2):
                out[cur].append(m.group(2))
            continue
        if cur:
            out[cur].append(line)
    return out


def ptdump_leaves(text):
    """The present leaf ranges of /sys/kernel/debug/page_tables/kernel
    (x86_64), sorted: [(lo, hi, granule)], granules labelled as vmapstat
    labels them."""
    level_label = {"pte": "4K", "pmd": "2M PMD", "pud": "1G PUD"}
    ranges = []
    for m in re.finditer(r"^0x([0-9a-f]+)-0x([0-9a-f]+)\s+\S+\s+(.*?)\s(pte|pmd|pud|p4d|pgd)\s*$",
                         text, re.M):
        if re.search(r"\b(RW|ro)\b", m.group(3)) and m.group(4) in level_label:
            ranges.append((int(m.group(1), 16), int(m.group(2), 16), level_label[m.group(4)]))
    ranges.sort()
    return ranges


def leaf_bytes(ranges, starts, lo, hi):
    """{granule: bytes} of the leaf ranges inside [lo, hi); starts are the
    ranges' first addresses, for the search."""
    got = {}
    i = max(0, bisect.bisect_right(starts, lo) - 1)
    while i < len(ranges) and ranges[i][0] < hi:
        rlo, rhi, label = ranges[i]
        ov = min(hi, rhi) - max(lo, rlo)
        if ov > 0:
            got[label] = got.get(label, 0) + ov
        i += 1
    return got
