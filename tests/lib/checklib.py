"""The checkers' library, shared by every Python script of the tests (the
guest tests' host-side check*.py, the Prometheus checkers): one way to
report a check, the same lines as tests/lib/harness.sh ("ok - MSG",
"FAIL: MSG"), one count of both, the closing line "NAME: N passed,
N failed", and splitting a guest log into the sections its @@-marker lines
open.

A script imports it with its folder on sys.path:

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", "..", "lib"))
    from checklib import check, ok, fail, finish
"""
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
