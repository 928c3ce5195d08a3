#!/bin/sh
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs none $T
echo 8192 > $T/buffer_size_kb
for e in mm_compaction_begin mm_compaction_end mm_compaction_try_to_compact_pages mm_compaction_suitable mm_compaction_finished mm_compaction_defer_compaction mm_compaction_deferred mm_compaction_kcompactd_wake mm_compaction_wakeup_kcompactd; do echo 1 > $T/events/compaction/$e/enable 2>/dev/null; done
echo 1 > $T/events/vmscan/mm_vmscan_kswapd_wake/enable
echo 1 > $T/events/vmscan/mm_vmscan_kswapd_sleep/enable
echo 1 > $T/events/vmscan/mm_vmscan_wakeup_kswapd/enable
echo > $T/trace
B=/opt/vmapscope/kmod/vmap_bench.ko
dmesg -c >/dev/null
/opt/vmapscope/bin/kload -e 11 $B iters=30 cases=frag >/dev/null
echo 0 > $T/tracing_on
dmesg | grep -E 'kvmalloc_frag_128K metric=(inst|compact_stall)|kvmalloc_frag_128K:' | sed 's/.*metric=/metric=/;s/ p10.*total=/ total=/'
echo "=== TRACE"
cat $T/trace | grep -v '^#'
