#!/bin/sh
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs none $T
echo 'size == 131072' > $T/events/vmalloc/vmap_mapped/filter
echo 1 > $T/events/vmalloc/vmap_mapped/enable
echo > $T/trace
B=/opt/vmapscope/kmod/vmap_bench.ko
dmesg -c >/dev/null
/opt/vmapscope/bin/kload -e 11 $B iters=30 cases=kvmalloc_frag_128K >/dev/null
echo 0 > $T/events/vmalloc/vmap_mapped/enable
dmesg | grep -E 'kvmalloc_frag_128K metric=(inst|compact_stall)' | sed 's/.*metric=/metric=/;s/ p10.*total=/ total=/'
echo "events: $(grep -c vmap_mapped $T/trace) with_blocks: $(grep vmap_mapped $T/trace | grep -vc 'pte_block=0 ')"
grep vmap_mapped $T/trace | grep -v 'pte_block=0 ' | head -2 | sed 's/.*vmap_mapped: //' | cut -c1-150
