import sys, re, bisect, collections
def parse(smap, log):
    syms = []
    for l in open(smap):
        a, t, n = l.split()[:3]
        if t in 'tTwW': syms.append((int(a, 16), n))
    syms.sort(); addrs = [a for a, _ in syms]
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
            cur = None; pc = int(m.group(1), 16)
            cnt[syms[bisect.bisect_right(addrs, pc) - 1][1]] += ninsn.get(pc, 0)
    return cnt
tag = sys.argv[1]
a = parse(f'/tmp/smap-{tag}', f'/tmp/qtrace-{tag}-30.log'); b = parse(f'/tmp/smap-{tag}', f'/tmp/qtrace-{tag}-60.log')
tot = 0
for k in sorted(set(a) | set(b), key=lambda k: -(b[k] - a[k])):
    d = (b[k] - a[k]) / 30; tot += d
    if abs(d) >= 0.5 and k not in ('decay_va_pool_node',): print(f'  {k:40s} {d:8.1f}')
print('  total', tot)
