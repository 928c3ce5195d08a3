#!/usr/bin/env bash
# One default port, written once (PROM_DEFAULT_PORT in user/prom/prom_listen.h)
# and used everywhere: every port the README, docs/, the man pages and
# contrib/ give to --web.listen-address (or --listen), to VMAPSTAT_LISTEN,
# to a scrape target or in a /metrics URL is that one (or 0, "any free
# port", and the port a line about port 0 shows picked).  node_exporter's
# 9100 may be named in prose, in none of those places.
set -euo pipefail
. "$(dirname "$0")/../../lib/harness.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
cd "$TOPDIR"

python3 - README.md docs/*.md man/*.8 contrib/systemd/* contrib/prometheus/* <<'PY' ||
import os, re, sys
sys.path.insert(0, os.path.join("tests", "lib"))
from checklib import die, fail, finish, ok

m = re.search(r'^#define\s+PROM_DEFAULT_PORT\s+(\d+)\s*$', open("user/prom/prom_listen.h").read(), re.M)
if not m:
    die("no PROM_DEFAULT_PORT in user/prom/prom_listen.h")
port = m.group(1)
# a listen value: PORT, :PORT, ADDR:PORT, [V6]:PORT, or ADDR alone (no port: the default)
value = r'(\[[0-9a-fA-F:.]*\]|[0-9A-Za-z.]*)(?::(\d+))?'
pats = [re.compile(r'--(?:web\.listen-address|listen)(?:=|\s+)' + value + r'(?![\w.:\]])'),
        re.compile(r'VMAPSTAT_LISTEN=' + value + r'(?![\w.:\]])'),
        re.compile(r"targets: \['[^':]*:(\d+)'"),
        re.compile(r'https?://[^/\s]+:(\d+)/metrics')]
uses, bad = 0, []
for path in sys.argv[1:]:
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.replace("\\-", "-")     # roff's "\-"
        if "free port" in line or "port 0" in line.lower():
            continue
        for i, p in enumerate(pats):
            for mm in p.finditer(line):
                if i < 2:
                    host, got = mm.group(1), mm.group(2)
                    if got is None:
                        if host.isdigit():
                            got = host          # PORT alone
                        else:
                            continue            # ADDR alone: the default port
                else:
                    got = mm.group(1)
                uses += 1
                if got not in (port, "0"):
                    bad.append("%s:%d: %s" % (path, n, mm.group(0)))
if not uses:
    die("no port found in the documents (the patterns are wrong)")
for b in bad:
    fail("a port other than the default %s: %s" % (port, b))
if not bad:
    ok("%d ports in the documents and the unit are the default %s (or 0)" % (uses, port))
sys.exit(finish("test_default_port.py"))
PY
	fail "ports in the documents"
pass "one default port everywhere"
finish
