#!/bin/sh
# Cost of the series' tracepoints per mapping call, in the guest (run under
# "lab run --icount": guest time is one ns per instruction).  The workload is
# tests/kmod/overhead_workload (ROUNDS rounds of vmap() of VMAP_PAGES order-0
# pages + vmalloc(VMALLOC_SIZE): two mapping calls per round), timed by the
# module, RUNS times each configuration, interleaved:
#   off            no event enabled
#   mapped-nocons  vmap_mapped enabled, tracing off (the event fires and
#                  finds no buffer: the tracepoint, its arguments, the two
#                  clock reads and, on v8 to v12, the read-back of the page
#                  tables, then the walk's tally)
#   mapped-trace   vmap_mapped recorded in the ring buffer
#   perrun-nocons  the per-call event + vmap_set_ptes + vmap_huge_block
#                  (+ vmap_granule where the kernel has it), tracing off
#                  (every event of the series: the per-call event is
#                  vmap_mapped, on v7 vmap_chunk)
#   perrun-trace   the same, recorded
# The mapped-* rows are skipped on kernels without vmap_mapped (v7).
# Prints "@@COST cfg=C median_ns=N per_call=I events_per_call=E" per
# configuration: per_call = (median - median of off) / (2 * ROUNDS).
KO=/opt/vmapscope/kmod/overhead_workload.ko
P=/sys/module/overhead_workload/parameters
T=/sys/kernel/tracing
E=$T/events/vmalloc
RUNS=${RUNS:-11} ROUNDS=${ROUNDS:-1000}
VMAP_PAGES=${VMAP_PAGES:-16} VMALLOC_SIZE=${VMALLOC_SIZE:-65536}

[ -f $KO ] || { echo "no $KO"; exit 1; }
kload $KO vmap_pages=$VMAP_PAGES vmalloc_size=$VMALLOC_SIZE >/dev/null || { echo "cannot load $KO"; exit 1; }
CFGS="off perrun-nocons perrun-trace"
CALL_EV=vmap_chunk
[ -d $E/vmap_mapped ] && CFGS="$CFGS mapped-nocons mapped-trace" CALL_EV=vmap_mapped
RUN_EVS="vmap_set_ptes vmap_huge_block"
[ -d $E/vmap_granule ] && RUN_EVS="$RUN_EVS vmap_granule"
echo "@@INFO kernel=$(uname -r) arch=$(uname -m) rounds=$ROUNDS runs=$RUNS vmap_pages=$VMAP_PAGES vmalloc_size=$VMALLOC_SIZE cfgs=$CFGS per_call_event=$CALL_EV"
echo 8192 >$T/buffer_size_kb

evs() {	# evs CFG: the events of a configuration
	case $1 in
	mapped-*) echo vmap_mapped ;;
	perrun-*) echo $CALL_EV $RUN_EVS ;;
	esac
}
one() {	# one CFG: print the workload's time with CFG
	case $1 in *-trace) echo 1 >$T/tracing_on ;; *) echo 0 >$T/tracing_on ;; esac
	echo >$T/trace
	for e in $(evs "$1"); do echo 1 >$E/$e/enable; done
	echo "$ROUNDS" >$P/run || exit 1
	for e in $(evs "$1"); do echo 0 >$E/$e/enable; done
	echo 0 >$T/tracing_on
	n=0
	case $1 in *-trace) n=$(grep -cE ' vmap_(mapped|chunk|set_ptes|huge_block|granule): ' $T/trace) ;; esac
	echo "$1 $(cat $P/last_ns) $n"
}

: >/tmp/cost.txt
r=0
while [ $r -lt "$RUNS" ]; do
	for c in $CFGS; do one "$c" >>/tmp/cost.txt; done
	r=$((r + 1))
done
rmmod overhead_workload
grep -q ' 0 0$' /tmp/cost.txt && { echo "a run took 0 ns"; exit 1; }

med() { awk -v c="$1" '$1 == c { print $2 }' /tmp/cost.txt | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
off=$(med off)
for c in $CFGS; do
	m=$(med "$c")
	ev=$(awk -v c="$c" '$1 == c { n = $3 } END { print n + 0 }' /tmp/cost.txt)
	awk -v c="$c" -v m="$m" -v off="$off" -v r="$ROUNDS" -v ev="$ev" 'BEGIN {
		printf "@@COST cfg=%s median_ns=%d per_call=%.0f events_per_call=%.2f\n", c, m, (m - off) / (2 * r), ev / (2 * r) }'
done
echo "@@DONE"
