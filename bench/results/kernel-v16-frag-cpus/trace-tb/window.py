"""Per-function instructions inside the timed kvmalloc() calls: from each
exec of __kvmalloc_node_noprof's entry block to the next exec of kvfree's.
Calls 1-30 = kvmalloc_frag_128K, 31-60 = kvmalloc_frag_1M."""
import sys, collections, pickle, bisect
tag = sys.argv[1]
syms = sorted((int(a, 16), n) for a, t, n in (l.split()[:3] for l in open(f'/tmp/smap-{tag}')) if t in 'tTwW')
addrs = [a for a, _ in syms]
byname = {n: a for a, n in syms}
def sym(pc):
    return syms[bisect.bisect_right(addrs, pc) - 1][1]
log = f'/tmp/qt-{tag}.log'
ninsn = {}; cur = None
with open(log, errors='replace') as f:
    for line in f:
        c0 = line[0]
        if c0 == '0':
            if cur is None:
                cur = int(line[2:18], 16); cnt = 0
            cnt += 1
            if cnt > ninsn.get(cur, 0): ninsn[cur] = cnt
        else:
            cur = None
kv, kf = byname['__kvmalloc_node_noprof'], byname['kvfree']
calls = []  # per call: Counter of function -> insns
win = None
with open(log, errors='replace') as f:
    for line in f:
        if line[0] != 'T': continue
        i = line.index('/') + 1
        pc = int(line[i:line.index('/', i)], 16)
        if pc == kv:
            win = collections.Counter(); calls.append(win)
        elif pc == kf:
            win = None
        if win is not None:
            win[sym(pc)] += ninsn.get(pc, 0)
pickle.dump(calls, open(f'/tmp/qtw-{tag}.pkl', 'wb'))
print(tag, len(calls), 'calls; per-call totals:', [sum(c.values()) for c in calls[:60]])
