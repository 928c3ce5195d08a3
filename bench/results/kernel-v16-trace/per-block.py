import sys, re, bisect, collections
smap, log30, log60, funcs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(',')
syms = []
for l in open(smap):
    a, t, n = l.split()[:3]
    if t in 'tTwW': syms.append((int(a, 16), n))
syms.sort(); addrs = [a for a, _ in syms]
def sym(pc):
    i = bisect.bisect_right(addrs, pc) - 1
    return syms[i][1], pc - syms[i][0]
def parse(log):
    ninsn = {}; cnt = collections.Counter(); cur = None
    for l in open(log, errors='replace'):
        if l.startswith('IN:'):
            cur = None; continue
        m = re.match(r'^0x([0-9a-f]+):\s+((?:[0-9a-f]{2} )+)\s*(\S.*)?$', l)
        if m:
            pc = int(m.group(1), 16)
            if m.group(3):
                if cur is None: cur = pc; ninsn[cur] = 0
                ninsn[cur] += 1
            continue
        m = re.match(r'^Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/', l)
        if m:
            cur = None
            cnt[int(m.group(1), 16)] += 1
    return ninsn, cnt
n30, c30 = parse(log30); n60, c60 = parse(log60)
for pc in sorted(set(c30) | set(c60)):
    f, off = sym(pc)
    if f not in funcs: continue
    d = (c60[pc] - c30[pc]) / 30
    if d: print(f'{f}+{off:#x} execs/call={d:6.2f} insns={n60.get(pc, n30.get(pc))}')
