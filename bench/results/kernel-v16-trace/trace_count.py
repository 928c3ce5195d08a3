#!/usr/bin/env python3
"""Count the guest's instructions from QEMU's `-d in_asm,exec,nochain` logs
(qemu-wrapper.sh), the difference between a boot with 60 timed calls and
one with 30, over 30: instructions per call.

  trace_count.py functions TAG
      per function, from /tmp/smap-TAG and /tmp/qtrace-TAG-{30,60}.log
      (trace-run.sh's outputs);
  trace_count.py blocks SYSTEM_MAP LOG30 LOG60 FUNC[,FUNC...]
      per translation block of the named functions: executions per call
      and the block's instructions.
"""
import bisect
import collections
import re
import sys

INSN = re.compile(r'^0x([0-9a-f]+):\s+((?:[0-9a-f]{2} )+)\s*(\S.*)?$')
TRACE = re.compile(r'^Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/')


def symbols(smap):
    syms = sorted((int(a, 16), n) for a, t, n in
                  (line.split()[:3] for line in open(smap)) if t in 'tTwW')
    addrs = [a for a, _ in syms]

    def sym(pc):
        i = bisect.bisect_right(addrs, pc) - 1
        return syms[i][1], pc - syms[i][0]
    return sym


def parse(log):
    """Instructions of each block (by its first PC) and its executions.
    A continuation line of a long instruction has bytes but no mnemonic."""
    ninsn, execs, cur = {}, collections.Counter(), None
    for line in open(log, errors='replace'):
        if line.startswith('IN:'):
            cur = None
            continue
        m = INSN.match(line)
        if m:
            if m.group(3):
                pc = int(m.group(1), 16)
                if cur is None:
                    cur, ninsn[pc] = pc, 0
                ninsn[cur] += 1
            continue
        m = TRACE.match(line)
        if m:
            cur = None
            execs[int(m.group(1), 16)] += 1
    return ninsn, execs


def functions(tag):
    sym = symbols(f'/tmp/smap-{tag}')
    per = []
    for n in (30, 60):
        ninsn, execs = parse(f'/tmp/qtrace-{tag}-{n}.log')
        c = collections.Counter()
        for pc, k in execs.items():
            c[sym(pc)[0]] += k * ninsn.get(pc, 0)
        per.append(c)
    a, b = per
    total = 0
    for f in sorted(set(a) | set(b), key=lambda f: a[f] - b[f]):
        d = (b[f] - a[f]) / 30
        total += d
        if abs(d) >= 0.5:
            print(f'  {f:40s} {d:8.1f}')
    print('  total', total)


def blocks(smap, log30, log60, funcs):
    sym = symbols(smap)
    n30, c30 = parse(log30)
    n60, c60 = parse(log60)
    for pc in sorted(set(c30) | set(c60)):
        f, off = sym(pc)
        d = (c60[pc] - c30[pc]) / 30
        if f in funcs and d:
            print(f'{f}+{off:#x} execs/call={d:6.2f} insns={n60.get(pc, n30.get(pc))}')


if __name__ == '__main__':
    if len(sys.argv) == 3 and sys.argv[1] == 'functions':
        functions(sys.argv[2])
    elif len(sys.argv) == 6 and sys.argv[1] == 'blocks':
        blocks(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5].split(','))
    else:
        sys.exit(__doc__)
