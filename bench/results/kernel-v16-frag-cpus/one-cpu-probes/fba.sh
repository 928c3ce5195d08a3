#!/bin/sh
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs none $T
echo 'r:fba free_block_available ret=$retval' >> $T/kprobe_events
echo 1 > $T/events/kprobes/fba/enable
echo 'order == 4' > $T/events/kmem/mm_page_alloc/filter
echo 1 > $T/events/kmem/mm_page_alloc/enable
echo 1 > $T/events/vmalloc/vmap_mapped/enable
echo > $T/trace
B=/opt/vmapscope/kmod/vmap_bench.ko
dmesg -c >/dev/null
/opt/vmapscope/bin/kload -e 11 $B iters=30 cases=frag >/dev/null
echo 0 > $T/tracing_on
dmesg | grep -E 'kvmalloc_frag_(128K|1M) metric=(inst|compact_stall)' | sed 's/.*case=//;s/ p10.*total=/ total=/'
echo "fba calls: $(grep -c 'fba:' $T/trace) true: $(grep 'fba:' $T/trace | grep -vc 'ret=0x0')"
echo "order4 allocs: $(grep -c mm_page_alloc: $T/trace)"
echo "vmap_mapped: $(grep -c vmap_mapped: $T/trace) with blocks: $(grep vmap_mapped: $T/trace | grep -vc 'pte_block=0 ')"
grep vmap_mapped: $T/trace | awk '{for(i=1;i<=NF;i++) if ($i ~ /^(size|api|pte_block|fallbacks)=/) printf "%s ", $i; print ""}' | sort | uniq -c
