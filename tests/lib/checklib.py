"""Helpers shared by the guest tests' host-side checkers (check.py files):
one failure list, one way to report a check, and splitting a guest log
into the sections its @@-marker lines open."""
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
