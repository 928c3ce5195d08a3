import sys, collections, pickle, bisect
tag = sys.argv[1]
syms = sorted((int(a, 16), n) for a, t, n in (l.split()[:3] for l in open(f'/tmp/smap-{tag}')) if t in 'tTwW')
addrs = [a for a, _ in syms]
def sym(pc):
    return syms[bisect.bisect_right(addrs, pc) - 1][1]
ninsn = {}; execs = collections.Counter(); cur = None; first = False
with open(f'/tmp/qt-{tag}.log', errors='replace') as f:
    for line in f:
        c0 = line[0]
        if c0 == 'T':
            execs[int(line[line.index('/') + 1:line.index('/', line.index('/') + 1)], 16)] += 1
            cur = None
        elif c0 == '0':
            if cur is None:
                cur = int(line[2:18], 16); cnt = 0
            cnt += 1
            if cnt > ninsn.get(cur, 0):
                ninsn[cur] = cnt
        elif c0 == 'I':
            cur = None
c = collections.Counter(); e = collections.Counter()
for pc, k in execs.items():
    fn = sym(pc)
    c[fn] += k * ninsn.get(pc, 0)
    e[fn] += k
pickle.dump((c, e), open(f'/tmp/qtf-{tag}.pkl', 'wb'))
print(tag, 'done', sum(c.values()), len(ninsn))
