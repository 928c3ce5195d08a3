"""The checkers' library, shared by every Python script of the tests (the
guest tests' host-side check*.py, the Prometheus checkers): one way to
report a check, the same lines as tests/lib/harness.sh ("ok - MSG",
"FAIL: MSG"), one count of both, the closing line "NAME: N passed,
N failed", splitting a guest log into the sections its @@-marker lines
open, and reading the x86_64 kernel's page-table dump.

A script imports it with its folder on sys.path:

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", "..", "lib"))
    from checklib import check, ok, fail, finish
"""
import bisect
import os
import re
import sys

failures = []
passed = 0


def ok(msg):
    """A check that held."""
    global passed
    passed += 1
    print("ok - " + msg, flush=True)


def fail(msg):
    """A check that did not; counted, the script goes on."""
    failures.append(msg)
    print("FAIL: " + msg, flush=True)


def check(cond, msg):
    """ok(msg) when cond holds, else fail(msg); returns cond."""
    if cond:
        ok(msg)
    else:
        fail(msg)
    return bool(cond)


def finish(name=None):
    """Print the closing line; the exit status: 1 if anything failed."""
    name = name or os.path.basename(sys.argv[0])
    print(f"{name}: {passed} passed, {len(failures)} failed", flush=True)
    return 1 if failures else 0


def die(msg, name=None):
    """A failure after which nothing more can be checked: fail, finish, exit."""
    fail(msg)
    sys.exit(finish(name))


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
