#!/bin/sh
# Where the floor's cost goes (docs/benchmarks.md, "Tool overhead"), inside
# a lab guest: the small workload (tests/kmod/overhead_workload: ROUNDS
# rounds of a 16-page vmap() and a 64K vmalloc(), two mapping calls per
# round, each written as one run) under configurations that switch on one
# part of the series' event path at a time.  Not a test.
#   off        no tool, the events' static key off
#   key        vmap_huge_block enabled in tracefs (tracing_on=0): the key
#              on, so every call fills its tally; no clock read (that is
#              vmap_mapped's), and no event fires (no block here)
#   floor-key  the same through one empty BPF program on vmap_huge_block
#   floor-run  one empty program on vmap_set_ptes: the tally and one
#              four-argument event per call (one run each), no clock
#   floor      one empty program on vmap_mapped (bench.sh's floor): the
#              tally, the two local_clock() reads, one twelve-argument
#              event per call
#   vmapstat   vmapstat's default
#   perfstat   perf stat -a -e vmalloc:vmap_mapped (when the guest has perf)
# Each measured run is the last of SETTLE_RUNS + 1 runs of one process, as
# in bench.sh; the configurations interleave, RUNS repetitions.
# Output: @@PART cfg=CFG rep=R ns=NS, then per configuration
# @@PARTSUM cfg=CFG per_call=N lo=N hi=N (instructions per mapping call over
# off under -icount: median, min and max of the per-repetition differences).
RUNS=${RUNS:-11}
ROUNDS=${ROUNDS:-2000}
SETTLE_RUNS=${SETTLE_RUNS:-3}
KO=/opt/vmapscope/kmod/overhead_workload.ko
P=/sys/module/overhead_workload/parameters
T=/sys/kernel/tracing
E=$T/events/vmalloc

[ -f $KO ] || { echo "no $KO (lab kmod not run?)"; exit 1; }
[ -d $E/vmap_mapped ] || { echo "kernel lacks vmalloc:vmap_mapped (not patched?)"; exit 1; }
kload $KO vmap_pages=16 vmalloc_size=65536 >/dev/null || { echo "cannot load $KO"; exit 1; }
echo "@@INFO kernel=$(uname -r) arch=$(uname -m) rounds=$ROUNDS runs=$RUNS"
WORK="i=0; while [ \$i -le $SETTLE_RUNS ]; do echo $ROUNDS >$P/run; i=\$((i + 1)); done"
out() { echo "@@PART cfg=$1 rep=$r ns=$(cat $P/last_ns)"; }
echo 0 >$T/tracing_on
r=1
while [ $r -le "$RUNS" ]; do
	sh -c "$WORK" || exit 1
	out off
	echo 1 >$E/vmap_huge_block/enable
	sh -c "$WORK"
	echo 0 >$E/vmap_huge_block/enable
	out key
	vmapscope-floor -t vmap_huge_block -- sh -c "$WORK" >/dev/null 2>&1 || exit 1
	out floor-key
	vmapscope-floor -t vmap_set_ptes -- sh -c "$WORK" >/dev/null 2>&1 || exit 1
	out floor-run
	vmapscope-floor -t vmap_mapped -- sh -c "$WORK" >/dev/null 2>&1 || exit 1
	out floor
	vmapstat -j -- sh -c "$WORK" >/dev/null 2>&1 || exit 1
	out vmapstat
	if command -v perf >/dev/null; then
		perf stat -a -x, -o /tmp/ps.txt -e vmalloc:vmap_mapped -- sh -c "$WORK" || exit 1
		out perfstat
	fi
	r=$((r + 1))
done >/tmp/parts.txt
cat /tmp/parts.txt
calls=$((ROUNDS * 2))
for cfg in key floor-key floor-run floor vmapstat perfstat; do
	awk -v c=$cfg -v calls=$calls '
		{ split($2, a, "="); split($3, b, "="); split($4, n, "=") }
		a[2] == "off" { off[b[2]] = n[2] }
		a[2] == c { v[b[2]] = n[2] }
		END {
			k = 0
			for (r in v) if (r in off) d[++k] = (v[r] - off[r]) / calls
			if (!k) exit
			for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
				if (d[j] < d[i]) { t = d[i]; d[i] = d[j]; d[j] = t }
			m = k % 2 ? d[(k + 1) / 2] : (d[k / 2] + d[k / 2 + 1]) / 2
			printf "@@PARTSUM cfg=%s per_call=%.0f lo=%.0f hi=%.0f\n", c, m, d[1], d[k]
		}' /tmp/parts.txt
done
rmmod overhead_workload
echo "@@DONE"
