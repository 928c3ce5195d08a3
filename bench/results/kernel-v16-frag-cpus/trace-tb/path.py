import sys, bisect
tag, callno = sys.argv[1], int(sys.argv[2])
syms = sorted((int(a, 16), n) for a, t, n in (l.split()[:3] for l in open(f'/tmp/smap-{tag}')) if t in 'tTwW')
addrs = [a for a, _ in syms]; byname = {n: a for a, n in syms}
def sym(pc): return syms[bisect.bisect_right(addrs, pc) - 1][1]
kv, kf = byname['__kvmalloc_node_noprof'], byname['kvfree']
# count kvmalloc entries first
n = 0
with open(f'/tmp/qt-{tag}.log', errors='replace') as f:
    for line in f:
        if line[0] == 'T' and ('/%x/' % kv) in line: n += 1
target = n - 60 + callno  # 1-based within the last 60
k = 0; on = False; seq = []
with open(f'/tmp/qt-{tag}.log', errors='replace') as f:
    for line in f:
        if line[0] != 'T': continue
        i = line.index('/') + 1
        pc = int(line[i:line.index('/', i)], 16)
        if pc == kv:
            k += 1; on = (k == target)
        elif pc == kf and on:
            break
        if on:
            s = sym(pc)
            if not seq or seq[-1][0] != s: seq.append([s, 1])
            else: seq[-1][1] += 1
idx = [i for i, (s, _) in enumerate(seq) if s == 'try_to_steal_block']
print('call', callno, 'segments', len(seq), 'steal at', idx[:5])
for i in idx[:2]:
    print(' -> '.join(f'{s}' for s, c in seq[max(0, i-25):i+3]))
    print()
