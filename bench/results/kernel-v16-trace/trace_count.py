#!/usr/bin/env python3
"""Count the guest's instructions from QEMU's `-d in_asm,exec,nochain` logs
(qemu-wrapper.sh; x86_64 and arm64).

  trace_count.py functions TAG
      per function, the difference between a boot with 60 timed calls and
      one with 30, over 30: instructions per call, from /tmp/smap-TAG and
      /tmp/qtrace-TAG-{30,60}.log (trace-run.sh's outputs);
  trace_count.py blocks SYSTEM_MAP LOG30 LOG60 FUNC[,FUNC...]
      per translation block of the named functions: executions per call
      and the block's instructions;
  trace_count.py window START END FROM:TO SYSTEM_MAP:LOG:LO-HI...
      the windows from each execution of START's entry to the next of
      END's (a timed call: __kvmalloc_node_noprof to kvfree), those FROM:TO
      (a Python slice, e.g. -60:-30) whose total is within LO-HI; per
      function, the instructions per window, one column per log, sorted by
      the difference between the first two;
  trace_count.py path SYSTEM_MAP LOG START END INDEX FUNC
      in window INDEX (counted as by window), the functions run before
      each of FUNC's first two entries.
"""
import bisect
import collections
import re
import sys

# x86_64 logs an instruction's bytes in pairs, arm64 one 32-bit word.
INSN = re.compile(r'^0x([0-9a-f]+):\s+((?:[0-9a-f]{2} )+|[0-9a-f]{8}\s)\s*(\S.*)?$')
TRACE = re.compile(r'^Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/')


def symbols(smap):
    syms = sorted((int(a, 16), n) for a, t, n in
                  (line.split()[:3] for line in open(smap)) if t in 'tTwW')
    addrs = [a for a, _ in syms]

    def sym(pc):
        i = bisect.bisect_right(addrs, pc) - 1
        return syms[i][1], pc - syms[i][0]
    return sym


def address(smap, name):
    for line in open(smap):
        a, _, n = line.split()[:3]
        if n == name:
            return int(a, 16)
    sys.exit(f'trace_count.py: no symbol {name} in {smap}')


def parse(log):
    """Instructions of each block (by its first PC) and its executions.
    A continuation line of a long instruction has bytes but no mnemonic.
    A block translated again (after a flush, or cut short under -icount)
    keeps its longest translation."""
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
                    cur, n = pc, 0
                n += 1
                ninsn[cur] = max(ninsn.get(cur, 0), n)
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


def windows(smap, log, start, end):
    """Per window (START's entry executed, up to END's): instructions by function."""
    sym = symbols(smap)
    ninsn, _ = parse(log)
    first, last = address(smap, start), address(smap, end)
    calls, win = [], None
    for line in open(log, errors='replace'):
        m = TRACE.match(line)
        if not m:
            continue
        pc = int(m.group(1), 16)
        if pc == first:
            win = collections.Counter()
            calls.append(win)
        elif pc == last:
            win = None
        if win is not None:
            win[sym(pc)[0]] += ninsn.get(pc, 0)
    return calls


def window(start, end, span, runs):
    lo_i, hi_i = (int(x) if x else None for x in span.split(':'))
    cols = []
    for run in runs:
        smap, log, rng = run.split(':')
        lo, hi = (int(x) for x in rng.split('-'))
        sel = [c for c in windows(smap, log, start, end)[lo_i:hi_i] if lo <= sum(c.values()) <= hi]
        if not sel:
            sys.exit(f'trace_count.py: no window of {log} within {rng}')
        total = collections.Counter()
        for c in sel:
            total.update(c)
        cols.append({f: v / len(sel) for f, v in total.items()})
        print(f'# {log}: {len(sel)} windows of {lo}-{hi} instructions')
    names = set().union(*cols)
    diff = (lambda f: cols[0].get(f, 0) - cols[1].get(f, 0)) if len(cols) > 1 else (lambda f: cols[0].get(f, 0))
    for f in sorted(names, key=lambda f: -abs(diff(f)))[:20]:
        print(f'{f:40s}' + ''.join(f' {c.get(f, 0):10.0f}' for c in cols))
    print(f'{"total":40s}' + ''.join(f' {sum(c.values()):10.0f}' for c in cols))


def path(smap, log, start, end, index, func):
    sym = symbols(smap)
    first, last = address(smap, start), address(smap, end)
    n = sum(1 for line in open(log, errors='replace')
            if (m := TRACE.match(line)) and int(m.group(1), 16) == first)
    target = index % n if index < 0 else index
    k, on, seq = -1, False, []
    for line in open(log, errors='replace'):
        m = TRACE.match(line)
        if not m:
            continue
        pc = int(m.group(1), 16)
        if pc == first:
            k += 1
            on = k == target
        elif pc == last and on:
            break
        if on:
            f = sym(pc)[0]
            if not seq or seq[-1] != f:
                seq.append(f)
    hits = [i for i, f in enumerate(seq) if f == func]
    print(f'window {index}: {len(seq)} runs of functions, {func} at {hits[:5]}')
    for i in hits[:2]:
        print(' -> '.join(seq[max(0, i - 25):i + 3]))


if __name__ == '__main__':
    if len(sys.argv) == 3 and sys.argv[1] == 'functions':
        functions(sys.argv[2])
    elif len(sys.argv) == 6 and sys.argv[1] == 'blocks':
        blocks(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5].split(','))
    elif len(sys.argv) >= 6 and sys.argv[1] == 'window':
        window(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    elif len(sys.argv) == 8 and sys.argv[1] == 'path':
        path(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]), sys.argv[7])
    else:
        sys.exit(__doc__)
